/*
 * libFuzzer target for ilmap-sig.h: the first byte chooses the decode
 * flags (its low 4 bits: AS_TYPE, PREFIX, INTERNAL_PTR4, INTERNAL_PTR8),
 * the rest is the signature. Invariants: a refusal leaves no object and
 * names a defect at an offset <= the size (status FORMAT, or LIMIT for the
 * depth); a success takes at most the bytes given (all of them without
 * PREFIX), encodes back to exactly those bytes, and every node, nested
 * signature, item and generic argument it names can be read; classifying
 * the whole and every node succeeds. The seed corpus (test/fuzz/corpus-sig)
 * holds real signatures in the same layout.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-sig.h"

#include "fuzz.h"

static void walk(const ilmap_sig *sig)
{
    uint32_t nodes = ilmap_sig_get_node_count(sig);
    uint32_t methods = 1;
    for (uint32_t i = 0; i < nodes; i++) {
        ilmap_sig_node n;
        ilmap_sig_slot slot;
        REQUIRE(ilmap_sig_get_node(sig, i, &n) == ILMAP_OK);
        REQUIRE(n.inner == ILMAP_SIG_NO_NODE || n.inner < nodes);
        REQUIRE(n.offset < ilmap_sig_get_size(sig));
        REQUIRE(ilmap_sig_classify_type(sig, i, NULL, 0, &slot) == ILMAP_OK);
        if (n.element == ILMAP_SIG_ELEMENT_GENERICINST) {
            for (uint32_t k = 0; k < n.number; k++) {
                uint32_t arg;
                REQUIRE(ilmap_sig_get_generic_arg(sig, i, k, &arg) == ILMAP_OK && arg < nodes);
            }
        }
        if (n.element == ILMAP_SIG_ELEMENT_ARRAY) {
            size_t total;
            REQUIRE(ilmap_sig_get_array_sizes(sig, i, 0, &total, NULL) == ILMAP_OK &&
                    total == n.size_count && total <= n.number);
            REQUIRE(ilmap_sig_get_array_lower_bounds(sig, i, 0, &total, NULL) == ILMAP_OK &&
                    total == n.lower_bound_count && total <= n.number);
        }
        if (n.element == ILMAP_SIG_ELEMENT_FNPTR) {
            REQUIRE(n.number == methods);
            methods++;
        }
    }
    for (uint32_t m = 0; m < methods; m++) {
        ilmap_sig_info in;
        REQUIRE(ilmap_sig_get_info(sig, m, &in) == ILMAP_OK);
        REQUIRE(in.type == ILMAP_SIG_NO_NODE || in.type < nodes);
        REQUIRE(in.sentinel == ILMAP_SIG_NO_SENTINEL || in.sentinel < in.count);
        for (uint32_t k = 0; k < in.count; k++) {
            uint32_t node;
            REQUIRE(ilmap_sig_get_item(sig, m, k, &node) == ILMAP_OK && node < nodes);
        }
    }
    ilmap_sig_info none;
    REQUIRE(ilmap_sig_get_info(sig, methods, &none) == ILMAP_E_NOT_FOUND);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned flags = data[0] & 0x0Fu;
    const uint8_t *blob = data + 1;
    size_t n = size - 1;
    ilmap_sig *sig = NULL;
    ilmap_sig_defect defect;
    size_t where;
    ilmap_status st = ilmap_sig_decode(blob, n, flags, &sig, &defect, &where);
    if ((flags & ILMAP_SIG_INTERNAL_PTR4) && (flags & ILMAP_SIG_INTERNAL_PTR8)) {
        REQUIRE(st == ILMAP_E_INVALID_ARG && sig == NULL);
        return 0;
    }
    if (st != ILMAP_OK) {
        REQUIRE(sig == NULL && defect != ILMAP_SIG_DEFECT_NONE && where <= n);
        REQUIRE(st == (defect == ILMAP_SIG_DEFECT_DEPTH ? ILMAP_E_LIMIT : ILMAP_E_FORMAT));
        return 0;
    }
    REQUIRE(sig && defect == ILMAP_SIG_DEFECT_NONE && where == ILMAP_NO_INDEX);
    size_t used = ilmap_sig_get_size(sig), total = 0;
    REQUIRE(used <= n && ((flags & ILMAP_SIG_PREFIX) || used == n));
    uint8_t *again = malloc(used + 1);
    if (again) {
        REQUIRE(ilmap_sig_encode(sig, used + 1, &total, again) == ILMAP_OK && total == used);
        REQUIRE(memcmp(again, blob, used) == 0);
        free(again);
    }
    ilmap_sig_slot slots[16];
    st = ilmap_sig_classify(sig, NULL, ILMAP_SIG_POINTER_8, 16, &total, slots);
    REQUIRE(st == ILMAP_OK || st == ILMAP_E_TRUNCATED);
    walk(sig);
    ilmap_sig_free(sig);
    return 0;
}
