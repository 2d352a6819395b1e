/*
 * The per-version and per-body checks: after each ReJIT compilation the
 * profiler reads the new body's code ranges and IL-to-native map (two-call
 * protocol) and hands them over (shim_check_body); here they are checked,
 * and libilmap against them. Runtime calls happen without the profiler
 * lock held, because the runtime may call back on another thread.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/checks.h"
#include "harness/frames.h"
#include "harness/source_checks.h"
#include "base/log.h"

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

/* The two-call protocol against the runtime and the same calls against
 * libilmap's export of the same entries, each held to its own documented
 * rule: the runtime's (doc/buffer-protocol.md#why) returns S_OK for a short
 * buffer, libilmap's (ilmap.h, the buffer protocol) ILMAP_E_TRUNCATED;
 * both report the full total, fill exactly the first cap entries and
 * leave the rest of the buffer alone. */
static void check_protocol(shim_report *r, const char *name, const char *where,
                           const shim_map_source *src, const COR_DEBUG_IL_TO_NATIVE_MAP *full,
                           ULONG32 total, const ilmap_native *native)
{
    COR_DEBUG_IL_TO_NATIVE_MAP *buf = sentinel_buffer(total);
    if (!buf)
        return;
    ULONG32 reported = 0;
    HRESULT hr = shim_map_call(src, 0, &reported, buf);
    shim_report_check(r, "protocol_cap0", hr == S_OK && reported == total &&
                                                       untouched(buf, 0, total ? total : 1),
                      "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\",\"total\":%u,"
                      "\"want\":%u",
                      name, where, shim_map_api(src), (unsigned)hr, (unsigned)reported,
                      (unsigned)total);
    if (total >= 2) {
        ULONG32 cap = total / 2;
        memset(buf, 0xA5, total * sizeof *buf);
        reported = 0;
        hr = shim_map_call(src, cap, &reported, buf);
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
        shim_report_check(r, "protocol_truncate", ok,
                          "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\",\"cap\":%u,"
                          "\"total\":%u",
                          name, where, shim_map_api(src), (unsigned)hr, (unsigned)cap,
                          (unsigned)reported);
        shim_report_check(r, "ilmap_protocol_truncate", same_prefix,
                          "\"method\":\"%s\"%s,\"cap\":%u,\"ilmap_total\":%zu,\"status\":\"%s\"",
                          name, where, (unsigned)cap, ours_total, ilmap_status_str(st));
    }
    reported = 0;
    hr = shim_map_call(src, 1, &reported, NULL);
    shim_report_check(r, "protocol_null_buffer", hr == E_INVALIDARG,
                      "\"method\":\"%s\"%s,\"api\":\"%s\",\"hr\":\"0x%08X\"", name, where,
                      shim_map_api(src), (unsigned)hr);
    size_t ilmap_total = 1234;
    ilmap_status st = ilmap_native_export(native, 1, &ilmap_total, NULL);
    shim_report_check(r, "ilmap_protocol_null_buffer",
                      st == ILMAP_E_INVALID_ARG && ilmap_total == 0,
                      "\"method\":\"%s\"%s,\"status\":\"%s\"", name, where,
                      ilmap_status_str(st));
    free(buf);
}

/* GetILToNativeMapping2 for (function, rejit) read whole, with the
 * HRESULT of the first failing step. */
static HRESULT fetch_map2(ICorProfilerInfo4 *info, FunctionID f, ReJITID rejit,
                          shim_map_read *out)
{
    shim_map_source src = {info, 0, f, rejit, 0};
    return shim_read_map(&src, out);
}

/* (b): rebuild the mapped twin's export from the unmapped twin's export
 * and our map, and compare entry by entry. */
static void check_twins(shim_report *r, const char *mapped_name, const shim_version *mv,
                        const ilmap *mapped_map, const char *unmapped_name,
                        const shim_version *uv, const ilmap *unmapped_map)
{
    shim_report_check(r, "b_code_size", mv->code_size == uv->code_size,
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
    shim_report_check(r, "b_same_map", same_map,
                      "\"mapped\":\"%s\",\"unmapped\":\"%s\",\"entries\":%zu", mapped_name,
                      unmapped_name, na);

    ilmap_native *composed = NULL;
    int lossless = 0;
    ilmap_status st = ilmap_native_translate(uv->exported, uv->exported_count, uv->code_size,
                                             mapped_map, 0, &composed, &lossless);
    shim_report_check(r, "b_compose", st == ILMAP_OK,
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
    shim_report_check(r, "b_count", n == mv->exported_count,
                      "\"mapped\":\"%s\",\"ilmap\":%u,\"runtime\":%u,\"exact\":%d", mapped_name,
                      (unsigned)n, (unsigned)mv->exported_count, lossless);
    size_t most = n > mv->exported_count ? n : mv->exported_count;
    for (size_t i = 0; i < most; i++) {
        ilmap_native_entry zero = {0, 0, 0};
        const ilmap_native_entry *o = i < n ? &ours[i] : &zero;
        const ilmap_native_entry *t = i < mv->exported_count ? &mv->exported[i] : &zero;
        shim_report_check(r, "b", i < n && i < mv->exported_count && same_entry(o, t),
                          "\"mapped\":\"%s\",\"entry\":%zu,\"runtime\":[%u,%u,%u],"
                          "\"ilmap\":[%u,%u,%u]",
                          mapped_name, i, (unsigned)t->il_offset, (unsigned)t->native_start,
                          (unsigned)t->native_end, (unsigned)o->il_offset,
                          (unsigned)o->native_start, (unsigned)o->native_end);
    }
    free(ours);
    ilmap_native_free(composed);
}

/* The checks of one native body: the two-call protocol, libilmap accepting
 * the export and keeping its order, the protocol on libilmap's side, and
 * (a). Returns 0 when the body's map was read whole. */
static int check_map(shim_report *r, const char *name, const char *where, int role,
                     const ilmap *map, const uint32_t *starts, size_t start_count,
                     const shim_body_note *n)
{
    const shim_map_read *read = &n->map;
    const shim_map_source *src = &n->source;
    ULONG32 total = read->total;
    shim_report_check(r, "protocol_size_query", read->hr_size == S_OK && total > 0,
                      "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"api\":\"%s\","
                      "\"hr\":\"0x%08X\",\"total\":%u",
                      name, where, n->rejit, shim_map_api(src), (unsigned)read->hr_size,
                      (unsigned)total);
    if (read->hr_size != S_OK || total == 0 || !read->filled)
        return 1;
    shim_report_check(r, "protocol_fill", read->hr_fill == S_OK && read->got == total,
                      "\"method\":\"%s\"%s,\"hr\":\"0x%08X\",\"total\":%u,\"want\":%u", name,
                      where, (unsigned)read->hr_fill, (unsigned)read->got, (unsigned)total);
    const ilmap_native_entry *exported = n->exported;
    const COR_DEBUG_IL_TO_NATIVE_MAP *full = read->entries;
    if (!exported || !full)
        return 1;
    uint64_t code_size = n->code_size;

    /* libilmap must accept the runtime's export and keep its order. */
    ilmap_native *native = NULL;
    ilmap_status st = ilmap_native_from_entries(exported, total, (uint32_t)code_size, &native);
    shim_report_check(r, "ilmap_accepts_export", st == ILMAP_OK,
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
        shim_report_check(r, "ilmap_sort_order", same,
                          "\"method\":\"%s\"%s,\"entries\":%u", name, where, (unsigned)total);
        check_protocol(r, name, where, src, full, total, native);
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
            shim_report_check(r, "a_unmapped", contains_u32(starts, start_count, il),
                              "\"method\":\"%s\"%s,\"entry\":%u,\"il\":%u,\"native\":[%u,%u]",
                              name, where, (unsigned)i, (unsigned)il,
                              (unsigned)exported[i].native_start,
                              (unsigned)exported[i].native_end);
        } else {
            shim_report_check(r, "a", keys && contains_u32(keys, key_count, il),
                              "\"method\":\"%s\"%s,\"entry\":%u,\"il\":%u,\"native\":[%u,%u]",
                              name, where, (unsigned)i, (unsigned)il,
                              (unsigned)exported[i].native_start,
                              (unsigned)exported[i].native_end);
        }
    }
    free(keys);
    return 0;
}

static void body_tag(char *out, size_t cap, UINT_PTR start, unsigned index)
{
    snprintf(out, cap, ",\"code_start\":\"0x%" PRIxPTR "\",\"body\":%u", start, index);
}

static void version_dropped(shim_harness *h)
{
    h->versions_dropped++;
    if (!(h->dropped_logged & 2)) {
        h->dropped_logged |= 2;
        shim_log("out of memory: %s (logged once; the summary has the count)",
                 "a compiled version not kept for checks (b) and (c)");
    }
}

/* Keeps a version for (b) and (c): the array of pointers grows, the
 * record does not move. Takes ownership of v on success; the caller holds
 * the profiler lock. */
static int keep_version(shim_harness *h, shim_harness_method *m, shim_version *v)
{
    if (m->version_count == m->version_cap) {
        size_t cap = m->version_cap ? m->version_cap * 2 : 2;
        shim_version **grown = cap < SIZE_MAX / sizeof *grown
                                   ? realloc(m->versions, cap * sizeof *grown)
                                   : NULL;
        if (!grown) {
            version_dropped(h);
            return 1;
        }
        m->versions = grown;
        m->version_cap = cap;
    }
    m->versions[m->version_count++] = v;
    return 0;
}

/* The other twin of m (same module, the selector's pair), or NULL; the
 * caller holds the profiler lock. */
static shim_method *find_twin(shim_profiler *p, shim_method *m)
{
    if (m->role == SHIM_ROLE_PLAIN || m->selector >= p->selection.count)
        return NULL;
    size_t want = p->selection.items[m->selector].twin;
    shim_method *found = NULL;
    for (size_t i = 0; i < p->registry.count; i++)
        if (p->registry.methods[i]->selector == want && p->registry.methods[i]->module == m->module)
            found = p->registry.methods[i];
    return found;
}

/* The checks only the first body of a version gets: GetILToNativeMapping2
 * against the version's map, the ReJIT IDs, the version store, and (b)
 * once both twins are in. */
static void check_version(shim_harness *h, shim_profiler *p, shim_method *m, const char *name,
                          int role, const shim_body_note *n)
{
    shim_report *r = &h->report;
    ICorProfilerInfo4 *info = p->info;
    FunctionID function = n->function;
    ReJITID rejit = n->rejit;
    ULONG32 total = n->map.total;
    const COR_DEBUG_IL_TO_NATIVE_MAP *full = n->map.entries;

    /* GetILToNativeMapping2 for this ReJITID and for ReJITID 0 (the
     * original IL). It ignores the ReJITID and reads the first native
     * version (doc/rejit.md#mapping2): then both answers are the same,
     * whatever they are. The check holds the runtime to that; the line
     * also says whether Mapping2 returned this version's map at all. */
    shim_map_read m2, m0;
    HRESULT hr2 = fetch_map2(info, function, rejit, &m2);
    HRESULT hr0 = fetch_map2(info, function, 0, &m0);
    ULONG32 n2 = hr2 == S_OK ? m2.total : 0, n0 = hr0 == S_OK ? m0.total : 0;
    int same_answer = hr2 == hr0 && n2 == n0 &&
                      (n2 == 0 || memcmp(m2.entries, m0.entries, n2 * sizeof *full) == 0);
    int is_this_version = hr2 == S_OK && n2 == total &&
                          memcmp(m2.entries, full, total * sizeof *full) == 0;
    shim_report_check(r, "spec4_rejitid_ignored", same_answer,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"hr_rejit\":\"0x%08X\","
                      "\"hr_zero\":\"0x%08X\",\"entries_rejit\":%u,\"entries_zero\":%u,"
                      "\"mapping2_is_this_version\":%s",
                      name, rejit, (unsigned)hr2, (unsigned)hr0, (unsigned)n2, (unsigned)n0,
                      is_this_version ? "true" : "false");
    /* Where GetILToNativeMapping2 does answer (a method with an original
     * native version), its own buffer protocol is checked too, on the map
     * it returns (the original version's, sized by GetCodeInfo3(f, 0)). */
    if (hr2 == S_OK && n2 > 0) {
        COR_PRF_CODE_INFO *orig = NULL;
        ULONG32 orig_ranges = 0;
        uint64_t orig_size = 0;
        HRESULT hc = shim_read_code_info(info, function, 0, &orig, &orig_ranges);
        for (ULONG32 i = 0; SUCCEEDED(hc) && i < orig_ranges; i++)
            orig_size += orig[i].size;
        free(orig);
        ilmap_native_entry *e2 = malloc(n2 * sizeof *e2);
        ilmap_native *native2 = NULL;
        if (e2 && SUCCEEDED(hc) && orig_size <= 0xFFFFFFFFu) {
            to_ilmap(m2.entries, e2, n2);
            ilmap_status st2 = ilmap_native_from_entries(e2, n2, (uint32_t)orig_size, &native2);
            shim_report_check(r, "ilmap_accepts_export", st2 == ILMAP_OK,
                              "\"method\":\"%s\",\"api\":\"GetILToNativeMapping2\","
                              "\"status\":\"%s\",\"entries\":%u,\"code_size\":%" PRIu64,
                              name, ilmap_status_str(st2), (unsigned)n2, orig_size);
            shim_map_source src2 = {info, 0, function, rejit, 0};
            if (st2 == ILMAP_OK)
                check_protocol(r, name, "", &src2, m2.entries, n2, native2);
        }
        ilmap_native_free(native2);
        free(e2);
    }
    free(m2.entries);
    free(m0.entries);

    ReJITID *ids = NULL;
    ULONG32 id_count = 0;
    HRESULT hr = shim_read_rejit_ids(info, function, &ids, &id_count);
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
    shim_report_check(r, "rejit_ids", listed,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"hr\":\"0x%08X\",\"ids\":[%s]",
                      name, rejit, (unsigned)hr, id_list ? id_list : "");
    free(id_list);
    free(ids);

    /* The profiler recorded the version in libilmap's version store, with
     * the COR_IL_MAP the runtime was given (none for the unmapped twin)
     * and the native body over its code ranges; once per version (with
     * tiering kept the extra bodies are checked, not stored). */
    shim_report_check(r, "store_add", n->store_status == ILMAP_OK,
                      "\"method\":\"%s\",\"rejit\":%" PRIuPTR ",\"ranges\":%u,"
                      "\"status\":\"%s\"",
                      name, rejit, (unsigned)n->range_count, ilmap_status_str(n->store_status));
    (void)role;

    /* Keep a copy of the version for (b) and (c). */
    shim_version *v = malloc(sizeof *v);
    COR_PRF_CODE_INFO *ranges = malloc(n->range_count * sizeof *ranges);
    ilmap_native_entry *exported = malloc(total * sizeof *exported);
    if (v && ranges && exported) {
        memcpy(ranges, n->ranges, n->range_count * sizeof *ranges);
        memcpy(exported, n->exported, total * sizeof *exported);
        v->function = function;
        v->rejit = rejit;
        v->code_start = n->ranges[0].startAddress;
        v->code_size = (uint32_t)n->code_size;
        v->ranges = ranges;
        v->range_count = n->range_count;
        v->exported = exported;
        v->exported_count = total;
    } else {
        free(v);
        v = NULL;
    }
    const shim_version *mv = NULL, *uv = NULL;
    const ilmap *mmap = NULL, *umap = NULL;
    const char *mname = NULL, *uname = NULL;
    shim_lock(p);
    shim_harness_method *hm = shim_harness_method_of(m);
    if (!v || !hm) {
        version_dropped(h);
    } else if (keep_version(h, hm, v) == 0) {
        v = NULL; /* now the method's */
        ranges = NULL;
        exported = NULL;
    }
    shim_method *t = find_twin(p, m);
    shim_harness_method *ht = t ? t->observer : NULL;
    if (hm && ht && !hm->twin_checked && hm->version_count && ht->version_count &&
        t->life == SHIM_LIFE_INSTRUMENTED) {
        shim_method *mapped = m->role == SHIM_ROLE_TWIN_MAPPED ? m : t;
        shim_method *unmapped = mapped == m ? t : m;
        shim_harness_method *hmapped = mapped->observer, *hunmapped = unmapped->observer;
        hm->twin_checked = ht->twin_checked = 1;
        mv = hmapped->versions[0];
        uv = hunmapped->versions[0];
        mmap = mapped->map;
        umap = unmapped->map;
        mname = shim_method_name(p, mapped);
        uname = shim_method_name(p, unmapped);
    }
    shim_unlock(p);
    free(v); /* only when it could not be kept */
    free(ranges);
    free(exported);
    if (mv)
        check_twins(r, mname, mv, mmap, uname, uv, umap);
}

void shim_check_body(shim_harness *h, shim_profiler *p, shim_method *m, const shim_body_note *n)
{
    if (!h || !p || !m || !n)
        return;
    shim_report *r = &h->report;
    shim_lock(p);
    const shim_harness_method *hm = m->observer;
    int role = m->role;
    int jit_time = m->kind == SHIM_KIND_JIT_TIME && m->life == SHIM_LIFE_INSTRUMENTED;
    const ilmap *map = m->map;
    const uint32_t *starts = hm ? hm->new_starts : NULL;
    size_t start_count = hm ? hm->new_start_count : 0;
    shim_unlock(p);
    const char *name = shim_method_name(p, m);
    int ranged = SUCCEEDED(n->hr_code) && n->range_count > 0;
    UINT_PTR start = n->first ? (ranged ? n->ranges[0].startAddress : 0) : n->source.start;
    char where[96];
    body_tag(where, sizeof where, start, n->index);
    if (n->first) {
        /* Code size (hot + cold) of this version: the exported end of the
         * end-unknown entry. */
        shim_report_check(r, "code_info", ranged,
                          "\"method\":\"%s\",\"hr\":\"0x%08X\",\"ranges\":%u,\"size\":%" PRIu64,
                          name, (unsigned)n->hr_code, (unsigned)n->range_count, n->code_size);
        if (!n->code_ok)
            return;
        if (p->has_info9) {
            UINT_PTR *cs = NULL;
            ULONG32 n_starts = 0;
            HRESULT hr = shim_read_code_starts(p->info, n->function, n->rejit, &cs, &n_starts);
            int found = 0;
            for (ULONG32 i = 0; SUCCEEDED(hr) && i < n_starts; i++)
                found |= cs[i] == start;
            free(cs);
            shim_report_check(r, "code_start", found,
                              "\"method\":\"%s\",\"hr\":\"0x%08X\",\"starts\":%u", name,
                              (unsigned)hr, (unsigned)n_starts);
        }
        if (check_map(r, name, where, role, map, starts, start_count, n) == 0)
            check_version(h, p, m, name, role, n);
        return;
    }
    /* A body of the original code (JIT-compiled, ReJITID 0): that it went
     * into the store with its own map, and, when the shim instrumented
     * the method at JIT time (a collectible module), the map checks of
     * code compiled under its COR_IL_MAP. */
    if (n->rejit == 0) {
        if (n->stored)
            shim_report_check(r, "store_body", n->store_status == ILMAP_OK,
                              "\"method\":\"%s\"%s,\"rejit\":0,\"entries\":%u,"
                              "\"code_size\":%" PRIu64 ",\"status\":\"%s\"",
                              name, where, (unsigned)n->map.total, n->code_size,
                              ilmap_status_str(n->store_status));
        if (jit_time && n->code_ok)
            check_map(r, name, where, role, map, starts, start_count, n);
        return;
    }
    /* A later body of the version (a tier): read by its code start. */
    int starts_here = ranged && n->ranges[0].startAddress == start;
    shim_report_check(r, "code_info4", starts_here,
                      "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"hr\":\"0x%08X\","
                      "\"ranges\":%u,\"size\":%" PRIu64,
                      name, where, n->rejit, (unsigned)n->hr_code, (unsigned)n->range_count,
                      n->code_size);
    if (!n->code_ok)
        return;
    int read = check_map(r, name, where, role, map, starts, start_count, n) == 0;
    if (n->stored)
        shim_report_check(r, "store_body", n->store_status == ILMAP_OK,
                          "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"entries\":%u,"
                          "\"code_size\":%" PRIu64 ",\"status\":\"%s\"",
                          name, where, n->rejit, (unsigned)n->map.total, n->code_size,
                          ilmap_status_str(n->store_status));
    shim_report_event(r, "body_checked",
                      "\"method\":\"%s\"%s,\"rejit\":%" PRIuPTR ",\"entries\":%u,"
                      "\"code_size\":%" PRIu64,
                      name, where, n->rejit, read ? (unsigned)n->map.total : 0u, n->code_size);
}

/* The same question as (c) asked of the version store by address, as a
 * sampler would: it must find this version's body and answer exactly as
 * ilmap_native_to_il on the export did. */
static void check_frame_in_store(shim_report *r, shim_profiler *p, const char *name, const shim_version *v,
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
    shim_report_check(r, "c_store", ok,
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
void shim_check_frames(shim_harness *h, shim_profiler *p)
{
    if (!h || !p || !h->frames_path)
        return;
    shim_report *r = &h->report;
    FILE *f = fopen(h->frames_path, "r");
    if (!f) {
        shim_report_event(r, "frames_missing", NULL);
        shim_log("no frames file %s; check (c) skipped", h->frames_path);
        return;
    }
    char line[4096];
    uint64_t skipped = 0, named_module = 0, by_module = 0;
    shim_source_counts sources;
    memset(&sources, 0, sizeof sources);
    shim_frame_modules modules;
    shim_frame_modules_build(&modules, p);
    while (fgets(line, sizeof line, f)) {
        shim_frame fr;
        if (shim_frame_parse(line, &fr) != 0)
            continue;
        if (fr.module) {
            named_module++;
            shim_lock(p);
            /* the token alone would name methods of several modules */
            by_module += shim_frame_token_modules(p, &fr) > 1;
            shim_unlock(p);
        }
        shim_check_frame_source(h, p, &modules, &fr, &sources);
        unsigned native = fr.native;
        long long il_signed = fr.il;
        /* (c) and c_store hold a frame to a version's first body: with
         * tiering kept it may have run in a later one, and the frame does
         * not say which (shim/FINDINGS.md, fifth round). */
        if (p->keep_tiering) {
            skipped++;
            continue;
        }
        uint32_t runtime_il = (uint32_t)il_signed;
        shim_lock(p);
        const shim_version *v = NULL;
        const shim_method *owner = NULL;
        size_t candidates = 0;
        for (size_t i = 0; i < p->registry.count; i++) {
            const shim_method *mi = p->registry.methods[i];
            const shim_harness_method *hm = mi->observer;
            if (!hm || !shim_frame_names(&modules, mi, &fr))
                continue;
            candidates += hm->version_count;
            if (hm->version_count) {
                v = hm->versions[0];
                owner = mi;
            }
        }
        shim_unlock(p);
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
        shim_report_check(r, "c", agree,
                          "\"method\":\"%s\",\"native\":%u,\"query\":%u,\"runtime_il\":%lld,"
                          "\"ilmap_il\":%u,\"result\":\"0x%02X\"",
                          shim_method_name(p, owner), native, (unsigned)query, il_signed,
                          (unsigned)ours, result);
        check_frame_in_store(r, p, shim_method_name(p, owner), v, query, result, ours);
    }
    fclose(f);
    shim_frame_modules_free(&modules);
    shim_report_event(r, "frames_done",
                      "\"skipped\":%" PRIu64 ",\"module_named\":%" PRIu64
                      ",\"module_needed\":%" PRIu64 ",\"source_instrumented\":%" PRIu64
                      ",\"source_not_instrumented\":%" PRIu64 ",\"source_unmapped_twin\":%" PRIu64
                      ",\"source_runtime_lines_instrumented\":%" PRIu64
                      ",\"source_caller_instrumented\":%" PRIu64
                      ",\"source_caller_not_instrumented\":%" PRIu64
                      ",\"source_skipped_no_body\":%" PRIu64 ",\"source_skipped_tiers\":%" PRIu64
                      ",\"source_skipped_other\":%" PRIu64 ",\"source_skipped_no_line\":%" PRIu64,
                      skipped, named_module, by_module, sources.instrumented, sources.plain,
                      sources.unmapped,
                      sources.instrumented_runtime_lines, sources.instrumented_caller,
                      sources.plain_caller, sources.skipped_no_body,
                      sources.skipped_tiers, sources.skipped_other, sources.skipped_no_line);
}
