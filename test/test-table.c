/*
 * The copy-on-write B+tree (lib/versions/table.c) on its own, against a
 * brute-force model: random inserts, replaces and removes in transactions
 * of random sizes, some aborted, some failing on an allocation (which the
 * test makes fail on demand: test/meson.build builds table.c and txn.c
 * into this program with TXN_TEST_HOOKS). After every transaction: the
 * records (a full walk), floor / find / seek on keys present, absent and
 * out of range, the record count, and the tree's shape rules (table.h),
 * for tables of 1-, 2- and 3-word keys up to 200,000 records. A few old
 * published versions stay alive and are checked again until their turn to
 * be retired, when the nodes retired since are freed (ASan builds catch a
 * node freed too early or never). Then the cost of one insert into big
 * tables: bytes allocated, bounded by the depth, not by the size.
 *
 * The same source is built twice: with the library's node sizes, and with
 * nodes of 8 (test/meson.build), where a few thousand records make a deep
 * tree and the depth limit (ILMAP_E_LIMIT) is reached.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "versions/table.h"
#include "versions/txn.h"

/* ---- Allocation hook (txn.c, TXN_TEST_HOOKS) --------------------------- */

static long fail_countdown = -1; /* < 0: never fail */
static uint64_t alloc_bytes;     /* node bytes handed out, since reset */

static int alloc_hook(size_t size)
{
    if (fail_countdown >= 0 && fail_countdown-- == 0)
        return 1;
    alloc_bytes += size;
    return 0;
}

/* ---- The model --------------------------------------------------------- */

/* Key j of the key space, in key order; the last word steps by 4, so that
 * key + 1 and key - 1 (in the last word) are absent and between keys. */
static void key_of(vt_shape s, uint32_t j, uint64_t *key)
{
    switch (s.key_words) {
    case 1:
        key[0] = 1000 + (uint64_t)j * 4;
        break;
    case 2:
        key[0] = 1 + j / 50;
        key[1] = 2 + (uint64_t)(j % 50) * 4;
        break;
    default:
        key[0] = j / 2500;
        key[1] = (j / 50) % 50;
        key[2] = 2 + (uint64_t)(j % 50) * 4;
        break;
    }
}

static void record_of(vt_shape s, uint32_t j, uint64_t payload, uint64_t *rec)
{
    key_of(s, j, rec);
    for (uint32_t w = s.key_words; w < s.rec_words; w++)
        rec[w] = payload * 0x9E3779B97F4A7C15ull + w;
}

typedef struct model {
    vt_shape s;
    uint32_t space;     /* key indexes [0, space) */
    uint8_t *present;
    uint64_t *payload;
    uint64_t count;
    /* The undo log of the running transaction. */
    uint32_t *undo_j;
    uint8_t *undo_present;
    uint64_t *undo_payload;
    size_t nundo, undo_cap;
} model;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    return p;
}

static void model_log(model *m, uint32_t j)
{
    if (m->nundo == m->undo_cap) {
        m->undo_cap = m->undo_cap ? 2 * m->undo_cap : 256;
        m->undo_j = realloc(m->undo_j, m->undo_cap * sizeof *m->undo_j);
        m->undo_present = realloc(m->undo_present, m->undo_cap);
        m->undo_payload = realloc(m->undo_payload, m->undo_cap * sizeof *m->undo_payload);
        if (!m->undo_j || !m->undo_present || !m->undo_payload)
            exit(TEST_EXIT_SETUP_FAILURE);
    }
    m->undo_j[m->nundo] = j;
    m->undo_present[m->nundo] = m->present[j];
    m->undo_payload[m->nundo] = m->payload[j];
    m->nundo++;
}

static void model_undo(model *m)
{
    while (m->nundo > 0) {
        m->nundo--;
        uint32_t j = m->undo_j[m->nundo];
        m->count += (uint64_t)m->undo_present[m->nundo] - m->present[j];
        m->present[j] = m->undo_present[m->nundo];
        m->payload[j] = m->undo_payload[m->nundo];
    }
}

/* The model's records, sorted: the brute-force answer to every query. */
typedef struct rows {
    uint64_t *words;
    size_t n;
    vt_shape s;
} rows;

static rows model_rows(const model *m)
{
    rows r = { xcalloc((size_t)m->count * m->s.rec_words, sizeof(uint64_t)), 0, m->s };

    for (uint32_t j = 0; j < m->space; j++) {
        if (m->present[j])
            record_of(m->s, j, m->payload[j], r.words + r.n++ * m->s.rec_words);
    }
    return r;
}

/* How many rows have a key < key (<= key when or_equal). */
static size_t rows_rank(const rows *r, const uint64_t *key, int or_equal)
{
    size_t lo = 0, hi = r->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = vt_cmp(r->words + mid * r->s.rec_words, key, r->s.key_words);
        if (c < 0 || (or_equal && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- Checks ------------------------------------------------------------ */

static const char *current_case = "";

static void fail_case(const char *what)
{
    test_failures++;
    fprintf(stderr, "%s: %s\n", current_case, what);
}

#define EXPECT(cond, what)                                                                   \
    do {                                                                                     \
        test_checks++;                                                                       \
        if (!(cond)) {                                                                       \
            fail_case(what);                                                                 \
            return 0;                                                                        \
        }                                                                                    \
    } while (0)

typedef struct shape_stats {
    uint64_t nodes, fresh;
} shape_stats;

/* The shape rules of table.h under h; *first receives its first key. */
static int check_node(vt_shape s, const vt_head *h, int is_root, int edge, uint64_t gen,
                      uint64_t *records, shape_stats *st)
{
    st->nodes++;
    st->fresh += h->gen == gen;
    EXPECT(h->gen <= gen, "node from a future transaction");
    if (h->height == 0) {
        const vt_leaf *leaf = vt_as_leaf(h);
        EXPECT(h->count >= 1 && h->count <= VT_LEAF_CAP, "leaf count out of range");
        EXPECT(is_root || edge || h->count >= VT_LEAF_CAP / 4, "leaf under a quarter full");
        for (uint32_t i = 1; i < h->count; i++)
            EXPECT(vt_cmp(vt_record(leaf, s, i - 1), vt_record(leaf, s, i), s.key_words) < 0,
                   "leaf records out of order");
        *records = h->count;
        return 1;
    }

    const vt_node *n = vt_as_node(h);
    uint64_t sum = 0;
    EXPECT(h->count >= 1 && h->count <= VT_FANOUT, "node count out of range");
    EXPECT(!is_root || h->height == 1 || h->count >= 2, "root of one child above height 1");
    EXPECT(is_root || edge || h->count >= VT_FANOUT / 4, "node under a quarter full");
    for (uint32_t i = 0; i < h->count; i++) {
        const vt_head *c = vt_child(n, i);
        uint64_t below;
        EXPECT(c->height + 1 == h->height, "child of the wrong height");
        if (!check_node(s, c, 0, edge && i + 1 == h->count, gen, &below, st))
            return 0;
        const uint64_t *first = c->height ? vt_node_key(s, vt_as_node(c), 0)
                                          : vt_record(vt_as_leaf(c), s, 0);
        EXPECT(vt_cmp(vt_node_key(s, n, i), first, s.key_words) == 0,
               "separator is not the child's first key");
        if (i > 0)
            EXPECT(vt_cmp(vt_node_key(s, n, i - 1), vt_node_key(s, n, i), s.key_words) < 0,
                   "separators out of order");
        sum += below;
    }
    EXPECT(sum == n->records, "node record count is not its children's sum");
    *records = sum;
    return 1;
}

/* Everything about table t against the rows; fresh: nodes of gen expected
 * (< 0: not checked); walk: the full walk too. */
static int check_table(const vt_top *t, const rows *r, uint64_t gen, int64_t fresh, int walk,
                       prng *rng)
{
    vt_shape s = r->s;
    vt_cursor cur;
    uint64_t key[3], zero[3] = { 0, 0, 0 };
    const uint64_t *got;

    EXPECT(vt_records(t) == r->n, "record count");
    if (t) {
        shape_stats st = { 0, 0 };
        uint64_t below;
        EXPECT(t->head.height >= 1 && t->head.height < VT_MAX_DEPTH, "root height");
        if (t->head.count == 0) {
            EXPECT(t->head.height == 1 && t->records == 0, "empty root");
            st.fresh = t->head.gen == gen;
        } else if (!check_node(s, &t->head, 1, 1, gen, &below, &st)) {
            return 0;
        }
        if (fresh >= 0 && (int64_t)st.fresh != fresh)
            fprintf(stderr, "fresh %" PRIu64 " in the tree, %" PRId64 " allocated\n", st.fresh, fresh);
        EXPECT(fresh < 0 || (int64_t)st.fresh == fresh, "fresh nodes unreachable or missing");
    }

    /* The full walk. */
    size_t i = 0;
    for (got = vt_seek(s, t, zero, &cur); walk && got; got = vt_next(s, &cur), i++) {
        EXPECT(i < r->n, "walk longer than the model");
        EXPECT(memcmp(got, r->words + i * s.rec_words, s.rec_words * sizeof *got) == 0,
               "walk: wrong record");
    }
    EXPECT(!walk || i == r->n, "walk shorter than the model");
    EXPECT(!walk || vt_next(s, &cur) == NULL, "walk restarts after its end");

    /* Point queries: every record of small tables, a sample of big ones,
     * each exactly, just below and just above; and out of range. */
    size_t queries = r->n <= 512 ? r->n : 512;
    for (size_t q = 0; q < queries + 2; q++) {
        if (q < queries) {
            size_t at = r->n <= 512 ? q : prng_below(rng, (uint32_t)r->n);
            memcpy(key, r->words + at * s.rec_words, s.key_words * sizeof *key);
        } else {
            for (uint32_t w = 0; w < 3; w++)
                key[w] = q == queries ? 0 : UINT64_MAX;
        }
        for (int delta = -1; delta <= 1; delta++) {
            uint64_t k[3];
            memcpy(k, key, sizeof k);
            if (q < queries)
                k[s.key_words - 1] += (uint64_t)(int64_t)delta;
            size_t le = rows_rank(r, k, 1), lt = rows_rank(r, k, 0);
            const uint64_t *want_floor = le ? r->words + (le - 1) * s.rec_words : NULL;
            const uint64_t *want_seek = lt < r->n ? r->words + lt * s.rec_words : NULL;

            got = vt_floor(s, t, k);
            EXPECT(!got == !want_floor, "floor: found or not");
            EXPECT(!got || memcmp(got, want_floor, s.rec_words * 8) == 0, "floor: record");
            got = vt_find(s, t, k);
            EXPECT(!got == !(le > lt), "find: found or not");
            EXPECT(!got || memcmp(got, want_floor, s.rec_words * 8) == 0, "find: record");
            got = vt_seek(s, t, k, &cur);
            EXPECT(!got == !want_seek, "seek: found or not");
            for (size_t step = 0; got && step < 3; step++) {
                EXPECT(lt + step < r->n, "seek/next: past the end");
                EXPECT(memcmp(got, r->words + (lt + step) * s.rec_words, s.rec_words * 8) == 0,
                       "seek/next: record");
                got = vt_next(s, &cur);
            }
        }
    }
    return 1;
}

/* ---- Versions and reclamation ------------------------------------------ */

#define KEEP_MAX 3

typedef struct version {
    const vt_top *root;
    rows rows;
    uint64_t number;
} version;

typedef struct batch {
    retire_item *items;
    size_t count;
    uint64_t number; /* the version whose nodes these are */
} batch;

typedef struct world {
    vt_shape s;
    model m;
    vt_top *published;
    uint64_t number; /* of the published version */
    uint64_t gen;
    version kept[KEEP_MAX];
    size_t nkept;
    batch *batches;
    size_t nbatches, batch_cap;
    uint64_t limits; /* inserts refused with ILMAP_E_LIMIT */
    prng rng;
} world;

static void free_batches(world *w)
{
    uint64_t oldest = w->nkept ? w->kept[0].number : w->number;
    size_t keep = 0;

    for (size_t b = 0; b < w->nbatches; b++) {
        if (w->batches[b].number < oldest) {
            for (size_t i = 0; i < w->batches[b].count; i++)
                free(w->batches[b].items[i].ptr);
            free(w->batches[b].items);
        } else {
            w->batches[keep++] = w->batches[b];
        }
    }
    w->nbatches = keep;
}

static void drop_oldest(world *w)
{
    free(w->kept[0].rows.words);
    memmove(w->kept, w->kept + 1, (w->nkept - 1) * sizeof *w->kept);
    w->nkept--;
    free_batches(w);
}

/* ---- Transactions ------------------------------------------------------ */

/* One random operation in the draft; 0 when it failed on an allocation
 * (the transaction must be aborted). */
static int random_op(world *w, vt_txn *tx, vt_top **draft, unsigned insert_pct,
                     unsigned remove_pct)
{
    model *m = &w->m;
    uint32_t j = prng_below(&w->rng, m->space);
    unsigned dice = prng_below(&w->rng, 100);
    uint64_t rec[VT_MAX_WORDS];
    ilmap_status st;

    if (dice >= insert_pct) {
        /* Mostly a present key (found by a scan, so that shrinking to
         * empty does not wait on random hits), else any. */
        for (uint32_t steps = 0; m->count && !m->present[j] && (dice & 3) && steps < m->space;
             steps++)
            j = j + 1 < m->space ? j + 1 : 0;
    }
    if (dice < insert_pct) {
        /* An absent key near j (inserts must not repeat a key). */
        for (uint32_t tries = 0; m->present[j] && tries < 64; tries++)
            j = j + 1 < m->space ? j + 1 : 0;
        if (m->present[j])
            return 1;
        uint64_t payload = prng_next(&w->rng);
        record_of(w->s, j, payload, rec);
        vt_top *before = *draft;
        st = vt_insert(tx, w->s, draft, rec);
        if (st == ILMAP_E_LIMIT) {
            w->limits++;
            CHECK(*draft == before);
            CHECK(before && before->head.height + 1 == VT_MAX_DEPTH);
            return 1;
        }
        if (st == ILMAP_OK) {
            model_log(m, j);
            m->present[j] = 1;
            m->payload[j] = payload;
            m->count++;
        }
    } else if (dice < insert_pct + remove_pct) {
        record_of(w->s, j, 0, rec);
        vt_top *before = *draft;
        st = vt_remove(tx, w->s, draft, rec);
        if (!m->present[j]) {
            CHECK(st == ILMAP_E_NOT_FOUND && *draft == before);
            return 1;
        }
        if (st == ILMAP_OK) {
            model_log(m, j);
            m->present[j] = 0;
            m->count--;
        }
    } else {
        uint64_t payload = prng_next(&w->rng);
        record_of(w->s, j, payload, rec);
        vt_top *before = *draft;
        st = vt_replace(tx, w->s, draft, rec);
        if (!m->present[j]) {
            CHECK(st == ILMAP_E_NOT_FOUND && *draft == before);
            return 1;
        }
        if (st == ILMAP_OK) {
            model_log(m, j);
            m->payload[j] = payload;
        }
    }
    if (st == ILMAP_E_NOMEM)
        return 0;
    CHECK(st == ILMAP_OK);
    return st == ILMAP_OK;
}

/* One transaction of up to max_ops operations; checks everything after. */
static void transaction(world *w, uint32_t max_ops, unsigned insert_pct, unsigned remove_pct)
{
    vt_txn tx;
    vt_top *draft = w->published;
    uint32_t ops = 1 + prng_below(&w->rng, max_ops);
    int ok = 1;

    vt_txn_init(&tx, ++w->gen);
    /* One transaction in 16 runs out of memory somewhere. */
    if (prng_below(&w->rng, 16) == 0)
        fail_countdown = prng_below(&w->rng, 4 * ops + 4);
    for (uint32_t i = 0; i < ops && ok; i++)
        ok = random_op(w, &tx, &draft, insert_pct, remove_pct);
    fail_countdown = -1;

    int abort = !ok || prng_below(&w->rng, 8) == 0;
    if (abort) {
        vt_txn_abort(&tx);
        model_undo(&w->m);
    } else {
        rows r = model_rows(&w->m);
        /* Every fresh node is in the draft (an unreachable one would leak). */
        check_table(draft, &r, tx.gen, (int64_t)tx.nfresh, 1, &w->rng);
        free(r.words);
        w->m.nundo = 0;
        vt_txn_settle(&tx);

        batch b = { NULL, 0, w->number };
        b.items = vt_txn_take_retired(&tx, &b.count);
        if (w->nbatches == w->batch_cap) {
            w->batch_cap = w->batch_cap ? 2 * w->batch_cap : 16;
            w->batches = realloc(w->batches, w->batch_cap * sizeof *w->batches);
            if (!w->batches)
                exit(TEST_EXIT_SETUP_FAILURE);
        }
        w->batches[w->nbatches++] = b;

        /* Now and then the replaced version stays alive a while. */
        if (draft != w->published && prng_below(&w->rng, 4) == 0) {
            if (w->nkept == KEEP_MAX)
                drop_oldest(w);
            version v = { w->published, { NULL, 0, w->s }, w->number };
            /* The model's rows before this transaction: rebuilt from the
             * published table, which the next check compares anyway. */
            v.rows.words = xcalloc(vt_records(w->published) * w->s.rec_words + 1, 8);
            vt_cursor cur;
            uint64_t zero[3] = { 0, 0, 0 };
            for (const uint64_t *p = vt_seek(w->s, w->published, zero, &cur); p;
                 p = vt_next(w->s, &cur))
                memcpy(v.rows.words + v.rows.n++ * w->s.rec_words, p, w->s.rec_words * 8);
            w->kept[w->nkept++] = v;
        }
        w->published = draft;
        w->number++;
        free_batches(w);
    }

    /* The published table (if not just checked as the draft), and the
     * old versions still alive. */
    if (abort) {
        rows r = model_rows(&w->m);
        check_table(w->published, &r, w->gen, -1, 1, &w->rng);
        free(r.words);
    }
    /* Old versions: walked in full while small (sanitizer builds are slow
     * enough), by sampled queries and their shape when big. */
    for (size_t k = 0; k < w->nkept; k++)
        check_table(w->kept[k].root, &w->kept[k].rows, w->gen, -1, w->kept[k].rows.n <= 20000,
                    &w->rng);
    if (w->nkept && prng_below(&w->rng, 3) == 0)
        drop_oldest(w);
}

static void world_init(world *w, vt_shape s, uint32_t space, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->m.s = s;
    w->m.space = space;
    w->m.present = xcalloc(space, 1);
    w->m.payload = xcalloc(space, sizeof *w->m.payload);
    w->rng = prng_init(seed);
}

static void world_free(world *w)
{
    while (w->nkept)
        drop_oldest(w);
    free_batches(w);
    free(w->batches);
    vt_destroy(w->published);
    free(w->m.present);
    free(w->m.payload);
    free(w->m.undo_j);
    free(w->m.undo_present);
    free(w->m.undo_payload);
}

/* ---- Cases ------------------------------------------------------------- */

static char case_name[160];

/* Many small transactions on a small key space: every size from empty to
 * a few levels, splits and merges at every level. */
static void small_churn(vt_shape s, uint64_t seed, uint32_t space, uint32_t txs)
{
    world w;

    world_init(&w, s, space, seed);
    snprintf(case_name, sizeof case_name, "small churn, key %u rec %u, seed 0x%" PRIX64,
             s.key_words, s.rec_words, seed);
    current_case = case_name;
    for (uint32_t t = 0; t < txs && !test_failures; t++) {
        /* Drifts between growing and shrinking, emptying now and then. */
        unsigned phase = (t / 300) % 3;
        transaction(&w, 24, phase == 0 ? 70 : phase == 1 ? 45 : 20, phase == 2 ? 75 : 35);
    }
    world_free(&w);
}

/* Grows to `target` records in transactions of up to 4,096 changes, then
 * shrinks to empty. */
static void big(vt_shape s, uint64_t seed, uint32_t target)
{
    world w;

    world_init(&w, s, target + target / 4, seed);
    snprintf(case_name, sizeof case_name, "big, key %u rec %u, seed 0x%" PRIX64, s.key_words,
             s.rec_words, seed);
    current_case = case_name;
    unsigned depth = 0;
    while (w.m.count < target && !test_failures && w.limits == 0) {
        transaction(&w, 4096, 85, 10);
        if (w.published && w.published->head.height + 1 > depth)
            depth = w.published->head.height + 1;
    }
    printf("  %s: %" PRIu64 " records, depth %u\n", case_name, w.m.count, depth);
    CHECK(depth >= 3);
    while (w.m.count > 0 && !test_failures)
        transaction(&w, 4096, 5, 90);
    if (VT_LEAF_CAP < 64) /* the small build: the limit must have been met */
        CHECK(w.limits > 0);
    world_free(&w);
}

/* Bytes one insert allocates in a table of n records: every leaf and node
 * on the path copied and, at worst, split, plus a new root. */
static void insert_cost(vt_shape s, uint64_t seed, uint32_t n)
{
    world w;

    world_init(&w, s, 2 * n, seed);
    while (w.m.count < n) {
        vt_txn tx;
        vt_top *draft = w.published;
        vt_txn_init(&tx, ++w.gen);
        for (uint32_t i = 0; i < 4096 && w.m.count < n; i++)
            random_op(&w, &tx, &draft, 100, 0);
        vt_txn_settle(&tx);
        batch b = { NULL, 0, w.number++ };
        b.items = vt_txn_take_retired(&tx, &b.count);
        for (size_t i = 0; i < b.count; i++)
            free(b.items[i].ptr);
        free(b.items);
        w.published = draft;
        w.m.nundo = 0;
    }

    uint64_t total = 0, worst = 0;
    const uint32_t inserts = 256;
    for (uint32_t k = 0; k < inserts; k++) {
        vt_txn tx;
        vt_top *draft = w.published;
        vt_txn_init(&tx, ++w.gen);
        alloc_bytes = 0;
        random_op(&w, &tx, &draft, 100, 0);
        uint64_t bytes = alloc_bytes;
        uint32_t height = draft->head.height;
        uint64_t bound = (2 * (uint64_t)height + 1) * vt_node_bytes(s) + 2 * vt_leaf_bytes(s);
        CHECK(bytes <= bound);
        total += bytes;
        worst = bytes > worst ? bytes : worst;
        vt_txn_abort(&tx);
        model_undo(&w.m);
    }
    uint32_t height = w.published->head.height;
    printf("  insert into %u records (key %u, rec %u words), depth %u: %" PRIu64
           " bytes on average, %" PRIu64 " at most\n",
           n, s.key_words, s.rec_words, height + 1, total / inserts, worst);
    /* Logarithmic: random inserts fill leaves ~70%, so 4,096 records are
     * ~90 leaves under one root, 100,000 ~2,200 under two levels. */
    if (VT_FANOUT == 128 && VT_LEAF_CAP == 64)
        CHECK(height + 1 <= (n <= 4096 ? 2u : 3u));
    world_free(&w);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x7AB1E5EEDull);
    static const vt_shape shapes[] = { { 1, 1 }, { 1, 6 }, { 2, 3 }, { 3, 3 }, { 3, 4 } };
    const int small_nodes = VT_LEAF_CAP < 64;

    setvbuf(stdout, NULL, _IOLBF, 0);
    vt_txn_test_alloc = alloc_hook;
    printf("leaf %u records, fanout %u, depth at most %u\n", VT_LEAF_CAP, VT_FANOUT,
           VT_MAX_DEPTH);
    /* Lighter where every instruction is slow (qemu, wine, sanitizers:
     * ILMAP_TEST_ITERATIONS set by test/meson.build for cross builds, or
     * a sanitizer compiled in): the same cases, smaller; trees still
     * reach depth 3. */
    int light = test_light();
    uint32_t churn = light ? 500 : 1500, big1 = light ? 20000 : 200000,
             big2 = light ? 20000 : 50000, cost_n = light ? 30000 : 100000;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        small_churn(shapes[i], seed + i, small_nodes ? 400 : 5000, churn);
    big(shapes[1], seed + 11, small_nodes ? (light ? 15000 : 40000) : big1);
    big(shapes[2], seed + 12, small_nodes ? (light ? 15000 : 40000) : big2);
    big(shapes[4], seed + 13, small_nodes ? (light ? 15000 : 40000) : big2);
    if (!small_nodes) {
        insert_cost(shapes[1], seed + 21, 4096);
        insert_cost(shapes[1], seed + 22, cost_n);
        insert_cost(shapes[4], seed + 23, cost_n);
    }
    return test_finish("table");
}
