/*
 * The signature decoder (ilmap_sig_decode; grammar and error model in
 * doc/signatures.md). One recursive-descent parser runs twice over the
 * bytes: the first pass checks everything and counts nodes, signatures,
 * items and array dimensions (nothing is written: every store goes to a
 * scratch slot), then the one block is allocated and the second pass,
 * which cannot fail, fills it. Recursion is bounded by ILMAP_SIG_MAX_DEPTH;
 * modifier and PINNED chains are walked in a loop.
 */
#include <stdlib.h>

#include "common/bytes.h"
#include "common/size_limits.h"
#include "sig/compressed.h"
#include "sig/sig.h"

/* What a type position admits besides ordinary types. */
#define ALLOW_VOID 1u   /* a return type, or under PTR */
#define ALLOW_PINNED 2u /* a local variable */

typedef struct parser {
    const uint8_t *p;
    size_t size, pos;
    uint32_t ptr_width; /* 0: INTERNAL refused */
    ilmap_sig *sig;     /* NULL in the counting pass */
    size_t nodes, methods, items, dims;
    ilmap_sig_defect defect;
    size_t where;
    /* The counting pass's stores land here. */
    sig_node scratch_node;
    sig_method scratch_method;
    uint32_t scratch_u32;
} parser;

static int fail(parser *ps, ilmap_sig_defect defect, size_t where)
{
    ps->defect = defect;
    ps->where = where;
    return 0;
}

static int check(parser *ps, ilmap_sig_defect defect, size_t where)
{
    return defect == ILMAP_SIG_DEFECT_NONE ? 1 : fail(ps, defect, where);
}

static sig_node *node_ref(parser *ps, uint32_t i)
{
    return ps->sig ? &ps->sig->nodes[i] : &ps->scratch_node;
}

static sig_method *method_ref(parser *ps, uint32_t i)
{
    return ps->sig ? &ps->sig->methods[i] : &ps->scratch_method;
}

static uint32_t *item_ref(parser *ps, size_t i)
{
    return ps->sig ? &ps->sig->items[i] : &ps->scratch_u32;
}

static uint32_t *dim_ref(parser *ps, size_t i)
{
    return ps->sig ? &ps->sig->dims[i] : &ps->scratch_u32;
}

static uint32_t new_node(parser *ps, uint32_t element, size_t at)
{
    uint32_t i = (uint32_t)ps->nodes++;
    sig_node *n = node_ref(ps, i);
    *n = (sig_node){ { 0 }, 0 };
    n->pub.element = element;
    n->pub.offset = (uint32_t)at;
    n->pub.inner = ILMAP_SIG_NO_NODE;
    return i;
}

static int read_unsigned(parser *ps, uint32_t *v)
{
    size_t at = ps->pos;
    return check(ps, sig_read_unsigned(ps->p, ps->size, &ps->pos, v), at);
}

/* A number that must be at least `minimum` (an array's rank, a generic
 * parameter count): not bounded by the bytes left. */
static int read_at_least(parser *ps, uint32_t minimum, uint32_t *v)
{
    size_t at = ps->pos;
    if (!read_unsigned(ps, v))
        return 0;
    return *v >= minimum || fail(ps, ILMAP_SIG_DEFECT_COUNT, at);
}

/* A count of items that take at least one byte each. */
static int read_count(parser *ps, uint32_t minimum, uint32_t *v)
{
    size_t at = ps->pos;
    if (!read_unsigned(ps, v))
        return 0;
    if (*v < minimum || *v > ps->size - ps->pos)
        return fail(ps, ILMAP_SIG_DEFECT_COUNT, at);
    return 1;
}

static int read_token(parser *ps, uint32_t *token)
{
    size_t at = ps->pos;
    return check(ps, sig_read_type_token(ps->p, ps->size, &ps->pos, token), at);
}

/* A runtime pointer (INTERNAL, CMOD_INTERNAL), little-endian. element_at
 * is where its element byte was. */
static int read_pointer(parser *ps, size_t element_at, uint64_t *value)
{
    if (ps->ptr_width == 0)
        return fail(ps, ILMAP_SIG_DEFECT_INTERNAL, element_at);
    if (ps->size - ps->pos < ps->ptr_width)
        return fail(ps, ILMAP_SIG_DEFECT_TRUNCATED, ps->pos);
    const uint8_t *at = ps->p + ps->pos;
    *value = ps->ptr_width == 4 ? rd32(at) : rd32(at) | (uint64_t)rd32(at + 4) << 32;
    ps->pos += ps->ptr_width;
    return 1;
}

static int parse_method(parser *ps, unsigned depth, int nested, uint32_t *index);

/* Appends node n to a modifier chain: the root if the chain is empty,
 * else the inner of its last modifier. */
static void chain(parser *ps, uint32_t *root, uint32_t *last, uint32_t n)
{
    if (*root == ILMAP_SIG_NO_NODE)
        *root = n;
    else
        node_ref(ps, *last)->pub.inner = n;
    *last = n;
}

static int parse_type(parser *ps, unsigned depth, unsigned allow, uint32_t *out);

static int parse_inner(parser *ps, unsigned depth, unsigned allow, uint32_t n)
{
    uint32_t inner;
    if (!parse_type(ps, depth + 1, allow, &inner))
        return 0;
    node_ref(ps, n)->pub.inner = inner;
    return 1;
}

/* ARRAY after its element byte: Type Rank NumSizes Size* NumLoBounds
 * LoBound*. */
static int parse_array(parser *ps, unsigned depth, uint32_t n)
{
    uint32_t rank, nsizes, nbounds;
    if (!parse_inner(ps, depth, 0, n) || !read_at_least(ps, 1, &rank))
        return 0;
    size_t at = ps->pos;
    if (!read_count(ps, 0, &nsizes))
        return 0;
    if (nsizes > rank)
        return fail(ps, ILMAP_SIG_DEFECT_COUNT, at);
    size_t first = ps->dims;
    for (uint32_t i = 0; i < nsizes; i++) {
        uint32_t v;
        if (!read_unsigned(ps, &v))
            return 0;
        *dim_ref(ps, ps->dims++) = v;
    }
    at = ps->pos;
    if (!read_count(ps, 0, &nbounds))
        return 0;
    if (nbounds > rank)
        return fail(ps, ILMAP_SIG_DEFECT_COUNT, at);
    for (uint32_t i = 0; i < nbounds; i++) {
        int32_t v;
        at = ps->pos;
        if (!check(ps, sig_read_signed(ps->p, ps->size, &ps->pos, &v), at))
            return 0;
        *dim_ref(ps, ps->dims++) = (uint32_t)v;
    }
    sig_node *nd = node_ref(ps, n);
    nd->pub.number = rank;
    nd->pub.size_count = nsizes;
    nd->pub.lower_bound_count = nbounds;
    nd->first = (uint32_t)first;
    return 1;
}

/* GENERICINST after its element byte: (CLASS | VALUETYPE) TypeDefOrRef
 * GenArgCount Type+. */
static int parse_generic_inst(parser *ps, unsigned depth, uint32_t n)
{
    size_t at = ps->pos;
    if (at >= ps->size)
        return fail(ps, ILMAP_SIG_DEFECT_TRUNCATED, at);
    uint8_t e = ps->p[at];
    if (e != ILMAP_SIG_ELEMENT_CLASS && e != ILMAP_SIG_ELEMENT_VALUETYPE)
        return fail(ps, ILMAP_SIG_DEFECT_ELEMENT, at);
    ps->pos++;
    uint32_t base = new_node(ps, e, at), token, count;
    if (!read_token(ps, &token))
        return 0;
    node_ref(ps, base)->pub.token = token;
    if (!read_count(ps, 1, &count))
        return 0;
    size_t first = ps->items;
    ps->items += count;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t arg;
        if (!parse_type(ps, depth + 1, 0, &arg))
            return 0;
        *item_ref(ps, first + i) = arg;
    }
    sig_node *nd = node_ref(ps, n);
    nd->pub.inner = base;
    nd->pub.number = count;
    nd->first = (uint32_t)first;
    return 1;
}

/* One type, its leading modifiers (and PINNED where allowed) included;
 * *out receives its root node. */
static int parse_type(parser *ps, unsigned depth, unsigned allow, uint32_t *out)
{
    uint32_t root = ILMAP_SIG_NO_NODE, last = ILMAP_SIG_NO_NODE;
    if (depth > ILMAP_SIG_MAX_DEPTH)
        return fail(ps, ILMAP_SIG_DEFECT_DEPTH, ps->pos);
    for (;;) {
        size_t at = ps->pos;
        if (at >= ps->size)
            return fail(ps, ILMAP_SIG_DEFECT_TRUNCATED, at);
        uint8_t e = ps->p[at];
        if (e != ILMAP_SIG_ELEMENT_CMOD_REQD && e != ILMAP_SIG_ELEMENT_CMOD_OPT &&
            e != ILMAP_SIG_ELEMENT_CMOD_INTERNAL && e != ILMAP_SIG_ELEMENT_PINNED)
            break;
        if (e == ILMAP_SIG_ELEMENT_PINNED && !(allow & ALLOW_PINNED))
            return fail(ps, ILMAP_SIG_DEFECT_PLACEMENT, at);
        ps->pos++;
        uint32_t n = new_node(ps, e, at);
        sig_node *nd = node_ref(ps, n);
        if (e == ILMAP_SIG_ELEMENT_CMOD_INTERNAL) {
            if (ps->ptr_width == 0)
                return fail(ps, ILMAP_SIG_DEFECT_INTERNAL, at);
            if (ps->pos >= ps->size)
                return fail(ps, ILMAP_SIG_DEFECT_TRUNCATED, ps->pos);
            uint8_t required = ps->p[ps->pos];
            if (required > 1)
                return fail(ps, ILMAP_SIG_DEFECT_ELEMENT, ps->pos);
            ps->pos++;
            nd->pub.number = required;
            if (!read_pointer(ps, at, &nd->pub.value))
                return 0;
        } else if (e != ILMAP_SIG_ELEMENT_PINNED) {
            if (!read_token(ps, &nd->pub.token))
                return 0;
        }
        chain(ps, &root, &last, n);
    }

    size_t at = ps->pos;
    uint8_t e = ps->p[at];
    ps->pos++;
    uint32_t n = new_node(ps, e, at);
    int ok = 1;
    switch (e) {
    case ILMAP_SIG_ELEMENT_VOID:
        if (!(allow & ALLOW_VOID))
            return fail(ps, ILMAP_SIG_DEFECT_PLACEMENT, at);
        break;
    case ILMAP_SIG_ELEMENT_BOOLEAN: case ILMAP_SIG_ELEMENT_CHAR:
    case ILMAP_SIG_ELEMENT_I1: case ILMAP_SIG_ELEMENT_U1:
    case ILMAP_SIG_ELEMENT_I2: case ILMAP_SIG_ELEMENT_U2:
    case ILMAP_SIG_ELEMENT_I4: case ILMAP_SIG_ELEMENT_U4:
    case ILMAP_SIG_ELEMENT_I8: case ILMAP_SIG_ELEMENT_U8:
    case ILMAP_SIG_ELEMENT_R4: case ILMAP_SIG_ELEMENT_R8:
    case ILMAP_SIG_ELEMENT_STRING: case ILMAP_SIG_ELEMENT_TYPEDBYREF:
    case ILMAP_SIG_ELEMENT_I: case ILMAP_SIG_ELEMENT_U:
    case ILMAP_SIG_ELEMENT_OBJECT:
        break;
    case ILMAP_SIG_ELEMENT_PTR: ok = parse_inner(ps, depth, ALLOW_VOID, n); break;
    case ILMAP_SIG_ELEMENT_BYREF:
    case ILMAP_SIG_ELEMENT_SZARRAY: ok = parse_inner(ps, depth, 0, n); break;
    case ILMAP_SIG_ELEMENT_VALUETYPE:
    case ILMAP_SIG_ELEMENT_CLASS: ok = read_token(ps, &node_ref(ps, n)->pub.token); break;
    case ILMAP_SIG_ELEMENT_VAR:
    case ILMAP_SIG_ELEMENT_MVAR: ok = read_unsigned(ps, &node_ref(ps, n)->pub.number); break;
    case ILMAP_SIG_ELEMENT_ARRAY: ok = parse_array(ps, depth, n); break;
    case ILMAP_SIG_ELEMENT_GENERICINST: ok = parse_generic_inst(ps, depth, n); break;
    case ILMAP_SIG_ELEMENT_FNPTR: {
        uint32_t m;
        ok = parse_method(ps, depth + 1, 1, &m);
        node_ref(ps, n)->pub.number = m;
        break;
    }
    case ILMAP_SIG_ELEMENT_INTERNAL: ok = read_pointer(ps, at, &node_ref(ps, n)->pub.value); break;
    case ILMAP_SIG_ELEMENT_SENTINEL: return fail(ps, ILMAP_SIG_DEFECT_PLACEMENT, at);
    default: return fail(ps, ILMAP_SIG_DEFECT_ELEMENT, at);
    }
    if (!ok)
        return 0;
    chain(ps, &root, &last, n);
    *out = root;
    return 1;
}

/* Reserves a signature's run of count items (parameters, locals, type
 * arguments): reserved before anything between the count and the items
 * (a return or property type) takes items of its own. */
static void reserve_items(parser *ps, sig_method *m, uint32_t count)
{
    m->first = (uint32_t)ps->items;
    ps->items += count;
}

/* The reserved items; SENTINEL is admitted before one of them when vararg
 * is set. */
static int parse_items(parser *ps, unsigned depth, unsigned allow, int vararg, sig_method *m,
                       uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        size_t at = ps->pos;
        if (at < ps->size && ps->p[at] == ILMAP_SIG_ELEMENT_SENTINEL) {
            if (!vararg || m->pub.sentinel != ILMAP_SIG_NO_SENTINEL)
                return fail(ps, ILMAP_SIG_DEFECT_PLACEMENT, at);
            m->pub.sentinel = i;
            ps->pos++;
        }
        uint32_t node;
        if (!parse_type(ps, depth, allow, &node))
            return 0;
        *item_ref(ps, (size_t)m->first + i) = node;
    }
    return 1;
}

/* A signature that starts with its calling convention byte. nested: a
 * FNPTR's, which must be a method signature. *index receives its number. */
static int parse_method(parser *ps, unsigned depth, int nested, uint32_t *index)
{
    size_t at = ps->pos;
    uint32_t i = (uint32_t)ps->methods++;
    *index = i;
    if (at >= ps->size)
        return fail(ps, ILMAP_SIG_DEFECT_TRUNCATED, at);
    /* Built in a local: nested signatures write their own records while
     * this one is parsed. */
    sig_method m = { { 0 }, 0 };
    m.pub.offset = (uint32_t)at;
    m.pub.callconv = ps->p[at];
    m.pub.sentinel = ILMAP_SIG_NO_SENTINEL;
    m.pub.type = ILMAP_SIG_NO_NODE;
    m.first = (uint32_t)ps->items;

    uint32_t b = m.pub.callconv, conv = b & ILMAP_SIG_CALLCONV_MASK, high = b & ~conv;
    int is_method = conv <= ILMAP_SIG_CALLCONV_VARARG || conv == ILMAP_SIG_CALLCONV_UNMANAGED;
    if (b & 0x80u || (nested && !is_method))
        return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
    ps->pos++;
    uint32_t count = 0;
    if (is_method) {
        if ((high & ILMAP_SIG_EXPLICITTHIS) && !(high & ILMAP_SIG_HASTHIS))
            return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
        m.pub.kind = ILMAP_SIG_KIND_METHOD;
        if ((high & ILMAP_SIG_GENERIC) && !read_at_least(ps, 1, &m.pub.generic_count))
            return 0;
        if (!read_count(ps, 0, &count))
            return 0;
        reserve_items(ps, &m, count);
        int vararg = conv == ILMAP_SIG_CALLCONV_VARARG || conv == ILMAP_SIG_CALLCONV_C;
        if (!parse_type(ps, depth, ALLOW_VOID, &m.pub.type) ||
            !parse_items(ps, depth, 0, vararg, &m, count))
            return 0;
    } else {
        switch (conv) {
        case ILMAP_SIG_CALLCONV_FIELD:
            if (high)
                return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
            m.pub.kind = ILMAP_SIG_KIND_FIELD;
            if (!parse_type(ps, depth, 0, &m.pub.type))
                return 0;
            break;
        case ILMAP_SIG_CALLCONV_PROPERTY:
            if (high & ~(uint32_t)ILMAP_SIG_HASTHIS)
                return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
            m.pub.kind = ILMAP_SIG_KIND_PROPERTY;
            if (!read_count(ps, 0, &count))
                return 0;
            reserve_items(ps, &m, count);
            if (!parse_type(ps, depth, 0, &m.pub.type) || !parse_items(ps, depth, 0, 0, &m, count))
                return 0;
            break;
        case ILMAP_SIG_CALLCONV_LOCAL_SIG:
        case ILMAP_SIG_CALLCONV_GENERICINST: {
            int locals = conv == ILMAP_SIG_CALLCONV_LOCAL_SIG;
            if (high)
                return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
            m.pub.kind = locals ? ILMAP_SIG_KIND_LOCALS : ILMAP_SIG_KIND_METHOD_SPEC;
            if (!read_count(ps, locals ? 0 : 1, &count))
                return 0;
            reserve_items(ps, &m, count);
            if (!parse_items(ps, depth, locals ? ALLOW_PINNED : 0, 0, &m, count))
                return 0;
            break;
        }
        default: return fail(ps, ILMAP_SIG_DEFECT_CALLCONV, at);
        }
    }
    m.pub.count = count;
    *method_ref(ps, i) = m;
    return 1;
}

/* One pass over the bytes; sig NULL: the counting pass. */
static int parse(parser *ps, unsigned flags)
{
    if (flags & ILMAP_SIG_AS_TYPE) {
        uint32_t i = (uint32_t)ps->methods++;
        sig_method m = { { 0 }, 0 };
        m.pub.kind = ILMAP_SIG_KIND_TYPE;
        m.pub.sentinel = ILMAP_SIG_NO_SENTINEL;
        if (!parse_type(ps, 0, 0, &m.pub.type))
            return 0;
        *method_ref(ps, i) = m;
    } else {
        uint32_t i;
        if (!parse_method(ps, 0, 0, &i))
            return 0;
    }
    if (ps->pos != ps->size && !(flags & ILMAP_SIG_PREFIX))
        return fail(ps, ILMAP_SIG_DEFECT_TRAILING, ps->pos);
    return 1;
}

/* Reserves count items of item bytes at *offset, aligned to align (a power
 * of two); 0 on overflow. */
static int layout_place(size_t *offset, size_t count, size_t item, size_t align, size_t *at)
{
    size_t start, bytes;
    if (!size_add(*offset, align - 1, &start) || !size_mul(count, item, &bytes))
        return 0;
    start &= ~(align - 1);
    if (!size_add(start, bytes, offset))
        return 0;
    *at = start;
    return 1;
}

#define SIG_FLAGS (ILMAP_SIG_AS_TYPE | ILMAP_SIG_PREFIX | ILMAP_SIG_INTERNAL_PTR4 | ILMAP_SIG_INTERNAL_PTR8)

ilmap_status ilmap_sig_decode(const uint8_t *blob, size_t size, unsigned flags, ilmap_sig **out,
                              ilmap_sig_defect *defect, size_t *error_offset)
{
    if (out)
        *out = NULL;
    if (defect)
        *defect = ILMAP_SIG_DEFECT_NONE;
    if (error_offset)
        *error_offset = ILMAP_NO_INDEX;
    if (!out || (!blob && size > 0) || (flags & ~(unsigned)SIG_FLAGS) ||
        ((flags & ILMAP_SIG_INTERNAL_PTR4) && (flags & ILMAP_SIG_INTERNAL_PTR8)) ||
        size_exceeds_u32(size))
        return ILMAP_E_INVALID_ARG;

    parser ps = { 0 };
    ps.p = blob;
    ps.size = size;
    ps.ptr_width = (flags & ILMAP_SIG_INTERNAL_PTR4) ? 4 : (flags & ILMAP_SIG_INTERNAL_PTR8) ? 8 : 0;
    if (!parse(&ps, flags)) {
        if (defect)
            *defect = ps.defect;
        if (error_offset)
            *error_offset = ps.where;
        return ps.defect == ILMAP_SIG_DEFECT_DEPTH ? ILMAP_E_LIMIT : ILMAP_E_FORMAT;
    }

    size_t total = sizeof(ilmap_sig), nodes_at, methods_at, items_at, dims_at;
    if (!layout_place(&total, ps.nodes, sizeof(sig_node), _Alignof(sig_node), &nodes_at) ||
        !layout_place(&total, ps.methods, sizeof(sig_method), _Alignof(sig_method), &methods_at) ||
        !layout_place(&total, ps.items, sizeof(uint32_t), _Alignof(uint32_t), &items_at) ||
        !layout_place(&total, ps.dims, sizeof(uint32_t), _Alignof(uint32_t), &dims_at))
        return ILMAP_E_NOMEM;
    unsigned char *block = malloc(total);
    if (!block)
        return ILMAP_E_NOMEM;
    ilmap_sig *sig = (ilmap_sig *)(void *)block;
    sig->kind = ILMAP_SIG_KIND_NONE;
    sig->size = (uint32_t)ps.pos;
    sig->ptr_width = ps.ptr_width;
    sig->node_count = (uint32_t)ps.nodes;
    sig->method_count = (uint32_t)ps.methods;
    sig->item_count = (uint32_t)ps.items;
    sig->dim_count = (uint32_t)ps.dims;
    sig->nodes = (sig_node *)(void *)(block + nodes_at);
    sig->methods = (sig_method *)(void *)(block + methods_at);
    sig->items = (uint32_t *)(void *)(block + items_at);
    sig->dims = (uint32_t *)(void *)(block + dims_at);

    /* The second pass sees the same bytes: it cannot fail. */
    parser fill = { 0 };
    fill.p = blob;
    fill.size = size;
    fill.ptr_width = ps.ptr_width;
    fill.sig = sig;
    (void)parse(&fill, flags);
    sig->kind = sig->methods[0].pub.kind;
    *out = sig;
    return ILMAP_OK;
}
