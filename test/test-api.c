/*
 * The public API's contract apart from the translation rules: argument
 * checks, statuses and their strings, the strict validator, the export
 * buffer protocol, ownership, NULL maps, batches, memory bounds.
 */
#include <string.h>

#include "ilmap.h"
#include "test.h"

static void status_strings(void)
{
    const ilmap_status all[] = { ILMAP_OK, ILMAP_E_INVALID_ARG, ILMAP_E_UNSORTED, ILMAP_E_NOMEM,
                                 ILMAP_E_NOT_FOUND, ILMAP_E_FORMAT, ILMAP_E_FULL,
                                 ILMAP_E_TRUNCATED, ILMAP_E_UNSUPPORTED, ILMAP_E_IO };
    size_t n = sizeof all / sizeof all[0];

    CHECK(ILMAP_OK == 0);
    for (size_t i = 0; i < n; i++) {
        const char *s = ilmap_status_str(all[i]);
        CHECK(s != NULL && *s != '\0' && strcmp(s, "unknown status") != 0);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(s, ilmap_status_str(all[j])) != 0);
    }
    CHECK(strcmp(ilmap_status_str((ilmap_status)12345), "unknown status") == 0);
    for (int d = ILMAP_DEFECT_NONE; d <= ILMAP_DEFECT_BAD_ARGUMENT; d++)
        CHECK(strcmp(ilmap_defect_str((ilmap_defect)d), "unknown defect") != 0);
    CHECK(strcmp(ilmap_defect_str((ilmap_defect)99), "unknown defect") == 0);
    CHECK(ILMAP_E_TRUNCATED == 19 && ILMAP_E_UNSUPPORTED == 20 && ILMAP_E_IO == 21);
    CHECK(strcmp(ilmap_version(), "0.2.0") == 0);
    CHECK(ILMAP_VERSION_MAJOR == 0 && ILMAP_VERSION_MINOR == 2 && ILMAP_VERSION_MICRO == 0);
}

static void create_rejects_bad_arguments(void)
{
    ilmap_entry one = { 0, 0, 1 };
    ilmap *map = (ilmap *)&one; /* must be overwritten with NULL */

    CHECK(ilmap_create(&one, 1, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_create(NULL, 1, 0, &map) == ILMAP_E_INVALID_ARG);
    CHECK(map == NULL);
    map = (ilmap *)&one;
    CHECK(ilmap_create(&one, (size_t)ILMAP_MAX_ENTRIES + 1, 0, &map) == ILMAP_E_INVALID_ARG);
    CHECK(map == NULL);
    map = (ilmap *)&one;
    CHECK(ilmap_create(&one, SIZE_MAX, ILMAP_LENIENT, &map) == ILMAP_E_INVALID_ARG);
    CHECK(map == NULL);
    map = (ilmap *)&one;
    CHECK(ilmap_create(&one, 1, 1u << 30, &map) == ILMAP_E_INVALID_ARG);
    CHECK(map == NULL);

    /* NULL entries with count 0 is the valid empty map. */
    CHECK(ilmap_create(NULL, 0, 0, &map) == ILMAP_OK);
    CHECK(map != NULL && ilmap_get_count(map) == 0);
    ilmap_free(map);
}

typedef struct bad_map {
    ilmap_entry entries[4];
    size_t count;
    ilmap_defect defect;
    size_t index;
} bad_map;

static void strict_rejects_disorder(void)
{
    static const bad_map cases[] = {
        { { { 0, 0, 1 }, { 5, 10, 1 }, { 4, 20, 1 } }, 3, ILMAP_DEFECT_OLD_DESCENDING, 2 },
        { { { 0, 0, 1 }, { 5, 10, 1 }, { 5, 20, 1 } }, 3, ILMAP_DEFECT_OLD_DUPLICATE, 2 },
        { { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 9, 1 } }, 3, ILMAP_DEFECT_NEW_DESCENDING, 2 },
        { { { 0, 7, 1 }, { 5, 7, 1 } }, 2, ILMAP_DEFECT_NEW_DUPLICATE, 1 },
        /* both columns wrong: the old column is reported first */
        { { { 3, 3, 1 }, { 1, 1, 1 } }, 2, ILMAP_DEFECT_OLD_DESCENDING, 1 },
        /* the first offending index wins */
        { { { 0, 0, 1 }, { 0, 0, 1 }, { 9, 1, 1 }, { 8, 0, 1 } }, 4, ILMAP_DEFECT_OLD_DUPLICATE, 1 },
        /* special values are ordinary keys to the order check */
        { { { 0xFFFFFFFFu, 1, 1 }, { 0xFFFFFFFEu, 2, 1 } }, 2, ILMAP_DEFECT_OLD_DESCENDING, 1 },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_map *c = &cases[i];
        size_t bad = 0;
        ilmap_defect defect = ILMAP_DEFECT_NONE;
        ilmap *map = (ilmap *)&bad;

        CHECK(ilmap_validate(c->entries, c->count, &defect, &bad) == ILMAP_E_UNSORTED);
        CHECK(defect == c->defect);
        CHECK(bad == c->index);
        bad = 0;
        CHECK(ilmap_validate(c->entries, c->count, NULL, &bad) == ILMAP_E_UNSORTED);
        CHECK(bad == c->index);
        defect = ILMAP_DEFECT_NONE;
        CHECK(ilmap_validate(c->entries, c->count, &defect, NULL) == ILMAP_E_UNSORTED);
        CHECK(defect == c->defect);
        CHECK(ilmap_validate(c->entries, c->count, NULL, NULL) == ILMAP_E_UNSORTED);
        CHECK(ilmap_create(c->entries, c->count, 0, &map) == ILMAP_E_UNSORTED);
        CHECK(map == NULL);
        /* lenient accepts the same array */
        CHECK(ilmap_create(c->entries, c->count, ILMAP_LENIENT, &map) == ILMAP_OK);
        CHECK(map != NULL && ilmap_get_flags(map) == ILMAP_LENIENT);
        ilmap_free(map);
    }
}

static void validate_edges(void)
{
    static const ilmap_entry good[] = { { 0, 0, 1 }, { 1, 1, 1 }, { 0xFFFFFFFFu, 0xFFFFFFFFu, 0 } };
    size_t bad = 0;
    ilmap_defect defect = ILMAP_DEFECT_OLD_DUPLICATE;

    CHECK(ilmap_validate(good, 3, &defect, &bad) == ILMAP_OK);
    CHECK(bad == ILMAP_NO_INDEX && defect == ILMAP_DEFECT_NONE);
    CHECK(ilmap_validate(NULL, 0, NULL, &bad) == ILMAP_OK);
    CHECK(ilmap_validate(good, 1, NULL, &bad) == ILMAP_OK);
    bad = 0;
    CHECK(ilmap_validate(NULL, 2, &defect, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(bad == ILMAP_NO_INDEX && defect == ILMAP_DEFECT_BAD_ARGUMENT);
    defect = ILMAP_DEFECT_NONE;
    CHECK(ilmap_validate(good, (size_t)ILMAP_MAX_ENTRIES + 1, &defect, &bad) ==
          ILMAP_E_INVALID_ARG);
    CHECK(defect == ILMAP_DEFECT_BAD_ARGUMENT);
}

static void null_map_is_identity(void)
{
    uint32_t in[9] = { 0, 1, 2, 100, 0x80000000u, ILMAP_EPILOG, ILMAP_PROLOG, ILMAP_NO_MAPPING, 7 };
    uint32_t out[9];

    for (size_t i = 0; i < 9; i++) {
        CHECK_EQ_U32(ilmap_old_to_new(NULL, in[i]), in[i]);
        CHECK_EQ_U32(ilmap_new_to_old(NULL, in[i]), in[i]);
        CHECK_EQ_U32(ilmap_new_to_old_dac(NULL, in[i]), in[i]);
    }
    memset(out, 0, sizeof out);
    ilmap_old_to_new_batch(NULL, in, out, 9);
    CHECK(memcmp(in, out, sizeof in) == 0);
    memset(out, 0, sizeof out);
    ilmap_new_to_old_batch(NULL, in, out, 9);
    CHECK(memcmp(in, out, sizeof in) == 0);
    memset(out, 0, sizeof out);
    ilmap_new_to_old_dac_batch(NULL, in, out, 9);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK(ilmap_get_count(NULL) == 0 && ilmap_get_memory_bytes(NULL) == 0 && ilmap_get_flags(NULL) == 0);
    ilmap_free(NULL);
}

static ilmap_status export_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_export(ctx, cap, total, out);
}

static void export_protocol(void)
{
    static const ilmap_entry src[] = { { 0, 0, 1 }, { 5, 10, 0 }, { 9, 20, 1 } };
    ilmap_entry out[4];
    size_t total = 99;
    ilmap *map = NULL;

    CHECK(ilmap_create(src, 3, 0, &map) == ILMAP_OK);
    CHECK(ilmap_get_flags(map) == 0);
    /* size query */
    CHECK(ilmap_export(map, 0, &total, NULL) == ILMAP_OK && total == 3);
    /* buffer given, cap 0: nothing copied */
    memset(out, 0xAB, sizeof out);
    CHECK(ilmap_export(map, 0, &total, out) == ILMAP_OK && total == 3);
    CHECK(out[0].old_offset == 0xABABABABu);
    /* truncation: first cap entries, total reported, ILMAP_E_TRUNCATED */
    total = 0;
    CHECK(ilmap_export(map, 2, &total, out) == ILMAP_E_TRUNCATED && total == 3);
    CHECK(memcmp(out, src, 2 * sizeof *out) == 0 && out[2].old_offset == 0xABABABABu);
    /* large enough */
    CHECK(ilmap_export(map, 4, &total, out) == ILMAP_OK && total == 3);
    CHECK(memcmp(out, src, sizeof src) == 0);
    /* cap > 0 with a NULL buffer: *total is 0 */
    total = 99;
    CHECK(ilmap_export(map, 1, &total, NULL) == ILMAP_E_INVALID_ARG && total == 0);
    /* total is required, whatever cap is */
    CHECK(ilmap_export(map, 1, NULL, out) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_export(map, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    /* a NULL map has no entries */
    CHECK(ilmap_export(NULL, 4, &total, out) == ILMAP_OK && total == 0);
    test_copy_out_protocol("ilmap_export", export_call, map, src, 3, sizeof *src);
    test_copy_out_protocol("ilmap_export (NULL map)", export_call, NULL, src, 0, sizeof *src);
    ilmap_free(map);

    /* more entries than one cache line, lenient */
    ilmap_entry many[40];
    for (uint32_t i = 0; i < 40; i++)
        many[i] = (ilmap_entry){ 40 - i, i * 3, (int32_t)(i & 1) };
    CHECK(ilmap_create(many, 40, ILMAP_LENIENT, &map) == ILMAP_OK);
    CHECK(ilmap_get_flags(map) == ILMAP_LENIENT);
    test_copy_out_protocol("ilmap_export (lenient)", export_call, map, many, 40, sizeof *many);
    ilmap_free(map);
}

/* The map copies what it needs: the caller's array may go away. */
static void map_owns_its_copy(void)
{
    ilmap_entry *src = malloc(64 * sizeof *src);
    ilmap *map = NULL;

    if (!src)
        exit(TEST_EXIT_SETUP_FAILURE);
    for (uint32_t i = 0; i < 64; i++)
        src[i] = (ilmap_entry){ i * 3, i * 7 + 2, 1 };
    CHECK(ilmap_create(src, 64, 0, &map) == ILMAP_OK);
    memset(src, 0xFF, 64 * sizeof *src);
    free(src);
    CHECK_EQ_U32(ilmap_old_to_new(map, 30), 72);
    CHECK_EQ_U32(ilmap_new_to_old(map, 73), 30);
    CHECK_EQ_U32(ilmap_new_to_old(map, 1), ILMAP_PROLOG);
    ilmap_free(map);
}

static void batches(void)
{
    static const ilmap_entry src[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    uint32_t buf[20];
    ilmap *map = NULL;

    CHECK(ilmap_create(src, 3, 0, &map) == ILMAP_OK);
    /* NULL arrays with n > 0 write nothing and do not crash */
    ilmap_old_to_new_batch(map, NULL, buf, 5);
    ilmap_old_to_new_batch(map, buf, NULL, 5);
    ilmap_new_to_old_batch(map, NULL, NULL, 5);
    ilmap_new_to_old_dac_batch(map, NULL, buf, 5);
    ilmap_new_to_old_dac_batch(map, buf, NULL, 5);
    /* in place, longer than one block of 8, with specials in the middle */
    for (uint32_t i = 0; i < 20; i++)
        buf[i] = i;
    buf[13] = ILMAP_PROLOG;
    buf[14] = ILMAP_EPILOG;
    buf[15] = ILMAP_NO_MAPPING;
    ilmap_old_to_new_batch(map, buf, buf, 20);
    for (uint32_t i = 0; i < 20; i++) {
        uint32_t want = i == 13 ? ILMAP_PROLOG : i == 14 ? ILMAP_EPILOG : i == 15 ? ILMAP_NO_MAPPING
                      : ilmap_old_to_new(map, i);
        CHECK_EQ_U32(buf[i], want);
    }
    ilmap_free(map);
}

/* A strict map's index costs at most 2x the input's bytes. */
static void memory_bound(void)
{
    static const size_t sizes[] = { 1024, 4096, 65536, 300000 };

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        ilmap_entry *src = malloc(n * sizeof *src);
        ilmap *map = NULL;

        if (!src)
            exit(TEST_EXIT_SETUP_FAILURE);
        for (size_t i = 0; i < n; i++)
            src[i] = (ilmap_entry){ (uint32_t)i * 2, (uint32_t)i * 5, 1 };
        CHECK(ilmap_create(src, n, 0, &map) == ILMAP_OK);
        CHECK(ilmap_get_memory_bytes(map) <= 2 * n * sizeof *src);
        if (ilmap_get_memory_bytes(map) > 2 * n * sizeof *src)
            fprintf(stderr, "n=%zu: %zu bytes for %zu input bytes\n", n,
                    ilmap_get_memory_bytes(map), n * sizeof *src);
        ilmap_free(map);
        free(src);
    }
}

static void implementation_names(void)
{
    static const ilmap_entry src[] = { { 0, 0, 1 } };
    ilmap *map = NULL;

    CHECK(ilmap_create(src, 1, ILMAP_PORTABLE, &map) == ILMAP_OK);
    CHECK(strcmp(ilmap_get_implementation(map), "portable") == 0);
    ilmap_free(map);
    CHECK(ilmap_create(src, 1, ILMAP_NO_AVX2, &map) == ILMAP_OK);
    CHECK(strcmp(ilmap_get_implementation(map), "avx2") != 0);
    ilmap_free(map);
#if defined(__aarch64__)
    /* AArch64: the NEON kernels, unless ILMAP_PORTABLE. */
    CHECK(ilmap_create(src, 1, 0, &map) == ILMAP_OK);
    CHECK(strcmp(ilmap_get_implementation(map), "neon") == 0);
    ilmap_free(map);
#endif
    CHECK(ilmap_get_implementation(NULL) != NULL);
}

int main(void)
{
    status_strings();
    create_rejects_bad_arguments();
    strict_rejects_disorder();
    validate_edges();
    null_map_is_identity();
    export_protocol();
    map_owns_its_copy();
    batches();
    memory_bound();
    implementation_names();
    return test_finish("api");
}
