/* The decoded signature's getters and its release (ilmap-sig.h). */
#include <stdlib.h>

#include "common/copy_out.h"
#include "sig/sig.h"

void ilmap_sig_free(ilmap_sig *sig)
{
    free(sig); /* one block: decode.c */
}

const char *ilmap_sig_defect_str(ilmap_sig_defect defect)
{
    switch (defect) {
    case ILMAP_SIG_DEFECT_NONE: return "no defect";
    case ILMAP_SIG_DEFECT_TRUNCATED: return "an item runs past the end of the signature";
    case ILMAP_SIG_DEFECT_COMPRESSED: return "malformed or non-shortest compressed integer";
    case ILMAP_SIG_DEFECT_CALLCONV: return "unknown calling convention or a flag its kind cannot have";
    case ILMAP_SIG_DEFECT_ELEMENT: return "a byte that starts no type where a type must start";
    case ILMAP_SIG_DEFECT_TOKEN: return "TypeDefOrRef coded index with tag 3 or a row beyond 24 bits";
    case ILMAP_SIG_DEFECT_COUNT: return "a count too large for the bytes left, zero, or above the rank";
    case ILMAP_SIG_DEFECT_PLACEMENT: return "VOID, PINNED or SENTINEL where it may not stand";
    case ILMAP_SIG_DEFECT_TRAILING: return "bytes after the end of the signature";
    case ILMAP_SIG_DEFECT_DEPTH: return "types nested deeper than ILMAP_SIG_MAX_DEPTH";
    case ILMAP_SIG_DEFECT_INTERNAL: return "runtime-internal element without a pointer width";
    }
    return "unknown defect";
}

ilmap_sig_kind ilmap_sig_get_kind(const ilmap_sig *sig)
{
    return sig ? (ilmap_sig_kind)sig->kind : ILMAP_SIG_KIND_NONE;
}

size_t ilmap_sig_get_size(const ilmap_sig *sig)
{
    return sig ? sig->size : 0;
}

uint32_t ilmap_sig_get_node_count(const ilmap_sig *sig)
{
    return sig ? sig->node_count : 0;
}

ilmap_status ilmap_sig_get_info(const ilmap_sig *sig, uint32_t index, ilmap_sig_info *info)
{
    if (!info)
        return ILMAP_E_INVALID_ARG;
    *info = (ilmap_sig_info){ 0 };
    info->sentinel = ILMAP_SIG_NO_SENTINEL;
    info->type = ILMAP_SIG_NO_NODE;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    const sig_method *m = sig_method_at(sig, index);
    if (!m)
        return ILMAP_E_NOT_FOUND;
    *info = m->pub;
    return ILMAP_OK;
}

ilmap_status ilmap_sig_get_item(const ilmap_sig *sig, uint32_t index, uint32_t i, uint32_t *node)
{
    if (!node)
        return ILMAP_E_INVALID_ARG;
    *node = ILMAP_SIG_NO_NODE;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    const sig_method *m = sig_method_at(sig, index);
    if (!m || i >= m->pub.count)
        return ILMAP_E_NOT_FOUND;
    *node = sig->items[m->first + i];
    return ILMAP_OK;
}

ilmap_status ilmap_sig_get_node(const ilmap_sig *sig, uint32_t index, ilmap_sig_node *node)
{
    if (!node)
        return ILMAP_E_INVALID_ARG;
    *node = (ilmap_sig_node){ 0 };
    node->inner = ILMAP_SIG_NO_NODE;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    const sig_node *n = sig_node_at(sig, index);
    if (!n)
        return ILMAP_E_NOT_FOUND;
    *node = n->pub;
    return ILMAP_OK;
}

ilmap_status ilmap_sig_get_generic_arg(const ilmap_sig *sig, uint32_t node, uint32_t i,
                                       uint32_t *arg)
{
    if (!arg)
        return ILMAP_E_INVALID_ARG;
    *arg = ILMAP_SIG_NO_NODE;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    const sig_node *n = sig_node_at(sig, node);
    if (!n)
        return ILMAP_E_NOT_FOUND;
    if (n->pub.element != ILMAP_SIG_ELEMENT_GENERICINST)
        return ILMAP_E_INVALID_ARG;
    if (i >= n->pub.number)
        return ILMAP_E_NOT_FOUND;
    *arg = sig->items[n->first + i];
    return ILMAP_OK;
}

/* An ARRAY node's sizes, or its lower bounds, with the buffer protocol. */
static ilmap_status array_dims(const ilmap_sig *sig, uint32_t node, int bounds, size_t cap,
                               size_t *total, void *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!sig)
        return ILMAP_E_INVALID_ARG;
    const sig_node *n = sig_node_at(sig, node);
    if (!n)
        return ILMAP_E_NOT_FOUND;
    if (n->pub.element != ILMAP_SIG_ELEMENT_ARRAY)
        return ILMAP_E_INVALID_ARG;
    uint32_t first = n->first + (bounds ? n->pub.size_count : 0);
    uint32_t count = bounds ? n->pub.lower_bound_count : n->pub.size_count;
    /* int32_t and uint32_t share size and representation. */
    return copy_out_array(sig->dims + first, count, sizeof(uint32_t), cap, total, out);
}

ilmap_status ilmap_sig_get_array_sizes(const ilmap_sig *sig, uint32_t node, size_t cap,
                                       size_t *total, uint32_t *out)
{
    return array_dims(sig, node, 0, cap, total, out);
}

ilmap_status ilmap_sig_get_array_lower_bounds(const ilmap_sig *sig, uint32_t node, size_t cap,
                                              size_t *total, int32_t *out)
{
    return array_dims(sig, node, 1, cap, total, out);
}
