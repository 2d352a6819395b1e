/*
 * The machine-readable report: JSON lines, one object per line, flushed as
 * written so that a crash still leaves everything up to it. Three line
 * types: {"type":"check",...} (one per check, "ok" true/false),
 * {"type":"event",...} (what happened, no verdict) and one final
 * {"type":"summary",...}. Safe to use from any thread.
 */
#ifndef SHIM_REPORT_H
#define SHIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/log.h"
#include "platform/thread.h"

#define SHIM_REPORT_MAX_KINDS 48

typedef struct shim_report_kind {
    char name[48];
    uint64_t passed;
    uint64_t failed;
} shim_report_kind;

typedef struct shim_report {
    FILE *file; /* NULL: counting only */
    ilmap_mutex lock;
    int lock_ready;
    shim_report_kind kinds[SHIM_REPORT_MAX_KINDS];
    size_t kind_count;
    uint64_t passed, failed, events;
    int summarized;
} shim_report;

/* path NULL or empty: no file, counts only. Returns non-zero if the file
 * cannot be opened (the report then counts only). */
int shim_report_open(shim_report *r, const char *path);

/* `fields` is a printf format producing the rest of the JSON object
 * (comma-separated members, no braces), e.g. "\"il\":%u". Strings placed
 * in it must already be JSON-safe (see shim_json_escape). */
void shim_report_check(shim_report *r, const char *kind, int ok, const char *fields, ...)
    SHIM_PRINTF(4, 5);
void shim_report_event(shim_report *r, const char *event, const char *fields, ...)
    SHIM_PRINTF(3, 4);

/* Writes one whole JSON object as a line, as given (it must be one,
 * without a newline); counted with the events. */
void shim_report_line(shim_report *r, const char *object);

/* Writes the summary line once (later calls do nothing); `fields` as above,
 * may be NULL. It is the last line: checks and events after it (a
 * background compilation finishing while Shutdown runs) are dropped, so
 * that the summary always agrees with the lines before it. */
void shim_report_summary(shim_report *r, const char *fields, ...) SHIM_PRINTF(2, 3);

void shim_report_close(shim_report *r);

#endif
