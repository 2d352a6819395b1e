/* Text: UTF-8 <-> UTF-16 for metadata names (the profiling API speaks
 * UTF-16 everywhere, doc/profiling-abi.md; configuration, logs and method
 * names speak UTF-8), and JSON-safe copies of names. */
#ifndef SHIM_BASE_TEXT_H
#define SHIM_BASE_TEXT_H

#include <stddef.h>

#include "com/types.h"

/* Converts NUL-terminated UTF-8 into out[0..cap) with a terminating 0.
 * Returns non-zero on invalid input or when it does not fit. */
int shim_utf8_to_utf16(const char *in, WCHAR *out, size_t cap);

/* Converts in[0..n) (stopping early at a 0) into NUL-terminated UTF-8,
 * truncating to cap; unpaired surrogates become U+FFFD. */
void shim_utf16_to_utf8(const WCHAR *in, size_t n, char *out, size_t cap);

/* Copies `in` into out[0..cap) with JSON string escaping, always
 * NUL-terminated, truncating if needed. */
void shim_json_escape(char *out, size_t cap, const char *in);

#endif
