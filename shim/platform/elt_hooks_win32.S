/*
 * Fast-path ELT hooks for Windows x86 (32-bit); see elt_hooks.h.
 *
 * The JIT pushes the FunctionIDOrClientID and calls the hook, which is
 * __stdcall: it pops the ID on return (ret $4). The enter and leave
 * hooks must keep every register (the JIT's kill set for them is empty:
 * eax, ecx, edx, the x87 stack, where a float return value is, and
 * xmm0-7); the tailcall hook may change eax and xmm0-7 but must keep ecx
 * and edx (dotnet/runtime, targetx86.h). Each stub keeps all of them:
 * the tailcall stub costs the same as the others, and one shape is
 * simpler to check. It saves eax, ecx and edx, the x87 and SSE state
 * (FXSAVE, 512 bytes, 16-byte aligned), empties the x87 stack for the C
 * code (FNINIT), calls shim_elt_count(id, kind) and restores everything.
 */
        .text

.macro ELT_STUB name, kind
        .globl \name
        .def \name; .scl 2; .type 32; .endef
        .p2align 4
\name:
        pushl   %ebp
        movl    %esp, %ebp
        pushl   %eax
        pushl   %ecx
        pushl   %edx
        subl    $528, %esp
        andl    $-16, %esp
        fxsave  (%esp)
        fninit
        subl    $8, %esp
        movl    $\kind, 4(%esp)
        movl    8(%ebp), %eax
        movl    %eax, (%esp)
        call    _shim_elt_count
        addl    $8, %esp
        fxrstor (%esp)
        leal    -12(%ebp), %esp
        popl    %edx
        popl    %ecx
        popl    %eax
        popl    %ebp
        ret     $4
.endm

        ELT_STUB _shim_elt_enter_stub@4, 0
        ELT_STUB _shim_elt_leave_stub@4, 1
        ELT_STUB _shim_elt_tailcall_stub@4, 2
