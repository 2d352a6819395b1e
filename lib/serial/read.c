/*
 * The safe reader: ilmap_view_open checks the bytes in an order that
 * never reads past what is already known to exist (header, then the sizes
 * against each other and the buffer, then checksum, then entries), and
 * the loaders build maps from a checked view.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "serial/format.h"

const char *ilmap_serial_defect_str(ilmap_serial_defect defect)
{
    switch (defect) {
    case ILMAP_SERIAL_NONE: return "no defect";
    case ILMAP_SERIAL_TOO_SHORT: return "shorter than the 32-byte header";
    case ILMAP_SERIAL_BAD_MAGIC: return "not a serialized libilmap map (bad magic)";
    case ILMAP_SERIAL_BYTE_ORDER: return "written with the other byte order (byte-swapped magic)";
    case ILMAP_SERIAL_BAD_VERSION: return "unsupported format version";
    case ILMAP_SERIAL_KIND: return "unknown map kind, or not the kind asked for";
    case ILMAP_SERIAL_FLAGS: return "unknown header flags";
    case ILMAP_SERIAL_RESERVED: return "a reserved header field is not zero";
    case ILMAP_SERIAL_COUNT: return "entry count above the format's limit";
    case ILMAP_SERIAL_SIZE: return "total size does not match the entry count";
    case ILMAP_SERIAL_TRUNCATED: return "the data ends before the size the header declares";
    case ILMAP_SERIAL_TRAILING: return "bytes follow the map";
    case ILMAP_SERIAL_CHECKSUM: return "CRC-32C mismatch: the data was altered";
    case ILMAP_SERIAL_ORDER: return "a strict map's entries are not strictly ascending";
    case ILMAP_SERIAL_NATIVE: return "native map entries are invalid";
    }
    return "unknown defect";
}

static ilmap_status refuse(ilmap_serial_error *err, ilmap_serial_defect d, ilmap_status cause,
                           size_t offset, size_t index)
{
    if (err) {
        err->defect = d;
        err->cause = cause;
        err->offset = offset;
        err->index = index;
    }
    return ILMAP_E_FORMAT;
}

#define REFUSE(d, off) refuse(err, (d), ILMAP_E_FORMAT, (off), ILMAP_NO_INDEX)

static ilmap_status check_header(const uint8_t *p, size_t size, unsigned flags, ilmap_view *v,
                                 ilmap_serial_error *err)
{
    if (size < ILMAP_SERIAL_HEADER_SIZE)
        return REFUSE(ILMAP_SERIAL_TOO_SHORT, size);
    uint32_t magic = rd32(p + OFF_MAGIC);
    if (magic == ILMAP_SERIAL_MAGIC_SWAPPED)
        return REFUSE(ILMAP_SERIAL_BYTE_ORDER, OFF_MAGIC);
    if (magic != ILMAP_SERIAL_MAGIC)
        return REFUSE(ILMAP_SERIAL_BAD_MAGIC, OFF_MAGIC);
    if (rd16(p + OFF_VERSION) != ILMAP_SERIAL_VERSION)
        return REFUSE(ILMAP_SERIAL_BAD_VERSION, OFF_VERSION);
    uint32_t kind = rd16(p + OFF_KIND);
    if (kind != ILMAP_SERIAL_KIND_IL && kind != ILMAP_SERIAL_KIND_NATIVE)
        return REFUSE(ILMAP_SERIAL_KIND, OFF_KIND);
    uint32_t hflags = rd32(p + OFF_FLAGS);
    uint32_t known = kind == ILMAP_SERIAL_KIND_IL ? ILMAP_SERIAL_FLAG_LENIENT : 0;
    if (hflags & ~known)
        return REFUSE(ILMAP_SERIAL_FLAGS, OFF_FLAGS);
    uint32_t code_size = rd32(p + OFF_CODE_SIZE);
    if (kind == ILMAP_SERIAL_KIND_IL && code_size != 0)
        return REFUSE(ILMAP_SERIAL_RESERVED, OFF_CODE_SIZE);
    if (rd32(p + OFF_RESERVED) != 0)
        return REFUSE(ILMAP_SERIAL_RESERVED, OFF_RESERVED);
    uint32_t count = rd32(p + OFF_COUNT);
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return REFUSE(ILMAP_SERIAL_COUNT, OFF_COUNT);
    uint32_t total = rd32(p + OFF_TOTAL);
    if ((uint64_t)total != ILMAP_SERIAL_HEADER_SIZE + (uint64_t)count * ENTRY_SIZE)
        return REFUSE(ILMAP_SERIAL_SIZE, OFF_TOTAL);
    if (size < total)
        return REFUSE(ILMAP_SERIAL_TRUNCATED, size);
    if (size > total && !(flags & ILMAP_SERIAL_PREFIX))
        return REFUSE(ILMAP_SERIAL_TRAILING, total);
    if (rd32(p + OFF_CRC) != serial_crc(p, count))
        return REFUSE(ILMAP_SERIAL_CHECKSUM, OFF_CRC);

    v->data = p;
    v->size = total;
    v->kind = kind;
    v->flags = hflags;
    v->count = count;
    v->code_size = code_size;
    v->payload = p + ILMAP_SERIAL_HEADER_SIZE;
    return ILMAP_OK;
}

/* The order a strict map needs, without copying: ilmap_validate's rule
 * (old then new column at each index, lowest index first). */
static ilmap_status check_il_entries(const ilmap_view *v, ilmap_serial_error *err)
{
    if (v->flags & ILMAP_SERIAL_FLAG_LENIENT)
        return ILMAP_OK;
    for (uint32_t i = 1; i < v->count; i++) {
        const uint8_t *e = v->payload + (size_t)i * ENTRY_SIZE;
        if (rd32(e) <= rd32(e - ENTRY_SIZE) || rd32(e + 4) <= rd32(e - ENTRY_SIZE + 4))
            return refuse(err, ILMAP_SERIAL_ORDER, ILMAP_E_UNSORTED,
                          ILMAP_SERIAL_HEADER_SIZE + (size_t)i * ENTRY_SIZE, i);
    }
    return ILMAP_OK;
}

static ilmap_status check_native_entries(const ilmap_view *v, ilmap_serial_error *err)
{
    ilmap_native_entry *copy = NULL;
    const ilmap_native_entry *e = ilmap_view_get_native_entries(v);

    if (!e && v->count) {
        copy = malloc((size_t)v->count * sizeof *copy);
        if (!copy)
            return ILMAP_E_NOMEM;
        for (uint32_t i = 0; i < v->count; i++)
            ilmap_view_get_native_entry(v, i, &copy[i]);
        e = copy;
    }
    size_t bad = ILMAP_NO_INDEX, other;
    ilmap_status st = ilmap_native_validate(e, v->count, v->code_size, &bad, &other);
    free(copy);
    if (st == ILMAP_E_NOMEM)
        return st;
    if (st != ILMAP_OK)
        return refuse(err, ILMAP_SERIAL_NATIVE, st,
                      bad == ILMAP_NO_INDEX ? 0 : ILMAP_SERIAL_HEADER_SIZE + bad * ENTRY_SIZE,
                      bad);
    return ILMAP_OK;
}

ilmap_status ilmap_view_open(const void *buf, size_t size, unsigned flags, ilmap_view *view,
                             ilmap_serial_error *err)
{
    ilmap_view v;

    memset(&v, 0, sizeof v);
    if (view)
        memset(view, 0, sizeof *view);
    refuse(err, ILMAP_SERIAL_NONE, ILMAP_OK, 0, ILMAP_NO_INDEX);
    if (!view || (!buf && size > 0) || (flags & ~(unsigned)ILMAP_SERIAL_PREFIX)) {
        if (err)
            err->cause = ILMAP_E_INVALID_ARG;
        return ILMAP_E_INVALID_ARG;
    }
    static const uint8_t none[1];
    ilmap_status st = check_header(buf ? buf : none, buf ? size : 0, flags, &v, err);
    if (st == ILMAP_OK)
        st = v.kind == ILMAP_SERIAL_KIND_IL ? check_il_entries(&v, err)
                                            : check_native_entries(&v, err);
    if (st == ILMAP_E_NOMEM && err)
        err->cause = ILMAP_E_NOMEM;
    if (st == ILMAP_OK)
        *view = v;
    return st;
}

ilmap_status ilmap_deserialize(const void *buf, size_t size, unsigned flags, ilmap **out,
                               ilmap_serial_error *err)
{
    const unsigned known = ILMAP_SERIAL_PREFIX | ILMAP_NO_AVX2 | ILMAP_PORTABLE;
    ilmap_view v;

    if (out)
        *out = NULL;
    if (!out || (flags & ~known)) {
        refuse(err, ILMAP_SERIAL_NONE, ILMAP_E_INVALID_ARG, 0, ILMAP_NO_INDEX);
        return ILMAP_E_INVALID_ARG;
    }
    ilmap_status st = ilmap_view_open(buf, size, flags & ILMAP_SERIAL_PREFIX, &v, err);
    if (st != ILMAP_OK)
        return st;
    if (v.kind != ILMAP_SERIAL_KIND_IL)
        return REFUSE(ILMAP_SERIAL_KIND, OFF_KIND);

    const ilmap_entry *e = ilmap_view_get_entries(&v);
    ilmap_entry *copy = NULL;
    if (!e && v.count) {
        copy = malloc((size_t)v.count * sizeof *copy);
        if (!copy)
            return ILMAP_E_NOMEM;
        for (uint32_t i = 0; i < v.count; i++)
            ilmap_view_get_entry(&v, i, &copy[i]);
        e = copy;
    }
    unsigned create = (flags & (ILMAP_NO_AVX2 | ILMAP_PORTABLE)) |
                      (v.flags & ILMAP_SERIAL_FLAG_LENIENT ? ILMAP_LENIENT : 0);
    st = ilmap_create(e, v.count, create, out);
    free(copy);
    return st;
}

ilmap_status ilmap_native_deserialize(const void *buf, size_t size, unsigned flags,
                                      ilmap_native **out, ilmap_serial_error *err)
{
    ilmap_view v;

    if (out)
        *out = NULL;
    if (!out || (flags & ~(unsigned)ILMAP_SERIAL_PREFIX)) {
        refuse(err, ILMAP_SERIAL_NONE, ILMAP_E_INVALID_ARG, 0, ILMAP_NO_INDEX);
        return ILMAP_E_INVALID_ARG;
    }
    ilmap_status st = ilmap_view_open(buf, size, flags, &v, err);
    if (st != ILMAP_OK)
        return st;
    if (v.kind != ILMAP_SERIAL_KIND_NATIVE)
        return REFUSE(ILMAP_SERIAL_KIND, OFF_KIND);

    const ilmap_native_entry *e = ilmap_view_get_native_entries(&v);
    ilmap_native_entry *copy = NULL;
    if (!e && v.count) {
        copy = malloc((size_t)v.count * sizeof *copy);
        if (!copy)
            return ILMAP_E_NOMEM;
        for (uint32_t i = 0; i < v.count; i++)
            ilmap_view_get_native_entry(&v, i, &copy[i]);
        e = copy;
    }
    st = ilmap_native_from_entries(e, v.count, v.code_size, out);
    free(copy);
    return st;
}
