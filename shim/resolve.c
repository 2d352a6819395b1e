#include "resolve.h"

#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "log.h"
#include "utf16.h"

#define NAME_CAP 1024

/* "Ns.Outer+Inner": the outer type by its full name, each nested one by
 * its simple name within the previous (nested types carry no namespace). */
static int find_type(IMetaDataImport *md, const char *type_name, mdTypeDef *out)
{
    *out = CLR_MD_TOKEN_NIL;
    mdToken enclosing = CLR_MD_TOKEN_NIL;
    const char *part = type_name;
    while (part && *part) {
        const char *plus = strchr(part, '+');
        size_t n = plus ? (size_t)(plus - part) : strlen(part);
        char utf8[NAME_CAP];
        WCHAR name[NAME_CAP];
        if (n == 0 || n >= sizeof utf8)
            return 1;
        memcpy(utf8, part, n);
        utf8[n] = '\0';
        if (shim_utf8_to_utf16(utf8, name, NAME_CAP))
            return 1;
        mdTypeDef td = CLR_MD_TOKEN_NIL;
        if (md->lpVtbl->FindTypeDefByName(md, name, enclosing, &td) != S_OK)
            return 1;
        enclosing = td;
        part = plus ? plus + 1 : NULL;
    }
    *out = enclosing;
    return enclosing == CLR_MD_TOKEN_NIL;
}

size_t shim_resolve_methods(IMetaDataImport *md, const shim_selector *sel, mdMethodDef *out,
                            size_t cap)
{
    if (!md || !sel || !sel->type_name || !sel->method_name || !out || cap == 0)
        return 0;
    mdTypeDef td;
    if (find_type(md, sel->type_name, &td))
        return 0;
    int all = strcmp(sel->method_name, "*") == 0;
    WCHAR name[NAME_CAP];
    if (!all && shim_utf8_to_utf16(sel->method_name, name, NAME_CAP)) {
        shim_log("method name '%s' is not valid UTF-8", sel->method_name);
        return 0;
    }
    HCORENUM e = NULL;
    size_t found = 0;
    for (;;) {
        mdMethodDef chunk[64];
        ULONG got = 0;
        HRESULT hr = all ? md->lpVtbl->EnumMethods(md, &e, td, chunk, 64, &got)
                         : md->lpVtbl->EnumMethodsWithName(md, &e, td, name, chunk, 64, &got);
        if (hr != S_OK || got == 0)
            break;
        for (ULONG i = 0; i < got && found < cap; i++)
            out[found++] = chunk[i];
        if (found == cap)
            break;
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    return found;
}

mdMethodDef shim_resolve_probe(IMetaDataImport *md, const shim_selector *sel)
{
    if (!md || !sel || !sel->type_name || !sel->method_name)
        return 0;
    mdTypeDef td;
    if (find_type(md, sel->type_name, &td))
        return 0;
    WCHAR name[NAME_CAP];
    if (shim_utf8_to_utf16(sel->method_name, name, NAME_CAP))
        return 0;
    /* static void(): DEFAULT calling convention, 0 parameters, VOID. */
    static const BYTE sig[] = {0x00, 0x00, 0x01};
    mdMethodDef mdef = 0;
    if (md->lpVtbl->FindMethod(md, td, name, sig, sizeof sig, &mdef) != S_OK)
        return 0;
    return mdef;
}
