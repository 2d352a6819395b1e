/* Which shape a map got: its form and the features of its layout, read
 * from the layout words the lookups read (native.h). Internal: the tests
 * link it to prove that every shape is built and checked
 * (test/test-native-layouts.c); the lookups do not use it (they test the
 * bits they need in the words they read anyway). */
#ifndef ILMAP_NATIVE_SHAPE_H
#define ILMAP_NATIVE_SHAPE_H

#include "native/native.h"

/* The form, the small forms by how they count their keys. */
typedef enum native_shape_form {
    NATIVE_SHAPE_SCAN,       /* every entry tested */
    NATIVE_SHAPE_SMALL,      /* keys counted 8 at a time, or by a binary search */
    NATIVE_SHAPE_SMALL_ONE,  /* in one step (NATIVE_SMALL_ONE) */
    NATIVE_SHAPE_SMALL_TINY, /* and an IL -> native table (NATIVE_SMALL_TINY) */
    NATIVE_SHAPE_INDEXED,    /* bucket tables, entry answers */
    NATIVE_SHAPE_DIRECT,     /* bucket tables, direct answers */
    NATIVE_SHAPE_FORMS
} native_shape_form;

/* Features of the indexed forms (bits), each a layout choice a lookup
 * takes another path for. */
enum native_shape_feature {
    NATIVE_FEATURE_PACKED = 1u << 0,       /* direct: packed answer words */
    NATIVE_FEATURE_FAST_TO_IL = 1u << 1,   /* direct: native -> IL inline */
    NATIVE_FEATURE_FAST_IL = 1u << 2,      /* direct: IL -> native inline */
    NATIVE_FEATURE_FAST_PAIRS = 1u << 3,   /* ... from start | end pairs */
    NATIVE_FEATURE_FAST_DETAIL = 1u << 4,  /* direct: the detail by one rank */
    NATIVE_FEATURE_ENTRIES = 1u << 5,      /* direct: an entry column */
    NATIVE_FEATURE_VALUES = 1u << 6,       /* direct: starts and ends as values */
    NATIVE_FEATURE_POS16 = 1u << 7,        /* direct: 16-bit key positions */
    NATIVE_FEATURE_POS32 = 1u << 8,        /* direct: 32-bit key positions */
    NATIVE_FEATURE_WIDE_ANSWERS = 1u << 9, /* indexed: 32-bit entry answers */
    NATIVE_FEATURE_WIDE_NATIVE = 1u << 10, /* a 32-bit native bucket table */
    NATIVE_FEATURE_WIDE_IL = 1u << 11,     /* a 32-bit IL bucket table */
    NATIVE_FEATURE_SIMD = 1u << 12,        /* bucket windows with SSE2 / NEON */
    NATIVE_FEATURES = 13
};

typedef struct native_shape {
    native_shape_form form;
    unsigned features; /* enum native_shape_feature bits */
} native_shape;

/* m's shape; a NULL map is a scan of nothing. */
native_shape native_shape_of(const ilmap_native *m);

/* The features this build can give a map (enum native_shape_feature
 * bits): all of them, except NATIVE_FEATURE_SIMD where the target has no
 * vector counting (index/count.h: COUNT_HAVE_VECTOR 0, as on i686
 * without SSE2). */
unsigned native_shape_features_built(void);

/* Names for reports: "scan", "small-one", ...; "packed", "fast-to-il", ... */
const char *native_shape_form_name(native_shape_form form);
const char *native_shape_feature_name(unsigned feature_bit_index);

#endif
