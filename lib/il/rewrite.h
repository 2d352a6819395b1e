/* The rewriter's shared state: the parsed original, where each piece of
 * the new code goes, and the result object. */
#ifndef ILMAP_IL_REWRITE_H
#define ILMAP_IL_REWRITE_H

#include "il/decode.h"

struct ilmap_rewrite {
    uint8_t *bytes;
    size_t size;
    ilmap_entry *entries;  /* one per original instruction */
    uint32_t *new_offsets; /* where each original instruction now begins */
    size_t count;
    ilmap_rewrite_info info;
};

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

/* Writes the new body for a finished layout into r (bytes, size, info
 * fields about the header and EH). */
ilmap_status rw_emit(const rw_layout *l, uint32_t extra_stack, struct ilmap_rewrite *r);

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
