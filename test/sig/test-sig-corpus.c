/*
 * Real signatures: every MethodDef, MemberRef, StandAloneSig, TypeSpec,
 * Field, Property and MethodSpec blob of a few framework assemblies,
 * dumped by test/sig/dump (run-corpus.py builds and runs it). Each must
 * decode to the kind its table allows, encode back to the identical
 * bytes, print (sig-dump.h) and classify; each field's static kind must
 * agree with the one the dumper worked out from FieldAttributes and the
 * attribute names.
 *
 * Usage: test-sig-corpus CORPUS. Prints the counts per assembly and kind.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-sig.h"
#include "sig-dump.h"
#include "test.h"

#define MAX_LINE (1u << 20)
#define MAX_ASSEMBLIES 16
#define KINDS "MRSTFPIA"

typedef struct tally {
    char name[128];
    long count[8];
    long failed;
} tally;

static tally tallies[MAX_ASSEMBLIES];
static int assemblies;
static long failures_shown;

static tally *tally_of(const char *name)
{
    for (int i = 0; i < assemblies; i++)
        if (strcmp(tallies[i].name, name) == 0)
            return &tallies[i];
    if (assemblies == MAX_ASSEMBLIES)
        return NULL;
    tally *t = &tallies[assemblies++];
    snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

static void report(const char *what, const char *asm_name, const char *kind, const char *token,
                   const char *hex)
{
    test_failures++;
    if (failures_shown++ < 30)
        fprintf(stderr, "%s %s %s: %s\n  %s\n", asm_name, kind, token, what, hex);
}

/* The kinds each table's blobs may have. */
static int kind_allowed(char table, ilmap_sig_kind k)
{
    switch (table) {
    case 'M': return k == ILMAP_SIG_KIND_METHOD;
    case 'R': return k == ILMAP_SIG_KIND_METHOD || k == ILMAP_SIG_KIND_FIELD;
    case 'S': return k == ILMAP_SIG_KIND_LOCALS || k == ILMAP_SIG_KIND_METHOD;
    case 'T': return k == ILMAP_SIG_KIND_TYPE;
    case 'F': return k == ILMAP_SIG_KIND_FIELD;
    case 'P': return k == ILMAP_SIG_KIND_PROPERTY;
    case 'I': return k == ILMAP_SIG_KIND_METHOD_SPEC;
    default: return 0;
    }
}

static uint8_t blob[MAX_LINE / 2], again[MAX_LINE / 2];
static ilmap_sig_slot slots[1024];

static void check_blob(tally *t, const char *asm_name, const char *kind, const char *token,
                       const char *hex)
{
    long n = hex_bytes(hex, blob, sizeof blob);
    test_checks++;
    if (n < 0) {
        report("bad hex", asm_name, kind, token, hex);
        return;
    }
    ilmap_sig *sig = NULL;
    ilmap_sig_defect defect;
    size_t where;
    unsigned flags = kind[0] == 'T' ? ILMAP_SIG_AS_TYPE : 0;
    ilmap_status st = ilmap_sig_decode(blob, (size_t)n, flags, &sig, &defect, &where);
    if (st != ILMAP_OK) {
        char what[200];
        snprintf(what, sizeof what, "%s: %s at %zu", ilmap_status_str(st),
                 ilmap_sig_defect_str(defect), where);
        report(what, asm_name, kind, token, hex);
        t->failed++;
        return;
    }
    size_t total = 0;
    if (!kind_allowed(kind[0], ilmap_sig_get_kind(sig)))
        report("unexpected kind", asm_name, kind, token, hex);
    else if (ilmap_sig_encode(sig, sizeof again, &total, again) != ILMAP_OK ||
             total != (size_t)n || memcmp(again, blob, (size_t)n) != 0)
        report("encodes to other bytes", asm_name, kind, token, hex);
    else if (ilmap_sig_classify(sig, NULL, ILMAP_SIG_POINTER_8, 1024, &total, slots) != ILMAP_OK)
        report("classify failed", asm_name, kind, token, hex);
    else {
        dump_buf d;
        dump_sig(&d, sig);
        if (strchr(d.text, '?'))
            report("prints with a hole", asm_name, kind, token, hex);
        else
            t->count[strchr(KINDS, kind[0]) - KINDS]++;
    }
    ilmap_sig_free(sig);
}

/* "<flags> <expected> <names>" of an A line. */
static void check_static(tally *t, const char *asm_name, const char *token, char *rest)
{
    char *flags_text = strtok(rest, " "), *expected = strtok(NULL, " "),
         *names_text = strtok(NULL, " \n");
    test_checks++;
    if (!flags_text || !expected || !names_text) {
        report("malformed static line", asm_name, "A", token, "");
        return;
    }
    const char *names[32];
    size_t count = 0;
    if (strcmp(names_text, "-") != 0)
        for (char *p = strtok(names_text, ","); p && count < 32; p = strtok(NULL, ","))
            names[count++] = p;
    ilmap_sig_static kind;
    ilmap_status st = ilmap_sig_static_kind((uint32_t)strtoul(flags_text, NULL, 16), names, count,
                                            &kind);
    const char *got = st == ILMAP_E_FORMAT ? "conflict" : st == ILMAP_OK ? ilmap_sig_static_str(kind) : "error";
    if (strcmp(got, expected) != 0) {
        char what[200];
        snprintf(what, sizeof what, "static kind %s, the dumper says %s", got, expected);
        report(what, asm_name, "A", token, flags_text);
        return;
    }
    t->count[7]++;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test-sig-corpus CORPUS\n");
        return TEST_EXIT_SETUP_FAILURE;
    }
    FILE *f = fopen(argv[1], "r");
    char *line = malloc(MAX_LINE);
    if (!f || !line) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return TEST_EXIT_SETUP_FAILURE;
    }
    long lines = 0;
    while (fgets(line, (int)MAX_LINE, f)) {
        lines++;
        char *asm_name = strtok(line, " "), *kind = strtok(NULL, " "), *token = strtok(NULL, " ");
        char *rest = strtok(NULL, "\n");
        tally *t = asm_name ? tally_of(asm_name) : NULL;
        if (!t || !kind || !token || strlen(kind) != 1 || !strchr(KINDS, kind[0])) {
            fprintf(stderr, "line %ld: malformed\n", lines);
            test_failures++;
            continue;
        }
        if (kind[0] == 'A')
            check_static(t, asm_name, token, rest ? rest : (char *)"");
        else
            check_blob(t, asm_name, kind, token, rest ? rest : "");
    }
    fclose(f);
    free(line);

    long all = 0, fields = 0;
    for (int i = 0; i < assemblies; i++) {
        tally *t = &tallies[i];
        long sum = 0;
        for (int k = 0; k < 7; k++)
            sum += t->count[k];
        all += sum;
        fields += t->count[7];
        printf("%-36s %7ld signatures decoded and re-encoded (M %ld, R %ld, S %ld, T %ld, F %ld, "
               "P %ld, I %ld), %ld static kinds agree\n",
               t->name, sum, t->count[0], t->count[1], t->count[2], t->count[3], t->count[4],
               t->count[5], t->count[6], t->count[7]);
    }
    printf("total: %ld signatures from %d assemblies identical after decode and encode, "
           "%ld field static kinds agree\n", all, assemblies, fields);
    if (all == 0) {
        fprintf(stderr, "the corpus holds no signature\n");
        return TEST_EXIT_SETUP_FAILURE;
    }
    return test_finish("test-sig-corpus");
}
