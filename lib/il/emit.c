/*
 * Writing the rewritten body: header, code with insertions and retargeted
 * branches, and the EH section rebased onto the new code.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "il/opcodes.h"
#include "il/emit.h"

/* ECMA-335 II.25.4.6: the small layout has 16-bit offsets, 8-bit lengths
 * and a one-byte DataSize (4 + 12n <= 255, so at most 20 clauses). */
#define SMALL_MAX_CLAUSES 20u
#define FAT_MAX_DATA 0xFFFFFFu

static int clause_fits_small(const ilmap_il_clause *c)
{
    return c->try_offset <= 0xFFFFu && c->handler_offset <= 0xFFFFu && c->try_length <= 0xFFu &&
           c->handler_length <= 0xFFu;
}

static void rebase_clause(const rw_layout *l, ilmap_il_clause *c)
{
    uint32_t try_start = rw_map(l, c->try_offset);
    uint32_t try_end = rw_map(l, c->try_offset + c->try_length);
    uint32_t handler_start = rw_map(l, c->handler_offset);
    uint32_t handler_end = rw_map(l, c->handler_offset + c->handler_length);

    c->try_offset = try_start;
    c->try_length = try_end - try_start;
    c->handler_offset = handler_start;
    c->handler_length = handler_end - handler_start;
    if (c->flags & ILMAP_IL_CLAUSE_FILTER)
        c->class_or_filter = rw_map(l, c->class_or_filter);
}

/* A wrap's rewritten instruction (layout.h); 0 when i is kept. */
static int write_wrapped(const rw_layout *l, size_t i, uint8_t *dst)
{
    const rw_wrap *w = l->wrap;
    if (!w || w->kind[i] == RW_KEEP)
        return 0;
    if (w->kind[i] == RW_NOPS) {
        memset(dst, 0x00, l->stream.instrs[i].length); /* nop */
        return 1;
    }
    /* ret -> stloc; leave END */
    memcpy(dst, w->store, w->store_size);
    uint32_t next = l->at[i] + rw_length(l, i);
    int64_t delta = (int64_t)l->boundary[l->stream.count] + w->end_label - (int64_t)next;
    dst[w->store_size] = 0xDD; /* leave */
    wr32(dst + w->store_size + 1, (uint32_t)(int32_t)delta);
    return 1;
}

static void write_instruction(const rw_layout *l, size_t i, uint8_t *dst)
{
    const ilmap_il_instr *in = &l->stream.instrs[i];
    const uint8_t *src = l->body->code + in->offset;
    const uint32_t at = l->at[i];

    if (write_wrapped(l, i, dst))
        return;
    switch (in->operand) {
    case ILMAP_IL_BRANCH8:
    case ILMAP_IL_BRANCH32: {
        uint32_t length = rw_length(l, i);
        int64_t delta = (int64_t)rw_target(l, l->target[i]) - ((int64_t)at + length);
        if (length == 2) {
            dst[0] = src[0];
            dst[1] = (uint8_t)(int8_t)delta;
        } else {
            dst[0] = in->operand == ILMAP_IL_BRANCH8 ? opcode_long_branch(src[0]) : src[0];
            wr32(dst + 1, (uint32_t)(int32_t)delta);
        }
        break;
    }
    case ILMAP_IL_SWITCH: {
        uint32_t head = in->opcode_size + 4u;
        uint32_t old_next = in->offset + in->length;
        int64_t new_next = (int64_t)at + in->length;
        memcpy(dst, src, head);
        for (uint32_t k = 0; k < in->target; k++) {
            int32_t old_delta = (int32_t)rd32(src + head + 4 * (size_t)k);
            uint32_t old_target = (uint32_t)((int64_t)old_next + old_delta);
            int64_t delta = (int64_t)rw_map(l, old_target) - new_next;
            wr32(dst + head + 4 * (size_t)k, (uint32_t)(int32_t)delta);
        }
        break;
    }
    default:
        memcpy(dst, src, in->length);
        break;
    }
}

static uint8_t *write_code(const rw_layout *l, uint8_t *dst)
{
    const size_t n = l->stream.count;

    for (size_t slot = 0; slot <= n; slot++) {
        for (uint32_t k = l->first[slot]; k < l->first[slot + 1]; k++) {
            const ilmap_il_insertion *ins = &l->insertions[l->order[k]];
            if (ins->size) {
                memcpy(dst, ins->code, ins->size);
                dst += ins->size;
            }
        }
        if (slot < n) {
            write_instruction(l, slot, dst);
            dst += rw_length(l, slot);
        }
    }
    return dst;
}

static void write_clause(uint8_t *p, const ilmap_il_clause *c, int fat)
{
    if (fat) {
        wr32(p, c->flags);
        wr32(p + 4, c->try_offset);
        wr32(p + 8, c->try_length);
        wr32(p + 12, c->handler_offset);
        wr32(p + 16, c->handler_length);
        wr32(p + 20, c->class_or_filter);
    } else {
        wr16(p, c->flags);
        wr16(p + 2, c->try_offset);
        p[4] = (uint8_t)c->try_length;
        wr16(p + 5, c->handler_offset);
        p[7] = (uint8_t)c->handler_length;
        wr32(p + 8, c->class_or_filter);
    }
}

ilmap_status rw_emit(const rw_layout *l, uint32_t extra_stack, rw_body *r)
{
    memset(r, 0, sizeof *r);
    const ilmap_il_body *b = l->body;
    const rw_wrap *w = l->wrap;
    const uint32_t added = w ? w->nclauses : 0;
    const uint32_t eh_count = b->eh_count + added; /* <= 2^24 + a few: no overflow */
    ilmap_il_clause *clauses = NULL;
    int eh_fat = (int)b->eh_fat;

    if (eh_count) {
        clauses = malloc(eh_count * sizeof *clauses);
        if (!clauses)
            return ILMAP_E_NOMEM;
        for (uint32_t i = 0; i < eh_count; i++) {
            if (i < b->eh_count) {
                ilmap_il_body_get_clause(b, i, &clauses[i]);
                rebase_clause(l, &clauses[i]);
            } else {
                clauses[i] = w->clauses[i - b->eh_count]; /* already in new offsets */
            }
            if (!clause_fits_small(&clauses[i]))
                eh_fat = 1;
        }
        if (eh_count > SMALL_MAX_CLAUSES)
            eh_fat = 1;
        if (eh_fat && 4 + 24 * (uint64_t)eh_count > FAT_MAX_DATA) {
            free(clauses);
            return ILMAP_E_LIMIT;
        }
    }

    /* A tiny header implies max stack 8, no locals and no EH; it can stay
     * only while it can still say everything (a wrap adds locals). */
    int tiny = b->header_size == 1 && l->code_size < 64 && extra_stack == 0 && !w;
    uint64_t max_stack = (uint64_t)b->max_stack + extra_stack;
    if (w && max_stack < w->min_stack)
        max_stack = w->min_stack;
    if (!tiny && max_stack > 0xFFFFu) {
        free(clauses);
        return ILMAP_E_LIMIT;
    }

    uint64_t size = (tiny ? 1u : 12u) + (uint64_t)l->code_size;
    uint64_t eh_at = (size + 3) & ~(uint64_t)3;
    uint32_t clause_size = eh_fat ? 24u : 12u;
    if (eh_count)
        size = eh_at + 4 + (uint64_t)eh_count * clause_size;
    if (size > 0xFFFFFFFFu || (uint64_t)(size_t)size != size) {
        free(clauses);
        return ILMAP_E_LIMIT;
    }

    uint8_t *out = calloc((size_t)size, 1); /* zeroes the padding before the section */
    if (!out) {
        free(clauses);
        return ILMAP_E_NOMEM;
    }
    uint8_t *code;
    if (tiny) {
        out[0] = (uint8_t)(ILMAP_IL_FORMAT_TINY | l->code_size << 2);
        code = out + 1;
    } else {
        uint32_t flags = b->header_size == 1 ? ILMAP_IL_FORMAT_FAT : b->flags;
        if (w && b->header_size == 1)
            flags |= ILMAP_IL_INIT_LOCALS; /* the locals a wrap gives a tiny body start zeroed */
        flags = eh_count ? flags | ILMAP_IL_MORE_SECTS : flags & ~ILMAP_IL_MORE_SECTS;
        wr16(out, flags | 3u << 12);
        wr16(out + 2, (uint32_t)max_stack);
        wr32(out + 4, l->code_size);
        wr32(out + 8, w ? w->local_sig : b->local_sig);
        code = out + 12;
    }
    write_code(l, code);
    if (eh_count) {
        uint8_t *sect = out + eh_at;
        uint32_t data_size = 4 + eh_count * clause_size;
        if (eh_fat) {
            sect[0] = 0x41; /* EH table, fat, no further section */
            wr24(sect + 1, data_size);
        } else {
            sect[0] = 0x01;
            sect[1] = (uint8_t)data_size;
        }
        for (uint32_t i = 0; i < eh_count; i++)
            write_clause(sect + 4 + (size_t)i * clause_size, &clauses[i], eh_fat);
    }
    free(clauses);

    r->bytes = out;
    r->size = (size_t)size;
    r->header_size = tiny ? 1 : 12;
    r->max_stack = tiny ? 8 : (uint32_t)max_stack;
    r->eh_fat = eh_count ? (uint32_t)eh_fat : 0;
    return ILMAP_OK;
}
