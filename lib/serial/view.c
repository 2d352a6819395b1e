/*
 * Reading a checked view: entries in place or decoded, and the runtime's
 * translation rules (doc/serial-format.md#view) answered straight from the
 * serialized bytes, so a reader that maps a file needs no build step for a
 * lookup.
 */
#include <stdint.h>
#include <string.h>

#include "common/bytes.h"
#include "common/search.h"
#include "serial/format.h"

static int in_place(const ilmap_view *v, uint32_t kind)
{
    return v && v->kind == kind && v->payload && host_little_endian() &&
           (uintptr_t)v->payload % 4 == 0;
}

const ilmap_entry *ilmap_view_get_entries(const ilmap_view *view)
{
    return in_place(view, ILMAP_SERIAL_KIND_IL) ? (const ilmap_entry *)(const void *)view->payload
                                                : NULL;
}

const ilmap_native_entry *ilmap_view_get_native_entries(const ilmap_view *view)
{
    return in_place(view, ILMAP_SERIAL_KIND_NATIVE)
               ? (const ilmap_native_entry *)(const void *)view->payload
               : NULL;
}

ilmap_status ilmap_view_get_entry(const ilmap_view *view, size_t i, ilmap_entry *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!view || !out || view->kind != ILMAP_SERIAL_KIND_IL || i >= view->count || !view->payload)
        return ILMAP_E_INVALID_ARG;
    const uint8_t *p = view->payload + i * ENTRY_SIZE;
    out->old_offset = rd32(p);
    out->new_offset = rd32(p + 4);
    out->accurate = (int32_t)rd32(p + 8);
    return ILMAP_OK;
}

ilmap_status ilmap_view_get_native_entry(const ilmap_view *view, size_t i, ilmap_native_entry *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!view || !out || view->kind != ILMAP_SERIAL_KIND_NATIVE || i >= view->count ||
        !view->payload)
        return ILMAP_E_INVALID_ARG;
    const uint8_t *p = view->payload + i * ENTRY_SIZE;
    out->il_offset = rd32(p);
    out->native_start = rd32(p + 4);
    out->native_end = rd32(p + 8);
    return ILMAP_OK;
}

/* Serialized key i (little-endian, ENTRY_SIZE bytes apart from base) is
 * <= x. */
typedef struct key_probe {
    const uint8_t *base;
    uint32_t x;
} key_probe;

static inline int key_at_or_below(const void *ctx, size_t i)
{
    const key_probe *p = ctx;
    return rd32(p->base + i * ENTRY_SIZE) <= p->x;
}

/* column 0 = old offsets, 1 = new offsets; the answer is the other one. */
static uint32_t translate(const ilmap_view *v, unsigned column, uint32_t x)
{
    if (!v || v->kind != ILMAP_SERIAL_KIND_IL || v->count == 0 || !v->payload)
        return x;

    const uint8_t *base = v->payload + 4 * column;
    const uint8_t *answer = v->payload + 4 * (1 - column);
    const size_t n = v->count;
#define KEY(i) rd32(base + (size_t)(i) * ENTRY_SIZE)
#define VALUE(i) rd32(answer + (size_t)(i) * ENTRY_SIZE)

    if (x == ILMAP_PROLOG || x < KEY(0))
        return ILMAP_PROLOG;
    if (x == ILMAP_EPILOG || x == ILMAP_NO_MAPPING)
        return x;
    if (v->flags & ILMAP_SERIAL_FLAG_LENIENT) {
        /* The runtime's scan, as is: the first later key above x stops it. */
        for (size_t i = 1; i < n; i++)
            if (x < KEY(i))
                return VALUE(i - 1);
        return VALUE(n - 1);
    }
    /* Strict: keys ascend, so the first key above x is found by bisection
     * and the scan would have stopped there too. */
    const key_probe p = { base, x };
    return VALUE(search_partition(1, n, key_at_or_below, &p) - 1);
#undef KEY
#undef VALUE
}

uint32_t ilmap_view_old_to_new(const ilmap_view *view, uint32_t old_offset)
{
    return translate(view, 0, old_offset);
}

uint32_t ilmap_view_new_to_old(const ilmap_view *view, uint32_t new_offset)
{
    return translate(view, 1, new_offset);
}
