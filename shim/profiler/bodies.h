/*
 * Native bodies, one by one. A (FunctionID, ReJITID) can have several:
 * with tiering kept, one per tier, each announced by its own
 * JITCompilationFinished (ReJITID 0) or ReJITCompilationFinished (a ReJIT
 * version), while GetCodeInfo3 keeps describing the first
 * (doc/rejit.md#tiering). Each body is found by its code start
 * (GetNativeCodeStartAddresses), read by it (GetCodeInfo4,
 * GetILToNativeMapping3), and recorded in the version store with its own
 * native map; the hooks are told (body_read).
 */
#ifndef SHIM_PROFILER_BODIES_H
#define SHIM_PROFILER_BODIES_H

#include "profiler/profiler.h"

/* Claims one native body: 1 when it is new (then *index is its number
 * among the bodies of (function, rejit)), 0 when it was read already or
 * cannot be recorded (counted). The caller holds the lock. */
int shim_claim_body(shim_profiler *p, shim_method *m, FunctionID function, ReJITID rejit,
                    UINT_PTR start, unsigned *index);

/* Hot + cold size of a body's ranges. */
uint64_t shim_code_size(const COR_PRF_CODE_INFO *ranges, ULONG32 count);

/* Reads the map of the body in note->source into note (runtime order,
 * also in libilmap's type, returned); NULL unless it was read whole and is
 * not empty. */
ilmap_native_entry *shim_read_body_map(shim_body_note *note);

void shim_note_start(shim_body_note *note, ModuleID module, mdMethodDef token,
                     FunctionID function, ReJITID rejit);
/* Tells the hooks, then frees what the note points to. */
void shim_note_done(shim_profiler *p, shim_method *m, shim_body_note *note,
                    COR_PRF_CODE_INFO *code);

/* Every native body of (function, rejit) not read yet (Info9): read by its
 * code start and recorded in the version store (the ReJIT version's first
 * body must be in already; for ReJITID 0 the function is registered
 * here). */
void shim_record_bodies(shim_profiler *p, shim_method *m, ModuleID module, mdMethodDef token,
                        FunctionID function, ReJITID rejit);

/* JITCompilationFinished of one of the profiler's methods: its original
 * (ReJITID 0) bodies go into the version store. Code the runtime will not
 * rejit (a collectible assembly's, see shim/FINDINGS.md) is then still
 * known to the store, and leaves it with its module. */
void shim_record_jit_bodies(shim_profiler *p, FunctionID function);

#endif
