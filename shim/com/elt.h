/*
 * Enter/leave/tailcall hooks (ELT3) and the FunctionIDMapper2 callback
 * (doc/profiling-abi.md#elt-abi: the ELT hook ABI, SetFunctionIDMapper2,
 * SetEnterLeaveFunctionHooks3WithInfo). These are plain functions the
 * runtime calls, not COM methods.
 */
#ifndef SHIM_COM_ELT_H
#define SHIM_COM_ELT_H

#include "types.h"

/* Opaque handles the runtime hands to the WithInfo hooks and takes back
 * in GetFunctionEnter3Info etc. (UINT_PTR in the IDL). */
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR COR_PRF_FRAME_INFO;

/* What the hooks receive: the mapper's return value when a
 * FunctionIDMapper is set, else the FunctionID. A one-word union, passed
 * by value like the UINT_PTR it holds. */
typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;
_Static_assert(sizeof(FunctionIDOrClientID) == sizeof(UINT_PTR),
               "FunctionIDOrClientID is one pointer-sized word");

/* Called when the JIT compiles a function with enter/leave monitoring on:
 * *pbHookFunction decides whether its hooks are called; the return value
 * is what they then receive. It must not return 0 when hooking, and must
 * answer the same for the same FunctionID every time (doc/function-ids.md#mapper). */
typedef UINT_PTR(CLR_STDCALL FunctionIDMapper2)(FunctionID function, void *client_data,
                                                BOOL *pbHookFunction);

/* The "slow path" hooks: the runtime calls them through its own helper.
 * That helper does not preserve whole vector registers (see
 * shim/FINDINGS.md, "ELT slow path"), so the shim does not use them; they
 * are declared for completeness. */
typedef void(CLR_STDCALL FunctionEnter3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void(CLR_STDCALL FunctionLeave3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void(CLR_STDCALL FunctionTailcall3WithInfo)(FunctionIDOrClientID id,
                                                    COR_PRF_ELT_INFO info);

/* The "fast path" hooks (SetEnterLeaveFunctionHooks3, with none of
 * COR_PRF_ENABLE_FUNCTION_ARGS / _RETVAL / _FRAME_INFO in the event mask):
 * JIT-compiled code calls them directly, in the middle of a call
 * sequence, with the argument (enter) or return (leave) registers live.
 * They must preserve every register but the scratch ones the JIT expects
 * a helper call to destroy, so they are written in assembly (see
 * shim/platform/elt_hooks.h); the ID arrives in a platform-specific
 * register, not always the first argument register. */
typedef void(CLR_STDCALL FunctionEnter3)(FunctionIDOrClientID id);
typedef void(CLR_STDCALL FunctionLeave3)(FunctionIDOrClientID id);
typedef void(CLR_STDCALL FunctionTailcall3)(FunctionIDOrClientID id);

#endif
