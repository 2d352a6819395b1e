/*
 * The profiler shim without a runtime: its vtable and QueryInterface rules,
 * the pure parts (selection, UTF-16, instrumentation), and a whole ReJIT
 * session of the profiler with the harness attached against a fake
 * runtime (ICorProfilerInfo, IMetaDataImport and
 * ICorProfilerFunctionControl written here), ending with the report.
 * This is the test that runs under the sanitizers, where the real runtime
 * cannot host an instrumented .so.
 *
 * The runtime fails (issue 14), each run in a child process: the ReJIT
 * session with its k-th call into the fake failing, for every k and five
 * codes (118 calls, 590 runs), plus ReJITs that never compile, an unload
 * with ReJITs pending and malformed settings; then the argument and
 * static-field session (ILMAP_SHIM_ARGS, ILMAP_SHIM_STATICS) against a
 * small object world (a class with an int, a string and an object field,
 * a boxed int, a string, an int[], an int[,], a struct argument, one
 * static of each kind): first its report checked exactly, then its k-th
 * call failing for every k and seven codes (202 calls, 1,414 runs), its
 * k-th allocation returning NULL (48, through the linker's --wrap), then
 * hostile metadata (a method signature cut short, malformed, nested 400
 * deep or empty; field signatures cut short, malformed or of another
 * kind). Every run must end normally with no leak (LeakSanitizer in the
 * sanitizer build), write JSON lines only, do nothing to the runtime the
 * faultless run does not, and say on stderr why its report differs.
 * Under a sanitizer each call fails once, with the codes taken in turn.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "com/callback.h"
#include "com/callback_stubs.h"
#include "com/flags.h"
#include "com/function_control.h"
#include "com/guids.h"
#include "com/info.h"
#include "com/metadata.h"
#include "com/metadata_emit.h"
#include "harness/elt_checks.h"
#include "harness/harness.h"
#include "ilmap-il.h"
#include "platform/elt_hooks.h"
#include "profiler/elt.h"
#include "profiler/instrument.h"
#include "profiler/callbacks.h"
#include "profiler/profiler.h"
#include "profiler/progress.h"
#include "select/resolve.h"
#include "select/selection.h"
#include "values/statics.h"
#include "base/text.h"
#include "profiler/version_store.h"

#include "../test.h"

/* ------------------------------------------------------------------ */
/* The vtable and QueryInterface                                        */

static void slots_filled(const ICorProfilerCallback4Vtbl *vtbl, const char *which)
{
    typedef void (*slot)(void);
    slot slots[ICORPROFILERCALLBACK4_SLOTS];
    CHECK(sizeof slots == sizeof *vtbl);
    memcpy(slots, vtbl, sizeof slots);
    for (size_t i = 0; i < ICORPROFILERCALLBACK4_SLOTS; i++) {
        if (!slots[i])
            fprintf(stderr, "%s: vtable slot %zu is empty\n", which, i);
        CHECK(slots[i] != NULL);
    }
}

static void vtable_complete(void)
{
    slots_filled(shim_callback_vtbl(), "shim");
    CHECK(shim_callback_vtbl() == shim_callback_vtbl());
    /* The shared stub table (examples/ reuses it): complete, and its
     * IUnknown refuses rather than pretending to be an object. */
    slots_filled(&clr_callback4_stubs, "stubs");
    ICorProfilerCallback4 stub = {&clr_callback4_stubs};
    void *p = (void *)1;
    CHECK(stub.lpVtbl->QueryInterface(&stub, &IID_IUnknown, &p) == E_NOINTERFACE);
    CHECK(p == NULL);
    CHECK(stub.lpVtbl->QueryInterface(&stub, &IID_IUnknown, NULL) == E_POINTER);
    CHECK(stub.lpVtbl->AddRef(&stub) == 1 && stub.lpVtbl->Release(&stub) == 1);
    CHECK(stub.lpVtbl->Initialize(&stub, NULL) == S_OK);
    CHECK(stub.lpVtbl->JITCompilationFinished(&stub, 1, S_OK, 1) == S_OK);
    CHECK(stub.lpVtbl->SurvivingReferences2(&stub, 0, NULL, NULL) == S_OK);
    /* The shim's own callbacks replaced the stubs in their slots. */
    CHECK(shim_callback_vtbl()->Initialize != clr_callback4_stubs.Initialize);
    CHECK(shim_callback_vtbl()->ReJITError != clr_callback4_stubs.ReJITError);
    CHECK(shim_callback_vtbl()->ThreadCreated == clr_callback4_stubs.ThreadCreated);
}

static ICorProfilerCallback4 *create_profiler(void)
{
    void *obj = (void *)1;
    /* Not a callback interface: refused before the instance is taken. */
    CHECK(shim_profiler_create(&IID_ICorProfilerCallback5, &obj, shim_harness_hooks()) == E_NOINTERFACE);
    CHECK(obj == NULL);
    CHECK(shim_profiler_create(&IID_ICorProfilerCallback2, NULL, shim_harness_hooks()) == E_POINTER);
    CHECK(shim_profiler_create(&IID_ICorProfilerCallback2, &obj, shim_harness_hooks()) == S_OK);
    ICorProfilerCallback4 *cb = obj;
    CHECK(cb != NULL);
    void *again = (void *)1;
    CHECK(shim_profiler_create(&IID_ICorProfilerCallback2, &again, shim_harness_hooks()) ==
          CORPROF_E_PROFILER_ALREADY_ACTIVE);
    CHECK(again == NULL);
    return cb;
}

static void query_interface(ICorProfilerCallback4 *cb)
{
    const IID *yes[] = {&IID_IUnknown, &IID_ICorProfilerCallback, &IID_ICorProfilerCallback2,
                        &IID_ICorProfilerCallback3, &IID_ICorProfilerCallback4};
    const IID *no[] = {&IID_ICorProfilerCallback5,  &IID_ICorProfilerCallback6,
                       &IID_ICorProfilerCallback7,  &IID_ICorProfilerCallback8,
                       &IID_ICorProfilerCallback9,  &IID_ICorProfilerCallback10,
                       &IID_ICorProfilerCallback11, &IID_IClassFactory,
                       &IID_ICorProfilerInfo4};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        void *p = NULL;
        CHECK(cb->lpVtbl->QueryInterface(cb, yes[i], &p) == S_OK);
        CHECK(p == cb);
        cb->lpVtbl->Release(cb);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        void *p = (void *)1;
        CHECK(cb->lpVtbl->QueryInterface(cb, no[i], &p) == E_NOINTERFACE);
        CHECK(p == NULL);
    }
    CHECK(cb->lpVtbl->QueryInterface(cb, &IID_IUnknown, NULL) == E_POINTER);
    void *p = (void *)1;
    CHECK(cb->lpVtbl->QueryInterface(cb, NULL, &p) == E_INVALIDARG);
    CHECK(p == NULL);
    /* A foreign `this` is refused, not dereferenced. */
    ICorProfilerCallback4 other = {shim_callback_vtbl()};
    CHECK(cb->lpVtbl->QueryInterface(&other, &IID_IUnknown, &p) == E_INVALIDARG);
    ULONG r1 = cb->lpVtbl->AddRef(cb);
    CHECK(cb->lpVtbl->Release(cb) == r1 - 1);

    /* Callbacks before Initialize do nothing and fail nothing. */
    CHECK(cb->lpVtbl->ModuleLoadFinished(cb, 0x1000, S_OK) == S_OK);
    CHECK(cb->lpVtbl->GetReJITParameters(cb, 0x1000, 0x06000001, NULL) == S_OK);
    CHECK(cb->lpVtbl->ReJITCompilationFinished(cb, 1, 2, S_OK, 1) == S_OK);
    CHECK(cb->lpVtbl->AppDomainCreationStarted(cb, 1) == S_OK);
    CHECK(cb->lpVtbl->RootReferences2(cb, 0, NULL, NULL, NULL, NULL) == S_OK);
    CHECK(cb->lpVtbl->SurvivingReferences2(cb, 0, NULL, NULL) == S_OK);
    CHECK(cb->lpVtbl->Initialize(cb, NULL) == E_INVALIDARG);
}

/* ------------------------------------------------------------------ */
/* Pure parts                                                           */

static void selection(void)
{
    shim_selection s;
    CHECK(shim_selection_parse(" A.B::C ; bad;X::*;;D.E+F::G", "T::A=T::B;T::*=T::C;broken",
                               "L::M", "P::Hit", &s) == 0);
    CHECK(s.count == 6);
    if (s.count == 6) {
        CHECK(strcmp(s.items[0].type_name, "A.B") == 0);
        CHECK(strcmp(s.items[0].method_name, "C") == 0);
        CHECK(strcmp(s.items[1].method_name, "*") == 0);
        CHECK(strcmp(s.items[2].type_name, "D.E+F") == 0);
        CHECK(s.items[3].role == SHIM_ROLE_TWIN_MAPPED && s.items[3].twin == 4);
        CHECK(s.items[4].role == SHIM_ROLE_TWIN_UNMAPPED && s.items[4].twin == 3);
        CHECK(s.items[5].late == 1 && strcmp(s.items[5].type_name, "L") == 0);
    }
    CHECK(s.probe.type_name && strcmp(s.probe.method_name, "Hit") == 0);
    /* ILMAP_SHIM_OBSERVE: appended, plain, neither late nor a twin */
    CHECK(shim_selection_add_observed(&s, "O.P::*; bad ;O.Q::R") == 0);
    CHECK(s.count == 8);
    if (s.count == 8) {
        CHECK(s.items[6].observe == 1 && s.items[6].late == 0 &&
              s.items[6].role == SHIM_ROLE_PLAIN && strcmp(s.items[6].type_name, "O.P") == 0);
        CHECK(s.items[7].observe == 1 && strcmp(s.items[7].method_name, "R") == 0);
        CHECK(s.items[5].observe == 0);
    }
    CHECK(shim_selection_add_observed(&s, NULL) == 0 && s.count == 8);
    shim_selection_free(&s);
    CHECK(shim_selection_parse(NULL, NULL, NULL, NULL, &s) == 0 && s.count == 0);
    shim_selection_free(&s);
    CHECK(shim_selection_parse("a\"b::c", NULL, NULL, NULL, &s) == 0 && s.count == 1);
    if (s.count == 1)
        CHECK(strcmp(s.items[0].json_name, "a\\\"b::c") == 0);
    shim_selection_free(&s);

    /* Namespace selectors: "Ns.Prefix.*::Method"; '*' nowhere else in the
     * type, no select-everything form, not for twins or the probe. */
    CHECK(shim_selection_parse("System.Collections.Generic.*::*; A.*::Run ;*::*;.*::M;A.*.B::M;"
                               "A*::M;A.B*::M;N.*+X::M;X.Y::*",
                               "N.*::A=N.T::B", "Q.*::M", "P.*::Hit", &s) == 0);
    CHECK(s.count == 4);
    if (s.count == 4) {
        CHECK(s.items[0].ns_prefix == 1);
        CHECK(strcmp(s.items[0].type_name, "System.Collections.Generic") == 0);
        CHECK(strcmp(s.items[0].method_name, "*") == 0);
        CHECK(strcmp(s.items[0].json_name, "System.Collections.Generic.*::*") == 0);
        CHECK(s.items[1].ns_prefix == 1 && strcmp(s.items[1].type_name, "A") == 0);
        CHECK(strcmp(s.items[1].method_name, "Run") == 0);
        CHECK(s.items[2].ns_prefix == 0 && strcmp(s.items[2].type_name, "X.Y") == 0);
        CHECK(s.items[3].ns_prefix == 1 && s.items[3].late == 1);
        CHECK(strcmp(s.items[3].type_name, "Q") == 0);
    }
    CHECK(s.probe.type_name == NULL);
    shim_selection_free(&s);

    CHECK(shim_namespace_matches("System.Collections", "System.Collections"));
    CHECK(shim_namespace_matches("System.Collections", "System.Collections.Generic"));
    CHECK(!shim_namespace_matches("System.Collections", "System.CollectionsX"));
    CHECK(!shim_namespace_matches("System.Collections", "System"));
    CHECK(!shim_namespace_matches("System.Collections", ""));
    CHECK(!shim_namespace_matches("", "System"));
    CHECK(!shim_namespace_matches(NULL, "System"));
}

/* Native offsets run across the hot and cold ranges end to end. */
/* ILMAP_SHIM_STATICS as doc/shim.md#environment describes it: full type
 * names separated by ';', blanks around them dropped, "[Module]Ns.Type"
 * for one module; malformed qualifiers skipped. */
static void statics_list(void)
{
    shim_statics st;
    CHECK(shim_statics_init(&st, NULL) != 0 && st.count == 0);
    CHECK(shim_statics_init(&st, "") != 0 && st.count == 0);
    CHECK(shim_statics_init(&st, " ; ;\t") != 0 && st.count == 0);
    CHECK(shim_statics_init(NULL, "A.B") != 0);
    CHECK(shim_statics_init(&st, " A.B ;[App]<PrivateImplementationDetails>;;Ns.Outer+In ; "
                                 "[]X;[Broken;[M]") == 0);
    CHECK(st.count == 3);
    if (st.count == 3) {
        CHECK(strcmp(st.names[0], "A.B") == 0 && st.modules[0] == NULL);
        CHECK(strcmp(st.names[1], "<PrivateImplementationDetails>") == 0 && st.modules[1] &&
              strcmp(st.modules[1], "App") == 0);
        CHECK(strcmp(st.names[2], "Ns.Outer+In") == 0 && st.modules[2] == NULL);
    }
    /* No generic name: ClassLoadFinished is not needed for statics. */
    CHECK(!st.any_generic);
    shim_statics_free(&st);
    CHECK(st.count == 0 && st.names == NULL);
    /* A generic type definition's metadata name: statics per instantiation. */
    CHECK(shim_statics_init(&st, "A.B;[M]Ns.Gen`1;Ns.Outer`2+In") == 0 && st.count == 3 &&
          st.any_generic);
    shim_statics_free(&st);
    shim_statics_free(NULL);
}

static void code_address(void)
{
    const COR_PRF_CODE_INFO ranges[] = {{0x1000, 16}, {0x9000, 8}};
    uintptr_t at = 0;
    CHECK(shim_code_address(ranges, 2, 0, &at) == 0 && at == 0x1000);
    CHECK(shim_code_address(ranges, 2, 15, &at) == 0 && at == 0x100F);
    CHECK(shim_code_address(ranges, 2, 16, &at) == 0 && at == 0x9000);
    CHECK(shim_code_address(ranges, 2, 23, &at) == 0 && at == 0x9007);
    CHECK(shim_code_address(ranges, 2, 24, &at) != 0);
    CHECK(shim_code_address(ranges, 0, 0, &at) != 0);
    CHECK(shim_code_address(NULL, 2, 0, &at) != 0);
    CHECK(shim_code_address(ranges, 2, 0, NULL) != 0);
}

static void utf16(void)
{
    WCHAR w[16];
    CHECK(shim_utf8_to_utf16("Ab\xC3\xA9\xF0\x9F\x98\x80", w, 16) == 0);
    CHECK(w[0] == 'A' && w[1] == 'b' && w[2] == 0xE9 && w[3] == 0xD83D && w[4] == 0xDE00 &&
          w[5] == 0);
    char back[32];
    shim_utf16_to_utf8(w, 16, back, sizeof back);
    CHECK(strcmp(back, "Ab\xC3\xA9\xF0\x9F\x98\x80") == 0);
    CHECK(shim_utf8_to_utf16("\xC3", w, 16) != 0);        /* truncated sequence */
    CHECK(shim_utf8_to_utf16("abcdef", w, 4) != 0);       /* does not fit */
    const WCHAR lone[] = {0xD800, 'x', 0};
    shim_utf16_to_utf8(lone, 3, back, sizeof back);
    CHECK(strcmp(back, "\xEF\xBF\xBDx") == 0);
}

/* ldarg.0; brtrue.s +2; ldc.i4.0; ret; ldc.i4.1; ret (7 bytes, tiny) */
static const uint8_t tiny_body[] = {0x1E, 0x02, 0x2D, 0x02, 0x16, 0x2A, 0x17, 0x2A};

static void instrument(void)
{
    shim_probe probe = {0x06000009u, 1};
    shim_instrumented out;
    const char *why = NULL;
    CHECK(shim_instrument(tiny_body, sizeof tiny_body, &probe, &out, &why) == 0);
    CHECK(why == NULL);
    CHECK(out.map_count == 6);
    CHECK(out.probes == 6);
    CHECK(ilmap_validate(out.map, out.map_count, NULL, NULL) == ILMAP_OK);
    ilmap_il_body b;
    CHECK(ilmap_il_body_parse(out.body, out.body_size, &b) == ILMAP_OK);
    /* Every original instruction got a probe: the byte at each entry's new
     * offset is `call 0x06000009`, and the instruction follows it. */
    for (size_t i = 0; i < out.map_count && b.code; i++) {
        uint32_t at = out.map[i].new_offset;
        CHECK(at + 5 < b.code_size);
        CHECK(b.code[at] == 0x28 && b.code[at + 4] == 0x06 && b.code[at + 1] == 0x09);
        CHECK(b.code[at + 5] == tiny_body[1 + out.map[i].old_offset]);
    }
    CHECK(out.new_start_count == 12);
    shim_instrumented_free(&out);

    /* Probes only where they must go (offset 0 and the branch target). */
    probe.every = 0;
    probe.call_token = 0; /* nop probes */
    CHECK(shim_instrument(tiny_body, sizeof tiny_body, &probe, &out, &why) == 0);
    CHECK(out.probes == 2);
    CHECK(out.map_count == 6 && out.map[0].new_offset == 0 && out.map[1].new_offset == 2 &&
          out.map[4].old_offset == 5 && out.map[4].new_offset == 6);
    shim_instrumented_free(&out);

    /* Nothing goes between a prefix and its instruction. */
    static const uint8_t prefixed[] = {(9 << 2) | 2, 0x02, 0xFE, 0x13, 0x4A, 0x26, 0x16, 0x2A,
                                       0x00, 0x00};
    probe.every = 1;
    CHECK(shim_instrument(prefixed, sizeof prefixed, &probe, &out, &why) == 0);
    CHECK(out.probes == 7); /* 8 instructions, none before ldind.i4 */
    shim_instrumented_free(&out);

    /* Bad input is refused with a reason, never read past its end. */
    CHECK(shim_instrument(tiny_body, 3, &probe, &out, &why) != 0 && why != NULL);
    static const uint8_t bad_op[] = {(1 << 2) | 2, 0x24};
    CHECK(shim_instrument(bad_op, sizeof bad_op, &probe, &out, &why) != 0);
    CHECK(shim_instrument(NULL, 4, &probe, &out, &why) != 0);
    CHECK(shim_instrument(tiny_body, sizeof tiny_body, NULL, &out, &why) != 0);
    CHECK(out.body == NULL && out.map == NULL);
}

/* ------------------------------------------------------------------ */
/* A fake runtime                                                       */

#define MODULE ((ModuleID)0x1000)
#define MODULE2 ((ModuleID)0x2000) /* the same metadata; loaded and unloaded */
#define TD_T 0x02000002u
#define TD_P 0x02000003u
#define TOK_M 0x06000001u
#define TOK_A 0x06000002u
#define TOK_B 0x06000003u
#define TOK_L 0x06000004u
#define TOK_HIT 0x06000009u

typedef struct fake_version {
    mdMethodDef token;
    FunctionID function;
    ReJITID rejit;
    UINT_PTR start;
    uint32_t code_size;
    COR_DEBUG_IL_TO_NATIVE_MAP map[32];
    uint32_t count;
} fake_version;

/* Fault injection (issue 14): with fault_at = k, the k-th call the shim
 * makes into the fake runtime (any ICorProfilerInfo, IMetaDataImport,
 * function control or allocator method) fails with fault_hr, or the
 * allocator returns NULL. 0: no faults. */
static long fault_at, fault_calls;
static HRESULT fault_hr;
static const char *fault_where = "-"; /* the fake method that failed */

static int fault_hit_in(const char *where)
{
    if (!fault_at || ++fault_calls != fault_at)
        return 0;
    fault_where = where;
    return 1;
}
#define fault_hit() fault_hit_in(__func__)

/* Allocation failure: the executable is linked with --wrap for malloc,
 * calloc and realloc, so the shim's and libilmap's allocations come here
 * (libc's own, inside fopen or strdup, do not). While armed (the args
 * session, from Initialize to Shutdown) each is counted, and the
 * alloc_fault_at-th one returns NULL. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
static long alloc_fault_at, alloc_calls;
static int alloc_armed;

static int alloc_fails(void)
{
    if (!alloc_armed)
        return 0;
    if (++alloc_calls != alloc_fault_at)
        return 0;
    fault_where = "malloc";
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return alloc_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return alloc_fails() ? NULL : __real_realloc(p, size);
}

#define FAULT_HR()                                                                         \
    do {                                                                                   \
        if (fault_hit())                                                                   \
            return fault_hr;                                                               \
    } while (0)

/* What the shim did to the runtime, one line per effect (the bodies and
 * maps it set, the ReJITs it asked for): what the profiled program
 * would see. */
static char effects[8192];
static mdMethodDef params_token; /* of the GetReJITParameters under way */
static size_t effects_len;

static uint32_t fnv(const void *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 16777619u;
    return h;
}

static void effect(const char *what, unsigned long key, uint32_t hash)
{
    int n = snprintf(effects + effects_len, sizeof effects - effects_len, "%s %lx %08x\n", what,
                     key, hash);
    if (n > 0 && (size_t)n < sizeof effects - effects_len)
        effects_len += (size_t)n;
}

static struct fake {
    ICorProfilerInfo9 info;
    IMetaDataImport md;
    DWORD mask, mask_high;
    atomic_int rejit_calls;
    ULONG rejit_tokens;
    mdMethodDef requested[8];
    fake_version versions[4];
    /* what GetReJITParameters handed to the control */
    uint8_t body[256];
    size_t body_size;
    COR_IL_MAP il_map[64];
    ULONG il_map_count;
    int map_set;
    /* what the ELT part set */
    FunctionEnter3 *enter;
    FunctionLeave3 *leave;
    FunctionTailcall3 *tailcall;
    FunctionIDMapper2 *mapper;
    void *mapper_data;
    /* the slow-path hooks of argument mode */
    FunctionEnter3WithInfo *enter_info;
    FunctionLeave3WithInfo *leave_info;
    FunctionTailcall3WithInfo *tailcall_info;
} fake;

/* Runtime behaviour the session can play besides the normal one: the
 * requested ReJITs never compile (no GetReJITParameters, no ReJIT
 * compilation callbacks), or the module unloads while its ReJITs are
 * pending; or the normal session with malformed settings, which must
 * change nothing but the log. */
enum { SCENARIO_NORMAL, SCENARIO_NEVER_COMPILES, SCENARIO_UNLOAD_PENDING, SCENARIO_BAD_SETTINGS,
       /* the wrap session (wrap_session): M wrapped in Begin/End */
       SCENARIO_WRAP,
       /* the argument and static-field session (args_session) and its
        * hostile metadata */
       SCENARIO_ARGS, SCENARIO_ARGS_SIG_TRUNCATED, SCENARIO_ARGS_SIG_MALFORMED,
       SCENARIO_ARGS_SIG_DEEP, SCENARIO_ARGS_SIG_EMPTY, SCENARIO_ARGS_FIELD_SIGS };
static int scenario = SCENARIO_NORMAL;

static IMetaDataImport args_md; /* MODULE3's metadata (the object world) */
static IMetaDataEmit fake_emit; /* MODULE's emitter (the wrap session) */

/* ---- A small object world for the argument and static-field reports --
 * (ILMAP_SHIM_ARGS, ILMAP_SHIM_STATICS): MODULE3's metadata defines the
 * CoreLib types it needs itself (one scope), objects are real memory laid
 * out as the shim reads them (the first word of every object is its
 * ClassID, standing for the method table), and the ELT info handle gives
 * the argument ranges of one call of W.Item::Run. */
#define MODULE3 ((ModuleID)0x3000)
#define FN_RUN ((FunctionID)0x7001)
#define TOK_RUN 0x06000001u
#define ELT_HANDLE ((COR_PRF_ELT_INFO)0xE17)
enum {
    W_OBJECT = 0x02000002u, W_VALUETYPE, W_STRING, W_INT32, W_ITEM, W_PT, W_STAT, W_BLOB
};
enum { F_VALUE = 0x04000001u, F_N, F_S, F_O, F_X, F_Y, F_A, F_T, F_R, F_C };
#define CLS_INT_ARRAY ((ClassID)0xCA00)
#define CLS_INT_GRID ((ClassID)0xCB00)

static const struct w_type {
    mdTypeDef td;
    const char *name;
    mdToken extends;
    ClassID cls;
    ULONG size; /* GetClassLayout's class size */
    int value_type;
} w_types[] = {
    {W_OBJECT, "System.Object", 0, 0xC100, 8, 0},
    {W_VALUETYPE, "System.ValueType", W_OBJECT, 0xC200, 8, 0},
    {W_STRING, "System.String", W_OBJECT, 0xC300, 16, 0},
    {W_INT32, "System.Int32", W_VALUETYPE, 0xC400, 4, 1},
    {W_ITEM, "W.Item", W_OBJECT, 0xC500, 32, 0},
    {W_PT, "W.Pt", W_VALUETYPE, 0xC600, 8, 1},
    {W_STAT, "W.Stat", W_OBJECT, 0xC700, 8, 0},
    {W_BLOB, "W.Blob", W_VALUETYPE, 0xC800, 4, 1},
};
#define W_TYPES (sizeof w_types / sizeof w_types[0])

static const struct w_type *w_type_of_td(mdToken td)
{
    for (size_t i = 0; i < W_TYPES; i++)
        if (w_types[i].td == td)
            return &w_types[i];
    return NULL;
}

static const struct w_type *w_type_of_cls(ClassID cls)
{
    for (size_t i = 0; i < W_TYPES; i++)
        if (w_types[i].cls == cls)
            return &w_types[i];
    return NULL;
}

/* Fields: instance offsets as the profiler's GetClassLayout gives them
 * (from the object's start for a class, from the value for a struct). */
static const struct w_field {
    mdFieldDef fd;
    mdTypeDef owner;
    const char *name;
    DWORD attr;
    uint8_t sig[4];
    ULONG sig_size;
    ULONG offset;
    COR_PRF_STATIC_TYPE kind; /* a static's storage */
} w_fields[] = {
    {F_VALUE, W_INT32, "m_value", 0x0001, {0x06, 0x08}, 2, 0, 0},
    {F_N, W_ITEM, "n", 0x0006, {0x06, 0x08}, 2, 8, 0},
    {F_S, W_ITEM, "s", 0x0006, {0x06, 0x0E}, 2, 16, 0},
    {F_O, W_ITEM, "o", 0x0006, {0x06, 0x1C}, 2, 24, 0},
    {F_X, W_PT, "x", 0x0006, {0x06, 0x08}, 2, 0, 0},
    {F_Y, W_PT, "y", 0x0006, {0x06, 0x08}, 2, 4, 0},
    {F_A, W_STAT, "a", 0x0016, {0x06, 0x08}, 2, 0, COR_PRF_FIELD_APP_DOMAIN_STATIC},
    {F_T, W_STAT, "t", 0x0016, {0x06, 0x0E}, 2, 0, COR_PRF_FIELD_THREAD_STATIC},
    {F_R, W_STAT, "r", 0x0116, {0x06, 0x11, 0x24}, 3, 0, COR_PRF_FIELD_RVA_STATIC},
    {F_C, W_STAT, "c", 0x0016, {0x06, 0x08}, 2, 0, COR_PRF_FIELD_CONTEXT_STATIC},
};
#define W_FIELDS (sizeof w_fields / sizeof w_fields[0])

static const struct w_field *w_field_of(mdFieldDef fd)
{
    for (size_t i = 0; i < W_FIELDS; i++)
        if (w_fields[i].fd == fd)
            return &w_fields[i];
    return NULL;
}

/* int W.Item::Run(string, object, int[], int[,], W.Pt), an instance method. */
static const uint8_t run_sig[] = {0x20, 0x05, 0x08, 0x0E, 0x1C, 0x1D, 0x08,
                                  0x14, 0x08, 0x02, 0x00, 0x00, 0x11, 0x1C};

/* The objects. */
static uint64_t obj_item[4], obj_str[3], obj_str_t[3], obj_box[2], obj_arr[4], obj_grid[7];
static int32_t pt_value[2] = {5, -6};
static int32_t ret_value = 42;
static int32_t static_a = 11, static_c = -3;
static ObjectID static_t;
static const uint8_t static_r[4] = {0xDE, 0xAD, 0xBE, 0xEF};
/* The argument slots the ranges point to: `this` and the five parameters. */
static ObjectID arg_slots[5];

static const struct w_object {
    const uint64_t *at;
    SIZE_T size;
} w_objects[] = {
    {obj_item, sizeof obj_item}, {obj_str, 8 + 4 + 3 * 2}, {obj_str_t, 8 + 4 + 1 * 2},
    {obj_box, sizeof obj_box},   {obj_arr, 16 + 3 * 4},    {obj_grid, 32 + 6 * 4},
};

static void w_string(uint64_t *o, const char *s)
{
    uint8_t *b = (uint8_t *)o;
    uint32_t n = (uint32_t)strlen(s);
    memcpy(b + 8, &n, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint16_t c = (uint8_t)s[i];
        memcpy(b + 12 + 2 * i, &c, 2);
    }
}

static void w_build(void)
{
    const ClassID item = w_type_of_td(W_ITEM)->cls, str = w_type_of_td(W_STRING)->cls;
    obj_item[0] = item;
    int32_t n = 7;
    memcpy((uint8_t *)obj_item + 8, &n, 4);
    obj_item[2] = (uint64_t)(uintptr_t)obj_str;
    obj_item[3] = (uint64_t)(uintptr_t)obj_box;
    obj_str[0] = str;
    w_string(obj_str, "a\"b");
    obj_str_t[0] = str;
    w_string(obj_str_t, "t");
    obj_box[0] = w_type_of_td(W_INT32)->cls;
    memcpy((uint8_t *)obj_box + 8, &ret_value, 4);
    obj_arr[0] = CLS_INT_ARRAY;
    obj_arr[1] = 3;
    for (int32_t i = 0; i < 3; i++)
        memcpy((uint8_t *)obj_arr + 16 + 4 * i, &(int32_t){i + 1}, 4);
    obj_grid[0] = CLS_INT_GRID;
    obj_grid[1] = 6;
    for (int32_t i = 0; i < 6; i++)
        memcpy((uint8_t *)obj_grid + 32 + 4 * i, &(int32_t){10 * (i + 1)}, 4);
    static_t = (ObjectID)(uintptr_t)obj_str_t;
    arg_slots[0] = (ObjectID)(uintptr_t)obj_item;
    arg_slots[1] = (ObjectID)(uintptr_t)obj_str;
    arg_slots[2] = (ObjectID)(uintptr_t)obj_box;
    arg_slots[3] = (ObjectID)(uintptr_t)obj_arr;
    arg_slots[4] = (ObjectID)(uintptr_t)obj_grid;
}

static const struct w_object *w_object_of(ObjectID obj)
{
    for (size_t i = 0; i < sizeof w_objects / sizeof w_objects[0]; i++)
        if ((uintptr_t)w_objects[i].at == obj)
            return &w_objects[i];
    return NULL;
}

static HRESULT CLR_STDCALL info_class_from_object(ICorProfilerInfo9 *self, ObjectID obj,
                                                  ClassID *cls)
{
    FAULT_HR();
    (void)self;
    if (!w_object_of(obj))
        return E_INVALIDARG;
    memcpy(cls, (const void *)obj, sizeof *cls);
    return S_OK;
}

static HRESULT CLR_STDCALL info_is_array(ICorProfilerInfo9 *self, ClassID cls, int32_t *element,
                                         ClassID *element_class, ULONG *rank)
{
    FAULT_HR();
    (void)self;
    if (cls != CLS_INT_ARRAY && cls != CLS_INT_GRID)
        return S_FALSE;
    *element = 0x08;
    *element_class = w_type_of_td(W_INT32)->cls;
    *rank = cls == CLS_INT_GRID ? 2 : 1;
    return S_OK;
}

static HRESULT CLR_STDCALL info_class_id_info(ICorProfilerInfo9 *self, ClassID cls,
                                              ModuleID *module, mdTypeDef *td)
{
    FAULT_HR();
    (void)self;
    const struct w_type *t = w_type_of_cls(cls);
    if (cls == CLS_INT_ARRAY || cls == CLS_INT_GRID) { /* no TypeDef of its own */
        *module = 0;
        *td = 0;
        return S_OK;
    }
    if (!t)
        return E_INVALIDARG;
    *module = MODULE3;
    *td = t->td;
    return S_OK;
}

static HRESULT CLR_STDCALL info_class_id_info2(ICorProfilerInfo9 *self, ClassID cls,
                                               ModuleID *module, mdTypeDef *td,
                                               ClassID *parent, ULONG32 cap, ULONG32 *total,
                                               ClassID args[])
{
    FAULT_HR();
    (void)self;
    (void)cap;
    (void)args;
    const struct w_type *t = w_type_of_cls(cls);
    if (!t)
        return E_INVALIDARG;
    if (module)
        *module = MODULE3;
    if (td)
        *td = t->td;
    if (parent)
        *parent = t->extends ? w_type_of_td(t->extends)->cls : 0;
    if (total)
        *total = 0;
    return S_OK;
}

static HRESULT CLR_STDCALL info_function_info2(ICorProfilerInfo9 *self, FunctionID f,
                                               COR_PRF_FRAME_INFO frame, ClassID *cls,
                                               ModuleID *module, mdToken *token, ULONG32 cap,
                                               ULONG32 *total, ClassID args[])
{
    FAULT_HR();
    (void)self;
    (void)frame;
    (void)cap;
    (void)args;
    if (f != FN_RUN)
        return E_INVALIDARG;
    *cls = w_type_of_td(W_ITEM)->cls;
    *module = MODULE3;
    *token = TOK_RUN;
    *total = 0;
    return S_OK;
}

static HRESULT CLR_STDCALL info_class_layout(ICorProfilerInfo9 *self, ClassID cls,
                                             COR_FIELD_OFFSET out[], ULONG cap, ULONG *total,
                                             ULONG *size)
{
    FAULT_HR();
    (void)self;
    const struct w_type *t = w_type_of_cls(cls);
    if (!t || t->td == W_STRING)
        return E_INVALIDARG;
    ULONG n = 0;
    for (size_t i = 0; i < W_FIELDS; i++) {
        const struct w_field *f = &w_fields[i];
        if (f->owner != t->td || (f->attr & 0x0010))
            continue;
        if (n < cap && out)
            out[n] = (COR_FIELD_OFFSET){f->fd, f->offset};
        n++;
    }
    *total = n;
    *size = t->size;
    return S_OK;
}

static HRESULT CLR_STDCALL info_class_from_token(ICorProfilerInfo9 *self, ModuleID module,
                                                 mdTypeDef td, ULONG32 count, ClassID args[],
                                                 ClassID *out)
{
    FAULT_HR();
    (void)self;
    (void)args;
    const struct w_type *t = w_type_of_td(td);
    if (module != MODULE3 || count || !t)
        return E_INVALIDARG;
    *out = t->cls;
    return S_OK;
}

static HRESULT CLR_STDCALL info_array_info(ICorProfilerInfo9 *self, ObjectID obj, ULONG32 rank,
                                           ULONG32 lengths[], int lower[], BYTE **data)
{
    FAULT_HR();
    (void)self;
    if (obj == (uintptr_t)obj_arr && rank == 1) {
        lengths[0] = 3;
        lower[0] = 0;
        *data = (BYTE *)obj_arr + 16;
        return S_OK;
    }
    if (obj == (uintptr_t)obj_grid && rank == 2) {
        lengths[0] = 2;
        lengths[1] = 3;
        lower[0] = lower[1] = 0;
        *data = (BYTE *)obj_grid + 32;
        return S_OK;
    }
    return E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_object_size(ICorProfilerInfo9 *self, ObjectID obj, SIZE_T *size)
{
    FAULT_HR();
    (void)self;
    const struct w_object *o = w_object_of(obj);
    if (!o)
        return E_INVALIDARG;
    *size = o->size;
    return S_OK;
}

static HRESULT CLR_STDCALL info_box_layout(ICorProfilerInfo9 *self, ClassID cls,
                                           ULONG32 *offset)
{
    FAULT_HR();
    (void)self;
    const struct w_type *t = w_type_of_cls(cls);
    if (!t || !t->value_type)
        return E_INVALIDARG;
    *offset = 8;
    return S_OK;
}

static HRESULT CLR_STDCALL info_string_layout(ICorProfilerInfo9 *self, ULONG *len_off,
                                              ULONG *buf_off)
{
    FAULT_HR();
    (void)self;
    *len_off = 8;
    *buf_off = 12;
    return S_OK;
}

static HRESULT CLR_STDCALL info_current_thread(ICorProfilerInfo9 *self, ThreadID *thread)
{
    FAULT_HR();
    (void)self;
    *thread = 0x7777;
    return S_OK;
}

static HRESULT CLR_STDCALL info_thread_domain(ICorProfilerInfo9 *self, ThreadID thread,
                                              AppDomainID *domain)
{
    FAULT_HR();
    (void)self;
    if (thread != 0x7777)
        return E_INVALIDARG;
    *domain = 0xAD;
    return S_OK;
}

static HRESULT CLR_STDCALL info_thread_context(ICorProfilerInfo9 *self, ThreadID thread,
                                               ContextID *context)
{
    FAULT_HR();
    (void)self;
    if (thread != 0x7777)
        return E_INVALIDARG;
    *context = 0xC7;
    return S_OK;
}

/* Each static address call answers its own kind only, as the runtime. */
static HRESULT w_static(ClassID cls, mdFieldDef fd, COR_PRF_STATIC_TYPE kind, void **addr)
{
    const struct w_field *f = w_field_of(fd);
    if (cls != w_type_of_td(W_STAT)->cls || !f || f->kind != kind)
        return E_INVALIDARG;
    *addr = fd == F_A   ? (void *)&static_a
            : fd == F_T ? (void *)&static_t
            : fd == F_R ? (void *)static_r
                        : (void *)&static_c;
    return S_OK;
}

static HRESULT CLR_STDCALL info_rva_static(ICorProfilerInfo9 *self, ClassID cls, mdFieldDef fd,
                                           void **addr)
{
    FAULT_HR();
    (void)self;
    return w_static(cls, fd, COR_PRF_FIELD_RVA_STATIC, addr);
}

static HRESULT CLR_STDCALL info_domain_static(ICorProfilerInfo9 *self, ClassID cls,
                                              mdFieldDef fd, AppDomainID domain, void **addr)
{
    FAULT_HR();
    (void)self;
    return domain == 0xAD ? w_static(cls, fd, COR_PRF_FIELD_APP_DOMAIN_STATIC, addr)
                          : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_context_static(ICorProfilerInfo9 *self, ClassID cls,
                                               mdFieldDef fd, ContextID context, void **addr)
{
    FAULT_HR();
    (void)self;
    return context == 0xC7 ? w_static(cls, fd, COR_PRF_FIELD_CONTEXT_STATIC, addr)
                           : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_thread_static2(ICorProfilerInfo9 *self, ClassID cls,
                                               mdFieldDef fd, AppDomainID domain,
                                               ThreadID thread, void **addr)
{
    FAULT_HR();
    (void)self;
    return domain == 0xAD && thread == 0x7777
               ? w_static(cls, fd, COR_PRF_FIELD_THREAD_STATIC, addr)
               : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_static_info(ICorProfilerInfo9 *self, ClassID cls, mdFieldDef fd,
                                            COR_PRF_STATIC_TYPE *kind)
{
    FAULT_HR();
    (void)self;
    const struct w_field *f = w_field_of(fd);
    if (cls != w_type_of_td(W_STAT)->cls || !f)
        return E_INVALIDARG;
    *kind = f->kind;
    return S_OK;
}

static HRESULT CLR_STDCALL info_hooks_info(ICorProfilerInfo9 *self,
                                           FunctionEnter3WithInfo *enter,
                                           FunctionLeave3WithInfo *leave,
                                           FunctionTailcall3WithInfo *tailcall)
{
    FAULT_HR();
    (void)self;
    /* The slow path wants all three flags. */
    DWORD need = COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_ENABLE_FUNCTION_ARGS |
                 COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO;
    if ((fake.mask & need) != need)
        return E_FAIL;
    fake.enter_info = enter;
    fake.leave_info = leave;
    fake.tailcall_info = tailcall;
    effect("elt_hooks_with_info", 1, 0);
    return S_OK;
}

/* The call's argument ranges: `this`, then the five parameters (the
 * struct by value). */
static HRESULT CLR_STDCALL info_enter3(ICorProfilerInfo9 *self, FunctionID f,
                                       COR_PRF_ELT_INFO elt, COR_PRF_FRAME_INFO *frame,
                                       ULONG *cb, COR_PRF_FUNCTION_ARGUMENT_INFO *ai)
{
    FAULT_HR();
    (void)self;
    if (f != FN_RUN || elt != ELT_HANDLE)
        return E_INVALIDARG;
    ULONG need = (ULONG)(offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges) +
                         6 * sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE));
    *frame = 0xF7;
    if (!ai || *cb < need) {
        *cb = need;
        return HRESULT_INSUFFICIENT_BUFFER;
    }
    ai->numRanges = 6;
    ai->totalArgumentSize = 5 * sizeof(ObjectID) + sizeof pt_value;
    for (int i = 0; i < 5; i++)
        ai->ranges[i] = (COR_PRF_FUNCTION_ARGUMENT_RANGE){(UINT_PTR)&arg_slots[i],
                                                          sizeof(ObjectID)};
    ai->ranges[5] = (COR_PRF_FUNCTION_ARGUMENT_RANGE){(UINT_PTR)pt_value, sizeof pt_value};
    return S_OK;
}

static HRESULT CLR_STDCALL info_leave3(ICorProfilerInfo9 *self, FunctionID f,
                                       COR_PRF_ELT_INFO elt, COR_PRF_FRAME_INFO *frame,
                                       COR_PRF_FUNCTION_ARGUMENT_RANGE *ret)
{
    FAULT_HR();
    (void)self;
    if (f != FN_RUN || elt != ELT_HANDLE)
        return E_INVALIDARG;
    *frame = 0xF7;
    *ret = (COR_PRF_FUNCTION_ARGUMENT_RANGE){(UINT_PTR)&ret_value, sizeof ret_value};
    return S_OK;
}

static HRESULT CLR_STDCALL info_qi(ICorProfilerInfo9 *self, const IID *riid, void **ppv)
{
    FAULT_HR();
    *ppv = NULL;
    if (shim_guid_equal(riid, &IID_ICorProfilerInfo4) ||
        shim_guid_equal(riid, &IID_ICorProfilerInfo5) ||
        shim_guid_equal(riid, &IID_ICorProfilerInfo9)) {
        *ppv = self;
        return S_OK;
    }
    return E_NOINTERFACE;
}

static ULONG CLR_STDCALL info_ref(ICorProfilerInfo9 *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL info_set_mask(ICorProfilerInfo9 *self, DWORD mask)
{
    FAULT_HR();
    (void)self;
    fake.mask = mask;
    effect("mask", mask, 0);
    return S_OK;
}

static HRESULT CLR_STDCALL info_set_mask2(ICorProfilerInfo9 *self, DWORD low, DWORD high)
{
    FAULT_HR();
    (void)self;
    fake.mask = low;
    fake.mask_high = high;
    effect("mask", low, high);
    return S_OK;
}

static HRESULT CLR_STDCALL info_runtime(ICorProfilerInfo9 *self, USHORT *instance,
                                        COR_PRF_RUNTIME_TYPE *type, USHORT *major,
                                        USHORT *minor, USHORT *build, USHORT *qfe, ULONG cch,
                                        ULONG *pcch, WCHAR version[])
{
    FAULT_HR();
    (void)self;
    *instance = 0;
    *type = COR_PRF_CORE_CLR;
    *major = 10;
    *minor = *build = *qfe = 0;
    *pcch = 5;
    if (cch >= 5)
        shim_utf8_to_utf16("fake", version, cch);
    return S_OK;
}

static HRESULT CLR_STDCALL info_module_info(ICorProfilerInfo9 *self, ModuleID module,
                                            LPCBYTE *base, ULONG cch, ULONG *pcch,
                                            WCHAR name[], AssemblyID *assembly)
{
    FAULT_HR();
    (void)self;
    (void)module;
    *base = NULL;
    *assembly = 0;
    *pcch = 9;
    return cch >= 9 && !shim_utf8_to_utf16("fake.dll", name, cch) ? S_OK : E_FAIL;
}

static HRESULT CLR_STDCALL info_module_info2(ICorProfilerInfo9 *self, ModuleID module,
                                             LPCBYTE *base, ULONG cch, ULONG *pcch,
                                             WCHAR name[], AssemblyID *assembly, DWORD *flags)
{
    FAULT_HR();
    (void)self;
    (void)cch;
    (void)name;
    *base = NULL;
    *assembly = 0;
    *pcch = 9;
    *flags = module == MODULE2 ? COR_PRF_MODULE_COLLECTIBLE : 0;
    return S_OK;
}

/* JIT-time instrumentation (MODULE2 is collectible): the allocator, the
 * new body, the map. */
static uint8_t jit_body[256];
static ULONG jit_map_count;
static int jit_body_set;
static void *CLR_STDCALL malloc_alloc(IMethodMalloc *self, ULONG size)
{
    (void)self;
    if (fault_hit())
        return NULL;
    return size <= sizeof jit_body ? jit_body : NULL;
}
static ULONG CLR_STDCALL malloc_ref(IMethodMalloc *self)
{
    (void)self;
    return 1;
}
static const IMethodMallocVtbl fake_malloc_vtbl = {NULL, malloc_ref, malloc_ref, malloc_alloc};
static IMethodMalloc fake_malloc = {&fake_malloc_vtbl};

static HRESULT CLR_STDCALL info_allocator(ICorProfilerInfo9 *self, ModuleID module,
                                          IMethodMalloc **out)
{
    FAULT_HR();
    (void)self;
    *out = module == MODULE2 ? &fake_malloc : NULL;
    return *out ? S_OK : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_set_body(ICorProfilerInfo9 *self, ModuleID module,
                                         mdMethodDef token, LPCBYTE header)
{
    FAULT_HR();
    (void)self;
    (void)token;
    jit_body_set = module == MODULE2 && header == jit_body;
    effect("jit_body", token, fnv(jit_body, sizeof jit_body));
    return jit_body_set ? S_OK : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_set_map(ICorProfilerInfo9 *self, FunctionID f, BOOL start,
                                        ULONG n, COR_IL_MAP map[])
{
    FAULT_HR();
    (void)self;
    (void)start;
    (void)map;
    jit_map_count = n;
    effect("jit_map", f, fnv(map, n * sizeof *map));
    return f == 0x6001 ? S_OK : E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_metadata(ICorProfilerInfo9 *self, ModuleID module, DWORD flags,
                                         const IID *riid, IUnknown **out)
{
    FAULT_HR();
    (void)self;
    *out = NULL;
    if (module == MODULE && flags == (CLR_OF_READ | CLR_OF_WRITE) &&
        shim_guid_equal(riid, &IID_IMetaDataEmit)) {
        *out = (IUnknown *)(void *)&fake_emit; /* the wrap mode's emitter */
        return S_OK;
    }
    if ((module != MODULE && module != MODULE2 && module != MODULE3) || flags != CLR_OF_READ ||
        !shim_guid_equal(riid, &IID_IMetaDataImport))
        return E_INVALIDARG;
    *out = (IUnknown *)(void *)(module == MODULE3 ? &args_md : &fake.md);
    return S_OK;
}

static HRESULT CLR_STDCALL info_body(ICorProfilerInfo9 *self, ModuleID module, mdMethodDef t,
                                     LPCBYTE *header, ULONG *size)
{
    FAULT_HR();
    (void)self;
    (void)t;
    if (module != MODULE && module != MODULE2)
        return E_INVALIDARG;
    *header = tiny_body;
    *size = sizeof tiny_body;
    return S_OK;
}

static HRESULT CLR_STDCALL info_function_info(ICorProfilerInfo9 *self, FunctionID f,
                                              ClassID *cls, ModuleID *module, mdToken *token)
{
    FAULT_HR();
    (void)self;
    *cls = 0;
    *module = MODULE;
    if (f == FN_RUN) { /* the object world's W.Item::Run */
        *cls = w_type_of_td(W_ITEM)->cls;
        *module = MODULE3;
        *token = TOK_RUN;
        return S_OK;
    }
    if (f >= 0x6001 && f <= 0x6004) { /* MODULE2's functions */
        *module = MODULE2;
        *token = (mdToken)(0x06000000u + (f - 0x6000));
        return S_OK;
    }
    if (f < 0x5001 || f > 0x5004)
        return E_INVALIDARG;
    *token = (mdToken)(0x06000000u + (f - 0x5000));
    return S_OK;
}

static HRESULT CLR_STDCALL info_request_rejit(ICorProfilerInfo9 *self, ULONG n,
                                              ModuleID modules[], mdMethodDef methods[])
{
    FAULT_HR();
    (void)self;
    for (ULONG i = 0; i < n; i++)
        effect("rejit_request", methods[i], (uint32_t)modules[i]);
    for (ULONG i = 0; i < n && fake.rejit_tokens < 8; i++)
        if (modules[i] == MODULE)
            fake.requested[fake.rejit_tokens++] = methods[i];
    atomic_fetch_add(&fake.rejit_calls, 1);
    return S_OK;
}

static fake_version *version_of(FunctionID f, UINT_PTR start)
{
    for (size_t i = 0; i < 4; i++) {
        const fake_version *v = &fake.versions[i];
        if (v->function && (v->function == f || v->start == start))
            return &fake.versions[i];
    }
    return NULL;
}

static HRESULT CLR_STDCALL info_code_info3(ICorProfilerInfo9 *self, FunctionID f, ReJITID r,
                                           ULONG32 cap, ULONG32 *total, COR_PRF_CODE_INFO out[])
{
    FAULT_HR();
    (void)self;
    fake_version *v = version_of(f, 0);
    if (!v || v->rejit != r)
        return CORPROF_E_FUNCTION_NOT_COMPILED;
    *total = 1;
    if (cap >= 1) {
        out[0].startAddress = v->start;
        out[0].size = v->code_size;
    }
    return S_OK;
}

static HRESULT CLR_STDCALL info_code_info4(ICorProfilerInfo9 *self, UINT_PTR start,
                                           ULONG32 cap, ULONG32 *total, COR_PRF_CODE_INFO out[])
{
    FAULT_HR();
    (void)self;
    fake_version *v = version_of(0, start);
    if (!v)
        return E_INVALIDARG;
    *total = 1;
    if (cap >= 1) {
        out[0].startAddress = v->start;
        out[0].size = v->code_size;
    }
    return S_OK;
}

static HRESULT CLR_STDCALL info_starts(ICorProfilerInfo9 *self, FunctionID f, ReJITID r,
                                       ULONG32 cap, ULONG32 *total, UINT_PTR starts[])
{
    FAULT_HR();
    (void)self;
    fake_version *v = version_of(f, 0);
    if (!v || v->rejit != r)
        return E_INVALIDARG;
    *total = 1;
    if (cap >= 1)
        starts[0] = v->start;
    return S_OK;
}

static HRESULT CLR_STDCALL info_rejit_ids(ICorProfilerInfo9 *self, FunctionID f, ULONG cap,
                                          ULONG *total, ReJITID ids[])
{
    FAULT_HR();
    (void)self;
    fake_version *v = version_of(f, 0);
    *total = v ? 1 : 0;
    if (v && cap >= 1)
        ids[0] = v->rejit;
    return S_OK;
}

static HRESULT CLR_STDCALL info_hooks(ICorProfilerInfo9 *self, FunctionEnter3 *enter,
                                      FunctionLeave3 *leave, FunctionTailcall3 *tailcall)
{
    FAULT_HR();
    (void)self;
    /* As the runtime: the fast path wants ENTERLEAVE and none of the
     * flags that select the slow path. */
    if (!(fake.mask & COR_PRF_MONITOR_ENTERLEAVE) ||
        (fake.mask & (COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL |
                      COR_PRF_ENABLE_FRAME_INFO)))
        return E_FAIL;
    fake.enter = enter;
    fake.leave = leave;
    fake.tailcall = tailcall;
    return S_OK;
}

static HRESULT CLR_STDCALL info_id_mapper(ICorProfilerInfo9 *self, FunctionIDMapper2 *mapper,
                                          void *data)
{
    FAULT_HR();
    (void)self;
    fake.mapper = mapper;
    fake.mapper_data = data;
    return S_OK;
}

/* The buffer protocol of doc/buffer-protocol.md#runtime. */
static HRESULT protocol(const fake_version *v, ULONG32 cap, ULONG32 *total,
                        COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    if (cap > 0 && (!total || !map))
        return E_INVALIDARG;
    if (total)
        *total = v->count;
    for (ULONG32 i = 0; i < cap && i < v->count; i++)
        map[i] = v->map[i];
    return S_OK;
}

static HRESULT CLR_STDCALL info_map2(ICorProfilerInfo9 *self, FunctionID f, ReJITID r,
                                     ULONG32 cap, ULONG32 *total,
                                     COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    FAULT_HR();
    /* As the real runtime for a method rejitted before its first call:
     * the ReJITID is ignored, the default version has no code. */
    (void)self;
    (void)f;
    (void)r;
    (void)cap;
    (void)total;
    (void)map;
    return E_INVALIDARG;
}

static HRESULT CLR_STDCALL info_map3(ICorProfilerInfo9 *self, UINT_PTR start, ULONG32 cap,
                                     ULONG32 *total, COR_DEBUG_IL_TO_NATIVE_MAP map[])
{
    FAULT_HR();
    (void)self;
    fake_version *v = version_of(0, start);
    return v ? protocol(v, cap, total, map) : E_INVALIDARG;
}

static const ICorProfilerInfo9Vtbl fake_info_vtbl = {
    .QueryInterface = info_qi,
    .AddRef = info_ref,
    .Release = info_ref,
    .GetFunctionInfo = info_function_info,
    .SetEventMask = info_set_mask,
    .GetModuleInfo = info_module_info,
    .GetModuleMetaData = info_metadata,
    .GetILFunctionBody = info_body,
    .SetFunctionIDMapper2 = info_id_mapper,
    .SetEnterLeaveFunctionHooks3 = info_hooks,
    .GetRuntimeInformation = info_runtime,
    .RequestReJIT = info_request_rejit,
    .GetCodeInfo3 = info_code_info3,
    .GetReJITIDs = info_rejit_ids,
    .GetILToNativeMapping2 = info_map2,
    .SetEventMask2 = info_set_mask2,
    .GetNativeCodeStartAddresses = info_starts,
    .GetCodeInfo4 = info_code_info4,
    .GetModuleInfo2 = info_module_info2,
    .GetILFunctionBodyAllocator = info_allocator,
    .SetILFunctionBody = info_set_body,
    .SetILInstrumentedCodeMap = info_set_map,
    .GetILToNativeMapping3 = info_map3,
    /* argument and static-field reports */
    .GetClassFromObject = info_class_from_object,
    .IsArrayClass = info_is_array,
    .GetCurrentThreadID = info_current_thread,
    .GetClassIDInfo = info_class_id_info,
    .GetThreadContext = info_thread_context,
    .GetFunctionInfo2 = info_function_info2,
    .GetClassLayout = info_class_layout,
    .GetClassIDInfo2 = info_class_id_info2,
    .GetClassFromTokenAndTypeArgs = info_class_from_token,
    .GetArrayObjectInfo = info_array_info,
    .GetBoxClassLayout = info_box_layout,
    .GetThreadAppDomain = info_thread_domain,
    .GetRVAStaticAddress = info_rva_static,
    .GetAppDomainStaticAddress = info_domain_static,
    .GetContextStaticAddress = info_context_static,
    .GetStaticFieldInfo = info_static_info,
    .GetStringLayout2 = info_string_layout,
    .SetEnterLeaveFunctionHooks3WithInfo = info_hooks_info,
    .GetFunctionEnter3Info = info_enter3,
    .GetFunctionLeave3Info = info_leave3,
    .GetThreadStaticAddress2 = info_thread_static2,
    .GetObjectSize2 = info_object_size,
};

/* An IUnknown that has no ICorProfilerInfo4. */
static HRESULT CLR_STDCALL old_qi(IUnknown *self, const IID *riid, void **ppv)
{
    (void)self;
    (void)riid;
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG CLR_STDCALL old_ref(IUnknown *self)
{
    (void)self;
    return 1;
}

static const IUnknownVtbl old_runtime_vtbl = {old_qi, old_ref, old_ref};

/* IMetaDataImport: type Ns.T with methods M, A, B, L; type Ns.P with Hit. */
static int wide_is(const WCHAR *w, const char *s)
{
    while (*s && *w == (WCHAR)(unsigned char)*s) {
        w++;
        s++;
    }
    return *w == 0 && *s == 0;
}

static HRESULT CLR_STDCALL md_qi(IMetaDataImport *self, const IID *riid, void **ppv)
{
    FAULT_HR();
    (void)riid;
    *ppv = self;
    return S_OK;
}

static ULONG CLR_STDCALL md_ref(IMetaDataImport *self)
{
    (void)self;
    return 1;
}

static void CLR_STDCALL md_close(IMetaDataImport *self, HCORENUM e)
{
    (void)self;
    free(e);
}

static HRESULT CLR_STDCALL md_find_type(IMetaDataImport *self, const WCHAR *name, mdToken outer,
                                        mdTypeDef *out)
{
    FAULT_HR();
    (void)self;
    *out = 0;
    if (outer != 0)
        return CLDB_E_RECORD_NOTFOUND;
    if (wide_is(name, "Ns.T"))
        *out = TD_T;
    else if (wide_is(name, "Ns.P"))
        *out = TD_P;
    return *out ? S_OK : CLDB_E_RECORD_NOTFOUND;
}

static HRESULT CLR_STDCALL md_enum_named(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                         const WCHAR *name, mdMethodDef out[], ULONG cap,
                                         ULONG *count)
{
    FAULT_HR();
    (void)self;
    *count = 0;
    if (*e) /* one batch per enumeration */
        return S_FALSE;
    *e = malloc(1); /* the shim must close what it opened (LeakSanitizer) */
    if (cls != TD_T || cap == 0)
        return S_FALSE;
    static const char *const names[] = {"M", "A", "B", "L"};
    for (int i = 0; i < 4; i++)
        if (wide_is(name, names[i])) {
            out[0] = 0x06000001u + (mdMethodDef)i;
            *count = 1;
            return S_OK;
        }
    return S_FALSE;
}

static HRESULT CLR_STDCALL md_find_method(IMetaDataImport *self, mdTypeDef cls,
                                          const WCHAR *name, PCCOR_SIGNATURE sig, ULONG size,
                                          mdMethodDef *out)
{
    FAULT_HR();
    (void)self;
    *out = 0;
    if (cls == TD_P && wide_is(name, "Hit") && size == 3 && sig[0] == 0 && sig[1] == 0 &&
        sig[2] == 1) {
        *out = TOK_HIT;
        return S_OK;
    }
    return CLDB_E_RECORD_NOTFOUND;
}

static HRESULT CLR_STDCALL md_method_props(IMetaDataImport *self, mdMethodDef token,
                                           mdTypeDef *cls, WCHAR *name, ULONG cch, ULONG *pcch,
                                           DWORD *attr, PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                           ULONG *rva, DWORD *impl)
{
    FAULT_HR();
    (void)self;
    static const char *const names[] = {"M", "A", "B", "L"};
    if (token < TOK_M || token > TOK_L)
        return E_INVALIDARG;
    static const uint8_t static_int[] = { 0x00, 0x00, 0x08 }; /* static int32 M() */
    *cls = TD_T;
    *attr = *impl = 0;
    *sig = scenario == SCENARIO_WRAP ? static_int : NULL;
    *sig_size = scenario == SCENARIO_WRAP ? sizeof static_int : 0;
    *rva = 0x2050; /* an IL body: methods without one are not rejitted */
    *pcch = 2;
    return cch >= 2 && !shim_utf8_to_utf16(names[token - TOK_M], name, cch) ? S_OK : E_FAIL;
}

/* One TypeRef, System.Object in the core library's AssemblyRef: where
 * the wrap mode finds the scope of System.Exception. */
#define TR_OBJECT 0x01000001u
#define AR_CORELIB 0x23000001u

static HRESULT CLR_STDCALL md_enum_type_refs(IMetaDataImport *self, HCORENUM *e, mdToken out[],
                                             ULONG cap, ULONG *count)
{
    FAULT_HR();
    (void)self;
    *count = 0;
    if (*e)
        return S_FALSE;
    *e = malloc(1);
    if (cap == 0)
        return S_FALSE;
    out[0] = TR_OBJECT;
    *count = 1;
    return S_OK;
}

static HRESULT CLR_STDCALL md_type_ref_props(IMetaDataImport *self, mdToken tr, mdToken *scope,
                                             WCHAR *name, ULONG cch, ULONG *pcch)
{
    FAULT_HR();
    (void)self;
    if (tr != TR_OBJECT)
        return E_INVALIDARG;
    *scope = AR_CORELIB;
    *pcch = 14;
    return !shim_utf8_to_utf16("System.Object", name, cch) ? S_OK : E_FAIL;
}

static const IMetaDataImportVtbl fake_md_vtbl = {
    .QueryInterface = md_qi,
    .AddRef = md_ref,
    .Release = md_ref,
    .CloseEnum = md_close,
    .EnumTypeRefs = md_enum_type_refs,
    .FindTypeDefByName = md_find_type,
    .GetTypeRefProps = md_type_ref_props,
    .EnumMethodsWithName = md_enum_named,
    .FindMethod = md_find_method,
    .GetMethodProps = md_method_props,
};

/* The emitters of the wrap session: every call recorded as an effect (a
 * reference the shim adds to the module), each can fail. */
static IMetaDataAssemblyEmit fake_assembly_emit;
static unsigned emitted; /* tokens handed out */

static HRESULT CLR_STDCALL emit_qi(IMetaDataEmit *self, const IID *riid, void **ppv)
{
    FAULT_HR();
    (void)self;
    *ppv = NULL;
    if (!shim_guid_equal(riid, &IID_IMetaDataAssemblyEmit))
        return E_NOINTERFACE;
    *ppv = &fake_assembly_emit;
    return S_OK;
}

static ULONG CLR_STDCALL emit_ref(IMetaDataEmit *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL emit_type_ref(IMetaDataEmit *self, mdToken scope, const WCHAR *name,
                                         mdTypeRef *out)
{
    FAULT_HR();
    (void)self;
    *out = 0x01000010u + emitted++;
    effect("define_type_ref", scope, wide_is(name, "System.Exception") ? 1u : 2u);
    return S_OK;
}

static HRESULT CLR_STDCALL emit_member_ref(IMetaDataEmit *self, mdToken parent, const WCHAR *name,
                                           PCCOR_SIGNATURE sig, ULONG size, mdMemberRef *out)
{
    FAULT_HR();
    (void)self;
    *out = 0x0A000010u + emitted++;
    effect("define_member_ref", parent, fnv(sig, size) ^ (wide_is(name, "Begin") ? 1u : 2u));
    return S_OK;
}

static HRESULT CLR_STDCALL emit_sig(IMetaDataEmit *self, PCCOR_SIGNATURE sig, ULONG size,
                                    mdSignature *out)
{
    FAULT_HR();
    (void)self;
    *out = 0x11000010u + emitted++;
    effect("token_from_sig", size, fnv(sig, size));
    return S_OK;
}

static HRESULT CLR_STDCALL emit_type_spec(IMetaDataEmit *self, PCCOR_SIGNATURE sig, ULONG size,
                                          mdTypeSpec *out)
{
    FAULT_HR();
    (void)self;
    *out = 0x1B000010u + emitted++;
    effect("token_from_type_spec", size, fnv(sig, size));
    return S_OK;
}

static const IMetaDataEmitVtbl fake_emit_vtbl = {
    .QueryInterface = emit_qi,
    .AddRef = emit_ref,
    .Release = emit_ref,
    .DefineTypeRefByName = emit_type_ref,
    .DefineMemberRef = emit_member_ref,
    .GetTokenFromSig = emit_sig,
    .GetTokenFromTypeSpec = emit_type_spec,
};

static ULONG CLR_STDCALL assembly_emit_ref(IMetaDataAssemblyEmit *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL assembly_emit_ref_def(IMetaDataAssemblyEmit *self, const void *key,
                                                 ULONG key_size, const WCHAR *name,
                                                 const ASSEMBLYMETADATA *meta, const void *hash,
                                                 ULONG hash_size, DWORD flags,
                                                 mdAssemblyRef *out)
{
    FAULT_HR();
    (void)self;
    (void)key;
    (void)meta;
    (void)hash;
    *out = 0x23000010u + emitted++;
    effect("define_assembly_ref", key_size + hash_size + flags, wide_is(name, "Hooks") ? 1u : 2u);
    return S_OK;
}

static const IMetaDataAssemblyEmitVtbl fake_assembly_emit_vtbl = {
    .AddRef = assembly_emit_ref,
    .Release = assembly_emit_ref,
    .DefineAssemblyRef = assembly_emit_ref_def,
};

/* ------------------------------------------------------------------ */
/* Namespace selectors against a second fake metadata scope             */

/* Types: Sys.Coll.List (methods Add, Get, Add), its nested Enumerator (2),
 * Sys.CollX.Other (1, outside the prefix), Sys.Coll.Generic.Dict (300:
 * more than the old per-type cap of 256), Top (no namespace, 1). */
#define NS_TYPES 5
static const struct ns_type {
    mdTypeDef td;
    const char *name;
    mdTypeDef enclosing;
    mdMethodDef first;
    ULONG methods;
} ns_types[NS_TYPES] = {
    {0x02000002u, "Sys.Coll.List", 0, 0x06000001u, 3},
    {0x02000003u, "Enumerator", 0x02000002u, 0x06000010u, 2},
    {0x02000004u, "Sys.CollX.Other", 0, 0x06000020u, 1},
    {0x02000005u, "Sys.Coll.Generic.Dict", 0, 0x06000100u, 300},
    {0x02000006u, "Top", 0, 0x06000030u, 1},
};

static const struct ns_type *ns_type_of(mdTypeDef td)
{
    for (size_t i = 0; i < NS_TYPES; i++)
        if (ns_types[i].td == td)
            return &ns_types[i];
    return NULL;
}

static int ns_is_add(mdMethodDef t)
{
    return t == 0x06000001u || t == 0x06000003u || t == 0x06000100u;
}

/* The enumerator is a heap cursor, freed by md_close. */
static HRESULT ns_next(HCORENUM *e, ULONG limit, ULONG cap, ULONG *count, ULONG *from)
{
    if (!*e) {
        *e = calloc(1, sizeof(ULONG));
        if (!*e)
            return E_OUTOFMEMORY;
    }
    ULONG *at = *e;
    *from = *at;
    *count = limit - *at < cap ? limit - *at : cap;
    *at += *count;
    return *count ? S_OK : S_FALSE;
}

static HRESULT CLR_STDCALL ns_enum_types(IMetaDataImport *self, HCORENUM *e, mdTypeDef out[],
                                         ULONG cap, ULONG *count)
{
    (void)self;
    ULONG from = 0;
    HRESULT hr = ns_next(e, NS_TYPES, cap, count, &from);
    for (ULONG i = 0; i < *count; i++)
        out[i] = ns_types[from + i].td;
    return hr;
}

static HRESULT CLR_STDCALL ns_enum_methods(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                           mdMethodDef out[], ULONG cap, ULONG *count)
{
    (void)self;
    const struct ns_type *t = ns_type_of(cls);
    ULONG from = 0;
    HRESULT hr = ns_next(e, t ? t->methods : 0, cap, count, &from);
    for (ULONG i = 0; i < *count; i++)
        out[i] = t->first + from + i;
    return hr;
}

static HRESULT CLR_STDCALL ns_enum_named(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                         const WCHAR *name, mdMethodDef out[], ULONG cap,
                                         ULONG *count)
{
    /* Filtered as the runtime does: every chunk holds matches only. */
    *count = 0;
    while (*count < cap) {
        mdMethodDef one = 0;
        ULONG n = 0;
        if (ns_enum_methods(self, e, cls, &one, 1, &n) != S_OK || n == 0)
            break;
        if (wide_is(name, "Add") && ns_is_add(one))
            out[(*count)++] = one;
    }
    return *count ? S_OK : S_FALSE;
}

static HRESULT CLR_STDCALL ns_find_type(IMetaDataImport *self, const WCHAR *name, mdToken outer,
                                        mdTypeDef *out)
{
    (void)self;
    *out = 0;
    for (size_t i = 0; i < NS_TYPES; i++)
        if (ns_types[i].enclosing == outer && wide_is(name, ns_types[i].name))
            *out = ns_types[i].td;
    return *out ? S_OK : E_FAIL;
}

static HRESULT CLR_STDCALL ns_type_props(IMetaDataImport *self, mdTypeDef td, WCHAR *name,
                                         ULONG cch, ULONG *pcch, DWORD *flags, mdToken *extends)
{
    (void)self;
    const struct ns_type *t = ns_type_of(td);
    if (!t)
        return E_INVALIDARG;
    *flags = 0;
    *extends = 0;
    *pcch = (ULONG)strlen(t->name) + 1;
    return cch >= *pcch && !shim_utf8_to_utf16(t->name, name, cch) ? S_OK : E_FAIL;
}

static HRESULT CLR_STDCALL ns_nested(IMetaDataImport *self, mdTypeDef td, mdTypeDef *enclosing)
{
    (void)self;
    const struct ns_type *t = ns_type_of(td);
    *enclosing = t ? t->enclosing : 0;
    return t && t->enclosing ? S_OK : E_FAIL;
}

static const IMetaDataImportVtbl ns_md_vtbl = {
    .QueryInterface = md_qi,
    .AddRef = md_ref,
    .Release = md_ref,
    .CloseEnum = md_close,
    .EnumTypeDefs = ns_enum_types,
    .FindTypeDefByName = ns_find_type,
    .GetTypeDefProps = ns_type_props,
    .EnumMethods = ns_enum_methods,
    .EnumMethodsWithName = ns_enum_named,
    .GetNestedClassProps = ns_nested,
};

static size_t resolved(const char *methods)
{
    IMetaDataImport md = {&ns_md_vtbl};
    shim_selection s;
    shim_found_list found = {NULL, 0, 0};
    size_t n = (size_t)-1;
    if (shim_selection_parse(methods, NULL, NULL, NULL, &s) == 0) {
        if (shim_resolve_all(&md, &s, &found) == 0)
            n = found.count;
        shim_found_list_free(&found);
        shim_selection_free(&s);
    }
    return n;
}

static void namespaces(void)
{
    CHECK(resolved("Sys.Coll.*::*") == 3 + 2 + 300);
    CHECK(resolved("Sys.*::*") == 3 + 2 + 1 + 300);
    CHECK(resolved("Sys.Coll.Generic.*::*") == 300);
    CHECK(resolved("Sys.Col.*::*") == 0);
    CHECK(resolved("Sys.Coll.*::Add") == 3);
    CHECK(resolved("Sys.Coll.Generic.Dict::*") == 300);
    CHECK(resolved("Sys.Coll.List+Enumerator::*") == 2);
    CHECK(resolved("Sys.Coll.*::*;Sys.Coll.Generic.*::*") == 305 + 300);
    IMetaDataImport md = {&ns_md_vtbl};
    char name[64];
    shim_type_full_name(&md, 0x02000003u, name, sizeof name);
    CHECK(strcmp(name, "Sys.Coll.List+Enumerator") == 0);
    shim_type_full_name(&md, 0x02000006u, name, sizeof name);
    CHECK(strcmp(name, "Top") == 0);
    shim_type_full_name(&md, 0x02000009u, name, sizeof name);
    CHECK(strcmp(name, "?") == 0);
}

/* ICorProfilerFunctionControl: records what the shim sets. */
static HRESULT CLR_STDCALL fc_qi(ICorProfilerFunctionControl *self, const IID *riid, void **ppv)
{
    FAULT_HR();
    (void)self;
    (void)riid;
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG CLR_STDCALL fc_ref(ICorProfilerFunctionControl *self)
{
    (void)self;
    return 1;
}

static HRESULT CLR_STDCALL fc_flags(ICorProfilerFunctionControl *self, DWORD flags)
{
    FAULT_HR();
    (void)self;
    (void)flags;
    return S_OK;
}

static HRESULT CLR_STDCALL fc_body(ICorProfilerFunctionControl *self, ULONG size, LPCBYTE body)
{
    FAULT_HR();
    (void)self;
    if (!size || !body || size > sizeof fake.body)
        return E_INVALIDARG;
    memcpy(fake.body, body, size); /* it copies, as the runtime does */
    fake.body_size = size;
    effect("rejit_body", params_token, fnv(body, size));
    return S_OK;
}

static HRESULT CLR_STDCALL fc_map(ICorProfilerFunctionControl *self, ULONG n, COR_IL_MAP map[])
{
    FAULT_HR();
    (void)self;
    if (n > 64)
        return E_INVALIDARG;
    memcpy(fake.il_map, map, n * sizeof *map);
    fake.il_map_count = n;
    fake.map_set = 1;
    effect("rejit_map", params_token, fnv(map, n * sizeof *map));
    return S_OK;
}

static const ICorProfilerFunctionControlVtbl fake_fc_vtbl = {fc_qi, fc_ref, fc_ref, fc_flags,
                                                             fc_body, fc_map};

/* The export the runtime would give for a body with `count` instructions:
 * a prolog, one range per instruction at IL il[i], an epilog. */
static void make_version(fake_version *v, mdMethodDef token, ReJITID rejit,
                         const uint32_t *il, size_t count)
{
    memset(v, 0, sizeof *v);
    v->token = token;
    v->function = 0x5000 + (token - 0x06000000u);
    v->rejit = rejit;
    v->start = 0x100000u * (token - 0x06000000u);
    uint32_t at = 0;
    v->map[v->count++] = (COR_DEBUG_IL_TO_NATIVE_MAP){CLR_PROLOG, 0, 4};
    at = 4;
    for (size_t i = 0; i < count && v->count < 31; i++, at += 8)
        v->map[v->count++] = (COR_DEBUG_IL_TO_NATIVE_MAP){il[i], at, at + 8};
    v->map[v->count++] = (COR_DEBUG_IL_TO_NATIVE_MAP){CLR_EPILOG, at, at + 4};
    v->code_size = at + 4;
}

/* The session's CHECKs hold without faults; under faults the callbacks
 * run all the same and their answers are not checked (the fault tests
 * check what the shim did to the runtime instead). */
#define EXPECT(c)                                                                          \
    do {                                                                                   \
        if (fault_at || scenario != SCENARIO_NORMAL)                                       \
            (void)(c);                                                                     \
        else                                                                               \
            CHECK(c);                                                                      \
    } while (0)



static int rejit_session(ICorProfilerCallback4 *cb, const char *report, const char *frames)
{
    IUnknown old = {&old_runtime_vtbl};
    EXPECT(cb->lpVtbl->Initialize(cb, &old) == E_FAIL); /* no Info4: not profiling */

    fake.info.lpVtbl = &fake_info_vtbl;
    fake.md.lpVtbl = &fake_md_vtbl;
    setenv("ILMAP_SHIM_METHODS", "Ns.T::M;Ns.Missing::X", 1);
    setenv("ILMAP_SHIM_TWINS", "Ns.T::A=Ns.T::B", 1);
    setenv("ILMAP_SHIM_LATE", "Ns.T::L", 1);
    setenv("ILMAP_SHIM_PROBE", "Ns.P::Hit", 1);
    setenv("ILMAP_SHIM_REPORT", report, 1);
    setenv("ILMAP_SHIM_FRAMES", frames, 1);
    if (scenario == SCENARIO_BAD_SETTINGS) {
        setenv("ILMAP_SHIM_METHODS", "Ns.T::M;garbage;::;Ns.T::;Ns.Missing::X;;", 1);
        setenv("ILMAP_SHIM_WAIT_MS", "-5", 1);
        setenv("ILMAP_SHIM_VERBOSE", "99999999999999999999", 1);
        setenv("ILMAP_SHIM_KEEP_TIERING", " 1", 1);
        setenv("ILMAP_SHIM_DISABLE_NGEN", "010x", 1);
        setenv("ILMAP_SHIM_REPORT", "/nonexistent-dir/report.jsonl", 1);
        setenv("ILMAP_SHIM_FRAMES", "/nonexistent-dir/frames", 1);
    }
    EXPECT(cb->lpVtbl->Initialize(cb, (IUnknown *)(void *)&fake.info) == S_OK);
    DWORD want = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS |
                 COR_PRF_ENABLE_REJIT | COR_PRF_DISABLE_INLINING;
    EXPECT((fake.mask & want) == want);
    EXPECT(fake.mask_high == COR_PRF_HIGH_DISABLE_TIERED_COMPILATION);

    /* Module load: M, A, B requested at once (L waits for its first JIT). */
    EXPECT(cb->lpVtbl->ModuleLoadFinished(cb, MODULE, S_OK) == S_OK);
    EXPECT(atomic_load(&fake.rejit_calls) == 1);
    EXPECT(fake.rejit_tokens == 3);
    EXPECT(cb->lpVtbl->JITCompilationFinished(cb, 0x5004, S_OK, 1) == S_OK);
    EXPECT(atomic_load(&fake.rejit_calls) == 2);
    EXPECT(fake.rejit_tokens == 4 && fake.requested[3] == TOK_L);
    EXPECT(cb->lpVtbl->JITCompilationFinished(cb, 0x5004, S_OK, 1) == S_OK);
    EXPECT(atomic_load(&fake.rejit_calls) == 2); /* once only */

    int compiles = scenario == SCENARIO_NORMAL || scenario == SCENARIO_BAD_SETTINGS;
    if (scenario == SCENARIO_UNLOAD_PENDING) /* before any ReJIT compiled */
        EXPECT(cb->lpVtbl->ModuleUnloadStarted(cb, MODULE) == S_OK);

    ICorProfilerFunctionControl control = {&fake_fc_vtbl};
    uint32_t old_il[16] = {0}, new_il[16] = {0};
    size_t n = 0;
    const mdMethodDef order[] = {TOK_M, TOK_A, TOK_B};
    for (size_t k = 0; k < 3 && compiles; k++) {
        memset(&fake.body, 0, sizeof fake.body);
        fake.map_set = 0;
        params_token = order[k];
        EXPECT(cb->lpVtbl->GetReJITParameters(cb, MODULE, order[k], &control) == S_OK);
        EXPECT(fake.body_size > sizeof tiny_body);
        EXPECT(fake.map_set == (order[k] != TOK_B)); /* the unmapped twin gets no map */
        if (order[k] == TOK_A) {
            n = fake.il_map_count < 16 ? fake.il_map_count : 16;
            for (size_t i = 0; i < n; i++) {
                old_il[i] = fake.il_map[i].oldOffset;
                new_il[i] = fake.il_map[i].newOffset;
            }
        }
    }
    EXPECT(n == 6 || !compiles);
    /* The runtime's exports: original coordinates with a map, instrumented
     * ones without; same native layout for the twins. */
    make_version(&fake.versions[0], TOK_M, 2, old_il, n);
    make_version(&fake.versions[1], TOK_A, 3, old_il, n);
    make_version(&fake.versions[2], TOK_B, 4, new_il, n);
    if (compiles) {
        EXPECT(cb->lpVtbl->ReJITCompilationStarted(cb, 0x5001, 2, 1) == S_OK);
        EXPECT(cb->lpVtbl->ReJITCompilationFinished(cb, 0x5001, 2, S_OK, 1) == S_OK);
        EXPECT(cb->lpVtbl->ReJITCompilationFinished(cb, 0x5002, 3, S_OK, 1) == S_OK);
        EXPECT(cb->lpVtbl->ReJITCompilationFinished(cb, 0x5003, 4, S_OK, 1) == S_OK);
    }
    /* A function that is not ours, and a failed compilation: ignored. */
    EXPECT(cb->lpVtbl->ReJITCompilationFinished(cb, 0x9999, 5, S_OK, 1) == S_OK);
    /* The progress queries a program under the shim calls: every queued
     * request made; one body read of M's ReJIT version; no such method. */
    /* (no deadline that a busy machine could miss: the test's own
     * timeout is the backstop) */
    EXPECT(shim_progress_wait_rejits(0xFFFFFFFFu) == 1);
    EXPECT(shim_progress_most_bodies("Ns.T::M") == (compiles ? 1 : 0));
    EXPECT(shim_progress_most_bodies("Ns.T::Nothing") == -1);
    EXPECT(shim_progress_most_bodies(NULL) == -1);

    /* Frames as the program records them: M's instruction 2 covers native
     * [20, 28); a return address of 25 is looked up at 24. */
    FILE *f = fopen(frames, "w");
    EXPECT(f != NULL);
    if (f) {
        fprintf(f, "06000001 25 %u Ns.T::M\n", old_il[2]);
        fprintf(f, "06000001 5 %u Ns.T::M\n", old_il[0]);
        fprintf(f, "06000077 5 0 Other::Method\n"); /* not ours: skipped */
        /* Naming the module (doc/shim.md#frames): M's, then another's,
         * whose M the shim has not selected (skipped). */
        fprintf(f, "06000001 25 %u Ns.T::M 0 0 0 \t\tfake.dll\n", old_il[2]);
        fprintf(f, "06000001 25 %u Ns.T::M 0 0 0 \t\tother.dll\n", old_il[2]);
        fprintf(f, "garbage\n");
        fclose(f);
    }
    /* A second, collectible module: its methods are selected but not
     * rejitted (the runtime would ignore it); one is instrumented at its
     * JITCompilationStarted and compiled (original version, under the
     * map), and the module unloads: its body and IL map leave the store,
     * its records the registry. */
    int rejit_calls = atomic_load(&fake.rejit_calls);
    EXPECT(cb->lpVtbl->ModuleLoadFinished(cb, MODULE2, S_OK) == S_OK);
    EXPECT(atomic_load(&fake.rejit_calls) == rejit_calls);
    EXPECT(cb->lpVtbl->JITCompilationStarted(cb, 0x6001, 1) == S_OK);
    EXPECT(jit_body_set && jit_map_count == n);
    make_version(&fake.versions[3], TOK_M, 0, old_il, n);
    fake.versions[3].function = 0x6001;
    fake.versions[3].start = 0x900000u;
    EXPECT(cb->lpVtbl->JITCompilationFinished(cb, 0x6001, S_OK, 1) == S_OK);
    EXPECT(cb->lpVtbl->ModuleUnloadStarted(cb, MODULE2) == S_OK);
    /* Unloads of a module the shim never selected from, and of module 0:
     * nothing of MODULE goes (checks c and c_store still find it). */
    EXPECT(cb->lpVtbl->ModuleUnloadStarted(cb, 0x7777) == S_OK);
    EXPECT(cb->lpVtbl->ModuleUnloadStarted(cb, 0) == S_OK);
    EXPECT(cb->lpVtbl->Shutdown(cb) == S_OK);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Argument and static-field reports against the fake object world    */

/* W.Item::Run's signature as the metadata hands it: good, or hostile
 * (SCENARIO_ARGS_SIG_*). */
static uint8_t deep_sig[3 + 400 + 1];
static void run_signature(PCCOR_SIGNATURE *sig, ULONG *size)
{
    static const uint8_t malformed[] = {0x20, 0x02, 0x08, 0x3F, 0x0E}; /* no element 0x3F */
    static const uint8_t empty[] = {0x00};
    switch (scenario) {
    case SCENARIO_ARGS_SIG_TRUNCATED: /* cut inside the ARRAY shape */
        *sig = run_sig;
        *size = 9;
        return;
    case SCENARIO_ARGS_SIG_MALFORMED:
        *sig = malformed;
        *size = sizeof malformed;
        return;
    case SCENARIO_ARGS_SIG_DEEP: /* static int f(int[][]...[]), 400 levels deep */
        deep_sig[0] = 0x00;
        deep_sig[1] = 0x01;
        deep_sig[2] = 0x08;
        memset(deep_sig + 3, 0x1D, 400);
        deep_sig[3 + 400] = 0x08;
        *sig = deep_sig;
        *size = sizeof deep_sig;
        return;
    case SCENARIO_ARGS_SIG_EMPTY:
        *sig = empty;
        *size = 0;
        return;
    default:
        *sig = run_sig;
        *size = sizeof run_sig;
        return;
    }
}

static HRESULT w_next(HCORENUM *e, ULONG limit, ULONG cap, ULONG *count, ULONG *from)
{
    *count = 0;
    if (!*e) {
        *e = __real_calloc(1, sizeof(ULONG)); /* the fake's own: never fails */
        if (!*e)
            return E_OUTOFMEMORY;
    }
    ULONG *at = *e;
    *from = *at;
    *count = limit - *at < cap ? limit - *at : cap;
    *at += *count;
    return *count ? S_OK : S_FALSE;
}

/* A name copied into a caller's buffer as the runtime does: truncated
 * to cch (terminated), the full length in *pcch. */
static HRESULT w_name(const char *s, WCHAR *out, ULONG cch, ULONG *pcch)
{
    ULONG n = (ULONG)strlen(s);
    if (pcch)
        *pcch = n + 1;
    if (!out || !cch)
        return S_OK;
    ULONG k = n < cch - 1 ? n : cch - 1;
    for (ULONG i = 0; i < k; i++)
        out[i] = (WCHAR)(unsigned char)s[i];
    out[k] = 0;
    return S_OK;
}

static HRESULT CLR_STDCALL w_enum_typedefs(IMetaDataImport *self, HCORENUM *e, mdTypeDef out[],
                                           ULONG cap, ULONG *count)
{
    FAULT_HR();
    (void)self;
    ULONG from = 0;
    HRESULT hr = w_next(e, W_TYPES, cap, count, &from);
    for (ULONG i = 0; i < *count; i++)
        out[i] = w_types[from + i].td;
    return hr;
}

static HRESULT CLR_STDCALL w_find_type(IMetaDataImport *self, const WCHAR *name, mdToken outer,
                                       mdTypeDef *out)
{
    FAULT_HR();
    (void)self;
    *out = 0;
    for (size_t i = 0; i < W_TYPES && !outer; i++)
        if (wide_is(name, w_types[i].name))
            *out = w_types[i].td;
    return *out ? S_OK : CLDB_E_RECORD_NOTFOUND;
}

static HRESULT CLR_STDCALL w_typedef_props(IMetaDataImport *self, mdTypeDef td, WCHAR *name,
                                           ULONG cch, ULONG *pcch, DWORD *flags,
                                           mdToken *extends)
{
    FAULT_HR();
    (void)self;
    const struct w_type *t = w_type_of_td(td);
    if (!t)
        return CLDB_E_RECORD_NOTFOUND;
    if (flags)
        *flags = t->value_type ? 0x0100 /* sealed */ : 0;
    if (extends)
        *extends = t->extends;
    return w_name(t->name, name, cch, pcch);
}

static HRESULT CLR_STDCALL w_typeref_props(IMetaDataImport *self, mdToken tr, mdToken *scope,
                                           WCHAR *name, ULONG cch, ULONG *pcch)
{
    FAULT_HR();
    (void)self;
    (void)tr;
    (void)scope;
    (void)name;
    (void)cch;
    (void)pcch;
    return CLDB_E_RECORD_NOTFOUND; /* the world has no TypeRefs */
}

static HRESULT CLR_STDCALL w_nested(IMetaDataImport *self, mdTypeDef td, mdTypeDef *enclosing)
{
    FAULT_HR();
    (void)self;
    (void)td;
    *enclosing = 0;
    return CLDB_E_RECORD_NOTFOUND;
}

static HRESULT CLR_STDCALL w_enum_named(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                        const WCHAR *name, mdMethodDef out[], ULONG cap,
                                        ULONG *count)
{
    FAULT_HR();
    (void)self;
    ULONG from = 0;
    int hit = cls == W_ITEM && wide_is(name, "Run");
    HRESULT hr = w_next(e, hit ? 1 : 0, cap, count, &from);
    if (*count)
        out[0] = TOK_RUN;
    return hr;
}

static HRESULT CLR_STDCALL w_enum_methods(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                          mdMethodDef out[], ULONG cap, ULONG *count)
{
    FAULT_HR();
    (void)self;
    ULONG from = 0;
    HRESULT hr = w_next(e, cls == W_ITEM ? 1 : 0, cap, count, &from);
    if (*count)
        out[0] = TOK_RUN;
    return hr;
}

static HRESULT CLR_STDCALL w_method_props(IMetaDataImport *self, mdMethodDef token,
                                          mdTypeDef *cls, WCHAR *name, ULONG cch, ULONG *pcch,
                                          DWORD *attr, PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                          ULONG *rva, DWORD *impl)
{
    FAULT_HR();
    (void)self;
    if (token != TOK_RUN)
        return CLDB_E_RECORD_NOTFOUND;
    *cls = W_ITEM;
    *attr = 0x0006;
    *impl = 0;
    *rva = 0x2050;
    run_signature(sig, sig_size);
    return w_name("Run", name, cch, pcch);
}

static HRESULT CLR_STDCALL w_enum_fields(IMetaDataImport *self, HCORENUM *e, mdTypeDef cls,
                                         mdFieldDef out[], ULONG cap, ULONG *count)
{
    FAULT_HR();
    (void)self;
    mdFieldDef mine[W_FIELDS];
    ULONG n = 0, from = 0;
    for (size_t i = 0; i < W_FIELDS; i++)
        if (w_fields[i].owner == cls)
            mine[n++] = w_fields[i].fd;
    HRESULT hr = w_next(e, n, cap, count, &from);
    for (ULONG i = 0; i < *count; i++)
        out[i] = mine[from + i];
    return hr;
}

static HRESULT CLR_STDCALL w_field_props(IMetaDataImport *self, mdFieldDef fd, mdTypeDef *cls,
                                         WCHAR *name, ULONG cch, ULONG *pcch, DWORD *attr,
                                         PCCOR_SIGNATURE *sig, ULONG *sig_size,
                                         DWORD *elem_type, const void **value, ULONG *value_len)
{
    FAULT_HR();
    (void)self;
    const struct w_field *f = w_field_of(fd);
    if (!f)
        return CLDB_E_RECORD_NOTFOUND;
    /* Hostile field signatures: s cut short, a with no such element, t
     * not a field signature at all. */
    static const uint8_t cut[] = {0x06}, bad[] = {0x06, 0x3F}, local[] = {0x07, 0x01, 0x0E};
    *cls = f->owner;
    *attr = f->attr;
    *sig = f->sig;
    *sig_size = f->sig_size;
    if (scenario == SCENARIO_ARGS_FIELD_SIGS && fd == F_S) {
        *sig = cut;
        *sig_size = sizeof cut;
    } else if (scenario == SCENARIO_ARGS_FIELD_SIGS && fd == F_A) {
        *sig = bad;
        *sig_size = sizeof bad;
    } else if (scenario == SCENARIO_ARGS_FIELD_SIGS && fd == F_T) {
        *sig = local;
        *sig_size = sizeof local;
    }
    if (elem_type)
        *elem_type = 0;
    if (value)
        *value = NULL;
    if (value_len)
        *value_len = 0;
    return w_name(f->name, name, cch, pcch);
}

static HRESULT CLR_STDCALL w_custom_attr(IMetaDataImport *self, mdToken owner,
                                         const WCHAR *name, const void **data, ULONG *size)
{
    FAULT_HR();
    (void)self;
    static const uint8_t blob[] = {0x01, 0x00, 0x00, 0x00};
    *data = NULL;
    *size = 0;
    if ((owner == F_T && wide_is(name, "System.ThreadStaticAttribute")) ||
        (owner == F_C && wide_is(name, "System.ContextStaticAttribute"))) {
        *data = blob;
        *size = sizeof blob;
        return S_OK;
    }
    return S_FALSE;
}

static HRESULT CLR_STDCALL w_md_class_layout(IMetaDataImport *self, mdTypeDef td, DWORD *pack,
                                             COR_FIELD_OFFSET offsets[], ULONG cap,
                                             ULONG *total, ULONG *size)
{
    FAULT_HR();
    (void)self;
    (void)offsets;
    (void)cap;
    if (td != W_BLOB) /* the only type with a ClassLayout row */
        return CLDB_E_RECORD_NOTFOUND;
    *pack = 1;
    *total = 0;
    *size = sizeof static_r;
    return S_OK;
}

static const IMetaDataImportVtbl args_md_vtbl = {
    .QueryInterface = md_qi,
    .AddRef = md_ref,
    .Release = md_ref,
    .CloseEnum = md_close,
    .EnumTypeDefs = w_enum_typedefs,
    .FindTypeDefByName = w_find_type,
    .GetTypeDefProps = w_typedef_props,
    .GetTypeRefProps = w_typeref_props,
    .EnumMethods = w_enum_methods,
    .EnumMethodsWithName = w_enum_named,
    .EnumFields = w_enum_fields,
    .GetMethodProps = w_method_props,
    .GetClassLayout = w_md_class_layout,
    .GetFieldProps = w_field_props,
    .GetCustomAttributeByName = w_custom_attr,
    .GetNestedClassProps = w_nested,
};

/* Initialize with ILMAP_SHIM_ARGS and ILMAP_SHIM_STATICS, the module
 * load, the JIT compilation that asks the FunctionIDMapper, one call of
 * W.Item::Run (enter, leave), Shutdown. */
static int args_session(ICorProfilerCallback4 *cb, const char *report, const char *frames)
{
    w_build();
    fake.info.lpVtbl = &fake_info_vtbl;
    args_md.lpVtbl = &args_md_vtbl;
    unsetenv("ILMAP_SHIM_METHODS");
    unsetenv("ILMAP_SHIM_TWINS");
    unsetenv("ILMAP_SHIM_LATE");
    unsetenv("ILMAP_SHIM_PROBE");
    setenv("ILMAP_SHIM_ARGS", "W.Item::Run", 1);
    setenv("ILMAP_SHIM_STATICS", "W.Stat", 1);
    setenv("ILMAP_SHIM_ELT_MAX", "16", 1); /* a small mapper: a fast child */
    setenv("ILMAP_SHIM_REPORT", report, 1);
    setenv("ILMAP_SHIM_FRAMES", frames, 1);
    alloc_armed = 1;
    EXPECT(cb->lpVtbl->Initialize(cb, (IUnknown *)(void *)&fake.info) == S_OK);
    EXPECT(fake.enter_info && fake.leave_info && fake.mapper);
    EXPECT(cb->lpVtbl->ModuleLoadFinished(cb, MODULE3, S_OK) == S_OK);
    EXPECT(cb->lpVtbl->JITCompilationStarted(cb, FN_RUN, 1) == S_OK);
    BOOL hook = 0;
    UINT_PTR id = fake.mapper ? fake.mapper(FN_RUN, fake.mapper_data, &hook) : 0;
    EXPECT(hook == 1 || scenario != SCENARIO_ARGS);
    EXPECT(cb->lpVtbl->JITCompilationFinished(cb, FN_RUN, S_OK, 1) == S_OK);
    /* The runtime calls the hooks of a hooked function only. */
    if (hook && fake.enter_info && fake.leave_info) {
        FunctionIDOrClientID client = {0};
        client.clientID = id;
        fake.enter_info(client, ELT_HANDLE);
        fake.leave_info(client, ELT_HANDLE);
    }
    EXPECT(cb->lpVtbl->Shutdown(cb) == S_OK);
    alloc_armed = 0;
    return 0;
}

/* The wrap mode (ILMAP_SHIM_WRAP): M selected, hooks in another
 * assembly. At its module's load the shim makes its references (every
 * emitter call an effect) and requests M's ReJIT; GetReJITParameters
 * hands the runtime M wrapped: a fat body with the four added clauses and
 * the new LocalVarSig, and its map. */
static int wrap_session(ICorProfilerCallback4 *cb, const char *report)
{
    fake.info.lpVtbl = &fake_info_vtbl;
    fake.md.lpVtbl = &fake_md_vtbl;
    fake_emit.lpVtbl = &fake_emit_vtbl;
    fake_assembly_emit.lpVtbl = &fake_assembly_emit_vtbl;
    unsetenv("ILMAP_SHIM_METHODS");
    unsetenv("ILMAP_SHIM_TWINS");
    unsetenv("ILMAP_SHIM_LATE");
    unsetenv("ILMAP_SHIM_PROBE");
    unsetenv("ILMAP_SHIM_FRAMES");
    setenv("ILMAP_SHIM_WRAP", "Ns.T::M", 1);
    setenv("ILMAP_SHIM_WRAP_HOOKS", "[Hooks]Ns.Hooks", 1);
    setenv("ILMAP_SHIM_REPORT", report, 1);
    alloc_armed = 1;
    EXPECT(cb->lpVtbl->Initialize(cb, (IUnknown *)(void *)&fake.info) == S_OK);
    EXPECT(cb->lpVtbl->ModuleLoadFinished(cb, MODULE, S_OK) == S_OK);
    EXPECT(atomic_load(&fake.rejit_calls) == 1 && fake.rejit_tokens == 1);
    ICorProfilerFunctionControl control = {&fake_fc_vtbl};
    memset(&fake.body, 0, sizeof fake.body);
    fake.body_size = 0;
    fake.map_set = 0;
    params_token = TOK_M;
    EXPECT(cb->lpVtbl->GetReJITParameters(cb, MODULE, TOK_M, &control) == S_OK);
    ilmap_il_body b;
    memset(&b, 0, sizeof b);
    EXPECT(fake.body_size && ilmap_il_body_parse(fake.body, fake.body_size, &b) == ILMAP_OK);
    EXPECT(b.header_size == 12 && b.eh_count == 4 && (b.local_sig >> 24) == 0x11u);
    EXPECT(fake.map_set && fake.il_map_count == 2); /* tiny_body: two instructions */
    EXPECT(cb->lpVtbl->Shutdown(cb) == S_OK);
    alloc_armed = 0;
    unsetenv("ILMAP_SHIM_WRAP");
    unsetenv("ILMAP_SHIM_WRAP_HOOKS");
    return 0;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static void check_report(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    CHECK(count_of(text, "\"ok\":false") == 0);
    if (count_of(text, "\"ok\":false"))
        fprintf(stderr, "%s\n", text);
    CHECK(count_of(text, "\"type\":\"summary\"") == 1);
    CHECK(count_of(text, "\"check\":\"a\",") == 3 * 6); /* M and A; MODULE2 M at JIT time */
    CHECK(count_of(text, "\"check\":\"a_unmapped\",") == 6);     /* B */
    CHECK(count_of(text, "\"check\":\"b\",") == 8);              /* prolog, 6, epilog */
    CHECK(count_of(text, "\"check\":\"c\",") == 3);
    CHECK(count_of(text, "\"module_named\":2,\"module_needed\":0,") == 1);
    CHECK(count_of(text, "\"check\":\"store_add\",") == 3); /* M, A, B */
    CHECK(count_of(text, "\"check\":\"c_store\",") == 3);
    CHECK(count_of(text, "\"check\":\"protocol_truncate\",") == 4);
    CHECK(count_of(text, "\"check\":\"spec4_rejitid_ignored\",") == 3);
    CHECK(count_of(text, "\"event\":\"rejit_requested_late\"") == 1);
    CHECK(count_of(text, "\"methods_selected\":4") == 1);
    CHECK(count_of(text, "\"modules_unloaded\":2,") == 1);
    CHECK(count_of(text, "\"methods_unloaded\":4,") == 1);
    CHECK(count_of(text, "\"check\":\"store_body\",\"ok\":true") == 1);
    CHECK(count_of(text, "\"check\":\"unload_removed\",\"ok\":true") == 1); /* MODULE2 only */
    CHECK(count_of(text, "\"check\":\"unload_stats\",\"ok\":true") == 1);
    CHECK(count_of(text, "\"check\":\"unload_lookup\",\"ok\":true") == 1);
    CHECK(count_of(text, "\"instrumented\":1,\"functions\":1,\"versions\":0,\"bodies\":1,"
                         "\"il_maps\":1") == 1);
    CHECK(count_of(text, "\"check\":\"store_final\",\"ok\":true") == 1);
    CHECK(count_of(text, "Ns.T::A") > 0);
}

/* ------------------------------------------------------------------ */
/* Enter/leave hooks and libilmap's FunctionIDMapper, against the fake  */

static char *read_text(const char *path)
{
    static char text[1 << 16];
    FILE *f = fopen(path, "r");
    text[0] = '\0';
    if (f) {
        size_t len = fread(text, 1, sizeof text - 1, f);
        text[len] = '\0';
        fclose(f);
    }
    return text;
}

#if defined(__x86_64__) && !defined(_WIN32)
/* test/clr/elt_probe_x86_64_sysv.S */
void elt_probe(FunctionEnter3 *stub, uintptr_t id, const uint64_t in[73], uint64_t out[73],
               int ymm);

/* Calls stub as JIT-compiled code would, every scratch register (and
 * every vector register, whole) holding a pattern; the stub, counting
 * into the real table, must hand all of them back unchanged. */
static void stub_call(FunctionEnter3 *stub, UINT_PTR id)
{
    static uint64_t seed = 0x9E3779B97F4A7C15u;
    uint64_t in[73], out[73];
    for (int i = 0; i < 73; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        in[i] = seed;
    }
    in[4] = id; /* rdi: the leave and tailcall stubs' ID */
    int ymm = __builtin_cpu_supports("avx");
    elt_probe(stub, id, in, out, ymm);
    int same = 1;
    for (int i = 0; i < 9; i++)
        same &= in[i] == out[i];
    for (int r = 0; r < 16; r++)
        for (int w = 0; w < (ymm ? 4 : 2); w++)
            same &= in[9 + 4 * r + w] == out[9 + 4 * r + w];
    CHECK(same);
}

/* The three hook types have one signature. */
static void hook_call(int kind, UINT_PTR id)
{
    stub_call(kind == SHIM_ELT_ENTER   ? fake.enter
              : kind == SHIM_ELT_LEAVE ? (FunctionEnter3 *)fake.leave
                                       : (FunctionEnter3 *)fake.tailcall,
              id);
}
#else
/* No stubs here: the counting function alone. */
static void hook_call(int kind, UINT_PTR id)
{
    shim_elt_count(id, kind);
}
#endif

static void elt(const char *report)
{
    /* Static: the hooks keep finding it after this function returns. */
    static shim_elt e;
    shim_report r;
    CHECK(shim_report_open(&r, report) == 0);
    CHECK(shim_elt_event_mask(0) == COR_PRF_MONITOR_ENTERLEAVE);
    CHECK(shim_elt_start(NULL, (ICorProfilerInfo4 *)&fake.info, 16) != 0);

    fake.info.lpVtbl = &fake_info_vtbl;
    fake.md.lpVtbl = &fake_md_vtbl;
    DWORD saved_mask = fake.mask;
    fake.mask = COR_PRF_MONITOR_JIT_COMPILATION | shim_elt_event_mask(0);
    shim_elt_hooks stubs;
    if (!shim_elt_hooks_get(&stubs, 0)) {
        /* No stubs for this platform (elt_hooks.h): the shim refuses,
         * hands the runtime nothing and the report says why. */
        CHECK(shim_elt_start(&e, (ICorProfilerInfo4 *)&fake.info, 16) != 0);
        CHECK(e.setup == SHIM_ELT_SETUP_NO_STUBS);
        CHECK(!fake.enter && !fake.leave && !fake.tailcall && !fake.mapper);
        shim_check_elt_setup(&e, &r);
        fake.mask = saved_mask;
        shim_report_close(&r);
        const char *none = read_text(report);
        CHECK(count_of(none, "\"check\":\"elt_setup\",\"ok\":false") == 1);
        CHECK(count_of(none, "no hook stubs for this platform") == 1);
        printf("elt: no fast-path stubs on this platform; the refusal was checked\n");
        return;
    }
    CHECK(shim_elt_start(&e, (ICorProfilerInfo4 *)&fake.info, 16) == 0);
    shim_check_elt_setup(&e, &r);
    fake.mask = saved_mask;
    CHECK(fake.enter && fake.leave && fake.tailcall && fake.mapper && fake.mapper_data == &e);
    static shim_elt second;
    CHECK(shim_elt_start(&second, (ICorProfilerInfo4 *)&fake.info, 16) != 0);
    shim_check_elt_setup(&second, &r); /* refused: no line */
    if (!fake.mapper || !fake.enter || !fake.leave || !fake.tailcall) {
        shim_report_close(&r);
        return;
    }
    shim_elt_watch_module(&e, MODULE);
    shim_elt_watch_module(&e, MODULE); /* once is enough */

    /* The JIT asks the mapper: two functions of the watched module (ours
     * in the fake's GetFunctionInfo), one it knows nothing about. */
    BOOL hook = -1;
    UINT_PTR m = fake.mapper(0x5001, fake.mapper_data, &hook);
    CHECK(hook == 1 && m == 1);
    UINT_PTR a = fake.mapper(0x5002, fake.mapper_data, &hook);
    CHECK(hook == 1 && a == 2);
    UINT_PTR other = fake.mapper(0x9999, fake.mapper_data, &hook);
    CHECK(hook == 0 && other == 0x9999);
    CHECK(fake.mapper(0x5001, fake.mapper_data, &hook) == m && hook == 1); /* ReJIT: again */
    CHECK(fake.mapper(0x5003, fake.mapper_data, NULL) == 0x5003); /* never crashes */

    /* Calls: M three times, A once ending in a tail call, and one hook
     * with an ID the mapper never handed out. */
    for (int i = 0; i < 3; i++) {
        hook_call(SHIM_ELT_ENTER, m);
        hook_call(SHIM_ELT_LEAVE, m);
    }
    hook_call(SHIM_ELT_ENTER, a);
    hook_call(SHIM_ELT_TAILCALL, a);
    hook_call(SHIM_ELT_ENTER, 0x9999);
    CHECK(atomic_load(&e.enters[1]) == 3 && atomic_load(&e.leaves[1]) == 3);
    CHECK(atomic_load(&e.tailcalls[2]) == 1 && atomic_load(&e.unknown_ids) == 1);
    CHECK(atomic_load(&e.repeated_calls) == 1);

    shim_check_elt(&e, &r);
    shim_report_close(&r);
    const char *text = read_text(report);
    CHECK(count_of(text, "\"check\":\"elt_setup\",\"ok\":true") == 1);
    CHECK(count_of(text, "\"check\":\"elt_setup\",\"ok\":false") == 0);
    CHECK(count_of(text, "\"check\":\"elt_mapper\",\"ok\":true") == 1);
    CHECK(count_of(text, "\"check\":\"elt_client\",\"ok\":true") == 2);
    CHECK(count_of(text, "\"method\":\"M\"") == 1 && count_of(text, "\"method\":\"A\"") == 1);
    /* 0x5001, 0x5002, 0x9999: a call without pbHookFunction maps nothing. */
    CHECK(count_of(text, "\"mapped\":3,\"hooked\":2") == 1);
    /* The stray ID fails the hooks check: a hook saw what the mapper did
     * not hand out. */
    CHECK(count_of(text, "\"check\":\"elt_hooks\",\"ok\":false") == 1);
    CHECK(count_of(text, "\"unknown_ids\":1") == 1);

    /* Floor mode's stubs (ILMAP_SHIM_ELT_FLOOR) only return: every
     * register back, nothing counted. */
    shim_elt_hooks floor;
    CHECK(shim_elt_hooks_get(&floor, 1) == 1);
    CHECK(floor.enter && floor.enter != stubs.enter && strstr(floor.how, "floor"));
#if defined(__x86_64__) && !defined(_WIN32)
    stub_call(floor.enter, m);
    stub_call((FunctionEnter3 *)floor.leave, m);
    stub_call((FunctionEnter3 *)floor.tailcall, a);
    CHECK(atomic_load(&e.enters[1]) == 3 && atomic_load(&e.leaves[1]) == 3);
    CHECK(atomic_load(&e.tailcalls[2]) == 1);
#endif
    /* The report's hooks check in floor mode: anything counted fails it
     * (here, the calls above), a floor run counts nothing. */
    shim_report fr;
    CHECK(shim_report_open(&fr, report) == 0);
    e.floor = 1;
    shim_check_elt(&e, &fr);
    e.floor = 0;
    shim_report_close(&fr);
    text = read_text(report);
    CHECK(count_of(text, "\"check\":\"elt_hooks\",\"ok\":false,\"floor\":true") == 1);
}

/* ------------------------------------------------------------------ */
/* A failing runtime (issue 14): the session again, in a child process
 * each time (the profiler is one per process), with the k-th call into
 * the fake runtime failing, for every k and each failure code, and in
 * the two scenarios. Each run must end normally (Shutdown returns, no
 * signal); what the shim did to the runtime must be a part of what it did
 * in the run without faults (a method or feature skipped, never a
 * different body, map or request); and when it did less, the shim must
 * have said why on stderr (a line the run without faults does not have). */

typedef struct run_result {
    int ok;       /* exited normally */
    int hit;      /* the fault happened (else k was past the last call) */
    char *effects, *log;
    char *where;  /* the fake method that failed */
    char *report; /* the report file (ILMAP_SHIM_REPORT) */
} run_result;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf)
        buf[len] = '\0';
    fclose(f);
    return buf;
}

static run_result faulty_run(long k, HRESULT hr, int scen, const char *dir)
{
    run_result r = {0, 0, NULL, NULL, NULL, NULL};
    char log[256], eff[256], report[256], frames[256], where[256];
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(eff, sizeof eff, "%s/effects", dir);
    snprintf(report, sizeof report, "%s/report", dir);
    snprintf(frames, sizeof frames, "%s/frames", dir);
    snprintf(where, sizeof where, "%s/where", dir);
    remove(eff);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        if (!freopen(log, "w", stderr))
            _exit(2);
        setvbuf(stderr, NULL, _IONBF, 0); /* every line there before _exit */
        /* S_OK with k: the k-th allocation fails instead of a call. */
        fault_at = hr == S_OK ? 0 : k;
        alloc_fault_at = hr == S_OK ? k : 0;
        fault_hr = hr;
        scenario = scen;
        void *obj = NULL;
        if (shim_profiler_create(&IID_ICorProfilerCallback2, &obj, shim_harness_hooks()) != S_OK)
            _exit(2);
        if (scen >= SCENARIO_ARGS)
            args_session(obj, report, frames);
        else if (scen == SCENARIO_WRAP)
            wrap_session(obj, report);
        else
            rejit_session(obj, report, frames);
        FILE *f = fopen(eff, "w");
        if (!f)
            _exit(2);
        fwrite(effects, 1, effects_len, f);
        fclose(f);
        f = fopen(where, "w");
        if (f) {
            fputs(fault_where, f);
            fclose(f);
        }
        /* exit, not _exit: under ASan, LeakSanitizer checks the child at
         * exit, so memory the shim loses on a failure path fails the run. */
        exit(k && (hr == S_OK ? alloc_calls : fault_calls) < k ? 3 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return r;
    r.ok = WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
    r.hit = WIFEXITED(status) && WEXITSTATUS(status) == 0 && k > 0;
    if (!r.ok)
        fprintf(stderr, "fault run k=%ld hr=0x%08lx scenario %d: %s %d\n", k, (unsigned long)(uint32_t)hr,
                scen, WIFSIGNALED(status) ? "killed by signal" : "exit",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    r.effects = slurp(eff);
    r.log = slurp(log);
    r.where = slurp(where);
    r.report = slurp(report);
    remove(report);
    remove(frames);
    return r;
}

/* How many lines of text equal p[0..len). */
static size_t line_count(const char *text, const char *p, size_t len)
{
    size_t n = 0;
    for (const char *w = text; *w;) {
        const char *wn = strchr(w, '\n');
        size_t wl = wn ? (size_t)(wn - w) : strlen(w);
        n += wl == len && memcmp(w, p, len) == 0;
        w += wl + (wn ? 1 : 0);
    }
    return n;
}


/* Does `log` hold a line that `base` does not? With strict, the
 * report's summary line does not count (its numbers follow whatever
 * changed: they explain nothing). */
static int says_more_than(const char *log, const char *base, int strict)
{
    static const char summary[] = "[ilmap-shim] report: ";
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if ((!strict || strncmp(p, summary, sizeof summary - 1) != 0) &&
            line_count(log, p, len) > line_count(base, p, len))
            return 1;
        p += len + (nl ? 1 : 0);
    }
    return 0;
}

static int says_more(const char *log, const char *base)
{
    return says_more_than(log, base, 0);
}

/* A line of `part` that `whole` lacks (as many times) and that is not a
 * body or map set for a method `whole` also sets one for: NULL if none.
 * (A method instrumented differently, say without its probe because the
 * probe could not be resolved, is a feature skipped; a body for a method
 * the run without faults leaves alone, or a new ReJIT request or event
 * mask, is not.) */
static const char *unexplained_effect(const char *part, const char *whole)
{
    static const char *const kinds[] = {"rejit_body ", "rejit_map ", "jit_body ", "jit_map "};
    for (const char *p = part; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (line_count(part, p, len) > line_count(whole, p, len)) {
            int same_method = 0;
            for (size_t i = 0; i < 4 && !same_method; i++) {
                size_t kl = strlen(kinds[i]);
                const char *sp = kl < len ? memchr(p + kl, ' ', len - kl) : NULL;
                if (strncmp(p, kinds[i], kl) != 0 || !sp)
                    continue;
                /* "kind key " must start some line of whole */
                size_t key = (size_t)(sp - p) + 1;
                for (const char *w = whole; *w && !same_method;) {
                    const char *wn = strchr(w, '\n');
                    same_method = strncmp(w, p, key) == 0;
                    w = wn ? wn + 1 : w + strlen(w);
                }
            }
            if (!same_method)
                return p;
        }
        p += len + (nl ? 1 : 0);
    }
    return NULL;
}

static void check_run_words(const char *what, long k, HRESULT hr, run_result *r,
                            const run_result *base, long *silent, int strict);

static void check_run(const char *what, long k, HRESULT hr, run_result *r,
                      const run_result *base, long *silent)
{
    check_run_words(what, k, hr, r, base, silent, 0);
}

/* As check_run; with strict, the report's summary line is no word
 * (says_more_than()). */
static void check_run_words(const char *what, long k, HRESULT hr, run_result *r,
                            const run_result *base, long *silent, int strict)
{
    const char *where = r->where ? r->where : "-";
    test_checks++;
    if (!r->ok || !r->effects || !r->log) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the run did not end normally\n", what, k,
                (unsigned long)(uint32_t)hr, where);
    } else if (unexplained_effect(r->effects, base->effects)) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the shim did something new to the runtime: "
                "%.60s\n", what, k, (unsigned long)(uint32_t)hr, where,
                unexplained_effect(r->effects, base->effects));
    } else if (strcmp(r->effects, base->effects) != 0 &&
               !says_more_than(r->log, base->log, strict)) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the shim changed what it did without a "
                "word\n", what, k, (unsigned long)(uint32_t)hr, where);
        if (getenv("ILMAP_TEST_VERBOSE"))
            fprintf(stderr, "effects:\n%slog:\n%s", r->effects, r->log);
    } else if (strcmp(r->effects, base->effects) == 0 && !says_more_than(r->log, base->log, strict)) {
        (*silent)++; /* the failure changed nothing the program sees */
    }
    free(r->effects);
    free(r->log);
    free(r->where);
    free(r->report);
}

static void failing_runtime(void)
{
    char dir[] = "/tmp/ilmap-shim-faults-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    run_result base = faulty_run(0, S_OK, SCENARIO_NORMAL, dir);
    CHECK(base.ok && base.effects && base.log);
    if (!base.ok || !base.effects || !base.log)
        return;
    CHECK(strstr(base.effects, "rejit_body") != NULL); /* the baseline instruments */
    if (getenv("ILMAP_TEST_VERBOSE"))
        fprintf(stderr, "without faults:\n%s", base.effects);
    const HRESULT codes[] = {E_FAIL, E_OUTOFMEMORY, CORPROF_E_DATAINCOMPLETE,
                             CORPROF_E_FUNCTION_NOT_COMPILED,
                             CORPROF_E_UNSUPPORTED_CALL_SEQUENCE};
    const size_t ncodes = sizeof codes / sizeof codes[0];
    /* Under a sanitizer each run is slow: every call fails once, with
     * the codes taken in turn, instead of once with each code. */
    const int light = test_light();
    long points = 0, silent = 0;
    for (size_t c = 0; c < (light ? 1 : ncodes); c++) {
        for (long k = 1;; k++) {
            HRESULT code = codes[light ? (size_t)k % ncodes : c];
            run_result r = faulty_run(k, code, SCENARIO_NORMAL, dir);
            if (r.ok && !r.hit) { /* past the last call: every point done */
                free(r.effects);
                free(r.log);
                free(r.where);
                free(r.report);
                break;
            }
            points++;
            check_run("failing call", k, code, &r, &base, &silent);
            if (k > 2000) {
                CHECK(!"the session never ends");
                break;
            }
        }
    }
    const int scenarios[] = {SCENARIO_NEVER_COMPILES, SCENARIO_UNLOAD_PENDING};
    for (size_t i = 0; i < 2; i++) {
        run_result r = faulty_run(0, S_OK, scenarios[i], dir);
        long ignored = 0;
        check_run(i ? "unload with ReJITs pending" : "ReJITs never compile", 0, S_OK, &r, &base,
                  &ignored);
    }
    /* Malformed settings: the defaults, the same work, a word for each. */
    run_result bad = faulty_run(0, S_OK, SCENARIO_BAD_SETTINGS, dir);
    CHECK(bad.ok && bad.effects && bad.log);
    if (bad.effects && bad.log) {
        CHECK(strcmp(bad.effects, base.effects) == 0);
        static const char *const named[] = {"'garbage'", "ILMAP_SHIM_WAIT_MS=-5",
                                            "ILMAP_SHIM_VERBOSE=", "ILMAP_SHIM_KEEP_TIERING= 1",
                                            "ILMAP_SHIM_DISABLE_NGEN=010x",
                                            "/nonexistent-dir/report.jsonl",
                                            "/nonexistent-dir/frames"};
        for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
            if (!strstr(bad.log, named[i]))
                fprintf(stderr, "malformed settings: nothing said about %s:\n%s", named[i],
                        bad.log);
            CHECK(strstr(bad.log, named[i]) != NULL);
        }
    }
    free(bad.effects);
    free(bad.log);
    free(bad.where);
    free(bad.report);
    printf("failing runtime: %ld failure points (%s), %ld changed nothing the program sees\n",
           points, light ? "the codes in turn" : "each with 5 codes", silent);
    free(base.effects);
    free(base.log);
    free(base.where);
    free(base.report);
    char path[256];
    snprintf(path, sizeof path, "%s/log", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/effects", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/where", dir);
    remove(path);
    rmdir(dir);
}


/* ---- The argument and static-field reports under a failing runtime ---- */

/* A JSON value at p (RFC 8259, nesting at most 64); the end, or NULL. */
static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *json_string(const char *p)
{
    if (!p || *p != '"')
        return NULL;
    for (p++; *p != '"'; p++) {
        if (!*p || (unsigned char)*p < 0x20)
            return NULL;
        if (*p != '\\')
            continue;
        p++;
        if (*p == 'u') {
            for (int i = 1; i <= 4; i++)
                if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                    return NULL;
            p += 4;
        } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
            return NULL;
        }
    }
    return p + 1;
}

static const char *json_digits(const char *p)
{
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

static const char *json_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (!(p = json_digits(p)))
        return NULL;
    if (*p == '.' && !(p = json_digits(p + 1)))
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        p = json_digits(p);
    }
    return p;
}

static const char *json_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = json_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = json_string(json_ws(p));
                if (!p || *(p = json_ws(p)) != ':')
                    return NULL;
                p++;
            }
            if (!(p = json_value(p, depth + 1)))
                return NULL;
            p = json_ws(p);
            if (*p == ',')
                p++;
            else
                return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return json_string(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    return json_number(p);
}

/* Is every line of text one JSON object? NULL: yes, else the first bad line. */
static const char *bad_json_line(const char *text)
{
    for (const char *line = text; text && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *copy = malloc(len + 1);
        if (!copy)
            return line;
        memcpy(copy, line, len);
        copy[len] = '\0';
        const char *end = *json_ws(copy) == '{' ? json_value(copy, 0) : NULL;
        int ok = end && *json_ws(end) == '\0';
        free(copy);
        if (!ok)
            return line;
        line += len + (nl ? 1 : 0);
    }
    return NULL;
}

/* The report's args and statics lines (malloc'ed; "" when none). */
static char *value_lines(const char *report)
{
    size_t n = report ? strlen(report) : 0;
    char *out = malloc(n + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *line = report; report && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl + 1 - line) : strlen(line);
        if (strncmp(line, "{\"type\":\"args\"", 14) == 0 ||
            strncmp(line, "{\"type\":\"statics\"", 17) == 0) {
            memcpy(w, line, len);
            w += len;
        }
        line += len;
    }
    *w = '\0';
    return out;
}

/* What the run without faults must report, exactly. */
static const char args_expected[] =
    "{\"type\":\"args\",\"method\":\"W.Item::Run\",\"call\":1,"
    "\"this\":{\"class\":\"W.Item\",\"fields\":{\"n\":7,\"s\":\"a\\\"b\","
    "\"o\":{\"class\":\"System.Int32\",\"fields\":{\"m_value\":42}}}},"
    "\"args\":[\"a\\\"b\",{\"class\":\"System.Int32\",\"fields\":{\"m_value\":42}},[1,2,3],"
    "{\"rank\":2,\"lengths\":[2,3],\"elements\":[10,20,30,40,50,60]},"
    "{\"class\":\"W.Pt\",\"fields\":{\"x\":5,\"y\":-6}}],\"ret\":42}\n"
    "{\"type\":\"statics\",\"class\":\"W.Stat\",\"method\":\"W.Item::Run\",\"call\":1,"
    "\"fields\":{\"a\":{\"kind\":\"appdomain\",\"value\":11},"
    "\"t\":{\"kind\":\"thread\",\"value\":\"t\"},"
    "\"r\":{\"kind\":\"rva\",\"value\":{\"class\":\"W.Blob\",\"bytes\":\"deadbeef\"}},"
    "\"c\":{\"kind\":\"context\",\"value\":-3}}}\n";

/* The event masks (low, high) a run of the args session set, OR'ed. */
static void masks_of(const char *effects, unsigned long *low, unsigned long *high)
{
    *low = *high = 0;
    for (const char *p = effects; p && (p = strstr(p, "mask ")) != NULL; p++) {
        unsigned long l = 0, h = 0;
        if ((p == effects || p[-1] == '\n') && sscanf(p, "mask %lx %lx", &l, &h) == 2) {
            *low |= l;
            *high |= h;
        }
    }
}

/* Did the run ask for no event the run without faults did not? (Fewer
 * is a feature skipped: argument reports off when their settings could
 * not be parsed.) The mask lines then count as explained. */
static int masks_within(char *effects, const char *base)
{
    unsigned long l = 0, h = 0, bl = 0, bh = 0;
    masks_of(effects, &l, &h);
    masks_of(base, &bl, &bh);
    if ((l & ~bl) || (h & ~bh))
        return 0;
    /* Blank out the run's mask lines that base lacks, in place. */
    for (char *p = effects; (p = strstr(p, "mask ")) != NULL;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if ((p == effects || p[-1] == '\n') && line_count(base, p, len) == 0)
            memmove(p, p + len + (nl ? 1 : 0), strlen(p + len + (nl ? 1 : 0)) + 1);
        else
            p++;
    }
    return 1;
}

/* A run of the args session: ended normally, did nothing to the runtime
 * that the run without faults did not, wrote JSON lines only; when its
 * report lines (or effects) differ from base's, it said why. */
static void check_args_run(const char *what, long k, HRESULT hr, run_result *r,
                           const run_result *base, long *silent, long *changed)
{
    const char *where = r->where ? r->where : "-";
    char *lines = value_lines(r->report), *base_lines = value_lines(base->report);
    const char *bad = r->report ? bad_json_line(r->report) : NULL;
    test_checks++;
    if (!r->ok || !r->effects || !r->log || !lines || !base_lines) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the run did not end normally\n", what, k,
                (unsigned long)(uint32_t)hr, where);
    } else if (bad) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: a report line is not JSON: %.200s\n", what,
                k, (unsigned long)(uint32_t)hr, where, bad);
    } else if (!masks_within(r->effects, base->effects) ||
               unexplained_effect(r->effects, base->effects)) {
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the shim did something new to the runtime: "
                "%.60s\n", what, k, (unsigned long)(uint32_t)hr, where,
                masks_within(r->effects, base->effects)
                    ? unexplained_effect(r->effects, base->effects)
                    : "an event mask with more bits");
    } else if ((strcmp(lines, base_lines) != 0 || strcmp(r->effects, base->effects) != 0) &&
               !says_more(r->log, base->log) &&
               !(hr == CORPROF_E_DATAINCOMPLETE && strstr(lines, "\"status\":\"incomplete\""))) {
        /* (A static the runtime has no value for yet is "incomplete":
         * a state of the class, written as documented, not a failure.) */
        test_failures++;
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s: the report changed without a word:\n%s",
                what, k, (unsigned long)(uint32_t)hr, where, lines);
    } else if (strcmp(lines, base_lines) == 0 && strcmp(r->effects, base->effects) == 0 &&
               !says_more(r->log, base->log)) {
        (*silent)++;
    } else if (strcmp(lines, base_lines) != 0) {
        (*changed)++;
    }
    if (getenv("ILMAP_TEST_VERBOSE") && lines && base_lines && strcmp(lines, base_lines))
        fprintf(stderr, "%s k=%ld hr=0x%08lx in %s:\n%s%s", what, k,
                (unsigned long)(uint32_t)hr, where, lines, r->log ? r->log : "");
    free(lines);
    free(base_lines);
}

static void free_run(run_result *r)
{
    free(r->effects);
    free(r->log);
    free(r->where);
    free(r->report);
}

static void args_faults(void)
{
    char dir[] = "/tmp/ilmap-shim-args-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    run_result base = faulty_run(0, S_OK, SCENARIO_ARGS, dir);
    char *lines = value_lines(base.report);
    CHECK(base.ok && base.effects && base.log && base.report && lines);
    if (!base.ok || !base.effects || !base.log || !base.report || !lines) {
        free(lines);
        free_run(&base);
        return;
    }
    /* Without faults: the values exactly, every line JSON, nothing logged. */
    if (strcmp(lines, args_expected) != 0)
        fprintf(stderr, "args report:\n%swanted:\n%s", lines, args_expected);
    CHECK(strcmp(lines, args_expected) == 0);
    CHECK(bad_json_line(base.report) == NULL);
    CHECK(strstr(base.report, "\"event\":\"args_done\"") != NULL);
    CHECK(strstr(base.log, "args:") == NULL && strstr(base.log, "statics:") == NULL);
    if (strstr(base.log, "args:") || strstr(base.log, "statics:"))
        fprintf(stderr, "args session without faults logged:\n%s", base.log);
    free(lines);

    /* The runtime's answer for a ClassID of a type description that is
     * no class and no array (a pointer, a byref): the shim never asks for
     * one on purpose, the runtime may answer it all the same. */
    const HRESULT classid_is_composite = (HRESULT)0x80131366u;
    const HRESULT codes[] = {E_FAIL,
                             E_OUTOFMEMORY,
                             CORPROF_E_DATAINCOMPLETE,
                             CORPROF_E_UNSUPPORTED_CALL_SEQUENCE,
                             classid_is_composite,
                             E_NOTIMPL,
                             HRESULT_INSUFFICIENT_BUFFER};
    const size_t ncodes = sizeof codes / sizeof codes[0];
    const int light = test_light();
    long points = 0, silent = 0, changed = 0;
    for (size_t c = 0; c < (light ? 1 : ncodes); c++) {
        for (long k = 1;; k++) {
            HRESULT code = codes[light ? (size_t)k % ncodes : c];
            run_result r = faulty_run(k, code, SCENARIO_ARGS, dir);
            if (r.ok && !r.hit) {
                free_run(&r);
                break;
            }
            points++;
            check_args_run("args, failing call", k, code, &r, &base, &silent, &changed);
            free_run(&r);
            if (k > 5000) {
                CHECK(!"the args session never ends");
                break;
            }
        }
    }

    /* Each allocation the session makes (the shim's, libilmap's) fails in
     * turn: the same rules (the allocation is in the log's words: "out
     * of memory", or what the failed part could not do). */
    long allocs = 0, alloc_silent = 0, alloc_changed = 0;
    for (long k = 1;; k++) {
        run_result r = faulty_run(k, S_OK, SCENARIO_ARGS, dir);
        if (r.ok && !r.hit) {
            free_run(&r);
            break;
        }
        allocs++;
        check_args_run("args, failing allocation", k, S_OK, &r, &base, &alloc_silent,
                       &alloc_changed);
        free_run(&r);
        if (k > 5000) {
            CHECK(!"the args session never ends");
            break;
        }
    }

    /* Hostile metadata: W.Item::Run's signature cut short, malformed,
     * nested 400 deep, empty: the method is not hooked, with a line
     * saying so; hostile field signatures: the field is left out or its
     * value written as {"class":"?"}, with a line. */
    static const struct {
        int scenario;
        const char *what, *says;
    } hostile[] = {
        {SCENARIO_ARGS_SIG_TRUNCATED, "truncated signature", "W.Item::Run: signature not"},
        {SCENARIO_ARGS_SIG_MALFORMED, "malformed signature", "W.Item::Run: signature not"},
        {SCENARIO_ARGS_SIG_DEEP, "deeply nested signature", "W.Item::Run: signature not"},
        {SCENARIO_ARGS_SIG_EMPTY, "empty signature", "W.Item::Run: signature not"},
        {SCENARIO_ARGS_FIELD_SIGS, "hostile field signatures", "W.Stat.a: signature not"},
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        run_result r = faulty_run(0, S_OK, hostile[i].scenario, dir);
        char *got = value_lines(r.report);
        long ignored = 0, more = 0;
        check_args_run(hostile[i].what, 0, S_OK, &r, &base, &ignored, &more);
        CHECK(r.log && strstr(r.log, hostile[i].says) != NULL);
        if (!r.log || !strstr(r.log, hostile[i].says))
            fprintf(stderr, "%s: nothing said (%s):\n%s", hostile[i].what, hostile[i].says,
                    r.log ? r.log : "(no log)");
        if (hostile[i].scenario != SCENARIO_ARGS_FIELD_SIGS) {
            CHECK(got && strstr(got, "\"type\":\"args\"") == NULL); /* not hooked */
        } else {
            /* s: {"class":"?"}; a and t left out; r and c as before. */
            CHECK(got && strstr(got, "\"s\":{\"class\":\"?\"}") != NULL);
            CHECK(got && strstr(got, "\"a\":") == NULL && strstr(got, "\"t\":") == NULL);
            CHECK(got && strstr(got, "\"c\":{\"kind\":\"context\",\"value\":-3}") != NULL);
            CHECK(r.log && strstr(r.log, "W.Stat.t: signature not") != NULL);
        }
        free(got);
        free_run(&r);
    }
    printf("args/statics under a failing runtime: %ld failure points (%s), %ld changed the "
           "report (each with a log line), %ld changed nothing; %ld failing allocations, %ld "
           "changed the report, %ld nothing; %zu hostile signatures\n",
           points, light ? "the codes in turn" : "each with 7 codes", changed, silent, allocs,
           alloc_changed, alloc_silent, sizeof hostile / sizeof hostile[0]);
    free_run(&base);
    char path[256];
    static const char *const files[] = {"log", "effects", "where", "report", "frames"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
}

/* The wrap session against a failing runtime: every call the session
 * makes into the fake (the emitters' included) fails in turn, then every
 * allocation; each run must end normally, do nothing new to the runtime,
 * and say why wherever it did less (a method the shim could not prepare
 * runs unwrapped: logged). */
static void wrap_faults(void)
{
    char dir[] = "/tmp/ilmap-shim-wrap-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    run_result base = faulty_run(0, S_OK, SCENARIO_WRAP, dir);
    CHECK(base.ok && base.effects && base.log && base.report);
    if (!base.ok || !base.effects || !base.log || !base.report) {
        free_run(&base);
        return;
    }
    /* Without faults: the references made, M wrapped, its wrap line. */
    static const char *const made[] = {"define_assembly_ref", "define_type_ref",
                                       "define_member_ref", "token_from_sig",
                                       "token_from_type_spec", "rejit_body", "rejit_map"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        CHECK(strstr(base.effects, made[i]) != NULL);
    CHECK(strstr(base.report, "\"check\":\"wrap\",\"ok\":true") != NULL &&
          strstr(base.report, "\"wrapped\":true") != NULL);
    if (getenv("ILMAP_TEST_VERBOSE"))
        fprintf(stderr, "wrap session without faults:\n%s", base.effects);
    const HRESULT codes[] = {E_FAIL, E_OUTOFMEMORY, CORPROF_E_DATAINCOMPLETE};
    const size_t ncodes = sizeof codes / sizeof codes[0];
    const int light = test_light();
    long points = 0, silent = 0;
    for (size_t c = 0; c < (light ? 1 : ncodes); c++) {
        for (long k = 1;; k++) {
            HRESULT code = codes[light ? (size_t)k % ncodes : c];
            run_result r = faulty_run(k, code, SCENARIO_WRAP, dir);
            if (r.ok && !r.hit) {
                free_run(&r);
                break;
            }
            points++;
            check_run_words("wrap, failing call", k, code, &r, &base, &silent, 1);
            if (k > 2000) {
                CHECK(!"the wrap session never ends");
                break;
            }
        }
    }
    long allocs = 0, alloc_silent = 0;
    for (long k = 1;; k++) {
        run_result r = faulty_run(k, S_OK, SCENARIO_WRAP, dir);
        if (r.ok && !r.hit) {
            free_run(&r);
            break;
        }
        allocs++;
        check_run_words("wrap, failing allocation", k, S_OK, &r, &base, &alloc_silent, 1);
        if (k > 20000) {
            CHECK(!"the wrap session never ends");
            break;
        }
    }
    printf("wrap session: %ld failing calls (%ld changed nothing the program sees), %ld failing "
           "allocations (%ld)\n",
           points, silent, allocs, alloc_silent);
    free_run(&base);
    static const char *const files[] = {"log", "effects", "where", "report", "frames"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
}

int main(void)
{
    failing_runtime(); /* first: its children must not inherit a profiler */
    wrap_faults();
    args_faults();
    vtable_complete();
    selection();
    statics_list();
    namespaces();
    utf16();
    code_address();
    instrument();

    char report[128], frames[128];
    snprintf(report, sizeof report, "/tmp/ilmap-shim-unit-%ld.jsonl", (long)getpid());
    snprintf(frames, sizeof frames, "/tmp/ilmap-shim-unit-%ld.frames", (long)getpid());
    ICorProfilerCallback4 *cb = create_profiler();
    if (cb) {
        query_interface(cb);
        rejit_session(cb, report, frames);
        check_report(report);
    }
    remove(report);
    remove(frames);
    snprintf(report, sizeof report, "/tmp/ilmap-shim-unit-elt-%ld.jsonl", (long)getpid());
    elt(report);
    remove(report);
    return test_finish("shim-unit");
}
