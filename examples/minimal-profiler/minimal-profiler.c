/*
 * A minimal .NET (CoreCLR) profiler on libilmap's version store.
 *
 * It keeps, for every native body the JIT compiles, the body's code ranges
 * and IL-to-native map in an ilmap_store, and a sampler thread asks the
 * store where an instruction pointer is: function, ReJIT version, native
 * offset, IL offset. Callback by callback:
 *
 *   Initialize                ICorProfilerInfo9, the event mask, the store,
 *                             the sampler thread
 *   JITCompilationFinished    every body of the method's original version
 *                             the store does not hold yet: its ranges
 *                             (GetCodeInfo4) and map (GetILToNativeMapping3)
 *                             -> ilmap_store_add_body
 *   ReJITCompilationFinished  the same for a ReJIT version, after
 *                             ilmap_store_add_version
 *   ModuleUnloadStarted       ilmap_store_remove_module
 *   Shutdown                  stops the sampler, prints a summary
 *
 * The sampler wakes every 10 ms and looks up one address in each body
 * attached since (ilmap_store_lookup), then asks the runtime which function
 * and version hold that address (GetFunctionFromIP2) and says whether the
 * two agree. A real sampler takes the address from a thread it interrupted
 * (the instruction pointer in a signal handler's context) and makes the
 * same ilmap_store_lookup call right there: store reads take no lock and
 * allocate nothing, so they are async-signal-safe. This one takes the
 * middle of each body's hot code instead, so that every body is asked
 * once and every answer can be checked.
 *
 * Which ilmap_store_add_body flag goes with which source of a body's map:
 * libilmap's guide, doc/guide.md#body-flags (the one table of it).
 *
 * Output, one line per event (wrapped here), to the file ILMAP_EXAMPLE_OUT
 * names (or stderr):
 *   body Loops token=0x0600000E rejit=0 module=0x7F4ECAB21A30 start=0x7F4ECAA726C0 size=378
 *        ranges=1 entries=22 il_size=0x59
 *   sample Loops token=0x0600000E rejit=0 ip=0x7F4ECAA7277D native=189 mapping=approximate
 *          il=0x2A original=0x2A il_size=0x59 runtime=agrees
 *   unload module=0x7F4ECB30C010 functions=2 versions=0 bodies=2 attached=2
 * and a summary on stderr at Shutdown ("[ilmap-example] ...").
 *
 * ILMAP_EXAMPLE_REJIT=Name: once the first method called Name has its
 * original code attached, the sampler thread asks the runtime to ReJIT it
 * (RequestReJIT). GetReJITParameters is left to the do-nothing table, so
 * the new version is compiled from the same IL with no COR_IL_MAP, and its
 * bodies arrive through ReJITCompilationFinished.
 *
 * Load it into any .NET application:
 *   CORECLR_ENABLE_PROFILING=1
 *   CORECLR_PROFILER={7F3E2D1C-5B4A-4C3D-8E9F-0A1B2C3D4E5F}
 *   CORECLR_PROFILER_PATH=/path/to/libilmap_minimal_profiler.so
 *
 * Build it with this directory alone, against an installed libilmap (its
 * headers, libilmap.a and ilmap.pc; nothing else from libilmap's tree:
 * the profiling API declarations are clr-profiling.h, its own):
 *   cp -r minimal-profiler ~/my-profiler && cd ~/my-profiler
 *   make            (or PKG_CONFIG_PATH=<prefix>/lib/<arch>/pkgconfig make)
 * README.md has the details and the same build as one cc command.
 */
/* POSIX: clock_gettime, pthread_cond_timedwait under -std=c11. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ilmap-il.h>
#include <ilmap-versions.h>
#include <ilmap.h>

#include "clr-profiling.h"

/* Any GUID works; it only has to match CORECLR_PROFILER. */
static const CLSID CLSID_MinimalProfiler = {
    0x7F3E2D1Cu, 0x5B4A, 0x4C3D, {0x8E, 0x9F, 0x0A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F}};

#define MAX_BODIES 8192     /* bodies the sampler visits; the store takes any number */
#define MAX_STARTS 16       /* native bodies read per version and callback */
#define SAMPLE_PERIOD_MS 10

/* A body the store holds, as the sampler needs it. */
typedef struct body {
    uintptr_t start;     /* code start: the first range's */
    uint32_t hot_size;   /* the first range's size */
    uint32_t il_size;    /* the method's IL code size; 0 when unknown */
    FunctionID function;
    ReJITID rejit;
    ModuleID module;
    mdMethodDef token;
    char name[64];
} body;

/* The runtime creates one profiler per process, so the state is static. */
static ICorProfilerCallback4 profiler;
static ICorProfilerCallback4Vtbl profiler_vtbl;
static ICorProfilerInfo9 *info;
static FILE *out;
static ilmap_store *store;

/* The bodies attached, in order: the sampler's work list. Appended under
 * attach_lock; the count is published with release order, so the sampler
 * reads bodies[0, count) without a lock. */
static body bodies[MAX_BODIES];
static atomic_uint body_count;
/* attach_lock also guards the callbacks' reader slot: a reader slot
 * serves one thread at a time, and the callbacks run on many. */
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static ilmap_store_reader *attach_reader;
static int closing; /* Shutdown has begun: no more bodies (under attach_lock) */

/* The sampler thread, and the one ReJIT request it makes. */
enum { REJIT_NONE, REJIT_QUEUED, REJIT_DONE };
static pthread_t sampler;
static int sampler_running;
static pthread_mutex_t sampler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sampler_wake = PTHREAD_COND_INITIALIZER;
static int sampler_stop;
static char rejit_name[64];
static int rejit_state;
static ModuleID rejit_module;
static mdMethodDef rejit_token;

static atomic_ulong attached, attached_rejit, refused, unavailable, sampled, answered, gone,
    disagreed, unsampled, modules_unloaded, bodies_removed;

/* Diagnostics: one stderr line each, prefixed so that they stand out
 * from the application's own output. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[ilmap-example] %s\n", line);
}

/* One output line per call: stdio locks the stream per call, so lines
 * from concurrent threads do not interleave. */
__attribute__((format(printf, 1, 2))) static void emit(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line - 1 ? (size_t)n : sizeof line - 2;
    line[len] = '\n';
    line[len + 1] = '\0';
    fputs(line, out);
}

static const char *mapping_name(unsigned mapping)
{
    switch (mapping) {
    case ILMAP_MAPPING_PROLOG: return "prolog";
    case ILMAP_MAPPING_EPILOG: return "epilog";
    case ILMAP_MAPPING_EXACT: return "exact";
    case ILMAP_MAPPING_APPROXIMATE: return "approximate";
    case ILMAP_MAPPING_UNMAPPED_ADDRESS: return "unmapped";
    default: return "no-info";
    }
}

/* ---- What the runtime says about a method --------------------------- */

/* The method's simple name from metadata, as ASCII ('?' for anything
 * else): enough to tell methods apart in the output. */
static void method_name(ModuleID module, mdMethodDef token, char *name, size_t cap)
{
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
            name[i] = wide[i] < 0x80 && wide[i] > 0x20 ? (char)wide[i] : '?';
        name[i] = '\0';
    }
    md->lpVtbl->Release(md);
}

/* The size of the method's IL code (libilmap parses the body's header),
 * 0 when the method has none. The runtime never returns ReJIT IL here;
 * this profiler gives none, so the original is every version's. */
static uint32_t il_code_size(ModuleID module, mdMethodDef token)
{
    LPCBYTE header = NULL;
    ULONG size = 0;
    ilmap_il_body parsed;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, module, token, &header, &size)) ||
        !header || ilmap_il_body_parse(header, size, &parsed) != ILMAP_OK)
        return 0;
    return parsed.code_size;
}

/* The map of the body at `start`, read with the runtime's two-call
 * protocol (the count, then a buffer that size) and converted to
 * libilmap's entries. Returns malloc'ed entries, or NULL. */
static ilmap_native_entry *read_map(UINT_PTR start, ULONG32 *count)
{
    *count = 0;
    ULONG32 total = 0, filled = 0;
    if (FAILED(info->lpVtbl->GetILToNativeMapping3(info, start, 0, &total, NULL)) || total == 0)
        return NULL;
    COR_DEBUG_IL_TO_NATIVE_MAP *map = malloc(total * sizeof *map);
    ilmap_native_entry *entries = malloc(total * sizeof *entries);
    if (!map || !entries ||
        FAILED(info->lpVtbl->GetILToNativeMapping3(info, start, total, &filled, map)) ||
        filled != total) {
        free(map);
        free(entries);
        return NULL;
    }
    /* The same three 32-bit fields in the same order; converted one by
     * one all the same, so that neither side's layout is assumed. */
    for (ULONG32 i = 0; i < total; i++)
        entries[i] = (ilmap_native_entry){map[i].ilOffset, map[i].nativeStartOffset,
                                          map[i].nativeEndOffset};
    free(map);
    *count = total;
    return entries;
}

/* ---- Writing to the store ------------------------------------------- */

/* Whether the store holds a body at this address already: an earlier
 * tier's callback attached it, or a racing one just did. */
static int body_known(UINT_PTR start)
{
    ilmap_store_location location;
    pthread_mutex_lock(&attach_lock);
    int known = ilmap_store_lookup(attach_reader, start, &location) == ILMAP_OK;
    pthread_mutex_unlock(&attach_lock);
    return known;
}

/* Asks the sampler thread to ReJIT (module, token), once per process. */
static void queue_rejit(ModuleID module, mdMethodDef token)
{
    pthread_mutex_lock(&sampler_lock);
    if (rejit_state == REJIT_NONE && sampler_running) {
        rejit_state = REJIT_QUEUED;
        rejit_module = module;
        rejit_token = token;
        pthread_cond_signal(&sampler_wake);
    }
    pthread_mutex_unlock(&sampler_lock);
}

/* One native body: its ranges and map, read by its code start, into the
 * store. */
static void attach_body(FunctionID function, ReJITID rejit, ModuleID module, mdMethodDef token,
                        const char *name, uint32_t il_size, UINT_PTR start)
{
    if (body_known(start))
        return;
    COR_PRF_CODE_INFO code[ILMAP_STORE_MAX_RANGES];
    ULONG32 nranges = 0;
    if (FAILED(info->lpVtbl->GetCodeInfo4(info, start, ILMAP_STORE_MAX_RANGES, &nranges, code)) ||
        nranges == 0 || nranges > ILMAP_STORE_MAX_RANGES) {
        atomic_fetch_add(&unavailable, 1);
        return;
    }
    /* ilmap_code_range is COR_PRF_CODE_INFO byte for byte; copied field by
     * field all the same. Native offsets run across the ranges end to
     * end, so the code size is their sum. */
    ilmap_code_range ranges[ILMAP_STORE_MAX_RANGES];
    uint64_t code_size = 0;
    for (ULONG32 i = 0; i < nranges; i++) {
        ranges[i] = (ilmap_code_range){code[i].startAddress, code[i].size};
        code_size += code[i].size;
    }
    ULONG32 count = 0;
    ilmap_native_entry *entries = read_map(start, &count);
    if (!entries || code_size == 0 || code_size > UINT32_MAX) {
        /* No map for this code (the runtime keeps none for some stubs):
         * nothing to attach, and nothing wrong either. */
        atomic_fetch_add(&unavailable, 1);
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
        atomic_fetch_add(&refused, 1);
        say("%s token=0x%08X: libilmap refused the runtime's map: %s", name, (unsigned)token,
            ilmap_status_str(st));
        return;
    }

    /* GetILToNativeMapping3 answers in original IL offsets: for code
     * compiled under a COR_IL_MAP the runtime translated them, and with
     * no map (as here) the method's IL is the original. So the store
     * must not translate them again: ILMAP_BODY_ORIGINAL_IL
     * (doc/guide.md#body-flags). On success the store owns the map. */
    pthread_mutex_lock(&attach_lock);
    if (closing) {
        /* A late tier compiled while the process shuts down: the sampler
         * has made its last pass. */
        pthread_mutex_unlock(&attach_lock);
        ilmap_native_free(map);
        return;
    }
    st = ilmap_store_add_body(store, function, rejit, ranges, nranges, map,
                              ILMAP_BODY_ORIGINAL_IL);
    if (st == ILMAP_OK) {
        unsigned n = atomic_load_explicit(&body_count, memory_order_relaxed);
        if (n < MAX_BODIES) {
            body *b = &bodies[n];
            *b = (body){start, (uint32_t)code[0].size, il_size, function, rejit, module, token,
                        {0}};
            snprintf(b->name, sizeof b->name, "%s", name);
            atomic_store_explicit(&body_count, n + 1, memory_order_release);
        } else {
            atomic_fetch_add(&unsampled, 1);
        }
        atomic_fetch_add(&attached, 1);
        if (rejit)
            atomic_fetch_add(&attached_rejit, 1);
        emit("body %s token=0x%08X rejit=%lu module=0x%lX start=0x%lX size=%u ranges=%u "
             "entries=%u il_size=0x%X",
             name, (unsigned)token, (unsigned long)rejit, (unsigned long)module,
             (unsigned long)start, (unsigned)code_size, (unsigned)nranges, (unsigned)count,
             (unsigned)il_size);
    }
    pthread_mutex_unlock(&attach_lock);
    if (st == ILMAP_OK)
        return;
    ilmap_native_free(map); /* still ours on failure */
    if (st == ILMAP_E_OVERLAP && body_known(start))
        return; /* a racing callback attached this very body */
    atomic_fetch_add(&refused, 1);
    say("%s token=0x%08X: ilmap_store_add_body: %s", name, (unsigned)token,
        ilmap_status_str(st));
}

/* JITCompilationFinished (rejit 0) and ReJITCompilationFinished: every
 * native body of the version that the store does not hold yet. With
 * tiered compilation a version gets a body per tier (and on-stack
 * replacement), each announced by its own callback; the bodies are
 * enumerated by code start and read by start, so each is read with its
 * own ranges and map (GetILToNativeMapping2 and GetCodeInfo3 would
 * describe the first body every time). */
static void attach_version(FunctionID function, ReJITID rejit)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo(info, function, &cls, &module, &token)) ||
        !module || (token & CLR_MD_TOKEN_TYPE_MASK) != CLR_MD_METHOD_DEF) {
        atomic_fetch_add(&unavailable, 1); /* no metadata method (e.g. a stub) */
        return;
    }
    char name[64];
    method_name(module, token, name, sizeof name);

    /* The function instance, idempotent (one FunctionID comes back for
     * each tier); a ReJIT version, current from now on, with no IL map
     * of its own: this profiler gives the runtime none. */
    ilmap_status st = ilmap_store_add_function(store, function, module, token);
    if (st == ILMAP_OK && rejit != 0) {
        st = ilmap_store_add_version(store, function, rejit, NULL, ILMAP_VERSION_CURRENT);
        if (st == ILMAP_E_EXISTS)
            st = ILMAP_OK; /* a later tier of the version */
    }
    if (st != ILMAP_OK) {
        atomic_fetch_add(&refused, 1);
        say("%s token=0x%08X rejit=%lu: the store refused the version: %s", name,
            (unsigned)token, (unsigned long)rejit, ilmap_status_str(st));
        return;
    }

    UINT_PTR starts[MAX_STARTS];
    ULONG32 total = 0;
    if (FAILED(info->lpVtbl->GetNativeCodeStartAddresses(info, function, rejit, MAX_STARTS,
                                                         &total, starts))) {
        atomic_fetch_add(&unavailable, 1);
        return;
    }
    uint32_t il_size = il_code_size(module, token);
    for (ULONG32 i = 0; i < total && i < MAX_STARTS; i++)
        attach_body(function, rejit, module, token, name, il_size, starts[i]);

    if (rejit == 0 && rejit_name[0] && strcmp(name, rejit_name) == 0)
        queue_rejit(module, token);
}

/* ---- The sampler ----------------------------------------------------- */

/* A body the store no longer holds: its module was unloaded. */
static void report_gone(const body *b, uintptr_t ip)
{
    atomic_fetch_add(&gone, 1);
    emit("sample %s token=0x%08X rejit=%lu module=0x%lX ip=0x%lX gone", b->name,
         (unsigned)b->token, (unsigned long)b->rejit, (unsigned long)b->module,
         (unsigned long)ip);
}

/* One lookup, as a sampler makes it, and the runtime's view of the same
 * address. */
static void sample(ilmap_store_reader *reader, const body *b)
{
    uintptr_t ip = b->start + b->hot_size / 2;
    ilmap_store_location location;
    atomic_fetch_add(&sampled, 1);
    if (ilmap_store_lookup(reader, ip, &location) != ILMAP_OK) {
        /* Removed at ModuleUnloadStarted before the sampler came by. */
        report_gone(b, ip);
        return;
    }
    /* The runtime's answer: which function and version hold the code.
     * GetFunctionFromIP2 may take a runtime lock: fine on this thread,
     * not in a signal handler. */
    FunctionID function = 0;
    ReJITID rejit = 0;
    HRESULT hr = info->lpVtbl->GetFunctionFromIP2(info, (LPCBYTE)ip, &function, &rejit);
    const char *runtime = "agrees";
    if (FAILED(hr) || function != location.function_id || rejit != location.rejit_id) {
        ilmap_store_location again;
        if (ilmap_store_lookup(reader, ip, &again) == ILMAP_E_NOT_FOUND) {
            /* The module unloaded in between: the store let the body go
             * first (ModuleUnloadStarted), the runtime its code later. */
            report_gone(b, ip);
            return;
        }
        runtime = "disagrees";
        atomic_fetch_add(&disagreed, 1);
        say("%s: the store says function 0x%lX version %lu, the runtime 0x%lX version %lu "
            "(hr 0x%08X)", b->name, (unsigned long)location.function_id,
            (unsigned long)location.rejit_id, (unsigned long)function, (unsigned long)rejit,
            (unsigned)hr);
    }
    atomic_fetch_add(&answered, 1);
    emit("sample %s token=0x%08X rejit=%lu ip=0x%lX native=%u mapping=%s il=0x%X original=0x%X "
         "il_size=0x%X runtime=%s",
         b->name, (unsigned)location.method_def, (unsigned long)location.rejit_id,
         (unsigned long)ip, (unsigned)location.native_offset, mapping_name(location.mapping),
         (unsigned)location.il_offset, (unsigned)location.original_il_offset,
         (unsigned)b->il_size, runtime);
}

/* RequestReJIT may trigger a GC: the rules allow it on a thread the
 * profiler created that never runs managed code, like this one
 * (doc/profiling-abi.md#rejit-rules). */
static void request_rejit(ModuleID module, mdMethodDef token)
{
    HRESULT hr = info->lpVtbl->RequestReJIT(info, 1, &module, &token);
    emit("rejit-requested %s token=0x%08X hr=0x%08X", rejit_name, (unsigned)token, (unsigned)hr);
}

static void *sampler_main(void *arg)
{
    (void)arg;
    /* Once per reading thread: a reader slot of its own. */
    ilmap_store_reader *reader = NULL;
    ilmap_status st = ilmap_store_reader_register(store, &reader);
    if (st != ILMAP_OK) {
        say("the sampler has no reader slot: %s; no samples", ilmap_status_str(st));
        return NULL;
    }
    unsigned next = 0;
    pthread_mutex_lock(&sampler_lock);
    for (;;) {
        if (!sampler_stop && rejit_state != REJIT_QUEUED) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += SAMPLE_PERIOD_MS * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&sampler_wake, &sampler_lock, &until);
        }
        int stop = sampler_stop;
        ModuleID module = 0;
        mdMethodDef token = 0;
        if (rejit_state == REJIT_QUEUED) {
            rejit_state = REJIT_DONE;
            module = rejit_module;
            token = rejit_token;
        }
        pthread_mutex_unlock(&sampler_lock);

        if (module)
            request_rejit(module, token);
        unsigned n = atomic_load_explicit(&body_count, memory_order_acquire);
        for (; next < n; next++)
            sample(reader, &bodies[next]);
        if (stop)
            break; /* the bodies attached before Shutdown are all sampled */
        pthread_mutex_lock(&sampler_lock);
    }
    ilmap_store_reader_unregister(reader);
    return NULL;
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
    if (clr_guid_equal(riid, &IID_IUnknown) || clr_guid_equal(riid, &IID_ICorProfilerCallback) ||
        clr_guid_equal(riid, &IID_ICorProfilerCallback2) ||
        clr_guid_equal(riid, &IID_ICorProfilerCallback3) ||
        clr_guid_equal(riid, &IID_ICorProfilerCallback4)) {
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
    /* Info9 is the first version that reads a body by its code start
     * (GetNativeCodeStartAddresses, GetILToNativeMapping3, GetCodeInfo4).
     * Failing Initialize just unloads the profiler: the application runs
     * on unprofiled. */
    void *p = NULL;
    if (FAILED(unk->lpVtbl->QueryInterface(unk, &IID_ICorProfilerInfo9, &p)) || !p) {
        say("the runtime has no ICorProfilerInfo9; not profiling");
        return E_FAIL;
    }
    info = p;
    ilmap_status st = ilmap_store_create(0, 0, &store);
    if (st == ILMAP_OK)
        st = ilmap_store_reader_register(store, &attach_reader);
    if (st != ILMAP_OK) {
        say("no version store: %s; not profiling", ilmap_status_str(st));
        return E_FAIL;
    }
    const char *path = getenv("ILMAP_EXAMPLE_OUT");
    out = path && *path ? fopen(path, "w") : stderr;
    if (!out) {
        say("cannot write %s; the lines go to stderr", path);
        out = stderr;
    }
    const char *name = getenv("ILMAP_EXAMPLE_REJIT");
    if (name)
        snprintf(rejit_name, sizeof rejit_name, "%s", name);

    /* JIT events and module unloads; ReJIT only when asked for. The
     * runtime keeps IL-to-native maps for every method anyway. */
    DWORD mask = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS;
    if (rejit_name[0])
        mask |= COR_PRF_ENABLE_REJIT;
    HRESULT hr = info->lpVtbl->SetEventMask(info, mask);
    if (FAILED(hr)) {
        say("SetEventMask failed: 0x%08X; not profiling", (unsigned)hr);
        return hr;
    }
    if (pthread_create(&sampler, NULL, sampler_main, NULL) == 0)
        sampler_running = 1;
    else
        say("cannot start the sampler thread; no samples");
    return S_OK;
}

/* Whatever happens in a callback, it succeeds: a profiler's failure must
 * not become the application's. */
static HRESULT CLR_STDCALL jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                        HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    if (self == &profiler && store && SUCCEEDED(status))
        attach_version(function, 0);
    return S_OK;
}

static HRESULT CLR_STDCALL rejit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                          ReJITID rejit, HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    if (self == &profiler && store && SUCCEEDED(status) && rejit != 0)
        attach_version(function, rejit);
    return S_OK;
}

/* A collectible assembly's module is going away, and its code with it:
 * everything the store holds for it leaves in one publication. A read
 * that began before (the sampler's) still sees it until it ends. */
static HRESULT CLR_STDCALL module_unload_started(ICorProfilerCallback4 *self, ModuleID module)
{
    if (self != &profiler || !store)
        return S_OK;
    ilmap_store_removed removed;
    ilmap_status st = ilmap_store_remove_module(store, module, &removed);
    if (st != ILMAP_OK) {
        say("module 0x%lX: ilmap_store_remove_module: %s", (unsigned long)module,
            ilmap_status_str(st));
        return S_OK;
    }
    /* What this profiler attached for the module, to compare. */
    unsigned ours = 0, n = atomic_load_explicit(&body_count, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        ours += bodies[i].module == module;
    if (removed.functions == 0 && ours == 0)
        return S_OK; /* no JIT-compiled code of ours in it */
    atomic_fetch_add(&modules_unloaded, 1);
    atomic_fetch_add(&bodies_removed, removed.bodies);
    emit("unload module=0x%lX functions=%zu versions=%zu bodies=%zu attached=%u",
         (unsigned long)module, removed.functions, removed.versions, removed.bodies, ours);
    return S_OK;
}

static HRESULT CLR_STDCALL shutdown(ICorProfilerCallback4 *self)
{
    if (self != &profiler || !store)
        return S_OK;
    pthread_mutex_lock(&attach_lock);
    closing = 1;
    pthread_mutex_unlock(&attach_lock);
    pthread_mutex_lock(&sampler_lock);
    int running = sampler_running;
    sampler_running = 0; /* no more ReJIT requests queued */
    sampler_stop = 1;
    pthread_cond_signal(&sampler_wake);
    pthread_mutex_unlock(&sampler_lock);
    if (running)
        pthread_join(sampler, NULL); /* after its last pass over the bodies */
    say("%lu bodies attached (%lu of ReJIT versions), %lu refused, %lu without a map; "
        "%lu samples: %lu answered, %lu gone, %lu runtime disagreements, %lu not sampled; "
        "%lu modules unloaded, %lu bodies removed",
        atomic_load(&attached), atomic_load(&attached_rejit), atomic_load(&refused),
        atomic_load(&unavailable), atomic_load(&sampled), atomic_load(&answered),
        atomic_load(&gone), atomic_load(&disagreed), atomic_load(&unsampled),
        atomic_load(&modules_unloaded), atomic_load(&bodies_removed));
    if (out != stderr)
        fclose(out);
    out = stderr;
    /* The store stays: a callback still running on another thread may
     * use it, and the process ends next. ilmap_store_free() frees it all
     * where no callback can follow. */
    return S_OK;
}

/* ---- Class factory and the one export ------------------------------ */

/* What the runtime's CreateInstance gets: a static object, its reference
 * count constant. Every callback the runtime may call must exist: the
 * do-nothing table with this profiler's own put in. */
static HRESULT create_profiler(const IID *riid, void **ppv)
{
    profiler_vtbl = clr_callback4_stubs;
    profiler_vtbl.QueryInterface = query_interface;
    profiler_vtbl.AddRef = add_ref;
    profiler_vtbl.Release = release;
    profiler_vtbl.Initialize = initialize;
    profiler_vtbl.JITCompilationFinished = jit_finished;
    profiler_vtbl.ReJITCompilationFinished = rejit_finished;
    profiler_vtbl.ModuleUnloadStarted = module_unload_started;
    profiler_vtbl.Shutdown = shutdown;
    profiler.lpVtbl = &profiler_vtbl;
    return query_interface(&profiler, riid, ppv);
}

static HRESULT CLR_STDCALL factory_query_interface(IClassFactory *self, const IID *riid,
                                                   void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!self || !riid)
        return E_INVALIDARG;
    if (clr_guid_equal(riid, &IID_IUnknown) || clr_guid_equal(riid, &IID_IClassFactory)) {
        *ppv = self;
        return S_OK;
    }
    return E_NOINTERFACE;
}

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
    return create_profiler(riid, ppv);
}

static HRESULT CLR_STDCALL factory_lock_server(IClassFactory *self, BOOL lock)
{
    (void)self;
    (void)lock;
    return S_OK;
}

static const IClassFactoryVtbl factory_vtbl = {
    factory_query_interface, factory_add_ref, factory_release, factory_create_instance,
    factory_lock_server,
};
static IClassFactory factory = {&factory_vtbl};

/* The runtime dlopens the library and calls this with CORECLR_PROFILER's
 * CLSID; the version script (minimal-profiler.map) keeps every other
 * symbol private, statically linked libilmap included. */
__attribute__((visibility("default"))) HRESULT CLR_STDCALL
DllGetClassObject(const CLSID *rclsid, const IID *riid, void **ppv);

HRESULT CLR_STDCALL DllGetClassObject(const CLSID *rclsid, const IID *riid, void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!rclsid || !riid)
        return E_INVALIDARG;
    if (!clr_guid_equal(rclsid, &CLSID_MinimalProfiler))
        return CLASS_E_CLASSNOTAVAILABLE;
    return factory_query_interface(&factory, riid, ppv);
}
