/*
 * The selected methods' records and their (module, token) index
 * (registry.h).
 */
#include "profiler/registry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_key(ModuleID module, mdMethodDef token)
{
    uint64_t h = (uint64_t)module * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)token * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (size_t)h;
}

shim_method *shim_registry_at(const shim_registry *r, size_t i)
{
    return r && r->methods && i < r->count ? r->methods[i] : NULL;
}

shim_method *shim_registry_find(const shim_registry *r, ModuleID module, mdMethodDef token)
{
    if (!r || !r->index_cap || !r->index)
        return NULL;
    size_t mask = r->index_cap - 1;
    size_t at = hash_key(module, token) & mask;
    for (size_t probes = 0; probes < r->index_cap; probes++, at = (at + 1) & mask) {
        size_t v = r->index[at];
        if (v == 0 || v > r->count)
            return NULL;
        shim_method *m = r->methods[v - 1];
        if (m->module == module && m->token == token)
            return m;
    }
    return NULL;
}

static void index_put(size_t *table, size_t cap, const shim_method *m, size_t value)
{
    size_t mask = cap - 1;
    size_t at = hash_key(m->module, m->token) & mask;
    while (table[at])
        at = (at + 1) & mask;
    table[at] = value;
}

/* Keeps the index at most half full; 0 on success. */
static int index_reserve(shim_registry *r, size_t count)
{
    if (count <= r->index_cap / 2)
        return 0;
    size_t cap = r->index_cap ? r->index_cap : 1024;
    while (count > cap / 2) {
        if (cap > SIZE_MAX / 2 / sizeof(size_t))
            return -1;
        cap *= 2;
    }
    size_t *table = calloc(cap, sizeof *table);
    if (!table)
        return -1;
    for (size_t i = 0; i < r->count; i++)
        index_put(table, cap, r->methods[i], i + 1);
    free(r->index);
    r->index = table;
    r->index_cap = cap;
    return 0;
}

shim_method *shim_registry_add(shim_registry *r, ModuleID module, mdMethodDef token)
{
    if (r->count == SIZE_MAX)
        return NULL;
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        if (r->cap) {
            if (cap > SIZE_MAX / 2 / sizeof *r->methods)
                return NULL;
            cap *= 2;
        }
        shim_method **grown = realloc(r->methods, cap * sizeof *grown);
        if (!grown)
            return NULL;
        r->methods = grown;
        r->cap = cap;
    }
    if (index_reserve(r, r->count + 1))
        return NULL;
    shim_method *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->module = module;
    m->token = token;
    r->methods[r->count++] = m;
    index_put(r->index, r->index_cap, m, r->count);
    return m;
}

int shim_registry_unlink_module(shim_registry *r, ModuleID module, shim_method ***out_list,
                                size_t *count)
{
    *out_list = NULL;
    *count = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        n += r->methods[i]->module == module;
    if (n == 0)
        return 0;
    shim_method **out = malloc(n * sizeof *out);
    if (!out)
        return 1;
    size_t kept = 0;
    for (size_t i = 0; i < r->count; i++) {
        shim_method *m = r->methods[i];
        if (m->module != module)
            r->methods[kept++] = m;
        else
            out[(*count)++] = m;
    }
    r->count = kept;
    /* The index holds positions: rebuilt over the records that remain. */
    memset(r->index, 0, r->index_cap * sizeof *r->index);
    for (size_t i = 0; i < r->count; i++)
        index_put(r->index, r->index_cap, r->methods[i], i + 1);
    *out_list = out;
    return 0;
}

void shim_method_free(shim_method *m)
{
    if (!m)
        return;
    free(m->bodies);
    ilmap_free(m->map);
    free(m);
}
