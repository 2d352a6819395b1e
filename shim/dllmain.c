/*
 * The library's one export, DllGetClassObject, and the class factory the
 * runtime uses to create the profiler (clr-abi.md §6, steps 1-3).
 */
#include "com/guids.h"
#include "log.h"
#include "profiler.h"

#if defined(_WIN32)
#  define SHIM_EXPORT __declspec(dllexport)
#else
#  define SHIM_EXPORT __attribute__((visibility("default")))
#endif

static HRESULT CLR_STDCALL factory_query_interface(IClassFactory *self, const IID *riid,
                                                   void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!self || !riid)
        return E_INVALIDARG;
    if (shim_guid_equal(riid, &IID_IUnknown) || shim_guid_equal(riid, &IID_IClassFactory)) {
        *ppv = self;
        return S_OK;
    }
    return E_NOINTERFACE;
}

/* The factory is an immutable static: counting references would only add
 * mutable state with nothing to free at zero. */
static ULONG CLR_STDCALL factory_add_ref(IClassFactory *self)
{
    (void)self;
    return 1;
}

static ULONG CLR_STDCALL factory_release(IClassFactory *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL factory_create_instance(IClassFactory *self, IUnknown *outer,
                                                   const IID *riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!self || !riid)
        return E_INVALIDARG;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    return shim_profiler_create(riid, ppv);
}

static HRESULT CLR_STDCALL factory_lock_server(IClassFactory *self, BOOL lock)
{
    (void)self;
    (void)lock;
    return S_OK;
}

static const IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_query_interface,
    .AddRef = factory_add_ref,
    .Release = factory_release,
    .CreateInstance = factory_create_instance,
    .LockServer = factory_lock_server,
};

static IClassFactory factory = {&factory_vtbl};

SHIM_EXPORT HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid,
                                                  void **ppv);

SHIM_EXPORT HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid,
                                                  void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!rclsid || !riid)
        return E_INVALIDARG;
    if (!shim_guid_equal(rclsid, &CLSID_IlmapShim)) {
        shim_log("DllGetClassObject: unknown CLSID; CORECLR_PROFILER must be %s",
                 SHIM_CLSID_STRING);
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return factory_query_interface(&factory, riid, ppv);
}
