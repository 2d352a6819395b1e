#include <stdlib.h>
#include <string.h>

#include "common/order.h"
#include "algebra/pieces.h"

#define DAC_PASS 0x80000000u /* the DAC passes inputs >= this through (doc/il-maps.md#dac) */

void pieces_free(pieces *ps)
{
    free(ps->p);
    ps->p = NULL;
    ps->n = 0;
}

uint32_t pieces_lookup(const ilmap *m, unsigned dir, uint32_t x)
{
    switch (dir) {
    case ILMAP_DIR_OLD_TO_NEW: return ilmap_old_to_new(m, x);
    case ILMAP_DIR_NEW_TO_OLD: return ilmap_new_to_old(m, x);
    default: return ilmap_new_to_old_dac(m, x);
    }
}

ilmap_status copy_entries(const ilmap *m, ilmap_entry **out, size_t *n)
{
    size_t total = 0;

    *out = NULL;
    *n = 0;
    ilmap_export(m, 0, &total, NULL);
    if (total == 0)
        return ILMAP_OK;
    ilmap_entry *e = malloc(total * sizeof *e);
    if (!e)
        return ILMAP_E_NOMEM;
    ilmap_export(m, total, &total, e);
    *out = e;
    *n = total;
    return ILMAP_OK;
}

/* The distinct keys below `limit`, ascending, after a leading 0. */
static ilmap_status breakpoints(const ilmap *m, unsigned dir, uint32_t limit, uint32_t **out,
                                size_t *n)
{
    ilmap_entry *e;
    size_t count;
    ilmap_status st = copy_entries(m, &e, &count);

    *out = NULL;
    *n = 0;
    if (st != ILMAP_OK)
        return st;
    uint32_t *k = malloc((count + 1) * sizeof *k);
    if (!k) {
        free(e);
        return ILMAP_E_NOMEM;
    }
    size_t m_keys = 0;
    int sorted = 1;
    k[m_keys++] = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t key = dir == ILMAP_DIR_OLD_TO_NEW ? e[i].old_offset : e[i].new_offset;
        if (key == 0 || key >= limit)
            continue;
        if (key <= k[m_keys - 1])
            sorted = 0;
        k[m_keys++] = key;
    }
    free(e);
    /* Strict maps arrive sorted; only lenient ones pay for the sort. */
    if (!sorted) {
        qsort(k, m_keys, sizeof *k, order_u32);
        size_t w = 1;
        for (size_t i = 1; i < m_keys; i++)
            if (k[i] != k[w - 1])
                k[w++] = k[i];
        m_keys = w;
    }
    *out = k;
    *n = m_keys;
    return ILMAP_OK;
}

ilmap_status pieces_of(const ilmap *m, unsigned dir, pieces *out)
{
    out->p = NULL;
    out->n = 0;
    if (ilmap_get_count(m) == 0) {
        out->p = malloc(sizeof *out->p);
        if (!out->p)
            return ILMAP_E_NOMEM;
        out->p[0] = (piece){ 0, 0, 1 };
        out->n = 1;
        return ILMAP_OK;
    }

    const int dac = dir == ILMAP_DIR_NEW_TO_OLD_DAC;
    uint32_t *k;
    size_t nk;
    ilmap_status st = breakpoints(m, dir, dac ? DAC_PASS : ILMAP_EPILOG, &k, &nk);
    if (st != ILMAP_OK)
        return st;
    /* In-process: the three specials are pieces of one input each. DAC:
     * one identity piece from 0x80000000 up. */
    out->p = malloc((nk + 3) * sizeof *out->p);
    if (!out->p) {
        free(k);
        return ILMAP_E_NOMEM;
    }
    for (size_t i = 0; i < nk; i++)
        out->p[out->n++] = (piece){ k[i], pieces_lookup(m, dir, k[i]), 0 };
    free(k);
    if (dac) {
        out->p[out->n++] = (piece){ DAC_PASS, 0, 1 };
    } else {
        const uint32_t specials[3] = { ILMAP_EPILOG, ILMAP_PROLOG, ILMAP_NO_MAPPING };
        for (int i = 0; i < 3; i++)
            out->p[out->n++] = (piece){ specials[i], pieces_lookup(m, dir, specials[i]), 0 };
    }
    return ILMAP_OK;
}

static uint64_t piece_end(const pieces *ps, size_t i)
{
    return i + 1 < ps->n ? ps->p[i + 1].start : (uint64_t)1 << 32;
}

ilmap_status pieces_then(const pieces *f, const ilmap *g, unsigned dir, pieces *out)
{
    pieces gp = { NULL, 0 };
    size_t cap = f->n;
    size_t identities = 0;

    out->p = NULL;
    out->n = 0;
    for (size_t i = 0; i < f->n; i++)
        identities += f->p[i].identity;
    if (identities) {
        ilmap_status st = pieces_of(g, dir, &gp);
        if (st != ILMAP_OK)
            return st;
        cap += gp.n * identities; /* an identity piece takes at most all of g's */
    }
    out->p = malloc(cap * sizeof *out->p);
    if (!out->p) {
        pieces_free(&gp);
        return ILMAP_E_NOMEM;
    }
    for (size_t i = 0; i < f->n; i++) {
        const piece *fp = &f->p[i];
        if (!fp->identity) {
            out->p[out->n++] = (piece){ fp->start, pieces_lookup(g, dir, fp->value), 0 };
            continue;
        }
        uint64_t end = piece_end(f, i);
        for (size_t j = 0; j < gp.n; j++) {
            uint64_t gs = gp.p[j].start, ge = piece_end(&gp, j);
            if (ge <= fp->start || gs >= end)
                continue;
            piece q = gp.p[j];
            q.start = gs > fp->start ? (uint32_t)gs : fp->start;
            out->p[out->n++] = q;
        }
    }
    pieces_free(&gp);
    return ILMAP_OK;
}

/* Where a constant c and the identity first differ on [s, e]: at s unless
 * c == s, then at s + 1 when the piece goes on. */
static int const_vs_identity(uint32_t c, uint64_t s, uint64_t e_incl, uint32_t *at)
{
    if (c != s) {
        *at = (uint32_t)s;
        return 1;
    }
    if (s + 1 <= e_incl) {
        *at = (uint32_t)(s + 1);
        return 1;
    }
    return 0;
}

int pieces_differ(const pieces *a, const pieces *b, uint32_t bound, uint32_t *at, uint32_t *va,
                  uint32_t *vb)
{
    size_t i = 0, j = 0;
    uint64_t s = 0;

    while (s <= bound && i < a->n && j < b->n) {
        uint64_t ea = piece_end(a, i), eb = piece_end(b, j);
        uint64_t e = ea < eb ? ea : eb;
        uint64_t last = e - 1 < bound ? e - 1 : bound;
        const piece *pa = &a->p[i], *pb = &b->p[j];
        int differ = 0;
        uint32_t where = 0;

        if (!pa->identity && !pb->identity) {
            differ = pa->value != pb->value;
            where = (uint32_t)s;
        } else if (!pa->identity) {
            differ = const_vs_identity(pa->value, s, last, &where);
        } else if (!pb->identity) {
            differ = const_vs_identity(pb->value, s, last, &where);
        }
        if (differ) {
            *at = where;
            *va = pa->identity ? where : pa->value;
            *vb = pb->identity ? where : pb->value;
            return 1;
        }
        s = e;
        if (ea == e)
            i++;
        if (eb == e)
            j++;
    }
    return 0;
}
