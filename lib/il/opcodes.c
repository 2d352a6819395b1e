/*
 * The opcode table, from ECMA-335 Partition III (the instruction list and
 * the operand type each opcode takes). Stored as kind + 1 so that the
 * zero an unlisted slot gets means "no such opcode": unused bytes
 * (0x24, 0x77, 0x78, 0xA6-0xB2, 0xBB-0xC1, 0xC4, 0xC5, 0xC7-0xCF,
 * 0xE1-0xFF) and unused second bytes are then rejected without listing
 * them.
 */
#include "il/opcodes.h"

#define N (ILMAP_IL_NONE + 1)
#define I1 (ILMAP_IL_INT8 + 1)
#define I2 (ILMAP_IL_INT16 + 1)
#define I4 (ILMAP_IL_INT32 + 1)
#define I8 (ILMAP_IL_INT64 + 1)
#define T (ILMAP_IL_TOKEN + 1)
#define B1 (ILMAP_IL_BRANCH8 + 1)
#define B4 (ILMAP_IL_BRANCH32 + 1)
#define SW (ILMAP_IL_SWITCH + 1)

const uint8_t opcode_kinds1[256] = {
    /* nop break ldarg.0-3 ldloc.0-3 stloc.0-3 */
    [0x00] = N, [0x01] = N, [0x02] = N, [0x03] = N, [0x04] = N, [0x05] = N, [0x06] = N,
    [0x07] = N, [0x08] = N, [0x09] = N, [0x0A] = N, [0x0B] = N, [0x0C] = N, [0x0D] = N,
    /* ldarg.s ldarga.s starg.s ldloc.s ldloca.s stloc.s */
    [0x0E] = I1, [0x0F] = I1, [0x10] = I1, [0x11] = I1, [0x12] = I1, [0x13] = I1,
    /* ldnull, ldc.i4.m1 .. ldc.i4.8 */
    [0x14] = N, [0x15] = N, [0x16] = N, [0x17] = N, [0x18] = N, [0x19] = N, [0x1A] = N,
    [0x1B] = N, [0x1C] = N, [0x1D] = N, [0x1E] = N,
    /* ldc.i4.s ldc.i4 ldc.i8 ldc.r4 ldc.r8 */
    [0x1F] = I1, [0x20] = I4, [0x21] = I8, [0x22] = I4, [0x23] = I8,
    /* dup pop jmp call calli ret */
    [0x25] = N, [0x26] = N, [0x27] = T, [0x28] = T, [0x29] = T, [0x2A] = N,
    /* br.s .. blt.un.s */
    [0x2B] = B1, [0x2C] = B1, [0x2D] = B1, [0x2E] = B1, [0x2F] = B1, [0x30] = B1, [0x31] = B1,
    [0x32] = B1, [0x33] = B1, [0x34] = B1, [0x35] = B1, [0x36] = B1, [0x37] = B1,
    /* br .. blt.un */
    [0x38] = B4, [0x39] = B4, [0x3A] = B4, [0x3B] = B4, [0x3C] = B4, [0x3D] = B4, [0x3E] = B4,
    [0x3F] = B4, [0x40] = B4, [0x41] = B4, [0x42] = B4, [0x43] = B4, [0x44] = B4,
    [0x45] = SW,
    /* ldind.*, stind.*, arithmetic, conv.* up to conv.u8 */
    [0x46] = N, [0x47] = N, [0x48] = N, [0x49] = N, [0x4A] = N, [0x4B] = N, [0x4C] = N,
    [0x4D] = N, [0x4E] = N, [0x4F] = N, [0x50] = N, [0x51] = N, [0x52] = N, [0x53] = N,
    [0x54] = N, [0x55] = N, [0x56] = N, [0x57] = N, [0x58] = N, [0x59] = N, [0x5A] = N,
    [0x5B] = N, [0x5C] = N, [0x5D] = N, [0x5E] = N, [0x5F] = N, [0x60] = N, [0x61] = N,
    [0x62] = N, [0x63] = N, [0x64] = N, [0x65] = N, [0x66] = N, [0x67] = N, [0x68] = N,
    [0x69] = N, [0x6A] = N, [0x6B] = N, [0x6C] = N, [0x6D] = N, [0x6E] = N,
    /* callvirt cpobj ldobj ldstr newobj castclass isinst */
    [0x6F] = T, [0x70] = T, [0x71] = T, [0x72] = T, [0x73] = T, [0x74] = T, [0x75] = T,
    /* conv.r.un, unbox, throw */
    [0x76] = N, [0x79] = T, [0x7A] = N,
    /* ldfld ldflda stfld ldsfld ldsflda stsfld stobj */
    [0x7B] = T, [0x7C] = T, [0x7D] = T, [0x7E] = T, [0x7F] = T, [0x80] = T, [0x81] = T,
    /* conv.ovf.*.un */
    [0x82] = N, [0x83] = N, [0x84] = N, [0x85] = N, [0x86] = N, [0x87] = N, [0x88] = N,
    [0x89] = N, [0x8A] = N, [0x8B] = N,
    /* box newarr ldlen ldelema */
    [0x8C] = T, [0x8D] = T, [0x8E] = N, [0x8F] = T,
    /* ldelem.* and stelem.* */
    [0x90] = N, [0x91] = N, [0x92] = N, [0x93] = N, [0x94] = N, [0x95] = N, [0x96] = N,
    [0x97] = N, [0x98] = N, [0x99] = N, [0x9A] = N, [0x9B] = N, [0x9C] = N, [0x9D] = N,
    [0x9E] = N, [0x9F] = N, [0xA0] = N, [0xA1] = N, [0xA2] = N,
    /* ldelem stelem unbox.any */
    [0xA3] = T, [0xA4] = T, [0xA5] = T,
    /* conv.ovf.i1 .. conv.ovf.u8 */
    [0xB3] = N, [0xB4] = N, [0xB5] = N, [0xB6] = N, [0xB7] = N, [0xB8] = N, [0xB9] = N,
    [0xBA] = N,
    /* refanyval ckfinite mkrefany ldtoken */
    [0xC2] = T, [0xC3] = N, [0xC6] = T, [0xD0] = T,
    /* conv.u2 conv.u1 conv.i conv.ovf.i conv.ovf.u add.ovf* mul.ovf* sub.ovf* endfinally */
    [0xD1] = N, [0xD2] = N, [0xD3] = N, [0xD4] = N, [0xD5] = N, [0xD6] = N, [0xD7] = N,
    [0xD8] = N, [0xD9] = N, [0xDA] = N, [0xDB] = N, [0xDC] = N,
    /* leave leave.s stind.i conv.u */
    [0xDD] = B4, [0xDE] = B1, [0xDF] = N, [0xE0] = N,
};

const uint8_t opcode_kinds2[256] = {
    /* arglist ceq cgt cgt.un clt clt.un ldftn ldvirtftn */
    [0x00] = N, [0x01] = N, [0x02] = N, [0x03] = N, [0x04] = N, [0x05] = N, [0x06] = T,
    [0x07] = T,
    /* ldarg ldarga starg ldloc ldloca stloc */
    [0x09] = I2, [0x0A] = I2, [0x0B] = I2, [0x0C] = I2, [0x0D] = I2, [0x0E] = I2,
    /* localloc endfilter unaligned. volatile. tail. initobj constrained. cpblk initblk no. */
    [0x0F] = N, [0x11] = N, [0x12] = I1, [0x13] = N, [0x14] = N, [0x15] = T, [0x16] = T,
    [0x17] = N, [0x18] = N, [0x19] = I1,
    /* rethrow sizeof refanytype readonly. */
    [0x1A] = N, [0x1C] = T, [0x1D] = N, [0x1E] = N,
};

uint8_t opcode_long_branch(uint8_t op)
{
    /* The short conditional and unconditional branches 0x2B-0x37 sit
     * exactly 13 below their long forms 0x38-0x44. */
    if (op >= 0x2B && op <= 0x37)
        return (uint8_t)(op + 13);
    if (op == 0xDE)
        return 0xDD;
    return 0;
}
