#include "com/class_factory.h"

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
    return ((clr_class_factory *)(void *)self)->create(riid, ppv);
}

static HRESULT CLR_STDCALL factory_lock_server(IClassFactory *self, BOOL lock)
{
    (void)self;
    (void)lock;
    return S_OK;
}

const IClassFactoryVtbl clr_class_factory_vtbl = {
    .QueryInterface = factory_query_interface,
    .AddRef = factory_add_ref,
    .Release = factory_release,
    .CreateInstance = factory_create_instance,
    .LockServer = factory_lock_server,
};

HRESULT clr_class_factory_get(clr_class_factory *factory, const CLSID *module_clsid,
                              const CLSID *rclsid, const IID *riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!factory || !module_clsid || !rclsid || !riid)
        return E_INVALIDARG;
    if (!shim_guid_equal(rclsid, module_clsid))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_query_interface(&factory->com, riid, ppv);
}
