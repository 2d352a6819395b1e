/*
 * The lookups of each storage form (native.h), one file per form, and
 * the general paths they share; lookup.c's public functions choose among
 * them with one switch on the form. Each function takes a built map of
 * its form (never NULL) and answers as the public function it serves
 * (include/ilmap-native.h); an IL -> native function takes a normal IL
 * offset (not PROLOG, EPILOG or NO_MAPPING).
 *
 * Where a form's fast path cannot answer (a full bucket, an IL group of
 * several entries, an uncommon table width) it hands the query to
 * general.c by a tail call.
 */
#ifndef ILMAP_NATIVE_FORMS_H
#define ILMAP_NATIVE_FORMS_H

#include "native/native.h"

/* scan.c: every entry tested. */
unsigned native_scan_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset);
/* The exported index + 1 of the first entry whose range holds x, 0 when
 * none (the runtime's scan, doc/native-to-il.md#scan). */
uint32_t native_scan_answer(const ilmap_native *m, uint32_t x);
/* How many entries are PROLOGs (*prolog_end) or normal with an IL
 * offset <= x. */
uint32_t native_scan_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end);

/* small.c: keys counted in the block, no bucket table; the _one forms
 * for NATIVE_SMALL_ONE, _tiny for native_small_tiny(). */
unsigned native_small_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset);
unsigned native_small_to_il_one(const ilmap_native *m, uint32_t x, uint32_t *il_offset);
unsigned native_small_detail(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                             size_t *entry, uint32_t *which);
unsigned native_small_detail_one(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                                 size_t *entry, uint32_t *which);
ilmap_status native_small_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                       ilmap_native_entry *entry, size_t *index, int *il_matched);
ilmap_status native_small_il_to_native_one(const ilmap_native *m, uint32_t il_offset,
                                           ilmap_native_entry *entry, size_t *index,
                                           int *il_matched);
ilmap_status native_small_il_to_native_tiny(const ilmap_native *m, uint32_t il_offset,
                                            ilmap_native_entry *entry, size_t *index,
                                            int *il_matched);
/* ilmap_il_to_native_ranges on a tiny map. */
ilmap_status native_small_tiny_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                      size_t *total, ilmap_native_entry *out);
/* As native_scan_il_rank. */
uint32_t native_small_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end);

/* indexed.c: bucket tables, entry answers. */
unsigned native_indexed_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset);
/* As native_scan_answer. */
uint32_t native_indexed_answer(const ilmap_native *m, uint32_t x);
ilmap_status native_indexed_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                         ilmap_native_entry *entry, size_t *index,
                                         int *il_matched);
/* As native_scan_il_rank, through the IL bucket table of either indexed
 * form (indexed or direct). */
uint32_t native_index_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end);

/* direct.c (and direct.h, the paths lookup.c inlines): bucket tables,
 * direct answers. */
unsigned native_direct_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset);
/* As native_scan_answer, from the entry column (NATIVE_ENTRIES only). */
uint32_t native_direct_answer(const ilmap_native *m, uint32_t x);
ilmap_status native_direct_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                        ilmap_native_entry *entry, size_t *index,
                                        int *il_matched);
/* NATIVE_FAST_IL without NATIVE_FAST_PAIRS (the pairs' copy is inline,
 * direct.h). */
ilmap_status native_direct_il_to_native_positions(const ilmap_native *m, uint32_t il_offset,
                                                  ilmap_native_entry *entry, size_t *index,
                                                  int *il_matched);
/* The fast path's floor k when it is not its IL group's first. */
ilmap_status native_direct_group(const ilmap_native *m, uint32_t il_offset,
                                 ilmap_native_entry *entry, size_t *index, int *il_matched,
                                 uint32_t k);
/* ilmap_il_to_native_ranges on a map of NATIVE_FAST_IL. */
ilmap_status native_direct_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                  size_t *total, ilmap_native_entry *out);

/* general.c: any form, any offset, m not NULL. */
unsigned native_detail_any(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset,
                           size_t *entry, uint32_t *which);
ilmap_status native_il_to_native_any(const ilmap_native *m, uint32_t il_offset,
                                     ilmap_native_entry *entry, size_t *index, int *il_matched);
ilmap_status native_ranges_any(const ilmap_native *m, uint32_t il_offset, size_t cap,
                               size_t *total, ilmap_native_entry *out);

#endif
