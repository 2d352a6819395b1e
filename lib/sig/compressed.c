/* Compressed integers and coded tokens of signatures; see compressed.h. */
#include "sig/compressed.h"

/* A compressed value as read: its payload, its length in bytes, and the
 * payload's width in bits (7, 14 or 29). */
typedef struct raw_value {
    uint32_t payload;
    size_t len;
    unsigned bits;
} raw_value;

static ilmap_sig_defect read_raw(const uint8_t *p, size_t size, size_t pos, raw_value *r)
{
    if (pos >= size)
        return ILMAP_SIG_DEFECT_TRUNCATED;
    uint8_t b = p[pos];
    if ((b & 0x80u) == 0) {
        *r = (raw_value){ b, 1, 7 };
    } else if ((b & 0xC0u) == 0x80u) {
        if (size - pos < 2)
            return ILMAP_SIG_DEFECT_TRUNCATED;
        *r = (raw_value){ (uint32_t)(b & 0x3Fu) << 8 | p[pos + 1], 2, 14 };
    } else if ((b & 0xE0u) == 0xC0u) {
        if (size - pos < 4)
            return ILMAP_SIG_DEFECT_TRUNCATED;
        *r = (raw_value){ (uint32_t)(b & 0x1Fu) << 24 | (uint32_t)p[pos + 1] << 16 |
                              (uint32_t)p[pos + 2] << 8 | p[pos + 3],
                          4, 29 };
    } else {
        return ILMAP_SIG_DEFECT_COMPRESSED;
    }
    return ILMAP_SIG_DEFECT_NONE;
}

ilmap_sig_defect sig_read_unsigned(const uint8_t *p, size_t size, size_t *pos, uint32_t *value)
{
    raw_value r;
    ilmap_sig_defect d = read_raw(p, size, *pos, &r);
    /* The shortest form: a 2-byte value needs more than 7 bits, a 4-byte
     * one more than 14. */
    if (d == ILMAP_SIG_DEFECT_NONE && ((r.len == 2 && r.payload < 0x80u) ||
                                       (r.len == 4 && r.payload < 0x4000u)))
        d = ILMAP_SIG_DEFECT_COMPRESSED;
    if (d == ILMAP_SIG_DEFECT_NONE) {
        *value = r.payload;
        *pos += r.len;
    }
    return d;
}

ilmap_sig_defect sig_read_signed(const uint8_t *p, size_t size, size_t *pos, int32_t *value)
{
    raw_value r;
    ilmap_sig_defect d = read_raw(p, size, *pos, &r);
    if (d != ILMAP_SIG_DEFECT_NONE)
        return d;
    /* Undo the rotation: bit 0 is the sign, the rest the low bits. */
    int32_t v = (int32_t)(r.payload >> 1);
    if (r.payload & 1u)
        v -= (int32_t)(1L << (r.bits - 1));
    /* The shortest form: a value that fits a narrower width must use it. */
    if ((r.len == 2 && v >= -0x40 && v <= 0x3F) || (r.len == 4 && v >= -0x2000 && v <= 0x1FFF))
        return ILMAP_SIG_DEFECT_COMPRESSED;
    *value = v;
    *pos += r.len;
    return ILMAP_SIG_DEFECT_NONE;
}

ilmap_sig_defect sig_read_type_token(const uint8_t *p, size_t size, size_t *pos,
                                     uint32_t *token)
{
    static const uint32_t tables[3] = { ILMAP_SIG_TABLE_TYPEDEF, ILMAP_SIG_TABLE_TYPEREF,
                                        ILMAP_SIG_TABLE_TYPESPEC };
    size_t at = *pos;
    uint32_t coded;
    ilmap_sig_defect d = sig_read_unsigned(p, size, &at, &coded);
    if (d != ILMAP_SIG_DEFECT_NONE)
        return d;
    uint32_t row = coded >> 2;
    if ((coded & 3u) == 3u || row > 0xFFFFFFu)
        return ILMAP_SIG_DEFECT_TOKEN;
    *token = tables[coded & 3u] << 24 | row;
    *pos = at;
    return ILMAP_SIG_DEFECT_NONE;
}

static size_t write_raw(uint8_t out[4], uint32_t raw, size_t len)
{
    switch (len) {
    case 1: out[0] = (uint8_t)raw; break;
    case 2:
        out[0] = (uint8_t)(0x80u | raw >> 8);
        out[1] = (uint8_t)raw;
        break;
    default:
        out[0] = (uint8_t)(0xC0u | raw >> 24);
        out[1] = (uint8_t)(raw >> 16);
        out[2] = (uint8_t)(raw >> 8);
        out[3] = (uint8_t)raw;
        break;
    }
    return len;
}

size_t sig_write_unsigned(uint8_t out[4], uint32_t value)
{
    if (value > SIG_UNSIGNED_MAX)
        return 0;
    return write_raw(out, value, value < 0x80u ? 1 : value < 0x4000u ? 2 : 4);
}

size_t sig_write_signed(uint8_t out[4], int32_t value)
{
    if (value < SIG_SIGNED_MIN || value > SIG_SIGNED_MAX)
        return 0;
    unsigned bits = value >= -0x40 && value <= 0x3F ? 7 : value >= -0x2000 && value <= 0x1FFF ? 14 : 29;
    uint32_t mask = (1u << bits) - 1u;
    uint32_t twos = (uint32_t)value & mask;
    /* Rotate left by one within the payload: the sign bit goes to bit 0. */
    uint32_t raw = ((twos << 1) | (twos >> (bits - 1))) & mask;
    return write_raw(out, raw, bits == 7 ? 1 : bits == 14 ? 2 : 4);
}

size_t sig_write_type_token(uint8_t out[4], uint32_t token)
{
    uint32_t tag;
    switch (token >> 24) {
    case ILMAP_SIG_TABLE_TYPEDEF: tag = 0; break;
    case ILMAP_SIG_TABLE_TYPEREF: tag = 1; break;
    case ILMAP_SIG_TABLE_TYPESPEC: tag = 2; break;
    default: return 0;
    }
    return sig_write_unsigned(out, (token & 0xFFFFFFu) << 2 | tag);
}
