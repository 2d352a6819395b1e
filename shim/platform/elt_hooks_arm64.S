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
 * So each stub saves x0-x8 and q0-q7, calls shim_elt_count(id, kind),
 * restores them and returns.
 */
#define FRAME 224 /* fp, lr; x0-x8 (+8 pad); q0-q7 */

        .text

        .hidden shim_elt_count

.macro ELT_STUB name, kind
        .globl \name
        .hidden \name
        .type \name, %function
        .p2align 2
\name:
        .cfi_startproc
        stp     x29, x30, [sp, #-FRAME]!
        .cfi_def_cfa_offset FRAME
        .cfi_offset x29, -FRAME
        .cfi_offset x30, -FRAME + 8
        mov     x29, sp
        stp     x0, x1, [sp, #16]
        stp     x2, x3, [sp, #32]
        stp     x4, x5, [sp, #48]
        stp     x6, x7, [sp, #64]
        str     x8, [sp, #80]
        stp     q0, q1, [sp, #96]
        stp     q2, q3, [sp, #128]
        stp     q4, q5, [sp, #160]
        stp     q6, q7, [sp, #192]
        mov     x0, x10
        mov     w1, #\kind
        bl      shim_elt_count
        ldp     q0, q1, [sp, #96]
        ldp     q2, q3, [sp, #128]
        ldp     q4, q5, [sp, #160]
        ldp     q6, q7, [sp, #192]
        ldp     x0, x1, [sp, #16]
        ldp     x2, x3, [sp, #32]
        ldp     x4, x5, [sp, #48]
        ldp     x6, x7, [sp, #64]
        ldr     x8, [sp, #80]
        ldp     x29, x30, [sp], #FRAME
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size \name, . - \name
.endm

        ELT_STUB shim_elt_enter_stub, 0
        ELT_STUB shim_elt_leave_stub, 1
        ELT_STUB shim_elt_tailcall_stub, 2

        .section .note.GNU-stack, "", %progbits
