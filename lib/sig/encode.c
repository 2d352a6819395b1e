/*
 * The encoder (ilmap_sig_encode): walks the decoded tree in the order the
 * grammar writes it and emits the shortest form of every compressed
 * integer. Bytes past the caller's cap are counted, not written (the
 * buffer protocol). The tree came from the decoder, so its depth is
 * bounded by ILMAP_SIG_MAX_DEPTH and its indexes are in range.
 */
#include "common/bytes.h"
#include "common/copy_out.h"
#include "sig/compressed.h"
#include "sig/sig.h"

typedef struct writer {
    uint8_t *out;
    size_t cap, n;
} writer;

static void put(writer *w, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++, w->n++)
        if (w->n < w->cap)
            w->out[w->n] = bytes[i];
}

static void put_byte(writer *w, uint32_t b)
{
    uint8_t v = (uint8_t)b;
    put(w, &v, 1);
}

static void put_unsigned(writer *w, uint32_t v)
{
    uint8_t buf[4];
    put(w, buf, sig_write_unsigned(buf, v));
}

static void put_token(writer *w, uint32_t token)
{
    uint8_t buf[4];
    put(w, buf, sig_write_type_token(buf, token));
}

static void put_pointer(writer *w, uint64_t v, uint32_t width)
{
    uint8_t buf[8];
    wr32(buf, (uint32_t)v);
    wr32(buf + 4, (uint32_t)(v >> 32));
    put(w, buf, width);
}

static void put_method(writer *w, const ilmap_sig *sig, uint32_t index);

static void put_type(writer *w, const ilmap_sig *sig, uint32_t index)
{
    /* Modifier and PINNED chains in a loop, as the decoder reads them. */
    for (;;) {
        const sig_node *n = &sig->nodes[index];
        const ilmap_sig_node *p = &n->pub;
        put_byte(w, p->element);
        switch (p->element) {
        case ILMAP_SIG_ELEMENT_CMOD_REQD:
        case ILMAP_SIG_ELEMENT_CMOD_OPT:
            put_token(w, p->token);
            index = p->inner;
            continue;
        case ILMAP_SIG_ELEMENT_CMOD_INTERNAL:
            put_byte(w, p->number);
            put_pointer(w, p->value, sig->ptr_width);
            index = p->inner;
            continue;
        case ILMAP_SIG_ELEMENT_PINNED:
            index = p->inner;
            continue;
        case ILMAP_SIG_ELEMENT_PTR:
        case ILMAP_SIG_ELEMENT_BYREF:
        case ILMAP_SIG_ELEMENT_SZARRAY:
            put_type(w, sig, p->inner);
            return;
        case ILMAP_SIG_ELEMENT_VALUETYPE:
        case ILMAP_SIG_ELEMENT_CLASS:
            put_token(w, p->token);
            return;
        case ILMAP_SIG_ELEMENT_VAR:
        case ILMAP_SIG_ELEMENT_MVAR:
            put_unsigned(w, p->number);
            return;
        case ILMAP_SIG_ELEMENT_ARRAY:
            put_type(w, sig, p->inner);
            put_unsigned(w, p->number);
            put_unsigned(w, p->size_count);
            for (uint32_t i = 0; i < p->size_count; i++)
                put_unsigned(w, sig->dims[n->first + i]);
            put_unsigned(w, p->lower_bound_count);
            for (uint32_t i = 0; i < p->lower_bound_count; i++) {
                uint8_t buf[4];
                put(w, buf, sig_write_signed(buf, (int32_t)sig->dims[n->first + p->size_count + i]));
            }
            return;
        case ILMAP_SIG_ELEMENT_GENERICINST: {
            const ilmap_sig_node *base = &sig->nodes[p->inner].pub;
            put_byte(w, base->element);
            put_token(w, base->token);
            put_unsigned(w, p->number);
            for (uint32_t i = 0; i < p->number; i++)
                put_type(w, sig, sig->items[n->first + i]);
            return;
        }
        case ILMAP_SIG_ELEMENT_FNPTR:
            put_method(w, sig, p->number);
            return;
        case ILMAP_SIG_ELEMENT_INTERNAL:
            put_pointer(w, p->value, sig->ptr_width);
            return;
        default: /* a leaf: the element byte is all */
            return;
        }
    }
}

static void put_items(writer *w, const ilmap_sig *sig, const sig_method *m)
{
    for (uint32_t i = 0; i < m->pub.count; i++) {
        if (i == m->pub.sentinel)
            put_byte(w, ILMAP_SIG_ELEMENT_SENTINEL);
        put_type(w, sig, sig->items[m->first + i]);
    }
}

static void put_method(writer *w, const ilmap_sig *sig, uint32_t index)
{
    const sig_method *m = &sig->methods[index];
    const ilmap_sig_info *p = &m->pub;
    if (p->kind == ILMAP_SIG_KIND_TYPE) {
        put_type(w, sig, p->type);
        return;
    }
    put_byte(w, p->callconv);
    switch (p->kind) {
    case ILMAP_SIG_KIND_METHOD:
        if (p->callconv & ILMAP_SIG_GENERIC)
            put_unsigned(w, p->generic_count);
        put_unsigned(w, p->count);
        put_type(w, sig, p->type);
        put_items(w, sig, m);
        break;
    case ILMAP_SIG_KIND_PROPERTY:
        put_unsigned(w, p->count);
        put_type(w, sig, p->type);
        put_items(w, sig, m);
        break;
    case ILMAP_SIG_KIND_FIELD:
        put_type(w, sig, p->type);
        break;
    default: /* LOCALS, METHOD_SPEC */
        put_unsigned(w, p->count);
        put_items(w, sig, m);
        break;
    }
}

ilmap_status ilmap_sig_encode(const ilmap_sig *sig, size_t cap, size_t *total, uint8_t *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    writer w = { out, cap, 0 };
    put_method(&w, sig, 0);
    return copy_out_done(cap, w.n, total);
}

ilmap_status ilmap_sig_encode_type(const ilmap_sig *sig, uint32_t node, size_t cap, size_t *total,
                                   uint8_t *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    if (node >= sig->node_count)
        return ILMAP_E_NOT_FOUND;
    writer w = { out, cap, 0 };
    put_type(&w, sig, node);
    return copy_out_done(cap, w.n, total);
}

/* The return type under its modifiers: what decides whether it can be
 * stored and boxed. */
static uint32_t unmodified_element(const ilmap_sig *sig, uint32_t index)
{
    for (;;) {
        const ilmap_sig_node *p = &sig->nodes[index].pub;
        if (p->element != ILMAP_SIG_ELEMENT_CMOD_REQD && p->element != ILMAP_SIG_ELEMENT_CMOD_OPT &&
            p->element != ILMAP_SIG_ELEMENT_CMOD_INTERNAL)
            return p->element;
        index = p->inner;
    }
}

/* A TypeDef, TypeRef or TypeSpec token with a row. */
static int is_type_token(uint32_t token)
{
    uint32_t table = token >> 24;
    return (token & 0x00FFFFFFu) != 0 &&
           (table == ILMAP_SIG_TABLE_TYPEREF || table == ILMAP_SIG_TABLE_TYPEDEF ||
            table == ILMAP_SIG_TABLE_TYPESPEC);
}

ilmap_status ilmap_sig_wrap_locals(const uint8_t *method_sig, size_t method_sig_size,
                                   const uint8_t *locals, size_t locals_size,
                                   uint32_t exception_type, size_t cap, size_t *total,
                                   uint8_t *out, uint32_t *return_local, uint32_t *exception_local)
{
    if (return_local)
        *return_local = ILMAP_SIG_NO_LOCAL;
    if (exception_local)
        *exception_local = ILMAP_SIG_NO_LOCAL;
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!method_sig || (!locals && locals_size > 0) || !return_local || !exception_local ||
        !is_type_token(exception_type))
        return ILMAP_E_INVALID_ARG;

    ilmap_sig *m = NULL, *l = NULL;
    st = ilmap_sig_decode(method_sig, method_sig_size, 0, &m, NULL, NULL);
    if (st == ILMAP_OK && m->kind != ILMAP_SIG_KIND_METHOD)
        st = ILMAP_E_FORMAT;
    if (st == ILMAP_OK && locals_size > 0) {
        st = ilmap_sig_decode(locals, locals_size, 0, &l, NULL, NULL);
        if (st == ILMAP_OK && l->kind != ILMAP_SIG_KIND_LOCALS)
            st = ILMAP_E_FORMAT;
    }
    uint32_t ret = st == ILMAP_OK ? m->methods[0].pub.type : 0;
    uint32_t element = st == ILMAP_OK ? unmodified_element(m, ret) : 0;
    /* A byref, a typed reference or a pointer cannot be boxed for End. */
    if (st == ILMAP_OK &&
        (element == ILMAP_SIG_ELEMENT_BYREF || element == ILMAP_SIG_ELEMENT_TYPEDBYREF ||
         element == ILMAP_SIG_ELEMENT_PTR || element == ILMAP_SIG_ELEMENT_FNPTR))
        st = ILMAP_E_UNSUPPORTED;
    uint32_t had = l ? l->methods[0].pub.count : 0;
    uint32_t added = element == ILMAP_SIG_ELEMENT_VOID ? 1u : 2u;
    if (st == ILMAP_OK && had + added > ILMAP_SIG_MAX_LOCALS)
        st = ILMAP_E_LIMIT;
    if (st == ILMAP_OK) {
        writer w = { out, cap, 0 };
        put_byte(&w, ILMAP_SIG_CALLCONV_LOCAL_SIG);
        put_unsigned(&w, had + added);
        if (l)
            put_items(&w, l, &l->methods[0]);
        if (added == 2) {
            put_type(&w, m, ret);
            *return_local = had;
        }
        put_byte(&w, ILMAP_SIG_ELEMENT_CLASS);
        put_token(&w, exception_type);
        *exception_local = had + added - 1;
        st = copy_out_done(cap, w.n, total);
    }
    ilmap_sig_free(m);
    ilmap_sig_free(l);
    return st;
}
