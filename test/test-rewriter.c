/*
 * The IL side: the opcode table, the decoder and body parser on good and
 * bad input, and the rewriter on random bodies with random insertions,
 * each result decoded again and checked instruction by instruction,
 * branch by branch, clause by clause, against the map it returned.
 */
#include <stdlib.h>
#include <string.h>

#include "il-gen.h"
#include "ilmap-il.h"
#include "test.h"

static void opcode_table(void)
{
    /* Lengths of a few of each kind, from ECMA-335 Partition III. */
    static const struct {
        uint8_t bytes[6];
        uint32_t length;
        int kind;
    } cases[] = {
        { { 0x00 }, 1, ILMAP_IL_NONE },          { { 0x0E, 1 }, 2, ILMAP_IL_INT8 },
        { { 0x1F, 0x80 }, 2, ILMAP_IL_INT8 },    { { 0x20, 1, 2, 3, 4 }, 5, ILMAP_IL_INT32 },
        { { 0x28, 1, 0, 0, 6 }, 5, ILMAP_IL_TOKEN }, { { 0xFE, 0x09, 1, 0 }, 4, ILMAP_IL_INT16 },
        { { 0xFE, 0x12, 4 }, 3, ILMAP_IL_INT8 }, { { 0xFE, 0x16, 1, 0, 0, 2 }, 6, ILMAP_IL_TOKEN },
        { { 0xFE, 0x1E }, 2, ILMAP_IL_NONE },    { { 0xE0 }, 1, ILMAP_IL_NONE },
        { { 0x2B, 0x00 }, 2, ILMAP_IL_BRANCH8 }, { { 0xDE, 0x00 }, 2, ILMAP_IL_BRANCH8 },
        { { 0x38, 0, 0, 0, 0 }, 5, ILMAP_IL_BRANCH32 },
        { { 0x45, 1, 0, 0, 0 }, 5, ILMAP_IL_SWITCH }, /* a target beyond: checked below */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ilmap_il_instr in;
        /* The whole 6 bytes: a branch of delta 0 then lands inside them. */
        ilmap_status st = ilmap_il_decode_one(cases[i].bytes, sizeof cases[i].bytes, 0, &in);
        if (cases[i].kind == ILMAP_IL_SWITCH) {
            CHECK(st == ILMAP_E_IL_TRUNCATED); /* count 1 needs 4 more bytes than 6 */
            continue;
        }
        CHECK(st == ILMAP_OK);
        CHECK_EQ_U32(in.length, cases[i].length);
        CHECK(in.operand == cases[i].kind);
    }

    /* Every byte value: the unused ones are refused, the rest decode. */
    static const uint8_t unused[] = { 0x24, 0x77, 0x78, 0xA6, 0xB2, 0xBB, 0xC1, 0xC4, 0xC5, 0xC7,
                                      0xCF, 0xE1, 0xF0, 0xFF };
    for (size_t i = 0; i < sizeof unused; i++) {
        uint8_t code[16] = { unused[i] };
        ilmap_il_instr in;
        CHECK(ilmap_il_decode_one(code, sizeof code, 0, &in) == ILMAP_E_IL_OPCODE);
        CHECK(in.length == 0);
    }
    static const uint8_t unused2[] = { 0x08, 0x10, 0x1B, 0x1F, 0x22, 0xFF };
    for (size_t i = 0; i < sizeof unused2; i++) {
        uint8_t code[16] = { 0xFE, unused2[i] };
        ilmap_il_instr in;
        CHECK(ilmap_il_decode_one(code, sizeof code, 0, &in) == ILMAP_E_IL_OPCODE);
    }
    int valid1 = 0, valid2 = 0;
    for (int b = 0; b < 256; b++) {
        uint8_t code[16] = { (uint8_t)b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
        uint8_t code2[16] = { 0xFE, (uint8_t)b };
        ilmap_il_instr in;
        if (b != 0xFE) /* the prefix: FE 00 would decode as arglist */
            valid1 += ilmap_il_decode_one(code, sizeof code, 0, &in) == ILMAP_OK;
        valid2 += ilmap_il_decode_one(code2, sizeof code2, 0, &in) == ILMAP_OK;
    }
    /* 0x00-0xE0 minus 0x24, 0x77, 0x78, 0xA6-0xB2 (13), 0xBB-0xC1 (7), 0xC4, 0xC5,
     * 0xC7-0xCF (9): 225 - 34 = 191 one-byte opcodes; 31 - 3 = 28 two-byte. */
    CHECK(valid1 == 191);
    CHECK(valid2 == 28);
}

/* ilmap_il_decode() and ilmap_il_starts() bound to one code stream, for
 * test_copy_out_protocol(). */
typedef struct il_ctx {
    const uint8_t *code;
    size_t size;
} il_ctx;

static ilmap_status decode_call(void *ctx, size_t cap, size_t *total, void *out)
{
    const il_ctx *c = ctx;
    return ilmap_il_decode(c->code, c->size, cap, total, out, NULL);
}

static ilmap_status starts_call(void *ctx, size_t cap, size_t *total, void *out)
{
    const il_ctx *c = ctx;
    return ilmap_il_starts(c->code, c->size, cap, total, out, NULL);
}

static void decoder_errors(void)
{
    ilmap_il_instr in;
    size_t total = 99, bad = 0;

    CHECK(ilmap_il_decode_one(NULL, 4, 0, &in) == ILMAP_E_INVALID_ARG);
    uint8_t nop = 0;
    CHECK(ilmap_il_decode_one(&nop, 1, 1, &in) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_decode_one(&nop, 1, 0, NULL) == ILMAP_E_INVALID_ARG);

    /* Operands running past the end, at every cut. */
    const uint8_t ldc8[] = { 0x21, 1, 2, 3, 4, 5, 6, 7, 8 };
    for (size_t cut = 1; cut < sizeof ldc8; cut++)
        CHECK(ilmap_il_decode_one(ldc8, cut, 0, &in) == ILMAP_E_IL_TRUNCATED);
    const uint8_t fe = 0xFE;
    CHECK(ilmap_il_decode_one(&fe, 1, 0, &in) == ILMAP_E_IL_TRUNCATED);
    /* A switch count near 2^32 must not wrap the length. */
    const uint8_t sw[] = { 0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };
    CHECK(ilmap_il_decode_one(sw, sizeof sw, 0, &in) == ILMAP_E_IL_TRUNCATED);
    const uint8_t sw1[] = { 0x45, 0x40, 0, 0, 0x40, 0, 0, 0, 0 };
    CHECK(ilmap_il_decode_one(sw1, sizeof sw1, 0, &in) == ILMAP_E_IL_TRUNCATED);

    /* Branches: outside the code, or into the middle of an instruction. */
    const uint8_t out_back[] = { 0x2B, 0xF0 };
    CHECK(ilmap_il_decode_one(out_back, 2, 0, &in) == ILMAP_E_IL_BRANCH);
    const uint8_t to_end[] = { 0x2B, 0x00 };
    CHECK(ilmap_il_decode_one(to_end, 2, 0, &in) == ILMAP_E_IL_BRANCH);
    const uint8_t mid[] = { 0x2B, 0x01, 0x20, 1, 2, 3, 4 };
    CHECK(ilmap_il_decode_one(mid, sizeof mid, 0, &in) == ILMAP_OK && in.target == 3);
    CHECK(ilmap_il_decode(mid, sizeof mid, 0, &total, NULL, &bad) == ILMAP_E_IL_BRANCH);
    CHECK(total == 0 && bad == 0);
    const uint8_t sw_mid[] = { 0x45, 1, 0, 0, 0, 1, 0, 0, 0, 0x20, 1, 2, 3, 4 };
    CHECK(ilmap_il_decode(sw_mid, sizeof sw_mid, 0, &total, NULL, &bad) == ILMAP_E_IL_BRANCH);
    const uint8_t sw_ok[] = { 0x45, 2, 0, 0, 0, 0, 0, 0, 0, 0xF3, 0xFF, 0xFF, 0xFF, 0x2A };
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 0, &total, NULL, &bad) == ILMAP_OK);
    CHECK(total == 2 && bad == ILMAP_NO_INDEX);
    ilmap_il_decode_one(sw_ok, sizeof sw_ok, 0, &in);
    uint32_t t = 9;
    CHECK(ilmap_il_switch_target(sw_ok, sizeof sw_ok, &in, 0, &t) == ILMAP_OK && t == 13);
    CHECK(ilmap_il_switch_target(sw_ok, sizeof sw_ok, &in, 1, &t) == ILMAP_OK && t == 0);
    CHECK(ilmap_il_switch_target(sw_ok, sizeof sw_ok, &in, 2, &t) == ILMAP_E_INVALID_ARG && t == 0);

    /* The buffer protocol. */
    ilmap_il_instr two[2];
    uint32_t starts[2];
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 1, &total, two, NULL) == ILMAP_E_TRUNCATED &&
          total == 2);
    CHECK(two[0].offset == 0 && two[0].length == 13);
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 1, NULL, two, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 0, NULL, NULL, NULL) == ILMAP_E_INVALID_ARG);
    total = 7;
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 1, &total, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK(ilmap_il_decode(sw_ok, sizeof sw_ok, 2, &total, two, NULL) == ILMAP_OK && total == 2);
    il_ctx ctx = { sw_ok, sizeof sw_ok };
    test_copy_out_protocol("ilmap_il_decode", decode_call, &ctx, two, 2, sizeof two[0]);
    CHECK(ilmap_il_starts(sw_ok, sizeof sw_ok, 2, &total, starts, NULL) == ILMAP_OK);
    CHECK(total == 2 && starts[0] == 0 && starts[1] == 13);
    test_copy_out_protocol("ilmap_il_starts", starts_call, &ctx, starts, 2, sizeof starts[0]);
    CHECK(ilmap_il_starts(sw_ok, sizeof sw_ok, 1, &total, starts, NULL) == ILMAP_E_TRUNCATED &&
          total == 2 && starts[0] == 0);
    CHECK(ilmap_il_starts(NULL, 0, 0, &total, NULL, NULL) == ILMAP_OK && total == 0);
    il_ctx empty = { NULL, 0 };
    test_copy_out_protocol("ilmap_il_starts (empty)", starts_call, &empty, starts, 0,
                           sizeof starts[0]);
    const uint8_t bad_op[] = { 0x00, 0x24 };
    CHECK(ilmap_il_starts(bad_op, 2, 2, &total, starts, &bad) == ILMAP_E_IL_OPCODE);
    CHECK(bad == 1 && total == 0);
}

static void body_parse_errors(void)
{
    ilmap_il_body b;
    const uint8_t tiny[] = { 0x02 | 2 << 2, 0x00, 0x2A };

    CHECK(ilmap_il_body_parse(tiny, sizeof tiny, &b) == ILMAP_OK);
    CHECK(b.code_size == 2 && b.header_size == 1 && b.max_stack == 8 && b.body_size == 3);
    CHECK(ilmap_il_body_parse(tiny, 2, &b) == ILMAP_E_IL_TRUNCATED && b.code == NULL);
    CHECK(ilmap_il_body_parse(tiny, 0, &b) == ILMAP_E_IL_TRUNCATED);
    CHECK(ilmap_il_body_parse(NULL, 3, &b) == ILMAP_E_INVALID_ARG);
    const uint8_t kind0[] = { 0x00, 0, 0, 0 };
    CHECK(ilmap_il_body_parse(kind0, 4, &b) == ILMAP_E_IL_HEADER);

    /* Fat: header size field, truncation, sections. */
    uint8_t fat[40] = { 0x1B, 0x30, 8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x2A };
    /* EH small section at 16: one finally clause over [0,1) handler [1,2). */
    uint8_t *s = fat + 16;
    s[0] = 0x01, s[1] = 16;
    s[4] = 2, s[6] = 0, s[8] = 1, s[9] = 1, s[11] = 1;
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_OK);
    CHECK(b.eh_count == 1 && !b.eh_fat && b.body_size == 32 && b.code_size == 2);
    ilmap_il_clause c;
    CHECK(ilmap_il_body_get_clause(&b, 0, &c) == ILMAP_OK);
    CHECK(c.flags == 2 && c.try_offset == 0 && c.try_length == 1 && c.handler_offset == 1 &&
          c.handler_length == 1);
    CHECK(ilmap_il_body_get_clause(&b, 1, &c) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_body_validate(&b, NULL) == ILMAP_OK);
    for (size_t cut = 0; cut < 32; cut++)
        CHECK(ilmap_il_body_parse(fat, cut, &b) != ILMAP_OK);
    fat[1] = 0x20; /* header size 2 */
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_E_IL_HEADER);
    fat[1] = 0x30;
    s[0] = 0x02; /* OptILTable */
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_E_IL_HEADER);
    s[0] = 0x81; /* a second section follows at 32: beyond 32 bytes */
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_E_IL_TRUNCATED);
    fat[32] = 0x01; /* ... and it is a second EH table */
    CHECK(ilmap_il_body_parse(fat, 40, &b) == ILMAP_E_IL_HEADER);
    s[0] = 0x01;
    s[9] = 2; /* handler [1, 3) runs past the 2-byte code */
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_E_IL_EH);
    s[9] = 1;
    /* A clause boundary inside an instruction: code = ldc.i4.s 5; ret. */
    fat[12] = 0x1F, fat[13] = 5;
    fat[4] = 3, fat[14] = 0x2A; /* code size 3: section now at 16 still */
    s[4] = 1;                    /* try length 1: ends mid-instruction */
    CHECK(ilmap_il_body_parse(fat, 32, &b) == ILMAP_OK);
    size_t bad = 0;
    CHECK(ilmap_il_body_validate(&b, &bad) == ILMAP_E_IL_EH && bad == 0);
    ilmap_rewrite *r = (ilmap_rewrite *)&b;
    CHECK(ilmap_rewrite_create(fat, 32, NULL, 0, 0, 0, &r, &bad) == ILMAP_E_IL_EH);
    CHECK(r == NULL && bad == 0);
}

/* Checks a rewrite of gen code g in body `body` with the insertions. */
typedef struct rw_check_stats {
    long rewrites, widened, promoted_eh, promoted_header, appended;
} rw_check_stats;

static uint32_t slot_bytes(const ilmap_il_insertion *ins, size_t n, uint32_t offset, uint8_t *out)
{
    uint32_t len = 0;
    for (size_t k = 0; k < n; k++)
        if (ins[k].offset == offset) {
            if (out)
                memcpy(out + len, ins[k].code, ins[k].size);
            len += ins[k].size;
        }
    return len;
}

/* A result that must exist (st from the call that made it, bad its
 * bad index): its body parsed and checked, its info and its map; 0 when
 * there is none (reported). */
typedef struct rw_result {
    ilmap_il_body b;
    ilmap_rewrite_info info;
    const ilmap_entry *map;
    size_t count;
} rw_result;

static int open_rewrite(const char *what, ilmap_status st, size_t bad, const ilmap_rewrite *r,
                        rw_result *res)
{
    CHECK(st == ILMAP_OK);
    if (st != ILMAP_OK) {
        fprintf(stderr, "%s failed: %s (bad %zu)\n", what, ilmap_status_str(st), bad);
        return 0;
    }
    ilmap_il_body *b = &res->b;
    ilmap_rewrite_info *info = &res->info;
    const ilmap_entry **map = &res->map;
    size_t *count = &res->count;
    size_t size;
    const uint8_t *nb = ilmap_rewrite_get_body(r, &size);
    *map = ilmap_rewrite_get_entries(r, count);
    CHECK(ilmap_rewrite_get_info(r, info) == ILMAP_OK);
    CHECK(ilmap_il_body_parse(nb, size, b) == ILMAP_OK);
    CHECK(b->body_size == size);
    CHECK(ilmap_il_body_validate(b, NULL) == ILMAP_OK);
    CHECK(b->code_size == info->code_size);
    return 1;
}

static void check_rewrite(const gen_code *g, const uint8_t *body, size_t body_size,
                          const ilmap_il_clause *clauses, uint32_t nc, int eh_fat,
                          const ilmap_il_insertion *ins, size_t nins, uint32_t extra,
                          rw_check_stats *stats)
{
    ilmap_il_body ob;
    CHECK(ilmap_il_body_parse(body, body_size, &ob) == ILMAP_OK);

    ilmap_rewrite *r = NULL;
    size_t bad = 0;
    ilmap_status st = ilmap_rewrite_create(body, body_size, ins, nins, extra, 0, &r, &bad);
    if (ob.header_size == 12 && (uint64_t)ob.max_stack + extra > 0xFFFF) {
        CHECK(st == ILMAP_E_LIMIT && r == NULL);
        return;
    }
    rw_result res;
    if (!open_rewrite("rewrite", st, bad, r, &res))
        return;
    stats->rewrites++;
    const ilmap_il_body b = res.b;
    const ilmap_rewrite_info info = res.info;
    const ilmap_entry *map = res.map;
    const size_t count = res.count;
    stats->widened += info.widened;
    CHECK(count == g->n && info.instructions == g->n);

    /* Header. */
    uint32_t inserted = 0;
    for (size_t k = 0; k < nins; k++)
        inserted += ins[k].size;
    CHECK(b.code_size == g->size + inserted + 3 * info.widened);
    int want_tiny = ob.header_size == 1 && b.code_size < 64 && extra == 0;
    CHECK(b.header_size == (want_tiny ? 1u : 12u));
    if (ob.header_size == 1 && !want_tiny)
        stats->promoted_header++;
    if (!want_tiny) {
        CHECK(b.max_stack == ob.max_stack + extra);
        CHECK(b.local_sig == ob.local_sig);
        CHECK((b.flags & ILMAP_IL_INIT_LOCALS) == (ob.flags & ILMAP_IL_INIT_LOCALS));
    }

    /* The map: strict, one entry per instruction, the first injected byte. */
    ilmap *m = NULL;
    CHECK(ilmap_create(map, count, 0, &m) == ILMAP_OK);
    uint32_t *at = calloc(g->n + 1, sizeof *at);  /* where instruction i is */
    uint32_t *bnd = calloc(g->n + 1, sizeof *bnd); /* boundary i's new offset */
    uint8_t *expect = malloc(inserted + 1);
    for (uint32_t i = 0; i < g->n; i++) {
        CHECK(ilmap_rewrite_old_to_new(r, g->ins[i].offset, &at[i]) == ILMAP_OK);
        CHECK_EQ_U32(map[i].old_offset, g->ins[i].offset);
        CHECK(map[i].accurate == 1);
        bnd[i] = map[i].new_offset;
        uint32_t len = slot_bytes(ins, nins, g->ins[i].offset, expect);
        CHECK_EQ_U32(at[i] - bnd[i], len);
        CHECK(memcmp(b.code + bnd[i], expect, len) == 0);
        CHECK_EQ_U32(ilmap_old_to_new(m, g->ins[i].offset), bnd[i]);
        CHECK_EQ_U32(ilmap_new_to_old(m, at[i]), g->ins[i].offset);
        CHECK_EQ_U32(ilmap_new_to_old(m, bnd[i]), g->ins[i].offset);
        if (g->ins[i].length > 1) /* inside: rounds down to its own entry */
            CHECK_EQ_U32(ilmap_old_to_new(m, g->ins[i].offset + 1), bnd[i]);
    }
    uint32_t tail = slot_bytes(ins, nins, g->size, expect);
    stats->appended += tail > 0;
    bnd[g->n] = b.code_size - tail;
    CHECK(memcmp(b.code + bnd[g->n], expect, tail) == 0);
    uint32_t dummy;
    CHECK(ilmap_rewrite_old_to_new(r, g->size, &dummy) == ILMAP_E_NOT_FOUND);

    /* Every original instruction intact, every branch where it should be. */
    uint32_t widened = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const gen_instr *gi = &g->ins[i];
        const uint8_t *old = g->code + gi->offset;
        ilmap_il_instr in;
        CHECK(ilmap_il_decode_one(b.code, b.code_size, at[i], &in) == ILMAP_OK);
        if (gi->kind == ILMAP_IL_BRANCH8) {
            if (in.length == 5) {
                widened++;
                CHECK(in.operand == ILMAP_IL_BRANCH32);
                CHECK(in.opcode == (old[0] == 0xDE ? 0xDD : old[0] + 13));
            } else {
                CHECK(in.length == 2 && in.opcode == old[0]);
            }
            CHECK_EQ_U32(in.target, bnd[gi->target[0]]);
        } else if (gi->kind == ILMAP_IL_BRANCH32) {
            CHECK(in.length == 5 && in.opcode == old[0]);
            CHECK_EQ_U32(in.target, bnd[gi->target[0]]);
        } else if (gi->kind == ILMAP_IL_SWITCH) {
            CHECK(in.length == gi->length && in.target == gi->ntargets);
            for (uint32_t k = 0; k < gi->ntargets; k++) {
                uint32_t t = 0;
                CHECK(ilmap_il_switch_target(b.code, b.code_size, &in, k, &t) == ILMAP_OK);
                CHECK_EQ_U32(t, bnd[gi->target[k]]);
            }
        } else {
            CHECK(in.length == gi->length && memcmp(b.code + at[i], old, gi->length) == 0);
        }
    }
    CHECK(widened == info.widened);

    /* EH clauses rebased; small kept while it fits. */
    CHECK(b.eh_count == nc);
    int fits = nc <= 20;
    for (uint32_t c = 0; c < nc; c++) {
        ilmap_il_clause nc_, want = clauses[c];
        CHECK(ilmap_il_body_get_clause(&b, c, &nc_) == ILMAP_OK);
        uint32_t ts = bnd[gen_index_of(g, want.try_offset)];
        uint32_t te = bnd[gen_index_of(g, want.try_offset + want.try_length)];
        uint32_t hs = bnd[gen_index_of(g, want.handler_offset)];
        uint32_t he = bnd[gen_index_of(g, want.handler_offset + want.handler_length)];
        CHECK(nc_.flags == want.flags);
        CHECK_EQ_U32(nc_.try_offset, ts);
        CHECK_EQ_U32(nc_.try_length, te - ts);
        CHECK_EQ_U32(nc_.handler_offset, hs);
        CHECK_EQ_U32(nc_.handler_length, he - hs);
        if (want.flags == ILMAP_IL_CLAUSE_FILTER)
            CHECK_EQ_U32(nc_.class_or_filter, bnd[gen_index_of(g, want.class_or_filter)]);
        else
            CHECK_EQ_U32(nc_.class_or_filter, want.class_or_filter);
        if (ts > 0xFFFF || hs > 0xFFFF || te - ts > 0xFF || he - hs > 0xFF)
            fits = 0;
    }
    if (nc) {
        CHECK((int)b.eh_fat == (eh_fat || !fits));
        stats->promoted_eh += !eh_fat && !fits;
    }

    /* The same map from ilmap_edits_build(): insertions plus widenings. */
    ilmap_edit *edits = calloc(nins + g->n + 1, sizeof *edits);
    size_t ne = 0;
    for (size_t k = 0; k < nins; k++)
        edits[ne++] = (ilmap_edit){ ILMAP_EDIT_INSERT, ins[k].offset, ins[k].size };
    for (uint32_t i = 0; i < g->n; i++)
        if (g->ins[i].kind == ILMAP_IL_BRANCH8) {
            ilmap_il_instr in;
            ilmap_il_decode_one(b.code, b.code_size, at[i], &in);
            if (in.length == 5)
                edits[ne++] = (ilmap_edit){ ILMAP_EDIT_REPLACE, g->ins[i].offset, 5 };
        }
    uint32_t *starts = malloc((g->n + 1) * sizeof *starts);
    for (uint32_t i = 0; i < g->n; i++)
        starts[i] = g->ins[i].offset;
    ilmap_entry *built = calloc(g->n + 1, sizeof *built);
    uint32_t *newoff = calloc(g->n + 1, sizeof *newoff);
    uint32_t new_size = 0;
    CHECK(ilmap_edits_build(starts, g->n, g->size, edits, ne, built, newoff, &new_size, &bad) ==
          ILMAP_OK);
    CHECK(new_size == b.code_size);
    CHECK(g->n == 0 || memcmp(built, map, g->n * sizeof *built) == 0);
    CHECK(g->n == 0 || memcmp(newoff, at, g->n * sizeof *newoff) == 0);

    free(starts);
    free(built);
    free(newoff);
    free(edits);
    free(expect);
    free(at);
    free(bnd);
    ilmap_free(m);
    ilmap_rewrite_free(r);
}

static void random_rewrites(prng *rng, int rounds, rw_check_stats *stats)
{
    static uint8_t pad[300];
    ilmap_il_clause clauses[40];
    ilmap_il_insertion ins[40];

    for (int round = 0; round < rounds; round++) {
        uint32_t sizes[] = { 0, 1, 3, 10, 30, 60, 200, 900 };
        uint32_t n = sizes[prng_below(rng, 8)];
        gen_code g;
        gen_code_make(rng, n, &g);
        size_t body_size;
        uint32_t nc;
        int eh_fat;
        uint8_t *body = gen_body(rng, &g, prng_below(rng, 3) ? 4 : 30, &body_size, clauses,
                                 &nc, &eh_fat);
        size_t nins = gen_insertions(rng, &g, ins, prng_below(rng, 2) ? 6 : 40, pad,
                                     prng_below(rng, 2) ? 4 : 300);
        uint32_t extra = prng_below(rng, 3) ? prng_below(rng, 4) : 30;
        check_rewrite(&g, body, body_size, clauses, nc, eh_fat, ins, nins, extra, stats);
        free(body);
        gen_code_free(&g);
    }
}

static void rewrite_errors(void)
{
    /* fat: nop; br.s -3 (back to nop); ret */
    uint8_t body[16] = { 0x03, 0x30, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x2B, 0xFD, 0x2A };
    ilmap_rewrite *r = NULL;
    size_t bad = 0;
    const uint8_t nop = 0x00, bad_op = 0x24, ret = 0x2A;
    const uint8_t out_br[] = { 0x2B, 0x05 }, end_br[] = { 0x2B, 0x00 };

    ilmap_il_insertion at1 = { 1, 1, &nop };
    CHECK(ilmap_rewrite_create(body, 16, &at1, 1, 0, 0, &r, &bad) == ILMAP_OK && r);
    size_t size;
    const uint8_t *nb = ilmap_rewrite_get_body(r, &size);
    /* nop; [nop]; br.s -4 -> the probe at 1; ret */
    CHECK(size == 17 && nb[4] == 5 && nb[12] == 0 && nb[13] == 0 && nb[14] == 0x2B &&
          nb[15] == 0xFC && nb[16] == 0x2A);
    ilmap_rewrite_free(r);

    ilmap_il_insertion mid = { 2, 1, &nop };
    CHECK(ilmap_rewrite_create(body, 16, &mid, 1, 0, 0, &r, &bad) == ILMAP_E_EDIT && !r && bad == 0);
    ilmap_il_insertion past = { 5, 1, &nop };
    CHECK(ilmap_rewrite_create(body, 16, &past, 1, 0, 0, &r, &bad) == ILMAP_E_EDIT);
    ilmap_il_insertion two[2] = { { 0, 1, &nop }, { 0, 1, &bad_op } };
    CHECK(ilmap_rewrite_create(body, 16, two, 2, 0, 0, &r, &bad) == ILMAP_E_EDIT && bad == 1);
    ilmap_il_insertion outside = { 0, 2, out_br };
    CHECK(ilmap_rewrite_create(body, 16, &outside, 1, 0, 0, &r, &bad) == ILMAP_E_EDIT);
    ilmap_il_insertion to_end = { 0, 2, end_br }; /* fine: lands on the next instruction */
    CHECK(ilmap_rewrite_create(body, 16, &to_end, 1, 0, 0, &r, &bad) == ILMAP_OK);
    ilmap_rewrite_free(r);
    ilmap_il_insertion appended[2] = { { 4, 2, end_br }, { 4, 1, &ret } };
    CHECK(ilmap_rewrite_create(body, 16, appended, 2, 0, 0, &r, &bad) == ILMAP_OK);
    ilmap_rewrite_free(r);
    CHECK(ilmap_rewrite_create(body, 16, appended, 1, 0, 0, &r, &bad) == ILMAP_E_EDIT);
    ilmap_il_insertion null_code = { 0, 1, NULL };
    CHECK(ilmap_rewrite_create(body, 16, &null_code, 1, 0, 0, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_rewrite_create(body, 16, NULL, 1, 0, 0, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0, 1, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0, 0, NULL, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0xFFFF, 0, &r, &bad) == ILMAP_E_LIMIT);
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0xFFFD, 0, &r, &bad) == ILMAP_OK);
    ilmap_rewrite_free(r);
    body[13] = 0x24;
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0, 0, &r, &bad) == ILMAP_E_IL_OPCODE && bad == 1);
    body[13] = 0x2B, body[14] = 0xFE; /* to offset 0 + 1 - ... mid? -2 -> 1 = itself */
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0, 0, &r, &bad) == ILMAP_OK);
    ilmap_rewrite_free(r);
    body[14] = 0xFC; /* -4 -> -1: outside */
    CHECK(ilmap_rewrite_create(body, 16, NULL, 0, 0, 0, &r, &bad) == ILMAP_E_IL_BRANCH);
    CHECK(ilmap_rewrite_create(body, 15, NULL, 0, 0, 0, &r, &bad) == ILMAP_E_IL_TRUNCATED);

    /* NULL results and infos. */
    CHECK(ilmap_rewrite_get_body(NULL, &size) == NULL && size == 0);
    CHECK(ilmap_rewrite_get_entries(NULL, &size) == NULL && size == 0);
    ilmap_rewrite_info info;
    CHECK(ilmap_rewrite_get_info(NULL, &info) == ILMAP_E_INVALID_ARG && info.code_size == 0);
    ilmap_rewrite_free(NULL);
}

/* The worked case a profiler meets first: a tiny method gets an entry
 * probe and grows past 63 bytes, so its header turns fat. */
static void tiny_to_fat(void)
{
    uint8_t body[64];
    uint8_t probe[40];
    body[0] = (uint8_t)(2 | 30 << 2);
    memset(body + 1, 0x00, 29);
    body[30] = 0x2A;
    memset(probe, 0x00, sizeof probe);
    ilmap_il_insertion ins = { 0, 40, probe };
    ilmap_rewrite *r;
    CHECK(ilmap_rewrite_create(body, 31, &ins, 1, 0, 0, &r, NULL) == ILMAP_OK);
    size_t size;
    const uint8_t *nb = ilmap_rewrite_get_body(r, &size);
    CHECK(size == 12 + 70 && nb[0] == 0x03 && nb[1] == 0x30 && nb[2] == 8 && nb[4] == 70);
    size_t count;
    const ilmap_entry *e = ilmap_rewrite_get_entries(r, &count);
    CHECK(count == 30 && e[0].new_offset == 0 && e[1].new_offset == 41 && e[29].old_offset == 29);
    ilmap_rewrite_free(r);
    /* A short one stays tiny. */
    ins.size = 3;
    CHECK(ilmap_rewrite_create(body, 31, &ins, 1, 0, 0, &r, NULL) == ILMAP_OK);
    nb = ilmap_rewrite_get_body(r, &size);
    CHECK(size == 34 && nb[0] == (uint8_t)(2 | 33 << 2));
    ilmap_rewrite_free(r);
}

/* Streams above 32 KiB take the decoder's two-pass path: same answers. */
static void large_stream(prng *rng)
{
    gen_code g;
    gen_code_make(rng, 20000, &g);
    CHECK(g.size > 32768);
    size_t total = 0, bad = 0;
    ilmap_il_instr *in = malloc(g.n * sizeof *in);
    uint32_t *starts = malloc(g.n * sizeof *starts);
    CHECK(ilmap_il_decode(g.code, g.size, g.n, &total, in, &bad) == ILMAP_OK && total == g.n);
    CHECK(ilmap_il_starts(g.code, g.size, g.n, &total, starts, NULL) == ILMAP_OK && total == g.n);
    /* The buffer protocol on the two-pass path. */
    il_ctx ctx = { g.code, g.size };
    test_copy_out_protocol("ilmap_il_decode (large)", decode_call, &ctx, in, g.n, sizeof *in);
    test_copy_out_protocol("ilmap_il_starts (large)", starts_call, &ctx, starts, g.n,
                           sizeof *starts);
    for (uint32_t i = 0; i < g.n; i++) {
        CHECK_EQ_U32(in[i].offset, g.ins[i].offset);
        CHECK_EQ_U32(in[i].length, g.ins[i].length);
        CHECK_EQ_U32(starts[i], g.ins[i].offset);
    }
    /* A branch into the middle of an instruction, found on the second pass. */
    for (uint32_t i = 0; i < g.n; i++) {
        if (g.ins[i].kind == ILMAP_IL_BRANCH32 && g.ins[g.ins[i].target[0]].length > 1) {
            uint8_t *p = g.code + g.ins[i].offset + 1;
            uint32_t d = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24;
            d += 1;
            p[0] = (uint8_t)d, p[1] = (uint8_t)(d >> 8), p[2] = (uint8_t)(d >> 16);
            p[3] = (uint8_t)(d >> 24);
            CHECK(ilmap_il_starts(g.code, g.size, 0, &total, NULL, &bad) == ILMAP_E_IL_BRANCH);
            CHECK(bad == g.ins[i].offset && total == 0);
            break;
        }
    }
    free(in);
    free(starts);
    gen_code_free(&g);
}

/* ---- Wrapping (doc/il-maps.md#wrap) ------------------------------------ */

static const ilmap_il_wrap_spec wrap_spec_value = {
    0x0A000001u, 0x0A000002u, 0x01000003u, 0x06000004u, 0x11000005u,
    1, 0, 0x01000006u, 0, /* exception_local 1, return_local 0, Int32 */
};

/* The example of doc/il-maps.md#wrap worked by hand: a tiny static
 * `ldc.i4.1; ret` returning an int32, every byte of the result. */
static void wrap_worked_example(void)
{
    static const uint8_t body[] = { 0x02 | 2 << 2, 0x17, 0x2A };
    static const uint8_t want[] = {
        /* fat header: FAT | MORE_SECTS | INIT_LOCALS, size 3; max stack 8;
         * code 62 bytes; the new LocalVarSigTok */
        0x1B, 0x30, 0x08, 0x00, 62, 0, 0, 0, 0x05, 0x00, 0x00, 0x11,
        /* 0: exception = null; result = default(int32) */
        0x14, 0x0B, 0x12, 0x00, 0xFE, 0x15, 0x06, 0x00, 0x00, 0x01,
        /* 10: try { Begin(null, token); leave.s 26 } */
        0x14, 0x20, 0x04, 0x00, 0x00, 0x06, 0x28, 0x01, 0x00, 0x00, 0x0A, 0xDE, 0x03,
        /* 23: catch { pop; leave.s 26 } */
        0x26, 0xDE, 0x00,
        /* 26: the original: ldc.i4.1; ret -> stloc.0; leave 60 */
        0x17, 0x0A, 0xDD, 27, 0x00, 0x00, 0x00,
        /* 33: catch { stloc.1; rethrow } */
        0x0B, 0xFE, 0x1A,
        /* 36: finally { try { End(null, token, box result, exception); leave.s 59 } */
        0x14, 0x20, 0x04, 0x00, 0x00, 0x06, 0x06, 0x8C, 0x06, 0x00, 0x00, 0x01, 0x07, 0x28,
        0x02, 0x00, 0x00, 0x0A, 0xDE, 0x03,
        /* 56: catch { pop; leave.s 59 } 59: endfinally } */
        0x26, 0xDE, 0x00, 0xDC,
        /* 60: END: ldloc.0; ret */
        0x06, 0x2A,
        /* 74: pad to 76, then a small EH section of 4 clauses (52 bytes) */
        0x00, 0x00, 0x01, 52, 0x00, 0x00,
        /* Begin's catch: try 10+13, handler 23+3, class */
        0x00, 0x00, 10, 0, 13, 23, 0, 3, 0x03, 0x00, 0x00, 0x01,
        /* End's catch: try 36+20, handler 56+3 */
        0x00, 0x00, 36, 0, 20, 56, 0, 3, 0x03, 0x00, 0x00, 0x01,
        /* the catch around the body: try 26+7, handler 33+3 */
        0x00, 0x00, 26, 0, 7, 33, 0, 3, 0x03, 0x00, 0x00, 0x01,
        /* the finally: try 26+10, handler 36+24 */
        0x02, 0x00, 26, 0, 10, 36, 0, 24, 0x00, 0x00, 0x00, 0x00,
    };
    ilmap_rewrite *r = NULL;
    size_t bad = 7;
    CHECK(ilmap_il_wrap_create(body, sizeof body, &wrap_spec_value, &r, &bad) == ILMAP_OK);
    CHECK(bad == ILMAP_NO_INDEX);
    size_t size = 0, count = 0;
    const uint8_t *got = ilmap_rewrite_get_body(r, &size);
    CHECK(size == sizeof want && got && memcmp(got, want, sizeof want) == 0);
    if (got && size == sizeof want)
        for (size_t i = 0; i < size; i++)
            if (got[i] != want[i]) {
                fprintf(stderr, "wrap example: byte %zu is %#x, want %#x\n", i, got[i], want[i]);
                break;
            }
    const ilmap_entry *map = ilmap_rewrite_get_entries(r, &count);
    CHECK(count == 2 && map[0].old_offset == 0 && map[0].new_offset == 0 &&
          map[1].old_offset == 1 && map[1].new_offset == 27);
    uint32_t at = 0;
    CHECK(ilmap_rewrite_old_to_new(r, 0, &at) == ILMAP_OK && at == 26);
    ilmap_rewrite_free(r);
}

/* The bytes of one local instruction, in the shortest form (ECMA-335
 * III.3.41, 3.43, 3.63). */
static uint32_t local_bytes(uint8_t *p, int store, uint32_t index)
{
    if (index < 4) {
        p[0] = (uint8_t)((store ? 0x0A : 0x06) + index);
        return 1;
    }
    if (index < 256) {
        p[0] = store ? 0x13 : 0x11;
        p[1] = (uint8_t)index;
        return 2;
    }
    p[0] = 0xFE;
    p[1] = store ? 0x0E : 0x0C;
    p[2] = (uint8_t)index;
    p[3] = (uint8_t)(index >> 8);
    return 4;
}

typedef struct wrap_stats {
    long wrapped, refused, rets, widened;
} wrap_stats;

/* Whether an original instruction lies in a clause's try, handler or
 * filter: a ret there is invalid IL, which the wrap refuses. */
static int wrap_in_clause(const ilmap_il_clause *c, uint32_t nc, uint32_t at)
{
    for (uint32_t k = 0; k < nc; k++) {
        if (at - c[k].try_offset < c[k].try_length || at - c[k].handler_offset < c[k].handler_length)
            return 1;
        if (c[k].flags == ILMAP_IL_CLAUSE_FILTER && at >= c[k].class_or_filter &&
            at < c[k].handler_offset)
            return 1;
    }
    return 0;
}

/* A wrap of a generated body checked against doc/il-maps.md#wrap: the
 * refusal, or the header, the map, every original instruction (rets
 * stored and leaving to END), the appended code's END, the clauses. */
static void check_wrap(const gen_code *g, const uint8_t *body, size_t body_size,
                       const ilmap_il_clause *clauses, uint32_t nc,
                       const ilmap_il_wrap_spec *spec, wrap_stats *stats)
{
    ilmap_il_body ob;
    CHECK(ilmap_il_body_parse(body, body_size, &ob) == ILMAP_OK);
    ilmap_rewrite *r = NULL;
    size_t bad = 0;
    ilmap_status st = ilmap_il_wrap_create(body, body_size, spec, &r, &bad);

    size_t refuse = ILMAP_NO_INDEX;
    for (uint32_t i = 0; i < g->n && refuse == ILMAP_NO_INDEX; i++)
        if (g->code[g->ins[i].offset] == 0x2A && g->ins[i].length == 1 &&
            wrap_in_clause(clauses, nc, g->ins[i].offset))
            refuse = g->ins[i].offset;
    if (g->n == 0 || refuse != ILMAP_NO_INDEX) {
        CHECK(st == ILMAP_E_UNSUPPORTED && r == NULL && bad == refuse);
        stats->refused++;
        return;
    }
    rw_result res;
    if (!open_rewrite("wrap", st, bad, r, &res))
        return;
    stats->wrapped++;
    const ilmap_il_body b = res.b;
    const ilmap_rewrite_info info = res.info;
    const ilmap_entry *map = res.map;
    const size_t count = res.count;
    stats->widened += info.widened;
    CHECK(b.header_size == 12 && b.local_sig == spec->local_sig);
    uint32_t old_stack = ob.header_size == 1 ? 8u : ob.max_stack;
    CHECK_EQ_U32(b.max_stack, old_stack < 4 ? 4 : old_stack);
    CHECK((b.flags & ILMAP_IL_INIT_LOCALS) ==
          (ob.header_size == 1 ? ILMAP_IL_INIT_LOCALS : (ob.flags & ILMAP_IL_INIT_LOCALS)));
    CHECK(count == g->n);

    /* The map: entry 0 at the prologue's start, the others at their
     * instruction (nothing else is inserted); where each now is. */
    uint32_t *at = calloc(g->n + 1, sizeof *at), *bnd = calloc(g->n + 1, sizeof *bnd);
    for (uint32_t i = 0; i < g->n; i++) {
        CHECK(ilmap_rewrite_old_to_new(r, g->ins[i].offset, &at[i]) == ILMAP_OK);
        CHECK_EQ_U32(map[i].old_offset, g->ins[i].offset);
        bnd[i] = map[i].new_offset;
        CHECK_EQ_U32(bnd[i], i == 0 ? 0 : at[i]);
    }
    uint32_t prologue = at[0];

    /* The epilogue (doc/il-maps.md#wrap's table): the catch handler, the
     * finally with End's try and catch, END. */
    uint8_t want[64];
    uint32_t k = 0;
    const int value = spec->return_type != 0;
    k += local_bytes(want + k, 1, spec->exception_local);
    want[k++] = 0xFE, want[k++] = 0x1A;
    uint32_t fin = k;
    want[k++] = spec->flags & ILMAP_IL_WRAP_INSTANCE ? 0x02 : 0x14;
    want[k++] = 0x20;
    for (int j = 0; j < 4; j++)
        want[k++] = (uint8_t)(spec->method_token >> (8 * j));
    if (value) {
        k += local_bytes(want + k, 0, spec->return_local);
        want[k++] = 0x8C;
        for (int j = 0; j < 4; j++)
            want[k++] = (uint8_t)(spec->return_type >> (8 * j));
    } else {
        want[k++] = 0x14;
    }
    k += local_bytes(want + k, 0, spec->exception_local);
    want[k++] = 0x28;
    for (int j = 0; j < 4; j++)
        want[k++] = (uint8_t)(spec->end_method >> (8 * j));
    want[k++] = 0xDE, want[k++] = 3;
    uint32_t end_catch = k;
    want[k++] = 0x26, want[k++] = 0xDE, want[k++] = 0;
    uint32_t endfinally = k;
    want[k++] = 0xDC;
    uint32_t end_label = k;
    if (value)
        k += local_bytes(want + k, 0, spec->return_local);
    want[k++] = 0x2A;
    /* The original code ends where the epilogue begins, at the end. */
    CHECK(b.code_size > k);
    uint32_t e = b.code_size - k;
    bnd[g->n] = e;
    CHECK(memcmp(b.code + e, want, k) == 0);

    /* Every original instruction: rets stored and leaving to END, the rest
     * as the rewriter keeps them. */
    uint32_t widened = 0, placed = prologue;
    for (uint32_t i = 0; i < g->n; i++) {
        const gen_instr *gi = &g->ins[i];
        const uint8_t *old = g->code + gi->offset;
        ilmap_il_instr in;
        CHECK(ilmap_il_decode_one(b.code, b.code_size, at[i], &in) == ILMAP_OK);
        CHECK_EQ_U32(at[i], placed); /* one after the other, nothing between */
        placed += in.length;
        if (old[0] == 0x2A && gi->length == 1) {
            uint8_t store[4];
            uint32_t sn = value ? local_bytes(store, 1, spec->return_local) : 0;
            placed += 5 + sn - in.length;
            CHECK(memcmp(b.code + at[i], store, sn) == 0);
            ilmap_il_instr leave;
            CHECK(ilmap_il_decode_one(b.code, b.code_size, at[i] + sn, &leave) == ILMAP_OK);
            CHECK(leave.opcode == 0xDD && leave.target == e + end_label);
            stats->rets++;
        } else if (gi->kind == ILMAP_IL_BRANCH8) {
            widened += in.length == 5;
            CHECK_EQ_U32(in.target, bnd[gi->target[0]] == 0 ? prologue : bnd[gi->target[0]]);
        } else if (gi->kind == ILMAP_IL_BRANCH32) {
            CHECK(in.length == 5 && in.opcode == old[0]);
            CHECK_EQ_U32(in.target, bnd[gi->target[0]] == 0 ? prologue : bnd[gi->target[0]]);
        } else if (gi->kind != ILMAP_IL_SWITCH) {
            CHECK(in.length == gi->length && memcmp(b.code + at[i], old, gi->length) == 0);
        }
    }
    CHECK(widened == info.widened);
    CHECK_EQ_U32(placed, e);

    /* The original clauses rebased, then the four added. */
    CHECK(b.eh_count == nc + 4);
    at[g->n] = e; /* an end at the code size: the end of the original code */
    for (uint32_t c = 0; c < nc; c++) {
        ilmap_il_clause got, want = clauses[c];
        CHECK(ilmap_il_body_get_clause(&b, c, &got) == ILMAP_OK);
        uint32_t ts = at[gen_index_of(g, want.try_offset)];
        uint32_t te = at[gen_index_of(g, want.try_offset + want.try_length)];
        uint32_t hs = at[gen_index_of(g, want.handler_offset)];
        uint32_t he = at[gen_index_of(g, want.handler_offset + want.handler_length)];
        CHECK(got.flags == want.flags && got.try_offset == ts && got.try_length == te - ts &&
              got.handler_offset == hs && got.handler_length == he - hs);
        CHECK_EQ_U32(got.class_or_filter, want.flags == ILMAP_IL_CLAUSE_FILTER
                                              ? at[gen_index_of(g, want.class_or_filter)]
                                              : want.class_or_filter);
    }
    const ilmap_il_clause added[4] = {
        { 0, 0, 0, 0, 0, spec->exception_type }, /* Begin's: checked by offset below */
        { 0, e + fin, end_catch - fin, e + end_catch, endfinally - end_catch,
          spec->exception_type },
        { 0, prologue, e - prologue, e, fin, spec->exception_type },
        { 2, prologue, e + fin - prologue, e + fin, end_label - fin, 0 },
    };
    for (uint32_t c = 0; c < 4; c++) {
        ilmap_il_clause got;
        CHECK(ilmap_il_body_get_clause(&b, nc + c, &got) == ILMAP_OK);
        if (c == 0) { /* inside the prologue, its handler ending there */
            CHECK(got.flags == 0 && got.class_or_filter == spec->exception_type &&
                  got.handler_offset + got.handler_length == prologue &&
                  got.try_offset + got.try_length == got.handler_offset);
            continue;
        }
        CHECK(memcmp(&got, &added[c], sizeof got) == 0);
    }
    free(at);
    free(bnd);
    ilmap_rewrite_free(r);
}

static void random_wraps(prng *rng, int rounds)
{
    ilmap_il_clause clauses[8];
    wrap_stats stats = { 0, 0, 0, 0 };
    for (int round = 0; round < rounds; round++) {
        static const uint32_t sizes[] = { 0, 1, 3, 10, 30, 60, 200 };
        gen_code g;
        gen_code_make(rng, sizes[prng_below(rng, 7)], &g);
        size_t body_size;
        uint32_t nc;
        int eh_fat;
        uint8_t *body = gen_body(rng, &g, prng_below(rng, 2) ? 0 : 3, &body_size, clauses, &nc,
                                 &eh_fat);
        ilmap_il_wrap_spec spec = wrap_spec_value;
        static const uint32_t locals[] = { 0, 3, 4, 255, 256, 65534 };
        spec.exception_local = locals[prng_below(rng, 6)];
        spec.return_local = spec.exception_local == 0 ? 1 : 0;
        if (prng_below(rng, 2))
            spec.return_local = locals[prng_below(rng, 6)] ^ 1u; /* never the other's */
        if (spec.return_local == spec.exception_local || spec.return_local > 65534)
            spec.return_local = spec.exception_local == 7 ? 8 : 7;
        spec.return_type = prng_below(rng, 3) ? 0x1B000009u : 0; /* a TypeSpec, or void */
        spec.flags = prng_below(rng, 2) ? ILMAP_IL_WRAP_INSTANCE : 0;
        check_wrap(&g, body, body_size, clauses, nc, &spec, &stats);
        free(body);
        gen_code_free(&g);
    }
    printf("%ld wraps, %ld refused (a ret inside a clause, or no code); %ld rets rewritten, "
           "%ld branches widened\n",
           stats.wrapped, stats.refused, stats.rets, stats.widened);
    CHECK(stats.wrapped > 0 && stats.refused > 0 && stats.rets > 0 && stats.widened > 0);
}

/* What a wrap refuses, and its arguments. */
static void wrap_errors(void)
{
    ilmap_rewrite *r = (ilmap_rewrite *)1;
    size_t bad = 0;
    static const uint8_t ok[] = { 0x02 | 2 << 2, 0x17, 0x2A };
    /* jmp: refused at its offset. */
    static const uint8_t jmp[] = { 0x02 | 6 << 2, 0x00, 0x27, 0x01, 0x00, 0x00, 0x06 };
    CHECK(ilmap_il_wrap_create(jmp, sizeof jmp, &wrap_spec_value, &r, &bad) ==
          ILMAP_E_UNSUPPORTED);
    CHECK(r == NULL && bad == 1);
    /* No code. */
    static const uint8_t empty[] = { 0x02 };
    CHECK(ilmap_il_wrap_create(empty, sizeof empty, &wrap_spec_value, &r, &bad) ==
          ILMAP_E_UNSUPPORTED);
    /* Bad bodies: the parser's and validator's statuses. */
    static const uint8_t cut[] = { 0x02 | 4 << 2, 0x17 };
    CHECK(ilmap_il_wrap_create(cut, sizeof cut, &wrap_spec_value, &r, &bad) ==
          ILMAP_E_IL_TRUNCATED);
    static const uint8_t opcode[] = { 0x02 | 1 << 2, 0x24 };
    CHECK(ilmap_il_wrap_create(opcode, sizeof opcode, &wrap_spec_value, &r, &bad) ==
          ILMAP_E_IL_OPCODE && bad == 0);
    /* Arguments. */
    ilmap_il_wrap_spec s = wrap_spec_value;
    CHECK(ilmap_il_wrap_create(NULL, 3, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, NULL, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, NULL, &bad) == ILMAP_E_INVALID_ARG);
    s.local_sig = 0;
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    s = wrap_spec_value;
    s.begin_method = 0;
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    s = wrap_spec_value;
    s.return_local = s.exception_local;
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    s.return_type = 0; /* void: the return local is not used */
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_OK);
    ilmap_rewrite_free(r);
    s = wrap_spec_value;
    s.exception_local = 65535;
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    s = wrap_spec_value;
    s.flags = 2;
    CHECK(ilmap_il_wrap_create(ok, sizeof ok, &s, &r, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(r == NULL);

    /* tail. call; ret: the prefix becomes two nops, the call stays. */
    static const uint8_t tail[] = { 0x02 | 8 << 2, 0xFE, 0x14, 0x28, 0x01, 0x00, 0x00, 0x06,
                                    0x2A };
    s = wrap_spec_value;
    CHECK(ilmap_il_wrap_create(tail, sizeof tail, &s, &r, &bad) == ILMAP_OK);
    uint32_t at = 0;
    size_t size = 0;
    const uint8_t *nb = ilmap_rewrite_get_body(r, &size);
    CHECK(ilmap_rewrite_old_to_new(r, 0, &at) == ILMAP_OK);
    CHECK(nb && nb[12 + at] == 0x00 && nb[12 + at + 1] == 0x00 && nb[12 + at + 2] == 0x28);
    ilmap_rewrite_free(r);
}

int main(int argc, char **argv)
{
    prng rng;
    rw_check_stats stats = { 0 };

    rng = prng_init(test_seed(argc, argv, 0x5EEDC0DE));
    opcode_table();
    decoder_errors();
    body_parse_errors();
    rewrite_errors();
    tiny_to_fat();
    large_stream(&rng);
    random_rewrites(&rng, 3000, &stats);
    wrap_worked_example();
    wrap_errors();
    random_wraps(&rng, 2000);
    printf("%ld rewrites: %ld branches widened, %ld EH sections and %ld headers promoted, "
           "%ld with appended code\n",
           stats.rewrites, stats.widened, stats.promoted_eh, stats.promoted_header, stats.appended);
    /* The generator must reach the paths it exists for. */
    CHECK(stats.widened > 0 && stats.promoted_eh > 0 && stats.promoted_header > 0 &&
          stats.appended > 0);
    return test_finish("rewriter");
}
