/* The whole-stream decoder the rewriter and the public decode share. */
#ifndef ILMAP_IL_DECODE_H
#define ILMAP_IL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-il.h"
#include "platform/compiler.h"

/* A decoded code stream: its instructions in order, a bit per code byte
 * (plus one for code_size) set at each instruction start, and the number
 * of starts before each 64-bit word of that bitmap, so that an offset's
 * instruction index is a popcount away (the rewriter looks one up for
 * every branch target, switch target, clause boundary and insertion). */
typedef struct il_stream {
    ilmap_il_instr *instrs; /* NULL unless kept */
    size_t count;
    uint64_t *starts; /* bitmap, (code_size + 1 + 63) / 64 words */
    uint32_t *rank;   /* starts before each word */
    uint32_t code_size;
} il_stream;

/* Bit counts: the builtin where it is one instruction (the target has a
 * popcount: POPCNT on x86, every AArch64); elsewhere GCC makes it a
 * libgcc call with a table, slower than the SWAR count below. */
static inline unsigned bits_popcount(uint64_t x)
{
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__POPCNT__) || defined(__aarch64__))
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* The index of the lowest set bit; x != 0. */
static inline unsigned bits_lowest(uint64_t x)
{
    return (unsigned)ILMAP_CTZ64(x);
}

static inline int stream_is_start(const il_stream *s, uint32_t offset)
{
    return offset <= s->code_size && (s->starts[offset >> 6] >> (offset & 63) & 1);
}

/* The index of the instruction starting at `offset`; count when none
 * does (count also for offset == code_size). */
static inline size_t stream_find(const il_stream *s, uint32_t offset)
{
    if (offset >= s->code_size || !(s->starts[offset >> 6] >> (offset & 63) & 1))
        return s->count;
    uint64_t below = s->starts[offset >> 6] & ((UINT64_C(1) << (offset & 63)) - 1);
    return s->rank[offset >> 6] + (size_t)bits_popcount(below);
}

/* Decodes and checks code[0, size) (ilmap_il_decode()'s rules; with
 * allow_end, branches may also target `size`, where inserted code meets
 * the instruction after it). With keep, s->instrs holds the instructions;
 * without, it is NULL and only the starts are kept. On failure *s is
 * empty and *bad_offset says where (or ILMAP_NO_INDEX). */
ilmap_status stream_decode(const uint8_t *code, size_t size, il_stream *s, size_t *bad_offset,
                           int allow_end, int keep);

void stream_free(il_stream *s);

/* Absolute target of a branch delta measured from `next`; -1 when it
 * falls outside [0, limit). */
int64_t branch_target(uint32_t next, int32_t delta, uint64_t limit);

/* Region boundaries of every clause are instruction starts (body.c). */
ilmap_status body_check_clauses(const ilmap_il_body *body, const il_stream *s, size_t *bad);

#endif
