/*
 * A body's native map as the runtime exports it, packed: what a store
 * created with ILMAP_STORE_COMPACT_NATIVE keeps instead of the
 * ilmap_native handed to ilmap_store_add_body() (doc/rejit.md#store-compact).
 *
 * The lookups never read it (they read the body's answers, answers.h);
 * ilmap_store_snapshot_get_native_entries() does, to give the exported
 * array back. So it is built for size: per entry, in the export's order,
 * three LEB128 numbers: the native start's difference from the previous
 * entry's, zigzagged; the native end's difference from its own start
 * (wrapping); the IL offset's difference from the previous entry's,
 * zigzagged. Every difference is taken modulo 2^32, so any entry
 * round-trips, the special IL offsets and ends below starts included.
 * A typical entry takes 3-4 bytes, the exported array 12.
 */
#ifndef ILMAP_VERSIONS_PACKED_H
#define ILMAP_VERSIONS_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap.h"

/* Bytes packed_write() writes for count entries (an export's,
 * ilmap_native_export()); SIZE_MAX when that does not fit a size_t. */
size_t packed_bytes(const ilmap_native_entry *entries, size_t count);

/* Writes count entries, packed, at out (packed_bytes() bytes). */
void packed_write(const ilmap_native_entry *entries, size_t count, uint8_t *out);

/* The first n entries of count packed at in (n <= count), unpacked. */
void packed_read(const uint8_t *in, size_t n, ilmap_native_entry *out);

#endif
