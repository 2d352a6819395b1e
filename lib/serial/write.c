/* ilmap_serialize and ilmap_native_serialize: header, entries, checksum. */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/copy_out.h"
#include "serial/format.h"

/* Writes header and entries (three u32 each, as `words` gives them) to
 * out, which has room for all of them. */
static void write_map(uint8_t *out, uint32_t kind, uint32_t flags, uint32_t code_size,
                      const uint32_t *words, uint32_t count)
{
    memset(out, 0, ILMAP_SERIAL_HEADER_SIZE);
    wr32(out + OFF_MAGIC, ILMAP_SERIAL_MAGIC);
    wr16(out + OFF_VERSION, ILMAP_SERIAL_VERSION);
    wr16(out + OFF_KIND, kind);
    wr32(out + OFF_FLAGS, flags);
    wr32(out + OFF_COUNT, count);
    wr32(out + OFF_CODE_SIZE, code_size);
    wr32(out + OFF_TOTAL, ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE);
    for (size_t i = 0; i < (size_t)count * 3; i++)
        wr32(out + ILMAP_SERIAL_HEADER_SIZE + 4 * i, words[i]);
    wr32(out + OFF_CRC, serial_crc(out, count));
}

/* The buffer protocol (common/copy_out.h) with bytes as items, shared by
 * both kinds: writes the map of `count` entries (three u32 each, as
 * `words` gives them) into out when it fits, else into a scratch buffer
 * whose first cap bytes are copied out. */
static ilmap_status write_out(uint32_t kind, uint32_t flags, uint32_t code_size,
                              const uint32_t *words, uint32_t count, size_t cap, size_t *total,
                              void *out)
{
    size_t needed = ILMAP_SERIAL_HEADER_SIZE + (size_t)count * ENTRY_SIZE;

    if (cap >= needed) {
        write_map(out, kind, flags, code_size, words, count);
    } else if (cap > 0) {
        uint8_t *scratch = malloc(needed);
        if (!scratch)
            return ILMAP_E_NOMEM;
        write_map(scratch, kind, flags, code_size, words, count);
        memcpy(out, scratch, copy_out_fit(cap, needed));
        free(scratch);
    }
    return copy_out_done(cap, needed, total);
}

ilmap_status ilmap_serialize(const ilmap *m, size_t cap, size_t *total, void *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;

    size_t count = ilmap_get_count(m);
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return ILMAP_E_LIMIT;
    if (cap == 0)
        return copy_out_done(0, ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE, total);

    /* ilmap_entry is three u32 with no padding (ilmap.h asserts it). */
    ilmap_entry *e = malloc((count ? count : 1) * sizeof *e);
    uint32_t *words = malloc((count ? count : 1) * 3 * sizeof *words);
    if (!e || !words) {
        free(e);
        free(words);
        return ILMAP_E_NOMEM;
    }
    size_t n;
    (void)ilmap_export(m, count, &n, e);
    for (size_t i = 0; i < count; i++) {
        words[3 * i] = e[i].old_offset;
        words[3 * i + 1] = e[i].new_offset;
        words[3 * i + 2] = (uint32_t)e[i].accurate;
    }
    st = write_out(ILMAP_SERIAL_KIND_IL,
                   (ilmap_get_flags(m) & ILMAP_LENIENT) ? ILMAP_SERIAL_FLAG_LENIENT : 0, 0, words,
                   (uint32_t)count, cap, total, out);
    free(words);
    free(e);
    return st;
}

ilmap_status ilmap_native_serialize(const ilmap_native *m, size_t cap, size_t *total, void *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;

    size_t count = ilmap_native_get_count(m);
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return ILMAP_E_LIMIT;
    if (cap == 0)
        return copy_out_done(0, ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE, total);

    ilmap_native_entry *e = malloc((count ? count : 1) * sizeof *e);
    uint32_t *words = malloc((count ? count : 1) * 3 * sizeof *words);
    if (!e || !words) {
        free(e);
        free(words);
        return ILMAP_E_NOMEM;
    }
    size_t n;
    (void)ilmap_native_export(m, count, &n, e);
    for (size_t i = 0; i < count; i++) {
        words[3 * i] = e[i].il_offset;
        words[3 * i + 1] = e[i].native_start;
        words[3 * i + 2] = e[i].native_end;
    }
    st = write_out(ILMAP_SERIAL_KIND_NATIVE, 0, ilmap_native_get_code_size(m), words,
                   (uint32_t)count, cap, total, out);
    free(words);
    free(e);
    return st;
}
