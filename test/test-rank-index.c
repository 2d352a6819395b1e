/*
 * The static search tree on its own: for every kernel and for key counts
 * on both sides of every layer boundary, count_le(x) equals a brute-force
 * count for keys, keys +- 1, and random x (x < 0xFFFFFFFF, the index's
 * precondition).
 */
#include <stdlib.h>

#include "index/cpu.h"
#include "index/rank_index.h"
#include "platform/memory.h"
#include "test.h"

static uint32_t brute_count_le(const uint32_t *keys, uint32_t n, uint32_t x)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += keys[i] <= x;
    return c;
}

static void check_kernel(const char *name, rank_count_fn fn, const uint32_t *keys, uint32_t n,
                         prng *rng)
{
    int overflow = 0;
    size_t slots = rank_index_slots(n, &overflow);
    int32_t *nodes = NULL;
    rank_index index;

    CHECK(!overflow);
    /* slots is a multiple of 16, so the size is a multiple of 64 */
    if (slots && !(nodes = ilmap_aligned_alloc(64, slots * sizeof *nodes)))
        exit(TEST_EXIT_SETUP_FAILURE);
    rank_index_init(&index, keys, n, nodes, fn);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ_U32(rank_index_key(&index, i), keys[i]);

    /* every key of small trees, an even sample of large ones */
    uint32_t step = n > 6000 ? n / 3000 : 1;
    for (uint32_t i = 0; i < n + 64 * step; i += step) {
        uint32_t x = i < n ? keys[i] + (uint32_t)(i % 3) - 1u : prng_u32(rng);
        if (x == 0xFFFFFFFFu)
            continue;
        uint32_t want = brute_count_le(keys, n, x), got = rank_index_count_le(&index, x);
        test_checks++;
        if (got != want) {
            test_failures++;
            fprintf(stderr, "%s n=%u x=0x%08X: got %u want %u\n", name, n, x, got, want);
            break;
        }
    }
    CHECK_EQ_U32(rank_index_count_le(&index, 0xFFFFFFFEu), brute_count_le(keys, n, 0xFFFFFFFEu));
    ilmap_aligned_free(nodes);
}

int main(int argc, char **argv)
{
    prng rng;
    rng = prng_init(test_seed(argc, argv, 0x5EED0001ull));

    static const uint32_t sizes[] = { 0, 1, 2, 15, 16, 17, 31, 32, 33, 271, 272, 273, 288, 289,
                                      290, 4623, 4624, 4625, 4912, 4913, 4914, 78608, 78609, 83521,
                                      83522, 100000 };
    cpu_level level = cpu_detect();
    uint32_t *keys = malloc(100000 * sizeof *keys);
    if (!keys)
        return TEST_EXIT_SETUP_FAILURE;

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        /* ascending, reaching 0xFFFFFFFF at the top half the time */
        uint32_t k = (s & 1) ? 0xFFFFFFFFu - 3u * n : prng_below(&rng, 100);
        for (uint32_t i = 0; i < n; i++) {
            keys[i] = k;
            k += 1 + prng_below(&rng, 3);
        }
        if ((s & 1) && n)
            keys[n - 1] = 0xFFFFFFFFu;
        check_kernel("portable", rank_count_le_portable, keys, n, &rng);
#ifdef RANK_HAVE_X86
        check_kernel("sse2", rank_count_le_sse2, keys, n, &rng);
        if (level == CPU_AVX2)
            check_kernel("avx2", rank_count_le_avx2, keys, n, &rng);
#endif
#ifdef RANK_HAVE_NEON
        check_kernel("neon", rank_count_le_neon, keys, n, &rng);
#endif
    }
    (void)level;
    free(keys);
    return test_finish("rank-index");
}
