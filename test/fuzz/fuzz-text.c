/*
 * libFuzzer target for the ilmap tool's text map format
 * (tools/text_map.h): any bytes as a map file. Checked:
 *  - a refused file names a line that exists (1 .. the number of lines);
 *  - an accepted file has at most one entry per line, and its entries,
 *    written back with the formatter, parse to the same entries (and the
 *    formatted text is accepted whole, no line longer than the maximum);
 *  - every accepted file builds a lenient map whose export is the entries
 *    (strict too when ilmap_validate accepts them).
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap.h"
#include "text_map.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ilmap_entry *e = (ilmap_entry *)1;
    size_t n = 7, line = 7;
    text_map_status st = text_map_parse(data, size, &e, &n, &line);
    size_t lines = size ? 1 : 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (st == TEXT_MAP_NOMEM) {
        REQUIRE(e == NULL && n == 0);
        return 0;
    }
    if (st != TEXT_MAP_OK) {
        REQUIRE(st == TEXT_MAP_SYNTAX && e == NULL && n == 0 && line >= 1 && line <= lines);
        return 0;
    }
    REQUIRE(e != NULL && n <= lines && line == 0);

    char *text = malloc(n * TEXT_MAP_LINE_MAX + 1);
    if (text) {
        size_t len = 0;
        for (size_t i = 0; i < n; i++) {
            size_t k = text_map_format_entry(text + len, &e[i]);
            REQUIRE(k > 0 && k <= TEXT_MAP_LINE_MAX && text[len + k - 1] == '\n');
            len += k;
        }
        ilmap_entry *back = NULL;
        size_t nb = 0, bad = 0;
        if (text_map_parse((const uint8_t *)text, len, &back, &nb, &bad) == TEXT_MAP_OK) {
            REQUIRE(nb == n && (n == 0 || memcmp(back, e, n * sizeof *e) == 0));
            free(back);
        } else {
            REQUIRE(back == NULL && bad == 0); /* only NOMEM may refuse our own text */
        }
        free(text);
    }

    ilmap *m = NULL;
    if (ilmap_create(e, n, ILMAP_LENIENT, &m) == ILMAP_OK) {
        ilmap_entry *out = malloc((n ? n : 1) * sizeof *out);
        size_t total = 0;
        if (out) {
            REQUIRE(ilmap_export(m, n, &total, out) == ILMAP_OK && total == n);
            REQUIRE(n == 0 || memcmp(out, e, n * sizeof *e) == 0);
            free(out);
        }
        ilmap_free(m);
    }
    ilmap_defect d;
    if (ilmap_validate(e, n, &d, NULL) == ILMAP_OK) {
        ilmap_status cs = ilmap_create(e, n, 0, &m);
        REQUIRE(cs == ILMAP_OK || cs == ILMAP_E_NOMEM);
        ilmap_free(m);
    }
    free(e);
    return 0;
}
