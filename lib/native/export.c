/*
 * Reading a built map back: the exported entries with GetILToNativeMapping2's
 * buffer protocol (spec §4), the stored records, and the accessors.
 */
#include <string.h>

#include "native/native.h"

ilmap_status ilmap_native_export(const ilmap_native *m, uint32_t cap, uint32_t *total,
                                 ilmap_native_entry *out)
{
    if (!m || (cap > 0 && (!total || !out))) {
        if (total)
            *total = 0;
        return ILMAP_E_INVALID_ARG;
    }
    if (total)
        *total = m->count;
    for (uint32_t k = 0; k < m->count && k < cap; k++)
        out[k] = native_exported(m, k);
    return ILMAP_OK;
}

ilmap_status ilmap_native_records(const ilmap_native *m, unsigned list, uint32_t cap,
                                  uint32_t *total, ilmap_native_record *out)
{
    if (!m || (cap > 0 && (!total || !out)) ||
        (list != ILMAP_RECORDS_EXPORTED && list != ILMAP_RECORDS_CALL_SITES)) {
        if (total)
            *total = 0;
        return ILMAP_E_INVALID_ARG;
    }

    const ilmap_native_record *first = list == ILMAP_RECORDS_EXPORTED ? m->records
                                                                     : m->records + m->count;
    uint32_t n = list == ILMAP_RECORDS_EXPORTED ? m->count : m->ncalls;
    if (total)
        *total = n;
    if (cap > 0)
        memcpy(out, first, (size_t)(cap < n ? cap : n) * sizeof *out);
    return ILMAP_OK;
}

size_t ilmap_native_count(const ilmap_native *m)
{
    return m ? m->count : 0;
}

uint32_t ilmap_native_code_size(const ilmap_native *m)
{
    return m ? m->code_size : 0;
}

uint32_t ilmap_native_last_il(const ilmap_native *m)
{
    return m ? m->last_il : 0;
}

int ilmap_native_is_dac(const ilmap_native *m)
{
    return m ? m->dac : 0;
}

size_t ilmap_native_memory_bytes(const ilmap_native *m)
{
    return m ? m->bytes : 0;
}
