/* PE files: the debug directory's CodeView (RSDS) and embedded Portable
 * PDB entries, inflating the latter (zlib, when the build has it), and
 * the id check between a PDB and its assembly (doc/source-lines.md#pe). */
#include <string.h>

#ifdef ILMAP_HAVE_ZLIB
#include <limits.h>
#include <zlib.h>
#endif

#include "common/bytes.h"
#include "pdb/pdb.h"

#define DEBUG_TYPE_CODEVIEW 2u
#define DEBUG_TYPE_EMBEDDED_PDB 17u
#define RSDS 0x53445352u /* "RSDS" */
#define MPDB 0x4244504Du /* "MPDB" */
#define DEBUG_ENTRY_SIZE 28u
#define SECTION_SIZE 40u

static ilmap_status pe_fail(ilmap_pdb_error *err, size_t at)
{
    return pdb_fail(err, ILMAP_PDB_DEFECT_PE, at);
}

/* The file offset of n bytes at rva, from the section table. */
static int rva_to_offset(const uint8_t *d, size_t size, size_t sections, unsigned count,
                         uint32_t rva, uint32_t n, size_t *off)
{
    for (unsigned i = 0; i < count; i++) {
        const uint8_t *s = d + sections + (size_t)i * SECTION_SIZE;
        uint32_t va = rd32(s + 12), raw_size = rd32(s + 16), raw = rd32(s + 20);
        if (rva < va || rva - va >= raw_size)
            continue;
        uint32_t in = rva - va;
        if (n > raw_size - in || raw > size || (size_t)in + n > size - raw)
            return 0;
        *off = (size_t)raw + in;
        return 1;
    }
    return 0;
}

static void read_entry(const uint8_t *d, size_t size, const uint8_t *e, ilmap_pdb_pe_info *out)
{
    uint32_t type = rd32(e + 12), dsize = rd32(e + 16), raw = rd32(e + 24);
    if (raw > size || dsize > size - raw)
        return; /* data outside the file: ignored, as a reader of it would fail */
    const uint8_t *p = d + raw;
    if (type == DEBUG_TYPE_CODEVIEW && !out->has_codeview && dsize >= 24 && rd32(p) == RSDS) {
        out->has_codeview = 1;
        memcpy(out->guid, p + 4, 16);
        out->age = rd32(p + 20);
        out->codeview_stamp = rd32(e + 4);
        size_t n = 0;
        while (24 + n < dsize && p[24 + n] != 0)
            n++;
        out->path = (const char *)p + 24;
        out->path_size = n;
    } else if (type == DEBUG_TYPE_EMBEDDED_PDB && !out->has_embedded && dsize >= 8 &&
               rd32(p) == MPDB) {
        out->has_embedded = 1;
        out->pdb_size = rd32(p + 4);
        out->embedded_offset = (size_t)raw + 8;
        out->embedded_size = dsize - 8;
    }
}

ilmap_status ilmap_pdb_read_pe(const void *data, size_t size, ilmap_pdb_pe_info *out,
                               ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!out || (!data && size > 0))
        return ILMAP_E_INVALID_ARG;
    const uint8_t *d = data;
    if (size < 2)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 0);
    if (d[0] != 'M' || d[1] != 'Z')
        return pdb_fail(err, ILMAP_PDB_DEFECT_SIGNATURE, 0);
    if (size < 0x40)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 2);
    uint32_t pe = rd32(d + 0x3C);
    if (pe > size || size - pe < 24)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, 0x3C);
    if (rd32(d + pe) != 0x00004550u)
        return pdb_fail(err, ILMAP_PDB_DEFECT_SIGNATURE, pe);
    unsigned nsections = rd16(d + pe + 6);
    unsigned opt_size = rd16(d + pe + 20);
    size_t opt = (size_t)pe + 24;
    if (opt_size > size - opt)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, pe + 20);
    if (opt_size < 2)
        return pe_fail(err, pe + 20);
    unsigned magic = rd16(d + opt);
    size_t count_at, dirs;
    if (magic == 0x10Bu) {
        count_at = 92;
        dirs = 96;
    } else if (magic == 0x20Bu) {
        count_at = 108;
        dirs = 112;
    } else {
        return pe_fail(err, opt);
    }
    size_t sections = opt + opt_size;
    if ((size_t)nsections * SECTION_SIZE > size - sections)
        return pdb_fail(err, ILMAP_PDB_DEFECT_TRUNCATED, sections);
    /* The debug directory is data directory 6. */
    if (opt_size < dirs + 7 * 8 || rd32(d + opt + count_at) < 7)
        return ILMAP_OK;
    size_t dir_at = opt + dirs + 6 * 8;
    uint32_t rva = rd32(d + dir_at), dsize = rd32(d + dir_at + 4);
    if (rva == 0 || dsize == 0)
        return ILMAP_OK;
    size_t off;
    if (!rva_to_offset(d, size, sections, nsections, rva, dsize, &off))
        return pe_fail(err, dir_at);
    for (uint32_t i = 0; i < dsize / DEBUG_ENTRY_SIZE; i++)
        read_entry(d, size, d + off + (size_t)i * DEBUG_ENTRY_SIZE, out);
    return ILMAP_OK;
}

ilmap_status ilmap_pdb_inflate(const void *pe, size_t pe_size, const ilmap_pdb_pe_info *info,
                               void *out, size_t out_size, ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (!pe || !info || !info->has_embedded || !out || out_size != info->pdb_size ||
        info->embedded_offset > pe_size || info->embedded_size > pe_size - info->embedded_offset)
        return ILMAP_E_INVALID_ARG;
#ifdef ILMAP_HAVE_ZLIB
    if (info->embedded_size > UINT_MAX || out_size > UINT_MAX)
        return pdb_fail(err, ILMAP_PDB_DEFECT_DEFLATE, info->embedded_offset);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) /* raw deflate, no zlib header */
        return ILMAP_E_NOMEM;
    z.next_in = (Bytef *)((const uint8_t *)pe + info->embedded_offset);
    z.avail_in = (uInt)info->embedded_size;
    z.next_out = out;
    z.avail_out = (uInt)out_size;
    int r = inflate(&z, Z_FINISH);
    size_t produced = z.total_out, consumed = z.total_in;
    inflateEnd(&z);
    if (r == Z_MEM_ERROR)
        return ILMAP_E_NOMEM;
    if (r != Z_STREAM_END || produced != out_size)
        return pdb_fail(err, ILMAP_PDB_DEFECT_DEFLATE, info->embedded_offset + consumed);
    return ILMAP_OK;
#else
    return ILMAP_E_UNSUPPORTED;
#endif
}

ilmap_status ilmap_pdb_check_id(const ilmap_pdb *pdb, const ilmap_pdb_pe_info *info,
                                ilmap_pdb_error *err)
{
    pdb_clear(err);
    if (!pdb || !info)
        return ILMAP_E_INVALID_ARG;
    if (!info->has_codeview)
        return ILMAP_E_NOT_FOUND;
    if (memcmp(pdb->id, info->guid, 16) != 0 || rd32(pdb->id + 16) != info->codeview_stamp)
        return pdb_fail(err, ILMAP_PDB_DEFECT_ID_MISMATCH, 0);
    return ILMAP_OK;
}
