/*
 * Test helpers for the Windows x86 ELT stubs (test-elt-stubs.c).
 *
 *   void elt_probe(void *stub, uintptr_t id, const uint64_t in[24], uint64_t out[24]);
 *     calls stub as JIT-compiled code does (the ID pushed, the hook
 *     __stdcall: it pops it) with every register of in[] loaded and one
 *     value on the x87 stack (a float return value), and stores them in
 *     out[] afterwards: [0..15] xmm0-xmm7 (2 words each), [16..21] eax
 *     ecx edx ebx esi edi (low 32 bits), [22] the x87 value (a double's
 *     bits), [23] (out only) ESP after the call minus ESP before the push
 *     of the ID (0: the stub popped its argument, no more, no less). in
 *     and out 16-byte aligned.
 */
        .text
        .globl _elt_probe
        .def _elt_probe; .scl 2; .type 32; .endef
        .p2align 4
_elt_probe:
        pushl   %ebp
        movl    %esp, %ebp
        pushl   %ebx                    /* -4 */
        pushl   %esi                    /* -8 */
        pushl   %edi                    /* -12 */
        subl    $16, %esp               /* esp before -16, after -20, eax -24 */
        movl    16(%ebp), %esi          /* in */
        movdqa  0(%esi), %xmm0
        movdqa  16(%esi), %xmm1
        movdqa  32(%esi), %xmm2
        movdqa  48(%esi), %xmm3
        movdqa  64(%esi), %xmm4
        movdqa  80(%esi), %xmm5
        movdqa  96(%esi), %xmm6
        movdqa  112(%esi), %xmm7
        fldl    176(%esi)
        movl    128(%esi), %eax
        movl    136(%esi), %ecx
        movl    144(%esi), %edx
        movl    152(%esi), %ebx
        movl    168(%esi), %edi
        movl    160(%esi), %esi
        movl    %esp, -16(%ebp)
        pushl   12(%ebp)                /* the ID */
        call    *8(%ebp)
        movl    %esp, -20(%ebp)
        movl    %eax, -24(%ebp)
        movl    20(%ebp), %eax          /* out */
        movdqa  %xmm0, 0(%eax)
        movdqa  %xmm1, 16(%eax)
        movdqa  %xmm2, 32(%eax)
        movdqa  %xmm3, 48(%eax)
        movdqa  %xmm4, 64(%eax)
        movdqa  %xmm5, 80(%eax)
        movdqa  %xmm6, 96(%eax)
        movdqa  %xmm7, 112(%eax)
        fstpl   176(%eax)
        movl    %ecx, 136(%eax)
        movl    %edx, 144(%eax)
        movl    %ebx, 152(%eax)
        movl    %esi, 160(%eax)
        movl    %edi, 168(%eax)
        movl    -24(%ebp), %ecx
        movl    %ecx, 128(%eax)
        movl    -20(%ebp), %ecx
        subl    -16(%ebp), %ecx
        movl    %ecx, 184(%eax)
        leal    -12(%ebp), %esp
        popl    %edi
        popl    %esi
        popl    %ebx
        popl    %ebp
        ret

