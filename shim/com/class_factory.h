/*
 * The class factory every profiler module here hands to the runtime
 * (doc/profiling-abi.md#loading): a static object, never counted, that creates
 * the module's one profiler through the module's own create function.
 */
#ifndef SHIM_COM_CLASS_FACTORY_H
#define SHIM_COM_CLASS_FACTORY_H

#include "com/guids.h"
#include "com/unknown.h"

/* Creates the profiler and answers QueryInterface(riid) on it. */
typedef HRESULT (*clr_profiler_create_fn)(const IID *riid, void **ppv);

typedef struct clr_class_factory {
    IClassFactory com; /* first: the runtime's IClassFactory* points here */
    clr_profiler_create_fn create;
} clr_class_factory;

extern const IClassFactoryVtbl clr_class_factory_vtbl;

#define CLR_CLASS_FACTORY_INIT(create_fn) { { &clr_class_factory_vtbl }, (create_fn) }

/* DllGetClassObject's work: the factory for the module's CLSID, else
 * CLASS_E_CLASSNOTAVAILABLE; arguments checked, *ppv always written. */
HRESULT clr_class_factory_get(clr_class_factory *factory, const CLSID *module_clsid,
                              const CLSID *rclsid, const IID *riid, void **ppv);

#endif
