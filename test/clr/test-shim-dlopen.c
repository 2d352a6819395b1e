/*
 * Loads libilmap_clr (.so, or .dll on Windows) as the runtime does (dlopen
 * or LoadLibrary, then DllGetClassObject), checks what it exports (the
 * COM entry point and the two progress queries, doc/shim.md#progress;
 * none of the statically linked libilmap or shim internals), and creates
 * the profiler through the class factory.
 */
#include <stdint.h>
#include <stdio.h>

#include "shim-loader.h"

#include "com/guids.h"
#include "com/unknown.h"

#include "../test.h"

typedef HRESULT (*get_class_object_fn)(const CLSID *, const IID *, void **);
typedef int (*wait_rejits_fn)(uint32_t);
typedef int (*most_bodies_fn)(const char *);

/* A CLSID different from the shim's. */
static const CLSID other = {0x12345678u, 1, 2, {1, 2, 3, 4, 5, 6, 7, 8}};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s libilmap_clr.so|.dll\n", argv[0]);
        return TEST_EXIT_SETUP_FAILURE;
    }
    void *lib = loader_open(argv[1]);
    if (!lib)
        return TEST_EXIT_SETUP_FAILURE;
    void *sym = loader_symbol(lib, "DllGetClassObject");
    CHECK(sym != NULL);
    /* The progress queries, before any runtime initialized the profiler:
     * -1 (nothing to wait for, no method known). */
    void *wait = loader_symbol(lib, "ilmap_shim_wait_rejits");
    void *bodies = loader_symbol(lib, "ilmap_shim_most_bodies");
    CHECK(wait != NULL && bodies != NULL);
    if (wait && bodies) {
        wait_rejits_fn w;
        most_bodies_fn b;
        *(void **)&w = wait;
        *(void **)&b = bodies;
        CHECK(w(10) == -1);
        CHECK(b("Ns.T::M") == -1);
    }
    static const char *const hidden[] = {
        "ilmap_create",         "ilmap_native_translate", "ilmap_rewrite_create",
        "ilmap_store_create",   "ilmap_fid_mapper_callback2",
        "shim_instrument",      "shim_profiler_create", "shim_elt_start",
        "clr_callback4_stubs",  "IID_IUnknown",           "ilmap_mutex_lock",
        "ilmap_thread_start"};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        void *h = loader_symbol(lib, hidden[i]);
        if (h)
            fprintf(stderr, "exported by mistake: %s\n", hidden[i]);
        CHECK(h == NULL);
    }
    if (sym) {
        get_class_object_fn get;
        *(void **)&get = sym;
        /* The CLSID and IIDs are written out here (not taken from the
         * library) so that the test also proves the values. */
        const CLSID shim = {0x1A6B2C3Du, 0x0E4F, 0x4A5B,
                            {0x9C, 0x8D, 0x7E, 0x6F, 0x5A, 0x4B, 0x3C, 0x2D}};
        const IID factory_iid = {0x00000001u, 0, 0, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
        const IID callback2 = {0x8A8CC829u, 0xCCF2, 0x49FE,
                               {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
        void *obj = (void *)1;
        CHECK(get(&other, &factory_iid, &obj) == CLASS_E_CLASSNOTAVAILABLE);
        CHECK(obj == NULL);
        CHECK(get(&shim, &factory_iid, NULL) == E_POINTER);
        IClassFactory *f = NULL;
        CHECK(get(&shim, &factory_iid, (void **)&f) == S_OK);
        CHECK(f != NULL);
        if (f) {
            IUnknown *outer = (IUnknown *)(void *)f;
            void *p = (void *)1;
            CHECK(f->lpVtbl->CreateInstance(f, outer, &callback2, &p) == CLASS_E_NOAGGREGATION);
            CHECK(p == NULL);
            /* The profiler object itself (not initialized: no runtime
             * here); test-shim-unit exercises it further. */
            p = NULL;
            CHECK(f->lpVtbl->CreateInstance(f, NULL, &callback2, &p) == S_OK);
            CHECK(p != NULL);
            if (p) {
                IUnknown *profiler = p;
                const IID unknown_iid = {0, 0, 0, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}};
                void *q = NULL;
                CHECK(profiler->lpVtbl->QueryInterface(profiler, &unknown_iid, &q) == S_OK);
                CHECK(q != NULL);
                if (q)
                    ((IUnknown *)q)->lpVtbl->Release((IUnknown *)q);
                profiler->lpVtbl->Release(profiler);
            }
            f->lpVtbl->Release(f);
        }
    }
    loader_close(lib);
    return test_finish("shim-dlopen");
}
