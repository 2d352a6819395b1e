/*
 * Maps as a compact store keeps them, packed: a body's native map as the
 * runtime exports it (ILMAP_STORE_COMPACT_NATIVE, instead of the
 * ilmap_native handed to ilmap_store_add_body()) and an IL map's entries
 * (ILMAP_STORE_COMPACT_IL, instead of the ilmap handed to
 * ilmap_store_set_il_map() or ilmap_store_add_version());
 * doc/rejit.md#store-compact.
 *
 * Lookups never read them (they read the body's answers, answers.h); the
 * snapshot's entry calls do, to give the arrays back, and writers do, to
 * compose a body's answers through an IL map. So they are built for size:
 * per entry, in the array's order, three LEB128 numbers, each a 32-bit
 * column coded by one rule:
 *   native entry: native start - previous entry's start (zigzag);
 *                 native end - its own start (wrapping);
 *                 IL offset - previous entry's (zigzag);
 *   IL entry:     old offset - previous entry's (zigzag);
 *                 new offset - previous entry's (zigzag);
 *                 accurate, as it is.
 * Every difference is taken modulo 2^32, so any entry round-trips: the
 * special IL offsets, ends below starts, unsorted lenient maps. A typical
 * entry takes 3-4 bytes, the arrays 12.
 */
#ifndef ILMAP_VERSIONS_PACKED_H
#define ILMAP_VERSIONS_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap.h"

/* Bytes packed_*_write() writes for count entries; SIZE_MAX when that
 * does not fit a size_t. */
size_t packed_native_bytes(const ilmap_native_entry *entries, size_t count);
size_t packed_il_bytes(const ilmap_entry *entries, size_t count);

/* Writes count entries, packed, at out (packed_*_bytes() bytes). */
void packed_native_write(const ilmap_native_entry *entries, size_t count, uint8_t *out);
void packed_il_write(const ilmap_entry *entries, size_t count, uint8_t *out);

/* The first n entries of those packed at in (n <= their count), unpacked. */
void packed_native_read(const uint8_t *in, size_t n, ilmap_native_entry *out);
void packed_il_read(const uint8_t *in, size_t n, ilmap_entry *out);

#endif
