/* Document names: a blob holding a separator byte and a list of parts,
 * each a #Blob index of UTF-8 text, joined by the separator
 * (doc/source-lines.md#names). */
#include "pdb/pdb.h"

/* Appends n bytes to out[0..cap) at *count (writing only below cap). */
static void append(char *out, size_t cap, size_t *count, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++, (*count)++)
        if (*count < cap)
            out[*count] = (char)bytes[i];
}

ilmap_status ilmap_pdb_get_document_name(const ilmap_pdb *pdb, uint32_t document, size_t cap,
                                         size_t *total, char *out, ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (total)
        *total = 0;
    if (!pdb || !total || (cap > 0 && !out))
        return ILMAP_E_INVALID_ARG;
    if (document == 0 || document > pdb->doc_rows)
        return ILMAP_E_NOT_FOUND;
    size_t at = pdb->doc_off + (size_t)(document - 1) * pdb->doc_row_size;
    size_t off, len;
    ilmap_status st =
        pdb_blob(pdb, pdb_read_index(pdb->data, at, pdb->blob_width), at, &off, &len, err);
    if (st != ILMAP_OK)
        return st;
    const uint8_t *b = pdb->data + off;
    if (len == 0)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, off);
    uint8_t sep = b[0];
    if (sep > 0x7Fu)
        return pdb_fail(err, ILMAP_PDB_DEFECT_DOCUMENT_NAME, off);
    size_t count = 0, pos = 1;
    for (int first = 1; pos < len; first = 0) {
        size_t part_at = off + pos;
        uint32_t part;
        st = pdb_read_unsigned(b, len, off, &pos, &part, err);
        if (st != ILMAP_OK)
            return st;
        size_t poff, plen;
        st = pdb_blob(pdb, part, part_at, &poff, &plen, err);
        if (st != ILMAP_OK)
            return st;
        if (!first && sep != 0)
            append(out, cap, &count, &sep, 1);
        append(out, cap, &count, pdb->data + poff, plen);
    }
    static const uint8_t nul = 0;
    append(out, cap, &count, &nul, 1);
    *total = count;
    return cap == 0 || cap >= count ? ILMAP_OK : ILMAP_E_TRUNCATED;
}
