/*
 * Argument and return-value reports; see args.h. Everything the hooks do
 * may run on any thread at once: the targets are an append-only list, the
 * call counters atomics, the per-call state thread-local; a failure logs
 * (once per kind) and the value or the line is skipped.
 */
#include "profiler/args.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "com/guids.h"
#include "profiler/log.h"
#include "profiler/resolve.h"
#include "profiler/text.h"

#define RELAXED memory_order_relaxed

/* Strings longer than this many UTF-16 units are reported by length. */
#define MAX_STRING_CHARS 4096u
/* Calls a thread can have open (entered, not left) at once. */
#define STACK_DEPTH 64u
/* Arrays longer than this are reported by length. */
#define MAX_ARRAY_ELEMENTS 1024u
/* Objects and structs nested deeper than this are reported by class. */
#define MAX_OBJECT_DEPTH 3
/* Parent classes followed, fields per class read. */
#define MAX_CLASS_CHAIN 32u
#define MAX_FIELDS 256u

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

/* ---- Growable text --------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void putf(text *t, const char *fmt, ...) SHIM_PRINTF(2, 3);
static void putf(text *t, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A UTF-16 code unit sequence as a JSON string: UTF-8 for every valid
 * character, \uXXXX for controls and for unpaired surrogates. */
static void put_utf16_json(text *t, const WCHAR *s, size_t n)
{
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s[i];
        char b[8];
        if (c == '"' || c == '\\') {
            b[0] = '\\';
            b[1] = (char)c;
            put(t, b, 2);
        } else if (c < 0x20) {
            putf(t, "\\u%04x", (unsigned)c);
        } else if (c < 0x80) {
            b[0] = (char)c;
            put(t, b, 1);
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | c >> 6);
            b[1] = (char)(0x80 | (c & 0x3F));
            put(t, b, 2);
        } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 &&
                   s[i + 1] <= 0xDFFF) {
            uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
            i++;
            b[0] = (char)(0xF0 | cp >> 18);
            b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
            b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
            b[3] = (char)(0x80 | (cp & 0x3F));
            put(t, b, 4);
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            putf(t, "\\u%04x", (unsigned)c); /* unpaired: kept as is */
        } else {
            b[0] = (char)(0xE0 | c >> 12);
            b[1] = (char)(0x80 | (c >> 6 & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
            put(t, b, 3);
        }
    }
    put(t, "\"", 1);
}

/* A float as a JSON number that reads back to the same value. */
static void put_double(text *t, double v, int digits)
{
    if (isnan(v))
        puts_(t, "\"NaN\"");
    else if (isinf(v))
        puts_(t, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (v == 0 && signbit(v))
        puts_(t, "-0.0"); /* "-0" would read back as the integer 0 in some parsers */
    else
        putf(t, "%.*g", digits, v);
}

/* ---- Reading values --------------------------------------------------- */

/* Logs each kind of failure once. */
static atomic_uint logged;
static void log_once(unsigned bit, const char *fmt, ...) SHIM_PRINTF(2, 3);
static void log_once(unsigned bit, const char *fmt, ...)
{
    if (atomic_fetch_or(&logged, bit) & bit)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    shim_log("args: %s (logged once)", buf);
}

/* The full name of a TypeDef or TypeRef token in md ("?" when unknown). */
static void token_type_name(IMetaDataImport *md, mdToken tok, char *out, size_t cap)
{
    snprintf(out, cap, "?");
    if ((tok & CLR_MD_TOKEN_TYPE_MASK) == 0x02000000u) {
        shim_type_full_name(md, tok, out, cap);
    } else if ((tok & CLR_MD_TOKEN_TYPE_MASK) == 0x01000000u) {
        WCHAR name[512];
        ULONG len = 0;
        mdToken scope = 0;
        if (SUCCEEDED(md->lpVtbl->GetTypeRefProps(md, tok, &scope, name, 512, &len)))
            shim_utf16_to_utf8(name, len < 512 ? len : 512, out, cap);
    }
}

/* "{"class":"Ns.Type"}" of an object, from its runtime class. */
static void put_object_class(shim_args *a, text *t, ObjectID obj)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdTypeDef td = 0;
    char name[512] = "?";
    ICorProfilerInfo4 *info = a->info;
    if (SUCCEEDED(info->lpVtbl->GetClassFromObject(info, obj, &cls)) &&
        SUCCEEDED(info->lpVtbl->GetClassIDInfo(info, cls, &module, &td)) && module && td) {
        IUnknown *unk = NULL;
        if (info->lpVtbl->GetModuleMetaData(info, module, CLR_OF_READ, &IID_IMetaDataImport,
                                            &unk) == S_OK &&
            unk) {
            IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
            shim_type_full_name(md, td, name, sizeof name);
            md->lpVtbl->Release(md);
        }
    }
    /* td 0: arrays and other classes without a TypeDef of their own. */
    char safe[600];
    shim_json_escape(safe, sizeof safe, name);
    putf(t, "{\"class\":\"%.500s\"}", safe);
}

static void put_string(shim_args *a, text *t, ObjectID obj)
{
    ULONG len_off = 0, buf_off = 0;
    if (FAILED(a->info->lpVtbl->GetStringLayout2(a->info, &len_off, &buf_off))) {
        log_once(1u << 0, "GetStringLayout2 failed; strings reported by class");
        put_object_class(a, t, obj);
        return;
    }
    uint32_t n;
    memcpy(&n, (const char *)obj + len_off, sizeof n);
    if (n > MAX_STRING_CHARS) {
        putf(t, "{\"class\":\"System.String\",\"length\":%" PRIu32 "}", n);
        return;
    }
    WCHAR chars[MAX_STRING_CHARS];
    memcpy(chars, (const char *)obj + buf_off, (size_t)n * sizeof(WCHAR));
    put_utf16_json(t, chars, n);
}

/* The size of a primitive element; 0 for any other. */
static size_t primitive_size(uint32_t element)
{
    switch (element) {
    case ILMAP_SIG_ELEMENT_BOOLEAN:
    case ILMAP_SIG_ELEMENT_I1:
    case ILMAP_SIG_ELEMENT_U1:
        return 1;
    case ILMAP_SIG_ELEMENT_CHAR:
    case ILMAP_SIG_ELEMENT_I2:
    case ILMAP_SIG_ELEMENT_U2:
        return 2;
    case ILMAP_SIG_ELEMENT_I4:
    case ILMAP_SIG_ELEMENT_U4:
    case ILMAP_SIG_ELEMENT_R4:
        return 4;
    case ILMAP_SIG_ELEMENT_I8:
    case ILMAP_SIG_ELEMENT_U8:
    case ILMAP_SIG_ELEMENT_R8:
        return 8;
    case ILMAP_SIG_ELEMENT_I:
    case ILMAP_SIG_ELEMENT_U:
        return sizeof(void *);
    default:
        return 0;
    }
}

/* A primitive of the element's type at p (primitive_size bytes). */
static void put_primitive(text *t, uint32_t element, const void *p)
{
    size_t size = primitive_size(element);
    switch (element) {
    case ILMAP_SIG_ELEMENT_BOOLEAN: {
        uint8_t v;
        memcpy(&v, p, 1);
        puts_(t, v ? "true" : "false");
        return;
    }
    case ILMAP_SIG_ELEMENT_CHAR: {
        WCHAR v;
        memcpy(&v, p, 2);
        put_utf16_json(t, &v, 1);
        return;
    }
    case ILMAP_SIG_ELEMENT_I1: {
        int8_t v;
        memcpy(&v, p, 1);
        putf(t, "%d", v);
        return;
    }
    case ILMAP_SIG_ELEMENT_U1: {
        uint8_t v;
        memcpy(&v, p, 1);
        putf(t, "%u", v);
        return;
    }
    case ILMAP_SIG_ELEMENT_I2: {
        int16_t v;
        memcpy(&v, p, 2);
        putf(t, "%d", v);
        return;
    }
    case ILMAP_SIG_ELEMENT_U2: {
        uint16_t v;
        memcpy(&v, p, 2);
        putf(t, "%u", v);
        return;
    }
    case ILMAP_SIG_ELEMENT_I4: {
        int32_t v;
        memcpy(&v, p, 4);
        putf(t, "%" PRId32, v);
        return;
    }
    case ILMAP_SIG_ELEMENT_U4: {
        uint32_t v;
        memcpy(&v, p, 4);
        putf(t, "%" PRIu32, v);
        return;
    }
    case ILMAP_SIG_ELEMENT_R4: {
        float v;
        memcpy(&v, p, 4);
        put_double(t, v, 9);
        return;
    }
    case ILMAP_SIG_ELEMENT_R8: {
        double v;
        memcpy(&v, p, 8);
        put_double(t, v, 17);
        return;
    }
    case ILMAP_SIG_ELEMENT_I8:
    case ILMAP_SIG_ELEMENT_I: {
        if (size == 8) {
            int64_t v;
            memcpy(&v, p, 8);
            putf(t, "\"%" PRId64 "\"", v);
        } else {
            int32_t v;
            memcpy(&v, p, 4);
            putf(t, "\"%" PRId32 "\"", v);
        }
        return;
    }
    case ILMAP_SIG_ELEMENT_U8:
    case ILMAP_SIG_ELEMENT_U: {
        if (size == 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            putf(t, "\"%" PRIu64 "\"", v);
        } else {
            uint32_t v;
            memcpy(&v, p, 4);
            putf(t, "\"%" PRIu32 "\"", v);
        }
        return;
    }
    default:
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
}

/* How many bytes a value of d takes in memory (an array element, a byref's
 * target); 0 when this slice cannot read it. */
static size_t desc_size(const shim_args_desc *d)
{
    if (d->slot.repr == ILMAP_SIG_REPR_PRIMITIVE)
        return primitive_size(d->slot.element);
    if (d->slot.repr == ILMAP_SIG_REPR_VALUE_TYPE)
        return primitive_size(d->enum_element);
    if (d->slot.repr == ILMAP_SIG_REPR_OBJECT_ID)
        return sizeof(ObjectID);
    return 0;
}

static void put_value(shim_args *a, text *t, const shim_args_desc *d,
                      const shim_args_desc *inner, const void *p, size_t length, int depth);
static void describe(IMetaDataImport *md, ModuleID module, const ilmap_sig_slot *slot,
                     shim_args_value *v);
static void put_object(shim_args *a, text *t, ObjectID obj, int depth);
static void put_struct(shim_args *a, text *t, const shim_args_desc *d, const void *p,
                       size_t length, int depth);

/* A one-dimension array's elements as a JSON array. */
static void put_array(shim_args *a, text *t, ObjectID obj, const shim_args_desc *elem,
                      int depth)
{
    size_t esize = desc_size(elem);
    ULONG32 n = 0;
    int lower = 0;
    BYTE *data = NULL;
    HRESULT hr = esize ? a->info->lpVtbl->GetArrayObjectInfo(a->info, obj, 1, &n, &lower, &data)
                       : E_FAIL;
    if (!esize) {
        put_object_class(a, t, obj);
        return;
    }
    if (FAILED(hr) || (n && !data)) {
        log_once(1u << 5, "GetArrayObjectInfo 0x%08X; arrays reported as {\"class\":\"?\"}",
                 (unsigned)hr);
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
    if (n > MAX_ARRAY_ELEMENTS) {
        putf(t, "{\"class\":\"?\",\"length\":%" PRIu32 "}", (uint32_t)n);
        return;
    }
    puts_(t, "[");
    for (ULONG32 i = 0; i < n; i++) {
        if (i)
            puts_(t, ",");
        put_value(a, t, elem, NULL, data + (size_t)i * esize, esize, depth);
    }
    puts_(t, "]");
}

/* One value described by d from length bytes at p; inner describes a
 * BYREF's target or an SZARRAY's elements (NULL: none). */
static void put_value(shim_args *a, text *t, const shim_args_desc *d,
                      const shim_args_desc *inner, const void *p, size_t length, int depth)
{
    const ilmap_sig_slot *s = &d->slot;
    if (!p || (s->size && length < s->size)) {
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
    switch (s->repr) {
    case ILMAP_SIG_REPR_OBJECT_ID: {
        ObjectID obj;
        memcpy(&obj, p, sizeof obj);
        if (!obj)
            puts_(t, "null");
        else if (s->element == ILMAP_SIG_ELEMENT_STRING)
            put_string(a, t, obj);
        else if (s->element == ILMAP_SIG_ELEMENT_SZARRAY && inner)
            put_array(a, t, obj, inner, depth);
        else
            put_object(a, t, obj, depth);
        return;
    }
    case ILMAP_SIG_REPR_PRIMITIVE:
        put_primitive(t, s->element, p);
        return;
    case ILMAP_SIG_REPR_VALUE_TYPE:
        if (d->enum_element && length >= primitive_size(d->enum_element))
            put_primitive(t, d->enum_element, p);
        else if (d->enum_element)
            puts_(t, "{\"class\":\"?\"}");
        else
            put_struct(a, t, d, p, length, depth);
        return;
    case ILMAP_SIG_REPR_MANAGED_PTR: {
        /* The range holds the managed pointer; its target is read as the
         * pointed-to type says (not past that type's size). */
        uintptr_t target;
        memcpy(&target, p, sizeof target);
        size_t size = inner ? desc_size(inner) : 0;
        puts_(t, "{\"ref\":");
        if (!target)
            puts_(t, "null");
        else if (!size)
            puts_(t, "{\"class\":\"?\"}");
        else
            put_value(a, t, inner, NULL, (const void *)target, size, depth);
        puts_(t, "}");
        return;
    }
    case ILMAP_SIG_REPR_UNMANAGED_PTR:
    case ILMAP_SIG_REPR_OPAQUE_PTR: {
        uintptr_t v;
        memcpy(&v, p, sizeof v);
        putf(t, "\"0x%" PRIxPTR "\"", v);
        return;
    }
    default:
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
}

/* ---- Objects and structs by their fields ------------------------------ */

/* The learned ClassID of a struct type, or 0. Lock-free. */
static ClassID class_of(shim_args *a, ModuleID module, mdToken token)
{
    for (shim_args_class *c = atomic_load_explicit(&a->classes, memory_order_acquire); c;
         c = c->next)
        if (c->module == module && c->token == token)
            return c->cls;
    return 0;
}

/* The module's metadata (release it), or NULL. */
static IMetaDataImport *open_metadata(shim_args *a, ModuleID module)
{
    IUnknown *unk = NULL;
    if (a->info->lpVtbl->GetModuleMetaData(a->info, module, CLR_OF_READ, &IID_IMetaDataImport,
                                           &unk) != S_OK)
        return NULL;
    return (IMetaDataImport *)(void *)unk;
}

/* "{"class":"Ns.Type"" of a ClassID (no closing brace). */
static void put_class_head(shim_args *a, text *t, ClassID cls)
{
    char name[512] = "?";
    ModuleID module = 0;
    mdTypeDef td = 0;
    if (SUCCEEDED(a->info->lpVtbl->GetClassIDInfo(a->info, cls, &module, &td)) && module &&
        td) {
        IMetaDataImport *md = open_metadata(a, module);
        if (md) {
            shim_type_full_name(md, td, name, sizeof name);
            md->lpVtbl->Release(md);
        }
    }
    char safe[600];
    shim_json_escape(safe, sizeof safe, name);
    putf(t, "{\"class\":\"%.500s\"", safe);
}

/* The instance fields cls declares itself, as "name":V pairs, read at
 * base + each field's offset (never at or past avail). */
static void put_class_fields(shim_args *a, text *t, ClassID cls, const uint8_t *base,
                             size_t avail, int depth, int *first)
{
    ICorProfilerInfo4 *info = a->info;
    ModuleID module = 0;
    mdTypeDef td = 0;
    ULONG total = 0, size = 0;
    if (FAILED(info->lpVtbl->GetClassIDInfo(info, cls, &module, &td)) || !module)
        return;
    HRESULT hr = info->lpVtbl->GetClassLayout(info, cls, NULL, 0, &total, &size);
    if (FAILED(hr)) {
        log_once(1u << 6, "GetClassLayout 0x%08X; some classes' fields left out", (unsigned)hr);
        return;
    }
    if (!total)
        return;
    if (total > MAX_FIELDS) {
        log_once(1u << 7, "a class with %u fields; classes with more than %u left out",
                 (unsigned)total, MAX_FIELDS);
        return;
    }
    COR_FIELD_OFFSET fields[MAX_FIELDS];
    ULONG got = 0;
    IMetaDataImport *md = open_metadata(a, module);
    if (!md || FAILED(info->lpVtbl->GetClassLayout(info, cls, fields, total, &got, &size))) {
        if (md)
            md->lpVtbl->Release(md);
        log_once(1u << 8, "no layout or metadata for a class; its fields left out");
        return;
    }
    for (ULONG i = 0; i < got && i < total; i++) {
        WCHAR wname[256];
        ULONG len = 0, sig_size = 0, value_len = 0;
        DWORD attr = 0, elem_type = 0;
        PCCOR_SIGNATURE sig = NULL;
        const void *value = NULL;
        mdTypeDef owner = 0;
        if (FAILED(md->lpVtbl->GetFieldProps(md, fields[i].ridOfField, &owner, wname, 256, &len,
                                             &attr, &sig, &sig_size, &elem_type, &value,
                                             &value_len)) ||
            (attr & ILMAP_SIG_FIELD_STATIC))
            continue;
        char name[512], safe[600];
        shim_utf16_to_utf8(wname, len < 256 ? len : 256, name, sizeof name);
        shim_json_escape(safe, sizeof safe, name);
        putf(t, "%s\"%.500s\":", *first ? "" : ",", safe);
        *first = 0;
        ilmap_sig *fs = NULL;
        ilmap_sig_slot slot;
        shim_args_value v;
        memset(&v, 0, sizeof v);
        if (!sig || fields[i].ulOffset >= avail ||
            ilmap_sig_decode(sig, sig_size, 0, &fs, NULL, NULL) != ILMAP_OK ||
            ilmap_sig_classify(fs, NULL, 0, 1, &(size_t){0}, &slot) != ILMAP_OK) {
            puts_(t, "{\"class\":\"?\"}");
        } else {
            describe(md, module, &slot, &v);
            put_value(a, t, &v.top, v.inner.slot.repr == ILMAP_SIG_REPR_VOID ? NULL : &v.inner,
                      base + fields[i].ulOffset, avail - fields[i].ulOffset, depth + 1);
        }
        ilmap_sig_free(fs);
    }
    md->lpVtbl->Release(md);
}

/* {"class":"Ns.Type","fields":{...}} of a value of class cls whose fields
 * are at base (avail bytes); past MAX_OBJECT_DEPTH only the class. */
static void put_fields(shim_args *a, text *t, ClassID cls, const uint8_t *base, size_t avail,
                       int depth)
{
    put_class_head(a, t, cls);
    if (depth > MAX_OBJECT_DEPTH) {
        puts_(t, "}");
        return;
    }
    ClassID chain[MAX_CLASS_CHAIN];
    size_t n = 0;
    for (ClassID c = cls; c && n < MAX_CLASS_CHAIN;) {
        ModuleID module = 0;
        mdTypeDef td = 0;
        ClassID parent = 0;
        ULONG32 type_args = 0;
        chain[n++] = c;
        if (FAILED(a->info->lpVtbl->GetClassIDInfo2(a->info, c, &module, &td, &parent, 0,
                                                    &type_args, NULL)))
            break;
        c = parent;
    }
    puts_(t, ",\"fields\":{");
    int first = 1;
    for (size_t i = n; i-- > 0;)
        put_class_fields(a, t, chain[i], base, avail, depth, &first);
    puts_(t, "}}");
}

/* An object by its runtime class: a string as a string, a boxed value
 * type as that type's fields, any other class with a TypeDef as its
 * fields and its parents'; arrays and the like by class. */
static void put_object(shim_args *a, text *t, ObjectID obj, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0;
    ModuleID module = 0;
    mdTypeDef td = 0;
    if (FAILED(info->lpVtbl->GetClassFromObject(info, obj, &cls)) ||
        FAILED(info->lpVtbl->GetClassIDInfo(info, cls, &module, &td)) || !module || !td) {
        put_object_class(a, t, obj);
        return;
    }
    char name[64] = "";
    IMetaDataImport *md = open_metadata(a, module);
    if (md) {
        shim_type_full_name(md, td, name, sizeof name);
        md->lpVtbl->Release(md);
    }
    if (strcmp(name, "System.String") == 0) {
        put_string(a, t, obj);
        return;
    }
    SIZE_T size = 0;
    HRESULT hr = info->lpVtbl->GetObjectSize2(info, obj, &size);
    if (FAILED(hr)) {
        log_once(1u << 9, "GetObjectSize2 0x%08X; objects reported by class", (unsigned)hr);
        put_object_class(a, t, obj);
        return;
    }
    const uint8_t *base = (const uint8_t *)obj;
    ULONG32 offset = 0;
    if (SUCCEEDED(info->lpVtbl->GetBoxClassLayout(info, cls, &offset))) {
        if (offset > size) {
            put_object_class(a, t, obj);
            return;
        }
        base += offset;
        size -= offset;
    }
    put_fields(a, t, cls, base, size, depth);
}

/* A struct passed by value (its bytes at p, length of them), by the
 * fields of its class: only value types defined in the slot's module
 * and not generic (their ClassID comes from the TypeDef). */
static void put_struct(shim_args *a, text *t, const shim_args_desc *d, const void *p,
                       size_t length, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0;
    ULONG total = 0, size = 0;
    if (d->slot.element != ILMAP_SIG_ELEMENT_VALUETYPE ||
        (d->slot.token & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u || !d->module) {
        puts_(t, "{\"class\":\"?\"}"); /* another module's or a generic struct */
        return;
    }
    cls = class_of(a, d->module, d->slot.token);
    if (!cls) {
        log_once(1u << 11, "a struct type whose ClassID was not learned at the mapper (a "
                           "field of a derived class?); such structs reported as "
                           "{\"class\":\"?\"}");
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
    HRESULT hr = info->lpVtbl->GetClassLayout(info, cls, NULL, 0, &total, &size);
    if (FAILED(hr) || size > length) {
        log_once(1u << 10, "a struct of %u bytes in %zu (GetClassLayout 0x%08X); reported as "
                           "{\"class\":\"?\"}",
                 (unsigned)size, length, (unsigned)hr);
        puts_(t, "{\"class\":\"?\"}");
        return;
    }
    put_fields(a, t, cls, (const uint8_t *)p, size, depth);
}

/* One argument's or return value's range. */
static void put_range(shim_args *a, text *t, const shim_args_value *v, UINT_PTR at,
                      ULONG length)
{
    put_value(a, t, &v->top, v->inner.slot.repr == ILMAP_SIG_REPR_VOID ? NULL : &v->inner,
              (const void *)at, length, 1);
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

/* Is the declaring type td a value type (it extends System.ValueType, or
 * System.Enum)? */
static int is_value_type(IMetaDataImport *md, mdTypeDef td)
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
    token_type_name(md, extends, base, sizeof base);
    char self[512];
    shim_type_full_name(md, td, self, sizeof self);
    if (strcmp(self, "System.Enum") == 0)
        return 0;
    return strcmp(base, "System.ValueType") == 0 || strcmp(base, "System.Enum") == 0;
}

/* Value types of System.Runtime.Intrinsics and System.Numerics travel in
 * vector registers, which the slow path damages (args.h). */
static int vector_slot(IMetaDataImport *md, const ilmap_sig_slot *s)
{
    if (s->repr != ILMAP_SIG_REPR_VALUE_TYPE || !s->token)
        return 0;
    char name[512];
    token_type_name(md, s->token, name, sizeof name);
    return strncmp(name, "System.Runtime.Intrinsics.", 26) == 0 ||
           strncmp(name, "System.Numerics.", 16) == 0;
}

/* The underlying integer's element of an enum TypeDef of md (the type of
 * its instance field value__); 0 when td is no such enum. */
static uint32_t enum_element(IMetaDataImport *md, mdToken td)
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
    token_type_name(md, extends, base, sizeof base);
    if (strcmp(base, "System.Enum") != 0)
        return 0;
    HCORENUM e = NULL;
    mdFieldDef fields[16];
    ULONG count = 0;
    uint32_t found = 0;
    while (!found && md->lpVtbl->EnumFields(md, &e, td, fields, 16, &count) == S_OK && count) {
        for (ULONG i = 0; i < count && !found; i++) {
            WCHAR fname[16];
            ULONG flen = 0, sig_size = 0, value_len = 0;
            DWORD attr = 0, elem_type = 0;
            PCCOR_SIGNATURE sig = NULL;
            const void *value = NULL;
            mdTypeDef owner = 0;
            if (FAILED(md->lpVtbl->GetFieldProps(md, fields[i], &owner, fname, 16, &flen, &attr,
                                                 &sig, &sig_size, &elem_type, &value,
                                                 &value_len)) ||
                !sig || (attr & ILMAP_SIG_FIELD_STATIC))
                continue;
            char fn[64];
            shim_utf16_to_utf8(fname, flen < 16 ? flen : 16, fn, sizeof fn);
            if (strcmp(fn, "value__") != 0)
                continue;
            ilmap_sig *fs = NULL;
            ilmap_sig_slot slot;
            if (ilmap_sig_decode(sig, sig_size, 0, &fs, NULL, NULL) == ILMAP_OK &&
                ilmap_sig_classify(fs, NULL, 0, 1, &(size_t){0}, &slot) == ILMAP_OK &&
                slot.repr == ILMAP_SIG_REPR_PRIMITIVE && primitive_size(slot.element))
                found = slot.element;
            ilmap_sig_free(fs);
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    return found;
}

/* What metadata adds to one classified value. */
static void describe(IMetaDataImport *md, ModuleID module, const ilmap_sig_slot *slot,
                     shim_args_value *v)
{
    v->top.slot = *slot;
    v->top.module = v->inner.module = module;
    if (slot->repr == ILMAP_SIG_REPR_VALUE_TYPE && slot->element == ILMAP_SIG_ELEMENT_VALUETYPE)
        v->top.enum_element = enum_element(md, slot->token);
    ilmap_sig_node node;
    if ((slot->element != ILMAP_SIG_ELEMENT_BYREF && slot->element != ILMAP_SIG_ELEMENT_SZARRAY) ||
        slot->node == ILMAP_SIG_NO_NODE ||
        ilmap_sig_get_node(slot->sig, slot->node, &node) != ILMAP_OK ||
        node.inner == ILMAP_SIG_NO_NODE ||
        ilmap_sig_classify_type(slot->sig, node.inner, NULL, 0, &v->inner.slot) != ILMAP_OK) {
        v->inner.slot.repr = ILMAP_SIG_REPR_VOID;
        return;
    }
    if (v->inner.slot.repr == ILMAP_SIG_REPR_VALUE_TYPE &&
        v->inner.slot.element == ILMAP_SIG_ELEMENT_VALUETYPE)
        v->inner.enum_element = enum_element(md, v->inner.slot.token);
}

/* Learns the ClassID of a struct type of md (a TypeDef of module) and,
 * for structs and classes, of the struct types of their instance fields,
 * to MAX_OBJECT_DEPTH levels. */
static void learn_type(shim_args *a, IMetaDataImport *md, ModuleID module, mdToken token,
                       int value_type, int depth)
{
    if (depth > MAX_OBJECT_DEPTH || (token & CLR_MD_TOKEN_TYPE_MASK) != 0x02000000u)
        return;
    if (value_type) {
        if (class_of(a, module, token) || enum_element(md, token))
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
    HCORENUM e = NULL;
    mdFieldDef fields[32];
    ULONG count = 0;
    while (md->lpVtbl->EnumFields(md, &e, token, fields, 32, &count) == S_OK && count) {
        for (ULONG i = 0; i < count; i++) {
            WCHAR fname[8];
            ULONG flen = 0, sig_size = 0, value_len = 0;
            DWORD attr = 0, elem_type = 0;
            PCCOR_SIGNATURE sig = NULL;
            const void *value = NULL;
            mdTypeDef owner = 0;
            ilmap_sig *fs = NULL;
            ilmap_sig_slot slot;
            if (SUCCEEDED(md->lpVtbl->GetFieldProps(md, fields[i], &owner, fname, 8, &flen,
                                                    &attr, &sig, &sig_size, &elem_type, &value,
                                                    &value_len)) &&
                sig && !(attr & ILMAP_SIG_FIELD_STATIC) &&
                ilmap_sig_decode(sig, sig_size, 0, &fs, NULL, NULL) == ILMAP_OK &&
                ilmap_sig_classify(fs, NULL, 0, 1, &(size_t){0}, &slot) == ILMAP_OK &&
                (slot.element == ILMAP_SIG_ELEMENT_VALUETYPE ||
                 slot.element == ILMAP_SIG_ELEMENT_CLASS))
                learn_type(a, md, module, slot.token,
                           slot.element == ILMAP_SIG_ELEMENT_VALUETYPE, depth + 1);
            ilmap_sig_free(fs);
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
}

void shim_args_prepare(shim_args *a, shim_args_target *t)
{
    if (!a || !t || atomic_exchange(&t->prepared, 1))
        return;
    ModuleID module = atomic_load_explicit(&t->module, RELAXED);
    IMetaDataImport *md = module ? open_metadata(a, module) : NULL;
    if (!md)
        return;
    for (size_t i = 0; i < t->slot_count; i++) {
        const shim_args_value *v = &t->values[i];
        for (int k = 0; k < 2; k++) {
            const shim_args_desc *d = k ? &v->inner : &v->top;
            if (d->slot.element == ILMAP_SIG_ELEMENT_VALUETYPE ||
                d->slot.element == ILMAP_SIG_ELEMENT_CLASS)
                learn_type(a, md, module, d->slot.token,
                           d->slot.element == ILMAP_SIG_ELEMENT_VALUETYPE, 1);
        }
    }
    md->lpVtbl->Release(md);
}

static void add_target(shim_args *a, ModuleID module, IMetaDataImport *md,
                       const shim_found *f)
{
    if (shim_args_find(a, module, f->token))
        return;
    mdTypeDef cls = 0;
    WCHAR wname[512];
    ULONG len = 0, sig_size = 0, rva = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(md->lpVtbl->GetMethodProps(md, f->token, &cls, wname, 512, &len, &attr, &sig,
                                          &sig_size, &rva, &impl)) ||
        !sig) {
        shim_log("args: no metadata for method 0x%08" PRIx32 "; not hooked", f->token);
        return;
    }
    char method[1024], type[512], full[1600];
    shim_utf16_to_utf8(wname, len < 512 ? len : 512, method, sizeof method);
    shim_type_full_name(md, cls, type, sizeof type);
    snprintf(full, sizeof full, "%s::%s", type, method);

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
    t->value_this = t->has_this && is_value_type(md, cls);
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
    for (size_t i = 0; i < total; i++)
        describe(md, module, &t->slots[i], &t->values[i]);
    if ((si.callconv & ILMAP_SIG_CALLCONV_MASK) == ILMAP_SIG_CALLCONV_VARARG) {
        shim_log("args: %s: vararg methods are not hooked", t->name);
        goto refuse;
    }
    for (size_t i = 0; i < total; i++)
        if (vector_slot(md, &t->slots[i])) {
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
    shim_found_list found = {NULL, 0, 0};
    if (shim_resolve_all(md, &a->selection, &found))
        shim_log("args: out of memory resolving the selectors; some methods not hooked");
    for (size_t i = 0; i < found.count; i++)
        add_target(a, module, md, &found.items[i]);
    shim_found_list_free(&found);
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
}

/* ---- The hooks ------------------------------------------------------- */

/* An open call on this thread: what enter read, waiting for leave. */
typedef struct pending {
    const shim_args_target *target;
    uint64_t call;
    text head; /* the line up to the return value; NULL s: not reported */
} pending;

static _Thread_local pending stack[STACK_DEPTH];
static _Thread_local unsigned depth, overflow;

static void pending_drop(pending *p)
{
    free(p->head.s);
    memset(p, 0, sizeof *p);
}

/* `this` and the arguments, read at enter. */
static void read_arguments(shim_args *a, const shim_args_target *t, FunctionID function,
                           COR_PRF_ELT_INFO elt, text *out)
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
        log_once(1u << 1,
                 "%s: GetFunctionEnter3Info 0x%08X, %u ranges for %zu values; its arguments "
                 "reported as {\"class\":\"?\"}",
                 t->name, (unsigned)hr, ai ? (unsigned)ai->numRanges : 0u,
                 params + (size_t)t->has_this);
    size_t slot = 0;
    if (t->has_this) {
        puts_(out, ",\"this\":");
        if (!ok)
            puts_(out, "{\"class\":\"?\"}");
        else if (t->value_this)
            putf(out, "{\"class\":\"%s\"}", t->type_name);
        else
            put_range(a, out, &t->values[0], ai->ranges[0].startAddress, ai->ranges[0].length);
        slot = 1;
    }
    puts_(out, ",\"args\":[");
    for (size_t i = 0; i < params; i++, slot++) {
        if (i)
            puts_(out, ",");
        if (ok)
            put_range(a, out, &t->values[slot], ai->ranges[slot].startAddress,
                      ai->ranges[slot].length);
        else
            puts_(out, "{\"class\":\"?\"}");
    }
    puts_(out, "]");
    free(ai);
}

void shim_args_enter(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt)
{
    if (!a || !t)
        return;
    if (depth == STACK_DEPTH) {
        overflow++;
        log_once(1u << 2, "more than %u hooked calls open on one thread; the deeper ones "
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
    putf(&p->head, "{\"type\":\"args\",\"method\":\"%s\",\"call\":%" PRIu64, t->name, p->call);
    read_arguments(a, t, function, elt, &p->head);
    if (p->head.failed) {
        log_once(1u << 3, "out of memory; calls not reported");
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
        HRESULT hr = a->info->lpVtbl->GetFunctionLeave3Info(a->info, function, elt, &frame,
                                                            &range);
        puts_(&p->head, ",\"ret\":");
        if (FAILED(hr)) {
            log_once(1u << 4, "%s: GetFunctionLeave3Info 0x%08X; return values reported as "
                              "{\"class\":\"?\"}",
                     t->name, (unsigned)hr);
            puts_(&p->head, "{\"class\":\"?\"}");
        } else {
            put_range(a, &p->head, &t->values[t->slot_count - 1], range.startAddress,
                      range.length);
        }
    }
    puts_(&p->head, "}");
    if (p->head.failed) {
        atomic_fetch_add_explicit(&a->skipped, 1, RELAXED);
    } else {
        atomic_fetch_add_explicit(&a->lines, 1, RELAXED);
        if (a->emit)
            a->emit(a->emit_ctx, p->head.s);
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
