/*
 * Which shape a map got (shape.h), from its info word and, for the
 * indexed forms, its index's flags.
 */
#include "native/shape.h"

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
        s.form = native_small_tiny(info)          ? NATIVE_SHAPE_SMALL_TINY
                 : (info & NATIVE_SMALL_ONE)      ? NATIVE_SHAPE_SMALL_ONE
                 : (info & NATIVE_SMALL_WIDE)     ? NATIVE_SHAPE_SMALL_WIDE
                                                  : NATIVE_SHAPE_SMALL;
        break;
    default: {
        const native_index *ix = native_index_of(m);
        unsigned f = ix->flags;
        s.form = native_form(m) == NATIVE_FORM_DIRECT ? NATIVE_SHAPE_DIRECT
                                                      : NATIVE_SHAPE_INDEXED;
        s.features |= (info & NATIVE_PACKED) ? NATIVE_FEATURE_PACKED : 0u;
        s.features |= (info & NATIVE_FAST_TO_IL) ? NATIVE_FEATURE_FAST_TO_IL : 0u;
        s.features |= (info & NATIVE_FAST_IL) ? NATIVE_FEATURE_FAST_IL : 0u;
        s.features |= (info & NATIVE_FAST_PAIRS) ? NATIVE_FEATURE_FAST_PAIRS : 0u;
        s.features |= (info & NATIVE_FAST_DETAIL) ? NATIVE_FEATURE_FAST_DETAIL : 0u;
        s.features |= (f & NATIVE_ENTRIES) ? NATIVE_FEATURE_ENTRIES : 0u;
        s.features |= (f & NATIVE_VALUES) ? NATIVE_FEATURE_VALUES : 0u;
        s.features |= (f & NATIVE_POS16) ? NATIVE_FEATURE_POS16 : 0u;
        s.features |= (f & NATIVE_POS32) ? NATIVE_FEATURE_POS32 : 0u;
        s.features |= (f & NATIVE_WIDE_ANSWERS) ? NATIVE_FEATURE_WIDE_ANSWERS : 0u;
        s.features |= (f & NATIVE_WIDE_NATIVE) ? NATIVE_FEATURE_WIDE_NATIVE : 0u;
        s.features |= (f & NATIVE_WIDE_IL) ? NATIVE_FEATURE_WIDE_IL : 0u;
        s.features |= (f & NATIVE_SIMD) ? NATIVE_FEATURE_SIMD : 0u;
        break;
    }
    }
    return s;
}

const char *native_shape_form_name(native_shape_form form)
{
    static const char *const names[NATIVE_SHAPE_FORMS] = {
        "scan", "small", "small-wide", "small-one", "small-tiny", "indexed", "direct",
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
