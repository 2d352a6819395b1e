/*
 * How the runtime hands each value to a profiler (ilmap_sig_classify;
 * the table is doc/signatures.md#classification): modifiers and PINNED
 * are looked through, VAR and MVAR are replaced by the caller's type
 * arguments once, and the element that remains decides.
 */
#include "common/copy_out.h"
#include "sig/sig.h"

#define CLASSIFY_FLAGS (ILMAP_SIG_THIS_VALUE_TYPE | ILMAP_SIG_POINTER_4 | ILMAP_SIG_POINTER_8)

static int args_ok(const ilmap_sig *const *args, size_t count)
{
    if (!args)
        return count == 0;
    for (size_t i = 0; i < count; i++)
        if (!args[i] || args[i]->kind != ILMAP_SIG_KIND_TYPE)
            return 0;
    return 1;
}

/* The flags and generics are usable; *ptr receives the pointer size. */
static int options_ok(const ilmap_sig_generics *g, unsigned flags, uint32_t *ptr)
{
    if ((flags & ~(unsigned)CLASSIFY_FLAGS) ||
        ((flags & ILMAP_SIG_POINTER_4) && (flags & ILMAP_SIG_POINTER_8)))
        return 0;
    *ptr = (flags & ILMAP_SIG_POINTER_4) ? 4 : (flags & ILMAP_SIG_POINTER_8) ? 8 : (uint32_t)sizeof(void *);
    if (!g)
        return 1;
    return args_ok(g->type_args, g->type_arg_count) &&
           args_ok(g->method_args, g->method_arg_count) &&
           (!g->method_spec || g->method_spec->kind == ILMAP_SIG_KIND_METHOD_SPEC);
}

/* The type argument for VAR or MVAR number i: *s and *node receive it;
 * 0 when there is none. */
static int substitute(const ilmap_sig_generics *g, int method, uint32_t i, const ilmap_sig **s,
                      uint32_t *node)
{
    if (!g)
        return 0;
    if (!method) {
        if (i >= g->type_arg_count)
            return 0;
        *s = g->type_args[i];
        *node = (*s)->methods[0].pub.type;
        return 1;
    }
    if (g->method_args) {
        if (i >= g->method_arg_count)
            return 0;
        *s = g->method_args[i];
        *node = (*s)->methods[0].pub.type;
        return 1;
    }
    const ilmap_sig *spec = g->method_spec;
    if (!spec || i >= spec->methods[0].pub.count)
        return 0;
    *s = spec;
    *node = spec->items[spec->methods[0].first + i];
    return 1;
}

static uint32_t primitive_size(uint32_t element, uint32_t ptr)
{
    switch (element) {
    case ILMAP_SIG_ELEMENT_BOOLEAN: case ILMAP_SIG_ELEMENT_I1: case ILMAP_SIG_ELEMENT_U1: return 1;
    case ILMAP_SIG_ELEMENT_CHAR: case ILMAP_SIG_ELEMENT_I2: case ILMAP_SIG_ELEMENT_U2: return 2;
    case ILMAP_SIG_ELEMENT_I4: case ILMAP_SIG_ELEMENT_U4: case ILMAP_SIG_ELEMENT_R4: return 4;
    case ILMAP_SIG_ELEMENT_I8: case ILMAP_SIG_ELEMENT_U8: case ILMAP_SIG_ELEMENT_R8: return 8;
    case ILMAP_SIG_ELEMENT_I: case ILMAP_SIG_ELEMENT_U: return ptr;
    default: return 0;
    }
}

static void classify_node(const ilmap_sig *sig, uint32_t node, const ilmap_sig_generics *g,
                          uint32_t ptr, ilmap_sig_slot *slot)
{
    const ilmap_sig *s = sig;
    int substituted = 0;
    for (;;) {
        const ilmap_sig_node *n = &s->nodes[node].pub;
        slot->sig = s;
        slot->node = node;
        slot->element = n->element;
        switch (n->element) {
        case ILMAP_SIG_ELEMENT_CMOD_REQD:
        case ILMAP_SIG_ELEMENT_CMOD_OPT:
        case ILMAP_SIG_ELEMENT_CMOD_INTERNAL:
        case ILMAP_SIG_ELEMENT_PINNED:
            node = n->inner;
            continue;
        case ILMAP_SIG_ELEMENT_VAR:
        case ILMAP_SIG_ELEMENT_MVAR:
            if (substituted ||
                !substitute(g, n->element == ILMAP_SIG_ELEMENT_MVAR, n->number, &s, &node)) {
                slot->repr = ILMAP_SIG_REPR_UNRESOLVED;
                return;
            }
            substituted = 1;
            continue;
        case ILMAP_SIG_ELEMENT_VOID: slot->repr = ILMAP_SIG_REPR_VOID; return;
        case ILMAP_SIG_ELEMENT_STRING:
        case ILMAP_SIG_ELEMENT_OBJECT:
        case ILMAP_SIG_ELEMENT_SZARRAY:
        case ILMAP_SIG_ELEMENT_ARRAY:
            slot->repr = ILMAP_SIG_REPR_OBJECT_ID;
            slot->size = ptr;
            return;
        case ILMAP_SIG_ELEMENT_CLASS:
            slot->repr = ILMAP_SIG_REPR_OBJECT_ID;
            slot->size = ptr;
            slot->token = n->token;
            return;
        case ILMAP_SIG_ELEMENT_VALUETYPE: slot->repr = ILMAP_SIG_REPR_VALUE_TYPE; slot->token = n->token; return;
        case ILMAP_SIG_ELEMENT_GENERICINST: {
            const ilmap_sig_node *base = &s->nodes[n->inner].pub;
            slot->token = base->token;
            if (base->element == ILMAP_SIG_ELEMENT_VALUETYPE) {
                slot->repr = ILMAP_SIG_REPR_VALUE_TYPE;
            } else {
                slot->repr = ILMAP_SIG_REPR_OBJECT_ID;
                slot->size = ptr;
            }
            return;
        }
        case ILMAP_SIG_ELEMENT_BYREF: slot->repr = ILMAP_SIG_REPR_MANAGED_PTR; slot->size = ptr; return;
        case ILMAP_SIG_ELEMENT_PTR: slot->repr = ILMAP_SIG_REPR_UNMANAGED_PTR; slot->size = ptr; return;
        case ILMAP_SIG_ELEMENT_FNPTR: slot->repr = ILMAP_SIG_REPR_OPAQUE_PTR; slot->size = ptr; return;
        case ILMAP_SIG_ELEMENT_TYPEDBYREF: slot->repr = ILMAP_SIG_REPR_TYPEDBYREF; slot->size = 2 * ptr; return;
        case ILMAP_SIG_ELEMENT_INTERNAL: slot->repr = ILMAP_SIG_REPR_UNRESOLVED; return;
        default: /* the primitives: the decoder admits nothing else */
            slot->repr = ILMAP_SIG_REPR_PRIMITIVE;
            slot->size = primitive_size(n->element, ptr);
            return;
        }
    }
}

static void value_slot(const ilmap_sig *sig, uint32_t node, const ilmap_sig_generics *g,
                       uint32_t ptr, uint32_t role, uint32_t index, ilmap_sig_slot *slot)
{
    *slot = (ilmap_sig_slot){ 0 };
    slot->role = role;
    slot->index = index;
    classify_node(sig, node, g, ptr, slot);
}

/* How many slots signature 0 has, and whether an implicit `this` leads. */
static size_t slot_count(const ilmap_sig *sig, int *implicit_this, int *explicit_this)
{
    const ilmap_sig_info *p = &sig->methods[0].pub;
    *implicit_this = *explicit_this = 0;
    switch (p->kind) {
    case ILMAP_SIG_KIND_METHOD:
        *explicit_this = (p->callconv & ILMAP_SIG_EXPLICITTHIS) != 0;
        *implicit_this = (p->callconv & ILMAP_SIG_HASTHIS) && !*explicit_this;
        return (size_t)*implicit_this + p->count + 1;
    case ILMAP_SIG_KIND_PROPERTY: return (size_t)p->count + 1;
    case ILMAP_SIG_KIND_FIELD:
    case ILMAP_SIG_KIND_TYPE: return 1;
    default: return p->count; /* LOCALS, METHOD_SPEC */
    }
}

ilmap_status ilmap_sig_classify(const ilmap_sig *sig, const ilmap_sig_generics *generics,
                                unsigned flags, size_t cap, size_t *total, ilmap_sig_slot *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    uint32_t ptr;
    if (!sig || !options_ok(generics, flags, &ptr))
        return ILMAP_E_INVALID_ARG;

    const sig_method *m = &sig->methods[0];
    int implicit_this, explicit_this;
    size_t count = slot_count(sig, &implicit_this, &explicit_this);
    size_t n = copy_out_fit(cap, count), k = 0;
    if (implicit_this && k < n) {
        ilmap_sig_slot *s = &out[k++];
        *s = (ilmap_sig_slot){ 0 };
        s->role = ILMAP_SIG_ROLE_THIS;
        s->sig = sig;
        s->node = ILMAP_SIG_NO_NODE;
        s->size = ptr;
        if (flags & ILMAP_SIG_THIS_VALUE_TYPE) {
            s->repr = ILMAP_SIG_REPR_MANAGED_PTR;
            s->element = ILMAP_SIG_ELEMENT_BYREF;
        } else {
            s->repr = ILMAP_SIG_REPR_OBJECT_ID;
            s->element = ILMAP_SIG_ELEMENT_CLASS;
        }
    }
    int method = m->pub.kind == ILMAP_SIG_KIND_METHOD, property = m->pub.kind == ILMAP_SIG_KIND_PROPERTY;
    uint32_t items = m->pub.kind == ILMAP_SIG_KIND_FIELD || m->pub.kind == ILMAP_SIG_KIND_TYPE ? 0 : m->pub.count;
    for (uint32_t i = 0; i < items && k < n; i++) {
        uint32_t role = ILMAP_SIG_ROLE_VALUE, index = i;
        if (method || property) {
            role = explicit_this && i == 0 ? ILMAP_SIG_ROLE_THIS : ILMAP_SIG_ROLE_PARAM;
            index = explicit_this ? (i == 0 ? 0 : i - 1) : i;
        }
        value_slot(sig, sig->items[m->first + i], generics, ptr, role, index, &out[k++]);
    }
    if (m->pub.type != ILMAP_SIG_NO_NODE && k < n)
        value_slot(sig, m->pub.type, generics, ptr,
                   method ? ILMAP_SIG_ROLE_RETURN : ILMAP_SIG_ROLE_VALUE, 0, &out[k++]);
    return copy_out_done(cap, count, total);
}

ilmap_status ilmap_sig_classify_type(const ilmap_sig *sig, uint32_t node,
                                     const ilmap_sig_generics *generics, unsigned flags,
                                     ilmap_sig_slot *slot)
{
    if (!slot)
        return ILMAP_E_INVALID_ARG;
    *slot = (ilmap_sig_slot){ 0 };
    slot->repr = ILMAP_SIG_REPR_UNRESOLVED;
    slot->node = ILMAP_SIG_NO_NODE;
    uint32_t ptr;
    if (!sig || !options_ok(generics, flags, &ptr))
        return ILMAP_E_INVALID_ARG;
    if (node >= sig->node_count)
        return ILMAP_E_NOT_FOUND;
    value_slot(sig, node, generics, ptr, ILMAP_SIG_ROLE_VALUE, 0, slot);
    return ILMAP_OK;
}
