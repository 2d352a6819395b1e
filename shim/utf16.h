/* UTF-8 <-> UTF-16 for metadata names (the API speaks UTF-16 everywhere,
 * clr-abi.md §0; configuration and the report speak UTF-8). */
#ifndef SHIM_UTF16_H
#define SHIM_UTF16_H

#include <stddef.h>

#include "com/types.h"

/* Converts NUL-terminated UTF-8 into out[0..cap) with a terminating 0.
 * Returns non-zero on invalid input or when it does not fit. */
int shim_utf8_to_utf16(const char *in, WCHAR *out, size_t cap);

/* Converts in[0..n) (stopping early at a 0) into NUL-terminated UTF-8,
 * truncating to cap; unpaired surrogates become U+FFFD. */
void shim_utf16_to_utf8(const WCHAR *in, size_t n, char *out, size_t cap);

#endif
