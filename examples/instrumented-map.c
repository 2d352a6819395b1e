/*
 * A profiler inserted 10-byte probes before three instructions of a
 * method. This builds the COR_IL_MAP it hands to SetILInstrumentedCodeMap,
 * validates it, prints where every offset goes in both directions, and
 * shows what a broken map gets.
 */
#include <stdio.h>

#include "ilmap.h"

#define PROBE_BYTES 10u

int main(void)
{
    /* Original instruction start offsets, and which get a probe. */
    static const uint32_t starts[] = { 0, 1, 2, 7, 8, 13, 18, 19 };
    static const int probed[] = { 1, 0, 0, 1, 0, 1, 0, 0 };
    enum { COUNT = sizeof starts / sizeof starts[0] };
    const uint32_t original_size = 20;

    /* One entry per original instruction; its new offset is the probe's
     * first byte, so a breakpoint on the line stops before the probe. */
    ilmap_entry entries[COUNT];
    uint32_t shift = 0;
    for (int i = 0; i < COUNT; i++) {
        entries[i] = (ilmap_entry){ starts[i], starts[i] + shift, 1 };
        if (probed[i])
            shift += PROBE_BYTES;
    }

    size_t bad = 0;
    ilmap_defect defect = ILMAP_DEFECT_NONE;
    ilmap_status st = ilmap_validate(entries, COUNT, &defect, &bad);
    printf("validate: %s\n", ilmap_status_str(st));

    ilmap *map = NULL;
    st = ilmap_create(entries, COUNT, 0, &map);
    if (st != ILMAP_OK) {
        fprintf(stderr, "ilmap_create: %s\n", ilmap_status_str(st));
        return 1;
    }
    printf("lookups use the %s code\n\n", ilmap_get_implementation(map));

    printf("old -> new:");
    for (uint32_t off = 0; off < original_size; off++)
        printf(" %u->%u", off, ilmap_old_to_new(map, off));
    printf("\n\nnew -> old:");
    for (uint32_t off = 0; off < original_size + shift; off++)
        printf(" %u->%u", off, ilmap_new_to_old(map, off));
    printf("\n\nspecials: old_to_new(PROLOG) = 0x%X, new_to_old(EPILOG) = 0x%X\n",
           ilmap_old_to_new(map, ILMAP_PROLOG), ilmap_new_to_old(map, ILMAP_EPILOG));
    ilmap_free(map);

    /* A rewriter that moved code: entry 4's new offset goes backwards. */
    entries[4].new_offset = entries[3].new_offset - 1;
    st = ilmap_validate(entries, COUNT, &defect, &bad);
    printf("\nbroken map: %s at entry %zu (%s)\n", ilmap_status_str(st), bad,
           ilmap_defect_str(defect));
    st = ilmap_create(entries, COUNT, 0, &map);
    printf("ilmap_create: %s, map %s\n", ilmap_status_str(st), map ? "built" : "NULL");

    /* The runtime itself would scan it anyway; ILMAP_LENIENT answers as it does. */
    st = ilmap_create(entries, COUNT, ILMAP_LENIENT, &map);
    printf("lenient: %s, new 25 -> old %u (as the runtime's scan)\n", ilmap_status_str(st),
           ilmap_new_to_old(map, 25));
    ilmap_free(map);
    return 0;
}
