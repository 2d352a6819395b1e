/*
 * Every ICorProfilerCallback4 slot as a stub that does nothing and
 * succeeds. A profiler copies clr_callback4_stubs into its own vtable and
 * replaces the slots it acts on; the runtime may call any slot, so none
 * may be NULL.
 *
 * The stubs are real functions with the slot's exact parameter types, and
 * the table is a designated initializer of the typed struct, so a stub
 * whose signature drifted from its slot is a compile error, not a crash.
 */
#include "callback_stubs.h"

/* IUnknown: a stub object is no COM object, so QueryInterface refuses and
 * reference counts are constant; a real profiler replaces all three. */
static HRESULT CLR_STDCALL stub_QueryInterface(ICorProfilerCallback4 *self, const IID *riid,
                                               void **ppv)
{
    (void)self;
    (void)riid;
    if (ppv)
        *ppv = NULL;
    return ppv ? E_NOINTERFACE : E_POINTER;
}

static ULONG CLR_STDCALL stub_AddRef(ICorProfilerCallback4 *self)
{
    (void)self;
    return 1;
}

static ULONG CLR_STDCALL stub_Release(ICorProfilerCallback4 *self)
{
    (void)self;
    return 1;
}

#define STUB0(name)                                                              \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self)          \
    {                                                                            \
        (void)self;                                                              \
        return S_OK;                                                             \
    }
#define STUB1(name, T1)                                                          \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self, T1 a)    \
    {                                                                            \
        (void)self;                                                              \
        (void)a;                                                                 \
        return S_OK;                                                             \
    }
#define STUB2(name, T1, T2)                                                      \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self, T1 a, T2 b) \
    {                                                                            \
        (void)self;                                                              \
        (void)a;                                                                 \
        (void)b;                                                                 \
        return S_OK;                                                             \
    }
#define STUB3(name, T1, T2, T3)                                                  \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self, T1 a, T2 b, T3 c) \
    {                                                                            \
        (void)self;                                                              \
        (void)a;                                                                 \
        (void)b;                                                                 \
        (void)c;                                                                 \
        return S_OK;                                                             \
    }
#define STUB4(name, T1, T2, T3, T4)                                              \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self, T1 a, T2 b, T3 c, \
                                           T4 d)                                 \
    {                                                                            \
        (void)self;                                                              \
        (void)a;                                                                 \
        (void)b;                                                                 \
        (void)c;                                                                 \
        (void)d;                                                                 \
        return S_OK;                                                             \
    }
#define STUB5(name, T1, T2, T3, T4, T5)                                          \
    static HRESULT CLR_STDCALL stub_##name(ICorProfilerCallback4 *self, T1 a, T2 b, T3 c, \
                                           T4 d, T5 e)                           \
    {                                                                            \
        (void)self;                                                              \
        (void)a;                                                                 \
        (void)b;                                                                 \
        (void)c;                                                                 \
        (void)d;                                                                 \
        (void)e;                                                                 \
        return S_OK;                                                             \
    }

/* Slots 3..88, in vtable order. Array parameters are written as the
 * pointers they decay to. */
STUB1(Initialize, IUnknown *)
STUB0(Shutdown)
STUB1(AppDomainCreationStarted, AppDomainID)
STUB2(AppDomainCreationFinished, AppDomainID, HRESULT)
STUB1(AppDomainShutdownStarted, AppDomainID)
STUB2(AppDomainShutdownFinished, AppDomainID, HRESULT)
STUB1(AssemblyLoadStarted, AssemblyID)
STUB2(AssemblyLoadFinished, AssemblyID, HRESULT)
STUB1(AssemblyUnloadStarted, AssemblyID)
STUB2(AssemblyUnloadFinished, AssemblyID, HRESULT)
STUB1(ModuleLoadStarted, ModuleID)
STUB2(ModuleLoadFinished, ModuleID, HRESULT)
STUB1(ModuleUnloadStarted, ModuleID)
STUB2(ModuleUnloadFinished, ModuleID, HRESULT)
STUB2(ModuleAttachedToAssembly, ModuleID, AssemblyID)
STUB1(ClassLoadStarted, ClassID)
STUB2(ClassLoadFinished, ClassID, HRESULT)
STUB1(ClassUnloadStarted, ClassID)
STUB2(ClassUnloadFinished, ClassID, HRESULT)
STUB1(FunctionUnloadStarted, FunctionID)
STUB2(JITCompilationStarted, FunctionID, BOOL)
STUB3(JITCompilationFinished, FunctionID, HRESULT, BOOL)
STUB2(JITCachedFunctionSearchStarted, FunctionID, BOOL *)
STUB2(JITCachedFunctionSearchFinished, FunctionID, COR_PRF_JIT_CACHE)
STUB1(JITFunctionPitched, FunctionID)
STUB3(JITInlining, FunctionID, FunctionID, BOOL *)
STUB1(ThreadCreated, ThreadID)
STUB1(ThreadDestroyed, ThreadID)
STUB2(ThreadAssignedToOSThread, ThreadID, DWORD)
STUB0(RemotingClientInvocationStarted)
STUB2(RemotingClientSendingMessage, GUID *, BOOL)
STUB2(RemotingClientReceivingReply, GUID *, BOOL)
STUB0(RemotingClientInvocationFinished)
STUB2(RemotingServerReceivingMessage, GUID *, BOOL)
STUB0(RemotingServerInvocationStarted)
STUB0(RemotingServerInvocationReturned)
STUB2(RemotingServerSendingReply, GUID *, BOOL)
STUB2(UnmanagedToManagedTransition, FunctionID, COR_PRF_TRANSITION_REASON)
STUB2(ManagedToUnmanagedTransition, FunctionID, COR_PRF_TRANSITION_REASON)
STUB1(RuntimeSuspendStarted, COR_PRF_SUSPEND_REASON)
STUB0(RuntimeSuspendFinished)
STUB0(RuntimeSuspendAborted)
STUB0(RuntimeResumeStarted)
STUB0(RuntimeResumeFinished)
STUB1(RuntimeThreadSuspended, ThreadID)
STUB1(RuntimeThreadResumed, ThreadID)
STUB4(MovedReferences, ULONG, ObjectID *, ObjectID *, ULONG *)
STUB2(ObjectAllocated, ObjectID, ClassID)
STUB3(ObjectsAllocatedByClass, ULONG, ClassID *, ULONG *)
STUB4(ObjectReferences, ObjectID, ClassID, ULONG, ObjectID *)
STUB2(RootReferences, ULONG, ObjectID *)
STUB1(ExceptionThrown, ObjectID)
STUB1(ExceptionSearchFunctionEnter, FunctionID)
STUB0(ExceptionSearchFunctionLeave)
STUB1(ExceptionSearchFilterEnter, FunctionID)
STUB0(ExceptionSearchFilterLeave)
STUB1(ExceptionSearchCatcherFound, FunctionID)
STUB1(ExceptionOSHandlerEnter, UINT_PTR)
STUB1(ExceptionOSHandlerLeave, UINT_PTR)
STUB1(ExceptionUnwindFunctionEnter, FunctionID)
STUB0(ExceptionUnwindFunctionLeave)
STUB1(ExceptionUnwindFinallyEnter, FunctionID)
STUB0(ExceptionUnwindFinallyLeave)
STUB2(ExceptionCatcherEnter, FunctionID, ObjectID)
STUB0(ExceptionCatcherLeave)
STUB4(COMClassicVTableCreated, ClassID, const GUID *, void *, ULONG)
STUB3(COMClassicVTableDestroyed, ClassID, const GUID *, void *)
STUB0(ExceptionCLRCatcherFound)
STUB0(ExceptionCLRCatcherExecute)
STUB3(ThreadNameChanged, ThreadID, ULONG, WCHAR *)
STUB3(GarbageCollectionStarted, int, BOOL *, COR_PRF_GC_REASON)
STUB3(SurvivingReferences, ULONG, ObjectID *, ULONG *)
STUB0(GarbageCollectionFinished)
STUB2(FinalizeableObjectQueued, DWORD, ObjectID)
STUB5(RootReferences2, ULONG, ObjectID *, COR_PRF_GC_ROOT_KIND *, COR_PRF_GC_ROOT_FLAGS *,
      UINT_PTR *)
STUB2(HandleCreated, GCHandleID, ObjectID)
STUB1(HandleDestroyed, GCHandleID)
STUB3(InitializeForAttach, IUnknown *, void *, UINT)
STUB0(ProfilerAttachComplete)
STUB0(ProfilerDetachSucceeded)
STUB3(ReJITCompilationStarted, FunctionID, ReJITID, BOOL)
STUB3(GetReJITParameters, ModuleID, mdMethodDef, ICorProfilerFunctionControl *)
STUB4(ReJITCompilationFinished, FunctionID, ReJITID, HRESULT, BOOL)
STUB4(ReJITError, ModuleID, mdMethodDef, FunctionID, HRESULT)
STUB4(MovedReferences2, ULONG, ObjectID *, ObjectID *, SIZE_T *)
STUB3(SurvivingReferences2, ULONG, ObjectID *, SIZE_T *)

#define S(name) .name = stub_##name

const ICorProfilerCallback4Vtbl clr_callback4_stubs = {
    S(QueryInterface),
    S(AddRef),
    S(Release),
    S(Initialize),
    S(Shutdown),
    S(AppDomainCreationStarted),
    S(AppDomainCreationFinished),
    S(AppDomainShutdownStarted),
    S(AppDomainShutdownFinished),
    S(AssemblyLoadStarted),
    S(AssemblyLoadFinished),
    S(AssemblyUnloadStarted),
    S(AssemblyUnloadFinished),
    S(ModuleLoadStarted),
    S(ModuleLoadFinished),
    S(ModuleUnloadStarted),
    S(ModuleUnloadFinished),
    S(ModuleAttachedToAssembly),
    S(ClassLoadStarted),
    S(ClassLoadFinished),
    S(ClassUnloadStarted),
    S(ClassUnloadFinished),
    S(FunctionUnloadStarted),
    S(JITCompilationStarted),
    S(JITCompilationFinished),
    S(JITCachedFunctionSearchStarted),
    S(JITCachedFunctionSearchFinished),
    S(JITFunctionPitched),
    S(JITInlining),
    S(ThreadCreated),
    S(ThreadDestroyed),
    S(ThreadAssignedToOSThread),
    S(RemotingClientInvocationStarted),
    S(RemotingClientSendingMessage),
    S(RemotingClientReceivingReply),
    S(RemotingClientInvocationFinished),
    S(RemotingServerReceivingMessage),
    S(RemotingServerInvocationStarted),
    S(RemotingServerInvocationReturned),
    S(RemotingServerSendingReply),
    S(UnmanagedToManagedTransition),
    S(ManagedToUnmanagedTransition),
    S(RuntimeSuspendStarted),
    S(RuntimeSuspendFinished),
    S(RuntimeSuspendAborted),
    S(RuntimeResumeStarted),
    S(RuntimeResumeFinished),
    S(RuntimeThreadSuspended),
    S(RuntimeThreadResumed),
    S(MovedReferences),
    S(ObjectAllocated),
    S(ObjectsAllocatedByClass),
    S(ObjectReferences),
    S(RootReferences),
    S(ExceptionThrown),
    S(ExceptionSearchFunctionEnter),
    S(ExceptionSearchFunctionLeave),
    S(ExceptionSearchFilterEnter),
    S(ExceptionSearchFilterLeave),
    S(ExceptionSearchCatcherFound),
    S(ExceptionOSHandlerEnter),
    S(ExceptionOSHandlerLeave),
    S(ExceptionUnwindFunctionEnter),
    S(ExceptionUnwindFunctionLeave),
    S(ExceptionUnwindFinallyEnter),
    S(ExceptionUnwindFinallyLeave),
    S(ExceptionCatcherEnter),
    S(ExceptionCatcherLeave),
    S(COMClassicVTableCreated),
    S(COMClassicVTableDestroyed),
    S(ExceptionCLRCatcherFound),
    S(ExceptionCLRCatcherExecute),
    S(ThreadNameChanged),
    S(GarbageCollectionStarted),
    S(SurvivingReferences),
    S(GarbageCollectionFinished),
    S(FinalizeableObjectQueued),
    S(RootReferences2),
    S(HandleCreated),
    S(HandleDestroyed),
    S(InitializeForAttach),
    S(ProfilerAttachComplete),
    S(ProfilerDetachSucceeded),
    S(ReJITCompilationStarted),
    S(GetReJITParameters),
    S(ReJITCompilationFinished),
    S(ReJITError),
    S(MovedReferences2),
    S(SurvivingReferences2),
};
