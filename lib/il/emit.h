/* Writing a new method body out of a finished layout (layout.h): header,
 * code with retargeted branches, rebased EH section. */
#ifndef ILMAP_IL_EMIT_H
#define ILMAP_IL_EMIT_H

#include "il/layout.h"

/* A written body and what its header says. */
typedef struct rw_body {
    uint8_t *bytes; /* malloc'ed; the caller owns it */
    size_t size;
    uint32_t header_size; /* 1 or 12 */
    uint32_t max_stack;   /* as written (8 when tiny) */
    uint32_t eh_fat;      /* 1 when the EH section is fat */
} rw_body;

/* Writes the new body for a finished layout into *out (zeroed on
 * failure): ILMAP_OK, ILMAP_E_NOMEM, ILMAP_E_LIMIT. */
ilmap_status rw_emit(const rw_layout *l, uint32_t extra_stack, rw_body *out);

#endif
