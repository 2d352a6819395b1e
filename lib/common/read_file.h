/* A whole file read into one malloc'd buffer: the library's PDB search
 * (lib/pdb/assembly.c) and the ilmap tool read assemblies, PDBs and map
 * files this way. Header-only, so that the tool, which links only the
 * public library, shares it. */
#ifndef ILMAP_COMMON_READ_FILE_H
#define ILMAP_COMMON_READ_FILE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of path, *size of them, in a buffer the caller frees (an
 * empty file too: the buffer starts at 4 KiB, so that it is not mistaken
 * for a failure); stdio keeps no buffer of its own (setvbuf) and the
 * buffer grows by doubling, its size checked against SIZE_MAX. NULL when
 * the file cannot be opened
 * or read (errno as stdio left it), or when memory runs out (errno
 * ENOMEM, and *nomem set to 1 when nomem is not NULL). */
static inline uint8_t *common_read_file(const char *path, size_t *size, int *nomem)
{
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    setvbuf(f, NULL, _IONBF, 0);
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (!buf) {
        errno = ENOMEM;
        if (nomem)
            *nomem = 1;
    } else if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = buf ? n : 0;
    return buf;
}

#endif
