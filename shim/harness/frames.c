/*
 * Reading the frames file's lines and telling which selected method a
 * frame is (frames.h).
 */
#include "harness/frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

/* The tab-separated fields at the end of a line, in place. */
static const char *next_field(char **rest)
{
    char *start = *rest;
    if (!start)
        return NULL;
    char *tab = strchr(start, '\t');
    if (tab) {
        *tab = '\0';
        *rest = tab + 1;
    } else {
        *rest = NULL;
    }
    return start;
}

int shim_frame_parse(char *line, shim_frame *f)
{
    unsigned token = 0, native = 0;
    int used = 0;
    memset(f, 0, sizeof *f);
    if (sscanf(line, "%x %u %lld %*s %u %u %u%n", &token, &native, &f->il, &f->caller_line,
               &f->runtime_line, &f->runtime_column, &used) != 6 ||
        used <= 0) {
        /* the three numbers alone still make a frame for check (c) */
        if (sscanf(line, "%x %u %lld", &token, &native, &f->il) != 3)
            return -1;
        f->caller_line = f->runtime_line = f->runtime_column = 0;
        f->token = token;
        f->native = native;
        f->runtime_file = f->caller_file = "";
        return 0;
    }
    f->token = token;
    f->native = native;
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    char *rest = line + used;
    if (*rest == ' ')
        rest++; /* one separator: an empty file name stays empty */
    const char *rt = next_field(&rest), *caller = next_field(&rest), *module = next_field(&rest);
    f->runtime_file = rt ? rt : "";
    f->caller_file = caller ? caller : "";
    f->module = module && *module ? module : NULL;
    return 0;
}

/* The file name at the end of a path (either separator). */
static const char *base_name(const char *path)
{
    const char *b = path;
    for (const char *s = path; *s; s++)
        if (*s == '/' || *s == '\\')
            b = s + 1;
    return b;
}

void shim_frame_modules_build(shim_frame_modules *t, shim_profiler *p)
{
    memset(t, 0, sizeof *t);
    shim_lock(p);
    size_t cap = p->registry.count;
    ModuleID *ids = malloc((cap ? cap : 1) * sizeof *ids);
    size_t count = 0;
    for (size_t i = 0; ids && i < p->registry.count; i++) {
        ModuleID m = p->registry.methods[i]->module;
        size_t k = 0;
        while (k < count && ids[k] != m)
            k++;
        if (k == count)
            ids[count++] = m;
    }
    shim_unlock(p);
    char (*names)[1024] = ids ? malloc((count ? count : 1) * sizeof *names) : NULL;
    if (!ids || !names) {
        free(ids);
        free(names);
        return;
    }
    /* Outside the lock: GetModuleInfo is a runtime call. */
    for (size_t k = 0; k < count; k++) {
        WCHAR wide[512];
        ULONG len = 0;
        LPCBYTE base = NULL;
        AssemblyID assembly = 0;
        char utf8[1024];
        names[k][0] = '\0';
        if (SUCCEEDED(p->info->lpVtbl->GetModuleInfo(p->info, ids[k], &base, 512, &len, wide,
                                                     &assembly))) {
            shim_utf16_to_utf8(wide, len < 512 ? len : 512, utf8, sizeof utf8);
            snprintf(names[k], sizeof names[k], "%s", base_name(utf8));
        }
    }
    t->ids = ids;
    t->names = names;
    t->count = count;
}

void shim_frame_modules_free(shim_frame_modules *t)
{
    free(t->ids);
    free(t->names);
    memset(t, 0, sizeof *t);
}

int shim_frame_names(const shim_frame_modules *t, const shim_method *m, const shim_frame *f)
{
    if (m->token != f->token)
        return 0;
    if (!f->module)
        return 1;
    for (size_t k = 0; k < t->count; k++)
        if (t->ids[k] == m->module)
            return strcmp(t->names[k], f->module) == 0;
    return 0;
}

size_t shim_frame_token_modules(shim_profiler *p, const shim_frame *f)
{
    ModuleID seen[8];
    size_t count = 0;
    for (size_t i = 0; i < p->registry.count; i++) {
        const shim_method *m = p->registry.methods[i];
        if (m->token != f->token)
            continue;
        size_t k = 0;
        while (k < count && seen[k] != m->module)
            k++;
        if (k < count)
            continue;
        if (count == sizeof seen / sizeof seen[0])
            return count + 1; /* more than we keep: ambiguous all the same */
        seen[count++] = m->module;
    }
    return count;
}
