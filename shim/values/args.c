/*
 * Argument and return-value reports; see args.h. Everything the hooks do
 * may run on any thread at once: the targets are an append-only list, the
 * call counters atomics, the per-call state thread-local; a failure logs
 * (once per kind) and the value or the line is skipped.
 */
#include "values/args.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "com/guids.h"
#include "values/classes.h"
#include "base/log.h"
#include "select/resolve.h"
#include "values/statics.h"
#include "base/text.h"
#include "values/values.h"

#define RELAXED memory_order_relaxed

/* Calls a thread can have open (entered, not left) at once. */
#define STACK_DEPTH 64u

DWORD shim_args_event_mask(void)
{
    return COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_ENABLE_FUNCTION_ARGS |
           COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO;
}

int shim_args_init(shim_args *a, const char *spec, uint32_t max)
{
    memset(a, 0, sizeof *a);
    a->max_calls = max ? max : SHIM_ARGS_DEFAULT_MAX;
    if (!spec || !*spec)
        return 1;
    if (shim_selection_parse(spec, NULL, NULL, NULL, &a->selection)) {
        memset(&a->selection, 0, sizeof a->selection);
        return 1;
    }
    return a->selection.count == 0;
}

/* ---- Targets ---------------------------------------------------------- */

shim_args_target *shim_args_find(shim_args *a, ModuleID module, mdMethodDef token)
{
    if (!a || !module)
        return NULL;
    for (shim_args_target *t = atomic_load_explicit(&a->targets, memory_order_acquire); t;
         t = t->next)
        if (t->token == token && atomic_load_explicit(&t->module, RELAXED) == module)
            return t;
    return NULL;
}

void shim_args_prepare(shim_args *a, shim_args_target *t)
{
    if (!a || !t || atomic_exchange(&t->prepared, 1))
        return;
    shim_statics_prepare(a->statics, a);
    ModuleID module = atomic_load_explicit(&t->module, RELAXED);
    IMetaDataImport *md = module ? shim_values_metadata(a, module) : NULL;
    if (!md)
        return;
    for (size_t i = 0; i < t->slot_count; i++)
        shim_classes_learn_value(a, md, &t->values[i], 1, 1);
    md->lpVtbl->Release(md);
}

void shim_args_prepare_body(shim_args *a, shim_args_target *t, FunctionID function)
{
    if (!a || !t || !function)
        return;
    ModuleID module = atomic_load_explicit(&t->module, RELAXED);
    IMetaDataImport *md = module ? shim_values_metadata(a, module) : NULL;
    if (!md)
        return;
    ClassID of_class[SHIM_VALUES_MAX_TYPE_ARGS], of_method[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 classes = 0, methods = 0;
    ClassID cls = 0;
    ModuleID m = 0;
    mdToken token = 0;
    ICorProfilerInfo4 *info = a->info;
    if (FAILED(info->lpVtbl->GetFunctionInfo2(info, function, 0, &cls, &m, &token,
                                              SHIM_VALUES_MAX_TYPE_ARGS, &methods, of_method)))
        methods = 0;
    if (!cls ||
        FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, NULL, NULL, NULL,
                                             SHIM_VALUES_MAX_TYPE_ARGS, &classes, of_class)))
        classes = 0;
    shim_classes_context context = {
        function, of_class, of_method,
        classes < SHIM_VALUES_MAX_TYPE_ARGS ? classes : SHIM_VALUES_MAX_TYPE_ARGS,
        methods < SHIM_VALUES_MAX_TYPE_ARGS ? methods : SHIM_VALUES_MAX_TYPE_ARGS};
    for (size_t i = 0; i < t->slot_count; i++)
        shim_classes_learn_body(a, md, &t->values[i], &context);
    md->lpVtbl->Release(md);
}

static void add_target(shim_args *a, ModuleID module, IMetaDataImport *md, const shim_found *f)
{
    if (shim_args_find(a, module, f->token))
        return;
    shim_method_info mi;
    if (FAILED(shim_method_info_get(md, f->token, &mi)) || !mi.sig) {
        shim_log("args: no metadata for method 0x%08" PRIx32 "; not hooked", f->token);
        return;
    }
    PCCOR_SIGNATURE sig = mi.sig;
    ULONG sig_size = mi.sig_size;
    mdTypeDef cls = mi.type;
    char type[512], full[1600];
    shim_type_full_name(md, cls, type, sizeof type);
    snprintf(full, sizeof full, "%s::%s", type, mi.name);
    if (strcmp(type, "?") == 0)
        shim_log("args: method 0x%08" PRIx32 ": its type's name not read; reported as %s",
                 f->token, full);

    shim_args_target *t = calloc(1, sizeof *t);
    if (!t) {
        shim_log("args: out of memory; %s not hooked", full);
        return;
    }
    shim_json_escape(t->name, sizeof t->name, full);
    shim_json_escape(t->type_name, sizeof t->type_name, type);
    ilmap_sig_defect defect = ILMAP_SIG_DEFECT_NONE;
    size_t where = 0;
    ilmap_status st = ilmap_sig_decode(sig, sig_size, 0, &t->sig, &defect, &where);
    if (st != ILMAP_OK || ilmap_sig_get_kind(t->sig) != ILMAP_SIG_KIND_METHOD) {
        shim_log("args: %s: signature not decoded (%s, %s at %zu); not hooked", t->name,
                 ilmap_status_str(st), ilmap_sig_defect_str(defect), where);
        ilmap_sig_free(t->sig);
        free(t);
        return;
    }
    ilmap_sig_info si;
    ilmap_sig_get_info(t->sig, 0, &si);
    t->has_this = (si.callconv & ILMAP_SIG_HASTHIS) != 0;
    t->value_this = t->has_this && shim_classes_is_value_type(md, cls);
    size_t total = 0;
    unsigned flags = t->value_this ? ILMAP_SIG_THIS_VALUE_TYPE : 0;
    st = ilmap_sig_classify(t->sig, NULL, flags, 0, &total, NULL);
    if (st == ILMAP_E_TRUNCATED || (st == ILMAP_OK && total)) {
        t->slots = calloc(total, sizeof *t->slots);
        st = t->slots ? ilmap_sig_classify(t->sig, NULL, flags, total, &total, t->slots)
                      : ILMAP_E_NOMEM;
    }
    if (st != ILMAP_OK || total == 0) {
        shim_log("args: %s: signature not classified (%s); not hooked", t->name,
                 ilmap_status_str(st));
        goto refuse;
    }
    t->slot_count = total;
    t->values = calloc(total, sizeof *t->values);
    if (!t->values) {
        shim_log("args: out of memory; %s not hooked", t->name);
        goto refuse;
    }
    for (size_t i = 0; i < total; i++) {
        shim_values_describe(md, module, &t->slots[i], &t->values[i]);
        uint32_t kind = 0, index = 0;
        for (size_t k = 0; k < t->values[i].levels; k++)
            if (t->values[i].level[k].slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
                shim_values_var_of(&t->values[i].level[k].slot, &kind, &index))
                t->generic = 1;
    }
    if (t->value_this) {
        /* `this` of a struct is a managed pointer to the declaring type's
         * value, which the signature does not name: the pointed-to level
         * is that TypeDef. */
        shim_args_desc *d = &t->values[0].level[1];
        memset(d, 0, sizeof *d);
        d->slot.repr = ILMAP_SIG_REPR_VALUE_TYPE;
        d->slot.element = ILMAP_SIG_ELEMENT_VALUETYPE;
        d->slot.token = cls;
        d->slot.node = ILMAP_SIG_NO_NODE;
        d->module = module;
        t->values[0].levels = 2;
    }
    if ((si.callconv & ILMAP_SIG_CALLCONV_MASK) == ILMAP_SIG_CALLCONV_VARARG) {
        shim_log("args: %s: vararg methods are not hooked", t->name);
        goto refuse;
    }
    for (size_t i = 0; i < total; i++)
        if (shim_classes_vector_slot(md, &t->slots[i])) {
            shim_log("args: %s passes a vector value type, which the runtime's slow-path "
                     "hooks would damage (shim/FINDINGS.md); not hooked",
                     t->name);
            goto refuse;
        }
    atomic_init(&t->module, module);
    t->token = f->token;
    t->next = atomic_load_explicit(&a->targets, RELAXED);
    while (!atomic_compare_exchange_weak_explicit(&a->targets, &t->next, t,
                                                  memory_order_release, RELAXED)) {
    }
    return;
refuse:
    atomic_fetch_add(&a->refused, 1);
    free(t->values);
    free(t->slots);
    ilmap_sig_free(t->sig);
    free(t);
}

void shim_args_module_loaded(shim_args *a, ModuleID module, IMetaDataImport *md)
{
    if (!a || !md || !a->selection.count)
        return;
    shim_args_module *m = malloc(sizeof *m);
    if (m) {
        atomic_init(&m->module, module);
        m->next = atomic_load_explicit(&a->modules, RELAXED);
        while (!atomic_compare_exchange_weak_explicit(&a->modules, &m->next, m,
                                                      memory_order_release, RELAXED)) {
        }
    }
    shim_found_list found = {NULL, 0, 0};
    if (shim_resolve_all(md, &a->selection, &found))
        shim_log("args: out of memory resolving the selectors; some methods not hooked");
    for (size_t i = 0; i < found.count; i++)
        add_target(a, module, md, &found.items[i]);
    shim_found_list_free(&found);
    shim_statics_module_loaded(a->statics, a->info, module, md);
}

void shim_args_module_unloaded(shim_args *a, ModuleID module)
{
    if (!a || !module)
        return;
    for (shim_args_target *t = atomic_load_explicit(&a->targets, memory_order_acquire); t;
         t = t->next) {
        uintptr_t expected = module;
        atomic_compare_exchange_strong(&t->module, &expected, (uintptr_t)0);
    }
    for (shim_args_module *m = atomic_load_explicit(&a->modules, memory_order_acquire); m;
         m = m->next) {
        uintptr_t expected = module;
        atomic_compare_exchange_strong(&m->module, &expected, (uintptr_t)0);
    }
    shim_statics_module_unloaded(a->statics, module);
}

/* ---- The hooks ------------------------------------------------------- */

/* An open call on this thread: what enter read, waiting for leave. */
/* The exact instantiation of a call of generic code: the type arguments
 * of its class (VAR i) and of the method (MVAR i), from the frame. */
#define MAX_GENERIC_ARGS 16u
typedef struct generic_args {
    ClassID of_class[MAX_GENERIC_ARGS], of_method[MAX_GENERIC_ARGS];
    ULONG32 classes, methods;
} generic_args;

typedef struct pending {
    const shim_args_target *target;
    uint64_t call;
    shim_text head; /* the line up to the return value; NULL s: not reported */
    generic_args generics;
} pending;

static _Thread_local pending stack[STACK_DEPTH];
static _Thread_local unsigned depth, overflow;

static void pending_drop(pending *p)
{
    free(p->head.s);
    memset(p, 0, sizeof *p);
}

/* `this` of a struct: the struct the managed pointer in the range points
 * to, by its fields: by the declaring type's ClassID learned at the
 * mapper, or for a generic struct by the exact class the frame names
 * (GetFunctionInfo2); by its class name alone when neither is known. */
static void put_value_this(shim_args *a, const shim_args_target *t, FunctionID function,
                           COR_PRF_FRAME_INFO frame, shim_text *out, UINT_PTR at, ULONG length)
{
    const shim_args_desc *d = &t->values[0].level[1];
    uintptr_t target = 0;
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    ULONG32 n = 0;
    size_t size = 0;
    if (at && length >= sizeof target)
        memcpy(&target, (const void *)at, sizeof target);
    if (target && shim_classes_known(a, d))
        shim_values_put(a, out, d, 1, (const void *)target, UINT32_MAX, 1);
    else if (target &&
             SUCCEEDED(a->info->lpVtbl->GetFunctionInfo2(a->info, function, frame, &cls,
                                                         &module, &token, 0, &n, NULL)) &&
             cls && (size = shim_values_typed_size(a, cls)) != 0)
        shim_values_put_typed(a, out, cls, (const void *)target, size, 1);
    else
        shim_text_printf(out, "{\"class\":\"%s\"}", t->type_name);
}

/* The type arguments of this call (the frame tells shared code's). */
static void read_generics(shim_args *a, FunctionID function, COR_PRF_FRAME_INFO frame,
                          generic_args *g)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    memset(g, 0, sizeof *g);
    if (FAILED(info->lpVtbl->GetFunctionInfo2(info, function, frame, &cls, &module, &token,
                                              MAX_GENERIC_ARGS, &g->methods, g->of_method)))
        g->methods = 0;
    if (g->methods > MAX_GENERIC_ARGS)
        g->methods = MAX_GENERIC_ARGS;
    if (!cls || FAILED(info->lpVtbl->GetClassIDInfo2(
                    info, cls, NULL, NULL, NULL, MAX_GENERIC_ARGS, &g->classes, g->of_class)))
        g->classes = 0;
    if (g->classes > MAX_GENERIC_ARGS)
        g->classes = MAX_GENERIC_ARGS;
}

/* The call's type argument for a slot that is a generic parameter. */
static int type_argument(const ilmap_sig_slot *s, const generic_args *g, ClassID *cls)
{
    uint32_t kind = 0, index = 0;
    if (!shim_values_var_of(s, &kind, &index))
        return 0;
    ULONG32 n = kind == ILMAP_SIG_ELEMENT_VAR ? g->classes : g->methods;
    const ClassID *args = kind == ILMAP_SIG_ELEMENT_VAR ? g->of_class : g->of_method;
    if (index >= n || !args[index])
        return 0;
    *cls = args[index];
    return 1;
}

/* Is a level of v below its first two a generic parameter (the element
 * of an array's elements, T in T[][])? */
static int deeper_generic(const shim_args_value *v)
{
    uint32_t kind = 0, index = 0;
    for (size_t k = 2; k < v->levels && k < SHIM_ARGS_LEVELS; k++)
        if (v->level[k].slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
            shim_values_var_of(&v->level[k].slot, &kind, &index))
            return 1;
    return 0;
}

/* Slot i's value from its range: a generic parameter as the call's type
 * argument says, any other as its signature says. */
static void put_slot(shim_args *a, const shim_args_target *t, size_t i, const generic_args *g,
                     UINT_PTR at, ULONG length, shim_text *out)
{
    const shim_args_value *v = &t->values[i];
    const ilmap_sig_slot *s = &v->level[0].slot;
    ClassID cls = 0;
    if (s->repr == ILMAP_SIG_REPR_UNRESOLVED && type_argument(s, g, &cls)) {
        shim_values_put_typed(a, out, cls, (const void *)at, length, 1);
        return;
    }
    /* An array of a generic parameter (T[], T[,]). */
    if (v->levels == 2 && s->repr == ILMAP_SIG_REPR_OBJECT_ID &&
        (s->element == ILMAP_SIG_ELEMENT_SZARRAY || s->element == ILMAP_SIG_ELEMENT_ARRAY) &&
        v->level[1].slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
        type_argument(&v->level[1].slot, g, &cls) && at && length >= sizeof(ObjectID)) {
        ObjectID obj = 0;
        memcpy(&obj, (const void *)at, sizeof obj);
        shim_values_put_typed_array(a, out, obj, v->level[0].rank, cls, 1);
        return;
    }
    /* A byref to a generic parameter (ref T, in T, out T): the target
     * read as the call's type argument says, not past its size. */
    if (v->levels == 2 && s->repr == ILMAP_SIG_REPR_MANAGED_PTR &&
        v->level[1].slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
        type_argument(&v->level[1].slot, g, &cls) && at && length >= sizeof(uintptr_t)) {
        uintptr_t target = 0;
        memcpy(&target, (const void *)at, sizeof target);
        size_t size = shim_values_typed_size(a, cls);
        shim_text_puts(out, "{\"ref\":");
        if (!target)
            shim_text_puts(out, "null");
        else if (!size)
            shim_text_puts(out, "{\"class\":\"?\"}");
        else
            shim_values_put_typed(a, out, cls, (const void *)target, size, 1);
        shim_text_puts(out, "}");
        return;
    }
    /* An array nested deeper over a generic parameter (T[][], T[][,]):
     * by the array object's runtime class, level by level (IsArrayClass
     * names each level's element class). */
    if (v->levels > 2 && deeper_generic(v) && s->repr == ILMAP_SIG_REPR_OBJECT_ID &&
        (s->element == ILMAP_SIG_ELEMENT_SZARRAY || s->element == ILMAP_SIG_ELEMENT_ARRAY) &&
        at && length >= sizeof(ObjectID)) {
        ObjectID obj = 0;
        memcpy(&obj, (const void *)at, sizeof obj);
        if (obj)
            shim_values_put_object(a, out, obj, 1);
        else
            shim_text_puts(out, "null");
        return;
    }
    shim_values_put_range(a, out, v, at, length);
}

/* `this` and the arguments, read at enter. */
static void read_arguments(shim_args *a, const shim_args_target *t, FunctionID function,
                           COR_PRF_ELT_INFO elt, shim_text *out, generic_args *g)
{
    ICorProfilerInfo4 *info = a->info;
    COR_PRF_FRAME_INFO frame = 0;
    ULONG cb = 0;
    HRESULT hr = info->lpVtbl->GetFunctionEnter3Info(info, function, elt, &frame, &cb, NULL);
    COR_PRF_FUNCTION_ARGUMENT_INFO *ai = NULL;
    if (hr == HRESULT_INSUFFICIENT_BUFFER && cb >= sizeof *ai) {
        ai = calloc(1, cb);
        if (ai)
            hr = info->lpVtbl->GetFunctionEnter3Info(info, function, elt, &frame, &cb, ai);
    } else if (SUCCEEDED(hr)) {
        ai = calloc(1, sizeof *ai); /* no arguments at all */
        cb = sizeof *ai;
        if (ai)
            hr = info->lpVtbl->GetFunctionEnter3Info(info, function, elt, &frame, &cb, ai);
    }
    size_t params = t->slot_count - 1 - (size_t)t->has_this;
    size_t max_ranges = ai ? (cb - offsetof(COR_PRF_FUNCTION_ARGUMENT_INFO, ranges)) /
                                 sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE)
                           : 0;
    int ok = ai && SUCCEEDED(hr) && ai->numRanges <= max_ranges &&
             ai->numRanges == params + (size_t)t->has_this;
    if (!ok)
        shim_values_log_once(
            1u << 1,
            "%s: GetFunctionEnter3Info 0x%08X, %u ranges for %zu values; its arguments "
            "reported as {\"class\":\"?\"}",
            t->name, (unsigned)hr, ai ? (unsigned)ai->numRanges : 0u,
            params + (size_t)t->has_this);
    if (ok && t->generic)
        read_generics(a, function, frame, g);
    size_t slot = 0;
    if (t->has_this) {
        shim_text_puts(out, ",\"this\":");
        if (!ok)
            shim_text_puts(out, "{\"class\":\"?\"}");
        else if (t->value_this)
            put_value_this(a, t, function, frame, out, ai->ranges[0].startAddress,
                           ai->ranges[0].length);
        else
            shim_values_put_range(a, out, &t->values[0], ai->ranges[0].startAddress,
                                  ai->ranges[0].length);
        slot = 1;
    }
    shim_text_puts(out, ",\"args\":[");
    for (size_t i = 0; i < params; i++, slot++) {
        if (i)
            shim_text_puts(out, ",");
        if (ok)
            put_slot(a, t, slot, g, ai->ranges[slot].startAddress, ai->ranges[slot].length,
                     out);
        else
            shim_text_puts(out, "{\"class\":\"?\"}");
    }
    shim_text_puts(out, "]");
    free(ai);
}

void shim_args_enter(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt)
{
    if (!a || !t)
        return;
    if (depth == STACK_DEPTH) {
        overflow++;
        shim_values_log_once(1u << 2,
                             "more than %u hooked calls open on one thread; the deeper ones "
                             "are not reported",
                             STACK_DEPTH);
        return;
    }
    pending *p = &stack[depth++];
    memset(p, 0, sizeof *p);
    p->target = t;
    p->call = atomic_fetch_add_explicit(&t->calls, 1, RELAXED) + 1;
    if (p->call > a->max_calls)
        return;
    shim_text_printf(&p->head, "{\"type\":\"args\",\"method\":\"%s\",\"call\":%" PRIu64,
                     t->name, p->call);
    shim_classes_set_call(function);
    read_arguments(a, t, function, elt, &p->head, &p->generics);
    shim_classes_set_call(0);
    if (p->head.failed) {
        shim_values_log_once(1u << 3, "out of memory; calls not reported");
        pending_drop(p);
        p->target = t;
        atomic_fetch_add_explicit(&a->skipped, 1, RELAXED);
    }
}

/* The open call of t on this thread: the innermost one; calls above it
 * that never left (an exception unwound them) are dropped. */
static pending *pop(const shim_args_target *t)
{
    if (overflow) {
        overflow--;
        return NULL;
    }
    for (unsigned i = depth; i-- > 0;) {
        if (stack[i].target != t)
            continue;
        while (depth > i + 1)
            pending_drop(&stack[--depth]);
        depth = i;
        return &stack[i];
    }
    return NULL;
}

void shim_args_leave(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt)
{
    if (!a || !t)
        return;
    pending *p = pop(t);
    if (!p || !p->head.s) {
        if (p)
            pending_drop(p);
        return;
    }
    const ilmap_sig_slot *ret = &t->slots[t->slot_count - 1];
    if (ret->repr != ILMAP_SIG_REPR_VOID) {
        COR_PRF_FRAME_INFO frame = 0;
        COR_PRF_FUNCTION_ARGUMENT_RANGE range = {0, 0};
        HRESULT hr =
            a->info->lpVtbl->GetFunctionLeave3Info(a->info, function, elt, &frame, &range);
        shim_text_puts(&p->head, ",\"ret\":");
        if (FAILED(hr)) {
            shim_values_log_once(1u << 4,
                                 "%s: GetFunctionLeave3Info 0x%08X; return values reported as "
                                 "{\"class\":\"?\"}",
                                 t->name, (unsigned)hr);
            shim_text_puts(&p->head, "{\"class\":\"?\"}");
        } else {
            shim_classes_set_call(function);
            put_slot(a, t, t->slot_count - 1, &p->generics, range.startAddress, range.length,
                     &p->head);
            shim_classes_set_call(0);
        }
    }
    shim_text_puts(&p->head, "}");
    if (p->head.failed) {
        shim_values_log_once(1u << 3, "out of memory; calls not reported");
        atomic_fetch_add_explicit(&a->skipped, 1, RELAXED);
    } else {
        atomic_fetch_add_explicit(&a->lines, 1, RELAXED);
        if (a->emit)
            a->emit(a->emit_ctx, p->head.s);
        shim_statics_report(a->statics, a, t->name, p->call);
    }
    pending_drop(p);
}

void shim_args_tailcall(shim_args *a, shim_args_target *t)
{
    if (!a || !t)
        return;
    /* No leave follows: the call is not reported. */
    pending *p = pop(t);
    if (p) {
        if (p->head.s)
            atomic_fetch_add_explicit(&a->skipped, 1, RELAXED);
        pending_drop(p);
    }
}
