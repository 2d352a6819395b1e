/*
 * libilmap, signatures: decode the metadata signatures of ECMA-335
 * Partition II.23.2 (method, field, property, local variable, method
 * instantiation and TypeSpec blobs), encode them back byte for byte, say
 * how the runtime hands each argument and return value to a profiler's
 * enter/leave hooks, and which kind of static storage a field has.
 *
 * The conventions of ilmap.h hold here (statuses, defined outputs on
 * failure, opaque handles with create/free, no global state). Every
 * signature is untrusted bytes: the decoder reads nothing outside
 * [blob, blob + size) whatever they say, bounds its nesting
 * (ILMAP_SIG_MAX_DEPTH), never aborts, and names what is wrong and the
 * offset where it found it. Pure C, no runtime needed: the blobs come from
 * any metadata reader (IMetaDataImport, System.Reflection.Metadata, a file).
 *
 * The grammar as implemented, the error model, the classification table
 * and the static kinds: doc/signatures.md.
 */
#ifndef ILMAP_SIG_H
#define ILMAP_SIG_H

#include "ilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Constants (ECMA-335 II.23.1.16 and II.23.2.1-3; doc/signatures.md#grammar)
 * ------------------------------------------------------------------ */

/** Element types: the byte that starts each type in a signature. */
#define ILMAP_SIG_ELEMENT_END 0x00u
#define ILMAP_SIG_ELEMENT_VOID 0x01u
#define ILMAP_SIG_ELEMENT_BOOLEAN 0x02u
#define ILMAP_SIG_ELEMENT_CHAR 0x03u
#define ILMAP_SIG_ELEMENT_I1 0x04u
#define ILMAP_SIG_ELEMENT_U1 0x05u
#define ILMAP_SIG_ELEMENT_I2 0x06u
#define ILMAP_SIG_ELEMENT_U2 0x07u
#define ILMAP_SIG_ELEMENT_I4 0x08u
#define ILMAP_SIG_ELEMENT_U4 0x09u
#define ILMAP_SIG_ELEMENT_I8 0x0Au
#define ILMAP_SIG_ELEMENT_U8 0x0Bu
#define ILMAP_SIG_ELEMENT_R4 0x0Cu
#define ILMAP_SIG_ELEMENT_R8 0x0Du
#define ILMAP_SIG_ELEMENT_STRING 0x0Eu
#define ILMAP_SIG_ELEMENT_PTR 0x0Fu         /**< unmanaged pointer to inner */
#define ILMAP_SIG_ELEMENT_BYREF 0x10u       /**< managed pointer to inner */
#define ILMAP_SIG_ELEMENT_VALUETYPE 0x11u   /**< token: a value type (enums too) */
#define ILMAP_SIG_ELEMENT_CLASS 0x12u       /**< token: a reference type */
#define ILMAP_SIG_ELEMENT_VAR 0x13u         /**< number: a type's generic parameter */
#define ILMAP_SIG_ELEMENT_ARRAY 0x14u       /**< inner, rank, sizes, lower bounds */
#define ILMAP_SIG_ELEMENT_GENERICINST 0x15u /**< inner (CLASS or VALUETYPE) and arguments */
#define ILMAP_SIG_ELEMENT_TYPEDBYREF 0x16u
#define ILMAP_SIG_ELEMENT_I 0x18u
#define ILMAP_SIG_ELEMENT_U 0x19u
#define ILMAP_SIG_ELEMENT_FNPTR 0x1Bu       /**< number: the nested signature's index */
#define ILMAP_SIG_ELEMENT_OBJECT 0x1Cu
#define ILMAP_SIG_ELEMENT_SZARRAY 0x1Du     /**< single dimension, zero-based array of inner */
#define ILMAP_SIG_ELEMENT_MVAR 0x1Eu        /**< number: a method's generic parameter */
#define ILMAP_SIG_ELEMENT_CMOD_REQD 0x1Fu   /**< token: required modifier of inner */
#define ILMAP_SIG_ELEMENT_CMOD_OPT 0x20u    /**< token: optional modifier of inner */
/** Runtime-only (never in a file): a pointer-sized TypeHandle follows. */
#define ILMAP_SIG_ELEMENT_INTERNAL 0x21u
/** Runtime-only: a byte (1 required, 0 optional), a pointer-sized
 *  TypeHandle, then the modified type. */
#define ILMAP_SIG_ELEMENT_CMOD_INTERNAL 0x22u
/** Not a type: the bit the three below share. A lone 0x40 is a defect. */
#define ILMAP_SIG_ELEMENT_MODIFIER 0x40u
/** Not a node: in a vararg call site, where the variable arguments begin
 *  (ilmap_sig_info.sentinel says where it stood). */
#define ILMAP_SIG_ELEMENT_SENTINEL 0x41u
/** Local variables only: the local is pinned (inner is its type). */
#define ILMAP_SIG_ELEMENT_PINNED 0x45u

/** Calling conventions: the low 4 bits of a signature's first byte. */
#define ILMAP_SIG_CALLCONV_DEFAULT 0x0u
#define ILMAP_SIG_CALLCONV_C 0x1u
#define ILMAP_SIG_CALLCONV_STDCALL 0x2u
#define ILMAP_SIG_CALLCONV_THISCALL 0x3u
#define ILMAP_SIG_CALLCONV_FASTCALL 0x4u
#define ILMAP_SIG_CALLCONV_VARARG 0x5u
#define ILMAP_SIG_CALLCONV_FIELD 0x6u
#define ILMAP_SIG_CALLCONV_LOCAL_SIG 0x7u
#define ILMAP_SIG_CALLCONV_PROPERTY 0x8u
#define ILMAP_SIG_CALLCONV_UNMANAGED 0x9u
#define ILMAP_SIG_CALLCONV_GENERICINST 0xAu /**< a MethodSpec's instantiation */
#define ILMAP_SIG_CALLCONV_MASK 0x0Fu
/** The high bits of the first byte. */
#define ILMAP_SIG_GENERIC 0x10u      /**< a generic parameter count follows */
#define ILMAP_SIG_HASTHIS 0x20u      /**< an instance method: `this` is passed */
#define ILMAP_SIG_EXPLICITTHIS 0x40u /**< `this` is the first parameter's type */

/** The TypeDefOrRef coded index is decoded to a full token of one of
 *  these tables (row in the low 24 bits). */
#define ILMAP_SIG_TABLE_TYPEREF 0x01u
#define ILMAP_SIG_TABLE_TYPEDEF 0x02u
#define ILMAP_SIG_TABLE_TYPESPEC 0x1Bu

/** Field attribute flags that ilmap_sig_static_kind() reads (II.23.1.5). */
#define ILMAP_SIG_FIELD_STATIC 0x0010u
#define ILMAP_SIG_FIELD_LITERAL 0x0040u
#define ILMAP_SIG_FIELD_HAS_RVA 0x0100u

/** The deepest nesting the decoder accepts: a type inside PTR, BYREF,
 *  SZARRAY, ARRAY, a GENERICINST argument or a FNPTR's signature counts
 *  one level each (modifiers and PINNED count none). Deeper is
 *  ILMAP_E_LIMIT with ILMAP_SIG_DEFECT_DEPTH (doc/signatures.md#depth). */
#define ILMAP_SIG_MAX_DEPTH 64u

/** "No node" in node-valued fields and outputs. */
#define ILMAP_SIG_NO_NODE 0xFFFFFFFFu
/** No local (ilmap_sig_wrap_locals()). */
#define ILMAP_SIG_NO_LOCAL 0xFFFFFFFFu
/** The most locals a method can address: ldloc's operand is 16 bits, and
 *  index 0xFFFF is not a local. */
#define ILMAP_SIG_MAX_LOCALS 0xFFFFu
/** ilmap_sig_info.sentinel when the signature has no SENTINEL. */
#define ILMAP_SIG_NO_SENTINEL 0xFFFFFFFFu

/* ---------------------------------------------------------------------
 * Decoding
 * ------------------------------------------------------------------ */

/** A decoded signature: immutable, any number of threads may read it. */
typedef struct ilmap_sig ilmap_sig;

/** What a signature is. */
typedef enum ilmap_sig_kind {
    ILMAP_SIG_KIND_NONE = 0,        /**< only for a NULL handle */
    ILMAP_SIG_KIND_METHOD = 1,      /**< MethodDefSig, MethodRefSig, StandAloneMethodSig */
    ILMAP_SIG_KIND_FIELD = 2,       /**< FieldSig */
    ILMAP_SIG_KIND_PROPERTY = 3,    /**< PropertySig */
    ILMAP_SIG_KIND_LOCALS = 4,      /**< LocalVarSig */
    ILMAP_SIG_KIND_METHOD_SPEC = 5, /**< a MethodSpec's instantiation */
    ILMAP_SIG_KIND_TYPE = 6         /**< one type: a TypeSpec (ILMAP_SIG_AS_TYPE) */
} ilmap_sig_kind;

/** Why a signature was refused; the offset each defect is reported at is
 *  in doc/signatures.md#errors. */
typedef enum ilmap_sig_defect {
    ILMAP_SIG_DEFECT_NONE = 0,
    /** An item runs past the end of the blob (offset: where it starts). */
    ILMAP_SIG_DEFECT_TRUNCATED = 1,
    /** A compressed integer starts with 111 or is not in its shortest form. */
    ILMAP_SIG_DEFECT_COMPRESSED = 2,
    /** The first byte is no calling convention, or has a flag its kind
     *  cannot have (GENERIC on a field, EXPLICITTHIS without HASTHIS). */
    ILMAP_SIG_DEFECT_CALLCONV = 3,
    /** A byte that starts no type where a type must start. */
    ILMAP_SIG_DEFECT_ELEMENT = 4,
    /** A TypeDefOrRef coded index with tag 3, or a row beyond 24 bits. */
    ILMAP_SIG_DEFECT_TOKEN = 5,
    /** A count larger than the bytes left could hold, or 0 where at least
     *  one is required (generic parameters, arguments, array rank), or more
     *  sizes or lower bounds than the rank. */
    ILMAP_SIG_DEFECT_COUNT = 6,
    /** A valid element where it may not stand: VOID other than as a return
     *  type or under PTR, PINNED outside local variables, SENTINEL outside a
     *  vararg parameter list or twice. */
    ILMAP_SIG_DEFECT_PLACEMENT = 7,
    /** Bytes after the signature's end (see ILMAP_SIG_PREFIX). */
    ILMAP_SIG_DEFECT_TRAILING = 8,
    /** Nesting deeper than ILMAP_SIG_MAX_DEPTH (status ILMAP_E_LIMIT). */
    ILMAP_SIG_DEFECT_DEPTH = 9,
    /** INTERNAL or CMOD_INTERNAL without ILMAP_SIG_INTERNAL_PTR4/8: the
     *  width of the runtime pointer that follows is unknown. */
    ILMAP_SIG_DEFECT_INTERNAL = 10
} ilmap_sig_defect;

/** A one-line description of a defect; never NULL, static storage. */
ILMAP_EXPORT const char *ilmap_sig_defect_str(ilmap_sig_defect defect);

/* Flags for ilmap_sig_decode(). */
/** The blob is one type (a TypeSpec's, a generic argument's), not a
 *  signature that starts with a calling convention. */
#define ILMAP_SIG_AS_TYPE (1u << 0)
/** The signature may be followed by other bytes: decode the prefix
 *  (ilmap_sig_get_size() says how long it is) instead of
 *  ILMAP_SIG_DEFECT_TRAILING. */
#define ILMAP_SIG_PREFIX (1u << 1)
/** Accept the runtime-only INTERNAL and CMOD_INTERNAL elements, whose
 *  runtime pointer is 4 (or 8) bytes, little-endian. Without either flag
 *  they are ILMAP_SIG_DEFECT_INTERNAL; both is ILMAP_E_INVALID_ARG. */
#define ILMAP_SIG_INTERNAL_PTR4 (1u << 2)
#define ILMAP_SIG_INTERNAL_PTR8 (1u << 3)

/**
 * Decodes one signature blob into a tree of type nodes.
 *
 * Without ILMAP_SIG_AS_TYPE the first byte says the kind: a method
 * (calling conventions DEFAULT, C, STDCALL, THISCALL, FASTCALL, VARARG,
 * UNMANAGED, with GENERIC, HASTHIS, EXPLICITTHIS), FIELD, PROPERTY
 * (HASTHIS allowed), LOCAL_SIG or GENERICINST (a MethodSpec). The whole
 * blob must be the signature unless ILMAP_SIG_PREFIX is given.
 *
 * @param blob, size    the signature; size must be <= UINT32_MAX.
 * @param flags         ILMAP_SIG_AS_TYPE, ILMAP_SIG_PREFIX,
 *                      ILMAP_SIG_INTERNAL_PTR4 or _PTR8.
 * @param out           receives the decoded signature (free it with
 *                      ilmap_sig_free()); NULL on failure.
 * @param defect        optional; why it was refused; ILMAP_SIG_DEFECT_NONE
 *                      on success, an argument error and ILMAP_E_NOMEM.
 * @param error_offset  optional; the offset in blob of the defect (always
 *                      <= size); ILMAP_NO_INDEX on success, an argument
 *                      error and ILMAP_E_NOMEM.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, blob NULL with size > 0,
 *         an unknown flag, both pointer widths, size > UINT32_MAX);
 *         ILMAP_E_FORMAT (a defect, see ilmap_sig_defect); ILMAP_E_LIMIT
 *         (ILMAP_SIG_DEFECT_DEPTH); ILMAP_E_NOMEM (nothing allocated is
 *         kept). The whole blob is checked before the one allocation.
 * Thread-safe; the result does not point into blob (which may be freed).
 * Grammar: doc/signatures.md#grammar; errors: #errors; the tree: #tree.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_decode(const uint8_t *blob, size_t size, unsigned flags,
                                           ilmap_sig **out, ilmap_sig_defect *defect,
                                           size_t *error_offset);

/** Frees a decoded signature and everything it holds; NULL is allowed.
 *  No other thread may be reading it. */
ILMAP_EXPORT void ilmap_sig_free(ilmap_sig *sig);

/** The signature's kind; ILMAP_SIG_KIND_NONE for NULL. Thread-safe. */
ILMAP_EXPORT ilmap_sig_kind ilmap_sig_get_kind(const ilmap_sig *sig);

/** How many bytes of the blob the signature took (the whole blob unless
 *  ILMAP_SIG_PREFIX); 0 for NULL. Thread-safe. */
ILMAP_EXPORT size_t ilmap_sig_get_size(const ilmap_sig *sig);

/** How many type nodes the signature has (indexes 0 .. count-1), nested
 *  signatures' included; 0 for NULL. Thread-safe (doc/signatures.md#tree). */
ILMAP_EXPORT uint32_t ilmap_sig_get_node_count(const ilmap_sig *sig);

/**
 * One signature's header. Signature 0 is the blob's own; each FNPTR node
 * has a nested method signature of its own, numbered from 1 in the order
 * they appear (its node's `number`). doc/signatures.md#tree.
 */
typedef struct ilmap_sig_info {
    uint32_t kind;          /**< an ilmap_sig_kind (nested ones: METHOD) */
    uint32_t callconv;      /**< the first byte: calling convention | GENERIC |
                                 HASTHIS | EXPLICITTHIS; TYPE: 0 */
    uint32_t generic_count; /**< GENERIC: the generic parameter count; else 0 */
    uint32_t count;         /**< parameters (METHOD, PROPERTY; `this` and the
                                 SENTINEL not counted), locals (LOCALS), type
                                 arguments (METHOD_SPEC); FIELD, TYPE: 0 */
    uint32_t sentinel;      /**< the index of the first parameter after a
                                 SENTINEL, or ILMAP_SIG_NO_SENTINEL */
    uint32_t type;          /**< return type (METHOD), property type, field
                                 type, the TYPE's type; else ILMAP_SIG_NO_NODE */
    uint32_t offset;        /**< where this signature starts in the blob */
} ilmap_sig_info;

/**
 * A signature's header (see ilmap_sig_info).
 * @param index  0 for the blob's signature, a FNPTR node's number for its.
 * @param info   receives it; zeroed, with type and sentinel ILMAP_SIG_NO_NODE
 *               and ILMAP_SIG_NO_SENTINEL, on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL pointer); ILMAP_E_NOT_FOUND
 *         (no such signature). Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_get_info(const ilmap_sig *sig, uint32_t index,
                                             ilmap_sig_info *info);

/**
 * Item i of signature `index` (see ilmap_sig_info.count): parameter i
 * (the SENTINEL is not an item), local i, or type argument i.
 * @param node  receives the item's root node; ILMAP_SIG_NO_NODE on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL pointer); ILMAP_E_NOT_FOUND
 *         (no such signature or item). Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_get_item(const ilmap_sig *sig, uint32_t index, uint32_t i,
                                             uint32_t *node);

/**
 * One node of the type tree. Which fields mean something depends on
 * element (the others are 0, inner ILMAP_SIG_NO_NODE):
 *  - inner: PTR, BYREF, SZARRAY, PINNED, ARRAY (the element type),
 *    CMOD_REQD, CMOD_OPT, CMOD_INTERNAL (the modified type), GENERICINST
 *    (its CLASS or VALUETYPE node);
 *  - token: CLASS, VALUETYPE, CMOD_REQD, CMOD_OPT: a full TypeDef (0x02),
 *    TypeRef (0x01) or TypeSpec (0x1B) token;
 *  - number: VAR, MVAR: the parameter's index; ARRAY: the rank;
 *    GENERICINST: the argument count; FNPTR: the nested signature's index
 *    for ilmap_sig_get_info(); CMOD_INTERNAL: 1 required, 0 optional;
 *  - size_count, lower_bound_count: ARRAY's sizes and lower bounds
 *    (ilmap_sig_get_array_sizes(), ilmap_sig_get_array_lower_bounds());
 *  - value: INTERNAL, CMOD_INTERNAL: the runtime pointer.
 * doc/signatures.md#tree.
 */
typedef struct ilmap_sig_node {
    uint32_t element;           /**< ILMAP_SIG_ELEMENT_* */
    uint32_t offset;            /**< of its first byte in the blob */
    uint32_t inner;
    uint32_t token;
    uint32_t number;
    uint32_t size_count;
    uint32_t lower_bound_count;
    uint32_t reserved;          /**< 0 */
    uint64_t value;
} ilmap_sig_node;

/**
 * @param node  receives node `index`; zeroed (inner ILMAP_SIG_NO_NODE) on
 *              failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL pointer); ILMAP_E_NOT_FOUND
 *         (index >= the node count). Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_get_node(const ilmap_sig *sig, uint32_t index,
                                             ilmap_sig_node *node);

/**
 * Argument i of a GENERICINST node.
 * @param arg  receives its root node; ILMAP_SIG_NO_NODE on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL pointer, node not a
 *         GENERICINST); ILMAP_E_NOT_FOUND (no such node or argument).
 * Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_get_generic_arg(const ilmap_sig *sig, uint32_t node,
                                                    uint32_t i, uint32_t *arg);

/**
 * An ARRAY node's sizes (unsigned) and lower bounds (signed), with the
 * buffer protocol of ilmap.h; there may be fewer of each than the rank.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED; ILMAP_E_INVALID_ARG (NULL sig or
 *         total, cap > 0 with out NULL, node not an ARRAY);
 *         ILMAP_E_NOT_FOUND (no such node). Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_get_array_sizes(const ilmap_sig *sig, uint32_t node,
                                                    size_t cap, size_t *total, uint32_t *out);
ILMAP_EXPORT ilmap_status ilmap_sig_get_array_lower_bounds(const ilmap_sig *sig, uint32_t node,
                                                           size_t cap, size_t *total,
                                                           int32_t *out);

/**
 * Encodes the signature again, in the shortest form of every compressed
 * integer: for a blob that decoded, exactly the bytes decoded (the prefix
 * with ILMAP_SIG_PREFIX). Bytes follow the buffer protocol of ilmap.h.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (the first cap bytes written);
 *         ILMAP_E_INVALID_ARG (sig or total NULL, cap > 0 with out NULL).
 * Thread-safe, allocation-free. doc/signatures.md#encode.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_encode(const ilmap_sig *sig, size_t cap, size_t *total,
                                           uint8_t *out);

/**
 * Encodes the type rooted at one node (ilmap_sig_get_item(),
 * ilmap_sig_info.type) on its own: the bytes it was decoded from, in the
 * shortest form of every compressed integer, as a TypeSpec blob takes it
 * (a profiler turns a method's return type into a token with
 * IMetaDataEmit::GetTokenFromTypeSpec). A FNPTR's nested signature and
 * custom modifiers come along. Buffer protocol of ilmap.h.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (the first cap bytes written);
 *         ILMAP_E_NOT_FOUND (no such node; *total 0); ILMAP_E_INVALID_ARG
 *         (sig or total NULL, out NULL with cap > 0; *total 0).
 * Thread-safe, allocation-free. doc/signatures.md#encode.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_encode_type(const ilmap_sig *sig, uint32_t node, size_t cap,
                                                size_t *total, uint8_t *out);

/**
 * The LocalVarSig of a wrapped method (ilmap_il_wrap_create(),
 * doc/il-maps.md#wrap): the method's own locals, unchanged and at their
 * indexes, then a local of its return type (none for void) and one of
 * class exception_type, with the buffer protocol of ilmap.h. The caller
 * turns the bytes into a token (IMetaDataEmit::GetTokenFromSig).
 *
 * @param method_sig      the method's signature (MethodDefSig).
 * @param locals          its LocalVarSig; NULL with size 0 when it has none.
 * @param exception_type  TypeDef, TypeRef or TypeSpec token (row not 0) of
 *                        System.Exception.
 * @param return_local    receives the return value's local index, or
 *                        ILMAP_SIG_NO_LOCAL for void (and on failure).
 * @param exception_local receives the exception's local index, or
 *                        ILMAP_SIG_NO_LOCAL on failure.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (the first cap bytes written; the
 *         indexes are set); ILMAP_E_INVALID_ARG (method_sig, total or an
 *         index pointer NULL, locals NULL with size > 0, out NULL with
 *         cap > 0, exception_type not a type token); the statuses of
 *         ilmap_sig_decode() for either blob, ILMAP_E_FORMAT also when
 *         method_sig is not a method's or locals not a LocalVarSig;
 *         ILMAP_E_UNSUPPORTED (a return type a local cannot hold boxed
 *         for End: byref, typed reference, pointer, function pointer;
 *         byref-like structs need the metadata, so the caller refuses
 *         those); ILMAP_E_LIMIT (more than ILMAP_SIG_MAX_LOCALS locals).
 *         On any error but ILMAP_E_TRUNCATED *total is 0.
 * Thread-safe; allocates while it works (ILMAP_E_NOMEM).
 */
ILMAP_EXPORT ilmap_status ilmap_sig_wrap_locals(const uint8_t *method_sig, size_t method_sig_size,
                                                const uint8_t *locals, size_t locals_size,
                                                uint32_t exception_type, size_t cap,
                                                size_t *total, uint8_t *out,
                                                uint32_t *return_local, uint32_t *exception_local);

/* ---------------------------------------------------------------------
 * How the runtime passes each value (doc/signatures.md#classification)
 * ------------------------------------------------------------------ */

/** The representation of an argument, return value, field or local in
 *  the memory the runtime hands to a profiler (the table of
 *  doc/signatures.md#classification, from the profiling API's
 *  "inspecting objects" rules; value types: #value-types). */
typedef enum ilmap_sig_repr {
    ILMAP_SIG_REPR_VOID = 0,          /**< no value (a void return) */
    ILMAP_SIG_REPR_PRIMITIVE = 1,     /**< the value itself, `size` bytes */
    ILMAP_SIG_REPR_VALUE_TYPE = 2,    /**< the value type's fields by its layout
                                           (token; size unknown from the signature) */
    ILMAP_SIG_REPR_OBJECT_ID = 3,     /**< an ObjectID (null allowed) */
    ILMAP_SIG_REPR_MANAGED_PTR = 4,   /**< BYREF: may point into the stack or into an object */
    ILMAP_SIG_REPR_UNMANAGED_PTR = 5, /**< PTR: never moved by the GC */
    ILMAP_SIG_REPR_OPAQUE_PTR = 6,    /**< FNPTR: a pointer-sized opaque value */
    ILMAP_SIG_REPR_TYPEDBYREF = 7,    /**< a managed pointer, then a pointer-sized
                                           opaque value (the type) */
    ILMAP_SIG_REPR_UNRESOLVED = 8     /**< VAR/MVAR without a type argument, or
                                           INTERNAL: the signature cannot tell */
} ilmap_sig_repr;

/** The role of a classified value. */
typedef enum ilmap_sig_role {
    ILMAP_SIG_ROLE_THIS = 0,   /**< the implicit `this` (HASTHIS), or the
                                    first parameter with EXPLICITTHIS */
    ILMAP_SIG_ROLE_PARAM = 1,  /**< parameter `index` (0-based, `this` excluded) */
    ILMAP_SIG_ROLE_RETURN = 2, /**< the return value */
    ILMAP_SIG_ROLE_VALUE = 3   /**< a field's, property's, local's or TYPE's value */
} ilmap_sig_role;

/** One classified value. */
typedef struct ilmap_sig_slot {
    const ilmap_sig *sig; /**< the signature that holds `node`: the classified
                               one, or a type argument's after substitution */
    uint32_t role;     /**< ilmap_sig_role */
    uint32_t index;    /**< PARAM: the parameter's index; VALUE: the local's;
                            else 0 */
    uint32_t repr;     /**< ilmap_sig_repr */
    uint32_t element;  /**< the element that decided repr, after modifiers,
                            PINNED and generic substitution (GENERICINST for
                            an instantiated value type or class) */
    uint32_t size;     /**< bytes: PRIMITIVE its size (I, U: the pointer size),
                            pointers the pointer size, TYPEDBYREF twice it,
                            OBJECT_ID the pointer size; VALUE_TYPE, VOID,
                            UNRESOLVED: 0 */
    uint32_t token;    /**< VALUE_TYPE: the value type's TypeDefOrRef token (a
                            GENERICINST's generic type's); OBJECT_ID of a
                            CLASS or a GENERICINST class: its token; else 0 */
    uint32_t node;     /**< the node that decided repr in `sig`
                            (ILMAP_SIG_NO_NODE for an implicit `this`) */
    uint32_t reserved; /**< 0 */
} ilmap_sig_slot;

/**
 * Type arguments for VAR and MVAR: each a decoded signature of kind TYPE
 * (decode a TypeSpec-style blob with ILMAP_SIG_AS_TYPE) or, for a whole
 * method instantiation, see method_spec. NULL arrays with count 0 mean
 * none: VAR i / MVAR i beyond the given ones classify UNRESOLVED.
 * The caller owns the signatures. doc/signatures.md#generics.
 */
typedef struct ilmap_sig_generics {
    const ilmap_sig *const *type_args; /**< VAR i: type_args[i] */
    size_t type_arg_count;
    const ilmap_sig *const *method_args; /**< MVAR i: method_args[i] */
    size_t method_arg_count;
    /** Optional: a decoded METHOD_SPEC whose item i is MVAR i; used when
     *  method_args is NULL. */
    const ilmap_sig *method_spec;
} ilmap_sig_generics;

/* Flags for ilmap_sig_classify() and ilmap_sig_classify_type(). */
/** The method's declaring type is a value type: the implicit `this` is a
 *  managed pointer, not an ObjectID (the signature cannot say). */
#define ILMAP_SIG_THIS_VALUE_TYPE (1u << 0)
/** The target's pointer size, if it is not the host's: 4 or 8 bytes. */
#define ILMAP_SIG_POINTER_4 (1u << 1)
#define ILMAP_SIG_POINTER_8 (1u << 2)

/**
 * Classifies every value of signature 0, in order: `this` (HASTHIS
 * without EXPLICITTHIS: an ObjectID, or a managed pointer with
 * ILMAP_SIG_THIS_VALUE_TYPE), each parameter (with EXPLICITTHIS the first
 * one has role THIS), then the return value; a PROPERTY: its parameters,
 * then its type (role VALUE); a FIELD or TYPE: one VALUE slot; LOCALS and
 * METHOD_SPEC: one VALUE slot per item. Slots follow the buffer protocol of ilmap.h.
 *
 * @param generics  optional (NULL: none); type arguments for VAR, MVAR.
 *                  A type argument that is itself VAR or MVAR is not
 *                  substituted again (UNRESOLVED).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED; ILMAP_E_INVALID_ARG (sig or total
 *         NULL, cap > 0 with out NULL, unknown flags, both pointer sizes, a
 *         NULL entry in a type argument array or one not of kind TYPE).
 * Thread-safe, allocation-free; the slots point at sig or at the type
 * arguments, which must outlive their use. doc/signatures.md#classification.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_classify(const ilmap_sig *sig,
                                             const ilmap_sig_generics *generics, unsigned flags,
                                             size_t cap, size_t *total, ilmap_sig_slot *out);

/**
 * Classifies one node of sig (any type in the tree: an array's element
 * type, a generic argument) as ilmap_sig_classify() would, role VALUE.
 * @param slot  receives it; zeroed (repr UNRESOLVED, node
 *              ILMAP_SIG_NO_NODE) on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (as ilmap_sig_classify());
 *         ILMAP_E_NOT_FOUND (no such node). Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_classify_type(const ilmap_sig *sig, uint32_t node,
                                                  const ilmap_sig_generics *generics,
                                                  unsigned flags, ilmap_sig_slot *slot);

/* ---------------------------------------------------------------------
 * Static fields (doc/signatures.md#statics)
 * ------------------------------------------------------------------ */

/** Where a field's value lives (doc/signatures.md#statics). */
typedef enum ilmap_sig_static {
    ILMAP_SIG_STATIC_NONE = 0,      /**< not static: an instance field */
    ILMAP_SIG_STATIC_LITERAL = 1,   /**< a constant: no storage at run time */
    ILMAP_SIG_STATIC_APPDOMAIN = 2, /**< a plain static */
    ILMAP_SIG_STATIC_THREAD = 3,    /**< System.ThreadStaticAttribute */
    ILMAP_SIG_STATIC_RVA = 4,       /**< ILMAP_SIG_FIELD_HAS_RVA: in the module's image */
    ILMAP_SIG_STATIC_CONTEXT = 5    /**< System.ContextStaticAttribute */
} ilmap_sig_static;

/**
 * A field's static kind from its Field table flags and the full type names
 * of its custom attributes ("System.ThreadStaticAttribute"; other names
 * are ignored): not static -> NONE; LITERAL -> LITERAL; HAS_RVA -> RVA;
 * ThreadStatic -> THREAD; ContextStatic -> CONTEXT; else APPDOMAIN.
 *
 * @param attribute_types  attribute_count names (NULL allowed with 0).
 * @param kind  receives it; ILMAP_SIG_STATIC_NONE on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (kind NULL, attribute_types NULL
 *         with a count, a NULL name); ILMAP_E_FORMAT (a static field with
 *         storage that claims two kinds: RVA and an attribute, or both
 *         attributes). Pure, thread-safe, allocation-free.
 *         doc/signatures.md#statics; CoreCLR never implemented context
 *         statics, see there.
 */
ILMAP_EXPORT ilmap_status ilmap_sig_static_kind(uint32_t field_flags,
                                                const char *const *attribute_types,
                                                size_t attribute_count, ilmap_sig_static *kind);

/** The kind's name: "none", "literal", "appdomain", "thread", "rva",
 *  "context"; "unknown" otherwise. Never NULL, static storage. */
ILMAP_EXPORT const char *ilmap_sig_static_str(ilmap_sig_static kind);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_SIG_H */
