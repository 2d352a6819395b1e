/*
 * libFuzzer target for IL-to-native maps read from an exported array
 * (ilmap_native_from_entries, ilmap_native_validate, the lookups both
 * ways, export, serialize + deserialize). The input's first byte picks an
 * encoding: odd, compact entries (IL one byte, 0xFD-0xFF the three
 * special values; start and end one byte each; code size one byte), so
 * that overlaps, duplicates and end-0 entries are common; even, whole
 * entries (three little-endian uint32_t) after a uint32_t code size.
 * Checked against a model written from doc/native-to-il.md:
 *  - from_entries refuses exactly what ilmap_native_validate refuses;
 *  - the export is the input sorted stably into section 1's order
 *    (PROLOG, normal by IL, EPILOG, NO_MAPPING; then by native start);
 *  - native -> IL is section 2's scan of that order (first match, the
 *    table of results, the matched entry's index), at every offset of
 *    small code and at every breakpoint +-1 of large code;
 *  - IL -> native is the floor entry among normal entries, lowest start
 *    first, exact for the special values;
 *  - serializing and loading back answers the same.
 * The same entries are then read as JIT boundaries (start: native offset,
 * end's low bits: source, CALL_INSTRUCTION included), put in native
 * order and built in both flavours with a COR_IL_MAP whose first new
 * offset is above 0 (IL below it translates to PROLOG): the build's
 * export must read back through from_entries and answer as the built map
 * does below the code size (doc/native-to-il.md#accepts).
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-serial.h"
#include "ilmap.h"

#include "fuzz.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int special(uint32_t il)
{
    return il == ILMAP_PROLOG || il == ILMAP_EPILOG || il == ILMAP_NO_MAPPING;
}

/* Section 1's classes. */
static int class_of(uint32_t il)
{
    return il == ILMAP_PROLOG ? 0 : il == ILMAP_EPILOG ? 2 : il == ILMAP_NO_MAPPING ? 3 : 1;
}

static int before(const ilmap_native_entry *a, const ilmap_native_entry *b)
{
    int ca = class_of(a->il_offset), cb = class_of(b->il_offset);
    if (ca != cb)
        return ca < cb;
    if (ca == 1 && a->il_offset != b->il_offset)
        return a->il_offset < b->il_offset;
    return a->native_start < b->native_start;
}

/* Section 2: the first entry of the sorted array matching x. */
static size_t scan(const ilmap_native_entry *e, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (x >= e[i].native_start &&
            (x < e[i].native_end || (e[i].native_end == 0 && e[i].il_offset != ILMAP_PROLOG)))
            return i;
    return ILMAP_NO_INDEX;
}

static void check_native_to_il(const ilmap_native *m, const ilmap_native_entry *e, size_t n,
                               uint32_t x)
{
    uint32_t il = 1;
    size_t index = 0;
    unsigned kind = ilmap_native_to_il_detail(m, x, &il, &index, NULL);
    size_t want = scan(e, n, x);
    REQUIRE(index == want);
    if (want == ILMAP_NO_INDEX) {
        REQUIRE(kind == ILMAP_MAPPING_NO_INFO && il == 0);
        return;
    }
    uint32_t wil = e[want].il_offset;
    if (wil == ILMAP_PROLOG)
        REQUIRE(kind == ILMAP_MAPPING_PROLOG && il == 0);
    else if (wil == ILMAP_NO_MAPPING)
        REQUIRE(kind == ILMAP_MAPPING_UNMAPPED_ADDRESS && il == 0);
    else if (wil == ILMAP_EPILOG)
        REQUIRE(kind == ILMAP_MAPPING_EPILOG && il == ilmap_native_get_last_il(m));
    else
        REQUIRE(il == wil && kind == (x == e[want].native_start ? ILMAP_MAPPING_EXACT
                                                                 : ILMAP_MAPPING_APPROXIMATE));
    uint32_t il2 = 1;
    REQUIRE(ilmap_native_to_il(m, x, &il2) == kind && il2 == il);
}

static void check_il_to_native(const ilmap_native *m, const ilmap_native_entry *e, size_t n,
                               uint32_t q)
{
    size_t want = ILMAP_NO_INDEX;
    for (size_t i = 0; i < n; i++) {
        uint32_t il = e[i].il_offset;
        int ok = special(q) ? il == q : !special(il) && il <= q;
        /* sorted: the first entry of the greatest IL <= q */
        if (ok && (want == ILMAP_NO_INDEX || (!special(q) && il > e[want].il_offset)))
            want = i;
    }
    ilmap_native_entry got;
    size_t index = 0;
    int matched = -1;
    ilmap_status st = ilmap_il_to_native(m, q, &got, &index, &matched);
    if (want == ILMAP_NO_INDEX) {
        REQUIRE(st == ILMAP_E_NOT_FOUND && index == ILMAP_NO_INDEX && matched == 0);
        return;
    }
    REQUIRE(st == ILMAP_OK && index == want && matched == (e[want].il_offset == q));
    REQUIRE(got.il_offset == e[want].il_offset && got.native_start == e[want].native_start);
}

static void check_map(const ilmap_native *m, const ilmap_native_entry *e, size_t n,
                      uint32_t code_size)
{
    if (code_size <= 4096) {
        for (uint64_t x = 0; x <= (uint64_t)code_size + 2; x++)
            check_native_to_il(m, e, n, (uint32_t)x);
    }
    for (size_t i = 0; i < n; i++) {
        const uint32_t probes[] = { e[i].native_start,     e[i].native_start - 1,
                                    e[i].native_start + 1, e[i].native_end,
                                    e[i].native_end - 1,   e[i].native_end + 1 };
        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
            check_native_to_il(m, e, n, probes[k]);
        check_il_to_native(m, e, n, e[i].il_offset);
        check_il_to_native(m, e, n, e[i].il_offset + 1);
        check_il_to_native(m, e, n, e[i].il_offset - 1);
    }
    check_native_to_il(m, e, n, 0xFFFFFFFFu);
    check_il_to_native(m, e, n, 0);
    check_il_to_native(m, e, n, ILMAP_PROLOG);
    check_il_to_native(m, e, n, ILMAP_EPILOG);
    check_il_to_native(m, e, n, ILMAP_NO_MAPPING);
}

/* Where a built map and its export, read back, answer alike: below the
 * code size, and below the end-unknown entry's start when it is a PROLOG
 * (its stored end 0 matches nothing, its exported range does). */
static uint32_t read_back_limit(const ilmap_native *m, size_t n)
{
    uint32_t limit = ilmap_native_get_code_size(m);
    ilmap_native_record *r = malloc((n ? n : 1) * sizeof *r);
    size_t total = 0;

    if (!r)
        return 0;
    REQUIRE(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, n, &total, r) == ILMAP_OK);
    for (size_t i = 0; i < total; i++)
        if ((r[i].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) &&
            r[i].il_offset == ILMAP_PROLOG)
            limit = r[i].native_start;
    free(r);
    return limit;
}

static void check_build_round_trip(const ilmap_native_entry *in, size_t n, uint32_t code_size)
{
    ilmap_boundary *jit = malloc((n ? n : 1) * sizeof *jit);
    ilmap_native_entry *ex = malloc((n ? n : 1) * sizeof *ex);
    ilmap_entry map[8];
    ilmap *cor = NULL;
    uint32_t top = code_size;

    if (!jit || !ex)
        goto done;
    for (size_t i = 0; i < n; i++) {
        ilmap_boundary b = { in[i].native_start, in[i].il_offset,
                             in[i].native_end & (ILMAP_SOURCE_SEQUENCE_POINT |
                                                 ILMAP_SOURCE_CALL_INSTRUCTION) };
        size_t j = i;
        while (j > 0 && jit[j - 1].native_offset > b.native_offset) {
            jit[j] = jit[j - 1];
            j--;
        }
        jit[j] = b;
        if (b.native_offset > top)
            top = b.native_offset;
    }
    /* A probe of 1 + code_size % 7 bytes before old offset 0, then one
     * before every third instruction. */
    for (uint32_t i = 0; i < 8; i++) {
        map[i].old_offset = 2 * i;
        map[i].new_offset = 1 + code_size % 7 + 3 * i + i / 3;
        map[i].accurate = 1;
    }
    if (ilmap_create(map, 8, 0, &cor) != ILMAP_OK)
        goto done;
    for (int dac = 0; dac < 2; dac++) {
        ilmap_native *built = NULL, *back = NULL;
        ilmap_status st = ilmap_native_build(jit, n, cor, top, dac ? ILMAP_DAC : 0, &built);
        if (st == ILMAP_E_NOMEM)
            continue;
        REQUIRE(st == ILMAP_OK);
        size_t total = 0;
        REQUIRE(ilmap_native_export(built, n, &total, ex) == ILMAP_OK);
        st = ilmap_native_from_entries(ex, total, top, &back);
        REQUIRE(st == ILMAP_OK || st == ILMAP_E_NOMEM);
        if (back) {
            uint32_t limit = read_back_limit(built, total);
            for (size_t i = 0; i < total; i++) {
                const uint32_t probes[] = { ex[i].native_start, ex[i].native_start + 1,
                                            ex[i].native_end - 1 };
                for (size_t k = 0; k < 3; k++) {
                    uint32_t x = probes[k], il1 = 0, il2 = 0, w1 = 0, w2 = 0;
                    size_t k1 = 0, k2 = 0;
                    if (x >= limit)
                        continue;
                    unsigned r1 = ilmap_native_to_il_detail(built, x, &il1, &k1, &w1);
                    unsigned r2 = ilmap_native_to_il_detail(back, x, &il2, &k2, &w2);
                    REQUIRE(r1 == r2 && k1 == k2 && w1 == w2);
                    REQUIRE(r1 == ILMAP_MAPPING_EPILOG || il1 == il2);
                }
            }
        }
        ilmap_native_free(back);
        ilmap_native_free(built);
    }
done:
    ilmap_free(cor);
    free(jit);
    free(ex);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int compact = data[0] & 1;
    data++;
    size--;
    uint32_t code_size;
    size_t n;
    if (compact) {
        if (size < 1)
            return 0;
        code_size = data[0];
        data++;
        size--;
        n = size / 3;
    } else {
        if (size < 4)
            return 0;
        code_size = le32(data);
        data += 4;
        size -= 4;
        n = size / 12;
    }
    ilmap_native_entry *in = malloc((n ? n : 1) * sizeof *in);
    ilmap_native_entry *sorted = malloc((n ? n : 1) * sizeof *sorted);
    ilmap_native_entry *out = malloc((n ? n : 1) * sizeof *out);
    if (!in || !sorted || !out)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (compact) {
            const uint8_t *p = data + 3 * i;
            uint32_t il = p[0] >= 0xFD ? 0xFFFFFF00u | p[0] : p[0];
            in[i] = (ilmap_native_entry){ il, p[1], p[2] };
        } else {
            const uint8_t *p = data + 12 * i;
            in[i] = (ilmap_native_entry){ le32(p), le32(p + 4), le32(p + 8) };
        }
    }

    check_build_round_trip(in, n, code_size);

    size_t bad = 0, other = 0;
    ilmap_status vst = ilmap_native_validate(in, n, code_size, &bad, &other);
    ilmap_native *m = (ilmap_native *)1;
    ilmap_status st = ilmap_native_from_entries(in, n, code_size, &m);
    if (st == ILMAP_E_NOMEM || vst == ILMAP_E_NOMEM)
        goto done;
    REQUIRE(st == vst);
    if (st != ILMAP_OK) {
        REQUIRE(m == NULL && bad < n);
        REQUIRE(st == ILMAP_E_CODE_SIZE || st == ILMAP_E_BAD_RANGE || st == ILMAP_E_OVERLAP);
        REQUIRE((st == ILMAP_E_OVERLAP) == (other != ILMAP_NO_INDEX));
        goto done;
    }
    REQUIRE(bad == ILMAP_NO_INDEX && other == ILMAP_NO_INDEX);

    /* The model's order: a stable insertion sort (inputs are small). */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 && before(&in[i], &sorted[j - 1])) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = in[i];
    }
    size_t total = 0;
    REQUIRE(ilmap_native_export(m, n, &total, out) == ILMAP_OK && total == n);
    REQUIRE(n == 0 || memcmp(out, sorted, n * sizeof *out) == 0);
    REQUIRE(ilmap_native_get_count(m) == n && ilmap_native_get_code_size(m) == code_size);
    check_map(m, sorted, n, code_size);

    /* Serialized and loaded back: the same map. */
    size_t bytes = 0;
    REQUIRE(ilmap_native_serialize(m, 0, &bytes, NULL) == ILMAP_OK);
    void *buf = malloc(bytes ? bytes : 1);
    if (buf && ilmap_native_serialize(m, bytes, &bytes, buf) == ILMAP_OK) {
        ilmap_native *back = NULL;
        ilmap_serial_error err;
        ilmap_status bst = ilmap_native_deserialize(buf, bytes, 0, &back, &err);
        REQUIRE(bst == ILMAP_OK || bst == ILMAP_E_NOMEM);
        if (back) {
            REQUIRE(ilmap_native_export(back, n, &total, out) == ILMAP_OK && total == n);
            REQUIRE(n == 0 || memcmp(out, sorted, n * sizeof *out) == 0);
            REQUIRE(ilmap_native_get_last_il(back) == ilmap_native_get_last_il(m));
            check_map(back, sorted, n, code_size);
        }
        ilmap_native_free(back);
    }
    free(buf);
    ilmap_native_free(m);
done:
    free(in);
    free(sorted);
    free(out);
    return 0;
}
