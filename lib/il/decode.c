/*
 * The IL decoder: one instruction, or a whole stream with its branch
 * targets checked against the instruction starts. Every read is bounded
 * by code_size before it happens; sizes are computed in 64 bits so that
 * a switch count near 2^32 cannot wrap.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/copy_out.h"
#include "common/size_limits.h"
#include "il/decode.h"
#include "il/opcodes.h"

int64_t branch_target(uint32_t next, int32_t delta, uint64_t limit)
{
    int64_t t = (int64_t)next + delta;

    return t >= 0 && (uint64_t)t < limit ? t : -1;
}

/* allow_end: a target equal to code_size is accepted too, as inserted
 * code may branch to the instruction that will follow it. */
static ilmap_status decode_at(const uint8_t *code, size_t code_size, size_t offset,
                              ilmap_il_instr *out, int allow_end)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!code || !out || size_exceeds_u32(code_size) || offset >= code_size)
        return ILMAP_E_INVALID_ARG;

    const uint32_t size = (uint32_t)code_size;
    const uint64_t limit = (uint64_t)size + (allow_end ? 1 : 0);
    const uint32_t at = (uint32_t)offset;
    uint32_t op_size = 1;
    uint16_t opcode = code[at];
    int kind;

    if (code[at] == 0xFE) {
        if (size - at < 2)
            return ILMAP_E_IL_TRUNCATED;
        op_size = 2;
        opcode = (uint16_t)(0xFE00u | code[at + 1]);
        kind = opcode_operand2(code[at + 1]);
    } else {
        kind = opcode_operand1(code[at]);
    }
    if (kind < 0)
        return ILMAP_E_IL_OPCODE;

    const uint64_t left = (uint64_t)size - at - op_size;
    uint64_t operand = operand_size(kind);
    uint32_t target = 0;

    if (kind == ILMAP_IL_SWITCH) {
        if (left < 4)
            return ILMAP_E_IL_TRUNCATED;
        uint32_t n = rd32(code + at + op_size);
        operand = 4 + 4 * (uint64_t)n;
        if (left < operand)
            return ILMAP_E_IL_TRUNCATED;
        uint32_t next = at + op_size + (uint32_t)operand;
        for (uint32_t i = 0; i < n; i++) {
            int32_t delta = (int32_t)rd32(code + at + op_size + 4 + 4 * (size_t)i);
            if (branch_target(next, delta, limit) < 0)
                return ILMAP_E_IL_BRANCH;
        }
        target = n;
    } else if (left < operand) {
        return ILMAP_E_IL_TRUNCATED;
    }

    uint32_t length = op_size + (uint32_t)operand;
    if (kind == ILMAP_IL_BRANCH8 || kind == ILMAP_IL_BRANCH32) {
        const uint8_t *p = code + at + op_size;
        int32_t delta = kind == ILMAP_IL_BRANCH8 ? (int8_t)p[0] : (int32_t)rd32(p);
        int64_t t = branch_target(at + length, delta, limit);
        if (t < 0)
            return ILMAP_E_IL_BRANCH;
        target = (uint32_t)t;
    }

    out->offset = at;
    out->length = length;
    out->opcode = opcode;
    out->operand = (uint8_t)kind;
    out->opcode_size = (uint8_t)op_size;
    out->target = target;
    return ILMAP_OK;
}

ilmap_status ilmap_il_decode_one(const uint8_t *code, size_t code_size, size_t offset,
                                 ilmap_il_instr *out)
{
    return decode_at(code, code_size, offset, out, 0);
}

ilmap_status ilmap_il_switch_target(const uint8_t *code, size_t code_size,
                                    const ilmap_il_instr *sw, uint32_t index, uint32_t *target)
{
    if (target)
        *target = 0;
    if (!code || !sw || !target || sw->operand != ILMAP_IL_SWITCH || index >= sw->target ||
        size_exceeds_u32(code_size) || sw->offset >= code_size ||
        (uint64_t)sw->offset + sw->length > code_size ||
        sw->length != sw->opcode_size + 4 + 4 * (uint64_t)sw->target ||
        rd32(code + sw->offset + sw->opcode_size) != sw->target)
        return ILMAP_E_INVALID_ARG;

    const uint8_t *p = code + sw->offset + sw->opcode_size + 4 + 4 * (size_t)index;
    int64_t t = branch_target(sw->offset + sw->length, (int32_t)rd32(p), code_size);
    if (t < 0)
        return ILMAP_E_IL_BRANCH;
    *target = (uint32_t)t;
    return ILMAP_OK;
}

void stream_free(il_stream *s)
{
    free(s->instrs);
    free(s->starts);
    free(s->rank);
    memset(s, 0, sizeof *s);
}

/* One instruction's branch or switch targets are instruction starts. */
static int targets_ok(const uint8_t *code, const il_stream *s, const ilmap_il_instr *in,
                      uint64_t limit)
{
    if (in->operand == ILMAP_IL_BRANCH8 || in->operand == ILMAP_IL_BRANCH32)
        return stream_is_start(s, in->target);
    if (in->operand != ILMAP_IL_SWITCH)
        return 1;
    for (uint32_t k = 0; k < in->target; k++) {
        const uint8_t *p = code + in->offset + in->opcode_size + 4 + 4 * (size_t)k;
        int64_t t = branch_target(in->offset + in->length, (int32_t)rd32(p), limit);
        if (t < 0 || !stream_is_start(s, (uint32_t)t))
            return 0;
    }
    return 1;
}

/*
 * Two passes: the first decodes every instruction and marks the starts,
 * the second checks each target against them (only now, with the whole
 * stream decoded, is a start known). Without `keep` the second pass
 * decodes again instead of reading a stored array: decoding costs a few
 * nanoseconds an instruction, an array of 16 bytes per instruction costs
 * fresh pages on every large method.
 */
ilmap_status stream_decode(const uint8_t *code, size_t size, il_stream *s, size_t *bad_offset,
                           int allow_end, int keep)
{
    memset(s, 0, sizeof *s);
    *bad_offset = ILMAP_NO_INDEX;
    if (size_exceeds_u32(size))
        return ILMAP_E_INVALID_ARG;

    size_t words = ((size_t)size + 1 + 63) / 64;
    size_t cap = keep ? size / 3 + 16 : 0; /* most instructions are longer than a byte */
    s->instrs = keep ? malloc(cap * sizeof *s->instrs) : NULL;
    s->starts = calloc(words, sizeof *s->starts);
    s->rank = malloc(words * sizeof *s->rank);
    s->code_size = (uint32_t)size;
    if ((keep && !s->instrs) || !s->starts || !s->rank) {
        stream_free(s);
        return ILMAP_E_NOMEM;
    }

    ilmap_status st = ILMAP_OK;
    size_t at = 0, count = 0;
    while (at < size) {
        if (keep && count == cap) {
            ilmap_il_instr *bigger = realloc(s->instrs, 2 * cap * sizeof *bigger);
            if (!bigger) {
                st = ILMAP_E_NOMEM;
                break;
            }
            s->instrs = bigger;
            cap *= 2;
        }
        ilmap_il_instr one;
        ilmap_il_instr *in = keep ? &s->instrs[count] : &one;
        st = decode_at(code, size, at, in, allow_end);
        if (st != ILMAP_OK) {
            *bad_offset = at;
            break;
        }
        s->starts[at >> 6] |= UINT64_C(1) << (at & 63);
        count++;
        at += in->length;
    }
    if (st == ILMAP_OK) {
        s->count = count;
        s->starts[size >> 6] |= UINT64_C(1) << (size & 63);
        uint32_t before = 0;
        for (size_t w = 0; w < words; w++) {
            s->rank[w] = before;
            before += bits_popcount(s->starts[w]);
        }
        const uint64_t limit = (uint64_t)size + (allow_end ? 1 : 0);
        ilmap_il_instr one;
        for (size_t i = 0, off = 0; i < count; i++, off += one.length) {
            if (keep)
                one = s->instrs[i];
            else
                decode_at(code, size, off, &one, allow_end);
            if (!targets_ok(code, s, &one, limit)) {
                *bad_offset = one.offset;
                st = ILMAP_E_IL_BRANCH;
                break;
            }
        }
    }
    if (st != ILMAP_OK) {
        stream_free(s);
        return st;
    }
    if (keep) {
        ilmap_il_instr *trimmed = realloc(s->instrs, (count ? count : 1) * sizeof *s->instrs);
        if (trimmed)
            s->instrs = trimmed;
    }
    return ILMAP_OK;
}

/* The front end of the buffer protocol (common/copy_out.h): check the
 * arguments, decode the whole stream. *total stays 0 here; the callers
 * report the count with copy_out_done() once they have copied. */
static ilmap_status decode_front(const uint8_t *code, size_t code_size, size_t cap, size_t *total,
                                 const void *out, size_t *bad_offset, il_stream *s)
{
    size_t bad = ILMAP_NO_INDEX;
    ilmap_status st = copy_out_check(cap, total, out);

    if (st == ILMAP_OK && ((!code && code_size > 0) || size_exceeds_u32(code_size)))
        st = ILMAP_E_INVALID_ARG;
    if (st != ILMAP_OK) {
        memset(s, 0, sizeof *s);
    } else {
        /* Small streams keep their instructions (one decode pass, the
         * array stays in cache); large ones decode twice rather than
         * fault in a fresh array of 16 bytes per instruction. */
        static const uint8_t none[1];
        st = stream_decode(code ? code : none, code_size, s, &bad, 0, code_size <= 32768);
    }
    if (bad_offset)
        *bad_offset = bad;
    return st;
}

ilmap_status ilmap_il_decode(const uint8_t *code, size_t code_size, size_t cap, size_t *total,
                             ilmap_il_instr *out, size_t *bad_offset)
{
    il_stream s;

    ilmap_status st = decode_front(code, code_size, cap, total, out, bad_offset, &s);
    if (st == ILMAP_OK) {
        size_t n = copy_out_fit(cap, s.count);
        if (s.instrs && n)
            memcpy(out, s.instrs, n * sizeof *out);
        else
            for (size_t i = 0, at = 0; i < n; at += out[i].length, i++)
                decode_at(code, code_size, at, &out[i], 0);
        st = copy_out_done(cap, s.count, total);
    }
    stream_free(&s);
    return st;
}

ilmap_status ilmap_il_starts(const uint8_t *code, size_t code_size, size_t cap, size_t *total,
                             uint32_t *starts, size_t *bad_offset)
{
    il_stream s;

    ilmap_status st = decode_front(code, code_size, cap, total, starts, bad_offset, &s);
    if (st == ILMAP_OK) {
        /* The starts are the bitmap's set bits, the code size's excepted. */
        size_t n = copy_out_fit(cap, s.count), i = 0;
        for (size_t w = 0; i < n; w++)
            for (uint64_t bits = s.starts[w]; bits && i < n; bits &= bits - 1)
                starts[i++] = (uint32_t)(w * 64 + bits_lowest(bits));
        st = copy_out_done(cap, s.count, total);
    }
    stream_free(&s);
    return st;
}
