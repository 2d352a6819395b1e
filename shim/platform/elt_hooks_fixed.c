/*
 * The stubs that need nothing prepared: the registers they keep are fixed
 * by their ABI (elt_hooks_arm64.S, elt_hooks_win64.S, elt_hooks_win32.S;
 * the x86-64 System V ones choose XSAVE or FXSAVE at run time,
 * elt_hooks_x86_64_sysv.c). The build compiles this file with one of
 * those .S files (meson.build).
 */
#include "platform/elt_hooks.h"

void CLR_STDCALL shim_elt_enter_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_leave_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_tailcall_stub(FunctionIDOrClientID id);

#if defined(__aarch64__) || defined(_M_ARM64)
#  define SHIM_ELT_SAVES "x0-x8, q0-q7"
#elif defined(_WIN64)
#  define SHIM_ELT_SAVES "rax, xmm0 (leave, tailcall)"
#elif defined(_WIN32)
#  define SHIM_ELT_SAVES "eax, ecx, edx, fxsave"
#else
#  error "elt_hooks_fixed.c goes with an ABI's .S file (shim/platform/meson.build)"
#endif

int shim_elt_hooks_get(shim_elt_hooks *out)
{
    if (!out)
        return 0;
    out->enter = shim_elt_enter_stub;
    out->leave = shim_elt_leave_stub;
    out->tailcall = shim_elt_tailcall_stub;
    out->how = SHIM_ELT_SAVES;
    return 1;
}
