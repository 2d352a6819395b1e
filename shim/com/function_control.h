/*
 * ICorProfilerFunctionControl (doc/profiling-abi.md#function-control): the runtime object handed to
 * GetReJITParameters, valid only during that callback. SetILFunctionBody
 * copies the bytes, so the caller keeps (and frees) its buffer.
 */
#ifndef SHIM_COM_FUNCTION_CONTROL_H
#define SHIM_COM_FUNCTION_CONTROL_H

#include "info.h"

typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;

#define FC ICorProfilerFunctionControl *self
typedef struct ICorProfilerFunctionControlVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(FC, const IID *riid, void **ppv);   /* 0 */
    ULONG(CLR_STDCALL *AddRef)(FC);                                           /* 1 */
    ULONG(CLR_STDCALL *Release)(FC);                                          /* 2 */
    HRESULT(CLR_STDCALL *SetCodegenFlags)(FC, DWORD flags);                   /* 3 */
    HRESULT(CLR_STDCALL *SetILFunctionBody)(FC, ULONG size, LPCBYTE header);  /* 4 */
    HRESULT(CLR_STDCALL *SetILInstrumentedCodeMap)(FC, ULONG count,
                                                   COR_IL_MAP entries[]);     /* 5 */
} ICorProfilerFunctionControlVtbl;
#undef FC

/* Declared (incomplete) in callback.h, which only passes it through. */
struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

CLR_SLOT_AT(ICorProfilerFunctionControlVtbl, SetCodegenFlags, 3);
CLR_SLOT_AT(ICorProfilerFunctionControlVtbl, SetILInstrumentedCodeMap, 5);

#endif
