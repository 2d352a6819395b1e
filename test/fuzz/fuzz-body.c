/*
 * libFuzzer target for the IL side (ilmap_il_body_parse, ilmap_il_decode,
 * ilmap_il_body_validate, ilmap_rewrite_create, ilmap_il_wrap_create): any
 * bytes as a method body
 * and as raw code. A body that parses and checks is rewritten with a nop
 * before some instructions (chosen by the input) and at the end, and the
 * result must parse, check, and hold one more byte per probe plus three
 * per widened branch, with one map entry per original instruction; then
 * it is wrapped, and the result must parse and check as well.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-il.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t total = 0;
    (void)ilmap_il_decode(data, size, 0, &total, NULL, NULL);

    ilmap_il_body b;
    if (ilmap_il_body_parse(data, size, &b) != ILMAP_OK ||
        ilmap_il_body_validate(&b, NULL) != ILMAP_OK)
        return 0;
    for (uint32_t i = 0; i < b.eh_count; i++) {
        ilmap_il_clause c;
        REQUIRE(ilmap_il_body_get_clause(&b, i, &c) == ILMAP_OK);
    }
    size_t n = 0;
    REQUIRE(ilmap_il_starts(b.code, b.code_size, 0, &n, NULL, NULL) == ILMAP_OK);
    uint32_t *starts = malloc((n + 1) * sizeof *starts);
    ilmap_il_insertion *ins = malloc((n + 2) * sizeof *ins);
    if (!starts || !ins) {
        free(starts);
        free(ins);
        return 0;
    }
    REQUIRE(ilmap_il_starts(b.code, b.code_size, n, &n, starts, NULL) == ILMAP_OK);
    static const uint8_t nop = 0x00;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((data[i % size] ^ (uint8_t)i) & 1)
            ins[k++] = (ilmap_il_insertion){starts[i], 1, &nop};
    ins[k++] = (ilmap_il_insertion){b.code_size, 1, &nop};

    ilmap_rewrite *r = NULL;
    ilmap_status st = ilmap_rewrite_create(data, size, ins, k, 0, 0, &r, NULL);
    REQUIRE(st == ILMAP_OK || st == ILMAP_E_LIMIT);
    if (st == ILMAP_OK) {
        size_t nsize, count;
        const uint8_t *nb = ilmap_rewrite_get_body(r, &nsize);
        const ilmap_entry *e = ilmap_rewrite_get_entries(r, &count);
        ilmap_rewrite_info info;
        REQUIRE(ilmap_rewrite_get_info(r, &info) == ILMAP_OK);
        ilmap_il_body nbody;
        REQUIRE(ilmap_il_body_parse(nb, nsize, &nbody) == ILMAP_OK);
        REQUIRE(ilmap_il_body_validate(&nbody, NULL) == ILMAP_OK);
        REQUIRE(nbody.eh_count == b.eh_count);
        REQUIRE(nbody.code_size == b.code_size + k + 3 * info.widened);
        REQUIRE(count == n && ilmap_validate(e, count, NULL, NULL) == ILMAP_OK);
        ilmap_rewrite_free(r);
    }

    /* The same body wrapped (doc/il-maps.md#wrap), the spec drawn from the
     * input: the result parses and checks, with four more clauses and a
     * strict map of one entry per original instruction; or it is refused
     * for what the wrap cannot take. */
    ilmap_il_wrap_spec spec = { 0x0A000001u, 0x0A000002u, 0x01000003u, 0x06000004u, 0x11000005u,
                                data[0], data[size - 1] ^ 1u,
                                (data[size / 2] & 1) ? 0x1B000006u : 0u,
                                (uint32_t)(data[size / 3] & 1) };
    if (spec.exception_local == spec.return_local)
        spec.return_local++;
    size_t bad = 0;
    st = ilmap_il_wrap_create(data, size, &spec, &r, &bad);
    REQUIRE(st == ILMAP_OK || st == ILMAP_E_UNSUPPORTED || st == ILMAP_E_LIMIT);
    REQUIRE((st == ILMAP_OK) == (r != NULL));
    REQUIRE(st != ILMAP_E_UNSUPPORTED || n == 0 || bad < b.code_size);
    if (st == ILMAP_OK) {
        size_t nsize, count;
        const uint8_t *nb = ilmap_rewrite_get_body(r, &nsize);
        const ilmap_entry *e = ilmap_rewrite_get_entries(r, &count);
        ilmap_il_body nbody;
        REQUIRE(ilmap_il_body_parse(nb, nsize, &nbody) == ILMAP_OK);
        REQUIRE(ilmap_il_body_validate(&nbody, NULL) == ILMAP_OK);
        REQUIRE(nbody.eh_count == b.eh_count + 4 && nbody.local_sig == spec.local_sig);
        REQUIRE(nbody.code_size > b.code_size);
        REQUIRE(count == n && ilmap_validate(e, count, NULL, NULL) == ILMAP_OK);
        ilmap_rewrite_free(r);
    }
    free(starts);
    free(ins);
    return 0;
}
