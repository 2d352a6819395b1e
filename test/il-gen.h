/*
 * Random, valid IL for the tests: instruction streams that use every
 * operand kind, branches (short ones placed near the +-127 limit so that
 * insertions push them over), switches, and method bodies around them
 * with tiny or fat headers and small or fat EH sections whose clauses sit
 * on instruction starts. Also random insertions (nop/ldc/pop probes, some
 * with an internal branch). Everything is a pure function of the PRNG.
 */
#ifndef ILMAP_TEST_IL_GEN_H
#define ILMAP_TEST_IL_GEN_H

#include <stdlib.h>
#include <string.h>

#include "ilmap-il.h"
#include "test.h"

/* Opcodes of each operand kind, to draw from. */
static const uint8_t gen_none[] = {0x00, 0x02, 0x06, 0x0A, 0x14, 0x16, 0x25, 0x26, 0x58,
                                   0x5A, 0x65, 0x69, 0x8E, 0xA2, 0xD3, 0xDC, 0xE0, 0x2A};
static const uint8_t gen_i1[] = {0x0E, 0x11, 0x13, 0x1F};
static const uint8_t gen_i4[] = {0x20, 0x22};
static const uint8_t gen_i8[] = {0x21, 0x23};
static const uint8_t gen_tok[] = {0x28, 0x6F, 0x72, 0x73, 0x7B, 0x8C, 0xD0, 0xA5};
static const uint8_t gen_br8[] = {0x2B, 0x2C, 0x2D, 0x2E, 0x37, 0xDE};
static const uint8_t gen_br32[] = {0x38, 0x39, 0x44, 0xDD};
static const uint8_t gen_fe_none[] = {0x01, 0x02, 0x0F, 0x1A, 0x1E};
static const uint8_t gen_fe_i2[] = {0x09, 0x0C, 0x0E};

#define GEN_PICK(rng, arr) (arr)[prng_below((rng), (uint32_t)(sizeof(arr) / sizeof((arr)[0])))]

typedef struct gen_instr {
    uint32_t offset, length;
    int kind;           /* ilmap_il_operand */
    uint32_t ntargets;  /* switch */
    uint32_t target[8]; /* instruction indexes */
} gen_instr;

typedef struct gen_code {
    uint8_t *code;
    uint32_t size;
    gen_instr *ins;
    uint32_t n;
} gen_code;

static inline void gen_code_free(gen_code *g)
{
    free(g->code);
    free(g->ins);
    memset(g, 0, sizeof *g);
}

/* A short branch's target: near the edge of its reach half the time. */
static inline uint32_t gen_short_target(prng *rng, const gen_code *g, uint32_t i)
{
    uint32_t next = g->ins[i].offset + 2;
    uint32_t lo = 0, hi = g->n - 1;
    while (lo < g->n && (int64_t)g->ins[lo].offset - next < -128)
        lo++;
    while (hi > 0 && (int64_t)g->ins[hi].offset - next > 127)
        hi--;
    if (lo > hi)
        return i; /* a branch to itself always fits */
    if (prng_below(rng, 2)) {
        uint32_t pick = prng_below(rng, 2) ? lo : hi;
        return pick;
    }
    return lo + prng_below(rng, hi - lo + 1);
}

/* n instructions; sizes first, then the operands that need offsets. */
static inline void gen_code_make(prng *rng, uint32_t n, gen_code *g)
{
    g->n = n;
    g->ins = calloc(n ? n : 1, sizeof *g->ins);
    uint8_t *ops = calloc(n ? n : 1, 2);
    uint32_t pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        gen_instr *in = &g->ins[i];
        uint32_t r = prng_below(rng, 100);
        in->offset = pos;
        if (r < 30) {
            in->kind = ILMAP_IL_NONE, in->length = 1, ops[2 * i] = GEN_PICK(rng, gen_none);
        } else if (r < 38) {
            in->kind = ILMAP_IL_INT8, in->length = 2, ops[2 * i] = GEN_PICK(rng, gen_i1);
        } else if (r < 43) {
            in->kind = ILMAP_IL_INT32, in->length = 5, ops[2 * i] = GEN_PICK(rng, gen_i4);
        } else if (r < 46) {
            in->kind = ILMAP_IL_INT64, in->length = 9, ops[2 * i] = GEN_PICK(rng, gen_i8);
        } else if (r < 56) {
            in->kind = ILMAP_IL_TOKEN, in->length = 5, ops[2 * i] = GEN_PICK(rng, gen_tok);
        } else if (r < 76) {
            in->kind = ILMAP_IL_BRANCH8, in->length = 2, ops[2 * i] = GEN_PICK(rng, gen_br8);
        } else if (r < 84) {
            in->kind = ILMAP_IL_BRANCH32, in->length = 5, ops[2 * i] = GEN_PICK(rng, gen_br32);
        } else if (r < 88) {
            in->kind = ILMAP_IL_SWITCH, in->ntargets = prng_below(rng, 6);
            in->length = 5 + 4 * in->ntargets, ops[2 * i] = 0x45;
        } else if (r < 94) {
            in->kind = ILMAP_IL_NONE, in->length = 2, ops[2 * i] = 0xFE;
            ops[2 * i + 1] = GEN_PICK(rng, gen_fe_none);
        } else {
            in->kind = ILMAP_IL_INT16, in->length = 4, ops[2 * i] = 0xFE;
            ops[2 * i + 1] = GEN_PICK(rng, gen_fe_i2);
        }
        pos += in->length;
    }
    g->size = pos;
    g->code = malloc(pos ? pos : 1);
    for (uint32_t i = 0; i < n; i++) {
        gen_instr *in = &g->ins[i];
        uint8_t *p = g->code + in->offset;
        uint32_t next = in->offset + in->length;
        p[0] = ops[2 * i];
        for (uint32_t k = 1; k < in->length; k++)
            p[k] = (uint8_t)prng_u32(rng);
        if (p[0] == 0xFE)
            p[1] = ops[2 * i + 1];
        if (in->kind == ILMAP_IL_BRANCH8) {
            in->target[0] = gen_short_target(rng, g, i);
            p[1] = (uint8_t)(int8_t)((int64_t)g->ins[in->target[0]].offset - next);
        } else if (in->kind == ILMAP_IL_BRANCH32) {
            in->target[0] = prng_below(rng, n);
            int64_t d = (int64_t)g->ins[in->target[0]].offset - next;
            p[1] = (uint8_t)d, p[2] = (uint8_t)(d >> 8), p[3] = (uint8_t)(d >> 16);
            p[4] = (uint8_t)(d >> 24);
        } else if (in->kind == ILMAP_IL_SWITCH) {
            p[1] = (uint8_t)in->ntargets, p[2] = p[3] = p[4] = 0;
            for (uint32_t k = 0; k < in->ntargets; k++) {
                in->target[k] = prng_below(rng, n);
                int64_t d = (int64_t)g->ins[in->target[k]].offset - next;
                uint8_t *q = p + 5 + 4 * k;
                q[0] = (uint8_t)d, q[1] = (uint8_t)(d >> 8), q[2] = (uint8_t)(d >> 16);
                q[3] = (uint8_t)(d >> 24);
            }
        }
    }
    free(ops);
}

/* A boundary: an instruction start or the code size. */
static inline uint32_t gen_boundary(prng *rng, const gen_code *g, uint32_t from)
{
    uint32_t i = from + prng_below(rng, g->n + 1 - from);
    return i == g->n ? g->size : g->ins[i].offset;
}

static inline uint32_t gen_index_of(const gen_code *g, uint32_t offset)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->ins[i].offset == offset)
            return i;
    return g->n;
}

/* A body around the code: tiny when allowed and chosen, else fat; up to
 * max_clauses EH clauses (small section when they fit and chosen). */
static inline uint8_t *gen_body(prng *rng, const gen_code *g, uint32_t max_clauses,
                                size_t *size, ilmap_il_clause *clauses, uint32_t *nclauses,
                                int *eh_fat)
{
    uint32_t nc = g->n ? prng_below(rng, max_clauses + 1) : 0;
    int tiny = g->size < 64 && nc == 0 && prng_below(rng, 2);
    for (uint32_t c = 0; c < nc; c++) {
        ilmap_il_clause *cl = &clauses[c];
        uint32_t a = prng_below(rng, g->n);
        cl->try_offset = g->ins[a].offset;
        cl->try_length = gen_boundary(rng, g, a + 1) - cl->try_offset;
        uint32_t h = prng_below(rng, g->n);
        cl->handler_offset = g->ins[h].offset;
        cl->handler_length = gen_boundary(rng, g, h + 1) - cl->handler_offset;
        uint32_t kind = prng_below(rng, 4);
        cl->flags = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? 2 : 4;
        cl->class_or_filter = kind == 1 ? g->ins[prng_below(rng, g->n)].offset
                                        : 0x01000000u | prng_below(rng, 100);
    }
    int fat = nc > 20 || prng_below(rng, 4) == 0;
    for (uint32_t c = 0; c < nc; c++)
        if (clauses[c].try_offset > 0xFFFF || clauses[c].try_length > 0xFF ||
            clauses[c].handler_offset > 0xFFFF || clauses[c].handler_length > 0xFF)
            fat = 1;
    *nclauses = nc;
    *eh_fat = nc ? fat : 0;

    size_t head = tiny ? 1 : 12;
    size_t total = head + g->size;
    size_t eh_at = (total + 3) & ~(size_t)3;
    size_t csize = fat ? 24 : 12;
    if (nc)
        total = eh_at + 4 + nc * csize;
    uint8_t *b = calloc(total, 1);
    if (tiny) {
        b[0] = (uint8_t)(2 | g->size << 2);
    } else {
        uint32_t flags = 3 | (nc ? 0x8 : 0) | (prng_below(rng, 2) ? 0x10 : 0);
        b[0] = (uint8_t)flags, b[1] = (uint8_t)(0x30 | flags >> 8);
        uint32_t ms = prng_below(rng, 3) ? prng_below(rng, 20) : 0xFFF0u;
        b[2] = (uint8_t)ms, b[3] = (uint8_t)(ms >> 8);
        b[4] = (uint8_t)g->size, b[5] = (uint8_t)(g->size >> 8), b[6] = (uint8_t)(g->size >> 16);
        b[7] = (uint8_t)(g->size >> 24);
        b[8] = 0x11, b[11] = 0x11; /* a local signature token */
    }
    if (g->size)
        memcpy(b + head, g->code, g->size);
    if (nc) {
        uint8_t *s = b + eh_at;
        uint32_t ds = (uint32_t)(4 + nc * csize);
        s[0] = fat ? 0x41 : 0x01;
        s[1] = (uint8_t)ds, s[2] = fat ? (uint8_t)(ds >> 8) : 0,
        s[3] = fat ? (uint8_t)(ds >> 16) : 0;
        for (uint32_t c = 0; c < nc; c++) {
            uint8_t *p = s + 4 + c * csize;
            const ilmap_il_clause *cl = &clauses[c];
            uint32_t v[6] = {cl->flags,          cl->try_offset,     cl->try_length,
                             cl->handler_offset, cl->handler_length, cl->class_or_filter};
            if (fat) {
                for (int k = 0; k < 6; k++)
                    for (int j = 0; j < 4; j++)
                        p[4 * k + j] = (uint8_t)(v[k] >> (8 * j));
            } else {
                p[0] = (uint8_t)v[0], p[1] = (uint8_t)(v[0] >> 8);
                p[2] = (uint8_t)v[1], p[3] = (uint8_t)(v[1] >> 8), p[4] = (uint8_t)v[2];
                p[5] = (uint8_t)v[3], p[6] = (uint8_t)(v[3] >> 8), p[7] = (uint8_t)v[4];
                for (int j = 0; j < 4; j++)
                    p[8 + j] = (uint8_t)(v[5] >> (8 * j));
            }
        }
    }
    *size = total;
    return b;
}

/* Probe bytes: a few simple instructions, sometimes a forward br.s over
 * part of the probe to its end (allowed: the end is the next instruction). */
static const uint8_t gen_probes[][12] = {
    {0x00},                                           /* nop */
    {0x20, 1, 2, 3, 4, 0x26},                         /* ldc.i4; pop */
    {0x28, 0x10, 0, 0, 0x0A},                         /* call token */
    {0x16, 0x2C, 0x05, 0x28, 0x20, 0, 0, 0x0A, 0x00}, /* ldc.i4.0; brfalse.s end-1; call; nop */
    {0x2B, 0x00},                                     /* br.s +0 */
    {0x16, 0x39, 0x01, 0, 0, 0, 0x00},                /* ldc.i4.0; brfalse +1 (to end); nop */
};
static const uint32_t gen_probe_len[] = {1, 6, 5, 9, 2, 7};

/* Fills up to max random insertions on g's boundaries. Long probes (a
 * pad of nops) now and then push short branches over their limit. */
static inline size_t gen_insertions(prng *rng, const gen_code *g, ilmap_il_insertion *ins,
                                    size_t max, const uint8_t *pad, uint32_t pad_len)
{
    size_t n = prng_below(rng, (uint32_t)max + 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t p = prng_below(rng, 8);
        ins[k].offset = gen_boundary(rng, g, 0);
        if (ins[k].offset == g->size && (p == 4 || p == 5))
            p = 0; /* appended code may not branch past the end */
        if (p >= 6) {
            ins[k].code = pad;
            ins[k].size = 1 + prng_below(rng, pad_len);
        } else {
            ins[k].code = gen_probes[p];
            ins[k].size = gen_probe_len[p];
        }
    }
    return n;
}

#endif
