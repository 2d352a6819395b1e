/*
 * Test helpers for the signature tests: hex to bytes, and a text form of
 * a decoded signature and of its classification, built only through the
 * public getters of ilmap-sig.h. The tables (test-sig-table.c) and the
 * model (test-sig-random.c, which prints its own trees in the same form)
 * compare against it.
 *
 * The form:
 *   method(cc=0x20 gen=2 ret:T params:[T,T] sentinel=1)  (gen, sentinel
 *       only when present; nested FNPTR signatures the same)
 *   property(cc=0x28 T params:[T])  field(T)  type(T)  locals[T,T]
 *   spec[T,T]
 *   T: void bool char i1 u1 i2 u2 i4 u4 i8 u8 r4 r8 string object
 *      typedref i u | ptr(T) byref(T) szarray(T) pinned(T)
 *      modreq(0x01000003 T) modopt(0x01000003 T)
 *      cmodint(1 0x1122 T) internal(0x1122)
 *      class(0x02000001) valuetype(0x01000002) var(3) mvar(0)
 *      array(T rank=2 sizes=[3] lo=[-1,0]) inst(class(0x..)<T,T>)
 *      fnptr(method(...))
 */
#ifndef ILMAP_TEST_SIG_DUMP_H
#define ILMAP_TEST_SIG_DUMP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ilmap-sig.h"

typedef struct dump_buf {
    char text[8192];
    size_t len;
    int overflow;
} dump_buf;

static inline void dump_add(dump_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = sizeof b->text - b->len;
    int n = vsnprintf(b->text + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        b->overflow = 1;
        b->len = sizeof b->text - 1;
    } else {
        b->len += (size_t)n;
    }
}

static inline const char *dump_leaf_name(uint32_t e)
{
    switch (e) {
    case ILMAP_SIG_ELEMENT_VOID: return "void";
    case ILMAP_SIG_ELEMENT_BOOLEAN: return "bool";
    case ILMAP_SIG_ELEMENT_CHAR: return "char";
    case ILMAP_SIG_ELEMENT_I1: return "i1";
    case ILMAP_SIG_ELEMENT_U1: return "u1";
    case ILMAP_SIG_ELEMENT_I2: return "i2";
    case ILMAP_SIG_ELEMENT_U2: return "u2";
    case ILMAP_SIG_ELEMENT_I4: return "i4";
    case ILMAP_SIG_ELEMENT_U4: return "u4";
    case ILMAP_SIG_ELEMENT_I8: return "i8";
    case ILMAP_SIG_ELEMENT_U8: return "u8";
    case ILMAP_SIG_ELEMENT_R4: return "r4";
    case ILMAP_SIG_ELEMENT_R8: return "r8";
    case ILMAP_SIG_ELEMENT_STRING: return "string";
    case ILMAP_SIG_ELEMENT_OBJECT: return "object";
    case ILMAP_SIG_ELEMENT_TYPEDBYREF: return "typedref";
    case ILMAP_SIG_ELEMENT_I: return "i";
    case ILMAP_SIG_ELEMENT_U: return "u";
    default: return NULL;
    }
}

static inline void dump_method(dump_buf *b, const ilmap_sig *sig, uint32_t index);

static inline void dump_type(dump_buf *b, const ilmap_sig *sig, uint32_t index)
{
    ilmap_sig_node n;
    if (ilmap_sig_get_node(sig, index, &n) != ILMAP_OK) {
        dump_add(b, "?node%" PRIu32, index);
        return;
    }
    const char *leaf = dump_leaf_name(n.element);
    if (leaf) {
        dump_add(b, "%s", leaf);
        return;
    }
    switch (n.element) {
    case ILMAP_SIG_ELEMENT_PTR: dump_add(b, "ptr("); break;
    case ILMAP_SIG_ELEMENT_BYREF: dump_add(b, "byref("); break;
    case ILMAP_SIG_ELEMENT_SZARRAY: dump_add(b, "szarray("); break;
    case ILMAP_SIG_ELEMENT_PINNED: dump_add(b, "pinned("); break;
    case ILMAP_SIG_ELEMENT_CMOD_REQD: dump_add(b, "modreq(0x%08" PRIX32 " ", n.token); break;
    case ILMAP_SIG_ELEMENT_CMOD_OPT: dump_add(b, "modopt(0x%08" PRIX32 " ", n.token); break;
    case ILMAP_SIG_ELEMENT_CMOD_INTERNAL:
        dump_add(b, "cmodint(%" PRIu32 " 0x%" PRIX64 " ", n.number, n.value);
        break;
    case ILMAP_SIG_ELEMENT_INTERNAL: dump_add(b, "internal(0x%" PRIX64 ")", n.value); return;
    case ILMAP_SIG_ELEMENT_CLASS: dump_add(b, "class(0x%08" PRIX32 ")", n.token); return;
    case ILMAP_SIG_ELEMENT_VALUETYPE: dump_add(b, "valuetype(0x%08" PRIX32 ")", n.token); return;
    case ILMAP_SIG_ELEMENT_VAR: dump_add(b, "var(%" PRIu32 ")", n.number); return;
    case ILMAP_SIG_ELEMENT_MVAR: dump_add(b, "mvar(%" PRIu32 ")", n.number); return;
    case ILMAP_SIG_ELEMENT_FNPTR:
        dump_add(b, "fnptr(");
        dump_method(b, sig, n.number);
        dump_add(b, ")");
        return;
    case ILMAP_SIG_ELEMENT_ARRAY: {
        uint32_t sizes[64];
        int32_t lo[64];
        size_t ns = 0, nl = 0;
        dump_add(b, "array(");
        dump_type(b, sig, n.inner);
        if (ilmap_sig_get_array_sizes(sig, index, 64, &ns, sizes) != ILMAP_OK ||
            ilmap_sig_get_array_lower_bounds(sig, index, 64, &nl, lo) != ILMAP_OK) {
            dump_add(b, " ?dims)");
            return;
        }
        dump_add(b, " rank=%" PRIu32 " sizes=[", n.number);
        for (size_t i = 0; i < ns; i++)
            dump_add(b, "%s%" PRIu32, i ? "," : "", sizes[i]);
        dump_add(b, "] lo=[");
        for (size_t i = 0; i < nl; i++)
            dump_add(b, "%s%" PRId32, i ? "," : "", lo[i]);
        dump_add(b, "])");
        return;
    }
    case ILMAP_SIG_ELEMENT_GENERICINST:
        dump_add(b, "inst(");
        dump_type(b, sig, n.inner);
        dump_add(b, "<");
        for (uint32_t i = 0; i < n.number; i++) {
            uint32_t arg;
            dump_add(b, i ? "," : "");
            if (ilmap_sig_get_generic_arg(sig, index, i, &arg) != ILMAP_OK)
                dump_add(b, "?arg");
            else
                dump_type(b, sig, arg);
        }
        dump_add(b, ">)");
        return;
    default: dump_add(b, "?element0x%02" PRIX32, n.element); return;
    }
    dump_type(b, sig, n.inner);
    dump_add(b, ")");
}

static inline void dump_items(dump_buf *b, const ilmap_sig *sig, uint32_t index, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t node;
        dump_add(b, i ? "," : "");
        if (ilmap_sig_get_item(sig, index, i, &node) != ILMAP_OK)
            dump_add(b, "?item");
        else
            dump_type(b, sig, node);
    }
}

static inline void dump_method(dump_buf *b, const ilmap_sig *sig, uint32_t index)
{
    ilmap_sig_info in;
    if (ilmap_sig_get_info(sig, index, &in) != ILMAP_OK) {
        dump_add(b, "?sig%" PRIu32, index);
        return;
    }
    switch (in.kind) {
    case ILMAP_SIG_KIND_METHOD:
        dump_add(b, "method(cc=0x%02" PRIX32, in.callconv);
        if (in.callconv & ILMAP_SIG_GENERIC)
            dump_add(b, " gen=%" PRIu32, in.generic_count);
        dump_add(b, " ret:");
        dump_type(b, sig, in.type);
        dump_add(b, " params:[");
        dump_items(b, sig, index, in.count);
        dump_add(b, "]");
        if (in.sentinel != ILMAP_SIG_NO_SENTINEL)
            dump_add(b, " sentinel=%" PRIu32, in.sentinel);
        dump_add(b, ")");
        return;
    case ILMAP_SIG_KIND_PROPERTY:
        dump_add(b, "property(cc=0x%02" PRIX32 " ", in.callconv);
        dump_type(b, sig, in.type);
        dump_add(b, " params:[");
        dump_items(b, sig, index, in.count);
        dump_add(b, "])");
        return;
    case ILMAP_SIG_KIND_FIELD:
    case ILMAP_SIG_KIND_TYPE:
        dump_add(b, in.kind == ILMAP_SIG_KIND_FIELD ? "field(" : "type(");
        dump_type(b, sig, in.type);
        dump_add(b, ")");
        return;
    case ILMAP_SIG_KIND_LOCALS:
    case ILMAP_SIG_KIND_METHOD_SPEC:
        dump_add(b, in.kind == ILMAP_SIG_KIND_LOCALS ? "locals[" : "spec[");
        dump_items(b, sig, index, in.count);
        dump_add(b, "]");
        return;
    default: dump_add(b, "?kind%" PRIu32, in.kind); return;
    }
}

/* The whole signature's text form. */
static inline const char *dump_sig(dump_buf *b, const ilmap_sig *sig)
{
    b->len = 0;
    b->overflow = 0;
    b->text[0] = 0;
    dump_method(b, sig, 0);
    return b->text;
}

static inline const char *repr_name(uint32_t repr)
{
    switch (repr) {
    case ILMAP_SIG_REPR_VOID: return "void";
    case ILMAP_SIG_REPR_PRIMITIVE: return "prim";
    case ILMAP_SIG_REPR_VALUE_TYPE: return "value";
    case ILMAP_SIG_REPR_OBJECT_ID: return "object";
    case ILMAP_SIG_REPR_MANAGED_PTR: return "mptr";
    case ILMAP_SIG_REPR_UNMANAGED_PTR: return "uptr";
    case ILMAP_SIG_REPR_OPAQUE_PTR: return "opaque";
    case ILMAP_SIG_REPR_TYPEDBYREF: return "typedref";
    case ILMAP_SIG_REPR_UNRESOLVED: return "unresolved";
    default: return "?repr";
    }
}

/* One slot: role, representation, size, token when there is one:
 * "this:object8", "p0:prim4", "ret:value(0x01000002)", "v1:mptr8". */
static inline void dump_slot(dump_buf *b, const ilmap_sig_slot *s)
{
    switch (s->role) {
    case ILMAP_SIG_ROLE_THIS: dump_add(b, "this:"); break;
    case ILMAP_SIG_ROLE_PARAM: dump_add(b, "p%" PRIu32 ":", s->index); break;
    case ILMAP_SIG_ROLE_RETURN: dump_add(b, "ret:"); break;
    case ILMAP_SIG_ROLE_VALUE: dump_add(b, "v%" PRIu32 ":", s->index); break;
    default: dump_add(b, "?role:"); break;
    }
    dump_add(b, "%s", repr_name(s->repr));
    if (s->size)
        dump_add(b, "%" PRIu32, s->size);
    if (s->token)
        dump_add(b, "(0x%08" PRIX32 ")", s->token);
}

/* Bytes from a hex string (spaces ignored); the count, or -1. */
static inline long hex_bytes(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int half = -1;
    for (const char *p = hex; *p; p++) {
        int v;
        if (*p == ' ')
            continue;
        if (*p >= '0' && *p <= '9')
            v = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            v = *p - 'A' + 10;
        else
            return -1;
        if (half < 0) {
            half = v;
        } else {
            if (n >= cap)
                return -1;
            out[n++] = (uint8_t)(half << 4 | v);
            half = -1;
        }
    }
    return half < 0 ? (long)n : -1;
}

#endif
