/*
 * A minimal .NET (CoreCLR) profiler that uses libilmap.
 *
 * Each time the JIT finishes a method, it reads the method's IL-to-native
 * map from the runtime (GetILToNativeMapping2), loads it into libilmap
 * (ilmap_native_from_entries) and asks libilmap which IL offset a few
 * native offsets come from (ilmap_native_to_il): the question a sampling
 * profiler asks for every sampled instruction pointer, answered exactly as
 * the runtime answers it. One line per method goes to the file named by
 * ILMAP_EXAMPLE_OUT, or to stderr.
 *
 * Load it into any .NET application:
 *   CORECLR_ENABLE_PROFILING=1
 *   CORECLR_PROFILER={7F3E2D1C-5B4A-4C3D-8E9F-0A1B2C3D4E5F}
 *   CORECLR_PROFILER_PATH=/path/to/libilmap_minimal_profiler.so
 *
 * The COM declarations are the shim's own (shim/com/, written from the
 * ABI facts, no runtime header), as is the table of do-nothing callbacks
 * that this profiler fills in with the four it needs.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "com/callback_stubs.h"
#include "com/class_factory.h"
#include "com/flags.h"
#include "com/guids.h"
#include "com/info.h"
#include "com/metadata.h"
#include "ilmap.h"

/* Any GUID works; it only has to match CORECLR_PROFILER. */
static const CLSID CLSID_MinimalProfiler = {
    0x7F3E2D1Cu, 0x5B4A, 0x4C3D, {0x8E, 0x9F, 0x0A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F}};

/* How many native offsets of each method are looked up. */
#define SAMPLES 5

/* The runtime creates one profiler per process, so the state is static. */
static ICorProfilerCallback4 profiler;
static ICorProfilerCallback4Vtbl profiler_vtbl;
static ICorProfilerInfo4 *info;
static FILE *out;
static atomic_ulong methods_mapped, methods_refused, methods_unavailable;

/* Diagnostics: one stderr line each, prefixed so that they stand out
 * from the application's own output. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    if (!fmt)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[ilmap-example] %s\n", line);
}

static const char *kind_name(unsigned result)
{
    switch (result) {
    case ILMAP_MAPPING_PROLOG: return "prolog";
    case ILMAP_MAPPING_EPILOG: return "epilog";
    case ILMAP_MAPPING_EXACT: return "exact";
    case ILMAP_MAPPING_APPROXIMATE: return "approximate";
    case ILMAP_MAPPING_UNMAPPED_ADDRESS: return "unmapped";
    default: return "no-info";
    }
}

/* The method's name from metadata, as ASCII ('?' for anything else):
 * enough to tell methods apart in the output. */
static void method_name(ModuleID module, mdMethodDef token, char *name, size_t cap)
{
    if (!name || cap < 2)
        return;
    snprintf(name, cap, "?");
    IUnknown *unk = NULL;
    if (info->lpVtbl->GetModuleMetaData(info, module, CLR_OF_READ, &IID_IMetaDataImport,
                                        &unk) != S_OK || !unk)
        return;
    IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
    WCHAR wide[128];
    ULONG len = 0, sig_size = 0, rva = 0;
    mdTypeDef owner = 0;
    DWORD attributes = 0, impl_flags = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (md->lpVtbl->GetMethodProps(md, token, &owner, wide, 128, &len, &attributes, &sig,
                                   &sig_size, &rva, &impl_flags) == S_OK) {
        size_t i = 0;
        for (; i + 1 < cap && i < len && i < 128 && wide[i]; i++)
            name[i] = wide[i] < 0x80 ? (char)wide[i] : '?';
        name[i] = '\0';
    }
    md->lpVtbl->Release(md);
}

/* The runtime's map of the method's first native code, read with the
 * two-call protocol: ask for the count, then fill a buffer that size.
 * Returns the entries in libilmap's layout (malloc'ed) or NULL. */
static ilmap_native_entry *read_map(FunctionID function, ULONG32 *count)
{
    if (!count)
        return NULL;
    *count = 0;
    ULONG32 total = 0;
    if (info->lpVtbl->GetILToNativeMapping2(info, function, 0, 0, &total, NULL) != S_OK ||
        total == 0)
        return NULL;
    COR_DEBUG_IL_TO_NATIVE_MAP *map = malloc(total * sizeof *map);
    ilmap_native_entry *entries = malloc(total * sizeof *entries);
    ULONG32 filled = 0;
    if (!map || !entries ||
        info->lpVtbl->GetILToNativeMapping2(info, function, 0, total, &filled, map) != S_OK ||
        filled != total) {
        free(map);
        free(entries);
        return NULL;
    }
    /* Same three 32-bit fields in the same order; converted one by one
     * all the same, so that neither side's layout is assumed. */
    for (ULONG32 i = 0; i < total; i++)
        entries[i] = (ilmap_native_entry){map[i].ilOffset, map[i].nativeStartOffset,
                                          map[i].nativeEndOffset};
    free(map);
    *count = total;
    return entries;
}

static void map_method(FunctionID function)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo(info, function, &cls, &module, &token)))
        return;

    /* The code size bounds the map (its last entry runs to the end of the
     * code): hot + cold ranges. GetCodeInfo3 and GetILToNativeMapping2
     * both read the method's *first* native code. With tiered compilation
     * a hot method is JIT-compiled again (this callback runs once per
     * tier), and both still describe the tier-0 code, so size and map
     * always belong together; the map of a later tier's code is
     * ICorProfilerInfo9::GetILToNativeMapping3(code start). */
    COR_PRF_CODE_INFO ranges[4];
    ULONG32 range_count = 0;
    uint64_t code_size = 0;
    if (FAILED(info->lpVtbl->GetCodeInfo3(info, function, 0, 4, &range_count, ranges)))
        range_count = 0;
    for (ULONG32 i = 0; i < range_count && i < 4; i++)
        code_size += ranges[i].size;

    ULONG32 count = 0;
    ilmap_native_entry *entries = read_map(function, &count);
    if (!entries || code_size == 0 || code_size > UINT32_MAX) {
        /* No map for this code (the runtime keeps none, e.g. for some
         * stubs): nothing to look up, and nothing wrong either. */
        atomic_fetch_add(&methods_unavailable, 1);
        free(entries);
        return;
    }

    /* libilmap validates the array as the runtime exported it and builds
     * its lookup index; a refusal would be a disagreement with the
     * runtime, so it is counted and reported. */
    ilmap_native *map = NULL;
    ilmap_status st = ilmap_native_from_entries(entries, count, (uint32_t)code_size, &map);
    free(entries);
    if (st != ILMAP_OK) {
        atomic_fetch_add(&methods_refused, 1);
        say("token 0x%08X: libilmap refused the runtime's map: %s", (unsigned)token,
            ilmap_status_str(st));
        return;
    }

    char name[96];
    method_name(module, token, name, sizeof name);
    char line[1024];
    int at = snprintf(line, sizeof line, "method %s token=0x%08X code=%u entries=%u |", name,
                      (unsigned)token, (unsigned)code_size, (unsigned)count);
    /* Evenly spread native offsets, first and last byte included: what a
     * sampled instruction pointer minus the code start would give. */
    for (unsigned s = 0; s < SAMPLES && at > 0 && (size_t)at < sizeof line; s++) {
        uint32_t native = (uint32_t)((code_size - 1) * s / (SAMPLES - 1));
        uint32_t il = 0;
        unsigned result = ilmap_native_to_il(map, native, &il);
        at += snprintf(line + at, sizeof line - (size_t)at, " %u:%s:0x%X", (unsigned)native,
                       kind_name(result), (unsigned)il);
    }
    ilmap_native_free(map);
    /* One fputs per line: stdio locks the stream per call, so lines from
     * concurrent JIT threads do not interleave. */
    if ((size_t)at < sizeof line - 1) {
        line[at] = '\n';
        line[at + 1] = '\0';
        fputs(line, out);
    }
    atomic_fetch_add(&methods_mapped, 1);
}

/* ---- The callbacks this profiler acts on ---------------------------- */

static HRESULT CLR_STDCALL query_interface(ICorProfilerCallback4 *self, const IID *riid,
                                           void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (self != &profiler || !riid)
        return E_INVALIDARG;
    /* The vtable has every slot up to Callback4, so the object is any of
     * them; the runtime asks for Callback11 downwards and takes the first
     * yes. */
    if (shim_guid_equal(riid, &IID_IUnknown) || shim_guid_equal(riid, &IID_ICorProfilerCallback) ||
        shim_guid_equal(riid, &IID_ICorProfilerCallback2) ||
        shim_guid_equal(riid, &IID_ICorProfilerCallback3) ||
        shim_guid_equal(riid, &IID_ICorProfilerCallback4)) {
        *ppv = self;
        return S_OK;
    }
    return E_NOINTERFACE;
}

/* A static object: reference counting would have nothing to free. */
static ULONG CLR_STDCALL add_ref(ICorProfilerCallback4 *self)
{
    (void)self;
    return 1;
}

static ULONG CLR_STDCALL release(ICorProfilerCallback4 *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL initialize(ICorProfilerCallback4 *self, IUnknown *unk)
{
    if (self != &profiler || !unk)
        return E_INVALIDARG;
    /* Info4 is the first version with GetILToNativeMapping2 and
     * GetCodeInfo3. Failing Initialize just unloads the profiler: the
     * application runs on unprofiled. */
    void *p = NULL;
    if (FAILED(unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo4, &p)) || !p) {
        say("the runtime has no ICorProfilerInfo4; not profiling");
        return E_FAIL;
    }
    info = p;
    const char *path = getenv("ILMAP_EXAMPLE_OUT");
    out = path && *path ? fopen(path, "w") : stderr;
    if (!out) {
        say("cannot write %s; the lines go to stderr", path);
        out = stderr;
    }
    /* JIT events only. The runtime keeps IL-to-native maps for every
     * method anyway (COR_PRF_ENABLE_JIT_MAPS is always on). */
    HRESULT hr = info->lpVtbl->SetEventMask(info, COR_PRF_MONITOR_JIT_COMPILATION);
    if (FAILED(hr)) {
        say("SetEventMask failed: 0x%08X; not profiling", (unsigned)hr);
        return hr;
    }
    return S_OK;
}

static HRESULT CLR_STDCALL jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                        HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    /* Whatever happens here, the callback succeeds: a profiler's failure
     * must not become the application's. */
    if (self == &profiler && info && SUCCEEDED(status))
        map_method(function);
    return S_OK;
}

static HRESULT CLR_STDCALL shutdown(ICorProfilerCallback4 *self)
{
    if (self != &profiler || !info)
        return S_OK;
    say("%lu methods mapped, %lu refused by libilmap, %lu without a map",
        atomic_load(&methods_mapped), atomic_load(&methods_refused),
        atomic_load(&methods_unavailable));
    if (out != stderr)
        fclose(out);
    out = stderr;
    return S_OK;
}

/* ---- Class factory and the one export ------------------------------ */

/* What the class factory calls (shim/com/class_factory.h). */
static HRESULT create_profiler(const IID *riid, void **ppv)
{
    /* Every callback the runtime may call must exist: start from the
     * do-nothing table and put ours in. The runtime creates the profiler
     * once, on its startup thread, before any callback. */
    profiler_vtbl = clr_callback4_stubs;
    profiler_vtbl.QueryInterface = query_interface;
    profiler_vtbl.AddRef = add_ref;
    profiler_vtbl.Release = release;
    profiler_vtbl.Initialize = initialize;
    profiler_vtbl.JITCompilationFinished = jit_finished;
    profiler_vtbl.Shutdown = shutdown;
    profiler.lpVtbl = &profiler_vtbl;
    return query_interface(&profiler, riid, ppv);
}

static clr_class_factory factory = CLR_CLASS_FACTORY_INIT(create_profiler);

/* The runtime dlopens the library and calls this with CORECLR_PROFILER's
 * CLSID; the version script keeps every other symbol private. */
__attribute__((visibility("default"))) HRESULT CLR_STDCALL
DllGetClassObject(const CLSID *rclsid, const IID *riid, void **ppv);

HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid, void **ppv)
{
    return clr_class_factory_get(&factory, &CLSID_MinimalProfiler, rclsid, riid, ppv);
}
