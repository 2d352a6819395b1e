/*
 * Seeded random IL-to-native maps against a brute-force model. The model
 * below is a plain transcription of doc/: the translators
 * (doc/il-maps.md#translation, #dac) as linear scans, SetBoundaries / the
 * DAC's build step by step (doc/native-maps.md#build), the comparator's
 * rules in the order doc/native-maps.md#sort-order lists them with an
 * insertion sort, the export, and MapNativeOffsetToIL as the linear
 * first-match scan (doc/native-to-il.md#scan). It shares no code with the
 * library.
 *
 * Every case builds both flavours with and without a COR_IL_MAP, from JIT
 * boundaries with specials, repeated IL offsets, equal native offsets,
 * call instructions and stray source bits (a third of them a profiler's
 * rewrite: probes before original instructions, calls in the probes and
 * after them, the map's first new offset above 0), then compares the export, the
 * stored records, lastIL, native -> IL for every native offset from 0 to
 * code_size + 8 (and the top of the range), IL -> native and the ranges of
 * every IL offset, from_entries on the export (every export must be
 * accepted back), and composition. A boundary carrying the runtime's own
 * end-unknown bit must be refused.
 *
 * Then exported arrays made directly, not through the build: shaped as
 * the runtime exports them (several boundaries at native offset 0, so
 * end-0 entries anywhere in the sorted table) and arbitrary ones (end-0
 * entries, PROLOG or not, at any start; empty ranges; sometimes one entry
 * broken). Validation is compared with a brute-force statement of its
 * rules (status, bad and other index), and every accepted array's map
 * with the scan of doc/native-to-il.md run on the array as given, then
 * read back from its export and from its serialized bytes.
 *
 * Replay a failure with the printed seed: test-native-random SEED.
 */
#include <string.h>

#include "ilmap-serial.h"
#include "ilmap.h"
#include "test.h"

#define P ILMAP_PROLOG
#define E ILMAP_EPILOG
#define NM ILMAP_NO_MAPPING
#define CALL ILMAP_SOURCE_CALL_INSTRUCTION
#define UNKNOWN ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN
#define MAX_JIT 2000 /* the large cases; most have at most 160 */
#define SMALL_JIT 160
#define LARGE_CASES 3
#define MAX_MAP 12
#define CASES 20000
#define ENTRY_CASES 40000

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

typedef struct mrec {
    uint32_t il, start, end, source;
} mrec;

typedef struct model {
    mrec seq[MAX_JIT];   /* the exported (sequence) map, sorted */
    size_t nseq;
    mrec calls[MAX_JIT]; /* the split-off call sites */
    size_t ncalls;
    uint32_t last_il;
    uint32_t code_size;
} model;

/* In-process TranslateToInstIL, new -> old (doc/il-maps.md#translation). */
static uint32_t model_new_to_old(const ilmap_entry *map, size_t n, uint32_t x)
{
    if (n == 0)
        return x;
    if (x < map[0].new_offset || x == P)
        return P;
    if (x == E || x == NM)
        return x;
    for (size_t i = 1; i < n; i++)
        if (x < map[i].new_offset)
            return map[i - 1].old_offset;
    return map[n - 1].old_offset;
}

/* The DAC's TranslateInstrumentedILOffsetToOriginal (doc/il-maps.md#dac). */
static uint32_t model_new_to_old_dac(const ilmap_entry *map, size_t n, uint32_t x)
{
    if (n == 0 || (int32_t)x < 0)
        return x;
    for (size_t i = 1; i < n; i++)
        if (x < map[i].new_offset)
            return map[i - 1].old_offset;
    return map[n - 1].old_offset;
}

static int is_call(const mrec *r)
{
    return (r->source & CALL) == CALL;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* The comparator's rules in the order given (doc/native-maps.md#sort-order);
 * ties by native start. */
static int model_compare(const mrec *a, const mrec *b)
{
    if (a->il == P && b->il == P)
        return cmp_u32(a->start, b->start);
    if (a->il == P)
        return -1;
    if (b->il == P)
        return 1;
    if (is_call(a) && is_call(b))
        return a->il != b->il ? cmp_u32(a->il, b->il) : cmp_u32(a->start, b->start);
    if (is_call(a))
        return 1;
    if (is_call(b))
        return -1;
    if (a->il == NM && b->il == NM)
        return cmp_u32(a->start, b->start);
    if (a->il == NM)
        return 1;
    if (b->il == NM)
        return -1;
    if (a->il == E && b->il == E)
        return cmp_u32(a->start, b->start);
    if (a->il == E)
        return 1;
    if (b->il == E)
        return -1;
    return a->il != b->il ? cmp_u32(a->il, b->il) : cmp_u32(a->start, b->start);
}

/* Insertion sort: stable, so equal entries stay in native order (the
 * library's documented choice where the runtime's order is open). */
static void model_sort(mrec *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        mrec x = r[i];
        size_t j = i;
        while (j > 0 && model_compare(&x, &r[j - 1]) < 0) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

/* Steps 2-7 (in-process) or the DAC's build (doc/native-maps.md#build).
 * map NULL or mapn 0 = no map (doc/il-maps.md#empty-map). */
static void model_build(const ilmap_boundary *jit, size_t n, const ilmap_entry *map, size_t mapn,
                        uint32_t code_size, int dac, model *out)
{
    static mrec kept[MAX_JIT];
    size_t k = 0;
    int have_map = map != NULL && mapn > 0;

    memset(out, 0, sizeof *out);
    out->code_size = code_size;
    if (!dac) {
        uint32_t tracker = (uint32_t)-10;
        int32_t last = 0;
        for (size_t i = 0; i < n; i++) {
            mrec m = { jit[i].il_offset, jit[i].native_offset, 0, jit[i].source };
            /* step 5: lastIL over the raw offsets, signed */
            if ((int32_t)jit[i].il_offset > last)
                last = (int32_t)jit[i].il_offset;
            /* step 2 */
            if (have_map) {
                uint32_t t = model_new_to_old(map, mapn, m.il);
                if (t == tracker)
                    continue;
                m.il = t;
                tracker = t;
            }
            /* step 3 */
            if (!is_call(&m) && k > 0) {
                mrec *prev = &kept[k - 1];
                if (is_call(prev))
                    prev = k > 1 ? &kept[k - 2] : NULL;
                if (prev && !is_call(prev) && prev->il == m.il)
                    continue;
            }
            kept[k++] = m;
        }
        out->last_il = (uint32_t)last;
    } else {
        /* ComposeMapping: mark duplicates with MAX_ILNUM, then compact. */
        static mrec all[MAX_JIT];
        for (size_t i = 0; i < n; i++) {
            mrec m = { jit[i].il_offset, jit[i].native_offset, 0, jit[i].source };
            all[i] = m;
        }
        if (have_map) {
            uint32_t prev = 0xFFFFFFFCu;
            for (size_t i = 0; i < n; i++) {
                uint32_t t = model_new_to_old_dac(map, mapn, all[i].il);
                if (t == prev) {
                    all[i].il = 0xFFFFFFFCu;
                } else {
                    all[i].il = t;
                    prev = t;
                }
            }
            for (size_t i = 0; i < n; i++)
                if (all[i].il != 0xFFFFFFFCu)
                    kept[k++] = all[i];
        } else {
            for (size_t i = 0; i < n; i++)
                kept[k++] = all[i];
        }
        int32_t last = 0;
        for (size_t i = 0; i < k; i++)
            if (!is_call(&kept[i]) && (int32_t)kept[i].il > last)
                last = (int32_t)kept[i].il;
        out->last_il = (uint32_t)last;
    }
    /* step 4 */
    for (size_t i = 0; i + 1 < k; i++) {
        size_t j = i + 1;
        while (is_call(&kept[j]) && j < k - 1)
            j++;
        kept[i].end = kept[j].start;
    }
    if (k > 0) {
        kept[k - 1].end = 0;
        kept[k - 1].source |= UNKNOWN;
    }
    /* step 6 */
    model_sort(kept, k);
    /* step 7 */
    size_t nseq = k;
    while (nseq > 0 && is_call(&kept[nseq - 1]))
        nseq--;
    memcpy(out->seq, kept, nseq * sizeof kept[0]);
    out->nseq = nseq;
    memcpy(out->calls, kept + nseq, (k - nseq) * sizeof kept[0]);
    out->ncalls = k - nseq;
}

static ilmap_native_entry model_export_one(const model *m, const mrec *r)
{
    ilmap_native_entry e = { r->il, r->start, (r->source & UNKNOWN) ? m->code_size : r->end };
    return e;
}

/* MapNativeOffsetToIL (doc/native-to-il.md#scan). */
static unsigned model_to_il(const model *m, uint32_t x, uint32_t *il, size_t *entry,
                            uint32_t *which)
{
    *which = 0;
    for (size_t i = 0; i < m->nseq; i++) {
        const mrec *r = &m->seq[i];
        if (r->il == P || r->il == E || r->il == NM)
            (*which)++;
        if (x >= r->start && ((r->end == 0 && r->il != P) || x < r->end)) {
            *entry = i;
            if (r->il == P) {
                *il = 0;
                return ILMAP_MAPPING_PROLOG;
            }
            if (r->il == NM) {
                *il = 0;
                return ILMAP_MAPPING_UNMAPPED_ADDRESS;
            }
            if (r->il == E) {
                *il = m->last_il;
                return ILMAP_MAPPING_EPILOG;
            }
            *il = r->il;
            return x == r->start ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
        }
    }
    *il = 0;
    *entry = ILMAP_NO_INDEX;
    return ILMAP_MAPPING_NO_INFO;
}

/* The floor entry: greatest normal IL <= x, lowest start among equals;
 * a special x finds its first entry. */
static size_t model_floor(const model *m, uint32_t x, int *exact)
{
    size_t best = ILMAP_NO_INDEX;
    *exact = 0;
    for (size_t i = 0; i < m->nseq; i++) {
        const mrec *r = &m->seq[i];
        if (x >= E) {
            if (r->il == x) {
                *exact = 1;
                return i;
            }
            continue;
        }
        if (r->il >= E || r->il > x)
            continue;
        if (best == ILMAP_NO_INDEX || r->il > m->seq[best].il ||
            (r->il == m->seq[best].il && r->start < m->seq[best].start))
            best = i;
    }
    if (best != ILMAP_NO_INDEX)
        *exact = m->seq[best].il == x;
    return best;
}

/* ------------------------------------------------------------------ */
/* Comparing the library with the model                                */
/* ------------------------------------------------------------------ */

static uint64_t case_seed;
static int reported;

#define FAIL(...)                                                                      \
    do {                                                                               \
        test_failures++;                                                               \
        if (reported++ < 20) {                                                         \
            fprintf(stderr, "case seed 0x%016llX: ", (unsigned long long)case_seed);   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
        }                                                                              \
    } while (0)

static int same_entry(ilmap_native_entry a, ilmap_native_entry b)
{
    return a.il_offset == b.il_offset && a.native_start == b.native_start &&
           a.native_end == b.native_end;
}

/* The native offsets worth asking about: all of 0..code_size+8, every
 * breakpoint and its neighbours, the top of the range. */
static void check_native_lookups(const char *what, const ilmap_native *lib, const model *m)
{
    static uint32_t extra[2 * MAX_JIT * 3 + 4];
    size_t nextra = 0;

    for (size_t i = 0; i < m->nseq; i++) {
        uint32_t b[2] = { m->seq[i].start, m->seq[i].end };
        for (int j = 0; j < 2; j++) {
            extra[nextra++] = b[j] - 1;
            extra[nextra++] = b[j];
            extra[nextra++] = b[j] + 1;
        }
    }
    extra[nextra++] = 0xFFFFFFFFu;
    extra[nextra++] = 0xFFFFFFFEu;
    extra[nextra++] = 0x80000000u;
    extra[nextra++] = 0x7FFFFFFFu;

    uint64_t dense = (uint64_t)m->code_size + 9;
    for (uint64_t q = 0; q < dense + nextra; q++) {
        uint32_t x = q < dense ? (uint32_t)q : extra[q - dense];
        uint32_t want_il, want_which, got_il = 0xDEAD, got_which = 0xDEAD;
        size_t want_entry, got_entry = 12345;
        unsigned want = model_to_il(m, x, &want_il, &want_entry, &want_which);
        unsigned got = ilmap_native_to_il_detail(lib, x, &got_il, &got_entry, &got_which);
        uint32_t plain_il = 0xDEAD;
        unsigned plain = ilmap_native_to_il(lib, x, &plain_il);

        test_checks++;
        if (got != want || got_il != want_il || got_entry != want_entry ||
            got_which != want_which || plain != want || plain_il != want_il)
            FAIL("%s: native 0x%X -> (0x%X, IL 0x%X, #%zu, which %u), want (0x%X, 0x%X, #%zu, %u)",
                 what, x, got, got_il, got_entry, got_which, want, want_il, want_entry,
                 want_which);
    }
}

static void check_il_lookups(const char *what, const ilmap_native *lib, const model *m)
{
    static uint32_t queries[3 * MAX_JIT + 8];
    size_t nq = 0;

    for (size_t i = 0; i < m->nseq; i++) {
        queries[nq++] = m->seq[i].il - 1;
        queries[nq++] = m->seq[i].il;
        queries[nq++] = m->seq[i].il + 1;
    }
    queries[nq++] = 0;
    queries[nq++] = P;
    queries[nq++] = E;
    queries[nq++] = NM;
    queries[nq++] = 0xFFFFFFFCu;
    queries[nq++] = 0x80000000u;

    for (size_t q = 0; q < nq; q++) {
        uint32_t x = queries[q];
        int want_exact, got_exact = -1;
        size_t want = model_floor(m, x, &want_exact), got = 777;
        ilmap_native_entry e;
        ilmap_status st = ilmap_il_to_native(lib, x, &e, &got, &got_exact);

        test_checks++;
        if (want == ILMAP_NO_INDEX) {
            if (st != ILMAP_E_NOT_FOUND || got != ILMAP_NO_INDEX || got_exact != 0)
                FAIL("%s: il_to_native(0x%X) = %s #%zu, want not found", what, x,
                     ilmap_status_str(st), got);
        } else if (st != ILMAP_OK || got != want || got_exact != want_exact ||
                   !same_entry(e, model_export_one(m, &m->seq[want]))) {
            FAIL("%s: il_to_native(0x%X) = %s #%zu exact %d, want #%zu exact %d", what, x,
                 ilmap_status_str(st), got, got_exact, want, want_exact);
        }

        /* All ranges of x: the entries with that IL offset, in order. */
        static ilmap_native_entry ranges[MAX_JIT];
        size_t total = 0;
        size_t n = 0;
        st = ilmap_il_to_native_ranges(lib, x, MAX_JIT, &total, ranges);
        test_checks++;
        if (st != ILMAP_OK) {
            FAIL("%s: ranges(0x%X) = %s", what, x, ilmap_status_str(st));
            continue;
        }
        for (size_t i = 0; i < m->nseq; i++) {
            if (m->seq[i].il != x)
                continue;
            if (n >= total || !same_entry(ranges[n], model_export_one(m, &m->seq[i])))
                FAIL("%s: ranges(0x%X)[%zu] differs", what, x, n);
            n++;
        }
        if (n != total)
            FAIL("%s: ranges(0x%X) total %zu, want %zu", what, x, total, n);
    }
}

static void check_export(const char *what, const ilmap_native *lib, const model *m)
{
    static ilmap_native_entry got[MAX_JIT];
    static ilmap_native_record rec[MAX_JIT];
    size_t total = 0;

    test_checks++;
    if (ilmap_native_export(lib, MAX_JIT, &total, got) != ILMAP_OK || total != m->nseq) {
        FAIL("%s: export total %zu, want %zu", what, total, m->nseq);
        return;
    }
    for (size_t i = 0; i < m->nseq; i++)
        if (!same_entry(got[i], model_export_one(m, &m->seq[i])))
            FAIL("%s: export[%zu] = (0x%X, %u, %u), want (0x%X, %u, %u)", what, i,
                 got[i].il_offset, got[i].native_start, got[i].native_end, m->seq[i].il,
                 m->seq[i].start, model_export_one(m, &m->seq[i]).native_end);

    /* Truncation: the first cap entries, the total reported, nothing
     * past cap written. */
    if (m->nseq > 1) {
        static ilmap_native_entry part[MAX_JIT];
        size_t cap = m->nseq / 2, t2 = 0;
        memset(part, 0xA5, sizeof part);
        test_checks++;
        if (ilmap_native_export(lib, cap, &t2, part) != ILMAP_E_TRUNCATED || t2 != m->nseq ||
            memcmp(part, got, cap * sizeof part[0]) != 0 ||
            part[cap].il_offset != 0xA5A5A5A5u || part[cap].native_end != 0xA5A5A5A5u)
            FAIL("%s: truncated export", what);
    }

    test_checks++;
    if (ilmap_native_export_records(lib, ILMAP_RECORDS_EXPORTED, MAX_JIT, &total, rec) !=
            ILMAP_OK ||
        total != m->nseq)
        FAIL("%s: records total %zu", what, total);
    for (size_t i = 0; i < m->nseq && i < total; i++)
        if (rec[i].il_offset != m->seq[i].il || rec[i].native_start != m->seq[i].start ||
            rec[i].native_end != m->seq[i].end || rec[i].source != m->seq[i].source)
            FAIL("%s: record[%zu] differs", what, i);

    test_checks++;
    if (ilmap_native_export_records(lib, ILMAP_RECORDS_CALL_SITES, MAX_JIT, &total, rec) !=
            ILMAP_OK ||
        total != m->ncalls)
        FAIL("%s: call sites total %zu, want %zu", what, total, m->ncalls);
    for (size_t i = 0; i < m->ncalls && i < total; i++)
        if (rec[i].il_offset != m->calls[i].il || rec[i].native_start != m->calls[i].start ||
            rec[i].native_end != m->calls[i].end || rec[i].source != m->calls[i].source)
            FAIL("%s: call site[%zu] differs", what, i);

    /* call_site_at: the first call site (list order) at each start. */
    for (size_t i = 0; i < m->ncalls; i++) {
        ilmap_native_record c;
        size_t first = i;
        for (size_t j = 0; j < m->ncalls; j++)
            if (m->calls[j].start == m->calls[i].start) {
                first = j;
                break;
            }
        test_checks++;
        if (ilmap_native_find_call_site(lib, m->calls[i].start, &c) != ILMAP_OK ||
            c.il_offset != m->calls[first].il || c.native_end != m->calls[first].end)
            FAIL("%s: call_site_at(%u)", what, m->calls[i].start);
    }
    CHECK_EQ_U32(ilmap_native_get_last_il(lib), m->last_il);
    CHECK(ilmap_native_get_count(lib) == m->nseq);
}

static void check_all(const char *what, const ilmap_native *lib, const model *m)
{
    check_export(what, lib, m);
    check_native_lookups(what, lib, m);
    check_il_lookups(what, lib, m);
}

/* ------------------------------------------------------------------ */
/* from_entries and composition                                        */
/* ------------------------------------------------------------------ */

/* The model of a map read back from an exported array, from the rule in
 * doc/native-to-il.md: the entries exactly as given (end 0 stays 0 and is
 * read by the scan in model_to_il), no sources, lastIL the signed
 * maximum of the IL offsets, the runtime's order (stable). */
static void model_from_entries(const ilmap_native_entry *e, size_t n, uint32_t code_size,
                               model *out)
{
    int32_t last = 0;

    memset(out, 0, sizeof *out);
    out->code_size = code_size;
    for (size_t i = 0; i < n; i++) {
        mrec r = { e[i].il_offset, e[i].native_start, e[i].native_end, 0 };
        out->seq[i] = r;
        if ((int32_t)r.il > last)
            last = (int32_t)r.il;
    }
    out->nseq = n;
    out->last_il = (uint32_t)last;
    model_sort(out->seq, n);
}

/* A range the overlap check looks at: a non-zero end above the start.
 * End 0 (open, or nothing on a PROLOG) and start == end never count. */
static int model_counts(const ilmap_native_entry *e)
{
    return e->native_end != 0 && e->native_start < e->native_end;
}

/* Sweep order of the overlap check: by start, then by index. */
static int model_before(const ilmap_native_entry *e, size_t a, size_t b)
{
    return e[a].native_start < e[b].native_start ||
           (e[a].native_start == e[b].native_start && a < b);
}

/* Whether two counted ranges, j before i in sweep order, that share an
 * offset may do so (doc/native-to-il.md#accepts): same end, and the one
 * starting later is a PROLOG; when both start together, one of them. */
static int model_nesting_allowed(const ilmap_native_entry *e, size_t j, size_t i)
{
    if (e[i].native_end != e[j].native_end)
        return 0;
    if (e[i].native_start > e[j].native_start)
        return e[i].il_offset == P;
    return e[i].il_offset == P || e[j].il_offset == P;
}

/* What ilmap_native_validate must say, by brute force: the lowest index
 * with a start past the code, a non-zero end past the code or a start
 * above a non-zero end; else, among the pairs of counted ranges that
 * overlap in a way the runtime never exports, the later one in sweep
 * order of the earliest such pair (bad) and, among the counted ranges
 * before it, the one reaching furthest, the first in sweep order on ties
 * (other). */
static ilmap_status model_validate(const ilmap_native_entry *e, size_t n, uint32_t code_size,
                                   size_t *bad, size_t *other)
{
    *bad = *other = ILMAP_NO_INDEX;
    for (size_t i = 0; i < n; i++) {
        int open = e[i].native_end == 0;
        ilmap_status st = ILMAP_OK;
        if (e[i].native_start > code_size || (!open && e[i].native_end > code_size))
            st = ILMAP_E_CODE_SIZE;
        else if (!open && e[i].native_start > e[i].native_end)
            st = ILMAP_E_BAD_RANGE;
        if (st != ILMAP_OK) {
            *bad = i;
            return st;
        }
    }
    /* The earliest range (sweep order) that overlaps one before it. */
    for (size_t i = 0; i < n; i++) {
        if (!model_counts(&e[i]))
            continue;
        int overlaps = 0;
        for (size_t j = 0; j < n && !overlaps; j++)
            overlaps = j != i && model_counts(&e[j]) && model_before(e, j, i) &&
                       e[i].native_start < e[j].native_end && !model_nesting_allowed(e, j, i);
        if (overlaps && (*bad == ILMAP_NO_INDEX || model_before(e, i, *bad)))
            *bad = i;
    }
    if (*bad == ILMAP_NO_INDEX)
        return ILMAP_OK;
    for (size_t j = 0; j < n; j++) {
        if (!model_counts(&e[j]) || !model_before(e, j, *bad))
            continue;
        if (*other == ILMAP_NO_INDEX || e[j].native_end > e[*other].native_end ||
            (e[j].native_end == e[*other].native_end && model_before(e, j, *other)))
            *other = j;
    }
    return ILMAP_E_OVERLAP;
}

/* An array given to from_entries: validation against the model, and
 * when accepted, the map against the model of the array as given, the
 * export read back, and the bytes read back. Returns 1 when accepted. */
static long refusals[ILMAP_E_OVERLAP + 1]; /* by status, for the summary */

static int check_entries(const char *what, const ilmap_native_entry *ex, size_t n,
                         uint32_t code_size)
{
    static model want;
    static ilmap_native_entry again[MAX_JIT];
    size_t bad = 12345, other = 12345, want_bad, want_other;
    ilmap_status want_st = model_validate(ex, n, code_size, &want_bad, &want_other);
    ilmap_status st = ilmap_native_validate(ex, n, code_size, &bad, &other);

    test_checks++;
    if (st != want_st || bad != want_bad || other != want_other) {
        FAIL("%s: validate = %s bad %zu other %zu, want %s bad %zu other %zu", what,
             ilmap_status_str(st), bad, other, ilmap_status_str(want_st), want_bad, want_other);
        return 0;
    }
    ilmap_native *m = (ilmap_native *)(uintptr_t)1;
    st = ilmap_native_from_entries(ex, n, code_size, &m);
    test_checks++;
    if (st != want_st || (m != NULL) != (want_st == ILMAP_OK)) {
        FAIL("%s: from_entries = %s, want %s", what, ilmap_status_str(st),
             ilmap_status_str(want_st));
        return 0;
    }
    if (!m) {
        if ((size_t)st < sizeof refusals / sizeof refusals[0])
            refusals[st]++;
        return 0;
    }
    model_from_entries(ex, n, code_size, &want);
    check_all(what, m, &want);

    /* The export reads back into the same map. */
    size_t total = 0;
    ilmap_native *m2 = NULL;
    ilmap_native_export(m, MAX_JIT, &total, again);
    test_checks++;
    if (ilmap_native_from_entries(again, total, code_size, &m2) != ILMAP_OK) {
        FAIL("%s: export does not read back", what);
    } else {
        check_all(what, m2, &want);
        ilmap_native_free(m2);
    }

    /* So do its bytes. */
    size_t size = 0;
    static unsigned char buf[32 + 12 * MAX_JIT];
    ilmap_native *m3 = NULL;
    test_checks++;
    if (ilmap_native_serialize(m, sizeof buf, &size, buf) != ILMAP_OK ||
        ilmap_native_deserialize(buf, size, 0, &m3, NULL) != ILMAP_OK) {
        FAIL("%s: serialized map does not read back", what);
    } else {
        check_export(what, m3, &want);
        ilmap_native_free(m3);
    }
    ilmap_native_free(m);
    return 1;
}

/* Whether an export holds the one overlap the runtime produces: a PROLOG
 * range nested in another (for the summary). */
static int has_nesting(const ilmap_native_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && model_counts(&e[i]) && model_counts(&e[j]) && model_before(e, j, i) &&
                e[i].native_start < e[j].native_end)
                return 1;
    return 0;
}

/* Every export of the build is accepted back (doc/native-to-il.md#accepts)
 * and answers as the model of the array says. */
static void check_from_entries(const ilmap_native *lib, long *nested)
{
    static ilmap_native_entry ex[MAX_JIT];
    size_t total = 0;
    uint32_t code_size = ilmap_native_get_code_size(lib);

    ilmap_native_export(lib, MAX_JIT, &total, ex);
    *nested += has_nesting(ex, total);
    test_checks++;
    if (!check_entries("from_entries", ex, total, code_size))
        FAIL("the build's export is refused by from_entries");
    /* Reverse the order: from_entries takes any order. Then stable
     * sorting keeps reversed order among equal entries, which the model,
     * sorting the same reversed array, does too. */
    for (size_t i = 0; i < total / 2; i++) {
        ilmap_native_entry t = ex[i];
        ex[i] = ex[total - 1 - i];
        ex[total - 1 - i] = t;
    }
    test_checks++;
    if (!check_entries("from_entries, reversed", ex, total, code_size))
        FAIL("the build's export, reversed, is refused by from_entries");
}

/* Composition: the export made with no map, replayed with the map, is the
 * export made with it, whenever the JIT reported no call instructions
 * and the input passes the exactness check. */
static void check_compose(const ilmap_boundary *jit, size_t n, const ilmap *map,
                          uint32_t code_size, unsigned flags, long *exact_count)
{
    ilmap_native *plain = NULL, *direct = NULL, *composed = NULL;
    static ilmap_native_entry ex[MAX_JIT], a[MAX_JIT], b[MAX_JIT];
    size_t total = 0;
    int lossless = -1;

    if (ilmap_native_build(jit, n, NULL, code_size, flags, &plain) != ILMAP_OK ||
        ilmap_native_build(jit, n, map, code_size, flags, &direct) != ILMAP_OK) {
        FAIL("compose: build failed");
        goto done;
    }
    ilmap_native_export(plain, MAX_JIT, &total, ex);
    test_checks++;
    if (ilmap_native_translate(ex, total, code_size, map, flags, &composed, &lossless) !=
        ILMAP_OK) {
        FAIL("translate failed");
        goto done;
    }
    if (!lossless)
        goto done;
    (*exact_count)++;

    size_t na = 0, nb = 0;
    ilmap_native_export(direct, MAX_JIT, &na, a);
    ilmap_native_export(composed, MAX_JIT, &nb, b);
    test_checks++;
    if (na != nb || memcmp(a, b, na * sizeof a[0]) != 0 ||
        ilmap_native_get_last_il(direct) != ilmap_native_get_last_il(composed)) {
        FAIL("translate (%s): %zu entries, want %zu", flags ? "DAC" : "in-process", nb, na);
        goto done;
    }
    for (uint32_t x = 0; x < code_size + 9; x++) {
        uint32_t il1, il2;
        unsigned r1 = ilmap_native_to_il(direct, x, &il1);
        unsigned r2 = ilmap_native_to_il(composed, x, &il2);
        test_checks++;
        if (r1 != r2 || il1 != il2)
            FAIL("compose: native %u differs", x);
    }
done:
    ilmap_native_free(plain);
    ilmap_native_free(direct);
    ilmap_native_free(composed);
}

/* ------------------------------------------------------------------ */
/* Random inputs                                                       */
/* ------------------------------------------------------------------ */

static uint32_t random_il(prng *rng, uint32_t prev, int first)
{
    uint32_t r = prng_below(rng, 100);

    if (first && r < 40)
        return P;
    if (r < 20 && !first)
        return prev;
    if (r < 24)
        return P;
    if (r < 29)
        return E;
    if (r < 33)
        return NM;
    if (r < 35) {
        static const uint32_t odd[] = { 0xFFFFFFFCu, 0xFFFFFFF6u, 0x80000000u, 0x7FFFFFFFu };
        return odd[prng_below(rng, 4)];
    }
    return prng_below(rng, 48);
}

/* n boundaries, or a random count when n is 0. */
static size_t random_jit(prng *rng, ilmap_boundary *jit, size_t n, uint32_t *code_size,
                         int no_calls)
{
    if (n == 0)
        n = prng_below(rng, 10) == 0 ? prng_below(rng, SMALL_JIT + 1)
                                         : prng_below(rng, 24);
    uint32_t native = prng_below(rng, 3) == 0 ? prng_below(rng, 5) : 0;
    uint32_t il = 0;

    for (size_t i = 0; i < n; i++) {
        if (i > 0 && prng_below(rng, 4) != 0)
            native += 1 + prng_below(rng, 6);
        il = random_il(rng, il, i == 0);
        uint32_t source = prng_below(rng, 8) & (ILMAP_SOURCE_SEQUENCE_POINT |
                                                    ILMAP_SOURCE_STACK_EMPTY |
                                                    ILMAP_SOURCE_CALL_SITE);
        if (!no_calls && prng_below(rng, 5) == 0)
            source |= CALL;
        if (prng_below(rng, 20) == 0)
            source |= ILMAP_SOURCE_ASYNC;
        jit[i].native_offset = native;
        jit[i].il_offset = il;
        jit[i].source = source;
    }
    *code_size = native + (prng_below(rng, 3) == 0 ? 0 : prng_below(rng, 6));
    return n;
}

/* A strict COR_IL_MAP (both columns ascending), sometimes empty,
 * sometimes with old offsets at the top of the range. */
static size_t random_map(prng *rng, ilmap_entry *map)
{
    size_t n = prng_below(rng, 8) == 0 ? 0 : 1 + prng_below(rng, MAX_MAP);
    uint32_t old_offset = prng_below(rng, 4), new_offset = prng_below(rng, 6);

    if (prng_below(rng, 12) == 0)
        old_offset = 0xFFFFFFF0u; /* translations reach -10 and MAX_ILNUM */
    for (size_t i = 0; i < n; i++) {
        map[i].old_offset = old_offset;
        map[i].new_offset = new_offset;
        map[i].accurate = 1;
        old_offset += 1 + prng_below(rng, 3);
        new_offset += 1 + prng_below(rng, 8);
        if (old_offset < map[i].old_offset) { /* wrapped: stop here */
            n = i + 1;
            break;
        }
    }
    return n;
}

/* A profiler's rewrite and what the JIT reports for it: original
 * instructions at old offsets, a probe injected before some of them
 * (before old offset 0 more often than not, so that the map's first new
 * offset is above 0 and the probe's IL translates to PROLOG), the
 * COR_IL_MAP that says where each original instruction went, and JIT
 * boundaries in instrumented coordinates: in the probes (their start, and
 * call instructions inside them) and at the original instructions (some
 * of them calls too), the prolog and an epilog sometimes. */
static size_t probe_shaped(prng *rng, ilmap_boundary *jit, ilmap_entry *map, size_t *mapn,
                           uint32_t *code_size)
{
    size_t n = 0, m = 1 + prng_below(rng, MAX_MAP);
    uint32_t old_offset = 0, new_offset = 0, native = 0;

    if (prng_below(rng, 2) == 0) {
        jit[n].native_offset = 0;
        jit[n].il_offset = P;
        jit[n++].source = ILMAP_SOURCE_STACK_EMPTY;
    }
    for (size_t i = 0; i < m; i++) {
        uint32_t probe = prng_below(rng, i == 0 ? 4 : 2) != 0 ? 1 + prng_below(rng, 10) : 0;
        uint32_t probe_start = new_offset;

        new_offset += probe;
        map[i].old_offset = old_offset;
        map[i].new_offset = new_offset;
        map[i].accurate = 1;
        if (probe && prng_below(rng, 3) != 0) {
            native += prng_below(rng, 4);
            jit[n].native_offset = native;
            jit[n].il_offset = probe_start;
            jit[n++].source = ILMAP_SOURCE_STACK_EMPTY;
        }
        if (probe && prng_below(rng, 2) == 0) {
            native += 1 + prng_below(rng, 5);
            jit[n].native_offset = native;
            jit[n].il_offset = probe_start + prng_below(rng, probe);
            jit[n++].source = CALL;
        }
        native += prng_below(rng, 5);
        jit[n].native_offset = native;
        jit[n].il_offset = new_offset;
        jit[n++].source = prng_below(rng, 5) == 0 ? CALL : ILMAP_SOURCE_SEQUENCE_POINT;
        uint32_t length = 1 + prng_below(rng, 6);
        old_offset += length;
        new_offset += length;
    }
    if (prng_below(rng, 2) == 0) {
        native += 1 + prng_below(rng, 5);
        jit[n].native_offset = native;
        jit[n].il_offset = E;
        jit[n++].source = 0;
    }
    *mapn = m;
    *code_size = native + prng_below(rng, 6);
    return n;
}

/* ------------------------------------------------------------------ */
/* Exported arrays made directly                                       */
/* ------------------------------------------------------------------ */

#define MAX_ENTRIES 24

static void shuffle(prng *rng, ilmap_native_entry *e, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = prng_below(rng, (uint32_t)i);
        ilmap_native_entry t = e[i - 1];
        e[i - 1] = e[j];
        e[j] = t;
    }
}

static int compare_export(const ilmap_native_entry *a, const ilmap_native_entry *b)
{
    mrec x = { a->il_offset, a->native_start, a->native_end, 0 };
    mrec y = { b->il_offset, b->native_start, b->native_end, 0 };
    return model_compare(&x, &y);
}

/* What the runtime exports, written here from its rules rather than
 * through the build: boundaries in native order, often several at native
 * offset 0 (and sometimes all of them), some of them call instructions;
 * each ends where the next boundary that is not a call instruction starts
 * (the skip stops at the last), the last one at the code size (or, as for
 * a method whose last end is left unset, at 0); the call instructions
 * that are not PROLOG split off; then sorted into the runtime's order. A
 * PROLOG call instruction stays, nested in the range before it. */
static size_t runtime_shaped(prng *rng, ilmap_native_entry *e, uint32_t *code_size)
{
    size_t n = 1 + prng_below(rng, MAX_ENTRIES);
    size_t at_zero = prng_below(rng, 4) == 0 ? n : prng_below(rng, 5);
    int calls = prng_below(rng, 2) == 0;
    unsigned char call[MAX_ENTRIES];
    uint32_t native = 0, il = 0;

    for (size_t i = 0; i < n; i++) {
        if (i >= at_zero)
            native += prng_below(rng, 4) == 0 ? 0 : 1 + prng_below(rng, 6);
        il = random_il(rng, il, i == 0);
        call[i] = calls && prng_below(rng, 4) == 0;
        if (call[i] && prng_below(rng, 2) == 0)
            il = P;
        e[i].il_offset = il;
        e[i].native_start = native;
    }
    *code_size = native + (prng_below(rng, 3) == 0 ? 0 : 1 + prng_below(rng, 6));
    for (size_t i = 0; i + 1 < n; i++) {
        size_t j = i + 1;
        while (j < n - 1 && call[j])
            j++;
        e[i].native_end = e[j].native_start;
    }
    e[n - 1].native_end = prng_below(rng, 8) == 0 ? 0 : *code_size;

    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!call[i] || e[i].il_offset == P)
            e[kept++] = e[i];

    /* Insertion sort: stable, as libilmap resolves the runtime's ties. */
    for (size_t i = 1; i < kept; i++) {
        ilmap_native_entry x = e[i];
        size_t j = i;
        while (j > 0 && compare_export(&x, &e[j - 1]) < 0) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
    return kept;
}

/* Anything from_entries accepts: disjoint ranges with a non-zero end
 * picked from a random tiling of the code, empty ranges, and end-0
 * entries (PROLOG or not) at any start from 0 to the code size; specials
 * everywhere, repeated IL offsets. Then, sometimes, one entry broken in
 * one of the ways the runtime never produces. */
static size_t arbitrary(prng *rng, ilmap_native_entry *e, uint32_t *code_size)
{
    uint32_t size = prng_below(rng, 8) == 0 ? 0 : prng_below(rng, 48);
    uint32_t cut[MAX_ENTRIES][2];
    size_t ncuts = 0, n = 0, want = prng_below(rng, MAX_ENTRIES + 1);
    uint32_t pos = 0, il = 0;

    while (ncuts < MAX_ENTRIES) {
        pos += prng_below(rng, 3);
        uint32_t len = 1 + prng_below(rng, 6);
        if (pos + len > size)
            break;
        cut[ncuts][0] = pos;
        cut[ncuts][1] = pos + len;
        ncuts++;
        pos += len;
    }
    for (size_t c = 0; c < ncuts && n < want; c++)
        if (prng_below(rng, 3) != 0) {
            il = random_il(rng, il, n == 0);
            e[n].il_offset = il;
            e[n].native_start = cut[c][0];
            e[n].native_end = cut[c][1];
            n++;
        }
    while (n < want) {
        uint32_t r = prng_below(rng, 10);
        il = random_il(rng, il, 0);
        e[n].il_offset = r == 0 ? P : il;
        e[n].native_start = prng_below(rng, size + 1);
        e[n].native_end = 0;
        if (r >= 7 && e[n].native_start > 0)
            e[n].native_end = e[n].native_start; /* empty */
        n++;
    }
    shuffle(rng, e, n);

    if (n > 0 && prng_below(rng, 4) == 0) {
        size_t i = prng_below(rng, (uint32_t)n);
        uint32_t k = 1 + prng_below(rng, 4);
        switch (prng_below(rng, 5)) {
        case 0: e[i].native_start = size + k; break;                           /* start past */
        case 1: e[i].native_end = size + k; break;                             /* end past */
        case 2: e[i].native_start = e[i].native_end + k; break;                /* start > end */
        case 3: e[i] = e[prng_below(rng, (uint32_t)n)]; break;             /* duplicate */
        default: e[i].native_end = e[i].native_end ? e[i].native_end + k : 0; /* longer */
        }
    }
    *code_size = size;
    return n;
}

static void run_entries_case(prng *sub, long *accepted, long *open_ends)
{
    static ilmap_native_entry e[MAX_ENTRIES];
    uint32_t code_size = 0;
    int shaped = prng_below(sub, 2) == 0;
    size_t n = shaped ? runtime_shaped(sub, e, &code_size) : arbitrary(sub, e, &code_size);

    if (shaped && prng_below(sub, 2) == 0)
        shuffle(sub, e, n);
    for (size_t i = 0; i < n; i++)
        if (e[i].native_end == 0 && e[i].il_offset != P) {
            (*open_ends)++;
            break;
        }
    if (check_entries(shaped ? "runtime-shaped" : "arbitrary", e, n, code_size))
        (*accepted)++;
    else if (shaped) {
        /* The runtime's arrays overlap only by nesting a PROLOG range in
         * another with the same end, which is accepted. */
        test_checks++;
        FAIL("runtime-shaped array refused");
    }
}

/* Tallies of the random cases, for the summary and its checks. */
typedef struct tallies {
    long exact_in_process, exact_dac; /* compositions checked as exact */
    long nested;                      /* exports with a PROLOG range nested in another */
    long refused_unknown;             /* inputs carrying the end-unknown bit */
} tallies;

/* A boundary list carrying NATIVE_END_OFFSET_UNKNOWN is refused, in both
 * flavours, with the first such index (doc/native-maps.md#boundaries). */
static void check_unknown_refused(const ilmap_boundary *jit, size_t n, uint32_t code_size,
                                  const ilmap *map, size_t at)
{
    size_t bad = 12345;
    ilmap_status st = ilmap_native_validate_boundaries(jit, n, code_size, &bad);

    test_checks++;
    if (st != ILMAP_E_INVALID_ARG || bad != at)
        FAIL("end-unknown input: validate = %s bad %zu, want invalid argument bad %zu",
             ilmap_status_str(st), bad, at);
    for (int dac = 0; dac < 2; dac++) {
        ilmap_native *m = (ilmap_native *)(uintptr_t)1;
        st = ilmap_native_build(jit, n, map, code_size, dac ? ILMAP_DAC : 0, &m);
        test_checks++;
        if (st != ILMAP_E_INVALID_ARG || m != NULL)
            FAIL("end-unknown input: build = %s", ilmap_status_str(st));
        ilmap_native_free(m);
    }
}

/* One case: both flavours against the model, from_entries on the
 * in-process export, composition when there are no call instructions.
 * A third of the cases are a profiler's rewrite (probe_shaped). */
static void run_case(prng *sub, size_t n_wanted, tallies *t)
{
    static const unsigned kernels[] = { 0, ILMAP_NO_AVX2, ILMAP_PORTABLE };
    static ilmap_boundary jit[MAX_JIT];
    static model want;
    ilmap_entry entries[MAX_MAP];
    uint32_t code_size;
    size_t n, mapn;
    int no_calls, use_map;

    if (n_wanted == 0 && prng_below(sub, 3) == 0) {
        n = probe_shaped(sub, jit, entries, &mapn, &code_size);
        no_calls = 0;
        use_map = prng_below(sub, 8) != 0;
    } else {
        no_calls = prng_below(sub, 3) == 0;
        n = random_jit(sub, jit, n_wanted, &code_size, no_calls);
        mapn = random_map(sub, entries);
        use_map = prng_below(sub, 4) != 0;
    }
    ilmap *map = NULL;
    if (use_map && ilmap_create(entries, mapn, 0, &map) != ILMAP_OK) {
        FAIL("ilmap_create failed");
        return;
    }
    unsigned kernel = kernels[prng_below(sub, 3)];

    /* Now and then one boundary carries the runtime's own end-unknown bit. */
    if (n > 0 && prng_below(sub, 50) == 0) {
        size_t at = prng_below(sub, (uint32_t)n);
        jit[at].source |= UNKNOWN;
        check_unknown_refused(jit, n, code_size, map, at);
        t->refused_unknown++;
        ilmap_free(map);
        return;
    }

    for (int dac = 0; dac < 2; dac++) {
        ilmap_native *lib = NULL;
        const char *what = dac ? "DAC" : "in-process";

        model_build(jit, n, use_map ? entries : NULL, mapn, code_size, dac, &want);
        ilmap_status st = ilmap_native_build(jit, n, map, code_size,
                                             (dac ? ILMAP_DAC : 0) | kernel, &lib);
        test_checks++;
        if (st != ILMAP_OK) {
            FAIL("%s: build = %s", what, ilmap_status_str(st));
            continue;
        }
        check_all(what, lib, &want);
        if (dac == 0)
            check_from_entries(lib, &t->nested);
        ilmap_native_free(lib);
        if (no_calls && map)
            check_compose(jit, n, map, code_size, dac ? ILMAP_DAC : 0,
                          dac ? &t->exact_dac : &t->exact_in_process);
    }
    ilmap_free(map);
}

int main(int argc, char **argv)
{
    prng rng;
    tallies t = { 0, 0, 0, 0 };

    rng = prng_init(test_seed(argc, argv, 0x6E61746976652121ull));
    for (int c = 0; c < CASES + LARGE_CASES && reported < 20; c++) {
        prng sub;
        case_seed = prng_next(&rng);
        sub = prng_init(case_seed);
        /* The last few are large: several layers of rank index, crowded
         * buckets. */
        run_case(&sub, c < CASES ? 0 : MAX_JIT, &t);
    }
    printf("compositions checked as exact: %ld in-process, %ld DAC\n", t.exact_in_process,
           t.exact_dac);
    printf("exports with a PROLOG range nested in another: %ld; end-unknown inputs refused: %ld\n",
           t.nested, t.refused_unknown);

    /* Exported arrays made directly, end-0 entries wherever they stand. */
    long accepted = 0, open_ends = 0;
    for (int c = 0; c < ENTRY_CASES && reported < 20; c++) {
        prng sub;
        case_seed = prng_next(&rng);
        sub = prng_init(case_seed);
        run_entries_case(&sub, &accepted, &open_ends);
    }
    printf("arrays: %d, accepted %ld, with an open (end 0, not PROLOG) entry %ld\n",
           ENTRY_CASES, accepted, open_ends);
    printf("refused: %ld code size, %ld bad range, %ld overlap\n",
           refusals[ILMAP_E_CODE_SIZE], refusals[ILMAP_E_BAD_RANGE], refusals[ILMAP_E_OVERLAP]);
    CHECK(accepted > ENTRY_CASES / 2);
    CHECK(refusals[ILMAP_E_CODE_SIZE] > 0 && refusals[ILMAP_E_BAD_RANGE] > 0 &&
          refusals[ILMAP_E_OVERLAP] > 0);
    CHECK(open_ends > ENTRY_CASES / 4);
    CHECK(t.exact_in_process > CASES / 20);
    CHECK(t.exact_dac > CASES / 20);
    CHECK(t.nested > CASES / 50);
    CHECK(t.refused_unknown > CASES / 200);
    return test_finish("native-random");
}
