/*
 * libilmap, map algebra: compose the maps of stacked rewriters, invert a
 * map, and check that two maps answer alike.
 *
 * "Answer" always means the runtime's lookups of ilmap.h: round down, no
 * interpolation, PROLOG below the first key, specials passed through
 * (doc/il-maps.md#translation). The conventions of ilmap.h hold (statuses,
 * defined outputs, no global state); the inputs are only read, so any number of
 * threads may use the same maps at once.
 */
#ifndef ILMAP_ALGEBRA_H
#define ILMAP_ALGEBRA_H

#include "ilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Translation directions, as bits. */
#define ILMAP_DIR_OLD_TO_NEW 1u     /**< ilmap_old_to_new() */
#define ILMAP_DIR_NEW_TO_OLD 2u     /**< ilmap_new_to_old() */
#define ILMAP_DIR_NEW_TO_OLD_DAC 4u /**< ilmap_new_to_old_dac() */
#define ILMAP_DIR_ALL 7u

/**
 * compose(A, B): A maps original -> v1, B maps v1 -> v2 (B is the map of
 * a rewriter that ran on A's output); the result C maps original -> v2.
 *
 * What C answers (old -> new is the direction C is built for):
 *  - For every 32-bit x, ilmap_old_to_new(C, x) ==
 *    ilmap_old_to_new(B, ilmap_old_to_new(A, x)), the runtime's two-step
 *    answer, specials included. The one exception needs special values
 *    stored as offsets in both maps (B's first old offset above EPILOG and
 *    an A entry whose new offset is NO_MAPPING); it is reported through
 *    `exact_directions`.
 *  - new -> old, C is exact (ilmap_new_to_old(C, z) ==
 *    ilmap_new_to_old(A, ilmap_new_to_old(B, z)) for every z, and the
 *    same with ilmap_new_to_old_dac()) whenever B has an entry at each of
 *    A's new offsets. B has them when its rewriter mapped every
 *    instruction of v1, as ilmap_edits_build() and ilmap_rewrite_create()
 *    do: A's new offsets are the first bytes of what A injected,
 *    instruction starts of v1. Otherwise it can differ (no single strict
 *    map can then be exact both ways); `exact_directions` tells.
 *
 * How: C has an entry at each original offset where the two-step answer
 * changes, so it is the smallest map with that old -> new answer: one
 * entry per A entry, at A's old offset, whose new offset is where B sends
 * A's new offset. B's entries at v1 offsets that are no new offset of A
 * (with stacked rewriters: the instructions inside code that A injected)
 * leave no entry: new -> old, those points translate through A to the
 * original instruction the injection was attributed to, the same answer
 * as the entry before them, so the runtime would drop them as
 * "in-between" entries (doc/native-maps.md#translation-filter) anyway. Entries
 * whose answer is PROLOG at the start of A (B starting above A's new offsets)
 * are left out: below C's first key the answer is PROLOG too. Consecutive
 * entries with the same new offset keep only the first (the round-down answer
 * is unchanged). If every original offset translates to PROLOG, C holds a
 * single sentinel entry keyed at EPILOG or NO_MAPPING
 * (doc/decisions.md#decision-7 allows special keys) so that C is not mistaken
 * for the identity. accurate: 1 when the A entry and the B entry used are both
 * accurate (for a lenient input, when all its entries are). An empty A gives a
 * copy of B, an empty B a copy of A (an empty map is the identity).
 *
 * Composition is associative: compose(compose(A, B), D) and
 * compose(A, compose(B, D)) have the same entries whenever they are exact
 * old -> new (then both are the smallest map of the three-step answer).
 *
 * The result is strict whenever its entries form a strict map
 * (ilmap_validate()). They fail to only with a lenient input or special
 * values stored as new offsets; then the result is ILMAP_E_UNSORTED, or a
 * lenient map when flags has ILMAP_LENIENT (built from A's pieces its old
 * offsets still ascend, so old -> new stays exact; a copy of a lenient
 * input keeps that input's order and answers).
 *
 * @param flags 0, or ILMAP_LENIENT, ILMAP_NO_AVX2, ILMAP_PORTABLE (for the
 *        result, as ilmap_create()).
 * @param out   receives C; NULL on failure.
 * @param exact_directions optional: the ILMAP_DIR_* bits of the
 *        directions in which C answers exactly the two-step answer
 *        (new -> old: A after B) for every 32-bit input; 0 on failure.
 *        Costs O((|A| + |B|) log) more.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (a, b or out NULL, unknown flag);
 *         ILMAP_E_UNSORTED; ILMAP_E_NOMEM.
 * Thread-safe. O((|A| + |B|) log(|A| + |B|)).
 */
ILMAP_EXPORT ilmap_status ilmap_compose(const ilmap *a, const ilmap *b, unsigned flags, ilmap **out,
                                        unsigned *exact_directions);

/**
 * The inverse: a map whose old -> new answer is m's new -> old answer,
 * for every 32-bit input (and the other way round): m's entries with the
 * two offsets swapped, in m's order, lenient when m is. Both lookups use
 * the same rules on the key column (doc/il-maps.md#translation), so the swap is
 * exact; the DAC rule applies to new -> old only and has no counterpart. Undo a
 * rewrite: compose(C, invert(B)) takes v2 offsets back to v1 wherever C's
 * map is exact new -> old.
 *
 * @param flags 0, ILMAP_NO_AVX2 or ILMAP_PORTABLE (as ilmap_create()).
 * @param out receives the map; NULL on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (m or out NULL, unknown flag);
 *         ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_invert(const ilmap *m, unsigned flags, ilmap **out);

/** Where two maps first differ (ilmap_equivalent()). */
typedef struct ilmap_difference {
    unsigned direction; /**< one ILMAP_DIR_* bit; 0 when they agree */
    uint32_t offset;    /**< the lowest input where they differ in that direction */
    uint32_t a_answer;  /**< what a answers there */
    uint32_t b_answer;  /**< what b answers there */
} ilmap_difference;

/**
 * Whether a and b give the same answer for every input in [0, bound]
 * (bound = 0xFFFFFFFF: every 32-bit input, specials included) in each of
 * the requested directions. Not a loop over the bound: both answers are
 * step functions of the input that change only at keys, so comparing
 * them on each piece between consecutive keys of either map decides
 * every input (an empty map, the identity, is compared piece by piece
 * too). NULL maps count as empty, as the lookups treat them.
 *
 * @param directions a non-empty set of ILMAP_DIR_* bits.
 * @param equal receives 1 when they agree everywhere asked, else 0.
 * @param diff  optional; where they first differ: the first direction in
 *        bit order that differs, its lowest differing input and both
 *        answers; zeroed when they agree or on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (equal NULL, no or unknown
 *         direction bits; *equal = 0); ILMAP_E_NOMEM.
 * Thread-safe. O((|a| + |b|) log(|a| + |b|)).
 */
ILMAP_EXPORT ilmap_status ilmap_equivalent(const ilmap *a, const ilmap *b, unsigned directions,
                                           uint32_t bound, int *equal, ilmap_difference *diff);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_ALGEBRA_H */
