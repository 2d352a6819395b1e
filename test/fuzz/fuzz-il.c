/*
 * libFuzzer target for the IL decoder on raw code streams
 * (ilmap_il_decode, ilmap_il_starts, ilmap_il_decode_one,
 * ilmap_il_switch_target): any bytes as a method's code. Checked, from
 * ilmap-il.h's contract:
 *  - decode and starts agree on status, count and bad offset;
 *  - a good stream is its instructions end to end: the first at 0, each
 *    where the previous ends, the last ending at the code size; each is
 *    what decode_one reads there; every branch and switch target is one
 *    of the instruction starts;
 *  - a refused stream: walking decode_one from 0 meets the bad offset,
 *    and if decode_one itself fails, it fails there with the same status;
 *    nothing is written and the count is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "common/search.h"
#include "ilmap-il.h"

#include "fuzz.h"

/* Is t one of the n starts (ascending)? The library's one binary search. */
static int is_start(const uint32_t *starts, size_t n, uint32_t t)
{
    size_t lo = search_lower_u32(starts, sizeof *starts, n, t);
    return lo < n && starts[lo] == t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t total = 1, bad = 0;
    ilmap_status st = ilmap_il_decode(data, size, 0, &total, NULL, &bad);
    size_t ntotal = 1, nbad = 0;
    ilmap_status nst = ilmap_il_starts(data, size, 0, &ntotal, NULL, &nbad);
    REQUIRE(st == nst && total == ntotal && bad == nbad);

    if (st != ILMAP_OK) {
        REQUIRE(st == ILMAP_E_IL_OPCODE || st == ILMAP_E_IL_TRUNCATED ||
                st == ILMAP_E_IL_BRANCH || st == ILMAP_E_NOMEM);
        if (st == ILMAP_E_NOMEM)
            return 0;
        REQUIRE(total == 0 && bad < size);
        /* decode_one from 0: the bad offset is on the walk. */
        size_t at = 0;
        ilmap_il_instr in;
        ilmap_status one = ILMAP_OK;
        while (at < bad && (one = ilmap_il_decode_one(data, size, at, &in)) == ILMAP_OK)
            at += in.length;
        REQUIRE(one == ILMAP_OK && at == bad);
        one = ilmap_il_decode_one(data, size, at, &in);
        if (one != ILMAP_OK)
            REQUIRE(one == st);
        else
            REQUIRE(st == ILMAP_E_IL_BRANCH); /* a target inside but not a start */
        return 0;
    }

    REQUIRE(bad == ILMAP_NO_INDEX);
    REQUIRE((size == 0) == (total == 0) && total <= size);
    ilmap_il_instr *ins = malloc((total ? total : 1) * sizeof *ins);
    uint32_t *starts = malloc((total ? total : 1) * sizeof *starts);
    if (!ins || !starts) {
        free(ins);
        free(starts);
        return 0;
    }
    size_t again = 0, sagain = 0;
    REQUIRE(ilmap_il_decode(data, size, total, &again, ins, NULL) == ILMAP_OK && again == total);
    REQUIRE(ilmap_il_starts(data, size, total, &sagain, starts, NULL) == ILMAP_OK &&
            sagain == total);
    uint32_t pos = 0;
    for (size_t i = 0; i < total; i++) {
        const ilmap_il_instr *in = &ins[i];
        REQUIRE(in->offset == pos && starts[i] == pos);
        REQUIRE(in->opcode_size == 1 || in->opcode_size == 2);
        REQUIRE(in->length >= in->opcode_size);
        REQUIRE((in->opcode_size == 2) == (in->opcode > 0xFF));
        ilmap_il_instr one;
        REQUIRE(ilmap_il_decode_one(data, size, pos, &one) == ILMAP_OK);
        REQUIRE(memcmp(&one, in, sizeof one) == 0);
        pos += in->length;
    }
    REQUIRE(pos == size);
    for (size_t i = 0; i < total; i++) {
        const ilmap_il_instr *in = &ins[i];
        if (in->operand == ILMAP_IL_BRANCH8 || in->operand == ILMAP_IL_BRANCH32)
            REQUIRE(is_start(starts, total, in->target));
        if (in->operand == ILMAP_IL_SWITCH)
            for (uint32_t k = 0; k < in->target; k++) {
                uint32_t t = 0;
                REQUIRE(ilmap_il_switch_target(data, size, in, k, &t) == ILMAP_OK);
                REQUIRE(is_start(starts, total, t));
            }
    }
    /* A short buffer: the first cap instructions, ILMAP_E_TRUNCATED. */
    if (total > 1) {
        size_t cap = total / 2, t2 = 0;
        memset(ins, 0, total * sizeof *ins);
        REQUIRE(ilmap_il_decode(data, size, cap, &t2, ins, NULL) == ILMAP_E_TRUNCATED &&
                t2 == total && ins[cap - 1].offset == starts[cap - 1] && ins[cap].length == 0);
    }
    free(ins);
    free(starts);
    return 0;
}
