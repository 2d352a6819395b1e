/*
 * The one place where an original IL body becomes an instrumented body
 * plus the COR_IL_MAP that describes it: libilmap's rewriter
 * (ilmap_rewrite_create, include/ilmap-il.h) does the work; this file only
 * decides where the probes go.
 */
#ifndef SHIM_INSTRUMENT_H
#define SHIM_INSTRUMENT_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap.h"
#include "ilmap-il.h"

/* What to insert, and where. */
typedef struct shim_probe {
    /* != 0: `call call_token` (a static void() method in the same module);
     * 0: a `nop`, which changes no behaviour but still moves offsets. */
    uint32_t call_token;
    /* Besides offset 0, every branch target and every EH try, handler and
     * filter start, a probe goes before every `every`-th instruction
     * (0 = none of those). */
    uint32_t every;
} shim_probe;

typedef struct shim_instrumented {
    uint8_t *body;            /* the new method body (header, code, EH), malloc'ed */
    size_t body_size;
    ilmap_entry *map;         /* original -> instrumented, one entry per instruction */
    size_t map_count;
    uint32_t *new_starts;     /* instruction starts of the new code, ascending */
    size_t new_start_count;
    uint32_t probes;          /* probes inserted */
    uint32_t widened;         /* short branches the rewriter widened */
    const char *how;          /* static: which probe */
} shim_instrumented;

/*
 * Instruments body[0..size) (as GetILFunctionBody returns it). Returns 0
 * and fills *out, or non-zero with *why set to a static reason and *out
 * empty; on failure the caller keeps the original body.
 */
int shim_instrument(const uint8_t *body, size_t size, const shim_probe *probe,
                    shim_instrumented *out, const char **why);

/* The same for the wrap mode (wrap.h, doc/shim.md#wrap): the whole body
 * wrapped in the hooks' calls by ilmap_il_wrap_create() with spec; no
 * probes. */
int shim_instrument_wrap(const uint8_t *body, size_t size, const ilmap_il_wrap_spec *spec,
                         shim_instrumented *out, const char **why);

void shim_instrumented_free(shim_instrumented *out);

/* The instrumented body's map as the runtime takes it
 * (SetILInstrumentedCodeMap): a malloc'ed COR_IL_MAP array of
 * inst->map_count entries (the caller frees it once the call returns: the
 * runtime copies it), or NULL when out of memory. */
COR_IL_MAP *shim_instrumented_cor_map(const shim_instrumented *inst);

#endif
