/*
 * ICorProfilerCallback .. ICorProfilerCallback4, the interfaces the shim
 * implements: all 89 slots in the order of doc/profiling-abi.md#callbacks, each with its
 * full signature (slot number in the comment). The shim's object answers
 * QueryInterface for all four with the same pointer, so one vtable of the
 * most derived interface serves them all.
 */
#ifndef SHIM_COM_CALLBACK_H
#define SHIM_COM_CALLBACK_H

#include "unknown.h"

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

/* The boundaries between interface versions and the total (doc/profiling-abi.md#callbacks). */
#define ICORPROFILERCALLBACK4_SLOTS 89
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, Initialize, 3);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ModuleLoadFinished, 14);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, JITCompilationStarted, 23);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, MovedReferences, 49);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, RootReferences, 53);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ExceptionCLRCatcherExecute, 71);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ThreadNameChanged, 72);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, InitializeForAttach, 80);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ReJITCompilationStarted, 83);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, GetReJITParameters, 84);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, ReJITCompilationFinished, 85);
CLR_SLOT_AT(ICorProfilerCallback4Vtbl, SurvivingReferences2, 88);
_Static_assert(sizeof(ICorProfilerCallback4Vtbl) ==
                   ICORPROFILERCALLBACK4_SLOTS * sizeof(void (*)(void)),
               "ICorProfilerCallback4 has 89 slots");

#endif
