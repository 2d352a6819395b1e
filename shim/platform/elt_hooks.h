/*
 * Fast-path enter/leave/tailcall hooks: the per-platform part.
 *
 * JIT-compiled code calls a fast-path hook directly, with the function's
 * argument registers (enter) or return registers (leave, tailcall) live,
 * so the hook must hand back unchanged every register its ABI's contract
 * names (the flags excepted). The runtime's own slow-path helper, which
 * would let ordinary C functions be hooks, restores only the low 64 bits
 * of the vector argument registers (see shim/FINDINGS.md, "ELT slow
 * path"), which zeroes the upper half of every Vector128 argument or
 * return value of a hooked function. So the hooks are small assembly
 * stubs that do the shim's whole job themselves: count the call in
 * shim_elt_hook_counts (below) with one locked increment, using only
 * registers the contract lets them change or that they save, and never
 * calling anything. No vector or x87 register is touched, so none needs
 * saving; a stub that called C code would have to save the whole
 * extended state (XSAVE), which made the field suite's program with hooks
 * ~32x slower (doc/performance.md#hooks).
 *
 * Each ABI's stubs keep what the JIT counts on for that ABI (the .S says
 * what, from dotnet/runtime's kill sets for the profiler hooks):
 *   x86-64 System V (Linux): the enter hook's ID in r14, the leave and
 *     tailcall hooks' in rdi; every register kept, rax saved around its
 *     use (elt_hooks_x86_64_sysv.S);
 *   Windows x64: the ID in rcx; the stubs use rdx, which every hook may
 *     change (elt_hooks_win64.S);
 *   Windows x86: the ID on the stack, __stdcall; every register kept,
 *     eax and ecx saved around their use (elt_hooks_win32.S);
 *   arm64 (Linux): the ID in x10; the stubs use x9-x13, which the hooks
 *     may change (elt_hooks_arm64.S).
 * test/clr/test-elt-stubs.c (and test-shim-unit.c for System V, through
 * the shim's whole set-up) holds each to its contract register by
 * register and checks what it counted. Elsewhere shim_elt_hooks_get()
 * answers 0 and the shim refuses enter/leave hooks before it sets its
 * event mask (it says so): a hook that could corrupt the application is
 * worse than none.
 *
 * Floor mode (ILMAP_SHIM_ELT_FLOOR, bench/overhead.py's "floor") hands
 * the runtime each ABI's shim_elt_floor_stub instead, which only returns
 * (popping the ID on Windows x86): the runtime's own cost of calling
 * hooks, the baseline the stubs are measured against.
 */
#ifndef SHIM_PLATFORM_ELT_HOOKS_H
#define SHIM_PLATFORM_ELT_HOOKS_H

/* Where the stubs read shim_elt_hook_counts' fields (below), in
 * pointer-sized words: the .S files include this header for these two
 * and nothing else; elt_hooks_fixed.c asserts them against the struct. */
#define SHIM_ELT_HOOK_CAPACITY_AT 3
#define SHIM_ELT_HOOK_UNKNOWN_AT 4

#ifndef __ASSEMBLER__

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "com/elt.h"

enum shim_elt_kind { SHIM_ELT_ENTER = 0, SHIM_ELT_LEAVE = 1, SHIM_ELT_TAILCALL = 2 };

/*
 * What the stubs count into. A hook of kind k with client ID id adds 1
 * to counts[k][id] when 1 <= id <= capacity, else to *unknown; with
 * counts[k] NULL it counts nothing. The .S files read the fields at
 * fixed offsets: counts[k] at word k, the others at SHIM_ELT_HOOK_*_AT
 * (above). Filled once, before the
 * hooks are handed to the runtime (shim_elt_start), never changed after;
 * zero until then. On Windows x86 a count is two locked 32-bit additions
 * (low word, then the carry): exact once the hooks are quiet, which is
 * when the harness reads it.
 */
typedef struct shim_elt_hook_table {
    atomic_uint_least64_t *counts[3]; /* by enum shim_elt_kind, indexed by client ID */
    uintptr_t capacity;
    atomic_uint_least64_t *unknown;
} shim_elt_hook_table;

/* The process's table (one set of hooks per process). */
extern shim_elt_hook_table shim_elt_hook_counts;

typedef struct shim_elt_hooks {
    FunctionEnter3 *enter;
    FunctionLeave3 *leave;
    FunctionTailcall3 *tailcall;
    const char *how; /* the registers the stubs save, for reports */
} shim_elt_hooks;

/* What floor stubs save: nothing. */
#define SHIM_ELT_FLOOR_SAVES "nothing (floor: the hooks only return)"

/*
 * Fills *out with this platform's stubs (floor != 0: the floor stubs, the
 * same one for every kind). Returns 1 when the platform has stubs, 0 when
 * it has none (*out zeroed).
 */
int shim_elt_hooks_get(shim_elt_hooks *out, int floor);

#endif /* __ASSEMBLER__ */

#endif
