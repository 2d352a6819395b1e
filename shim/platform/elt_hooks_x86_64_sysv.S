/*
 * Fast-path ELT hooks for x86-64 System V; see elt_hooks.h.
 *
 * The JIT passes the ID in r14 (enter) or rdi (leave, tailcall) and
 * counts on the hooks to keep every register but the flags: the
 * arguments (enter) or return value (leave, tailcall) are live in any of
 * them. Each stub saves rax, the one register it uses, counts the call in
 * shim_elt_hook_counts with a locked increment, restores rax and
 * returns; it calls nothing and touches no vector register.
 *
 * shim_elt_floor_stub, for floor mode, only returns.
 */
#include "platform/elt_hooks.h"

#define TABLE shim_elt_hook_counts
#define CAPACITY (TABLE + SHIM_ELT_HOOK_CAPACITY_AT * 8)
#define UNKNOWN (TABLE + SHIM_ELT_HOOK_UNKNOWN_AT * 8)

        .text

        .hidden shim_elt_hook_counts

.macro ELT_STUB name, idreg, kind
        .globl \name
        .hidden \name
        .type \name, @function
        .p2align 4
\name:
        .cfi_startproc
        pushq   %rax
        .cfi_adjust_cfa_offset 8
        movq    TABLE + 8 * \kind(%rip), %rax
        testq   %rax, %rax
        jz      2f                      /* no table yet: nothing counted */
        testq   \idreg, \idreg
        jz      1f
        cmpq    CAPACITY(%rip), \idreg
        ja      1f
        lock incq (%rax,\idreg,8)
2:      popq    %rax
        .cfi_adjust_cfa_offset -8
        ret
        .cfi_adjust_cfa_offset 8
1:      movq    UNKNOWN(%rip), %rax     /* not a client ID of the mapper */
        lock incq (%rax)
        popq    %rax
        .cfi_adjust_cfa_offset -8
        ret
        .cfi_endproc
        .size \name, . - \name
.endm

        ELT_STUB shim_elt_enter_stub, %r14, 0
        ELT_STUB shim_elt_leave_stub, %rdi, 1
        ELT_STUB shim_elt_tailcall_stub, %rdi, 2

        .globl shim_elt_floor_stub
        .hidden shim_elt_floor_stub
        .type shim_elt_floor_stub, @function
        .p2align 4
shim_elt_floor_stub:
        .cfi_startproc
        ret
        .cfi_endproc
        .size shim_elt_floor_stub, . - shim_elt_floor_stub

        .section .note.GNU-stack, "", @progbits
