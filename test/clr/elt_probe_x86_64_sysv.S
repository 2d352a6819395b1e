/*
 * Test helper: calls one of the shim's fast-path ELT stubs the way
 * JIT-compiled code does, with every scratch register holding a known
 * value, and records what each register holds afterwards.
 *
 *   void elt_probe(FunctionEnter3 *stub, uintptr_t id, const uint64_t in[73],
 *                  uint64_t out[73], int ymm);
 *
 * in/out layout (uint64_t words): [0..8] rax rcx rdx rsi rdi r8 r9 r10
 * r11; [9..72] ymm0..ymm15, 4 words each (only the low 2 words, xmm,
 * when ymm is 0). The ID goes in r14 (what the enter stub reads) and is
 * also what rdi holds when in[4] is set to it by the caller (leave and
 * tailcall read rdi).
 */
        .text
        .globl elt_probe
        .type elt_probe, @function
        .p2align 4
elt_probe:
        .cfi_startproc
        pushq   %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        pushq   %rcx            /* out */
        movq    %rdi, %r12      /* stub */
        movq    %rsi, %r14      /* id, for the enter stub */
        movq    %rdx, %rbx      /* in */
        movl    %r8d, %r13d     /* ymm? */
        andq    $-16, %rsp
        testl   %r13d, %r13d
        jz      1f
        vmovdqu 72+0*32(%rbx), %ymm0
        vmovdqu 72+1*32(%rbx), %ymm1
        vmovdqu 72+2*32(%rbx), %ymm2
        vmovdqu 72+3*32(%rbx), %ymm3
        vmovdqu 72+4*32(%rbx), %ymm4
        vmovdqu 72+5*32(%rbx), %ymm5
        vmovdqu 72+6*32(%rbx), %ymm6
        vmovdqu 72+7*32(%rbx), %ymm7
        vmovdqu 72+8*32(%rbx), %ymm8
        vmovdqu 72+9*32(%rbx), %ymm9
        vmovdqu 72+10*32(%rbx), %ymm10
        vmovdqu 72+11*32(%rbx), %ymm11
        vmovdqu 72+12*32(%rbx), %ymm12
        vmovdqu 72+13*32(%rbx), %ymm13
        vmovdqu 72+14*32(%rbx), %ymm14
        vmovdqu 72+15*32(%rbx), %ymm15
        jmp     2f
1:      movdqu  72+0*32(%rbx), %xmm0
        movdqu  72+1*32(%rbx), %xmm1
        movdqu  72+2*32(%rbx), %xmm2
        movdqu  72+3*32(%rbx), %xmm3
        movdqu  72+4*32(%rbx), %xmm4
        movdqu  72+5*32(%rbx), %xmm5
        movdqu  72+6*32(%rbx), %xmm6
        movdqu  72+7*32(%rbx), %xmm7
        movdqu  72+8*32(%rbx), %xmm8
        movdqu  72+9*32(%rbx), %xmm9
        movdqu  72+10*32(%rbx), %xmm10
        movdqu  72+11*32(%rbx), %xmm11
        movdqu  72+12*32(%rbx), %xmm12
        movdqu  72+13*32(%rbx), %xmm13
        movdqu  72+14*32(%rbx), %xmm14
        movdqu  72+15*32(%rbx), %xmm15
2:      movq    0(%rbx), %rax
        movq    8(%rbx), %rcx
        movq    16(%rbx), %rdx
        movq    24(%rbx), %rsi
        movq    32(%rbx), %rdi
        movq    40(%rbx), %r8
        movq    48(%rbx), %r9
        movq    56(%rbx), %r10
        movq    64(%rbx), %r11
        call    *%r12
        movq    -48(%rbp), %r12 /* out */
        movq    %rax, 0(%r12)
        movq    %rcx, 8(%r12)
        movq    %rdx, 16(%r12)
        movq    %rsi, 24(%r12)
        movq    %rdi, 32(%r12)
        movq    %r8, 40(%r12)
        movq    %r9, 48(%r12)
        movq    %r10, 56(%r12)
        movq    %r11, 64(%r12)
        testl   %r13d, %r13d
        jz      3f
        vmovdqu %ymm0, 72+0*32(%r12)
        vmovdqu %ymm1, 72+1*32(%r12)
        vmovdqu %ymm2, 72+2*32(%r12)
        vmovdqu %ymm3, 72+3*32(%r12)
        vmovdqu %ymm4, 72+4*32(%r12)
        vmovdqu %ymm5, 72+5*32(%r12)
        vmovdqu %ymm6, 72+6*32(%r12)
        vmovdqu %ymm7, 72+7*32(%r12)
        vmovdqu %ymm8, 72+8*32(%r12)
        vmovdqu %ymm9, 72+9*32(%r12)
        vmovdqu %ymm10, 72+10*32(%r12)
        vmovdqu %ymm11, 72+11*32(%r12)
        vmovdqu %ymm12, 72+12*32(%r12)
        vmovdqu %ymm13, 72+13*32(%r12)
        vmovdqu %ymm14, 72+14*32(%r12)
        vmovdqu %ymm15, 72+15*32(%r12)
        vzeroupper
        jmp     4f
3:      movdqu  %xmm0, 72+0*32(%r12)
        movdqu  %xmm1, 72+1*32(%r12)
        movdqu  %xmm2, 72+2*32(%r12)
        movdqu  %xmm3, 72+3*32(%r12)
        movdqu  %xmm4, 72+4*32(%r12)
        movdqu  %xmm5, 72+5*32(%r12)
        movdqu  %xmm6, 72+6*32(%r12)
        movdqu  %xmm7, 72+7*32(%r12)
        movdqu  %xmm8, 72+8*32(%r12)
        movdqu  %xmm9, 72+9*32(%r12)
        movdqu  %xmm10, 72+10*32(%r12)
        movdqu  %xmm11, 72+11*32(%r12)
        movdqu  %xmm12, 72+12*32(%r12)
        movdqu  %xmm13, 72+13*32(%r12)
        movdqu  %xmm14, 72+14*32(%r12)
        movdqu  %xmm15, 72+15*32(%r12)
4:      leaq    -40(%rbp), %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size elt_probe, . - elt_probe

        .section .note.GNU-stack, "", @progbits
