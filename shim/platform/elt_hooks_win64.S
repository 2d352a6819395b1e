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
 * codegenxarch.cpp). So the enter stub is a plain call of
 * shim_elt_count(id, 0), and the other two save rax and the whole of
 * xmm0 around theirs.
 */
        .text

.macro ELT_ENTER name, kind
        .globl \name
        .def \name; .scl 2; .type 32; .endef
        .p2align 4
\name:
        .seh_proc \name
        subq    $40, %rsp
        .seh_stackalloc 40
        .seh_endprologue
        movl    $\kind, %edx
        call    shim_elt_count
        addq    $40, %rsp
        ret
        .seh_endproc
.endm

.macro ELT_RETURN name, kind
        .globl \name
        .def \name; .scl 2; .type 32; .endef
        .p2align 4
\name:
        .seh_proc \name
        subq    $56, %rsp
        .seh_stackalloc 56
        .seh_endprologue
        movdqa  %xmm0, 32(%rsp)
        movq    %rax, 48(%rsp)
        movl    $\kind, %edx
        call    shim_elt_count
        movq    48(%rsp), %rax
        movdqa  32(%rsp), %xmm0
        addq    $56, %rsp
        ret
        .seh_endproc
.endm

        ELT_ENTER shim_elt_enter_stub, 0
        ELT_RETURN shim_elt_leave_stub, 1
        ELT_RETURN shim_elt_tailcall_stub, 2
