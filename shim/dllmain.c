/*
 * The library's one export, DllGetClassObject, which hands the runtime the
 * class factory that creates the profiler (clr-abi.md §6, steps 1-3).
 */
#include "com/class_factory.h"
#include "com/guids.h"
#include "log.h"
#include "profiler.h"

#if defined(_WIN32)
#  define SHIM_EXPORT __declspec(dllexport)
#else
#  define SHIM_EXPORT __attribute__((visibility("default")))
#endif

static clr_class_factory factory = CLR_CLASS_FACTORY_INIT(shim_profiler_create);

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
