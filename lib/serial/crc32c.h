/* The portable CRC-32C, for tests that compare it with the CPU's. */
#ifndef ILMAP_SERIAL_CRC32C_H
#define ILMAP_SERIAL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap-serial.h"

uint32_t crc32c_portable(uint32_t crc, const uint8_t *p, size_t size);

#endif
