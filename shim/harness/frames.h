/*
 * The frames file (ILMAP_SHIM_FRAMES), one line per frame the program
 * recorded from System.Diagnostics.StackFrame (doc/shim.md#frames):
 *
 *   token native il Type::Method caller_line runtime_line runtime_column
 *     runtime_file<TAB>caller_file[<TAB>module]
 *
 * The module (optional; lines without it read as before) is the file name
 * of the method's module ("Newtonsoft.Json.dll"): with selectors that
 * reach several modules most tokens exist in more than one, and the
 * module says which method the frame is.
 */
#ifndef SHIM_HARNESS_FRAMES_H
#define SHIM_HARNESS_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "profiler/profiler.h"

typedef struct shim_frame {
    uint32_t token, native;
    long long il;            /* as StackFrame gave it (-1: none) */
    unsigned caller_line;    /* [CallerLineNumber]; 0: none */
    unsigned runtime_line, runtime_column; /* StackFrame's; 0: none */
    const char *runtime_file, *caller_file; /* "" when none */
    const char *module;      /* NULL: the line names none */
} shim_frame;

/* Reads one line into *f (pointing into line, which is modified).
 * Returns 0, or -1 when the line is not a frame. */
int shim_frame_parse(char *line, shim_frame *f);

/* The file names of the modules of the selected methods, resolved once
 * (GetModuleInfo) so that matching frames needs no runtime call under
 * the profiler lock. */
typedef struct shim_frame_modules {
    ModuleID *ids;
    char (*names)[1024];
    size_t count;
} shim_frame_modules;

/* Fills t from p's registry; on out-of-memory t is empty and every
 * module-naming frame matches no method (the frames are skipped). */
void shim_frame_modules_build(shim_frame_modules *t, shim_profiler *p);
void shim_frame_modules_free(shim_frame_modules *t);

/* Whether m is the frame's method: its token, and its module's file name
 * when the frame names one. The caller holds p->lock. */
int shim_frame_names(const shim_frame_modules *t, const shim_method *m, const shim_frame *f);

/* How many distinct modules hold a selected method with the frame's token,
 * counted up to 9 (the caller holds p->lock): above 1, the token alone is
 * ambiguous. */
size_t shim_frame_token_modules(shim_profiler *p, const shim_frame *f);

#endif
