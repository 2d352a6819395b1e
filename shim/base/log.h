/*
 * Diagnostics go to stderr with the "[ilmap-shim]" prefix, one write per
 * line so that lines from several runtime threads do not interleave.
 */
#ifndef SHIM_BASE_LOG_H
#define SHIM_BASE_LOG_H

#if defined(__MINGW32__)
/* MinGW-w64: the archetype of the stdio in use (gnu_printf with
 * __USE_MINGW_ANSI_STDIO, which meson.build sets: %zu works). */
#  include <stdio.h>
#  define SHIM_PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__) || defined(__clang__)
#  define SHIM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define SHIM_PRINTF(f, a)
#endif

void shim_log(const char *fmt, ...) SHIM_PRINTF(1, 2);

#endif
