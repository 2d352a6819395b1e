/*
 * ilmap: look at, check, translate through and compose COR_IL_MAP files.
 *
 * A map file is either libilmap's serialized form (ilmap-serial.h, told
 * apart by its magic) or text: one entry per line, "OLD NEW [ACCURATE]",
 * numbers in decimal or 0x hex or the names PROLOG, EPILOG, NO_MAPPING,
 * '#' starting a comment. See usage() for commands and exit codes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/read_file.h"
#include "ilmap-algebra.h"
#include "ilmap-pdb.h"
#include "ilmap-serial.h"
#include "text_map.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_INVALID = 1, /* a map is invalid or malformed */
    EXIT_USAGE = 2,   /* bad command line */
    EXIT_IO = 3,      /* a file could not be read or written */
    EXIT_INEXACT = 4, /* compose --require-exact: not exact in every direction */
    EXIT_INTERNAL = 5 /* out of memory or another library failure */
};

static const char *prog = "ilmap";

static void usage(FILE *to)
{
    fprintf(to, "usage: ilmap show FILE [--lenient]\n"
                "       ilmap validate FILE [--lenient] [--pdb PATH --token T]\n"
                "       ilmap translate FILE (--old N | --new N | --new-dac N) [--lenient]\n"
                "       ilmap compose A B -o OUT [--text] [--lenient] [--require-exact]\n"
                "       ilmap source PATH < QUERIES\n"
                "       ilmap --help | --version\n"
                "\n"
                "FILE is a serialized map (libilmap's binary form, IL or native) or text:\n"
                "one entry per line, \"OLD NEW [ACCURATE]\", numbers decimal or 0x hex or\n"
                "PROLOG / EPILOG / NO_MAPPING, '#' starts a comment.\n"
                "\n"
                "  show       print the entries (text form, loadable again)\n"
                "  validate   check the map: strictly ascending in both offsets (text),\n"
                "             or every header field, the CRC-32C and the entries (serialized);\n"
                "             with --pdb, also that every visible sequence point of method T\n"
                "             in PATH's PDB (as for source) has an entry of its own (exit 1\n"
                "             and each point listed if not: stepping would break there)\n"
                "  translate  one offset through the runtime's rules: --old N original ->\n"
                "             instrumented, --new N back (in-process debugger), --new-dac N\n"
                "             back with the ICorDebug/DAC rules\n"
                "  compose    A maps original -> v1, B maps v1 -> v2 (a second rewriter);\n"
                "             write original -> v2 to OUT, serialized unless --text, and\n"
                "             say in which directions it is exact\n"
                "  source     PATH is a Portable PDB, or a .dll: its PDB is the CodeView\n"
                "             entry's path, or that file name beside PATH, with the DLL's id;\n"
                "             else the embedded PDB; else PATH with .pdb. Reads lines\n"
                "             \"TOKEN IL\" (MethodDef token in 0x hex, IL offset in 0x hex\n"
                "             or decimal) and prints \"TOKEN IL DOCUMENT LINE COLUMN\", or\n"
                "             \"TOKEN IL -\" when the runtime's stack traces show no source;\n"
                "             a query it cannot answer gets a line \"error line N: ...\"\n"
                "             and the exit status, at the end, is that of the first failure\n"
                "\n"
                "  --lenient        accept maps that are not strictly ascending, answering\n"
                "                   as the runtime's linear scan does\n"
                "  --require-exact  compose fails (exit 4) unless exact in every direction\n"
                "\n"
                "exit status: 0 success; 1 invalid or malformed map, PDB or DLL (or the\n"
                "PDB is not the DLL's); 2 usage error (a malformed query line too);\n"
                "3 file not readable or writable; 4 composition not exact (with\n"
                "--require-exact); 5 out of memory or internal error (or an embedded\n"
                "PDB in a build without zlib)\n");
}

static int fail(int code, const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return code;
}

/* The whole file; NULL with errno on failure (ENOMEM: out of memory). */
static uint8_t *read_file(const char *path, size_t *size)
{
    return common_read_file(path, size, NULL);
}

static int parse_number(const char *s, uint32_t *out)
{
    return text_map_parse_value((const uint8_t *)s, strlen(s), out);
}

static void print_offset(FILE *to, uint32_t v)
{
    char buf[12];
    fwrite(buf, 1, text_map_format_offset(buf, v), to);
}

/* A loaded file: an IL map's entries (text or kind 1) or a native view. */
typedef struct loaded {
    ilmap_entry *entries;
    size_t count;
    int serialized;
    int lenient_header; /* kind 1 written from a lenient map */
    uint8_t *bytes;     /* the file, kept for native views */
    ilmap_view view;    /* kind 2 */
} loaded;

static void loaded_free(loaded *l)
{
    free(l->entries);
    free(l->bytes);
}

static int is_serialized(const uint8_t *b, size_t n)
{
    if (n < 4)
        return 0;
    uint32_t magic =
        (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return magic == ILMAP_SERIAL_MAGIC || magic == ILMAP_SERIAL_MAGIC_SWAPPED;
}

static int parse_text(const char *path, const uint8_t *b, size_t n, loaded *l)
{
    size_t line;
    text_map_status st = text_map_parse(b, n, &l->entries, &l->count, &line);
    if (st == TEXT_MAP_NOMEM)
        return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
    if (st != TEXT_MAP_OK) {
        fprintf(stderr,
                "%s: %s:%zu: expected \"OLD NEW [ACCURATE]\" with 32-bit unsigned "
                "numbers (decimal or 0x hex) or PROLOG/EPILOG/NO_MAPPING\n",
                prog, path, line);
        return EXIT_INVALID;
    }
    return EXIT_OK;
}

static int load(const char *path, loaded *l)
{
    memset(l, 0, sizeof *l);
    size_t n = 0;
    l->bytes = read_file(path, &n);
    if (!l->bytes && errno == ENOMEM)
        return fail(EXIT_INTERNAL, "cannot read %s: %s", path, strerror(errno));
    if (!l->bytes)
        return fail(EXIT_IO, "cannot read %s: %s", path, strerror(errno));
    if (!is_serialized(l->bytes, n))
        return parse_text(path, l->bytes, n, l);

    l->serialized = 1;
    ilmap_serial_error err;
    ilmap_status st = ilmap_view_open(l->bytes, n, 0, &l->view, &err);
    if (st == ILMAP_E_NOMEM)
        return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
    if (st != ILMAP_OK) {
        fprintf(stderr, "%s: %s: refused: %s", prog, path, ilmap_serial_defect_str(err.defect));
        if (err.index != ILMAP_NO_INDEX)
            fprintf(stderr, " (entry %zu", err.index);
        else
            fprintf(stderr, " (byte %zu", err.offset);
        if (err.cause != ILMAP_E_FORMAT && err.cause != ILMAP_OK)
            fprintf(stderr, ": %s", ilmap_status_str(err.cause));
        fprintf(stderr, ")\n");
        return EXIT_INVALID;
    }
    if (l->view.kind == ILMAP_SERIAL_KIND_IL) {
        l->count = l->view.count;
        l->lenient_header = (l->view.flags & ILMAP_SERIAL_FLAG_LENIENT) != 0;
        l->entries = malloc((l->count ? l->count : 1) * sizeof *l->entries);
        if (!l->entries)
            return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
        for (size_t i = 0; i < l->count; i++)
            ilmap_view_get_entry(&l->view, i, &l->entries[i]);
    }
    return EXIT_OK;
}

/* An indexed IL map from a loaded file; strict unless allowed. */
static int build(const char *path, const loaded *l, int lenient, ilmap **out)
{
    *out = NULL;
    if (l->serialized && l->view.kind != ILMAP_SERIAL_KIND_IL)
        return fail(EXIT_INVALID, "%s: an IL-to-native map; this command needs a COR_IL_MAP%s",
                    path, "");
    size_t bad;
    ilmap_defect d;
    (void)ilmap_validate(l->entries, l->count, &d, &bad);
    if (d != ILMAP_DEFECT_NONE && !lenient && !l->lenient_header) {
        fprintf(stderr, "%s: %s: entry %zu (%lu -> %lu): %s (use --lenient to accept it)\n", prog,
                path, bad, (unsigned long)l->entries[bad].old_offset,
                (unsigned long)l->entries[bad].new_offset, ilmap_defect_str(d));
        return EXIT_INVALID;
    }
    unsigned flags = d != ILMAP_DEFECT_NONE ? ILMAP_LENIENT : 0;
    ilmap_status st = ilmap_create(l->entries, l->count, flags, out);
    if (st != ILMAP_OK)
        return fail(st == ILMAP_E_NOMEM ? EXIT_INTERNAL : EXIT_INVALID, "%s: %s", path,
                    ilmap_status_str(st));
    return EXIT_OK;
}

static void print_entries(FILE *to, const ilmap_entry *e, size_t n)
{
    char line[TEXT_MAP_LINE_MAX];
    for (size_t i = 0; i < n; i++)
        fwrite(line, 1, text_map_format_entry(line, &e[i]), to);
}

static int cmd_show(const char *path, int lenient)
{
    loaded l;
    int rc = load(path, &l);
    if (rc == EXIT_OK && l.serialized && l.view.kind == ILMAP_SERIAL_KIND_NATIVE) {
        printf(
            "# IL-to-native map: %lu entries, code size %lu (il_offset native_start native_end)\n",
            (unsigned long)l.view.count, (unsigned long)l.view.code_size);
        for (uint32_t i = 0; i < l.view.count; i++) {
            ilmap_native_entry e;
            ilmap_view_get_native_entry(&l.view, i, &e);
            print_offset(stdout, e.il_offset);
            printf(" %lu %lu\n", (unsigned long)e.native_start, (unsigned long)e.native_end);
        }
    } else if (rc == EXIT_OK) {
        ilmap *m;
        rc = build(path, &l, lenient, &m);
        if (rc == EXIT_OK) {
            printf("# COR_IL_MAP: %zu entries, %s, %s (old new accurate)\n", l.count,
                   (ilmap_get_flags(m) & ILMAP_LENIENT) ? "lenient" : "strict",
                   l.serialized ? "serialized" : "text");
            print_entries(stdout, l.entries, l.count);
            ilmap_free(m);
        }
    }
    loaded_free(&l);
    return rc;
}

static int check_against_pdb(const char *path, const loaded *l, const char *pdb_path,
                             uint32_t token);

static int cmd_validate(const char *path, int lenient, const char *pdb_path, uint32_t token)
{
    loaded l;
    int rc = load(path, &l);
    if (rc == EXIT_OK && pdb_path && l.serialized && l.view.kind == ILMAP_SERIAL_KIND_NATIVE) {
        rc = fail(EXIT_INVALID, "%s: an IL-to-native map; --pdb needs a COR_IL_MAP%s", path, "");
    } else if (rc == EXIT_OK && l.serialized && l.view.kind == ILMAP_SERIAL_KIND_NATIVE) {
        printf("%s: valid IL-to-native map, %lu entries, code size %lu\n", path,
               (unsigned long)l.view.count, (unsigned long)l.view.code_size);
    } else if (rc == EXIT_OK) {
        ilmap *m;
        rc = build(path, &l, lenient, &m);
        if (rc == EXIT_OK)
            printf("%s: valid %s COR_IL_MAP, %zu entries\n", path,
                   (ilmap_get_flags(m) & ILMAP_LENIENT) ? "lenient" : "strict", l.count);
        ilmap_free(m);
        if (rc == EXIT_OK && pdb_path)
            rc = check_against_pdb(path, &l, pdb_path, token);
    }
    loaded_free(&l);
    return rc;
}

static int cmd_translate(const char *path, const char *how, const char *value, int lenient)
{
    uint32_t x;
    if (!parse_number(value, &x))
        return fail(EXIT_USAGE, "%s %s: not a 32-bit unsigned offset", how, value);
    loaded l;
    ilmap *m = NULL;
    int rc = load(path, &l);
    if (rc == EXIT_OK)
        rc = build(path, &l, lenient, &m);
    if (rc == EXIT_OK) {
        uint32_t y = strcmp(how, "--old") == 0   ? ilmap_old_to_new(m, x)
                     : strcmp(how, "--new") == 0 ? ilmap_new_to_old(m, x)
                                                 : ilmap_new_to_old_dac(m, x);
        print_offset(stdout, y);
        fputc('\n', stdout);
    }
    ilmap_free(m);
    loaded_free(&l);
    return rc;
}

/* The composed map as the file's bytes (text or serialized), in memory:
 * every allocation happens before the output file is touched. */
static int output_bytes(const char *path, const ilmap *c, int text, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    size_t n = ilmap_get_count(c);
    if (!text) {
        size_t need;
        ilmap_serialize(c, 0, &need, NULL);
        uint8_t *buf = malloc(need ? need : 1);
        if (!buf)
            return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
        if (ilmap_serialize(c, need, &need, buf) != ILMAP_OK) {
            free(buf);
            return fail(EXIT_INTERNAL, "%s: cannot serialize%s", path, "");
        }
        *out = buf;
        *size = need;
        return EXIT_OK;
    }
    char head[80];
    int hn = snprintf(head, sizeof head, "# COR_IL_MAP composed by ilmap: %zu entries (old new accurate)\n", n);
    if (hn <= 0 || (size_t)hn >= sizeof head || n > (SIZE_MAX - sizeof head) / TEXT_MAP_LINE_MAX)
        return fail(EXIT_INTERNAL, "%s: too many entries%s", path, "");
    ilmap_entry *e = malloc((n ? n : 1) * sizeof *e);
    char *buf = malloc(sizeof head + n * TEXT_MAP_LINE_MAX);
    if (!e || !buf) {
        free(e);
        free(buf);
        return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
    }
    ilmap_export(c, n, &n, e);
    memcpy(buf, head, (size_t)hn);
    size_t len = (size_t)hn;
    for (size_t i = 0; i < n; i++)
        len += text_map_format_entry(buf + len, &e[i]);
    free(e);
    *out = (uint8_t *)buf;
    *size = len;
    return EXIT_OK;
}

/* Writes the composed map to path; on any failure no file is left there
 * (a failed write removes what it created). */
static int write_out(const char *path, const ilmap *c, int text)
{
    uint8_t *bytes;
    size_t size;
    int rc = output_bytes(path, c, text, &bytes, &size);
    if (rc != EXIT_OK)
        return rc;
    FILE *f = fopen(path, text ? "w" : "wb");
    if (!f) {
        int err = errno;
        free(bytes);
        return fail(err == ENOMEM ? EXIT_INTERNAL : EXIT_IO, "cannot write %s: %s", path,
                    strerror(err));
    }
    /* One write from our buffer: stdio needs no buffer of its own. */
    setvbuf(f, NULL, _IONBF, 0);
    int ok = fwrite(bytes, 1, size, f) == size;
    int err = errno;
    ok = !ferror(f) && ok;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    free(bytes);
    if (!ok) {
        remove(path);
        return fail(err == ENOMEM ? EXIT_INTERNAL : EXIT_IO, "cannot write %s: %s", path,
                    strerror(err));
    }
    return EXIT_OK;
}

static int cmd_compose(const char *pa, const char *pb, const char *out, int text, int lenient,
                       int require_exact)
{
    loaded la, lb;
    ilmap *a = NULL, *b = NULL, *c = NULL;
    int rc = load(pa, &la);
    if (rc == EXIT_OK)
        rc = build(pa, &la, lenient, &a);
    int rc_b = load(pb, &lb);
    if (rc == EXIT_OK && rc_b != EXIT_OK)
        rc = rc_b;
    if (rc == EXIT_OK)
        rc = build(pb, &lb, lenient, &b);
    unsigned exact = 0;
    if (rc == EXIT_OK) {
        ilmap_status st = ilmap_compose(a, b, lenient ? ILMAP_LENIENT : 0, &c, &exact);
        if (st == ILMAP_E_UNSORTED)
            rc = fail(EXIT_INVALID,
                      "the composition of %s and %s is not a strict map (use --lenient)", pa, pb);
        else if (st != ILMAP_OK)
            rc = fail(EXIT_INTERNAL, "compose: %s%s", ilmap_status_str(st), "");
    }
    if (rc == EXIT_OK)
        rc = write_out(out, c, text);
    if (rc == EXIT_OK) {
        printf("%s: %zu entries, %s; exact: %s%s%s%s\n", out, ilmap_get_count(c),
               (ilmap_get_flags(c) & ILMAP_LENIENT) ? "lenient" : "strict",
               exact & ILMAP_DIR_OLD_TO_NEW ? "old->new " : "",
               exact & ILMAP_DIR_NEW_TO_OLD ? "new->old " : "",
               exact & ILMAP_DIR_NEW_TO_OLD_DAC ? "new->old(DAC)" : "", exact ? "" : "none");
        if (require_exact && exact != ILMAP_DIR_ALL)
            rc = fail(EXIT_INEXACT, "%s: not exact in every direction%s", out, "");
    }
    ilmap_free(a);
    ilmap_free(b);
    ilmap_free(c);
    loaded_free(&la);
    loaded_free(&lb);
    return rc;
}

/* ---- source: method token + IL offset -> document, line, column ---- */

static int pdb_defect(const char *path, ilmap_status st, const ilmap_pdb_error *e)
{
    if (st == ILMAP_E_NOMEM)
        return fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
    fprintf(stderr, "%s: %s: %s at byte offset %zu\n", prog, path,
            ilmap_pdb_defect_str(e->defect), e->offset);
    return EXIT_INVALID;
}

/* Opens PATH's PDB: a Portable PDB file itself, or an assembly's PDB
 * (ilmap_pdb_open_for_assembly(): CodeView path, embedded, beside).
 * *bytes is what the handle reads when PATH is a PDB (freed by the
 * caller); an assembly's PDB owns its bytes. */
static int open_source(const char *path, ilmap_pdb **pdb, uint8_t **bytes)
{
    size_t size = 0;
    uint8_t *file = read_file(path, &size);
    if (!file)
        return fail(errno == ENOMEM ? EXIT_INTERNAL : EXIT_IO, "cannot read %s: %s", path,
                    strerror(errno));
    ilmap_pdb_error e;
    ilmap_status st;
    if (size < 2 || file[0] != 'M' || file[1] != 'Z') {
        *bytes = file;
        st = ilmap_pdb_open(file, size, pdb, &e);
        return st == ILMAP_OK ? EXIT_OK : pdb_defect(path, st, &e);
    }
    st = ilmap_pdb_open_for_assembly(path, file, size, pdb, NULL, &e);
    free(file);
    if (st == ILMAP_OK)
        return EXIT_OK;
    if (st == ILMAP_E_UNSUPPORTED)
        return fail(EXIT_INTERNAL, "%s: embedded PDB, but this libilmap has no zlib%s", path, "");
    if (st == ILMAP_E_FORMAT && e.defect == ILMAP_PDB_DEFECT_ID_MISMATCH)
        return fail(EXIT_INVALID, "%s: the PDB beside it is not its own (its id differs)%s",
                    path, "");
    if (st == ILMAP_E_NOT_FOUND)
        return fail(EXIT_INVALID, "%s: no embedded PDB and no PDB beside it%s", path, "");
    return pdb_defect(path, st, &e); /* the DLL, or the PDB found for it, is malformed */
}

/* A document's name into *name (grown as needed, capacity *cap). */
static ilmap_status document_name(const ilmap_pdb *pdb, uint32_t document, char **name,
                                  size_t *cap, ilmap_pdb_error *e)
{
    size_t total = 0;
    ilmap_status st = ilmap_pdb_get_document_name(pdb, document, *cap, &total, *name, e);
    /* cap 0 (nothing allocated yet) was a size query */
    if ((st == ILMAP_OK && *cap > 0) || (st != ILMAP_OK && st != ILMAP_E_TRUNCATED))
        return st;
    char *bigger = realloc(*name, total);
    if (!bigger)
        return ILMAP_E_NOMEM;
    *name = bigger;
    *cap = total;
    return ilmap_pdb_get_document_name(pdb, document, *cap, &total, *name, e);
}

/* The blank-delimited field at p as a number (text_map_parse_value(): 0x
 * hex or decimal; only 0x hex when hex is set; never a special's name);
 * *end past the field. */
static int parse_field(const char *p, int hex, uint32_t *v, const char **end)
{
    size_t n = strcspn(p, " \t\r\n");
    *end = p + n;
    int prefixed = n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    return (prefixed || (!hex && p[0] >= '0' && p[0] <= '9')) &&
           text_map_parse_value((const uint8_t *)p, n, v);
}

static int cmd_source(const char *path)
{
    ilmap_pdb *pdb = NULL;
    uint8_t *bytes = NULL;
    int rc = open_source(path, &pdb, &bytes);
    char line[256];
    size_t name_cap = 256;
    char *name = rc == EXIT_OK ? malloc(name_cap) : NULL;
    if (rc == EXIT_OK && !name)
        rc = fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
    ilmap_pdb_lines *lines = NULL;
    unsigned long last_token = 0, lines_token = 0, failed = 0, queries = 0;
    int first_failure = EXIT_OK;
    for (unsigned long n = 1; rc == EXIT_OK && fgets(line, sizeof line, stdin); n++) {
        char *p = line;
        const char *end = NULL;
        uint32_t token = 0, il = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\0')
            continue;
        queries++;
        int ok = parse_field(p, 1, &token, &end) && (*end == ' ' || *end == '\t');
        if (ok) {
            const char *q = end + strspn(end, " \t");
            ok = parse_field(q, 0, &il, &end) && end[strspn(end, " \t\r\n")] == '\0';
        }
        if (!ok) {
            /* Answered, and the rest of the queries too. */
            printf("error line %lu: not \"TOKEN IL\" (TOKEN 0x hex, IL 0x hex or decimal)\n", n);
            failed++;
            if (first_failure == EXIT_OK)
                first_failure = EXIT_USAGE;
            continue;
        }
        ilmap_pdb_sequence_point sp;
        ilmap_pdb_error e;
        ilmap_status st;
        /* A method's second query in a row decodes its blob once
         * (ilmap_pdb_lines) for the rest of the run of queries; the
         * answers are the same. */
        if (lines && token != lines_token) {
            ilmap_pdb_lines_free(lines);
            lines = NULL;
        }
        if (!lines && token == last_token) {
            st = ilmap_pdb_lines_create(pdb, token, &lines);
            if (st == ILMAP_E_NOMEM) {
                rc = fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
                break;
            }
            lines_token = token;
        }
        last_token = token;
        if (lines)
            st = ilmap_pdb_lines_find_source(lines, il, &sp, &e);
        else
            st = ilmap_pdb_find_source(pdb, token, il, &sp, &e);
        if (st == ILMAP_E_NOT_FOUND || st == ILMAP_E_INVALID_ARG) {
            printf("0x%08lx %lu -\n", (unsigned long)token, (unsigned long)il);
            continue;
        }
        if (st == ILMAP_OK)
            st = document_name(pdb, sp.document, &name, &name_cap, &e);
        if (st == ILMAP_E_NOMEM) {
            rc = fail(EXIT_INTERNAL, "%s: out of memory%s", path, "");
            break;
        }
        if (st != ILMAP_OK) {
            /* This method's sequence points (or a document) are defective:
             * said on its line, and the other methods still answered. */
            printf("error line %lu: 0x%08lx %lu: %s at byte offset %zu\n", n, (unsigned long)token,
                   (unsigned long)il, ilmap_pdb_defect_str(e.defect), e.offset);
            failed++;
            if (first_failure == EXIT_OK)
                first_failure = EXIT_INVALID;
            continue;
        }
        printf("0x%08lx %lu %s %u %u\n", (unsigned long)token, (unsigned long)il, name,
               (unsigned)sp.start_line, (unsigned)sp.start_column);
    }
    if (rc == EXIT_OK && ferror(stdin))
        rc = fail(EXIT_IO, "cannot read standard input: %s%s", strerror(errno), "");
    if (rc == EXIT_OK && failed) {
        fprintf(stderr, "%s: %lu of %lu queries not answered (the lines \"error line N\")\n",
                prog, failed, queries);
        rc = first_failure;
    }
    free(name);
    ilmap_pdb_lines_free(lines);
    ilmap_pdb_free(pdb);
    free(bytes);
    return rc;
}

/* validate --pdb: the map-check rule (ilmap_pdb_check_map,
 * doc/source-lines.md#map-check) for one method. */
static int check_against_pdb(const char *path, const loaded *l, const char *pdb_path,
                             uint32_t token)
{
    ilmap_pdb *pdb = NULL;
    uint8_t *bytes = NULL;
    ilmap_pdb_sequence_point *sp = NULL;
    size_t *missing = NULL, n = 0, bad = 0, name_cap = 0;
    char *name = NULL;
    ilmap_pdb_error e;
    int rc = open_source(pdb_path, &pdb, &bytes);
    ilmap_status st = ILMAP_OK;
    if (rc == EXIT_OK)
        st = ilmap_pdb_get_sequence_points(pdb, token, 0, &n, NULL, &e);
    if (rc == EXIT_OK && st == ILMAP_OK) {
        sp = malloc((n ? n : 1) * sizeof *sp);
        missing = malloc((n ? n : 1) * sizeof *missing);
        if (!sp || !missing)
            st = ILMAP_E_NOMEM;
        else if ((st = ilmap_pdb_get_sequence_points(pdb, token, n, &n, sp, &e)) == ILMAP_OK)
            st = ilmap_pdb_check_map(sp, n, l->entries, l->count, n, &bad, missing);
    }
    if (rc == EXIT_OK && st != ILMAP_OK)
        rc = pdb_defect(pdb_path, st, &e);
    for (size_t i = 0; rc == EXIT_OK && i < bad; i++) {
        const ilmap_pdb_sequence_point *p = &sp[missing[i]];
        if ((st = document_name(pdb, p->document, &name, &name_cap, &e)) != ILMAP_OK)
            rc = pdb_defect(pdb_path, st, &e);
        else
            printf("%s: sequence point at IL %u (%s %u %u) has no entry of its own: stepping "
                   "breaks there\n",
                   path, (unsigned)p->il_offset, name, (unsigned)p->start_line,
                   (unsigned)p->start_column);
    }
    if (rc == EXIT_OK) {
        if (bad)
            rc = EXIT_INVALID;
        else
            printf("%s: every visible sequence point of 0x%08lx has its entry (%zu points)\n",
                   path, (unsigned long)token, n);
    }
    free(name);
    free(missing);
    free(sp);
    ilmap_pdb_free(pdb);
    free(bytes);
    return rc;
}

int main(int argc, char **argv)
{
    const char *pos[3] = {NULL, NULL, NULL}, *out = NULL, *how = NULL, *value = NULL;
    const char *pdb_path = NULL, *token_text = NULL;
    int npos = 0, lenient = 0, text = 0, require_exact = 0;

    if (argc < 2)
        return usage(stderr), EXIT_USAGE;
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return usage(stdout), EXIT_OK;
    if (strcmp(argv[1], "--version") == 0)
        return printf("ilmap (libilmap) %s\n", ilmap_version()), EXIT_OK;
    const char *cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--lenient") == 0) {
            lenient = 1;
        } else if (strcmp(a, "--text") == 0) {
            text = 1;
        } else if (strcmp(a, "--require-exact") == 0) {
            require_exact = 1;
        } else if (strcmp(a, "--pdb") == 0 && i + 1 < argc && !pdb_path) {
            pdb_path = argv[++i];
        } else if (strcmp(a, "--token") == 0 && i + 1 < argc && !token_text) {
            token_text = argv[++i];
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc && !out) {
            out = argv[++i];
        } else if ((strcmp(a, "--old") == 0 || strcmp(a, "--new") == 0 ||
                    strcmp(a, "--new-dac") == 0) &&
                   i + 1 < argc && !how) {
            how = a;
            value = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown or incomplete option '%s'\n", prog, a);
            return usage(stderr), EXIT_USAGE;
        } else if (npos < 3) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "%s: too many arguments\n", prog);
            return EXIT_USAGE;
        }
    }
    int fits = 0;
    uint32_t token = 0;
    if (strcmp(cmd, "show") == 0 || strcmp(cmd, "validate") == 0)
        fits = npos == 1 && !out && !how && !text && !require_exact;
    else if (strcmp(cmd, "translate") == 0)
        fits = npos == 1 && how && !out && !text && !require_exact;
    else if (strcmp(cmd, "compose") == 0)
        fits = npos == 2 && out && !how;
    else if (strcmp(cmd, "source") == 0)
        fits = npos == 1 && !out && !how && !text && !require_exact && !lenient;
    else
        return fail(EXIT_USAGE, "unknown command '%s' (try --help)%s", cmd, "");
    if (strcmp(cmd, "validate") == 0 && (pdb_path || token_text)) {
        if (!pdb_path || !token_text || !parse_number(token_text, &token))
            return fail(EXIT_USAGE, "validate: --pdb PATH and --token T (0x hex) go together%s%s",
                        "", "");
        if (token >> 24 != 0x06u)
            return fail(EXIT_USAGE, "--token %s: not a MethodDef token (0x06xxxxxx)%s",
                        token_text, "");
    } else if (pdb_path || token_text) {
        fits = 0;
    }
    if (!fits) {
        fprintf(stderr, "%s: wrong arguments for '%s'\n", prog, cmd);
        return usage(stderr), EXIT_USAGE;
    }
    int rc;
    if (strcmp(cmd, "show") == 0)
        rc = cmd_show(pos[0], lenient);
    else if (strcmp(cmd, "validate") == 0)
        rc = cmd_validate(pos[0], lenient, pdb_path, token);
    else if (strcmp(cmd, "translate") == 0)
        rc = cmd_translate(pos[0], how, value, lenient);
    else if (strcmp(cmd, "source") == 0)
        rc = cmd_source(pos[0]);
    else
        rc = cmd_compose(pos[0], pos[1], out, text, lenient, require_exact);
    /* What was printed must have reached standard output. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int err = errno;
        if (rc == EXIT_OK)
            rc = fail(EXIT_IO, "cannot write standard output: %s%s", strerror(err), "");
    }
    return rc;
}
