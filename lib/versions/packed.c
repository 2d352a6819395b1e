/* A body's exported native map, packed; see packed.h. */
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

/* The three numbers of entry e after prev. */
static void entry_words(const ilmap_native_entry *prev, const ilmap_native_entry *e,
                        uint32_t w[3])
{
    w[0] = zigzag(e->native_start - prev->native_start);
    w[1] = e->native_end - e->native_start;
    w[2] = zigzag(e->il_offset - prev->il_offset);
}

size_t packed_bytes(const ilmap_native_entry *entries, size_t count)
{
    size_t bytes = 0;
    ilmap_native_entry prev = { 0, 0, 0 };
    for (size_t k = 0; k < count; k++) {
        uint32_t w[3];
        entry_words(&prev, &entries[k], w);
        for (int i = 0; i < 3; i++)
            if (!size_add(bytes, leb_bytes(w[i]), &bytes))
                return SIZE_MAX;
        prev = entries[k];
    }
    return bytes;
}

void packed_write(const ilmap_native_entry *entries, size_t count, uint8_t *out)
{
    ilmap_native_entry prev = { 0, 0, 0 };
    for (size_t k = 0; k < count; k++) {
        uint32_t w[3];
        entry_words(&prev, &entries[k], w);
        for (int i = 0; i < 3; i++)
            out = leb_write(out, w[i]);
        prev = entries[k];
    }
}

void packed_read(const uint8_t *in, size_t n, ilmap_native_entry *out)
{
    ilmap_native_entry prev = { 0, 0, 0 };
    for (size_t k = 0; k < n; k++) {
        uint32_t w[3];
        for (int i = 0; i < 3; i++)
            in = leb_read(in, &w[i]);
        ilmap_native_entry e;
        e.native_start = prev.native_start + unzigzag(w[0]);
        e.native_end = e.native_start + w[1];
        e.il_offset = prev.il_offset + unzigzag(w[2]);
        out[k] = e;
        prev = e;
    }
}
