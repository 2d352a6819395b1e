/*
 * bench-pdb: method token + IL offset -> source line (ilmap-pdb.h), ns
 * per query on real Portable PDBs, three ways in one run:
 *
 *   find_source  ilmap_pdb_find_source(): stateless, decodes the method's
 *                blob from its start up to the first point past the
 *                offset, on every query;
 *   lines        ilmap_pdb_lines_find_source() on each method's lines,
 *                built beforehand (ilmap_pdb_lines_create(), one per
 *                method; its cost per method is printed too): one binary
 *                search;
 *   naive        what a hand-written reader typically does, written here:
 *                decode the method's whole blob into an array
 *                (ilmap_pdb_get_sequence_points()), then scan it for the
 *                last visible point at or before the offset.
 *
 * Queries: random (method, IL offset) pairs, a fixed seed; methods with
 * sequence points, uniformly; offsets uniform in [0, last point + 16).
 * The PDBs: the fuzz corpus's tiny.pdb, and the PDB embedded in the SDK's
 * FSharp.Compiler.Service.dll when there is one (under /usr/share/dotnet
 * or /usr/lib/dotnet, or the path in $ILMAP_BENCH_PDB_DLL; skipped with a
 * message when absent or when the library has no zlib). The three
 * answers are cross-checked on every query before timing; the exit status
 * says whether the bench ran and agreed, never how fast it was.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#include <dirent.h>
#define HAVE_DIRENT 1
#endif

#include "bench.h"
#include "ilmap-pdb.h"

#define JSON_EXAMPLE                                                                    \
    "{\"op\": \"pdb_source\", \"pdb\": \"tiny.pdb\", \"impl\": \"lines\", \"ns\": 12.3}"

#define QUERIES (1u << 16) /* a power of two */

typedef struct dataset {
    const char *name;
    ilmap_pdb *pdb;
    uint32_t *tokens;        /* methods with sequence points */
    ilmap_pdb_lines **lines; /* one per method */
    size_t methods, points, max_points;
    uint32_t *q_method, *q_il; /* QUERIES each */
    ilmap_pdb_sequence_point *scratch; /* the naive reader's array */
} dataset;

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *b = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        *size = (size_t)n;
    fclose(f);
    return b;
}

/* The methods with points and the random queries. 0 on failure. */
static int dataset_init(dataset *ds, const char *name, ilmap_pdb *pdb)
{
    memset(ds, 0, sizeof *ds);
    ds->name = name;
    ds->pdb = pdb;
    ilmap_pdb_info info;
    if (ilmap_pdb_get_info(pdb, &info) != ILMAP_OK)
        return 0;
    ds->tokens = malloc((info.method_count + 1u) * sizeof *ds->tokens);
    uint32_t *last_il = malloc((info.method_count + 1u) * sizeof *last_il);
    if (!ds->tokens || !last_il) {
        free(last_il);
        return 0;
    }
    ilmap_pdb_sequence_point *buf = NULL;
    size_t cap = 0;
    for (uint32_t row = 1; row <= info.method_count; row++) {
        uint32_t token = 0x06000000u | row;
        size_t total = 0;
        if (ilmap_pdb_get_sequence_points(pdb, token, 0, &total, NULL, NULL) != ILMAP_OK ||
            total == 0)
            continue;
        if (total > cap) {
            ilmap_pdb_sequence_point *b = realloc(buf, total * sizeof *b);
            if (!b)
                break;
            buf = b;
            cap = total;
        }
        if (ilmap_pdb_get_sequence_points(pdb, token, cap, &total, buf, NULL) != ILMAP_OK)
            continue;
        last_il[ds->methods] = buf[total - 1].il_offset;
        ds->tokens[ds->methods++] = token;
        ds->points += total;
        if (total > ds->max_points)
            ds->max_points = total;
    }
    free(buf);
    ds->lines = calloc(ds->methods + 1, sizeof *ds->lines);
    ds->scratch = malloc((ds->max_points + 1) * sizeof *ds->scratch);
    ds->q_method = malloc(QUERIES * sizeof *ds->q_method);
    ds->q_il = malloc(QUERIES * sizeof *ds->q_il);
    if (!ds->lines || !ds->scratch || !ds->q_method || !ds->q_il || ds->methods == 0) {
        free(last_il);
        return 0;
    }
    for (size_t m = 0; m < ds->methods; m++)
        if (ilmap_pdb_lines_create(pdb, ds->tokens[m], &ds->lines[m]) != ILMAP_OK) {
            free(last_il);
            return 0;
        }
    prng rng = prng_init(0x9DB5EED);
    for (size_t i = 0; i < QUERIES; i++) {
        uint32_t m = prng_below(&rng, (uint32_t)ds->methods);
        ds->q_method[i] = m;
        ds->q_il[i] = prng_below(&rng, last_il[m] + 16u);
    }
    free(last_il);
    return 1;
}

static void dataset_free(dataset *ds)
{
    for (size_t m = 0; ds->lines && m < ds->methods; m++)
        ilmap_pdb_lines_free(ds->lines[m]);
    free(ds->lines);
    free(ds->tokens);
    free(ds->scratch);
    free(ds->q_method);
    free(ds->q_il);
    ilmap_pdb_free(ds->pdb);
}

/* The naive reader: the whole blob into an array, then a scan. */
static ilmap_status naive_find(dataset *ds, uint32_t token, uint32_t il,
                               ilmap_pdb_sequence_point *out)
{
    size_t total;
    ilmap_status st =
        ilmap_pdb_get_sequence_points(ds->pdb, token, ds->max_points, &total, ds->scratch, NULL);
    if (st != ILMAP_OK)
        return st;
    const ilmap_pdb_sequence_point *found = NULL;
    for (size_t i = 0; i < total && ds->scratch[i].il_offset <= il; i++)
        if (ds->scratch[i].start_line != ILMAP_PDB_HIDDEN_LINE)
            found = &ds->scratch[i];
    if (!found)
        return ILMAP_E_NOT_FOUND;
    *out = *found;
    return ILMAP_OK;
}

static volatile uint32_t sink;

/* One timed loop for the three readers; each runner passes its reader as
 * a constant, so the loop is compiled once per reader with the call made
 * directly (no function pointer in the timed loop). */
typedef enum reader { READER_FIND_SOURCE, READER_LINES, READER_NAIVE } reader;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline uint64_t run_queries(dataset *ds, uint64_t units, reader r)
{
    uint32_t acc = 0;
    uint64_t t0 = bench_now_ns();
    for (uint64_t u = 0; u < units; u++) {
        size_t i = u & (QUERIES - 1);
        uint32_t token = ds->tokens[ds->q_method[i]];
        ilmap_pdb_sequence_point sp = { 0, 0, 0, 0, 0, 0 };
        if (r == READER_FIND_SOURCE)
            ilmap_pdb_find_source(ds->pdb, token, ds->q_il[i], &sp, NULL);
        else if (r == READER_LINES)
            ilmap_pdb_lines_find_source(ds->lines[ds->q_method[i]], ds->q_il[i], &sp, NULL);
        else
            naive_find(ds, token, ds->q_il[i], &sp);
        acc += sp.start_line;
    }
    uint64_t t = bench_now_ns() - t0;
    sink = acc;
    return t;
}

static uint64_t run_find_source(void *ctx, uint64_t units)
{
    return run_queries(ctx, units, READER_FIND_SOURCE);
}

static uint64_t run_lines(void *ctx, uint64_t units)
{
    return run_queries(ctx, units, READER_LINES);
}

static uint64_t run_naive(void *ctx, uint64_t units)
{
    return run_queries(ctx, units, READER_NAIVE);
}

/* Building: one method's lines per unit, free included. */
static uint64_t run_build(void *ctx, uint64_t units)
{
    dataset *ds = ctx;
    uint64_t t0 = bench_now_ns();
    for (uint64_t u = 0; u < units; u++) {
        ilmap_pdb_lines *l = NULL;
        ilmap_pdb_lines_create(ds->pdb, ds->tokens[u % ds->methods], &l);
        ilmap_pdb_lines_free(l);
    }
    return bench_now_ns() - t0;
}

static int check_dataset(dataset *ds)
{
    for (size_t i = 0; i < QUERIES; i++) {
        uint32_t token = ds->tokens[ds->q_method[i]], il = ds->q_il[i];
        ilmap_pdb_sequence_point a, b, c = { 0, 0, 0, 0, 0, 0 };
        ilmap_status sa = ilmap_pdb_find_source(ds->pdb, token, il, &a, NULL);
        ilmap_status sb = ilmap_pdb_lines_find_source(ds->lines[ds->q_method[i]], il, &b, NULL);
        ilmap_status sc = naive_find(ds, token, il, &c);
        if (sa != sb || sa != sc ||
            (sa == ILMAP_OK && (memcmp(&a, &b, sizeof a) != 0 || memcmp(&a, &c, sizeof a) != 0))) {
            fprintf(stderr, "bench-pdb: %s, 0x%08x IL %u: find_source %d line %u, lines %d line %u, "
                            "naive %d line %u\n",
                    ds->name, token, il, (int)sa, a.start_line, (int)sb, b.start_line, (int)sc,
                    c.start_line);
            return 0;
        }
    }
    return 1;
}

/* The PDB embedded in the SDK's FSharp.Compiler.Service.dll: the path,
 * or NULL. */
static const char *find_fsharp(char *path, size_t cap)
{
    const char *env = getenv("ILMAP_BENCH_PDB_DLL");
    if (env && *env)
        return env;
#if HAVE_DIRENT
    static const char *const roots[] = { "/usr/share/dotnet/sdk", "/usr/lib/dotnet/sdk",
                                         "/usr/lib64/dotnet/sdk" };
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        DIR *d = opendir(roots[r]);
        if (!d)
            continue;
        struct dirent *e;
        int found = 0;
        while (!found && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, cap, "%s/%s/FSharp/FSharp.Compiler.Service.dll", roots[r], e->d_name);
            FILE *f = fopen(path, "rb");
            if (f) {
                fclose(f);
                found = 1;
            }
        }
        closedir(d);
        if (found)
            return path;
    }
#else
    (void)path;
    (void)cap;
#endif
    return NULL;
}

/* Opens a .pdb, or a DLL's embedded PDB (*owned: the inflated bytes). */
static ilmap_pdb *open_pdb(const char *path, int embedded, uint8_t **file, uint8_t **owned)
{
    size_t size = 0;
    ilmap_pdb *pdb = NULL;
    *owned = NULL;
    *file = read_file(path, &size);
    if (!*file) {
        printf("bench-pdb: cannot read %s: skipped\n", path);
        return NULL;
    }
    if (!embedded) {
        if (ilmap_pdb_open(*file, size, &pdb, NULL) != ILMAP_OK)
            printf("bench-pdb: %s is not a Portable PDB: skipped\n", path);
        return pdb;
    }
    ilmap_pdb_pe_info info;
    if (ilmap_pdb_read_pe(*file, size, &info, NULL) != ILMAP_OK || !info.has_embedded) {
        printf("bench-pdb: %s embeds no PDB: skipped\n", path);
        return NULL;
    }
    *owned = malloc(info.pdb_size ? info.pdb_size : 1);
    ilmap_status st = *owned ? ilmap_pdb_inflate(*file, size, &info, *owned, info.pdb_size, NULL)
                             : ILMAP_E_NOMEM;
    if (st == ILMAP_OK)
        st = ilmap_pdb_open(*owned, info.pdb_size, &pdb, NULL);
    if (st != ILMAP_OK)
        printf("bench-pdb: %s: %s: skipped\n", path, ilmap_status_str(st));
    return pdb;
}

static void emit_json(const char *pdb, const char *impl, double ns)
{
    printf("{\"op\": \"pdb_source\", \"pdb\": \"%s\", \"impl\": \"%s\", \"ns\": %.3f}\n", pdb,
           impl, ns);
}

int main(int argc, char **argv)
{
    bench_options opt;
    int rc = bench_parse_options(argc, argv, JSON_EXAMPLE, &opt);
    if (rc)
        return rc < 0 ? 0 : rc;
    char tiny[4096], fsharp[4096];
    snprintf(tiny, sizeof tiny, "%s/test/fuzz/corpus-pdb/tiny.pdb", ILMAP_BENCH_SOURCE_ROOT);
    const struct {
        const char *name, *path;
        int embedded;
    } pdbs[] = {
        { "tiny.pdb", tiny, 0 },
        { "FSharp.Compiler.Service", find_fsharp(fsharp, sizeof fsharp), 1 },
    };
    if (!opt.json)
        printf("bench-pdb: ns per query, random (method, IL offset), best of %d runs of %.0f ms\n\n"
               "%-24s %7s %8s %11s %8s %8s %8s %10s\n",
               opt.budget.reps, (double)opt.budget.min_ns / 1e6, "pdb", "methods", "points",
               "find_source", "lines", "naive", "speedup", "build/meth");
    int failed = 0;
    char memory[2][256] = { "", "" };
    for (size_t p = 0; p < sizeof pdbs / sizeof pdbs[0]; p++) {
        if (!pdbs[p].path) {
            printf("bench-pdb: no %s under /usr/share/dotnet or /usr/lib/dotnet "
                   "($ILMAP_BENCH_PDB_DLL): skipped\n",
                   pdbs[p].name);
            continue;
        }
        uint8_t *file, *owned;
        ilmap_pdb *pdb = open_pdb(pdbs[p].path, pdbs[p].embedded, &file, &owned);
        dataset ds;
        if (pdb && (!dataset_init(&ds, pdbs[p].name, pdb) || !check_dataset(&ds))) {
            fprintf(stderr, "bench-pdb: %s: setup or cross-check failed\n", pdbs[p].name);
            failed = 1;
        } else if (pdb) {
            bench_case cases[3] = { { run_find_source, &ds, 0, 0.0 },
                                    { run_lines, &ds, 0, 0.0 },
                                    { run_naive, &ds, 0, 0.0 } };
            bench_measure(cases, 3, &opt.budget);
            double build = bench_measure_one(run_build, &ds, &opt.budget);
            /* What the version store keeps to answer lines at lookup
             * speed (doc/source-lines.md#store): each method's decoded
             * lines, and 8 bytes of slot per method row of the PDB. */
            size_t bytes = 0, visible = 0;
            for (size_t m = 0; m < ds.methods; m++) {
                bytes += ilmap_pdb_lines_get_memory_bytes(ds.lines[m]);
                visible += ilmap_pdb_lines_get_count(ds.lines[m]);
            }
            ilmap_pdb_info info;
            (void)ilmap_pdb_get_info(pdb, &info);
            size_t slots = (size_t)info.method_count * sizeof(void *);
            double per_point = visible ? (double)(bytes + slots) / (double)visible : 0.0;
            if (opt.json) {
                printf("{\"op\": \"pdb_lines_memory\", \"pdb\": \"%s\", \"methods\": %zu, "
                       "\"rows\": %u, \"visible_points\": %zu, \"bytes\": %zu, "
                       "\"bytes_per_point\": %.2f}\n",
                       ds.name, ds.methods, info.method_count, visible, bytes + slots, per_point);
            } else {
                snprintf(memory[p], sizeof memory[p],
                         "%-24s every method decoded: %zu B for %zu visible points of %zu "
                         "methods + %zu B of slots (%u rows) = %.1f B per point",
                         ds.name, bytes, visible, ds.methods, slots, info.method_count,
                         per_point);
            }
            if (opt.json) {
                emit_json(ds.name, "find_source", cases[0].ns);
                emit_json(ds.name, "lines", cases[1].ns);
                emit_json(ds.name, "naive", cases[2].ns);
                emit_json(ds.name, "lines_create", build);
            } else {
                printf("%-24s %7zu %8zu %11.1f %8.1f %8.1f %7.1fx %10.1f\n", ds.name, ds.methods,
                       ds.points, cases[0].ns, cases[1].ns, cases[2].ns,
                       cases[0].ns / cases[1].ns, build);
            }
        }
        if (pdb)
            dataset_free(&ds);
        free(owned);
        free(file);
    }
    if (!opt.json) {
        printf("\nspeedup: find_source / lines; build/meth: ns per ilmap_pdb_lines_create() + "
               "free, averaged over the methods\n");
        printf("\nmemory of decoded lines (the version store keeps them for each method with a "
               "body, doc/source-lines.md#store):\n");
        for (size_t p = 0; p < 2; p++)
            if (memory[p][0])
                printf("%s\n", memory[p]);
    }
    return failed;
}
