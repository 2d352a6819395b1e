/*
 * libilmap, IL side: decode ECMA-335 IL, parse method bodies, build the
 * COR_IL_MAP of an edit, and rewrite a method body with insertions.
 *
 * The conventions of ilmap.h hold here (statuses, defined outputs on
 * failure, no global state). Every function that reads IL or a method
 * body takes untrusted bytes: it reads nothing outside [ptr, ptr + size)
 * whatever the bytes say, and reports what is wrong with a status.
 *
 * Sources: the opcode table is libilmap's own, written from ECMA-335
 * Partition III (one-byte opcodes 0x00-0xE0, two-byte opcodes 0xFE 0x00-
 * 0xFE 0x1E, switch = 1 + 4 + 4n bytes); the body format is ECMA-335
 * II.25.4 (doc/profiling-abi.md#il-body); the map convention is the CLR
 * Instrumentation Engine's (doc/il-maps.md#rewriter-convention): one entry per
 * original instruction, its new offset at the first byte injected before
 * it, so a breakpoint on that line stops before the probe.
 */
#ifndef ILMAP_IL_H
#define ILMAP_IL_H

#include "ilmap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Instructions
 * ------------------------------------------------------------------ */

/** What follows an opcode (ECMA-335 III.1.2, operand types). */
typedef enum ilmap_il_operand {
    ILMAP_IL_NONE = 0,     /**< no operand */
    ILMAP_IL_INT8 = 1,     /**< 1 byte: ldc.i4.s, ldarg.s and friends, unaligned., no. */
    ILMAP_IL_INT16 = 2,    /**< 2 bytes: ldarg, ldloc, starg ... (0xFE forms) */
    ILMAP_IL_INT32 = 3,    /**< 4 bytes: ldc.i4, ldc.r4 */
    ILMAP_IL_INT64 = 4,    /**< 8 bytes: ldc.i8, ldc.r8 */
    ILMAP_IL_TOKEN = 5,    /**< 4-byte metadata token: call, ldfld, ldstr ... */
    ILMAP_IL_BRANCH8 = 6,  /**< 1-byte signed delta from the next instruction */
    ILMAP_IL_BRANCH32 = 7, /**< 4-byte signed delta from the next instruction */
    ILMAP_IL_SWITCH = 8    /**< u32 count n, then n 4-byte signed deltas */
} ilmap_il_operand;

/** One decoded instruction. */
typedef struct ilmap_il_instr {
    uint32_t offset;     /**< of its first byte (the 0xFE prefix of a two-byte opcode) */
    uint32_t length;     /**< opcode and operand bytes */
    uint16_t opcode;     /**< 0x00-0xE0, or 0xFE00 | second byte */
    uint8_t operand;     /**< an ilmap_il_operand */
    uint8_t opcode_size; /**< 1 or 2 */
    uint32_t target;     /**< BRANCH8/BRANCH32: the absolute target offset;
                              SWITCH: the number of targets; otherwise 0 */
} ilmap_il_instr;

/**
 * Decodes the instruction at code[offset]. A branch's target must lie in
 * [0, code_size) (whether it is an instruction start needs the whole
 * stream: ilmap_il_decode()); a switch's targets are checked the same way.
 *
 * @param out receives the instruction; zeroed on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (code NULL, out NULL, offset >=
 *         code_size, code_size > UINT32_MAX); ILMAP_E_IL_OPCODE (no such
 *         opcode); ILMAP_E_IL_TRUNCATED (the operand runs past code_size);
 *         ILMAP_E_IL_BRANCH (a target outside [0, code_size)).
 * Pure function, thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_il_decode_one(const uint8_t *code, size_t code_size, size_t offset,
                                              ilmap_il_instr *out);

/**
 * Target `index` of a switch decoded by ilmap_il_decode_one() from the
 * same code: the absolute offset.
 * @param target receives it; 0 on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (a NULL pointer, sw not a switch,
 *         index >= sw->target, sw not inside code); ILMAP_E_IL_BRANCH (the
 *         target is outside [0, code_size)).
 */
ILMAP_EXPORT ilmap_status ilmap_il_switch_target(const uint8_t *code, size_t code_size,
                                                 const ilmap_il_instr *sw, uint32_t index,
                                                 uint32_t *target);

/**
 * Decodes a whole code stream and checks it: every byte belongs to an
 * instruction, the last one ends exactly at code_size, and every branch
 * and switch target is an instruction start. The instructions are copied
 * to the caller's out in offset order with the buffer protocol (ilmap.h):
 * *total receives the instruction count, the first min(cap, total) are
 * written; the caller owns out. The whole stream is checked whatever cap
 * is.
 *
 * @param bad_offset optional; the offset of the offending instruction,
 *        or ILMAP_NO_INDEX.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap < total: the first cap
 *         instructions written); ILMAP_E_INVALID_ARG (total NULL, code
 *         NULL with code_size > 0, cap > 0 with out NULL, code_size >
 *         UINT32_MAX); ILMAP_E_IL_OPCODE; ILMAP_E_IL_TRUNCATED;
 *         ILMAP_E_IL_BRANCH; ILMAP_E_NOMEM (a bit per code byte marks
 *         instruction starts). On any other failure than
 *         ILMAP_E_TRUNCATED, *total is 0 and nothing is written.
 * Thread-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_il_decode(const uint8_t *code, size_t code_size, size_t cap,
                                          size_t *total, ilmap_il_instr *out, size_t *bad_offset);

/**
 * The instruction start offsets of a code stream, checked as by
 * ilmap_il_decode(), with the same buffer protocol, statuses and
 * guarantees (ILMAP_E_TRUNCATED for a short buffer): what
 * ilmap_edits_build() takes.
 */
ILMAP_EXPORT ilmap_status ilmap_il_starts(const uint8_t *code, size_t code_size, size_t cap,
                                          size_t *total, uint32_t *starts, size_t *bad_offset);

/* ---------------------------------------------------------------------
 * Method bodies (ECMA-335 II.25.4)
 * ------------------------------------------------------------------ */

/** Fat header flags (the low 12 bits of its first word). */
#define ILMAP_IL_FORMAT_TINY 0x2u
#define ILMAP_IL_FORMAT_FAT 0x3u
#define ILMAP_IL_MORE_SECTS 0x8u
#define ILMAP_IL_INIT_LOCALS 0x10u

/** EH clause kinds (Flags). */
#define ILMAP_IL_CLAUSE_CATCH 0x0u
#define ILMAP_IL_CLAUSE_FILTER 0x1u
#define ILMAP_IL_CLAUSE_FINALLY 0x2u
#define ILMAP_IL_CLAUSE_FAULT 0x4u

/** One EH clause, in the fat layout whatever its section's format. */
typedef struct ilmap_il_clause {
    uint32_t flags;          /**< ILMAP_IL_CLAUSE_* */
    uint32_t try_offset;
    uint32_t try_length;
    uint32_t handler_offset;
    uint32_t handler_length;
    uint32_t class_or_filter; /**< class token (catch) or filter offset (filter) */
} ilmap_il_clause;

/**
 * A parsed method body. It points into the caller's buffer, which must
 * outlive it; it owns nothing and needs no freeing.
 */
typedef struct ilmap_il_body {
    const uint8_t *code;       /**< the first IL byte */
    uint32_t code_size;
    uint32_t header_size;      /**< 1 (tiny) or 12 (fat) */
    uint16_t flags;            /**< fat: the 12 flag bits; tiny: ILMAP_IL_FORMAT_TINY */
    uint16_t max_stack;        /**< tiny: 8 */
    uint32_t local_sig;        /**< LocalVarSigTok; tiny: 0 */
    uint32_t eh_count;         /**< EH clauses */
    uint32_t eh_fat;           /**< 1 when the EH section has the fat layout */
    const uint8_t *eh_clauses; /**< the first clause's bytes; NULL with no clause */
    size_t body_size;          /**< header to the end of the last section */
} ilmap_il_body;

/**
 * Parses a method body: a tiny or fat header, the code, and with
 * MoreSects the data sections at the next 4-byte boundaries (counted from
 * the body's first byte, which a fat header requires to be 4-byte
 * aligned). A section's clause count is DataSize / clause size, as the
 * runtime derives it, and the section spans 4 + count x clause size bytes.
 * Every clause must lie inside the code (offset + length <= code_size,
 * filter offset < code_size); whether its offsets are instruction starts
 * needs the decoded code (ilmap_il_body_validate()).
 *
 * Refused: a header kind other than tiny or fat, a fat header whose size
 * field is not 3 (ILMAP_E_IL_HEADER); a section kind other than the EH
 * table, or a second EH table (ILMAP_E_IL_HEADER: the runtime reads only
 * the first, so a rewrite could not keep the others' meaning); anything
 * past `size` (ILMAP_E_IL_TRUNCATED); a clause out of the code
 * (ILMAP_E_IL_EH).
 *
 * @param out receives the body; zeroed on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (body or out NULL);
 *         ILMAP_E_IL_HEADER; ILMAP_E_IL_TRUNCATED; ILMAP_E_IL_EH.
 * Pure function, thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_il_body_parse(const void *body, size_t size, ilmap_il_body *out);

/**
 * Clause `index` of a parsed body, widened to the fat layout, copied to
 * the caller's *out.
 * @param out zeroed on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL pointer, index >= eh_count).
 * Pure function, thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_il_body_get_clause(const ilmap_il_body *body, uint32_t index,
                                                   ilmap_il_clause *out);

/**
 * Everything ilmap_rewrite_create() needs of the original: the code decodes
 * (ilmap_il_decode()) and every EH try, handler and filter start and every
 * try and handler end is an instruction start or the code size.
 * @param bad_offset optional: the offending instruction's offset, or the
 *        offending clause's index for ILMAP_E_IL_EH, else ILMAP_NO_INDEX.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG; the statuses of
 *         ilmap_il_decode(); ILMAP_E_IL_EH.
 * Thread-safe; reads the body only (ILMAP_E_NOMEM as ilmap_il_decode()).
 */
ILMAP_EXPORT ilmap_status ilmap_il_body_validate(const ilmap_il_body *body, size_t *bad_offset);

/* ---------------------------------------------------------------------
 * The map of an edit (doc/il-maps.md#rewriter-convention)
 * ------------------------------------------------------------------ */

/** ilmap_edit.kind */
#define ILMAP_EDIT_INSERT 0u  /**< insert `size` new bytes before the instruction */
#define ILMAP_EDIT_REPLACE 1u /**< replace the instruction with `size` (>= 1) bytes */

/** One edit, in original-IL terms. */
typedef struct ilmap_edit {
    uint32_t kind;   /**< ILMAP_EDIT_INSERT or ILMAP_EDIT_REPLACE */
    uint32_t offset; /**< an original instruction start; for INSERT also the
                          code size (append after the last instruction) */
    uint32_t size;   /**< bytes inserted, or the replacement's length */
} ilmap_edit;

/**
 * The layout and COR_IL_MAP of an edited method, from the original
 * instruction starts and the edits.
 *
 * Edits may come in any order; they are applied by offset, and at one
 * offset the insertions (in the order given) come before the instruction
 * or its replacement. For each original instruction i (at starts[i]):
 *  - new_offsets[i] = where the instruction (or its replacement) begins
 *    in the new code;
 *  - entries[i] = { starts[i], the first byte inserted before it (its own
 *    new offset when nothing is), 1 }: strictly ascending in both columns,
 *    one entry per original instruction, accurate = 1 (the CLR
 *    Instrumentation Engine's convention, doc/il-maps.md#rewriter-convention).
 * Appended bytes (INSERT at the code size) get no entry.
 *
 * Refused with ILMAP_E_EDIT (bad_index = the lowest index of an offending
 * edit; of two REPLACEs of one instruction, the later): an offset that is
 * not an instruction start (nor the code size for INSERT), a REPLACE of
 * size 0 (that deletes original IL), two REPLACEs of one instruction, an
 * unknown kind. Original IL can be neither reordered nor deleted with
 * these edits (SetILInstrumentedCodeMap's rules,
 * doc/il-maps.md#rewriter-convention).
 *
 * @param starts        strictly ascending instruction starts, starts[0] = 0,
 *                      all < code_size (ilmap_il_starts() gives them);
 *                      violations: ILMAP_E_INVALID_ARG, bad_index = ILMAP_NO_INDEX.
 * @param entries       n_starts entries, written.
 * @param new_offsets   optional, n_starts values.
 * @param new_code_size optional.
 * @param bad_index     optional.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL arrays with counts, bad
 *         starts, n_starts > ILMAP_MAX_ENTRIES); ILMAP_E_EDIT; ILMAP_E_LIMIT
 *         (the new code would exceed 0xFFFFFFFF bytes); ILMAP_E_NOMEM.
 *         On failure the outputs are zeroed.
 * Thread-safe. O(n_starts + n_edits log n_starts) when the edits come in
 * offset order, plus a sort of the edits otherwise; memory O(n_edits).
 */
ILMAP_EXPORT ilmap_status ilmap_edits_build(const uint32_t *starts, size_t n_starts,
                                            uint32_t code_size, const ilmap_edit *edits,
                                            size_t n_edits, ilmap_entry *entries,
                                            uint32_t *new_offsets, uint32_t *new_code_size,
                                            size_t *bad_index);

/* ---------------------------------------------------------------------
 * The rewriter
 * ------------------------------------------------------------------ */

/** IL to insert before an original instruction. */
typedef struct ilmap_il_insertion {
    uint32_t offset;     /**< an original instruction start, or the code size (append) */
    uint32_t size;       /**< bytes of code */
    const uint8_t *code; /**< whole instructions; a branch in them must target
                              an instruction start of the same insertion or its
                              end (the instruction that follows) */
} ilmap_il_insertion;

/** A rewritten method body and its map. Immutable; free with ilmap_rewrite_free(). */
typedef struct ilmap_rewrite ilmap_rewrite;

/** What a rewrite did. */
typedef struct ilmap_rewrite_info {
    uint32_t code_size;    /**< of the new code */
    uint32_t header_size;  /**< 1 or 12 */
    uint32_t max_stack;    /**< written to the new header (8 when tiny) */
    uint32_t eh_fat;       /**< 1 when the new EH section is fat */
    uint32_t widened;      /**< short branches widened to the long form */
    uint32_t instructions; /**< original instructions = map entries */
} ilmap_rewrite_info;

/**
 * Rewrites a method body with insertions (ECMA-335 II.25.4;
 * doc/profiling-abi.md#il-body) and creates the result, which the caller owns
 * and releases with ilmap_rewrite_free(). The body and the insertions are read
 * during the call only.
 *
 * - Insertions go before the instruction at their offset (several at one
 *   offset: in the order given), or after the last one for the code size.
 * - Every branch (short and long forms, leave, switch) of the original is
 *   retargeted: a target that was an instruction start now points at the
 *   first byte inserted before that instruction, so the probe runs on
 *   every path into it. A short branch whose new delta no longer fits a
 *   signed byte is widened to its long form; widening moves code, so the
 *   layout is iterated to a fixed point (branches only ever grow, so it
 *   ends). Long branches stay long.
 * - EH clauses are rebased the same way: every try, handler and filter
 *   start and every try and handler end moves to the first byte inserted
 *   before the instruction there (an end at the code size moves to the
 *   new position of the code size, before appended bytes). A small
 *   section stays small while every clause fits the small layout
 *   (offsets < 65536, lengths < 256, at most 20 clauses) and is promoted
 *   to fat otherwise; a fat one stays fat. The section is re-placed at
 *   the next 4-byte boundary after the new code.
 * - The header: a tiny body stays tiny when the new code is < 64 bytes
 *   and extra_stack is 0, else becomes fat (flags: fat, MoreSects when EH
 *   exists; max stack 8 + extra_stack; no locals). A fat header keeps its
 *   flags and LocalVarSigTok; max stack += extra_stack.
 * - The map: ilmap_edits_build() of the insertions plus each widened
 *   branch as a REPLACE (2 -> 5 bytes): one entry per original
 *   instruction, ilmap_rewrite_get_entries().
 *
 * Refused (bad_index says where when given): the statuses of
 * ilmap_il_body_parse() and ilmap_il_body_validate() (bad_index = offset or
 * clause); an insertion not at an instruction start or the code size, or
 * whose bytes do not decode as whole instructions with branches inside
 * themselves: ILMAP_E_EDIT (bad_index = the insertion's index); a result
 * beyond the format (max stack > 65535, code > 0x7FFFFFFF bytes, a fat EH
 * section > 0xFFFFFF bytes): ILMAP_E_LIMIT.
 *
 * flags: 0 (reserved for later; anything else is ILMAP_E_INVALID_ARG).
 * @param out receives the result, NULL on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (body or out NULL, insertions
 *         NULL with count > 0, an insertion with size > 0 and code NULL,
 *         unknown flags); the statuses above; ILMAP_E_NOMEM.
 * Thread-safe. O(code + inserted bytes) per layout pass.
 */
ILMAP_EXPORT ilmap_status ilmap_rewrite_create(const void *body, size_t body_size,
                                               const ilmap_il_insertion *insertions, size_t count,
                                               uint32_t extra_stack, unsigned flags,
                                               ilmap_rewrite **out, size_t *bad_index);

/** Releases a rewrite made by ilmap_rewrite_create(). NULL is a no-op. */
ILMAP_EXPORT void ilmap_rewrite_free(ilmap_rewrite *r);

/**
 * The new method body: *size bytes owned by r, valid until
 * ilmap_rewrite_free(). What SetILFunctionBody takes (it copies). NULL
 * and *size = 0 for a NULL r; size may be NULL. Thread-safe.
 */
ILMAP_EXPORT const uint8_t *ilmap_rewrite_get_body(const ilmap_rewrite *r, size_t *size);

/**
 * The COR_IL_MAP: *count entries owned by r, one per original
 * instruction, ready for SetILInstrumentedCodeMap (which copies) or
 * ilmap_create(). NULL and *count = 0 for a NULL r; count may be NULL.
 * Thread-safe.
 */
ILMAP_EXPORT const ilmap_entry *ilmap_rewrite_get_entries(const ilmap_rewrite *r, size_t *count);

/**
 * Where the original instruction at old_offset now begins (after any
 * bytes inserted before it). Unlike ilmap_old_to_new() it does not round
 * down: old_offset must be an original instruction start.
 * @param new_offset receives it; 0 on failure.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no original instruction starts
 *         there); ILMAP_E_INVALID_ARG (r or new_offset NULL). O(log n).
 * Thread-safe, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_rewrite_old_to_new(const ilmap_rewrite *r, uint32_t old_offset,
                                                   uint32_t *new_offset);

/** Fills *info. @return ILMAP_OK; ILMAP_E_INVALID_ARG (NULL; *info zeroed). */
ILMAP_EXPORT ilmap_status ilmap_rewrite_get_info(const ilmap_rewrite *r, ilmap_rewrite_info *info);

/* ---------------------------------------------------------------------
 * Wrapping a method: a tracer's rewrite (doc/il-maps.md#wrap)
 * ------------------------------------------------------------------ */

/** ilmap_il_wrap_spec.flags: pass `this` (ldarg.0) as the instance; for
 *  instance methods of reference types. Without it the instance is null
 *  (static methods; value types' `this` is a managed pointer, not an
 *  object). */
#define ILMAP_IL_WRAP_INSTANCE 0x1u

/**
 * What a wrap calls and where it keeps its state. The tokens are the
 * caller's, valid in the wrapped method's module (a profiler makes them
 * with IMetaDataEmit: DefineTypeRefByName, DefineMemberRef,
 * GetTokenFromSig, GetTokenFromTypeSpec). The locals must exist in the
 * LocalVarSig `local_sig` names: the method's own locals, then the added
 * ones (ilmap_sig_wrap_locals() builds that signature).
 */
typedef struct ilmap_il_wrap_spec {
    uint32_t begin_method;    /**< static void Begin(object instance, int32 methodToken) */
    uint32_t end_method;      /**< static void End(object instance, int32 methodToken,
                                   object returnValue, class System.Exception exception) */
    uint32_t exception_type;  /**< TypeDef/TypeRef of System.Exception: the class of
                                   every added catch clause */
    uint32_t method_token;    /**< the int32 handed to Begin and End */
    uint32_t local_sig;       /**< the new body's LocalVarSigTok (not 0) */
    uint32_t exception_local; /**< index of a local of class System.Exception */
    uint32_t return_local;    /**< index of a local of the return type (ignored for void) */
    uint32_t return_type;     /**< TypeDef/TypeRef/TypeSpec token of the return type, for
                                   initobj and box (!T, !!T included: a TypeSpec); 0 for
                                   a method that returns void */
    uint32_t flags;           /**< 0 or ILMAP_IL_WRAP_INSTANCE */
} ilmap_il_wrap_spec;

/**
 * Wraps a method body in Begin/End calls as tracers do
 * (doc/il-maps.md#wrap), with the exact COR_IL_MAP of the whole rewrite.
 * The new code:
 *
 *     exception = null; return value = default      (initobj)
 *     try { Begin(instance, token); } catch (Exception) { }
 *     try {
 *         try { the original code, each ret -> stloc return value; leave END }
 *         catch (Exception e) { exception = e; rethrow; }
 *     } finally {
 *         try { End(instance, token, (object)return value or null, exception); }
 *         catch (Exception) { }
 *     }
 *     END: ldloc return value; ret                    (ret for void)
 *
 * Besides: `tail.` prefixes become nops (a tail call cannot leave a try);
 * short branches are widened where the code grows; the original clauses
 * are kept, rebased, before the four added ones (inner before outer); the
 * header becomes fat (a tiny body's gains InitLocals), with `local_sig`
 * and a max stack of at least 4. The result is a rewrite like
 * ilmap_rewrite_create()'s: ilmap_rewrite_get_body(),
 * ilmap_rewrite_get_entries() (one entry per original instruction at the
 * first byte inserted before it: the prologue maps to original offset 0,
 * the epilogue after the last instruction's entry, as the runtime's rule
 * reads a map; doc/il-maps.md#rewriter-convention), ilmap_rewrite_old_to_new()
 * (where an original instruction now begins), ilmap_rewrite_get_info().
 *
 * The spec must match the method: return_type 0 exactly when it returns
 * void, ILMAP_IL_WRAP_INSTANCE only for an instance method whose `this`
 * is an object. The IL cannot say whether it does; a wrong spec gives an
 * invalid body. Constructors must not be wrapped before their base call
 * (`this` is not an object until then): the caller refuses them.
 *
 * Refused: the statuses of ilmap_il_body_parse() and
 * ilmap_il_body_validate() (bad_offset: the instruction's offset or the
 * clause's index); ILMAP_E_UNSUPPORTED for a body with no code, a `jmp`
 * (it leaves with the caller's arguments: never from a try), a `ret`
 * inside a protected region (invalid IL) (bad_offset: the instruction);
 * ILMAP_E_LIMIT (the result beyond the body format).
 *
 * @param out receives the result (free with ilmap_rewrite_free()), NULL
 *        on failure.
 * @param bad_offset optional, as above; ILMAP_NO_INDEX otherwise.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (body, spec or out NULL; a zero
 *         begin_method, end_method, exception_type or local_sig; a local
 *         index above 65534; return_local equal to exception_local when
 *         the method returns a value; an unknown flag); the statuses
 *         above; ILMAP_E_NOMEM.
 * Thread-safe. O(code) per layout pass, as ilmap_rewrite_create().
 */
ILMAP_EXPORT ilmap_status ilmap_il_wrap_create(const void *body, size_t body_size,
                                               const ilmap_il_wrap_spec *spec,
                                               ilmap_rewrite **out, size_t *bad_offset);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_IL_H */
