// The runtime's FunctionIDMapper and FunctionIDMapper2 declared as corprof.h
// does (its own typedefs, __stdcall, function types rather than pointer
// types), and ilmap_fid_mapper_callback / ilmap_fid_mapper_callback2 passed
// to parameters of those types without a cast, as a profiler passes them to
// ICorProfilerInfo::SetFunctionIDMapper and
// ICorProfilerInfo3::SetFunctionIDMapper2. Built as C++11 and C++17 with
// -Wall -Wextra -pedantic -Werror, then run: the calls go through the
// runtime-typed pointers.
#include "ilmap.h"
#include "ilmap-il.h"
#include "ilmap-algebra.h"
#include "ilmap-serial.h"
#include "ilmap-versions.h"

#include <cstdint>
#include <cstdio>

// What the PAL does outside Windows; on Windows the compiler knows it.
#if !defined(_WIN32) && !defined(__stdcall)
#  define __stdcall
#endif

// corprof.h's types, declared here (no Windows SDK or runtime headers).
typedef std::uintptr_t UINT_PTR;
typedef std::uintptr_t FunctionID;
typedef std::int32_t BOOL;

typedef UINT_PTR(__stdcall FunctionIDMapper)(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR(__stdcall FunctionIDMapper2)(FunctionID funcId, void *clientData,
                                              BOOL *pbHookFunction);

namespace {

// Stand-ins for the runtime's side: it keeps the pointer and calls it.
FunctionIDMapper *installed_mapper = nullptr;
FunctionIDMapper2 *installed_mapper2 = nullptr;
void *installed_client_data = nullptr;

int SetFunctionIDMapper(FunctionIDMapper *pFunc)
{
    installed_mapper = pFunc;
    return 0;
}

int SetFunctionIDMapper2(FunctionIDMapper2 *pFunc, void *clientData)
{
    installed_mapper2 = pFunc;
    installed_client_data = clientData;
    return 0;
}

int failures = 0;

void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        ++failures;
    }
}

} // namespace

int main()
{
    // The library's own typedefs are the same types.
    ilmap_function_id_mapper_fn fn = ilmap_fid_mapper_callback;
    ilmap_function_id_mapper2_fn fn2 = ilmap_fid_mapper_callback2;
    FunctionIDMapper *rt_fn = fn;
    FunctionIDMapper2 *rt_fn2 = fn2;
    check(rt_fn == &ilmap_fid_mapper_callback, "ilmap_function_id_mapper_fn is FunctionIDMapper *");
    check(rt_fn2 == &ilmap_fid_mapper_callback2,
          "ilmap_function_id_mapper2_fn is FunctionIDMapper2 *");

    ilmap_fid_mapper *mapper = nullptr;
    check(ilmap_fid_mapper_create(16, nullptr, nullptr, &mapper) == ILMAP_OK && mapper != nullptr,
          "ilmap_fid_mapper_create");

    // No cast: the whole point.
    SetFunctionIDMapper2(ilmap_fid_mapper_callback2, mapper);
    SetFunctionIDMapper(ilmap_fid_mapper_callback);

    BOOL hook = -1;
    UINT_PTR id = installed_mapper2(0x1000, installed_client_data, &hook);
    check(hook == 1 && id == 1, "FunctionIDMapper2: first function hooked, client ID 1");
    hook = -1;
    id = installed_mapper2(0x1000, installed_client_data, &hook);
    check(hook == 1 && id == 1, "FunctionIDMapper2: same answer again");

    // No global mapper: unhooked, its own FunctionID back.
    hook = -1;
    id = installed_mapper(0x2000, &hook);
    check(hook == 0 && id == 0x2000, "FunctionIDMapper without a global mapper: unhooked");

    check(ilmap_fid_mapper_set_global(mapper) == ILMAP_OK, "ilmap_fid_mapper_set_global");
    hook = -1;
    id = installed_mapper(0x2000, &hook);
    check(hook == 1 && id == 2, "FunctionIDMapper with the global mapper: client ID 2");
    hook = -1;
    id = installed_mapper(0x1000, &hook);
    check(hook == 1 && id == 1, "FunctionIDMapper agrees with FunctionIDMapper2");

    ilmap_fid_mapper_free(mapper);  // uninstalls the global mapper too

    if (failures == 0)
        std::printf("ok (C++ %ld)\n", static_cast<long>(__cplusplus));
    return failures == 0 ? 0 : 1;
}
