/* The rewriter's layout of the new code, which rewrite.c computes and
 * emit.c writes out: the parsed original, where each piece of the new
 * code goes. */
#ifndef ILMAP_IL_LAYOUT_H
#define ILMAP_IL_LAYOUT_H

#include "il/decode.h"

/* The layout of the new code. Index n (= instruction count) stands for
 * the code size: what is inserted there is appended. */
typedef struct rw_layout {
    const ilmap_il_body *body;
    il_stream stream;
    const ilmap_il_insertion *insertions;
    uint32_t *order;     /* insertion indexes grouped by slot, given order kept */
    uint32_t *first;     /* n + 2 prefix sums into order, per slot */
    uint64_t *ins_bytes; /* n + 1: bytes inserted per slot */
    uint32_t *target;    /* n: slot index of a branch's target */
    uint8_t *widened;    /* n: a short branch written in its long form */
    uint32_t *boundary;  /* n + 1: first byte inserted before the slot */
    uint32_t *at;        /* n: where the instruction itself is written */
    uint32_t code_size;  /* of the new code */
    uint32_t widened_count;
} rw_layout;

/* The new length of instruction i. */
static inline uint32_t rw_length(const rw_layout *l, size_t i)
{
    return l->stream.instrs[i].length + (l->widened[i] ? 3u : 0u);
}

/* The new offset of an original boundary (an instruction start or the
 * code size): the first byte inserted before it. */
static inline uint32_t rw_map(const rw_layout *l, uint32_t old_offset)
{
    size_t i = old_offset == l->body->code_size ? l->stream.count
                                                 : stream_find(&l->stream, old_offset);
    return l->boundary[i];
}

#endif
