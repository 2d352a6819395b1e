/*
 * Fast-path ELT hooks for Windows x86 (32-bit); see elt_hooks.h.
 *
 * The JIT pushes the FunctionIDOrClientID and calls the hook, which is
 * __stdcall: it pops the ID on return (ret $4). The enter and leave
 * hooks must keep every register (the JIT's kill set for them is empty:
 * eax, ecx, edx, the x87 stack, where a float return value is, and
 * xmm0-7); the tailcall hook may change eax and xmm0-7 but must keep ecx
 * and edx (dotnet/runtime, targetx86.h). Each stub keeps all of them: it
 * saves eax and ecx, the registers it uses, counts the call in
 * shim_elt_hook_counts (a 64-bit count as two locked 32-bit additions,
 * the low word and then the carry; elt_hooks.h), restores them and
 * returns. It calls nothing and touches no x87 or SSE register.
 *
 * _shim_elt_floor_stub@4, for floor mode, only returns (popping the ID).
 */
#include "platform/elt_hooks.h"

#define TABLE _shim_elt_hook_counts
#define CAPACITY (TABLE + SHIM_ELT_HOOK_CAPACITY_AT * 4)
#define UNKNOWN (TABLE + SHIM_ELT_HOOK_UNKNOWN_AT * 4)

        .text

.macro ELT_STUB name, kind
        .globl \name
        .def \name; .scl 2; .type 32; .endef
        .p2align 4
\name:
        pushl   %eax
        pushl   %ecx
        movl    12(%esp), %ecx          /* the ID, above the saves and the return address */
        movl    TABLE + 4 * \kind, %eax
        testl   %eax, %eax
        jz      2f                      /* no table yet: nothing counted */
        testl   %ecx, %ecx
        jz      1f
        cmpl    CAPACITY, %ecx
        ja      1f
        leal    (%eax,%ecx,8), %eax
3:      lock addl $1, (%eax)
        jnc     2f
        lock addl $1, 4(%eax)
2:      popl    %ecx
        popl    %eax
        ret     $4
1:      movl    UNKNOWN, %eax           /* not a client ID of the mapper */
        jmp     3b
.endm

        ELT_STUB _shim_elt_enter_stub@4, 0
        ELT_STUB _shim_elt_leave_stub@4, 1
        ELT_STUB _shim_elt_tailcall_stub@4, 2

        .globl _shim_elt_floor_stub@4
        .def _shim_elt_floor_stub@4; .scl 2; .type 32; .endef
        .p2align 4
_shim_elt_floor_stub@4:
        ret     $4
