/*
 * Reading what the runtime reports about compiled code: the list APIs
 * (code ranges, code starts, ReJIT IDs), asked with a first guess and
 * again when the list is longer, and the IL-to-native map of one native
 * body with the two-call protocol (doc/buffer-protocol.md#runtime).
 * Every array returned is malloc'ed; the caller frees it.
 */
#ifndef SHIM_PROFILER_RUNTIME_READ_H
#define SHIM_PROFILER_RUNTIME_READ_H

#include "com/info.h"

/* GetCodeInfo3(function, rejit): the ranges of the version's first body. */
HRESULT shim_read_code_info(ICorProfilerInfo4 *info, FunctionID function, ReJITID rejit,
                            COR_PRF_CODE_INFO **out, ULONG32 *count);
/* GetCodeInfo4(start): the ranges of the body at a code start (Info9). */
HRESULT shim_read_code_info_at(ICorProfilerInfo4 *info, UINT_PTR start,
                               COR_PRF_CODE_INFO **out, ULONG32 *count);
/* GetNativeCodeStartAddresses(function, rejit): every body of a version (Info9). */
HRESULT shim_read_code_starts(ICorProfilerInfo4 *info, FunctionID function, ReJITID rejit,
                              UINT_PTR **out, ULONG32 *count);
/* GetReJITIDs(function). */
HRESULT shim_read_rejit_ids(ICorProfilerInfo4 *info, FunctionID function, ReJITID **out,
                            ULONG32 *count);

/* Which call reads a map. By code start (GetILToNativeMapping3, Info9)
 * reads exactly one native body; GetILToNativeMapping2 ignores the
 * ReJITID and reads the method's first native body, which a method
 * rejitted before its first call does not have (doc/rejit.md#mapping2). */
typedef struct shim_map_source {
    ICorProfilerInfo4 *info;
    int by_start;
    FunctionID function;
    ReJITID rejit;
    UINT_PTR start;
} shim_map_source;

/* One call of the source's API with a buffer of cap entries. */
HRESULT shim_map_call(const shim_map_source *src, ULONG32 cap, ULONG32 *total,
                      COR_DEBUG_IL_TO_NATIVE_MAP *map);
const char *shim_map_api(const shim_map_source *src);

/* The two calls of a map read and what they gave. */
typedef struct shim_map_read {
    HRESULT hr_size;  /* the size query (cap 0) */
    ULONG32 total;    /* the size it reported */
    int filled;       /* the fill call was made */
    HRESULT hr_fill;
    ULONG32 got;      /* the total the fill reported */
    COR_DEBUG_IL_TO_NATIVE_MAP *entries; /* total entries when read, else NULL */
} shim_map_read;

/* Size query, then fill into a buffer of exactly that size (0xA5 bytes
 * beforehand). Returns S_OK with out->entries set when the map was read
 * whole (a total of 0 reads nothing and leaves entries NULL); otherwise
 * the first failure (E_UNEXPECTED when the fill disagreed on the size). */
HRESULT shim_read_map(const shim_map_source *src, shim_map_read *out);

#endif
