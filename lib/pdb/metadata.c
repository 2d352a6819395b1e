/* Opening a Portable PDB: the metadata root, its stream headers, the #Pdb
 * stream and the #~ table stream (doc/source-lines.md#format). */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "pdb/pdb.h"
#include "sig/compressed.h"

#define METADATA_SIGNATURE 0x424A5342u /* "BSJB" */
#define HEAP_STRINGS_WIDE 0x01u
#define HEAP_GUID_WIDE 0x02u
#define HEAP_BLOB_WIDE 0x04u
#define HEAP_EXTRA_DATA 0x40u
#define MAX_ROWS 0xFFFFFFu

ilmap_status pdb_fail(ilmap_pdb_error *err, ilmap_pdb_defect defect, size_t offset)
{
    if (err)
        *err = (ilmap_pdb_error){ defect, offset };
    return ILMAP_E_FORMAT;
}

void pdb_clear(ilmap_pdb_error *err)
{
    if (err)
        *err = (ilmap_pdb_error){ ILMAP_PDB_DEFECT_NONE, ILMAP_NO_INDEX };
}

uint32_t pdb_read_index(const uint8_t *data, size_t at, unsigned width)
{
    return width == 2 ? rd16(data + at) : rd32(data + at);
}

static ilmap_status sig_defect(ilmap_sig_defect d, size_t at, ilmap_pdb_error *err)
{
    return pdb_fail(err, d == ILMAP_SIG_DEFECT_TRUNCATED ? ILMAP_PDB_DEFECT_TRUNCATED
                                                         : ILMAP_PDB_DEFECT_COMPRESSED,
                    at);
}

ilmap_status pdb_read_unsigned(const uint8_t *p, size_t n, size_t base, size_t *pos,
                               uint32_t *value, ilmap_pdb_error *err)
{
    ilmap_sig_defect d = sig_read_unsigned(p, n, pos, value);
    return d == ILMAP_SIG_DEFECT_NONE ? ILMAP_OK : sig_defect(d, base + *pos, err);
}

ilmap_status pdb_read_signed(const uint8_t *p, size_t n, size_t base, size_t *pos, int32_t *value,
                             ilmap_pdb_error *err)
{
    ilmap_sig_defect d = sig_read_signed(p, n, pos, value);
    return d == ILMAP_SIG_DEFECT_NONE ? ILMAP_OK : sig_defect(d, base + *pos, err);
}

ilmap_status pdb_blob(const ilmap_pdb *pdb, uint32_t index, size_t at, size_t *off, size_t *len,
                      ilmap_pdb_error *err)
{
    *off = 0;
    *len = 0;
    if (index == 0)
        return ILMAP_OK;
    if (index >= pdb->blob_size)
        return pdb_fail(err, ILMAP_PDB_DEFECT_INDEX, at);
    const uint8_t *heap = pdb->data + pdb->blob_off;
    size_t pos = index;
    uint32_t n;
    ilmap_status st = pdb_read_unsigned(heap, pdb->blob_size, pdb->blob_off, &pos, &n, err);
    if (st != ILMAP_OK)
        return st;
    if (n > pdb->blob_size - pos)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, pdb->blob_off + index);
    *off = pdb->blob_off + pos;
    *len = n;
    return ILMAP_OK;
}

/* A stream as its header gives it: absolute offset and size. */
typedef struct stream {
    size_t off, size;
    int seen;
} stream;

enum { S_PDB, S_TABLES, S_STRINGS, S_BLOB, S_GUID, S_US, S_COUNT };

static int stream_kind(const char *name)
{
    static const char *const names[S_COUNT] = { "#Pdb", "#~", "#Strings", "#Blob", "#GUID", "#US" };
    for (int i = 0; i < S_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static ilmap_status read_root(ilmap_pdb *p, stream *s, ilmap_pdb_error *err)
{
    const uint8_t *d = p->data;
    size_t size = p->size;
    if (size < 4)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 0);
    if (rd32(d) != METADATA_SIGNATURE)
        return pdb_fail(err, ILMAP_PDB_DEFECT_SIGNATURE, 0);
    if (size < 16)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 4);
    uint32_t vlen = rd32(d + 12);
    if (vlen > size - 16)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 12);
    size_t copy = 0;
    while (copy < vlen && copy < sizeof p->version - 1 && d[16 + copy] != 0)
        copy++;
    memcpy(p->version, d + 16, copy);
    p->version[copy] = '\0';
    size_t pos = 16 + (size_t)vlen;
    if (size - pos < 4)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, pos);
    size_t count_at = pos + 2;
    unsigned count = rd16(d + count_at);
    pos += 4;
    for (unsigned i = 0; i < count; i++) {
        size_t at = pos;
        if (size - pos < 8)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, at);
        uint32_t off = rd32(d + pos), ssize = rd32(d + pos + 4);
        pos += 8;
        /* The name: NUL-terminated, at most 32 bytes with its NUL, padded
         * to a multiple of 4. */
        size_t len = 0;
        while (pos + len < size && len < 32 && d[pos + len] != 0)
            len++;
        if (pos + len >= size)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, pos);
        if (len == 32)
            return pdb_fail(err, ILMAP_PDB_DEFECT_STREAM, pos);
        char name[32];
        memcpy(name, d + pos, len + 1);
        size_t padded = (len + 4) & ~(size_t)3;
        if (padded > size - pos)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, pos);
        pos += padded;
        if (off > size || ssize > size - off)
            return pdb_fail(err, ILMAP_PDB_DEFECT_STREAM, at);
        int k = stream_kind(name);
        if (k < 0)
            continue;
        if (s[k].seen)
            return pdb_fail(err, ILMAP_PDB_DEFECT_STREAM, at);
        s[k] = (stream){ off, ssize, 1 };
    }
    if (!s[S_PDB].seen || !s[S_TABLES].seen)
        return pdb_fail(err, ILMAP_PDB_DEFECT_STREAM, count_at);
    return ILMAP_OK;
}

static unsigned popcount64(uint64_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

static ilmap_status read_pdb_stream(ilmap_pdb *p, const stream *s, ilmap_pdb_error *err)
{
    const uint8_t *d = p->data + s->off;
    if (s->size < 32)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off);
    memcpy(p->id, d, 20);
    p->entry_point = rd32(d + 20);
    p->referenced = (uint64_t)rd32(d + 24) | (uint64_t)rd32(d + 28) << 32;
    if (p->referenced >> (PDB_TABLE_LAST_TYPE_SYSTEM + 1))
        return pdb_fail(err, ILMAP_PDB_DEFECT_TABLE, s->off + 24);
    size_t rows = popcount64(p->referenced);
    if (rows * 4 > s->size - 32)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off + 32);
    for (size_t i = 0; i < rows; i++)
        if (rd32(d + 32 + 4 * i) > MAX_ROWS)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TABLE, s->off + 32 + 4 * i);
    return ILMAP_OK;
}

static ilmap_status read_tables(ilmap_pdb *p, const stream *s, ilmap_pdb_error *err)
{
    const uint8_t *d = p->data + s->off;
    if (s->size < 24)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off);
    unsigned heaps = d[6];
    uint64_t valid = (uint64_t)rd32(d + 8) | (uint64_t)rd32(d + 12) << 32;
    /* A Portable PDB's own tables only: 0x30..0x37. */
    uint64_t own = ((uint64_t)1 << (PDB_TABLE_LAST + 1)) - ((uint64_t)1 << PDB_TABLE_DOCUMENT);
    if (valid & ~own)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TABLE, s->off + 8);
    size_t pos = 24;
    uint32_t rows[PDB_TABLE_LAST + 1] = { 0 };
    for (unsigned t = PDB_TABLE_DOCUMENT; t <= PDB_TABLE_LAST; t++) {
        if (!(valid >> t & 1u))
            continue;
        if (s->size - pos < 4)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off + pos);
        rows[t] = rd32(d + pos);
        if (rows[t] > MAX_ROWS)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TABLE, s->off + pos);
        pos += 4;
    }
    if (heaps & HEAP_EXTRA_DATA) {
        if (s->size - pos < 4)
            return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off + pos);
        pos += 4;
    }
    p->blob_width = heaps & HEAP_BLOB_WIDE ? 4 : 2;
    p->guid_width = heaps & HEAP_GUID_WIDE ? 4 : 2;
    p->doc_rows = rows[PDB_TABLE_DOCUMENT];
    p->mdi_rows = rows[PDB_TABLE_METHOD_DEBUG];
    /* Document: Name (blob), HashAlgorithm (guid), Hash (blob), Language
     * (guid). MethodDebugInformation: Document (row), SequencePoints (blob). */
    p->doc_row_size = 2 * (size_t)p->blob_width + 2 * (size_t)p->guid_width;
    p->mdi_doc_width = p->doc_rows < 0x10000u ? 2 : 4;
    p->mdi_row_size = p->mdi_doc_width + (size_t)p->blob_width;
    size_t doc_bytes = p->doc_rows * p->doc_row_size, mdi_bytes = p->mdi_rows * p->mdi_row_size;
    if (doc_bytes > s->size - pos)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off + pos);
    p->doc_off = s->off + pos;
    pos += doc_bytes;
    if (mdi_bytes > s->size - pos)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, s->off + pos);
    p->mdi_off = s->off + pos;
    return ILMAP_OK;
}

ilmap_status ilmap_pdb_open(const void *data, size_t size, ilmap_pdb **out, ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (out)
        *out = NULL;
    if (!out || (!data && size > 0))
        return ILMAP_E_INVALID_ARG;
    ilmap_pdb *p = calloc(1, sizeof *p);
    if (!p)
        return ILMAP_E_NOMEM;
    p->data = data;
    p->size = size;
    stream s[S_COUNT] = { { 0, 0, 0 } };
    ilmap_status st = read_root(p, s, err);
    if (st == ILMAP_OK)
        st = read_pdb_stream(p, &s[S_PDB], err);
    if (st == ILMAP_OK)
        st = read_tables(p, &s[S_TABLES], err);
    if (st != ILMAP_OK) {
        free(p);
        return st;
    }
    p->blob_off = s[S_BLOB].off;
    p->blob_size = s[S_BLOB].size;
    *out = p;
    return ILMAP_OK;
}

void ilmap_pdb_free(ilmap_pdb *pdb)
{
    if (pdb)
        free(pdb->owned);
    free(pdb);
}

ilmap_status ilmap_pdb_get_info(const ilmap_pdb *pdb, ilmap_pdb_info *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!pdb || !out)
        return ILMAP_E_INVALID_ARG;
    memcpy(out->id, pdb->id, sizeof out->id);
    out->entry_point = pdb->entry_point;
    out->referenced_tables = pdb->referenced;
    out->document_count = pdb->doc_rows;
    out->method_count = pdb->mdi_rows;
    out->version = pdb->version;
    return ILMAP_OK;
}

const char *ilmap_pdb_defect_str(ilmap_pdb_defect defect)
{
    switch (defect) {
    case ILMAP_PDB_DEFECT_NONE: return "no defect";
    case ILMAP_PDB_DEFECT_TRUNCATED: return "an item runs past the end of its buffer, stream, heap or blob";
    case ILMAP_PDB_DEFECT_SIGNATURE: return "no metadata, PE or embedded PDB signature";
    case ILMAP_PDB_DEFECT_STREAM: return "malformed, misplaced, repeated or missing metadata stream";
    case ILMAP_PDB_DEFECT_TABLE: return "the table stream is not that of a Portable PDB";
    case ILMAP_PDB_DEFECT_INDEX: return "a heap index or row number beyond its heap or table";
    case ILMAP_PDB_DEFECT_COMPRESSED: return "a malformed or non-shortest compressed integer";
    case ILMAP_PDB_DEFECT_SEQUENCE_POINT: return "a sequence point out of the format's ranges";
    case ILMAP_PDB_DEFECT_DOCUMENT_NAME: return "a document name's separator is not ASCII";
    case ILMAP_PDB_DEFECT_PE: return "malformed PE headers, sections or debug directory";
    case ILMAP_PDB_DEFECT_DEFLATE: return "embedded PDB data does not inflate to its stated size";
    case ILMAP_PDB_DEFECT_ID_MISMATCH: return "the PDB id is not the one the CodeView entry names";
    }
    return "unknown defect";
}
