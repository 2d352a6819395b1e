/*
 * Test helpers for the arm64 ELT stubs (test-elt-stubs.c).
 *
 *   void elt_probe(void *stub, uintptr_t id, const uint64_t in[43], uint64_t out[43]);
 *     calls stub as JIT-compiled code does (ID in x10, caller's SP in
 *     x11) with every register of in[] loaded, and stores them in out[]
 *     afterwards: [0..15] q0-q7 (2 words each), [16..24] x0-x8,
 *     [25..34] x19-x28, [35..42] d8-d15; in and out 16-byte aligned.
 */
        .text
        .globl elt_probe
        .type elt_probe, %function
        .p2align 2
elt_probe:
        stp     x29, x30, [sp, #-176]!
        mov     x29, sp
        stp     x19, x20, [sp, #16]
        stp     x21, x22, [sp, #32]
        stp     x23, x24, [sp, #48]
        stp     x25, x26, [sp, #64]
        stp     x27, x28, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        str     x3, [sp, #160]          /* out */
        mov     x12, x0                 /* stub */
        mov     x10, x1                 /* id */
        mov     x9, x2                  /* in */
        ldp     q0, q1, [x9, #0]
        ldp     q2, q3, [x9, #32]
        ldp     q4, q5, [x9, #64]
        ldp     q6, q7, [x9, #96]
        ldp     x19, x20, [x9, #200]
        ldp     x21, x22, [x9, #216]
        ldp     x23, x24, [x9, #232]
        ldp     x25, x26, [x9, #248]
        ldp     x27, x28, [x9, #264]
        ldp     d8, d9, [x9, #280]
        ldp     d10, d11, [x9, #296]
        ldp     d12, d13, [x9, #312]
        ldp     d14, d15, [x9, #328]
        ldp     x0, x1, [x9, #128]
        ldp     x2, x3, [x9, #144]
        ldp     x4, x5, [x9, #160]
        ldp     x6, x7, [x9, #176]
        ldr     x8, [x9, #192]
        mov     x11, sp                 /* the caller's SP */
        blr     x12
        ldr     x9, [x29, #160]         /* out */
        stp     x0, x1, [x9, #128]
        stp     x2, x3, [x9, #144]
        stp     x4, x5, [x9, #160]
        stp     x6, x7, [x9, #176]
        str     x8, [x9, #192]
        stp     q0, q1, [x9, #0]
        stp     q2, q3, [x9, #32]
        stp     q4, q5, [x9, #64]
        stp     q6, q7, [x9, #96]
        stp     x19, x20, [x9, #200]
        stp     x21, x22, [x9, #216]
        stp     x23, x24, [x9, #232]
        stp     x25, x26, [x9, #248]
        stp     x27, x28, [x9, #264]
        stp     d8, d9, [x9, #280]
        stp     d10, d11, [x9, #296]
        stp     d12, d13, [x9, #312]
        stp     d14, d15, [x9, #328]
        ldp     x19, x20, [sp, #16]
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        ldp     x29, x30, [sp], #176
        ret
        .size elt_probe, . - elt_probe

        .section .note.GNU-stack, "", %progbits
