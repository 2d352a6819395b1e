/* Maps packed for a compact store; see packed.h. */
#include "versions/packed.h"

#include "common/size_limits.h"

/* Bytes of x in LEB128: 7 bits a byte. */
static size_t leb_bytes(uint32_t x)
{
    size_t n = 1;
    while (x >= 0x80u) {
        x >>= 7;
        n++;
    }
    return n;
}

static uint8_t *leb_write(uint8_t *p, uint32_t x)
{
    while (x >= 0x80u) {
        *p++ = (uint8_t)(x | 0x80u);
        x >>= 7;
    }
    *p++ = (uint8_t)x;
    return p;
}

static const uint8_t *leb_read(const uint8_t *p, uint32_t *x)
{
    uint32_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = *p++;
        v |= (uint32_t)(b & 0x7Fu) << shift;
        if (!(b & 0x80u))
            break;
    }
    *x = v;
    return p;
}

/* A difference modulo 2^32 as a small number when it is small either way. */
static uint32_t zigzag(uint32_t d)
{
    return (d << 1) ^ (0u - (d >> 31));
}

static uint32_t unzigzag(uint32_t z)
{
    return (z >> 1) ^ (0u - (z & 1u));
}

/*
 * One engine for both kinds: an entry is three 32-bit columns, each coded
 * by a rule (packed.h); the loops below are written once for both.
 */
typedef enum { PK_DELTA, PK_FROM_FIRST, PK_RAW } pk_column_code;

typedef struct pk_kind {
    pk_column_code code[3];
} pk_kind;

static const pk_kind pk_native_kind = { { PK_DELTA, PK_FROM_FIRST, PK_DELTA } };
static const pk_kind pk_il_kind = { { PK_DELTA, PK_DELTA, PK_RAW } };

static void pk_encode(const pk_kind *k, const uint32_t prev[3], const uint32_t row[3],
                   uint32_t w[3])
{
    for (int i = 0; i < 3; i++) {
        switch (k->code[i]) {
        case PK_DELTA: w[i] = zigzag(row[i] - prev[i]); break;
        case PK_FROM_FIRST: w[i] = row[i] - row[0]; break;
        default: w[i] = row[i]; break;
        }
    }
}

static void pk_decode(const pk_kind *k, const uint32_t prev[3], const uint32_t w[3],
                   uint32_t row[3])
{
    uint32_t first = 0; /* column 0, decoded first; never PK_FROM_FIRST itself */
    for (int i = 0; i < 3; i++) {
        uint32_t v;
        switch (k->code[i]) {
        case PK_DELTA: v = prev[i] + unzigzag(w[i]); break;
        case PK_FROM_FIRST: v = first + w[i]; break;
        default: v = w[i]; break;
        }
        if (i == 0)
            first = v;
        row[i] = v;
    }
}

/* Row k of an array of one kind's entries, as its three columns. */
typedef void (*pk_row_fn)(const void *entries, size_t k, uint32_t row[3]);

static void pk_native_get(const void *entries, size_t k, uint32_t row[3])
{
    const ilmap_native_entry *e = (const ilmap_native_entry *)entries + k;
    row[0] = e->native_start;
    row[1] = e->native_end;
    row[2] = e->il_offset;
}

static void pk_il_get(const void *entries, size_t k, uint32_t row[3])
{
    const ilmap_entry *e = (const ilmap_entry *)entries + k;
    row[0] = e->old_offset;
    row[1] = e->new_offset;
    row[2] = (uint32_t)e->accurate;
}

static size_t pk_bytes_of(const pk_kind *kind, pk_row_fn get, const void *entries, size_t count)
{
    size_t bytes = 0;
    uint32_t prev[3] = { 0, 0, 0 };
    for (size_t k = 0; k < count; k++) {
        uint32_t row[3], w[3];
        get(entries, k, row);
        pk_encode(kind, prev, row, w);
        for (int i = 0; i < 3; i++)
            if (!size_add(bytes, leb_bytes(w[i]), &bytes))
                return SIZE_MAX;
        for (int i = 0; i < 3; i++)
            prev[i] = row[i];
    }
    return bytes;
}

static void pk_write_rows(const pk_kind *kind, pk_row_fn get, const void *entries, size_t count,
                       uint8_t *out)
{
    uint32_t prev[3] = { 0, 0, 0 };
    for (size_t k = 0; k < count; k++) {
        uint32_t row[3], w[3];
        get(entries, k, row);
        pk_encode(kind, prev, row, w);
        for (int i = 0; i < 3; i++) {
            out = leb_write(out, w[i]);
            prev[i] = row[i];
        }
    }
}

/* Reads the next row after prev (updated to it); returns where it ends. */
static const uint8_t *pk_read_row(const pk_kind *kind, const uint8_t *in, uint32_t prev[3])
{
    uint32_t w[3], row[3];
    for (int i = 0; i < 3; i++)
        in = leb_read(in, &w[i]);
    pk_decode(kind, prev, w, row);
    for (int i = 0; i < 3; i++)
        prev[i] = row[i];
    return in;
}

size_t packed_native_bytes(const ilmap_native_entry *entries, size_t count)
{
    return pk_bytes_of(&pk_native_kind, pk_native_get, entries, count);
}

size_t packed_il_bytes(const ilmap_entry *entries, size_t count)
{
    return pk_bytes_of(&pk_il_kind, pk_il_get, entries, count);
}

void packed_native_write(const ilmap_native_entry *entries, size_t count, uint8_t *out)
{
    pk_write_rows(&pk_native_kind, pk_native_get, entries, count, out);
}

void packed_il_write(const ilmap_entry *entries, size_t count, uint8_t *out)
{
    pk_write_rows(&pk_il_kind, pk_il_get, entries, count, out);
}

void packed_native_read(const uint8_t *in, size_t n, ilmap_native_entry *out)
{
    uint32_t row[3] = { 0, 0, 0 };
    for (size_t k = 0; k < n; k++) {
        in = pk_read_row(&pk_native_kind, in, row);
        out[k].native_start = row[0];
        out[k].native_end = row[1];
        out[k].il_offset = row[2];
    }
}

void packed_il_read(const uint8_t *in, size_t n, ilmap_entry *out)
{
    uint32_t row[3] = { 0, 0, 0 };
    for (size_t k = 0; k < n; k++) {
        in = pk_read_row(&pk_il_kind, in, row);
        out[k].old_offset = row[0];
        out[k].new_offset = row[1];
        out[k].accurate = (int32_t)row[2];
    }
}
