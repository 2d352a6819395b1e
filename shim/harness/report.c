#include "harness/report.h"

#include "base/text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

int shim_report_open(shim_report *r, const char *path)
{
    if (!r)
        return 1;
    memset(r, 0, sizeof *r);
    r->lock_ready = ilmap_mutex_init(&r->lock) == 0;
    if (!path || !*path)
        return 0;
    r->file = fopen(path, "w");
    if (!r->file) {
        shim_log("cannot open report file %s; counting only", path);
        return 1;
    }
    return 0;
}

static void lock(shim_report *r)
{
    if (r->lock_ready)
        ilmap_mutex_lock(&r->lock);
}

static void unlock(shim_report *r)
{
    if (r->lock_ready)
        ilmap_mutex_unlock(&r->lock);
}

static shim_report_kind *kind_of(shim_report *r, const char *name)
{
    for (size_t i = 0; i < r->kind_count; i++)
        if (strcmp(r->kinds[i].name, name) == 0)
            return &r->kinds[i];
    if (r->kind_count == SHIM_REPORT_MAX_KINDS)
        return NULL;
    shim_report_kind *k = &r->kinds[r->kind_count++];
    snprintf(k->name, sizeof k->name, "%s", name);
    return k;
}

/* Writes {"type":..,<head>,<fields>} as one line; called with the lock held. */
static void write_line(shim_report *r, const char *head, const char *fields, va_list ap)
{
    if (!r->file)
        return;
    char body[4096];
    body[0] = '\0';
    if (fields && *fields)
        vsnprintf(body, sizeof body, fields, ap);
    fprintf(r->file, "{%s%s%s}\n", head, body[0] ? "," : "", body);
    fflush(r->file);
}

void shim_report_check(shim_report *r, const char *kind, int ok, const char *fields, ...)
{
    if (!r || !kind)
        return;
    char head[128], safe[64];
    shim_json_escape(safe, sizeof safe, kind);
    snprintf(head, sizeof head, "\"type\":\"check\",\"check\":\"%s\",\"ok\":%s", safe,
             ok ? "true" : "false");
    lock(r);
    if (r->summarized) { /* a compilation finishing during Shutdown: dropped */
        unlock(r);
        return;
    }
    shim_report_kind *k = kind_of(r, kind);
    if (ok) {
        r->passed++;
        if (k)
            k->passed++;
    } else {
        r->failed++;
        if (k)
            k->failed++;
    }
    va_list ap;
    va_start(ap, fields);
    write_line(r, head, fields, ap);
    va_end(ap);
    unlock(r);
}

void shim_report_event(shim_report *r, const char *event, const char *fields, ...)
{
    if (!r || !event)
        return;
    char head[128], safe[64];
    shim_json_escape(safe, sizeof safe, event);
    snprintf(head, sizeof head, "\"type\":\"event\",\"event\":\"%s\"", safe);
    lock(r);
    if (r->summarized) {
        unlock(r);
        return;
    }
    r->events++;
    va_list ap;
    va_start(ap, fields);
    write_line(r, head, fields, ap);
    va_end(ap);
    unlock(r);
}

void shim_report_line(shim_report *r, const char *object)
{
    if (!r || !object)
        return;
    lock(r);
    if (!r->summarized && r->file) {
        r->events++;
        fputs(object, r->file);
        fputc('\n', r->file);
        fflush(r->file);
    }
    unlock(r);
}

void shim_report_summary(shim_report *r, const char *fields, ...)
{
    if (!r)
        return;
    lock(r);
    if (r->summarized) {
        unlock(r);
        return;
    }
    r->summarized = 1;
    char head[2048];
    size_t at = (size_t)snprintf(head, sizeof head,
                                 "\"type\":\"summary\",\"checks\":%" PRIu64 ",\"passed\":%" PRIu64
                                 ",\"failed\":%" PRIu64 ",\"by_check\":{",
                                 r->passed + r->failed, r->passed, r->failed);
    for (size_t i = 0; i < r->kind_count && at < sizeof head; i++)
        at += (size_t)snprintf(head + at, sizeof head - at,
                               "%s\"%s\":{\"passed\":%" PRIu64 ",\"failed\":%" PRIu64 "}",
                               i ? "," : "", r->kinds[i].name, r->kinds[i].passed,
                               r->kinds[i].failed);
    if (at < sizeof head)
        snprintf(head + at, sizeof head - at, "}");
    va_list ap;
    va_start(ap, fields);
    write_line(r, head, fields, ap);
    va_end(ap);
    shim_log("report: %" PRIu64 " checks, %" PRIu64 " failed", r->passed + r->failed, r->failed);
    unlock(r);
}

void shim_report_close(shim_report *r)
{
    if (!r)
        return;
    lock(r);
    if (r->file)
        fclose(r->file);
    r->file = NULL;
    unlock(r);
}
