/*
 * ilmap_il_wrap_create: a tracer's rewrite (doc/il-maps.md#wrap). The
 * original code becomes the try block of a catch that records the
 * exception and rethrows, inside a try whose finally calls End; a
 * prologue calls Begin under a catch that swallows; every ret stores the
 * return value and leaves to an epilogue that returns it. The rewriter's
 * run (rewrite.h) does the layout, the branches, the original clauses and
 * the map; this file plans the pieces and the added clauses.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "il/rewrite.h"

#define WRAP_KNOWN_FLAGS ILMAP_IL_WRAP_INSTANCE
#define WRAP_MAX_LOCAL 0xFFFEu /* ldloc's operand is 16 bits; 0xFFFF is not a local */
#define WRAP_PIECE 64u         /* the longest wp_piece is under 40 bytes */
#define WRAP_MIN_STACK 4u      /* End's four arguments */

/* Opcodes the pieces use (ECMA-335 Partition III). */
enum {
    OP_LDARG_0 = 0x02, OP_LDNULL = 0x14, OP_LDC_I4 = 0x20, OP_JMP = 0x27, OP_CALL = 0x28,
    OP_RET = 0x2A, OP_POP = 0x26, OP_BOX = 0x8C, OP_ENDFINALLY = 0xDC, OP_LEAVE_S = 0xDE,
    OP_PREFIX = 0xFE, OP2_RETHROW = 0x1A, OP2_INITOBJ = 0x15, OP2_TAIL = 0x14
};
#define OPCODE_TAIL (0xFE00u | OP2_TAIL)

/* A wp_piece of new code. */
typedef struct wp_piece {
    uint8_t b[WRAP_PIECE];
    uint32_t n;
} wp_piece;

static void wp_put1(wp_piece *p, uint32_t byte)
{
    p->b[p->n++] = (uint8_t)byte;
}

static void wp_put_token(wp_piece *p, uint32_t op, uint32_t token)
{
    wp_put1(p, op);
    wr32(p->b + p->n, token);
    p->n += 4;
}

/* ldloc, stloc, ldloca of a local, in the shortest form. */
enum { LOCAL_LOAD, LOCAL_STORE, LOCAL_ADDRESS };

static void wp_put_local(wp_piece *p, int what, uint32_t index)
{
    static const uint8_t short_form[3] = { 0x11, 0x13, 0x12 }; /* ldloc.s stloc.s ldloca.s */
    static const uint8_t long_form[3] = { 0x0C, 0x0E, 0x0D };  /* 0xFE-prefixed */
    if (index < 4 && what != LOCAL_ADDRESS) {
        wp_put1(p, (what == LOCAL_LOAD ? 0x06u : 0x0Au) + index); /* ldloc.0-3 / stloc.0-3 */
    } else if (index < 256) {
        wp_put1(p, short_form[what]);
        wp_put1(p, index);
    } else {
        wp_put1(p, OP_PREFIX);
        wp_put1(p, long_form[what]);
        wr16(p->b + p->n, index);
        p->n += 2;
    }
}

/* The instance argument of both calls, then the method's token. */
static void wp_put_instance_and_token(wp_piece *p, const ilmap_il_wrap_spec *s)
{
    wp_put1(p, s->flags & ILMAP_IL_WRAP_INSTANCE ? OP_LDARG_0 : OP_LDNULL);
    wp_put_token(p, OP_LDC_I4, s->method_token);
}

/* leave.s to `target` (an offset in the same wp_piece, after this leave). */
static void wp_put_leave_to(wp_piece *p, uint32_t target)
{
    wp_put1(p, OP_LEAVE_S);
    wp_put1(p, target - (p->n + 1));
}

/* Everything a wrap plans before the layout and fills in after it. */
typedef struct wrap_plan {
    const ilmap_il_wrap_spec *spec;
    wp_piece prologue, epilogue;
    /* Offsets in the prologue: Begin's try and handler, the end. */
    uint32_t begin_try, begin_handler;
    /* Offsets in the epilogue: the inner catch's handler is at 0; the
     * finally handler; End's try and handler in it; endfinally; END. */
    uint32_t finally_at, end_try, end_handler, endfinally, end_label;
    rw_wrap wrap;
    ilmap_il_clause clauses[4];
} wrap_plan;

static void wp_plan_pieces(wrap_plan *w)
{
    const ilmap_il_wrap_spec *s = w->spec;
    const int has_value = s->return_type != 0;
    wp_piece *p = &w->prologue;

    /* The locals start defined: End reads both on every path. */
    wp_put1(p, OP_LDNULL);
    wp_put_local(p, LOCAL_STORE, s->exception_local);
    if (has_value) {
        wp_put_local(p, LOCAL_ADDRESS, s->return_local);
        wp_put1(p, OP_PREFIX);
        wp_put_token(p, OP2_INITOBJ, s->return_type);
    }
    /* try { Begin(instance, token); } catch (Exception) { } */
    w->begin_try = p->n;
    wp_put_instance_and_token(p, s);
    wp_put_token(p, OP_CALL, s->begin_method);
    wp_put_leave_to(p, p->n + 2 + 3); /* past this leave.s and the handler's 3 bytes */
    w->begin_handler = p->n;
    wp_put1(p, OP_POP);
    wp_put_leave_to(p, p->n + 2);

    wp_piece *e = &w->epilogue;
    /* catch (Exception e) { exception = e; rethrow; } */
    wp_put_local(e, LOCAL_STORE, s->exception_local);
    wp_put1(e, OP_PREFIX);
    wp_put1(e, OP2_RETHROW);
    /* finally { try { End(instance, token, (object)ret, exception); } catch { } } */
    w->finally_at = e->n;
    w->end_try = e->n;
    wp_put_instance_and_token(e, s);
    if (has_value) {
        wp_put_local(e, LOCAL_LOAD, s->return_local);
        wp_put_token(e, OP_BOX, s->return_type);
    } else {
        wp_put1(e, OP_LDNULL);
    }
    wp_put_local(e, LOCAL_LOAD, s->exception_local);
    wp_put_token(e, OP_CALL, s->end_method);
    wp_put_leave_to(e, e->n + 2 + 3);
    w->end_handler = e->n;
    wp_put1(e, OP_POP);
    wp_put_leave_to(e, e->n + 2);
    w->endfinally = e->n;
    wp_put1(e, OP_ENDFINALLY);
    /* END: return what the body stored. */
    w->end_label = e->n;
    if (has_value)
        wp_put_local(e, LOCAL_LOAD, s->return_local);
    wp_put1(e, OP_RET);

    w->wrap.store_size = 0;
    if (has_value) {
        wp_piece st = { { 0 }, 0 };
        wp_put_local(&st, LOCAL_STORE, s->return_local);
        memcpy(w->wrap.store, st.b, st.n);
        w->wrap.store_size = st.n;
    }
    w->wrap.end_label = w->end_label;
    w->wrap.local_sig = s->local_sig;
    w->wrap.min_stack = WRAP_MIN_STACK;
}

/* Whether instruction offset lies in any original clause's try or
 * handler (or filter). */
static int wp_in_clause(const ilmap_il_body *b, uint32_t offset)
{
    for (uint32_t i = 0; i < b->eh_count; i++) {
        ilmap_il_clause c;
        ilmap_il_body_get_clause(b, i, &c);
        if (offset - c.try_offset < c.try_length || offset - c.handler_offset < c.handler_length)
            return 1;
        if ((c.flags & ILMAP_IL_CLAUSE_FILTER) && offset >= c.class_or_filter &&
            offset < c.handler_offset)
            return 1;
    }
    return 0;
}

/* Which instructions change, and which bodies cannot be wrapped. */
static ilmap_status wrap_plan_hook(rw_layout *l, void *ctx, size_t *bad)
{
    wrap_plan *w = ctx;
    const size_t n = l->stream.count;

    if (n == 0)
        return ILMAP_E_UNSUPPORTED; /* no code: nothing to wrap (and no valid method) */
    w->wrap.kind = calloc(n, 1);
    if (!w->wrap.kind)
        return ILMAP_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const ilmap_il_instr *in = &l->stream.instrs[i];
        if (in->opcode == OP_JMP) {
            /* jmp leaves with the caller's arguments: never inside a try. */
            *bad = in->offset;
            return ILMAP_E_UNSUPPORTED;
        }
        if (in->opcode == OP_RET) {
            if (wp_in_clause(l->body, in->offset)) {
                *bad = in->offset; /* invalid IL: ret inside a protected region */
                return ILMAP_E_UNSUPPORTED;
            }
            w->wrap.kind[i] = RW_RET;
        } else if (in->opcode == OPCODE_TAIL) {
            w->wrap.kind[i] = RW_NOPS; /* a tail call cannot leave a try */
        }
    }
    l->wrap = &w->wrap;
    return ILMAP_OK;
}

static ilmap_il_clause wp_clause(uint32_t flags, uint32_t try_start, uint32_t try_end,
                              uint32_t handler_start, uint32_t handler_end, uint32_t cls)
{
    ilmap_il_clause c = { flags, try_start, try_end - try_start, handler_start,
                          handler_end - handler_start, cls };
    return c;
}

/* The added clauses in new offsets, inner before outer (ECMA-335
 * II.19): the original's come first (they lie inside the body), then
 * Begin's catch, End's catch (inside the finally handler), the catch
 * around the body, the finally around both. */
static ilmap_status wrap_place_hook(rw_layout *l, void *ctx)
{
    wrap_plan *w = ctx;
    const uint32_t p0 = l->boundary[0], body = l->at[0], e = l->boundary[l->stream.count];
    const uint32_t exc = w->spec->exception_type;

    w->clauses[0] = wp_clause(ILMAP_IL_CLAUSE_CATCH, p0 + w->begin_try, p0 + w->begin_handler,
                           p0 + w->begin_handler, p0 + w->prologue.n, exc);
    w->clauses[1] = wp_clause(ILMAP_IL_CLAUSE_CATCH, e + w->end_try, e + w->end_handler,
                           e + w->end_handler, e + w->endfinally, exc);
    w->clauses[2] = wp_clause(ILMAP_IL_CLAUSE_CATCH, body, e, e, e + w->finally_at, exc);
    w->clauses[3] = wp_clause(ILMAP_IL_CLAUSE_FINALLY, body, e + w->finally_at, e + w->finally_at,
                           e + w->end_label, 0);
    w->wrap.clauses = w->clauses;
    w->wrap.nclauses = 4;
    return ILMAP_OK;
}

ilmap_status ilmap_il_wrap_create(const void *body, size_t body_size,
                                  const ilmap_il_wrap_spec *spec, ilmap_rewrite **out,
                                  size_t *bad_offset)
{
    if (out)
        *out = NULL;
    if (bad_offset)
        *bad_offset = ILMAP_NO_INDEX;
    if (!body || !spec || !out || (spec->flags & ~(uint32_t)WRAP_KNOWN_FLAGS) ||
        !spec->begin_method || !spec->end_method || !spec->exception_type || !spec->local_sig ||
        spec->exception_local > WRAP_MAX_LOCAL ||
        (spec->return_type &&
         (spec->return_local > WRAP_MAX_LOCAL || spec->return_local == spec->exception_local)))
        return ILMAP_E_INVALID_ARG;

    ilmap_il_body parsed;
    ilmap_status st = ilmap_il_body_parse(body, body_size, &parsed);
    if (st != ILMAP_OK)
        return st;

    wrap_plan *w = calloc(1, sizeof *w);
    if (!w)
        return ILMAP_E_NOMEM;
    w->spec = spec;
    wp_plan_pieces(w);
    const ilmap_il_insertion pieces[2] = {
        { 0, w->prologue.n, w->prologue.b },
        { parsed.code_size, w->epilogue.n, w->epilogue.b },
    };
    const rw_hooks hooks = { wrap_plan_hook, wrap_place_hook, w };
    size_t bad = ILMAP_NO_INDEX;
    st = rw_run(body, body_size, pieces, 2, 0, &hooks, out, &bad);
    if (bad_offset && st != ILMAP_OK && st != ILMAP_E_EDIT)
        *bad_offset = bad;
    free(w->wrap.kind);
    free(w);
    return st;
}
