#include "profiler/runtime_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One call of a list API into buf[0..cap), reporting the full total. */
typedef HRESULT (*fill_fn)(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf);

/* Asks with a first guess and, when the reported total is larger, again
 * with room for all of it. No fixed limit. */
static HRESULT fetch_all(fill_fn fn, const void *ctx, size_t elem, ULONG32 guess, void **out,
                         ULONG32 *count)
{
    *out = NULL;
    *count = 0;
    ULONG32 cap = guess ? guess : 1;
    for (int attempt = 0; attempt < 4; attempt++) {
        if ((size_t)cap > SIZE_MAX / elem)
            return E_OUTOFMEMORY;
        void *buf = calloc(cap, elem);
        if (!buf)
            return E_OUTOFMEMORY;
        ULONG32 total = 0;
        HRESULT hr = fn(ctx, cap, &total, buf);
        if (FAILED(hr)) {
            free(buf);
            return hr;
        }
        if (total <= cap) {
            *out = buf;
            *count = total;
            return hr;
        }
        free(buf);
        cap = total; /* the list grew, or the guess was short: once more */
    }
    return E_UNEXPECTED;
}

typedef struct list_ctx {
    ICorProfilerInfo4 *info;
    FunctionID function;
    ReJITID rejit;
    UINT_PTR start;
} list_ctx;

static HRESULT fill_code_info3(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf)
{
    const list_ctx *c = ctx;
    return c->info->lpVtbl->GetCodeInfo3(c->info, c->function, c->rejit, cap, total, buf);
}

static HRESULT fill_code_info4(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf)
{
    const list_ctx *c = ctx;
    return c->info->lpVtbl->GetCodeInfo4(c->info, c->start, cap, total, buf);
}

static HRESULT fill_starts(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf)
{
    const list_ctx *c = ctx;
    return c->info->lpVtbl->GetNativeCodeStartAddresses(c->info, c->function, c->rejit, cap,
                                                        total, buf);
}

static HRESULT fill_rejit_ids(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf)
{
    const list_ctx *c = ctx;
    ULONG n = 0;
    HRESULT hr = c->info->lpVtbl->GetReJITIDs(c->info, c->function, cap, &n, buf);
    *total = n;
    return hr;
}

HRESULT shim_read_code_info(ICorProfilerInfo4 *info, FunctionID function, ReJITID rejit,
                            COR_PRF_CODE_INFO **out, ULONG32 *count)
{
    list_ctx c = {info, function, rejit, 0};
    return fetch_all(fill_code_info3, &c, sizeof **out, 4, (void **)out, count);
}

HRESULT shim_read_code_info_at(ICorProfilerInfo4 *info, UINT_PTR start,
                               COR_PRF_CODE_INFO **out, ULONG32 *count)
{
    list_ctx c = {info, 0, 0, start};
    return fetch_all(fill_code_info4, &c, sizeof **out, 4, (void **)out, count);
}

HRESULT shim_read_code_starts(ICorProfilerInfo4 *info, FunctionID function, ReJITID rejit,
                              UINT_PTR **out, ULONG32 *count)
{
    list_ctx c = {info, function, rejit, 0};
    return fetch_all(fill_starts, &c, sizeof **out, 4, (void **)out, count);
}

HRESULT shim_read_rejit_ids(ICorProfilerInfo4 *info, FunctionID function, ReJITID **out,
                            ULONG32 *count)
{
    list_ctx c = {info, function, 0, 0};
    return fetch_all(fill_rejit_ids, &c, sizeof **out, 16, (void **)out, count);
}

HRESULT shim_map_call(const shim_map_source *src, ULONG32 cap, ULONG32 *total,
                      COR_DEBUG_IL_TO_NATIVE_MAP *map)
{
    if (src->by_start)
        return src->info->lpVtbl->GetILToNativeMapping3(src->info, src->start, cap, total, map);
    return src->info->lpVtbl->GetILToNativeMapping2(src->info, src->function, src->rejit, cap,
                                                    total, map);
}

const char *shim_map_api(const shim_map_source *src)
{
    return src->by_start ? "GetILToNativeMapping3" : "GetILToNativeMapping2";
}

HRESULT shim_read_map(const shim_map_source *src, shim_map_read *out)
{
    memset(out, 0, sizeof *out);
    out->hr_size = shim_map_call(src, 0, &out->total, NULL);
    if (out->hr_size != S_OK)
        return out->hr_size;
    if (out->total == 0)
        return S_OK;
    COR_DEBUG_IL_TO_NATIVE_MAP *e = malloc(out->total * sizeof *e);
    if (!e)
        return E_OUTOFMEMORY;
    memset(e, 0xA5, out->total * sizeof *e);
    out->filled = 1;
    out->hr_fill = shim_map_call(src, out->total, &out->got, e);
    if (out->hr_fill != S_OK || out->got != out->total) {
        free(e);
        return FAILED(out->hr_fill) ? out->hr_fill : E_UNEXPECTED;
    }
    out->entries = e;
    return S_OK;
}
