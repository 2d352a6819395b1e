/*
 * The ilmap tool's text format for a COR_IL_MAP (doc/guide.md#tool): one
 * entry per line, "OLD NEW [ACCURATE]", fields separated by blanks, tabs
 * or commas, each a decimal number, 0x followed by hex digits, or one of
 * PROLOG, EPILOG, NO_MAPPING (the special values), ACCURATE also a
 * negative decimal down to -2147483648 (it is an int32_t, as the
 * runtime's BOOL); "#" starts a comment;
 * blank lines are skipped; "\r\n" line ends are fine. Values are 32-bit
 * unsigned. Any other byte (a NUL included) makes the line malformed.
 * The bytes are untrusted: nothing outside [text, text + size) is read.
 */
#ifndef ILMAP_TOOLS_TEXT_MAP_H
#define ILMAP_TOOLS_TEXT_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap.h"

typedef enum text_map_status {
    TEXT_MAP_OK = 0,
    TEXT_MAP_SYNTAX, /* a malformed line: *bad_line says which (1-based) */
    TEXT_MAP_NOMEM
} text_map_status;

/* Parses text[0..size) into a malloc'd array of *count entries (the
 * caller frees it; never NULL on success). On failure *entries is NULL
 * and *count 0. */
text_map_status text_map_parse(const uint8_t *text, size_t size, ilmap_entry **entries,
                               size_t *count, size_t *bad_line);

/* One field p[0..n) as an OLD or NEW value (decimal, 0x hex or a
 * special's name): 1 with *out set, 0 (and *out untouched) otherwise. */
int text_map_parse_value(const uint8_t *p, size_t n, uint32_t *out);

/* The longest line text_map_format_entry writes, its '\n' included. */
#define TEXT_MAP_LINE_MAX 40

/* e as one line of the format, "OLD NEW ACCURATE\n" (specials by name),
 * into buf (TEXT_MAP_LINE_MAX bytes, not NUL-terminated); returns the
 * length. What it writes parses back to e. */
size_t text_map_format_entry(char *buf, const ilmap_entry *e);

/* v as the format writes it (a name for the specials) into buf (at
 * least 12 bytes, not NUL-terminated); returns the length. */
size_t text_map_format_offset(char *buf, uint32_t v);

#endif
