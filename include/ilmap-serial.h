/*
 * libilmap, serialized form: maps written to bytes and read back, safely.
 *
 * The format (version 1), little-endian whatever the host:
 *
 *   offset size field
 *   0      4    magic: the bytes 89 49 4C 4D ("\x89ILM"); read as a
 *                little-endian u32, 0x4D4C4989. Its byte-swapped value
 *                0x89494C4D means a writer of the other byte order.
 *   4      2    version: 1
 *   6      2    kind: 1 = COR_IL_MAP (ilmap), 2 = IL-to-native (ilmap_native)
 *   8      4    flags: kind 1: bit 0 = lenient map; kind 2: 0. Others: 0.
 *   12     4    count: entries
 *   16     4    code_size: kind 2: the native code size; kind 1: 0
 *   20     4    reserved: 0
 *   24     4    total size in bytes: 32 + 12 * count
 *   28     4    CRC-32C (Castagnoli) of bytes [0, 28) followed by the
 *                entries
 *   32     12n  entries: kind 1: old_offset, new_offset, accurate;
 *                kind 2: il_offset, native_start, native_end (as exported,
 *                in exported order); each field a little-endian u32
 *
 * A reader refuses anything it cannot vouch for and says why (an
 * ilmap_serial_error, as CRoaring's validate-with-reason): every field is
 * checked, the sizes against each other and against the buffer before any
 * entry is read, then the checksum, then the entries (a strict map's
 * order, a native map's ranges). Nothing outside the buffer is ever read.
 * The conventions of ilmap.h hold.
 */
#ifndef ILMAP_SERIAL_H
#define ILMAP_SERIAL_H

#include "ilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ILMAP_SERIAL_MAGIC 0x4D4C4989u
#define ILMAP_SERIAL_MAGIC_SWAPPED 0x89494C4Du
#define ILMAP_SERIAL_VERSION 1u
#define ILMAP_SERIAL_HEADER_SIZE 32u
#define ILMAP_SERIAL_KIND_IL 1u
#define ILMAP_SERIAL_KIND_NATIVE 2u
/** The most entries a serialized map holds: its total size must fit the
 *  32-bit size field, (0xFFFFFFFF - 32) / 12. Two below ILMAP_MAX_ENTRIES. */
#define ILMAP_SERIAL_MAX_ENTRIES 0x15555552u
/** Header flag of kind 1: the map is lenient (ILMAP_LENIENT). */
#define ILMAP_SERIAL_FLAG_LENIENT 1u

/** Reader flag: the buffer may go on past the map (maps stored back to
 *  back); view.size says where this one ends. Without it, bytes after
 *  the map are refused (ILMAP_SERIAL_TRAILING). */
#define ILMAP_SERIAL_PREFIX (1u << 16)

/** Why serialized bytes were refused. */
typedef enum ilmap_serial_defect {
    ILMAP_SERIAL_NONE = 0,
    ILMAP_SERIAL_TOO_SHORT = 1,  /**< fewer bytes than the 32-byte header */
    ILMAP_SERIAL_BAD_MAGIC = 2,  /**< not a libilmap map */
    ILMAP_SERIAL_BYTE_ORDER = 3, /**< written with the other byte order */
    ILMAP_SERIAL_BAD_VERSION = 4, /**< a version this library does not read */
    ILMAP_SERIAL_KIND = 5,       /**< unknown kind, or not the kind asked for */
    ILMAP_SERIAL_FLAGS = 6,      /**< unknown flag bits */
    ILMAP_SERIAL_RESERVED = 7,   /**< a reserved field (or kind 1's code_size) is not 0 */
    ILMAP_SERIAL_COUNT = 8,      /**< count above ILMAP_SERIAL_MAX_ENTRIES */
    ILMAP_SERIAL_SIZE = 9,       /**< total size is not 32 + 12 * count */
    ILMAP_SERIAL_TRUNCATED = 10, /**< the buffer ends before the total size */
    ILMAP_SERIAL_TRAILING = 11,  /**< bytes after the map (see ILMAP_SERIAL_PREFIX) */
    ILMAP_SERIAL_CHECKSUM = 12,  /**< CRC-32C mismatch: the bytes were altered */
    ILMAP_SERIAL_ORDER = 13,     /**< a strict map's entries are not strictly
                                      ascending (cause ILMAP_E_UNSORTED) */
    ILMAP_SERIAL_NATIVE = 14     /**< native entries fail ilmap_native_validate()
                                      (cause: its status) */
} ilmap_serial_defect;

/** A refusal, in full. */
typedef struct ilmap_serial_error {
    ilmap_serial_defect defect;
    ilmap_status cause; /**< the underlying status (ILMAP_E_FORMAT for header
                             defects, else the validator's) */
    size_t offset;      /**< byte offset of the field or entry at fault */
    size_t index;       /**< entry index, or ILMAP_NO_INDEX */
} ilmap_serial_error;

/** A one-line description of a defect; never NULL, static storage. */
ILMAP_EXPORT const char *ilmap_serial_defect_str(ilmap_serial_defect defect);

/**
 * CRC-32C (Castagnoli, reflected, as iSCSI and ext4 use it): pass 0 to
 * start, the previous result to continue. ilmap_crc32c(0, "123456789", 9)
 * is 0xE3069283. data may be NULL when size is 0. Pure function.
 */
ILMAP_EXPORT uint32_t ilmap_crc32c(uint32_t crc, const void *data, size_t size);

/**
 * Writes a map in the serialized form (kind 1; lenient maps keep their
 * flag and their entry order) to the caller's out, with the buffer
 * protocol of ilmap.h, items being bytes: *total receives the size of the
 * serialized map (32 + 12 * count), and the first min(cap, total) bytes
 * of it are written.
 *  - cap 0 (out may be NULL): size query, ILMAP_OK;
 *  - cap >= total: the whole map written, ILMAP_OK;
 *  - 0 < cap < total: its first cap bytes written, ILMAP_E_TRUNCATED
 *    (they are no usable map on their own).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED; ILMAP_E_INVALID_ARG (m or total
 *         NULL, out NULL with cap > 0); ILMAP_E_LIMIT (more than
 *         ILMAP_SERIAL_MAX_ENTRIES entries); ILMAP_E_NOMEM. On these
 *         errors *total is 0 (when total is set) and nothing is written.
 * Thread-safe; the caller owns out.
 */
ILMAP_EXPORT ilmap_status ilmap_serialize(const ilmap *m, size_t cap, size_t *total, void *out);

/**
 * The same for an IL-to-native map (kind 2): its exported entries
 * (ilmap_native_export(), end-unknown entry ending at the code size) and
 * its code size. Same protocol, statuses and guarantees.
 */
ILMAP_EXPORT ilmap_status ilmap_native_serialize(const ilmap_native *m, size_t cap, size_t *total,
                                                 void *out);

/**
 * A zero-copy, read-only view of a serialized map: the header's fields
 * and a pointer to the entries inside the caller's buffer, which must
 * outlive the view. It owns nothing and needs no freeing.
 */
typedef struct ilmap_view {
    const uint8_t *data;   /**< the buffer (the header's first byte) */
    size_t size;           /**< bytes of this map: 32 + 12 * count */
    uint32_t kind;         /**< ILMAP_SERIAL_KIND_* */
    uint32_t flags;        /**< the header's flags */
    uint32_t count;        /**< entries */
    uint32_t code_size;    /**< kind 2 */
    const uint8_t *payload; /**< the first entry's bytes */
} ilmap_view;

/**
 * Checks serialized bytes completely (header, sizes, checksum, entries as
 * described at the top of this header) and opens a view of them. Kind 2
 * entries are checked with ilmap_native_validate() against the stored
 * code size.
 *
 * @param flags 0 or ILMAP_SERIAL_PREFIX.
 * @param view  receives the view; zeroed on failure.
 * @param err   optional; why the bytes were refused (defect NONE, index
 *              ILMAP_NO_INDEX on success).
 * @return ILMAP_OK; ILMAP_E_FORMAT (see err); ILMAP_E_INVALID_ARG (view
 *         NULL, buf NULL with size > 0, unknown flag); ILMAP_E_NOMEM (the
 *         native check sorts a copy).
 * Thread-safe; reads only [buf, buf + size).
 */
ILMAP_EXPORT ilmap_status ilmap_view_open(const void *buf, size_t size, unsigned flags,
                                          ilmap_view *view, ilmap_serial_error *err);

/**
 * The view's entries in place, as an array of view->count entries, when
 * the host is little-endian, the payload is 4-byte aligned and the view is
 * of kind 1; NULL otherwise (use ilmap_view_get_entry()). Zero-copy: the
 * array is the caller's buffer, valid as long as it is. Thread-safe.
 */
ILMAP_EXPORT const ilmap_entry *ilmap_view_get_entries(const ilmap_view *view);

/** The same for kind 2. */
ILMAP_EXPORT const ilmap_native_entry *ilmap_view_get_native_entries(const ilmap_view *view);

/**
 * Entry i of a kind 1 view, decoded whatever the host and alignment,
 * copied to the caller's *out.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL, wrong kind, i >= count;
 *         *out zeroed).
 * Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_view_get_entry(const ilmap_view *view, size_t i,
                                               ilmap_entry *out);

/** Entry i of a kind 2 view; as ilmap_view_get_entry(). */
ILMAP_EXPORT ilmap_status ilmap_view_get_native_entry(const ilmap_view *view, size_t i,
                                                      ilmap_native_entry *out);

/**
 * ilmap_old_to_new() answered on the serialized bytes, without building
 * anything: the same rules (doc/serial-format.md#view), by binary search for a
 * strict map and by the runtime's own linear scan for a lenient one. A view
 * that is NULL or not of kind 1 answers as an empty map (the input unchanged).
 * Thread-safe, allocation-free.
 */
ILMAP_EXPORT uint32_t ilmap_view_old_to_new(const ilmap_view *view, uint32_t old_offset);

/** ilmap_new_to_old() on the serialized bytes; as ilmap_view_old_to_new(). */
ILMAP_EXPORT uint32_t ilmap_view_new_to_old(const ilmap_view *view, uint32_t new_offset);

/**
 * The safe loader for kind 1: ilmap_view_open(), then an indexed map
 * built from the entries (lenient when the header says so).
 * @param flags ILMAP_SERIAL_PREFIX, ILMAP_NO_AVX2, ILMAP_PORTABLE.
 * @param out receives the map; NULL on failure.
 * @param err optional, as ilmap_view_open(); ILMAP_SERIAL_KIND for kind 2.
 * @return ILMAP_OK; ILMAP_E_FORMAT; ILMAP_E_INVALID_ARG (out NULL, buf
 *         NULL with size > 0, unknown flag); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_deserialize(const void *buf, size_t size, unsigned flags,
                                            ilmap **out, ilmap_serial_error *err);

/**
 * The safe loader for kind 2: ilmap_view_open(), then
 * ilmap_native_from_entries() with the stored code size, so the loaded
 * map exports exactly the entries that were serialized (what
 * from_entries says about lastIL, source bits and call sites applies).
 * @param flags ILMAP_SERIAL_PREFIX.
 * @return as ilmap_deserialize(); ILMAP_SERIAL_KIND for kind 1.
 */
ILMAP_EXPORT ilmap_status ilmap_native_deserialize(const void *buf, size_t size, unsigned flags,
                                                   ilmap_native **out, ilmap_serial_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_SERIAL_H */
