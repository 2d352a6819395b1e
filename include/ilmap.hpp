/*
 * ilmap.hpp: a header-only C++17 wrapper of libilmap's C API.
 *
 *   #include <ilmap.hpp>
 *   const ilmap_entry e[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
 *   ilmap_cpp::map m(e);                      // throws ilmap_cpp::error
 *   uint32_t n = m.old_to_new(7);             // 10: noexcept, allocation-free
 *   uint32_t o = m.new_to_old(15);            // 5
 *   std::vector<ilmap_entry> all = m.entries();
 *
 *   // The same without exceptions (any build, -fno-exceptions included):
 *   ilmap_cpp::result<ilmap_cpp::map> r = ilmap_cpp::map::create(ilmap_cpp::nothrow, e);
 *   if (!r)
 *       fprintf(stderr, "%s\n", r.message().c_str());   // "ilmap_create: ..."
 *   else
 *       n = r->old_to_new(7);
 *
 * Namespace. The wrapper lives in namespace `ilmap_cpp`, not `ilmap`: the
 * C header declares `typedef struct ilmap ilmap;` at global scope, and C++
 * forbids a namespace and a class of the same name in one scope. Add
 * `namespace ilm = ilmap_cpp;` for a shorter name. The C declarations stay
 * usable side by side (::ilmap, ::ilmap_entry, ILMAP_* macros).
 *
 * Errors: every call that can fail has two forms, one implementation.
 *  - op(nothrow, args...) (ilmap_cpp::nothrow is std::nothrow) is noexcept
 *    and returns ilmap_cpp::result<T>: the value, or a failure (status(),
 *    status_str(), index(), message()). It never throws: when a
 *    std::vector or std::string it fills cannot be allocated, the answer is
 *    ILMAP_E_NOMEM (built with -fno-exceptions, the standard library
 *    aborts instead).
 *  - op(args...) returns T and throws ilmap_cpp::error (a std::runtime_error
 *    and an ilmap_cpp::failure): it is op(nothrow, args...).value(). A
 *    constructor that creates a handle is the throwing form of the static
 *    function named after the C call (map(e) is map::create(e),
 *    sig(blob) is sig::decode(blob), pdb(bytes) is pdb::open(bytes)).
 *  The throwing forms and ilmap_cpp::error exist only when exceptions are
 *  on (__cpp_exceptions, __EXCEPTIONS or _CPPUNWIND) and
 *  ILMAP_CPP_NO_EXCEPTIONS is not defined (to anything) before the #include;
 *  ILMAP_CPP_EXCEPTIONS says which (1 or 0). Without them result::value()
 *  on a failure calls std::abort(): test ok() first.
 * A failure carries the ilmap_status the C call returned, that call's
 * name, where the library reports one the offending index (an entry, an
 * edit, an instruction or a byte offset) and a description (a defect, two
 * sizes that differ).
 *
 * Lookups (old_to_new, new_to_old, new_to_old_dac, their batch forms,
 * native_to_il, il_to_native, find_call_site, the version store's reads,
 * the FunctionIDMapper's lookups, a PDB's find_source) have one form: const,
 * noexcept, and neither allocate nor fail loudly, exactly like the C
 * functions they call (async-signal-safe where those are). A lookup that
 * can find nothing returns std::optional (no allocation).
 *
 * Objects. Each class owns one opaque handle and frees it in its
 * destructor: move-only, never copied. A default-constructed or moved-from
 * object holds no handle (get() == nullptr, operator bool false; store()
 * alone creates a store, so it is a throwing form); the
 * lookups then answer as the C API does for NULL (an empty IL map is the
 * identity; an empty native map answers NO_INFO). adopt(), release() and
 * get() pass handles to and from C code. map_ref, native_map_ref and
 * pdb_ref are the non-owning views (what a version-store snapshot hands
 * out); map, native_map and pdb derive from them, so a map is usable
 * wherever a map_ref is. The version store is shared by its readers: a
 * reader keeps the store's state alive (see class reader).
 *
 * Arrays go in as ilmap_cpp::span<const T> (C++17 has no std::span): from a
 * C array, std::vector, std::array, std::span, a braced list, or
 * (pointer, size). The items are read during the call only.
 *
 * Arguments come in the C function's order, without its out parameters
 * (after the nothrow tag in the result forms).
 *
 * Thread safety is the C API's: built maps, PDBs, signatures and rewrites
 * are immutable and any number of threads may query one at once; the
 * store's writers serialize among themselves and its readers are one
 * thread each (see class store).
 */
#ifndef ILMAP_HPP
#define ILMAP_HPP

/* Checked first, and the rest skipped when it fails, so that an older
 * standard gives this one message rather than a cascade of errors. */
#if (!defined(__cplusplus) || __cplusplus < 201703L) && \
    (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L)
#  error "ilmap.hpp needs C++17 (e.g. -std=c++17, /std:c++17)"
#else

/* Whether the compiler has exceptions on (try/catch may be used), and
 * whether the throwing forms exist (exceptions on, not refused). */
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#  define ILMAP_CPP_DETAIL_EH 1
#else
#  define ILMAP_CPP_DETAIL_EH 0
#endif
#if ILMAP_CPP_DETAIL_EH && !defined(ILMAP_CPP_NO_EXCEPTIONS)
#  define ILMAP_CPP_EXCEPTIONS 1
#else
#  define ILMAP_CPP_EXCEPTIONS 0
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#if ILMAP_CPP_EXCEPTIONS
#  include <stdexcept>
#endif

#include "ilmap.h"
#include "ilmap-il.h"
#include "ilmap-algebra.h"
#include "ilmap-serial.h"
#include "ilmap-versions.h"
#include "ilmap-sig.h"
#include "ilmap-pdb.h"

namespace ilmap_cpp {

/* ---------------------------------------------------------------------
 * Vocabulary
 * ------------------------------------------------------------------ */

using status = ::ilmap_status;
using entry = ::ilmap_entry;
using native_entry = ::ilmap_native_entry;
using native_record = ::ilmap_native_record;
using boundary = ::ilmap_boundary;
using function_id = ::ilmap_function_id;
using module_id = ::ilmap_module_id;
using rejit_id = ::ilmap_rejit_id;

/** The tag of the non-throwing forms: ilmap_cpp::nothrow is std::nothrow. */
using std::nothrow_t;
using std::nothrow;

/** Special IL offsets (ILMAP_NO_MAPPING, ILMAP_PROLOG, ILMAP_EPILOG). */
inline constexpr std::uint32_t no_mapping = 0xFFFFFFFFu;
inline constexpr std::uint32_t prolog = 0xFFFFFFFEu;
inline constexpr std::uint32_t epilog = 0xFFFFFFFDu;
/** ILMAP_NO_INDEX. */
inline constexpr std::size_t no_index = ~static_cast<std::size_t>(0);

/** Flags (the C macros, usable interchangeably). */
inline constexpr unsigned lenient = ILMAP_LENIENT;
inline constexpr unsigned no_avx2 = ILMAP_NO_AVX2;
inline constexpr unsigned portable = ILMAP_PORTABLE;
inline constexpr unsigned dac = ILMAP_DAC;

/** The library's version, "MAJOR.MINOR.MICRO". */
inline const char *version() noexcept { return ::ilmap_version(); }

/* ---------------------------------------------------------------------
 * Errors: failure, error, result<T>
 * ------------------------------------------------------------------ */

/**
 * Why a call failed: the ilmap_status, the C call's name, the offending
 * index when the library reported one (else no_index) and a description.
 * A value (copyable, allocation-free); message() builds the text.
 */
class failure {
public:
    constexpr failure() noexcept = default;
    /** call and detail: static storage (string literals, the library's
     *  *_str() strings). code must not be ILMAP_OK. */
    constexpr failure(::ilmap_status code, const char *call, std::size_t index = no_index,
                      const char *detail = nullptr) noexcept
        : code_(code), call_(call), index_(index), detail_(detail)
    {
    }
    /** Each "{}" of detail stands for first, then second (two sizes). */
    constexpr failure(::ilmap_status code, const char *call, std::size_t index,
                      const char *detail, std::uint64_t first, std::uint64_t second) noexcept
        : code_(code), call_(call), index_(index), detail_(detail), values_{first, second},
          value_count_(2)
    {
    }

    /** The ilmap_status the C call returned. */
    ::ilmap_status status() const noexcept { return code_; }
    /** ilmap_status_str(status()): static storage. */
    const char *status_str() const noexcept { return ::ilmap_status_str(code_); }
    /** The C function that failed ("ilmap_create", ...). */
    const char *call() const noexcept { return call_ ? call_ : "ilmap"; }
    /** The offending entry, edit, instruction, clause or byte offset, or
     *  no_index. */
    std::size_t index() const noexcept { return index_; }
    /** "call: status description[: detail][ at index N]" (allocates). */
    std::string message() const
    {
        std::string s = call();
        s += ": ";
        s += status_str();
        if (detail_) {
            s += ": ";
            unsigned next = 0;
            for (const char *p = detail_; *p; ++p) {
                if (p[0] == '{' && p[1] == '}' && next < value_count_) {
                    s += std::to_string(values_[next++]);
                    ++p;
                } else {
                    s += *p;
                }
            }
        }
        if (index_ != no_index) {
            s += " at index ";
            s += std::to_string(index_);
        }
        return s;
    }

private:
    ::ilmap_status code_ = ILMAP_OK;
    const char *call_ = nullptr;
    std::size_t index_ = no_index;
    const char *detail_ = nullptr;
    std::uint64_t values_[2] = {0, 0};
    unsigned value_count_ = 0;
};

#if ILMAP_CPP_EXCEPTIONS
/** What the throwing forms throw: a std::runtime_error whose what() is
 *  message(), and the failure itself (status(), status_str(), call(),
 *  index()). */
class error : public std::runtime_error, public failure {
public:
    explicit error(const failure &f) : std::runtime_error(f.message()), failure(f) {}
    error(::ilmap_status code, const char *call, std::size_t index = no_index,
          const char *detail = nullptr)
        : error(failure(code, call, index, detail))
    {
    }
};
#endif

/**
 * What a non-throwing form returns: a T, or the failure of the call.
 * ok() / operator bool say which; status() is ILMAP_OK for a value.
 * operator* and operator-> need ok(); value() checks it: on a failure it
 * throws ilmap_cpp::error (ILMAP_CPP_EXCEPTIONS) or calls std::abort().
 * [[nodiscard]]: a failure cannot pass unseen.
 */
template <class T>
class [[nodiscard]] result {
public:
    using value_type = T;

    result(const T &value) : value_(value) {}
    result(T &&value) noexcept(std::is_nothrow_move_constructible_v<T>)
        : value_(std::move(value))
    {
    }
    result(const ilmap_cpp::failure &f) noexcept : failure_(f) {}

    bool ok() const noexcept { return value_.has_value(); }
    explicit operator bool() const noexcept { return ok(); }
    ::ilmap_status status() const noexcept { return ok() ? ILMAP_OK : failure_.status(); }
    const char *status_str() const noexcept { return ::ilmap_status_str(status()); }
    std::size_t index() const noexcept { return failure_.index(); }
    /** The failure's message(); "" for a value. */
    std::string message() const { return ok() ? std::string() : failure_.message(); }
    /** The failure (status ILMAP_OK for a value), e.g. to pass it on. */
    const ilmap_cpp::failure &failure() const noexcept { return failure_; }

    T &value() &
    {
        check();
        return *value_;
    }
    const T &value() const &
    {
        check();
        return *value_;
    }
    T &&value() &&
    {
        check();
        return std::move(*value_);
    }
    T &operator*() & noexcept { return *value_; }
    const T &operator*() const & noexcept { return *value_; }
    T &&operator*() && noexcept { return std::move(*value_); }
    T *operator->() noexcept { return &*value_; }
    const T *operator->() const noexcept { return &*value_; }

private:
    void check() const
    {
        if (!value_) {
#if ILMAP_CPP_EXCEPTIONS
            throw error(failure_);
#else
            std::abort();
#endif
        }
    }

    std::optional<T> value_;
    ilmap_cpp::failure failure_;
};

/** The result of a call that returns nothing but can fail. */
template <>
class [[nodiscard]] result<void> {
public:
    using value_type = void;

    result() noexcept = default;
    result(const ilmap_cpp::failure &f) noexcept : failure_(f) {}

    bool ok() const noexcept { return failure_.status() == ILMAP_OK; }
    explicit operator bool() const noexcept { return ok(); }
    ::ilmap_status status() const noexcept { return failure_.status(); }
    const char *status_str() const noexcept { return ::ilmap_status_str(status()); }
    std::size_t index() const noexcept { return failure_.index(); }
    std::string message() const { return ok() ? std::string() : failure_.message(); }
    const ilmap_cpp::failure &failure() const noexcept { return failure_; }
    /** Checks ok() as result<T>::value() does. */
    void value() const
    {
        if (!ok()) {
#if ILMAP_CPP_EXCEPTIONS
            throw error(failure_);
#else
            std::abort();
#endif
        }
    }

private:
    ilmap_cpp::failure failure_;
};

namespace detail {

inline result<void> check(status s, const char *call, std::size_t index = no_index) noexcept
{
    if (s != ILMAP_OK)
        return failure(s, call, index);
    return {};
}

/* A refusal of a serialized form: ILMAP_E_FORMAT names its defect and the
 * entry (ilmap_serial_error); any other status is the call's alone. */
inline failure serial_failure(status s, const char *call, const ::ilmap_serial_error &err) noexcept
{
    if (s == ILMAP_E_FORMAT)
        return failure(s, call, err.index, ::ilmap_serial_defect_str(err.defect));
    return failure(s, call);
}

/* c.resize(n), false when it cannot allocate (with exceptions off the
 * standard library aborts first). */
template <class C>
bool resize(C &c, std::size_t n) noexcept
{
#if ILMAP_CPP_DETAIL_EH
    try {
        c.resize(n);
    } catch (...) {
        return false;
    }
#else
    c.resize(n);
#endif
    return true;
}

/* The buffer protocol (cap, total, out) of every copy-out call, twice:
 * a size query, then a fill; repeated if the count grew in between. C is
 * a std::vector or a std::string. */
template <class C, class Fill>
result<C> copy_out(const char *call, Fill fill) noexcept
{
    C out;
    for (;;) {
        std::size_t total = 0;
        const status s = fill(out.size(), &total, out.empty() ? nullptr : out.data());
        if (s == ILMAP_OK && total <= out.size()) {
            out.resize(total); // shrinks: no allocation
            return result<C>(std::move(out));
        }
        if (s != ILMAP_OK && s != ILMAP_E_TRUNCATED)
            return failure(s, call);
        if (!resize(out, total))
            return failure(ILMAP_E_NOMEM, call);
    }
}

template <class C, class T, class = void>
struct is_container_of : std::false_type {};
template <class C, class T>
struct is_container_of<C, T,
                       std::void_t<decltype(std::declval<C &>().data()),
                                   decltype(std::declval<C &>().size())>>
    : std::is_convertible<std::remove_pointer_t<decltype(std::declval<C &>().data())> (*)[],
                          T (*)[]> {};

} // namespace detail

/* ---------------------------------------------------------------------
 * span: a pointer and a count, what the C calls take
 * ------------------------------------------------------------------ */

template <class T>
class span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;
    using pointer = T *;
    using iterator = T *;

    constexpr span() noexcept = default;
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr span(T (&array)[N]) noexcept : data_(array), size_(N)
    {
    }
    /** Any contiguous container with data() and size(): std::vector,
     *  std::array, std::string, std::span, ... (it must outlive the span). */
    template <class C, std::enable_if_t<!std::is_same_v<std::remove_cv_t<C>, span> &&
                                            detail::is_container_of<C, T>::value,
                                        int> = 0>
    constexpr span(C &c) noexcept : data_(c.data()), size_(c.size())
    {
    }
    template <class C, std::enable_if_t<!std::is_same_v<std::remove_cv_t<C>, span> &&
                                            detail::is_container_of<const C, T>::value,
                                        int> = 0>
    constexpr span(const C &c) noexcept : data_(c.data()), size_(c.size())
    {
    }
    /** A braced list, for span<const T> arguments: it lives until the end
     *  of the full expression, long enough for any call that takes it. */
    template <class U = T, std::enable_if_t<std::is_const_v<U>, int> = 0>
    constexpr span(std::initializer_list<value_type> list) noexcept
        : data_(std::data(list)), size_(list.size())
    {
    }
    /** span<T> -> span<const T>. */
    template <class U, std::enable_if_t<!std::is_same_v<U, T> &&
                                            std::is_convertible_v<U (*)[], T (*)[]>,
                                        int> = 0>
    constexpr span(span<U> other) noexcept : data_(other.data()), size_(other.size())
    {
    }

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};


/* ---------------------------------------------------------------------
 * COR_IL_MAP: map_ref (non-owning) and map (owning)
 * ------------------------------------------------------------------ */

class map;

/** Why entries are not a strict map (ilmap_validate()). */
struct validation {
    ::ilmap_status status;  /**< ILMAP_OK, ILMAP_E_UNSORTED, ILMAP_E_INVALID_ARG */
    ::ilmap_defect defect;  /**< ILMAP_DEFECT_NONE when valid */
    std::size_t bad_index;  /**< no_index when valid */
    explicit operator bool() const noexcept { return status == ILMAP_OK; }
    const char *defect_str() const noexcept { return ::ilmap_defect_str(defect); }
};

/** A non-owning view of an ilmap (nullptr: the empty map, the identity).
 *  Any number of threads may use views of one map at once. */
class map_ref {
public:
    constexpr map_ref() noexcept = default;
    constexpr map_ref(const ::ilmap *m) noexcept : m_(m) {}

    const ::ilmap *get() const noexcept { return m_; }
    explicit operator bool() const noexcept { return m_ != nullptr; }

    /* Lookups: noexcept, allocation-free, async-signal-safe. */
    std::uint32_t old_to_new(std::uint32_t old_offset) const noexcept
    {
        return ::ilmap_old_to_new(m_, old_offset);
    }
    std::uint32_t new_to_old(std::uint32_t new_offset) const noexcept
    {
        return ::ilmap_new_to_old(m_, new_offset);
    }
    std::uint32_t new_to_old_dac(std::uint32_t new_offset) const noexcept
    {
        return ::ilmap_new_to_old_dac(m_, new_offset);
    }
    /** out[i] = old_to_new(in[i]) for the first min(in.size(), out.size())
     *  items, which it returns. in and out may be the same array. */
    std::size_t old_to_new_batch(span<const std::uint32_t> in,
                                 span<std::uint32_t> out) const noexcept
    {
        std::size_t n = in.size() < out.size() ? in.size() : out.size();
        ::ilmap_old_to_new_batch(m_, in.data(), out.data(), n);
        return n;
    }
    std::size_t new_to_old_batch(span<const std::uint32_t> in,
                                 span<std::uint32_t> out) const noexcept
    {
        std::size_t n = in.size() < out.size() ? in.size() : out.size();
        ::ilmap_new_to_old_batch(m_, in.data(), out.data(), n);
        return n;
    }
    std::size_t new_to_old_dac_batch(span<const std::uint32_t> in,
                                     span<std::uint32_t> out) const noexcept
    {
        std::size_t n = in.size() < out.size() ? in.size() : out.size();
        ::ilmap_new_to_old_dac_batch(m_, in.data(), out.data(), n);
        return n;
    }
    /** In place. */
    void old_to_new_batch(span<std::uint32_t> inout) const noexcept
    {
        ::ilmap_old_to_new_batch(m_, inout.data(), inout.data(), inout.size());
    }
    void new_to_old_batch(span<std::uint32_t> inout) const noexcept
    {
        ::ilmap_new_to_old_batch(m_, inout.data(), inout.data(), inout.size());
    }
    void new_to_old_dac_batch(span<std::uint32_t> inout) const noexcept
    {
        ::ilmap_new_to_old_dac_batch(m_, inout.data(), inout.data(), inout.size());
    }

    /* Getters. */
    std::size_t size() const noexcept { return ::ilmap_get_count(m_); }
    bool empty() const noexcept { return size() == 0; }
    unsigned flags() const noexcept { return ::ilmap_get_flags(m_); }
    bool is_lenient() const noexcept { return (flags() & ILMAP_LENIENT) != 0; }
    std::size_t memory_bytes() const noexcept { return ::ilmap_get_memory_bytes(m_); }
    const char *implementation() const noexcept { return ::ilmap_get_implementation(m_); }

    /** The entries as given to ilmap_create() (ilmap_export()). */
    result<std::vector<entry>> entries(nothrow_t) const noexcept
    {
        return detail::copy_out<std::vector<entry>>(
            "ilmap_export", [this](std::size_t cap, std::size_t *total, entry *out) {
                return ::ilmap_export(m_, cap, total, out);
            });
    }
    /** The serialized form (ilmap_serialize()); ILMAP_E_INVALID_ARG for an
     *  empty ref. */
    result<std::vector<std::uint8_t>> serialize(nothrow_t) const noexcept
    {
        return detail::copy_out<std::vector<std::uint8_t>>(
            "ilmap_serialize", [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_serialize(m_, cap, total, out);
            });
    }
    /* Algebra (ilmap-algebra.h); defined after map. */
    /** ilmap_compose(this, b): this maps original -> v1, b maps v1 -> v2.
     *  exact_directions (optional) receives the exact ILMAP_DIR_* bits. */
    inline result<map> compose(nothrow_t, map_ref b, unsigned flags = 0,
                               unsigned *exact_directions = nullptr) const noexcept;
    /** ilmap_invert(). */
    inline result<map> invert(nothrow_t, unsigned flags = 0) const noexcept;
    /** Whether both answer the same for every input in [0, bound] in the
     *  given ILMAP_DIR_* directions; diff (optional) says where not. */
    result<bool> equivalent(nothrow_t, map_ref b, unsigned directions = ILMAP_DIR_ALL,
                            std::uint32_t bound = 0xFFFFFFFFu,
                            ::ilmap_difference *diff = nullptr) const noexcept
    {
        int equal = 0;
        const status s = ::ilmap_equivalent(m_, b.m_, directions, bound, &equal, diff);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_equivalent");
        return equal != 0;
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    std::vector<entry> entries() const { return entries(nothrow).value(); }
    std::vector<std::uint8_t> serialize() const { return serialize(nothrow).value(); }
    inline map compose(map_ref b, unsigned flags = 0, unsigned *exact_directions = nullptr) const;
    inline map invert(unsigned flags = 0) const;
    bool equivalent(map_ref b, unsigned directions = ILMAP_DIR_ALL,
                    std::uint32_t bound = 0xFFFFFFFFu, ::ilmap_difference *diff = nullptr) const
    {
        return equivalent(nothrow, b, directions, bound, diff).value();
    }
#endif

protected:
    const ::ilmap *m_ = nullptr;
};

/** An owned ilmap: freed with ilmap_free(). Move-only; immutable, so any
 *  number of threads may query it at once. */
class map : public map_ref {
public:
    /** No map: the identity. */
    map() noexcept = default;
    map(map &&other) noexcept : map_ref(other.release()) {}
    map &operator=(map &&other) noexcept
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    map(const map &) = delete;
    map &operator=(const map &) = delete;
    ~map() { ::ilmap_free(const_cast<::ilmap *>(m_)); }

    /** ilmap_create(entries, flags): 0 (strict, validated) or
     *  ILMAP_LENIENT, plus ILMAP_NO_AVX2 / ILMAP_PORTABLE. A strict array
     *  that is out of order fails with ILMAP_E_UNSORTED, the offending
     *  index and the reason (validate()). */
    static result<map> create(nothrow_t, span<const entry> entries, unsigned flags = 0) noexcept
    {
        ::ilmap *out = nullptr;
        const status s = ::ilmap_create(entries.data(), entries.size(), flags, &out);
        if (s == ILMAP_E_UNSORTED) {
            const validation v = validate(entries);
            return failure(s, "ilmap_create", v.bad_index, v.defect_str());
        }
        if (s != ILMAP_OK)
            return failure(s, "ilmap_create");
        return adopt(out);
    }
    /** ilmap_deserialize() (flags: ILMAP_SERIAL_PREFIX, ILMAP_NO_AVX2,
     *  ILMAP_PORTABLE); ILMAP_E_FORMAT names the defect and entry index. */
    static result<map> deserialize(nothrow_t, span<const std::uint8_t> bytes,
                                   unsigned flags = 0) noexcept
    {
        ::ilmap *out = nullptr;
        ::ilmap_serial_error err{};
        const status s = ::ilmap_deserialize(bytes.data(), bytes.size(), flags, &out, &err);
        if (s != ILMAP_OK)
            return detail::serial_failure(s, "ilmap_deserialize", err);
        return adopt(out);
    }
    /** ilmap_validate(): whether entries form a strict map, and why not. */
    static validation validate(span<const entry> entries) noexcept
    {
        validation v{ILMAP_OK, ILMAP_DEFECT_NONE, no_index};
        v.status = ::ilmap_validate(entries.data(), entries.size(), &v.defect, &v.bad_index);
        return v;
    }

    /** Takes ownership of a handle from the C API. */
    static map adopt(::ilmap *m) noexcept
    {
        map r;
        r.m_ = m;
        return r;
    }
    /** Gives up ownership: the caller frees it (ilmap_free()). */
    ::ilmap *release() noexcept
    {
        ::ilmap *m = const_cast<::ilmap *>(m_);
        m_ = nullptr;
        return m;
    }
    void reset(::ilmap *m = nullptr) noexcept
    {
        ::ilmap_free(const_cast<::ilmap *>(m_));
        m_ = m;
    }
    ::ilmap *get() const noexcept { return const_cast<::ilmap *>(m_); }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    explicit map(span<const entry> entries, unsigned flags = 0)
        : map(create(nothrow, entries, flags).value())
    {
    }
    static map create(span<const entry> entries, unsigned flags = 0)
    {
        return create(nothrow, entries, flags).value();
    }
    static map deserialize(span<const std::uint8_t> bytes, unsigned flags = 0)
    {
        return deserialize(nothrow, bytes, flags).value();
    }
#endif
};

inline result<map> map_ref::compose(nothrow_t, map_ref b, unsigned flags,
                                    unsigned *exact_directions) const noexcept
{
    ::ilmap *out = nullptr;
    const status s = ::ilmap_compose(m_, b.m_, flags, &out, exact_directions);
    if (s != ILMAP_OK)
        return failure(s, "ilmap_compose");
    return map::adopt(out);
}

inline result<map> map_ref::invert(nothrow_t, unsigned flags) const noexcept
{
    ::ilmap *out = nullptr;
    const status s = ::ilmap_invert(m_, flags, &out);
    if (s != ILMAP_OK)
        return failure(s, "ilmap_invert");
    return map::adopt(out);
}

#if ILMAP_CPP_EXCEPTIONS
inline map map_ref::compose(map_ref b, unsigned flags, unsigned *exact_directions) const
{
    return compose(nothrow, b, flags, exact_directions).value();
}

inline map map_ref::invert(unsigned flags) const { return invert(nothrow, flags).value(); }
#endif

/* ---------------------------------------------------------------------
 * IL-to-native maps: native_map_ref (non-owning) and native_map (owning)
 * ------------------------------------------------------------------ */

/** native_to_il()'s answer: the IL offset and one ILMAP_MAPPING_* value. */
struct native_to_il_answer {
    std::uint32_t il_offset;
    unsigned mapping;
};

/** native_to_il_detail()'s answer (ilmap_native_to_il_detail()). */
struct native_to_il_detail_answer {
    std::uint32_t il_offset;
    unsigned mapping;
    std::size_t entry; /**< the matched entry's index in export order, or no_index */
    std::uint32_t which;
};

/** il_to_native()'s answer (ilmap_il_to_native()). */
struct il_to_native_answer {
    native_entry entry; /**< as exported (end-unknown: the code size) */
    std::size_t index;  /**< its index in export order */
    bool il_matched;    /**< found il_offset itself, not a floor entry */
};

/** A non-owning view of an ilmap_native (nullptr: answers NO_INFO). Any
 *  number of threads may use views of one map at once. */
class native_map_ref {
public:
    constexpr native_map_ref() noexcept = default;
    constexpr native_map_ref(const ::ilmap_native *m) noexcept : m_(m) {}

    const ::ilmap_native *get() const noexcept { return m_; }
    explicit operator bool() const noexcept { return m_ != nullptr; }

    /* Lookups: noexcept, allocation-free, async-signal-safe. */
    native_to_il_answer native_to_il(std::uint32_t native_offset) const noexcept
    {
        native_to_il_answer r{0, 0};
        r.mapping = ::ilmap_native_to_il(m_, native_offset, &r.il_offset);
        return r;
    }
    native_to_il_detail_answer native_to_il_detail(std::uint32_t native_offset) const noexcept
    {
        native_to_il_detail_answer r{0, 0, no_index, 0};
        r.mapping = ::ilmap_native_to_il_detail(m_, native_offset, &r.il_offset, &r.entry,
                                                &r.which);
        return r;
    }
    /** The floor entry of il_offset; nullopt when there is none (or no map). */
    std::optional<il_to_native_answer> il_to_native(std::uint32_t il_offset) const noexcept
    {
        il_to_native_answer r{};
        int matched = 0;
        if (::ilmap_il_to_native(m_, il_offset, &r.entry, &r.index, &matched) != ILMAP_OK)
            return std::nullopt;
        r.il_matched = matched != 0;
        return r;
    }
    /** The call site starting at native_offset; nullopt when none. */
    std::optional<native_record> find_call_site(std::uint32_t native_offset) const noexcept
    {
        native_record r{};
        if (::ilmap_native_find_call_site(m_, native_offset, &r) != ILMAP_OK)
            return std::nullopt;
        return r;
    }

    /* Getters. */
    std::size_t size() const noexcept { return ::ilmap_native_get_count(m_); }
    bool empty() const noexcept { return size() == 0; }
    std::uint32_t code_size() const noexcept { return ::ilmap_native_get_code_size(m_); }
    std::uint32_t last_il() const noexcept { return ::ilmap_native_get_last_il(m_); }
    unsigned flags() const noexcept { return ::ilmap_native_get_flags(m_); }
    bool is_dac() const noexcept { return (flags() & ILMAP_DAC) != 0; }
    std::size_t memory_bytes() const noexcept { return ::ilmap_native_get_memory_bytes(m_); }

    /* Copy-outs (the buffer protocol): they allocate. An empty ref fails
     * with ILMAP_E_INVALID_ARG, as the C calls answer for NULL. */
    /** The exported map (ilmap_native_export()). */
    result<std::vector<native_entry>> entries(nothrow_t) const noexcept
    {
        return detail::copy_out<std::vector<native_entry>>(
            "ilmap_native_export", [this](std::size_t cap, std::size_t *total, native_entry *out) {
                return ::ilmap_native_export(m_, cap, total, out);
            });
    }
    /** ilmap_native_export_records(): ILMAP_RECORDS_EXPORTED or
     *  ILMAP_RECORDS_CALL_SITES. */
    result<std::vector<native_record>> records(nothrow_t,
                                               unsigned list = ILMAP_RECORDS_EXPORTED) const noexcept
    {
        return detail::copy_out<std::vector<native_record>>(
            "ilmap_native_export_records",
            [this, list](std::size_t cap, std::size_t *total, native_record *out) {
                return ::ilmap_native_export_records(m_, list, cap, total, out);
            });
    }
    result<std::vector<native_record>> call_sites(nothrow_t) const noexcept
    {
        return records(nothrow, ILMAP_RECORDS_CALL_SITES);
    }
    /** Every native range of one IL offset (ilmap_il_to_native_ranges()). */
    result<std::vector<native_entry>> ranges(nothrow_t, std::uint32_t il_offset) const noexcept
    {
        return detail::copy_out<std::vector<native_entry>>(
            "ilmap_il_to_native_ranges",
            [this, il_offset](std::size_t cap, std::size_t *total, native_entry *out) {
                return ::ilmap_il_to_native_ranges(m_, il_offset, cap, total, out);
            });
    }
    /** The serialized form (ilmap_native_serialize()). */
    result<std::vector<std::uint8_t>> serialize(nothrow_t) const noexcept
    {
        return detail::copy_out<std::vector<std::uint8_t>>(
            "ilmap_native_serialize",
            [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_native_serialize(m_, cap, total, out);
            });
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    std::vector<native_entry> entries() const { return entries(nothrow).value(); }
    std::vector<native_record> records(unsigned list = ILMAP_RECORDS_EXPORTED) const
    {
        return records(nothrow, list).value();
    }
    std::vector<native_record> call_sites() const { return call_sites(nothrow).value(); }
    std::vector<native_entry> ranges(std::uint32_t il_offset) const
    {
        return ranges(nothrow, il_offset).value();
    }
    std::vector<std::uint8_t> serialize() const { return serialize(nothrow).value(); }
#endif

protected:
    const ::ilmap_native *m_ = nullptr;
};

/** An owned ilmap_native: freed with ilmap_native_free(). Move-only;
 *  immutable, so any number of threads may query it at once. */
class native_map : public native_map_ref {
public:
    native_map() noexcept = default;
    native_map(native_map &&other) noexcept : native_map_ref(other.release()) {}
    native_map &operator=(native_map &&other) noexcept
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    native_map(const native_map &) = delete;
    native_map &operator=(const native_map &) = delete;
    ~native_map() { ::ilmap_native_free(const_cast<::ilmap_native *>(m_)); }

    /** ilmap_native_from_entries(): an exported array (what
     *  GetILToNativeMapping2 returned), any order. Refusals carry the
     *  offending index (ilmap_native_validate()). */
    static result<native_map> from_entries(nothrow_t, span<const native_entry> entries,
                                           std::uint32_t code_size) noexcept
    {
        ::ilmap_native *out = nullptr;
        const status s =
            ::ilmap_native_from_entries(entries.data(), entries.size(), code_size, &out);
        if (s != ILMAP_OK) {
            std::size_t bad = no_index;
            ::ilmap_native_validate(entries.data(), entries.size(), code_size, &bad, nullptr);
            return failure(s, "ilmap_native_from_entries", bad);
        }
        return adopt(out);
    }
    /** ilmap_native_build(): the map the runtime builds from the JIT's
     *  boundaries, through the method's COR_IL_MAP (instrumented; an empty
     *  ref or nullptr: no map), for code_size bytes of code. flags: 0 or
     *  ILMAP_DAC. Refusals carry the offending boundary's index. */
    static result<native_map> build(nothrow_t, span<const boundary> jit, map_ref instrumented,
                                    std::uint32_t code_size, unsigned flags = 0) noexcept
    {
        ::ilmap_native *out = nullptr;
        const status s = ::ilmap_native_build(jit.data(), jit.size(), instrumented.get(),
                                              code_size, flags, &out);
        if (s != ILMAP_OK) {
            std::size_t bad = no_index;
            ::ilmap_native_validate_boundaries(jit.data(), jit.size(), code_size, &bad);
            return failure(s, "ilmap_native_build", bad);
        }
        return adopt(out);
    }
    /** ilmap_native_translate(): an export made without a COR_IL_MAP, as
     *  the runtime would have exported it with instrumented in force.
     *  lossless (optional) receives whether the result is exact. */
    static result<native_map> translate(nothrow_t, span<const native_entry> exported,
                                        std::uint32_t code_size, map_ref instrumented,
                                        unsigned flags = 0, bool *lossless = nullptr) noexcept
    {
        ::ilmap_native *out = nullptr;
        int exact = 0;
        const status s = ::ilmap_native_translate(exported.data(), exported.size(), code_size,
                                                  instrumented.get(), flags, &out, &exact);
        if (lossless)
            *lossless = s == ILMAP_OK && exact != 0;
        if (s != ILMAP_OK)
            return failure(s, "ilmap_native_translate");
        return adopt(out);
    }
    /** ilmap_native_deserialize() (flags: 0 or ILMAP_SERIAL_PREFIX). */
    static result<native_map> deserialize(nothrow_t, span<const std::uint8_t> bytes,
                                          unsigned flags = 0) noexcept
    {
        ::ilmap_native *out = nullptr;
        ::ilmap_serial_error err{};
        const status s = ::ilmap_native_deserialize(bytes.data(), bytes.size(), flags, &out, &err);
        if (s != ILMAP_OK)
            return detail::serial_failure(s, "ilmap_native_deserialize", err);
        return adopt(out);
    }

    static native_map adopt(::ilmap_native *m) noexcept
    {
        native_map r;
        r.m_ = m;
        return r;
    }
    ::ilmap_native *release() noexcept
    {
        ::ilmap_native *m = const_cast<::ilmap_native *>(m_);
        m_ = nullptr;
        return m;
    }
    void reset(::ilmap_native *m = nullptr) noexcept
    {
        ::ilmap_native_free(const_cast<::ilmap_native *>(m_));
        m_ = m;
    }
    ::ilmap_native *get() const noexcept { return const_cast<::ilmap_native *>(m_); }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    native_map(span<const native_entry> entries, std::uint32_t code_size)
        : native_map(from_entries(nothrow, entries, code_size).value())
    {
    }
    static native_map from_entries(span<const native_entry> entries, std::uint32_t code_size)
    {
        return from_entries(nothrow, entries, code_size).value();
    }
    static native_map build(span<const boundary> jit, map_ref instrumented,
                            std::uint32_t code_size, unsigned flags = 0)
    {
        return build(nothrow, jit, instrumented, code_size, flags).value();
    }
    static native_map translate(span<const native_entry> exported, std::uint32_t code_size,
                                map_ref instrumented, unsigned flags = 0,
                                bool *lossless = nullptr)
    {
        return translate(nothrow, exported, code_size, instrumented, flags, lossless).value();
    }
    static native_map deserialize(span<const std::uint8_t> bytes, unsigned flags = 0)
    {
        return deserialize(nothrow, bytes, flags).value();
    }
#endif
};

/* ---------------------------------------------------------------------
 * Handles with nothing to share: one small owning template
 * ------------------------------------------------------------------ */

namespace detail {

template <class T, void (*Free)(T *)>
class unique_handle {
public:
    unique_handle() noexcept = default;
    explicit unique_handle(T *p) noexcept : p_(p) {}
    unique_handle(unique_handle &&o) noexcept : p_(o.release()) {}
    unique_handle &operator=(unique_handle &&o) noexcept
    {
        if (this != &o)
            reset(o.release());
        return *this;
    }
    unique_handle(const unique_handle &) = delete;
    unique_handle &operator=(const unique_handle &) = delete;
    ~unique_handle() { Free(p_); }

    T *get() const noexcept { return p_; }
    T *release() noexcept
    {
        T *p = p_;
        p_ = nullptr;
        return p;
    }
    void reset(T *p = nullptr) noexcept
    {
        Free(p_);
        p_ = p;
    }

private:
    T *p_ = nullptr;
};

inline void free_rewrite(::ilmap_rewrite *r) { ::ilmap_rewrite_free(r); }
inline void free_fid_mapper(::ilmap_fid_mapper *m) { ::ilmap_fid_mapper_free(m); }
inline void free_sig(::ilmap_sig *g) { ::ilmap_sig_free(g); }
inline void free_pdb_lines(::ilmap_pdb_lines *l) { ::ilmap_pdb_lines_free(l); }
inline void free_reader(::ilmap_store_reader *r)
{
    if (r)
        (void)::ilmap_store_reader_unregister(r);
}

} // namespace detail

/* ---------------------------------------------------------------------
 * IL code and method bodies (ilmap-il.h)
 * ------------------------------------------------------------------ */

/** ilmap_il_decode(): every instruction of a code stream, in offset
 *  order, the whole stream checked (every byte in an instruction, the last
 *  one ending at the code size, every branch and switch target an
 *  instruction start). Refusals (ILMAP_E_IL_OPCODE, ILMAP_E_IL_TRUNCATED,
 *  ILMAP_E_IL_BRANCH) carry the offending instruction's offset as index().
 *  Any thread. */
inline result<std::vector<::ilmap_il_instr>> il_decode(nothrow_t,
                                                       span<const std::uint8_t> code) noexcept
{
    std::size_t bad = no_index;
    result<std::vector<::ilmap_il_instr>> r = detail::copy_out<std::vector<::ilmap_il_instr>>(
        "ilmap_il_decode",
        [code, &bad](std::size_t cap, std::size_t *total, ::ilmap_il_instr *out) {
            return ::ilmap_il_decode(code.data(), code.size(), cap, total, out, &bad);
        });
    if (!r.ok())
        return failure(r.status(), "ilmap_il_decode", bad);
    return r;
}

/** ilmap_il_starts(): the instruction start offsets of a code stream,
 *  checked as il_decode() checks it (same failures): what edits_build()
 *  takes. Any thread. */
inline result<std::vector<std::uint32_t>> il_starts(nothrow_t,
                                                    span<const std::uint8_t> code) noexcept
{
    std::size_t bad = no_index;
    result<std::vector<std::uint32_t>> r = detail::copy_out<std::vector<std::uint32_t>>(
        "ilmap_il_starts", [code, &bad](std::size_t cap, std::size_t *total, std::uint32_t *out) {
            return ::ilmap_il_starts(code.data(), code.size(), cap, total, out, &bad);
        });
    if (!r.ok())
        return failure(r.status(), "ilmap_il_starts", bad);
    return r;
}

/** ilmap_il_body_parse(): a method body's header, code and EH section
 *  (ECMA-335 II.25.4). The answer points into body's bytes (code,
 *  eh_clauses), which must outlive it; it owns nothing. Fails with
 *  ILMAP_E_IL_HEADER, ILMAP_E_IL_TRUNCATED, ILMAP_E_IL_EH. Any thread,
 *  allocation-free. */
inline result<::ilmap_il_body> il_body_parse(nothrow_t, span<const std::uint8_t> body) noexcept
{
    ::ilmap_il_body out{};
    const status s = ::ilmap_il_body_parse(body.data(), body.size(), &out);
    if (s != ILMAP_OK)
        return failure(s, "ilmap_il_body_parse");
    return out;
}

/** A parsed body's EH clauses, widened to the fat layout
 *  (ilmap_il_body_get_clause() for each). */
inline result<std::vector<::ilmap_il_clause>> il_body_clauses(nothrow_t,
                                                              const ::ilmap_il_body &body) noexcept
{
    std::vector<::ilmap_il_clause> out;
    if (!detail::resize(out, body.eh_count))
        return failure(ILMAP_E_NOMEM, "ilmap_il_body_get_clause");
    for (std::uint32_t i = 0; i < body.eh_count; ++i) {
        const status s = ::ilmap_il_body_get_clause(&body, i, &out[i]);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_il_body_get_clause", i);
    }
    return out;
}

/** ilmap_il_body_validate(): what the rewriter needs of a body (its code
 *  decodes, its clauses sit on instruction starts); index() is the
 *  offending instruction's offset, or the clause's index for
 *  ILMAP_E_IL_EH. */
inline result<void> il_body_validate(nothrow_t, const ::ilmap_il_body &body) noexcept
{
    std::size_t bad = no_index;
    const status s = ::ilmap_il_body_validate(&body, &bad);
    return detail::check(s, "ilmap_il_body_validate", bad);
}

/** What edits_build() answers: one item per original instruction. */
struct edit_layout {
    /** The COR_IL_MAP: { starts[i], the first byte inserted before
     *  instruction i (its own new offset when nothing is), 1 }. */
    std::vector<entry> entries;
    /** Where each original instruction (or its replacement) begins now. */
    std::vector<std::uint32_t> new_offsets;
    /** The edited code's size. */
    std::uint32_t new_code_size;
};

/** ilmap_edits_build(): the layout and COR_IL_MAP of an edited method from
 *  its instruction starts (il_starts()), its code size and the edits (any
 *  order). ILMAP_E_EDIT carries the lowest offending edit's index. Any
 *  thread. */
inline result<edit_layout> edits_build(nothrow_t, span<const std::uint32_t> starts,
                                       std::uint32_t code_size,
                                       span<const ::ilmap_edit> edits) noexcept
{
    edit_layout out{{}, {}, 0};
    if (!detail::resize(out.entries, starts.size()) ||
        !detail::resize(out.new_offsets, starts.size()))
        return failure(ILMAP_E_NOMEM, "ilmap_edits_build");
    std::size_t bad = no_index;
    const status s = ::ilmap_edits_build(starts.data(), starts.size(), code_size, edits.data(),
                                         edits.size(), out.entries.data(),
                                         out.new_offsets.data(), &out.new_code_size, &bad);
    if (s != ILMAP_OK)
        return failure(s, "ilmap_edits_build", bad);
    return out;
}

#if ILMAP_CPP_EXCEPTIONS
/* The throwing forms. */
inline std::vector<::ilmap_il_instr> il_decode(span<const std::uint8_t> code)
{
    return il_decode(nothrow, code).value();
}
inline std::vector<std::uint32_t> il_starts(span<const std::uint8_t> code)
{
    return il_starts(nothrow, code).value();
}
inline ::ilmap_il_body il_body_parse(span<const std::uint8_t> body)
{
    return il_body_parse(nothrow, body).value();
}
inline std::vector<::ilmap_il_clause> il_body_clauses(const ::ilmap_il_body &body)
{
    return il_body_clauses(nothrow, body).value();
}
inline void il_body_validate(const ::ilmap_il_body &body)
{
    il_body_validate(nothrow, body).value();
}
inline edit_layout edits_build(span<const std::uint32_t> starts, std::uint32_t code_size,
                               span<const ::ilmap_edit> edits)
{
    return edits_build(nothrow, starts, code_size, edits).value();
}
#endif

/* ---------------------------------------------------------------------
 * The rewriter (ilmap-il.h)
 * ------------------------------------------------------------------ */

/** A rewritten method body and its COR_IL_MAP (ilmap_rewrite_create()).
 *  Immutable: any number of threads may read one at once. */
class rewrite {
public:
    rewrite() noexcept = default;
    /** ilmap_rewrite_create(): refusals carry bad_index as index()
     *  (offset, clause or insertion index). */
    static result<rewrite> create(nothrow_t, span<const std::uint8_t> body,
                                  span<const ::ilmap_il_insertion> insertions,
                                  std::uint32_t extra_stack = 0, unsigned flags = 0) noexcept
    {
        ::ilmap_rewrite *out = nullptr;
        std::size_t bad = no_index;
        const status s = ::ilmap_rewrite_create(body.data(), body.size(), insertions.data(),
                                                insertions.size(), extra_stack, flags, &out,
                                                &bad);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_rewrite_create", bad);
        return adopt(out);
    }
    /** ilmap_il_wrap_create(): the method wrapped in Begin/End calls
     *  (doc/il-maps.md#wrap); refusals carry bad_offset as index(). */
    static result<rewrite> wrap(nothrow_t, span<const std::uint8_t> body,
                                const ::ilmap_il_wrap_spec &spec) noexcept
    {
        ::ilmap_rewrite *out = nullptr;
        std::size_t bad = no_index;
        const status s = ::ilmap_il_wrap_create(body.data(), body.size(), &spec, &out, &bad);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_il_wrap_create", bad);
        return adopt(out);
    }
    static rewrite adopt(::ilmap_rewrite *r) noexcept
    {
        rewrite w;
        w.h_.reset(r);
        return w;
    }
    ::ilmap_rewrite *get() const noexcept { return h_.get(); }
    ::ilmap_rewrite *release() noexcept { return h_.release(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    /** The new method body, owned by this object. */
    span<const std::uint8_t> body() const noexcept
    {
        std::size_t n = 0;
        const std::uint8_t *p = ::ilmap_rewrite_get_body(h_.get(), &n);
        return {p, n};
    }
    /** The COR_IL_MAP, owned by this object: one entry per original
     *  instruction. */
    span<const entry> entries() const noexcept
    {
        std::size_t n = 0;
        const entry *p = ::ilmap_rewrite_get_entries(h_.get(), &n);
        return {p, n};
    }
    /** That map, built (ilmap_create()). */
    result<map> to_map(nothrow_t, unsigned flags = 0) const noexcept
    {
        return map::create(nothrow, entries(), flags);
    }
    /** Where the original instruction at old_offset begins now; nullopt
     *  when no original instruction starts there. */
    std::optional<std::uint32_t> old_to_new(std::uint32_t old_offset) const noexcept
    {
        std::uint32_t n = 0;
        if (::ilmap_rewrite_old_to_new(h_.get(), old_offset, &n) != ILMAP_OK)
            return std::nullopt;
        return n;
    }
    result<::ilmap_rewrite_info> info(nothrow_t) const noexcept
    {
        ::ilmap_rewrite_info i{};
        const status s = ::ilmap_rewrite_get_info(h_.get(), &i);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_rewrite_get_info");
        return i;
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    rewrite(span<const std::uint8_t> body, span<const ::ilmap_il_insertion> insertions,
            std::uint32_t extra_stack = 0, unsigned flags = 0)
        : rewrite(create(nothrow, body, insertions, extra_stack, flags).value())
    {
    }
    static rewrite create(span<const std::uint8_t> body,
                          span<const ::ilmap_il_insertion> insertions,
                          std::uint32_t extra_stack = 0, unsigned flags = 0)
    {
        return create(nothrow, body, insertions, extra_stack, flags).value();
    }
    static rewrite wrap(span<const std::uint8_t> body, const ::ilmap_il_wrap_spec &spec)
    {
        return wrap(nothrow, body, spec).value();
    }
    map to_map(unsigned flags = 0) const { return to_map(nothrow, flags).value(); }
    ::ilmap_rewrite_info info() const { return info(nothrow).value(); }
#endif

private:
    detail::unique_handle<::ilmap_rewrite, detail::free_rewrite> h_;
};

/* ---------------------------------------------------------------------
 * Metadata signatures (ilmap-sig.h, doc/signatures.md)
 * ------------------------------------------------------------------ */

/** A decoded signature: move-only, immutable; the getters are const and
 *  any number of threads may call them at once. */
class sig {
public:
    sig() noexcept = default;
    /** ilmap_sig_decode(blob, flags): ILMAP_E_FORMAT / ILMAP_E_LIMIT carry
     *  the defect's description and its byte offset as index(). */
    static result<sig> decode(nothrow_t, span<const std::uint8_t> blob,
                              unsigned flags = 0) noexcept
    {
        ::ilmap_sig *out = nullptr;
        ::ilmap_sig_defect defect = ILMAP_SIG_DEFECT_NONE;
        std::size_t where = no_index;
        const status s =
            ::ilmap_sig_decode(blob.data(), blob.size(), flags, &out, &defect, &where);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_sig_decode", where,
                           defect != ILMAP_SIG_DEFECT_NONE ? ::ilmap_sig_defect_str(defect)
                                                           : nullptr);
        sig g;
        g.h_.reset(out);
        return g;
    }

    ::ilmap_sig *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }
    ::ilmap_sig_kind kind() const noexcept { return ::ilmap_sig_get_kind(h_.get()); }
    std::size_t size() const noexcept { return ::ilmap_sig_get_size(h_.get()); }
    std::uint32_t node_count() const noexcept { return ::ilmap_sig_get_node_count(h_.get()); }

    /** Signature `index`'s header (0: the blob's; a FNPTR node's number). */
    result<::ilmap_sig_info> info(nothrow_t, std::uint32_t index = 0) const noexcept
    {
        ::ilmap_sig_info in{};
        const status s = ::ilmap_sig_get_info(h_.get(), index, &in);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_sig_get_info");
        return in;
    }
    /** Item i (parameter, local, type argument) of signature `index`. */
    result<std::uint32_t> item(nothrow_t, std::uint32_t index, std::uint32_t i) const noexcept
    {
        std::uint32_t n = ILMAP_SIG_NO_NODE;
        const status s = ::ilmap_sig_get_item(h_.get(), index, i, &n);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_sig_get_item");
        return n;
    }
    result<::ilmap_sig_node> node(nothrow_t, std::uint32_t index) const noexcept
    {
        ::ilmap_sig_node n{};
        const status s = ::ilmap_sig_get_node(h_.get(), index, &n);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_sig_get_node");
        return n;
    }
    /** ilmap_sig_encode(): the bytes again. */
    result<std::vector<std::uint8_t>> encode(nothrow_t) const noexcept
    {
        return detail::copy_out<std::vector<std::uint8_t>>(
            "ilmap_sig_encode", [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_sig_encode(h_.get(), cap, total, out);
            });
    }
    /** ilmap_sig_classify(): `this`, the parameters, the return value. */
    result<std::vector<::ilmap_sig_slot>> classify(nothrow_t,
                                                   const ::ilmap_sig_generics *generics = nullptr,
                                                   unsigned flags = 0) const noexcept
    {
        return detail::copy_out<std::vector<::ilmap_sig_slot>>(
            "ilmap_sig_classify",
            [this, generics, flags](std::size_t cap, std::size_t *total, ::ilmap_sig_slot *out) {
                return ::ilmap_sig_classify(h_.get(), generics, flags, cap, total, out);
            });
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    explicit sig(span<const std::uint8_t> blob, unsigned flags = 0)
        : sig(decode(nothrow, blob, flags).value())
    {
    }
    static sig decode(span<const std::uint8_t> blob, unsigned flags = 0)
    {
        return decode(nothrow, blob, flags).value();
    }
    ::ilmap_sig_info info(std::uint32_t index = 0) const { return info(nothrow, index).value(); }
    std::uint32_t item(std::uint32_t index, std::uint32_t i) const
    {
        return item(nothrow, index, i).value();
    }
    ::ilmap_sig_node node(std::uint32_t index) const { return node(nothrow, index).value(); }
    std::vector<std::uint8_t> encode() const { return encode(nothrow).value(); }
    std::vector<::ilmap_sig_slot> classify(const ::ilmap_sig_generics *generics = nullptr,
                                           unsigned flags = 0) const
    {
        return classify(nothrow, generics, flags).value();
    }
#endif

private:
    detail::unique_handle<::ilmap_sig, detail::free_sig> h_;
};

/* ---------------------------------------------------------------------
 * Portable PDBs (ilmap-pdb.h): pdb_lines, pdb_ref, pdb
 * ------------------------------------------------------------------ */

namespace detail {
/* A PDB call's failure: the defect's description and its byte offset. */
inline failure pdb_failure(status s, const char *call, const ::ilmap_pdb_error &err) noexcept
{
    const bool defect = err.defect != ILMAP_PDB_DEFECT_NONE;
    return failure(s, call, defect ? err.offset : no_index,
                   defect ? ::ilmap_pdb_defect_str(err.defect) : nullptr);
}
} // namespace detail

/** One method's source lines decoded once (ilmap_pdb_lines): owns its
 *  points, so it outlives the pdb it came from. Immutable: any number of
 *  threads may query it at once. */
class pdb_lines {
public:
    pdb_lines() noexcept = default;
    /** Adopts a handle from ilmap_pdb_lines_create(). */
    explicit pdb_lines(::ilmap_pdb_lines *adopted) noexcept : h_(adopted) {}

    ::ilmap_pdb_lines *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }
    /** The visible points kept. */
    std::size_t size() const noexcept { return ::ilmap_pdb_lines_get_count(h_.get()); }

    /** ilmap_pdb_lines_find_source(): the point whose line the runtime
     *  shows for il_offset; nullopt when there is none or the blob is
     *  defective there (err, when given, says which and where). */
    std::optional<::ilmap_pdb_sequence_point>
    find_source(std::uint32_t il_offset, ::ilmap_pdb_error *err = nullptr) const noexcept
    {
        ::ilmap_pdb_sequence_point p{};
        if (::ilmap_pdb_lines_find_source(h_.get(), il_offset, &p, err) != ILMAP_OK)
            return std::nullopt;
        return p;
    }

private:
    detail::unique_handle<::ilmap_pdb_lines, detail::free_pdb_lines> h_;
};

/**
 * A non-owning view of a Portable PDB (ilmap_pdb): from a pdb, or from a
 * raw handle (ilmap_store_source::pdb, a handle C code owns). It reads
 * what the handle holds and must not outlive it. Every read operation of
 * a pdb is here (a pdb is a pdb_ref). Any number of threads may read one
 * PDB at once; find_source and the buffer form of document_name allocate
 * nothing and take no locks (usable inside a store snapshot in a signal
 * handler). Failures carry the defect's description and its byte offset
 * as index().
 */
class pdb_ref {
public:
    constexpr pdb_ref() noexcept = default;
    constexpr pdb_ref(const ::ilmap_pdb *p) noexcept : p_(p) {}

    const ::ilmap_pdb *get() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }

    /** ilmap_pdb_get_info(). */
    result<::ilmap_pdb_info> info(nothrow_t) const noexcept
    {
        ::ilmap_pdb_info in{};
        const status s = ::ilmap_pdb_get_info(p_, &in);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_pdb_get_info");
        return in;
    }
    /** A document's full name as stored (ilmap_pdb_get_document_name():
     *  its parts joined by its separator). document: 1..document_count;
     *  ILMAP_E_NOT_FOUND for another row. */
    result<std::string> document_name(nothrow_t, std::uint32_t document) const noexcept
    {
        ::ilmap_pdb_error err{};
        result<std::string> name = detail::copy_out<std::string>(
            "ilmap_pdb_get_document_name",
            [this, document, &err](std::size_t cap, std::size_t *total, char *out) {
                return ::ilmap_pdb_get_document_name(p_, document, cap, total, out, &err);
            });
        if (!name.ok())
            return detail::pdb_failure(name.status(), "ilmap_pdb_get_document_name", err);
        if (!name->empty())
            name->pop_back(); // the NUL
        return name;
    }
    /** The same into the caller's buffer, in one call and without
     *  allocating: a view of buffer (NUL-terminated there; the name is a
     *  PDB's parts joined, so it cannot point into the PDB itself).
     *  ILMAP_E_TRUNCATED when buffer is too small: message() says how many
     *  bytes the name needs with its NUL. */
    result<std::string_view> document_name(nothrow_t, std::uint32_t document,
                                           span<char> buffer) const noexcept
    {
        ::ilmap_pdb_error err{};
        std::size_t total = 0;
        const status s = ::ilmap_pdb_get_document_name(p_, document, buffer.size(), &total,
                                                       buffer.data(), &err);
        if (s == ILMAP_E_TRUNCATED || (s == ILMAP_OK && total > buffer.size()))
            return failure(ILMAP_E_TRUNCATED, "ilmap_pdb_get_document_name", no_index,
                           "the name needs {} bytes, the buffer holds {}", total, buffer.size());
        if (s != ILMAP_OK)
            return detail::pdb_failure(s, "ilmap_pdb_get_document_name", err);
        return std::string_view(buffer.data(), total > 0 ? total - 1 : 0);
    }
    /** Every sequence point of a method, in blob order. */
    result<std::vector<::ilmap_pdb_sequence_point>> sequence_points(
        nothrow_t, std::uint32_t method_token) const noexcept
    {
        ::ilmap_pdb_error err{};
        result<std::vector<::ilmap_pdb_sequence_point>> points =
            detail::copy_out<std::vector<::ilmap_pdb_sequence_point>>(
                "ilmap_pdb_get_sequence_points",
                [this, method_token, &err](std::size_t cap, std::size_t *total,
                                           ::ilmap_pdb_sequence_point *out) {
                    return ::ilmap_pdb_get_sequence_points(p_, method_token, cap, total, out,
                                                           &err);
                });
        if (!points.ok())
            return detail::pdb_failure(points.status(), "ilmap_pdb_get_sequence_points", err);
        return points;
    }
    /** ilmap_pdb_find_source(): nullopt when there is no source, or a
     *  defect in the part of the blob read (err, when given, says which).
     *  Lock-free, allocation-free. */
    std::optional<::ilmap_pdb_sequence_point>
    find_source(std::uint32_t method_token, std::uint32_t il_offset,
                ::ilmap_pdb_error *err = nullptr) const noexcept
    {
        ::ilmap_pdb_sequence_point p{};
        if (::ilmap_pdb_find_source(p_, method_token, il_offset, &p, err) != ILMAP_OK)
            return std::nullopt;
        return p;
    }
    /** ilmap_pdb_lines_create(): the method decoded once; the lines
     *  outlive the PDB. */
    result<pdb_lines> lines(nothrow_t, std::uint32_t method_token) const noexcept
    {
        ::ilmap_pdb_lines *l = nullptr;
        const status s = ::ilmap_pdb_lines_create(p_, method_token, &l);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_pdb_lines_create");
        return pdb_lines(l);
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    ::ilmap_pdb_info info() const { return info(nothrow).value(); }
    std::string document_name(std::uint32_t document) const
    {
        return document_name(nothrow, document).value();
    }
    std::string_view document_name(std::uint32_t document, span<char> buffer) const
    {
        return document_name(nothrow, document, buffer).value();
    }
    std::vector<::ilmap_pdb_sequence_point> sequence_points(std::uint32_t method_token) const
    {
        return sequence_points(nothrow, method_token).value();
    }
    pdb_lines lines(std::uint32_t method_token) const
    {
        return lines(nothrow, method_token).value();
    }
#endif

protected:
    const ::ilmap_pdb *p_ = nullptr;
};

/**
 * What pdb::release() hands over, in the terms of
 * ilmap_store_attach_pdb(): the handle, and how to free the bytes it
 * points into when the pdb owned them. Whoever holds it frees, in this
 * order: ilmap_pdb_free(pdb), then release(context) when release is not
 * null (it is null when the handle owns its bytes, for_assembly(), or the
 * bytes are the caller's, open(span)). Or it passes all three to
 * ilmap_store_attach_pdb(), which does both once no read can see the
 * PDB, or gives them back with pdb::adopt().
 */
struct released_pdb {
    ::ilmap_pdb *pdb;
    ::ilmap_release_fn release;
    void *context;
};

namespace detail {
inline void free_pdb_bytes(void *bytes) { delete static_cast<std::vector<std::uint8_t> *>(bytes); }
} // namespace detail

/**
 * A Portable PDB (ilmap_pdb), owned: over the caller's bytes (zero-copy:
 * they must outlive the object), over bytes it owns (a moved-in vector,
 * kept on the heap where it was), or an assembly's PDB found as the
 * runtime finds it (for_assembly(): the handle owns the bytes). The
 * destructor frees the handle, then the bytes. Move-only; the reads are
 * pdb_ref's (immutable: any number of threads at once).
 */
class pdb : public pdb_ref {
public:
    pdb() noexcept = default;
    pdb(pdb &&o) noexcept : pdb_ref(o.p_), release_(o.release_), context_(o.context_)
    {
        o.p_ = nullptr;
        o.release_ = nullptr;
        o.context_ = nullptr;
    }
    pdb &operator=(pdb &&o) noexcept
    {
        if (this != &o) {
            reset();
            const released_pdb parts = o.release();
            p_ = parts.pdb;
            release_ = parts.release;
            context_ = parts.context;
        }
        return *this;
    }
    pdb(const pdb &) = delete;
    pdb &operator=(const pdb &) = delete;
    ~pdb() { reset(); }

    /** ilmap_pdb_open() over data, which must stay alive and unchanged
     *  while the handle lives. */
    static result<pdb> open(nothrow_t, span<const std::uint8_t> data) noexcept
    {
        ::ilmap_pdb *out = nullptr;
        ::ilmap_pdb_error err{};
        const status s = ::ilmap_pdb_open(data.data(), data.size(), &out, &err);
        if (s != ILMAP_OK)
            return detail::pdb_failure(s, "ilmap_pdb_open", err);
        return adopt(out);
    }
    /** ilmap_pdb_open() over bytes the object takes (moved to the heap,
     *  the buffer where it is). bytes is consumed only on success: on a
     *  failure the caller's vector still holds them. */
    static result<pdb> open(nothrow_t, std::vector<std::uint8_t> &&bytes) noexcept
    {
        ::ilmap_pdb *out = nullptr;
        ::ilmap_pdb_error err{};
        const status s = ::ilmap_pdb_open(bytes.data(), bytes.size(), &out, &err);
        if (s != ILMAP_OK)
            return detail::pdb_failure(s, "ilmap_pdb_open", err);
        auto *owned = new (std::nothrow) std::vector<std::uint8_t>(std::move(bytes));
        if (!owned) {
            ::ilmap_pdb_free(out);
            return failure(ILMAP_E_NOMEM, "ilmap_pdb_open");
        }
        return adopt(out, &detail::free_pdb_bytes, owned);
    }
    /** An assembly's PDB, found and opened as ilmap_pdb_open_for_assembly()
     *  does (the CodeView path, its name beside the assembly, the embedded
     *  PDB, NAME.pdb beside it; ids checked); the handle owns the bytes.
     *  pe: the assembly's bytes when the caller has them (read during the
     *  call only), else empty and the file at path is read. origin, when
     *  given, says where it was found. Fails with ILMAP_E_NOT_FOUND when
     *  there is none, ILMAP_E_FORMAT when the one there is malformed or not
     *  the assembly's own, ILMAP_E_IO when path cannot be read (pe empty),
     *  ILMAP_E_UNSUPPORTED for an embedded PDB without zlib. */
    static result<pdb> for_assembly(nothrow_t, const char *path,
                                    span<const std::uint8_t> pe = {},
                                    ::ilmap_pdb_origin *origin = nullptr) noexcept
    {
        ::ilmap_pdb *out = nullptr;
        ::ilmap_pdb_error err{};
        const status s =
            ::ilmap_pdb_open_for_assembly(path, pe.data(), pe.size(), &out, origin, &err);
        if (s != ILMAP_OK)
            return detail::pdb_failure(s, "ilmap_pdb_open_for_assembly", err);
        return adopt(out);
    }

    /** Takes a handle and, when release is not null, the bytes it points
     *  into: the destructor calls ilmap_pdb_free(handle), then
     *  release(context). */
    static pdb adopt(::ilmap_pdb *handle, ::ilmap_release_fn release = nullptr,
                     void *context = nullptr) noexcept
    {
        pdb p;
        p.p_ = handle;
        p.release_ = release;
        p.context_ = context;
        return p;
    }
    /** Takes back what release() gave. */
    static pdb adopt(const released_pdb &parts) noexcept
    {
        return adopt(parts.pdb, parts.release, parts.context);
    }
    /** Gives up the handle and the bytes the object owned (see
     *  released_pdb for who frees what); the object is empty after. */
    [[nodiscard]] released_pdb release() noexcept
    {
        const released_pdb parts{get(), release_, context_};
        p_ = nullptr;
        release_ = nullptr;
        context_ = nullptr;
        return parts;
    }
    /** Frees the handle, then the bytes; the object is empty after. */
    void reset() noexcept
    {
        const released_pdb parts = release();
        ::ilmap_pdb_free(parts.pdb);
        if (parts.release)
            parts.release(parts.context);
    }
    ::ilmap_pdb *get() const noexcept { return const_cast<::ilmap_pdb *>(p_); }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    explicit pdb(span<const std::uint8_t> data) : pdb(open(nothrow, data).value()) {}
    explicit pdb(std::vector<std::uint8_t> &&bytes) : pdb(open(nothrow, std::move(bytes)).value())
    {
    }
    static pdb open(span<const std::uint8_t> data) { return open(nothrow, data).value(); }
    static pdb open(std::vector<std::uint8_t> &&bytes)
    {
        return open(nothrow, std::move(bytes)).value();
    }
    static pdb for_assembly(const char *path, span<const std::uint8_t> pe = {},
                            ::ilmap_pdb_origin *origin = nullptr)
    {
        return for_assembly(nothrow, path, pe, origin).value();
    }
#endif

private:
    ::ilmap_release_fn release_ = nullptr;
    void *context_ = nullptr;
};

/** ilmap_pdb_check_map(): the indexes in points of the visible sequence
 *  points whose IL offset has no entry of its own in the map. Any thread. */
inline result<std::vector<std::size_t>> check_map(nothrow_t,
                                                  span<const ::ilmap_pdb_sequence_point> points,
                                                  span<const entry> entries) noexcept
{
    return detail::copy_out<std::vector<std::size_t>>(
        "ilmap_pdb_check_map", [&](std::size_t cap, std::size_t *total, std::size_t *out) {
            return ::ilmap_pdb_check_map(points.data(), points.size(), entries.data(),
                                         entries.size(), cap, total, out);
        });
}

#if ILMAP_CPP_EXCEPTIONS
inline std::vector<std::size_t> check_map(span<const ::ilmap_pdb_sequence_point> points,
                                          span<const entry> entries)
{
    return check_map(nothrow, points, entries).value();
}
#endif

/* ---------------------------------------------------------------------
 * The version store (ilmap-versions.h): snapshot, reader, store
 * ------------------------------------------------------------------ */

namespace detail {

/* The store's C handle, shared by the store object and its readers: the
 * last of them to go frees it (ilmap_store_free()). One atomic count,
 * touched when a reader is registered or destroyed, never by a read. */
class store_owner {
public:
    store_owner() noexcept = default;
    /* Takes s; when the count cannot be allocated, frees s and holds
     * nothing (get() == nullptr). */
    explicit store_owner(::ilmap_store *s) noexcept : b_(s ? new (std::nothrow) block(s) : nullptr)
    {
        if (s && !b_)
            ::ilmap_store_free(s);
    }
    store_owner(const store_owner &o) noexcept : b_(o.b_)
    {
        if (b_)
            b_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    store_owner(store_owner &&o) noexcept : b_(o.b_) { o.b_ = nullptr; }
    store_owner &operator=(store_owner o) noexcept
    {
        std::swap(b_, o.b_);
        return *this;
    }
    ~store_owner()
    {
        if (b_ && b_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            ::ilmap_store_free(b_->store);
            delete b_;
        }
    }
    ::ilmap_store *get() const noexcept { return b_ ? b_->store : nullptr; }

private:
    struct block {
        explicit block(::ilmap_store *s) noexcept : refs(1), store(s) {}
        std::atomic<std::size_t> refs;
        ::ilmap_store *store;
    };
    block *b_ = nullptr;
};

} // namespace detail

/** What snapshot::lookup_source() and reader::lookup_source() answer
 *  (ilmap_store_snapshot_lookup_source()): the status with the location
 *  and the source as the C call leaves them. pdb_ref(source.pdb) reads
 *  the PDB (document_name) while it is valid: inside the snapshot. */
struct source_answer {
    ::ilmap_status status;
    ::ilmap_store_location location;
    ::ilmap_store_source source;
};

/**
 * A read of the store: ilmap_store_reader_begin() in the constructor,
 * ilmap_store_reader_end() in the destructor. Every query is noexcept,
 * lock-free and allocation-free (async-signal-safe), except the two list
 * calls that return vectors. Maps and PDBs it hands out are valid until it
 * ends. If the read could not begin, get() is nullptr and queries find
 * nothing. A scope guard on its reader's thread: it must end (be
 * destroyed) before its reader is.
 */
class snapshot {
public:
    using source_answer = ilmap_cpp::source_answer;

    explicit snapshot(::ilmap_store_reader *reader) noexcept : reader_(reader)
    {
        if (::ilmap_store_reader_begin(reader_, &s_) != ILMAP_OK) {
            reader_ = nullptr;
            s_ = nullptr;
        }
    }
    snapshot(snapshot &&o) noexcept : reader_(o.reader_), s_(o.s_)
    {
        o.reader_ = nullptr;
        o.s_ = nullptr;
    }
    snapshot &operator=(snapshot &&) = delete;
    snapshot(const snapshot &) = delete;
    snapshot &operator=(const snapshot &) = delete;
    ~snapshot()
    {
        if (reader_)
            (void)::ilmap_store_reader_end(reader_);
    }

    const ::ilmap_store_snapshot *get() const noexcept { return s_; }
    explicit operator bool() const noexcept { return s_ != nullptr; }

    /** Where an instruction pointer is; nullopt when no body holds it. */
    std::optional<::ilmap_store_location> lookup(std::uintptr_t address) const noexcept
    {
        ::ilmap_store_location loc{};
        if (::ilmap_store_snapshot_lookup(s_, address, &loc) != ILMAP_OK)
            return std::nullopt;
        return loc;
    }
    /** The whole journey (ilmap_store_snapshot_lookup_source(),
     *  doc/source-lines.md#store); source.pdb is valid while this
     *  snapshot lives. flags: 0 or ILMAP_STORE_RETURN_ADDRESS. */
    source_answer lookup_source(std::uintptr_t address, unsigned flags = 0) const noexcept
    {
        source_answer a{};
        a.status = ::ilmap_store_snapshot_lookup_source(s_, address, flags, &a.location, &a.source);
        return a;
    }
    /** A version's IL map: nullopt for an unknown function or version; an
     *  empty map_ref when it has none (the identity). */
    std::optional<map_ref> il_map(function_id fid, rejit_id rejit) const noexcept
    {
        const ::ilmap *m = nullptr;
        if (::ilmap_store_snapshot_get_il_map(s_, fid, rejit, &m) != ILMAP_OK)
            return std::nullopt;
        return map_ref(m);
    }
    /** The IL-level map of (module, method_def); empty when none. */
    map_ref method_map(module_id module, std::uint32_t method_def) const noexcept
    {
        const ::ilmap *m = nullptr;
        (void)::ilmap_store_snapshot_get_method_map(s_, module, method_def, &m);
        return map_ref(m);
    }
    std::optional<::ilmap_store_function_info> function(function_id fid) const noexcept
    {
        ::ilmap_store_function_info info{};
        if (::ilmap_store_snapshot_get_function(s_, fid, &info) != ILMAP_OK)
            return std::nullopt;
        return info;
    }
    std::optional<::ilmap_store_body_info> body(std::uintptr_t address) const noexcept
    {
        ::ilmap_store_body_info info{};
        if (::ilmap_store_snapshot_get_body(s_, address, &info) != ILMAP_OK)
            return std::nullopt;
        return info;
    }
    std::uint64_t generation() const noexcept { return ::ilmap_store_snapshot_get_generation(s_); }
    /** A function's ReJITIDs, ascending (ILMAP_E_NOT_FOUND for an unknown
     *  function). Allocates: not for a signal handler. */
    result<std::vector<rejit_id>> versions(nothrow_t, function_id fid) const noexcept
    {
        return detail::copy_out<std::vector<rejit_id>>(
            "ilmap_store_snapshot_list_versions",
            [this, fid](std::size_t cap, std::size_t *total, rejit_id *out) {
                return ::ilmap_store_snapshot_list_versions(s_, fid, cap, total, out);
            });
    }
    /** A version's native bodies' code starts, ascending. Allocates. */
    result<std::vector<std::uintptr_t>> bodies(nothrow_t, function_id fid,
                                               rejit_id rejit) const noexcept
    {
        return detail::copy_out<std::vector<std::uintptr_t>>(
            "ilmap_store_snapshot_list_bodies",
            [this, fid, rejit](std::size_t cap, std::size_t *total, std::uintptr_t *out) {
                return ::ilmap_store_snapshot_list_bodies(s_, fid, rejit, cap, total, out);
            });
    }
    /** The exported native map of the body holding address
     *  (ilmap_store_snapshot_get_native_entries(); any store, compact
     *  ones included). Allocates. */
    result<std::vector<native_entry>> native_entries(nothrow_t,
                                                     std::uintptr_t address) const noexcept
    {
        return detail::copy_out<std::vector<native_entry>>(
            "ilmap_store_snapshot_get_native_entries",
            [this, address](std::size_t cap, std::size_t *total, native_entry *out) {
                return ::ilmap_store_snapshot_get_native_entries(s_, address, cap, total, out);
            });
    }
    /** A version's IL map entries (ilmap_store_snapshot_get_il_entries();
     *  any store, compact ones included). Allocates. */
    result<std::vector<entry>> il_entries(nothrow_t, function_id fid,
                                          rejit_id rejit) const noexcept
    {
        return detail::copy_out<std::vector<entry>>(
            "ilmap_store_snapshot_get_il_entries",
            [this, fid, rejit](std::size_t cap, std::size_t *total, entry *out) {
                return ::ilmap_store_snapshot_get_il_entries(s_, fid, rejit, cap, total, out);
            });
    }
    /** The IL-level map entries of (module, method_def)
     *  (ilmap_store_snapshot_get_method_entries()). Allocates. */
    result<std::vector<entry>> method_entries(nothrow_t, module_id module,
                                              std::uint32_t method_def) const noexcept
    {
        return detail::copy_out<std::vector<entry>>(
            "ilmap_store_snapshot_get_method_entries",
            [this, module, method_def](std::size_t cap, std::size_t *total, entry *out) {
                return ::ilmap_store_snapshot_get_method_entries(s_, module, method_def, cap,
                                                                 total, out);
            });
    }
    /** The entries of the IL map the body holding address captured
     *  (ilmap_store_snapshot_get_body_il_entries()). Allocates. */
    result<std::vector<entry>> body_il_entries(nothrow_t, std::uintptr_t address) const noexcept
    {
        return detail::copy_out<std::vector<entry>>(
            "ilmap_store_snapshot_get_body_il_entries",
            [this, address](std::size_t cap, std::size_t *total, entry *out) {
                return ::ilmap_store_snapshot_get_body_il_entries(s_, address, cap, total, out);
            });
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    std::vector<rejit_id> versions(function_id fid) const { return versions(nothrow, fid).value(); }
    std::vector<std::uintptr_t> bodies(function_id fid, rejit_id rejit) const
    {
        return bodies(nothrow, fid, rejit).value();
    }
    std::vector<native_entry> native_entries(std::uintptr_t address) const
    {
        return native_entries(nothrow, address).value();
    }
    std::vector<entry> il_entries(function_id fid, rejit_id rejit) const
    {
        return il_entries(nothrow, fid, rejit).value();
    }
    std::vector<entry> method_entries(module_id module, std::uint32_t method_def) const
    {
        return method_entries(nothrow, module, method_def).value();
    }
    std::vector<entry> body_il_entries(std::uintptr_t address) const
    {
        return body_il_entries(nothrow, address).value();
    }
#endif

private:
    ::ilmap_store_reader *reader_;
    const ::ilmap_store_snapshot *s_ = nullptr;
};

class store;

/**
 * A reader slot (ilmap_store_reader_register(), from
 * store::register_reader()), unregistered by the destructor. One thread at
 * a time uses it (a signal handler on that thread too: reads nest); keep
 * one per sampling thread, e.g. thread_local.
 *
 * Lifetime: a reader shares the store's state with the store object, so it
 * cannot outlive it: the state (maps, bodies, attached PDBs and their
 * bytes) is freed by whichever goes last, the store object or one of its
 * readers. A reader destroyed after the store object still answers from
 * the last published state, then frees it; nothing dangles whatever the
 * order (thread_local readers destroyed at thread exit, a store destroyed
 * at unload). Only registering and destroying a reader touch the shared
 * count, never a read. Its snapshots must end before it is destroyed.
 */
class reader {
public:
    reader() noexcept = default;
    reader(reader &&o) noexcept = default;
    /** The old slot is unregistered before the old store share goes. */
    reader &operator=(reader &&o) noexcept
    {
        if (this != &o) {
            h_.reset();
            store_ = std::move(o.store_);
            h_ = std::move(o.h_);
        }
        return *this;
    }
    reader(const reader &) = delete;
    reader &operator=(const reader &) = delete;
    /** Unregisters the slot, then gives up its share of the store. */
    ~reader() = default;

    ::ilmap_store_reader *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    /** Begins a read; it ends when the snapshot is destroyed. */
    snapshot begin() const noexcept { return snapshot(h_.get()); }
    /** ilmap_store_lookup(): begin, look up, end. */
    std::optional<::ilmap_store_location> lookup(std::uintptr_t address) const noexcept
    {
        ::ilmap_store_location loc{};
        if (::ilmap_store_lookup(h_.get(), address, &loc) != ILMAP_OK)
            return std::nullopt;
        return loc;
    }
    /** ilmap_store_lookup_source(): begin, the whole journey, end. The
     *  read has ended on return: source.point holds values, but
     *  source.pdb may be read only inside a snapshot of this reader that
     *  is still alive around the call (reads nest), or while the caller
     *  knows the module keeps its PDB. Async-signal-safe. */
    source_answer lookup_source(std::uintptr_t address, unsigned flags = 0) const noexcept
    {
        source_answer a{};
        a.status = ::ilmap_store_lookup_source(h_.get(), address, flags, &a.location, &a.source);
        return a;
    }

private:
    friend class store;
    reader(detail::store_owner owner, ::ilmap_store_reader *slot) noexcept
        : store_(std::move(owner)), h_(slot)
    {
    }

    /* Declared first, destroyed last: the slot lives in the store. */
    detail::store_owner store_;
    detail::unique_handle<::ilmap_store_reader, detail::free_reader> h_;
};

/**
 * The version store (ilmap_store). Writers (every non-const call) may be
 * called from any threads: they serialize on the store's mutex, allocate,
 * and are not async-signal-safe. Reads go through readers (one per reading
 * thread), which share the store's state (see reader). A writer that takes
 * a map, native map or pdb takes it by rvalue reference and consumes it
 * only on success: on a failure the caller's object still owns it.
 * Move-only.
 */
class store {
public:
    /** ilmap_store_create(): max_readers 0 = ILMAP_STORE_DEFAULT_READERS;
     *  flags 0 or ILMAP_STORE_WRITER_FENCE. */
    static result<store> create(nothrow_t, std::uint32_t max_readers = 0,
                                unsigned flags = 0) noexcept
    {
        ::ilmap_store *s = nullptr;
        const status st = ::ilmap_store_create(max_readers, flags, &s);
        if (st != ILMAP_OK)
            return failure(st, "ilmap_store_create");
        detail::store_owner owner(s);
        if (!owner.get())
            return failure(ILMAP_E_NOMEM, "ilmap_store_create");
        return store(std::move(owner));
    }
    store(store &&) noexcept = default;
    store &operator=(store &&) noexcept = default;
    store(const store &) = delete;
    store &operator=(const store &) = delete;
    /** Gives up the object's share: the state is freed now, or by the
     *  last of its readers. */
    ~store() = default;

    ::ilmap_store *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    /** ilmap_store_reader_register(): a reader slot sharing this store;
     *  ILMAP_E_FULL when every slot is taken. Any thread; lock-free. */
    result<reader> register_reader(nothrow_t) const noexcept
    {
        ::ilmap_store_reader *r = nullptr;
        const status s = ::ilmap_store_reader_register(h_.get(), &r);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_reader_register");
        return reader(h_, r);
    }

    /* Writers. */
    /** SetILInstrumentedCodeMap: the IL-level map of (module, method_def). */
    result<void> set_il_map(nothrow_t, module_id module, std::uint32_t method_def,
                            map &&m) noexcept
    {
        const status s = ::ilmap_store_set_il_map(h_.get(), module, method_def, m.get());
        if (s == ILMAP_OK)
            (void)m.release();
        return detail::check(s, "ilmap_store_set_il_map");
    }
    result<void> clear_il_map(nothrow_t, module_id module, std::uint32_t method_def) noexcept
    {
        return detail::check(::ilmap_store_set_il_map(h_.get(), module, method_def, nullptr),
                             "ilmap_store_set_il_map");
    }
    result<void> set_il_map_for_function(nothrow_t, function_id fid, map &&m) noexcept
    {
        const status s = ::ilmap_store_set_il_map_for_function(h_.get(), fid, m.get());
        if (s == ILMAP_OK)
            (void)m.release();
        return detail::check(s, "ilmap_store_set_il_map_for_function");
    }
    result<void> add_function(nothrow_t, function_id fid, module_id module,
                              std::uint32_t method_def) noexcept
    {
        return detail::check(::ilmap_store_add_function(h_.get(), fid, module, method_def),
                             "ilmap_store_add_function");
    }
    /** flags: 0 or ILMAP_VERSION_CURRENT; an empty map: no map. */
    result<void> add_version(nothrow_t, function_id fid, rejit_id rejit, map &&m,
                             unsigned flags = 0) noexcept
    {
        const status s = ::ilmap_store_add_version(h_.get(), fid, rejit, m.get(), flags);
        if (s == ILMAP_OK)
            (void)m.release();
        return detail::check(s, "ilmap_store_add_version");
    }
    result<void> set_current(nothrow_t, function_id fid, rejit_id rejit) noexcept
    {
        return detail::check(::ilmap_store_set_current(h_.get(), fid, rejit),
                             "ilmap_store_set_current");
    }
    /** RequestRevert; answers how many instances changed. */
    result<std::size_t> revert(nothrow_t, module_id module, std::uint32_t method_def) noexcept
    {
        std::size_t n = 0;
        const status s = ::ilmap_store_revert(h_.get(), module, method_def, &n);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_revert");
        return n;
    }
    /** flags: 0 or ILMAP_BODY_ORIGINAL_IL; an empty native map: none.
     *  ILMAP_E_CODE_SIZE says both sizes (the map's, the ranges' total). */
    result<void> add_body(nothrow_t, function_id fid, rejit_id rejit,
                          span<const ::ilmap_code_range> ranges, native_map &&m,
                          unsigned flags = 0) noexcept
    {
        const status s = ::ilmap_store_add_body(h_.get(), fid, rejit, ranges.data(),
                                                ranges.size(), m.get(), flags);
        if (s == ILMAP_E_CODE_SIZE) {
            // Both sizes in the message: which one is wrong is the caller's call.
            std::uint64_t total = 0;
            for (const ::ilmap_code_range &r : ranges)
                total += r.size;
            return failure(s, "ilmap_store_add_body", no_index,
                           "the native map's code size is {} bytes, the ranges hold {}",
                           m.code_size(), total);
        }
        if (s == ILMAP_OK)
            (void)m.release();
        return detail::check(s, "ilmap_store_add_body");
    }
    result<void> remove_body(nothrow_t, std::uintptr_t code_start) noexcept
    {
        return detail::check(::ilmap_store_remove_body(h_.get(), code_start),
                             "ilmap_store_remove_body");
    }
    /** ModuleUnloadStarted: everything of the module, its PDB included
     *  (ilmap_store_remove_module()); answers what was removed. */
    result<::ilmap_store_removed> remove_module(nothrow_t, module_id module) noexcept
    {
        ::ilmap_store_removed removed{};
        const status s = ::ilmap_store_remove_module(h_.get(), module, &removed);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_remove_module");
        return removed;
    }
    /** One ReJIT version and its bodies (ilmap_store_remove_version()). */
    result<::ilmap_store_removed> remove_version(nothrow_t, function_id fid,
                                                 rejit_id rejit) noexcept
    {
        ::ilmap_store_removed removed{};
        const status s = ::ilmap_store_remove_version(h_.get(), fid, rejit, &removed);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_remove_version");
        return removed;
    }
    /** ilmap_store_attach_pdb() (ModuleLoadFinished): the store takes the
     *  PDB, the handle and the bytes the object owns (pdb::open(vector),
     *  pdb::for_assembly()), through p.release(), and frees them once no
     *  read can see them; p is empty after. A pdb over the caller's span
     *  hands over the handle only: those bytes must stay alive until the
     *  module is removed or its PDB replaced and the store has reclaimed
     *  it, or the store's state is freed (the store object and all its
     *  readers gone). An empty p is ILMAP_E_INVALID_ARG (detach_pdb()
     *  detaches). On failure p is unchanged. Defined after class pdb. */
    inline result<void> attach_pdb(nothrow_t, module_id module, pdb &&p) noexcept;
    /** Detaches the module's PDB (freed once no read can see it). */
    result<void> detach_pdb(nothrow_t, module_id module) noexcept
    {
        return detail::check(
            ::ilmap_store_attach_pdb(h_.get(), module, nullptr, nullptr, nullptr),
            "ilmap_store_attach_pdb");
    }
    /** Frees what no read can see; answers how many objects still wait. */
    result<std::size_t> reclaim(nothrow_t) noexcept
    {
        std::size_t pending = 0;
        const status s = ::ilmap_store_reclaim(h_.get(), &pending);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_reclaim");
        return pending;
    }
    /** The counters, under the writers' mutex. */
    result<::ilmap_store_stats> stats(nothrow_t) const noexcept
    {
        ::ilmap_store_stats st{};
        const status s = ::ilmap_store_get_stats(h_.get(), &st);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_store_get_stats");
        return st;
    }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    explicit store(std::uint32_t max_readers = 0, unsigned flags = 0)
        : store(create(nothrow, max_readers, flags).value())
    {
    }
    static store create(std::uint32_t max_readers = 0, unsigned flags = 0)
    {
        return create(nothrow, max_readers, flags).value();
    }
    reader register_reader() const { return register_reader(nothrow).value(); }
    void set_il_map(module_id module, std::uint32_t method_def, map &&m)
    {
        set_il_map(nothrow, module, method_def, std::move(m)).value();
    }
    void clear_il_map(module_id module, std::uint32_t method_def)
    {
        clear_il_map(nothrow, module, method_def).value();
    }
    void set_il_map_for_function(function_id fid, map &&m)
    {
        set_il_map_for_function(nothrow, fid, std::move(m)).value();
    }
    void add_function(function_id fid, module_id module, std::uint32_t method_def)
    {
        add_function(nothrow, fid, module, method_def).value();
    }
    void add_version(function_id fid, rejit_id rejit, map &&m, unsigned flags = 0)
    {
        add_version(nothrow, fid, rejit, std::move(m), flags).value();
    }
    void set_current(function_id fid, rejit_id rejit) { set_current(nothrow, fid, rejit).value(); }
    std::size_t revert(module_id module, std::uint32_t method_def)
    {
        return revert(nothrow, module, method_def).value();
    }
    void add_body(function_id fid, rejit_id rejit, span<const ::ilmap_code_range> ranges,
                  native_map &&m, unsigned flags = 0)
    {
        add_body(nothrow, fid, rejit, ranges, std::move(m), flags).value();
    }
    void remove_body(std::uintptr_t code_start) { remove_body(nothrow, code_start).value(); }
    ::ilmap_store_removed remove_module(module_id module)
    {
        return remove_module(nothrow, module).value();
    }
    ::ilmap_store_removed remove_version(function_id fid, rejit_id rejit)
    {
        return remove_version(nothrow, fid, rejit).value();
    }
    inline void attach_pdb(module_id module, pdb &&p);
    void detach_pdb(module_id module) { detach_pdb(nothrow, module).value(); }
    std::size_t reclaim() { return reclaim(nothrow).value(); }
    ::ilmap_store_stats stats() const { return stats(nothrow).value(); }
#endif

private:
    explicit store(detail::store_owner owner) noexcept : h_(std::move(owner)) {}

    detail::store_owner h_;
};

inline result<void> store::attach_pdb(nothrow_t, module_id module, pdb &&p) noexcept
{
    if (!p)
        return failure(ILMAP_E_INVALID_ARG, "ilmap_store_attach_pdb");
    const released_pdb parts = p.release();
    const status s =
        ::ilmap_store_attach_pdb(h_.get(), module, parts.pdb, parts.release, parts.context);
    if (s != ILMAP_OK) {
        p = pdb::adopt(parts); // unchanged
        return failure(s, "ilmap_store_attach_pdb");
    }
    return {};
}

#if ILMAP_CPP_EXCEPTIONS
inline void store::attach_pdb(module_id module, pdb &&p)
{
    attach_pdb(nothrow, module, std::move(p)).value();
}
#endif

/* ---------------------------------------------------------------------
 * The FunctionIDMapper (ilmap-versions.h)
 * ------------------------------------------------------------------ */

/** A FunctionID's mapping: client_id (0 when not hooked) and hook. */
struct fid_mapping {
    std::uintptr_t client_id;
    bool hook;
};

/** A FunctionIDMapper (ilmap_fid_mapper_create()). Pass
 *  ilmap_fid_mapper_callback2 with client data get() to
 *  SetFunctionIDMapper2. Free it at shutdown only. Lock-free: any number
 *  of threads may map and look up at once. */
class fid_mapper {
public:
    fid_mapper() noexcept = default;
    static result<fid_mapper> create(nothrow_t, std::size_t max_functions,
                                     ::ilmap_fid_filter_fn filter = nullptr,
                                     void *context = nullptr) noexcept
    {
        ::ilmap_fid_mapper *m = nullptr;
        const status s = ::ilmap_fid_mapper_create(max_functions, filter, context, &m);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_fid_mapper_create");
        fid_mapper f;
        f.h_.reset(m);
        return f;
    }
    ::ilmap_fid_mapper *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    /** Maps a FunctionID (deciding on first sight); nullopt when refused
     *  (ILMAP_E_FULL, or function id 0). Lock-free, allocation-free. */
    std::optional<fid_mapping> map_function(function_id fid) noexcept
    {
        std::uintptr_t client = 0;
        int hook = 0;
        if (::ilmap_fid_mapper_map(h_.get(), fid, &client, &hook) != ILMAP_OK)
            return std::nullopt;
        return fid_mapping{client, hook != 0};
    }
    /** The mapping of a FunctionID already mapped; nullopt when not. */
    std::optional<fid_mapping> lookup(function_id fid) const noexcept
    {
        std::uintptr_t client = 0;
        int hook = 0;
        if (::ilmap_fid_mapper_lookup(h_.get(), fid, &client, &hook) != ILMAP_OK)
            return std::nullopt;
        return fid_mapping{client, hook != 0};
    }
    /** The FunctionID of a client ID; nullopt when none was handed out. */
    std::optional<function_id> function(std::uintptr_t client_id) const noexcept
    {
        function_id fid = 0;
        if (::ilmap_fid_mapper_get_function(h_.get(), client_id, &fid) != ILMAP_OK)
            return std::nullopt;
        return fid;
    }
    result<::ilmap_fid_mapper_stats> stats(nothrow_t) const noexcept
    {
        ::ilmap_fid_mapper_stats st{};
        const status s = ::ilmap_fid_mapper_get_stats(h_.get(), &st);
        if (s != ILMAP_OK)
            return failure(s, "ilmap_fid_mapper_get_stats");
        return st;
    }
    /** Installs this mapper as the global one (ilmap_fid_mapper_callback). */
    void set_global() const noexcept { (void)::ilmap_fid_mapper_set_global(h_.get()); }

#if ILMAP_CPP_EXCEPTIONS
    /* The throwing forms. */
    explicit fid_mapper(std::size_t max_functions, ::ilmap_fid_filter_fn filter = nullptr,
                        void *context = nullptr)
        : fid_mapper(create(nothrow, max_functions, filter, context).value())
    {
    }
    static fid_mapper create(std::size_t max_functions, ::ilmap_fid_filter_fn filter = nullptr,
                             void *context = nullptr)
    {
        return create(nothrow, max_functions, filter, context).value();
    }
    ::ilmap_fid_mapper_stats stats() const { return stats(nothrow).value(); }
#endif

private:
    detail::unique_handle<::ilmap_fid_mapper, detail::free_fid_mapper> h_;
};

} // namespace ilmap_cpp

#undef ILMAP_CPP_DETAIL_EH

#endif /* C++17 */
#endif /* ILMAP_HPP */
