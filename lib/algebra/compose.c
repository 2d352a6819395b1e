/*
 * ilmap_compose: the smallest map whose old -> new answer is B's answer
 * at A's answer (see ilmap-algebra.h for what that is exact for and why).
 * A's old -> new translation is a step function whose pieces start at
 * A's keys; B applied to each piece's constant gives the composed answer
 * on that piece, and an entry goes wherever that answer changes.
 */
#include <stdlib.h>
#include <string.h>

#include "algebra/pieces.h"
#include "common/search.h"

#define KNOWN_FLAGS (ILMAP_LENIENT | ILMAP_NO_AVX2 | ILMAP_PORTABLE)

/* Where fAccurate comes from: the entry a lookup rounds down to. */
typedef struct acc_source {
    ilmap_entry *e;
    size_t n;
    int lenient;
    int all_accurate;
} acc_source;

static ilmap_status acc_open(const ilmap *m, acc_source *a)
{
    ilmap_status st = copy_entries(m, &a->e, &a->n);

    a->lenient = (ilmap_get_flags(m) & ILMAP_LENIENT) != 0;
    a->all_accurate = 1;
    for (size_t i = 0; i < a->n; i++)
        if (!a->e[i].accurate)
            a->all_accurate = 0;
    return st;
}

/* The floor entry's flag for a strict map (keys ascend in old_offset); a
 * lenient map's scan has no cheap "entry used", so all its flags count. */
static int acc_at(const acc_source *a, uint32_t x)
{
    if (a->lenient || a->all_accurate)
        return a->all_accurate;
    size_t lo = search_upper_u32(&a->e[0].old_offset, sizeof a->e[0], a->n, x);
    return lo == 0 ? 1 : a->e[lo - 1].accurate != 0;
}

/* C from its entries: strict when they form a strict map, else lenient if
 * the caller allows it. */
static ilmap_status make_map(const ilmap_entry *e, size_t n, unsigned flags, ilmap **out)
{
    unsigned f = flags & ~(unsigned)ILMAP_LENIENT;

    if (ilmap_validate(e, n, NULL, NULL) != ILMAP_OK) {
        if (!(flags & ILMAP_LENIENT))
            return ILMAP_E_UNSORTED;
        f |= ILMAP_LENIENT;
    }
    return ilmap_create(e, n, f, out);
}

static ilmap_status copy_map(const ilmap *m, unsigned flags, ilmap **out)
{
    ilmap_entry *e;
    size_t n;
    ilmap_status st = copy_entries(m, &e, &n);

    if (st == ILMAP_OK)
        st = make_map(e, n, flags, out);
    free(e);
    return st;
}

/* The entries of C from A's pieces (A and B both non-empty). */
static ilmap_status build_entries(const ilmap *a, const ilmap *b, ilmap_entry **out, size_t *n)
{
    pieces pa;
    acc_source sa = { 0 }, sb = { 0 };
    ilmap_entry *e = NULL;
    ilmap_status st = pieces_of(a, ILMAP_DIR_OLD_TO_NEW, &pa);

    *out = NULL;
    *n = 0;
    if (st != ILMAP_OK)
        return st;
    if ((st = acc_open(a, &sa)) != ILMAP_OK || (st = acc_open(b, &sb)) != ILMAP_OK)
        goto done;
    e = malloc((pa.n + 1) * sizeof *e);
    if (!e) {
        st = ILMAP_E_NOMEM;
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < pa.n && pa.p[i].start < ILMAP_EPILOG; i++) {
        uint32_t v = pa.p[i].value;
        uint32_t w = ilmap_old_to_new(b, v);
        /* A leading PROLOG answer is what "below the first key" gives. */
        if ((m == 0 && w == ILMAP_PROLOG) || (m > 0 && w == e[m - 1].new_offset))
            continue;
        e[m].old_offset = pa.p[i].start;
        e[m].new_offset = w;
        e[m].accurate = acc_at(&sa, pa.p[i].start) && acc_at(&sb, v);
        m++;
    }
    if (m == 0) {
        /* Every offset answers PROLOG: a key above all normal offsets says
         * so, and its value decides EPILOG (passed through at or above the
         * first key, PROLOG below it). */
        uint32_t epilog = ilmap_old_to_new(b, ilmap_old_to_new(a, ILMAP_EPILOG));
        uint32_t key = epilog == ILMAP_EPILOG ? ILMAP_EPILOG : ILMAP_NO_MAPPING;
        e[m++] = (ilmap_entry){ key, key, 1 };
    }
    *out = e;
    *n = m;
done:
    free(sa.e);
    free(sb.e);
    pieces_free(&pa);
    return st;
}

/* Which directions C answers exactly as the two steps. */
static ilmap_status exactness(const ilmap *a, const ilmap *b, const ilmap *c, unsigned *exact)
{
    static const unsigned dirs[3] = { ILMAP_DIR_OLD_TO_NEW, ILMAP_DIR_NEW_TO_OLD,
                                      ILMAP_DIR_NEW_TO_OLD_DAC };
    ilmap_status st = ILMAP_OK;

    *exact = 0;
    for (int d = 0; d < 3 && st == ILMAP_OK; d++) {
        pieces first = { NULL, 0 }, both = { NULL, 0 }, mine = { NULL, 0 };
        const ilmap *inner = dirs[d] == ILMAP_DIR_OLD_TO_NEW ? a : b;
        const ilmap *outer = dirs[d] == ILMAP_DIR_OLD_TO_NEW ? b : a;
        uint32_t at, va, vb;

        if ((st = pieces_of(inner, dirs[d], &first)) == ILMAP_OK &&
            (st = pieces_then(&first, outer, dirs[d], &both)) == ILMAP_OK &&
            (st = pieces_of(c, dirs[d], &mine)) == ILMAP_OK &&
            !pieces_differ(&both, &mine, UINT32_MAX, &at, &va, &vb))
            *exact |= dirs[d];
        pieces_free(&first);
        pieces_free(&both);
        pieces_free(&mine);
    }
    if (st != ILMAP_OK)
        *exact = 0;
    return st;
}

ilmap_status ilmap_compose(const ilmap *a, const ilmap *b, unsigned flags, ilmap **out,
                           unsigned *exact_directions)
{
    ilmap_status st;
    ilmap *c = NULL;

    if (exact_directions)
        *exact_directions = 0;
    if (out)
        *out = NULL;
    if (!a || !b || !out || (flags & ~(unsigned)KNOWN_FLAGS))
        return ILMAP_E_INVALID_ARG;

    if (ilmap_get_count(a) == 0) {
        st = copy_map(b, flags, &c);
    } else if (ilmap_get_count(b) == 0) {
        st = copy_map(a, flags, &c);
    } else {
        ilmap_entry *e;
        size_t n;
        st = build_entries(a, b, &e, &n);
        if (st == ILMAP_OK) {
            st = make_map(e, n, flags, &c);
            free(e);
        }
    }
    if (st == ILMAP_OK && exact_directions)
        st = exactness(a, b, c, exact_directions);
    if (st != ILMAP_OK) {
        ilmap_free(c);
        c = NULL;
    }
    *out = c;
    return st;
}
