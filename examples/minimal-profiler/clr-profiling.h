/*
 * The part of the CLR profiling API that minimal-profiler.c uses, declared
 * in plain C: scalar types, the COM plumbing (IUnknown, IClassFactory),
 * the callback interface the profiler implements (ICorProfilerCallback ..
 * ICorProfilerCallback4, every slot: the runtime may call any of them),
 * the runtime's info interface (ICorProfilerInfo .. ICorProfilerInfo9,
 * every slot in order, typed where the example calls it) and the head of
 * IMetaDataImport (up to GetMethodProps).
 *
 * These declarations are libilmap's own, written from the binary-interface
 * facts in libilmap's doc/profiling-abi.md; no runtime header is used or
 * copied. They are the subset of the profiler shim's (libilmap's
 * shim/com/) that a minimal profiler needs, carried here so that this
 * directory builds on its own against an installed libilmap. In
 * libilmap's tree the example-abi test checks that both say the same:
 * the same slots in the same order, the same signatures where both type a
 * slot, the same identifiers, types and constants. Each slot number below
 * is also checked at compile time (CLR_SLOT_AT).
 *
 * Linux x86-64 and arm64: COM methods are plain C functions whose first
 * parameter is the interface pointer; LONG and ULONG are 32-bit (never
 * C long); WCHAR is UTF-16 (never wchar_t). The names are the profiling
 * API's, so that this file reads next to its documentation; a translation
 * unit that includes it must not also include <windows.h>.
 */
#ifndef CLR_PROFILING_H
#define CLR_PROFILING_H

#include <stddef.h>
#include <stdint.h>

/* ---- Types (doc/profiling-abi.md#types) ----------------------------- */

/* Only 32-bit Windows has a distinct COM calling convention. */
#if defined(_WIN32) && (defined(_M_IX86) || defined(__i386__))
#  define CLR_STDCALL __stdcall
#else
#  define CLR_STDCALL
#endif

typedef int32_t HRESULT;
typedef int32_t BOOL;
typedef uint32_t ULONG;
typedef uint32_t ULONG32;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint8_t BYTE;
typedef const BYTE *LPCBYTE;
typedef uint16_t WCHAR;
typedef uintptr_t UINT_PTR;
typedef size_t SIZE_T;

typedef uint32_t mdToken;
typedef mdToken mdMethodDef;
typedef mdToken mdTypeDef;
typedef const BYTE *PCCOR_SIGNATURE;

/* Runtime handles: all pointer-sized. */
typedef UINT_PTR ModuleID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR ReJITID;
typedef UINT_PTR GCHandleID;

/* Enums in signatures travel as 32-bit ints. */
typedef int32_t COR_PRF_JIT_CACHE;
typedef int32_t COR_PRF_TRANSITION_REASON;
typedef int32_t COR_PRF_SUSPEND_REASON;
typedef int32_t COR_PRF_GC_REASON;
typedef int32_t COR_PRF_GC_ROOT_KIND;
typedef int32_t COR_PRF_GC_ROOT_FLAGS;

typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;
_Static_assert(sizeof(GUID) == 16, "GUID is 16 bytes without padding");

#define S_OK ((HRESULT)0)
#define E_NOINTERFACE ((HRESULT)0x80004002u)
#define E_POINTER ((HRESULT)0x80004003u)
#define E_FAIL ((HRESULT)0x80004005u)
#define E_INVALIDARG ((HRESULT)0x80070057u)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110u)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111u)

#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)
#define FAILED(hr) ((HRESULT)(hr) < 0)

/* The runtime's IL-to-native map entry and code range
 * (GetILToNativeMapping3, GetCodeInfo4). */
typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP is 12 bytes");

/* ---- Flags (doc/profiling-abi.md#flags) ----------------------------- */

/* ICorProfilerInfo::SetEventMask */
#define COR_PRF_MONITOR_MODULE_LOADS 0x00000004u
#define COR_PRF_MONITOR_JIT_COMPILATION 0x00000020u
#define COR_PRF_ENABLE_REJIT 0x00040000u

/* GetModuleMetaData: open for reading; a methodDef token's table. */
#define CLR_OF_READ 0x00000000u
#define CLR_MD_TOKEN_TYPE_MASK 0xFF000000u
#define CLR_MD_METHOD_DEF 0x06000000u

/* ---- COM plumbing ---------------------------------------------------- */

/* A vtable slot the example never calls: only its position matters. */
typedef void (*clr_slot)(void);

/* Slot-position check: `slot` is the absolute vtable index
 * (doc/profiling-abi.md#callbacks and #info). */
#define CLR_SLOT_AT(vtbl, member, slot) \
    _Static_assert(offsetof(vtbl, member) == (slot) * sizeof(void (*)(void)), \
                   #vtbl "." #member " must be vtable slot " #slot)

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

/* ---- ICorProfilerCallback .. ICorProfilerCallback4 -------------------
 * Implemented by the profiler: 89 slots (doc/profiling-abi.md#callbacks).
 * One vtable of the most derived interface serves all four. */

/* Handed to GetReJITParameters; this example never looks inside. */
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;

typedef struct ICorProfilerCallback4 ICorProfilerCallback4;
#define CB ICorProfilerCallback4 *self
typedef struct ICorProfilerCallback4Vtbl {
    /* IUnknown */
    HRESULT(CLR_STDCALL *QueryInterface)(CB, const IID *riid, void **ppv);           /* 0 */
    ULONG(CLR_STDCALL *AddRef)(CB);                                                   /* 1 */
    ULONG(CLR_STDCALL *Release)(CB);                                                  /* 2 */
    /* ICorProfilerCallback */
    HRESULT(CLR_STDCALL *Initialize)(CB, IUnknown *info);                             /* 3 */
    HRESULT(CLR_STDCALL *Shutdown)(CB);                                               /* 4 */
    HRESULT(CLR_STDCALL *AppDomainCreationStarted)(CB, AppDomainID);                  /* 5 */
    HRESULT(CLR_STDCALL *AppDomainCreationFinished)(CB, AppDomainID, HRESULT);        /* 6 */
    HRESULT(CLR_STDCALL *AppDomainShutdownStarted)(CB, AppDomainID);                  /* 7 */
    HRESULT(CLR_STDCALL *AppDomainShutdownFinished)(CB, AppDomainID, HRESULT);        /* 8 */
    HRESULT(CLR_STDCALL *AssemblyLoadStarted)(CB, AssemblyID);                        /* 9 */
    HRESULT(CLR_STDCALL *AssemblyLoadFinished)(CB, AssemblyID, HRESULT);              /* 10 */
    HRESULT(CLR_STDCALL *AssemblyUnloadStarted)(CB, AssemblyID);                      /* 11 */
    HRESULT(CLR_STDCALL *AssemblyUnloadFinished)(CB, AssemblyID, HRESULT);            /* 12 */
    HRESULT(CLR_STDCALL *ModuleLoadStarted)(CB, ModuleID);                            /* 13 */
    HRESULT(CLR_STDCALL *ModuleLoadFinished)(CB, ModuleID, HRESULT);                  /* 14 */
    HRESULT(CLR_STDCALL *ModuleUnloadStarted)(CB, ModuleID);                          /* 15 */
    HRESULT(CLR_STDCALL *ModuleUnloadFinished)(CB, ModuleID, HRESULT);                /* 16 */
    HRESULT(CLR_STDCALL *ModuleAttachedToAssembly)(CB, ModuleID, AssemblyID);         /* 17 */
    HRESULT(CLR_STDCALL *ClassLoadStarted)(CB, ClassID);                              /* 18 */
    HRESULT(CLR_STDCALL *ClassLoadFinished)(CB, ClassID, HRESULT);                    /* 19 */
    HRESULT(CLR_STDCALL *ClassUnloadStarted)(CB, ClassID);                            /* 20 */
    HRESULT(CLR_STDCALL *ClassUnloadFinished)(CB, ClassID, HRESULT);                  /* 21 */
    HRESULT(CLR_STDCALL *FunctionUnloadStarted)(CB, FunctionID);                      /* 22 */
    HRESULT(CLR_STDCALL *JITCompilationStarted)(CB, FunctionID, BOOL safe_to_block);  /* 23 */
    HRESULT(CLR_STDCALL *JITCompilationFinished)(CB, FunctionID, HRESULT,
                                                 BOOL safe_to_block);                 /* 24 */
    HRESULT(CLR_STDCALL *JITCachedFunctionSearchStarted)(CB, FunctionID,
                                                         BOOL *use_cached);           /* 25 */
    HRESULT(CLR_STDCALL *JITCachedFunctionSearchFinished)(CB, FunctionID,
                                                          COR_PRF_JIT_CACHE);         /* 26 */
    HRESULT(CLR_STDCALL *JITFunctionPitched)(CB, FunctionID);                         /* 27 */
    HRESULT(CLR_STDCALL *JITInlining)(CB, FunctionID caller, FunctionID callee,
                                      BOOL *should_inline);                           /* 28 */
    HRESULT(CLR_STDCALL *ThreadCreated)(CB, ThreadID);                                /* 29 */
    HRESULT(CLR_STDCALL *ThreadDestroyed)(CB, ThreadID);                              /* 30 */
    HRESULT(CLR_STDCALL *ThreadAssignedToOSThread)(CB, ThreadID, DWORD os_thread);    /* 31 */
    HRESULT(CLR_STDCALL *RemotingClientInvocationStarted)(CB);                        /* 32 */
    HRESULT(CLR_STDCALL *RemotingClientSendingMessage)(CB, GUID *, BOOL);             /* 33 */
    HRESULT(CLR_STDCALL *RemotingClientReceivingReply)(CB, GUID *, BOOL);             /* 34 */
    HRESULT(CLR_STDCALL *RemotingClientInvocationFinished)(CB);                       /* 35 */
    HRESULT(CLR_STDCALL *RemotingServerReceivingMessage)(CB, GUID *, BOOL);           /* 36 */
    HRESULT(CLR_STDCALL *RemotingServerInvocationStarted)(CB);                        /* 37 */
    HRESULT(CLR_STDCALL *RemotingServerInvocationReturned)(CB);                       /* 38 */
    HRESULT(CLR_STDCALL *RemotingServerSendingReply)(CB, GUID *, BOOL);               /* 39 */
    HRESULT(CLR_STDCALL *UnmanagedToManagedTransition)(CB, FunctionID,
                                                       COR_PRF_TRANSITION_REASON);    /* 40 */
    HRESULT(CLR_STDCALL *ManagedToUnmanagedTransition)(CB, FunctionID,
                                                       COR_PRF_TRANSITION_REASON);    /* 41 */
    HRESULT(CLR_STDCALL *RuntimeSuspendStarted)(CB, COR_PRF_SUSPEND_REASON);          /* 42 */
    HRESULT(CLR_STDCALL *RuntimeSuspendFinished)(CB);                                 /* 43 */
    HRESULT(CLR_STDCALL *RuntimeSuspendAborted)(CB);                                  /* 44 */
    HRESULT(CLR_STDCALL *RuntimeResumeStarted)(CB);                                   /* 45 */
    HRESULT(CLR_STDCALL *RuntimeResumeFinished)(CB);                                  /* 46 */
    HRESULT(CLR_STDCALL *RuntimeThreadSuspended)(CB, ThreadID);                       /* 47 */
    HRESULT(CLR_STDCALL *RuntimeThreadResumed)(CB, ThreadID);                         /* 48 */
    HRESULT(CLR_STDCALL *MovedReferences)(CB, ULONG count, ObjectID old_start[],
                                          ObjectID new_start[], ULONG length[]);      /* 49 */
    HRESULT(CLR_STDCALL *ObjectAllocated)(CB, ObjectID, ClassID);                     /* 50 */
    HRESULT(CLR_STDCALL *ObjectsAllocatedByClass)(CB, ULONG count, ClassID classes[],
                                                  ULONG objects[]);                   /* 51 */
    HRESULT(CLR_STDCALL *ObjectReferences)(CB, ObjectID, ClassID, ULONG count,
                                           ObjectID refs[]);                          /* 52 */
    HRESULT(CLR_STDCALL *RootReferences)(CB, ULONG count, ObjectID roots[]);          /* 53 */
    HRESULT(CLR_STDCALL *ExceptionThrown)(CB, ObjectID);                              /* 54 */
    HRESULT(CLR_STDCALL *ExceptionSearchFunctionEnter)(CB, FunctionID);               /* 55 */
    HRESULT(CLR_STDCALL *ExceptionSearchFunctionLeave)(CB);                           /* 56 */
    HRESULT(CLR_STDCALL *ExceptionSearchFilterEnter)(CB, FunctionID);                 /* 57 */
    HRESULT(CLR_STDCALL *ExceptionSearchFilterLeave)(CB);                             /* 58 */
    HRESULT(CLR_STDCALL *ExceptionSearchCatcherFound)(CB, FunctionID);                /* 59 */
    HRESULT(CLR_STDCALL *ExceptionOSHandlerEnter)(CB, UINT_PTR);                      /* 60 */
    HRESULT(CLR_STDCALL *ExceptionOSHandlerLeave)(CB, UINT_PTR);                      /* 61 */
    HRESULT(CLR_STDCALL *ExceptionUnwindFunctionEnter)(CB, FunctionID);               /* 62 */
    HRESULT(CLR_STDCALL *ExceptionUnwindFunctionLeave)(CB);                           /* 63 */
    HRESULT(CLR_STDCALL *ExceptionUnwindFinallyEnter)(CB, FunctionID);                /* 64 */
    HRESULT(CLR_STDCALL *ExceptionUnwindFinallyLeave)(CB);                            /* 65 */
    HRESULT(CLR_STDCALL *ExceptionCatcherEnter)(CB, FunctionID, ObjectID);            /* 66 */
    HRESULT(CLR_STDCALL *ExceptionCatcherLeave)(CB);                                  /* 67 */
    HRESULT(CLR_STDCALL *COMClassicVTableCreated)(CB, ClassID, const GUID *iid,
                                                  void *vtable, ULONG slots);         /* 68 */
    HRESULT(CLR_STDCALL *COMClassicVTableDestroyed)(CB, ClassID, const GUID *iid,
                                                    void *vtable);                    /* 69 */
    HRESULT(CLR_STDCALL *ExceptionCLRCatcherFound)(CB);                               /* 70 */
    HRESULT(CLR_STDCALL *ExceptionCLRCatcherExecute)(CB);                             /* 71 */
    /* ICorProfilerCallback2 */
    HRESULT(CLR_STDCALL *ThreadNameChanged)(CB, ThreadID, ULONG cch, WCHAR name[]);   /* 72 */
    HRESULT(CLR_STDCALL *GarbageCollectionStarted)(CB, int generations,
                                                   BOOL collected[],
                                                   COR_PRF_GC_REASON);                /* 73 */
    HRESULT(CLR_STDCALL *SurvivingReferences)(CB, ULONG count, ObjectID start[],
                                              ULONG length[]);                        /* 74 */
    HRESULT(CLR_STDCALL *GarbageCollectionFinished)(CB);                              /* 75 */
    HRESULT(CLR_STDCALL *FinalizeableObjectQueued)(CB, DWORD flags, ObjectID);        /* 76 */
    HRESULT(CLR_STDCALL *RootReferences2)(CB, ULONG count, ObjectID roots[],
                                          COR_PRF_GC_ROOT_KIND kinds[],
                                          COR_PRF_GC_ROOT_FLAGS flags[],
                                          UINT_PTR ids[]);                            /* 77 */
    HRESULT(CLR_STDCALL *HandleCreated)(CB, GCHandleID, ObjectID);                    /* 78 */
    HRESULT(CLR_STDCALL *HandleDestroyed)(CB, GCHandleID);                            /* 79 */
    /* ICorProfilerCallback3 */
    HRESULT(CLR_STDCALL *InitializeForAttach)(CB, IUnknown *info, void *client_data,
                                              UINT client_data_size);                 /* 80 */
    HRESULT(CLR_STDCALL *ProfilerAttachComplete)(CB);                                 /* 81 */
    HRESULT(CLR_STDCALL *ProfilerDetachSucceeded)(CB);                                /* 82 */
    /* ICorProfilerCallback4 */
    HRESULT(CLR_STDCALL *ReJITCompilationStarted)(CB, FunctionID, ReJITID,
                                                  BOOL safe_to_block);                /* 83 */
    HRESULT(CLR_STDCALL *GetReJITParameters)(CB, ModuleID, mdMethodDef,
                                             ICorProfilerFunctionControl *control);   /* 84 */
    HRESULT(CLR_STDCALL *ReJITCompilationFinished)(CB, FunctionID, ReJITID, HRESULT,
                                                   BOOL safe_to_block);               /* 85 */
    HRESULT(CLR_STDCALL *ReJITError)(CB, ModuleID, mdMethodDef, FunctionID,
                                     HRESULT);                                        /* 86 */
    HRESULT(CLR_STDCALL *MovedReferences2)(CB, ULONG count, ObjectID old_start[],
                                           ObjectID new_start[], SIZE_T length[]);    /* 87 */
    HRESULT(CLR_STDCALL *SurvivingReferences2)(CB, ULONG count, ObjectID start[],
                                               SIZE_T length[]);                      /* 88 */
} ICorProfilerCallback4Vtbl;
#undef CB

struct ICorProfilerCallback4 {
    const ICorProfilerCallback4Vtbl *lpVtbl;
};

CLR_SLOT_AT(ICorProfilerCallback4Vtbl, Initialize, 3);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ModuleUnloadStarted, 15);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, JITCompilationFinished, 24);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ExceptionCLRCatcherExecute, 71);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ThreadNameChanged, 72);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, InitializeForAttach, 80);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ReJITCompilationStarted, 83);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ReJITCompilationFinished, 85);
_Static_assert(sizeof(ICorProfilerCallback4Vtbl) == 89 * sizeof(void (*)(void)),
               "ICorProfilerCallback4 has 89 slots");

/* Every slot as a function that does nothing and returns S_OK
 * (clr-profiling.c): a profiler copies it into its own vtable and
 * replaces the slots it acts on. */
extern const ICorProfilerCallback4Vtbl clr_callback4_stubs;

/* ---- ICorProfilerInfo .. ICorProfilerInfo9 ---------------------------
 * Implemented by the runtime (doc/profiling-abi.md#info). Each version
 * appends to the previous one, so one vtable covers the chain; a slot of
 * version N may be called only through a pointer QueryInterface gave for
 * version N or later. The example asks for Info9. */

typedef struct ICorProfilerInfo9 ICorProfilerInfo9;
#define PI ICorProfilerInfo9 *self
typedef struct ICorProfilerInfo9Vtbl {
    /* IUnknown */
    HRESULT(CLR_STDCALL *QueryInterface)(PI, const IID *riid, void **ppv); /* 0 */
    ULONG(CLR_STDCALL *AddRef)(PI);                                         /* 1 */
    ULONG(CLR_STDCALL *Release)(PI);                                        /* 2 */
    /* ICorProfilerInfo */
    clr_slot GetClassFromObject, GetClassFromToken, GetCodeInfo, GetEventMask,  /* 3-6 */
        GetFunctionFromIP, GetFunctionFromToken, GetHandleFromThread,          /* 7-9 */
        GetObjectSize, IsArrayClass, GetThreadInfo, GetCurrentThreadID,         /* 10-13 */
        GetClassIDInfo;                                                         /* 14 */
    HRESULT(CLR_STDCALL *GetFunctionInfo)(PI, FunctionID, ClassID *cls, ModuleID *module,
                                          mdToken *token);                  /* 15 */
    HRESULT(CLR_STDCALL *SetEventMask)(PI, DWORD events);                   /* 16 */
    clr_slot SetEnterLeaveFunctionHooks, SetFunctionIDMapper,                  /* 17-18 */
        GetTokenAndMetaDataFromFunction, GetModuleInfo;                         /* 19-20 */
    HRESULT(CLR_STDCALL *GetModuleMetaData)(PI, ModuleID, DWORD open_flags, const IID *riid,
                                            IUnknown **out);                /* 21 */
    HRESULT(CLR_STDCALL *GetILFunctionBody)(PI, ModuleID, mdMethodDef, LPCBYTE *header,
                                            ULONG *size);                   /* 22 */
    clr_slot GetILFunctionBodyAllocator, SetILFunctionBody, GetAppDomainInfo,  /* 23-25 */
        GetAssemblyInfo, SetFunctionReJIT, ForceGC, SetILInstrumentedCodeMap,   /* 26-29 */
        GetInprocInspectionInterface, GetInprocInspectionIThisThread,           /* 30-31 */
        GetThreadContext, BeginInprocDebugging, EndInprocDebugging,             /* 32-34 */
        GetILToNativeMapping;                                                   /* 35 */
    /* ICorProfilerInfo2 */
    clr_slot DoStackSnapshot, SetEnterLeaveFunctionHooks2, GetFunctionInfo2,   /* 36-38 */
        GetStringLayout, GetClassLayout, GetClassIDInfo2, GetCodeInfo2,         /* 39-42 */
        GetClassFromTokenAndTypeArgs, GetFunctionFromTokenAndTypeArgs,          /* 43-44 */
        EnumModuleFrozenObjects, GetArrayObjectInfo, GetBoxClassLayout,         /* 45-47 */
        GetThreadAppDomain, GetRVAStaticAddress, GetAppDomainStaticAddress,     /* 48-50 */
        GetThreadStaticAddress, GetContextStaticAddress, GetStaticFieldInfo,    /* 51-53 */
        GetGenerationBounds, GetObjectGeneration,                               /* 54-55 */
        GetNotifiedExceptionClauseInfo;                                         /* 56 */
    /* ICorProfilerInfo3 */
    clr_slot EnumJITedFunctions, RequestProfilerDetach, SetFunctionIDMapper2,  /* 57-59 */
        GetStringLayout2, SetEnterLeaveFunctionHooks3,                          /* 60-61 */
        SetEnterLeaveFunctionHooks3WithInfo, GetFunctionEnter3Info,             /* 62-63 */
        GetFunctionLeave3Info, GetFunctionTailcall3Info, EnumModules,           /* 64-66 */
        GetRuntimeInformation, GetThreadStaticAddress2,                         /* 67-68 */
        GetAppDomainsContainingModule, GetModuleInfo2;                          /* 69-70 */
    /* ICorProfilerInfo4 */
    clr_slot EnumThreads, InitializeCurrentThread;                             /* 71-72 */
    /* Asks for a new version of each (module, methodDef), compiled at its
     * next call; may trigger a GC (doc/profiling-abi.md#rejit-rules). */
    HRESULT(CLR_STDCALL *RequestReJIT)(PI, ULONG count, ModuleID modules[],
                                       mdMethodDef methods[]);              /* 73 */
    clr_slot RequestRevert, GetCodeInfo3;                                      /* 74-75 */
    /* The function and version whose code holds ip. */
    HRESULT(CLR_STDCALL *GetFunctionFromIP2)(PI, LPCBYTE ip, FunctionID *function,
                                             ReJITID *rejit);               /* 76 */
    clr_slot GetReJITIDs, GetILToNativeMapping2, EnumJITedFunctions2,          /* 77-79 */
        GetObjectSize2;                                                         /* 80 */
    /* ICorProfilerInfo5 */
    clr_slot GetEventMask2, SetEventMask2;                                     /* 81-82 */
    /* ICorProfilerInfo6 */
    clr_slot EnumNgenModuleMethodsInliningThisMethod;                          /* 83 */
    /* ICorProfilerInfo7 */
    clr_slot ApplyMetaData, GetInMemorySymbolsLength, ReadInMemorySymbols;     /* 84-86 */
    /* ICorProfilerInfo8 */
    clr_slot IsFunctionDynamic, GetFunctionFromIP3, GetDynamicFunctionInfo;    /* 87-89 */
    /* ICorProfilerInfo9: the code starts of every native body of a
     * version (one per tier), and each body's ranges and map by its
     * start. List protocol: *total gets the count, min(cap, count) are
     * written (doc/buffer-protocol.md#runtime). */
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

CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetClassIDInfo, 14);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionInfo, 15);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEventMask, 16);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetModuleMetaData, 21);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILFunctionBody, 22);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILToNativeMapping, 35);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, DoStackSnapshot, 36);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetNotifiedExceptionClauseInfo, 56);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumJITedFunctions, 57);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetModuleInfo2, 70);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumThreads, 71);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, RequestReJIT, 73);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetFunctionFromIP2, 76);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetObjectSize2, 80);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, SetEventMask2, 82);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, EnumNgenModuleMethodsInliningThisMethod, 83);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, IsFunctionDynamic, 87);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetNativeCodeStartAddresses, 90);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetILToNativeMapping3, 91);
CLR_SLOT_AT(ICorProfilerInfo9Vtbl, GetCodeInfo4, 92);
_Static_assert(sizeof(ICorProfilerInfo9Vtbl) == 93 * sizeof(void (*)(void)),
               "ICorProfilerInfo9 ends at slot 92");

/* ---- IMetaDataImport, up to GetMethodProps ---------------------------
 * (doc/profiling-abi.md#metadata) From GetModuleMetaData; the example
 * reads method names with it. The runtime's object has more slots after
 * these; a caller needs only the ones up to the last it calls. */

typedef struct IMetaDataImport IMetaDataImport;
#define MI IMetaDataImport *self
typedef struct IMetaDataImportVtbl {
    HRESULT(CLR_STDCALL *QueryInterface)(MI, const IID *riid, void **ppv);   /* 0 */
    ULONG(CLR_STDCALL *AddRef)(MI);                                           /* 1 */
    ULONG(CLR_STDCALL *Release)(MI);                                          /* 2 */
    clr_slot CloseEnum, CountEnum, ResetEnum, EnumTypeDefs,                      /* 3-6 */
        EnumInterfaceImpls, EnumTypeRefs, FindTypeDefByName, GetScopeProps,     /* 7-10 */
        GetModuleFromScope, GetTypeDefProps, GetInterfaceImplProps,             /* 11-13 */
        GetTypeRefProps, ResolveTypeRef, EnumMembers, EnumMembersWithName,      /* 14-17 */
        EnumMethods, EnumMethodsWithName, EnumFields, EnumFieldsWithName,       /* 18-21 */
        EnumParams, EnumMemberRefs, EnumMethodImpls, EnumPermissionSets,        /* 22-25 */
        FindMember, FindMethod, FindField, FindMemberRef;                       /* 26-29 */
    /* The method's simple name (UTF-16, NUL-terminated), its type and
     * attributes, signature, RVA and implementation flags. */
    HRESULT(CLR_STDCALL *GetMethodProps)(MI, mdMethodDef, mdTypeDef *cls, WCHAR *name,
                                         ULONG cch_name, ULONG *pcch_name, DWORD *attr,
                                         PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                         ULONG *code_rva, DWORD *impl_flags); /* 30 */
} IMetaDataImportVtbl;
#undef MI

struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

CLR_SLOT_AT(IMetaDataImportVtbl, CloseEnum, 3);
CLR_SLOT_AT(IMetaDataImportVtbl, GetTypeDefProps, 12);
CLR_SLOT_AT(IMetaDataImportVtbl, EnumMethods, 18);
CLR_SLOT_AT(IMetaDataImportVtbl, FindMethod, 27);
CLR_SLOT_AT(IMetaDataImportVtbl, GetMethodProps, 30);

/* ---- Identifiers (doc/profiling-abi.md#guids; clr-profiling.c) ------- */

extern const IID IID_IUnknown;
extern const IID IID_IClassFactory;
extern const IID IID_ICorProfilerCallback;
extern const IID IID_ICorProfilerCallback2;
extern const IID IID_ICorProfilerCallback3;
extern const IID IID_ICorProfilerCallback4;
extern const IID IID_ICorProfilerInfo9;
extern const IID IID_IMetaDataImport;

/* GUIDs are compared by value, field by field. */
int clr_guid_equal(const GUID *a, const GUID *b);

#endif
