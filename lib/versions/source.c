/*
 * The whole journey, reader side: an address -> its location in the
 * store (snapshot.c) -> the source of its original IL offset through the
 * module's PDB (ilmap_pdb_find_source()). Like every query on a snapshot:
 * no lock, no allocation, no system call, so async-signal-safe
 * (doc/source-lines.md#store).
 */
#include <string.h>

#include "versions/store.h"

static void clear(ilmap_store_location *location, ilmap_store_source *source)
{
    if (location) {
        memset(location, 0, sizeof *location);
        location->mapping = ILMAP_MAPPING_NO_INFO;
    }
    if (source)
        memset(source, 0, sizeof *source);
}

ilmap_status ilmap_store_snapshot_lookup_source(const ilmap_store_snapshot *snapshot,
                                                uintptr_t address, unsigned flags,
                                                ilmap_store_location *location,
                                                ilmap_store_source *source)
{
    clear(location, source);
    if (!snapshot || !location || !source || (flags & ~ILMAP_STORE_RETURN_ADDRESS))
        return ILMAP_E_INVALID_ARG;

    /* A return address is one past the call: its last byte is address - 1
     * (doc/source-lines.md#return-address). 0 wraps to UINTPTR_MAX, which
     * no range holds (ranges end at UINTPTR_MAX at most, exclusive). */
    if (flags & ILMAP_STORE_RETURN_ADDRESS)
        address -= 1;
    ilmap_status st = ilmap_store_snapshot_lookup(snapshot, address, location);
    if (st != ILMAP_OK)
        return st;

    const struct store_pdbref *ref = snapshot_pdbref(snapshot, location->module_id);
    if (!ref)
        return ILMAP_E_NOT_FOUND;
    source->pdb = ref->pdb;
    /* No native map: no IL offset, so no line (doc/source-lines.md#store). */
    if (location->mapping == ILMAP_MAPPING_NO_INFO)
        return ILMAP_E_NOT_FOUND;
    /* The method's lines, decoded by the writer that attached a body or
     * the PDB (store.h); the blob itself only when that decode could not
     * allocate. The same answer either way. method_def is a MethodDef
     * token already (the store checked it). */
    const ilmap_pdb_lines *lines = pdbref_lines(ref, location->method_def);
    if (lines)
        return ilmap_pdb_lines_find_source(lines, location->original_il_offset, &source->point,
                                           NULL);
    return ilmap_pdb_find_source(ref->pdb, 0x06000000u | location->method_def,
                                 location->original_il_offset, &source->point, NULL);
}

ilmap_status ilmap_store_lookup_source(ilmap_store_reader *reader, uintptr_t address,
                                       unsigned flags, ilmap_store_location *location,
                                       ilmap_store_source *source)
{
    const ilmap_store_snapshot *snapshot;

    clear(location, source);
    if (!reader || !location || !source)
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = ilmap_store_reader_begin(reader, &snapshot);
    if (st != ILMAP_OK)
        return st;
    st = ilmap_store_snapshot_lookup_source(snapshot, address, flags, location, source);
    (void)ilmap_store_reader_end(reader);
    return st;
}
