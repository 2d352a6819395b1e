/* Sequence points: decoding a method's blob in order, and the lookup rule
 * of the runtime's stack traces (doc/source-lines.md#sequence-points,
 * #rule). ilmap_pdb_find_source() is stateless: every call decodes from
 * the blob's start. ilmap_pdb_lines decodes it once into a sorted array
 * of the visible points (doc/source-lines.md#lines). */
#include <stdlib.h>
#include <string.h>

#include "common/search.h"
#include "pdb/pdb.h"

#define MAX_LINE 0x20000000u
#define MAX_COLUMN 0x10000u
#define MAX_IL 0x7FFFFFFFu

/* A position in one method's blob. */
typedef struct cursor {
    const uint8_t *b;
    size_t len, base, pos;
    uint32_t doc_rows;
    uint32_t document, il;
    uint32_t line, column; /* the last visible point's start */
    int first, seen_visible;
} cursor;

/* Finds the method's blob and reads its header. *has_points 0: the
 * method has no sequence points (no row, or a nil blob). */
static ilmap_status begin(const ilmap_pdb *pdb, uint32_t token, cursor *c, int *has_points,
                          ilmap_pdb_error *err)
{
    *has_points = 0;
    memset(c, 0, sizeof *c);
    uint32_t row = token & 0xFFFFFFu;
    if (row == 0 || row > pdb->mdi_rows)
        return ILMAP_OK;
    size_t at = pdb->mdi_off + (size_t)(row - 1) * pdb->mdi_row_size;
    uint32_t document = pdb_read_index(pdb->data, at, pdb->mdi_doc_width);
    size_t blob_at = at + pdb->mdi_doc_width;
    size_t off, len;
    ilmap_status st =
        pdb_blob(pdb, pdb_read_index(pdb->data, blob_at, pdb->blob_width), blob_at, &off, &len, err);
    if (st != ILMAP_OK || len == 0)
        return st;
    if (document > pdb->doc_rows)
        return pdb_fail(err, ILMAP_PDB_DEFECT_INDEX, at);
    *c = (cursor){ .b = pdb->data + off, .len = len, .base = off, .doc_rows = pdb->doc_rows,
                   .document = document, .first = 1 };
    uint32_t local_sig;
    st = pdb_read_unsigned(c->b, len, off, &c->pos, &local_sig, err);
    if (st == ILMAP_OK && document == 0) {
        size_t doc_at = off + c->pos;
        st = pdb_read_unsigned(c->b, len, off, &c->pos, &c->document, err);
        if (st == ILMAP_OK && (c->document == 0 || c->document > pdb->doc_rows))
            st = pdb_fail(err, ILMAP_PDB_DEFECT_INDEX, doc_at);
    }
    if (st == ILMAP_OK)
        *has_points = 1;
    return st;
}

/* The next point: 1 with *p filled, 0 at the blob's end, -1 on a defect
 * (*st says which status). */
static int next(cursor *c, ilmap_pdb_sequence_point *p, ilmap_status *st, ilmap_pdb_error *err)
{
    for (;;) {
        if (c->pos >= c->len)
            return 0;
        size_t at = c->base + c->pos;
        uint32_t delta;
        if ((*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &delta, err)) != ILMAP_OK)
            return -1;
        if (!c->first && delta == 0) {
            /* A document record. */
            size_t doc_at = c->base + c->pos;
            if ((*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &c->document, err)) !=
                ILMAP_OK)
                return -1;
            if (c->document == 0 || c->document > c->doc_rows) {
                *st = pdb_fail(err, ILMAP_PDB_DEFECT_INDEX, doc_at);
                return -1;
            }
            continue;
        }
        uint32_t il = c->first ? delta : c->il + delta;
        if (il > MAX_IL) {
            *st = pdb_fail(err, ILMAP_PDB_DEFECT_SEQUENCE_POINT, at);
            return -1;
        }
        uint32_t dlines;
        int32_t dcols;
        if ((*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &dlines, err)) != ILMAP_OK)
            return -1;
        if (dlines == 0) {
            uint32_t u;
            if ((*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &u, err)) != ILMAP_OK)
                return -1;
            dcols = (int32_t)u; /* at most 29 bits */
        } else if ((*st = pdb_read_signed(c->b, c->len, c->base, &c->pos, &dcols, err)) !=
                   ILMAP_OK) {
            return -1;
        }
        c->first = 0;
        c->il = il;
        if (dlines == 0 && dcols == 0) {
            *p = (ilmap_pdb_sequence_point){ il, c->document, ILMAP_PDB_HIDDEN_LINE, 0,
                                             ILMAP_PDB_HIDDEN_LINE, 0 };
            return 1;
        }
        int64_t line, column;
        if (!c->seen_visible) {
            uint32_t l, col;
            if ((*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &l, err)) != ILMAP_OK ||
                (*st = pdb_read_unsigned(c->b, c->len, c->base, &c->pos, &col, err)) != ILMAP_OK)
                return -1;
            line = l;
            column = col;
        } else {
            int32_t dl, dc;
            if ((*st = pdb_read_signed(c->b, c->len, c->base, &c->pos, &dl, err)) != ILMAP_OK ||
                (*st = pdb_read_signed(c->b, c->len, c->base, &c->pos, &dc, err)) != ILMAP_OK)
                return -1;
            line = (int64_t)c->line + dl;
            column = (int64_t)c->column + dc;
        }
        int64_t end_line = line + dlines, end_column = column + dcols;
        if (line < 0 || line >= MAX_LINE || line == ILMAP_PDB_HIDDEN_LINE || end_line >= MAX_LINE ||
            end_line == ILMAP_PDB_HIDDEN_LINE || column < 0 || column >= MAX_COLUMN ||
            end_column < 0 || end_column >= MAX_COLUMN) {
            *st = pdb_fail(err, ILMAP_PDB_DEFECT_SEQUENCE_POINT, at);
            return -1;
        }
        c->seen_visible = 1;
        c->line = (uint32_t)line;
        c->column = (uint32_t)column;
        *p = (ilmap_pdb_sequence_point){ il, c->document, (uint32_t)line, (uint32_t)column,
                                         (uint32_t)end_line, (uint32_t)end_column };
        return 1;
    }
}

static int is_method_token(uint32_t token)
{
    return token >> 24 == 0x06u;
}

ilmap_status ilmap_pdb_get_sequence_points(const ilmap_pdb *pdb, uint32_t method_token,
                                           size_t cap, size_t *total,
                                           ilmap_pdb_sequence_point *out, ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (total)
        *total = 0;
    if (!pdb || !total || (cap > 0 && !out) || !is_method_token(method_token))
        return ILMAP_E_INVALID_ARG;
    cursor c;
    int has;
    ilmap_status st = begin(pdb, method_token, &c, &has, err);
    if (st != ILMAP_OK || !has)
        return st;
    size_t count = 0;
    ilmap_pdb_sequence_point p;
    int r;
    while ((r = next(&c, &p, &st, err)) == 1) {
        if (count < cap)
            out[count] = p;
        count++;
    }
    if (r < 0)
        return st;
    *total = count;
    return cap == 0 || cap >= count ? ILMAP_OK : ILMAP_E_TRUNCATED;
}

ilmap_status ilmap_pdb_find_source(const ilmap_pdb *pdb, uint32_t method_token,
                                   uint32_t il_offset, ilmap_pdb_sequence_point *out,
                                   ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!pdb || !out || !is_method_token(method_token))
        return ILMAP_E_INVALID_ARG;
    cursor c;
    int has;
    ilmap_status st = begin(pdb, method_token, &c, &has, err);
    if (st != ILMAP_OK)
        return st;
    if (!has)
        return ILMAP_E_NOT_FOUND;
    ilmap_pdb_sequence_point p, found = { 0, 0, 0, 0, 0, 0 };
    int r, any = 0;
    /* Blob order; stop at the first point past the offset; the last
     * visible one before it is the answer. */
    while ((r = next(&c, &p, &st, err)) == 1 && p.il_offset <= il_offset) {
        if (p.start_line != ILMAP_PDB_HIDDEN_LINE) {
            found = p;
            any = 1;
        }
    }
    if (r < 0)
        return st;
    if (!any)
        return ILMAP_E_NOT_FOUND;
    *out = found;
    return ILMAP_OK;
}

/* ---- ilmap_pdb_lines: one method's visible points, decoded once ---- */

/* The blob's IL offsets strictly increase (a point's delta is non-zero
 * after the first: a zero delta is a document record), so blob order is
 * IL order and the last visible point at or before an offset is the
 * floor of the offset among the visible points' keys. A defect the
 * stateless reader would meet is kept with the IL offset from which its
 * queries reach it: the points decoded before the defect answer the
 * offsets below that one, exactly as ilmap_pdb_find_source() does. */
struct ilmap_pdb_lines {
    uint32_t count;           /* visible points */
    int has_points;           /* 0: no debug information (every query NOT_FOUND) */
    int defective;            /* queries at or past fail_from meet err */
    uint32_t fail_from;
    ilmap_pdb_error err;
    uint32_t *keys;           /* count IL offsets, ascending */
    ilmap_pdb_sequence_point *points; /* count points, same order */
};

/* Decodes the method's points: counts them (out NULL) or fills out, cap
 * of them at most (the count of the first pass: the bytes are the same,
 * the bound only keeps a buffer changed against the contract from
 * turning into a write past the block). */
static void lines_decode(const ilmap_pdb *pdb, uint32_t token, ilmap_pdb_lines *l,
                         ilmap_pdb_sequence_point *out, uint32_t *keys, uint32_t cap)
{
    cursor c;
    ilmap_status st = begin(pdb, token, &c, &l->has_points, &l->err);
    l->count = 0;
    l->defective = 0;
    l->fail_from = 0;
    if (st != ILMAP_OK) {
        l->has_points = 1;
        l->defective = 1;
        return;
    }
    if (!l->has_points)
        return;
    ilmap_pdb_sequence_point p;
    int r;
    while ((r = next(&c, &p, &st, &l->err)) == 1) {
        l->fail_from = p.il_offset; /* the last point decoded */
        if (p.start_line == ILMAP_PDB_HIDDEN_LINE)
            continue;
        if (out) {
            if (l->count == cap)
                break;
            out[l->count] = p;
            keys[l->count] = p.il_offset;
        }
        l->count++;
    }
    l->defective = r < 0;
}

/* The lines' one block for count visible points: the header, the keys
 * (their bytes rounded up to 8: the points follow them), the points. */
static size_t lines_keys_bytes(uint32_t count)
{
    return ((size_t)count * sizeof(uint32_t) + 7u) & ~(size_t)7u;
}

static size_t lines_block_bytes(uint32_t count)
{
    return sizeof(ilmap_pdb_lines) + lines_keys_bytes(count) +
           (size_t)count * sizeof(ilmap_pdb_sequence_point);
}

ilmap_status ilmap_pdb_lines_create(const ilmap_pdb *pdb, uint32_t method_token,
                                    ilmap_pdb_lines **out)
{
    if (out)
        *out = NULL;
    if (!pdb || !out || !is_method_token(method_token))
        return ILMAP_E_INVALID_ARG;
    ilmap_pdb_lines probe;
    lines_decode(pdb, method_token, &probe, NULL, NULL, 0);
    /* One block (count < 2^32 / 24: a visible point takes 5 blob bytes at
     * least). */
    ilmap_pdb_lines *l = malloc(lines_block_bytes(probe.count));
    if (!l)
        return ILMAP_E_NOMEM;
    l->keys = (uint32_t *)(void *)(l + 1);
    l->points =
        (ilmap_pdb_sequence_point *)(void *)((char *)l->keys + lines_keys_bytes(probe.count));
    lines_decode(pdb, method_token, l, l->points, l->keys, probe.count);
    *out = l;
    return ILMAP_OK;
}

void ilmap_pdb_lines_free(ilmap_pdb_lines *lines)
{
    free(lines);
}

ilmap_status ilmap_pdb_lines_find_source(const ilmap_pdb_lines *lines, uint32_t il_offset,
                                         ilmap_pdb_sequence_point *out, ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!lines || !out)
        return ILMAP_E_INVALID_ARG;
    if (lines->defective && il_offset >= lines->fail_from) {
        if (err)
            *err = lines->err;
        return ILMAP_E_FORMAT;
    }
    size_t n = search_upper_u32(lines->keys, sizeof(uint32_t), lines->count, il_offset);
    if (n == 0)
        return ILMAP_E_NOT_FOUND;
    *out = lines->points[n - 1];
    return ILMAP_OK;
}

size_t ilmap_pdb_lines_get_count(const ilmap_pdb_lines *lines)
{
    return lines ? lines->count : 0;
}

size_t ilmap_pdb_lines_get_memory_bytes(const ilmap_pdb_lines *lines)
{
    return lines ? lines_block_bytes(lines->count) : 0;
}
