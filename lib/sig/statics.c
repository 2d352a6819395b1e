/*
 * A field's static kind from its flags and its custom attributes' type
 * names (ilmap_sig_static_kind; doc/signatures.md#statics). Independent
 * of any metadata reader: the caller resolves each attribute's
 * constructor to its type's full name.
 */
#include <string.h>

#include "ilmap-sig.h"

#define THREAD_STATIC "System.ThreadStaticAttribute"
#define CONTEXT_STATIC "System.ContextStaticAttribute"

ilmap_status ilmap_sig_static_kind(uint32_t field_flags, const char *const *attribute_types,
                                   size_t attribute_count, ilmap_sig_static *kind)
{
    if (!kind)
        return ILMAP_E_INVALID_ARG;
    *kind = ILMAP_SIG_STATIC_NONE;
    if (!attribute_types && attribute_count > 0)
        return ILMAP_E_INVALID_ARG;
    int thread = 0, context = 0;
    for (size_t i = 0; i < attribute_count; i++) {
        if (!attribute_types[i])
            return ILMAP_E_INVALID_ARG;
        thread |= strcmp(attribute_types[i], THREAD_STATIC) == 0;
        context |= strcmp(attribute_types[i], CONTEXT_STATIC) == 0;
    }
    if (!(field_flags & ILMAP_SIG_FIELD_STATIC))
        return ILMAP_OK;
    if (field_flags & ILMAP_SIG_FIELD_LITERAL) {
        *kind = ILMAP_SIG_STATIC_LITERAL;
        return ILMAP_OK;
    }
    int rva = (field_flags & ILMAP_SIG_FIELD_HAS_RVA) != 0;
    if (rva + thread + context > 1)
        return ILMAP_E_FORMAT;
    *kind = rva      ? ILMAP_SIG_STATIC_RVA
            : thread ? ILMAP_SIG_STATIC_THREAD
            : context ? ILMAP_SIG_STATIC_CONTEXT
                      : ILMAP_SIG_STATIC_APPDOMAIN;
    return ILMAP_OK;
}

const char *ilmap_sig_static_str(ilmap_sig_static kind)
{
    switch (kind) {
    case ILMAP_SIG_STATIC_NONE: return "none";
    case ILMAP_SIG_STATIC_LITERAL: return "literal";
    case ILMAP_SIG_STATIC_APPDOMAIN: return "appdomain";
    case ILMAP_SIG_STATIC_THREAD: return "thread";
    case ILMAP_SIG_STATIC_RVA: return "rva";
    case ILMAP_SIG_STATIC_CONTEXT: return "context";
    }
    return "unknown";
}
