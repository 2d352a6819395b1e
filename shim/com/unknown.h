/*
 * IUnknown and IClassFactory (doc/profiling-abi.md#types). A COM object is a struct whose
 * first member points at its vtable; every slot takes the interface pointer
 * first.
 */
#ifndef SHIM_COM_UNKNOWN_H
#define SHIM_COM_UNKNOWN_H

#include "types.h"

typedef struct IUnknown IUnknown;
typedef struct IUnknownVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(IUnknown *self, const IID *riid, void **ppv); /* 0 */
    ULONG(CLR_STDCALL *AddRef)(IUnknown *self);                                        /* 1 */
    ULONG(CLR_STDCALL *Release)(IUnknown *self);                                       /* 2 */
} IUnknownVtbl;
struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

typedef struct IClassFactory IClassFactory;
typedef struct IClassFactoryVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(IClassFactory *self, const IID *riid, void **ppv);
    ULONG(CLR_STDCALL *AddRef)(IClassFactory *self);
    ULONG(CLR_STDCALL *Release)(IClassFactory *self);
    HRESULT(CLR_STDCALL *CreateInstance)(IClassFactory *self, IUnknown *outer, const IID *riid,
                                         void **ppv);             /* 3 */
    HRESULT(CLR_STDCALL *LockServer)(IClassFactory *self, BOOL lock); /* 4 */
} IClassFactoryVtbl;
struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

/* A vtable slot the shim never calls: only its position matters. */
typedef void (*clr_slot)(void);

/* Slot-position check: `slot` is the absolute vtable index from the tables
 * in doc/profiling-abi.md#callbacks and #info. */
#define CLR_SLOT_AT(vtbl, member, slot) \
    _Static_assert(offsetof(vtbl, member) == (slot) * sizeof(void (*)(void)), \
                   #vtbl "." #member " must be vtable slot " #slot)

#endif
