/*
 * The wrap mode (ILMAP_SHIM_WRAP, doc/shim.md#wrap): what a module needs
 * before its selected methods can be wrapped in the hooks' Begin/End calls
 * by libilmap (ilmap_il_wrap_create, doc/il-maps.md#wrap), made when the
 * module loads (the runtime takes new metadata then; inside
 * GetReJITParameters only LocalVarSigs): the references to the hooks'
 * assembly, class and methods and to System.Exception once per module,
 * and per method its new LocalVarSig, its return type's TypeSpec and
 * whether `this` is an object. A method that cannot be wrapped keeps the
 * reason (a constructor, a return a local cannot box ...), and the shim
 * leaves its IL alone.
 */
#ifndef SHIM_PROFILER_WRAP_H
#define SHIM_PROFILER_WRAP_H

#include "com/metadata.h"
#include "com/metadata_emit.h"
#include "profiler/profiler.h"

/* One module's references, made on the first wrapped method. */
typedef struct shim_wrap_module {
    int tried;
    const char *failed;     /* static: why there are none; NULL when made */
    int refused;            /* failed is the module's limit (CoreLib), not a failure */
    IMetaDataEmit *emit;    /* released by shim_wrap_module_done */
    mdToken begin, end;     /* MemberRefs (or MethodDefs in the hooks' own module) */
    mdToken exception;      /* System.Exception: TypeRef, or TypeDef in CoreLib */
} shim_wrap_module;

void shim_wrap_module_init(shim_wrap_module *w);
void shim_wrap_module_done(shim_wrap_module *w);

/* Fills m->wrap_spec, or sets m->wrap_refused (a static reason; with
 * m->wrap_failed when the shim, not the method, is to blame). Outside the
 * profiler lock: runtime calls. */
void shim_wrap_prepare(shim_profiler *p, ModuleID module, IMetaDataImport *md,
                       shim_wrap_module *w, shim_method *m);

#endif
