/*
 * ilmap-sig.h when memory runs out. The decoder allocates once, after the
 * whole blob is checked: with that allocation failing it must return
 * ILMAP_E_NOMEM with no object, no defect and no offset (leaks show under
 * ASan); with it granted, succeed. Every other call claims to allocate
 * nothing: with every allocation failing they must all still work.
 * ilmap_sig_wrap_locals() decodes two blobs: each failure is reported.
 *
 * The failing allocator is test/test-nomem.h's (the linker's --wrap,
 * test/sig/meson.build).
 */
#include <stddef.h>
#include <string.h>

#include "ilmap-sig.h"
#include "sig-dump.h"
#include "test-nomem.h"
#include "test.h"


static const char *const blobs[] = {
    "20 02 01 08 0E",
    "30 02 01 15 12 05 02 1E 00 13 01 1E 01",
    "06 14 08 02 01 03 02 7B 00",
    "00 01 01 1B 00 02 08 08 0E",
    "07 03 08 45 10 0E 16",
    "0A 02 08 12 05",
};

int main(void)
{
    uint8_t blob[64], out[64];
    for (size_t i = 0; i < sizeof blobs / sizeof blobs[0]; i++) {
        long n = hex_bytes(blobs[i], blob, sizeof blob);
        if (n < 0)
            return TEST_EXIT_SETUP_FAILURE;
        ilmap_sig *sig = (ilmap_sig *)1;
        ilmap_sig_defect defect = ILMAP_SIG_DEFECT_TOKEN;
        size_t where = 5;
        nomem_budget = 0;
        nomem_calls = 0;
        CHECK(ilmap_sig_decode(blob, (size_t)n, 0, &sig, &defect, &where) == ILMAP_E_NOMEM);
        CHECK(sig == NULL && defect == ILMAP_SIG_DEFECT_NONE && where == ILMAP_NO_INDEX);
        CHECK(nomem_calls == 1); /* one allocation, after the checks */
        /* a defect is found before any allocation */
        nomem_calls = 0;
        CHECK(ilmap_sig_decode(blob, (size_t)n - 1, 0, &sig, &defect, &where) == ILMAP_E_FORMAT &&
              nomem_calls == 0);
        nomem_budget = 1;
        CHECK(ilmap_sig_decode(blob, (size_t)n, 0, &sig, NULL, NULL) == ILMAP_OK && sig);

        /* everything else with every allocation failing */
        nomem_budget = 0;
        nomem_calls = 0;
        size_t total = 0;
        CHECK(ilmap_sig_encode(sig, sizeof out, &total, out) == ILMAP_OK && total == (size_t)n &&
              memcmp(out, blob, (size_t)n) == 0);
        ilmap_sig_slot slots[16];
        CHECK(ilmap_sig_classify(sig, NULL, 0, 16, &total, slots) == ILMAP_OK);
        dump_buf d;
        CHECK(strchr(dump_sig(&d, sig), '?') == NULL);
        ilmap_sig_slot one;
        CHECK(ilmap_sig_classify_type(sig, 0, NULL, 0, &one) == ILMAP_OK);
        ilmap_sig_static kind;
        const char *attrs[1] = { "System.ThreadStaticAttribute" };
        CHECK(ilmap_sig_static_kind(0x16, attrs, 1, &kind) == ILMAP_OK &&
              kind == ILMAP_SIG_STATIC_THREAD);
        CHECK(nomem_calls == 0);
        nomem_budget = -1;
        ilmap_sig_free(sig);
    }
    /* The locals of a wrap decode two blobs: each allocation failing in
     * turn is ILMAP_E_NOMEM with nothing written, then it works. */
    static const uint8_t method[] = { 0x00, 0x00, 0x08 }, locals[] = { 0x07, 0x01, 0x0E };
    for (long budget = 0; budget <= 2; budget++) {
        size_t total = 9;
        uint32_t rl = 0, el = 0;
        nomem_budget = budget;
        ilmap_status st = ilmap_sig_wrap_locals(method, sizeof method, locals, sizeof locals,
                                                0x01000003u, sizeof out, &total, out, &rl, &el);
        nomem_budget = -1;
        if (budget < 2)
            CHECK(st == ILMAP_E_NOMEM && total == 0 && rl == ILMAP_SIG_NO_LOCAL &&
                  el == ILMAP_SIG_NO_LOCAL);
        else
            CHECK(st == ILMAP_OK && total == 6 && rl == 1 && el == 2);
    }
    return test_finish("test-sig-nomem");
}
