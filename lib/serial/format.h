/* Field offsets of the serialized header (see ilmap-serial.h). */
#ifndef ILMAP_SERIAL_FORMAT_H
#define ILMAP_SERIAL_FORMAT_H

#include "ilmap-serial.h"

#define OFF_MAGIC 0
#define OFF_VERSION 4
#define OFF_KIND 6
#define OFF_FLAGS 8
#define OFF_COUNT 12
#define OFF_CODE_SIZE 16
#define OFF_RESERVED 20
#define OFF_TOTAL 24
#define OFF_CRC 28
#define ENTRY_SIZE 12u

/* The checksum of a whole serialized map: header up to the CRC field,
 * then the entries. */
static inline uint32_t serial_crc(const uint8_t *data, uint32_t count)
{
    uint32_t crc = ilmap_crc32c(0, data, OFF_CRC);
    return ilmap_crc32c(crc, data + ILMAP_SERIAL_HEADER_SIZE, (size_t)count * ENTRY_SIZE);
}

/* Entries stored in place are usable as arrays only on a little-endian
 * host with a 4-byte aligned payload. */
static inline int host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
