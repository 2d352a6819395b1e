/*
 * The library's atomics, behind one small header: C11 <stdatomic.h>
 * where the compiler has it (gcc, clang, MinGW-w64, clang-cl), the MSVC
 * Interlocked intrinsics otherwise (MSVC's C mode defines
 * __STDC_NO_ATOMICS__ unless /experimental:c11atomics is given).
 *
 * One typed function (or macro) per operation and type, with the C11
 * memory order as its last arguments:
 *   ilmap_atomic_{init,load,store,exchange,fetch_add,fetch_sub,cas,cas_weak}_T
 * for T in u32, u64, uptr (uintptr_t), size (size_t), ptr (void *); cas
 * is compare_exchange_strong (expected in/out, then the success and the
 * failure orders). ilmap_atomic_signal_fence() is a compiler-only fence
 * (atomic_signal_fence(memory_order_seq_cst)).
 *
 * The intrinsics path gives every operation at least the requested order:
 * read-modify-writes are Interlocked (full barriers); on x86 and x64
 * (TSO) a load is a volatile load plus a compiler barrier, a relaxed or
 * release store a volatile store between compiler barriers, a seq_cst
 * store an exchange; elsewhere loads and stores are Interlocked too.
 * Defining ILMAP_ATOMIC_FORCE_INTRINSICS selects that path with any
 * compiler whose <intrin.h> has the Interlocked functions (MinGW-w64),
 * which is how it is tested without MSVC.
 */
#ifndef ILMAP_PLATFORM_ATOMIC_H
#define ILMAP_PLATFORM_ATOMIC_H

#include <stddef.h>
#include <stdint.h>

#if defined(ILMAP_ATOMIC_FORCE_INTRINSICS) ||                                         \
    (defined(_MSC_VER) && !defined(__clang__) &&                                      \
     (defined(__STDC_NO_ATOMICS__) || !defined(__STDC_VERSION__) ||                   \
      __STDC_VERSION__ < 201112L))
#  define ILMAP_ATOMIC_INTRINSICS 1
#elif defined(__STDC_NO_ATOMICS__)
#  error "libilmap needs C11 atomics or the MSVC Interlocked intrinsics"
#endif

#if !defined(ILMAP_ATOMIC_INTRINSICS)

#include <stdatomic.h>

/* The read path must be async-signal-safe: lock-free atomics only. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "int atomics must be lock-free");
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "pointer atomics must be lock-free");

typedef _Atomic uint32_t ilmap_atomic_u32;
typedef _Atomic uint64_t ilmap_atomic_u64;
typedef _Atomic uintptr_t ilmap_atomic_uptr;
typedef _Atomic size_t ilmap_atomic_size;
typedef _Atomic(void *) ilmap_atomic_ptr;

#define ilmap_mo_relaxed memory_order_relaxed
#define ilmap_mo_acquire memory_order_acquire
#define ilmap_mo_release memory_order_release
#define ilmap_mo_acq_rel memory_order_acq_rel
#define ilmap_mo_seq_cst memory_order_seq_cst

#define ilmap_atomic_init_u32(p, v) atomic_init(p, v)
#define ilmap_atomic_init_u64(p, v) atomic_init(p, v)
#define ilmap_atomic_init_uptr(p, v) atomic_init(p, v)
#define ilmap_atomic_init_size(p, v) atomic_init(p, v)
#define ilmap_atomic_init_ptr(p, v) atomic_init(p, v)
#define ilmap_atomic_load_u32(p, mo) atomic_load_explicit(p, mo)
#define ilmap_atomic_load_u64(p, mo) atomic_load_explicit(p, mo)
#define ilmap_atomic_load_uptr(p, mo) atomic_load_explicit(p, mo)
#define ilmap_atomic_load_size(p, mo) atomic_load_explicit(p, mo)
#define ilmap_atomic_load_ptr(p, mo) atomic_load_explicit(p, mo)
#define ilmap_atomic_store_u32(p, v, mo) atomic_store_explicit(p, v, mo)
#define ilmap_atomic_store_u64(p, v, mo) atomic_store_explicit(p, v, mo)
#define ilmap_atomic_store_uptr(p, v, mo) atomic_store_explicit(p, v, mo)
#define ilmap_atomic_store_size(p, v, mo) atomic_store_explicit(p, v, mo)
#define ilmap_atomic_store_ptr(p, v, mo) atomic_store_explicit(p, v, mo)
#define ilmap_atomic_exchange_ptr(p, v, mo) atomic_exchange_explicit(p, v, mo)
#define ilmap_atomic_fetch_add_u64(p, v, mo) atomic_fetch_add_explicit(p, v, mo)
#define ilmap_atomic_fetch_add_size(p, v, mo) atomic_fetch_add_explicit(p, v, mo)
#define ilmap_atomic_fetch_sub_size(p, v, mo) atomic_fetch_sub_explicit(p, v, mo)
#define ilmap_atomic_cas_u32(p, e, v, s, f) atomic_compare_exchange_strong_explicit(p, e, v, s, f)
#define ilmap_atomic_cas_uptr(p, e, v, s, f) atomic_compare_exchange_strong_explicit(p, e, v, s, f)
#define ilmap_atomic_cas_size(p, e, v, s, f) atomic_compare_exchange_strong_explicit(p, e, v, s, f)
#define ilmap_atomic_cas_ptr(p, e, v, s, f) atomic_compare_exchange_strong_explicit(p, e, v, s, f)
#define ilmap_atomic_cas_weak_u32(p, e, v, s, f) atomic_compare_exchange_weak_explicit(p, e, v, s, f)
#define ilmap_atomic_signal_fence() atomic_signal_fence(memory_order_seq_cst)

#else /* ILMAP_ATOMIC_INTRINSICS */

#include <intrin.h>

#if defined(_MSC_VER) && !defined(__clang__)
#  define ILMAP_ATOMIC_INLINE static __forceinline
#  define ilmap_atomic_signal_fence() _ReadWriteBarrier()
#else
#  define ILMAP_ATOMIC_INLINE static inline
#  define ilmap_atomic_signal_fence() __asm__ __volatile__("" ::: "memory")
#endif
#define ILMAP_COMPILER_BARRIER_() ilmap_atomic_signal_fence()

#if defined(_M_IX86) || defined(_M_X64) || defined(__i386__) || defined(__x86_64__)
#  define ILMAP_ATOMIC_TSO_ 1
#endif
#if defined(_M_IX86) || defined(__i386__)
#  define ILMAP_ATOMIC_NO_PLAIN64_ 1 /* 64-bit loads and stores need cmpxchg8b */
#endif

/* Plain types (so that free() and memset() take them as they are); every
 * access below goes through a volatile lvalue. */
typedef uint32_t ilmap_atomic_u32;
typedef uint64_t ilmap_atomic_u64;
typedef uintptr_t ilmap_atomic_uptr;
typedef size_t ilmap_atomic_size;
typedef void *ilmap_atomic_ptr;

typedef enum ilmap_memory_order {
    ilmap_mo_relaxed,
    ilmap_mo_acquire,
    ilmap_mo_release,
    ilmap_mo_acq_rel,
    ilmap_mo_seq_cst
} ilmap_memory_order;

#define ILMAP_L32_(p) ((volatile long *)(volatile void *)(p))
#define ILMAP_L64_(p) ((volatile long long *)(volatile void *)(p))
#define ILMAP_V_(T, p) (*(volatile T *)(p))
#define ILMAP_CV_(T, p) (*(const volatile T *)(p))

/* 32 bits. */
ILMAP_ATOMIC_INLINE void ilmap_atomic_init_u32(ilmap_atomic_u32 *p, uint32_t v)
{
    *p = v;
}

ILMAP_ATOMIC_INLINE uint32_t ilmap_atomic_load_u32(const ilmap_atomic_u32 *p,
                                                   ilmap_memory_order mo)
{
    (void)mo;
#if defined(ILMAP_ATOMIC_TSO_)
    uint32_t v = ILMAP_CV_(uint32_t, p);
    ILMAP_COMPILER_BARRIER_();
    return v;
#else
    return (uint32_t)_InterlockedOr((volatile long *)(uintptr_t)(p), 0);
#endif
}

ILMAP_ATOMIC_INLINE void ilmap_atomic_store_u32(ilmap_atomic_u32 *p, uint32_t v,
                                                ilmap_memory_order mo)
{
#if defined(ILMAP_ATOMIC_TSO_)
    if (mo != ilmap_mo_seq_cst) {
        ILMAP_COMPILER_BARRIER_();
        ILMAP_V_(uint32_t, p) = v;
        ILMAP_COMPILER_BARRIER_();
        return;
    }
#else
    (void)mo;
#endif
    _InterlockedExchange(ILMAP_L32_(p), (long)v);
}

ILMAP_ATOMIC_INLINE int ilmap_atomic_cas_u32(ilmap_atomic_u32 *p, uint32_t *expected,
                                             uint32_t desired, ilmap_memory_order s,
                                             ilmap_memory_order f)
{
    (void)s;
    (void)f;
    uint32_t prev = (uint32_t)_InterlockedCompareExchange(ILMAP_L32_(p), (long)desired,
                                                          (long)*expected);
    if (prev == *expected)
        return 1;
    *expected = prev;
    return 0;
}
#define ilmap_atomic_cas_weak_u32 ilmap_atomic_cas_u32

/* 64 bits. */
ILMAP_ATOMIC_INLINE void ilmap_atomic_init_u64(ilmap_atomic_u64 *p, uint64_t v)
{
    *p = v;
}

ILMAP_ATOMIC_INLINE uint64_t ilmap_atomic_load_u64(const ilmap_atomic_u64 *p,
                                                   ilmap_memory_order mo)
{
    (void)mo;
#if defined(ILMAP_ATOMIC_TSO_) && !defined(ILMAP_ATOMIC_NO_PLAIN64_)
    uint64_t v = ILMAP_CV_(uint64_t, p);
    ILMAP_COMPILER_BARRIER_();
    return v;
#else
    return (uint64_t)_InterlockedCompareExchange64((volatile long long *)(uintptr_t)(p), 0, 0);
#endif
}

ILMAP_ATOMIC_INLINE uint64_t ilmap_atomic_exchange_u64(ilmap_atomic_u64 *p, uint64_t v,
                                                       ilmap_memory_order mo)
{
    (void)mo;
#if defined(ILMAP_ATOMIC_NO_PLAIN64_)
    long long old = (long long)ilmap_atomic_load_u64(p, ilmap_mo_relaxed), seen;
    while ((seen = _InterlockedCompareExchange64(ILMAP_L64_(p), (long long)v, old)) != old)
        old = seen;
    return (uint64_t)old;
#else
    return (uint64_t)_InterlockedExchange64(ILMAP_L64_(p), (long long)v);
#endif
}

ILMAP_ATOMIC_INLINE void ilmap_atomic_store_u64(ilmap_atomic_u64 *p, uint64_t v,
                                                ilmap_memory_order mo)
{
#if defined(ILMAP_ATOMIC_TSO_) && !defined(ILMAP_ATOMIC_NO_PLAIN64_)
    if (mo != ilmap_mo_seq_cst) {
        ILMAP_COMPILER_BARRIER_();
        ILMAP_V_(uint64_t, p) = v;
        ILMAP_COMPILER_BARRIER_();
        return;
    }
#endif
    (void)ilmap_atomic_exchange_u64(p, v, mo);
}

ILMAP_ATOMIC_INLINE uint64_t ilmap_atomic_fetch_add_u64(ilmap_atomic_u64 *p, uint64_t v,
                                                        ilmap_memory_order mo)
{
    (void)mo;
#if defined(ILMAP_ATOMIC_NO_PLAIN64_)
    long long old = (long long)ilmap_atomic_load_u64(p, ilmap_mo_relaxed), seen;
    while ((seen = _InterlockedCompareExchange64(ILMAP_L64_(p), old + (long long)v, old)) !=
           old)
        old = seen;
    return (uint64_t)old;
#else
    return (uint64_t)_InterlockedExchangeAdd64(ILMAP_L64_(p), (long long)v);
#endif
}

ILMAP_ATOMIC_INLINE int ilmap_atomic_cas_u64(ilmap_atomic_u64 *p, uint64_t *expected,
                                             uint64_t desired, ilmap_memory_order s,
                                             ilmap_memory_order f)
{
    (void)s;
    (void)f;
    uint64_t prev = (uint64_t)_InterlockedCompareExchange64(ILMAP_L64_(p), (long long)desired,
                                                            (long long)*expected);
    if (prev == *expected)
        return 1;
    *expected = prev;
    return 0;
}

/* uintptr_t and size_t: the 64- or 32-bit operations. */
#if UINTPTR_MAX == UINT64_MAX
#  define ILMAP_ATOMIC_W_ u64
typedef uint64_t ilmap_atomic_word_;
#else
#  define ILMAP_ATOMIC_W_ u32
typedef uint32_t ilmap_atomic_word_;
#endif
#define ILMAP_ATOMIC_CAT2_(a, b) a##b
#define ILMAP_ATOMIC_CAT_(a, b) ILMAP_ATOMIC_CAT2_(a, b)
#define ILMAP_ATOMIC_WORD_FN_(op) ILMAP_ATOMIC_CAT_(ilmap_atomic_##op##_, ILMAP_ATOMIC_W_)
#define ILMAP_ATOMIC_WORD_P_(p) ((ILMAP_ATOMIC_CAT_(ilmap_atomic_, ILMAP_ATOMIC_W_) *)(p))

#define ilmap_atomic_init_uptr(p, v) ((void)(*(p) = (v)))
#define ilmap_atomic_init_size(p, v) ((void)(*(p) = (v)))
#define ilmap_atomic_load_uptr(p, mo)                                                 \
    ((uintptr_t)ILMAP_ATOMIC_WORD_FN_(load)(ILMAP_ATOMIC_WORD_P_(p), mo))
#define ilmap_atomic_load_size(p, mo)                                                 \
    ((size_t)ILMAP_ATOMIC_WORD_FN_(load)(ILMAP_ATOMIC_WORD_P_(p), mo))
#define ilmap_atomic_store_uptr(p, v, mo)                                             \
    ILMAP_ATOMIC_WORD_FN_(store)(ILMAP_ATOMIC_WORD_P_(p), (ilmap_atomic_word_)(v), mo)
#define ilmap_atomic_store_size(p, v, mo)                                             \
    ILMAP_ATOMIC_WORD_FN_(store)(ILMAP_ATOMIC_WORD_P_(p), (ilmap_atomic_word_)(v), mo)

ILMAP_ATOMIC_INLINE size_t ilmap_atomic_fetch_add_size(ilmap_atomic_size *p, size_t v,
                                                       ilmap_memory_order mo)
{
    (void)mo;
#if UINTPTR_MAX == UINT64_MAX
    return (size_t)ilmap_atomic_fetch_add_u64((ilmap_atomic_u64 *)p, (uint64_t)v, mo);
#else
    return (size_t)(uint32_t)_InterlockedExchangeAdd(ILMAP_L32_(p), (long)v);
#endif
}

ILMAP_ATOMIC_INLINE size_t ilmap_atomic_fetch_sub_size(ilmap_atomic_size *p, size_t v,
                                                       ilmap_memory_order mo)
{
    return ilmap_atomic_fetch_add_size(p, (size_t)0 - v, mo);
}

ILMAP_ATOMIC_INLINE int ilmap_atomic_cas_uptr(ilmap_atomic_uptr *p, uintptr_t *expected,
                                              uintptr_t desired, ilmap_memory_order s,
                                              ilmap_memory_order f)
{
    ilmap_atomic_word_ e = (ilmap_atomic_word_)*expected;
    int ok = ILMAP_ATOMIC_WORD_FN_(cas)(ILMAP_ATOMIC_WORD_P_(p), &e,
                                        (ilmap_atomic_word_)desired, s, f);
    *expected = (uintptr_t)e;
    return ok;
}

ILMAP_ATOMIC_INLINE int ilmap_atomic_cas_size(ilmap_atomic_size *p, size_t *expected,
                                              size_t desired, ilmap_memory_order s,
                                              ilmap_memory_order f)
{
    ilmap_atomic_word_ e = (ilmap_atomic_word_)*expected;
    int ok = ILMAP_ATOMIC_WORD_FN_(cas)(ILMAP_ATOMIC_WORD_P_(p), &e,
                                        (ilmap_atomic_word_)desired, s, f);
    *expected = (size_t)e;
    return ok;
}

/* Pointers. */
ILMAP_ATOMIC_INLINE void ilmap_atomic_init_ptr(ilmap_atomic_ptr *p, void *v)
{
    *p = v;
}

ILMAP_ATOMIC_INLINE void *ilmap_atomic_load_ptr(ilmap_atomic_ptr const *p,
                                                ilmap_memory_order mo)
{
    (void)mo;
#if defined(ILMAP_ATOMIC_TSO_)
    void *v = ILMAP_CV_(ilmap_atomic_ptr, p);
    ILMAP_COMPILER_BARRIER_();
    return v;
#else
    return _InterlockedCompareExchangePointer((void *volatile *)(uintptr_t)p, NULL, NULL);
#endif
}

ILMAP_ATOMIC_INLINE void *ilmap_atomic_exchange_ptr(ilmap_atomic_ptr *p, void *v,
                                                    ilmap_memory_order mo)
{
    (void)mo;
    return _InterlockedExchangePointer((void *volatile *)p, v);
}

ILMAP_ATOMIC_INLINE void ilmap_atomic_store_ptr(ilmap_atomic_ptr *p, void *v,
                                                ilmap_memory_order mo)
{
#if defined(ILMAP_ATOMIC_TSO_)
    if (mo != ilmap_mo_seq_cst) {
        ILMAP_COMPILER_BARRIER_();
        ILMAP_V_(ilmap_atomic_ptr, p) = v;
        ILMAP_COMPILER_BARRIER_();
        return;
    }
#endif
    (void)ilmap_atomic_exchange_ptr(p, v, mo);
}

ILMAP_ATOMIC_INLINE int ilmap_atomic_cas_ptr(ilmap_atomic_ptr *p, void **expected,
                                             void *desired, ilmap_memory_order s,
                                             ilmap_memory_order f)
{
    (void)s;
    (void)f;
    void *prev = _InterlockedCompareExchangePointer((void *volatile *)p, desired, *expected);
    if (prev == *expected)
        return 1;
    *expected = prev;
    return 0;
}

#endif /* ILMAP_ATOMIC_INTRINSICS */

#endif
