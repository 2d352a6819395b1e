/*
 * The value writer of argument and static-field reports; see values.h.
 * Everything here may run inside the enter/leave hooks on any thread at
 * once: it reads what the runtime answers, allocates only the text, and
 * logs a failure once per kind.
 */
#include "values/values.h"

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
#include "base/text.h"

#define RELAXED memory_order_relaxed

/* Strings longer than this many UTF-16 units are reported by length. */
#define MAX_STRING_CHARS 4096u
/* Arrays longer than this are reported by length. */
#define MAX_ARRAY_ELEMENTS 1024u
/* The largest array rank the runtime allows. */
#define MAX_RANK 32u
/* Parent classes followed, fields per class read. */
#define MAX_CLASS_CHAIN 32u
#define MAX_FIELDS 256u

/* ---- Growable text --------------------------------------------------- */

void shim_text_put(shim_text *t, const char *s, size_t n)
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

void shim_text_puts(shim_text *t, const char *s) { shim_text_put(t, s, strlen(s)); }

void shim_text_printf(shim_text *t, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        shim_text_put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A UTF-16 code unit sequence as a JSON string: UTF-8 for every valid
 * character, \uXXXX for controls and for unpaired surrogates. */
static void put_utf16_json(shim_text *t, const WCHAR *s, size_t n)
{
    shim_text_put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s[i];
        char b[8];
        if (c == '"' || c == '\\') {
            b[0] = '\\';
            b[1] = (char)c;
            shim_text_put(t, b, 2);
        } else if (c < 0x20) {
            shim_text_printf(t, "\\u%04x", (unsigned)c);
        } else if (c < 0x80) {
            b[0] = (char)c;
            shim_text_put(t, b, 1);
        } else if (c < 0x800) {
            b[0] = (char)(0xC0 | c >> 6);
            b[1] = (char)(0x80 | (c & 0x3F));
            shim_text_put(t, b, 2);
        } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 &&
                   s[i + 1] <= 0xDFFF) {
            uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
            i++;
            b[0] = (char)(0xF0 | cp >> 18);
            b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
            b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
            b[3] = (char)(0x80 | (cp & 0x3F));
            shim_text_put(t, b, 4);
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            shim_text_printf(t, "\\u%04x", (unsigned)c); /* unpaired: kept as is */
        } else {
            b[0] = (char)(0xE0 | c >> 12);
            b[1] = (char)(0x80 | (c >> 6 & 0x3F));
            b[2] = (char)(0x80 | (c & 0x3F));
            shim_text_put(t, b, 3);
        }
    }
    shim_text_put(t, "\"", 1);
}

/* A float as a JSON number that reads back to the same value. */
static void put_double(shim_text *t, double v, int digits)
{
    if (isnan(v))
        shim_text_puts(t, "\"NaN\"");
    else if (isinf(v))
        shim_text_puts(t, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (v == 0 && signbit(v))
        shim_text_puts(t, "-0.0"); /* "-0" would read back as the integer 0 in some parsers */
    else
        shim_text_printf(t, "%.*g", digits, v);
}

/* ---- Reading values --------------------------------------------------- */

/* Logs each kind of failure once. */
static atomic_uint logged;
void shim_values_log_once(unsigned bit, const char *fmt, ...)
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
void shim_values_type_name(IMetaDataImport *md, mdToken tok, char *out, size_t cap)
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
static void put_object_class(shim_args *a, shim_text *t, ObjectID obj)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdTypeDef td = 0;
    char name[512] = "?";
    ICorProfilerInfo4 *info = a->info;
    HRESULT hr = info->lpVtbl->GetClassFromObject(info, obj, &cls);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->GetClassIDInfo(info, cls, &module, &td);
    if (SUCCEEDED(hr) && module && td) {
        IUnknown *unk = NULL;
        hr = info->lpVtbl->GetModuleMetaData(info, module, CLR_OF_READ, &IID_IMetaDataImport,
                                             &unk);
        if (hr == S_OK && unk) {
            IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
            shim_type_full_name(md, td, name, sizeof name);
            md->lpVtbl->Release(md);
        }
    }
    if (FAILED(hr) || (module && td && strcmp(name, "?") == 0))
        shim_values_log_once(1u << 19, "a class name not read (0x%08X); written as \"?\"",
                             (unsigned)hr);
    /* td 0: arrays and other classes without a TypeDef of their own. */
    char safe[600];
    shim_json_escape(safe, sizeof safe, name);
    shim_text_printf(t, "{\"class\":\"%.500s\"}", safe);
}

static void put_string(shim_args *a, shim_text *t, ObjectID obj)
{
    ULONG len_off = 0, buf_off = 0;
    if (FAILED(a->info->lpVtbl->GetStringLayout2(a->info, &len_off, &buf_off))) {
        shim_values_log_once(1u << 0, "GetStringLayout2 failed; strings reported by class");
        put_object_class(a, t, obj);
        return;
    }
    uint32_t n;
    memcpy(&n, (const char *)obj + len_off, sizeof n);
    if (n > MAX_STRING_CHARS) {
        shim_text_printf(t, "{\"class\":\"System.String\",\"length\":%" PRIu32 "}", n);
        return;
    }
    WCHAR chars[MAX_STRING_CHARS];
    memcpy(chars, (const char *)obj + buf_off, (size_t)n * sizeof(WCHAR));
    put_utf16_json(t, chars, n);
}

/* The size of a primitive element; 0 for any other. */
size_t shim_values_primitive_size(uint32_t element)
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

/* An integer of size bytes (1, 2, 4 or 8) at p, signed or not; quoted:
 * as a decimal string (64-bit and native-sized integers). */
static void put_integer(shim_text *t, const void *p, size_t size, int is_signed, int quoted)
{
    uint64_t u = 0;
    switch (size) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        u = v;
        break;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        u = v;
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        u = v;
        break;
    }
    case 8:
        memcpy(&u, p, 8);
        break;
    default:
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    const char *q = quoted ? "\"" : "";
    uint64_t sign = (uint64_t)1 << (size * 8 - 1);
    if (is_signed && (u & sign)) {
        /* Two's complement: the magnitude is the negation within size bytes. */
        uint64_t magnitude = (~u + 1) & (size == 8 ? UINT64_MAX : (sign << 1) - 1);
        shim_text_printf(t, "%s-%" PRIu64 "%s", q, magnitude, q);
    } else {
        shim_text_printf(t, "%s%" PRIu64 "%s", q, u, q);
    }
}

/* A primitive of the element's type at p (primitive_size bytes). */
static void put_primitive(shim_text *t, uint32_t element, const void *p)
{
    size_t size = shim_values_primitive_size(element);
    switch (element) {
    case ILMAP_SIG_ELEMENT_BOOLEAN: {
        uint8_t v;
        memcpy(&v, p, 1);
        shim_text_puts(t, v ? "true" : "false");
        return;
    }
    case ILMAP_SIG_ELEMENT_CHAR: {
        WCHAR v;
        memcpy(&v, p, 2);
        put_utf16_json(t, &v, 1);
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
    case ILMAP_SIG_ELEMENT_I1:
    case ILMAP_SIG_ELEMENT_I2:
    case ILMAP_SIG_ELEMENT_I4:
        put_integer(t, p, size, 1, 0);
        return;
    case ILMAP_SIG_ELEMENT_U1:
    case ILMAP_SIG_ELEMENT_U2:
    case ILMAP_SIG_ELEMENT_U4:
        put_integer(t, p, size, 0, 0);
        return;
    case ILMAP_SIG_ELEMENT_I8:
    case ILMAP_SIG_ELEMENT_I:
        put_integer(t, p, size, 1, 1);
        return;
    case ILMAP_SIG_ELEMENT_U8:
    case ILMAP_SIG_ELEMENT_U:
        put_integer(t, p, size, 0, 1);
        return;
    default:
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
}

static void put_fields(shim_args *a, shim_text *t, ClassID cls, const uint8_t *base,
                       size_t avail, int depth);

/* The ELEMENT_TYPE of CoreLib's primitive structs, by full name; 0 for
 * any other name. */
static uint32_t primitive_of_name(const char *name)
{
    static const struct {
        const char *name;
        uint32_t element;
    } table[] = {
        {"System.Boolean", ILMAP_SIG_ELEMENT_BOOLEAN}, {"System.Char", ILMAP_SIG_ELEMENT_CHAR},
        {"System.SByte", ILMAP_SIG_ELEMENT_I1},        {"System.Byte", ILMAP_SIG_ELEMENT_U1},
        {"System.Int16", ILMAP_SIG_ELEMENT_I2},        {"System.UInt16", ILMAP_SIG_ELEMENT_U2},
        {"System.Int32", ILMAP_SIG_ELEMENT_I4},        {"System.UInt32", ILMAP_SIG_ELEMENT_U4},
        {"System.Int64", ILMAP_SIG_ELEMENT_I8},        {"System.UInt64", ILMAP_SIG_ELEMENT_U8},
        {"System.IntPtr", ILMAP_SIG_ELEMENT_I},        {"System.UIntPtr", ILMAP_SIG_ELEMENT_U},
        {"System.Single", ILMAP_SIG_ELEMENT_R4},       {"System.Double", ILMAP_SIG_ELEMENT_R8},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(name, table[i].name) == 0)
            return table[i].element;
    return 0;
}

int shim_values_var_of(const ilmap_sig_slot *s, uint32_t *kind, uint32_t *index)
{
    ilmap_sig_node node;
    if (!s || !kind || !index || s->node == ILMAP_SIG_NO_NODE ||
        ilmap_sig_get_node(s->sig, s->node, &node) != ILMAP_OK ||
        (node.element != ILMAP_SIG_ELEMENT_VAR && node.element != ILMAP_SIG_ELEMENT_MVAR))
        return 0;
    *kind = node.element;
    *index = node.number;
    return 1;
}

/* How many bytes a value of d takes in memory (an array element, a byref's
 * target): primitives and enums their size, references an ObjectID, a
 * struct of the module whose ClassID was learned its class size; 0 when
 * it cannot be read. */
static size_t desc_size(shim_args *a, const shim_args_desc *d)
{
    if (d->slot.repr == ILMAP_SIG_REPR_PRIMITIVE)
        return shim_values_primitive_size(d->slot.element);
    if (d->slot.repr == ILMAP_SIG_REPR_OBJECT_ID)
        return sizeof(ObjectID);
    if (d->slot.repr != ILMAP_SIG_REPR_VALUE_TYPE)
        return 0;
    uint32_t en = shim_classes_enum(a, d);
    if (en)
        return shim_values_primitive_size(en);
    ClassID cls = shim_classes_struct(a, d);
    ULONG total = 0, size = 0;
    if (!cls || FAILED(a->info->lpVtbl->GetClassLayout(a->info, cls, NULL, 0, &total, &size)))
        return 0;
    return size;
}

static void put_struct(shim_args *a, shim_text *t, const shim_args_desc *d, const void *p,
                       size_t length, int depth);
static void put_class_head(shim_args *a, shim_text *t, ClassID cls);

/* The elements of an array object whose element type is elem[0] (elem[1..
 * levels): its element's, for arrays of arrays), or the runtime class
 * typed when not 0 (a generic parameter's), row-major: a JSON array
 * for a one-dimension array (rank 0: SZARRAY), {"rank":R,"lengths":[...],
 * "elements":[...]} for an ARRAY of rank R. Every element is read inside
 * the object (GetObjectSize2). */
static void put_array(shim_args *a, shim_text *t, ObjectID obj, uint32_t rank,
                      const shim_args_desc *elem, size_t levels, ClassID typed, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    size_t esize = typed ? shim_values_typed_size(a, typed) : desc_size(a, elem);
    uint32_t dims = rank ? rank : 1;
    if (!esize || dims > MAX_RANK) {
        put_object_class(a, t, obj);
        return;
    }
    ULONG32 lengths[MAX_RANK];
    int lower[MAX_RANK];
    BYTE *data = NULL;
    SIZE_T size = 0;
    HRESULT hr = info->lpVtbl->GetArrayObjectInfo(info, obj, dims, lengths, lower, &data);
    if (SUCCEEDED(hr))
        hr = info->lpVtbl->GetObjectSize2(info, obj, &size);
    if (FAILED(hr) || !data || data < (const BYTE *)obj ||
        (size_t)(data - (const BYTE *)obj) > size) {
        shim_values_log_once(1u << 5,
                             "GetArrayObjectInfo or GetObjectSize2 0x%08X; arrays reported as "
                             "{\"class\":\"?\"}",
                             (unsigned)hr);
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    uint64_t n = 1;
    for (uint32_t i = 0; i < dims; i++)
        n = n * lengths[i] > MAX_ARRAY_ELEMENTS ? MAX_ARRAY_ELEMENTS + 1u : n * lengths[i];
    size_t room = size - (size_t)(data - (const BYTE *)obj);
    if (n > MAX_ARRAY_ELEMENTS) {
        shim_text_puts(t, rank ? "{\"class\":\"?\",\"lengths\":["
                               : "{\"class\":\"?\",\"length\":");
        if (rank) {
            for (uint32_t i = 0; i < dims; i++)
                shim_text_printf(t, "%s%" PRIu32, i ? "," : "", (uint32_t)lengths[i]);
            shim_text_puts(t, "]}");
        } else {
            shim_text_printf(t, "%" PRIu32 "}", (uint32_t)lengths[0]);
        }
        return;
    }
    if (n * esize > room) {
        shim_values_log_once(1u << 15,
                             "an array of %" PRIu64 " elements of %zu bytes in %zu; "
                             "such arrays reported as {\"class\":\"?\"}",
                             n, esize, room);
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    if (rank) {
        shim_text_printf(t, "{\"rank\":%" PRIu32 ",\"lengths\":[", rank);
        for (uint32_t i = 0; i < dims; i++)
            shim_text_printf(t, "%s%" PRIu32, i ? "," : "", (uint32_t)lengths[i]);
        shim_text_puts(t, "],\"elements\":");
    }
    shim_text_puts(t, "[");
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            shim_text_puts(t, ",");
        if (typed)
            shim_values_put_typed(a, t, typed, data + (size_t)i * esize, esize, depth);
        else
            shim_values_put(a, t, elem, levels, data + (size_t)i * esize, esize, depth);
    }
    shim_text_puts(t, rank ? "]}" : "]");
}

void shim_values_put(shim_args *a, shim_text *t, const shim_args_desc *d, size_t levels,
                     const void *p, size_t length, int depth)
{
    const ilmap_sig_slot *s = &d->slot;
    if (!p || !levels || (s->size && length < s->size)) {
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    switch (s->repr) {
    case ILMAP_SIG_REPR_OBJECT_ID: {
        ObjectID obj;
        memcpy(&obj, p, sizeof obj);
        if (!obj)
            shim_text_puts(t, "null");
        else if (s->element == ILMAP_SIG_ELEMENT_STRING)
            put_string(a, t, obj);
        else if ((s->element == ILMAP_SIG_ELEMENT_SZARRAY ||
                  s->element == ILMAP_SIG_ELEMENT_ARRAY) &&
                 levels > 1)
            put_array(a, t, obj, s->element == ILMAP_SIG_ELEMENT_ARRAY ? d->rank : 0, d + 1,
                      levels - 1, 0, depth);
        else
            shim_values_put_object(a, t, obj, depth);
        return;
    }
    case ILMAP_SIG_REPR_PRIMITIVE:
        put_primitive(t, s->element, p);
        return;
    case ILMAP_SIG_REPR_VALUE_TYPE: {
        uint32_t en = shim_classes_enum(a, d);
        if (en && length >= shim_values_primitive_size(en))
            put_primitive(t, en, p);
        else if (en)
            shim_text_puts(t, "{\"class\":\"?\"}");
        else
            put_struct(a, t, d, p, length, depth);
        return;
    }
    case ILMAP_SIG_REPR_MANAGED_PTR: {
        /* The range holds the managed pointer; its target is read as the
         * pointed-to type says (not past that type's size). */
        uintptr_t target;
        memcpy(&target, p, sizeof target);
        size_t size = levels > 1 ? desc_size(a, d + 1) : 0;
        shim_text_puts(t, "{\"ref\":");
        if (!target)
            shim_text_puts(t, "null");
        else if (!size)
            shim_text_puts(t, "{\"class\":\"?\"}");
        else
            shim_values_put(a, t, d + 1, levels - 1, (const void *)target, size, depth);
        shim_text_puts(t, "}");
        return;
    }
    case ILMAP_SIG_REPR_TYPEDBYREF: {
        /* A managed pointer, then the pointed-to value's type handle. */
        uintptr_t target;
        ClassID type;
        if (length < sizeof target + sizeof type) {
            shim_text_puts(t, "{\"class\":\"?\"}");
            return;
        }
        memcpy(&target, p, sizeof target);
        memcpy(&type, (const uint8_t *)p + sizeof target, sizeof type);
        size_t size = type ? shim_values_typed_size(a, type) : 0;
        put_class_head(a, t, type);
        shim_text_puts(t, ",\"ref\":");
        if (!target)
            shim_text_puts(t, "null");
        else if (!size)
            shim_text_puts(t, "{\"class\":\"?\"}");
        else
            shim_values_put_typed(a, t, type, (const void *)target, size, depth);
        shim_text_puts(t, "}");
        return;
    }
    case ILMAP_SIG_REPR_UNMANAGED_PTR:
    case ILMAP_SIG_REPR_OPAQUE_PTR: {
        uintptr_t v;
        memcpy(&v, p, sizeof v);
        shim_text_printf(t, "\"0x%" PRIxPTR "\"", v);
        return;
    }
    default:
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
}

/* ---- Objects and structs by their fields ------------------------------ */

/* The module's metadata (release it), or NULL. */
IMetaDataImport *shim_values_metadata(shim_args *a, ModuleID module)
{
    IUnknown *unk = NULL;
    HRESULT hr = a->info->lpVtbl->GetModuleMetaData(a->info, module, CLR_OF_READ,
                                                    &IID_IMetaDataImport, &unk);
    if (hr != S_OK || !unk) {
        shim_values_log_once(1u << 24, "GetModuleMetaData 0x%08X; names, fields and struct "
                                       "types of that module left out or written as \"?\"",
                             (unsigned)hr);
        return NULL;
    }
    return (IMetaDataImport *)(void *)unk;
}

/* "{"class":"Ns.Type"" of a ClassID (no closing brace). */
static void put_class_head(shim_args *a, shim_text *t, ClassID cls)
{
    char name[512] = "?";
    ModuleID module = 0;
    mdTypeDef td = 0;
    HRESULT hr = a->info->lpVtbl->GetClassIDInfo(a->info, cls, &module, &td);
    if (SUCCEEDED(hr) && module && td) {
        IMetaDataImport *md = shim_values_metadata(a, module);
        if (md) {
            shim_type_full_name(md, td, name, sizeof name);
            md->lpVtbl->Release(md);
        }
    }
    if (FAILED(hr) || (module && td && strcmp(name, "?") == 0))
        shim_values_log_once(1u << 19, "a class name not read (0x%08X); written as \"?\"",
                             (unsigned)hr);
    char safe[600];
    shim_json_escape(safe, sizeof safe, name);
    shim_text_printf(t, "{\"class\":\"%.500s\"", safe);
}

/* Is v an array (of arrays ...) whose innermost element is a generic
 * parameter (T[], T[,][])? */
static int array_over_var(const shim_args_value *v)
{
    uint32_t kind = 0, index = 0;
    const ilmap_sig_slot *s = &v->level[0].slot;
    if (s->repr != ILMAP_SIG_REPR_OBJECT_ID ||
        (s->element != ILMAP_SIG_ELEMENT_SZARRAY && s->element != ILMAP_SIG_ELEMENT_ARRAY))
        return 0;
    for (size_t k = 1; k < v->levels && k < SHIM_ARGS_LEVELS; k++)
        if (v->level[k].slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
            shim_values_var_of(&v->level[k].slot, &kind, &index))
            return 1;
    return 0;
}

/* The instance fields cls declares itself, as "name":V pairs, read at
 * base + each field's offset (never at or past avail). */
static void put_class_fields(shim_args *a, shim_text *t, ClassID cls, const uint8_t *base,
                             size_t avail, int depth, int *first)
{
    ICorProfilerInfo4 *info = a->info;
    ModuleID module = 0;
    mdTypeDef td = 0;
    ULONG total = 0, size = 0;
    HRESULT hr = info->lpVtbl->GetClassIDInfo(info, cls, &module, &td);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 20, "GetClassIDInfo 0x%08X; some classes' fields left out",
                             (unsigned)hr);
        return;
    }
    if (!module)
        return;
    hr = info->lpVtbl->GetClassLayout(info, cls, NULL, 0, &total, &size);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 6, "GetClassLayout 0x%08X; some classes' fields left out",
                             (unsigned)hr);
        return;
    }
    if (!total)
        return;
    if (total > MAX_FIELDS) {
        shim_values_log_once(1u << 7,
                             "a class with %u fields; classes with more than %u left out",
                             (unsigned)total, MAX_FIELDS);
        return;
    }
    COR_FIELD_OFFSET fields[MAX_FIELDS];
    ULONG got = 0;
    IMetaDataImport *md = shim_values_metadata(a, module);
    if (!md || FAILED(info->lpVtbl->GetClassLayout(info, cls, fields, total, &got, &size))) {
        if (md)
            md->lpVtbl->Release(md);
        shim_values_log_once(1u << 8, "no layout or metadata for a class; its fields left out");
        return;
    }
    ClassID type_args[SHIM_VALUES_MAX_TYPE_ARGS];
    ULONG32 ntype_args = 0;
    if (FAILED(info->lpVtbl->GetClassIDInfo2(
            info, cls, NULL, NULL, NULL, SHIM_VALUES_MAX_TYPE_ARGS, &ntype_args, type_args)))
        ntype_args = 0;
    uint32_t kind = 0, index = 0;
    for (ULONG i = 0; i < got && i < total; i++) {
        WCHAR wname[256];
        ULONG len = 0, sig_size = 0, value_len = 0;
        DWORD attr = 0, elem_type = 0;
        PCCOR_SIGNATURE sig = NULL;
        const void *value = NULL;
        mdTypeDef owner = 0;
        hr = md->lpVtbl->GetFieldProps(md, fields[i].ridOfField, &owner, wname, 256, &len,
                                       &attr, &sig, &sig_size, &elem_type, &value, &value_len);
        if (FAILED(hr))
            shim_values_log_once(1u << 21, "GetFieldProps 0x%08X; such fields left out",
                                 (unsigned)hr);
        if (FAILED(hr) || (attr & ILMAP_SIG_FIELD_STATIC))
            continue;
        char name[512], safe[600];
        shim_utf16_to_utf8(wname, len < 256 ? len : 256, name, sizeof name);
        shim_json_escape(safe, sizeof safe, name);
        shim_text_printf(t, "%s\"%.500s\":", *first ? "" : ",", safe);
        *first = 0;
        ilmap_sig *fs = NULL;
        ilmap_sig_slot slot;
        shim_args_value v;
        ClassID field_cls = 0;
        memset(&v, 0, sizeof v);
        if (!sig || fields[i].ulOffset >= avail ||
            ilmap_sig_decode(sig, sig_size, 0, &fs, NULL, NULL) != ILMAP_OK ||
            ilmap_sig_get_kind(fs) != ILMAP_SIG_KIND_FIELD ||
            ilmap_sig_classify(fs, NULL, 0, 1, &(size_t){0}, &slot) != ILMAP_OK) {
            if (sig && fields[i].ulOffset < avail)
                shim_values_log_once(1u << 22, "a field signature not decoded (field 0x%08X); "
                                               "such fields written as {\"class\":\"?\"}",
                                     (unsigned)fields[i].ridOfField);
            shim_text_puts(t, "{\"class\":\"?\"}");
        } else if (slot.repr == ILMAP_SIG_REPR_UNRESOLVED &&
                   shim_values_var_of(&slot, &kind, &index) && kind == ILMAP_SIG_ELEMENT_VAR &&
                   index < ntype_args) {
            /* A field typed by the class's own type parameter: the
             * instantiation's type argument says what it is. */
            shim_values_put_typed(a, t, type_args[index], base + fields[i].ulOffset,
                                  avail - fields[i].ulOffset, depth + 1);
        } else if (slot.element == ILMAP_SIG_ELEMENT_GENERICINST &&
                   slot.repr == ILMAP_SIG_REPR_VALUE_TYPE &&
                   ((field_cls = shim_classes_field(a, module, fields[i].ridOfField)) != 0 ||
                    (field_cls = shim_classes_field_in(a, cls, fields[i].ridOfField)) != 0)) {
            /* A generic struct field (KeyValuePair<int, string>): its
             * instantiation's ClassID learned at the mapper; over the
             * class's own type parameters (Cell<T> in Wrap<int>), learned
             * when the class's instantiation loaded. */
            shim_values_put_typed(a, t, field_cls, base + fields[i].ulOffset,
                                  avail - fields[i].ulOffset, depth + 1);
        } else {
            shim_values_describe(md, module, &slot, &v);
            if (array_over_var(&v) && avail - fields[i].ulOffset >= sizeof(ObjectID)) {
                /* An array of the class's type parameter (T[], T[][]):
                 * by the array object's runtime class. */
                ObjectID obj = 0;
                memcpy(&obj, base + fields[i].ulOffset, sizeof obj);
                if (obj)
                    shim_values_put_object(a, t, obj, depth + 1);
                else
                    shim_text_puts(t, "null");
            } else {
                shim_values_put(a, t, v.level, v.levels, base + fields[i].ulOffset,
                                avail - fields[i].ulOffset, depth + 1);
            }
        }
        ilmap_sig_free(fs);
    }
    md->lpVtbl->Release(md);
}

/* How a value of runtime class cls lies in memory: a reference (an
 * ObjectID; arrays too), a primitive
 * or enum (*element: its ELEMENT_TYPE), or a struct (*size: its class
 * size). */
enum typed_kind { TYPED_REFERENCE, TYPED_PRIMITIVE, TYPED_STRUCT, TYPED_UNKNOWN };

static enum typed_kind typed_kind(shim_args *a, ClassID cls, uint32_t *element, size_t *size)
{
    ICorProfilerInfo4 *info = a->info;
    ModuleID module = 0;
    mdTypeDef td = 0;
    ClassID parent = 0;
    ULONG32 n = 0;
    char name[512] = "", base[512] = "";
    *element = 0;
    *size = sizeof(ObjectID);
    int32_t array_element = 0;
    ClassID array_class = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &array_element, &array_class, &rank) == S_OK)
        return TYPED_REFERENCE;
    /* Pointers and other type descriptors without a TypeDef: unknown,
     * never read as an ObjectID. */
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, cls, &module, &td, &parent, 0, &n, NULL)) ||
        !module || !td) {
        *size = 0;
        return TYPED_UNKNOWN;
    }
    IMetaDataImport *md = shim_values_metadata(a, module);
    if (md)
        shim_type_full_name(md, td, name, sizeof name);
    ModuleID pm = 0;
    mdTypeDef ptd = 0;
    if (parent && SUCCEEDED(info->lpVtbl->GetClassIDInfo(info, parent, &pm, &ptd)) && pm) {
        IMetaDataImport *pmd = shim_values_metadata(a, pm);
        if (pmd) {
            shim_type_full_name(pmd, ptd, base, sizeof base);
            pmd->lpVtbl->Release(pmd);
        }
    }
    int is_enum = strcmp(base, "System.Enum") == 0;
    enum typed_kind kind = TYPED_REFERENCE;
    if (is_enum ||
        (strcmp(base, "System.ValueType") == 0 && strcmp(name, "System.Enum") != 0)) {
        *element = primitive_of_name(name);
        if (!*element && is_enum && md)
            *element = shim_classes_enum_element(md, td);
        ULONG total = 0, csize = 0;
        if (*element) {
            kind = TYPED_PRIMITIVE;
            *size = shim_values_primitive_size(*element);
        } else if (SUCCEEDED(
                       info->lpVtbl->GetClassLayout(info, cls, NULL, 0, &total, &csize))) {
            kind = TYPED_STRUCT;
            *size = csize;
        } else {
            kind = TYPED_UNKNOWN;
            *size = 0;
        }
    }
    if (md)
        md->lpVtbl->Release(md);
    return kind;
}

void shim_values_put_typed_array(shim_args *a, shim_text *t, ObjectID obj, uint32_t rank,
                                 ClassID elem, int depth)
{
    if (!obj)
        shim_text_puts(t, "null");
    else
        put_array(a, t, obj, rank, NULL, 0, elem, depth);
}

void shim_values_put_typed(shim_args *a, shim_text *t, ClassID cls, const void *p,
                           size_t length, int depth)
{
    uint32_t element = 0;
    size_t size = 0;
    enum typed_kind kind = cls && p ? typed_kind(a, cls, &element, &size) : TYPED_UNKNOWN;
    if (kind == TYPED_UNKNOWN || !size || size > length) {
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    if (kind == TYPED_PRIMITIVE) {
        put_primitive(t, element, p);
    } else if (kind == TYPED_STRUCT) {
        put_fields(a, t, cls, (const uint8_t *)p, size, depth);
    } else {
        ObjectID obj = 0;
        memcpy(&obj, p, sizeof obj);
        if (obj)
            shim_values_put_object(a, t, obj, depth);
        else
            shim_text_puts(t, "null");
    }
}

size_t shim_values_typed_size(shim_args *a, ClassID cls)
{
    uint32_t element = 0;
    size_t size = 0;
    if (!a || !cls || typed_kind(a, cls, &element, &size) == TYPED_UNKNOWN)
        return 0;
    return size;
}

/* {"class":"Ns.Type","fields":{...}} of a value of class cls whose fields
 * are at base (avail bytes); past SHIM_VALUES_MAX_DEPTH only the class. */
static void put_fields(shim_args *a, shim_text *t, ClassID cls, const uint8_t *base,
                       size_t avail, int depth)
{
    put_class_head(a, t, cls);
    if (depth > SHIM_VALUES_MAX_DEPTH) {
        shim_text_puts(t, "}");
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
        HRESULT hr = a->info->lpVtbl->GetClassIDInfo2(a->info, c, &module, &td, &parent, 0,
                                                      &type_args, NULL);
        if (FAILED(hr)) {
            shim_values_log_once(1u << 25, "GetClassIDInfo2 0x%08X; parent classes' fields "
                                           "left out",
                                 (unsigned)hr);
            break;
        }
        c = parent;
    }
    shim_text_puts(t, ",\"fields\":{");
    int first = 1;
    for (size_t i = n; i-- > 0;)
        put_class_fields(a, t, chain[i], base, avail, depth, &first);
    shim_text_puts(t, "}}");
}

/* An object by its runtime class: a string as a string, a boxed value
 * type as that type's fields, any other class with a TypeDef as its
 * fields and its parents'; arrays and the like by class. */
void shim_values_put_object(shim_args *a, shim_text *t, ObjectID obj, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0, element = 0;
    ModuleID module = 0;
    mdTypeDef td = 0;
    int32_t element_type = 0;
    ULONG rank = 0;
    HRESULT hr = info->lpVtbl->GetClassFromObject(info, obj, &cls);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 23, "GetClassFromObject 0x%08X; such objects reported by "
                                       "class",
                             (unsigned)hr);
        put_object_class(a, t, obj);
        return;
    }
    /* An array by its runtime class: its elements as that class's element
     * type says (rank 1 written as a one-dimension array). */
    if (info->lpVtbl->IsArrayClass(info, cls, &element_type, &element, &rank) == S_OK &&
        element && rank >= 1) {
        shim_values_put_typed_array(a, t, obj, rank > 1 ? (uint32_t)rank : 0, element, depth);
        return;
    }
    hr = info->lpVtbl->GetClassIDInfo(info, cls, &module, &td);
    if (FAILED(hr))
        shim_values_log_once(1u << 20, "GetClassIDInfo 0x%08X; some classes' fields left out",
                             (unsigned)hr);
    if (FAILED(hr) || !module || !td) {
        put_object_class(a, t, obj);
        return;
    }
    char name[64] = "";
    IMetaDataImport *md = shim_values_metadata(a, module);
    if (md) {
        shim_type_full_name(md, td, name, sizeof name);
        md->lpVtbl->Release(md);
    }
    if (strcmp(name, "System.String") == 0) {
        put_string(a, t, obj);
        return;
    }
    SIZE_T size = 0;
    hr = info->lpVtbl->GetObjectSize2(info, obj, &size);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 9, "GetObjectSize2 0x%08X; objects reported by class",
                             (unsigned)hr);
        put_object_class(a, t, obj);
        return;
    }
    const uint8_t *base = (const uint8_t *)obj;
    ULONG32 offset = 0;
    hr = info->lpVtbl->GetBoxClassLayout(info, cls, &offset);
    if (SUCCEEDED(hr)) {
        if (offset > size) {
            put_object_class(a, t, obj);
            return;
        }
        base += offset;
        size -= offset;
    } else if (hr != E_INVALIDARG) {
        /* E_INVALIDARG is the runtime's answer for a class that is no
         * value type; any other failure leaves a box's value unplaced,
         * and its fields must not be read at the object's own offsets. */
        shim_values_log_once(1u << 18, "GetBoxClassLayout 0x%08X; such objects reported by "
                                       "class",
                             (unsigned)hr);
        put_object_class(a, t, obj);
        return;
    }
    put_fields(a, t, cls, base, size, depth);
}

/* A struct passed by value (its bytes at p, length of them), by the
 * fields of its class: only value types defined in the slot's module
 * and not generic (their ClassID comes from the TypeDef). */
static void put_struct(shim_args *a, shim_text *t, const shim_args_desc *d, const void *p,
                       size_t length, int depth)
{
    ICorProfilerInfo4 *info = a->info;
    ClassID cls = 0;
    ULONG total = 0, size = 0;
    cls = shim_classes_struct(a, d);
    if (!cls) {
        shim_values_log_once(1u << 11,
                             "a struct type whose ClassID was not learned at the mapper (a "
                             "field of a derived class?); such structs reported as "
                             "{\"class\":\"?\"}");
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    HRESULT hr = info->lpVtbl->GetClassLayout(info, cls, NULL, 0, &total, &size);
    if (FAILED(hr) || size > length) {
        shim_values_log_once(1u << 10,
                             "a struct of %u bytes in %zu (GetClassLayout 0x%08X); reported as "
                             "{\"class\":\"?\"}",
                             (unsigned)size, length, (unsigned)hr);
        shim_text_puts(t, "{\"class\":\"?\"}");
        return;
    }
    put_fields(a, t, cls, (const uint8_t *)p, size, depth);
}

/* One argument's or return value's range. */
void shim_values_put_range(shim_args *a, shim_text *t, const shim_args_value *v, UINT_PTR at,
                           ULONG length)
{
    shim_values_put(a, t, v->level, v->levels, (const void *)at, length, 1);
}

/* What metadata adds to one classified value. */
void shim_values_describe(IMetaDataImport *md, ModuleID module, const ilmap_sig_slot *slot,
                          shim_args_value *v)
{
    memset(v, 0, sizeof *v);
    v->level[0].slot = *slot;
    v->levels = 1;
    for (;;) {
        shim_args_desc *d = &v->level[v->levels - 1];
        const ilmap_sig_slot *s = &d->slot;
        d->module = module;
        if (s->repr == ILMAP_SIG_REPR_VALUE_TYPE && s->element == ILMAP_SIG_ELEMENT_VALUETYPE)
            d->enum_element = shim_classes_enum_element(md, s->token);
        ilmap_sig_node node;
        if ((s->element != ILMAP_SIG_ELEMENT_BYREF && s->element != ILMAP_SIG_ELEMENT_SZARRAY &&
             s->element != ILMAP_SIG_ELEMENT_ARRAY) ||
            s->node == ILMAP_SIG_NO_NODE ||
            ilmap_sig_get_node(s->sig, s->node, &node) != ILMAP_OK)
            return;
        if (s->element == ILMAP_SIG_ELEMENT_ARRAY)
            d->rank = node.number;
        if (v->levels == SHIM_ARGS_LEVELS || node.inner == ILMAP_SIG_NO_NODE ||
            ilmap_sig_classify_type(s->sig, node.inner, NULL, 0, &v->level[v->levels].slot) !=
                ILMAP_OK)
            return;
        v->levels++;
    }
}
