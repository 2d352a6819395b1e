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
 * argument reports (shim_statics_prepare). A generic class (a ` in its
 * name) has statics per instantiation: its ClassIDs come from
 * ClassLoadFinished (shim_statics_class_loaded), one line each, in load
 * order, with their "type_args"; the type definition's own and the
 * canonical (__Canon) one get no line. On .NET 10 the runtime answers
 * CORPROF_E_DATAINCOMPLETE for every static of every instantiation
 * (shim/FINDINGS.md, eighth round).
 */
#ifndef SHIM_VALUES_STATICS_H
#define SHIM_VALUES_STATICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "values/args.h"

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

/* One ClassID of a listed generic class, as ClassLoadFinished announced
 * it; a list in load order that only grows, never freed. */
typedef struct shim_statics_inst {
    ClassID cls;
    /* Its type arguments as a JSON array of full names, JSON-safe. */
    char type_args[512];
    /* Not an instantiation a program can use (the generic type
     * definition's own ClassID, or the canonical one shared code runs
     * as, over System.__Canon): no line; what the runtime answers for its
     * fields is kept in hr (the last answer, per field). */
    int hidden;
    /* Per field of the class: GetStaticFieldInfo's answer for this
     * ClassID (-1 before), and the ClassID the field's value has when
     * its type depends on the type arguments (T: the type argument;
     * S<T>: that instantiation), else 0. */
    int32_t *runtime_kind;
    ClassID *field_cls;
    _Atomic(uint32_t) *hr;
    _Atomic(struct shim_statics_inst *) next;
} shim_statics_inst;

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
    /* A generic class ("Ns.Gen`1"): no single ClassID; its instantiations
     * in load order. */
    int generic;
    atomic_int insts_learned; /* the fields' plain struct types learned */
    /* GetClassFromTokenAndTypeArgs with no type arguments (the type
     * definition's own ClassID, asked for at the mapper, kept as a hidden
     * instantiation): its answer; open_asked once asked. */
    atomic_int open_asked;
    uint32_t open_hr;
    _Atomic(shim_statics_inst *) insts;
    struct shim_statics_class *next;
} shim_statics_class;

typedef struct shim_statics {
    char **names;   /* the listed classes' full names ("Ns.Outer+Inner") */
    char **modules; /* each one's module qualifier, NULL: any module */
    size_t count;
    _Atomic(shim_statics_class *) classes;
    atomic_uint_least64_t lines, incomplete, failed;
    /* Some listed name is generic (has a `): ClassLoadFinished needed. */
    int any_generic;
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

/* ClassLoadFinished (only asked for when any_generic): a ClassID of a
 * registered generic class is kept, with its type arguments' names and
 * what its fields need; any generic instantiation's generic struct fields
 * are learned for the value writer (shim_classes_learn_instantiation). */
void shim_statics_class_loaded(shim_statics *s, shim_args *a, ClassID cls);

/* Outside the hooks (the FunctionIDMapper): learns the ClassIDs of the
 * registered classes that have none yet. */
void shim_statics_prepare(shim_statics *s, shim_args *a);

/* In the leave hook, after the args line of (method, call): one line per
 * registered class, handed to a->emit. */
void shim_statics_report(shim_statics *s, shim_args *a, const char *method, uint64_t call);

#endif
