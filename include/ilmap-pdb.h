/*
 * libilmap, Portable PDBs: read the debug metadata a .NET compiler writes
 * beside (or into) an assembly, and answer "method token + IL offset ->
 * document, line, column" with the rule the runtime's own stack traces
 * apply.
 *
 * The conventions of ilmap.h hold here (statuses, defined outputs on
 * failure, opaque handles with create/free, the buffer protocol, no global
 * state). The reader is zero-copy: it keeps pointers into the caller's
 * buffer, which must stay alive and unchanged until ilmap_pdb_free().
 * Every byte is untrusted: nothing outside [data, data + size) is read
 * whatever the bytes say, sizes are overflow-checked, nothing aborts, and
 * a refusal names a defect and the byte offset where it was found.
 *
 * The format as read (metadata root, streams, tables, blobs), the lookup
 * rule and how other readers differ: doc/source-lines.md.
 */
#ifndef ILMAP_PDB_H
#define ILMAP_PDB_H

#include "ilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A Portable PDB opened over a caller's buffer: immutable, any number of
 *  threads may query it at once; queries allocate nothing and take no
 *  locks (each decodes the method's blob on demand; ilmap_pdb_lines
 *  decodes it once for many queries). */
typedef struct ilmap_pdb ilmap_pdb;

/** Why bytes were refused (doc/source-lines.md#errors). */
typedef enum ilmap_pdb_defect {
    ILMAP_PDB_DEFECT_NONE = 0,
    /** An item runs past the end of its buffer, stream, heap or blob. */
    ILMAP_PDB_DEFECT_TRUNCATED = 1,
    /** No 'BSJB' metadata signature, no 'MZ'/'PE' headers, no 'MPDB'. */
    ILMAP_PDB_DEFECT_SIGNATURE = 2,
    /** A stream header is malformed, a stream lies outside the metadata,
     *  a name repeats, or #Pdb or #~ is missing. */
    ILMAP_PDB_DEFECT_STREAM = 3,
    /** The #~ stream's header or table set is not that of a Portable PDB
     *  (a type-system table present, an unknown table, a row count over
     *  24 bits). */
    ILMAP_PDB_DEFECT_TABLE = 4,
    /** A heap index or row number beyond its heap or table. */
    ILMAP_PDB_DEFECT_INDEX = 5,
    /** A compressed integer starts with 111 or is not in its shortest form. */
    ILMAP_PDB_DEFECT_COMPRESSED = 6,
    /** A sequence point out of the format's ranges: IL offset beyond
     *  INT32_MAX, a line at or above 0x20000000 or equal to 0xFEEFEE, a
     *  column at or above 0x10000, an end before its start. */
    ILMAP_PDB_DEFECT_SEQUENCE_POINT = 7,
    /** A document name's separator is not ASCII. */
    ILMAP_PDB_DEFECT_DOCUMENT_NAME = 8,
    /** A PE file's headers, sections or debug directory are malformed. */
    ILMAP_PDB_DEFECT_PE = 9,
    /** Embedded PDB data does not inflate to its stated size. */
    ILMAP_PDB_DEFECT_DEFLATE = 10,
    /** The PDB's id is not the one the PE's CodeView entry names. */
    ILMAP_PDB_DEFECT_ID_MISMATCH = 11
} ilmap_pdb_defect;

/** What was wrong and where: offset is the byte offset in the buffer the
 *  function was given (for an embedded PDB's contents: in the inflated
 *  PDB). ILMAP_NO_INDEX when there is no defect. */
typedef struct ilmap_pdb_error {
    ilmap_pdb_defect defect;
    size_t offset;
} ilmap_pdb_error;

/** A one-line description of a defect; never NULL, static storage. */
ILMAP_EXPORT const char *ilmap_pdb_defect_str(ilmap_pdb_defect defect);

/** The start line of a hidden sequence point (its columns are 0). */
#define ILMAP_PDB_HIDDEN_LINE 0xFEEFEEu

/**
 * Opens a Portable PDB (a standalone .pdb file's bytes, or an embedded
 * PDB after ilmap_pdb_inflate()). Reads and checks the metadata root, the
 * stream headers (#Pdb and #~ required; #Strings, #Blob, #GUID, #US
 * optional), the #Pdb stream, the #~ header with its heap-size and
 * extra-data flags, and locates the Document and MethodDebugInformation
 * tables. Blobs are decoded later, per query.
 *
 * @param data, size  the PDB; kept, not copied: it must outlive the handle.
 * @param out         receives the handle (ilmap_pdb_free()); NULL on failure.
 * @param err         optional; the defect and its offset in data.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, data NULL with size > 0);
 *         ILMAP_E_FORMAT (err says why); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_open(const void *data, size_t size, ilmap_pdb **out,
                                         ilmap_pdb_error *err);

/** Releases a handle (NULL is fine); the buffer stays the caller's. */
ILMAP_EXPORT void ilmap_pdb_free(ilmap_pdb *pdb);

/** What the #Pdb stream and the tables say about the PDB as a whole. */
typedef struct ilmap_pdb_info {
    /** The PDB id: a GUID (16 bytes) and a stamp (4 bytes, little-endian)
     *  that match the assembly's CodeView entry. */
    uint8_t id[20];
    /** The entry point's MethodDef token, 0 when none. */
    uint32_t entry_point;
    /** Bit n set: the #Pdb stream gives the row count of type-system
     *  table n of the assembly. */
    uint64_t referenced_tables;
    /** Rows of the Document and MethodDebugInformation tables. */
    uint32_t document_count;
    uint32_t method_count;
    /** The metadata version string (NUL-terminated, in the handle). */
    const char *version;
} ilmap_pdb_info;

/** Fills *out (zeroed on failure). @return ILMAP_OK; ILMAP_E_INVALID_ARG
 *  (a NULL argument). */
ILMAP_EXPORT ilmap_status ilmap_pdb_get_info(const ilmap_pdb *pdb, ilmap_pdb_info *out);

/**
 * A document's full name as stored (its parts joined by the separator,
 * doc/source-lines.md#names), UTF-8 bytes as they are, followed by a NUL;
 * the buffer protocol with items = bytes (*total counts the NUL).
 *
 * @param document  the Document row, 1..document_count.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED; ILMAP_E_NOT_FOUND (no such row);
 *         ILMAP_E_INVALID_ARG; ILMAP_E_FORMAT (err says why).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_get_document_name(const ilmap_pdb *pdb, uint32_t document,
                                                      size_t cap, size_t *total, char *out,
                                                      ilmap_pdb_error *err);

/** One sequence point (doc/source-lines.md#sequence-points). A hidden one
 *  has start_line = end_line = ILMAP_PDB_HIDDEN_LINE and columns 0. */
typedef struct ilmap_pdb_sequence_point {
    uint32_t il_offset;
    uint32_t document; /**< Document row */
    uint32_t start_line;
    uint32_t start_column;
    uint32_t end_line;
    uint32_t end_column;
} ilmap_pdb_sequence_point;

/**
 * Every sequence point of a method, in blob order; the buffer protocol.
 * A method without debug information (no row, or a nil blob) has none.
 *
 * @param method_token  a MethodDef token (0x06xxxxxx).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED; ILMAP_E_INVALID_ARG (not a
 *         MethodDef token, a NULL argument); ILMAP_E_FORMAT (err says why
 *         and where; *total 0).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_get_sequence_points(const ilmap_pdb *pdb, uint32_t method_token,
                                                        size_t cap, size_t *total,
                                                        ilmap_pdb_sequence_point *out,
                                                        ilmap_pdb_error *err);

/**
 * The source of an IL offset by the runtime's rule
 * (doc/source-lines.md#rule): in blob order, the last visible sequence
 * point whose IL offset is at or before il_offset; hidden points are
 * skipped; nothing before the first point. Decodes the blob only up to
 * the first point past il_offset. Stateless: safe from any thread.
 *
 * @param out  receives the point (its document is a row for
 *             ilmap_pdb_get_document_name()); zeroed unless ILMAP_OK.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no answer: no debug information,
 *         or no visible point at or before the offset); ILMAP_E_INVALID_ARG;
 *         ILMAP_E_FORMAT (a defect in the part of the blob read).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_find_source(const ilmap_pdb *pdb, uint32_t method_token,
                                                uint32_t il_offset, ilmap_pdb_sequence_point *out,
                                                ilmap_pdb_error *err);

/**
 * One method's source lines, decoded once: the visible sequence points of
 * its blob in a sorted array, so that a query is one binary search instead
 * of a decode from the blob's start (doc/source-lines.md#lines). For a
 * method queried many times (a profiler's samples, a debugger's stepping);
 * for one query, ilmap_pdb_find_source() costs less. Immutable once
 * created: any number of threads may query it at once; queries allocate
 * nothing and take no locks. It owns its points: the PDB handle and its
 * buffer may be released before it.
 */
typedef struct ilmap_pdb_lines ilmap_pdb_lines;

/**
 * Decodes a method's sequence-point blob once. Every query of the result
 * answers exactly what ilmap_pdb_find_source() answers for the same
 * method and offset, statuses and errors included: a defect in the blob
 * does not fail the creation; the points before it keep answering the
 * offsets whose stateless query stops before the defect, and the others
 * return ILMAP_E_FORMAT with the same defect and offset.
 *
 * @param method_token  a MethodDef token (0x06xxxxxx); a method without
 *                      debug information gives lines that answer nothing.
 * @param out           receives the lines (ilmap_pdb_lines_free()); NULL
 *                      on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (pdb or out NULL, not a MethodDef
 *         token); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_lines_create(const ilmap_pdb *pdb, uint32_t method_token,
                                                 ilmap_pdb_lines **out);

/** Releases lines (NULL is fine). */
ILMAP_EXPORT void ilmap_pdb_lines_free(ilmap_pdb_lines *lines);

/**
 * ilmap_pdb_find_source() over decoded lines: the last visible sequence
 * point at or before il_offset (doc/source-lines.md#rule), by a binary
 * search. Any thread, no allocation.
 *
 * @param out  receives the point; zeroed unless ILMAP_OK.
 * @param err  optional; the blob's defect when ILMAP_E_FORMAT.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND; ILMAP_E_INVALID_ARG (a NULL
 *         argument); ILMAP_E_FORMAT (the stateless query would meet a
 *         defect of the blob).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_lines_find_source(const ilmap_pdb_lines *lines,
                                                      uint32_t il_offset,
                                                      ilmap_pdb_sequence_point *out,
                                                      ilmap_pdb_error *err);

/** How many visible sequence points the lines hold (decoded before a
 *  defect, if any); 0 for NULL. */
ILMAP_EXPORT size_t ilmap_pdb_lines_get_count(const ilmap_pdb_lines *lines);

/** The heap bytes the lines hold (one block: a header, then 28 bytes per
 *  visible point, its IL offset as a search key and the point); 0 for
 *  NULL. Any thread. */
ILMAP_EXPORT size_t ilmap_pdb_lines_get_memory_bytes(const ilmap_pdb_lines *lines);

/**
 * The rule for profilers that rewrite IL, as a check
 * (doc/source-lines.md#map-check): a profiler that instruments a method
 * must give its COR_IL_MAP an entry of its own (old_offset = the point's
 * IL offset) for every sequence point, or a debugger stepping through the
 * instrumented code loses its place there.
 * Lists, in order, the indexes in points of the visible sequence points
 * whose IL offset is no entry's old_offset; the buffer protocol. Pure:
 * works on arrays (from ilmap_pdb_get_sequence_points() and the map's
 * entries, sorted or not), allocates nothing; any thread.
 *
 * @return ILMAP_OK (*total 0: every visible point has its entry);
 *         ILMAP_E_TRUNCATED; ILMAP_E_INVALID_ARG (a NULL array with a
 *         count > 0, total NULL, out NULL with cap > 0).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_check_map(const ilmap_pdb_sequence_point *points,
                                              size_t point_count, const ilmap_entry *entries,
                                              size_t entry_count, size_t cap, size_t *total,
                                              size_t *out);

/* ---------------------------------------------------------------------
 * PE files: the debug directory (doc/source-lines.md#pe)
 * ------------------------------------------------------------------ */

/** What a PE file's debug directory says about its PDB. Pointers go into
 *  the caller's buffer. */
typedef struct ilmap_pdb_pe_info {
    /** A CodeView (RSDS) entry: the PDB's GUID, age and path. */
    int has_codeview;
    uint8_t guid[16];
    uint32_t age;
    uint32_t codeview_stamp; /**< the entry's TimeDateStamp */
    const char *path;        /**< not NUL-terminated: path_size bytes */
    size_t path_size;
    /** An embedded Portable PDB entry (type 17). */
    int has_embedded;
    size_t embedded_offset; /**< the deflate data's file offset */
    size_t embedded_size;   /**< compressed bytes */
    uint32_t pdb_size;      /**< the inflated PDB's size */
} ilmap_pdb_pe_info;

/**
 * Reads a PE file's debug directory: the first CodeView entry and the
 * first embedded Portable PDB entry, if any.
 *
 * @return ILMAP_OK (also when it names no PDB); ILMAP_E_INVALID_ARG;
 *         ILMAP_E_FORMAT (err: the defect and its offset in data).
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_read_pe(const void *data, size_t size,
                                            ilmap_pdb_pe_info *out, ilmap_pdb_error *err);

/**
 * Inflates the embedded PDB that ilmap_pdb_read_pe() found into out,
 * which has room for exactly info->pdb_size bytes (the caller allocates
 * it and owns it; open it with ilmap_pdb_open()).
 *
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (no embedded PDB in info, out
 *         NULL, out_size not info->pdb_size); ILMAP_E_FORMAT (corrupt
 *         deflate data or another size; err); ILMAP_E_UNSUPPORTED (built
 *         without zlib); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_inflate(const void *pe, size_t pe_size,
                                            const ilmap_pdb_pe_info *info, void *out,
                                            size_t out_size, ilmap_pdb_error *err);

/**
 * Checks that a PDB is the one a PE's CodeView entry names: the GUID and
 * the stamp (the id's last 4 bytes against the entry's TimeDateStamp).
 *
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no CodeView entry in info);
 *         ILMAP_E_FORMAT with ILMAP_PDB_DEFECT_ID_MISMATCH (offset 0);
 *         ILMAP_E_INVALID_ARG.
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_check_id(const ilmap_pdb *pdb, const ilmap_pdb_pe_info *info,
                                             ilmap_pdb_error *err);

/** Where ilmap_pdb_open_for_assembly() found an assembly's PDB. */
typedef enum ilmap_pdb_origin {
    ILMAP_PDB_ORIGIN_NONE = 0,
    ILMAP_PDB_ORIGIN_CODEVIEW_PATH = 1, /**< the CodeView entry's path as written */
    ILMAP_PDB_ORIGIN_CODEVIEW_NAME = 2, /**< its file name in the assembly's directory */
    ILMAP_PDB_ORIGIN_EMBEDDED = 3,      /**< the embedded Portable PDB */
    ILMAP_PDB_ORIGIN_BESIDE = 4         /**< the assembly's name with .pdb beside it */
} ilmap_pdb_origin;

/**
 * Finds and opens an assembly's PDB in the runtime's order
 * (doc/source-lines.md#which-pdb): the CodeView entry's path as written,
 * then its file name in the assembly's directory, then the embedded PDB,
 * then the assembly's name with .pdb beside it. A file is taken only when
 * it is a Portable PDB and, if the assembly has a CodeView entry, its id
 * matches (ilmap_pdb_check_id()); other files are passed over, as the
 * runtime does, and when no PDB is taken the first of them is reported
 * (ILMAP_E_FORMAT). The handle owns the PDB's bytes (read or inflated):
 * ilmap_pdb_free() releases them with it.
 *
 * @param path          the assembly's file name, as fopen() takes it (its
 *                      directory is where PDB files are looked for).
 * @param pe, pe_size   the assembly's bytes (read during the call only);
 *                      NULL and 0: the function reads the file at path.
 * @param out           receives the handle; NULL on failure.
 * @param origin        optional; where it was found (NONE on failure).
 * @param err           optional; with ILMAP_E_FORMAT the defect and its
 *                      offset (ILMAP_PDB_DEFECT_ID_MISMATCH, offset 0,
 *                      for a PDB file of another id); else NONE.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no PDB file at any place and none
 *         embedded); ILMAP_E_FORMAT (the assembly's debug directory or
 *         its embedded PDB is malformed, or no PDB was taken and a file
 *         was passed over: the first one's defect, malformed or
 *         ILMAP_PDB_DEFECT_ID_MISMATCH); ILMAP_E_IO (pe NULL and the file
 *         at path cannot be read); ILMAP_E_UNSUPPORTED (only an embedded
 *         PDB, built without zlib); ILMAP_E_NOMEM; ILMAP_E_INVALID_ARG.
 */
ILMAP_EXPORT ilmap_status ilmap_pdb_open_for_assembly(const char *path, const void *pe,
                                                      size_t pe_size, ilmap_pdb **out,
                                                      ilmap_pdb_origin *origin,
                                                      ilmap_pdb_error *err);

#ifdef __cplusplus
}
#endif

#endif
