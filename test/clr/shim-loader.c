/* See shim-loader.h. */
#include "shim-loader.h"

#include <stdio.h>
#include <string.h>

#if defined(_WIN32)

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

void *loader_open(const char *path)
{
    HMODULE m = LoadLibraryA(path);
    if (!m)
        fprintf(stderr, "LoadLibrary(%s): error %lu\n", path, (unsigned long)GetLastError());
    return (void *)m;
}

void *loader_symbol(void *module, const char *name)
{
    FARPROC f = GetProcAddress((HMODULE)module, name);
    void *p;
    /* A function pointer as a data pointer: same size on Windows. */
    _Static_assert(sizeof f == sizeof p, "FARPROC fits a void *");
    memcpy(&p, &f, sizeof p);
    return p;
}

void loader_close(void *module)
{
    FreeLibrary((HMODULE)module);
}

#else

#include <dlfcn.h>

void *loader_open(const char *path)
{
    void *m = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    return m;
}

void *loader_symbol(void *module, const char *name)
{
    return dlsym(module, name);
}

void loader_close(void *module)
{
    dlclose(module);
}

#endif
