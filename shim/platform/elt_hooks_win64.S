/*
 * Fast-path ELT hooks for Windows x64; see elt_hooks.h.
 *
 * The JIT calls every hook with the FunctionIDOrClientID in rcx (and the
 * caller's SP in rdx), RSP 16-byte aligned with its own 32 bytes of home
 * space reserved above it. Around the enter hook the JIT homes the
 * argument registers and reloads them afterwards, so the enter hook may
 * change every volatile register, as an ordinary function; the leave and
 * tailcall hooks must keep rax and xmm0, where the return value is
 * (dotnet/runtime, targetamd64.h: the profiler hooks' kill sets;
 * codegenxarch.cpp). Each stub counts the call in shim_elt_hook_counts
 * with a locked increment, using rdx (which every hook may change) and
 * nothing else, and returns: a leaf without a frame, which needs no
 * unwind data.
 *
 * shim_elt_floor_stub, for floor mode, only returns.
 */
#include "platform/elt_hooks.h"

#define TABLE shim_elt_hook_counts
#define CAPACITY (TABLE + SHIM_ELT_HOOK_CAPACITY_AT * 8)
#define UNKNOWN (TABLE + SHIM_ELT_HOOK_UNKNOWN_AT * 8)

        .text

.macro ELT_STUB name, kind
        .globl \name
        .def \name; .scl 2; .type 32; .endef
        .p2align 4
\name:
        movq    TABLE + 8 * \kind(%rip), %rdx
        testq   %rdx, %rdx
        jz      2f                      /* no table yet: nothing counted */
        testq   %rcx, %rcx
        jz      1f
        cmpq    CAPACITY(%rip), %rcx
        ja      1f
        lock incq (%rdx,%rcx,8)
2:      ret
1:      movq    UNKNOWN(%rip), %rdx     /* not a client ID of the mapper */
        lock incq (%rdx)
        ret
.endm

        ELT_STUB shim_elt_enter_stub, 0
        ELT_STUB shim_elt_leave_stub, 1
        ELT_STUB shim_elt_tailcall_stub, 2

        .globl shim_elt_floor_stub
        .def shim_elt_floor_stub; .scl 2; .type 32; .endef
        .p2align 4
shim_elt_floor_stub:
        ret
