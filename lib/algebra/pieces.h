/*
 * A translation as a step function: pieces [start, next start) on which
 * the answer is one constant, or the input itself (an empty map, the
 * DAC's pass-through above 0x7FFFFFFF). The runtime's answer for a map
 * can change only at the map's keys (every rule compares the input with
 * keys or with the special values), so a map's translation is exactly
 * the pieces between consecutive keys, each evaluated once through the
 * public lookup. Composition and equivalence are decided on pieces
 * instead of on 2^32 inputs.
 */
#ifndef ILMAP_ALGEBRA_PIECES_H
#define ILMAP_ALGEBRA_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-algebra.h"

typedef struct piece {
    uint32_t start;
    uint32_t value;   /* the answer on the piece, unless identity */
    uint32_t identity;
} piece;

/* Pieces in ascending start order, the first at 0, covering every input. */
typedef struct pieces {
    piece *p;
    size_t n;
} pieces;

void pieces_free(pieces *ps);

/* The answer of one lookup direction (a single ILMAP_DIR_* bit). */
uint32_t pieces_lookup(const ilmap *m, unsigned dir, uint32_t x);

/* The translation of m (NULL: empty) in direction dir. */
ilmap_status pieces_of(const ilmap *m, unsigned dir, pieces *out);

/* g after f: each constant piece c of f becomes g's answer at c, each
 * identity piece takes g's own pieces over its range. */
ilmap_status pieces_then(const pieces *f, const ilmap *g, unsigned dir, pieces *out);

/* The lowest input <= bound where a and b differ: 1 and *at, *va, *vb
 * set; 0 when they agree on [0, bound]. */
int pieces_differ(const pieces *a, const pieces *b, uint32_t bound, uint32_t *at, uint32_t *va,
                  uint32_t *vb);

/* m's entries in a new array (NULL for none); *n receives the count. */
ilmap_status copy_entries(const ilmap *m, ilmap_entry **out, size_t *n);

#endif
