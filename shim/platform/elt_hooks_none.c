/* Platforms without fast-path ELT stubs yet; see elt_hooks.h. */
#include <string.h>

#include "platform/elt_hooks.h"

int shim_elt_hooks_get(shim_elt_hooks *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    return 0;
}
