/*
 * The version store's address index (lib/versions/addr_index.c) on its
 * own, against a brute-force model, and the slotted search it stands on
 * (lib/common/search.h).
 *
 *  1. search_slot_rank_u16/u32 against a count of the keys <= x, for
 *     random ascending keys over random spans, every x of small spans and
 *     a sample of big ones, with the shift search_slot_shift() picks and
 *     with fixed ones (the leaves' 256-byte slots).
 *  2. The index: random ranges (1 byte to several pages, packed densely
 *     in a few pages so that slots hold many starts) inserted and removed
 *     in transactions, some failing on an allocation (TXN_TEST_HOOKS: the
 *     transaction is then abandoned and the published root must be
 *     intact). After each: ax_candidate() at every range's first and last
 *     byte, the bytes around them and random addresses, with the prefetch
 *     hint it was given; ax_overlaps() for random spans, both against the
 *     model (doc/rejit.md#store-lookup: the candidate is the range with
 *     the greatest start at or below the address in its page).
 *  3. The per-page limit (AX_LEAF_MAX): the build with a limit of 40
 *     (test/meson.build) fills a page until ILMAP_E_LIMIT, then frees one
 *     range and adds one again.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "versions/addr_index.h"
#include "versions/txn.h"

/* ---- 1. The slotted search ------------------------------------------- */

static uint32_t count_le_u32(const uint32_t *keys, uint32_t n, uint32_t x)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += keys[i] <= x;
    return c;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void slots_case(prng *rng, uint32_t span, uint32_t n, int fixed_shift)
{
    uint32_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint16_t *keys16 = malloc((n ? n : 1) * sizeof *keys16);
    if (!keys || !keys16) {
        fprintf(stderr, "out of memory\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    /* n distinct ascending keys below span: n draws, sorted, duplicates
     * dropped. */
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (uint32_t)(prng_next(rng) % span);
    qsort(keys, n, sizeof *keys, cmp_u32);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k == 0 || keys[i] != keys[k - 1])
            keys[k++] = keys[i];
    }
    n = k;
    for (uint32_t i = 0; i < n; i++)
        keys16[i] = (uint16_t)keys[i];

    uint32_t nslots = 0;
    unsigned shift = search_slot_shift(span, n, &nslots);
    if (fixed_shift >= 0) {
        shift = (unsigned)fixed_shift;
        nslots = (uint32_t)(((uint64_t)span - 1u) >> shift) + 1u;
    }
    uint32_t *below = malloc(((size_t)nslots + 1u) * sizeof *below);
    uint16_t *below16 = malloc(((size_t)nslots + 1u) * sizeof *below16);
    if (!below || !below16) {
        fprintf(stderr, "out of memory\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    /* At most one slot per key (at least one slot; shifts stop at 31, so
     * a span over 2^31 has two). */
    uint32_t most_slots = n > 1 ? n : 1;
    if (span > 0x80000000u && most_slots < 2)
        most_slots = 2;
    CHECK(fixed_shift >= 0 || nslots <= most_slots);
    CHECK((((uint64_t)nslots) << shift) >= span);
    search_slots_u32(keys, 1, n, shift, nslots, below);
    CHECK_EQ_U32(below[nslots], n);
    int small = span <= 70000u;
    if (small)
        search_slots_u16(keys16, 1, n, shift, nslots, below16);
    uint32_t probes = span <= 5000u ? span : 5000u;
    int failed = 0;
    for (uint32_t p = 0; p < probes && !failed; p++) {
        uint32_t x = span <= 5000u ? p : (uint32_t)(prng_next(rng) % span);
        if (p < n && span > 5000u)
            x = keys[p] - (p & 1u && keys[p] > 0); /* keys and the byte before */
        uint32_t want = count_le_u32(keys, n, x);
        uint32_t got = search_slot_rank_u32(keys, 1, below, shift, x);
        if (got != want) {
            failed = 1;
            fprintf(stderr, "slots u32: span %" PRIu32 " n %" PRIu32 " shift %u x %" PRIu32
                            ": %" PRIu32 ", want %" PRIu32 "\n",
                    span, n, shift, x, got, want);
        }
        if (small && x <= 0xFFFFu) {
            uint32_t got16 = search_slot_rank_u16(keys16, 1, below16, shift, (uint16_t)x);
            if (got16 != want) {
                failed = 1;
                fprintf(stderr, "slots u16: span %" PRIu32 " n %" PRIu32 " x %" PRIu32 "\n",
                        span, n, x);
            }
        }
    }
    CHECK(!failed);
    free(keys);
    free(keys16);
    free(below);
    free(below16);
}

static void test_slots(uint64_t seed)
{
    prng rng = prng_init(seed);
    static const uint32_t spans[] = { 1, 2, 3, 17, 64, 255, 256, 257, 4096, 65536, 100000,
                                      0x7FFFFFFFu, 0xFFFFFFFFu };
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        uint32_t span = spans[i];
        uint32_t most = span < 3000u ? span : 3000u;
        slots_case(&rng, span, 0, -1);
        slots_case(&rng, span, 1, -1);
        slots_case(&rng, span, most, -1);
        for (int r = 0; r < 20; r++)
            slots_case(&rng, span, prng_below(&rng, most) + 1u, -1);
        if (span == 65536u) { /* the leaves' layout: 256 slots of 256 bytes */
            for (int r = 0; r < 20; r++)
                slots_case(&rng, span, prng_below(&rng, most) + 1u, (int)AX_SLOT_BITS);
        }
    }
}

/* ---- 2. The index against a model ------------------------------------ */

#define PAGES 6u
#define MAX_RANGES 4000u

static uintptr_t base_addr(void)
{
    return TEST_ID_BASE(0x7F1234560000ull, 0x30000000u);
}

typedef struct model_range {
    uintptr_t start;
    size_t size;
    uint32_t lines;
    int live;
} model_range;

static model_range ranges[MAX_RANGES];
static uint32_t nranges;

/* A ref: the range's id in the bits above the tag (as a body pointer
 * would be), its index tag 0..7 below. */
static uintptr_t ref_of(uint32_t id)
{
    return ((uintptr_t)(id + 1u) << 3) | (id & AX_TAG_MASK);
}

static void bounds_of(uintptr_t ref, uintptr_t *start, size_t *size)
{
    uint32_t id = (uint32_t)(ref >> 3) - 1u;
    *start = ranges[id].start;
    *size = ranges[id].size;
}

/* The record hints the tests' ranges get (addr_index.h): any value a
 * check can tell apart, never 0. */
static uintptr_t record_of(uintptr_t ref, uintptr_t address)
{
    return (address ^ ((uintptr_t)ref << 12)) | 1u;
}

static uint32_t hint_of(uint32_t lines)
{
    return lines < 1u ? 1u : lines > AX_MAX_LINES ? AX_MAX_LINES : lines;
}

static int model_overlaps(uintptr_t start, size_t size)
{
    for (uint32_t i = 0; i < nranges; i++) {
        if (ranges[i].live && start < ranges[i].start + ranges[i].size &&
            ranges[i].start < start + size)
            return 1;
    }
    return 0;
}

/* The range whose in-page start (its start, or the page's first byte if
 * it began on an earlier page) is the greatest at or below address, among
 * those touching address's page: what ax_candidate() returns. */
static uintptr_t model_candidate(uintptr_t address, uint32_t *lines)
{
    uintptr_t page = address & ~(uintptr_t)0xFFFFu;
    uintptr_t best_at = 0, best = 0;
    *lines = 0;
    for (uint32_t i = 0; i < nranges; i++) {
        const model_range *r = &ranges[i];
        if (!r->live || r->start + r->size <= page || r->start > address)
            continue;
        uintptr_t at = r->start > page ? r->start : page;
        if (!best || at > best_at) {
            best_at = at;
            best = ref_of(i);
            *lines = hint_of(r->lines);
        }
    }
    return best;
}

/* A slot's record hint: from the range holding the slot's first byte,
 * 0 when none does. */
static uintptr_t model_record(uintptr_t address)
{
    uintptr_t first = address & ~(((uintptr_t)1u << AX_SLOT_BITS) - 1u);
    for (uint32_t i = 0; i < nranges; i++) {
        const model_range *r = &ranges[i];
        if (r->live && first - r->start < r->size)
            return record_of(ref_of(i), first);
    }
    return 0;
}

/* The index's record hint of address's slot (0: none, or no leaf). */
static uintptr_t index_record(ax_root root, uintptr_t address)
{
    const ax_leaf *leaf = ax_page(root, address);
    return leaf ? ax_leaf_record(leaf, address) : 0;
}

static long fail_countdown = -1;

static int alloc_hook(size_t size)
{
    (void)size;
    return fail_countdown >= 0 && fail_countdown-- == 0;
}

static void free_retired(vt_txn *tx)
{
    size_t n = 0;
    retire_item *items = vt_txn_take_retired(tx, &n);
    for (size_t i = 0; i < n; i++)
        free(items[i].ptr);
    free(items);
}

static int probe(ax_root root, uintptr_t address, const char *what, uint32_t tx_no)
{
    uint32_t want_lines, got_lines;
    uintptr_t want = model_candidate(address, &want_lines);
    uintptr_t got = ax_candidate(root, address, &got_lines);
    if (got != want || got_lines != want_lines) {
        fprintf(stderr,
                "transaction %" PRIu32 ", %s 0x%" PRIxPTR ": candidate 0x%" PRIxPTR
                " (lines %" PRIu32 "), want 0x%" PRIxPTR " (lines %" PRIu32 ")\n",
                tx_no, what, address, got, got_lines, want, want_lines);
        return 0;
    }
    uintptr_t want_record = model_record(address), got_record = index_record(root, address);
    if (got_record != want_record) {
        fprintf(stderr,
                "transaction %" PRIu32 ", %s 0x%" PRIxPTR ": record hint 0x%" PRIxPTR
                ", want 0x%" PRIxPTR "\n",
                tx_no, what, address, got_record, want_record);
        return 0;
    }
    return 1;
}

static int check_index(ax_root root, prng *rng, uint32_t tx_no)
{
    uintptr_t base = base_addr();
    /* Every range while few, then a sample (the model is a scan). */
    uint32_t step = nranges > 200u ? nranges / 200u : 1u;
    for (uint32_t i = prng_below(rng, step); i < nranges; i += step) {
        const model_range *r = &ranges[i];
        if (!r->live)
            continue;
        uintptr_t last = r->start + r->size - 1u;
        if (!probe(root, r->start, "start", tx_no) || !probe(root, last, "last", tx_no) ||
            !probe(root, r->start - 1u, "before", tx_no) || !probe(root, last + 1u, "after", tx_no))
            return 0;
    }
    for (int k = 0; k < 300; k++) {
        uintptr_t a = base - 0x10000u + (uintptr_t)(prng_next(rng) % ((PAGES + 2u) * 0x10000u));
        if (!probe(root, a, "random", tx_no))
            return 0;
    }
    for (int k = 0; k < 100; k++) {
        uintptr_t s = base + (uintptr_t)(prng_next(rng) % (PAGES * 0x10000u));
        size_t z = 1u + prng_below(rng, k % 10 == 0 ? 0x30000u : 700u);
        if (ax_overlaps(root, s, z, bounds_of) != model_overlaps(s, z)) {
            fprintf(stderr, "transaction %" PRIu32 ": ax_overlaps(0x%" PRIxPTR ", %zu) = %d\n",
                    tx_no, s, z, !model_overlaps(s, z));
            return 0;
        }
    }
    return 1;
}

static void test_index(uint64_t seed, uint32_t transactions)
{
    prng rng = prng_init(seed);
    ax_root root = { NULL, 0 };
    uintptr_t base = base_addr();
    uint32_t abandoned = 0, inserts = 0, removes = 0;

    nranges = 0;
    memset(ranges, 0, sizeof ranges);
    vt_txn_test_alloc = alloc_hook;
    for (uint32_t t = 1; t <= transactions; t++) {
        vt_txn tx;
        vt_txn_init(&tx, t);
        ax_root draft = root;
        /* model changes of this transaction, undone if it fails */
        uint32_t added[8], dropped[8], nadded = 0, ndropped = 0;
        ilmap_status st = ILMAP_OK;
        fail_countdown = prng_below(&rng, 8) == 0 ? (long)prng_below(&rng, 6) : -1;
        uint32_t ops = 1u + prng_below(&rng, 6);
        for (uint32_t o = 0; o < ops && st == ILMAP_OK; o++) {
            int live = 0;
            for (uint32_t i = 0; i < nranges; i++)
                live += ranges[i].live;
            int remove = live > 0 && (nranges >= MAX_RANGES - 8u || prng_below(&rng, 3) == 0);
            if (remove) {
                uint32_t pick = prng_below(&rng, (uint32_t)live), id = 0;
                for (id = 0; id < nranges; id++) {
                    if (ranges[id].live && pick-- == 0)
                        break;
                }
                st = ax_remove(&tx, &draft, ranges[id].start, ranges[id].size, ref_of(id));
                if (st == ILMAP_OK) {
                    ranges[id].live = 0;
                    dropped[ndropped++] = id;
                    removes++;
                }
            } else {
                /* Mostly small ranges packed into a few pages; a few
                 * spanning pages. */
                uint32_t kind = prng_below(&rng, 20);
                size_t size = kind == 0 ? 0x10000u + prng_below(&rng, 0x20000u)
                              : kind < 8 ? 1u + prng_below(&rng, 32u)
                                         : 1u + prng_below(&rng, 900u);
                uintptr_t start = base + (uintptr_t)(prng_next(&rng) % (PAGES * 0x10000u));
                if (model_overlaps(start, size)) {
                    CHECK(ax_overlaps(draft, start, size, bounds_of));
                    continue;
                }
                CHECK(!ax_overlaps(draft, start, size, bounds_of));
                uint32_t id = nranges;
                ranges[id].start = start;
                ranges[id].size = size;
                ranges[id].lines = prng_below(&rng, AX_MAX_LINES + 3u);
                st = ax_insert(&tx, &draft, start, size, ref_of(id), ranges[id].lines, record_of);
                if (st == ILMAP_OK) {
                    ranges[id].live = 1;
                    nranges++;
                    added[nadded++] = id;
                    inserts++;
                }
            }
        }
        fail_countdown = -1;
        if (st != ILMAP_OK) {
            /* An allocation made to fail, or (the small build) a page
             * full: either way the transaction is abandoned. */
            if (st != ILMAP_E_NOMEM && !(AX_LEAF_MAX <= 1000u && st == ILMAP_E_LIMIT))
                fprintf(stderr, "transaction %" PRIu32 ": status %d\n", t, (int)st);
            CHECK(st == ILMAP_E_NOMEM || (AX_LEAF_MAX <= 1000u && st == ILMAP_E_LIMIT));
            abandoned++;
            vt_txn_abort(&tx);
            /* Undone in reverse: a range added and then removed in
             * this transaction ends not live. */
            for (uint32_t i = 0; i < ndropped; i++)
                ranges[dropped[i]].live = 1;
            for (uint32_t i = 0; i < nadded; i++)
                ranges[added[i]].live = 0;
            /* the published root is untouched */
        } else {
            vt_txn_settle(&tx);
            free_retired(&tx);
            root = draft;
        }
        if (!check_index(root, &rng, t)) {
            CHECK(0);
            break;
        }
    }
    vt_txn_test_alloc = NULL;
    printf("index: %" PRIu32 " transactions, %" PRIu32 " inserts, %" PRIu32
           " removes, %" PRIu32 " abandoned (an allocation made to fail, a page full)\n",
           transactions, inserts, removes, abandoned);
    CHECK(abandoned > 0 && removes > 0);
    ax_destroy(root);
}

/* ---- 3. The per-page limit ------------------------------------------- */

static void test_leaf_limit(void)
{
    if (AX_LEAF_MAX > 1000u)
        return; /* the library's limit (65535) is only reached in the small build */
    ax_root root = { NULL, 0 };
    uintptr_t base = base_addr();
    vt_txn tx;
    ilmap_status st = ILMAP_OK;
    uint32_t added = 0;

    nranges = 0;
    memset(ranges, 0, sizeof ranges);
    vt_txn_init(&tx, 1);
    for (uint32_t i = 0; i <= AX_LEAF_MAX && st == ILMAP_OK; i++) {
        ranges[i].start = base + 3u * i;
        ranges[i].size = 2;
        st = ax_insert(&tx, &root, ranges[i].start, 2, ref_of(i), 1, record_of);
        if (st == ILMAP_OK) {
            ranges[i].live = 1;
            added++;
            nranges = i + 1;
        }
    }
    CHECK(st == ILMAP_E_LIMIT);
    CHECK_EQ_U32(added, AX_LEAF_MAX);
    /* The next page is another leaf: no limit there. */
    CHECK(ax_insert(&tx, &root, base + 0x10000u, 4, ref_of(nranges), 1, record_of) == ILMAP_OK);
    ranges[nranges].start = base + 0x10000u;
    ranges[nranges].size = 4;
    ranges[nranges].live = 1;
    nranges++;
    /* One out, one in. */
    CHECK(ax_remove(&tx, &root, ranges[5].start, 2, ref_of(5)) == ILMAP_OK);
    ranges[5].live = 0;
    CHECK(ax_insert(&tx, &root, ranges[5].start, 1, ref_of(5), 1, record_of) == ILMAP_OK);
    ranges[5].size = 1;
    ranges[5].live = 1;
    prng rng = prng_init(7);
    CHECK(check_index(root, &rng, 0));
    vt_txn_settle(&tx);
    free_retired(&tx);
    ax_destroy(root);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0xADD2E55u);
    uint32_t transactions = test_light() ? 300u : 1500u;

    test_slots(seed);
    test_index(seed + 1, transactions);
    test_leaf_limit();
    return test_finish(AX_LEAF_MAX > 1000u ? "test-addr-index" : "test-addr-index-small-leaves");
}
