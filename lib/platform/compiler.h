/*
 * What C11 cannot say and compilers say differently, under one set of
 * names: the GNU spelling (gcc, clang), MSVC's, or plain C.
 *
 *   ILMAP_ALWAYS_INLINE  static inline, and inlined even where the compiler
 *                        would not (a lookup's helpers fold into it)
 *   ILMAP_NOINLINE       static, and never inlined (a cold path kept out
 *                        of a hot caller)
 *   ILMAP_EXPECT(x, v)   x, whose usual value is v (a branch-layout hint)
 *   ILMAP_CTZ32(m)       the trailing zero bits of a non-zero uint32_t
 *   ILMAP_CTZ64(m)       the same of a non-zero uint64_t
 *
 * The vector target attributes (index/count.h, serial/crc32c.c) and the CPU
 * detection (index/cpu.c) stay beside their code, each with its own
 * fallback: they exist only where the instruction sets do.
 * doc/amalgamation.md#msvc says how CI checks that MSVC sees no GNU-only
 * construct.
 */
#ifndef ILMAP_PLATFORM_COMPILER_H
#define ILMAP_PLATFORM_COMPILER_H

#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define ILMAP_ALWAYS_INLINE static inline __attribute__((always_inline))
#define ILMAP_NOINLINE static __attribute__((noinline))
#define ILMAP_EXPECT(x, v) __builtin_expect((x), (v))
#define ILMAP_CTZ32(m) ((uint32_t)__builtin_ctz(m))
#define ILMAP_CTZ64(m) ((uint32_t)__builtin_ctzll(m))
#else
#if defined(_MSC_VER)
#define ILMAP_ALWAYS_INLINE static __forceinline
#define ILMAP_NOINLINE static __declspec(noinline)
#else
#define ILMAP_ALWAYS_INLINE static inline
#define ILMAP_NOINLINE static
#endif
#define ILMAP_EXPECT(x, v) (x)
static inline uint32_t ilmap_ctz_portable(uint64_t m)
{
    uint32_t n = 0;
    while (!(m & 1u)) {
        m >>= 1;
        n++;
    }
    return n;
}
#define ILMAP_CTZ32(m) ilmap_ctz_portable((uint32_t)(m))
#define ILMAP_CTZ64(m) ilmap_ctz_portable((uint64_t)(m))
#endif

#endif
