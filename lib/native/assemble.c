/*
 * native_assemble: one allocation holding the sorted table and both
 * lookup indexes (see native.h for what each array means; intervals.c
 * computes the native -> IL answers).
 */
#include <stdlib.h>
#include <string.h>

#include "core/block_alloc.h"
#include "native/intervals.h"
#include "native/native.h"

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Scratch memory of the build, freed before native_assemble returns. */
typedef struct scratch {
    uint32_t *breakpoints; /* 2 * count: starts and non-zero ends */
    uint32_t *claim;       /* per interval: the entry, or NATIVE_NONE */
    uint32_t *next;        /* union-find over intervals, nintervals + 1 */
    uint32_t *il_keys;     /* distinct normal IL offsets */
    uint64_t *calls;       /* (start, index) of each call site */
    uint32_t *upto;        /* per entry: specials up to it */
} scratch;

static void scratch_free(scratch *s)
{
    free(s->breakpoints);
    free(s->claim);
    free(s->next);
    free(s->il_keys);
    free(s->calls);
    free(s->upto);
}

static void *alloc_array(size_t count, size_t size)
{
    return malloc((count ? count : 1) * size);
}

ilmap_status native_assemble(const native_table *t, ilmap_native **out)
{
    scratch s;
    uint32_t count = t->count;
    uint32_t total = count + t->ncalls;

    *out = NULL;
    memset(&s, 0, sizeof s);

    /* The table's class boundaries: PROLOGs, normal, EPILOG, NO_MAPPING. */
    uint32_t prolog_end = 0, normal_end, epilog_end;
    while (prolog_end < count && t->records[prolog_end].il_offset == ILMAP_PROLOG)
        prolog_end++;
    normal_end = prolog_end;
    while (normal_end < count && t->records[normal_end].il_offset < ILMAP_EPILOG)
        normal_end++;
    epilog_end = normal_end;
    while (epilog_end < count && t->records[epilog_end].il_offset == ILMAP_EPILOG)
        epilog_end++;

    s.breakpoints = alloc_array((size_t)count * 2, sizeof *s.breakpoints);
    s.il_keys = alloc_array(count, sizeof *s.il_keys);
    s.calls = alloc_array(t->ncalls, sizeof *s.calls);
    s.upto = alloc_array(count, sizeof *s.upto);
    if (!s.breakpoints || !s.il_keys || !s.calls || !s.upto) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }

    uint32_t nbreaks = intervals_breakpoints(t->records, count, s.breakpoints);
    uint32_t nintervals = nbreaks + 1;
    /* 0xFFFFFFFF cannot be a rank-index key; only x = 0xFFFFFFFF reaches
     * past it, and that query is answered from the last interval. */
    uint32_t tree_keys = nbreaks - (nbreaks > 0 && s.breakpoints[nbreaks - 1] == 0xFFFFFFFFu);

    uint32_t ngroups = 0;
    for (uint32_t k = prolog_end; k < normal_end; k++)
        if (ngroups == 0 || t->records[k].il_offset != s.il_keys[ngroups - 1])
            s.il_keys[ngroups++] = t->records[k].il_offset;

    s.claim = alloc_array(nintervals, sizeof *s.claim);
    s.next = alloc_array((size_t)nintervals + 1, sizeof *s.next);
    if (!s.claim || !s.next) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }
    intervals_claim(t->records, count, s.breakpoints, nbreaks, s.claim, s.next);

    block_plan p = { 0, 0 };
    int overflow1 = 0, overflow2 = 0;
    size_t struct_off = block_plan_add(&p, 1, sizeof(ilmap_native)); /* 0: see free */
    size_t records_off = block_plan_add(&p, total, sizeof(ilmap_native_record));
    size_t breaks_off = block_plan_add(&p, rank_index_slots(tree_keys, &overflow1), sizeof(int32_t));
    size_t answers_off = block_plan_add(&p, nintervals, sizeof(struct native_answer));
    size_t il_off = block_plan_add(&p, rank_index_slots(ngroups, &overflow2), sizeof(int32_t));
    size_t groups_off = block_plan_add(&p, (size_t)ngroups + 1, sizeof(uint32_t));
    size_t calls_off = block_plan_add(&p, t->ncalls, sizeof(uint32_t));
    uint32_t break_nb, break_shift, il_nb, il_shift;
    buckets_plan(s.breakpoints, tree_keys, &break_nb, &break_shift);
    buckets_plan(s.il_keys, ngroups, &il_nb, &il_shift);
    size_t break_keys_off = block_plan_add(&p, (size_t)tree_keys + BUCKET_SCAN, sizeof(uint32_t));
    size_t break_first_off = block_plan_add(&p, (size_t)break_nb + 1, sizeof(uint32_t));
    size_t il_keys_off = block_plan_add(&p, (size_t)ngroups + BUCKET_SCAN, sizeof(uint32_t));
    size_t il_first_off = block_plan_add(&p, (size_t)il_nb + 1, sizeof(uint32_t));
    if (p.overflow || overflow1 || overflow2) {
        scratch_free(&s);
        return ILMAP_E_INVALID_ARG;
    }

    size_t block_size = 0;
    unsigned char *base = block_alloc(p.size, &block_size);
    if (!base) {
        scratch_free(&s);
        return ILMAP_E_NOMEM;
    }

    ilmap_native *m = (ilmap_native *)(void *)(base + struct_off);
    ilmap_native_record *records = (ilmap_native_record *)(void *)(base + records_off);
    struct native_answer *answers = (struct native_answer *)(void *)(base + answers_off);
    uint32_t *group_first = (uint32_t *)(void *)(base + groups_off);
    uint32_t *calls_by_start = (uint32_t *)(void *)(base + calls_off);

    memset(m, 0, sizeof *m);
    if (total)
        memcpy(records, t->records, (size_t)total * sizeof *records);
    m->count = count;
    m->ncalls = t->ncalls;
    m->code_size = t->code_size;
    m->last_il = t->last_il;
    m->dac = t->dac;
    m->level = cpu_level_for_flags(t->flags);
    m->records = records;
    m->prolog_end = prolog_end;
    m->normal_end = normal_end;
    m->epilog_end = epilog_end;
    m->bytes = block_size;

    rank_count_fn kernel = rank_kernel_for(m->level);
    rank_index_init(&m->breaks, s.breakpoints, tree_keys, (int32_t *)(void *)(base + breaks_off),
                    kernel);
    m->nintervals = nintervals;
    buckets_init(&m->break_buckets, s.breakpoints, tree_keys, break_nb, break_shift,
                 (uint32_t *)(void *)(base + break_keys_off),
                 (uint32_t *)(void *)(base + break_first_off));
    intervals_answers(t, s.claim, nintervals, s.upto, answers);
    m->answers = answers;

    rank_index_init(&m->il_keys, s.il_keys, ngroups, (int32_t *)(void *)(base + il_off), kernel);
    buckets_init(&m->il_buckets, s.il_keys, ngroups, il_nb, il_shift,
                 (uint32_t *)(void *)(base + il_keys_off), (uint32_t *)(void *)(base + il_first_off));
    uint32_t g = 0;
    for (uint32_t k = prolog_end; k < normal_end; k++)
        if (k == prolog_end || records[k].il_offset != records[k - 1].il_offset)
            group_first[g++] = k;
    group_first[g] = normal_end;
    m->group_first = group_first;

    for (uint32_t c = 0; c < t->ncalls; c++)
        s.calls[c] = (uint64_t)records[count + c].native_start << 32 | c;
    qsort(s.calls, t->ncalls, sizeof *s.calls, compare_u64);
    for (uint32_t c = 0; c < t->ncalls; c++)
        calls_by_start[c] = (uint32_t)s.calls[c];
    m->calls_by_start = calls_by_start;

    scratch_free(&s);
    *out = m;
    return ILMAP_OK;
}

void ilmap_native_free(ilmap_native *m)
{
    block_free(m); /* the struct is at the start of its block */
}
