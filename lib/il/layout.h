/* The rewriter's layout of the new code, which rewrite.c computes and
 * emit.c writes out: the parsed original, where each piece of the new
 * code goes. */
#ifndef ILMAP_IL_LAYOUT_H
#define ILMAP_IL_LAYOUT_H

#include "il/decode.h"

/* What a wrap (wrap.c) changes besides insertions: some original
 * instructions rewritten in place, clauses and locals added. */
enum { RW_KEEP = 0, RW_RET = 1, RW_NOPS = 2 };

typedef struct rw_wrap {
    uint8_t *kind;          /* n: RW_KEEP; RW_RET: a ret becomes `store`, then
                               leave (long form) to END; RW_NOPS: an instruction
                               (a tail. prefix) becomes as many nops */
    uint8_t store[4];       /* the ret's stloc; store_size bytes (0: void) */
    uint32_t store_size;
    uint32_t end_label;     /* END's offset in the appended code */
    ilmap_il_clause *clauses; /* added after the original's, in order, in new
                                 offsets (set once the layout is final) */
    uint32_t nclauses;
    uint32_t local_sig;     /* the new header's LocalVarSigTok */
    uint32_t min_stack;     /* the new max stack is at least this */
} rw_wrap;

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
    rw_wrap *wrap;       /* NULL for a plain rewrite */
} rw_layout;

/* The new length of instruction i. */
static inline uint32_t rw_length(const rw_layout *l, size_t i)
{
    if (l->wrap && l->wrap->kind[i] == RW_RET)
        return l->wrap->store_size + 5u;
    return l->stream.instrs[i].length + (l->widened[i] ? 3u : 0u);
}

/* Where a path into slot i goes (a branch, a clause boundary): the first
 * byte inserted before it, so that a probe runs on every path into its
 * instruction. A wrap's prologue is no probe: it runs once, outside the
 * try that starts at instruction 0, so paths into instruction 0 (from
 * inside that try) go to the instruction itself. */
static inline uint32_t rw_target(const rw_layout *l, size_t i)
{
    return l->wrap && i == 0 ? l->at[0] : l->boundary[i];
}

/* The new offset of an original boundary (an instruction start or the
 * code size) for a branch or a clause (rw_target()). */
static inline uint32_t rw_map(const rw_layout *l, uint32_t old_offset)
{
    size_t i = old_offset == l->body->code_size ? l->stream.count
                                                 : stream_find(&l->stream, old_offset);
    return rw_target(l, i);
}

#endif
