/* The C consumer of the packaging test (test/packaging-test.sh): built
 * against the installed library (pkg-config, CMake's ilmap::ilmap and
 * ilmap::ilmap_static) and as a Meson subproject. Exits non-zero unless
 * every answer is right. It also inflates the PDB embedded in the test
 * data's tiny-embedded.dll (ILMAP_CONSUMER_DATA): linked statically, that
 * pulls in the library's use of zlib, which the static target must carry. */
#include <ilmap-pdb.h>
#include <ilmap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0 when the embedded PDB inflates and opens (or the library says it was
 * built without zlib), 1 otherwise. */
static int check_embedded_pdb(void)
{
    const char *dir = getenv("ILMAP_CONSUMER_DATA");
    if (!dir)
        return 0; /* the subproject build runs it without the data */
    char path[4096];
    snprintf(path, sizeof path, "%s/tiny-embedded.dll", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fprintf(stderr, "cannot open %s\n", path), 1;
    static unsigned char dll[1 << 16];
    size_t size = fread(dll, 1, sizeof dll, f);
    fclose(f);
    ilmap_pdb_pe_info info;
    ilmap_pdb_error err;
    if (ilmap_pdb_read_pe(dll, size, &info, &err) != ILMAP_OK)
        return fprintf(stderr, "%s: not read as a PE file\n", path), 1;
    void *pdb_bytes = malloc(info.pdb_size ? info.pdb_size : 1);
    if (!pdb_bytes)
        return 1;
    ilmap_status st = ilmap_pdb_inflate(dll, size, &info, pdb_bytes, info.pdb_size, &err);
    int failed = 0;
    if (st == ILMAP_OK) {
        ilmap_pdb *pdb = NULL;
        failed = ilmap_pdb_open(pdb_bytes, info.pdb_size, &pdb, &err) != ILMAP_OK;
        ilmap_pdb_free(pdb);
        printf("embedded PDB: %u bytes inflated, %s\n", (unsigned)info.pdb_size,
               failed ? "not opened" : "opened");
    } else {
        /* Without zlib the library says so, unless the test says it has it
         * (ILMAP_CONSUMER_ZLIB=1: test/amalgamation-test.sh). */
        const char *want = getenv("ILMAP_CONSUMER_ZLIB");
        failed = st != ILMAP_E_UNSUPPORTED || (want && strcmp(want, "1") == 0);
        printf("embedded PDB: %s\n", ilmap_status_str(st));
    }
    free(pdb_bytes);
    return failed;
}

int main(void)
{
    /* The rewrite inserted 5 bytes before old offset 5 and 6 before old 9. */
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

    if (check_embedded_pdb() != 0)
        return 1;
    printf("libilmap %s: old 7 -> new %u, new 15 -> old %u, native 15 -> IL %u (mapping 0x%x)\n",
           ilmap_version(), o2n, n2o, (unsigned)il, mapping);
    return o2n == 10 && n2o == 5 && il == 5 && mapping == ILMAP_MAPPING_APPROXIMATE &&
                   strcmp(ilmap_version(), "0.2.0") >= 0
               ? 0
               : 1;
}
