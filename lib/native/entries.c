/*
 * Maps from exported arrays (what GetILToNativeMapping2 returns): the
 * checks of ilmap_native_validate and ilmap_native_from_entries. The
 * array is kept exactly as given (only sorted into the runtime's order),
 * so every lookup answers what the runtime's scan answers on it; the
 * checks refuse only what the runtime never exports.
 */
#include <stdlib.h>

#include "common/order.h"
#include "native/native.h"

/* A non-zero end is where the range stops. End 0 is no range end at all:
 * the lookup scan reads it as "open to the top" (or, on a PROLOG, as
 * matching nothing), and the runtime exports it where several boundaries
 * share native offset 0 (doc/native-to-il.md). Such entries are kept as
 * given and left out of the range checks. */
static int has_end(const ilmap_native_entry *e)
{
    return e->native_end != 0;
}

static void set_index(size_t *p, size_t value)
{
    if (p)
        *p = value;
}

/* Whether a counted range starting at or after the group's members may
 * join the group of ranges that all end at `furthest`: it must end there
 * too, and of two members starting at different offsets the later one is
 * a PROLOG; of two starting together, one is (doc/native-to-il.md#accepts).
 * The runtime exports exactly these nestings: a CALL_INSTRUCTION boundary
 * whose IL offset is PROLOG stays in the sequence map and spans from its
 * start to where its non-call predecessor ends. */
static int joins_group(const ilmap_native_entry *e, uint32_t furthest, uint32_t group_start,
                       int group_has_normal)
{
    if (e->native_end != furthest)
        return 0;
    if (e->il_offset == ILMAP_PROLOG)
        return 1;
    return e->native_start == group_start && !group_has_normal;
}

/* Sweeps the non-empty ranges with a non-zero end in native order. The
 * ranges seen so far that end furthest form a group; a range starting
 * below that end either joins the group or overlaps the entry that first
 * reached it. */
static ilmap_status check_overlaps(const ilmap_native_entry *entries, uint32_t n,
                                   size_t *bad_index, size_t *other_index)
{
    uint64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    uint32_t ranges = 0;

    if (!order)
        return ILMAP_E_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (has_end(&entries[i]) && entries[i].native_start < entries[i].native_end)
            order[ranges++] = (uint64_t)entries[i].native_start << 32 | i;
    qsort(order, ranges, sizeof *order, order_u64);

    uint32_t furthest = 0, owner = 0;
    int group_has_normal = 0;
    for (uint32_t r = 0; r < ranges; r++) {
        uint32_t i = (uint32_t)order[r];
        const ilmap_native_entry *e = &entries[i];

        if (r > 0 && e->native_start < furthest) {
            if (!joins_group(e, furthest, entries[owner].native_start, group_has_normal)) {
                set_index(bad_index, i);
                set_index(other_index, owner);
                free(order);
                return ILMAP_E_OVERLAP;
            }
        } else {
            furthest = e->native_end;
            owner = i;
            group_has_normal = 0;
        }
        group_has_normal |= e->il_offset != ILMAP_PROLOG;
    }
    free(order);
    return ILMAP_OK;
}

ilmap_status ilmap_native_validate(const ilmap_native_entry *entries, size_t count,
                                   uint32_t code_size, size_t *bad_index, size_t *other_index)
{
    set_index(bad_index, ILMAP_NO_INDEX);
    set_index(other_index, ILMAP_NO_INDEX);
    if ((entries == NULL && count > 0) || count > ILMAP_NATIVE_MAX_ENTRIES)
        return ILMAP_E_INVALID_ARG;

    for (size_t i = 0; i < count; i++) {
        const ilmap_native_entry *e = &entries[i];
        ilmap_status status = ILMAP_OK;

        if (e->native_start > code_size)
            status = ILMAP_E_CODE_SIZE;
        else if (has_end(e) && e->native_end > code_size)
            status = ILMAP_E_CODE_SIZE;
        else if (has_end(e) && e->native_start > e->native_end)
            status = ILMAP_E_BAD_RANGE;
        if (status != ILMAP_OK) {
            set_index(bad_index, i);
            return status;
        }
    }
    return check_overlaps(entries, (uint32_t)count, bad_index, other_index);
}

ilmap_status ilmap_native_from_entries(const ilmap_native_entry *entries, size_t count,
                                       uint32_t code_size, ilmap_native **out)
{
    if (out)
        *out = NULL;
    if (!out)
        return ILMAP_E_INVALID_ARG;

    ilmap_native_record *records;
    ilmap_status status = native_records_for(
        ilmap_native_validate(entries, count, code_size, NULL, NULL), count, &records);
    if (status != ILMAP_OK)
        return status;
    uint32_t n = (uint32_t)count;

    uint32_t last_il = 0;
    for (uint32_t i = 0; i < n; i++) {
        records[i].il_offset = entries[i].il_offset;
        records[i].native_start = entries[i].native_start;
        records[i].native_end = entries[i].native_end; /* end 0 stays 0 */
        records[i].source = 0;
        last_il = native_signed_max(last_il, entries[i].il_offset);
    }
    if (!native_sort(records, n)) {
        free(records);
        return ILMAP_E_NOMEM;
    }

    native_table table = { records, n, 0, code_size, last_il, 0, 0 };
    status = native_assemble(&table, out);
    free(records);
    return status;
}
