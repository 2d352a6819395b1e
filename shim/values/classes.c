/*
 * Types for the value writer (values.h): what metadata says about a type
 * (value type, enum and its underlying integer, vector type), and the
 * ClassIDs of struct types, which the runtime gives only outside the
 * hooks, learned at the FunctionIDMapper and looked up lock-free in the
 * hooks: the method's module's structs, other modules' value types (found
 * by name) and generic struct instantiations named by a hooked method's
 * signature or by an instance field of a learned type or (at
 * ClassLoadFinished) of a generic instantiation. See classes.h.
 */
#include "values/classes.h"

#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "select/resolve.h"
#include "base/text.h"
#include "values/values.h"

#define RELAXED memory_order_relaxed

/* The learned record of a plain type (module, TypeDef or TypeRef), or
 * NULL. Lock-free. */
static const shim_args_class *class_record(shim_args *a, ModuleID module, mdToken token)
{
    for (shim_args_class *c = atomic_load_explicit(&a->classes, memory_order_acquire); c;
         c = c->next)
        if (c->module == module && c->token == token && !c->sig && !c->owner)
            return c;
    return NULL;
}

/* The learned ClassID of the generic value type instantiated at node of
 * sig, or 0. Lock-free. */
/* The hooked body whose values this thread writes now (shim_classes_set_call). */
static _Thread_local FunctionID current_call;

void shim_classes_set_call(FunctionID function) { current_call = function; }

static ClassID instance_of(shim_args *a, const ilmap_sig *sig, uint32_t node,
                           FunctionID function)
{
    for (shim_args_class *c = atomic_load_explicit(&a->classes, memory_order_acquire); c;
         c = c->next)
        if (c->sig && c->sig == sig && c->node == node &&
            (!c->function || c->function == function))
            return c->cls;
    return 0;
}

/* The ClassID a struct desc names: a plain struct's, or a generic
 * instantiation's learned for its signature node. */
ClassID shim_classes_struct(shim_args *a, const shim_args_desc *d)
{
    if (d->slot.element == ILMAP_SIG_ELEMENT_GENERICINST)
        return instance_of(a, d->slot.sig, d->slot.node, current_call);
    if (d->slot.element == ILMAP_SIG_ELEMENT_VALUETYPE)
        return shim_classes_of(a, d->module, d->slot.token);
    return 0;
}

ClassID shim_classes_of(shim_args *a, ModuleID module, mdToken token)
{
    const shim_args_class *c = class_record(a, module, token);
    return c ? c->cls : 0;
}

/* The underlying integer's ELEMENT_TYPE of d when it is an enum: of the
 * module's own (from describe) or of another module's (learned with its
 * ClassID); else 0. */
uint32_t shim_classes_enum(shim_args *a, const shim_args_desc *d)
{
    if (d->enum_element || d->slot.element != ILMAP_SIG_ELEMENT_VALUETYPE)
        return d->enum_element;
    const shim_args_class *c = class_record(a, d->module, d->slot.token);
    return c ? c->enum_element : 0;
}

int shim_classes_known(shim_args *a, const shim_args_desc *d)
{
    return a && d && shim_classes_struct(a, d) != 0;
}

/* Is the declaring type td a value type (it extends System.ValueType, or
 * System.Enum)? */
int shim_classes_is_value_type(IMetaDataImport *md, mdTypeDef td)
{
    WCHAR name[8];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (FAILED(md->lpVtbl->GetTypeDefProps(md, td, name, 8, &len, &flags, &extends)) &&
        !extends)
        return 0;
    if (!extends)
        return 0;
    char base[512];
    shim_values_type_name(md, extends, base, sizeof base);
    char self[512];
    shim_type_full_name(md, td, self, sizeof self);
    if (strcmp(self, "System.Enum") == 0)
        return 0;
    return strcmp(base, "System.ValueType") == 0 || strcmp(base, "System.Enum") == 0;
}

/* Value types of System.Runtime.Intrinsics and System.Numerics travel in
 * vector registers, which the slow path damages (args.h). */
int shim_classes_vector_slot(IMetaDataImport *md, const ilmap_sig_slot *s)
{
    if (s->repr != ILMAP_SIG_REPR_VALUE_TYPE || !s->token)
        return 0;
    char name[512];
    shim_values_type_name(md, s->token, name, sizeof name);
    return strncmp(name, "System.Runtime.Intrinsics.", 26) == 0 ||
           strncmp(name, "System.Numerics.", 16) == 0;
}

/* The underlying integer's element of an enum TypeDef of md (the type of
 * its instance field value__); 0 when td is no such enum. */
/* shim_classes_enum_element's walk: value__'s primitive element. */
static void enum_value_field(void *context, mdFieldDef field, const ilmap_sig_slot *slot)
{
    uint32_t *found = context;
    (void)field;
    if (!*found && slot->repr == ILMAP_SIG_REPR_PRIMITIVE &&
        shim_values_primitive_size(slot->element))
        *found = slot->element;
}

uint32_t shim_classes_enum_element(IMetaDataImport *md, mdToken td)
{
    if ((td & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u)
        return 0; /* a TypeRef or TypeSpec: another module's type */
    WCHAR name[8];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (FAILED(md->lpVtbl->GetTypeDefProps(md, td, name, 8, &len, &flags, &extends)) ||
        !extends)
        return 0;
    char base[512];
    shim_values_type_name(md, extends, base, sizeof base);
    if (strcmp(base, "System.Enum") != 0)
        return 0;
    uint32_t found = 0;
    shim_classes_instance_fields(md, td, "value__", enum_value_field, &found);
    return found;
}

static void learn_instance(shim_args *a, IMetaDataImport *md, ModuleID module,
                           const ilmap_sig_slot *s, const shim_classes_context *context);

void shim_classes_learn_value(shim_args *a, IMetaDataImport *md, const shim_args_value *v,
                              int depth, int lasting)
{
    if (!a || !md || !v)
        return;
    for (size_t i = 0; i < v->levels && i < SHIM_ARGS_LEVELS; i++) {
        const shim_args_desc *d = &v->level[i];
        if (lasting && d->slot.element == ILMAP_SIG_ELEMENT_GENERICINST &&
            d->slot.repr == ILMAP_SIG_REPR_VALUE_TYPE)
            learn_instance(a, md, d->module, &d->slot, NULL);
        if (d->slot.element == ILMAP_SIG_ELEMENT_VALUETYPE ||
            d->slot.element == ILMAP_SIG_ELEMENT_CLASS)
            shim_classes_learn_type(a, md, d->module, d->slot.token,
                                    d->slot.element == ILMAP_SIG_ELEMENT_VALUETYPE, depth);
    }
}

static void add_class(shim_args *a, shim_args_class *c)
{
    c->next = atomic_load_explicit(&a->classes, RELAXED);
    while (!atomic_compare_exchange_weak_explicit(&a->classes, &c->next, c,
                                                  memory_order_release, RELAXED)) {
    }
}

/* The first loaded module that defines a top-level TypeDef of that full
 * name (UTF-16), and its metadata (release it). */
static IMetaDataImport *find_typedef(shim_args *a, const WCHAR *name, ModuleID *owner,
                                     mdTypeDef *td)
{
    for (shim_args_module *m = atomic_load_explicit(&a->modules, memory_order_acquire); m;
         m = m->next) {
        ModuleID module = atomic_load_explicit(&m->module, RELAXED);
        IMetaDataImport *md = module ? shim_values_metadata(a, module) : NULL;
        if (!md)
            continue;
        if (md->lpVtbl->FindTypeDefByName(md, name, 0, td) == S_OK) {
            *owner = module;
            return md;
        }
        md->lpVtbl->Release(md);
    }
    return NULL;
}

/* The defining module, TypeDef and metadata (release it) of a type token
 * of module: its own TypeDef, or a top-level TypeRef found by full name
 * among the loaded modules (the runtime does not resolve TypeRefs given
 * to GetClassFromTokenAndTypeArgs, shim/FINDINGS.md seventh round). */
static IMetaDataImport *defining(shim_args *a, IMetaDataImport *md, ModuleID module,
                                 mdToken token, ModuleID *owner, mdTypeDef *td)
{
    if ((token & CLR_MD_TOKEN_TYPE_MASK) == 0x02000000u) {
        md->lpVtbl->AddRef(md);
        *owner = module;
        *td = token;
        return md;
    }
    WCHAR name[512];
    ULONG len = 0;
    mdToken scope = 0;
    if ((token & CLR_MD_TOKEN_TYPE_MASK) != 0x01000000u ||
        FAILED(md->lpVtbl->GetTypeRefProps(md, token, &scope, name, 512, &len)) || !len ||
        len > 512 || (scope & CLR_MD_TOKEN_TYPE_MASK) == 0x01000000u)
        return NULL;
    name[len - 1] = 0;
    return find_typedef(a, name, owner, td);
}

/* A value type another module defines, named by a TypeRef of module
 * (md): its ClassID asked for in the defining module, and if it is an
 * enum, its underlying integer read from that module's metadata. Nested
 * TypeRefs are not resolved. */
static void learn_foreign(shim_args *a, IMetaDataImport *md, ModuleID module, mdToken typeref)
{
    if (class_record(a, module, typeref))
        return;
    ICorProfilerInfo4 *info = a->info;
    ModuleID owner = 0;
    mdTypeDef td = 0;
    ClassID cls = 0;
    IMetaDataImport *other = defining(a, md, module, typeref, &owner, &td);
    if (!other ||
        FAILED(info->lpVtbl->GetClassFromTokenAndTypeArgs(info, owner, td, 0, NULL, &cls)) ||
        !cls) {
        if (other)
            other->lpVtbl->Release(other);
        shim_values_log_once(1u << 16, "a value type of another module not found among the "
                                       "loaded modules; such values reported as "
                                       "{\"class\":\"?\"}");
        return;
    }
    shim_args_class *c = calloc(1, sizeof *c);
    if (c) {
        c->module = module;
        c->token = typeref;
        c->cls = cls;
        c->enum_element = shim_classes_enum_element(other, td);
        add_class(a, c);
    }
    other->lpVtbl->Release(other);
}

/* CoreLib's full name of a primitive, string or object element. */
static const char *corelib_name(uint32_t element)
{
    switch (element) {
    case ILMAP_SIG_ELEMENT_BOOLEAN:
        return "System.Boolean";
    case ILMAP_SIG_ELEMENT_CHAR:
        return "System.Char";
    case ILMAP_SIG_ELEMENT_I1:
        return "System.SByte";
    case ILMAP_SIG_ELEMENT_U1:
        return "System.Byte";
    case ILMAP_SIG_ELEMENT_I2:
        return "System.Int16";
    case ILMAP_SIG_ELEMENT_U2:
        return "System.UInt16";
    case ILMAP_SIG_ELEMENT_I4:
        return "System.Int32";
    case ILMAP_SIG_ELEMENT_U4:
        return "System.UInt32";
    case ILMAP_SIG_ELEMENT_I8:
        return "System.Int64";
    case ILMAP_SIG_ELEMENT_U8:
        return "System.UInt64";
    case ILMAP_SIG_ELEMENT_I:
        return "System.IntPtr";
    case ILMAP_SIG_ELEMENT_U:
        return "System.UIntPtr";
    case ILMAP_SIG_ELEMENT_R4:
        return "System.Single";
    case ILMAP_SIG_ELEMENT_R8:
        return "System.Double";
    case ILMAP_SIG_ELEMENT_STRING:
        return "System.String";
    case ILMAP_SIG_ELEMENT_OBJECT:
        return "System.Object";
    default:
        return NULL;
    }
}

/* The ClassID of a non-generic type a type argument names (a primitive,
 * string or object by CoreLib's name; a class or struct token); 0 when
 * it cannot be had. */
static ClassID type_argument_class(shim_args *a, IMetaDataImport *md, ModuleID module,
                                   const ilmap_sig_slot *s)
{
    ICorProfilerInfo4 *info = a->info;
    ModuleID owner = 0;
    mdTypeDef td = 0;
    IMetaDataImport *other = NULL;
    const char *name = corelib_name(s->element);
    if (name) {
        WCHAR wname[64];
        if (shim_utf8_to_utf16(name, wname, sizeof wname / sizeof *wname) == 0)
            other = find_typedef(a, wname, &owner, &td);
    } else if (s->element == ILMAP_SIG_ELEMENT_VALUETYPE ||
               s->element == ILMAP_SIG_ELEMENT_CLASS) {
        other = defining(a, md, module, s->token, &owner, &td);
    }
    if (!other)
        return 0;
    other->lpVtbl->Release(other);
    ClassID cls = 0;
    if (FAILED(info->lpVtbl->GetClassFromTokenAndTypeArgs(info, owner, td, 0, NULL, &cls)))
        return 0;
    return cls;
}

/* The ClassID of the generic value type instantiated at the GENERICINST
 * slot s (KeyValuePair<int, string>), from the generic type's defining
 * module and the type arguments' ClassIDs; a type argument that is a
 * generic parameter is taken from context (the hooked body's), and
 * *per_body says one was. 0 when it cannot be had. */
static ClassID instance_class(shim_args *a, IMetaDataImport *md, ModuleID module,
                              const ilmap_sig_slot *s, const shim_classes_context *context,
                              int *per_body)
{
    ilmap_sig_node node, generic;
    *per_body = 0;
    if (s->node == ILMAP_SIG_NO_NODE || ilmap_sig_get_node(s->sig, s->node, &node) != ILMAP_OK ||
        node.element != ILMAP_SIG_ELEMENT_GENERICINST ||
        node.number > SHIM_VALUES_MAX_TYPE_ARGS ||
        ilmap_sig_get_node(s->sig, node.inner, &generic) != ILMAP_OK)
        return 0;
    ClassID args[SHIM_VALUES_MAX_TYPE_ARGS];
    for (uint32_t i = 0; i < node.number; i++) {
        uint32_t arg = 0;
        ilmap_sig_slot as;
        uint32_t kind = 0, index = 0;
        if (ilmap_sig_get_generic_arg(s->sig, s->node, i, &arg) != ILMAP_OK ||
            ilmap_sig_classify_type(s->sig, arg, NULL, 0, &as) != ILMAP_OK)
            return 0;
        if (as.repr == ILMAP_SIG_REPR_UNRESOLVED && shim_values_var_of(&as, &kind, &index)) {
            /* The body's own type argument (its mapper call said which). */
            const ClassID *given = !context                        ? NULL
                                   : kind == ILMAP_SIG_ELEMENT_VAR ? context->of_class
                                                                   : context->of_method;
            uint32_t count = !context                        ? 0
                             : kind == ILMAP_SIG_ELEMENT_VAR ? context->classes
                                                             : context->methods;
            if (!given || index >= count || !given[index])
                return 0;
            args[i] = given[index];
            *per_body = 1;
        } else if (!(args[i] = type_argument_class(a, md, module, &as))) {
            return 0;
        }
    }
    ModuleID owner = 0;
    mdTypeDef td = 0;
    ClassID cls = 0;
    IMetaDataImport *other = defining(a, md, module, generic.token, &owner, &td);
    if (!other)
        return 0;
    other->lpVtbl->Release(other);
    HRESULT hr = a->info->lpVtbl->GetClassFromTokenAndTypeArgs(a->info, owner, td, node.number,
                                                               args, &cls);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 17,
                             "GetClassFromTokenAndTypeArgs 0x%08X for a generic struct "
                             "instantiation; such values reported as {\"class\":\"?\"}",
                             (unsigned)hr);
        return 0;
    }
    return cls;
}

/* A generic value type instantiated at a GENERICINST slot of a hooked
 * method's signature (a signature that lives as long as the process):
 * its ClassID kept for that signature node (and body, when it depends on
 * the body's type arguments). */
static void learn_instance(shim_args *a, IMetaDataImport *md, ModuleID module,
                           const ilmap_sig_slot *s, const shim_classes_context *context)
{
    FunctionID function = context ? context->function : 0;
    int per_body = 0;
    if (instance_of(a, s->sig, s->node, function))
        return;
    ClassID cls = instance_class(a, md, module, s, context, &per_body);
    ilmap_sig_node generic, node;
    if (!cls || ilmap_sig_get_node(s->sig, s->node, &node) != ILMAP_OK ||
        ilmap_sig_get_node(s->sig, node.inner, &generic) != ILMAP_OK)
        return;
    shim_args_class *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->module = module;
    c->token = generic.token;
    c->cls = cls;
    c->sig = s->sig;
    c->node = s->node;
    c->function = per_body ? function : 0;
    add_class(a, c);
}

/* An instance field of a type of module whose type is a generic value
 * type instantiated over non-generic type arguments (a KeyValuePair<int,
 * string> field): its ClassID kept for the field's token, which the
 * value writer finds by the field (its decoded signature does not live
 * on). Over generic parameters (a Holder<T>'s KeyValuePair<T,int>): not
 * learned. */
static void learn_field_instance(shim_args *a, IMetaDataImport *md, ModuleID module,
                                 mdFieldDef field, const ilmap_sig_slot *s)
{
    int per_body = 0;
    if (shim_classes_field(a, module, field))
        return;
    ClassID cls = instance_class(a, md, module, s, NULL, &per_body);
    if (!cls)
        return;
    shim_args_class *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->module = module;
    c->token = field;
    c->cls = cls;
    add_class(a, c);
}

ClassID shim_classes_field(shim_args *a, ModuleID module, mdFieldDef field)
{
    return a && (field & CLR_MD_TOKEN_TYPE_MASK) == 0x04000000u
               ? shim_classes_of(a, module, field)
               : 0;
}

void shim_classes_learn_body(shim_args *a, IMetaDataImport *md, const shim_args_value *v,
                             const shim_classes_context *context)
{
    if (!a || !md || !v || !context)
        return;
    for (size_t i = 0; i < v->levels && i < SHIM_ARGS_LEVELS; i++) {
        const shim_args_desc *d = &v->level[i];
        if (d->slot.element == ILMAP_SIG_ELEMENT_GENERICINST &&
            d->slot.repr == ILMAP_SIG_REPR_VALUE_TYPE)
            learn_instance(a, md, d->module, &d->slot, context);
    }
}

/* Is a field whose GetFieldProps name is fname (flen characters asked for,
 * at most 16 kept) called name? */
static int field_named(const WCHAR *fname, ULONG flen, const char *name)
{
    char utf8[64];
    shim_utf16_to_utf8(fname, flen < 16 ? flen : 16, utf8, sizeof utf8);
    return strcmp(utf8, name) == 0;
}

void shim_classes_instance_fields(IMetaDataImport *md, mdTypeDef td, const char *name,
                                  shim_classes_field_fn fn, void *context)
{
    if (!md || !fn)
        return;
    HCORENUM e = NULL;
    mdFieldDef fields[32];
    ULONG count = 0;
    while (md->lpVtbl->EnumFields(md, &e, td, fields, 32, &count) == S_OK && count) {
        for (ULONG i = 0; i < count; i++) {
            WCHAR fname[16];
            ULONG flen = 0, sig_size = 0, value_len = 0;
            DWORD attr = 0, elem_type = 0;
            PCCOR_SIGNATURE sig = NULL;
            const void *value = NULL;
            mdTypeDef owner = 0;
            ilmap_sig *fs = NULL;
            ilmap_sig_slot slot;
            if (SUCCEEDED(md->lpVtbl->GetFieldProps(md, fields[i], &owner, fname, 16, &flen,
                                                    &attr, &sig, &sig_size, &elem_type, &value,
                                                    &value_len)) &&
                (!name || field_named(fname, flen, name)) &&
                sig && !(attr & ILMAP_SIG_FIELD_STATIC) &&
                ilmap_sig_decode(sig, sig_size, 0, &fs, NULL, NULL) == ILMAP_OK &&
                ilmap_sig_get_kind(fs) == ILMAP_SIG_KIND_FIELD &&
                ilmap_sig_classify(fs, NULL, 0, 1, &(size_t){0}, &slot) == ILMAP_OK)
                fn(context, fields[i], &slot);
            ilmap_sig_free(fs);
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
}

int shim_classes_id_info(shim_args *a, ClassID cls, ModuleID *module, mdTypeDef *td,
                         ClassID *args, ULONG32 *n)
{
    *module = 0;
    *td = 0;
    *n = 0;
    if (!a || !a->info || !cls ||
        FAILED(a->info->lpVtbl->GetClassIDInfo2(a->info, cls, module, td, NULL,
                                                SHIM_VALUES_MAX_TYPE_ARGS, n, args)) ||
        !*module || (*td & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u ||
        *n > SHIM_VALUES_MAX_TYPE_ARGS) {
        *n = 0;
        return -1;
    }
    return 0;
}

/* shim_classes_learn_type's walk: each instance field's type learned too. */
typedef struct shim_classes_type_walk {
    shim_args *a;
    IMetaDataImport *md;
    ModuleID module;
    int depth;
} shim_classes_type_walk;

static void learn_type_field(void *context, mdFieldDef field, const ilmap_sig_slot *slot)
{
    const shim_classes_type_walk *w = context;
    shim_args_value fv;
    if (slot->element == ILMAP_SIG_ELEMENT_GENERICINST && slot->repr == ILMAP_SIG_REPR_VALUE_TYPE)
        learn_field_instance(w->a, w->md, w->module, field, slot);
    shim_values_describe(w->md, w->module, slot, &fv);
    shim_classes_learn_value(w->a, w->md, &fv, w->depth + 1, 0);
}

/* Learns the ClassID of a struct type of md (a TypeDef of module) and,
 * for structs and classes, of the struct types of their instance fields,
 * to SHIM_VALUES_MAX_DEPTH levels (classes.h). */
void shim_classes_learn_type(shim_args *a, IMetaDataImport *md, ModuleID module, mdToken token,
                             int value_type, int depth)
{
    if (depth > SHIM_VALUES_MAX_DEPTH)
        return;
    if ((token & CLR_MD_TOKEN_TYPE_MASK) == 0x01000000u) {
        /* Another module's type: only value types need a ClassID (and
         * their fields' struct types are that module's business: their
         * ClassIDs come from the loaded class's own layout). */
        if (value_type)
            learn_foreign(a, md, module, token);
        return;
    }
    if ((token & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u)
        return;
    if (value_type) {
        if (shim_classes_of(a, module, token) || shim_classes_enum_element(md, token))
            return;
        ClassID cls = 0;
        HRESULT hr = a->info->lpVtbl->GetClassFromTokenAndTypeArgs(a->info, module, token, 0,
                                                                   NULL, &cls);
        if (FAILED(hr) || !cls)
            return; /* a generic struct, for one: reported as {"class":"?"} */
        shim_args_class *c = calloc(1, sizeof *c);
        if (!c)
            return;
        c->module = module;
        c->token = token;
        c->cls = cls;
        c->next = atomic_load_explicit(&a->classes, RELAXED);
        while (!atomic_compare_exchange_weak_explicit(&a->classes, &c->next, c,
                                                      memory_order_release, RELAXED)) {
        }
    }
    shim_classes_type_walk walk = {a, md, module, depth};
    shim_classes_instance_fields(md, token, NULL, learn_type_field, &walk);
}

ClassID shim_classes_field_in(shim_args *a, ClassID owner, mdFieldDef field)
{
    if (!a || !owner)
        return 0;
    for (shim_args_class *c = atomic_load_explicit(&a->classes, memory_order_acquire); c;
         c = c->next)
        if (c->owner == owner && c->token == field)
            return c->cls;
    return 0;
}

ClassID shim_classes_instance(shim_args *a, IMetaDataImport *md, ModuleID module,
                              const ilmap_sig_slot *s, const ClassID *of_class,
                              uint32_t classes)
{
    if (!a || !md || !s)
        return 0;
    shim_classes_context context = {0, of_class, NULL, classes, 0};
    int per_body = 0;
    return instance_class(a, md, module, s, &context, &per_body);
}

int shim_classes_is_open(shim_args *a, const ClassID *args, uint32_t n)
{
    ICorProfilerInfo4 *info = a->info;
    for (uint32_t i = 0; i < n; i++) {
        ModuleID module = 0;
        mdTypeDef td = 0;
        int32_t element = 0;
        ClassID element_class = 0;
        ULONG rank = 0;
        if (info->lpVtbl->IsArrayClass(info, args[i], &element, &element_class, &rank) == S_OK)
            continue;
        if (FAILED(info->lpVtbl->GetClassIDInfo(info, args[i], &module, &td)) || !module ||
            (td & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u)
            return 1;
    }
    return 0;
}

/* shim_classes_learn_instantiation's walk: the generic struct fields of
 * one instantiation, over its type arguments. */
typedef struct shim_classes_inst_walk {
    shim_args *a;
    IMetaDataImport *md;
    ModuleID module;
    ClassID cls;
    const ClassID *args;
    uint32_t n;
} shim_classes_inst_walk;

static void learn_inst_field(void *context, mdFieldDef field, const ilmap_sig_slot *slot)
{
    const shim_classes_inst_walk *w = context;
    if (slot->element != ILMAP_SIG_ELEMENT_GENERICINST ||
        slot->repr != ILMAP_SIG_REPR_VALUE_TYPE || shim_classes_field_in(w->a, w->cls, field))
        return;
    ClassID field_cls = shim_classes_instance(w->a, w->md, w->module, slot, w->args, w->n);
    shim_args_class *c = field_cls ? calloc(1, sizeof *c) : NULL;
    if (c) {
        c->token = field;
        c->cls = field_cls;
        c->owner = w->cls;
        add_class(w->a, c);
    }
}

void shim_classes_learn_instantiation(shim_args *a, ClassID cls)
{
    ModuleID module = 0;
    mdTypeDef td = 0;
    ClassID args[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 n = 0;
    if (shim_classes_id_info(a, cls, &module, &td, args, &n) || !n ||
        shim_classes_is_open(a, args, n))
        return;
    IMetaDataImport *md = shim_values_metadata(a, module);
    if (!md)
        return;
    shim_classes_inst_walk walk = {a, md, module, cls, args, n};
    shim_classes_instance_fields(md, td, NULL, learn_inst_field, &walk);
    md->lpVtbl->Release(md);
}
