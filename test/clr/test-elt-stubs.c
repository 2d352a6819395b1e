/*
 * The fast-path ELT stubs of this ABI (shim/platform/elt_hooks_<abi>.S)
 * against the contract the JIT holds them to (each .S says what it is):
 * every stub is called as JIT-compiled code calls it (elt_probe_<abi>.S),
 * with every register holding a pattern, while shim_elt_count (this
 * file's: it records the call, then changes every register a called
 * function may change, elt_trash) does its worst. The registers the
 * contract needs must come back unchanged, the ID and the hook's kind must
 * reach shim_elt_count, and on x86 the stub must pop its argument.
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
void elt_trash(void);

static uintptr_t seen_id;
static int seen_kind, calls;

void shim_elt_count(uintptr_t id, int kind)
{
    seen_id = id;
    seen_kind = kind;
    calls++;
    elt_trash();
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
    shim_elt_hooks h;
    if (!shim_elt_hooks_get(&h)) {
        fprintf(stderr, "no stubs for this ABI\n");
        return TEST_EXIT_SETUP_FAILURE;
    }
    void *stubs[3];
    memcpy(&stubs[0], &h.enter, sizeof stubs[0]);
    memcpy(&stubs[1], &h.leave, sizeof stubs[1]);
    memcpy(&stubs[2], &h.tailcall, sizeof stubs[2]);
    prng rng = prng_init(test_seed(argc, argv, 0xE17E17E1u));
    _Alignas(16) uint64_t in[WORDS], out[WORDS];

    for (int round = 0; round < 100; round++) {
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
            uintptr_t id = (uintptr_t)prng_next(&rng) | 1u;
            int before = calls;
            elt_probe(stubs[k], id, in, out);
            test_checks++;
            if (calls != before + 1 || seen_id != id || seen_kind != k) {
                test_failures++;
                fprintf(stderr, "kind %d: shim_elt_count got %d calls, id %#llx kind %d, "
                                "want 1, %#llx, %d\n",
                        k, calls - before, (unsigned long long)seen_id, seen_kind,
                        (unsigned long long)id, k);
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
                        fprintf(stderr, "kind %d: %s (word %d) is %#llx after the stub, "
                                        "want %#llx\n",
                                k, name_of(w), w, (unsigned long long)got,
                                (unsigned long long)want);
                }
            }
        }
    }
    printf("stubs (%s): every register the contract keeps came back, 300 calls\n", h.how);
    return test_finish("elt-stubs");
}
