/*
 * Static-field reports; see statics.h. Registration (module loads) and
 * ClassID learning (the FunctionIDMapper) may allocate and read
 * metadata; the report (the leave hook) only reads what they published
 * and what the runtime answers, and allocates only the line.
 */
#include "values/statics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "values/classes.h"
#include "base/log.h"
#include "select/resolve.h"
#include "base/text.h"
#include "values/values.h"

#define RELAXED memory_order_relaxed

/* Static fields read per class. */
#define MAX_STATIC_FIELDS 256u
/* RVA blobs longer than this are reported by size. */
#define MAX_BLOB_BYTES 4096u

void shim_statics_free(shim_statics *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->names[i]);
        free(s->modules[i]);
    }
    free(s->names);
    free(s->modules);
    memset(s, 0, sizeof *s);
}

/* Appends one item ("[Module]Ns.Type" or "Ns.Type", n bytes at p). */
static int add_name(shim_statics *s, const char *p, size_t n)
{
    const char *module = NULL;
    size_t module_len = 0;
    if (*p == '[') {
        const char *close = memchr(p, ']', n);
        if (!close || close == p + 1 || close + 1 == p + n) {
            shim_log("statics: malformed item \"%.*s\" in ILMAP_SHIM_STATICS; skipped", (int)n,
                     p);
            return 0;
        }
        module = p + 1;
        module_len = (size_t)(close - module);
        n -= (size_t)(close + 1 - p);
        p = close + 1;
    }
    char **names = realloc(s->names, (s->count + 1) * sizeof *names);
    if (names)
        s->names = names;
    char **modules = realloc(s->modules, (s->count + 1) * sizeof *modules);
    if (modules)
        s->modules = modules;
    char *name = malloc(n + 1);
    char *mod = module ? malloc(module_len + 1) : NULL;
    if (!names || !modules || !name || (module && !mod)) {
        free(name);
        free(mod);
        return -1;
    }
    memcpy(name, p, n);
    name[n] = '\0';
    if (mod) {
        memcpy(mod, module, module_len);
        mod[module_len] = '\0';
    }
    s->names[s->count] = name;
    s->modules[s->count++] = mod;
    return 0;
}

int shim_statics_init(shim_statics *s, const char *spec)
{
    if (!s)
        return 1;
    memset(s, 0, sizeof *s);
    if (!spec || !*spec)
        return 1;
    for (const char *p = spec; *p;) {
        while (*p == ';' || *p == ' ' || *p == '\t')
            p++;
        const char *end = p;
        while (*end && *end != ';')
            end++;
        size_t n = (size_t)(end - p);
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (n && add_name(s, p, n)) {
            shim_log("statics: out of memory reading ILMAP_SHIM_STATICS; no static-field "
                     "reports");
            shim_statics_free(s);
            return 1;
        }
        p = end;
    }
    for (size_t k = 0; k < s->count; k++)
        if (strchr(s->names[k], '`'))
            s->any_generic = 1;
    return s->count == 0;
}

/* The module's file name without its directory and .dll or .exe. */
static void module_simple_name(ICorProfilerInfo4 *info, ModuleID module, char *out, size_t cap)
{
    WCHAR path[512];
    ULONG len = 0;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    char utf8[1024];
    out[0] = '\0';
    if (FAILED(info->lpVtbl->GetModuleInfo(info, module, &base, 512, &len, path, &assembly)))
        return;
    shim_utf16_to_utf8(path, len < 512 ? len : 512, utf8, sizeof utf8);
    const char *name = utf8;
    for (const char *q = utf8; *q; q++)
        if (*q == '/' || *q == '\\')
            name = q + 1;
    size_t n = strlen(name);
    if (n > 4 && (strcmp(name + n - 4, ".dll") == 0 || strcmp(name + n - 4, ".exe") == 0 ||
                  strcmp(name + n - 4, ".DLL") == 0 || strcmp(name + n - 4, ".EXE") == 0))
        n -= 4;
    snprintf(out, cap, "%.*s", (int)n, name);
}

/* ---- Registration (module loads) ------------------------------------- */

/* Does the field carry the custom attribute of that full type name? 1
 * yes, 0 no, -1 when metadata could not say (*hr: its answer). */
static int has_attribute(IMetaDataImport *md, mdFieldDef field, const char *type, HRESULT *hr)
{
    WCHAR wname[64];
    const void *data = NULL;
    ULONG size = 0;
    *hr = S_OK;
    if (shim_utf8_to_utf16(type, wname, sizeof wname / sizeof *wname))
        return 0;
    *hr = md->lpVtbl->GetCustomAttributeByName(md, field, wname, &data, &size);
    return FAILED(*hr) ? -1 : *hr == S_OK;
}

/* The declared size of a value-type TypeDef (its ClassLayout row), 0
 * when it declares none (*hr: metadata's answer). */
static uint32_t declared_size(IMetaDataImport *md, mdToken td, HRESULT *hr)
{
    *hr = S_OK;
    if ((td & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u)
        return 0;
    DWORD pack = 0;
    ULONG total = 0, size = 0;
    *hr = md->lpVtbl->GetClassLayout(md, td, &pack, NULL, 0, &total, &size);
    if (FAILED(*hr))
        return 0;
    return size;
}

/* Fills f from field's metadata; returns 0 when it is a static with
 * storage that can be described, non-zero to leave it out. */
static int describe_field(IMetaDataImport *md, ModuleID module, const char *class_name,
                          mdFieldDef field, shim_statics_field *f)
{
    WCHAR wname[256];
    ULONG len = 0, sig_size = 0, value_len = 0;
    DWORD attr = 0, elem_type = 0;
    PCCOR_SIGNATURE sig = NULL;
    const void *value = NULL;
    mdTypeDef owner = 0;
    HRESULT hr = md->lpVtbl->GetFieldProps(md, field, &owner, wname, 256, &len, &attr, &sig,
                                           &sig_size, &elem_type, &value, &value_len);
    if (FAILED(hr))
        shim_log("statics: %s: GetFieldProps 0x%08X for field 0x%08" PRIx32 "; left out",
                 class_name, (unsigned)hr, field);
    if (FAILED(hr) || !sig || !(attr & ILMAP_SIG_FIELD_STATIC))
        return 1;
    char name[512];
    shim_utf16_to_utf8(wname, len < 256 ? len : 256, name, sizeof name);
    const char *attrs[2];
    size_t n = 0;
    int thread = has_attribute(md, field, "System.ThreadStaticAttribute", &hr);
    int context = thread < 0 ? -1 : has_attribute(md, field, "System.ContextStaticAttribute", &hr);
    if (thread < 0 || context < 0) {
        /* Without them a thread static would pass for an appdomain one. */
        shim_log("statics: %s.%s: GetCustomAttributeByName 0x%08X; left out", class_name, name,
                 (unsigned)hr);
        return 1;
    }
    if (thread)
        attrs[n++] = "System.ThreadStaticAttribute";
    if (context)
        attrs[n++] = "System.ContextStaticAttribute";
    ilmap_sig_static kind = ILMAP_SIG_STATIC_NONE;
    ilmap_status st = ilmap_sig_static_kind(attr, attrs, n, &kind);
    if (st != ILMAP_OK) {
        shim_log("statics: %s.%s: no static kind (%s); left out", class_name, name,
                 ilmap_status_str(st));
        return 1;
    }
    if (kind == ILMAP_SIG_STATIC_NONE || kind == ILMAP_SIG_STATIC_LITERAL)
        return 1; /* an instance field, or a constant without storage */
    ilmap_sig_slot slot;
    if (ilmap_sig_decode(sig, sig_size, 0, &f->sig, NULL, NULL) != ILMAP_OK ||
        ilmap_sig_get_kind(f->sig) != ILMAP_SIG_KIND_FIELD ||
        ilmap_sig_classify(f->sig, NULL, 0, 1, &(size_t){0}, &slot) != ILMAP_OK) {
        shim_log("statics: %s.%s: signature not decoded; left out", class_name, name);
        ilmap_sig_free(f->sig);
        f->sig = NULL;
        return 1;
    }
    f->token = field;
    f->kind = kind;
    f->runtime_kind = -1;
    shim_json_escape(f->name, sizeof f->name, name);
    shim_values_describe(md, module, &slot, &f->value);
    if (slot.repr == ILMAP_SIG_REPR_VALUE_TYPE && !f->value.level[0].enum_element) {
        f->blob_size = declared_size(md, slot.token, &hr);
        if (f->blob_size) {
            char type[512];
            shim_values_type_name(md, slot.token, type, sizeof type);
            shim_json_escape(f->blob_class, sizeof f->blob_class, type);
            if (strcmp(type, "?") == 0)
                shim_log("statics: %s.%s: its type's name not read; written as \"?\"",
                         class_name, name);
        } else if (kind == ILMAP_SIG_STATIC_RVA) {
            shim_log("statics: %s.%s: an RVA field whose type declares no size (GetClassLayout "
                     "0x%08X); its value reported as {\"class\":\"?\"}",
                     class_name, name, (unsigned)hr);
        }
    }
    return 0;
}

static void register_class(shim_statics *s, ModuleID module, IMetaDataImport *md, mdTypeDef td,
                           size_t index, const char *name)
{
    shim_statics_class *c = calloc(1, sizeof *c);
    shim_statics_field *fields = calloc(MAX_STATIC_FIELDS, sizeof *fields);
    if (!c || !fields) {
        shim_log("statics: out of memory; %s not reported", name);
        free(c);
        free(fields);
        return;
    }
    HCORENUM e = NULL;
    mdFieldDef tokens[32];
    ULONG got = 0;
    size_t n = 0;
    HRESULT hr = S_OK;
    while (n < MAX_STATIC_FIELDS &&
           (hr = md->lpVtbl->EnumFields(md, &e, td, tokens, 32, &got)) == S_OK && got) {
        for (ULONG i = 0; i < got && n < MAX_STATIC_FIELDS; i++)
            if (!describe_field(md, module, name, tokens[i], &fields[n]))
                n++;
    }
    if (FAILED(hr))
        shim_log("statics: %s: EnumFields 0x%08X; fields left out", name, (unsigned)hr);
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    /* Room for MAX_STATIC_FIELDS was taken; keep what was used. */
    shim_statics_field *fit = realloc(fields, (n ? n : 1) * sizeof *fields);
    if (fit)
        fields = fit;
    c->fields = fields;
    c->field_count = n;
    c->token = td;
    c->index = index;
    shim_json_escape(c->name, sizeof c->name, name);
    atomic_init(&c->module, module);
    atomic_init(&c->cls, (uintptr_t)0);
    /* A generic type's metadata name ends in `N (or an enclosing type's
     * does): statics per instantiation, as ClassLoadFinished finds them. */
    c->generic = strchr(name, '`') != NULL;
    atomic_init(&c->insts_learned, 0);
    atomic_init(&c->insts, (shim_statics_inst *)NULL);
    c->next = atomic_load_explicit(&s->classes, RELAXED);
    while (!atomic_compare_exchange_weak_explicit(&s->classes, &c->next, c,
                                                  memory_order_release, RELAXED)) {
    }
}

void shim_statics_module_loaded(shim_statics *s, ICorProfilerInfo4 *info, ModuleID module,
                                IMetaDataImport *md)
{
    if (!s || !info || !md || !module || !s->count)
        return;
    char simple[512];
    module_simple_name(info, module, simple, sizeof simple);
    HCORENUM e = NULL;
    mdTypeDef chunk[64];
    ULONG got = 0;
    HRESULT hr = S_OK;
    int unnamed = 0;
    while ((hr = md->lpVtbl->EnumTypeDefs(md, &e, chunk, 64, &got)) == S_OK && got) {
        for (ULONG i = 0; i < got; i++) {
            char name[512];
            shim_type_full_name(md, chunk[i], name, sizeof name);
            unnamed += strcmp(name, "?") == 0;
            for (size_t k = 0; k < s->count; k++)
                if (strcmp(name, s->names[k]) == 0 &&
                    (!s->modules[k] || strcmp(simple, s->modules[k]) == 0))
                    register_class(s, module, md, chunk[i], k, name);
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    if (FAILED(hr) || unnamed)
        shim_log("statics: module %s: EnumTypeDefs 0x%08X, %d type names not read; listed "
                 "classes of this module may be missing",
                 simple, (unsigned)hr, unnamed);
}

void shim_statics_module_unloaded(shim_statics *s, ModuleID module)
{
    if (!s || !module)
        return;
    for (shim_statics_class *c = atomic_load_explicit(&s->classes, memory_order_acquire); c;
         c = c->next) {
        uintptr_t expected = module;
        atomic_compare_exchange_strong(&c->module, &expected, (uintptr_t)0);
    }
}

/* ---- ClassIDs (the FunctionIDMapper) ---------------------------------- */

/* The COR_PRF_FIELD_* bit GetStaticFieldInfo answers for a kind. */
static int32_t runtime_bit(ilmap_sig_static kind)
{
    switch (kind) {
    case ILMAP_SIG_STATIC_APPDOMAIN:
        return COR_PRF_FIELD_APP_DOMAIN_STATIC;
    case ILMAP_SIG_STATIC_THREAD:
        return COR_PRF_FIELD_THREAD_STATIC;
    case ILMAP_SIG_STATIC_RVA:
        return COR_PRF_FIELD_RVA_STATIC;
    case ILMAP_SIG_STATIC_CONTEXT:
        return COR_PRF_FIELD_CONTEXT_STATIC;
    default:
        return 0;
    }
}

static void learn_class(shim_statics_class *c, shim_args *a, ModuleID module)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0;
    HRESULT hr =
        info->lpVtbl->GetClassFromTokenAndTypeArgs(info, module, c->token, 0, NULL, &cls);
    if (FAILED(hr) || !cls) {
        shim_log("statics: %s: no ClassID yet (0x%08X); its fields reported as incomplete "
                 "until a later hooked method is mapped",
                 c->name, (unsigned)hr);
        return;
    }
    IMetaDataImport *md = shim_values_metadata(a, module);
    for (size_t i = 0; i < c->field_count; i++) {
        shim_statics_field *f = &c->fields[i];
        COR_PRF_STATIC_TYPE k = 0;
        hr = info->lpVtbl->GetStaticFieldInfo(info, cls, f->token, &k);
        f->runtime_kind = SUCCEEDED(hr) ? k : -1;
        if (FAILED(hr) || k != runtime_bit(f->kind))
            shim_log("statics: %s.%s: metadata says %s, GetStaticFieldInfo 0x%08X answers "
                     "0x%X",
                     c->name, f->name, ilmap_sig_static_str(f->kind), (unsigned)hr,
                     (unsigned)k);
        shim_classes_learn_value(a, md, &f->value, 1, 1);
    }
    if (md)
        md->lpVtbl->Release(md);
    atomic_store_explicit(&c->cls, cls, memory_order_release);
}

static void add_inst(shim_statics_class *c, shim_args *a, ClassID cls, ModuleID module,
                     const ClassID *args, uint32_t n);

/* A generic class's own ClassID (no type arguments), which
 * ClassLoadFinished does not announce: kept as a hidden instantiation, to
 * record what the runtime answers for its statics. */
static void learn_open(shim_statics_class *c, shim_args *a, ModuleID module)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0, args[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 n = 0;
    HRESULT hr =
        info->lpVtbl->GetClassFromTokenAndTypeArgs(info, module, c->token, 0, NULL, &cls);
    c->open_hr = (uint32_t)hr;
    if (FAILED(hr) || !cls ||
        FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL,
                                             SHIM_VALUES_MAX_TYPE_ARGS, &n, args)) ||
        n > SHIM_VALUES_MAX_TYPE_ARGS)
        return;
    for (const shim_statics_inst *i = atomic_load_explicit(&c->insts, memory_order_acquire); i;
         i = atomic_load_explicit(&i->next, memory_order_acquire))
        if (i->cls == cls)
            return; /* announced after all */
    add_inst(c, a, cls, module, args, n);
}

void shim_statics_prepare(shim_statics *s, shim_args *a)
{
    if (!s || !a || !a->info)
        return;
    for (shim_statics_class *c = atomic_load_explicit(&s->classes, memory_order_acquire); c;
         c = c->next) {
        ModuleID module = atomic_load_explicit(&c->module, RELAXED);
        if (module && !c->generic && !atomic_load_explicit(&c->cls, memory_order_acquire))
            learn_class(c, a, module);
        if (module && c->generic && !atomic_exchange(&c->open_asked, 1))
            learn_open(c, a, module);
    }
}

/* ---- Generic classes: their instantiations (ClassLoadFinished) ------- */

/* The full name of the type a ClassID stands for: "Ns.Type", an array
 * "Elem[]" ("Elem[,]" ...), a generic instantiation
 * "Ns.Gen`1[Arg,...]"; "?" when the runtime names none (a generic
 * parameter of a type definition's own ClassID). */
/* Appends src to the string out (length *len, cap bytes), truncating. */
static void append(char *out, size_t cap, size_t *len, const char *src)
{
    size_t n = strlen(src);
    if (*len + 1 >= cap)
        return;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(out + *len, src, n);
    *len += n;
    out[*len] = '\0';
}

static void class_name(shim_args *a, ClassID cls, char *out, size_t cap, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    int32_t element = 0;
    ClassID element_class = 0;
    ULONG rank = 0;
    snprintf(out, cap, "?");
    if (depth > SHIM_VALUES_MAX_DEPTH || cap < 8)
        return;
    if (info->lpVtbl->IsArrayClass(info, cls, &element, &element_class, &rank) == S_OK) {
        char inner[512];
        class_name(a, element_class, inner, sizeof inner, depth + 1);
        char dims[40] = "[";
        for (ULONG i = 1; i < rank && i < 32; i++)
            strcat(dims, ",");
        strcat(dims, "]");
        snprintf(out, cap, "%s%s", inner, dims);
        return;
    }
    ModuleID module = 0;
    mdTypeDef td = 0;
    ClassID args[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 n = 0;
    if (shim_classes_id_info(a, cls, &module, &td, args, &n))
        return;
    IMetaDataImport *md = shim_values_metadata(a, module);
    if (!md)
        return;
    shim_type_full_name(md, td, out, cap);
    md->lpVtbl->Release(md);
    size_t len = strlen(out);
    for (ULONG32 i = 0; i < n && len + 2 < cap; i++) {
        char inner[512];
        class_name(a, args[i], inner, sizeof inner, depth + 1);
        append(out, cap, &len, i ? "," : "[");
        append(out, cap, &len, inner);
        if (i + 1 == n)
            append(out, cap, &len, "]");
    }
}

/* Keeps one ClassID of the generic class c (load order: appended). */
static void add_inst(shim_statics_class *c, shim_args *a, ClassID cls, ModuleID module,
                     const ClassID *args, uint32_t n)
{
    shim_statics_inst *inst = calloc(1, sizeof *inst);
    size_t fields = c->field_count ? c->field_count : 1;
    if (inst) {
        inst->runtime_kind = calloc(fields, sizeof *inst->runtime_kind);
        inst->field_cls = calloc(fields, sizeof *inst->field_cls);
        inst->hr = calloc(fields, sizeof *inst->hr);
    }
    if (!inst || !inst->runtime_kind || !inst->field_cls || !inst->hr) {
        shim_log("statics: out of memory; an instantiation of %s not reported", c->name);
        if (inst) {
            free(inst->runtime_kind);
            free(inst->field_cls);
            free((void *)inst->hr);
        }
        free(inst);
        return;
    }
    inst->cls = cls;
    inst->hidden = shim_classes_is_open(a, args, n);
    shim_text names = {0};
    shim_text_puts(&names, "[");
    for (uint32_t i = 0; i < n; i++) {
        char name[512], safe[600];
        class_name(a, args[i], name, sizeof name, 1);
        if (strcmp(name, "System.__Canon") == 0)
            inst->hidden = 1;
        shim_json_escape(safe, sizeof safe, name);
        shim_text_printf(&names, "%s\"%.120s\"", i ? "," : "", safe);
    }
    shim_text_puts(&names, "]");
    snprintf(inst->type_args, sizeof inst->type_args, "%s",
             names.failed || !names.s ? "[]" : names.s);
    free(names.s);
    IMetaDataImport *md = shim_values_metadata(a, module);
    int learn = !inst->hidden && !atomic_exchange(&c->insts_learned, 1);
    for (size_t i = 0; i < c->field_count; i++) {
        shim_statics_field *f = &c->fields[i];
        COR_PRF_STATIC_TYPE k = 0;
        HRESULT hr = a->info->lpVtbl->GetStaticFieldInfo(a->info, cls, f->token, &k);
        inst->runtime_kind[i] = SUCCEEDED(hr) ? k : -1;
        atomic_init(&inst->hr[i], 0u);
        if (inst->hidden || !md)
            continue;
        const ilmap_sig_slot *slot = &f->value.level[0].slot;
        uint32_t var = 0, index = 0;
        if (slot->repr == ILMAP_SIG_REPR_UNRESOLVED && shim_values_var_of(slot, &var, &index) &&
            var == ILMAP_SIG_ELEMENT_VAR && index < n)
            inst->field_cls[i] = args[index];
        else if (slot->element == ILMAP_SIG_ELEMENT_GENERICINST &&
                 slot->repr == ILMAP_SIG_REPR_VALUE_TYPE)
            inst->field_cls[i] = shim_classes_instance(a, md, module, slot, args, n);
        if (learn)
            shim_classes_learn_value(a, md, &f->value, 1, 1);
    }
    if (md)
        md->lpVtbl->Release(md);
    atomic_init(&inst->next, (shim_statics_inst *)NULL);
    /* Append at the tail: lines come in load order. */
    _Atomic(shim_statics_inst *) *at = &c->insts;
    for (;;) {
        shim_statics_inst *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(at, &expected, inst, memory_order_release,
                                                    memory_order_acquire))
            break;
        at = &expected->next;
    }
}

void shim_statics_class_loaded(shim_statics *s, shim_args *a, ClassID cls)
{
    if (!s || !a || !a->info || !s->any_generic || !cls)
        return;
    ModuleID module = 0;
    mdTypeDef td = 0;
    ClassID args[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 n = 0;
    if (FAILED(a->info->lpVtbl->GetClassIDInfo2(a->info, cls, &module, &td, NULL,
                                                SHIM_VALUES_MAX_TYPE_ARGS, &n, args)) ||
        !module || !n || n > SHIM_VALUES_MAX_TYPE_ARGS)
        return;
    for (shim_statics_class *c = atomic_load_explicit(&s->classes, memory_order_acquire); c;
         c = c->next)
        if (c->generic && c->token == td && atomic_load_explicit(&c->module, RELAXED) == module)
            add_inst(c, a, cls, module, args, n);
}

/* ---- The report (the leave hook) -------------------------------------- */

/* Where this thread sees the statics. */
typedef struct where {
    AppDomainID domain;
    ThreadID thread;
    ContextID context;
} where;

/* The field's address, as the runtime answers for its kind. A context
 * static: GetContextStaticAddress first; where the runtime does not
 * implement it, the storage GetStaticFieldInfo named (FINDINGS seventh
 * round). */
static HRESULT field_address(ICorProfilerInfo4 *info, ClassID cls, const shim_statics_field *f,
                             int32_t runtime_kind, const where *w, void **addr)
{
    *addr = NULL;
    switch (f->kind) {
    case ILMAP_SIG_STATIC_APPDOMAIN:
        return info->lpVtbl->GetAppDomainStaticAddress(info, cls, f->token, w->domain, addr);
    case ILMAP_SIG_STATIC_THREAD:
        return info->lpVtbl->GetThreadStaticAddress2(info, cls, f->token, w->domain, w->thread,
                                                     addr);
    case ILMAP_SIG_STATIC_RVA:
        return info->lpVtbl->GetRVAStaticAddress(info, cls, f->token, addr);
    case ILMAP_SIG_STATIC_CONTEXT: {
        HRESULT hr =
            info->lpVtbl->GetContextStaticAddress(info, cls, f->token, w->context, addr);
        if (hr != E_NOTIMPL || runtime_kind < 0)
            return hr;
        shim_values_log_once(1u << 14,
                             "statics: GetContextStaticAddress answers E_NOTIMPL (context "
                             "0x%" PRIxPTR "); context statics read where GetStaticFieldInfo "
                             "says the runtime keeps them",
                             (uintptr_t)w->context);
        if (runtime_kind == COR_PRF_FIELD_APP_DOMAIN_STATIC)
            return info->lpVtbl->GetAppDomainStaticAddress(info, cls, f->token, w->domain,
                                                           addr);
        if (runtime_kind == COR_PRF_FIELD_THREAD_STATIC)
            return info->lpVtbl->GetThreadStaticAddress2(info, cls, f->token, w->domain,
                                                         w->thread, addr);
        return hr;
    }
    default:
        return E_FAIL;
    }
}

/* A thread static the runtime knows as one (GetStaticFieldInfo) that this
 * thread has no storage for yet: the runtime answers E_INVALIDARG (FINDINGS
 * seventh round); not available yet, like an uninitialized class. */
static int no_storage_yet(const shim_statics_field *f, int32_t runtime_kind, HRESULT hr)
{
    return hr == E_INVALIDARG && f->kind == ILMAP_SIG_STATIC_THREAD &&
           runtime_kind == COR_PRF_FIELD_THREAD_STATIC;
}

static const char hex[] = "0123456789abcdef";

/* {"class":"...","bytes":"hex"} of an RVA blob. */
static void put_blob(shim_text *t, const shim_statics_field *f, const uint8_t *p)
{
    if (f->blob_size > MAX_BLOB_BYTES) {
        shim_text_printf(t, "{\"class\":\"%s\",\"size\":%" PRIu32 "}", f->blob_class,
                         f->blob_size);
        return;
    }
    shim_text_printf(t, "{\"class\":\"%s\",\"bytes\":\"", f->blob_class);
    for (uint32_t i = 0; i < f->blob_size; i++) {
        char b[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
        shim_text_put(t, b, 2);
    }
    shim_text_puts(t, "\"}");
}

/* The value at addr, read as the runtime keeps a static of f's type. */
static void put_static(shim_args *a, shim_text *t, const shim_statics_field *f,
                       ClassID field_cls, const void *addr)
{
    if (field_cls) {
        /* Typed by the class's type parameter (T, S<T>): read as the
         * instantiation's type says, in place like any static (a
         * reference an ObjectID, a struct its value inside the box). */
        shim_values_put_typed(a, t, field_cls, addr, UINT32_MAX, 1);
        return;
    }
    const shim_args_desc *d = &f->value.level[0];
    size_t size = d->slot.size ? d->slot.size : shim_values_primitive_size(d->enum_element);
    if (d->slot.repr == ILMAP_SIG_REPR_VALUE_TYPE && !d->enum_element) {
        if (f->kind == ILMAP_SIG_STATIC_RVA) {
            /* RVA data lies in the image itself, never boxed. */
            if (f->blob_size)
                put_blob(t, f, addr);
            else
                shim_text_puts(t, "{\"class\":\"?\"}");
            return;
        }
        /* Any other struct static: the runtime answers the address of the
         * value inside its box (FINDINGS seventh round), read as the
         * struct's class says (put_struct reads the class's size). */
        shim_values_put(a, t, d, f->value.levels, addr, UINT32_MAX, 1);
        return;
    }
    if (!size) {
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    shim_values_put(a, t, d, f->value.levels, addr, size, 1);
}

/* One line for c (inst: which instantiation of a generic c, else NULL);
 * for a hidden instantiation only what the runtime answers, kept. */
static void report_class(shim_statics *s, shim_args *a, const shim_statics_class *c,
                         shim_statics_inst *inst, const where *w, const char *method,
                         uint64_t call)
{
    shim_text t = {0};
    ClassID cls = inst ? inst->cls : atomic_load_explicit(&c->cls, memory_order_acquire);
    shim_text_printf(&t,
                     "{\"type\":\"statics\",\"class\":\"%s\",\"method\":\"%s\",\"call\":%" PRIu64,
                     c->name, method, call);
    if (inst) {
        shim_text_puts(&t, ",\"type_args\":");
        shim_text_puts(&t, inst->type_args);
    }
    shim_text_puts(&t, ",\"fields\":{");
    for (size_t i = 0; i < c->field_count; i++) {
        const shim_statics_field *f = &c->fields[i];
        int32_t runtime_kind = inst ? inst->runtime_kind[i] : f->runtime_kind;
        shim_text_printf(&t, "%s\"%s\":{\"kind\":\"%s\",", i ? "," : "", f->name,
                         ilmap_sig_static_str(f->kind));
        void *addr = NULL;
        HRESULT hr = cls ? field_address(a->info, cls, f, runtime_kind, w, &addr)
                         : CORPROF_E_DATAINCOMPLETE;
        if (inst && inst->hidden) {
            atomic_store_explicit(&inst->hr[i], (uint32_t)hr, RELAXED);
            continue;
        }
        if (hr == CORPROF_E_DATAINCOMPLETE || no_storage_yet(f, runtime_kind, hr)) {
            shim_text_puts(&t, "\"status\":\"incomplete\"}");
            atomic_fetch_add_explicit(&s->incomplete, 1, RELAXED);
        } else if (FAILED(hr) || !addr) {
            shim_values_log_once(1u << 12,
                                 "statics: %s.%s: address 0x%08X; such fields "
                                 "reported with \"status\":\"failed\"",
                                 c->name, f->name, (unsigned)hr);
            shim_text_printf(&t, "\"status\":\"failed\",\"hr\":\"0x%08X\"}", (unsigned)hr);
            atomic_fetch_add_explicit(&s->failed, 1, RELAXED);
        } else {
            shim_text_puts(&t, "\"value\":");
            put_static(a, &t, f, inst ? inst->field_cls[i] : 0, addr);
            shim_text_puts(&t, "}");
        }
    }
    shim_text_puts(&t, "}}");
    if (inst && inst->hidden) {
        free(t.s);
        return;
    }
    if (t.failed) {
        shim_values_log_once(1u << 28, "statics: out of memory; statics lines not written");
        atomic_fetch_add_explicit(&a->skipped, 1, RELAXED);
    } else {
        atomic_fetch_add_explicit(&s->lines, 1, RELAXED);
        if (a->emit)
            a->emit(a->emit_ctx, t.s);
    }
    free(t.s);
}

void shim_statics_report(shim_statics *s, shim_args *a, const char *method, uint64_t call)
{
    if (!s || !a || !method || !s->count)
        return;
    ICorProfilerInfo4 *info = a->info;
    where w = {0, 0, 0};
    if (FAILED(info->lpVtbl->GetCurrentThreadID(info, &w.thread)) ||
        FAILED(info->lpVtbl->GetThreadAppDomain(info, w.thread, &w.domain)))
        shim_values_log_once(1u << 13, "statics: no ThreadID or AppDomainID in a leave hook");
    if (FAILED(info->lpVtbl->GetThreadContext(info, w.thread, &w.context)))
        w.context = 0;
    shim_statics_class *head = atomic_load_explicit(&s->classes, memory_order_acquire);
    for (size_t k = 0; k < s->count; k++)
        for (const shim_statics_class *c = head; c; c = c->next)
            if (c->index == k && atomic_load_explicit(&c->module, RELAXED)) {
                if (!c->generic) {
                    report_class(s, a, c, NULL, &w, method, call);
                    continue;
                }
                /* One line per instantiation, in load order. */
                for (shim_statics_inst *i = atomic_load_explicit(&c->insts,
                                                                 memory_order_acquire);
                     i; i = atomic_load_explicit(&i->next, memory_order_acquire))
                    report_class(s, a, c, i, &w, method, call);
            }
}
