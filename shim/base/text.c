#include "base/text.h"

#include <stdio.h>
#include <string.h>

static int put16(WCHAR *out, size_t cap, size_t *at, uint32_t unit)
{
    if (*at + 1 >= cap)
        return 1;
    out[(*at)++] = (WCHAR)unit;
    return 0;
}

int shim_utf8_to_utf16(const char *in, WCHAR *out, size_t cap)
{
    if (!in || !out || cap == 0)
        return 1;
    size_t at = 0;
    const unsigned char *p = (const unsigned char *)in;
    while (*p) {
        uint32_t cp;
        int extra;
        if (*p < 0x80) {
            cp = *p;
            extra = 0;
        } else if ((*p & 0xE0) == 0xC0) {
            cp = *p & 0x1Fu;
            extra = 1;
        } else if ((*p & 0xF0) == 0xE0) {
            cp = *p & 0x0Fu;
            extra = 2;
        } else if ((*p & 0xF8) == 0xF0) {
            cp = *p & 0x07u;
            extra = 3;
        } else {
            goto bad;
        }
        p++;
        for (int i = 0; i < extra; i++, p++) {
            if ((*p & 0xC0) != 0x80)
                goto bad;
            cp = cp << 6 | (*p & 0x3Fu);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            goto bad;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            if (put16(out, cap, &at, 0xD800 | (cp >> 10)) ||
                put16(out, cap, &at, 0xDC00 | (cp & 0x3FF)))
                goto bad;
        } else if (put16(out, cap, &at, cp)) {
            goto bad;
        }
    }
    out[at] = 0;
    return 0;
bad:
    out[0] = 0;
    return 1;
}

static int put8(char *out, size_t cap, size_t *at, uint32_t cp)
{
    unsigned char buf[4];
    size_t n;
    if (cp < 0x80) {
        buf[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        buf[0] = (unsigned char)(0xC0 | cp >> 6);
        buf[1] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        buf[0] = (unsigned char)(0xE0 | cp >> 12);
        buf[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        buf[2] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        buf[0] = (unsigned char)(0xF0 | cp >> 18);
        buf[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        buf[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        buf[3] = (unsigned char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (*at + n >= cap)
        return 1;
    for (size_t i = 0; i < n; i++)
        out[(*at)++] = (char)buf[i];
    return 0;
}

void shim_utf16_to_utf8(const WCHAR *in, size_t n, char *out, size_t cap)
{
    if (!out || cap == 0)
        return;
    size_t at = 0;
    for (size_t i = 0; in && i < n && in[i]; i++) {
        uint32_t cp = in[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && in[i + 1] >= 0xDC00 &&
            in[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (in[i + 1] - 0xDC00u);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        if (put8(out, cap, &at, cp))
            break;
    }
    out[at] = '\0';
}

void shim_json_escape(char *out, size_t cap, const char *in)
{
    if (!out || cap == 0)
        return;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
        char tmp[8];
        size_t n;
        if (*p == '"' || *p == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)*p;
            n = 2;
        } else if (*p < 0x20) {
            n = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", *p);
        } else {
            tmp[0] = (char)*p;
            n = 1;
        }
        if (o + n >= cap)
            break;
        memcpy(out + o, tmp, n);
        o += n;
    }
    out[o] = '\0';
}
