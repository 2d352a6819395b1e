/*
 * native_assemble: one allocation, sized to the map, holding the sorted
 * table, the native -> IL answers (unless the map is scanned) and, for an
 * indexed map, the bucket tables; native.h describes the four forms,
 * intervals.c computes the answers.
 */
#include <stdlib.h>
#include <string.h>

#include "common/order.h"
#include "common/size_limits.h"
#include "index/cpu.h"
#include "native/buckets.h"
#include "native/intervals.h"
#include "native/native.h"
#include "platform/memory.h"

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

/* A scanned map: head, columns, sources. */
static ilmap_status assemble_scan(const native_table *t, unsigned mode, uint32_t common,
                                  ilmap_native **out)
{
    /* A common source that does not fit the head is kept per entry. */
    if (mode == NATIVE_SRC_UNIFORM && common > 0xFFFFu)
        mode = NATIVE_SRC_U32;

    size_t columns = sizeof(ilmap_native);
    size_t size = columns + 12 * (size_t)t->count + t->count * native_source_bytes(mode);
    unsigned char *base = malloc(size);

    if (!base)
        return ILMAP_E_NOMEM;
    ilmap_native *m = (ilmap_native *)(void *)base;
    m->info = NATIVE_FORM_SCAN | (t->dac ? NATIVE_DAC : 0u) | (uint32_t)mode << NATIVE_SRC_SHIFT |
              t->count << NATIVE_COUNT_SHIFT;
    if (mode == NATIVE_SRC_UNIFORM)
        m->info |= common << NATIVE_SCAN_SOURCE_SHIFT;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    fill_columns(t, (uint32_t *)(void *)(base + columns), mode,
                 base + columns + 12 * (size_t)t->count);
    *out = m;
    return ILMAP_OK;
}

/* The native -> IL answers of a table, and its classes: computed for the
 * small and the indexed forms, freed before native_assemble returns. */
typedef struct answers {
    uint32_t *breakpoints; /* 2 * count + 1: 0, starts and non-zero ends */
    uint32_t *claim;       /* per interval: the entry, or NATIVE_NONE */
    uint32_t *il;          /* per interval: the direct answer's IL offset */
    uint8_t *kind;         /* per interval: its kind byte */
    uint32_t nkeys;        /* breakpoints */
    uint32_t nintervals;   /* nkeys + 1 */
    uint32_t prolog_end, normal_end, epilog_end;
    uint32_t count;        /* entries */
    int narrow;            /* every il[] below 65536 */
    int which8;            /* at most 255 special entries: `which` fits a byte */
} answers;

/* Interval i's answer word (native.h): for a small map (always narrow)
 * the IL offset | which << 16 | the matched entry's index + 1 << 24
 * (which and the index + 1 are then at most 32); for a direct one, packed
 * (narrow), the IL offset | kind << 16 | which << 24 (where it fits a
 * byte, else 0), else the IL offset alone. */
static uint32_t answer_word(const answers *a, uint32_t i, int small)
{
    uint32_t c = a->claim[i];
    if (!small && !a->narrow)
        return a->il[i];
    uint32_t upto = c == NATIVE_NONE ? a->count : c + 1;
    uint32_t which = small || a->which8 ? native_specials_visited(upto, a->prolog_end, a->normal_end)
                                        : 0;
    if (small)
        return a->il[i] | which << 16 | (c == NATIVE_NONE ? 0u : c + 1) << NATIVE_SMALL_ENTRY_SHIFT;
    return a->il[i] | (uint32_t)a->kind[i] << 16 | which << 24;
}

static void answers_free(answers *a)
{
    free(a->breakpoints);
    free(a->claim);
    free(a->il);
    free(a->kind);
}

static void *alloc_array(size_t count, size_t size)
{
    return malloc((count ? count : 1) * size);
}

static ilmap_status answers_compute(const native_table *t, answers *a)
{
    uint32_t count = t->count;
    const ilmap_native_record *r = t->records;

    memset(a, 0, sizeof *a);
    a->count = count;
    /* The table's class boundaries: PROLOGs, normal, EPILOG, NO_MAPPING. */
    while (a->prolog_end < count && r[a->prolog_end].il_offset == ILMAP_PROLOG)
        a->prolog_end++;
    a->normal_end = a->prolog_end;
    while (a->normal_end < count && r[a->normal_end].il_offset < ILMAP_EPILOG)
        a->normal_end++;
    a->epilog_end = a->normal_end;
    while (a->epilog_end < count && r[a->epilog_end].il_offset == ILMAP_EPILOG)
        a->epilog_end++;

    a->breakpoints = alloc_array((size_t)count * 2 + 1, sizeof *a->breakpoints);
    if (!a->breakpoints)
        return ILMAP_E_NOMEM;
    uint32_t nbreaks = intervals_breakpoints(r, count, a->breakpoints);
    a->nkeys = nbreaks;
    a->nintervals = nbreaks + 1;
    a->claim = alloc_array(a->nintervals, sizeof *a->claim);
    uint32_t *next = alloc_array((size_t)a->nintervals + 1, sizeof *next);
    if (!a->claim || !next) {
        free(next);
        return ILMAP_E_NOMEM;
    }
    intervals_claim(r, count, a->breakpoints, nbreaks, a->claim, next);
    free(next);

    /* The direct answers: what the runtime hands back for each interval
     * (doc/native-to-il.md#scan); interval i begins at key i - 1. */
    a->il = alloc_array(a->nintervals, sizeof *a->il);
    a->kind = alloc_array(a->nintervals, sizeof *a->kind);
    if (!a->il || !a->kind)
        return ILMAP_E_NOMEM;
    for (uint32_t i = 0; i < a->nintervals; i++) {
        uint32_t c = a->claim[i], il = 0;
        unsigned kind;
        if (c == NATIVE_NONE) {
            kind = ILMAP_MAPPING_NO_INFO;
        } else {
            switch (r[c].il_offset) {
            case ILMAP_PROLOG: kind = ILMAP_MAPPING_PROLOG; break;
            case ILMAP_EPILOG: kind = ILMAP_MAPPING_EPILOG; il = t->last_il; break;
            case ILMAP_NO_MAPPING: kind = ILMAP_MAPPING_UNMAPPED_ADDRESS; break;
            default:
                il = r[c].il_offset;
                kind = ILMAP_MAPPING_APPROXIMATE;
                if (i > 0 && r[c].native_start == a->breakpoints[i - 1])
                    kind |= NATIVE_KIND_AT_START;
                break;
            }
        }
        a->il[i] = il;
        a->kind[i] = (uint8_t)kind;
    }
    a->narrow = 1;
    for (uint32_t i = 0; i < a->nintervals; i++)
        a->narrow &= a->il[i] <= 0xFFFFu;
    a->which8 = a->prolog_end + (count - a->normal_end) <= 0xFFu;
    return ILMAP_OK;
}

/* Each exported entry's start and end as positions in the keys (every
 * stored start and end is a key: native.h), or as themselves (values),
 * width bytes each. */
static void fill_positions(const native_table *t, const answers *a, unsigned width,
                           int values, void *starts, void *ends)
{
    for (uint32_t k = 0; k < t->count; k++) {
        uint32_t s = t->records[k].native_start, e = t->records[k].native_end;
        if (!values) {
            s = intervals_position(a->breakpoints, a->nkeys, s);
            e = intervals_position(a->breakpoints, a->nkeys, e);
        }
        switch (width) {
        case 1:
            ((uint8_t *)starts)[k] = (uint8_t)s;
            ((uint8_t *)ends)[k] = (uint8_t)e;
            break;
        case 2:
            if (values) { /* pairs: starts == ends */
                ((uint32_t *)starts)[k] = s | e << 16;
                break;
            }
            ((uint16_t *)starts)[k] = (uint16_t)s;
            ((uint16_t *)ends)[k] = (uint16_t)e;
            break;
        default:
            ((uint32_t *)starts)[k] = s;
            ((uint32_t *)ends)[k] = e;
            break;
        }
    }
}

/* The largest stored start or end of the exported entries. */
static uint32_t max_bound(const native_table *t)
{
    uint32_t most = 0;

    for (uint32_t k = 0; k < t->count; k++) {
        most = t->records[k].native_start > most ? t->records[k].native_start : most;
        most = t->records[k].native_end > most ? t->records[k].native_end : most;
    }
    return most;
}

/* The exported entry of unknown end (at most one: native.h), or
 * NATIVE_NONE. */
static uint32_t unknown_end(const native_table *t)
{
    for (uint32_t k = 0; k < t->count; k++) {
        if (t->records[k].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
            return k;
    }
    return NATIVE_NONE;
}

/* The IL column and the sources of the exported entries. */
static void fill_il(const native_table *t, uint32_t *il, unsigned mode, void *sources)
{
    for (uint32_t k = 0; k < t->count; k++) {
        const ilmap_native_record *r = &t->records[k];
        il[k] = r->il_offset;
        if (mode == NATIVE_SRC_U8)
            ((uint8_t *)sources)[k] = (uint8_t)r->source;
        else if (mode == NATIVE_SRC_U32)
            ((uint32_t *)sources)[k] = r->source;
    }
}

/* A small map: head, keys, IL column, direct answers, positions,
 * sources. */
static ilmap_status assemble_small(const native_table *t, unsigned mode, uint32_t common,
                                   const answers *a, ilmap_native **out)
{
    /* A common source that does not fit its byte is kept per entry. */
    if (mode == NATIVE_SRC_UNIFORM && common > 0xFFu)
        mode = NATIVE_SRC_U32;

    native_small_layout l = native_small_layout_of(t->count, a->nkeys, mode, 0);
    uint32_t info = NATIVE_FORM_SMALL | (t->dac ? NATIVE_DAC : 0u) |
                    (uint32_t)mode << NATIVE_SRC_SHIFT | t->count << NATIVE_COUNT_SHIFT |
                    a->nkeys << NATIVE_SMALL_KEYS_SHIFT |
                    a->prolog_end << NATIVE_SMALL_PROLOG_SHIFT |
                    a->normal_end << NATIVE_SMALL_NORMAL_SHIFT;
    uint32_t normal = a->normal_end - a->prolog_end;
    /* One step per count (native.h), and for IL -> native's copy the
     * word before the first normal IL offset (a PROLOG's, or the last
     * key) not equal to it. */
    uint32_t top = normal ? t->records[a->normal_end - 1].il_offset : 0;
    if (a->nkeys <= NATIVE_ONE_MAX && normal <= NATIVE_ONE_MAX &&
        a->breakpoints[a->nkeys - 1] < 0x80000000u && top < 0x80000000u &&
        (a->prolog_end > 0 || normal == 0 ||
         a->breakpoints[a->nkeys - 1] != t->records[0].il_offset))
        info |= NATIVE_SMALL_ONE;
    /* A tiny map (native.h): NATIVE_SMALL_ONE and a table of its own,
     * where the table fits the bound. */
    uint32_t tiny = 0;
    if (info & NATIVE_SMALL_ONE) {
        int fits = normal >= 1;
        for (uint32_t k = a->prolog_end; fits && k < a->normal_end; k++) {
            const ilmap_native_record *r = &t->records[k];
            uint32_t end = (r->source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) ? t->code_size
                                                                                  : r->native_end;
            fits = r->il_offset < 0xFFFFu && r->native_start <= 0xFFFFu && end <= 0xFFFFu &&
                   (k == a->prolog_end || t->records[k - 1].il_offset != r->il_offset);
        }
        if (fits && ilmap_malloc_estimate(native_small_layout_of(t->count, a->nkeys, mode, normal)
                                              .size) <= native_memory_bound(t->count)) {
            tiny = normal;
            info |= NATIVE_SMALL_TINY;
            l = native_small_layout_of(t->count, a->nkeys, mode, tiny);
        }
    }
    unsigned char *base = malloc(l.size);

    if (!base)
        return ILMAP_E_NOMEM;
    memset(base, 0, l.size); /* the padding the lookups read past the IL column */
    ilmap_native *m = (ilmap_native *)(void *)base;
    m->info = info;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    memcpy(base + sizeof *m, a->breakpoints, (size_t)a->nkeys * sizeof(uint32_t));
    fill_il(t, (uint32_t *)(void *)(base + l.il), mode, base + l.sources);
    if (mode == NATIVE_SRC_UNIFORM)
        base[l.sources] = (uint8_t)common;
    for (uint32_t i = 0; i < a->nintervals; i++)
        ((uint32_t *)(void *)(base + l.answers))[i] = answer_word(a, i, 1);
    memcpy(base + l.kinds, a->kind, a->nintervals);
    fill_positions(t, a, 1, 0, base + l.starts, base + l.ends);
    uint32_t unknown = unknown_end(t);
    base[l.unknown] = (uint8_t)(unknown == NATIVE_NONE ? 0xFFu : unknown);
    if (tiny) {
        /* 2 * normal, prolog_end, uint16_t IL offsets, then uint32_t
         * start | end << 16 */
        memset(base + l.tiny, 0, native_tiny_bytes(tiny));
        base[l.tiny] = (uint8_t)(2 * tiny);
        base[l.tiny + 1] = (uint8_t)a->prolog_end;
        for (uint32_t j = 0; j < tiny; j++) {
            const ilmap_native_record *r = &t->records[a->prolog_end + j];
            uint16_t il16 = (uint16_t)r->il_offset;
            uint32_t end = (r->source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) ? t->code_size
                                                                                  : r->native_end;
            uint32_t pair = r->native_start | end << 16;
            memcpy(base + l.tiny + 2 + 2 * (size_t)j, &il16, sizeof il16);
            memcpy(base + l.tiny + 2 + 2 * (size_t)tiny + 4 * (size_t)j, &pair, sizeof pair);
        }
    }
    *out = m;
    return ILMAP_OK;
}

/* An indexed map's offsets for the counts and widths in x (direct: the
 * direct form); the block's size in x->size (0 on overflow). */
static void indexed_layout(native_index *x, unsigned mode, int direct)
{
    layout l = { NATIVE_INDEXED_KEYS_OFF, 0 };
    uint32_t keys_off = layout_add(&l, x->nkeys, sizeof(uint32_t));

    if (direct) {
        size_t width = native_position_width(x->flags);
        (void)layout_add(&l, x->count, sizeof(uint32_t)); /* the IL column */
        x->answers_off = layout_add(&l, (size_t)x->nkeys + 1, sizeof(uint32_t));
        x->kinds_off = x->packed ? 0 : layout_add(&l, (size_t)x->nkeys + 1, 1);
        if ((x->flags & (NATIVE_VALUES | NATIVE_POS16)) == (NATIVE_VALUES | NATIVE_POS16)) {
            x->starts_off = x->ends_off = layout_add(&l, x->count, 2 * width);
        } else {
            x->starts_off = layout_add(&l, x->count, width);
            x->ends_off = layout_add(&l, x->count, width);
        }
        if (x->flags & NATIVE_ENTRIES)
            x->entries_off = layout_add(&l, (size_t)x->nkeys + 1, sizeof(uint16_t));
    } else {
        (void)layout_add(&l, 3 * (size_t)x->count, sizeof(uint32_t)); /* the columns */
        x->answers_off = layout_add(&l, (size_t)x->nkeys + 1,
                                    (x->flags & NATIVE_WIDE_ANSWERS) ? 4 : 2);
    }
    x->native_first_off = layout_add(&l, (size_t)x->native_nb + 2,
                                     (x->flags & NATIVE_WIDE_NATIVE) ? 4 : 2);
    x->il_first_off = layout_add(&l, (size_t)x->il_nb + 2, (x->flags & NATIVE_WIDE_IL) ? 4 : 2);
    x->calls_off = layout_add(&l, x->ncalls, sizeof(ilmap_native_record));
    x->calls_by_start_off = layout_add(&l, x->ncalls, sizeof(uint32_t));
    x->sources_off = layout_add(&l, x->count, native_source_bytes(mode));
    /* A bucket's window may start at the end of the keys or of the IL
     * column: the block reaches NATIVE_WINDOW keys past the latter. */
    size_t windows = (size_t)keys_off + 4 * ((size_t)x->nkeys + x->count + NATIVE_WINDOW);
    if (l.size < windows && !l.overflow)
        (void)layout_add(&l, (windows - l.size + 3) / 4, sizeof(uint32_t));
    x->size = l.overflow ? 0 : (uint32_t)l.size;
}

/* One bucket table's plan: the shift for keys up to last, between the
 * narrowest (about a bucket per key) and the widest considered (a
 * bucket per four keys). */
typedef struct plan {
    uint32_t last, shift, widest, nb;
} plan;

static plan plan_start(const uint32_t *keys, uint32_t n, uint32_t floor_last)
{
    plan p;
    uint32_t nb;

    p.last = n ? keys[n - 1] : 0;
    p.last = p.last > floor_last ? p.last : floor_last;
    p.shift = buckets_plan(p.last, n, &p.nb);
    p.widest = buckets_plan(p.last, n / 4, &nb);
    return p;
}

static void plan_widen(plan *p)
{
    uint64_t extent = (uint64_t)p->last + 1;

    p->shift++;
    p->nb = (uint32_t)((extent + ((uint64_t)1 << p->shift) - 1) >> p->shift);
}

/* The bucket tables' widths: as narrow as the memory bound allows,
 * widening the table with more buckets first; never wider than a bucket
 * per four keys (a map whose answers alone exceed the bound, such as one
 * with gaps between all its ranges, gets those). Returns whether the map
 * fits the bound. */
static int plan_buckets(native_index *x, unsigned mode, int direct, const uint32_t *keys,
                        const uint32_t *il_keys, uint32_t code_size)
{
    /* the native table covers the code up to its size itself (the
     * entry of unknown end's range past the last key, and a return
     * address just past a last call), so that such an offset is not past
     * the table */
    plan pn = plan_start(keys, x->nkeys, code_size);
    plan pi = plan_start(il_keys, x->normal_end - x->prolog_end, 0);
    uint64_t limit = native_memory_bound(x->count);

    for (;;) {
        x->native_nb = pn.nb;
        x->native_shift = (uint8_t)pn.shift;
        x->il_nb = pi.nb;
        x->il_shift = (uint8_t)pi.shift;
        indexed_layout(x, mode, direct);
        if (x->size == 0 || ilmap_malloc_estimate(x->size) <= limit)
            return x->size != 0;
        int widen_native = pn.shift < pn.widest && (pn.nb >= pi.nb || pi.shift >= pi.widest);
        if (widen_native)
            plan_widen(&pn);
        else if (pi.shift < pi.widest)
            plan_widen(&pi);
        else
            return 0;
    }
}

/* An indexed map, direct when it fits the bound (else with entry
 * answers). */
static ilmap_status assemble_indexed(const native_table *t, unsigned mode, uint32_t common,
                                     const answers *a, ilmap_native **out)
{
    int direct = 1;
    native_index x;
    uint32_t count = t->count;
    uint64_t *by_start = alloc_array(t->ncalls, sizeof *by_start);
    uint32_t *il_keys = alloc_array(a->normal_end - a->prolog_end, sizeof *il_keys);

    if (!by_start || !il_keys) {
        free(by_start);
        free(il_keys);
        return ILMAP_E_NOMEM;
    }
    for (uint32_t k = a->prolog_end; k < a->normal_end; k++)
        il_keys[k - a->prolog_end] = t->records[k].il_offset;

    memset(&x, 0, sizeof x);
    x.count = count;
    x.nkeys = a->nkeys;
    x.prolog_end = a->prolog_end;
    x.normal_end = a->normal_end;
    x.epilog_end = a->epilog_end;
    x.ncalls = t->ncalls;
    x.source = common;
    x.unknown_end = unknown_end(t);
    x.packed = (uint8_t)a->narrow;
    /* uint16_t answers hold up to 0xFFFF (entry 0xFFFE); bucket entries
     * are positions up to the keys' end. */
    x.flags = (uint8_t)((count > 0xFFFFu ? NATIVE_WIDE_ANSWERS : 0u) |
                        (x.nkeys > 0xFFFFu ? NATIVE_WIDE_NATIVE : 0u) |
                        (x.normal_end > 0xFFFFu ? NATIVE_WIDE_IL : 0u) |
                        (cpu_level_for_flags(t->flags) != CPU_PORTABLE ? NATIVE_SIMD : 0u) |
                        (x.nkeys > 0x10000u ? NATIVE_POS32
                         : x.nkeys > 0x100u ? NATIVE_POS16
                                            : 0u));
    if (!plan_buckets(&x, mode, 1, a->breakpoints, il_keys, t->code_size)) {
        direct = 0;
        x.packed = 0;
        x.flags &= (uint8_t)~(NATIVE_POS16 | NATIVE_POS32);
        (void)plan_buckets(&x, mode, 0, a->breakpoints, il_keys, t->code_size);
    } else {
        /* Each interval's entry, so that ilmap_native_to_il_detail need
         * not scan (uint16_t: up to 0xFFFE entries), where that fits the
         * bound with the same bucket tables. */
        native_index v = x;
        v.flags = (uint8_t)(v.flags | NATIVE_ENTRIES);
        indexed_layout(&v, mode, 1);
        if (count < 0xFFFFu && v.size != 0 &&
            ilmap_malloc_estimate(v.size) <= native_memory_bound(count))
            x = v;
        /* Then the starts and ends as values rather than key positions,
         * which spares IL -> native a dependent load, where that fits
         * too: uint16_t pairs when every value fits (the bytes of
         * uint16_t positions), else uint32_t. */
        v = x;
        v.flags = (uint8_t)((v.flags & ~(NATIVE_POS16 | NATIVE_POS32)) | NATIVE_VALUES |
                            (max_bound(t) > 0xFFFFu ? NATIVE_POS32 : NATIVE_POS16));
        indexed_layout(&v, mode, 1);
        if (v.size != 0 && ilmap_malloc_estimate(v.size) <=
                               native_memory_bound(count))
            x = v;
    }

    unsigned char *base = x.size ? malloc(x.size) : NULL;
    if (!base) {
        free(by_start);
        free(il_keys);
        return x.size ? ILMAP_E_NOMEM : ILMAP_E_INVALID_ARG;
    }
    memset(base, 0, x.size);
    ilmap_native *m = (ilmap_native *)(void *)base;
    m->info = (direct ? NATIVE_FORM_DIRECT : NATIVE_FORM_INDEXED) | (t->dac ? NATIVE_DAC : 0u) |
              (uint32_t)mode << NATIVE_SRC_SHIFT;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    /* The inline paths compare keys and x as signed (window_rank_small):
     * every bucket below the last must end by 2^31. */
    if (direct && x.packed)
        m->info |= NATIVE_PACKED;
    if (direct && (x.flags & (NATIVE_WIDE_NATIVE | NATIVE_SIMD)) == NATIVE_COMMON_FLAGS &&
        ((uint64_t)x.native_nb << x.native_shift) <= 0x80000000u)
        m->info |= NATIVE_FAST_TO_IL;
    /* ... and ilmap_native_to_il_detail's: the same with an entry column */
    if ((m->info & NATIVE_FAST_TO_IL) && x.packed && (x.flags & NATIVE_ENTRIES) && a->which8)
        m->info |= NATIVE_FAST_DETAIL;
    unsigned bounds = x.flags & (NATIVE_VALUES | NATIVE_POS16 | NATIVE_POS32);
    if (direct && (x.flags & (NATIVE_WIDE_IL | NATIVE_SIMD)) == NATIVE_COMMON_FLAGS &&
        (bounds == (NATIVE_VALUES | NATIVE_POS16) || bounds == 0) &&
        ((uint64_t)x.il_nb << x.il_shift) <= 0x80000000u &&
        (x.prolog_end > 0 || x.normal_end == 0 ||
         a->breakpoints[x.nkeys - 1] != t->records[0].il_offset))
        m->info |= NATIVE_FAST_IL | (bounds ? NATIVE_FAST_PAIRS : 0u);
    memcpy(base + sizeof *m, &x, sizeof x);

    uint32_t *keys = (uint32_t *)(void *)(base + NATIVE_INDEXED_KEYS_OFF);
    uint32_t *column = keys + x.nkeys;
    memcpy(keys, a->breakpoints, (size_t)x.nkeys * sizeof *keys);
    if (direct) {
        fill_il(t, column, mode, base + x.sources_off);
        for (uint32_t i = 0; i < a->nintervals; i++)
            ((uint32_t *)(void *)(base + x.answers_off))[i] = answer_word(a, i, 0);
        if (!x.packed)
            memcpy(base + x.kinds_off, a->kind, a->nintervals);
        fill_positions(t, a, native_position_width(x.flags), (x.flags & NATIVE_VALUES) != 0,
                       base + x.starts_off, base + x.ends_off);
        if (x.flags & NATIVE_ENTRIES) {
            uint16_t *entries = (uint16_t *)(void *)(base + x.entries_off);
            for (uint32_t i = 0; i < a->nintervals; i++)
                entries[i] = (uint16_t)(a->claim[i] + 1); /* NATIVE_NONE becomes 0 */
        }
    } else {
        fill_columns(t, column, mode, base + x.sources_off);
    }
    buckets_fill(keys, x.nkeys, 0, x.native_nb, x.native_shift,
                 (x.flags & NATIVE_WIDE_NATIVE) != 0, base + x.native_first_off);
    buckets_fill(il_keys, x.normal_end - x.prolog_end, x.prolog_end, x.il_nb, x.il_shift,
                 (x.flags & NATIVE_WIDE_IL) != 0, base + x.il_first_off);
    free(il_keys);

    if (direct) {
        /* written above */
    } else if (x.flags & NATIVE_WIDE_ANSWERS) {
        uint32_t *answer = (uint32_t *)(void *)(base + x.answers_off);
        for (uint32_t i = 0; i < a->nintervals; i++)
            answer[i] = a->claim[i] + 1; /* NATIVE_NONE becomes 0 */
    } else {
        uint16_t *answer = (uint16_t *)(void *)(base + x.answers_off);
        for (uint32_t i = 0; i < a->nintervals; i++)
            answer[i] = (uint16_t)(a->claim[i] + 1);
    }

    ilmap_native_record *calls = (ilmap_native_record *)(void *)(base + x.calls_off);
    uint32_t *calls_by_start = (uint32_t *)(void *)(base + x.calls_by_start_off);
    if (t->ncalls)
        memcpy(calls, t->records + count, (size_t)t->ncalls * sizeof *calls);
    for (uint32_t c = 0; c < t->ncalls; c++)
        by_start[c] = (uint64_t)calls[c].native_start << 32 | c;
    qsort(by_start, t->ncalls, sizeof *by_start, order_u64);
    for (uint32_t c = 0; c < t->ncalls; c++)
        calls_by_start[c] = (uint32_t)by_start[c];
    free(by_start);

    *out = m;
    return ILMAP_OK;
}

ilmap_status native_assemble(const native_table *t, ilmap_native **out)
{
    uint32_t common;
    unsigned mode = source_mode(t->records, t->count, &common);
    answers a;

    *out = NULL;
    if (t->ncalls == 0 && t->count <= NATIVE_SCAN_MAX)
        return assemble_scan(t, mode, common, out);
    ilmap_status status = answers_compute(t, &a);
    if (status != ILMAP_OK) {
        answers_free(&a);
        return status;
    }
    if (t->ncalls == 0 && t->count <= NATIVE_SMALL_MAX) {
        /* Scanned instead where the breakpoints would not fit the bound
         * (3 entries, with a 4-byte malloc header), or an IL offset does
         * not fit the small form's narrow answer words. */
        unsigned small_mode =
            mode == NATIVE_SRC_UNIFORM && common > 0xFFu ? NATIVE_SRC_U32 : mode;
        size_t size = native_small_layout_of(t->count, a.nkeys, small_mode, 0).size;
        status = a.narrow &&
                         ilmap_malloc_estimate(size) <= native_memory_bound(t->count)
                     ? assemble_small(t, mode, common, &a, out)
                     : assemble_scan(t, mode, common, out);
    } else {
        status = assemble_indexed(t, mode, common, &a, out);
    }
    answers_free(&a);
    return status;
}

void ilmap_native_free(ilmap_native *m)
{
    free(m);
}

/* Every byte of the block, plus the allocator's rounding where the C
 * library reports it. */
size_t ilmap_native_get_memory_bytes(const ilmap_native *m)
{
    if (!m)
        return 0;
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;
    size_t count = native_count(m);
    size_t requested;

    switch (native_form(m)) {
    case NATIVE_FORM_INDEXED:
    case NATIVE_FORM_DIRECT: requested = native_index_of(m)->size; break;
    case NATIVE_FORM_SMALL:
        requested = native_small_layout_of((uint32_t)count, native_small_keys(m->info), mode,
                                           native_small_tiny(m->info))
                        .size;
        break;
    default: requested = sizeof *m + 12 * count + count * native_source_bytes(mode); break;
    }
    return ilmap_malloc_size((void *)(uintptr_t)m, requested);
}
