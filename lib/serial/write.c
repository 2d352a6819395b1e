/* ilmap_serialize and ilmap_native_serialize: header, entries, checksum. */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "serial/format.h"

/* Writes header and entries (three u32 each, as `words` gives them). The
 * caller has checked cap. */
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

/* The two-call protocol shared by both kinds; `needed` is known. */
static ilmap_status check_cap(const void *buf, size_t cap, size_t needed)
{
    if (cap == 0)
        return ILMAP_OK;
    if (!buf || cap < needed)
        return ILMAP_E_INVALID_ARG;
    return ILMAP_OK;
}

ilmap_status ilmap_serialize(const ilmap *m, void *buf, size_t cap, size_t *size)
{
    if (size)
        *size = 0;
    if (!m || !size)
        return ILMAP_E_INVALID_ARG;

    size_t count = ilmap_count(m);
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return ILMAP_E_LIMIT;
    size_t needed = ILMAP_SERIAL_HEADER_SIZE + count * ENTRY_SIZE;
    *size = needed;
    ilmap_status st = check_cap(buf, cap, needed);
    if (st != ILMAP_OK || cap == 0)
        return st;

    /* ilmap_entry is three u32 with no padding (ilmap.h asserts it). */
    ilmap_entry *e = malloc((count ? count : 1) * sizeof *e);
    if (!e)
        return ILMAP_E_NOMEM;
    size_t total;
    ilmap_entries(m, count, &total, e);
    uint32_t *words = malloc((count ? count : 1) * 3 * sizeof *words);
    if (!words) {
        free(e);
        return ILMAP_E_NOMEM;
    }
    for (size_t i = 0; i < count; i++) {
        words[3 * i] = e[i].old_offset;
        words[3 * i + 1] = e[i].new_offset;
        words[3 * i + 2] = (uint32_t)e[i].accurate;
    }
    write_map(buf, ILMAP_SERIAL_KIND_IL, ilmap_is_lenient(m) ? ILMAP_SERIAL_FLAG_LENIENT : 0, 0,
              words, (uint32_t)count);
    free(words);
    free(e);
    return ILMAP_OK;
}

ilmap_status ilmap_native_serialize(const ilmap_native *m, void *buf, size_t cap, size_t *size)
{
    if (size)
        *size = 0;
    if (!m || !size)
        return ILMAP_E_INVALID_ARG;

    uint32_t count = 0;
    if (ilmap_native_export(m, 0, &count, NULL) != ILMAP_OK)
        return ILMAP_E_INVALID_ARG;
    if (count > ILMAP_SERIAL_MAX_ENTRIES)
        return ILMAP_E_LIMIT;
    size_t needed = ILMAP_SERIAL_HEADER_SIZE + (size_t)count * ENTRY_SIZE;
    *size = needed;
    ilmap_status st = check_cap(buf, cap, needed);
    if (st != ILMAP_OK || cap == 0)
        return st;

    ilmap_native_entry *e = malloc((count ? count : 1) * sizeof *e);
    uint32_t *words = malloc((count ? (size_t)count : 1) * 3 * sizeof *words);
    if (!e || !words) {
        free(e);
        free(words);
        return ILMAP_E_NOMEM;
    }
    uint32_t total;
    ilmap_native_export(m, count, &total, e);
    for (size_t i = 0; i < count; i++) {
        words[3 * i] = e[i].il_offset;
        words[3 * i + 1] = e[i].native_start;
        words[3 * i + 2] = e[i].native_end;
    }
    write_map(buf, ILMAP_SERIAL_KIND_NATIVE, 0, ilmap_native_code_size(m), words, count);
    free(words);
    free(e);
    return ILMAP_OK;
}
