/*
 * ICorProfilerInfo .. ICorProfilerInfo9, the runtime's side
 * (doc/profiling-abi.md#info, which also gives the order and parameter
 * lists of Info6..Info9).
 * Every slot is present in order; the ones the shim calls have their real
 * signatures, the others are opaque clr_slot entries whose only job is to
 * keep the positions right. One vtable struct covers the whole chain
 * because each version appends to the previous one.
 */
#ifndef SHIM_COM_INFO_H
#define SHIM_COM_INFO_H

#include "elt.h"
#include "unknown.h"

typedef struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL fAccurate;
} COR_IL_MAP;

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

/* Where an argument or the return value lies during an enter/leave hook
 * (doc/profiling-abi.md#info; 16 bytes on 64-bit targets). */
typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* `this` first (instance methods), then each argument; really
 * 8 + sizeof(range) * numRanges bytes, sized by GetFunctionEnter3Info. */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

_Static_assert(sizeof(COR_IL_MAP) == 12, "COR_IL_MAP is 12 bytes");
_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP is 12 bytes");

/* Special ilOffset values (CorDebugIlToNativeMappingTypes). */
#define CLR_NO_MAPPING 0xFFFFFFFFu
#define CLR_PROLOG 0xFFFFFFFEu
#define CLR_EPILOG 0xFFFFFFFDu

typedef struct ICorProfilerInfo9 ICorProfilerInfo9;

/* IMethodMalloc (GetILFunctionBodyAllocator): memory for a new IL body
 * handed to ICorProfilerInfo::SetILFunctionBody, which keeps the pointer. */
typedef struct IMethodMalloc IMethodMalloc;
typedef struct IMethodMallocVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(IMethodMalloc *self, const IID *riid, void **ppv);
    ULONG(CLR_STDCALL *AddRef)(IMethodMalloc *self);
    ULONG(CLR_STDCALL *Release)(IMethodMalloc *self);
    void *(CLR_STDCALL *Alloc)(IMethodMalloc *self, ULONG size); /* 3 */
} IMethodMallocVtbl;
struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

/* GetModuleInfo2's flags (COR_PRF_MODULE_FLAGS): the one the shim reads. */
#define COR_PRF_MODULE_COLLECTIBLE 0x00000008u

/* The shim asks for Info4 and, optionally, Info5 and Info9; all share this
 * layout, because each version only appends slots. A slot past Info4 is
 * called only after QueryInterface succeeded for its version. */
typedef ICorProfilerInfo9 ICorProfilerInfo4;

#define PI ICorProfilerInfo9 *self
typedef struct ICorProfilerInfo9Vtbl {
    /* IUnknown */
    HRESULT(CLR_STDCALL *QueryInterface)(PI, const IID *riid, void **ppv); /* 0 */
    ULONG(CLR_STDCALL *AddRef)(PI);                                         /* 1 */
    ULONG(CLR_STDCALL *Release)(PI);                                        /* 2 */
    /* ICorProfilerInfo */
    HRESULT(CLR_STDCALL *GetClassFromObject)(PI, ObjectID, ClassID *cls);   /* 3 */
    clr_slot GetClassFromToken;                                             /* 4 */
    clr_slot GetCodeInfo;                                                   /* 5 */
    HRESULT(CLR_STDCALL *GetEventMask)(PI, DWORD *events);                  /* 6 */
    clr_slot GetFunctionFromIP;                                             /* 7 */
    clr_slot GetFunctionFromToken;                                          /* 8 */
    clr_slot GetHandleFromThread;                                           /* 9 */
    clr_slot GetObjectSize;                                                 /* 10 */
    /* S_OK for an array class (its element type, element class, rank),
     * S_FALSE for any other. */
    HRESULT(CLR_STDCALL *IsArrayClass)(PI, ClassID, int32_t *element, ClassID *element_class,
                                       ULONG *rank);                        /* 11 */
    clr_slot GetThreadInfo;                                                 /* 12 */
    HRESULT(CLR_STDCALL *GetCurrentThreadID)(PI, ThreadID *thread);         /* 13 */
    HRESULT(CLR_STDCALL *GetClassIDInfo)(PI, ClassID, ModuleID *module,
                                         mdTypeDef *type);                  /* 14 */
    HRESULT(CLR_STDCALL *GetFunctionInfo)(PI, FunctionID, ClassID *cls, ModuleID *module,
                                          mdToken *token);                  /* 15 */
    HRESULT(CLR_STDCALL *SetEventMask)(PI, DWORD events);                   /* 16 */
    clr_slot SetEnterLeaveFunctionHooks;                                    /* 17 */
    clr_slot SetFunctionIDMapper;                                           /* 18 */
    clr_slot GetTokenAndMetaDataFromFunction;                               /* 19 */
    HRESULT(CLR_STDCALL *GetModuleInfo)(PI, ModuleID, LPCBYTE *base, ULONG cch_name,
                                        ULONG *pcch_name, WCHAR name[],
                                        AssemblyID *assembly);              /* 20 */
    HRESULT(CLR_STDCALL *GetModuleMetaData)(PI, ModuleID, DWORD open_flags, const IID *riid,
                                            IUnknown **out);                /* 21 */
    HRESULT(CLR_STDCALL *GetILFunctionBody)(PI, ModuleID, mdMethodDef, LPCBYTE *header,
                                            ULONG *size);                   /* 22 */
    HRESULT(CLR_STDCALL *GetILFunctionBodyAllocator)(PI, ModuleID,
                                                     IMethodMalloc **out);  /* 23 */
    HRESULT(CLR_STDCALL *SetILFunctionBody)(PI, ModuleID, mdMethodDef,
                                            LPCBYTE header);                /* 24 */
    clr_slot GetAppDomainInfo;                                              /* 25 */
    clr_slot GetAssemblyInfo;                                               /* 26 */
    clr_slot SetFunctionReJIT;                                              /* 27 */
    clr_slot ForceGC;                                                       /* 28 */
    HRESULT(CLR_STDCALL *SetILInstrumentedCodeMap)(PI, FunctionID, BOOL start_jit,
                                                   ULONG count,
                                                   COR_IL_MAP entries[]);   /* 29 */
    clr_slot GetInprocInspectionInterface;                                  /* 30 */
    clr_slot GetInprocInspectionIThisThread;                                /* 31 */
    HRESULT(CLR_STDCALL *GetThreadContext)(PI, ThreadID, ContextID *context); /* 32 */
    clr_slot BeginInprocDebugging;                                          /* 33 */
    clr_slot EndInprocDebugging;                                            /* 34 */
    HRESULT(CLR_STDCALL *GetILToNativeMapping)(PI, FunctionID, ULONG32 cap, ULONG32 *total,
                                               COR_DEBUG_IL_TO_NATIVE_MAP map[]); /* 35 */
    /* ICorProfilerInfo2 */
    clr_slot DoStackSnapshot;                                               /* 36 */
    clr_slot SetEnterLeaveFunctionHooks2;                                   /* 37 */
    /* The function's exact class and method type arguments; with a frame
     * (from an enter/leave hook) even for shared generic code. */
    HRESULT(CLR_STDCALL *GetFunctionInfo2)(PI, FunctionID, COR_PRF_FRAME_INFO frame,
                                           ClassID *cls, ModuleID *module, mdToken *token,
                                           ULONG32 cap, ULONG32 *total,
                                           ClassID type_args[]);            /* 38 */
    clr_slot GetStringLayout;                                               /* 39 */
    /* The instance fields the class declares itself (not its parents'):
     * each field's token and offset; and the class's size. */
    HRESULT(CLR_STDCALL *GetClassLayout)(PI, ClassID, COR_FIELD_OFFSET fields[], ULONG cap,
                                         ULONG *total, ULONG *class_size); /* 40 */
    /* The class's module and TypeDef, its parent class (0 at the root) and
     * its type arguments. */
    HRESULT(CLR_STDCALL *GetClassIDInfo2)(PI, ClassID, ModuleID *module, mdTypeDef *type,
                                          ClassID *parent, ULONG32 cap, ULONG32 *total,
                                          ClassID type_args[]);             /* 41 */
    clr_slot GetCodeInfo2;                                                  /* 42 */
    HRESULT(CLR_STDCALL *GetClassFromTokenAndTypeArgs)(PI, ModuleID, mdTypeDef type,
                                                       ULONG32 count, ClassID type_args[],
                                                       ClassID *out);       /* 43 */
    clr_slot GetFunctionFromTokenAndTypeArgs;                               /* 44 */
    clr_slot EnumModuleFrozenObjects;                                       /* 45 */
    /* An array object's rank dimensions: their lengths and lower bounds,
     * and where its elements start (row-major, element size apart). */
    HRESULT(CLR_STDCALL *GetArrayObjectInfo)(PI, ObjectID, ULONG32 rank, ULONG32 lengths[],
                                             int lower_bounds[], BYTE **data); /* 46 */
    /* A value type's box: where the value starts in the boxed object. */
    HRESULT(CLR_STDCALL *GetBoxClassLayout)(PI, ClassID, ULONG32 *buffer_offset); /* 47 */
    /* The AppDomain the thread runs in (0: the calling thread). */
    HRESULT(CLR_STDCALL *GetThreadAppDomain)(PI, ThreadID, AppDomainID *domain); /* 48 */
    /* Where a static field's value lives, one call per storage kind; each
     * refuses a field of another kind. */
    HRESULT(CLR_STDCALL *GetRVAStaticAddress)(PI, ClassID, mdFieldDef,
                                              void **address);              /* 49 */
    HRESULT(CLR_STDCALL *GetAppDomainStaticAddress)(PI, ClassID, mdFieldDef, AppDomainID,
                                                    void **address);        /* 50 */
    HRESULT(CLR_STDCALL *GetThreadStaticAddress)(PI, ClassID, mdFieldDef, ThreadID,
                                                 void **address);           /* 51 */
    HRESULT(CLR_STDCALL *GetContextStaticAddress)(PI, ClassID, mdFieldDef, ContextID,
                                                  void **address);          /* 52 */
    /* The runtime's own view of a field's storage (COR_PRF_FIELD_* bits). */
    HRESULT(CLR_STDCALL *GetStaticFieldInfo)(PI, ClassID, mdFieldDef,
                                             COR_PRF_STATIC_TYPE *kind);    /* 53 */
    clr_slot GetGenerationBounds;                                           /* 54 */
    clr_slot GetObjectGeneration;                                           /* 55 */
    clr_slot GetNotifiedExceptionClauseInfo;                                /* 56 */
    /* ICorProfilerInfo3 */
    clr_slot EnumJITedFunctions;                                            /* 57 */
    clr_slot RequestProfilerDetach;                                         /* 58 */
    HRESULT(CLR_STDCALL *SetFunctionIDMapper2)(PI, FunctionIDMapper2 *mapper,
                                               void *client_data);          /* 59 */
    HRESULT(CLR_STDCALL *GetStringLayout2)(PI, ULONG *length_offset,
                                           ULONG *buffer_offset);           /* 60 */
    HRESULT(CLR_STDCALL *SetEnterLeaveFunctionHooks3)(
        PI, FunctionEnter3 *enter, FunctionLeave3 *leave,
        FunctionTailcall3 *tailcall);                                       /* 61 */
    HRESULT(CLR_STDCALL *SetEnterLeaveFunctionHooks3WithInfo)(
        PI, FunctionEnter3WithInfo *enter, FunctionLeave3WithInfo *leave,
        FunctionTailcall3WithInfo *tailcall);                               /* 62 */
    HRESULT(CLR_STDCALL *GetFunctionEnter3Info)(PI, FunctionID, COR_PRF_ELT_INFO,
                                                COR_PRF_FRAME_INFO *frame, ULONG *cb_args,
                                                COR_PRF_FUNCTION_ARGUMENT_INFO *args); /* 63 */
    HRESULT(CLR_STDCALL *GetFunctionLeave3Info)(PI, FunctionID, COR_PRF_ELT_INFO,
                                                COR_PRF_FRAME_INFO *frame,
                                                COR_PRF_FUNCTION_ARGUMENT_RANGE *ret); /* 64 */
    clr_slot GetFunctionTailcall3Info;                                      /* 65 */
    clr_slot EnumModules;                                                   /* 66 */
    HRESULT(CLR_STDCALL *GetRuntimeInformation)(PI, USHORT *instance,
                                                COR_PRF_RUNTIME_TYPE *type, USHORT *major,
                                                USHORT *minor, USHORT *build, USHORT *qfe,
                                                ULONG cch_version, ULONG *pcch_version,
                                                WCHAR version[]);           /* 67 */
    HRESULT(CLR_STDCALL *GetThreadStaticAddress2)(PI, ClassID, mdFieldDef, AppDomainID,
                                                  ThreadID, void **address); /* 68 */
    clr_slot GetAppDomainsContainingModule;                                 /* 69 */
    HRESULT(CLR_STDCALL *GetModuleInfo2)(PI, ModuleID, LPCBYTE *base, ULONG cch_name,
                                         ULONG *pcch_name, WCHAR name[], AssemblyID *assembly,
                                         DWORD *flags);                     /* 70 */
    /* ICorProfilerInfo4 */
    clr_slot EnumThreads;                                                   /* 71 */
    clr_slot InitializeCurrentThread;                                       /* 72 */
    HRESULT(CLR_STDCALL *RequestReJIT)(PI, ULONG count, ModuleID modules[],
                                       mdMethodDef methods[]);              /* 73 */
    clr_slot RequestRevert;                                                 /* 74 */
    HRESULT(CLR_STDCALL *GetCodeInfo3)(PI, FunctionID, ReJITID, ULONG32 cap, ULONG32 *total,
                                       COR_PRF_CODE_INFO infos[]);          /* 75 */
    clr_slot GetFunctionFromIP2;                                            /* 76 */
    HRESULT(CLR_STDCALL *GetReJITIDs)(PI, FunctionID, ULONG cap, ULONG *total,
                                      ReJITID ids[]);                       /* 77 */
    HRESULT(CLR_STDCALL *GetILToNativeMapping2)(PI, FunctionID, ReJITID, ULONG32 cap,
                                                ULONG32 *total,
                                                COR_DEBUG_IL_TO_NATIVE_MAP map[]); /* 78 */
    clr_slot EnumJITedFunctions2;                                           /* 79 */
    HRESULT(CLR_STDCALL *GetObjectSize2)(PI, ObjectID, SIZE_T *size);      /* 80 */
    /* ICorProfilerInfo5: valid only on a pointer obtained for IID_ICorProfilerInfo5 */
    HRESULT(CLR_STDCALL *GetEventMask2)(PI, DWORD *low, DWORD *high);       /* 81 */
    HRESULT(CLR_STDCALL *SetEventMask2)(PI, DWORD low, DWORD high);         /* 82 */
    /* ICorProfilerInfo6 */
    clr_slot EnumNgenModuleMethodsInliningThisMethod;                       /* 83 */
    /* ICorProfilerInfo7 */
    clr_slot ApplyMetaData;                                                 /* 84 */
    clr_slot GetInMemorySymbolsLength;                                      /* 85 */
    clr_slot ReadInMemorySymbols;                                           /* 86 */
    /* ICorProfilerInfo8 */
    clr_slot IsFunctionDynamic;                                             /* 87 */
    clr_slot GetFunctionFromIP3;                                            /* 88 */
    clr_slot GetDynamicFunctionInfo;                                        /* 89 */
    /* ICorProfilerInfo9: valid only on a pointer obtained for IID_ICorProfilerInfo9 */
    HRESULT(CLR_STDCALL *GetNativeCodeStartAddresses)(PI, FunctionID, ReJITID, ULONG32 cap,
                                                      ULONG32 *total,
                                                      UINT_PTR starts[]);   /* 90 */
    HRESULT(CLR_STDCALL *GetILToNativeMapping3)(PI, UINT_PTR code_start, ULONG32 cap,
                                                ULONG32 *total,
                                                COR_DEBUG_IL_TO_NATIVE_MAP map[]); /* 91 */
    HRESULT(CLR_STDCALL *GetCodeInfo4)(PI, UINT_PTR code_start, ULONG32 cap, ULONG32 *total,
                                       COR_PRF_CODE_INFO infos[]);          /* 92 */
} ICorProfilerInfo9Vtbl;
#undef PI

struct ICorProfilerInfo9 {
    const ICorProfilerInfo9Vtbl *lpVtbl;
};

CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassFromObject, 3);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetEventMask, 6);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassIDInfo, 14);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassLayout, 40);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassIDInfo2, 41);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassFromTokenAndTypeArgs, 43);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetArrayObjectInfo, 46);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetBoxClassLayout, 47);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetStringLayout2, 60);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionEnter3Info, 63);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionLeave3Info, 64);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionInfo, 15);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEventMask, 16);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetModuleInfo, 20);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetModuleMetaData, 21);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILFunctionBody, 22);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILFunctionBodyAllocator, 23);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetILFunctionBody, 24);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetILInstrumentedCodeMap, 29);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILToNativeMapping, 35);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, DoStackSnapshot, 36);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetNotifiedExceptionClauseInfo, 56);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumJITedFunctions, 57);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetFunctionIDMapper2, 59);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEnterLeaveFunctionHooks3, 61);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEnterLeaveFunctionHooks3WithInfo, 62);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetRuntimeInformation, 67);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetModuleInfo2, 70);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, IsArrayClass, 11);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetCurrentThreadID, 13);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionInfo2, 38);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetThreadContext, 32);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetThreadAppDomain, 48);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetRVAStaticAddress, 49);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetAppDomainStaticAddress, 50);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetThreadStaticAddress, 51);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetContextStaticAddress, 52);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetStaticFieldInfo, 53);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetThreadStaticAddress2, 68);
CLR_SLOT_AT(IMethodMallocVtbl, Alloc, 3);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumThreads, 71);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, RequestReJIT, 73);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetCodeInfo3, 75);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetReJITIDs, 77);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILToNativeMapping2, 78);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetObjectSize2, 80);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEventMask2, 82);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumNgenModuleMethodsInliningThisMethod, 83);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, IsFunctionDynamic, 87);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetNativeCodeStartAddresses, 90);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILToNativeMapping3, 91);
_Static_assert(sizeof(ICorProfilerInfo9Vtbl) == 93 * sizeof(void (*)(void)),
               "ICorProfilerInfo9 ends at slot 92");

#endif
