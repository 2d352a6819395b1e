/* Names -> metadata tokens in one module, through IMetaDataImport. */
#ifndef SHIM_RESOLVE_H
#define SHIM_RESOLVE_H

#include <stddef.h>

#include "com/metadata.h"
#include "selection.h"

/* The methodDefs sel names in this module (all overloads; "*" = all
 * methods of the type), up to cap. Returns how many were found (0 when
 * the type or method is not in this module). */
size_t shim_resolve_methods(IMetaDataImport *md, const shim_selector *sel, mdMethodDef *out,
                            size_t cap);

/* The probe: a method named by sel with signature static void(). 0 when
 * absent from this module. */
mdMethodDef shim_resolve_probe(IMetaDataImport *md, const shim_selector *sel);

#endif
