/*
 * The decoded form of a signature (ilmap-sig.h): one block holding the
 * handle and four arrays, indexes instead of pointers.
 *
 *   nodes    the type tree, in the order the bytes name them (a parent
 *            before its children);
 *   methods  signature 0 (the blob's) and one nested method signature per
 *            FNPTR, in the order they appear;
 *   items    node indexes: each signature's parameters / locals / type
 *            arguments, each GENERICINST's arguments, contiguous per owner;
 *   dims     each ARRAY's sizes then lower bounds (as uint32_t bits).
 *
 * decode.c fills it in two passes over the bytes: the first checks
 * everything and counts, the one allocation follows, the second writes.
 */
#ifndef ILMAP_SIG_SIG_H
#define ILMAP_SIG_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-sig.h"

typedef struct sig_node {
    ilmap_sig_node pub; /* what ilmap_sig_get_node() hands out */
    uint32_t first;     /* GENERICINST: its first argument in items;
                           ARRAY: its first size in dims */
} sig_node;

typedef struct sig_method {
    ilmap_sig_info pub; /* what ilmap_sig_get_info() hands out */
    uint32_t first;     /* its first item in items */
} sig_method;

struct ilmap_sig {
    uint32_t kind;      /* ilmap_sig_kind */
    uint32_t size;      /* bytes decoded */
    uint32_t ptr_width; /* INTERNAL pointers: 4, 8, or 0 (none allowed) */
    uint32_t node_count, method_count, item_count, dim_count;
    sig_node *nodes;
    sig_method *methods;
    uint32_t *items;
    uint32_t *dims;
};

/* Node index -> node, NULL when out of range. */
static inline const sig_node *sig_node_at(const ilmap_sig *sig, uint32_t index)
{
    return sig && index < sig->node_count ? &sig->nodes[index] : NULL;
}

/* Signature index -> its header, NULL when out of range. */
static inline const sig_method *sig_method_at(const ilmap_sig *sig, uint32_t index)
{
    return sig && index < sig->method_count ? &sig->methods[index] : NULL;
}

#endif
