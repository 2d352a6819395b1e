/*
 * The compressed integers of signatures (ECMA-335 II.23.2): unsigned in
 * 1, 2 or 4 bytes by the top bits of the first byte (0xxxxxxx,
 * 10xxxxxx, 110xxxxx; big-endian payload of 7, 14 or 29 bits), signed as
 * the same widths holding the two's complement value rotated left by one
 * bit within the payload (the sign ends in bit 0), and TypeDefOrRef coded
 * indexes (an unsigned value: tag in the low 2 bits, row above).
 *
 * Readers accept only the shortest form of a value (a longer one would
 * not encode back to the same bytes) and read nothing at or past size.
 * Writers produce that form. Pure and allocation-free.
 */
#ifndef ILMAP_SIG_COMPRESSED_H
#define ILMAP_SIG_COMPRESSED_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-sig.h"

/* The largest unsigned value (29 bits) and the signed range. */
#define SIG_UNSIGNED_MAX 0x1FFFFFFFu
#define SIG_SIGNED_MIN (-0x10000000L)
#define SIG_SIGNED_MAX 0x0FFFFFFFL

/* Reads an unsigned value at p[*pos]; on success advances *pos. Returns
 * ILMAP_SIG_DEFECT_NONE, _TRUNCATED or _COMPRESSED (the defect is at the
 * value's first byte, *pos unchanged). */
ilmap_sig_defect sig_read_unsigned(const uint8_t *p, size_t size, size_t *pos, uint32_t *value);

/* The same for a signed value. */
ilmap_sig_defect sig_read_signed(const uint8_t *p, size_t size, size_t *pos, int32_t *value);

/* A TypeDefOrRef coded index as a full token (table << 24 | row); tag 3
 * or a row beyond 24 bits is ILMAP_SIG_DEFECT_TOKEN. */
ilmap_sig_defect sig_read_type_token(const uint8_t *p, size_t size, size_t *pos,
                                     uint32_t *token);

/* Writes value's shortest form to out (room for 4 bytes); returns the
 * byte count, 0 when value > SIG_UNSIGNED_MAX. */
size_t sig_write_unsigned(uint8_t out[4], uint32_t value);

/* The same for a signed value; 0 outside [SIG_SIGNED_MIN, SIG_SIGNED_MAX]. */
size_t sig_write_signed(uint8_t out[4], int32_t value);

/* A token of TypeDef, TypeRef or TypeSpec as its coded index; 0 bytes
 * for a token of another table. */
size_t sig_write_type_token(uint8_t out[4], uint32_t token);

#endif
