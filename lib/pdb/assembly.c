/* An assembly's PDB, found the way the runtime's stack traces find it
 * (doc/source-lines.md#which-pdb): the CodeView entry's path as written,
 * then its file name in the assembly's directory (either only with the
 * assembly's id), then the embedded PDB, then, as libilmap's own last
 * resort, the assembly's name with .pdb beside it (id checked too). The
 * handle returned owns the bytes it reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/read_file.h"
#include "pdb/pdb.h"

typedef struct search {
    const ilmap_pdb_pe_info *pe;
    ilmap_pdb **out;
    int refused;                 /* a file was there but passed over */
    ilmap_pdb_error first_error; /* ... the first one's defect and offset */
    int nomem;
} search;

/* dir[0..dir_len) + name[0..n) + suffix: taken when it is readable, a
 * Portable PDB and (with a CodeView entry) the assembly's own. */
static int try_file(search *s, const char *dir, size_t dir_len, const char *name, size_t n,
                    const char *suffix)
{
    size_t suffix_len = strlen(suffix);
    if (n > SIZE_MAX - dir_len - suffix_len - 1)
        return 0;
    char *p = malloc(dir_len + n + suffix_len + 1);
    if (!p) {
        s->nomem = 1;
        return 0;
    }
    if (dir_len)
        memcpy(p, dir, dir_len);
    memcpy(p + dir_len, name, n);
    memcpy(p + dir_len + n, suffix, suffix_len + 1);
    size_t size = 0;
    uint8_t *b = common_read_file(p, &size, &s->nomem);
    free(p);
    if (!b)
        return 0;
    ilmap_pdb_error e;
    ilmap_status st = ilmap_pdb_open(b, size, s->out, &e);
    if (st == ILMAP_OK && s->pe->has_codeview && ilmap_pdb_check_id(*s->out, s->pe, &e) != ILMAP_OK) {
        ilmap_pdb_free(*s->out);
        *s->out = NULL;
        st = ILMAP_E_FORMAT; /* e: ILMAP_PDB_DEFECT_ID_MISMATCH */
    }
    if (st != ILMAP_OK) {
        if (st == ILMAP_E_NOMEM)
            s->nomem = 1;
        else if (!s->refused) {
            s->refused = 1;
            s->first_error = e;
        }
        free(b);
        return 0;
    }
    (*s->out)->owned = b;
    return 1;
}

static size_t base_start(const char *p, size_t n)
{
    while (n > 0 && p[n - 1] != '/' && p[n - 1] != '\\')
        n--;
    return n;
}

ilmap_status ilmap_pdb_open_for_assembly(const char *path, const void *pe, size_t pe_size,
                                         ilmap_pdb **out, ilmap_pdb_origin *origin,
                                         ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (out)
        *out = NULL;
    if (origin)
        *origin = ILMAP_PDB_ORIGIN_NONE;
    if (!path || !out || (!pe && pe_size > 0))
        return ILMAP_E_INVALID_ARG;
    if (!pe) {
        int nomem = 0;
        size_t size = 0;
        uint8_t *file = common_read_file(path, &size, &nomem);
        if (!file)
            return nomem ? ILMAP_E_NOMEM : ILMAP_E_IO;
        ilmap_status st = ilmap_pdb_open_for_assembly(path, file, size, out, origin, err);
        free(file);
        return st;
    }
    ilmap_pdb_pe_info info;
    ilmap_status st = ilmap_pdb_read_pe(pe, pe_size, &info, err);
    if (st != ILMAP_OK)
        return st;
    search s = { &info, out, 0, { ILMAP_PDB_DEFECT_NONE, 0 }, 0 };
    size_t dir = base_start(path, strlen(path));
    ilmap_pdb_origin found = ILMAP_PDB_ORIGIN_NONE;
    if (info.has_codeview && info.path_size > 0) {
        size_t b = base_start(info.path, info.path_size);
        if (try_file(&s, "", 0, info.path, info.path_size, ""))
            found = ILMAP_PDB_ORIGIN_CODEVIEW_PATH;
        else if (!s.nomem && try_file(&s, path, dir, info.path + b, info.path_size - b, ""))
            found = ILMAP_PDB_ORIGIN_CODEVIEW_NAME;
    }
    if (found == ILMAP_PDB_ORIGIN_NONE && !s.nomem && info.has_embedded) {
        uint8_t *b = malloc(info.pdb_size ? info.pdb_size : 1);
        if (!b)
            return ILMAP_E_NOMEM;
        st = ilmap_pdb_inflate(pe, pe_size, &info, b, info.pdb_size, err);
        if (st == ILMAP_OK)
            st = ilmap_pdb_open(b, info.pdb_size, out, err);
        if (st != ILMAP_OK) {
            free(b);
            return st;
        }
        (*out)->owned = b;
        found = ILMAP_PDB_ORIGIN_EMBEDDED;
    }
    if (found == ILMAP_PDB_ORIGIN_NONE && !s.nomem) {
        const char *base = path + dir, *dot = strrchr(base, '.');
        size_t n = dot ? (size_t)(dot - base) : strlen(base);
        if (try_file(&s, path, dir, base, n, ".pdb"))
            found = ILMAP_PDB_ORIGIN_BESIDE;
    }
    if (found == ILMAP_PDB_ORIGIN_NONE) {
        if (s.nomem)
            return ILMAP_E_NOMEM;
        if (s.refused) {
            /* No PDB taken, and one was there: say why it was not. */
            if (err)
                *err = s.first_error;
            return ILMAP_E_FORMAT;
        }
        return ILMAP_E_NOT_FOUND;
    }
    if (origin)
        *origin = found;
    return ILMAP_OK;
}
