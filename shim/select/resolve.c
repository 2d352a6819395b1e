#include "select/resolve.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "base/log.h"
#include "base/text.h"

#define NAME_CAP 1024
#define MAX_NESTING 64

void shim_found_list_free(shim_found_list *l)
{
    if (!l)
        return;
    free(l->items);
    memset(l, 0, sizeof *l);
}

static int push(shim_found_list *l, mdMethodDef token, mdTypeDef type, size_t selector)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap : 64;
        if (l->cap) {
            if (cap > SIZE_MAX / 2 / sizeof *l->items)
                return -1;
            cap *= 2;
        }
        shim_found *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown)
            return -1;
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->count].token = token;
    l->items[l->count].type = type;
    l->items[l->count].selector = selector;
    l->count++;
    return 0;
}

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
        HRESULT hr = md->lpVtbl->FindTypeDefByName(md, name, enclosing, &td);
        if (hr != S_OK) {
            /* Most modules do not define the type: that is no failure. */
            if (hr != CLDB_E_RECORD_NOTFOUND)
                shim_log("FindTypeDefByName(%s) failed: 0x%08X; selector skipped in this module",
                         utf8, (unsigned)hr);
            return 1;
        }
        enclosing = td;
        part = plus ? plus + 1 : NULL;
    }
    *out = enclosing;
    return enclosing == CLR_MD_TOKEN_NIL;
}

/* The methods of td named by method_name ("*": all) onto out. */
static int methods_of(IMetaDataImport *md, mdTypeDef td, const char *method_name,
                      size_t selector, shim_found_list *out)
{
    int all = strcmp(method_name, "*") == 0;
    WCHAR name[NAME_CAP];
    if (!all && shim_utf8_to_utf16(method_name, name, NAME_CAP)) {
        shim_log("method name '%s' is not valid UTF-8", method_name);
        return 0;
    }
    HCORENUM e = NULL;
    int rc = 0;
    for (;;) {
        mdMethodDef chunk[64];
        ULONG got = 0;
        HRESULT hr = all ? md->lpVtbl->EnumMethods(md, &e, td, chunk, 64, &got)
                         : md->lpVtbl->EnumMethodsWithName(md, &e, td, name, chunk, 64, &got);
        if (FAILED(hr))
            shim_log("enumerating the methods named '%s' failed: 0x%08X; selector skipped in "
                     "this module", method_name, (unsigned)hr);
        if (hr != S_OK || got == 0)
            break;
        for (ULONG i = 0; i < got && i < 64 && rc == 0; i++)
            rc = push(out, chunk[i], td, selector);
        if (rc)
            break;
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    return rc;
}

int shim_resolve_selector(IMetaDataImport *md, const shim_selector *sel, size_t index,
                          shim_found_list *out)
{
    if (!md || !sel || !sel->type_name || !sel->method_name || !out || sel->ns_prefix)
        return 0;
    mdTypeDef td;
    if (find_type(md, sel->type_name, &td))
        return 0;
    return methods_of(md, td, sel->method_name, index, out);
}

int shim_namespace_matches(const char *prefix, const char *ns)
{
    if (!prefix || !ns || !*prefix)
        return 0;
    size_t n = strlen(prefix);
    return strncmp(ns, prefix, n) == 0 && (ns[n] == '\0' || ns[n] == '.');
}

/* The UTF-8 full name of one TypeDef row as GetTypeDefProps gives it. */
static int typedef_name(IMetaDataImport *md, mdTypeDef td, char *out, size_t cap)
{
    WCHAR small[256];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    out[0] = '\0';
    HRESULT hr = md->lpVtbl->GetTypeDefProps(md, td, small, 256, &len, &flags, &extends);
    if (FAILED(hr))
        return 1;
    if (len <= 256) {
        shim_utf16_to_utf8(small, len, out, cap);
        return 0;
    }
    WCHAR *big = malloc((size_t)len * sizeof *big);
    if (!big)
        return 1;
    ULONG len2 = 0;
    hr = md->lpVtbl->GetTypeDefProps(md, td, big, len, &len2, &flags, &extends);
    int rc = FAILED(hr);
    if (!rc)
        shim_utf16_to_utf8(big, len2 < len ? len2 : len, out, cap);
    free(big);
    return rc;
}

/* The chain of enclosing types, outermost first; returns its length (0 on
 * failure). */
static size_t nesting_chain(IMetaDataImport *md, mdTypeDef td, mdTypeDef *chain, size_t cap)
{
    mdTypeDef rev[MAX_NESTING];
    size_t n = 0;
    rev[n++] = td;
    while (n < MAX_NESTING) {
        mdTypeDef enclosing = CLR_MD_TOKEN_NIL;
        if (md->lpVtbl->GetNestedClassProps(md, rev[n - 1], &enclosing) != S_OK ||
            enclosing == CLR_MD_TOKEN_NIL)
            break;
        rev[n++] = enclosing;
    }
    if (n > cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        chain[i] = rev[n - 1 - i];
    return n;
}

void shim_type_full_name(IMetaDataImport *md, mdTypeDef td, char *out, size_t cap)
{
    if (!out || cap == 0)
        return;
    out[0] = '\0';
    mdTypeDef chain[MAX_NESTING];
    size_t n = md ? nesting_chain(md, td, chain, MAX_NESTING) : 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        char part[NAME_CAP];
        if (typedef_name(md, chain[i], part, sizeof part))
            break;
        size_t len = strlen(part);
        if (at + (i ? 1 : 0) + len + 1 > cap)
            break;
        if (i)
            out[at++] = '+';
        memcpy(out + at, part, len + 1);
        at += len;
    }
    if (!out[0] && cap >= 2) {
        out[0] = '?';
        out[1] = '\0';
    }
}

/* The namespace of a TypeDef: that of its outermost enclosing type. */
static int type_namespace(IMetaDataImport *md, mdTypeDef td, char *out, size_t cap)
{
    mdTypeDef chain[MAX_NESTING];
    size_t n = nesting_chain(md, td, chain, MAX_NESTING);
    if (n == 0 || typedef_name(md, chain[0], out, cap))
        return 1;
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = '\0';
    else
        out[0] = '\0';
    return 0;
}

int shim_resolve_all(IMetaDataImport *md, const shim_selection *s, shim_found_list *out)
{
    if (!md || !s || !out)
        return 0;
    int any_ns = 0;
    for (size_t i = 0; i < s->count; i++) {
        if (s->items[i].ns_prefix) {
            any_ns = 1;
        } else if (shim_resolve_selector(md, &s->items[i], i, out)) {
            return -1;
        }
    }
    if (!any_ns)
        return 0;
    HCORENUM e = NULL;
    int rc = 0;
    while (rc == 0) {
        mdTypeDef chunk[64];
        ULONG got = 0;
        HRESULT hr = md->lpVtbl->EnumTypeDefs(md, &e, chunk, 64, &got);
        if (hr != S_OK || got == 0)
            break;
        for (ULONG t = 0; t < got && t < 64 && rc == 0; t++) {
            char ns[NAME_CAP];
            if (type_namespace(md, chunk[t], ns, sizeof ns))
                continue;
            for (size_t i = 0; i < s->count && rc == 0; i++) {
                const shim_selector *sel = &s->items[i];
                if (sel->ns_prefix && sel->method_name &&
                    shim_namespace_matches(sel->type_name, ns))
                    rc = methods_of(md, chunk[t], sel->method_name, i, out);
            }
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    return rc;
}

mdMethodDef shim_resolve_probe(IMetaDataImport *md, const shim_selector *sel)
{
    if (!md || !sel || !sel->type_name || !sel->method_name || sel->ns_prefix)
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
    HRESULT hr = md->lpVtbl->FindMethod(md, td, name, sig, sizeof sig, &mdef);
    if (hr != S_OK) {
        if (hr != CLDB_E_RECORD_NOTFOUND)
            shim_log("FindMethod(%s) for the probe failed: 0x%08X; no probe in this module",
                     sel->method_name, (unsigned)hr);
        return 0;
    }
    return mdef;
}

/* Methods without IL: abstract, P/Invoke, internal call, runtime or
 * native implementation, or no RVA. ReJIT has nothing to work on there. */
#define CLR_MD_ABSTRACT 0x0400u
#define CLR_MD_PINVOKE_IMPL 0x2000u
#define CLR_MI_CODE_TYPE_MASK 0x0003u
#define CLR_MI_INTERNAL_CALL 0x1000u

HRESULT shim_method_info_get(IMetaDataImport *md, mdMethodDef token, shim_method_info *out)
{
    WCHAR name[512];
    ULONG len = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "?");
    HRESULT hr = md->lpVtbl->GetMethodProps(md, token, &out->type, name, 512, &len, &out->attr,
                                            &out->sig, &out->sig_size, &out->rva, &out->impl);
    if (hr == S_OK)
        shim_utf16_to_utf8(name, len < 512 ? len : 512, out->name, sizeof out->name);
    return hr;
}

int shim_method_props(IMetaDataImport *md, mdMethodDef token, char *method, size_t cap,
                      int *has_il)
{
    shim_method_info mi;
    if (has_il)
        *has_il = 0;
    HRESULT hr = shim_method_info_get(md, token, &mi);
    snprintf(method, cap, "%s", mi.name);
    if (hr != S_OK) {
        shim_log("GetMethodProps(0x%08X) failed: 0x%08X", (unsigned)token, (unsigned)hr);
        return 1;
    }
    if (has_il)
        *has_il = mi.rva != 0 && !(mi.attr & (CLR_MD_ABSTRACT | CLR_MD_PINVOKE_IMPL)) &&
                  (mi.impl & CLR_MI_CODE_TYPE_MASK) == 0 && !(mi.impl & CLR_MI_INTERNAL_CALL);
    return 0;
}
