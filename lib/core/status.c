#include "ilmap.h"

const char *ilmap_version(void)
{
#define ILMAP_STR2(x) #x
#define ILMAP_STR(x) ILMAP_STR2(x)
    return ILMAP_STR(ILMAP_VERSION_MAJOR) "." ILMAP_STR(ILMAP_VERSION_MINOR) "." ILMAP_STR(
        ILMAP_VERSION_MICRO);
}

const char *ilmap_status_str(ilmap_status status)
{
    switch (status) {
    case ILMAP_OK: return "success";
    case ILMAP_E_INVALID_ARG: return "invalid argument";
    case ILMAP_E_UNSORTED: return "map is not strictly ascending in both offsets";
    case ILMAP_E_NOMEM: return "out of memory";
    case ILMAP_E_NOT_FOUND: return "not found";
    case ILMAP_E_NATIVE_ORDER: return "native offsets are not in non-decreasing order";
    case ILMAP_E_CODE_SIZE: return "native offset beyond the code size, or code sizes that differ";
    case ILMAP_E_BAD_RANGE: return "native range starts after its end";
    case ILMAP_E_OVERLAP: return "native ranges overlap";
    case ILMAP_E_IL_OPCODE: return "invalid IL opcode";
    case ILMAP_E_IL_TRUNCATED: return "IL body or instruction runs past the end of the bytes";
    case ILMAP_E_IL_BRANCH: return "branch target is not an instruction start in the code";
    case ILMAP_E_IL_HEADER: return "malformed or unsupported IL method header or section";
    case ILMAP_E_IL_EH: return "EH clause outside the code or not on instruction starts";
    case ILMAP_E_EDIT: return "edit is not at an instruction start or deletes original IL";
    case ILMAP_E_LIMIT: return "result exceeds a format limit";
    case ILMAP_E_FORMAT: return "malformed input (serialized map, signature, PDB or PE file)";
    case ILMAP_E_EXISTS: return "already exists with other values";
    case ILMAP_E_FULL: return "fixed capacity exhausted";
    case ILMAP_E_TRUNCATED: return "the buffer holds the first cap items; *total says how many there are";
    case ILMAP_E_UNSUPPORTED: return "not supported by this build";
    case ILMAP_E_IO: return "a file could not be read";
    }
    return "unknown status";
}

const char *ilmap_defect_str(ilmap_defect defect)
{
    switch (defect) {
    case ILMAP_DEFECT_NONE: return "no defect";
    case ILMAP_DEFECT_OLD_DESCENDING: return "old_offset is smaller than the previous entry's";
    case ILMAP_DEFECT_OLD_DUPLICATE: return "old_offset repeats the previous entry's";
    case ILMAP_DEFECT_NEW_DESCENDING: return "new_offset is smaller than the previous entry's";
    case ILMAP_DEFECT_NEW_DUPLICATE: return "new_offset repeats the previous entry's";
    case ILMAP_DEFECT_BAD_ARGUMENT: return "entries is NULL or count exceeds ILMAP_MAX_ENTRIES";
    }
    return "unknown defect";
}
