#include "ilmap.h"

/* Why entries[0..count) is not a strict map, and where. */
static ilmap_defect diagnose(const ilmap_entry *entries, size_t count, size_t *bad_index)
{
    if ((entries == NULL && count > 0) || count > ILMAP_MAX_ENTRIES)
        return ILMAP_DEFECT_BAD_ARGUMENT;
    for (size_t i = 1; i < count; i++) {
        ilmap_defect defect = ILMAP_DEFECT_NONE;

        if (entries[i].old_offset < entries[i - 1].old_offset)
            defect = ILMAP_DEFECT_OLD_DESCENDING;
        else if (entries[i].old_offset == entries[i - 1].old_offset)
            defect = ILMAP_DEFECT_OLD_DUPLICATE;
        else if (entries[i].new_offset < entries[i - 1].new_offset)
            defect = ILMAP_DEFECT_NEW_DESCENDING;
        else if (entries[i].new_offset == entries[i - 1].new_offset)
            defect = ILMAP_DEFECT_NEW_DUPLICATE;
        if (defect != ILMAP_DEFECT_NONE) {
            *bad_index = i;
            return defect;
        }
    }
    return ILMAP_DEFECT_NONE;
}

ilmap_status ilmap_validate(const ilmap_entry *entries, size_t count, ilmap_defect *defect,
                            size_t *bad_index)
{
    size_t bad = ILMAP_NO_INDEX;
    ilmap_defect why = diagnose(entries, count, &bad);

    if (defect)
        *defect = why;
    if (bad_index)
        *bad_index = bad;
    switch (why) {
    case ILMAP_DEFECT_NONE: return ILMAP_OK;
    case ILMAP_DEFECT_BAD_ARGUMENT: return ILMAP_E_INVALID_ARG;
    default: return ILMAP_E_UNSORTED;
    }
}
