#include "select/selection.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

static void selector_free(shim_selector *sel)
{
    if (!sel)
        return;
    free(sel->type_name);
    free(sel->method_name);
    free(sel->json_name);
    memset(sel, 0, sizeof *sel);
}

/* "Type::Method" -> selector. Returns 1 when malformed (logged), -1 on
 * out of memory, 0 on success. */
static int parse_one(const char *s, size_t n, shim_selector *out)
{
    memset(out, 0, sizeof *out);
    trim(&s, &n);
    const char *sep = NULL;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == ':' && s[i + 1] == ':')
            sep = s + i; /* the last "::" */
    if (!sep || sep == s || sep + 2 == s + n) {
        shim_log("ignoring malformed method selector '%.*s' (want Namespace.Type::Method)",
                 (int)n, s);
        return 1;
    }
    size_t type_len = (size_t)(sep - s);
    int ns = type_len > 2 && s[type_len - 1] == '*' && s[type_len - 2] == '.';
    if (ns)
        type_len -= 2;
    if (memchr(s, '*', type_len) || (type_len == 1 && s[0] == '*')) {
        shim_log("ignoring method selector '%.*s': '*' in a type name is only allowed as "
                 "'Namespace.Prefix.*'",
                 (int)n, s);
        return 1;
    }
    if (type_len == 0 || s[0] == '.' || (ns && memchr(s, '+', type_len))) {
        shim_log("ignoring malformed method selector '%.*s' (want Namespace.Prefix.*::Method)",
                 (int)n, s);
        return 1;
    }
    out->ns_prefix = ns;
    out->type_name = dup_range(s, type_len);
    out->method_name = dup_range(sep + 2, (size_t)(s + n - sep - 2));
    char *text = dup_range(s, n);
    out->json_name = malloc(2 * n + 8);
    if (!out->type_name || !out->method_name || !text || !out->json_name) {
        free(text);
        selector_free(out);
        return -1;
    }
    shim_json_escape(out->json_name, 2 * n + 8, text);
    free(text);
    return 0;
}

static int push(shim_selection *s, shim_selector *sel)
{
    shim_selector *grown = realloc(s->items, (s->count + 1) * sizeof *grown);
    if (!grown) {
        selector_free(sel);
        return -1;
    }
    s->items = grown;
    s->items[s->count++] = *sel;
    return 0;
}

/* Calls fn on every ';'-separated, non-blank item of list. */
static int each_item(const char *list, int (*fn)(shim_selection *, const char *, size_t),
                     shim_selection *s)
{
    if (!list)
        return 0;
    while (*list) {
        const char *end = strchr(list, ';');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        const char *item = list;
        size_t m = n;
        trim(&item, &m);
        if (m && fn(s, item, m) < 0)
            return -1;
        list += n + (end ? 1 : 0);
    }
    return 0;
}

/* What a selector list makes of its items. */
enum { SEL_LATE = 1, SEL_OBSERVE = 2, SEL_WRAP = 4 };

/* A plain selector with those flags: late, ReJIT only after the first
 * compilation; observe, bodies recorded and never instrumented; wrap,
 * the whole body wrapped in the hooks' calls. */
static int add_selector(shim_selection *s, const char *item, size_t n, unsigned flags)
{
    shim_selector sel;
    int rc = parse_one(item, n, &sel);
    if (rc)
        return rc < 0 ? -1 : 0;
    sel.role = SHIM_ROLE_PLAIN;
    sel.late = (flags & SEL_LATE) != 0;
    sel.observe = (flags & SEL_OBSERVE) != 0;
    sel.wrap = (flags & SEL_WRAP) != 0;
    return push(s, &sel);
}

static int add_method(shim_selection *s, const char *item, size_t n)
{
    return add_selector(s, item, n, 0);
}

static int add_late(shim_selection *s, const char *item, size_t n)
{
    return add_selector(s, item, n, SEL_LATE);
}

static int add_observed(shim_selection *s, const char *item, size_t n)
{
    return add_selector(s, item, n, SEL_OBSERVE);
}

static int add_wrapped(shim_selection *s, const char *item, size_t n)
{
    return add_selector(s, item, n, SEL_WRAP);
}

static int add_wrapped_late(shim_selection *s, const char *item, size_t n)
{
    return add_selector(s, item, n, SEL_WRAP | SEL_LATE);
}

static int add_twins(shim_selection *s, const char *item, size_t n)
{
    const char *eq = memchr(item, '=', n);
    if (!eq) {
        shim_log("ignoring malformed twin pair '%.*s' (want A::M=B::N)", (int)n, item);
        return 0;
    }
    shim_selector a, b;
    int rc = parse_one(item, (size_t)(eq - item), &a);
    if (rc)
        return rc < 0 ? -1 : 0;
    rc = parse_one(eq + 1, (size_t)(item + n - eq - 1), &b);
    if (rc) {
        selector_free(&a);
        return rc < 0 ? -1 : 0;
    }
    if (strcmp(a.method_name, "*") == 0 || strcmp(b.method_name, "*") == 0 || a.ns_prefix ||
        b.ns_prefix) {
        shim_log("ignoring twin pair '%.*s': a twin must name one method", (int)n, item);
        selector_free(&a);
        selector_free(&b);
        return 0;
    }
    a.role = SHIM_ROLE_TWIN_MAPPED;
    b.role = SHIM_ROLE_TWIN_UNMAPPED;
    a.twin = s->count + 1;
    b.twin = s->count;
    if (push(s, &a)) {
        selector_free(&b);
        return -1;
    }
    return push(s, &b);
}

int shim_selection_parse(const char *methods, const char *twins, const char *late,
                         const char *probe, shim_selection *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    if (each_item(methods, add_method, out) || each_item(twins, add_twins, out) ||
        each_item(late, add_late, out))
        goto oom;
    if (probe && *probe) {
        int rc = parse_one(probe, strlen(probe), &out->probe);
        if (rc < 0)
            goto oom;
        if (rc == 0 && (strcmp(out->probe.method_name, "*") == 0 || out->probe.ns_prefix)) {
            shim_log("ignoring probe '%s': it must name one method", probe);
            selector_free(&out->probe);
        }
    }
    return 0;
oom:
    shim_log("out of memory while parsing the method selection");
    shim_selection_free(out);
    return -1;
}

int shim_selection_add_observed(shim_selection *s, const char *observe)
{
    if (!s)
        return -1;
    if (each_item(observe, add_observed, s)) {
        shim_log("out of memory while parsing ILMAP_SHIM_OBSERVE");
        return -1;
    }
    return 0;
}

/* "[Assembly]Ns.Type": the assembly's simple name and the type's full
 * name, each non-empty, no blanks inside. */
static int parse_hooks(const char *hooks, shim_wrap_hooks *out)
{
    size_t n = strlen(hooks);
    trim(&hooks, &n);
    const char *close = n > 2 && hooks[0] == '[' ? memchr(hooks, ']', n) : NULL;
    if (!close || close == hooks + 1 || close == hooks + n - 1) {
        shim_log("ignoring ILMAP_SHIM_WRAP_HOOKS '%s': want [Assembly]Ns.Type", hooks);
        return 0;
    }
    out->assembly = dup_range(hooks + 1, (size_t)(close - hooks - 1));
    out->type_name = dup_range(close + 1, (size_t)(hooks + n - close - 1));
    if (!out->assembly || !out->type_name) {
        free(out->assembly);
        free(out->type_name);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

int shim_selection_add_wrapped(shim_selection *s, const char *wrap, const char *wrap_late,
                               const char *hooks)
{
    if (!s)
        return -1;
    if ((!wrap || !*wrap) && (!wrap_late || !*wrap_late))
        return 0;
    if (!hooks || !*hooks) {
        shim_log("ILMAP_SHIM_WRAP ignored: ILMAP_SHIM_WRAP_HOOKS names no hooks class");
        return 0;
    }
    if (parse_hooks(hooks, &s->hooks) || each_item(wrap, add_wrapped, s) ||
        each_item(wrap_late, add_wrapped_late, s)) {
        shim_log("out of memory while parsing ILMAP_SHIM_WRAP");
        return -1;
    }
    if (!s->hooks.type_name) /* malformed: logged, nothing wrapped */
        for (size_t i = 0; i < s->count; i++)
            s->items[i].wrap = 0;
    return 0;
}

void shim_selection_free(shim_selection *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        selector_free(&s->items[i]);
    free(s->items);
    selector_free(&s->probe);
    free(s->hooks.assembly);
    free(s->hooks.type_name);
    memset(s, 0, sizeof *s);
}
