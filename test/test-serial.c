/*
 * The serialized form: CRC-32C vectors, round trips of IL and native maps
 * (strict, lenient, special values, empty), zero-copy views and their
 * lookups against the indexed map's, and refusals: every truncation,
 * every single-bit flip, each header defect (with a valid checksum so
 * that the defect itself is what is caught), a foreign byte order, and
 * random and mutated bytes (run under ASan, nothing may be read out of
 * bounds). Golden files (test/data/) pin the bytes across hosts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilmap-serial.h"
#include "serial/crc32c.h"
#include "test.h"

static void crc_vectors(void)
{
    CHECK_EQ_U32(ilmap_crc32c(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ_U32(ilmap_crc32c(ilmap_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
    CHECK_EQ_U32(ilmap_crc32c(0, NULL, 0), 0);
    uint8_t zeros[32] = {0};
    CHECK_EQ_U32(ilmap_crc32c(0, zeros, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
    CHECK_EQ_U32(crc32c_portable(0, zeros, 32), 0x8A9136AAu);

    /* Whichever code runs (the CPU's instruction or the table) agrees with
     * a bit-at-a-time reference at every length and alignment. */
    static uint8_t buf[300];
    prng rng;
    rng = prng_init(7);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)prng_u32(&rng);
    for (size_t start = 0; start < 9; start++) {
        for (size_t len = 0; start + len <= sizeof buf; len += 1 + len / 8) {
            uint32_t ref = 0xFFFFFFFFu;
            for (size_t i = start; i < start + len; i++) {
                ref ^= buf[i];
                for (int k = 0; k < 8; k++)
                    ref = ref & 1 ? (ref >> 1) ^ 0x82F63B78u : ref >> 1;
            }
            ref = ~ref;
            CHECK_EQ_U32(ilmap_crc32c(0, buf + start, len), ref);
            CHECK_EQ_U32(crc32c_portable(0, buf + start, len), ref);
        }
    }
}

/* ilmap-serial.h: the entries are usable in place only on a little-endian
 * host with a 4-byte aligned payload; elsewhere (a big-endian host such
 * as s390x, or an odd address) the getters return NULL and
 * ilmap_view_get_entry() decodes. The byte order is found here
 * independently of the library's own test. */
static int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static int expect_in_place(const ilmap_view *v)
{
    return host_is_little_endian() && v->payload && (uintptr_t)v->payload % 4 == 0;
}

static ilmap *random_il_map(prng *rng, ilmap_entry *e, size_t *n)
{
    int lenient = prng_below(rng, 4) == 0;
    size_t count = prng_below(rng, 5) == 0 ? 0 : 1 + prng_below(rng, 60);
    uint32_t o = prng_below(rng, 10), v = prng_below(rng, 10);
    for (size_t i = 0; i < count; i++) {
        e[i].old_offset = lenient ? prng_below(rng, 50) : o;
        e[i].new_offset = lenient ? prng_below(rng, 50) : v;
        e[i].accurate = (int32_t)prng_below(rng, 3) - 1;
        o += 1 + prng_below(rng, 5);
        v += 1 + prng_below(rng, 9);
    }
    if (!lenient && count && prng_below(rng, 4) == 0)
        e[count - 1].new_offset = ILMAP_NO_MAPPING; /* special values travel too */
    *n = count;
    ilmap *m = NULL;
    CHECK(ilmap_create(e, count, lenient ? ILMAP_LENIENT : 0, &m) == ILMAP_OK);
    return m;
}

static uint8_t *serialize(const ilmap *m, size_t *size)
{
    size_t need = 0;
    CHECK(ilmap_serialize(m, 0, &need, NULL) == ILMAP_OK);
    uint8_t *buf = malloc(need + 8);
    size_t got = 0;
    CHECK(ilmap_serialize(m, need + 8, &got, buf) == ILMAP_OK && got == need);
    *size = need;
    return buf;
}

/* Re-seals a header after an edit so that only the edit is wrong. */
static void reseal(uint8_t *buf, size_t size)
{
    if (size < ILMAP_SERIAL_HEADER_SIZE)
        return;
    uint32_t crc = ilmap_crc32c(0, buf, 28);
    crc = ilmap_crc32c(crc, buf + 32, size - 32);
    buf[28] = (uint8_t)crc, buf[29] = (uint8_t)(crc >> 8), buf[30] = (uint8_t)(crc >> 16);
    buf[31] = (uint8_t)(crc >> 24);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static const uint32_t probe_points[] = {0,
                                        1,
                                        2,
                                        5,
                                        9,
                                        17,
                                        33,
                                        64,
                                        100,
                                        200,
                                        300,
                                        1000,
                                        0x7FFFFFFF,
                                        0x80000000u,
                                        0xFFFFFFFCu,
                                        ILMAP_EPILOG,
                                        ILMAP_PROLOG,
                                        ILMAP_NO_MAPPING};

static ilmap_status serialize_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_serialize(ctx, cap, total, out);
}

static ilmap_status native_serialize_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_native_serialize(ctx, cap, total, out);
}

static void il_round_trips(prng *rng, int rounds)
{
    ilmap_entry e[64], back[64];

    for (int round = 0; round < rounds; round++) {
        size_t n, size;
        ilmap *m = random_il_map(rng, e, &n);
        uint8_t *buf = serialize(m, &size);
        CHECK(size == 32 + 12 * n);
        /* The buffer protocol with bytes as items. */
        if (round < 20)
            test_copy_out_protocol("ilmap_serialize", serialize_call, m, buf, size, 1);

        ilmap_serial_error err;
        ilmap *l = NULL;
        CHECK(ilmap_deserialize(buf, size, 0, &l, &err) == ILMAP_OK);
        CHECK(err.defect == ILMAP_SERIAL_NONE && err.index == ILMAP_NO_INDEX);
        size_t nb = 0;
        CHECK(ilmap_export(l, 64, &nb, back) == ILMAP_OK && nb == n);
        CHECK(n == 0 || memcmp(back, e, n * sizeof *e) == 0);
        CHECK(ilmap_get_flags(l) == ilmap_get_flags(m));

        /* The view, in place and at an odd address. */
        ilmap_view v;
        CHECK(ilmap_view_open(buf, size, 0, &v, NULL) == ILMAP_OK);
        CHECK(v.count == n && v.kind == ILMAP_SERIAL_KIND_IL && v.size == size);
        const ilmap_entry *in_place = ilmap_view_get_entries(&v);
        if (expect_in_place(&v))
            CHECK(in_place != NULL && (n == 0 || memcmp(in_place, e, n * sizeof *e) == 0));
        else
            CHECK(in_place == NULL);
        for (size_t i = 0; i < n; i++) {
            ilmap_entry one;
            CHECK(ilmap_view_get_entry(&v, i, &one) == ILMAP_OK);
            CHECK(memcmp(&one, &e[i], sizeof one) == 0);
        }
        CHECK(ilmap_view_get_native_entries(&v) == NULL);
        uint8_t *odd = malloc(size + 1);
        memcpy(odd + 1, buf, size);
        ilmap_view vo;
        CHECK(ilmap_view_open(odd + 1, size, 0, &vo, NULL) == ILMAP_OK);
        CHECK(ilmap_view_get_entries(&vo) == NULL);
        for (size_t i = 0; i < n; i++) {
            ilmap_entry one;
            CHECK(ilmap_view_get_entry(&vo, i, &one) == ILMAP_OK);
            CHECK(memcmp(&one, &e[i], sizeof one) == 0);
        }
        ilmap_entry none;
        CHECK(ilmap_view_get_entry(&vo, n, &none) == ILMAP_E_INVALID_ARG);
        for (uint32_t x = 0; x < 400; x++) {
            CHECK_EQ_U32(ilmap_view_old_to_new(&vo, x), ilmap_old_to_new(m, x));
            CHECK_EQ_U32(ilmap_view_new_to_old(&v, x), ilmap_new_to_old(m, x));
        }
        for (size_t i = 0; i < sizeof probe_points / sizeof probe_points[0]; i++) {
            CHECK_EQ_U32(ilmap_view_old_to_new(&v, probe_points[i]),
                         ilmap_old_to_new(m, probe_points[i]));
            CHECK_EQ_U32(ilmap_view_new_to_old(&vo, probe_points[i]),
                         ilmap_new_to_old(m, probe_points[i]));
        }

        /* Truncations and trailing bytes. */
        for (size_t cut = 0; cut < size; cut++) {
            ilmap *x = (ilmap *)1;
            CHECK(ilmap_deserialize(buf, cut, 0, &x, &err) == ILMAP_E_FORMAT && x == NULL);
            CHECK(err.defect == (cut < 32 ? ILMAP_SERIAL_TOO_SHORT : ILMAP_SERIAL_TRUNCATED));
        }
        ilmap *x = NULL;
        CHECK(ilmap_deserialize(buf, size + 8, 0, &x, &err) == ILMAP_E_FORMAT);
        CHECK(err.defect == ILMAP_SERIAL_TRAILING && err.offset == size);
        CHECK(ilmap_deserialize(buf, size + 8, ILMAP_SERIAL_PREFIX, &x, &err) == ILMAP_OK);
        ilmap_free(x);

        /* Every single-bit flip is refused. */
        for (size_t bit = 0; bit < size * 8; bit += 1 + (size > 200 ? prng_below(rng, 7) : 0)) {
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            CHECK(ilmap_view_open(buf, size, 0, &v, &err) == ILMAP_E_FORMAT);
            CHECK(err.defect != ILMAP_SERIAL_NONE && v.data == NULL);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        free(odd);
        free(buf);
        ilmap_free(m);
        ilmap_free(l);
    }
}

static void header_defects(void)
{
    const ilmap_entry e[] = {{0, 0, 1}, {4, 10, 1}, {8, 20, 1}};
    ilmap *m;
    size_t size;
    CHECK(ilmap_create(e, 3, 0, &m) == ILMAP_OK);
    uint8_t *good = serialize(m, &size);
    uint8_t buf[128];
    ilmap_serial_error err;
    ilmap_view v;

    static const uint8_t magic[4] = {0x89, 'I', 'L', 'M'};
    CHECK(memcmp(good, magic, 4) == 0 && good[4] == 1 && good[6] == 1);

    struct {
        size_t at;
        uint32_t value;
        int width;
        ilmap_serial_defect want;
    } edits[] = {
        {0, 0x12345678u, 4, ILMAP_SERIAL_BAD_MAGIC},
        {0, ILMAP_SERIAL_MAGIC_SWAPPED, 4, ILMAP_SERIAL_BYTE_ORDER},
        {4, 2, 2, ILMAP_SERIAL_BAD_VERSION},
        {4, 0, 2, ILMAP_SERIAL_BAD_VERSION},
        {6, 3, 2, ILMAP_SERIAL_KIND},
        {6, 0, 2, ILMAP_SERIAL_KIND},
        {8, 2, 4, ILMAP_SERIAL_FLAGS},
        {8, 0x80000000u, 4, ILMAP_SERIAL_FLAGS},
        {16, 5, 4, ILMAP_SERIAL_RESERVED},
        {20, 1, 4, ILMAP_SERIAL_RESERVED},
        {12, ILMAP_SERIAL_MAX_ENTRIES + 1, 4, ILMAP_SERIAL_COUNT},
        {12, 0xFFFFFFFFu, 4, ILMAP_SERIAL_COUNT},
        {12, 2, 4, ILMAP_SERIAL_SIZE},
        {24, 32 + 12 * 4, 4, ILMAP_SERIAL_SIZE},
        {12, 4, 4, ILMAP_SERIAL_SIZE},            /* count 4, total still 68 */
        {32 + 12 + 4, 30, 4, ILMAP_SERIAL_ORDER}, /* entry 1's new offset above entry 2's */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(buf, good, size);
        if (edits[i].width == 2)
            buf[edits[i].at] = (uint8_t)edits[i].value,
            buf[edits[i].at + 1] = (uint8_t)(edits[i].value >> 8);
        else
            put32(buf + edits[i].at, edits[i].value);
        reseal(buf, size);
        CHECK(ilmap_view_open(buf, size, 0, &v, &err) == ILMAP_E_FORMAT);
        CHECK(err.defect == edits[i].want);
        if (err.defect != edits[i].want)
            fprintf(stderr, "edit %zu: got %s\n", i, ilmap_serial_defect_str(err.defect));
    }
    /* The order defect names the entry. */
    memcpy(buf, good, size);
    put32(buf + 32 + 12 + 4, 30);
    reseal(buf, size);
    CHECK(ilmap_view_open(buf, size, 0, &v, &err) == ILMAP_E_FORMAT);
    CHECK(err.index == 2 && err.cause == ILMAP_E_UNSORTED && err.offset == 32 + 24);
    /* ... and a lenient header accepts the same entries. */
    put32(buf + 8, ILMAP_SERIAL_FLAG_LENIENT);
    reseal(buf, size);
    ilmap *l;
    CHECK(ilmap_deserialize(buf, size, 0, &l, &err) == ILMAP_OK && ilmap_get_flags(l) == ILMAP_LENIENT);
    ilmap_free(l);

    /* A writer of the other byte order: every field swapped. */
    memcpy(buf, good, size);
    for (size_t at = 0; at + 4 <= size; at += 4) {
        uint8_t t0 = buf[at], t1 = buf[at + 1];
        buf[at] = buf[at + 3], buf[at + 1] = buf[at + 2], buf[at + 2] = t1, buf[at + 3] = t0;
    }
    CHECK(ilmap_view_open(buf, size, 0, &v, &err) == ILMAP_E_FORMAT);
    CHECK(err.defect == ILMAP_SERIAL_BYTE_ORDER);

    /* Kinds: an IL map is no native map. */
    ilmap_native *nm = (ilmap_native *)1;
    CHECK(ilmap_native_deserialize(good, size, 0, &nm, &err) == ILMAP_E_FORMAT && nm == NULL);
    CHECK(err.defect == ILMAP_SERIAL_KIND);

    /* Arguments. */
    size_t need = 7;
    CHECK(ilmap_serialize(NULL, sizeof buf, &need, buf) == ILMAP_E_INVALID_ARG && need == 0);
    /* a short buffer gets the first cap bytes */
    memset(buf, 0xA5, sizeof buf);
    CHECK(ilmap_serialize(m, 10, &need, buf) == ILMAP_E_TRUNCATED && need == size);
    CHECK(memcmp(buf, good, 10) == 0 && buf[10] == 0xA5);
    need = 7;
    CHECK(ilmap_serialize(m, 100, &need, NULL) == ILMAP_E_INVALID_ARG && need == 0);
    CHECK(ilmap_serialize(m, sizeof buf, NULL, buf) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_serialize(m, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_view_open(NULL, 5, 0, &v, &err) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_view_open(good, size, 1, &v, &err) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_view_open(good, size, 0, NULL, &err) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_view_open(NULL, 0, 0, &v, &err) == ILMAP_E_FORMAT &&
          err.defect == ILMAP_SERIAL_TOO_SHORT);
    CHECK(ilmap_deserialize(good, size, 0, NULL, &err) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_deserialize(good, size, 1u << 30, &l, &err) == ILMAP_E_INVALID_ARG && l == NULL);
    CHECK(ilmap_view_old_to_new(NULL, 7) == 7 && ilmap_view_new_to_old(NULL, 7) == 7);
    for (int d = 0; d <= ILMAP_SERIAL_NATIVE; d++)
        CHECK(strcmp(ilmap_serial_defect_str((ilmap_serial_defect)d), "unknown defect") != 0);
    CHECK(strcmp(ilmap_serial_defect_str((ilmap_serial_defect)99), "unknown defect") == 0);
    free(good);
    ilmap_free(m);
}

/* Native maps: tiled ranges with a prolog, random IL offsets. */
static void native_round_trips(prng *rng, int rounds)
{
    ilmap_native_entry e[40], a[40], b[40];

    for (int round = 0; round < rounds; round++) {
        uint32_t n = prng_below(rng, 30), start = 0;
        for (uint32_t i = 0; i < n; i++) {
            /* Empty ranges only away from 0: an end of 0 means "to the end". */
            uint32_t len = start && prng_below(rng, 4) == 0 ? 0 : 1 + prng_below(rng, 20);
            e[i].il_offset = i == 0                        ? ILMAP_PROLOG
                             : prng_below(rng, 9) == 0 ? ILMAP_EPILOG
                                                           : prng_below(rng, 100);
            e[i].native_start = start;
            e[i].native_end = start + len;
            start += len;
        }
        uint32_t code_size = start + prng_below(rng, 3);
        ilmap_native *m;
        CHECK(ilmap_native_from_entries(e, n, code_size, &m) == ILMAP_OK);
        size_t need, got;
        CHECK(ilmap_native_serialize(m, 0, &need, NULL) == ILMAP_OK &&
              need == 32 + 12 * (size_t)n);
        uint8_t *buf = malloc(need);
        CHECK(ilmap_native_serialize(m, need, &got, buf) == ILMAP_OK && got == need);
        if (round < 20)
            test_copy_out_protocol("ilmap_native_serialize", native_serialize_call, m, buf, need, 1);
        got = 7;
        CHECK(ilmap_native_serialize(NULL, need, &got, buf) == ILMAP_E_INVALID_ARG && got == 0);
        ilmap_native *l;
        ilmap_serial_error err;
        CHECK(ilmap_native_deserialize(buf, need, 0, &l, &err) == ILMAP_OK);
        size_t ta, tb;
        CHECK(ilmap_native_export(m, 40, &ta, a) == ILMAP_OK);
        CHECK(ilmap_native_export(l, 40, &tb, b) == ILMAP_OK);
        CHECK(ta == tb && memcmp(a, b, ta * sizeof *a) == 0);
        CHECK(ilmap_native_get_code_size(l) == code_size);
        for (uint32_t x = 0; x < code_size + 2; x++) {
            uint32_t ila = 0, ilb = 0;
            CHECK(ilmap_native_to_il(m, x, &ila) == ilmap_native_to_il(l, x, &ilb) && ila == ilb);
        }
        ilmap_view v;
        CHECK(ilmap_view_open(buf, need, 0, &v, NULL) == ILMAP_OK && v.code_size == code_size);
        /* The serialized entries are the map's export (a). */
        CHECK(ilmap_view_get_entries(&v) == NULL && v.count == ta);
        const ilmap_native_entry *native_in_place = ilmap_view_get_native_entries(&v);
        if (expect_in_place(&v))
            CHECK(ta == 0 || (native_in_place != NULL &&
                              memcmp(native_in_place, a, ta * sizeof *a) == 0));
        else
            CHECK(native_in_place == NULL);
        for (size_t i = 0; i < ta && i < v.count; i++) {
            ilmap_native_entry one;
            CHECK(ilmap_view_get_native_entry(&v, i, &one) == ILMAP_OK);
            CHECK(memcmp(&one, &a[i], sizeof one) == 0);
        }
        ilmap *il = (ilmap *)1;
        CHECK(ilmap_deserialize(buf, need, 0, &il, &err) == ILMAP_E_FORMAT && il == NULL);
        CHECK(err.defect == ILMAP_SERIAL_KIND);
        if (n >= 3) {
            /* A range past the code, properly sealed: the native check refuses it. */
            put32(buf + 32 + 12 * 1 + 8, code_size + 50);
            reseal(buf, need);
            ilmap_native_free(l);
            CHECK(ilmap_native_deserialize(buf, need, 0, &l, &err) == ILMAP_E_FORMAT && l == NULL);
            CHECK(err.defect == ILMAP_SERIAL_NATIVE && err.cause == ILMAP_E_CODE_SIZE);
        }
        free(buf);
        ilmap_native_free(m);
        ilmap_native_free(l);
    }
}

/* Random bytes and mutations of good maps: anything accepted must
 * re-serialize to the same bytes. */
static void garbage(prng *rng, int rounds)
{
    ilmap_entry e[64];
    for (int round = 0; round < rounds; round++) {
        size_t n, size;
        ilmap *m = random_il_map(rng, e, &n);
        uint8_t *buf = serialize(m, &size);
        ilmap_free(m);
        int edits = 1 + (int)prng_below(rng, 4);
        for (int k = 0; k < edits; k++)
            buf[prng_below(rng, (uint32_t)size)] = (uint8_t)prng_u32(rng);
        if (prng_below(rng, 2))
            reseal(buf, size);
        size_t cut = prng_below(rng, 4) == 0 ? prng_below(rng, (uint32_t)size + 1) : size;
        uint8_t *exact = malloc(cut ? cut : 1);
        memcpy(exact, buf, cut);
        ilmap *l = NULL;
        ilmap_serial_error err;
        ilmap_status st = ilmap_deserialize(exact, cut, 0, &l, &err);
        if (st == ILMAP_OK) {
            size_t again_size;
            uint8_t *again = serialize(l, &again_size);
            CHECK(again_size == cut && memcmp(again, exact, cut) == 0);
            free(again);
        } else {
            CHECK(st == ILMAP_E_FORMAT && l == NULL && err.defect != ILMAP_SERIAL_NONE);
        }
        ilmap_native *nm = NULL;
        if (ilmap_native_deserialize(exact, cut, 0, &nm, &err) == ILMAP_OK)
            ilmap_native_free(nm);
        ilmap_view v;
        if (ilmap_view_open(exact, cut, 0, &v, &err) == ILMAP_OK)
            CHECK(v.size == cut);
        ilmap_free(l);
        free(exact);
        free(buf);
    }
}

/*
 * Golden files: test/data/golden-il.bin and golden-native.bin hold the
 * serialized form of the two maps below, written by ilmap_serialize() and
 * ilmap_native_serialize() on a little-endian host (x86-64). Every host's
 * serializer must reproduce them byte for byte and every host's loader
 * must read them: the format is little-endian whatever the host (s390x
 * runs this under qemu in CI). To rewrite them after a deliberate format
 * change, run the test on a little-endian host with
 * ILMAP_WRITE_GOLDEN=1.
 */
static const ilmap_entry golden_il[] = {
    {0, 0, 1},
    {5, 0x10, 1},
    {9, 0x123, 0},
    {0x1234, 0x10203, -1},
    {0x12345, 0x1020304, 1},
    {0x1234567, ILMAP_NO_MAPPING, 0},
};

static const ilmap_native_entry golden_native[] = {
    {ILMAP_PROLOG, 0, 4},
    {0, 4, 0x10},
    {0x102, 0x10, 0x1234},
    {ILMAP_EPILOG, 0x1234, 0x1240},
    {0x10203, 0x1240, 0x12345},
};
#define GOLDEN_NATIVE_CODE_SIZE 0x12350u

static void golden_compare(const char *name, const uint8_t *bytes, size_t size)
{
    const char *root = getenv("ILMAP_SOURCE_ROOT");
    if (!root) {
        fprintf(stderr, "ILMAP_SOURCE_ROOT is not set (meson test sets it)\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/test/data/%s", root, name);
    if (getenv("ILMAP_WRITE_GOLDEN") && host_is_little_endian()) {
        FILE *w = fopen(path, "wb");
        CHECK(w && fwrite(bytes, 1, size, w) == size && fclose(w) == 0);
        printf("wrote %s\n", path);
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    uint8_t *file = malloc(size + 1);
    size_t got = fread(file, 1, size + 1, f);
    fclose(f);
    CHECK(got == size);
    CHECK(got == size && memcmp(file, bytes, size) == 0);
    free(file);
}

static uint8_t *golden_read(const char *name, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/test/data/%s", getenv("ILMAP_SOURCE_ROOT"), name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    uint8_t *buf = malloc(1 << 16);
    *size = f ? fread(buf, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void golden_files(void)
{
    const size_t n = sizeof golden_il / sizeof golden_il[0];
    ilmap *m = NULL;
    CHECK(ilmap_create(golden_il, n, 0, &m) == ILMAP_OK);
    size_t size = 0;
    uint8_t *bytes = serialize(m, &size);
    CHECK(size == 32 + 12 * n);
    golden_compare("golden-il.bin", bytes, size);
    free(bytes);

    /* The file as loaded by this host: the same entries and answers. */
    uint8_t *file = golden_read("golden-il.bin", &size);
    ilmap *l = NULL;
    CHECK(ilmap_deserialize(file, size, 0, &l, NULL) == ILMAP_OK);
    ilmap_entry back[sizeof golden_il / sizeof golden_il[0]];
    size_t nb = 0;
    CHECK(l && ilmap_export(l, n, &nb, back) == ILMAP_OK && nb == n);
    CHECK(memcmp(back, golden_il, sizeof back) == 0);
    ilmap_view v;
    CHECK(ilmap_view_open(file, size, 0, &v, NULL) == ILMAP_OK && v.count == n);
    CHECK((ilmap_view_get_entries(&v) != NULL) == expect_in_place(&v));
    for (size_t i = 0; i < n; i++) {
        ilmap_entry one;
        CHECK(ilmap_view_get_entry(&v, i, &one) == ILMAP_OK);
        CHECK(memcmp(&one, &golden_il[i], sizeof one) == 0);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t probes[] = {golden_il[i].old_offset, golden_il[i].old_offset + 1,
                             golden_il[i].new_offset, golden_il[i].new_offset - 1};
        for (size_t k = 0; k < 4; k++) {
            CHECK_EQ_U32(ilmap_old_to_new(l, probes[k]), ilmap_old_to_new(m, probes[k]));
            CHECK_EQ_U32(ilmap_view_old_to_new(&v, probes[k]), ilmap_old_to_new(m, probes[k]));
            CHECK_EQ_U32(ilmap_view_new_to_old(&v, probes[k]), ilmap_new_to_old(m, probes[k]));
        }
    }
    CHECK_EQ_U32(ilmap_old_to_new(l, 0x1234), 0x10203);
    ilmap_free(l);
    ilmap_free(m);
    free(file);

    const uint32_t nn = sizeof golden_native / sizeof golden_native[0];
    ilmap_native *nm = NULL;
    CHECK(ilmap_native_from_entries(golden_native, nn, GOLDEN_NATIVE_CODE_SIZE, &nm) == ILMAP_OK);
    size_t need = 0, got = 0;
    CHECK(ilmap_native_serialize(nm, 0, &need, NULL) == ILMAP_OK);
    bytes = malloc(need);
    CHECK(ilmap_native_serialize(nm, need, &got, bytes) == ILMAP_OK && got == need);
    golden_compare("golden-native.bin", bytes, need);
    free(bytes);

    /* The serialized entries are the map's export. */
    ilmap_native_entry want[2 * sizeof golden_native / sizeof golden_native[0]];
    size_t nw = 0;
    CHECK(ilmap_native_export(nm, sizeof want / sizeof want[0], &nw, want) == ILMAP_OK);
    file = golden_read("golden-native.bin", &size);
    ilmap_native *nl = NULL;
    CHECK(ilmap_native_deserialize(file, size, 0, &nl, NULL) == ILMAP_OK);
    ilmap_native_entry nback[sizeof want / sizeof want[0]];
    CHECK(nl && ilmap_native_export(nl, sizeof nback / sizeof nback[0], &got, nback) == ILMAP_OK);
    CHECK(got == nw && memcmp(nback, want, nw * sizeof *want) == 0);
    CHECK(nl && ilmap_native_get_code_size(nl) == GOLDEN_NATIVE_CODE_SIZE);
    CHECK(ilmap_view_open(file, size, 0, &v, NULL) == ILMAP_OK && v.count == nw &&
          v.code_size == GOLDEN_NATIVE_CODE_SIZE);
    CHECK((ilmap_view_get_native_entries(&v) != NULL) == expect_in_place(&v));
    for (size_t i = 0; i < nw; i++) {
        ilmap_native_entry one;
        CHECK(ilmap_view_get_native_entry(&v, i, &one) == ILMAP_OK);
        CHECK(memcmp(&one, &want[i], sizeof one) == 0);
    }
    for (uint32_t x = 0; x < GOLDEN_NATIVE_CODE_SIZE + 2; x += 7) {
        uint32_t ila = 0, ilb = 0;
        CHECK(ilmap_native_to_il(nm, x, &ila) == ilmap_native_to_il(nl, x, &ilb) && ila == ilb);
    }
    ilmap_native_free(nl);
    ilmap_native_free(nm);
    free(file);
}

int main(int argc, char **argv)
{
    prng rng;

    rng = prng_init(test_seed(argc, argv, 0x5E71A1));
    crc_vectors();
    golden_files();
    header_defects();
    il_round_trips(&rng, 300);
    native_round_trips(&rng, 300);
    garbage(&rng, 3000);
    return test_finish("serial");
}
