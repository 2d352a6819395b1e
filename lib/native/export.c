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

    uint32_t count = native_count(m);
    size_t n = copy_out_fit(cap, count);
    for (size_t k = 0; k < n; k++)
        out[k] = native_exported(m, (uint32_t)k);
    return copy_out_done(cap, count, total);
}

ilmap_status ilmap_native_export_records(const ilmap_native *m, unsigned list, size_t cap,
                                         size_t *total, ilmap_native_record *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m || (list != ILMAP_RECORDS_EXPORTED && list != ILMAP_RECORDS_CALL_SITES))
        return ILMAP_E_INVALID_ARG;

    uint32_t count = native_count(m);
    uint32_t first = list == ILMAP_RECORDS_EXPORTED ? 0 : count;
    uint32_t ncalls = native_indexed(m) ? native_index_of(m)->ncalls : 0;
    size_t n = list == ILMAP_RECORDS_EXPORTED ? count : ncalls;
    size_t fit = copy_out_fit(cap, n);
    for (size_t i = 0; i < fit; i++)
        out[i] = native_record(m, first + (uint32_t)i);
    return copy_out_done(cap, n, total);
}

size_t ilmap_native_get_count(const ilmap_native *m)
{
    return m ? native_count(m) : 0;
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
    return m && (m->info & NATIVE_DAC) ? ILMAP_DAC : 0u;
}
