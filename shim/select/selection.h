/*
 * Which methods to instrument, from the environment:
 *   ILMAP_SHIM_METHODS  "Ns.Type::Method;Ns.Type::*;Ns.Outer+Inner::M;Ns.Prefix.*::*"
 *                       (every overload of Method; * = every method).
 *                       Namespace form "Ns.Prefix.*::Method" (or "::*"):
 *                       every type whose namespace is Ns.Prefix or starts
 *                       with "Ns.Prefix.", nested types included (by the
 *                       namespace of their outermost type), in every loaded
 *                       module. The prefix must be non-empty and hold no
 *                       other '*'; there is no "select everything" form.
 *                       Generic types and methods are selected as
 *                       definitions (one ReJIT covers all instantiations).
 *                       Methods without IL (abstract, extern, runtime,
 *                       P/Invoke, RVA 0) are counted, not rejitted.
 *   ILMAP_SHIM_TWINS    "Ns.T::Mapped=Ns.T::Unmapped;..." twin methods with
 *                       identical IL: both get the same instrumentation,
 *                       only the first gets the COR_IL_MAP; check (b)
 *                       compares them. Each side must name one method,
 *                       both in one module.
 *   ILMAP_SHIM_LATE     "Ns.Type::Method;...": like ILMAP_SHIM_METHODS, but
 *                       ReJIT is requested only after the method's first
 *                       JIT compilation, so that it has an original native
 *                       version besides the ReJIT one. For ReadyToRun
 *                       code (no JIT compilation) the trigger is the
 *                       runtime's cached-function search finding the
 *                       precompiled code. Namespace forms allowed.
 *   ILMAP_SHIM_WRAP     selectors as ILMAP_SHIM_METHODS: methods rejitted at
 *                       module load with their whole body wrapped in calls
 *                       of the class ILMAP_SHIM_WRAP_HOOKS names,
 *                       "[Assembly]Ns.Type" (profiler/wrap.c,
 *                       doc/shim.md#wrap); ILMAP_SHIM_WRAP_LATE the same,
 *                       rejitted as ILMAP_SHIM_LATE's.
 *   ILMAP_SHIM_PROBE    "Ns.Type::Method": a static void() method called by
 *                       the probe (in the instrumented method's module);
 *                       without it the probe is a nop. Twins and the probe
 *                       must name one type (no namespace form).
 * Pure parsing, no runtime calls.
 */
#ifndef SHIM_SELECT_SELECTION_H
#define SHIM_SELECT_SELECTION_H

#include <stddef.h>

enum shim_role {
    SHIM_ROLE_PLAIN = 0,       /* instrumented, map set */
    SHIM_ROLE_TWIN_MAPPED = 1, /* twin instrumented with the map */
    SHIM_ROLE_TWIN_UNMAPPED = 2 /* twin instrumented without a map */
};

typedef struct shim_selector {
    char *type_name;   /* "Ns.Type", nested parts joined by '+'; for a
                          namespace selector the prefix "Ns.Prefix" */
    int ns_prefix;     /* namespace form "Ns.Prefix.*::Method" */
    char *method_name; /* "Method" or "*" */
    char *json_name;   /* "Ns.Type::Method", JSON-escaped for the report */
    int role;          /* enum shim_role */
    size_t twin;       /* index of the other twin (twin roles only) */
    int late;          /* from ILMAP_SHIM_LATE */
    int observe;       /* from ILMAP_SHIM_OBSERVE: bodies recorded, never instrumented */
    int wrap;          /* from ILMAP_SHIM_WRAP: wrapped in the hooks' calls */
} shim_selector;

/* ILMAP_SHIM_WRAP_HOOKS "[Assembly]Ns.Type"; NULLs when not given. */
typedef struct shim_wrap_hooks {
    char *assembly;  /* the simple name */
    char *type_name; /* "Ns.Type" */
} shim_wrap_hooks;

typedef struct shim_selection {
    shim_selector *items;
    size_t count;
    shim_selector probe; /* type_name NULL when no probe */
    shim_wrap_hooks hooks;
} shim_selection;

/* Parses the three strings (each may be NULL). Malformed items are logged
 * and skipped; returns non-zero only when memory runs out. */
int shim_selection_parse(const char *methods, const char *twins, const char *late,
                         const char *probe, shim_selection *out);

/* Appends the selectors of ILMAP_SHIM_OBSERVE (may be NULL): methods whose
 * native bodies go into the version store as they are JIT-compiled, and
 * which are never instrumented (the harness checks their frames' source
 * lines). Malformed items are logged and skipped; non-zero only when
 * memory runs out. */
int shim_selection_add_observed(shim_selection *s, const char *observe);

/* Appends the selectors of ILMAP_SHIM_WRAP and ILMAP_SHIM_WRAP_LATE (each
 * may be NULL; late ones are rejitted after their first compilation, as
 * ILMAP_SHIM_LATE's) and parses ILMAP_SHIM_WRAP_HOOKS into s->hooks;
 * without a well-formed hooks class nothing is wrapped (logged).
 * Non-zero only when memory runs out. */
int shim_selection_add_wrapped(shim_selection *s, const char *wrap, const char *wrap_late,
                               const char *hooks);

void shim_selection_free(shim_selection *s);

#endif
