/*
 * Proof against the runtime: after each ReJIT compilation, read the
 * runtime's IL-to-native map of that code version with the two-call
 * protocol and check it, and libilmap, against each other (issue 6,
 * part 3). Runtime calls happen without the profiler lock held, because
 * the runtime may call back into the shim on another thread meanwhile.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "log.h"

#define SENTINEL 0xA5A5A5A5u

static int is_special(uint32_t il)
{
    return il == CLR_NO_MAPPING || il == CLR_PROLOG || il == CLR_EPILOG;
}

static void to_ilmap(const COR_DEBUG_IL_TO_NATIVE_MAP *in, ilmap_native_entry *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[i].il_offset = in[i].ilOffset;
        out[i].native_start = in[i].nativeStartOffset;
        out[i].native_end = in[i].nativeEndOffset;
    }
}

static int same_entry(const ilmap_native_entry *a, const ilmap_native_entry *b)
{
    return a->il_offset == b->il_offset && a->native_start == b->native_start &&
           a->native_end == b->native_end;
}

static int untouched(const COR_DEBUG_IL_TO_NATIVE_MAP *buf, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (buf[i].ilOffset != SENTINEL || buf[i].nativeStartOffset != SENTINEL ||
            buf[i].nativeEndOffset != SENTINEL)
            return 0;
    return 1;
}

static COR_DEBUG_IL_TO_NATIVE_MAP *sentinel_buffer(size_t n)
{
    COR_DEBUG_IL_TO_NATIVE_MAP *b = malloc((n ? n : 1) * sizeof *b);
    if (b)
        memset(b, 0xA5, (n ? n : 1) * sizeof *b);
    return b;
}

static int contains_u32(const uint32_t *sorted, size_t n, uint32_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo] == v;
}

/* The map's old offsets, ascending (a strict map is sorted on both). */
static uint32_t *old_offsets(const ilmap *map, size_t *n)
{
    size_t total = 0;
    *n = 0;
    ilmap_export(map, 0, &total, NULL);
    ilmap_entry *e = malloc((total ? total : 1) * sizeof *e);
    uint32_t *keys = malloc((total ? total : 1) * sizeof *keys);
    if (!e || !keys || ilmap_export(map, total, &total, e) != ILMAP_OK) {
        free(e);
        free(keys);
        return NULL;
    }
    for (size_t i = 0; i < total; i++)
        keys[i] = e[i].old_offset;
    free(e);
    *n = total;
    return keys;
}

/* The runtime's map of one native code version. With Info9 it is read by
 * code start (GetILToNativeMapping3): GetILToNativeMapping2 ignores the
 * ReJITID and reads the first native version of the method, which for a
 * method rejitted before its first call has no code (E_INVALIDARG), see
 * shim-findings.md. Both share the buffer protocol. */
typedef struct map_source {
    ICorProfilerInfo4 *info;
    int by_start;
    FunctionID function;
    ReJITID rejit;
    UINT_PTR start;
} map_source;

static HRESULT get_map(const map_source *src, ULONG32 cap, ULONG32 *total,
                       COR_DEBUG_IL_TO_NATIVE_MAP *map)
{
    if (src->by_start)
        return src->info->lpVtbl->GetILToNativeMapping3(src->info, src->start, cap, total, map);
    return src->info->lpVtbl->GetILToNativeMapping2(src->info, src->function, src->rejit, cap,
                                                    total, map);
}

static const char *api_name(const map_source *src)
{
    return src->by_start ? "GetILToNativeMapping3" : "GetILToNativeMapping2";
}

/* The two-call protocol against the runtime and the same calls against
 * libilmap's export of the same entries, each held to its own documented
 * rule: the runtime's (spec §4, decision 6) returns S_OK for a short
 * buffer, libilmap's (ilmap.h, the buffer protocol) ILMAP_E_TRUNCATED;
 * both report the full total, fill exactly the first cap entries and
 * leave the rest of the buffer alone. */
static void check_protocol(shim_profiler *p, const char *name, const char *where,
                           const map_source *src, const COR_DEBUG_IL_TO_NATIVE_MAP *full,
                           ULONG32 total, const ilmap_native *native)
{
    COR_DEBUG_IL_TO_NATIVE_MAP *buf = sentinel_buffer(total);
    if (!buf)
        return;
    ULONG32 reported = 0;
    HRESULT hr = get_map(src, 0, &reported, buf);
    shim_report_check(&p->report, "protocol_cap0", hr == S_OK && reported == total &&
                                                       untouched(buf, 0, total ? total : 1),
                      "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\",\"total\":%u,"
                      "\"want\":%u",
                      name, where, api_name(src), (unsigned)hr, (unsigned)reported,
                      (unsigned)total);
    if (total >= 2) {
        ULONG32 cap = total / 2;
        memset(buf, 0xA5, total * sizeof *buf);
        reported = 0;
        hr = get_map(src, cap, &reported, buf);
        int ok = hr == S_OK && reported == total && memcmp(buf, full, cap * sizeof *buf) == 0 &&
                 untouched(buf, cap, total);
        size_t ours_total = 0;
        ilmap_native_entry *ours = malloc(total * sizeof *ours);
        if (ours)
            memset(ours, 0xA5, total * sizeof *ours);
        ilmap_status st = ours ? ilmap_native_export(native, cap, &ours_total, ours)
                               : ILMAP_E_NOMEM;
        ilmap_native_entry theirs[1];
        int same_prefix = st == ILMAP_E_TRUNCATED && ours_total == total;
        for (ULONG32 i = 0; same_prefix && i < cap; i++) {
            to_ilmap(&buf[i], theirs, 1);
            same_prefix = same_entry(&ours[i], theirs);
        }
        for (ULONG32 i = cap; same_prefix && i < total; i++)
            same_prefix = ours[i].il_offset == SENTINEL && ours[i].native_start == SENTINEL &&
                          ours[i].native_end == SENTINEL;
        free(ours);
        shim_report_check(&p->report, "protocol_truncate", ok,
                          "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\",\"cap\":%u,"
                          "\"total\":%u",
                          name, where, api_name(src), (unsigned)hr, (unsigned)cap,
                          (unsigned)reported);
        shim_report_check(&p->report, "ilmap_protocol_truncate", same_prefix,
                          "\"method\":\"%s\"%s,\"cap\":%u,\"ilmap_total\":%zu,\"status\":\"%s\"",
                          name, where, (unsigned)cap, ours_total, ilmap_status_str(st));
    }
    reported = 0;
    hr = get_map(src, 1, &reported, NULL);
    shim_report_check(&p->report, "protocol_null_buffer", hr == E_INVALIDARG,
                      "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\"", name, where,
                      api_name(src), (unsigned)hr);
    size_t ilmap_total = 1234;
    ilmap_status st = ilmap_native_export(native, 1, &ilmap_total, NULL);
    shim_report_check(&p->report, "ilmap_protocol_null_buffer",
                      st == ILMAP_E_INVALID_ARG && ilmap_total == 0,
                      "\"method\":\"%s\"%s,\"status\":\"%s\"", name, where,
                      ilmap_status_str(st));
    free(buf);
}

/* Fetches a map with the two-call protocol: size query, then fill. */
static HRESULT fetch_map(ICorProfilerInfo4 *info, FunctionID f, ReJITID r,
                         COR_DEBUG_IL_TO_NATIVE_MAP **out, ULONG32 *count)
{
    *out = NULL;
    *count = 0;
    ULONG32 total = 0;
    HRESULT hr = info->lpVtbl->GetILToNativeMapping2(info, f, r, 0, &total, NULL);
    if (hr != S_OK)
        return hr;
    COR_DEBUG_IL_TO_NATIVE_MAP *e = sentinel_buffer(total);
    if (!e)
        return E_OUTOFMEMORY;
    ULONG32 got = 0;
    hr = info->lpVtbl->GetILToNativeMapping2(info, f, r, total, &got, e);
    if (hr != S_OK || got != total) {
        free(e);
        return FAILED(hr) ? hr : E_UNEXPECTED;
    }
    *out = e;
    *count = total;
    return S_OK;
}

/* (b): rebuild the mapped twin's export from the unmapped twin's export
 * and our map, and compare entry by entry. */
static void check_twins(shim_profiler *p, const char *mapped_name, const shim_version *mv,
                        const ilmap *mapped_map, const char *unmapped_name,
                        const shim_version *uv, const ilmap *unmapped_map)
{
    shim_report_check(&p->report, "b_code_size", mv->code_size == uv->code_size,
                      "\"mapped\":\"%s\",\"unmapped\":\"%s\",\"mapped_size\":%u,"
                      "\"unmapped_size\":%u",
                      mapped_name, unmapped_name, (unsigned)mv->code_size,
                      (unsigned)uv->code_size);
    size_t na = 0, nb = 0;
    ilmap_export(mapped_map, 0, &na, NULL);
    ilmap_export(unmapped_map, 0, &nb, NULL);
    int same_map = na == nb;
    if (same_map && na) {
        ilmap_entry *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
        same_map = a && b && ilmap_export(mapped_map, na, &na, a) == ILMAP_OK &&
                   ilmap_export(unmapped_map, nb, &nb, b) == ILMAP_OK &&
                   memcmp(a, b, na * sizeof *a) == 0;
        free(a);
        free(b);
    }
    shim_report_check(&p->report, "b_same_map", same_map,
                      "\"mapped\":\"%s\",\"unmapped\":\"%s\",\"entries\":%zu", mapped_name,
                      unmapped_name, na);

    ilmap_native *composed = NULL;
    int lossless = 0;
    ilmap_status st = ilmap_native_translate(uv->exported, uv->exported_count, uv->code_size,
                                             mapped_map, 0, &composed, &lossless);
    shim_report_check(&p->report, "b_compose", st == ILMAP_OK,
                      "\"mapped\":\"%s\",\"status\":\"%s\",\"exact\":%d", mapped_name,
                      ilmap_status_str(st), lossless);
    if (st != ILMAP_OK)
        return;
    size_t n = 0;
    ilmap_native_export(composed, 0, &n, NULL);
    ilmap_native_entry *ours = malloc((n ? n : 1) * sizeof *ours);
    if (!ours || ilmap_native_export(composed, n, &n, ours) != ILMAP_OK) {
        free(ours);
        ilmap_native_free(composed);
        return;
    }
    shim_report_check(&p->report, "b_count", n == mv->exported_count,
                      "\"mapped\":\"%s\",\"ilmap\":%u,\"runtime\":%u,\"exact\":%d", mapped_name,
                      (unsigned)n, (unsigned)mv->exported_count, lossless);
    size_t most = n > mv->exported_count ? n : mv->exported_count;
    for (size_t i = 0; i < most; i++) {
        ilmap_native_entry zero = {0, 0, 0};
        const ilmap_native_entry *o = i < n ? &ours[i] : &zero;
        const ilmap_native_entry *t = i < mv->exported_count ? &mv->exported[i] : &zero;
        shim_report_check(&p->report, "b", i < n && i < mv->exported_count && same_entry(o, t),
                          "\"mapped\":\"%s\",\"entry\":%zu,\"runtime\":[%u,%u,%u],"
                          "\"ilmap\":[%u,%u,%u]",
                          mapped_name, i, (unsigned)t->il_offset, (unsigned)t->native_start,
                          (unsigned)t->native_end, (unsigned)o->il_offset,
                          (unsigned)o->native_start, (unsigned)o->native_end);
    }
    free(ours);
    ilmap_native_free(composed);
}

static void lk(shim_profiler *p)
{
    if (p->lock_ready)
        shim_mutex_lock(&p->lock);
}

static void ulk(shim_profiler *p)
{
    if (p->lock_ready)
        shim_mutex_unlock(&p->lock);
}

/* The runtime's "how many" protocol for the list APIs (code ranges, code
 * starts, ReJIT IDs): ask with a first guess, and when the reported total
 * is larger, ask again with room for all of it. No fixed limit. */
typedef HRESULT (*fill_fn)(const void *ctx, ULONG32 cap, ULONG32 *total, void *buf);

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

/* Claims one native body for checking: 1 when it is new (then *index is
 * its number among the bodies of (function, rejit)), 0 when it was seen
 * already or cannot be recorded (counted). The caller holds the lock. */
static int claim_body(shim_profiler *p, shim_method *m, FunctionID function, ReJITID rejit,
                      UINT_PTR start, unsigned *index)
{
    unsigned same = 0;
    for (size_t i = 0; i < m->body_count; i++) {
        if (m->bodies[i].code_start == start)
            return 0;
        same += m->bodies[i].function == function && m->bodies[i].rejit == rejit;
    }
    if (m->body_count == m->body_cap) {
        size_t cap = m->body_cap ? m->body_cap * 2 : 4;
        shim_body *grown = cap < SIZE_MAX / sizeof *grown
                               ? realloc(m->bodies, cap * sizeof *grown)
                               : NULL;
        if (!grown) {
            p->bodies_dropped++;
            shim_note_dropped(p, 4, "a native body not checked");
            return 0;
        }
        m->bodies = grown;
        m->body_cap = cap;
    }
    shim_body b = {function, rejit, start};
    m->bodies[m->body_count++] = b;
    p->bodies_checked++;
    if (same)
        p->bodies_extra++;
    *index = same;
    return 1;
}

/* The checks of one native body: the two-call protocol, libilmap accepting
 * the export and keeping its order, the protocol on libilmap's side, and
 * (a). Returns the export (the caller frees it and *full_out) or NULL. */
static ilmap_native_entry *check_body(shim_profiler *p, const char *name, const char *where,
                                      int role, const ilmap *map, const uint32_t *starts,
                                      size_t start_count, const map_source *src,
                                      uint64_t code_size, ReJITID rejit,
                                      COR_DEBUG_IL_TO_NATIVE_MAP **full_out, ULONG32 *total_out)
{
    *full_out = NULL;
    *total_out = 0;
    ULONG32 total = 0;
    HRESULT hr = get_map(src, 0, &total, NULL);
    shim_report_check(&p->report, "protocol_size_query", hr == S_OK && total > 0,
                      "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"api\":\"%s\","
                      "\"hr\":\"0x%08X\",\"total\":%u",
                      name, where, rejit, api_name(src), (unsigned)hr, (unsigned)total);
    if (hr != S_OK || total == 0)
        return NULL;
    COR_DEBUG_IL_TO_NATIVE_MAP *full = sentinel_buffer(total);
    if (!full)
        return NULL;
    ULONG32 got = 0;
    hr = get_map(src, total, &got, full);
    shim_report_check(&p->report, "protocol_fill", hr == S_OK && got == total,
                      "\"method\":\"%s\"%s,\"hr\":\"0x%08X\",\"total\":%u,\"want\":%u", name,
                      where, (unsigned)hr, (unsigned)got, (unsigned)total);
    if (hr != S_OK || got != total) {
        free(full);
        return NULL;
    }
    ilmap_native_entry *exported = malloc(total * sizeof *exported);
    if (!exported) {
        free(full);
        return NULL;
    }
    to_ilmap(full, exported, total);

    /* libilmap must accept the runtime's export and keep its order. */
    ilmap_native *native = NULL;
    ilmap_status st = ilmap_native_from_entries(exported, total, (uint32_t)code_size, &native);
    shim_report_check(&p->report, "ilmap_accepts_export", st == ILMAP_OK,
                      "\"method\":\"%s\"%s,\"status\":\"%s\",\"entries\":%u,"
                      "\"code_size\":%" PRIu64,
                      name, where, ilmap_status_str(st), (unsigned)total, code_size);
    if (st == ILMAP_OK) {
        ilmap_native_entry *again = malloc(total * sizeof *again);
        size_t again_total = 0;
        int same = again && ilmap_native_export(native, total, &again_total, again) == ILMAP_OK &&
                   again_total == total;
        for (uint32_t i = 0; same && i < total; i++)
            same = same_entry(&again[i], &exported[i]);
        free(again);
        shim_report_check(&p->report, "ilmap_sort_order", same,
                          "\"method\":\"%s\"%s,\"entries\":%u", name, where, (unsigned)total);
        check_protocol(p, name, where, src, full, total, native);
    }
    ilmap_native_free(native);

    /* (a): every non-special exported IL offset is in our map's original
     * coordinates (an old offset of an entry: round-down translation never
     * invents offsets); for the unmapped twin, an instruction start of the
     * new body (the JIT's instrumented coordinates, untranslated). */
    size_t key_count = 0;
    uint32_t *keys = role == SHIM_ROLE_TWIN_UNMAPPED ? NULL : old_offsets(map, &key_count);
    for (uint32_t i = 0; i < total; i++) {
        uint32_t il = exported[i].il_offset;
        if (is_special(il))
            continue;
        if (role == SHIM_ROLE_TWIN_UNMAPPED) {
            shim_report_check(&p->report, "a_unmapped", contains_u32(starts, start_count, il),
                              "\"method\":\"%s\"%s,\"entry\":%u,\"il\":%u,\"native\":[%u,%u]",
                              name, where, (unsigned)i, (unsigned)il,
                              (unsigned)exported[i].native_start,
                              (unsigned)exported[i].native_end);
        } else {
            shim_report_check(&p->report, "a", keys && contains_u32(keys, key_count, il),
                              "\"method\":\"%s\"%s,\"entry\":%u,\"il\":%u,\"native\":[%u,%u]",
                              name, where, (unsigned)i, (unsigned)il,
                              (unsigned)exported[i].native_start,
                              (unsigned)exported[i].native_end);
        }
    }
    free(keys);
    *full_out = full;
    *total_out = total;
    return exported;
}

static void body_tag(char *out, size_t cap, UINT_PTR start, unsigned index)
{
    snprintf(out, cap, ",\"code_start\":\"0x%" PRIxPTR "\",\"body\":%u", start, index);
}

/* Every native body of (function, rejit) not checked yet: with tiering
 * kept, one per tier (ReJITCompilationFinished fires for each, while
 * GetCodeInfo3 and GetILToNativeMapping2 keep describing the first). Each
 * is read by its code start (Info9). */
static void check_new_bodies(shim_profiler *p, shim_method *m, const char *name, int role,
                             const ilmap *map, const uint32_t *starts, size_t start_count,
                             FunctionID function, ReJITID rejit)
{
    ICorProfilerInfo4 *info = p->info;
    list_ctx ctx = {info, function, rejit, 0};
    UINT_PTR *code_starts = NULL;
    ULONG32 n = 0;
    HRESULT hr = fetch_all(fill_starts, &ctx, sizeof *code_starts, 4, (void **)&code_starts, &n);
    if (FAILED(hr)) {
        free(code_starts);
        return;
    }
    for (ULONG32 i = 0; i < n; i++) {
        unsigned index = 0;
        lk(p);
        int fresh = code_starts[i] != 0 &&
                    claim_body(p, m, function, rejit, code_starts[i], &index);
        ulk(p);
        if (!fresh)
            continue;
        char where[96];
        body_tag(where, sizeof where, code_starts[i], index);
        list_ctx one = {info, function, rejit, code_starts[i]};
        COR_PRF_CODE_INFO *code = NULL;
        ULONG32 ranges = 0;
        hr = fetch_all(fill_code_info4, &one, sizeof *code, 4, (void **)&code, &ranges);
        uint64_t code_size = 0;
        for (ULONG32 r = 0; SUCCEEDED(hr) && r < ranges; r++)
            code_size += code[r].size;
        int starts_here = SUCCEEDED(hr) && ranges > 0 && code[0].startAddress == code_starts[i];
        shim_report_check(&p->report, "code_info4", starts_here,
                          "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"hr\":\"0x%08X\","
                          "\"ranges\":%u,\"size\":%" PRIu64,
                          name, where, rejit, (unsigned)hr, (unsigned)ranges, code_size);
        free(code);
        if (!starts_here || code_size > 0xFFFFFFFFu)
            continue;
        map_source src = {info, 1, function, rejit, code_starts[i]};
        COR_DEBUG_IL_TO_NATIVE_MAP *full = NULL;
        ULONG32 total = 0;
        ilmap_native_entry *exported = check_body(p, name, where, role, map, starts, start_count,
                                                  &src, code_size, rejit, &full, &total);
        shim_report_event(&p->report, "body_checked",
                          "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"entries\":%u,"
                          "\"code_size\":%" PRIu64,
                          name, where, rejit, (unsigned)total, code_size);
        free(full);
        free(exported);
    }
    free(code_starts);
}

/* Keeps a version for (b) and (c): the array of pointers grows, the
 * record does not move. Takes ownership of v on success; the caller holds
 * the lock. */
static int keep_version(shim_profiler *p, shim_method *m, shim_version *v)
{
    if (m->version_count == m->version_cap) {
        size_t cap = m->version_cap ? m->version_cap * 2 : 2;
        shim_version **grown = cap < SIZE_MAX / sizeof *grown
                                   ? realloc(m->versions, cap * sizeof *grown)
                                   : NULL;
        if (!grown) {
            p->versions_dropped++;
            shim_note_dropped(p, 2, "a compiled version not kept for checks (b) and (c)");
            return 1;
        }
        m->versions = grown;
        m->version_cap = cap;
    }
    m->versions[m->version_count++] = v;
    return 0;
}

/* The first native body of a new (function, rejit): every check. */
static void check_first_body(shim_profiler *p, shim_method *m, const char *name, int role,
                             const ilmap *map, const uint32_t *starts, size_t start_count,
                             ModuleID module, mdMethodDef token, FunctionID function,
                             ReJITID rejit)
{
    ICorProfilerInfo4 *info = p->info;
    /* Code size (hot + cold) of this version: the exported end of the
     * end-unknown entry. */
    list_ctx ctx = {info, function, rejit, 0};
    COR_PRF_CODE_INFO *code = NULL;
    ULONG32 ranges = 0;
    HRESULT hr = fetch_all(fill_code_info3, &ctx, sizeof *code, 4, (void **)&code, &ranges);
    uint64_t code_size = 0;
    for (ULONG32 i = 0; SUCCEEDED(hr) && i < ranges; i++)
        code_size += code[i].size;
    shim_report_check(&p->report, "code_info", SUCCEEDED(hr) && ranges > 0,
                      "\"method\":\"%s\",\"hr\":\"0x%08X\",\"ranges\":%u,\"size\":%" PRIu64, name,
                      (unsigned)hr, (unsigned)ranges, code_size);
    if (FAILED(hr) || ranges == 0 || code_size > 0xFFFFFFFFu) {
        free(code);
        return;
    }

    /* Which call reads this version's map (see get_map). */
    map_source src = {info, p->has_info9, function, rejit, code[0].startAddress};
    if (p->has_info9) {
        UINT_PTR *cs = NULL;
        ULONG32 n_starts = 0;
        hr = fetch_all(fill_starts, &ctx, sizeof *cs, 4, (void **)&cs, &n_starts);
        int found = 0;
        for (ULONG32 i = 0; SUCCEEDED(hr) && i < n_starts; i++)
            found |= cs[i] == code[0].startAddress;
        free(cs);
        shim_report_check(&p->report, "code_start", found,
                          "\"method\":\"%s\",\"hr\":\"0x%08X\",\"starts\":%u", name,
                          (unsigned)hr, (unsigned)n_starts);
    }
    unsigned index = 0;
    lk(p);
    claim_body(p, m, function, rejit, code[0].startAddress, &index);
    ulk(p);
    char where[96];
    body_tag(where, sizeof where, code[0].startAddress, index);

    COR_DEBUG_IL_TO_NATIVE_MAP *full = NULL;
    ULONG32 total = 0;
    ilmap_native_entry *exported = check_body(p, name, where, role, map, starts, start_count,
                                              &src, code_size, rejit, &full, &total);
    if (!exported) {
        free(code);
        return;
    }

    /* GetILToNativeMapping2 for this ReJITID and for ReJITID 0 (the
     * original IL). runtime-semantics §4 says the ReJITID is ignored (the
     * first native version is read): then both answers are the same,
     * whatever they are. The check holds the spec to that claim; the line
     * also says whether Mapping2 returned this version's map at all. */
    COR_DEBUG_IL_TO_NATIVE_MAP *m2 = NULL, *m0 = NULL;
    ULONG32 n2 = 0, n0 = 0;
    HRESULT hr2 = fetch_map(info, function, rejit, &m2, &n2);
    HRESULT hr0 = fetch_map(info, function, 0, &m0, &n0);
    int same_answer = hr2 == hr0 && n2 == n0 && (n2 == 0 || memcmp(m2, m0, n2 * sizeof *m2) == 0);
    int is_this_version = hr2 == S_OK && n2 == total && memcmp(m2, full, total * sizeof *full) == 0;
    shim_report_check(&p->report, "spec4_rejitid_ignored", same_answer,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"hr_rejit\":\"0x%08X\","
                      "\"hr_zero\":\"0x%08X\",\"entries_rejit\":%u,\"entries_zero\":%u,"
                      "\"mapping2_is_this_version\":%s",
                      name, rejit, (unsigned)hr2, (unsigned)hr0, (unsigned)n2, (unsigned)n0,
                      is_this_version ? "true" : "false");
    /* Where GetILToNativeMapping2 does answer (a method with an original
     * native version), its own buffer protocol is checked too, on the map
     * it returns (the original version's, sized by GetCodeInfo3(f, 0)). */
    if (hr2 == S_OK && n2 > 0) {
        list_ctx zero = {info, function, 0, 0};
        COR_PRF_CODE_INFO *orig = NULL;
        ULONG32 orig_ranges = 0;
        uint64_t orig_size = 0;
        HRESULT hc = fetch_all(fill_code_info3, &zero, sizeof *orig, 4, (void **)&orig,
                               &orig_ranges);
        for (ULONG32 i = 0; SUCCEEDED(hc) && i < orig_ranges; i++)
            orig_size += orig[i].size;
        free(orig);
        ilmap_native_entry *e2 = malloc(n2 * sizeof *e2);
        ilmap_native *native2 = NULL;
        if (e2 && SUCCEEDED(hc) && orig_size <= 0xFFFFFFFFu) {
            to_ilmap(m2, e2, n2);
            ilmap_status st2 = ilmap_native_from_entries(e2, n2, (uint32_t)orig_size, &native2);
            shim_report_check(&p->report, "ilmap_accepts_export", st2 == ILMAP_OK,
                              "\"method\":\"%s\",\"api\":\"GetILToNativeMapping2\","
                              "\"status\":\"%s\",\"entries\":%u,\"code_size\":%" PRIu64,
                              name, ilmap_status_str(st2), (unsigned)n2, orig_size);
            map_source src2 = {info, 0, function, rejit, 0};
            if (st2 == ILMAP_OK)
                check_protocol(p, name, "", &src2, m2, n2, native2);
        }
        ilmap_native_free(native2);
        free(e2);
    }
    free(m2);
    free(m0);
    free(full);

    ReJITID *ids = NULL;
    ULONG32 id_count = 0;
    hr = fetch_all(fill_rejit_ids, &ctx, sizeof *ids, 16, (void **)&ids, &id_count);
    int listed = 0;
    size_t list_cap = (size_t)id_count * 24 + 1;
    char *id_list = malloc(list_cap);
    size_t at = 0;
    if (id_list)
        id_list[0] = '\0';
    for (ULONG32 i = 0; SUCCEEDED(hr) && i < id_count; i++) {
        listed |= ids[i] == rejit;
        if (id_list && at < list_cap)
            at += (size_t)snprintf(id_list + at, list_cap - at, "%s%" PRIuPTR, i ? "," : "",
                                   ids[i]);
    }
    shim_report_check(&p->report, "rejit_ids", listed,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"hr\":\"0x%08X\",\"ids\":[%s]",
                      name, rejit, (unsigned)hr, id_list ? id_list : "");
    free(id_list);
    free(ids);

    /* The version into libilmap's version store, as a profiler would keep
     * it: with the COR_IL_MAP the runtime was given (none for the unmapped
     * twin) and the native body over its code ranges. Once per version
     * (the caller's "known" test): with tiering kept the runtime finishes
     * one ReJIT version once per tier; the extra bodies are checked, not
     * stored. */
    ilmap_status st = shim_store_add(&p->store, function, module, token, rejit,
                                     role == SHIM_ROLE_TWIN_UNMAPPED ? NULL : map, code, ranges,
                                     exported, total, (uint32_t)code_size);
    shim_report_check(&p->report, "store_add", st == ILMAP_OK,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"ranges\":%u,"
                      "\"status\":\"%s\"",
                      name, rejit, (unsigned)ranges, ilmap_status_str(st));

    /* Keep the version for (b) and (c). */
    shim_version *v = malloc(sizeof *v);
    if (v) {
        v->function = function;
        v->rejit = rejit;
        v->code_start = code[0].startAddress;
        v->code_size = (uint32_t)code_size;
        v->ranges = code;
        v->range_count = ranges;
        v->exported = exported;
        v->exported_count = total;
    }
    const shim_version *mv = NULL, *uv = NULL;
    const ilmap *mmap = NULL, *umap = NULL;
    const char *mname = NULL, *uname = NULL;
    lk(p);
    if (!v) {
        p->versions_dropped++;
        shim_note_dropped(p, 2, "a compiled version not kept for checks (b) and (c)");
    } else if (keep_version(p, m, v) == 0) {
        v = NULL; /* now the method's */
        code = NULL;
        exported = NULL;
    }
    shim_method *t = shim_method_at(p, m->twin);
    if (t && !m->twin_checked && m->version_count && t->version_count && t->instrumented) {
        shim_method *mapped = m->role == SHIM_ROLE_TWIN_MAPPED ? m : t;
        shim_method *unmapped = mapped == m ? t : m;
        m->twin_checked = t->twin_checked = 1;
        mv = mapped->versions[0];
        uv = unmapped->versions[0];
        mmap = mapped->map;
        umap = unmapped->map;
        mname = shim_method_name(p, mapped);
        uname = shim_method_name(p, unmapped);
    }
    ulk(p);
    free(v); /* only when it could not be kept */
    free(code);
    free(exported);
    if (mv)
        check_twins(p, mname, mv, mmap, uname, uv, umap);
}

void shim_check_version(shim_profiler *p, ModuleID module, mdMethodDef token,
                        FunctionID function, ReJITID rejit)
{
    if (!p || !p->info)
        return;
    lk(p);
    shim_method *m = shim_find_method(p, module, token);
    int instrumented = m && m->instrumented;
    int role = m ? m->role : 0;
    const ilmap *map = m ? m->map : NULL;
    const uint32_t *starts = m ? m->new_starts : NULL;
    size_t start_count = m ? m->new_start_count : 0;
    int known = 0;
    for (size_t i = 0; m && i < m->version_count; i++)
        known |= m->versions[i]->function == function && m->versions[i]->rejit == rejit;
    ulk(p);
    if (!m)
        return;
    const char *name = shim_method_name(p, m);
    if (!instrumented) {
        shim_report_event(&p->report, "rejit_uninstrumented", "\"method\":\"%s\"", name);
        return;
    }
    if (!known)
        check_first_body(p, m, name, role, map, starts, start_count, module, token, function,
                         rejit);
    if (p->has_info9)
        check_new_bodies(p, m, name, role, map, starts, start_count, function, rejit);
}

/* The same question as (c) asked of the version store by address, as a
 * sampler would: it must find this version's body and answer exactly as
 * ilmap_native_to_il on the export did. */
static void check_frame_in_store(shim_profiler *p, const char *name, const shim_version *v,
                                 uint32_t query, unsigned result, uint32_t il)
{
    if (!p->store.store)
        return;
    uintptr_t address = 0;
    ilmap_store_location loc;
    memset(&loc, 0, sizeof loc);
    ilmap_status st = shim_code_address(v->ranges, v->range_count, query, &address)
                          ? ILMAP_E_NOT_FOUND
                          : shim_store_lookup(&p->store, address, &loc);
    int ok = st == ILMAP_OK && loc.function_id == v->function && loc.rejit_id == v->rejit &&
             loc.code_start == v->code_start && loc.native_offset == query &&
             loc.mapping == result && loc.il_offset == il && loc.original_il_offset == il;
    shim_report_check(&p->report, "c_store", ok,
                      "\"method\":\"%s\",\"query\":%u,\"status\":\"%s\",\"rejit\":%" PRIuPTR
                      ",\"store_rejit\":%" PRIuPTR ",\"native\":%u,\"il\":%u,\"original_il\":%u,"
                      "\"result\":\"0x%02X\",\"ilmap_il\":%u",
                      name, (unsigned)query, ilmap_status_str(st), v->rejit, loc.rejit_id,
                      (unsigned)loc.native_offset, (unsigned)loc.il_offset,
                      (unsigned)loc.original_il_offset, loc.mapping, (unsigned)il);
}

/* (c): the runtime's own native->IL answers, as the program recorded them
 * from System.Diagnostics.StackFrame (GetNativeOffset, GetILOffset) into
 * the ILMAP_SHIM_FRAMES file, against ilmap_native_to_il on the exported
 * map. The runtime looks up native - 1 for a return address (a non-leaf
 * frame), so the same query is made here. */
void shim_check_frames(shim_profiler *p)
{
    if (!p || !p->frames_path)
        return;
    FILE *f = fopen(p->frames_path, "r");
    if (!f) {
        shim_report_event(&p->report, "frames_missing", NULL);
        shim_log("no frames file %s; check (c) skipped", p->frames_path);
        return;
    }
    char line[512];
    uint64_t skipped = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned token = 0, native = 0;
        long long il_signed = 0;
        if (sscanf(line, "%x %u %lld", &token, &native, &il_signed) != 3)
            continue;
        uint32_t runtime_il = (uint32_t)il_signed;
        if (p->lock_ready)
            shim_mutex_lock(&p->lock);
        const shim_version *v = NULL;
        const shim_method *owner = NULL;
        size_t candidates = 0;
        for (size_t i = 0; i < p->method_count; i++) {
            const shim_method *mi = p->methods[i];
            if (mi->token != token)
                continue;
            candidates += mi->version_count;
            if (mi->version_count) {
                v = mi->versions[0];
                owner = mi;
            }
        }
        if (p->lock_ready)
            shim_mutex_unlock(&p->lock);
        /* One native body must be the frame's; with several (generic
         * instantiations) the frame does not say which. */
        if (candidates != 1 || native > v->code_size) {
            skipped++;
            continue;
        }
        ilmap_native *nm = NULL;
        if (ilmap_native_from_entries(v->exported, v->exported_count, v->code_size, &nm) !=
            ILMAP_OK) {
            skipped++;
            continue;
        }
        uint32_t query = native ? native - 1 : 0;
        uint32_t ours = 0;
        unsigned result = ilmap_native_to_il(nm, query, &ours);
        ilmap_native_free(nm);
        int agree = ours == runtime_il ||
                    (runtime_il == 0xFFFFFFFFu && result == ILMAP_MAPPING_NO_INFO);
        shim_report_check(&p->report, "c", agree,
                          "\"method\":\"%s\",\"native\":%u,\"query\":%u,\"runtime_il\":%lld,"
                          "\"ilmap_il\":%u,\"result\":\"0x%02X\"",
                          shim_method_name(p, owner), native, (unsigned)query, il_signed,
                          (unsigned)ours, result);
        check_frame_in_store(p, shim_method_name(p, owner), v, query, result, ours);
    }
    fclose(f);
    shim_report_event(&p->report, "frames_done", "\"skipped\":%" PRIu64, skipped);
}
