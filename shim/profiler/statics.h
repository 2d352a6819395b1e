/*
 * Static-field reports (ILMAP_SHIM_STATICS='Ns.Type;...'): at each leave
 * that gives an args line (args.h), on that thread and right after it,
 * one {"type":"statics",...} line per listed class with the value of
 * every static field that has storage (doc/shim.md#statics).
 *
 * A field's kind (appdomain, thread, rva, context) is libilmap's
 * ilmap_sig_static_kind from the field's flags and its custom
 * attributes, decided when the class's module loads; its type comes from
 * its FieldSig, classified by libilmap and described like an argument
 * (values.h). At the leave hook the value is found where the runtime
 * says (Get{AppDomain,Thread,RVA,Context}StaticAddress) and read as the
 * runtime keeps it (shim/FINDINGS.md, seventh round): primitives and
 * enums in place, references as an ObjectID, structs as the ObjectID of
 * their box, RVA data in place.
 *
 * The class's ClassID cannot be asked for inside the hooks (the runtime
 * refuses GetClassFromTokenAndTypeArgs there, FINDINGS sixth round), so
 * it is learned at the FunctionIDMapper, with the struct ClassIDs of the
 * argument reports (shim_statics_prepare). Generic classes are not
 * reported (their statics exist per instantiation).
 */
#ifndef SHIM_PROFILER_STATICS_H
#define SHIM_PROFILER_STATICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "profiler/args.h"

/* One static field with storage. */
typedef struct shim_statics_field {
    mdFieldDef token;
    char name[256]; /* JSON-safe */
    ilmap_sig_static kind;
    ilmap_sig *sig; /* its FieldSig (the value's slot points into it) */
    shim_args_value value;
    /* A value-type field whose type declares a size in metadata (an RVA
     * blob's type): that size and the type's JSON-safe name; else 0. */
    uint32_t blob_size;
    char blob_class[256];
    /* What GetStaticFieldInfo answered when the ClassID was learned
     * (COR_PRF_FIELD_* bits), -1 before. */
    int32_t runtime_kind;
} shim_statics_field;

/* One listed class found in a loaded module; a list that only grows,
 * never freed (hooks may read it on any thread); module cleared to 0 when
 * the module unloads. */
typedef struct shim_statics_class {
    atomic_uintptr_t module;
    mdTypeDef token;
    size_t index;   /* its place in ILMAP_SHIM_STATICS: lines come in that order */
    char name[256]; /* JSON-safe */
    shim_statics_field *fields;
    size_t field_count;
    atomic_uintptr_t cls; /* its ClassID, 0 until learned */
    struct shim_statics_class *next;
} shim_statics_class;

typedef struct shim_statics {
    char **names;   /* the listed classes' full names ("Ns.Outer+Inner") */
    char **modules; /* each one's module qualifier, NULL: any module */
    size_t count;
    _Atomic(shim_statics_class *) classes;
    atomic_uint_least64_t lines, incomplete, failed;
} shim_statics;

/* Parses ILMAP_SHIM_STATICS (spec: full type names separated by ';',
 * blanks around them ignored; "[Module]Ns.Type" only in the module whose
 * file name, without .dll or .exe, is Module). Returns non-zero when
 * nothing is listed (or memory ran out: logged). */
int shim_statics_init(shim_statics *s, const char *spec);

/* Frees what shim_statics_init allocated (the list, not registered
 * classes, which live as long as the process: hooks may read them). */
void shim_statics_free(shim_statics *s);

/* ModuleLoadFinished: registers the listed classes the module defines,
 * with their static fields. */
void shim_statics_module_loaded(shim_statics *s, ICorProfilerInfo4 *info, ModuleID module,
                                IMetaDataImport *md);
void shim_statics_module_unloaded(shim_statics *s, ModuleID module);

/* Outside the hooks (the FunctionIDMapper): learns the ClassIDs of the
 * registered classes that have none yet. */
void shim_statics_prepare(shim_statics *s, shim_args *a);

/* In the leave hook, after the args line of (method, call): one line per
 * registered class, handed to a->emit. */
void shim_statics_report(shim_statics *s, shim_args *a, const char *method, uint64_t call);

#endif
