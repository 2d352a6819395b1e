/* The ilmap tool's text map format: parser and formatter (text_map.h). */
#include <stdlib.h>
#include <string.h>

#include "text_map.h"

static int is_separator(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == ',';
}

static int hex_digit(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int is_name(const uint8_t *p, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(p, name, n) == 0;
}

int text_map_parse_value(const uint8_t *p, size_t n, uint32_t *out)
{
    if (is_name(p, n, "PROLOG"))
        return *out = ILMAP_PROLOG, 1;
    if (is_name(p, n, "EPILOG"))
        return *out = ILMAP_EPILOG, 1;
    if (is_name(p, n, "NO_MAPPING"))
        return *out = ILMAP_NO_MAPPING, 1;
    uint64_t v = 0;
    if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        for (size_t i = 2; i < n; i++) {
            int d = hex_digit(p[i]);
            if (d < 0)
                return 0;
            v = v * 16 + (uint64_t)d;
            if (v > UINT32_MAX)
                return 0;
        }
    } else {
        if (n == 0)
            return 0;
        for (size_t i = 0; i < n; i++) {
            if (p[i] < '0' || p[i] > '9')
                return 0;
            v = v * 10 + (uint64_t)(p[i] - '0');
            if (v > UINT32_MAX)
                return 0;
        }
    }
    *out = (uint32_t)v;
    return 1;
}

/* One line p[0..n) without its '\n': 0 blank (or comment only), 1 an
 * entry in *e, -1 malformed. */
static int parse_line(const uint8_t *p, size_t n, ilmap_entry *e)
{
    const uint8_t *hash = memchr(p, '#', n);
    if (hash)
        n = (size_t)(hash - p);
    uint32_t v[3] = { 0, 0, 1 };
    size_t nf = 0, i = 0;
    for (;;) {
        while (i < n && is_separator(p[i]))
            i++;
        if (i == n)
            break;
        size_t start = i;
        while (i < n && !is_separator(p[i]))
            i++;
        if (nf == 3)
            return -1;
        /* ACCURATE (a BOOL, an int32_t) may be written negative. */
        int negative = nf == 2 && p[start] == '-';
        if (!text_map_parse_value(p + start + negative, i - start - (size_t)negative, &v[nf]) ||
            (negative && v[nf] > 0x80000000u))
            return -1;
        if (negative)
            v[nf] = 0u - v[nf];
        nf++;
    }
    if (nf == 0)
        return 0;
    if (nf == 1)
        return -1;
    *e = (ilmap_entry){ v[0], v[1], (int32_t)v[2] };
    return 1;
}

text_map_status text_map_parse(const uint8_t *text, size_t size, ilmap_entry **entries,
                               size_t *count, size_t *bad_line)
{
    *entries = NULL;
    *count = 0;
    *bad_line = 0;
    /* One entry per line at most: count the lines first, so one
     * allocation holds them all (no size can overflow: a line is >= 1
     * byte of input). */
    size_t lines = size ? 1 : 0;
    for (const uint8_t *q = text; (q = memchr(q, '\n', size - (size_t)(q - text))) != NULL; q++)
        lines++;
    if (lines > SIZE_MAX / sizeof(ilmap_entry))
        return TEXT_MAP_NOMEM;
    ilmap_entry *out = malloc((lines ? lines : 1) * sizeof *out);
    if (!out)
        return TEXT_MAP_NOMEM;
    size_t n = 0, line = 0, at = 0;
    while (at < size) {
        const uint8_t *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
        line++;
        int r = parse_line(text + at, len, &out[n]);
        if (r < 0) {
            free(out);
            *bad_line = line;
            return TEXT_MAP_SYNTAX;
        }
        n += (size_t)r;
        at += len + (nl ? 1u : 0u);
    }
    *entries = out;
    *count = n;
    return TEXT_MAP_OK;
}

/* v in decimal into buf; returns the length (at most 10). */
static size_t put_decimal(char *buf, uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = digits[n - 1 - i];
    return n;
}

size_t text_map_format_offset(char *buf, uint32_t v)
{
    const char *name = v == ILMAP_PROLOG       ? "PROLOG"
                       : v == ILMAP_EPILOG     ? "EPILOG"
                       : v == ILMAP_NO_MAPPING ? "NO_MAPPING"
                                               : NULL;
    if (!name)
        return put_decimal(buf, v);
    size_t n = strlen(name);
    memcpy(buf, name, n);
    return n;
}

size_t text_map_format_entry(char *buf, const ilmap_entry *e)
{
    size_t n = text_map_format_offset(buf, e->old_offset);
    buf[n++] = ' ';
    n += text_map_format_offset(buf + n, e->new_offset);
    buf[n++] = ' ';
    /* accurate is an int32_t: its value as a signed decimal. */
    uint32_t a = (uint32_t)e->accurate;
    if (e->accurate < 0) {
        buf[n++] = '-';
        a = 0u - a;
    }
    n += put_decimal(buf + n, a);
    buf[n++] = '\n';
    return n;
}
