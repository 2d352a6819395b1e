/*
 * Fast-path ELT hooks for x86-64 System V; see elt_hooks.h.
 *
 * Each stub: saves rbp and the scratch general-purpose registers the JIT
 * may have live (rax rcx rdx rsi rdi r8-r11), aligns the stack to 64
 * bytes, saves the extended state into a 4 KiB area on the stack (XSAVE
 * with the component mask in shim_elt_xsave_mask, or FXSAVE when that
 * mask is 0), calls shim_elt_count(id, kind), restores the state and the
 * registers, and returns. r14 (enter) and rdi (leave, tailcall) carry
 * the ID, as the JIT passes it on this ABI.
 */
#define AREA 4160 /* 4096 bytes of state + 64 for the alignment */

        .text

        .hidden shim_elt_count
        .hidden shim_elt_xsave_mask

.macro ELT_STUB name, idreg, kind
        .globl \name
        .hidden \name
        .type \name, @function
        .p2align 4
\name:
        .cfi_startproc
        pushq   %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq   %rax
        pushq   %rcx
        pushq   %rdx
        pushq   %rsi
        pushq   %rdi
        pushq   %r8
        pushq   %r9
        pushq   %r10
        pushq   %r11
        movq    \idreg, %rdi
        subq    $AREA, %rsp
        andq    $-64, %rsp
        /* XRSTOR faults on a header with stray bits: start from zero. */
        xorl    %eax, %eax
        movq    %rax, 512(%rsp)
        movq    %rax, 520(%rsp)
        movq    %rax, 528(%rsp)
        movq    %rax, 536(%rsp)
        movq    %rax, 544(%rsp)
        movq    %rax, 552(%rsp)
        movq    %rax, 560(%rsp)
        movq    %rax, 568(%rsp)
        movl    shim_elt_xsave_mask(%rip), %eax
        movl    shim_elt_xsave_mask+4(%rip), %edx
        movl    %eax, %ecx
        orl     %edx, %ecx
        jz      1f
        xsave   (%rsp)
        jmp     2f
1:      fxsave  (%rsp)
2:      movl    $\kind, %esi
        call    shim_elt_count
        movl    shim_elt_xsave_mask(%rip), %eax
        movl    shim_elt_xsave_mask+4(%rip), %edx
        movl    %eax, %ecx
        orl     %edx, %ecx
        jz      3f
        xrstor  (%rsp)
        jmp     4f
3:      fxrstor (%rsp)
4:      leaq    -72(%rbp), %rsp
        popq    %r11
        popq    %r10
        popq    %r9
        popq    %r8
        popq    %rdi
        popq    %rsi
        popq    %rdx
        popq    %rcx
        popq    %rax
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size \name, . - \name
.endm

        ELT_STUB shim_elt_enter_stub, %r14, 0
        ELT_STUB shim_elt_leave_stub, %rdi, 1
        ELT_STUB shim_elt_tailcall_stub, %rdi, 2

        .section .note.GNU-stack, "", @progbits
