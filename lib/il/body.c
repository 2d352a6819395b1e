/*
 * Method body parsing (ECMA-335 II.25.4, doc/profiling-abi.md#il-body). Every
 * field is read only after the bytes it occupies are known to lie inside the
 * caller's buffer; every end offset is computed in 64 bits.
 */
#include <string.h>

#include "common/bytes.h"
#include "il/decode.h"

#define SECT_EH_TABLE 0x01u
#define SECT_KIND_MASK 0x3Fu
#define SECT_FAT 0x40u
#define SECT_MORE 0x80u

static uint64_t align4(uint64_t x)
{
    return (x + 3) & ~(uint64_t)3;
}

static void read_clause(const ilmap_il_body *b, uint32_t i, ilmap_il_clause *c)
{
    if (b->eh_fat) {
        const uint8_t *p = b->eh_clauses + (size_t)i * 24;
        c->flags = rd32(p);
        c->try_offset = rd32(p + 4);
        c->try_length = rd32(p + 8);
        c->handler_offset = rd32(p + 12);
        c->handler_length = rd32(p + 16);
        c->class_or_filter = rd32(p + 20);
    } else {
        const uint8_t *p = b->eh_clauses + (size_t)i * 12;
        c->flags = rd16(p);
        c->try_offset = rd16(p + 2);
        c->try_length = p[4];
        c->handler_offset = rd16(p + 5);
        c->handler_length = p[7];
        c->class_or_filter = rd32(p + 8);
    }
}

static int clause_in_code(const ilmap_il_clause *c, uint32_t code_size)
{
    if ((uint64_t)c->try_offset + c->try_length > code_size)
        return 0;
    if ((uint64_t)c->handler_offset + c->handler_length > code_size)
        return 0;
    return !(c->flags & ILMAP_IL_CLAUSE_FILTER) || c->class_or_filter < code_size;
}

/* The data sections after the code. Only an EH table is accepted: the
 * other kind ECMA names (OptILTable) is reserved, and a rewrite that kept
 * unknown bytes after moving the code could not keep their meaning. */
static ilmap_status parse_sections(const uint8_t *data, size_t size, uint64_t pos,
                                   ilmap_il_body *b)
{
    int have_eh = 0;

    for (;;) {
        pos = align4(pos);
        if (pos + 4 > size)
            return ILMAP_E_IL_TRUNCATED;
        uint8_t kind = data[pos];
        int fat = (kind & SECT_FAT) != 0;
        uint32_t data_size = fat ? rd24(data + pos + 1) : data[pos + 1];
        uint32_t clause_size = fat ? 24 : 12;
        if ((kind & SECT_KIND_MASK) != SECT_EH_TABLE || have_eh)
            return ILMAP_E_IL_HEADER;
        /* The runtime's count; it ignores DataSize's remainder and reads
         * 4 + count * clause_size bytes (doc/profiling-abi.md#il-body). */
        uint32_t count = data_size / clause_size;
        uint64_t span = 4 + (uint64_t)count * clause_size;
        if (pos + span > size)
            return ILMAP_E_IL_TRUNCATED;
        have_eh = 1;
        b->eh_count = count;
        b->eh_fat = (uint32_t)fat;
        b->eh_clauses = count ? data + pos + 4 : NULL;
        pos += span;
        if (!(kind & SECT_MORE))
            break;
    }
    b->body_size = (size_t)pos;
    for (uint32_t i = 0; i < b->eh_count; i++) {
        ilmap_il_clause c;
        read_clause(b, i, &c);
        if (!clause_in_code(&c, b->code_size))
            return ILMAP_E_IL_EH;
    }
    return ILMAP_OK;
}

ilmap_status ilmap_il_body_parse(const void *body, size_t size, ilmap_il_body *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!body || !out)
        return ILMAP_E_INVALID_ARG;
    if (size < 1)
        return ILMAP_E_IL_TRUNCATED;

    const uint8_t *data = body;
    ilmap_il_body b;
    memset(&b, 0, sizeof b);

    if ((data[0] & 3u) == ILMAP_IL_FORMAT_TINY) {
        b.code_size = data[0] >> 2;
        b.header_size = 1;
        b.flags = ILMAP_IL_FORMAT_TINY;
        b.max_stack = 8;
        if ((uint64_t)1 + b.code_size > size)
            return ILMAP_E_IL_TRUNCATED;
        b.body_size = 1 + (size_t)b.code_size;
    } else if ((data[0] & 3u) == ILMAP_IL_FORMAT_FAT) {
        if (size < 12)
            return ILMAP_E_IL_TRUNCATED;
        uint16_t word = rd16(data);
        if (word >> 12 != 3)
            return ILMAP_E_IL_HEADER;
        b.flags = (uint16_t)(word & 0xFFFu);
        b.header_size = 12;
        b.max_stack = rd16(data + 2);
        b.code_size = rd32(data + 4);
        b.local_sig = rd32(data + 8);
        if ((uint64_t)12 + b.code_size > size)
            return ILMAP_E_IL_TRUNCATED;
        b.body_size = 12 + (size_t)b.code_size;
    } else {
        return ILMAP_E_IL_HEADER;
    }
    b.code = data + b.header_size;

    if (b.header_size == 12 && (b.flags & ILMAP_IL_MORE_SECTS)) {
        ilmap_status st = parse_sections(data, size, 12 + (uint64_t)b.code_size, &b);
        if (st != ILMAP_OK)
            return st;
    }
    *out = b;
    return ILMAP_OK;
}

ilmap_status ilmap_il_body_get_clause(const ilmap_il_body *body, uint32_t index,
                                      ilmap_il_clause *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!body || !out || index >= body->eh_count || !body->eh_clauses)
        return ILMAP_E_INVALID_ARG;
    read_clause(body, index, out);
    return ILMAP_OK;
}

/* Region boundaries must be instruction starts: a try that began inside
 * an instruction has no place in the rewritten code. */
ilmap_status body_check_clauses(const ilmap_il_body *body, const il_stream *s, size_t *bad)
{
    for (uint32_t i = 0; i < body->eh_count; i++) {
        ilmap_il_clause c;
        read_clause(body, i, &c);
        int ok = clause_in_code(&c, body->code_size) && c.try_offset < body->code_size &&
                 c.handler_offset < body->code_size && stream_is_start(s, c.try_offset) &&
                 stream_is_start(s, c.try_offset + c.try_length) &&
                 stream_is_start(s, c.handler_offset) &&
                 stream_is_start(s, c.handler_offset + c.handler_length) &&
                 (!(c.flags & ILMAP_IL_CLAUSE_FILTER) || stream_is_start(s, c.class_or_filter));
        if (!ok) {
            *bad = i;
            return ILMAP_E_IL_EH;
        }
    }
    return ILMAP_OK;
}

ilmap_status ilmap_il_body_validate(const ilmap_il_body *body, size_t *bad_offset)
{
    size_t bad = ILMAP_NO_INDEX;
    il_stream s;
    ilmap_status st;

    if (!body || (!body->code && body->code_size > 0) || (body->eh_count && !body->eh_clauses)) {
        st = ILMAP_E_INVALID_ARG;
    } else {
        static const uint8_t none[1];
        st = stream_decode(body->code ? body->code : none, body->code_size, &s, &bad, 0, 0);
        if (st == ILMAP_OK) {
            st = body_check_clauses(body, &s, &bad);
            stream_free(&s);
        }
    }
    if (bad_offset)
        *bad_offset = bad;
    return st;
}
