#include "profiler/instrument.h"

#include <stdlib.h>
#include <string.h>

#include "ilmap-il.h"

/* Opcodes after which nothing may be inserted: prefixes bind to the next
 * instruction, and the JIT expects ldftn/ldvirtftn right before the
 * delegate constructor. */
static int binds_to_next(uint16_t opcode)
{
    switch (opcode) {
    case 0xFE12: /* unaligned. */
    case 0xFE13: /* volatile. */
    case 0xFE14: /* tail. */
    case 0xFE16: /* constrained. */
    case 0xFE19: /* no. */
    case 0xFE1E: /* readonly. */
    case 0xFE06: /* ldftn */
    case 0xFE07: /* ldvirtftn */
        return 1;
    default:
        return 0;
    }
}

/* Index of the instruction starting at offset, or n. */
static size_t index_of(const ilmap_il_instr *in, size_t n, uint32_t offset)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (in[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && in[lo].offset == offset ? lo : n;
}

static void mark(unsigned char *want, const ilmap_il_instr *in, size_t n, uint32_t offset)
{
    size_t i = index_of(in, n, offset);
    if (i < n)
        want[i] = 1;
}

/* Chooses the instructions that get a probe: want[i] = 1. */
static int choose(const ilmap_il_body *body, const ilmap_il_instr *in, size_t n,
                  uint32_t every, unsigned char *want)
{
    want[0] = 1;
    for (size_t i = 0; i < n; i++) {
        if (every && i % every == 0)
            want[i] = 1;
        if (in[i].operand == ILMAP_IL_BRANCH8 || in[i].operand == ILMAP_IL_BRANCH32)
            mark(want, in, n, in[i].target);
        for (uint32_t t = 0; in[i].operand == ILMAP_IL_SWITCH && t < in[i].target; t++) {
            uint32_t target = 0;
            if (ilmap_il_switch_target(body->code, body->code_size, &in[i], t, &target) ==
                ILMAP_OK)
                mark(want, in, n, target);
        }
    }
    for (uint32_t c = 0; c < body->eh_count; c++) {
        ilmap_il_clause clause;
        if (ilmap_il_body_get_clause(body, c, &clause) != ILMAP_OK)
            return 1;
        mark(want, in, n, clause.try_offset);
        mark(want, in, n, clause.handler_offset);
        if (clause.flags & ILMAP_IL_CLAUSE_FILTER)
            mark(want, in, n, clause.class_or_filter);
    }
    /* Never between a prefix and its instruction, and never between a
     * tail. call and its ret (the JIT requires them adjacent). */
    for (size_t i = 1; i < n; i++) {
        if (binds_to_next(in[i - 1].opcode))
            want[i] = 0;
        if (i >= 2 && in[i - 2].opcode == 0xFE14)
            want[i] = 0;
    }
    return 0;
}

static int new_starts_of(const uint8_t *bytes, size_t size, shim_instrumented *out)
{
    ilmap_il_body nb;
    size_t total = 0;
    if (ilmap_il_body_parse(bytes, size, &nb) != ILMAP_OK ||
        ilmap_il_starts(nb.code, nb.code_size, 0, &total, NULL, NULL) != ILMAP_OK)
        return 1;
    out->new_starts = malloc((total ? total : 1) * sizeof *out->new_starts);
    if (!out->new_starts ||
        ilmap_il_starts(nb.code, nb.code_size, total, &total, out->new_starts, NULL) != ILMAP_OK)
        return 1;
    out->new_start_count = total;
    return 0;
}

/* A rewrite's body and map copied into *out, with the new code's
 * instruction starts; 0, or 1 with *why. */
static int take_rewrite(const ilmap_rewrite *rw, const char *how, shim_instrumented *out,
                        const char **why)
{
    size_t new_size = 0, entries = 0;
    const uint8_t *bytes = ilmap_rewrite_get_body(rw, &new_size);
    const ilmap_entry *map = ilmap_rewrite_get_entries(rw, &entries);
    ilmap_rewrite_info info;
    ilmap_rewrite_get_info(rw, &info);
    out->body = malloc(new_size ? new_size : 1);
    out->map = malloc((entries ? entries : 1) * sizeof *out->map);
    if (!bytes || !out->body || !out->map) {
        *why = "out of memory";
        return 1;
    }
    memcpy(out->body, bytes, new_size);
    out->body_size = new_size;
    memcpy(out->map, map, entries * sizeof *map);
    out->map_count = entries;
    if (new_starts_of(out->body, out->body_size, out)) {
        *why = "the rewritten body does not decode";
        return 1;
    }
    out->widened = info.widened;
    out->how = how;
    return 0;
}

/* The start of both: *why cleared, *out emptied; 1 without an out. */
static int begin_output(shim_instrumented *out, const char **why)
{
    *why = NULL;
    if (!out) {
        *why = "no output";
        return 1;
    }
    memset(out, 0, sizeof *out);
    return 0;
}

int shim_instrument_wrap(const uint8_t *body, size_t size, const ilmap_il_wrap_spec *spec,
                         shim_instrumented *out, const char **why)
{
    const char *ignored;
    if (!why)
        why = &ignored;
    if (begin_output(out, why))
        return 1;
    ilmap_rewrite *rw = NULL;
    ilmap_status st = ilmap_il_wrap_create(body, size, spec, &rw, NULL);
    if (st != ILMAP_OK) {
        *why = st == ILMAP_E_UNSUPPORTED ? "its IL cannot be wrapped (jmp, or ret in a try)"
               : st == ILMAP_E_NOMEM     ? "out of memory"
                                         : "the wrap refused the body";
        return 1;
    }
    int rc = take_rewrite(rw, "wrap", out, why);
    ilmap_rewrite_free(rw);
    if (rc)
        shim_instrumented_free(out);
    return rc;
}

int shim_instrument(const uint8_t *body, size_t size, const shim_probe *probe,
                    shim_instrumented *out, const char **why)
{
    const char *ignored;
    if (!why)
        why = &ignored;
    if (begin_output(out, why))
        return 1;
    if (!body || !size || !probe) {
        *why = "no body";
        return 1;
    }

    ilmap_il_body parsed;
    if (ilmap_il_body_parse(body, size, &parsed) != ILMAP_OK ||
        ilmap_il_body_validate(&parsed, NULL) != ILMAP_OK) {
        *why = "the original body does not parse";
        return 1;
    }
    size_t n = 0;
    if (ilmap_il_decode(parsed.code, parsed.code_size, 0, &n, NULL, NULL) != ILMAP_OK || n == 0) {
        *why = "the original code does not decode";
        return 1;
    }
    ilmap_il_instr *in = malloc(n * sizeof *in);
    unsigned char *want = calloc(n, 1);
    ilmap_il_insertion *ins = malloc(n * sizeof *ins);
    ilmap_rewrite *rw = NULL;
    int rc = 1;
    if (!in || !want || !ins) {
        *why = "out of memory";
        goto done;
    }
    if (ilmap_il_decode(parsed.code, parsed.code_size, n, &n, in, NULL) != ILMAP_OK ||
        choose(&parsed, in, n, probe->every, want)) {
        *why = "the original code does not decode";
        goto done;
    }

    uint8_t code[5];
    uint32_t code_size = 0;
    if (probe->call_token) {
        code[code_size++] = 0x28; /* call */
        for (int i = 0; i < 4; i++)
            code[code_size++] = (uint8_t)(probe->call_token >> (8 * i));
    } else {
        code[code_size++] = 0x00; /* nop */
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (want[i])
            ins[count++] = (ilmap_il_insertion){in[i].offset, code_size, code};

    /* A call to a static void() leaves the stack as it was: no extra depth. */
    if (ilmap_rewrite_create(body, size, ins, count, 0, 0, &rw, NULL) != ILMAP_OK) {
        *why = "the rewriter refused the insertions";
        goto done;
    }
    rc = take_rewrite(rw, probe->call_token ? "call" : "nop", out, why);
    out->probes = (uint32_t)count;
done:
    ilmap_rewrite_free(rw);
    free(in);
    free(want);
    free(ins);
    if (rc)
        shim_instrumented_free(out);
    return rc;
}

void shim_instrumented_free(shim_instrumented *out)
{
    if (!out)
        return;
    free(out->body);
    free(out->map);
    free(out->new_starts);
    memset(out, 0, sizeof *out);
}

COR_IL_MAP *shim_instrumented_cor_map(const shim_instrumented *inst)
{
    size_t n = inst->map_count ? inst->map_count : 1;
    if (n > SIZE_MAX / sizeof(COR_IL_MAP))
        return NULL;
    COR_IL_MAP *entries = malloc(n * sizeof *entries);
    if (!entries)
        return NULL;
    for (size_t i = 0; i < inst->map_count; i++) {
        entries[i].oldOffset = inst->map[i].old_offset;
        entries[i].newOffset = inst->map[i].new_offset;
        entries[i].fAccurate = inst->map[i].accurate;
    }
    return entries;
}
