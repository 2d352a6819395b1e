/*
 * libFuzzer target for the serialized-map readers (ilmap_view_open,
 * ilmap_deserialize, ilmap_native_deserialize, the view lookups): any
 * bytes, then the same bytes with a plausible, correctly sealed header
 * so that the entry checks behind the header and checksum are reached
 * too. Anything accepted must serialize back to the same bytes and answer
 * through the view exactly as through the built map.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-serial.h"

#include "fuzz.h"

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static void check_il(const uint8_t *data, size_t size)
{
    ilmap *m = NULL;
    ilmap_serial_error err;
    if (ilmap_deserialize(data, size, 0, &m, &err) != ILMAP_OK) {
        REQUIRE(m == NULL && err.defect != ILMAP_SERIAL_NONE);
        return;
    }
    size_t need = 0;
    REQUIRE(ilmap_serialize(m, 0, &need, NULL) == ILMAP_OK && need == size);
    uint8_t *again = malloc(need);
    REQUIRE(again && ilmap_serialize(m, need, &need, again) == ILMAP_OK);
    REQUIRE(memcmp(again, data, size) == 0);
    free(again);
    ilmap_view v;
    REQUIRE(ilmap_view_open(data, size, 0, &v, NULL) == ILMAP_OK);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t x = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 |
                     (uint32_t)data[i + 3] << 24;
        REQUIRE(ilmap_view_old_to_new(&v, x) == ilmap_old_to_new(m, x));
        REQUIRE(ilmap_view_new_to_old(&v, x) == ilmap_new_to_old(m, x));
        REQUIRE(ilmap_view_old_to_new(&v, x & 0xFF) == ilmap_old_to_new(m, x & 0xFF));
    }
    ilmap_free(m);
}

static void check_all(const uint8_t *data, size_t size)
{
    check_il(data, size);
    ilmap_native *n = NULL;
    if (ilmap_native_deserialize(data, size, 0, &n, NULL) == ILMAP_OK) {
        size_t total = 0;
        REQUIRE(ilmap_native_export(n, 0, &total, NULL) == ILMAP_OK);
        REQUIRE(32 + 12 * total == size);
        ilmap_native_free(n);
    }
    ilmap_view v;
    if (ilmap_view_open(data, size, ILMAP_SERIAL_PREFIX, &v, NULL) == ILMAP_OK)
        REQUIRE(v.size <= size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_all(data, size);
    if (size < ILMAP_SERIAL_HEADER_SIZE)
        return 0;

    /* Keep the fuzzer's entries and a few of its header choices (kind,
     * the lenient flag); make the rest consistent. */
    size_t count = (size - ILMAP_SERIAL_HEADER_SIZE) / 12;
    size_t fixed_size = ILMAP_SERIAL_HEADER_SIZE + count * 12;
    uint8_t *copy = malloc(fixed_size);
    if (!copy)
        return 0;
    memcpy(copy, data, fixed_size);
    uint32_t kind = 1 + (data[6] & 1);
    put32(copy, ILMAP_SERIAL_MAGIC);
    copy[4] = 1, copy[5] = 0, copy[6] = (uint8_t)kind, copy[7] = 0;
    put32(copy + 8, kind == 1 ? (data[8] & 1u) : 0);
    put32(copy + 12, (uint32_t)count);
    if (kind == 1)
        put32(copy + 16, 0);
    put32(copy + 20, 0);
    put32(copy + 24, (uint32_t)fixed_size);
    uint32_t crc = ilmap_crc32c(0, copy, 28);
    put32(copy + 28, ilmap_crc32c(crc, copy + 32, count * 12));
    check_all(copy, fixed_size);
    free(copy);
    return 0;
}
