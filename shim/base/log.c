#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

void shim_log(const char *fmt, ...)
{
    if (!fmt)
        return;
    char line[1024];
    int head = snprintf(line, sizeof line, "[ilmap-shim] ");
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + head, sizeof line - (size_t)head - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)head + (n < 0 ? 0 : (size_t)n);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len] = '\n';
    line[len + 1] = '\0';
    fputs(line, stderr);
}
