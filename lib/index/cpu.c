#include "index/cpu.h"

#include "ilmap.h"

#include "index/rank_index.h"

cpu_level cpu_detect(void)
{
#if defined(RANK_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
    /* __builtin_cpu_supports checks the OS saves YMM state (XCR0) too. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        return CPU_AVX2;
    return CPU_SSE2;
#elif defined(RANK_HAVE_X86)
    return CPU_SSE2;
#elif defined(RANK_HAVE_NEON)
    return CPU_NEON;
#else
    return CPU_PORTABLE;
#endif
}

cpu_level cpu_level_for_flags(unsigned flags)
{
    cpu_level level = cpu_detect();

    if (flags & ILMAP_PORTABLE)
        return CPU_PORTABLE;
    if ((flags & ILMAP_NO_AVX2) && level == CPU_AVX2)
        return CPU_SSE2;
    return level;
}

const char *cpu_level_name(cpu_level level)
{
    switch (level) {
    case CPU_AVX2: return "avx2";
    case CPU_SSE2: return "sse2";
    case CPU_NEON: return "neon";
    case CPU_PORTABLE: break;
    }
    return "portable";
}
