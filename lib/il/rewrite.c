/*
 * ilmap_rewrite_create: checks the original body and the insertions, lays
 * the new code out (widening short branches until nothing moves), then
 * hands over to rw_emit() and fills in the map.
 */
#include <stdlib.h>
#include <string.h>

#include "il/emit.h"
#include "il/layout.h"
#include "il/rewrite.h"
#include "common/search.h"
#include "common/size_limits.h"

/* The result: the new body and the map. */
struct ilmap_rewrite {
    uint8_t *bytes;
    size_t size;
    ilmap_entry *entries;  /* one per original instruction */
    uint32_t *new_offsets; /* where each original instruction now begins */
    size_t count;
    ilmap_rewrite_info info;
};

static void layout_free(rw_layout *l)
{
    stream_free(&l->stream);
    free(l->order);
    free(l->first);
    free(l->ins_bytes);
    free(l->target);
    free(l->widened);
    free(l->boundary);
    free(l->at);
}

/* Each insertion must be at a boundary and be whole instructions whose
 * branches stay inside it (its end included): the rewriter copies it
 * verbatim, so any other target would land somewhere unintended. */
static ilmap_status check_insertions(rw_layout *l, size_t count, size_t *bad)
{
    const size_t n = l->stream.count;
    size_t last_appended = count;

    /* The last appended insertion ends the code: a branch to its end
     * would leave the method. */
    for (size_t k = 0; k < count; k++)
        if (l->insertions[k].offset == l->body->code_size)
            last_appended = k;
    for (size_t k = 0; k < count; k++) {
        const ilmap_il_insertion *ins = &l->insertions[k];
        size_t slot = ins->offset == l->body->code_size ? n : stream_find(&l->stream, ins->offset);
        if (slot == n && ins->offset != l->body->code_size) {
            *bad = k;
            return ILMAP_E_EDIT;
        }
        /* Profilers insert the same probe in many places: bytes already
         * checked under the same rule need no second look. */
        int same = k > 0 && ins->code == l->insertions[k - 1].code &&
                   ins->size == l->insertions[k - 1].size && k != last_appended &&
                   k - 1 != last_appended;
        if (ins->size > 0 && !same) {
            il_stream own;
            size_t where;
            ilmap_status st =
                stream_decode(ins->code, ins->size, &own, &where, k != last_appended, 0);
            if (st == ILMAP_E_NOMEM)
                return st; /* running out of memory is not the insertion's fault */
            if (st != ILMAP_OK) {
                *bad = k;
                return ILMAP_E_EDIT;
            }
            stream_free(&own);
        }
        l->first[slot + 1]++;
        l->ins_bytes[slot] += ins->size;
    }
    /* Counting sort: slot s's insertions are order[first[s], first[s+1]). */
    for (size_t s = 0; s <= n; s++)
        l->first[s + 1] += l->first[s];
    uint32_t *fill = malloc((n + 1) * sizeof *fill);
    if (!fill)
        return ILMAP_E_NOMEM;
    memcpy(fill, l->first, (n + 1) * sizeof *fill);
    for (size_t k = 0; k < count; k++) {
        const ilmap_il_insertion *ins = &l->insertions[k];
        size_t slot = ins->offset == l->body->code_size ? n : stream_find(&l->stream, ins->offset);
        l->order[fill[slot]++] = (uint32_t)k;
    }
    free(fill);
    return ILMAP_OK;
}

/* One layout pass. Returns 0 when the code would exceed the limit. */
static int rw_place(rw_layout *l)
{
    const size_t n = l->stream.count;
    uint64_t pos = 0;

    for (size_t i = 0; i < n; i++) {
        l->boundary[i] = (uint32_t)pos;
        pos += l->ins_bytes[i];
        if (pos > 0x7FFFFFFFu)
            return 0;
        l->at[i] = (uint32_t)pos;
        pos += rw_length(l, i);
    }
    l->boundary[n] = (uint32_t)pos;
    pos += l->ins_bytes[n];
    if (pos > 0x7FFFFFFFu)
        return 0;
    l->code_size = (uint32_t)pos;
    return 1;
}

/* Widens every short branch whose new delta does not fit a signed byte;
 * returns how many it widened. Deltas only grow in magnitude as code is
 * widened, so a branch never needs to shrink back. */
static uint32_t widen(rw_layout *l)
{
    uint32_t count = 0;

    for (size_t i = 0; i < l->stream.count; i++) {
        if (l->stream.instrs[i].operand != ILMAP_IL_BRANCH8 || l->widened[i])
            continue;
        int64_t delta = (int64_t)rw_target(l, l->target[i]) - ((int64_t)l->at[i] + 2);
        if (delta < -128 || delta > 127) {
            l->widened[i] = 1;
            count++;
        }
    }
    return count;
}

static ilmap_status lay_out(rw_layout *l, size_t count, size_t *bad)
{
    const size_t n = l->stream.count;

    l->order = malloc((count ? count : 1) * sizeof *l->order);
    l->first = calloc(n + 2, sizeof *l->first);
    l->ins_bytes = calloc(n + 1, sizeof *l->ins_bytes);
    l->target = calloc(n ? n : 1, sizeof *l->target);
    l->widened = calloc(n ? n : 1, 1);
    l->boundary = calloc(n + 1, sizeof *l->boundary);
    l->at = calloc(n ? n : 1, sizeof *l->at);
    if (!l->order || !l->first || !l->ins_bytes || !l->target || !l->widened || !l->boundary ||
        !l->at)
        return ILMAP_E_NOMEM;

    ilmap_status st = check_insertions(l, count, bad);
    if (st != ILMAP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        const ilmap_il_instr *in = &l->stream.instrs[i];
        if (in->operand == ILMAP_IL_BRANCH8 || in->operand == ILMAP_IL_BRANCH32)
            l->target[i] = (uint32_t)stream_find(&l->stream, in->target);
    }
    for (;;) {
        if (!rw_place(l))
            return ILMAP_E_LIMIT;
        uint32_t more = widen(l);
        if (!more)
            return ILMAP_OK;
        l->widened_count += more;
    }
}

/* The map straight from the final layout; ilmap_edits_build() of the
 * same edits gives the same entries (the tests hold it to that). */
static ilmap_status fill_map(const rw_layout *l, struct ilmap_rewrite *r)
{
    const size_t n = l->stream.count;

    r->entries = malloc((n ? n : 1) * sizeof *r->entries);
    r->new_offsets = malloc((n ? n : 1) * sizeof *r->new_offsets);
    if (!r->entries || !r->new_offsets)
        return ILMAP_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        r->entries[i].old_offset = l->stream.instrs[i].offset;
        r->entries[i].new_offset = l->boundary[i];
        r->entries[i].accurate = 1;
        r->new_offsets[i] = l->at[i];
    }
    r->count = n;
    r->info.instructions = (uint32_t)n;
    r->info.widened = l->widened_count;
    r->info.code_size = l->code_size;
    return ILMAP_OK;
}

ilmap_status ilmap_rewrite_create(const void *body, size_t body_size,
                                  const ilmap_il_insertion *insertions, size_t count,
                                  uint32_t extra_stack, unsigned flags, ilmap_rewrite **out,
                                  size_t *bad_index)
{
    if (out)
        *out = NULL;
    if (bad_index)
        *bad_index = ILMAP_NO_INDEX;
    if (!body || !out || (!insertions && count > 0) || flags != 0 ||
        size_exceeds_u32(count))
        return ILMAP_E_INVALID_ARG;
    for (size_t k = 0; k < count; k++) {
        if (insertions[k].size > 0 && !insertions[k].code) {
            if (bad_index)
                *bad_index = k;
            return ILMAP_E_INVALID_ARG;
        }
    }
    return rw_run(body, body_size, insertions, count, extra_stack, NULL, out, bad_index);
}

ilmap_status rw_run(const void *body, size_t body_size, const ilmap_il_insertion *insertions,
                    size_t count, uint32_t extra_stack, const rw_hooks *hooks,
                    ilmap_rewrite **out, size_t *bad_index)
{
    size_t bad = ILMAP_NO_INDEX;
    ilmap_status st = ILMAP_OK;
    struct ilmap_rewrite *r = NULL;
    ilmap_il_body parsed;
    rw_layout l;

    memset(&l, 0, sizeof l);
    *out = NULL;
    st = ilmap_il_body_parse(body, body_size, &parsed);
    if (st != ILMAP_OK)
        goto done;
    {
        static const uint8_t none[1];
        st = stream_decode(parsed.code_size ? parsed.code : none, parsed.code_size, &l.stream,
                           &bad, 0, 1);
    }
    if (st != ILMAP_OK)
        goto done;
    st = body_check_clauses(&parsed, &l.stream, &bad);
    if (st != ILMAP_OK)
        goto done;
    l.body = &parsed;
    l.insertions = insertions;
    if (hooks && (st = hooks->plan(&l, hooks->ctx, &bad)) != ILMAP_OK)
        goto done;
    st = lay_out(&l, count, &bad);
    if (st == ILMAP_OK && hooks)
        st = hooks->place(&l, hooks->ctx);
    if (st != ILMAP_OK)
        goto done;

    r = calloc(1, sizeof *r);
    if (!r) {
        st = ILMAP_E_NOMEM;
        goto done;
    }
    st = fill_map(&l, r);
    if (st == ILMAP_OK) {
        rw_body b;
        st = rw_emit(&l, extra_stack, &b);
        r->bytes = b.bytes;
        r->size = b.size;
        r->info.header_size = b.header_size;
        r->info.max_stack = b.max_stack;
        r->info.eh_fat = b.eh_fat;
    }
    if (st != ILMAP_OK) {
        ilmap_rewrite_free(r);
        r = NULL;
    }
done:
    layout_free(&l);
    *out = r;
    if (bad_index)
        *bad_index = st == ILMAP_OK ? ILMAP_NO_INDEX : bad;
    return st;
}

void ilmap_rewrite_free(ilmap_rewrite *r)
{
    if (!r)
        return;
    free(r->bytes);
    free(r->entries);
    free(r->new_offsets);
    free(r);
}

const uint8_t *ilmap_rewrite_get_body(const ilmap_rewrite *r, size_t *size)
{
    if (size)
        *size = r ? r->size : 0;
    return r ? r->bytes : NULL;
}

const ilmap_entry *ilmap_rewrite_get_entries(const ilmap_rewrite *r, size_t *count)
{
    if (count)
        *count = r ? r->count : 0;
    return r ? r->entries : NULL;
}

ilmap_status ilmap_rewrite_old_to_new(const ilmap_rewrite *r, uint32_t old_offset,
                                      uint32_t *new_offset)
{
    if (new_offset)
        *new_offset = 0;
    if (!r || !new_offset)
        return ILMAP_E_INVALID_ARG;
    size_t lo = search_lower_u32(&r->entries[0].old_offset, sizeof r->entries[0], r->count,
                                 old_offset);
    if (lo == r->count || r->entries[lo].old_offset != old_offset)
        return ILMAP_E_NOT_FOUND;
    *new_offset = r->new_offsets[lo];
    return ILMAP_OK;
}

ilmap_status ilmap_rewrite_get_info(const ilmap_rewrite *r, ilmap_rewrite_info *info)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!r || !info)
        return ILMAP_E_INVALID_ARG;
    *info = r->info;
    return ILMAP_OK;
}
