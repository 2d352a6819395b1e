/*
 * Set-up for the x86-64 System V stubs (elt_hooks_x86_64_sysv.S): which
 * extended-state components they save. Written once, before the runtime
 * can call a stub, then only read.
 */
#include <cpuid.h>

#include "platform/elt_hooks.h"

/* The stubs' XSAVE component mask; 0 means FXSAVE (x87 + SSE only). */
uint64_t shim_elt_xsave_mask;

void shim_elt_enter_stub(FunctionIDOrClientID id);
void shim_elt_leave_stub(FunctionIDOrClientID id);
void shim_elt_tailcall_stub(FunctionIDOrClientID id);

/* The stubs keep 4096 bytes of state on the stack. */
#define STATE_BYTES 4096u

/* x87 (0), SSE (1), AVX (2), AVX-512 opmask (5), ZMM_Hi256 (6),
 * Hi16_ZMM (7): every register a compiler may use in C code. */
#define WANTED 0xE7u

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Bytes of an XSAVE area (standard form) holding the components of mask. */
static uint32_t area_bytes(uint64_t mask)
{
    uint32_t end = 576; /* legacy area + header */
    for (unsigned i = 2; i < 64; i++) {
        unsigned a, b, c, d;
        if (!(mask >> i & 1))
            continue;
        if (!__get_cpuid_count(0xD, i, &a, &b, &c, &d))
            return UINT32_MAX;
        if (b + a > end)
            end = b + a;
    }
    return end;
}

static uint64_t choose_mask(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & bit_XSAVE) || !(c & bit_OSXSAVE))
        return 0;
    uint64_t mask = read_xcr0() & WANTED;
    if (area_bytes(mask) > STATE_BYTES)
        mask &= 0x7u; /* without AVX-512 */
    if (area_bytes(mask) > STATE_BYTES)
        return 0;
    return mask;
}

int shim_elt_hooks_get(shim_elt_hooks *out)
{
    if (!out)
        return 0;
    shim_elt_xsave_mask = choose_mask();
    out->enter = shim_elt_enter_stub;
    out->leave = shim_elt_leave_stub;
    out->tailcall = shim_elt_tailcall_stub;
    out->how = shim_elt_xsave_mask ? "xsave" : "fxsave";
    return 1;
}
