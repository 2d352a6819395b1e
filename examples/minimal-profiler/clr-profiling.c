/*
 * The identifiers clr-profiling.h declares, and a complete
 * ICorProfilerCallback4 vtable of callbacks that do nothing and succeed.
 */
#include "clr-profiling.h"

#include <string.h>

#define DEFINE_IID(name, d1, d2, d3, b0, b1, b2, b3, b4, b5, b6, b7) \
    const IID name = {d1, d2, d3, {b0, b1, b2, b3, b4, b5, b6, b7}}

DEFINE_IID(IID_IUnknown, 0x00000000u, 0x0000, 0x0000,
           0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46);
DEFINE_IID(IID_IClassFactory, 0x00000001u, 0x0000, 0x0000,
           0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46);
DEFINE_IID(IID_ICorProfilerCallback, 0x176FBED1u, 0xA55C, 0x4796,
           0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7);
DEFINE_IID(IID_ICorProfilerCallback2, 0x8A8CC829u, 0xCCF2, 0x49FE,
           0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A);
DEFINE_IID(IID_ICorProfilerCallback3, 0x4FD2ED52u, 0x7731, 0x4B8D,
           0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5);
DEFINE_IID(IID_ICorProfilerCallback4, 0x7B63B2E3u, 0x107D, 0x4D48,
           0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2);
DEFINE_IID(IID_ICorProfilerInfo9, 0x008170DBu, 0xF8CC, 0x4796,
           0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12);
DEFINE_IID(IID_IMetaDataImport, 0x7DAC8207u, 0xD3AE, 0x4C75,
           0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44);

int clr_guid_equal(const GUID *a, const GUID *b)
{
    if (!a || !b)
        return 0;
    return a->Data1 == b->Data1 && a->Data2 == b->Data2 && a->Data3 == b->Data3 &&
           memcmp(a->Data4, b->Data4, sizeof a->Data4) == 0;
}

/* ---- The do-nothing callbacks ---------------------------------------
 *
 * One stub per parameter list rather than one per slot: every handle type
 * is a UINT_PTR and every enum an int32_t, so many slots share a C type
 * (ThreadCreated and ModuleUnloadStarted both take (self, UINT_PTR)).
 * The table below is a designated initializer of the typed vtable, so a
 * stub that does not have its slot's exact type does not compile. */

#define SELF ICorProfilerCallback4 *self

/* IUnknown: the stub object is no COM object; a profiler replaces these. */
static HRESULT CLR_STDCALL no_interface(SELF, const IID *riid, void **ppv)
{
    (void)self;
    (void)riid;
    if (ppv)
        *ppv = NULL;
    return ppv ? E_NOINTERFACE : E_POINTER;
}

static ULONG CLR_STDCALL one(SELF)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL ok(SELF)
{
    (void)self;
    return S_OK;
}

#define OK1(name, A)                                                \
    static HRESULT CLR_STDCALL name(SELF, A a)                      \
    {                                                               \
        (void)self;                                                 \
        (void)a;                                                    \
        return S_OK;                                                \
    }
#define OK2(name, A, B)                                             \
    static HRESULT CLR_STDCALL name(SELF, A a, B b)                 \
    {                                                               \
        (void)self;                                                 \
        (void)a;                                                    \
        (void)b;                                                    \
        return S_OK;                                                \
    }
#define OK3(name, A, B, C)                                          \
    static HRESULT CLR_STDCALL name(SELF, A a, B b, C c)            \
    {                                                               \
        (void)self;                                                 \
        (void)a;                                                    \
        (void)b;                                                    \
        (void)c;                                                    \
        return S_OK;                                                \
    }
#define OK4(name, A, B, C, D)                                       \
    static HRESULT CLR_STDCALL name(SELF, A a, B b, C c, D d)       \
    {                                                               \
        (void)self;                                                 \
        (void)a;                                                    \
        (void)b;                                                    \
        (void)c;                                                    \
        (void)d;                                                    \
        return S_OK;                                                \
    }
#define OK5(name, A, B, C, D, E)                                    \
    static HRESULT CLR_STDCALL name(SELF, A a, B b, C c, D d, E e)  \
    {                                                               \
        (void)self;                                                 \
        (void)a;                                                    \
        (void)b;                                                    \
        (void)c;                                                    \
        (void)d;                                                    \
        (void)e;                                                    \
        return S_OK;                                                \
    }

OK1(ok_unknown, IUnknown *)
OK1(ok_id, UINT_PTR)
OK1(ok_int, int32_t)
OK2(ok_id_int, UINT_PTR, int32_t)
OK2(ok_id_id, UINT_PTR, UINT_PTR)
OK2(ok_id_bool, UINT_PTR, BOOL)
OK2(ok_id_pbool, UINT_PTR, BOOL *)
OK2(ok_id_u32, UINT_PTR, uint32_t)
OK2(ok_u32_id, uint32_t, UINT_PTR)
OK2(ok_guid_bool, GUID *, BOOL)
OK2(ok_n_ids, ULONG, ObjectID *)
OK3(ok_id_int_bool, UINT_PTR, int32_t, BOOL)
OK3(ok_id_id_bool, UINT_PTR, UINT_PTR, BOOL)
OK3(ok_id_id_pbool, UINT_PTR, UINT_PTR, BOOL *)
OK3(ok_n_ids_u32s, ULONG, UINT_PTR *, ULONG *)
OK3(ok_n_ids_sizes, ULONG, ObjectID *, SIZE_T *)
OK3(ok_id_n_wchars, ThreadID, ULONG, WCHAR *)
OK3(ok_gc_started, int, BOOL *, COR_PRF_GC_REASON)
OK3(ok_vtable_destroyed, ClassID, const GUID *, void *)
OK3(ok_attach, IUnknown *, void *, UINT)
OK3(ok_rejit_parameters, ModuleID, mdMethodDef, ICorProfilerFunctionControl *)
OK4(ok_id_id_int_bool, UINT_PTR, UINT_PTR, int32_t, BOOL)
OK4(ok_rejit_error, ModuleID, mdMethodDef, FunctionID, HRESULT)
OK4(ok_n_ids_ids_u32s, ULONG, ObjectID *, ObjectID *, ULONG *)
OK4(ok_n_ids_ids_sizes, ULONG, ObjectID *, ObjectID *, SIZE_T *)
OK4(ok_object_refs, ObjectID, ClassID, ULONG, ObjectID *)
OK4(ok_vtable_created, ClassID, const GUID *, void *, ULONG)
OK5(ok_roots2, ULONG, ObjectID *, COR_PRF_GC_ROOT_KIND *, COR_PRF_GC_ROOT_FLAGS *, UINT_PTR *)

const ICorProfilerCallback4Vtbl clr_callback4_stubs = {
    .QueryInterface = no_interface,
    .AddRef = one,
    .Release = one,
    .Initialize = ok_unknown,
    .Shutdown = ok,
    .AppDomainCreationStarted = ok_id,
    .AppDomainCreationFinished = ok_id_int,
    .AppDomainShutdownStarted = ok_id,
    .AppDomainShutdownFinished = ok_id_int,
    .AssemblyLoadStarted = ok_id,
    .AssemblyLoadFinished = ok_id_int,
    .AssemblyUnloadStarted = ok_id,
    .AssemblyUnloadFinished = ok_id_int,
    .ModuleLoadStarted = ok_id,
    .ModuleLoadFinished = ok_id_int,
    .ModuleUnloadStarted = ok_id,
    .ModuleUnloadFinished = ok_id_int,
    .ModuleAttachedToAssembly = ok_id_id,
    .ClassLoadStarted = ok_id,
    .ClassLoadFinished = ok_id_int,
    .ClassUnloadStarted = ok_id,
    .ClassUnloadFinished = ok_id_int,
    .FunctionUnloadStarted = ok_id,
    .JITCompilationStarted = ok_id_bool,
    .JITCompilationFinished = ok_id_int_bool,
    .JITCachedFunctionSearchStarted = ok_id_pbool,
    .JITCachedFunctionSearchFinished = ok_id_int,
    .JITFunctionPitched = ok_id,
    .JITInlining = ok_id_id_pbool,
    .ThreadCreated = ok_id,
    .ThreadDestroyed = ok_id,
    .ThreadAssignedToOSThread = ok_id_u32,
    .RemotingClientInvocationStarted = ok,
    .RemotingClientSendingMessage = ok_guid_bool,
    .RemotingClientReceivingReply = ok_guid_bool,
    .RemotingClientInvocationFinished = ok,
    .RemotingServerReceivingMessage = ok_guid_bool,
    .RemotingServerInvocationStarted = ok,
    .RemotingServerInvocationReturned = ok,
    .RemotingServerSendingReply = ok_guid_bool,
    .UnmanagedToManagedTransition = ok_id_int,
    .ManagedToUnmanagedTransition = ok_id_int,
    .RuntimeSuspendStarted = ok_int,
    .RuntimeSuspendFinished = ok,
    .RuntimeSuspendAborted = ok,
    .RuntimeResumeStarted = ok,
    .RuntimeResumeFinished = ok,
    .RuntimeThreadSuspended = ok_id,
    .RuntimeThreadResumed = ok_id,
    .MovedReferences = ok_n_ids_ids_u32s,
    .ObjectAllocated = ok_id_id,
    .ObjectsAllocatedByClass = ok_n_ids_u32s,
    .ObjectReferences = ok_object_refs,
    .RootReferences = ok_n_ids,
    .ExceptionThrown = ok_id,
    .ExceptionSearchFunctionEnter = ok_id,
    .ExceptionSearchFunctionLeave = ok,
    .ExceptionSearchFilterEnter = ok_id,
    .ExceptionSearchFilterLeave = ok,
    .ExceptionSearchCatcherFound = ok_id,
    .ExceptionOSHandlerEnter = ok_id,
    .ExceptionOSHandlerLeave = ok_id,
    .ExceptionUnwindFunctionEnter = ok_id,
    .ExceptionUnwindFunctionLeave = ok,
    .ExceptionUnwindFinallyEnter = ok_id,
    .ExceptionUnwindFinallyLeave = ok,
    .ExceptionCatcherEnter = ok_id_id,
    .ExceptionCatcherLeave = ok,
    .COMClassicVTableCreated = ok_vtable_created,
    .COMClassicVTableDestroyed = ok_vtable_destroyed,
    .ExceptionCLRCatcherFound = ok,
    .ExceptionCLRCatcherExecute = ok,
    .ThreadNameChanged = ok_id_n_wchars,
    .GarbageCollectionStarted = ok_gc_started,
    .SurvivingReferences = ok_n_ids_u32s,
    .GarbageCollectionFinished = ok,
    .FinalizeableObjectQueued = ok_u32_id,
    .RootReferences2 = ok_roots2,
    .HandleCreated = ok_id_id,
    .HandleDestroyed = ok_id,
    .InitializeForAttach = ok_attach,
    .ProfilerAttachComplete = ok,
    .ProfilerDetachSucceeded = ok,
    .ReJITCompilationStarted = ok_id_id_bool,
    .GetReJITParameters = ok_rejit_parameters,
    .ReJITCompilationFinished = ok_id_id_int_bool,
    .ReJITError = ok_rejit_error,
    .MovedReferences2 = ok_n_ids_ids_sizes,
    .SurvivingReferences2 = ok_n_ids_sizes,
};
