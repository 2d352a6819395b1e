/*
 * Table-driven tests of ilmap-sig.h. Each row is a blob and what must come
 * of it: its decoded form (the text of sig-dump.h), or the status, defect
 * and offset of its error; its classification (the table of
 * representations, doc/signatures.md#classification); a field's static
 * kind. The blobs are written by hand from ECMA-335 II.23.2's grammar, and
 * the compressed-integer rows use the standard's own example values. Then
 * the argument checks, the buffer protocol of every copy-out call, and the
 * nesting bound at and past ILMAP_SIG_MAX_DEPTH.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-sig.h"
#include "sig-dump.h"
#include "test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define P4 ILMAP_SIG_INTERNAL_PTR4
#define P8 ILMAP_SIG_INTERNAL_PTR8
#define AS_TYPE ILMAP_SIG_AS_TYPE

/* ---- decoding: blobs that decode, and what they decode to ---- */

typedef struct good_row {
    const char *hex;
    unsigned flags;
    const char *want;
} good_row;

static const good_row good_rows[] = {
    /* MethodDefSig: static void M() */
    { "00 00 01", 0, "method(cc=0x00 ret:void params:[])" },
    /* instance void M(int, string) */
    { "20 02 01 08 0E", 0, "method(cc=0x20 ret:void params:[i4,string])" },
    /* static !!0 M<T, U>(!!1) */
    { "30 02 01 1E 00 1E 01", 0, "method(cc=0x30 gen=2 ret:mvar(0) params:[mvar(1)])" },
    /* a vararg call site: M(int, ..., string, object) */
    { "05 03 01 08 41 0E 1C", 0, "method(cc=0x05 ret:void params:[i4,string,object] sentinel=1)" },
    /* an unmanaged cdecl call site with variable arguments */
    { "01 02 08 08 41 0D", 0, "method(cc=0x01 ret:i4 params:[i4,r8] sentinel=1)" },
    /* every primitive, TYPEDBYREF and OBJECT as parameters */
    { "00 11 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 16 18 19 1C", 0,
      "method(cc=0x00 ret:void params:[bool,char,i1,u1,i2,u2,i4,u4,i8,u8,r4,r8,string,"
      "typedref,i,u,object])" },
    /* the other calling conventions */
    { "02 00 01", 0, "method(cc=0x02 ret:void params:[])" },
    { "03 00 01", 0, "method(cc=0x03 ret:void params:[])" },
    { "04 00 01", 0, "method(cc=0x04 ret:void params:[])" },
    { "09 00 01", 0, "method(cc=0x09 ret:void params:[])" },
    /* void* M(ref int, int*) */
    { "00 02 0F 01 10 08 0F 08", 0, "method(cc=0x00 ret:ptr(void) params:[byref(i4),ptr(i4)])" },
    /* custom modifiers: modreq on the return type, modopt before BYREF */
    { "00 01 1F 05 01 20 09 10 08", 0,
      "method(cc=0x00 ret:modreq(0x01000001 void) params:[modopt(0x01000002 byref(i4))])" },
    /* TypeDefOrRef: TypeDef row 2 (0x08), TypeSpec row 3 (0x0E), TypeRef row
     * 0x100 (two bytes, 0x84 0x01) */
    { "00 02 11 08 12 0E 12 84 01", 0,
      "method(cc=0x00 ret:valuetype(0x02000002) params:[class(0x1B000003),class(0x01000100)])" },
    /* the largest row a token holds, TypeDef 0xFFFFFF */
    { "06 12 C3 FF FF FC", 0, "field(class(0x02FFFFFF))" },
    /* int[] M(string[,] with size 3 and lower bounds -1, 0) */
    { "00 01 1D 08 14 0E 02 01 03 02 7F 00", 0,
      "method(cc=0x00 ret:szarray(i4) params:[array(string rank=2 sizes=[3] lo=[-1,0])])" },
    /* an array of rank 3 with neither sizes nor bounds */
    { "06 14 08 03 00 00", 0, "field(array(i4 rank=3 sizes=[] lo=[]))" },
    /* instance Pair<int> M(List<string, !0>) */
    { "20 01 15 11 08 01 08 15 12 05 02 0E 13 00", 0,
      "method(cc=0x20 ret:inst(valuetype(0x02000002)<i4>) "
      "params:[inst(class(0x01000001)<string,var(0)>)])" },
    /* a generic argument that is itself an instantiation */
    { "06 15 12 05 01 15 11 08 01 1D 08", 0,
      "field(inst(class(0x01000001)<inst(valuetype(0x02000002)<szarray(i4)>)>))" },
    /* a managed function pointer parameter: delegate*<int, string, int> */
    { "00 01 01 1B 00 02 08 08 0E", 0,
      "method(cc=0x00 ret:void params:[fnptr(method(cc=0x00 ret:i4 params:[i4,string]))])" },
    /* an unmanaged one, with a modopt naming its convention */
    { "00 01 01 1B 09 00 20 05 01", 0,
      "method(cc=0x00 ret:void params:[fnptr(method(cc=0x09 ret:modopt(0x01000001 void) "
      "params:[]))])" },
    /* a function pointer returning a function pointer */
    { "06 1B 00 00 1B 00 00 08", 0,
      "field(fnptr(method(cc=0x00 ret:fnptr(method(cc=0x00 ret:i4 params:[])) params:[])))" },
    /* EXPLICITTHIS: `this` is the first parameter */
    { "60 01 01 12 05", 0, "method(cc=0x60 ret:void params:[class(0x01000001)])" },
    /* FieldSig */
    { "06 08", 0, "field(i4)" },
    { "06 1F 05 08", 0, "field(modreq(0x01000001 i4))" },
    { "06 10 08", 0, "field(byref(i4))" }, /* a ref field */
    { "06 0F 01", 0, "field(ptr(void))" },
    /* PropertySig: instance string this[int], static object P */
    { "28 01 0E 08", 0, "property(cc=0x28 string params:[i4])" },
    { "08 00 1C", 0, "property(cc=0x08 object params:[])" },
    /* LocalVarSig: int, pinned ref string, TypedReference */
    { "07 03 08 45 10 0E 16", 0, "locals[i4,pinned(byref(string)),typedref]" },
    { "07 00", 0, "locals[]" },
    { "07 01 1F 05 45 10 08", 0, "locals[modreq(0x01000001 pinned(byref(i4)))]" },
    /* a MethodSpec's instantiation */
    { "0A 02 08 12 05", 0, "spec[i4,class(0x01000001)]" },
    /* TypeSpec blobs, decoded as one type */
    { "15 12 05 01 1E 00", AS_TYPE, "type(inst(class(0x01000001)<mvar(0)>))" },
    { "1D 1D 08", AS_TYPE, "type(szarray(szarray(i4)))" },
    { "08", AS_TYPE, "type(i4)" },
    /* the runtime-only elements, with a pointer width */
    { "06 21 11 22 33 44 55 66 77 88", P8, "field(internal(0x8877665544332211))" },
    { "06 21 11 22 33 44", P4, "field(internal(0x44332211))" },
    { "06 22 01 11 22 33 44 08", P4, "field(cmodint(1 0x44332211 i4))" },
    { "06 22 00 11 22 33 44 55 66 77 88 1C", P8, "field(cmodint(0 0x8877665544332211 object))" },
    /* compressed integers at the edges of each width */
    { "10 80 80 00 01", 0, "method(cc=0x10 gen=128 ret:void params:[])" },
    { "06 13 7F", 0, "field(var(127))" },
    { "06 13 BF FF", 0, "field(var(16383))" },
    { "06 13 C0 00 40 00", 0, "field(var(16384))" },
    { "06 1E DF FF FF FF", 0, "field(mvar(536870911))" },
    /* ECMA-335 II.23.2's unsigned examples, as array sizes */
    { "06 14 08 01 01 03 00", 0, "field(array(i4 rank=1 sizes=[3] lo=[]))" },
    { "06 14 08 01 01 7F 00", 0, "field(array(i4 rank=1 sizes=[127] lo=[]))" },
    { "06 14 08 01 01 80 80 00", 0, "field(array(i4 rank=1 sizes=[128] lo=[]))" },
    { "06 14 08 01 01 AE 57 00", 0, "field(array(i4 rank=1 sizes=[11863] lo=[]))" },
    { "06 14 08 01 01 BF FF 00", 0, "field(array(i4 rank=1 sizes=[16383] lo=[]))" },
    { "06 14 08 01 01 C0 00 40 00 00", 0, "field(array(i4 rank=1 sizes=[16384] lo=[]))" },
    { "06 14 08 01 01 DF FF FF FF 00", 0, "field(array(i4 rank=1 sizes=[536870911] lo=[]))" },
    /* ... and its signed examples, as lower bounds */
    { "06 14 08 01 00 01 06", 0, "field(array(i4 rank=1 sizes=[] lo=[3]))" },
    { "06 14 08 01 00 01 7B", 0, "field(array(i4 rank=1 sizes=[] lo=[-3]))" },
    { "06 14 08 01 00 01 80 80", 0, "field(array(i4 rank=1 sizes=[] lo=[64]))" },
    { "06 14 08 01 00 01 01", 0, "field(array(i4 rank=1 sizes=[] lo=[-64]))" },
    { "06 14 08 01 00 01 C0 00 40 00", 0, "field(array(i4 rank=1 sizes=[] lo=[8192]))" },
    { "06 14 08 01 00 01 80 01", 0, "field(array(i4 rank=1 sizes=[] lo=[-8192]))" },
    { "06 14 08 01 00 01 DF FF FF FE", 0, "field(array(i4 rank=1 sizes=[] lo=[268435455]))" },
    { "06 14 08 01 00 01 C0 00 00 01", 0, "field(array(i4 rank=1 sizes=[] lo=[-268435456]))" },
    { "06 14 08 01 00 01 7E", 0, "field(array(i4 rank=1 sizes=[] lo=[63]))" },
    { "06 14 08 01 00 01 80 03", 0, "field(array(i4 rank=1 sizes=[] lo=[-8191]))" },
    { "06 14 08 05 00 00", 0, "field(array(i4 rank=5 sizes=[] lo=[]))" },
};

static void test_good_rows(void)
{
    dump_buf d;
    for (size_t r = 0; r < COUNT(good_rows); r++) {
        const good_row *row = &good_rows[r];
        uint8_t blob[256], again[256];
        long n = hex_bytes(row->hex, blob, sizeof blob);
        if (n < 0)
            exit(TEST_EXIT_SETUP_FAILURE);
        ilmap_sig *sig = NULL;
        ilmap_sig_defect defect = ILMAP_SIG_DEFECT_COUNT;
        size_t where = 0;
        ilmap_status st = ilmap_sig_decode(blob, (size_t)n, row->flags, &sig, &defect, &where);
        CHECK(st == ILMAP_OK && defect == ILMAP_SIG_DEFECT_NONE && where == ILMAP_NO_INDEX);
        if (st != ILMAP_OK) {
            fprintf(stderr, "  row %zu (%s): %s, %s at %zu\n", r, row->hex, ilmap_status_str(st),
                    ilmap_sig_defect_str(defect), where);
            continue;
        }
        const char *got = dump_sig(&d, sig);
        CHECK(strcmp(got, row->want) == 0);
        if (strcmp(got, row->want) != 0)
            fprintf(stderr, "  row %zu (%s):\n    got  %s\n    want %s\n", r, row->hex, got,
                    row->want);
        CHECK(ilmap_sig_get_size(sig) == (size_t)n);
        size_t total = 0;
        CHECK(ilmap_sig_encode(sig, sizeof again, &total, again) == ILMAP_OK);
        CHECK(total == (size_t)n && memcmp(again, blob, (size_t)n) == 0);
        /* Every node on its own: the bytes it was decoded from, at its
         * offset (ilmap_sig_encode_type()). */
        for (uint32_t k = 0; k < ilmap_sig_get_node_count(sig); k++) {
            ilmap_sig_node node;
            CHECK(ilmap_sig_get_node(sig, k, &node) == ILMAP_OK);
            CHECK(ilmap_sig_encode_type(sig, k, sizeof again, &total, again) == ILMAP_OK);
            CHECK(node.offset + total <= (size_t)n &&
                  memcmp(again, blob + node.offset, total) == 0);
        }
        CHECK(ilmap_sig_encode_type(sig, ilmap_sig_get_node_count(sig), sizeof again, &total,
                                    again) == ILMAP_E_NOT_FOUND && total == 0);
        ilmap_sig_free(sig);
    }
}

/* ---- decoding: defects, and the offset each is found at ---- */

typedef struct bad_row {
    const char *hex;
    unsigned flags;
    ilmap_status status;
    ilmap_sig_defect defect;
    size_t offset;
} bad_row;

#define FMT ILMAP_E_FORMAT
#define D(x) ILMAP_SIG_DEFECT_##x

static const bad_row bad_rows[] = {
    { "", 0, FMT, D(TRUNCATED), 0 },
    { "20", 0, FMT, D(TRUNCATED), 1 },          /* no parameter count */
    { "20 01 01", 0, FMT, D(TRUNCATED), 3 },    /* the parameter is missing */
    { "20 00 01 00", 0, FMT, D(TRAILING), 3 },
    { "0B 00 01", 0, FMT, D(CALLCONV), 0 },     /* 0xB is no calling convention */
    { "0C 00 01", 0, FMT, D(CALLCONV), 0 },
    { "86 08", 0, FMT, D(CALLCONV), 0 },        /* bit 7 */
    { "16 08", 0, FMT, D(CALLCONV), 0 },        /* GENERIC on a field */
    { "26 08", 0, FMT, D(CALLCONV), 0 },        /* HASTHIS on a field */
    { "40 00 01", 0, FMT, D(CALLCONV), 0 },     /* EXPLICITTHIS without HASTHIS */
    { "38 00 08", 0, FMT, D(CALLCONV), 0 },     /* GENERIC on a property */
    { "27 00", 0, FMT, D(CALLCONV), 0 },        /* HASTHIS on locals */
    { "2A 01 08", 0, FMT, D(CALLCONV), 0 },     /* HASTHIS on a MethodSpec */
    { "06 1B 06 08", 0, FMT, D(CALLCONV), 2 },  /* a FNPTR's signature must be a method's */
    { "00 01 01 01", 0, FMT, D(PLACEMENT), 3 }, /* a void parameter */
    { "06 01", 0, FMT, D(PLACEMENT), 1 },       /* a void field */
    { "06 1D 01", 0, FMT, D(PLACEMENT), 2 },    /* an array of void */
    { "01", AS_TYPE, FMT, D(PLACEMENT), 0 },
    { "00 00 45 08", 0, FMT, D(PLACEMENT), 2 }, /* PINNED outside locals */
    { "00 02 01 08 41 08", 0, FMT, D(PLACEMENT), 4 }, /* SENTINEL without VARARG */
    { "05 02 01 41 08 41 08", 0, FMT, D(PLACEMENT), 5 }, /* SENTINEL twice */
    { "05 01 01 08 41", 0, FMT, D(TRAILING), 4 },        /* SENTINEL after the last */
    { "06 41", 0, FMT, D(PLACEMENT), 1 },
    { "06 17", 0, FMT, D(ELEMENT), 1 },
    { "06 00", 0, FMT, D(ELEMENT), 1 },         /* END is no type */
    { "06 40", 0, FMT, D(ELEMENT), 1 },         /* MODIFIER alone */
    { "06 1A", 0, FMT, D(ELEMENT), 1 },
    { "06 FF", 0, FMT, D(ELEMENT), 1 },
    { "06 15 08 01 08", 0, FMT, D(ELEMENT), 2 }, /* GENERICINST of a primitive */
    { "06 15 1F 05 12 05 01 08", 0, FMT, D(ELEMENT), 2 },
    { "06 12 07", 0, FMT, D(TOKEN), 2 },        /* tag 3 */
    { "06 12 DF FF FF FF", 0, FMT, D(TOKEN), 2 },
    { "06 12 C4 00 00 00", 0, FMT, D(TOKEN), 2 }, /* row 0x1000000 */
    { "06 1F 0B 08", 0, FMT, D(TOKEN), 2 },
    { "06 12 80 05", 0, FMT, D(COMPRESSED), 2 }, /* 5 in two bytes */
    { "06 13 C0 00 00 7F", 0, FMT, D(COMPRESSED), 2 },
    { "06 13 E0", 0, FMT, D(COMPRESSED), 2 },    /* 111xxxxx */
    { "06 14 08 01 00 01 80 06", 0, FMT, D(COMPRESSED), 6 }, /* 3 in two bytes */
    { "06 14 08 01 00 01 C0 00 00 02", 0, FMT, D(COMPRESSED), 6 }, /* 1 in four */
    { "06 13 C0 00", 0, FMT, D(TRUNCATED), 2 },
    { "06 13 80", 0, FMT, D(TRUNCATED), 2 },
    { "06 12", 0, FMT, D(TRUNCATED), 2 },
    { "06 15 12 05 00", 0, FMT, D(COUNT), 4 },   /* no generic argument */
    { "06 15 12 05 05 08", 0, FMT, D(COUNT), 4 }, /* more than the bytes left */
    { "06 15 12 05 01", 0, FMT, D(COUNT), 4 },
    { "06 14 08 00 00 00", 0, FMT, D(COUNT), 3 }, /* rank 0 */
    { "06 14 08 01 02 01 02 00", 0, FMT, D(COUNT), 4 }, /* more sizes than the rank */
    { "06 14 08 01 00 02 00 00", 0, FMT, D(COUNT), 5 }, /* more bounds than the rank */
    { "06 14 08 01 01 03", 0, FMT, D(TRUNCATED), 6 },
    { "10 00 00 01", 0, FMT, D(COUNT), 1 },      /* GENERIC with no parameter */
    { "00 03 01 08", 0, FMT, D(COUNT), 1 },
    { "07 02 08", 0, FMT, D(COUNT), 1 },
    { "0A 00", 0, FMT, D(COUNT), 1 },
    { "08 00", 0, FMT, D(TRUNCATED), 2 },        /* I8 read as a PropertySig */
    { "08 08", AS_TYPE, FMT, D(TRAILING), 1 },
    { "06 21 00 00 00 00", 0, FMT, D(INTERNAL), 1 },
    { "06 22 01 00 00 00 00 08", 0, FMT, D(INTERNAL), 1 },
    { "06 21 00 00", P4, FMT, D(TRUNCATED), 2 },
    { "06 22 02 00 00 00 00 08", P4, FMT, D(ELEMENT), 2 },
    { "06 22", P4, FMT, D(TRUNCATED), 2 },
    { "06 21 00 00 00 00 00 00 00", P8, FMT, D(TRUNCATED), 2 },
};

static void test_bad_rows(void)
{
    for (size_t r = 0; r < COUNT(bad_rows); r++) {
        const bad_row *row = &bad_rows[r];
        uint8_t blob[256];
        long n = hex_bytes(row->hex, blob, sizeof blob);
        if (n < 0)
            exit(TEST_EXIT_SETUP_FAILURE);
        ilmap_sig *sig = (ilmap_sig *)1;
        ilmap_sig_defect defect = ILMAP_SIG_DEFECT_NONE;
        size_t where = 12345;
        ilmap_status st = ilmap_sig_decode(blob, (size_t)n, row->flags, &sig, &defect, &where);
        CHECK(st == row->status && defect == row->defect && where == row->offset && !sig);
        if (st != row->status || defect != row->defect || where != row->offset)
            fprintf(stderr, "  row %zu (%s): got %s, %s at %zu; want %s, %s at %zu\n", r,
                    row->hex, ilmap_status_str(st), ilmap_sig_defect_str(defect), where,
                    ilmap_status_str(row->status), ilmap_sig_defect_str(row->defect),
                    row->offset);
        ilmap_sig_free(sig);
        /* the optional outputs may be NULL */
        CHECK(ilmap_sig_decode(blob, (size_t)n, row->flags, &sig, NULL, NULL) == row->status);
        CHECK(sig == NULL);
    }
}

/* ILMAP_SIG_MAX_DEPTH: 64 PTRs around an int are accepted, 65 are not; the
 * same through GENERICINST arguments and FNPTR signatures. */
static void test_depth(void)
{
    uint8_t blob[512];
    for (unsigned extra = 0; extra <= 1; extra++) {
        size_t n = 0, levels = ILMAP_SIG_MAX_DEPTH + extra;
        blob[n++] = 0x06;
        for (size_t i = 0; i < levels; i++)
            blob[n++] = 0x0F;
        blob[n++] = 0x08;
        ilmap_sig *sig = NULL;
        ilmap_sig_defect defect;
        size_t where;
        ilmap_status st = ilmap_sig_decode(blob, n, 0, &sig, &defect, &where);
        if (extra == 0) {
            CHECK(st == ILMAP_OK && ilmap_sig_get_node_count(sig) == levels + 1);
        } else {
            CHECK(st == ILMAP_E_LIMIT && defect == ILMAP_SIG_DEFECT_DEPTH && where == n - 1);
        }
        ilmap_sig_free(sig);

        /* List<List<...<int>>>: each argument one level deeper */
        n = 0;
        blob[n++] = 0x06;
        for (size_t i = 0; i < levels; i++) {
            blob[n++] = 0x15;
            blob[n++] = 0x12;
            blob[n++] = 0x05;
            blob[n++] = 0x01;
        }
        blob[n++] = 0x08;
        st = ilmap_sig_decode(blob, n, 0, &sig, &defect, &where);
        CHECK(extra ? st == ILMAP_E_LIMIT && defect == ILMAP_SIG_DEFECT_DEPTH && where == n - 1
                    : st == ILMAP_OK);
        ilmap_sig_free(sig);

        /* delegate*<delegate*<...<int>>>: each return type one level deeper */
        n = 0;
        blob[n++] = 0x06;
        for (size_t i = 0; i < levels; i++) {
            blob[n++] = 0x1B;
            blob[n++] = 0x00;
            blob[n++] = 0x00;
        }
        blob[n++] = 0x08;
        st = ilmap_sig_decode(blob, n, 0, &sig, &defect, &where);
        CHECK(extra ? st == ILMAP_E_LIMIT && defect == ILMAP_SIG_DEFECT_DEPTH && where == n - 1
                    : st == ILMAP_OK);
        if (!extra) {
            ilmap_sig_info in;
            CHECK(ilmap_sig_get_info(sig, (uint32_t)levels, &in) == ILMAP_OK);
            CHECK(ilmap_sig_get_info(sig, (uint32_t)levels + 1, &in) == ILMAP_E_NOT_FOUND);
        }
        ilmap_sig_free(sig);
    }
    /* modifiers do not count: 1000 of them before one type */
    uint8_t *many = malloc(4000);
    if (!many)
        exit(TEST_EXIT_SETUP_FAILURE);
    size_t n = 0;
    many[n++] = 0x06;
    for (int i = 0; i < 1000; i++) {
        many[n++] = (uint8_t)(i & 1 ? 0x1F : 0x20);
        many[n++] = 0x05;
    }
    many[n++] = 0x08;
    ilmap_sig *sig = NULL;
    CHECK(ilmap_sig_decode(many, n, 0, &sig, NULL, NULL) == ILMAP_OK);
    size_t total = 0;
    uint8_t *again = malloc(n);
    CHECK(again && ilmap_sig_encode(sig, n, &total, again) == ILMAP_OK && total == n &&
          memcmp(again, many, n) == 0);
    ilmap_sig_slot slot;
    CHECK(ilmap_sig_classify(sig, NULL, ILMAP_SIG_POINTER_8, 1, &total, &slot) == ILMAP_OK &&
          slot.repr == ILMAP_SIG_REPR_PRIMITIVE && slot.size == 4);
    free(again);
    free(many);
    ilmap_sig_free(sig);
}

/* ---- classification: doc/signatures.md#classification ---- */

typedef struct class_row {
    const char *hex;
    unsigned flags;       /* classify flags */
    const char *type_args; /* ';'-separated TypeSpec blobs, or NULL */
    const char *method_args;
    const char *spec;     /* a MethodSpec blob for MVAR, or NULL */
    const char *want;
} class_row;

#define PTR8 ILMAP_SIG_POINTER_8
#define PTR4 ILMAP_SIG_POINTER_4

static const class_row class_rows[] = {
    /* instance void M(int, string): `this` is an ObjectID */
    { "20 02 01 08 0E", PTR8, NULL, NULL, NULL, "this:object8 p0:prim4 p1:object8 ret:void" },
    /* ... of a value type: `this` is a managed pointer */
    { "20 02 01 08 0E", PTR8 | ILMAP_SIG_THIS_VALUE_TYPE, NULL, NULL, NULL,
      "this:mptr8 p0:prim4 p1:object8 ret:void" },
    /* primitives by value with their sizes; STRING and OBJECT ObjectIDs;
     * TYPEDBYREF a managed pointer and an opaque pointer */
    { "00 11 08 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 16 18 19 1C", PTR8, NULL, NULL, NULL,
      "p0:prim1 p1:prim2 p2:prim1 p3:prim1 p4:prim2 p5:prim2 p6:prim4 p7:prim4 p8:prim8 "
      "p9:prim8 p10:prim4 p11:prim8 p12:object8 p13:typedref16 p14:prim8 p15:prim8 "
      "p16:object8 ret:prim4" },
    { "00 04 0D 16 18 19 0F 08", PTR4, NULL, NULL, NULL,
      "p0:typedref8 p1:prim4 p2:prim4 p3:uptr4 ret:prim8" },
    /* VALUETYPE by layout (its token), CLASS an ObjectID, GENERICINST of
     * each likewise */
    { "00 04 01 11 08 12 05 15 11 08 01 08 15 12 05 01 08", PTR8, NULL, NULL, NULL,
      "p0:value(0x02000002) p1:object8(0x01000001) p2:value(0x02000002) "
      "p3:object8(0x01000001) ret:void" },
    /* BYREF, PTR, FNPTR, SZARRAY, ARRAY */
    { "00 05 01 10 08 0F 01 1B 00 00 01 1D 08 14 08 02 00 00", PTR8, NULL, NULL, NULL,
      "p0:mptr8 p1:uptr8 p2:opaque8 p3:object8 p4:object8 ret:void" },
    /* BYREF of a value type is still a managed pointer */
    { "00 01 01 10 11 08", PTR8, NULL, NULL, NULL, "p0:mptr8 ret:void" },
    /* modifiers are looked through */
    { "00 01 1F 05 08 20 05 10 08", PTR8, NULL, NULL, NULL, "p0:mptr8 ret:prim4" },
    /* a TYPEDBYREF return */
    { "00 00 16", PTR8, NULL, NULL, NULL, "ret:typedref16" },
    /* generic parameters, substituted from the type arguments:
     * instance !0 M<T>(!1, !!0) with <int, valuetype 0x02000002> and <string> */
    { "30 01 02 13 00 13 01 1E 00", PTR8, "08;11 08", "0E", NULL,
      "this:object8 p0:value(0x02000002) p1:object8 ret:prim4" },
    /* ... without arguments, or with too few */
    { "30 01 02 13 00 13 01 1E 00", PTR8, NULL, NULL, NULL,
      "this:object8 p0:unresolved p1:unresolved ret:unresolved" },
    { "30 01 02 13 00 13 01 1E 00", PTR8, "1D 08", NULL, NULL,
      "this:object8 p0:unresolved p1:unresolved ret:object8" },
    /* MVAR from a MethodSpec: GENERICINST of a value type is a value type,
     * of a class an ObjectID */
    { "10 02 01 1E 00 1E 01", PTR8, NULL, NULL, "0A 02 15 11 08 01 08 15 12 05 01 08",
      "p0:object8(0x01000001) ret:value(0x02000002)" },
    /* a type argument that is a generic parameter is not substituted again */
    { "00 00 13 00", PTR8, "1E 00", NULL, NULL, "ret:unresolved" },
    /* a type argument with modifiers and a BYREF */
    { "00 00 13 00", PTR8, "20 05 10 08", NULL, NULL, "ret:mptr8" },
    /* EXPLICITTHIS: the first parameter is `this` */
    { "60 02 01 12 05 08", PTR8, NULL, NULL, NULL,
      "this:object8(0x01000001) p0:prim4 ret:void" },
    /* a vararg call site: the variable arguments are parameters too */
    { "05 02 01 08 41 0D", PTR8, NULL, NULL, NULL, "p0:prim4 p1:prim8 ret:void" },
    /* fields, properties, locals, MethodSpecs, TypeSpecs */
    { "06 15 11 08 01 1C", PTR8, NULL, NULL, NULL, "v0:value(0x02000002)" },
    { "06 11 05", PTR8, NULL, NULL, NULL, "v0:value(0x01000001)" }, /* an enum looks so too */
    { "28 01 0E 08", PTR8, NULL, NULL, NULL, "p0:prim4 v0:object8" },
    { "07 02 45 10 08 0E", PTR8, NULL, NULL, NULL, "v0:mptr8 v1:object8" },
    { "0A 02 08 1C", PTR8, NULL, NULL, NULL, "v0:prim4 v1:object8" },
};

/* Decodes ';'-separated TypeSpec blobs into sigs[]; the count, or -1. */
static long decode_args(const char *list, ilmap_sig **sigs, size_t cap)
{
    if (!list)
        return 0;
    char copy[256];
    long n = 0;
    snprintf(copy, sizeof copy, "%s", list);
    for (char *part = strtok(copy, ";"); part; part = strtok(NULL, ";")) {
        uint8_t blob[64];
        long len = hex_bytes(part, blob, sizeof blob);
        if (len < 0 || (size_t)n >= cap ||
            ilmap_sig_decode(blob, (size_t)len, AS_TYPE, &sigs[n], NULL, NULL) != ILMAP_OK)
            return -1;
        n++;
    }
    return n;
}

static void test_classification(void)
{
    dump_buf d;
    for (size_t r = 0; r < COUNT(class_rows); r++) {
        const class_row *row = &class_rows[r];
        uint8_t blob[256];
        ilmap_sig *sig = NULL, *spec = NULL, *targs[4] = { 0 }, *margs[4] = { 0 };
        long n = hex_bytes(row->hex, blob, sizeof blob);
        long nt = decode_args(row->type_args, targs, 4);
        long nm = decode_args(row->method_args, margs, 4);
        if (n < 0 || nt < 0 || nm < 0 ||
            ilmap_sig_decode(blob, (size_t)n, 0, &sig, NULL, NULL) != ILMAP_OK)
            exit(TEST_EXIT_SETUP_FAILURE);
        if (row->spec) {
            long ns = hex_bytes(row->spec, blob, sizeof blob);
            if (ns < 0 || ilmap_sig_decode(blob, (size_t)ns, 0, &spec, NULL, NULL) != ILMAP_OK)
                exit(TEST_EXIT_SETUP_FAILURE);
        }
        ilmap_sig_generics g = { (const ilmap_sig *const *)targs, (size_t)nt,
                                 nm ? (const ilmap_sig *const *)margs : NULL, (size_t)nm, spec };
        if (!nt)
            g.type_args = NULL;
        ilmap_sig_slot slots[32];
        size_t total = 0;
        ilmap_status st = ilmap_sig_classify(sig, &g, row->flags, 32, &total, slots);
        CHECK(st == ILMAP_OK);
        d.len = 0;
        d.text[0] = 0;
        for (size_t i = 0; st == ILMAP_OK && i < total; i++) {
            if (i)
                dump_add(&d, " ");
            dump_slot(&d, &slots[i]);
            /* the slot names a node of the signature it points at, or none
             * (an implicit `this`) */
            CHECK(slots[i].sig == sig || slots[i].sig == spec || slots[i].sig == targs[0] ||
                  slots[i].sig == targs[1] || slots[i].sig == margs[0]);
            CHECK(slots[i].node == ILMAP_SIG_NO_NODE ||
                  slots[i].node < ilmap_sig_get_node_count(slots[i].sig));
            CHECK(slots[i].reserved == 0);
        }
        CHECK(strcmp(d.text, row->want) == 0);
        if (strcmp(d.text, row->want) != 0)
            fprintf(stderr, "  class row %zu (%s):\n    got  %s\n    want %s\n", r, row->hex,
                    d.text, row->want);
        /* each slot again through ilmap_sig_classify_type, where it has a node in sig */
        for (size_t i = 0; i < total; i++) {
            ilmap_sig_slot one;
            if (slots[i].role == ILMAP_SIG_ROLE_THIS && slots[i].node == ILMAP_SIG_NO_NODE)
                continue;
            if (slots[i].sig != sig)
                continue;
            CHECK(ilmap_sig_classify_type(sig, slots[i].node, &g, row->flags, &one) == ILMAP_OK);
            CHECK(one.repr == slots[i].repr && one.size == slots[i].size &&
                  one.token == slots[i].token && one.role == ILMAP_SIG_ROLE_VALUE);
        }
        ilmap_sig_free(sig);
        ilmap_sig_free(spec);
        for (int i = 0; i < 4; i++) {
            ilmap_sig_free(targs[i]);
            ilmap_sig_free(margs[i]);
        }
    }
}

/* ---- static fields ---- */

typedef struct static_row {
    uint32_t flags;
    const char *attrs[3];
    ilmap_status status;
    ilmap_sig_static kind;
} static_row;

#define TS "System.ThreadStaticAttribute"
#define CS "System.ContextStaticAttribute"

static const static_row static_rows[] = {
    { 0x0006, { NULL }, ILMAP_OK, ILMAP_SIG_STATIC_NONE },          /* public instance */
    { 0x0006, { TS }, ILMAP_OK, ILMAP_SIG_STATIC_NONE },            /* not static: ignored */
    { 0x0016, { NULL }, ILMAP_OK, ILMAP_SIG_STATIC_APPDOMAIN },
    { 0x0031, { NULL }, ILMAP_OK, ILMAP_SIG_STATIC_APPDOMAIN },     /* private static initonly */
    { 0x0056, { NULL }, ILMAP_OK, ILMAP_SIG_STATIC_LITERAL },       /* const */
    { 0x8056, { TS }, ILMAP_OK, ILMAP_SIG_STATIC_LITERAL },         /* literal, HasDefault */
    { 0x0113, { NULL }, ILMAP_OK, ILMAP_SIG_STATIC_RVA },
    { 0x0016, { TS }, ILMAP_OK, ILMAP_SIG_STATIC_THREAD },
    { 0x0016, { "System.Runtime.CompilerServices.CompilerGeneratedAttribute", CS },
      ILMAP_OK, ILMAP_SIG_STATIC_CONTEXT },
    { 0x0016, { "ThreadStaticAttribute" }, ILMAP_OK, ILMAP_SIG_STATIC_APPDOMAIN },
    { 0x0016, { "System.ThreadStatic" }, ILMAP_OK, ILMAP_SIG_STATIC_APPDOMAIN },
    { 0x0116, { TS }, ILMAP_E_FORMAT, ILMAP_SIG_STATIC_NONE },
    { 0x0016, { TS, CS }, ILMAP_E_FORMAT, ILMAP_SIG_STATIC_NONE },
    { 0x0016, { TS, TS }, ILMAP_OK, ILMAP_SIG_STATIC_THREAD },
};

static void test_statics(void)
{
    for (size_t r = 0; r < COUNT(static_rows); r++) {
        const static_row *row = &static_rows[r];
        size_t n = 0;
        while (n < 3 && row->attrs[n])
            n++;
        ilmap_sig_static kind = ILMAP_SIG_STATIC_CONTEXT;
        ilmap_status st = ilmap_sig_static_kind(row->flags, n ? row->attrs : NULL, n, &kind);
        CHECK(st == row->status && kind == row->kind);
        if (st != row->status || kind != row->kind)
            fprintf(stderr, "  static row %zu: got %s %s\n", r, ilmap_status_str(st),
                    ilmap_sig_static_str(kind));
    }
    ilmap_sig_static kind = ILMAP_SIG_STATIC_RVA;
    const char *with_null[2] = { TS, NULL };
    CHECK(ilmap_sig_static_kind(0x16, NULL, 1, &kind) == ILMAP_E_INVALID_ARG &&
          kind == ILMAP_SIG_STATIC_NONE);
    CHECK(ilmap_sig_static_kind(0x16, with_null, 2, &kind) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_static_kind(0x16, NULL, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(strcmp(ilmap_sig_static_str(ILMAP_SIG_STATIC_THREAD), "thread") == 0);
    CHECK(strcmp(ilmap_sig_static_str(ILMAP_SIG_STATIC_APPDOMAIN), "appdomain") == 0);
    CHECK(strcmp(ilmap_sig_static_str((ilmap_sig_static)99), "unknown") == 0);
}

/* ---- arguments, outputs on failure, the buffer protocol ---- */

static ilmap_status encode_fn(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_sig_encode(ctx, cap, total, out);
}

typedef struct node_ctx {
    const ilmap_sig *sig;
    uint32_t node;
} node_ctx;

static ilmap_status sizes_fn(void *ctx, size_t cap, size_t *total, void *out)
{
    node_ctx *c = ctx;
    return ilmap_sig_get_array_sizes(c->sig, c->node, cap, total, out);
}

static ilmap_status bounds_fn(void *ctx, size_t cap, size_t *total, void *out)
{
    node_ctx *c = ctx;
    return ilmap_sig_get_array_lower_bounds(c->sig, c->node, cap, total, out);
}

static ilmap_status classify_fn(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_sig_classify(ctx, NULL, ILMAP_SIG_POINTER_8, cap, total, out);
}

static void test_api(void)
{
    uint8_t blob[64];
    long n = hex_bytes("20 03 15 12 05 01 08 14 08 03 02 05 07 03 7B 00 02 1D 0E 08", blob,
                       sizeof blob);
    ilmap_sig *sig = NULL;
    if (n < 0 || ilmap_sig_decode(blob, (size_t)n, 0, &sig, NULL, NULL) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);

    test_copy_out_protocol("encode", encode_fn, sig, blob, (size_t)n, 1);

    /* the ARRAY node: find it */
    uint32_t array = ILMAP_SIG_NO_NODE;
    for (uint32_t i = 0; i < ilmap_sig_get_node_count(sig); i++) {
        ilmap_sig_node nd;
        CHECK(ilmap_sig_get_node(sig, i, &nd) == ILMAP_OK && nd.reserved == 0);
        if (nd.element == ILMAP_SIG_ELEMENT_ARRAY)
            array = i;
    }
    CHECK(array != ILMAP_SIG_NO_NODE);
    node_ctx nc = { sig, array };
    const uint32_t sizes[2] = { 5, 7 };
    const int32_t bounds[3] = { -3, 0, 1 };
    test_copy_out_protocol("array sizes", sizes_fn, &nc, sizes, 2, sizeof sizes[0]);
    test_copy_out_protocol("array lower bounds", bounds_fn, &nc, bounds, 3, sizeof bounds[0]);

    ilmap_sig_slot want[5];
    size_t total = 0;
    CHECK(ilmap_sig_classify(sig, NULL, ILMAP_SIG_POINTER_8, 5, &total, want) == ILMAP_OK &&
          total == 5);
    test_copy_out_protocol("classify", classify_fn, sig, want, 5, sizeof want[0]);

    /* not an ARRAY, no such node */
    uint32_t u32[4];
    CHECK(ilmap_sig_get_array_sizes(sig, 0, 4, &total, u32) == ILMAP_E_INVALID_ARG && total == 0);
    CHECK(ilmap_sig_get_array_sizes(sig, 999, 4, &total, u32) == ILMAP_E_NOT_FOUND && total == 0);
    CHECK(ilmap_sig_get_array_sizes(NULL, 0, 4, &total, u32) == ILMAP_E_INVALID_ARG);

    /* getters: outputs defined on failure */
    ilmap_sig_info in;
    ilmap_sig_node nd;
    uint32_t node = 0;
    CHECK(ilmap_sig_get_info(sig, 1, &in) == ILMAP_E_NOT_FOUND && in.type == ILMAP_SIG_NO_NODE &&
          in.kind == 0 && in.sentinel == ILMAP_SIG_NO_SENTINEL);
    CHECK(ilmap_sig_get_info(NULL, 0, &in) == ILMAP_E_INVALID_ARG && in.kind == 0);
    CHECK(ilmap_sig_get_info(sig, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_info(sig, 0, &in) == ILMAP_OK && in.kind == ILMAP_SIG_KIND_METHOD &&
          in.count == 3 && in.callconv == 0x20);
    CHECK(ilmap_sig_get_item(sig, 0, 3, &node) == ILMAP_E_NOT_FOUND && node == ILMAP_SIG_NO_NODE);
    CHECK(ilmap_sig_get_item(NULL, 0, 0, &node) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_item(sig, 0, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_node(sig, 999, &nd) == ILMAP_E_NOT_FOUND && nd.element == 0 &&
          nd.inner == ILMAP_SIG_NO_NODE);
    CHECK(ilmap_sig_get_node(NULL, 0, &nd) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_generic_arg(sig, array, 0, &node) == ILMAP_E_INVALID_ARG &&
          node == ILMAP_SIG_NO_NODE);
    CHECK(ilmap_sig_get_generic_arg(sig, 999, 0, &node) == ILMAP_E_NOT_FOUND);
    CHECK(ilmap_sig_get_generic_arg(sig, in.type, 0, &node) == ILMAP_OK);
    CHECK(ilmap_sig_get_node(sig, node, &nd) == ILMAP_OK && nd.element == ILMAP_SIG_ELEMENT_I4);
    CHECK(ilmap_sig_get_generic_arg(sig, in.type, 1, &node) == ILMAP_E_NOT_FOUND &&
          node == ILMAP_SIG_NO_NODE);
    CHECK(ilmap_sig_get_generic_arg(NULL, in.type, 0, &node) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_generic_arg(sig, in.type, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_get_kind(NULL) == ILMAP_SIG_KIND_NONE && ilmap_sig_get_size(NULL) == 0 &&
          ilmap_sig_get_node_count(NULL) == 0);

    /* classify: bad arguments */
    ilmap_sig_slot slot;
    ilmap_sig *field = NULL;
    const uint8_t i4field[] = { 0x06, 0x08 };
    CHECK(ilmap_sig_decode(i4field, 2, 0, &field, NULL, NULL) == ILMAP_OK);
    const ilmap_sig *not_type[1] = { field };
    ilmap_sig_generics bad = { not_type, 1, NULL, 0, NULL };
    CHECK(ilmap_sig_classify(sig, &bad, 0, 5, &total, want) == ILMAP_E_INVALID_ARG && total == 0);
    ilmap_sig_generics missing = { NULL, 2, NULL, 0, NULL };
    CHECK(ilmap_sig_classify(sig, &missing, 0, 5, &total, want) == ILMAP_E_INVALID_ARG);
    ilmap_sig_generics not_spec = { NULL, 0, NULL, 0, field };
    CHECK(ilmap_sig_classify(sig, &not_spec, 0, 5, &total, want) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_classify(sig, NULL, ILMAP_SIG_POINTER_4 | ILMAP_SIG_POINTER_8, 5, &total,
                             want) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_classify(sig, NULL, 1u << 20, 5, &total, want) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_classify(NULL, NULL, 0, 5, &total, want) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_classify_type(sig, 999, NULL, 0, &slot) == ILMAP_E_NOT_FOUND &&
          slot.node == ILMAP_SIG_NO_NODE && slot.repr == ILMAP_SIG_REPR_UNRESOLVED);
    CHECK(ilmap_sig_classify_type(NULL, 0, NULL, 0, &slot) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_classify_type(sig, 0, NULL, 0, NULL) == ILMAP_E_INVALID_ARG);
    /* the host's pointer size by default */
    CHECK(ilmap_sig_classify(field, NULL, 0, 1, &total, &slot) == ILMAP_OK &&
          slot.repr == ILMAP_SIG_REPR_PRIMITIVE && slot.size == 4);
    ilmap_sig_free(field);
    const uint8_t ifield[] = { 0x06, 0x18 };
    CHECK(ilmap_sig_decode(ifield, 2, 0, &field, NULL, NULL) == ILMAP_OK);
    CHECK(ilmap_sig_classify(field, NULL, 0, 1, &total, &slot) == ILMAP_OK &&
          slot.size == sizeof(void *));
    ilmap_sig_free(field);

    /* decode: bad arguments */
    ilmap_sig *out = (ilmap_sig *)1;
    ilmap_sig_defect defect = ILMAP_SIG_DEFECT_TOKEN;
    size_t where = 7;
    CHECK(ilmap_sig_decode(NULL, 2, 0, &out, &defect, &where) == ILMAP_E_INVALID_ARG && !out &&
          defect == ILMAP_SIG_DEFECT_NONE && where == ILMAP_NO_INDEX);
    CHECK(ilmap_sig_decode(blob, 2, 0, NULL, &defect, &where) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_decode(blob, 2, 1u << 7, &out, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_decode(blob, 2, P4 | P8, &out, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_decode(NULL, 0, 0, &out, &defect, &where) == ILMAP_E_FORMAT &&
          defect == ILMAP_SIG_DEFECT_TRUNCATED && where == 0);
#if SIZE_MAX > UINT32_MAX
    CHECK(ilmap_sig_decode(blob, (size_t)UINT32_MAX + 1, 0, &out, NULL, NULL) ==
          ILMAP_E_INVALID_ARG);
#endif
    CHECK(ilmap_sig_encode(NULL, 0, &total, NULL) == ILMAP_E_INVALID_ARG && total == 0);
    ilmap_sig_free(NULL);

    /* ILMAP_SIG_PREFIX: the signature, then other bytes */
    uint8_t longer[80];
    memcpy(longer, blob, (size_t)n);
    memset(longer + n, 0xEE, 8);
    CHECK(ilmap_sig_decode(longer, (size_t)n + 8, 0, &out, &defect, &where) == ILMAP_E_FORMAT &&
          defect == ILMAP_SIG_DEFECT_TRAILING && where == (size_t)n);
    CHECK(ilmap_sig_decode(longer, (size_t)n + 8, ILMAP_SIG_PREFIX, &out, NULL, NULL) == ILMAP_OK &&
          ilmap_sig_get_size(out) == (size_t)n);
    uint8_t again[80];
    CHECK(ilmap_sig_encode(out, sizeof again, &total, again) == ILMAP_OK && total == (size_t)n &&
          memcmp(again, blob, (size_t)n) == 0);
    ilmap_sig_free(out);

    /* strings */
    for (int dft = 0; dft <= ILMAP_SIG_DEFECT_INTERNAL; dft++)
        CHECK(strcmp(ilmap_sig_defect_str((ilmap_sig_defect)dft), "unknown defect") != 0);
    CHECK(strcmp(ilmap_sig_defect_str((ilmap_sig_defect)99), "unknown defect") == 0);
    ilmap_sig_free(sig);
}

/* ---- one type on its own: the buffer protocol ---- */

static void test_encode_type(void)
{
    uint8_t blob[16], out[16] = { 0 };
    long n = hex_bytes("00 01 15 12 15 01 08 0E", blob, sizeof blob); /* List<int32> M(string) */
    ilmap_sig *sig = NULL;
    CHECK(n > 0 && ilmap_sig_decode(blob, (size_t)n, 0, &sig, NULL, NULL) == ILMAP_OK);
    ilmap_sig_info info;
    CHECK(ilmap_sig_get_info(sig, 0, &info) == ILMAP_OK);
    size_t total = 0;
    CHECK(ilmap_sig_encode_type(sig, info.type, 0, &total, NULL) == ILMAP_OK && total == 5);
    CHECK(ilmap_sig_encode_type(sig, info.type, 2, &total, out) == ILMAP_E_TRUNCATED &&
          total == 5 && out[0] == 0x15 && out[1] == 0x12 && out[2] == 0);
    CHECK(ilmap_sig_encode_type(sig, info.type, 2, NULL, out) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_encode_type(sig, info.type, 2, &total, NULL) == ILMAP_E_INVALID_ARG &&
          total == 0);
    CHECK(ilmap_sig_encode_type(NULL, 0, 2, &total, out) == ILMAP_E_INVALID_ARG);
    ilmap_sig_free(sig);
}

/* ---- the locals of a wrapped method (doc/il-maps.md#wrap) ---- */

typedef struct wrap_row {
    const char *method, *locals; /* hex; locals "" for none */
    uint32_t exception_type;
    ilmap_status want;
    const char *sig;             /* the new LocalVarSig, hex */
    uint32_t return_local, exception_local;
} wrap_row;

#define NONE ILMAP_SIG_NO_LOCAL
static const wrap_row wrap_rows[] = {
    /* static int32 M(): int32, then class Exception (TypeRef 3: coded 0x0D) */
    { "00 00 08", "", 0x01000003u, ILMAP_OK, "07 02 08 12 0D", 0, 1 },
    /* instance void M(string), one int32 local: only the exception's */
    { "20 01 01 0E", "07 01 08", 0x01000003u, ILMAP_OK, "07 02 08 12 0D", NONE, 1 },
    /* !!0 M<T>() with string and object locals; Exception as a TypeSpec */
    { "10 01 00 1E 00", "07 02 0E 1C", 0x1B000001u, ILMAP_OK, "07 04 0E 1C 1E 00 12 06", 2, 3 },
    /* a class return (TypeRef 5), an optional and a required modifier kept */
    { "00 00 12 15", "", 0x01000003u, ILMAP_OK, "07 02 12 15 12 0D", 0, 1 },
    { "00 00 1F 15 20 15 08", "", 0x02000002u, ILMAP_OK, "07 02 1F 15 20 15 08 12 08", 0, 1 },
    /* a pinned byref local stays as it was */
    { "00 00 08", "07 01 45 10 08", 0x01000003u, ILMAP_OK, "07 03 45 10 08 08 12 0D", 1, 2 },
    /* List<int32> (GENERICINST of TypeRef 5) */
    { "00 00 15 12 15 01 08", "", 0x01000003u, ILMAP_OK, "07 02 15 12 15 01 08 12 0D", 0, 1 },
    /* what a local cannot hold boxed for End */
    { "00 00 10 08", "", 0x01000003u, ILMAP_E_UNSUPPORTED, "", NONE, NONE },
    { "00 00 20 15 10 08", "", 0x01000003u, ILMAP_E_UNSUPPORTED, "", NONE, NONE },
    { "00 00 16", "", 0x01000003u, ILMAP_E_UNSUPPORTED, "", NONE, NONE },
    { "00 00 0F 08", "", 0x01000003u, ILMAP_E_UNSUPPORTED, "", NONE, NONE },
    { "00 00 1B 00 00 01", "", 0x01000003u, ILMAP_E_UNSUPPORTED, "", NONE, NONE },
    /* not a method's signature; not a LocalVarSig; not decodable */
    { "06 08", "", 0x01000003u, ILMAP_E_FORMAT, "", NONE, NONE },
    { "00 00 08", "06 08", 0x01000003u, ILMAP_E_FORMAT, "", NONE, NONE },
    { "00 01 08", "", 0x01000003u, ILMAP_E_FORMAT, "", NONE, NONE },
    /* the exception's type must be a type token */
    { "00 00 08", "", 0x06000001u, ILMAP_E_INVALID_ARG, "", NONE, NONE },
    { "00 00 08", "", 0x01000000u, ILMAP_E_INVALID_ARG, "", NONE, NONE },
};
#undef NONE

static void test_wrap_locals(void)
{
    for (size_t i = 0; i < COUNT(wrap_rows); i++) {
        const wrap_row *row = &wrap_rows[i];
        uint8_t method[64], locals[64], want[64], got[64];
        long nm = hex_bytes(row->method, method, sizeof method);
        long nl = hex_bytes(row->locals, locals, sizeof locals);
        long nw = hex_bytes(row->sig, want, sizeof want);
        size_t total = 99;
        uint32_t rl = 7, el = 7;
        ilmap_status st = ilmap_sig_wrap_locals(method, (size_t)nm, nl ? locals : NULL,
                                                (size_t)nl, row->exception_type, sizeof got,
                                                &total, got, &rl, &el);
        int ok = st == row->want && rl == row->return_local && el == row->exception_local &&
                 (st == ILMAP_OK ? total == (size_t)nw && memcmp(got, want, total) == 0
                                 : total == 0);
        test_checks++;
        if (!ok) {
            test_failures++;
            fprintf(stderr, "wrap row %zu (%s | %s): %s, %zu bytes, locals %u %u\n", i,
                    row->method, row->locals, ilmap_status_str(st), total, rl, el);
        }
    }

    /* The buffer protocol: a size query, a short buffer (the indexes set). */
    static const uint8_t m[] = { 0x00, 0x00, 0x08 };
    uint8_t out[8] = { 0 };
    size_t total = 0;
    uint32_t rl = 0, el = 0;
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 0, 0x01000003u, 0, &total, NULL, &rl, &el) ==
          ILMAP_OK);
    CHECK(total == 5 && rl == 0 && el == 1);
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 0, 0x01000003u, 2, &total, out, &rl, &el) ==
          ILMAP_E_TRUNCATED);
    CHECK(total == 5 && out[0] == 0x07 && out[1] == 0x02 && out[2] == 0 && el == 1);
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 0, 0x01000003u, 2, NULL, out, &rl, &el) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 0, 0x01000003u, 2, &total, NULL, &rl, &el) ==
          ILMAP_E_INVALID_ARG);
    CHECK(total == 0 && rl == ILMAP_SIG_NO_LOCAL && el == ILMAP_SIG_NO_LOCAL);
    CHECK(ilmap_sig_wrap_locals(NULL, 3, NULL, 0, 0x01000003u, 8, &total, out, &rl, &el) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 4, 0x01000003u, 8, &total, out, &rl, &el) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_sig_wrap_locals(m, 3, NULL, 0, 0x01000003u, 8, &total, out, NULL, &el) ==
          ILMAP_E_INVALID_ARG);

    /* 65,534 locals and two more: past what ldloc can address. */
    size_t n = 5 + 65534;
    uint8_t *big = malloc(n);
    if (!big)
        exit(TEST_EXIT_SETUP_FAILURE);
    big[0] = 0x07, big[1] = 0xC0, big[2] = 0x00, big[3] = 0xFF, big[4] = 0xFE;
    memset(big + 5, 0x08, 65534);
    CHECK(ilmap_sig_wrap_locals(m, 3, big, n, 0x01000003u, 0, &total, NULL, &rl, &el) ==
          ILMAP_E_LIMIT);
    /* One fewer fits: 65,535 locals, the last at 65,534. */
    big[4] = 0xFD;
    CHECK(ilmap_sig_wrap_locals(m, 3, big, n - 1, 0x01000003u, 0, &total, NULL, &rl, &el) ==
          ILMAP_OK);
    CHECK(rl == 65533 && el == 65534 && total == 1 + 4 + 65535 + 1);
    free(big);
}

int main(void)
{
    test_good_rows();
    test_bad_rows();
    test_depth();
    test_classification();
    test_statics();
    test_api();
    test_encode_type();
    test_wrap_locals();
    printf("%zu decode rows, %zu defect rows, %zu classification rows, %zu static rows\n",
           COUNT(good_rows), COUNT(bad_rows), COUNT(class_rows), COUNT(static_rows));
    return test_finish("test-sig-table");
}
