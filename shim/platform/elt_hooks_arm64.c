/*
 * The arm64 stubs (elt_hooks_arm64.S): nothing to prepare, the registers
 * they keep are fixed by the ABI.
 */
#include "platform/elt_hooks.h"

void shim_elt_enter_stub(FunctionIDOrClientID id);
void shim_elt_leave_stub(FunctionIDOrClientID id);
void shim_elt_tailcall_stub(FunctionIDOrClientID id);

int shim_elt_hooks_get(shim_elt_hooks *out)
{
    if (!out)
        return 0;
    out->enter = shim_elt_enter_stub;
    out->leave = shim_elt_leave_stub;
    out->tailcall = shim_elt_tailcall_stub;
    out->how = "x0-x8, q0-q7";
    return 1;
}
