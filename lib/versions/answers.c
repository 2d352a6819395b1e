/* Composing a body's answers; see answers.h. */
#include <stdlib.h>
#include <string.h>

#include "common/merge_sort.h"
#include "common/size_limits.h"
#include "versions/answers.h"

static int u32_before(const void *ctx, const void *a, const void *b)
{
    (void)ctx;
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y;
}

/* Every offset where the native map's answer may change: 0, each entry's
 * start and non-zero stored end (call sites too: harmless if they change
 * nothing), clipped to [0, code_size). *out is malloc'd, sorted, unique. */
static ilmap_status answer_breakpoints(const ilmap_native *native, uint32_t code_size, uint32_t **out,
                                size_t *count)
{
    size_t n_seq = 0, n_calls = 0;
    *out = NULL;
    *count = 0;
    /* cap 0: a size query (the buffer protocol, doc/buffer-protocol.md). */
    if (ilmap_native_export_records(native, ILMAP_RECORDS_EXPORTED, 0, &n_seq, NULL) !=
            ILMAP_OK ||
        ilmap_native_export_records(native, ILMAP_RECORDS_CALL_SITES, 0, &n_calls, NULL) !=
            ILMAP_OK)
        return ILMAP_E_INVALID_ARG;

    size_t n = 0, cap = 0;
    if (!size_add(n_seq, n_calls, &n) || !size_mul(n, 2, &cap) || !size_add(cap, 1, &cap))
        return ILMAP_E_LIMIT;
    size_t rec_bytes = 0, pts_bytes = 0;
    if (!size_mul(n ? n : 1, sizeof(ilmap_native_record), &rec_bytes) ||
        !size_mul(cap, sizeof(uint32_t), &pts_bytes))
        return ILMAP_E_LIMIT;
    ilmap_native_record *rec = malloc(rec_bytes);
    uint32_t *pts = malloc(pts_bytes);
    if (!rec || !pts) {
        free(rec);
        free(pts);
        return ILMAP_E_NOMEM;
    }
    size_t got = 0;
    if (n_seq)
        (void)ilmap_native_export_records(native, ILMAP_RECORDS_EXPORTED, n_seq, &got, rec);
    if (n_calls)
        (void)ilmap_native_export_records(native, ILMAP_RECORDS_CALL_SITES, n_calls, &got,
                                          rec + n_seq);

    size_t k = 0;
    pts[k++] = 0;
    for (size_t i = 0; i < n; i++) {
        if (rec[i].native_start < code_size)
            pts[k++] = rec[i].native_start;
        if (rec[i].native_end != 0 && rec[i].native_end < code_size)
            pts[k++] = rec[i].native_end;
    }
    free(rec);
    if (!merge_sort(pts, k, sizeof *pts, u32_before, NULL)) {
        free(pts);
        return ILMAP_E_NOMEM;
    }
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u == 0 || pts[i] != pts[u - 1])
            pts[u++] = pts[i];
    }
    *out = pts;
    *count = u;
    return ILMAP_OK;
}

static answer_interval answer_interval_at(const ilmap_native *native, const ilmap *il_map,
                                 int original_il, uint32_t x)
{
    answer_interval a;
    a.start = x;
    a.il = 0;
    a.kind = (uint8_t)ilmap_native_to_il(native, x, &a.il);
    a.original = a.il;
    /* Only these answers are IL offsets; PROLOG, NO_MAPPING and NO_INFO
     * answer 0 by convention (doc/native-to-il.md#scan). */
    if (!original_il && il_map &&
        (a.kind == ILMAP_MAPPING_EXACT || a.kind == ILMAP_MAPPING_APPROXIMATE ||
         a.kind == ILMAP_MAPPING_EPILOG))
        a.original = ilmap_new_to_old(il_map, a.il);
    return a;
}

static int same_answer(const answer_interval *a, const answer_interval *b)
{
    return a->il == b->il && a->original == b->original && a->kind == b->kind;
}

ilmap_status answers_compose(const ilmap_native *native, const ilmap *il_map, int original_il,
                             uint32_t code_size, answer_interval **out, uint32_t *count)
{
    *out = NULL;
    *count = 0;
    if (!native || code_size == 0)
        return ILMAP_OK;

    uint32_t *pts = NULL;
    size_t npts = 0;
    ilmap_status st = answer_breakpoints(native, code_size, &pts, &npts);
    if (st != ILMAP_OK)
        return st;
    /* At most two intervals per breakpoint (npts <= 2^32: offsets are
     * 32-bit and unique). */
    if (npts > UINT32_MAX / 2) {
        free(pts);
        return ILMAP_E_LIMIT;
    }
    size_t iv_bytes = 0;
    if (!size_mul(2 * npts, sizeof(answer_interval), &iv_bytes)) {
        free(pts);
        return ILMAP_E_LIMIT;
    }
    answer_interval *iv = malloc(iv_bytes);
    if (!iv) {
        free(pts);
        return ILMAP_E_NOMEM;
    }

    uint32_t n = 0;
    for (size_t i = 0; i < npts; i++) {
        uint32_t lo = pts[i], hi = i + 1 < npts ? pts[i + 1] : code_size;
        answer_interval first = answer_interval_at(native, il_map, original_il, lo);
        answer_interval parts[2] = { first, first };
        int nparts = 1;
        if (hi - lo > 1) {
            /* Constant on (lo, hi): one probe tells it. */
            answer_interval rest = answer_interval_at(native, il_map, original_il, lo + 1);
            if (first.kind == ILMAP_MAPPING_EXACT && rest.kind == ILMAP_MAPPING_APPROXIMATE &&
                first.il == rest.il && first.original == rest.original) {
                parts[0] = rest;
                parts[0].start = lo;
                parts[0].kind |= ANSWER_EXACT_AT_START;
            } else if (!same_answer(&first, &rest)) {
                parts[1] = rest;
                nparts = 2;
            }
        }
        for (int p = 0; p < nparts; p++) {
            /* Merge with an equal neighbour (never across an EXACT start). */
            if (n > 0 && same_answer(&iv[n - 1], &parts[p]) &&
                !(parts[p].kind & ANSWER_EXACT_AT_START))
                continue;
            iv[n++] = parts[p];
        }
    }
    free(pts);
    *out = iv;
    *count = n;
    return ILMAP_OK;
}

/* The slot table's bytes (nslots + 1 counts of count_size bytes),
 * rounded up so that the records after it start 16-byte aligned. */
static size_t slot_table_bytes(uint32_t nslots, size_t count_size)
{
    return (((size_t)nslots + 1u) * count_size + 15u) & ~(size_t)15u;
}

int answers_narrow(const answer_interval *iv, uint32_t count, uint32_t code_size)
{
    if (code_size > 0x10000u || count > 0xFFFFu)
        return 0;
    for (uint32_t i = 0; i < count; i++)
        if (iv[i].il > 0xFFFFu || iv[i].original > 0xFFFFu)
            return 0;
    return 1;
}

size_t answers_bytes(uint32_t count, uint32_t code_size, int narrow)
{
    /* The slot table first, then the records: the table sits right behind
     * the body's fields, inside the lines the index's hint prefetches with
     * them, so that a lookup's one remaining dependent miss is its record. */
    uint32_t nslots = 0;
    size_t records = 0, bytes = 0;
    if (count == 0)
        return 0;
    (void)search_slot_shift(code_size, count, &nslots);
    if (!size_mul(count, narrow ? sizeof(answer_record16) : sizeof(answer_record), &records) ||
        !size_add(slot_table_bytes(nslots, narrow ? sizeof(uint16_t) : sizeof(uint32_t)),
                  records, &bytes))
        return SIZE_MAX;
    return bytes;
}

void answers_place(void *mem, const answer_interval *iv, uint32_t count, uint32_t code_size,
                   int narrow, body_answers *out)
{
    uint32_t nslots = 0;

    memset(out, 0, sizeof *out);
    if (count == 0)
        return;
    unsigned shift = search_slot_shift(code_size, count, &nslots);
    out->count = count;
    out->shift = (uint16_t)shift;
    out->narrow = narrow != 0;
    out->below = mem;
    if (out->narrow) {
        uint16_t *below = mem;
        answer_record16 *records = (answer_record16 *)(void *)((unsigned char *)mem +
                                                               slot_table_bytes(nslots, 2));
        for (uint32_t i = 0; i < count; i++) {
            records[i].start = (uint16_t)iv[i].start;
            records[i].il = (uint16_t)iv[i].il;
            records[i].original = (uint16_t)iv[i].original;
            records[i].kind = iv[i].kind;
        }
        search_slots_u16(&records[0].start, sizeof(answer_record16) / sizeof(uint16_t), count,
                         shift, nslots, below);
        out->records = records;
    } else {
        uint32_t *below = mem;
        answer_record *records = (answer_record *)(void *)((unsigned char *)mem +
                                                           slot_table_bytes(nslots, 4));
        for (uint32_t i = 0; i < count; i++) {
            records[i].start = iv[i].start;
            records[i].il = iv[i].il;
            records[i].original = iv[i].original;
            records[i].kind = iv[i].kind;
        }
        search_slots_u32(&records[0].start, sizeof(answer_record) / sizeof(uint32_t), count,
                         shift, nslots, below);
        out->records = records;
    }
}
