/*
 * Enter/leave/tailcall hooks (ELT3) and the FunctionIDMapper2 callback
 * (clr-abi.md §2: "ELT hook ABI", SetFunctionIDMapper2,
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
 * answer the same for the same FunctionID every time (clr-abi §2). */
typedef UINT_PTR(CLR_STDCALL FunctionIDMapper2)(FunctionID function, void *client_data,
                                                BOOL *pbHookFunction);

/* The "slow path" hooks: the runtime calls them through its own helper,
 * which saves and restores registers, so they may be ordinary C
 * functions (the fast-path hooks of SetEnterLeaveFunctionHooks3 must be
 * assembly that preserves every register). */
typedef void(CLR_STDCALL FunctionEnter3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void(CLR_STDCALL FunctionLeave3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void(CLR_STDCALL FunctionTailcall3WithInfo)(FunctionIDOrClientID id,
                                                    COR_PRF_ELT_INFO info);

#endif
