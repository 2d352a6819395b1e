/*
 * Test helpers for the Windows x64 ELT stubs (test-elt-stubs.c).
 *
 *   void elt_probe(void *stub, uintptr_t id, const uint64_t in[46], uint64_t out[46]);
 *     calls stub as JIT-compiled code does (ID in rcx, caller's SP in
 *     rdx, RSP 16-byte aligned with 32 bytes of home space) with every
 *     register of in[] loaded, and stores them in out[] afterwards:
 *     [0..31] xmm0-xmm15 (2 words each), [32..45] rax rcx rdx r8 r9 r10
 *     r11 rbx rsi rdi r12 r13 r14 r15 (rcx, rdx: the arguments, not in[]);
 *     in and out 16-byte aligned.
 */
        .text
        .globl elt_probe
        .def elt_probe; .scl 2; .type 32; .endef
        .p2align 4
elt_probe:
        pushq   %rbp
        movq    %rsp, %rbp
        pushq   %rbx                    /* -8 */
        pushq   %rsi                    /* -16 */
        pushq   %rdi                    /* -24 */
        pushq   %r12                    /* -32 */
        pushq   %r13                    /* -40 */
        pushq   %r14                    /* -48 */
        pushq   %r15                    /* -56 */
        subq    $232, %rsp              /* xmm6-15 at -224..-80, stub -232, out -240, tmp -248 */
        movdqu  %xmm6, -224(%rbp)
        movdqu  %xmm7, -208(%rbp)
        movdqu  %xmm8, -192(%rbp)
        movdqu  %xmm9, -176(%rbp)
        movdqu  %xmm10, -160(%rbp)
        movdqu  %xmm11, -144(%rbp)
        movdqu  %xmm12, -128(%rbp)
        movdqu  %xmm13, -112(%rbp)
        movdqu  %xmm14, -96(%rbp)
        movdqu  %xmm15, -80(%rbp)
        movq    %rcx, -232(%rbp)        /* stub */
        movq    %r9, -240(%rbp)         /* out */
        movq    %rdx, %rcx              /* id: the hook's argument */
        andq    $-16, %rsp
        subq    $32, %rsp               /* home space, RSP still 16-aligned */
        movdqa  0(%r8), %xmm0
        movdqa  16(%r8), %xmm1
        movdqa  32(%r8), %xmm2
        movdqa  48(%r8), %xmm3
        movdqa  64(%r8), %xmm4
        movdqa  80(%r8), %xmm5
        movdqa  96(%r8), %xmm6
        movdqa  112(%r8), %xmm7
        movdqa  128(%r8), %xmm8
        movdqa  144(%r8), %xmm9
        movdqa  160(%r8), %xmm10
        movdqa  176(%r8), %xmm11
        movdqa  192(%r8), %xmm12
        movdqa  208(%r8), %xmm13
        movdqa  224(%r8), %xmm14
        movdqa  240(%r8), %xmm15
        movq    256(%r8), %rax
        leaq    16(%rbp), %rdx          /* the caller's SP */
        movq    288(%r8), %r9
        movq    296(%r8), %r10
        movq    304(%r8), %r11
        movq    312(%r8), %rbx
        movq    320(%r8), %rsi
        movq    328(%r8), %rdi
        movq    336(%r8), %r12
        movq    344(%r8), %r13
        movq    352(%r8), %r14
        movq    360(%r8), %r15
        movq    280(%r8), %r8
        call    *-232(%rbp)
        movq    %rax, -248(%rbp)
        movq    -240(%rbp), %rax        /* out */
        movdqa  %xmm0, 0(%rax)
        movdqa  %xmm1, 16(%rax)
        movdqa  %xmm2, 32(%rax)
        movdqa  %xmm3, 48(%rax)
        movdqa  %xmm4, 64(%rax)
        movdqa  %xmm5, 80(%rax)
        movdqa  %xmm6, 96(%rax)
        movdqa  %xmm7, 112(%rax)
        movdqa  %xmm8, 128(%rax)
        movdqa  %xmm9, 144(%rax)
        movdqa  %xmm10, 160(%rax)
        movdqa  %xmm11, 176(%rax)
        movdqa  %xmm12, 192(%rax)
        movdqa  %xmm13, 208(%rax)
        movdqa  %xmm14, 224(%rax)
        movdqa  %xmm15, 240(%rax)
        movq    %rcx, 264(%rax)
        movq    %rdx, 272(%rax)
        movq    %r8, 280(%rax)
        movq    %r9, 288(%rax)
        movq    %r10, 296(%rax)
        movq    %r11, 304(%rax)
        movq    %rbx, 312(%rax)
        movq    %rsi, 320(%rax)
        movq    %rdi, 328(%rax)
        movq    %r12, 336(%rax)
        movq    %r13, 344(%rax)
        movq    %r14, 352(%rax)
        movq    %r15, 360(%rax)
        movq    -248(%rbp), %rcx
        movq    %rcx, 256(%rax)
        movdqu  -224(%rbp), %xmm6
        movdqu  -208(%rbp), %xmm7
        movdqu  -192(%rbp), %xmm8
        movdqu  -176(%rbp), %xmm9
        movdqu  -160(%rbp), %xmm10
        movdqu  -144(%rbp), %xmm11
        movdqu  -128(%rbp), %xmm12
        movdqu  -112(%rbp), %xmm13
        movdqu  -96(%rbp), %xmm14
        movdqu  -80(%rbp), %xmm15
        leaq    -56(%rbp), %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rdi
        popq    %rsi
        popq    %rbx
        popq    %rbp
        ret

