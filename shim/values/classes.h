/*
 * Types for the value writer (values.h): metadata facts about a type and
 * the ClassIDs of struct types. The runtime refuses
 * GetClassFromTokenAndTypeArgs inside the enter/leave hooks
 * (shim/FINDINGS.md, sixth round), so the ClassIDs a hooked method's
 * values need are learned at the FunctionIDMapper (shim_classes_learn_*)
 * and kept on an append-only list that the hooks read without locks
 * (shim_classes_of, _struct, _enum). Three kinds are learned: structs of
 * the method's module (TypeDefs), value types of other modules (TypeRefs,
 * found by full name among the loaded modules' TypeDefs: the runtime does
 * not resolve TypeRefs, FINDINGS seventh round), generic struct
 * instantiations a hooked method's signature names with non-generic type
 * arguments (or over its body's own parameters), those the instance
 * fields of the learned types have (kept per field), and, announced by
 * ClassLoadFinished, those a generic instantiation's instance fields have
 * over its own type parameters (kept per instantiation and field).
 */
#ifndef SHIM_VALUES_CLASSES_H
#define SHIM_VALUES_CLASSES_H

#include <stdint.h>

#include "com/info.h"
#include "com/metadata.h"
#include "ilmap-sig.h"
#include "values/args.h"

/* Is the TypeDef a value type (extends System.ValueType or System.Enum)? */
int shim_classes_is_value_type(IMetaDataImport *md, mdTypeDef td);

/* Is the slot a value type of System.Runtime.Intrinsics or
 * System.Numerics (which the slow-path hooks would damage)? */
int shim_classes_vector_slot(IMetaDataImport *md, const ilmap_sig_slot *s);

/* The underlying integer's ELEMENT_TYPE of an enum TypeDef of md (its
 * value__ field's type); 0 when td is no such enum. */
uint32_t shim_classes_enum_element(IMetaDataImport *md, mdToken td);

/* Lookups (lock-free; any thread, the hooks included). The learned
 * ClassID of a plain type (module, TypeDef or TypeRef), or 0. */
ClassID shim_classes_of(shim_args *a, ModuleID module, mdToken token);

/* The learned ClassID of the generic struct instantiation an instance
 * field (module, FieldDef) of a learned type has (a KeyValuePair<int,
 * string> field), or 0. */
ClassID shim_classes_field(shim_args *a, ModuleID module, mdFieldDef field);

/* The ClassID a struct description names: a plain struct's, or a generic
 * instantiation's learned for its signature node; 0 when not learned. */
ClassID shim_classes_struct(shim_args *a, const shim_args_desc *d);

/* Is d a struct whose ClassID was learned (so that its fields can be read
 * in the hooks)? */
int shim_classes_known(shim_args *a, const shim_args_desc *d);

/* The underlying integer's ELEMENT_TYPE of d when it is an enum (of its
 * module, from d; of another module, learned with its ClassID); else 0. */
uint32_t shim_classes_enum(shim_args *a, const shim_args_desc *d);

/* Outside the hooks (the FunctionIDMapper): learns the ClassID of a
 * struct type of module (a TypeDef, or another module's value type by a
 * TypeRef) and of the struct types of its fields, to the nesting depth. */
void shim_classes_learn_type(shim_args *a, IMetaDataImport *md, ModuleID module, mdToken token,
                             int value_type, int depth);

/* shim_classes_learn_type for every level of v that is a struct or a
 * class; with lasting (v's signature lives as long as the process: a
 * hooked method's), also the instantiations of generic structs it names
 * with non-generic type arguments. */
void shim_classes_learn_value(shim_args *a, IMetaDataImport *md, const shim_args_value *v,
                              int depth, int lasting);

/* A hooked body's generic context: its FunctionID and the type arguments
 * of its class (VAR i) and its method (MVAR i), as GetFunctionInfo2
 * answers at the mapper (shared code: the canonical ones). */
typedef struct shim_classes_context {
    FunctionID function;
    const ClassID *of_class, *of_method;
    uint32_t classes, methods;
} shim_classes_context;

/* At the mapper, for one body of a hooked method: the instantiations of
 * generic structs v names over the body's own generic parameters
 * (KeyValuePair<T,int>), kept for that body. */
void shim_classes_learn_body(shim_args *a, IMetaDataImport *md, const shim_args_value *v,
                             const shim_classes_context *context);

/* The body whose values this thread is writing (the hooks set it before
 * reading a call's values), for shim_classes_struct's per-body
 * instantiations; 0: none. */
void shim_classes_set_call(FunctionID function);

/* The learned ClassID of the generic struct instantiation the instance
 * field (a FieldDef) has inside the generic instantiation owner (a
 * Holder<int>'s S<T> field: S<int>), or 0. Lock-free. */
ClassID shim_classes_field_in(shim_args *a, ClassID owner, mdFieldDef field);

/* Outside the hooks: the ClassID of the generic value type instantiated
 * at the GENERICINST slot s of module's metadata md, its VAR i taken from
 * of_class[i] (the enclosing instantiation's type arguments); 0 when it
 * cannot be had. */
ClassID shim_classes_instance(shim_args *a, IMetaDataImport *md, ModuleID module,
                              const ilmap_sig_slot *s, const ClassID *of_class,
                              uint32_t classes);

/* Are some of the n type arguments not types (the generic parameters a
 * generic type definition's own ClassID answers)? */
int shim_classes_is_open(shim_args *a, const ClassID *args, uint32_t n);

/* Outside the hooks (ClassLoadFinished): for a generic instantiation cls,
 * the ClassIDs of the generic struct instantiations its own instance
 * fields have over its type arguments, kept per (cls, field)
 * (shim_classes_field_in). */
void shim_classes_learn_instantiation(shim_args *a, ClassID cls);

/* Calls fn(context, field, slot) for each instance field of td (named
 * name, when name is not NULL) whose signature decodes as a field
 * signature and classifies; the slot lives only during the call. Failures
 * of the metadata calls end the walk early. */
typedef void (*shim_classes_field_fn)(void *context, mdFieldDef field, const ilmap_sig_slot *slot);
void shim_classes_instance_fields(IMetaDataImport *md, mdTypeDef td, const char *name,
                                  shim_classes_field_fn fn, void *context);

/* GetClassIDInfo2 of cls with its checks: 0 with the module, the TypeDef
 * and the type arguments (*n of them into args, which has room for
 * SHIM_VALUES_MAX_TYPE_ARGS);
 * -1 (all zeroed) when the call fails or answers no TypeDef of a module. */
int shim_classes_id_info(shim_args *a, ClassID cls, ModuleID *module, mdTypeDef *td,
                         ClassID *args, ULONG32 *n);

#endif
