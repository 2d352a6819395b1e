/*
 * Fast-path enter/leave/tailcall hooks: the per-platform part.
 *
 * JIT-compiled code calls a fast-path hook directly, with the function's
 * argument registers (enter) or return registers (leave, tailcall) live,
 * so the hook must hand nothing back changed but the flags. The runtime's
 * own slow-path helper, which would let ordinary C functions be hooks,
 * restores only the low 64 bits of the vector argument registers (see
 * shim/FINDINGS.md, "ELT slow path"), which zeroes the upper half of every
 * Vector128 argument or return value of a hooked function. So the hooks
 * are small assembly stubs that save every general-purpose scratch
 * register and the whole extended register state (XSAVE where the OS
 * enables it, FXSAVE otherwise), call shim_elt_count() with the ID, and
 * restore everything.
 *
 * Each ABI's stubs keep what the JIT counts on for that ABI (the .S says
 * what, from dotnet/runtime's kill sets for the profiler hooks) and call
 * shim_elt_count() with the ID:
 *   x86-64 System V (Linux): the enter hook's ID in r14, the leave and
 *     tailcall hooks' in rdi; every scratch register and the whole
 *     extended state saved (elt_hooks_x86_64_sysv.S);
 *   Windows x64: the ID in rcx; the JIT homes the arguments around the
 *     enter hook, leave and tailcall keep rax and xmm0 (elt_hooks_win64.S);
 *   Windows x86: the ID on the stack, __stdcall; every register kept,
 *     x87 and SSE state by FXSAVE (elt_hooks_win32.S);
 *   arm64 (Linux): the ID in x10; x0-x8 and q0-q7 kept (elt_hooks_arm64.S).
 * test/clr/test-elt-stubs.c (and test-shim-unit.c for System V) holds each
 * to its contract register by register. Elsewhere shim_elt_hooks_get()
 * answers 0 and the shim refuses enter/leave hooks before it sets its
 * event mask (it says so): a hook that could corrupt the application is
 * worse than none.
 */
#ifndef SHIM_PLATFORM_ELT_HOOKS_H
#define SHIM_PLATFORM_ELT_HOOKS_H

#include <stdint.h>

#include "com/elt.h"

enum shim_elt_kind { SHIM_ELT_ENTER = 0, SHIM_ELT_LEAVE = 1, SHIM_ELT_TAILCALL = 2 };

typedef struct shim_elt_hooks {
    FunctionEnter3 *enter;
    FunctionLeave3 *leave;
    FunctionTailcall3 *tailcall;
    const char *how; /* "xsave", "fxsave": how the stubs save vector state */
} shim_elt_hooks;

/*
 * Fills *out with this platform's stubs and prepares them (reads which
 * register state the OS enables). Returns 1 when the platform has stubs,
 * 0 when it has none (*out zeroed). Call once, before the hooks are
 * handed to the runtime.
 */
int shim_elt_hooks_get(shim_elt_hooks *out);

/* What the stubs call, with every register already saved: kind is an
 * enum shim_elt_kind. Defined in shim/profiler/elt.c; must not assume anything
 * about the caller's alignment beyond the ABI's. */
void shim_elt_count(uintptr_t id, int kind);

#endif
