/*
 * native_assemble: one allocation, sized to the map, holding the sorted
 * table and (unless the map is small) both lookup indexes; native.h
 * describes the layout, intervals.c computes the native -> IL answers.
 */
#include <stdlib.h>
#include <string.h>

#include "common/size_limits.h"
#include "native/buckets.h"
#include "native/intervals.h"
#include "native/native.h"
#include "platform/memory.h"

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The bytes of one block, array by array, each 4-byte aligned; overflow
 * (of the block, or of the uint32_t offsets) is sticky. */
typedef struct layout {
    size_t size;
    int overflow;
} layout;

static uint32_t layout_add(layout *l, size_t count, size_t elem_size)
{
    size_t offset = (l->size + 3u) & ~(size_t)3u;

    if (offset < l->size || (elem_size && count > (SIZE_MAX - offset) / elem_size)) {
        l->overflow = 1;
        return 0;
    }
    l->size = offset + count * elem_size;
    if (size_exceeds_u32(l->size))
        l->overflow = 1;
    return (uint32_t)offset;
}

/* How the exported entries' source bits are kept, and their common
 * value for NATIVE_SRC_UNIFORM. */
static unsigned source_mode(const ilmap_native_record *r, uint32_t count, uint32_t *common)
{
    uint32_t all = 0;
    int uniform = 1;

    *common = count ? r[0].source : 0;
    for (uint32_t k = 0; k < count; k++) {
        all |= r[k].source;
        uniform &= r[k].source == *common;
    }
    if (all == 0)
        return NATIVE_SRC_ZERO;
    if (uniform)
        return NATIVE_SRC_UNIFORM;
    return all <= 0xFFu ? NATIVE_SRC_U8 : NATIVE_SRC_U32;
}

static size_t source_bytes(unsigned mode)
{
    return mode == NATIVE_SRC_U8 ? 1 : mode == NATIVE_SRC_U32 ? 4 : 0;
}

/* Columns (IL, start, end) and source bits of the exported entries. */
static void fill_columns(const native_table *t, uint32_t *column, unsigned mode, void *sources)
{
    uint32_t count = t->count;

    for (uint32_t k = 0; k < count; k++) {
        const ilmap_native_record *r = &t->records[k];
        column[k] = r->il_offset;
        column[(size_t)count + k] = r->native_start;
        column[2 * (size_t)count + k] = r->native_end;
        if (mode == NATIVE_SRC_U8)
            ((uint8_t *)sources)[k] = (uint8_t)r->source;
        else if (mode == NATIVE_SRC_U32)
            ((uint32_t *)sources)[k] = r->source;
    }
}

/* A small map: head, columns, sources. */
static ilmap_status assemble_small(const native_table *t, unsigned mode, uint32_t common,
                                   ilmap_native **out)
{
    layout l = { sizeof(ilmap_native), 0 };
    uint32_t columns_off = layout_add(&l, 3 * (size_t)t->count, sizeof(uint32_t));
    uint32_t sources_off = layout_add(&l, t->count, source_bytes(mode));
    unsigned char *base = malloc(l.size);

    if (!base)
        return ILMAP_E_NOMEM;
    ilmap_native *m = (ilmap_native *)(void *)base;
    m->info = (t->dac ? NATIVE_DAC : 0u) | (uint32_t)mode << NATIVE_SRC_SHIFT |
              t->count << NATIVE_SMALL_COUNT_SHIFT;
    if (mode == NATIVE_SRC_UNIFORM)
        m->info |= common << NATIVE_SMALL_SOURCE_SHIFT;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    fill_columns(t, (uint32_t *)(void *)(base + columns_off), mode, base + sources_off);
    *out = m;
    return ILMAP_OK;
}

/* Scratch memory of an indexed build, freed before native_assemble returns. */
typedef struct scratch {
    uint32_t *breakpoints; /* 2 * count: starts and non-zero ends */
    uint32_t *claim;       /* per interval: the entry, or NATIVE_NONE */
    uint32_t *next;        /* union-find over intervals, nintervals + 1 */
    uint64_t *calls;       /* (start, index) of each call site */
} scratch;

static void scratch_free(scratch *s)
{
    free(s->breakpoints);
    free(s->claim);
    free(s->next);
    free(s->calls);
}

static void *alloc_array(size_t count, size_t size)
{
    return malloc((count ? count : 1) * size);
}

static ilmap_status assemble_indexed(const native_table *t, unsigned mode, uint32_t common,
                                     ilmap_native **out)
{
    scratch s;
    native_index x;
    uint32_t count = t->count;

    memset(&s, 0, sizeof s);
    memset(&x, 0, sizeof x);
    x.count = count;
    x.ncalls = t->ncalls;
    x.source = common;

    /* The table's class boundaries: PROLOGs, normal, EPILOG, NO_MAPPING. */
    while (x.prolog_end < count && t->records[x.prolog_end].il_offset == ILMAP_PROLOG)
        x.prolog_end++;
    x.normal_end = x.prolog_end;
    while (x.normal_end < count && t->records[x.normal_end].il_offset < ILMAP_EPILOG)
        x.normal_end++;
    x.epilog_end = x.normal_end;
    while (x.epilog_end < count && t->records[x.epilog_end].il_offset == ILMAP_EPILOG)
        x.epilog_end++;

    s.breakpoints = alloc_array((size_t)count * 2, sizeof *s.breakpoints);
    s.calls = alloc_array(t->ncalls, sizeof *s.calls);
    if (!s.breakpoints || !s.calls) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }
    uint32_t nbreaks = intervals_breakpoints(t->records, count, s.breakpoints);
    x.nintervals = nbreaks + 1;
    /* 0xFFFFFFFF is no bucket key; only x = 0xFFFFFFFF reaches past it,
     * and that query is answered from the last interval. */
    x.nkeys = nbreaks - (nbreaks > 0 && s.breakpoints[nbreaks - 1] == 0xFFFFFFFFu);
    s.claim = alloc_array(x.nintervals, sizeof *s.claim);
    s.next = alloc_array((size_t)x.nintervals + 1, sizeof *s.next);
    if (!s.claim || !s.next) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }
    intervals_claim(t->records, count, s.breakpoints, nbreaks, s.claim, s.next);

    /* Buckets over the breakpoints and over the normal IL offsets, which
     * the IL column holds in order (duplicates included). */
    uint32_t nbp, nbs, ilb, ils;
    buckets_plan(s.breakpoints, x.nkeys, &nbp, &nbs);
    x.native_nb = nbp;
    x.native_shift = (uint8_t)nbs;
    x.wide = count >= 0xFFFFu; /* uint16_t answers keep 0xFFFF for none */

    layout l = { sizeof(ilmap_native) + sizeof(native_index), 0 };
    uint32_t columns_off = layout_add(&l, 3 * (size_t)count, sizeof(uint32_t));
    x.keys_off = layout_add(&l, x.nkeys, sizeof(uint32_t));
    x.native_first_off = layout_add(&l, (size_t)x.native_nb + 1, sizeof(uint32_t));
    /* The IL buckets' plan needs the IL column: sized from a count bound
     * now, filled below. */
    {
        uint32_t *il_keys = alloc_array(x.normal_end - x.prolog_end, sizeof *il_keys);
        if (!il_keys) {
            scratch_free(&s);
            return ILMAP_E_NOMEM;
        }
        for (uint32_t k = x.prolog_end; k < x.normal_end; k++)
            il_keys[k - x.prolog_end] = t->records[k].il_offset;
        buckets_plan(il_keys, x.normal_end - x.prolog_end, &ilb, &ils);
        free(il_keys);
    }
    x.il_nb = ilb;
    x.il_shift = (uint8_t)ils;
    x.il_first_off = layout_add(&l, (size_t)x.il_nb + 1, sizeof(uint32_t));
    x.calls_off = layout_add(&l, t->ncalls, sizeof(ilmap_native_record));
    x.calls_by_start_off = layout_add(&l, t->ncalls, sizeof(uint32_t));
    x.answers_off = layout_add(&l, x.nintervals, x.wide ? sizeof(uint32_t) : sizeof(uint16_t));
    x.sources_off = layout_add(&l, count, source_bytes(mode));
    if (l.overflow) {
        scratch_free(&s);
        return ILMAP_E_INVALID_ARG;
    }

    unsigned char *base = malloc(l.size);
    if (!base) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }
    ilmap_native *m = (ilmap_native *)(void *)base;
    m->info = NATIVE_INDEXED | (t->dac ? NATIVE_DAC : 0u) | (uint32_t)mode << NATIVE_SRC_SHIFT;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    memcpy(base + sizeof *m, &x, sizeof x);

    uint32_t *column = (uint32_t *)(void *)(base + columns_off);
    fill_columns(t, column, mode, base + x.sources_off);

    uint32_t *keys = (uint32_t *)(void *)(base + x.keys_off);
    if (x.nkeys)
        memcpy(keys, s.breakpoints, (size_t)x.nkeys * sizeof *keys);
    buckets_fill(keys, x.nkeys, 0, x.native_nb, x.native_shift,
                 (uint32_t *)(void *)(base + x.native_first_off));
    buckets_fill(column + x.prolog_end, x.normal_end - x.prolog_end, x.prolog_end, x.il_nb,
                 x.il_shift, (uint32_t *)(void *)(base + x.il_first_off));

    if (x.wide) {
        uint32_t *answers = (uint32_t *)(void *)(base + x.answers_off);
        for (uint32_t i = 0; i < x.nintervals; i++)
            answers[i] = s.claim[i];
    } else {
        uint16_t *answers = (uint16_t *)(void *)(base + x.answers_off);
        for (uint32_t i = 0; i < x.nintervals; i++)
            answers[i] = (uint16_t)s.claim[i]; /* NATIVE_NONE becomes 0xFFFF */
    }

    ilmap_native_record *calls = (ilmap_native_record *)(void *)(base + x.calls_off);
    uint32_t *calls_by_start = (uint32_t *)(void *)(base + x.calls_by_start_off);
    if (t->ncalls)
        memcpy(calls, t->records + count, (size_t)t->ncalls * sizeof *calls);
    for (uint32_t c = 0; c < t->ncalls; c++)
        s.calls[c] = (uint64_t)calls[c].native_start << 32 | c;
    qsort(s.calls, t->ncalls, sizeof *s.calls, compare_u64);
    for (uint32_t c = 0; c < t->ncalls; c++)
        calls_by_start[c] = (uint32_t)s.calls[c];

    scratch_free(&s);
    *out = m;
    return ILMAP_OK;
}

ilmap_status native_assemble(const native_table *t, ilmap_native **out)
{
    uint32_t common;
    unsigned mode = source_mode(t->records, t->count, &common);

    *out = NULL;
    if (t->count <= NATIVE_SMALL_MAX && t->ncalls == 0) {
        /* A common source that does not fit the head is kept per entry. */
        if (mode == NATIVE_SRC_UNIFORM && common > 0xFFFFu)
            mode = NATIVE_SRC_U32;
        return assemble_small(t, mode, common, out);
    }
    return assemble_indexed(t, mode, common, out);
}

void ilmap_native_free(ilmap_native *m)
{
    free(m);
}

/* Every byte of the block: the map keeps no field for its size (a small
 * map has no room for one), so it is recomputed, plus the allocator's
 * rounding where the C library reports it. */
size_t ilmap_native_get_memory_bytes(const ilmap_native *m)
{
    if (!m)
        return 0;
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;
    size_t count = native_count(m);
    size_t requested = native_indexed(m)
                           ? native_index_of(m)->sources_off + count * source_bytes(mode)
                           : sizeof *m + 12 * count + count * source_bytes(mode);
    return ilmap_malloc_size((void *)(uintptr_t)m, requested);
}
