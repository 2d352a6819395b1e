/* Platforms without fast-path ELT stubs yet; see elt_hooks.h. */
#include <string.h>

#include "platform/elt_hooks.h"

int shim_elt_hooks_get(shim_elt_hooks *out, int floor)
{
    (void)floor;
    if (out)
        memset(out, 0, sizeof *out);
    return 0;
}

/* Never read here (no stubs); shim_elt_start fills it all the same. */
shim_elt_hook_table shim_elt_hook_counts;
