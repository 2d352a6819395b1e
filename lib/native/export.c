/*
 * Reading a built map back: the exported entries with GetILToNativeMapping2's
 * buffer protocol (doc/buffer-protocol.md#libilmap), the stored records, and
 * the accessors.
 */
#include <string.h>

#include "common/copy_out.h"
#include "native/native.h"

ilmap_status ilmap_native_export(const ilmap_native *m, size_t cap, size_t *total,
                                 ilmap_native_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;

    size_t n = copy_out_fit(cap, m->count);
    for (size_t k = 0; k < n; k++)
        out[k] = native_exported(m, (uint32_t)k);
    return copy_out_done(cap, m->count, total);
}

ilmap_status ilmap_native_export_records(const ilmap_native *m, unsigned list, size_t cap,
                                         size_t *total, ilmap_native_record *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m || (list != ILMAP_RECORDS_EXPORTED && list != ILMAP_RECORDS_CALL_SITES))
        return ILMAP_E_INVALID_ARG;

    const ilmap_native_record *first = list == ILMAP_RECORDS_EXPORTED ? m->records
                                                                     : m->records + m->count;
    size_t n = list == ILMAP_RECORDS_EXPORTED ? m->count : m->ncalls;
    return copy_out_array(first, n, sizeof *first, cap, total, out);
}

size_t ilmap_native_get_count(const ilmap_native *m)
{
    return m ? m->count : 0;
}

uint32_t ilmap_native_get_code_size(const ilmap_native *m)
{
    return m ? m->code_size : 0;
}

uint32_t ilmap_native_get_last_il(const ilmap_native *m)
{
    return m ? m->last_il : 0;
}

unsigned ilmap_native_get_flags(const ilmap_native *m)
{
    return m && m->dac ? ILMAP_DAC : 0u;
}

size_t ilmap_native_get_memory_bytes(const ilmap_native *m)
{
    return m ? m->bytes : 0;
}
