/*
 * The value writer shared by argument reports (args.c) and static-field
 * reports (statics.c): values as JSON in the report's formats
 * (doc/shim.md#args), read from memory the runtime hands over, with what
 * metadata says about their type. Runs inside the enter/leave hooks: every
 * runtime call made here is one the runtime answers there
 * (shim/FINDINGS.md, sixth round), and a failure is logged once per kind
 * and the value written as {"class":"?"}.
 */
#ifndef SHIM_VALUES_VALUES_H
#define SHIM_VALUES_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "values/args.h"
#include "base/log.h"

/* Objects and structs nested deeper than this are written by class only
 * (the top-level value is depth 1). */
#define SHIM_VALUES_MAX_DEPTH 3
/* Type arguments read per generic class or method. */
#define SHIM_VALUES_MAX_TYPE_ARGS 16u

/* Growable text; on allocation failure `failed` is set and later puts do
 * nothing. Zero-initialise; free(s) when done. */
typedef struct shim_text {
    char *s;
    size_t len, cap;
    int failed;
} shim_text;

void shim_text_put(shim_text *t, const char *s, size_t n);
void shim_text_puts(shim_text *t, const char *s);
void shim_text_printf(shim_text *t, const char *fmt, ...) SHIM_PRINTF(2, 3);

/* Logs once per bit (each bit one kind of failure) with the "args:"
 * prefix. */
void shim_values_log_once(unsigned bit, const char *fmt, ...) SHIM_PRINTF(2, 3);

/* The module's metadata (release it), or NULL. */
IMetaDataImport *shim_values_metadata(shim_args *a, ModuleID module);

/* The full name of a TypeDef or TypeRef token of md ("?" when unknown). */
void shim_values_type_name(IMetaDataImport *md, mdToken tok, char *out, size_t cap);

/* The size of a primitive element type; 0 for any other. */
size_t shim_values_primitive_size(uint32_t element);

/* What metadata adds to one classified value of module (enum underlying
 * types, array ranks, a BYREF's target, an array's element type, to
 * SHIM_ARGS_LEVELS levels). */
void shim_values_describe(IMetaDataImport *md, ModuleID module, const ilmap_sig_slot *slot,
                          shim_args_value *v);

/* One value described by d[0] (d[1..levels): what it points to or holds,
 * as in shim_args_value) from length bytes at p; depth 1 for a top-level
 * value. */
void shim_values_put(shim_args *a, shim_text *t, const shim_args_desc *d, size_t levels,
                     const void *p, size_t length, int depth);

/* v's value from the range [at, at + length). */
void shim_values_put_range(shim_args *a, shim_text *t, const shim_args_value *v, UINT_PTR at,
                           ULONG length);

/* A value whose type is the runtime class cls (a generic parameter's
 * type argument) from at most length bytes at p. */
void shim_values_put_typed(shim_args *a, shim_text *t, ClassID cls, const void *p,
                           size_t length, int depth);

/* How many bytes a value of runtime class cls takes in an array or a
 * field (an ObjectID for a reference type); 0 when unknown. */
size_t shim_values_typed_size(shim_args *a, ClassID cls);

/* The array object obj (rank 0: one dimension) whose elements are of
 * runtime class elem, as shim_values_put writes arrays. */
void shim_values_put_typed_array(shim_args *a, shim_text *t, ObjectID obj, uint32_t rank,
                                 ClassID elem, int depth);

/* Is the slot a generic parameter (its node VAR or MVAR)? Its element
 * and index in *kind, *index. */
int shim_values_var_of(const ilmap_sig_slot *s, uint32_t *kind, uint32_t *index);

/* An object by its runtime class (strings as strings, boxes as their
 * value type's fields). */
void shim_values_put_object(shim_args *a, shim_text *t, ObjectID obj, int depth);

#endif
