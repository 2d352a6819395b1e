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
 * Decoded: primitives, strings, null, enums of the method's module (by
 * their value__ field's type), byrefs to those, pointers, one-dimension
 * arrays of those, objects (a class `this` too) and structs of the
 * method's module by their fields (GetClassLayout along the parent chain,
 * to a nesting depth of 3); a struct `this` is reported by its class, any
 * other value as {"class":"?"}. Struct ClassIDs cannot be asked for in the
 * hooks, so shim_args_prepare learns them at the FunctionIDMapper.
 *
 * The enter/leave hooks and the FunctionIDMapper are elt.c's (the mapper
 * hooks only the functions shim_args_wants answers for); the per-call
 * state lives in a small per-thread stack from enter to leave.
 */
#ifndef SHIM_PROFILER_ARGS_H
#define SHIM_PROFILER_ARGS_H

#include <stdatomic.h>
#include <stdint.h>

#include "com/elt.h"
#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "profiler/selection.h"

#define SHIM_ARGS_DEFAULT_MAX 64u

/* How one value is read: its classification, and what metadata adds to
 * it at registration (never at the hooks). */
typedef struct shim_args_desc {
    ilmap_sig_slot slot;
    /* VALUE_TYPE that is an enum of this module: the ELEMENT_TYPE of its
     * value__ field (its underlying integer); else 0. */
    uint32_t enum_element;
    /* The module whose metadata the slot's tokens are in. */
    ModuleID module;
} shim_args_desc;

/* One value of a signature: its own description, and for a BYREF the
 * pointed-to type's, for an SZARRAY the element type's (inner.slot.repr
 * VOID when there is none). */
typedef struct shim_args_value {
    shim_args_desc top, inner;
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
    atomic_uint_least64_t calls;
    atomic_int prepared; /* shim_args_prepare ran */
    struct shim_args_target *next;
} shim_args_target;

/* The ClassID of a struct type (module, TypeDef), learned where the
 * runtime allows asking (the FunctionIDMapper), for the hooks, where it
 * does not (shim/FINDINGS.md); a list that only grows. */
typedef struct shim_args_class {
    ModuleID module;
    mdToken token;
    ClassID cls;
    struct shim_args_class *next;
} shim_args_class;

typedef struct shim_args {
    shim_selection selection;  /* ILMAP_SHIM_ARGS */
    uint32_t max_calls;        /* ILMAP_SHIM_ARGS_MAX */
    ICorProfilerInfo4 *info;
    _Atomic(shim_args_target *) targets;
    _Atomic(shim_args_class *) classes;
    /* Called with each finished report line (a whole JSON object, no
     * newline), on the thread of the leave hook. */
    void (*emit)(void *ctx, const char *line);
    void *emit_ctx;
    atomic_uint_least64_t lines, skipped, refused;
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

/* The slow-path hooks (elt.c hands them to the runtime); function is the
 * FunctionID, target what shim_args_find answered for it. */
void shim_args_enter(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt);
void shim_args_leave(shim_args *a, shim_args_target *t, FunctionID function,
                     COR_PRF_ELT_INFO elt);
void shim_args_tailcall(shim_args *a, shim_args_target *t);

#endif
