/*
 * Loading a module the way the runtime does on each system: dlopen/dlsym
 * on POSIX, LoadLibrary/GetProcAddress on Windows. Its own file
 * (shim-loader.c) so that <windows.h> never meets the shim's COM
 * declarations.
 */
#ifndef TEST_SHIM_LOADER_H
#define TEST_SHIM_LOADER_H

/* NULL on failure, with the reason on stderr. */
void *loader_open(const char *path);
/* The symbol's address, or NULL. */
void *loader_symbol(void *module, const char *name);
void loader_close(void *module);

#endif
