/* The rewriter's run, shared by ilmap_rewrite_create() (insertions only)
 * and ilmap_il_wrap_create() (wrap.c: insertions, instructions rewritten
 * in place, clauses and locals added). */
#ifndef ILMAP_IL_REWRITE_H
#define ILMAP_IL_REWRITE_H

#include "il/layout.h"

/* What a caller adds to a run. */
typedef struct rw_hooks {
    /* Once the original is decoded and checked: sets l->wrap (owned by
     * ctx), or refuses the body (bad: an instruction offset). */
    ilmap_status (*plan)(rw_layout *l, void *ctx, size_t *bad);
    /* Once the layout is final: the added clauses, in new offsets. */
    ilmap_status (*place)(rw_layout *l, void *ctx);
    void *ctx;
} rw_hooks;

/* Parses and checks body, lays out the new code with the insertions
 * (checked: whole instructions, branches inside themselves) and hooks
 * (NULL: none), and writes the result to *out (NULL on failure). The
 * arguments are checked by the caller; statuses and *bad_index as
 * ilmap_rewrite_create(). */
ilmap_status rw_run(const void *body, size_t body_size, const ilmap_il_insertion *insertions,
                    size_t count, uint32_t extra_stack, const rw_hooks *hooks,
                    ilmap_rewrite **out, size_t *bad_index);

#endif
