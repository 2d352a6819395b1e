/*
 * Fast-path ELT hooks for arm64 (AAPCS64, Linux); see elt_hooks.h.
 *
 * The JIT calls every hook with the FunctionIDOrClientID in x10 and the
 * caller's SP in x11, from an established frame (SP 16-byte aligned),
 * and counts on the hook to keep what the method's arguments (enter) or
 * return value (leave, tailcall) may be in: x0-x7, x8 (the return buffer)
 * and q0-q7 whole (HFA/HVA and Vector128 values), besides fp and the
 * callee-saved registers any C function keeps; x9-x17, lr and v16-v31
 * may change (dotnet/runtime, targetarm64.h: the profiler hooks' kill
 * set; the runtime's own helper saves exactly these, arm64/asmhelpers.S).
 * Each stub counts the call in shim_elt_hook_counts with an exclusive
 * load/store loop (Armv8.0 has no atomic add), using x9 and x11-x13 and
 * nothing else, and returns: no frame, no call, no vector register.
 *
 * shim_elt_floor_stub, for floor mode, only returns.
 */
#include "platform/elt_hooks.h"

        .text

        .hidden shim_elt_hook_counts

.macro ELT_STUB name, kind
        .globl \name
        .hidden \name
        .type \name, %function
        .p2align 2
\name:
        .cfi_startproc
        adrp    x9, shim_elt_hook_counts
        add     x9, x9, :lo12:shim_elt_hook_counts
        ldr     x12, [x9, #8 * \kind]
        cbz     x12, 2f                 /* no table yet: nothing counted */
        cbz     x10, 1f
        ldr     x11, [x9, #8 * SHIM_ELT_HOOK_CAPACITY_AT]
        cmp     x10, x11
        b.hi    1f
        add     x12, x12, x10, lsl #3
3:      ldxr    x11, [x12]
        add     x11, x11, #1
        stxr    w13, x11, [x12]
        cbnz    w13, 3b
2:      ret
1:      ldr     x12, [x9, #8 * SHIM_ELT_HOOK_UNKNOWN_AT] /* not a client ID of the mapper */
        b       3b
        .cfi_endproc
        .size \name, . - \name
.endm

        ELT_STUB shim_elt_enter_stub, 0
        ELT_STUB shim_elt_leave_stub, 1
        ELT_STUB shim_elt_tailcall_stub, 2

        .globl shim_elt_floor_stub
        .hidden shim_elt_floor_stub
        .type shim_elt_floor_stub, %function
        .p2align 2
shim_elt_floor_stub:
        .cfi_startproc
        ret
        .cfi_endproc
        .size shim_elt_floor_stub, . - shim_elt_floor_stub

        .section .note.GNU-stack, "", %progbits
