/* The C consumer of the packaging test (test/packaging-test.sh): built
 * against the installed library (pkg-config, CMake's ilmap::ilmap and
 * ilmap::ilmap_static) and as a Meson subproject. Exits non-zero unless
 * every answer is right. */
#include <ilmap.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* The rewrite put 5 bytes before old offset 0 and 10 before old 9. */
    const ilmap_entry e[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    ilmap *map = NULL;
    if (ilmap_create(e, 3, 0, &map) != ILMAP_OK)
        return 1;
    unsigned o2n = ilmap_old_to_new(map, 7);
    unsigned n2o = ilmap_new_to_old(map, 15);
    ilmap_free(map);

    /* An exported IL-to-native map: prolog, IL 0, IL 5, epilog. */
    const ilmap_native_entry ne[] = {
        { ILMAP_PROLOG, 0, 4 }, { 0, 4, 12 }, { 5, 12, 20 }, { ILMAP_EPILOG, 20, 30 } };
    ilmap_native *nm = NULL;
    if (ilmap_native_from_entries(ne, 4, 30, &nm) != ILMAP_OK)
        return 1;
    uint32_t il = 0;
    unsigned mapping = ilmap_native_to_il(nm, 15, &il);
    ilmap_native_free(nm);

    printf("libilmap %s: old 7 -> new %u, new 15 -> old %u, native 15 -> IL %u (mapping 0x%x)\n",
           ilmap_version(), o2n, n2o, (unsigned)il, mapping);
    return o2n == 10 && n2o == 5 && il == 5 && mapping == ILMAP_MAPPING_APPROXIMATE &&
                   strcmp(ilmap_version(), "0.2.0") >= 0
               ? 0
               : 1;
}
