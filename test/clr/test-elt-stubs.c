/*
 * The fast-path ELT stubs of this ABI (shim/platform/elt_hooks_<abi>.S)
 * against the contract the JIT holds them to (each .S says what it is):
 * every stub is called as JIT-compiled code calls it (elt_probe_<abi>.S),
 * with every register holding a pattern. The registers the contract needs
 * must come back unchanged, on x86 the stub must pop its argument, and
 * the call must be counted where elt_hooks.h says: counts[kind][id] for a
 * client ID, *unknown for 0 and IDs past the capacity, nowhere before the
 * table is filled. Each run also starts the counts just below a 32-bit
 * carry (the Windows x86 stubs add in two halves). The floor stubs must
 * keep the same registers and count nothing.
 *
 * The x86-64 System V stubs are held to theirs by test-shim-unit.c, which
 * drives them through the shim's whole set-up.
 */
#include <stdint.h>
#include <string.h>

#include "platform/elt_hooks.h"
#include "../prng.h"
#include "../test.h"

void elt_probe(void *stub, uintptr_t id, const uint64_t *in, uint64_t *out);

#define CAPACITY 64u

/* The table's arrays: 1..CAPACITY by client ID, for each kind. */
static atomic_uint_least64_t counts[3][CAPACITY + 1], unknown;

static uint64_t total(void)
{
    uint64_t sum = atomic_load(&unknown);
    for (int k = 0; k < 3; k++)
        for (unsigned i = 0; i <= CAPACITY; i++)
            sum += atomic_load(&counts[k][i]);
    return sum;
}

/* The words of the probe's arrays (elt_probe_<abi>.S) and which of them
 * the contract keeps for a hook of kind k; names for messages. */
#if defined(__aarch64__)
#  define WORDS 43
/* q0-q7, x0-x8, x19-x28, d8-d15: all of them, for every hook. */
static int keeps(int k, int w)
{
    (void)k;
    (void)w;
    return 1;
}
static const char *name_of(int w)
{
    static const char *const n[] = {"q0", "q0", "q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4",
                                    "q5", "q5", "q6", "q6", "q7", "q7", "x0", "x1", "x2", "x3",
                                    "x4", "x5", "x6", "x7", "x8", "x19", "x20", "x21", "x22",
                                    "x23", "x24", "x25", "x26", "x27", "x28", "d8", "d9", "d10",
                                    "d11", "d12", "d13", "d14", "d15"};
    return n[w];
}
#  define X87_WORD (-1)
#  define ESP_WORD (-1)
#elif defined(_WIN64)
#  define WORDS 46
/* xmm0-15, rax rcx rdx r8 r9 r10 r11 rbx rsi rdi r12-r15. Every hook
 * keeps the non-volatile registers (rbx rsi rdi r12-r15, xmm6-15); leave
 * and tailcall also rax and xmm0 (the return value). rcx and rdx are the
 * hook's arguments. */
static int keeps(int k, int w)
{
    if (w < 32) {
        int r = w / 2;
        return r >= 6 || (r == 0 && k != SHIM_ELT_ENTER);
    }
    int g = w - 32;
    return g >= 7 || (g == 0 && k != SHIM_ELT_ENTER);
}
static const char *name_of(int w)
{
    static const char *const g[] = {"rax", "rcx", "rdx", "r8",  "r9",  "r10", "r11",
                                    "rbx", "rsi", "rdi", "r12", "r13", "r14", "r15"};
    static const char *const x[] = {"xmm0", "xmm1", "xmm2",  "xmm3",  "xmm4",  "xmm5",
                                    "xmm6", "xmm7", "xmm8",  "xmm9",  "xmm10", "xmm11",
                                    "xmm12", "xmm13", "xmm14", "xmm15"};
    return w < 32 ? x[w / 2] : g[w - 32];
}
#  define X87_WORD (-1)
#  define ESP_WORD (-1)
#elif defined(_WIN32)
#  define WORDS 24
/* xmm0-7, eax ecx edx ebx esi edi, the x87 value, the stack. Enter and
 * leave keep everything; tailcall may change eax and xmm0-7 but keeps
 * ecx and edx. The callee-saved registers and the stack always. */
static int keeps(int k, int w)
{
    if (k != SHIM_ELT_TAILCALL)
        return 1;
    return w >= 17 && w != 22;
}
static const char *name_of(int w)
{
    static const char *const g[] = {"eax", "ecx", "edx", "ebx", "esi", "edi", "x87", "esp"};
    static const char *const x[] = {"xmm0", "xmm1", "xmm2", "xmm3",
                                    "xmm4", "xmm5", "xmm6", "xmm7"};
    return w < 16 ? x[w / 2] : g[w - 16];
}
#  define X87_WORD 22
#  define ESP_WORD 23
#endif

int main(int argc, char **argv)
{
    shim_elt_hooks h, floor;
    if (!shim_elt_hooks_get(&h, 0) || !shim_elt_hooks_get(&floor, 1)) {
        fprintf(stderr, "no stubs for this ABI\n");
        return TEST_EXIT_SETUP_FAILURE;
    }
    /* [0]: the stubs, [1]: the floor stubs. */
    void *stubs[2][3];
    memcpy(&stubs[0][0], &h.enter, sizeof stubs[0][0]);
    memcpy(&stubs[0][1], &h.leave, sizeof stubs[0][1]);
    memcpy(&stubs[0][2], &h.tailcall, sizeof stubs[0][2]);
    memcpy(&stubs[1][0], &floor.enter, sizeof stubs[1][0]);
    memcpy(&stubs[1][1], &floor.leave, sizeof stubs[1][1]);
    memcpy(&stubs[1][2], &floor.tailcall, sizeof stubs[1][2]);
    prng rng = prng_init(test_seed(argc, argv, 0xE17E17E1u));
    _Alignas(16) uint64_t in[WORDS], out[WORDS];
    for (int k = 0; k < 3; k++)
        for (unsigned i = 0; i <= CAPACITY; i++)
            atomic_init(&counts[k][i], 0xFFFFFFFEu); /* the carry comes at the second call */
    atomic_init(&unknown, 0xFFFFFFFEu);

    /* Rounds 0-19: no table yet; then the table, and every fifth round
     * the floor stubs. */
    int calls = 0;
    for (int round = 0; round < 320; round++) {
        if (round == 20) {
            shim_elt_hook_counts.capacity = CAPACITY;
            shim_elt_hook_counts.unknown = &unknown;
            for (int k = 0; k < 3; k++)
                shim_elt_hook_counts.counts[k] = counts[k];
        }
        int is_floor = round % 5 == 4, counting = round >= 20 && !is_floor;
        for (int k = SHIM_ELT_ENTER; k <= SHIM_ELT_TAILCALL; k++) {
            for (int w = 0; w < WORDS; w++)
                in[w] = prng_next(&rng);
            if (X87_WORD >= 0) {
                double v = 1.5 + round; /* a value the x87 stack holds exactly */
                memcpy(&in[X87_WORD], &v, sizeof v);
            }
            if (ESP_WORD >= 0)
                in[ESP_WORD] = 0;
            memset(out, 0xA5, sizeof out);
            /* Client IDs mostly, then 0, CAPACITY + 1 and a FunctionID-like
             * value, which count as unknown. */
            uint64_t pick = prng_next(&rng) % 8;
            uintptr_t id = pick == 0   ? 0
                           : pick == 1 ? CAPACITY + 1
                           : pick == 2 ? (uintptr_t)prng_next(&rng) | 0x1000u
                                       : 1 + (uintptr_t)(prng_next(&rng) % CAPACITY);
            int client = id >= 1 && id <= CAPACITY;
            uint64_t before_total = total();
            uint64_t before = client ? atomic_load(&counts[k][id]) : atomic_load(&unknown);
            elt_probe(stubs[is_floor][k], id, in, out);
            uint64_t after = client ? atomic_load(&counts[k][id]) : atomic_load(&unknown);
            calls += counting;
            test_checks++;
            if (after != before + (uint64_t)counting ||
                total() != before_total + (uint64_t)counting) {
                test_failures++;
                fprintf(stderr, "%skind %d id %#llx (round %d): counted %llu in its slot, %llu "
                                "in all, want %d\n",
                        is_floor ? "floor " : "", k, (unsigned long long)id, round,
                        (unsigned long long)(after - before),
                        (unsigned long long)(total() - before_total), counting);
            }
            for (int w = 0; w < WORDS; w++) {
                if (!keeps(k, w))
                    continue;
                uint64_t want = w == ESP_WORD ? 0 : in[w];
                uint64_t got = out[w];
#if defined(_WIN32) && !defined(_WIN64)
                if (w >= 16 && w < 22) { /* 32-bit registers */
                    want &= 0xFFFFFFFFu;
                    got &= 0xFFFFFFFFu;
                }
                if (w == ESP_WORD)
                    got &= 0xFFFFFFFFu;
#endif
                test_checks++;
                if (got != want) {
                    test_failures++;
                    if (test_failures < 20)
                        fprintf(stderr, "%skind %d: %s (word %d) is %#llx after the stub, "
                                        "want %#llx\n",
                                is_floor ? "floor " : "", k, name_of(w), w,
                                (unsigned long long)got, (unsigned long long)want);
                }
            }
        }
    }
    printf("stubs (saving %s): every register the contract keeps came back, %d calls "
           "counted where they belong, none before the table, none by the floor stubs\n",
           h.how, calls);
    return test_finish("elt-stubs");
}
