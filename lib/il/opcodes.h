/* libilmap's own ECMA-335 opcode table: which bytes start an instruction
 * and what operand follows. */
#ifndef ILMAP_IL_OPCODES_H
#define ILMAP_IL_OPCODES_H

#include <stdint.h>

#include "ilmap-il.h"

/* kind + 1 per opcode byte, 0 where no instruction starts (opcodes.c).
 * Read through the inline functions below: the decoder asks for every
 * instruction, and a call into another file per byte would cost more than
 * the lookup. */
extern const uint8_t opcode_kinds1[256];
extern const uint8_t opcode_kinds2[256];

/* The operand kind (ilmap_il_operand) of one-byte opcode `op`, or -1 when
 * no instruction starts with that byte (0xFE is the two-byte prefix and
 * reports -1 here too). */
static inline int opcode_operand1(uint8_t op)
{
    return (int)opcode_kinds1[op] - 1;
}

/* The same for the second byte of a 0xFE-prefixed opcode. */
static inline int opcode_operand2(uint8_t op)
{
    return (int)opcode_kinds2[op] - 1;
}

/* Bytes of an operand of a fixed-size kind (0 for NONE and SWITCH). */
static inline uint32_t operand_size(int kind)
{
    /* NONE INT8 INT16 INT32 INT64 TOKEN BRANCH8 BRANCH32 SWITCH */
    static const uint8_t sizes[9] = { 0, 1, 2, 4, 8, 4, 1, 4, 0 };
    return kind >= 0 && kind < 9 ? sizes[kind] : 0;
}

/* The long form of a short branch opcode (br.s -> br, leave.s -> leave);
 * 0 for anything else. */
uint8_t opcode_long_branch(uint8_t op);

#endif
