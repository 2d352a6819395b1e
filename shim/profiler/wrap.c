/*
 * The wrap mode's metadata (wrap.h): references made when a module loads,
 * the spec libilmap's ilmap_il_wrap_create() takes for each method.
 */
#include "profiler/wrap.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"
#include "com/flags.h"
#include "com/guids.h"
#include "ilmap-sig.h"
#include "select/resolve.h"
#include "values/values.h"

void shim_wrap_module_init(shim_wrap_module *w)
{
    memset(w, 0, sizeof *w);
}

void shim_wrap_module_done(shim_wrap_module *w)
{
    if (w->emit)
        w->emit->lpVtbl->Release(w->emit);
    memset(w, 0, sizeof *w);
}

/* A TypeDefOrRef coded token, compressed (ECMA-335 II.23.2.8, II.23.2):
 * the row shifted left by two with the table's tag (TypeDef 0, TypeRef 1,
 * TypeSpec 2), in one, two or four bytes. Returns its length, 0 when the
 * row does not fit. */
static size_t put_type_token(uint8_t *out, mdToken token)
{
    uint32_t table = token >> 24, tag = table == 0x02u ? 0u : table == 0x01u ? 1u : 2u;
    uint32_t v = (token & 0x00FFFFFFu) << 2 | tag;
    if ((token & 0x00FFFFFFu) >= (1u << 27))
        return 0;
    if (v < 0x80u) {
        out[0] = (uint8_t)v;
        return 1;
    }
    if (v < 0x4000u) {
        out[0] = (uint8_t)(0x80u | v >> 8);
        out[1] = (uint8_t)v;
        return 2;
    }
    out[0] = (uint8_t)(0xC0u | v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
    return 4;
}

/* The AssemblyRef of the core library: the scope of the module's
 * TypeRef to System.Object (every module with a class has one). 0 when
 * there is none. */
static mdToken corelib_scope(IMetaDataImport *md)
{
    HCORENUM e = NULL;
    mdToken refs[64], scope = 0;
    ULONG n = 0;
    while (!scope && SUCCEEDED(md->lpVtbl->EnumTypeRefs(md, &e, refs, 64, &n)) && n > 0) {
        for (ULONG i = 0; i < n && !scope; i++) {
            WCHAR name[64];
            ULONG len = 0;
            mdToken s = 0;
            char utf8[128];
            if (FAILED(md->lpVtbl->GetTypeRefProps(md, refs[i], &s, name, 64, &len)))
                continue;
            /* len is the whole name's: past the buffer when cut */
            shim_utf16_to_utf8(name, len < 64 ? len : 64, utf8, sizeof utf8);
            if (strcmp(utf8, "System.Object") == 0 && (s >> 24) == 0x23u) /* AssemblyRef */
                scope = s;
        }
    }
    if (e)
        md->lpVtbl->CloseEnum(md, e);
    return scope;
}

/* A type named in this module: its TypeDef, else a TypeRef in scope (0:
 * the TypeDef or nothing). 0 on failure. */
static mdToken type_token(IMetaDataImport *md, IMetaDataEmit *emit, const char *name,
                          mdToken scope)
{
    WCHAR wname[512];
    if (shim_utf8_to_utf16(name, wname, sizeof wname / sizeof *wname))
        return 0;
    mdTypeDef td = 0;
    if (SUCCEEDED(md->lpVtbl->FindTypeDefByName(md, wname, 0, &td)) && td)
        return td;
    mdTypeRef tr = 0;
    if (!scope || FAILED(emit->lpVtbl->DefineTypeRefByName(emit, scope, wname, &tr)))
        return 0;
    return tr;
}

/* The hooks' assembly as an AssemblyRef of this module (any version, no
 * public key: the runtime binds it by name). 0 on failure. */
static mdToken hooks_assembly(IMetaDataEmit *emit, const char *name)
{
    IMetaDataAssemblyEmit *ae = NULL;
    WCHAR wname[256];
    mdAssemblyRef ref = 0;
    if (shim_utf8_to_utf16(name, wname, sizeof wname / sizeof *wname) ||
        FAILED(emit->lpVtbl->QueryInterface(emit, &IID_IMetaDataAssemblyEmit, (void **)&ae)) ||
        !ae)
        return 0;
    ASSEMBLYMETADATA meta;
    memset(&meta, 0, sizeof meta);
    if (FAILED(ae->lpVtbl->DefineAssemblyRef(ae, NULL, 0, wname, &meta, NULL, 0, 0, &ref)))
        ref = 0;
    ae->lpVtbl->Release(ae);
    return ref;
}

static mdToken member_ref(IMetaDataEmit *emit, mdToken parent, const char *name,
                          const uint8_t *sig, size_t size)
{
    WCHAR wname[64];
    mdMemberRef ref = 0;
    if (shim_utf8_to_utf16(name, wname, sizeof wname / sizeof *wname) ||
        FAILED(emit->lpVtbl->DefineMemberRef(emit, parent, wname, sig, (ULONG)size, &ref)))
        return 0;
    return ref;
}

/* The module's references (wrap.h); a static reason on failure. */
static const char *module_setup(shim_profiler *p, ModuleID module, IMetaDataImport *md,
                                shim_wrap_module *w)
{
    const shim_wrap_hooks *hooks = &p->selection.hooks;
    IUnknown *unk = NULL;
    HRESULT hr = p->info->lpVtbl->GetModuleMetaData(p->info, module, CLR_OF_READ | CLR_OF_WRITE,
                                                    &IID_IMetaDataEmit, &unk);
    if (FAILED(hr) || !unk)
        return "the module's metadata cannot be written (GetModuleMetaData, ofWrite)";
    w->emit = (IMetaDataEmit *)(void *)unk;

    /* CoreLib defines System.Object. Its code runs before any other
     * assembly can load (the hooks' included: a call of Begin there
     * throws FileNotFoundException while the runtime starts, and the
     * exception's own formatting runs wrapped code again), so its methods
     * are not wrapped: the method's limit, not the shim's failure. */
    if (type_token(md, w->emit, "System.Object", 0)) {
        w->refused = 1;
        return "a method of System.Private.CoreLib, which runs before the hooks' assembly can "
               "load";
    }
    w->exception = type_token(md, w->emit, "System.Exception", corelib_scope(md));
    if (!w->exception)
        return "no reference to System.Exception could be made (no System.Object reference)";
    /* The hooks' class: its own TypeDef when this module defines it,
     * else a TypeRef through an AssemblyRef to its assembly. */
    mdToken parent = type_token(md, w->emit, hooks->type_name, 0);
    if (!parent) {
        mdToken assembly = hooks_assembly(w->emit, hooks->assembly);
        parent = assembly ? type_token(md, w->emit, hooks->type_name, assembly) : 0;
    }
    if (!parent)
        return "no reference to the hooks class could be made";
    /* static void Begin(object, int32); static void End(object, int32,
     * object, class System.Exception) */
    static const uint8_t begin_sig[] = { 0x00, 0x02, 0x01, 0x1C, 0x08 };
    uint8_t end_sig[16] = { 0x00, 0x04, 0x01, 0x1C, 0x08, 0x1C, 0x12 };
    size_t coded = put_type_token(end_sig + 7, w->exception);
    w->begin = member_ref(w->emit, parent, "Begin", begin_sig, sizeof begin_sig);
    w->end = coded ? member_ref(w->emit, parent, "End", end_sig, 7 + coded) : 0;
    if (!w->begin || !w->end)
        return "no reference to the hooks' Begin or End could be made";
    if (p->verbose)
        shim_log("wrap: module 0x%llx: hooks 0x%08X, Begin 0x%08X, End 0x%08X, Exception 0x%08X",
                 (unsigned long long)module, (unsigned)parent, (unsigned)w->begin,
                 (unsigned)w->end, (unsigned)w->exception);
    return NULL;
}

/* Whether a TypeDef or TypeRef has the full name want. */
static int is_named(IMetaDataImport *md, mdToken token, const char *want)
{
    char name[512];
    shim_values_type_name(md, token, name, sizeof name);
    return strcmp(name, want) == 0;
}

/* Whether the class is a value type: it extends System.ValueType (and
 * is not System.Enum, a class) or System.Enum. */
static int is_value_type(IMetaDataImport *md, mdTypeDef cls)
{
    WCHAR name[8];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (FAILED(md->lpVtbl->GetTypeDefProps(md, cls, name, 8, &len, &flags, &extends)) ||
        !extends)
        return 0;
    if (is_named(md, extends, "System.Enum"))
        return 1;
    return is_named(md, extends, "System.ValueType") && !is_named(md, cls, "System.Enum");
}

/* Whether a TypeDef of md carries IsByRefLikeAttribute. */
static int has_byref_like(IMetaDataImport *md, mdTypeDef td)
{
    WCHAR name[64];
    const void *data = NULL;
    ULONG size = 0;
    if (shim_utf8_to_utf16("System.Runtime.CompilerServices.IsByRefLikeAttribute", name,
                           sizeof name / sizeof *name))
        return 0;
    return md->lpVtbl->GetCustomAttributeByName(md, td, name, &data, &size) == S_OK;
}

/* Whether the return type is a byref-like struct (Span<T> ...), which
 * cannot be boxed for End: its type, resolved to its definition when it
 * is a TypeRef; where the runtime's metadata cannot resolve it, by the
 * framework's names. */
static int returns_byref_like(IMetaDataImport *md, const ilmap_sig *sig, uint32_t node)
{
    ilmap_sig_node n;
    for (;;) {
        if (ilmap_sig_get_node(sig, node, &n) != ILMAP_OK)
            return 0;
        if (n.element == ILMAP_SIG_ELEMENT_CMOD_REQD || n.element == ILMAP_SIG_ELEMENT_CMOD_OPT ||
            n.element == ILMAP_SIG_ELEMENT_GENERICINST) {
            node = n.inner;
            continue;
        }
        break;
    }
    if (n.element != ILMAP_SIG_ELEMENT_VALUETYPE)
        return 0;
    if ((n.token >> 24) == 0x02u)
        return has_byref_like(md, n.token);
    IUnknown *scope = NULL;
    mdTypeDef td = 0;
    if ((n.token >> 24) == 0x01u &&
        SUCCEEDED(md->lpVtbl->ResolveTypeRef(md, n.token, &IID_IMetaDataImport, &scope, &td)) &&
        scope) {
        int found = has_byref_like((IMetaDataImport *)(void *)scope, td);
        scope->lpVtbl->Release(scope);
        return found;
    }
    static const char *const framework[] = {
        "System.Span`1", "System.ReadOnlySpan`1", "System.ArgIterator",
        "System.RuntimeArgumentHandle", "System.TypedReference",
        "System.Runtime.CompilerServices.DefaultInterpolatedStringHandler",
    };
    for (size_t i = 0; i < sizeof framework / sizeof *framework; i++)
        if (is_named(md, n.token, framework[i]))
            return 1;
    return 0;
}

/* m is not wrapped, for why; a failure of the shim (not a limit of the
 * method) is logged. */
static void refuse(shim_method *m, const char *why, int failed)
{
    m->wrap_refused = why;
    m->wrap_failed = failed;
}

static void refuse_now(shim_method *m, const char *why, int failed)
{
    refuse(m, why, failed);
    if (failed)
        shim_log("wrap: %s: %s; it runs unwrapped", m->name, why);
}

/* A blob of the buffer protocol's two calls, malloc'ed (NULL on failure). */
static uint8_t *wrap_locals(const uint8_t *sig, ULONG sig_size, const uint8_t *locals,
                            ULONG locals_size, mdToken exception, size_t *size, uint32_t *rl,
                            uint32_t *el, ilmap_status *st)
{
    *st = ilmap_sig_wrap_locals(sig, sig_size, locals, locals_size, exception, 0, size, NULL, rl,
                                el);
    if (*st != ILMAP_OK)
        return NULL;
    uint8_t *blob = malloc(*size ? *size : 1);
    if (!blob) {
        *st = ILMAP_E_NOMEM;
        return NULL;
    }
    *st = ilmap_sig_wrap_locals(sig, sig_size, locals, locals_size, exception, *size, size, blob,
                                rl, el);
    if (*st != ILMAP_OK) {
        free(blob);
        return NULL;
    }
    return blob;
}

void shim_wrap_prepare(shim_profiler *p, ModuleID module, IMetaDataImport *md,
                       shim_wrap_module *w, shim_method *m)
{
    if (!w->tried) {
        w->tried = 1;
        w->failed = module_setup(p, module, md, w);
        if (w->failed && (!w->refused || p->verbose))
            shim_log("wrap: module 0x%llx: %s; its methods run unwrapped",
                     (unsigned long long)module, w->failed);
    }
    if (w->failed) {
        refuse(m, w->failed, !w->refused); /* the module's failure is logged once */
        return;
    }

    shim_method_info mi;
    if (FAILED(shim_method_info_get(md, m->token, &mi)) || !mi.sig) {
        refuse_now(m, "GetMethodProps failed", 1);
        return;
    }
    PCCOR_SIGNATURE sig = mi.sig;
    ULONG sig_size = mi.sig_size;
    mdTypeDef cls = mi.type;
    if (strcmp(mi.name, ".ctor") == 0) {
        refuse(m, "a constructor: `this` is not an object before its base constructor runs", 0);
        return;
    }
    LPCBYTE header = NULL;
    ULONG size = 0;
    ilmap_il_body body;
    if (FAILED(p->info->lpVtbl->GetILFunctionBody(p->info, module, m->token, &header, &size)) ||
        !header || ilmap_il_body_parse(header, size, &body) != ILMAP_OK) {
        refuse_now(m, "its IL body cannot be read", 1);
        return;
    }
    PCCOR_SIGNATURE locals = NULL;
    ULONG locals_size = 0;
    if (body.local_sig &&
        FAILED(md->lpVtbl->GetSigFromToken(md, body.local_sig, &locals, &locals_size))) {
        refuse_now(m, "its LocalVarSig cannot be read", 1);
        return;
    }

    ilmap_sig *decoded = NULL;
    if (ilmap_sig_decode(sig, sig_size, 0, &decoded, NULL, NULL) != ILMAP_OK) {
        refuse_now(m, "its signature does not decode", 1);
        return;
    }
    ilmap_sig_info info;
    ilmap_sig_get_info(decoded, 0, &info);
    size_t blob_size = 0;
    uint32_t rl = 0, el = 0;
    ilmap_status st;
    uint8_t *blob = wrap_locals(sig, sig_size, locals, locals_size, w->exception, &blob_size, &rl,
                                &el, &st);
    mdSignature local_sig = 0;
    mdTypeSpec ret = 0;
    if (st == ILMAP_E_UNSUPPORTED) {
        refuse(m, "its return type cannot be stored and boxed (byref, pointer)", 0);
    } else if (st == ILMAP_E_LIMIT) {
        refuse(m, "it has too many locals for two more", 0);
    } else if (st != ILMAP_OK) {
        refuse(m, "its new LocalVarSig cannot be built", 1);
    } else if (rl != ILMAP_SIG_NO_LOCAL && returns_byref_like(md, decoded, info.type)) {
        refuse(m, "it returns a byref-like struct, which cannot be boxed", 0);
    } else if (FAILED(w->emit->lpVtbl->GetTokenFromSig(w->emit, blob, (ULONG)blob_size,
                                                       &local_sig))) {
        refuse(m, "GetTokenFromSig refused its new LocalVarSig", 1);
    } else if (rl != ILMAP_SIG_NO_LOCAL) {
        /* The return type as a TypeSpec, for initobj and box. */
        uint8_t type[256];
        size_t type_size = 0;
        if (ilmap_sig_encode_type(decoded, info.type, sizeof type, &type_size, type) != ILMAP_OK ||
            FAILED(w->emit->lpVtbl->GetTokenFromTypeSpec(w->emit, type, (ULONG)type_size, &ret)))
            refuse(m, "no TypeSpec of its return type could be made", 1);
    }
    free(blob);
    ilmap_sig_free(decoded);
    if (m->wrap_refused) {
        if (m->wrap_failed) /* the shim's failure: said, as each is */
            shim_log("wrap: %s: %s; it runs unwrapped", m->name, m->wrap_refused);
        return;
    }

    ilmap_il_wrap_spec *s = &m->wrap_spec;
    memset(s, 0, sizeof *s);
    s->begin_method = w->begin;
    s->end_method = w->end;
    s->exception_type = w->exception;
    s->method_token = m->token;
    s->local_sig = local_sig;
    s->exception_local = el;
    s->return_local = rl == ILMAP_SIG_NO_LOCAL ? 0 : rl;
    s->return_type = ret;
    int has_this = (info.callconv & ILMAP_SIG_HASTHIS) && !(info.callconv & ILMAP_SIG_EXPLICITTHIS);
    s->flags = has_this && !is_value_type(md, cls) ? ILMAP_IL_WRAP_INSTANCE : 0;
}
