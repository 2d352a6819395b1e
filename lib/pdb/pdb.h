/*
 * The Portable PDB reader's private state and helpers shared by its files:
 * metadata.c (root, streams, #Pdb, #~), names.c (document names),
 * sequence.c (sequence points and the lookup rule), pe.c (PE debug
 * directory, embedded PDBs). Every offset kept here is absolute in the
 * caller's buffer and was checked to lie inside it when the handle was
 * opened.
 */
#ifndef ILMAP_PDB_PDB_H
#define ILMAP_PDB_PDB_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-pdb.h"

/* Table numbers of the Portable PDB's own tables (0x30..0x37). */
#define PDB_TABLE_DOCUMENT 0x30u
#define PDB_TABLE_METHOD_DEBUG 0x31u
#define PDB_TABLE_LAST 0x37u
/* The last type-system table a #Pdb stream may give a row count for. */
#define PDB_TABLE_LAST_TYPE_SYSTEM 0x2Cu

struct ilmap_pdb {
    const uint8_t *data;
    size_t size;
    char version[256];
    uint8_t id[20];
    uint32_t entry_point;
    uint64_t referenced;
    size_t blob_off, blob_size; /* the #Blob heap; size 0 when absent */
    unsigned blob_width;        /* 2 or 4 bytes per blob index */
    unsigned guid_width;
    uint32_t doc_rows, mdi_rows;
    size_t doc_off, doc_row_size; /* the Document table */
    size_t mdi_off, mdi_row_size; /* the MethodDebugInformation table */
    unsigned mdi_doc_width;       /* its Document column: 2 or 4 bytes */
    void *owned; /* the bytes, when the handle owns them (ilmap_pdb_open_for_assembly) */
};

/* Records a defect (err may be NULL) and returns ILMAP_E_FORMAT. */
ilmap_status pdb_fail(ilmap_pdb_error *err, ilmap_pdb_defect defect, size_t offset);

/* Clears *err (no defect, offset ILMAP_NO_INDEX). */
void pdb_clear(ilmap_pdb_error *err);

/* A heap index or row number of width 2 or 4 at data[at]. */
uint32_t pdb_read_index(const uint8_t *data, size_t at, unsigned width);

/* The blob at a #Blob index: its contents' absolute offset and size.
 * Index 0 is the empty blob. at: where the index was read (for errors). */
ilmap_status pdb_blob(const ilmap_pdb *pdb, uint32_t index, size_t at, size_t *off, size_t *len,
                      ilmap_pdb_error *err);

/* A compressed unsigned or signed integer at p[*pos] (p is blob bytes
 * starting at absolute offset base, n of them); advances *pos. */
ilmap_status pdb_read_unsigned(const uint8_t *p, size_t n, size_t base, size_t *pos,
                               uint32_t *value, ilmap_pdb_error *err);
ilmap_status pdb_read_signed(const uint8_t *p, size_t n, size_t base, size_t *pos, int32_t *value,
                             ilmap_pdb_error *err);

#endif
