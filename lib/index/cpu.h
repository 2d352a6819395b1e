/* Which SIMD kernels this CPU runs. Asked at map build time; the answer is
 * stored in each map, so there is no global state. */
#ifndef ILMAP_CPU_H
#define ILMAP_CPU_H

typedef enum cpu_level {
    CPU_PORTABLE = 0,
    CPU_SSE2 = 1,
    CPU_AVX2 = 2,
    CPU_NEON = 3 /* AArch64 Advanced SIMD: part of the base ISA, always there */
} cpu_level;

cpu_level cpu_detect(void);

/* What a map built with these flags uses: ILMAP_PORTABLE and
 * ILMAP_NO_AVX2 (ilmap.h) cap what the CPU offers (ILMAP_NO_AVX2 leaves
 * NEON alone). */
cpu_level cpu_level_for_flags(unsigned flags);
const char *cpu_level_name(cpu_level level);

#endif
