/*
 * Argument and return-value reports (ILMAP_SHIM_ARGS): enter/leave hooks
 * with argument info for exactly the methods the selectors name, and one
 * {"type":"args",...} line per call at leave for the first
 * ILMAP_SHIM_ARGS_MAX calls of each (doc/shim.md#args).
 *
 * The values come from the slow-path hooks (SetEnterLeaveFunctionHooks3WithInfo
 * with COR_PRF_ENABLE_FUNCTION_ARGS, _RETVAL and _FRAME_INFO): the runtime
 * hands the hook an ELT info handle, GetFunctionEnter3Info turns it into
 * one memory range per argument (`this` first) and GetFunctionLeave3Info
 * into the return value's range. What the bytes of each range are comes
 * from the method's metadata signature, classified by libilmap
 * (ilmap-sig.h). The slow path's helper does not preserve the upper half
 * of vector registers (shim/FINDINGS.md, "ELT slow path"), which is why
 * only the named methods are hooked; a named method that takes or returns
 * a Vector128 would see it damaged, so methods with value-type arguments
 * or return values of System.Runtime.Intrinsics are refused.
 *
 * Decoded (values.c writes them): primitives, strings, null, enums of the
 * method's module (by their value__ field's type), byrefs to those and to
 * structs, pointers, one-dimension and multi-dimensional arrays of those,
 * of objects, of structs and of arrays, objects (a class `this` too) and
 * structs of the method's module by their fields (GetClassLayout along the
 * parent chain, to a nesting depth of 3); a struct `this` is reported by
 * its class, any other value as {"class":"?"}. Struct ClassIDs cannot be
 * asked for in the hooks, so shim_args_prepare learns them at the
 * FunctionIDMapper. With ILMAP_SHIM_STATICS (statics.h) each args line is
 * followed by the listed classes' static fields.
 *
 * The enter/leave hooks and the FunctionIDMapper are elt.c's (the mapper
 * hooks only the functions shim_args_wants answers for); the per-call
 * state lives in a small per-thread stack from enter to leave.
 */
#ifndef SHIM_VALUES_ARGS_H
#define SHIM_VALUES_ARGS_H

#include <stdatomic.h>
#include <stdint.h>

#include "com/elt.h"
#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "select/selection.h"

#define SHIM_ARGS_DEFAULT_MAX 64u

/* How one value is read: its classification, and what metadata adds to
 * it at registration (never at the hooks). */
typedef struct shim_args_desc {
    ilmap_sig_slot slot;
    /* VALUE_TYPE that is an enum of this module: the ELEMENT_TYPE of its
     * value__ field (its underlying integer); else 0. */
    uint32_t enum_element;
    /* ARRAY: its rank (from the signature); else 0. */
    uint32_t rank;
    /* The module whose metadata the slot's tokens are in. */
    ModuleID module;
} shim_args_desc;

/* How deep a value's description goes: the value, a BYREF's target or an
 * array's element type, that one's, ... (an int[][][] has four levels). */
#define SHIM_ARGS_LEVELS 4

/* One value of a signature: level[0] its own description, level[i + 1]
 * what level[i] points to or holds (a BYREF's target, an SZARRAY's or
 * ARRAY's element type), `levels` of them (at least 1). */
typedef struct shim_args_value {
    shim_args_desc level[SHIM_ARGS_LEVELS];
    size_t levels;
} shim_args_value;

/* One method named by ILMAP_SHIM_ARGS in a loaded module; pushed on a
 * list that only grows, never freed (hooks may be using it on any
 * thread); its module is cleared to 0 when the module unloads. */
typedef struct shim_args_target {
    atomic_uintptr_t module;
    mdMethodDef token;
    char name[320];       /* "Ns.Type::Method", JSON-safe */
    char type_name[256];  /* "Ns.Type", JSON-safe: a value type's `this` */
    ilmap_sig *sig;
    ilmap_sig_slot *slots; /* `this` (when has_this), parameters, return value */
    shim_args_value *values; /* one per slot */
    size_t slot_count;
    int has_this, value_this;
    int generic; /* a value typed by a generic parameter: read the call's type arguments */
    atomic_uint_least64_t calls;
    atomic_int prepared; /* shim_args_prepare ran */
    struct shim_args_target *next;
} shim_args_target;

/* The ClassID of a struct type (module, TypeDef or TypeRef), learned where the
 * runtime allows asking (the FunctionIDMapper), for the hooks, where it
 * does not (shim/FINDINGS.md); a list that only grows. */
typedef struct shim_args_class {
    ModuleID module;
    mdToken token; /* a TypeDef, or a TypeRef to another module's type */
    ClassID cls;
    /* An enum's underlying ELEMENT_TYPE (its value__ field's, read in the
     * defining module's metadata); else 0. */
    uint32_t enum_element;
    /* A generic value type's instantiation, named by a GENERICINST node
     * of a signature that lives as long as the process (a hooked
     * method's): that signature and node (token is the generic type's);
     * NULL for a plain type. */
    const ilmap_sig *sig;
    uint32_t node;
    /* An instantiation over the generic parameters of a hooked method's
     * body: that body's FunctionID (its mapper call gave the type
     * arguments); 0 when it does not depend on one. */
    FunctionID function;
    /* A generic struct field's instantiation inside a generic
     * instantiation (a Holder<int>'s S<T> field): that instantiation's
     * ClassID, token the FieldDef, module 0; else 0. */
    ClassID owner;
    struct shim_args_class *next;
} shim_args_class;

/* A loaded module (for finding another module's types by name); a list
 * that only grows, an unloaded module's entry cleared to 0. */
typedef struct shim_args_module {
    atomic_uintptr_t module;
    struct shim_args_module *next;
} shim_args_module;

struct shim_statics;

typedef struct shim_args {
    shim_selection selection;  /* ILMAP_SHIM_ARGS */
    uint32_t max_calls;        /* ILMAP_SHIM_ARGS_MAX */
    ICorProfilerInfo4 *info;
    _Atomic(shim_args_target *) targets;
    _Atomic(shim_args_class *) classes;
    _Atomic(shim_args_module *) modules;
    /* Called with each finished report line (a whole JSON object, no
     * newline), on the thread of the leave hook. */
    void (*emit)(void *ctx, const char *line);
    void *emit_ctx;
    atomic_uint_least64_t lines, skipped, refused;
    /* ILMAP_SHIM_STATICS (statics.h), or NULL: its lines follow each args
     * line; its classes are registered and learned with the methods. */
    struct shim_statics *statics;
} shim_args;

/* The event-mask bits the slow-path hooks need. */
DWORD shim_args_event_mask(void);

/* Parses ILMAP_SHIM_ARGS (spec) and ILMAP_SHIM_ARGS_MAX (max, 0:
 * default) into a; returns non-zero when nothing is selected. */
int shim_args_init(shim_args *a, const char *spec, uint32_t max);

/* ModuleLoadFinished: resolves the selectors in the module's metadata and
 * registers what they name. */
void shim_args_module_loaded(shim_args *a, ModuleID module, IMetaDataImport *md);
void shim_args_module_unloaded(shim_args *a, ModuleID module);

/* The registered method (module, token), or NULL. Lock-free. */
shim_args_target *shim_args_find(shim_args *a, ModuleID module, mdMethodDef token);

/* From the FunctionIDMapper, when t is hooked: learns the ClassIDs of the
 * struct types its values (and their fields, to the nesting depth) have,
 * which the hooks cannot ask for. Once per target. */
void shim_args_prepare(shim_args *a, shim_args_target *t);

/* From the FunctionIDMapper, for each body (FunctionID) of t: learns the
 * instantiations of generic structs t's values name over the body's own
 * generic parameters (the body's type arguments from GetFunctionInfo2). */
void shim_args_prepare_body(shim_args *a, shim_args_target *t, FunctionID function);

/* The slow-path hooks (elt.c hands them to the runtime); function is the
 * FunctionID, target what shim_args_find answered for it. */
void shim_args_enter(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt);
void shim_args_leave(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt);
void shim_args_tailcall(shim_args *a, shim_args_target *t);

#endif
