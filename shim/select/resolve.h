/* Names -> metadata tokens in one module, through IMetaDataImport. */
#ifndef SHIM_SELECT_RESOLVE_H
#define SHIM_SELECT_RESOLVE_H

#include <stddef.h>

#include "com/metadata.h"
#include "select/selection.h"

/* One method a selector names in a module. */
typedef struct shim_found {
    mdMethodDef token;
    mdTypeDef type;  /* its type (for the display name) */
    size_t selector; /* index in the selection */
} shim_found;

/* A growable list; no limit but memory. */
typedef struct shim_found_list {
    shim_found *items;
    size_t count, cap;
} shim_found_list;

void shim_found_list_free(shim_found_list *l);

/* Appends the methodDefs sel names in this module (all overloads; "*" = all
 * methods of the type; a namespace selector every type in the namespace
 * prefix, nested types included). Returns 0, or -1 when memory ran out
 * (what was found so far stays in out). */
int shim_resolve_selector(IMetaDataImport *md, const shim_selector *sel, size_t index,
                          shim_found_list *out);

/* Every selector of s in this module, the namespace selectors with one
 * pass over the module's TypeDefs. Returns 0 or -1 (out of memory). */
int shim_resolve_all(IMetaDataImport *md, const shim_selection *s, shim_found_list *out);

/* Does namespace ns (UTF-8) fall under the prefix: equal to it, or
 * starting with prefix + "."? */
int shim_namespace_matches(const char *prefix, const char *ns);

/* What GetMethodProps says of a method, its name in UTF-8 (unescaped,
 * cut to the buffer when longer). */
typedef struct shim_method_info {
    mdTypeDef type;
    char name[1024];
    DWORD attr, impl;
    ULONG rva;
    PCCOR_SIGNATURE sig; /* the metadata's own bytes; may be NULL */
    ULONG sig_size;
} shim_method_info;

/* Fills *out (zeroed first, name "?") for method token; returns the
 * call's HRESULT. The one place that calls GetMethodProps. */
HRESULT shim_method_info_get(IMetaDataImport *md, mdMethodDef token, shim_method_info *out);

/* The name of method token (UTF-8, unescaped; "?" when the metadata
 * cannot say) into method[0, cap), and in *has_il (optional) whether it
 * has an IL body a ReJIT could replace: an RVA, not abstract, not a
 * P/Invoke, IL code type, not an internal call. Returns 0, or non-zero
 * when GetMethodProps failed (then *has_il is 0). */
int shim_method_props(IMetaDataImport *md, mdMethodDef token, char *method, size_t cap,
                      int *has_il);

/* "Ns.Outer+Inner" of a TypeDef, UTF-8, JSON-unescaped; "?" on failure. */
void shim_type_full_name(IMetaDataImport *md, mdTypeDef td, char *out, size_t cap);

/* The probe: a method named by sel with signature static void(). 0 when
 * absent from this module. */
mdMethodDef shim_resolve_probe(IMetaDataImport *md, const shim_selector *sel);

#endif
