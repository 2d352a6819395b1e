/*
 * The Windows x86 stubs (elt_hooks_win32.S): nothing to prepare.
 */
#include "platform/elt_hooks.h"

void CLR_STDCALL shim_elt_enter_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_leave_stub(FunctionIDOrClientID id);
void CLR_STDCALL shim_elt_tailcall_stub(FunctionIDOrClientID id);

int shim_elt_hooks_get(shim_elt_hooks *out)
{
    if (!out)
        return 0;
    out->enter = shim_elt_enter_stub;
    out->leave = shim_elt_leave_stub;
    out->tailcall = shim_elt_tailcall_stub;
    out->how = "eax, ecx, edx, fxsave";
    return 1;
}
