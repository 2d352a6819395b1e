/* ilmap_serialize and ilmap_native_serialize: header, entries, checksum. */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/copy_out.h"
#include "serial/format.h"

/* Writes header and entries to out, which has room for all of them.
 * `entries` are count entries of three host-order 32-bit fields each. */
static void write_map(uint8_t *out, uint32_t kind, uint32_t flags, uint32_t code_size,
                      const unsigned char *entries, uint32_t count)
{
    memset(out, 0, ILMAP_SERIAL_HEADER_SIZE);
    wr32(out + OFF_MAGIC, ILMAP_SERIAL_MAGIC);
    wr16(out + OFF_VERSION, ILMAP_SERIAL_VERSION);
    wr16(out + OFF_KIND, kind);
    wr32(out + OFF_FLAGS, flags);
    wr32(out + OFF_COUNT, count);
    wr32(out + OFF_CODE_SIZE, code_size);
    wr32(out + OFF_TOTAL, ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE);
    for (size_t i = 0; i < (size_t)count * 3; i++) {
        uint32_t word;
        memcpy(&word, entries + 4 * i, sizeof word);
        wr32(out + ILMAP_SERIAL_HEADER_SIZE + 4 * i, word);
    }
    wr32(out + OFF_CRC, serial_crc(out, count));
}

/* The buffer protocol (common/copy_out.h) with bytes as items: writes the
 * map of `count` entries into out when it fits, else into a scratch
 * buffer whose first cap bytes are copied out. */
static ilmap_status write_out(uint32_t kind, uint32_t flags, uint32_t code_size,
                              const unsigned char *entries, uint32_t count, size_t cap,
                              size_t *total, void *out)
{
    size_t needed = ILMAP_SERIAL_HEADER_SIZE + (size_t)count * ENTRY_SIZE;

    if (cap >= needed) {
        write_map(out, kind, flags, code_size, entries, count);
    } else if (cap > 0) {
        uint8_t *scratch = malloc(needed);
        if (!scratch)
            return ILMAP_E_NOMEM;
        write_map(scratch, kind, flags, code_size, entries, count);
        memcpy(out, scratch, copy_out_fit(cap, needed));
        free(scratch);
    }
    return copy_out_done(cap, needed, total);
}

/* Copies a map's first `count` entries to out (ilmap_export() or
 * ilmap_native_export(); count is the map's count, so it cannot fail). */
typedef void (*export_fn)(const void *m, size_t count, void *out);

static void export_il(const void *m, size_t count, void *out)
{
    size_t n;
    (void)ilmap_export(m, count, &n, out);
}

static void export_native(const void *m, size_t count, void *out)
{
    size_t n;
    (void)ilmap_native_export(m, count, &n, out);
}

/* Both kinds: ilmap_entry and ilmap_native_entry are three 32-bit fields
 * with no padding (ilmap.h asserts it), so an exported array is the
 * entries' words in order. count, flags and code_size are m's (0 for a
 * NULL m, which is refused). */
static ilmap_status serialize(const void *m, size_t count, export_fn export_entries,
                              uint32_t kind, uint32_t flags, uint32_t code_size, size_t cap,
                              size_t *total, void *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return ILMAP_E_LIMIT;
    if (cap == 0)
        return copy_out_done(0, ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE, total);

    unsigned char *entries = malloc((count ? count : 1) * ENTRY_SIZE);
    if (!entries)
        return ILMAP_E_NOMEM;
    export_entries(m, count, entries);
    st = write_out(kind, flags, code_size, entries, (uint32_t)count, cap, total, out);
    free(entries);
    return st;
}

ilmap_status ilmap_serialize(const ilmap *m, size_t cap, size_t *total, void *out)
{
    uint32_t flags = (ilmap_get_flags(m) & ILMAP_LENIENT) ? ILMAP_SERIAL_FLAG_LENIENT : 0;
    return serialize(m, ilmap_get_count(m), export_il, ILMAP_SERIAL_KIND_IL, flags, 0, cap, total,
                     out);
}

ilmap_status ilmap_native_serialize(const ilmap_native *m, size_t cap, size_t *total, void *out)
{
    return serialize(m, ilmap_native_get_count(m), export_native, ILMAP_SERIAL_KIND_NATIVE, 0,
                     ilmap_native_get_code_size(m), cap, total, out);
}
