/*
 * Model-based random test of ilmap-sig.h. A generator builds random
 * well-formed signatures from ECMA-335 II.23.2's grammar (every kind,
 * calling convention, element, modifier, array shape, nested FNPTR) and
 * writes each one three ways at once: its bytes, through this file's own
 * encoder (written from the standard's description, not calling the
 * library's); its text in sig-dump.h's form; and the classification of
 * its values (doc/signatures.md#classification), with random type arguments for VAR and
 * MVAR. The library must decode the bytes to that text, encode them back
 * to the same bytes and classify them the same.
 *
 * Then each case's bytes are mutated (bytes changed, inserted, deleted,
 * the end cut) and decoded with random flags: no crash (run it under the
 * sanitizers), and defined outputs: a success encodes back to exactly the
 * bytes it took and prints whole; a failure leaves no object, names a
 * defect and an offset <= the size.
 *
 * Each iteration derives its own seed from the run's (test.h's seed:
 * argv[1] or ILMAP_TEST_SEED), so a failure prints the one iteration to
 * replay: `test-sig-random SEED ITERATION`.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-sig.h"
#include "sig-dump.h"
#include "test.h"

#define MAX_BLOB 16384

/* ---- the generator's output ---- */

typedef struct expect {
    uint32_t repr, size, token;
} expect;

typedef struct gen {
    prng rng;
    uint8_t bytes[MAX_BLOB];
    size_t n;
    int overflow;
    dump_buf text;
    unsigned ptr_width;  /* INTERNAL pointers: 0 (none generated), 4, 8 */
    unsigned max_depth;  /* how deep this case's types go */
    unsigned nested;     /* FNPTR signatures so far (a cap keeps cases small) */
    /* type arguments: their classification, VAR i -> targs[i] */
    const expect *targs, *margs;
    size_t ntargs, nmargs;
} gen;

static uint32_t below(gen *g, uint32_t n)
{
    return prng_below(&g->rng, n);
}

static void emit(gen *g, uint32_t byte)
{
    if (g->n < MAX_BLOB)
        g->bytes[g->n++] = (uint8_t)byte;
    else
        g->overflow = 1;
}

/* The standard's unsigned form: 7 bits in one byte (top bit 0), 14 bits in
 * two bytes (top bits 10), 29 bits in four bytes (top bits 110), the
 * payload big-endian. */
static void emit_unsigned(gen *g, uint32_t v)
{
    if (v < (1u << 7)) {
        emit(g, v);
    } else if (v < (1u << 14)) {
        emit(g, 0x80u + (v >> 8));
        emit(g, v & 0xFFu);
    } else {
        emit(g, 0xC0u + (v >> 24));
        emit(g, (v >> 16) & 0xFFu);
        emit(g, (v >> 8) & 0xFFu);
        emit(g, v & 0xFFu);
    }
}

/* The standard's signed form: the smallest of 7, 14, 29 bits that holds
 * the value as two's complement, rotated left by one bit within that
 * width, written with the unsigned form's prefix for that width. */
static void emit_signed(gen *g, int32_t v)
{
    static const unsigned widths[3] = { 7, 14, 29 };
    for (int k = 0; k < 3; k++) {
        int64_t lo = -((int64_t)1 << (widths[k] - 1)), hi = ((int64_t)1 << (widths[k] - 1)) - 1;
        if (v < lo || v > hi)
            continue;
        uint64_t mask = ((uint64_t)1 << widths[k]) - 1;
        uint64_t twos = (uint64_t)(int64_t)v & mask;
        uint64_t rotated = ((twos << 1) & mask) | (twos >> (widths[k] - 1));
        if (k == 0) {
            emit(g, (uint32_t)rotated);
        } else if (k == 1) {
            emit(g, 0x80u | (uint32_t)(rotated >> 8));
            emit(g, (uint32_t)(rotated & 0xFF));
        } else {
            emit(g, 0xC0u | (uint32_t)(rotated >> 24));
            emit(g, (uint32_t)((rotated >> 16) & 0xFF));
            emit(g, (uint32_t)((rotated >> 8) & 0xFF));
            emit(g, (uint32_t)(rotated & 0xFF));
        }
        return;
    }
}

/* A TypeDefOrRef token: the row shifted left by two, the table's tag
 * (TypeDef 0, TypeRef 1, TypeSpec 2) in the low bits. */
static uint32_t random_token(gen *g)
{
    static const uint32_t tables[3] = { 0x02, 0x01, 0x1B };
    uint32_t table = tables[below(g, 3)];
    uint32_t pick = below(g, 10);
    uint32_t row = pick < 6 ? below(g, 0x40) : pick < 9 ? below(g, 0x4000) : below(g, 0x1000000);
    return table << 24 | row;
}

static void emit_token(gen *g, uint32_t token)
{
    uint32_t tag = (token >> 24) == 0x02 ? 0 : (token >> 24) == 0x01 ? 1 : 2;
    emit_unsigned(g, (token & 0xFFFFFFu) * 4 + tag);
}

static uint32_t random_number(gen *g)
{
    uint32_t pick = below(g, 10);
    return pick < 6 ? below(g, 8) : pick < 8 ? below(g, 0x4000) : below(g, 0x20000000);
}

static int32_t random_signed(gen *g)
{
    uint32_t pick = below(g, 4);
    int32_t span = pick == 0 ? 0x40 : pick == 1 ? 0x2000 : pick == 2 ? 0x10000000 : 4;
    return (int32_t)below(g, 2u * (uint32_t)span) - span;
}

static uint64_t random_pointer(gen *g)
{
    uint64_t v = prng_next(&g->rng);
    return g->ptr_width == 4 ? (v & 0xFFFFFFFFu) : v;
}

static void emit_pointer(gen *g, uint64_t v)
{
    for (unsigned i = 0; i < g->ptr_width; i++)
        emit(g, (uint32_t)((v >> (8 * i)) & 0xFF));
}

/* ---- the grammar ---- */

#define ALLOW_VOID 1u
#define ALLOW_PINNED 2u

static void gen_method(gen *g, unsigned depth);

typedef struct leaf {
    uint8_t element;
    const char *name;
    uint32_t repr, size; /* size 0xFF: the pointer size */
} leaf;

static const leaf leaves[] = {
    { 0x02, "bool", ILMAP_SIG_REPR_PRIMITIVE, 1 },   { 0x03, "char", ILMAP_SIG_REPR_PRIMITIVE, 2 },
    { 0x04, "i1", ILMAP_SIG_REPR_PRIMITIVE, 1 },     { 0x05, "u1", ILMAP_SIG_REPR_PRIMITIVE, 1 },
    { 0x06, "i2", ILMAP_SIG_REPR_PRIMITIVE, 2 },     { 0x07, "u2", ILMAP_SIG_REPR_PRIMITIVE, 2 },
    { 0x08, "i4", ILMAP_SIG_REPR_PRIMITIVE, 4 },     { 0x09, "u4", ILMAP_SIG_REPR_PRIMITIVE, 4 },
    { 0x0A, "i8", ILMAP_SIG_REPR_PRIMITIVE, 8 },     { 0x0B, "u8", ILMAP_SIG_REPR_PRIMITIVE, 8 },
    { 0x0C, "r4", ILMAP_SIG_REPR_PRIMITIVE, 4 },     { 0x0D, "r8", ILMAP_SIG_REPR_PRIMITIVE, 8 },
    { 0x18, "i", ILMAP_SIG_REPR_PRIMITIVE, 0xFF },   { 0x19, "u", ILMAP_SIG_REPR_PRIMITIVE, 0xFF },
    { 0x0E, "string", ILMAP_SIG_REPR_OBJECT_ID, 0xFF },
    { 0x1C, "object", ILMAP_SIG_REPR_OBJECT_ID, 0xFF },
    { 0x16, "typedref", ILMAP_SIG_REPR_TYPEDBYREF, 0x1FE },
};

#define PTR 8u /* the tests classify with ILMAP_SIG_POINTER_8 */

static expect make(uint32_t repr, uint32_t size, uint32_t token)
{
    expect e = { repr, size, token };
    return e;
}

/* One type at depth, with its modifiers; *e receives how it classifies. */
static void gen_type(gen *g, unsigned depth, unsigned allow, expect *e)
{
    /* modifiers first: they change nothing about the representation */
    unsigned mods = below(g, 8) == 0 ? 1 + below(g, 3) : 0;
    int pinned = (allow & ALLOW_PINNED) && below(g, 4) == 0;
    unsigned closers = 0;
    for (unsigned i = 0; i < mods + (unsigned)pinned; i++) {
        if (pinned && i == mods) {
            emit(g, 0x45);
            dump_add(&g->text, "pinned(");
        } else if (g->ptr_width && below(g, 5) == 0) {
            uint32_t required = below(g, 2);
            uint64_t p = random_pointer(g);
            emit(g, 0x22);
            emit(g, required);
            emit_pointer(g, p);
            dump_add(&g->text, "cmodint(%" PRIu32 " 0x%" PRIX64 " ", required, p);
        } else {
            int req = below(g, 2);
            uint32_t token = random_token(g);
            emit(g, req ? 0x1F : 0x20);
            emit_token(g, token);
            dump_add(&g->text, "%s(0x%08" PRIX32 " ", req ? "modreq" : "modopt", token);
        }
        closers++;
    }

    unsigned choice = depth >= g->max_depth ? below(g, 5) : below(g, 16);
    if ((allow & ALLOW_VOID) && below(g, 4) == 0)
        choice = 100;
    switch (choice) {
    case 0: case 1: { /* a leaf */
        const leaf *l = &leaves[below(g, sizeof leaves / sizeof leaves[0])];
        emit(g, l->element);
        dump_add(&g->text, "%s", l->name);
        *e = make(l->repr, l->size == 0xFF ? PTR : l->size == 0x1FE ? 2 * PTR : l->size, 0);
        break;
    }
    case 2: { /* CLASS or VALUETYPE */
        int value = below(g, 2);
        uint32_t token = random_token(g);
        emit(g, value ? 0x11 : 0x12);
        emit_token(g, token);
        dump_add(&g->text, "%s(0x%08" PRIX32 ")", value ? "valuetype" : "class", token);
        *e = value ? make(ILMAP_SIG_REPR_VALUE_TYPE, 0, token)
                   : make(ILMAP_SIG_REPR_OBJECT_ID, PTR, token);
        break;
    }
    case 3: { /* VAR or MVAR */
        int method = below(g, 2);
        uint32_t number = below(g, 3) ? below(g, 4) : random_number(g);
        emit(g, method ? 0x1E : 0x13);
        emit_unsigned(g, number);
        dump_add(&g->text, "%s(%" PRIu32 ")", method ? "mvar" : "var", number);
        const expect *args = method ? g->margs : g->targs;
        size_t count = method ? g->nmargs : g->ntargs;
        *e = number < count ? args[number] : make(ILMAP_SIG_REPR_UNRESOLVED, 0, 0);
        break;
    }
    case 4: /* INTERNAL, or a leaf when this case has no pointer width */
        if (g->ptr_width) {
            uint64_t p = random_pointer(g);
            emit(g, 0x21);
            emit_pointer(g, p);
            dump_add(&g->text, "internal(0x%" PRIX64 ")", p);
        } else {
            emit(g, 0x1C);
            dump_add(&g->text, "object");
        }
        *e = g->ptr_width ? make(ILMAP_SIG_REPR_UNRESOLVED, 0, 0)
                          : make(ILMAP_SIG_REPR_OBJECT_ID, PTR, 0);
        break;
    case 5: case 6: { /* PTR, BYREF, SZARRAY of something */
        static const char *const names[3] = { "ptr(", "byref(", "szarray(" };
        static const uint8_t elements[3] = { 0x0F, 0x10, 0x1D };
        static const uint32_t reprs[3] = { ILMAP_SIG_REPR_UNMANAGED_PTR, ILMAP_SIG_REPR_MANAGED_PTR,
                                           ILMAP_SIG_REPR_OBJECT_ID };
        unsigned k = below(g, 3);
        expect inner;
        emit(g, elements[k]);
        dump_add(&g->text, "%s", names[k]);
        gen_type(g, depth + 1, k == 0 ? ALLOW_VOID : 0, &inner);
        dump_add(&g->text, ")");
        *e = make(reprs[k], PTR, 0);
        break;
    }
    case 7: case 8: { /* ARRAY */
        expect inner;
        uint32_t rank = below(g, 4) ? 1 + below(g, 4) : 1 + random_number(g);
        uint32_t nsizes = below(g, (rank < 4 ? rank : 4) + 1);
        uint32_t nbounds = below(g, (rank < 4 ? rank : 4) + 1);
        emit(g, 0x14);
        dump_add(&g->text, "array(");
        gen_type(g, depth + 1, 0, &inner);
        emit_unsigned(g, rank);
        emit_unsigned(g, nsizes);
        dump_add(&g->text, " rank=%" PRIu32 " sizes=[", rank);
        for (uint32_t i = 0; i < nsizes; i++) {
            uint32_t v = random_number(g);
            emit_unsigned(g, v);
            dump_add(&g->text, "%s%" PRIu32, i ? "," : "", v);
        }
        emit_unsigned(g, nbounds);
        dump_add(&g->text, "] lo=[");
        for (uint32_t i = 0; i < nbounds; i++) {
            int32_t v = random_signed(g);
            emit_signed(g, v);
            dump_add(&g->text, "%s%" PRId32, i ? "," : "", v);
        }
        dump_add(&g->text, "])");
        *e = make(ILMAP_SIG_REPR_OBJECT_ID, PTR, 0);
        break;
    }
    case 9: case 10: case 11: { /* GENERICINST */
        int value = below(g, 2);
        uint32_t token = random_token(g), count = 1 + below(g, below(g, 4) ? 3 : 8);
        emit(g, 0x15);
        emit(g, value ? 0x11 : 0x12);
        emit_token(g, token);
        emit_unsigned(g, count);
        dump_add(&g->text, "inst(%s(0x%08" PRIX32 ")<", value ? "valuetype" : "class", token);
        for (uint32_t i = 0; i < count; i++) {
            expect arg;
            dump_add(&g->text, i ? "," : "");
            gen_type(g, depth + 1, 0, &arg);
        }
        dump_add(&g->text, ">)");
        *e = value ? make(ILMAP_SIG_REPR_VALUE_TYPE, 0, token)
                   : make(ILMAP_SIG_REPR_OBJECT_ID, PTR, token);
        break;
    }
    case 12:
        if (g->nested < 8) { /* FNPTR */
            g->nested++;
            emit(g, 0x1B);
            dump_add(&g->text, "fnptr(");
            gen_method(g, depth + 1);
            dump_add(&g->text, ")");
            *e = make(ILMAP_SIG_REPR_OPAQUE_PTR, PTR, 0);
            break;
        }
        /* fall through */
    case 100: /* VOID, where allowed */
        if (allow & ALLOW_VOID) {
            emit(g, 0x01);
            dump_add(&g->text, "void");
            *e = make(ILMAP_SIG_REPR_VOID, 0, 0);
            break;
        }
        /* fall through */
    default: {
        const leaf *l = &leaves[below(g, sizeof leaves / sizeof leaves[0])];
        emit(g, l->element);
        dump_add(&g->text, "%s", l->name);
        *e = make(l->repr, l->size == 0xFF ? PTR : l->size == 0x1FE ? 2 * PTR : l->size, 0);
        break;
    }
    }
    for (unsigned i = 0; i < closers; i++)
        dump_add(&g->text, ")");
}

/* The expected classification of signature 0, in sig-dump.h's text. */
typedef struct expected_slots {
    dump_buf text;
} expected_slots;

static void add_slot(expected_slots *x, uint32_t role, uint32_t index, const expect *e)
{
    ilmap_sig_slot s = { 0 };
    s.role = role;
    s.index = index;
    s.repr = e->repr;
    s.size = e->size;
    s.token = e->token;
    if (x->text.len)
        dump_add(&x->text, " ");
    dump_slot(&x->text, &s);
}

static const uint8_t method_convs[7] = { 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x9 };

/* A method signature (signature 0 or a FNPTR's); x, when given, collects
 * the classification of signature 0. */
static void gen_method_x(gen *g, unsigned depth, expected_slots *x)
{
    uint32_t conv = method_convs[below(g, 7)];
    uint32_t flags = 0;
    if (below(g, 3) == 0)
        flags |= ILMAP_SIG_GENERIC;
    if (below(g, 2) == 0)
        flags |= ILMAP_SIG_HASTHIS;
    if ((flags & ILMAP_SIG_HASTHIS) && below(g, 6) == 0)
        flags |= ILMAP_SIG_EXPLICITTHIS;
    uint32_t cc = conv | flags, gen_count = 1 + (below(g, 4) ? below(g, 3) : random_number(g));
    uint32_t count = below(g, 4) ? below(g, 4) : below(g, 12);
    int vararg = conv == 0x5 || conv == 0x1;
    uint32_t sentinel = vararg && count > 0 && below(g, 2) ? below(g, count) : UINT32_MAX;

    emit(g, cc);
    dump_add(&g->text, "method(cc=0x%02" PRIX32, cc);
    if (flags & ILMAP_SIG_GENERIC) {
        emit_unsigned(g, gen_count);
        dump_add(&g->text, " gen=%" PRIu32, gen_count);
    }
    emit_unsigned(g, count);
    dump_add(&g->text, " ret:");
    expect ret;
    gen_type(g, depth, ALLOW_VOID, &ret);
    dump_add(&g->text, " params:[");
    if (x && (flags & ILMAP_SIG_HASTHIS) && !(flags & ILMAP_SIG_EXPLICITTHIS)) {
        expect t = make(ILMAP_SIG_REPR_OBJECT_ID, PTR, 0);
        add_slot(x, ILMAP_SIG_ROLE_THIS, 0, &t);
    }
    int explicit_this = (flags & ILMAP_SIG_EXPLICITTHIS) != 0;
    for (uint32_t i = 0; i < count; i++) {
        expect p;
        if (i == sentinel)
            emit(g, 0x41);
        dump_add(&g->text, i ? "," : "");
        gen_type(g, depth, 0, &p);
        if (x)
            add_slot(x, explicit_this && i == 0 ? ILMAP_SIG_ROLE_THIS : ILMAP_SIG_ROLE_PARAM,
                     explicit_this ? (i ? i - 1 : 0) : i, &p);
    }
    dump_add(&g->text, "]");
    if (sentinel != UINT32_MAX)
        dump_add(&g->text, " sentinel=%" PRIu32, sentinel);
    dump_add(&g->text, ")");
    if (x)
        add_slot(x, ILMAP_SIG_ROLE_RETURN, 0, &ret);
}

static void gen_method(gen *g, unsigned depth)
{
    gen_method_x(g, depth, NULL);
}

/* Signature 0 of any kind; *flags receives the decode flags it needs. */
static void gen_sig(gen *g, expected_slots *x, unsigned *flags)
{
    expect e;
    uint32_t count;
    *flags = 0;
    switch (below(g, 8)) {
    case 0: case 1: case 2:
        gen_method_x(g, 0, x);
        return;
    case 3:
        emit(g, 0x06);
        dump_add(&g->text, "field(");
        gen_type(g, 0, 0, &e);
        dump_add(&g->text, ")");
        add_slot(x, ILMAP_SIG_ROLE_VALUE, 0, &e);
        return;
    case 4: {
        int has_this = below(g, 2);
        count = below(g, 3);
        emit(g, has_this ? 0x28 : 0x08);
        emit_unsigned(g, count);
        dump_add(&g->text, "property(cc=0x%02X ", has_this ? 0x28 : 0x08);
        expect type;
        gen_type(g, 0, 0, &type);
        dump_add(&g->text, " params:[");
        for (uint32_t i = 0; i < count; i++) {
            dump_add(&g->text, i ? "," : "");
            gen_type(g, 0, 0, &e);
            add_slot(x, ILMAP_SIG_ROLE_PARAM, i, &e);
        }
        dump_add(&g->text, "])");
        add_slot(x, ILMAP_SIG_ROLE_VALUE, 0, &type);
        return;
    }
    case 5:
    case 6: {
        int locals = below(g, 2);
        count = locals ? below(g, 6) : 1 + below(g, 4);
        emit(g, locals ? 0x07 : 0x0A);
        emit_unsigned(g, count);
        dump_add(&g->text, locals ? "locals[" : "spec[");
        for (uint32_t i = 0; i < count; i++) {
            dump_add(&g->text, i ? "," : "");
            gen_type(g, 0, locals ? ALLOW_PINNED : 0, &e);
            add_slot(x, ILMAP_SIG_ROLE_VALUE, i, &e);
        }
        dump_add(&g->text, "]");
        return;
    }
    default:
        *flags = ILMAP_SIG_AS_TYPE;
        dump_add(&g->text, "type(");
        gen_type(g, 0, 0, &e);
        dump_add(&g->text, ")");
        add_slot(x, ILMAP_SIG_ROLE_VALUE, 0, &e);
        return;
    }
}

/* ---- checks ---- */

static int reported;
static long decoded, mutated_ok, mutated_refused;

static void print_hex(const char *what, const uint8_t *p, size_t n)
{
    fprintf(stderr, "  %s (%zu bytes):", what, n);
    for (size_t i = 0; i < n && i < 512; i++)
        fprintf(stderr, " %02X", p[i]);
    fprintf(stderr, "%s\n", n > 512 ? " ..." : "");
}

static void fail_case(uint64_t seed, unsigned it, const char *what, const uint8_t *p, size_t n)
{
    test_failures++;
    if (reported++ >= 10)
        return;
    fprintf(stderr, "seed 0x%016" PRIX64 " iteration %u: %s\n", seed, it, what);
    print_hex("blob", p, n);
}

/* The type arguments of a case: random closed TYPE blobs, decoded. */
typedef struct args {
    ilmap_sig *sigs[4];
    expect want[4];
    size_t count;
} args;

static int make_args(gen *parent, args *a, uint64_t seed, unsigned it)
{
    a->count = below(parent, 5);
    for (size_t i = 0; i < a->count; i++) {
        gen g;
        memset(&g, 0, sizeof g);
        g.rng = prng_init(prng_next(&parent->rng));
        g.max_depth = 2;
        gen_type(&g, 0, 0, &a->want[i]);
        a->sigs[i] = NULL;
        if (ilmap_sig_decode(g.bytes, g.n, ILMAP_SIG_AS_TYPE, &a->sigs[i], NULL, NULL) != ILMAP_OK) {
            fail_case(seed, it, "a type argument does not decode", g.bytes, g.n);
            a->count = i;
            return 0;
        }
    }
    return 1;
}

static void free_args(args *a)
{
    for (size_t i = 0; i < a->count; i++)
        ilmap_sig_free(a->sigs[i]);
}

/* The invariants of any decode, of any bytes. */
static void check_any(uint64_t seed, unsigned it, const uint8_t *p, size_t n, unsigned flags)
{
    ilmap_sig *sig = (ilmap_sig *)1;
    ilmap_sig_defect defect = (ilmap_sig_defect)77;
    size_t where = 77;
    ilmap_status st = ilmap_sig_decode(p, n, flags, &sig, &defect, &where);
    test_checks++;
    if (st == ILMAP_OK) {
        mutated_ok++;
        size_t size = ilmap_sig_get_size(sig), total = 0;
        static uint8_t again[MAX_BLOB + 64];
        dump_buf d;
        if (!sig || defect != ILMAP_SIG_DEFECT_NONE || where != ILMAP_NO_INDEX || size > n ||
            (!(flags & ILMAP_SIG_PREFIX) && size != n))
            fail_case(seed, it, "a success with undefined outputs", p, n);
        else if (ilmap_sig_encode(sig, sizeof again, &total, again) != ILMAP_OK || total != size ||
                 memcmp(again, p, size) != 0)
            fail_case(seed, it, "decoded, but encodes to other bytes", p, n);
        else if (strchr(dump_sig(&d, sig), '?'))
            fail_case(seed, it, "decoded, but prints with a hole", p, n);
        else {
            ilmap_sig_slot slots[64];
            if (ilmap_sig_classify(sig, NULL, 0, 64, &total, slots) == ILMAP_E_INVALID_ARG)
                fail_case(seed, it, "decoded, but does not classify", p, n);
            /* the prefix alone decodes too, and to the same bytes */
            ilmap_sig *alone = NULL;
            if ((flags & ILMAP_SIG_PREFIX) &&
                ilmap_sig_decode(p, size, flags & ~(unsigned)ILMAP_SIG_PREFIX, &alone, NULL, NULL) !=
                    ILMAP_OK)
                fail_case(seed, it, "the decoded prefix does not decode alone", p, size);
            ilmap_sig_free(alone);
        }
        ilmap_sig_free(sig);
    } else {
        mutated_refused++;
        int limit = defect == ILMAP_SIG_DEFECT_DEPTH;
        if (sig != NULL || defect == ILMAP_SIG_DEFECT_NONE || defect > ILMAP_SIG_DEFECT_INTERNAL ||
            where > n || st != (limit ? ILMAP_E_LIMIT : ILMAP_E_FORMAT)) {
            char what[160];
            snprintf(what, sizeof what, "refused with undefined outputs: %s, %s at %zu",
                     ilmap_status_str(st), ilmap_sig_defect_str(defect), where);
            fail_case(seed, it, what, p, n);
        }
    }
}

static void mutate(prng *rng, uint8_t *p, size_t *n)
{
    static const uint8_t interesting[] = { 0x00, 0x01, 0x06, 0x07, 0x0A, 0x0F, 0x10, 0x13, 0x14,
                                           0x15, 0x1B, 0x1D, 0x1F, 0x21, 0x22, 0x40, 0x41, 0x45,
                                           0x7F, 0x80, 0xBF, 0xC0, 0xDF, 0xE0, 0xFF };
    unsigned rounds = 1 + prng_below(rng, 3);
    for (unsigned r = 0; r < rounds; r++) {
        size_t at = *n ? prng_below(rng, (uint32_t)*n) : 0;
        switch (prng_below(rng, 5)) {
        case 0:
            if (*n)
                p[at] = (uint8_t)prng_u32(rng);
            break;
        case 1:
            if (*n)
                p[at] = interesting[prng_below(rng, sizeof interesting)];
            break;
        case 2:
            if (*n) {
                memmove(p + at, p + at + 1, *n - at - 1);
                (*n)--;
            }
            break;
        case 3:
            if (*n < MAX_BLOB) {
                memmove(p + at + 1, p + at, *n - at);
                p[at] = interesting[prng_below(rng, sizeof interesting)];
                (*n)++;
            }
            break;
        default:
            *n = at;
            break;
        }
    }
}

static gen g;

static void run_iteration(uint64_t seed, unsigned it)
{
    prng rng = prng_init(seed ^ ((uint64_t)it * 0x9E3779B97F4A7C15ull));
    memset(&g, 0, sizeof g);
    g.rng = prng_init(prng_next(&rng));
    g.max_depth = below(&g, 4) ? 1 + below(&g, 4) : 1 + below(&g, 20);
    g.ptr_width = below(&g, 4) == 0 ? (below(&g, 2) ? 4 : 8) : 0;

    args targs = { { 0 }, { { 0 } }, 0 }, margs = { { 0 }, { { 0 } }, 0 };
    if (!make_args(&g, &targs, seed, it) || !make_args(&g, &margs, seed, it)) {
        free_args(&targs);
        free_args(&margs);
        return;
    }
    g.targs = targs.want;
    g.ntargs = targs.count;
    g.margs = margs.want;
    g.nmargs = margs.count;

    expected_slots x;
    memset(&x, 0, sizeof x);
    unsigned flags;
    gen_sig(&g, &x, &flags);
    if (g.overflow || g.text.overflow || x.text.overflow) { /* too big: not a test */
        free_args(&targs);
        free_args(&margs);
        return;
    }
    if (g.ptr_width)
        flags |= g.ptr_width == 4 ? ILMAP_SIG_INTERNAL_PTR4 : ILMAP_SIG_INTERNAL_PTR8;

    ilmap_sig *sig = NULL;
    ilmap_sig_defect defect;
    size_t where;
    ilmap_status st = ilmap_sig_decode(g.bytes, g.n, flags, &sig, &defect, &where);
    test_checks++;
    if (st != ILMAP_OK) {
        char what[160];
        snprintf(what, sizeof what, "a well-formed signature refused: %s, %s at %zu",
                 ilmap_status_str(st), ilmap_sig_defect_str(defect), where);
        fail_case(seed, it, what, g.bytes, g.n);
    } else {
        decoded++;
        dump_buf d;
        const char *got = dump_sig(&d, sig);
        test_checks++;
        if (strcmp(got, g.text.text) != 0) {
            fail_case(seed, it, "decoded to another tree", g.bytes, g.n);
            if (reported <= 10)
                fprintf(stderr, "  want %s\n  got  %s\n", g.text.text, got);
        }
        static uint8_t again[MAX_BLOB];
        size_t total = 0;
        test_checks++;
        if (ilmap_sig_encode(sig, sizeof again, &total, again) != ILMAP_OK || total != g.n ||
            memcmp(again, g.bytes, g.n) != 0)
            fail_case(seed, it, "encodes to other bytes", g.bytes, g.n);

        ilmap_sig_generics gen_args = { (const ilmap_sig *const *)targs.sigs, targs.count,
                                        (const ilmap_sig *const *)margs.sigs, margs.count, NULL };
        if (!targs.count)
            gen_args.type_args = NULL;
        if (!margs.count)
            gen_args.method_args = NULL;
        ilmap_sig_slot slots[64];
        dump_buf cd;
        memset(&cd, 0, sizeof cd);
        st = ilmap_sig_classify(sig, &gen_args, ILMAP_SIG_POINTER_8, 64, &total, slots);
        for (size_t i = 0; st == ILMAP_OK && i < total && i < 64; i++) {
            if (i)
                dump_add(&cd, " ");
            dump_slot(&cd, &slots[i]);
        }
        test_checks++;
        if (st != ILMAP_OK || strcmp(cd.text, x.text.text) != 0) {
            fail_case(seed, it, "classified otherwise", g.bytes, g.n);
            if (reported <= 10)
                fprintf(stderr, "  tree %s\n  want %s\n  got  %s\n", g.text.text, x.text.text,
                        cd.text);
        }
        ilmap_sig_free(sig);
    }

    /* mutations of it, with random flags */
    static uint8_t m[MAX_BLOB];
    for (int k = 0; k < 8; k++) {
        size_t n = g.n;
        memcpy(m, g.bytes, n);
        mutate(&rng, m, &n);
        unsigned mflags = flags;
        if (prng_below(&rng, 4) == 0)
            mflags ^= ILMAP_SIG_AS_TYPE;
        if (prng_below(&rng, 4) == 0)
            mflags |= ILMAP_SIG_PREFIX;
        if (prng_below(&rng, 4) == 0)
            mflags = (mflags & ~(unsigned)(ILMAP_SIG_INTERNAL_PTR4 | ILMAP_SIG_INTERNAL_PTR8)) |
                     (prng_below(&rng, 2) ? ILMAP_SIG_INTERNAL_PTR4 : ILMAP_SIG_INTERNAL_PTR8);
        check_any(seed, it, m, n, mflags);
    }
    free_args(&targs);
    free_args(&margs);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x51C0DE5EEDull);
    unsigned first = 0, iterations = (unsigned)test_iterations(20000);
    if (argc > 2) { /* replay one iteration */
        first = (unsigned)strtoul(argv[2], NULL, 0);
        iterations = 1;
    }
    for (unsigned it = first; it < first + iterations && reported < 10; it++)
        run_iteration(seed, it);
    printf("%ld generated signatures decoded, encoded and classified as the model says; "
           "%ld mutations decoded, %ld refused, all with defined outputs\n",
           decoded, mutated_ok, mutated_refused);
    return test_finish("test-sig-random");
}
