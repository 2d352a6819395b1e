/*
 * Which shape a map got (shape.h), from its info word and, for the
 * indexed forms, its index's flags.
 */
#include "native/shape.h"

#include "index/count.h"

native_shape native_shape_of(const ilmap_native *m)
{
    native_shape s = { NATIVE_SHAPE_SCAN, 0 };
    if (!m)
        return s;
    uint32_t info = m->info;
    switch (native_form(m)) {
    case NATIVE_FORM_SCAN:
        break;
    case NATIVE_FORM_SMALL:
        s.form = (info & NATIVE_SMALL_TINY)  ? NATIVE_SHAPE_SMALL_TINY
                 : (info & NATIVE_SMALL_ONE) ? NATIVE_SHAPE_SMALL_ONE
                                             : NATIVE_SHAPE_SMALL;
        break;
    default: {
        const native_index *ix = native_index_of(m);
        unsigned f = ix->flags;
        s.form = native_form(m) == NATIVE_FORM_DIRECT ? NATIVE_SHAPE_DIRECT
                                                      : NATIVE_SHAPE_INDEXED;
        /* The feature bits, in enum order: where each is kept. */
        static const struct {
            int in_info;
            unsigned bit;
        } where[NATIVE_FEATURES] = {
            { 1, NATIVE_PACKED },       { 1, NATIVE_FAST_TO_IL },  { 1, NATIVE_FAST_IL },
            { 1, NATIVE_FAST_PAIRS },   { 1, NATIVE_FAST_DETAIL }, { 0, NATIVE_ENTRIES },
            { 0, NATIVE_VALUES },       { 0, NATIVE_POS16 },       { 0, NATIVE_POS32 },
            { 0, NATIVE_WIDE_ANSWERS }, { 0, NATIVE_WIDE_NATIVE }, { 0, NATIVE_WIDE_IL },
            { 0, NATIVE_SIMD },
        };
        for (unsigned i = 0; i < NATIVE_FEATURES; i++)
            s.features |= ((where[i].in_info ? info : f) & where[i].bit) ? 1u << i : 0u;
        break;
    }
    }
    return s;
}

unsigned native_shape_features_built(void)
{
    unsigned all = (1u << NATIVE_FEATURES) - 1u;
    return COUNT_HAVE_VECTOR ? all : all & ~(unsigned)NATIVE_FEATURE_SIMD;
}

const char *native_shape_form_name(native_shape_form form)
{
    static const char *const names[NATIVE_SHAPE_FORMS] = {
        "scan", "small", "small-one", "small-tiny", "indexed", "direct",
    };
    return (unsigned)form < NATIVE_SHAPE_FORMS ? names[form] : "?";
}

const char *native_shape_feature_name(unsigned i)
{
    static const char *const names[NATIVE_FEATURES] = {
        "packed",  "fast-to-il",   "fast-il",     "fast-pairs", "fast-detail",
        "entries", "values",       "pos16",       "pos32",      "wide-answers",
        "wide-native", "wide-il",  "simd",
    };
    return i < NATIVE_FEATURES ? names[i] : "?";
}
