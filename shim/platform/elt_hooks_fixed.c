/*
 * The stubs of this ABI (elt_hooks_arm64.S, elt_hooks_win64.S,
 * elt_hooks_win32.S or elt_hooks_x86_64_sysv.S; the build compiles this
 * file with one of them, meson.build) and the table they count into.
 */
#include "platform/elt_hooks.h"

shim_elt_hook_table shim_elt_hook_counts;

/* The .S files read the table at these offsets. */
_Static_assert(offsetof(shim_elt_hook_table, counts) == 0, "counts first");
_Static_assert(offsetof(shim_elt_hook_table, capacity) ==
                   SHIM_ELT_HOOK_CAPACITY_AT * sizeof(void *),
               "capacity where the stubs read it");
_Static_assert(offsetof(shim_elt_hook_table, unknown) ==
                   SHIM_ELT_HOOK_UNKNOWN_AT * sizeof(void *),
               "unknown where the stubs read it");
_Static_assert(sizeof(uintptr_t) == sizeof(void *), "one word per field");

void CLR_STDCALL shim_elt_enter_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_leave_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_tailcall_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_floor_stub(FunctionIDOrClientID id);

#if defined(__aarch64__) || defined(_M_ARM64)
#  define SHIM_ELT_SAVES "nothing (uses x9-x13)"
#elif defined(_WIN64)
#  define SHIM_ELT_SAVES "nothing (uses rdx)"
#elif defined(_WIN32)
#  define SHIM_ELT_SAVES "eax, ecx"
#elif defined(__x86_64__)
#  define SHIM_ELT_SAVES "rax"
#else
#  error "elt_hooks_fixed.c goes with an ABI's .S file (shim/platform/meson.build)"
#endif

int shim_elt_hooks_get(shim_elt_hooks *out, int floor)
{
    if (!out)
        return 0;
    if (floor) {
        out->enter = shim_elt_floor_stub;
        out->leave = shim_elt_floor_stub;
        out->tailcall = shim_elt_floor_stub;
        out->how = SHIM_ELT_FLOOR_SAVES;
        return 1;
    }
    out->enter = shim_elt_enter_stub;
    out->leave = shim_elt_leave_stub;
    out->tailcall = shim_elt_tailcall_stub;
    out->how = SHIM_ELT_SAVES;
    return 1;
}
