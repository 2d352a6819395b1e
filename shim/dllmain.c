/*
 * libilmap_clr's exports: DllGetClassObject, which hands the runtime the
 * class factory that creates the profiler (doc/profiling-abi.md#loading):
 * the profiler of profiler/ with the conformance harness of harness/
 * attached through its hooks; and two queries a program under the shim may
 * call to wait for the shim's work (profiler/progress.h,
 * doc/shim.md#progress). A profiler without the harness passes NULL for
 * the hooks (examples/minimal-profiler has its own module entirely).
 */
#include "com/class_factory.h"
#include "com/guids.h"
#include "harness/harness.h"
#include "base/log.h"
#include "profiler/profiler.h"
#include "profiler/progress.h"

#if defined(_WIN32)
#  define SHIM_EXPORT __declspec(dllexport)
#else
#  define SHIM_EXPORT __attribute__((visibility("default")))
#endif

static HRESULT create_profiler(const IID *riid, void **ppv)
{
    return shim_profiler_create(riid, ppv, shim_harness_hooks());
}

static clr_class_factory factory = CLR_CLASS_FACTORY_INIT(create_profiler);

SHIM_EXPORT HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid,
                                                  void **ppv);

SHIM_EXPORT HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid,
                                                  void **ppv)
{
    HRESULT hr = clr_class_factory_get(&factory, &CLSID_IlmapShim, rclsid, riid, ppv);
    if (hr == CLASS_E_CLASSNOTAVAILABLE)
        shim_log("DllGetClassObject: unknown CLSID; CORECLR_PROFILER must be %s",
                 SHIM_CLSID_STRING);
    return hr;
}

/* The progress queries: plain C (cdecl) functions, callable from managed
 * code through NativeLibrary.GetExport and an unmanaged cdecl pointer. */
SHIM_EXPORT int ilmap_shim_wait_rejits(uint32_t timeout_ms);
SHIM_EXPORT int ilmap_shim_most_bodies(const char *method);

SHIM_EXPORT int ilmap_shim_wait_rejits(uint32_t timeout_ms)
{
    return shim_progress_wait_rejits(timeout_ms);
}

SHIM_EXPORT int ilmap_shim_most_bodies(const char *method)
{
    return shim_progress_most_bodies(method);
}
