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
 * Namespace. The wrapper lives in namespace `ilmap_cpp`, not `ilmap`: the
 * C header declares `typedef struct ilmap ilmap;` at global scope, and C++
 * forbids a namespace and a class of the same name in one scope. Add
 * `namespace ilm = ilmap_cpp;` for a shorter name. The C declarations stay
 * usable side by side (::ilmap, ::ilmap_entry, ILMAP_* macros).
 *
 * Error handling: EXCEPTIONS, for the calls that create objects or copy
 * data out. A failing C call throws ilmap_cpp::error (derived from
 * std::runtime_error) carrying the ilmap_status (code()),
 * ilmap_status_str() (status_str()) and, where the library reports one,
 * the offending index (index()); std::bad_alloc can come from the
 * std::vector results. The rule follows the C API's split:
 *  - construction, building, composing, serializing and every copy-out
 *    call (the two-call buffer protocol, returned as std::vector) may
 *    throw and may allocate;
 *  - lookups (old_to_new, new_to_old, new_to_old_dac, their batch forms,
 *    native_to_il, il_to_native, find_call_site, the version store's
 *    reads, the FunctionIDMapper's lookups, a PDB's find_source) are
 *    const and noexcept and
 *    neither allocate nor throw, exactly like the C functions they call
 *    (async-signal-safe where those are). A lookup that can find nothing
 *    returns std::optional (no allocation).
 *
 * Objects. Each class owns one opaque handle and frees it in its
 * destructor: move-only, never copied. A default-constructed or moved-from
 * object holds no handle (get() == nullptr, operator bool false); the
 * lookups then answer as the C API does for NULL (an empty IL map is the
 * identity; an empty native map answers NO_INFO). adopt(), release() and
 * get() pass handles to and from C code. map_ref and native_map_ref are the
 * non-owning views (what a version-store snapshot hands out); map and
 * native_map derive from them, so a map is usable wherever a map_ref is.
 *
 * Arrays go in as ilmap_cpp::span<const T> (C++17 has no std::span): from a
 * C array, std::vector, std::array, std::span, a braced list, or
 * (pointer, size). The items are read during the call only.
 *
 * Thread safety is the C API's: built maps are immutable and any number of
 * threads may query one at once.
 */
#ifndef ILMAP_HPP
#define ILMAP_HPP

/* Checked first, and the rest skipped when it fails, so that an older
 * standard gives this one message rather than a cascade of errors. */
#if (!defined(__cplusplus) || __cplusplus < 201703L) && \
    (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L)
#  error "ilmap.hpp needs C++17 (e.g. -std=c++17, /std:c++17)"
#else

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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
 * Errors
 * ------------------------------------------------------------------ */

/** What a failing call throws: the status, its description, and the
 *  offending index when the library reported one (else no_index). */
class error : public std::runtime_error {
public:
    /** what(): "call: status description[: detail][ at index N]". */
    error(status code, const char *call, std::size_t index = no_index,
          const char *detail = nullptr)
        : std::runtime_error(message(code, call, index, detail)), code_(code), index_(index)
    {
    }

    /** The ilmap_status the C call returned. */
    status code() const noexcept { return code_; }
    /** ilmap_status_str(code()): static storage. */
    const char *status_str() const noexcept { return ::ilmap_status_str(code_); }
    /** The offending entry, edit or byte offset, or no_index. */
    std::size_t index() const noexcept { return index_; }

private:
    static std::string message(status code, const char *call, std::size_t index,
                               const char *detail)
    {
        std::string s = call ? call : "ilmap";
        s += ": ";
        s += ::ilmap_status_str(code);
        if (detail) {
            s += ": ";
            s += detail;
        }
        if (index != no_index) {
            s += " at index ";
            s += std::to_string(index);
        }
        return s;
    }

    status code_;
    std::size_t index_;
};

namespace detail {

inline void check(status s, const char *call, std::size_t index = no_index)
{
    if (s != ILMAP_OK)
        throw error(s, call, index);
}

/* The buffer protocol (cap, total, out) of every copy-out call, twice:
 * a size query, then a fill; repeated if the count grew in between. */
template <class T, class Fill>
std::vector<T> copy_out(const char *call, Fill fill)
{
    std::vector<T> out;
    for (;;) {
        std::size_t total = 0;
        status s = fill(out.size(), &total, out.empty() ? nullptr : out.data());
        if (s == ILMAP_OK && total <= out.size()) {
            out.resize(total);
            return out;
        }
        if (s != ILMAP_OK && s != ILMAP_E_TRUNCATED)
            throw error(s, call);
        out.resize(total);
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
    status code;            /**< ILMAP_OK, ILMAP_E_UNSORTED, ILMAP_E_INVALID_ARG */
    ::ilmap_defect defect;  /**< ILMAP_DEFECT_NONE when valid */
    std::size_t bad_index;  /**< no_index when valid */
    explicit operator bool() const noexcept { return code == ILMAP_OK; }
    const char *defect_str() const noexcept { return ::ilmap_defect_str(defect); }
};

/** A non-owning view of an ilmap (nullptr: the empty map, the identity). */
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
    std::vector<entry> entries() const
    {
        return detail::copy_out<entry>("ilmap_export", [this](std::size_t cap, std::size_t *total,
                                                              entry *out) {
            return ::ilmap_export(m_, cap, total, out);
        });
    }
    /** The serialized form (ilmap_serialize()). Throws for an empty ref. */
    std::vector<std::uint8_t> serialize() const
    {
        return detail::copy_out<std::uint8_t>(
            "ilmap_serialize", [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_serialize(m_, cap, total, out);
            });
    }

    /* Algebra (ilmap-algebra.h); defined after map. */
    inline map compose(map_ref b, unsigned flags = 0,
                       unsigned *exact_directions = nullptr) const;
    inline map invert(unsigned flags = 0) const;
    /** Whether both answer the same for every input in [0, bound] in the
     *  given ILMAP_DIR_* directions; diff (optional) says where not. */
    bool equivalent(map_ref b, unsigned directions = ILMAP_DIR_ALL,
                    std::uint32_t bound = 0xFFFFFFFFu, ::ilmap_difference *diff = nullptr) const
    {
        int equal = 0;
        detail::check(::ilmap_equivalent(m_, b.m_, directions, bound, &equal, diff),
                      "ilmap_equivalent");
        return equal != 0;
    }

protected:
    const ::ilmap *m_ = nullptr;
};

/** An owned ilmap: freed with ilmap_free(). Move-only. */
class map : public map_ref {
public:
    /** No map: the identity. */
    map() noexcept = default;
    /** ilmap_create(entries, flags): 0 (strict, validated) or
     *  ILMAP_LENIENT, plus ILMAP_NO_AVX2 / ILMAP_PORTABLE. A strict array
     *  that is out of order throws ILMAP_E_UNSORTED with the offending
     *  index (see validate() for the reason). */
    explicit map(span<const entry> entries, unsigned flags = 0)
    {
        ::ilmap *out = nullptr;
        status s = ::ilmap_create(entries.data(), entries.size(), flags, &out);
        if (s == ILMAP_E_UNSORTED) {
            validation v = validate(entries);
            throw error(s, "ilmap_create", v.bad_index, v.defect_str());
        }
        detail::check(s, "ilmap_create");
        m_ = out;
    }
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

    /** ilmap_validate(): whether entries form a strict map, and why not. */
    static validation validate(span<const entry> entries) noexcept
    {
        validation v{ILMAP_OK, ILMAP_DEFECT_NONE, no_index};
        v.code = ::ilmap_validate(entries.data(), entries.size(), &v.defect, &v.bad_index);
        return v;
    }
    /** ilmap_deserialize() (flags: ILMAP_SERIAL_PREFIX, ILMAP_NO_AVX2,
     *  ILMAP_PORTABLE); ILMAP_E_FORMAT names the defect and entry index. */
    static map deserialize(span<const std::uint8_t> bytes, unsigned flags = 0)
    {
        ::ilmap *out = nullptr;
        ::ilmap_serial_error err{};
        status s = ::ilmap_deserialize(bytes.data(), bytes.size(), flags, &out, &err);
        if (s == ILMAP_E_FORMAT)
            throw error(s, "ilmap_deserialize", err.index, ::ilmap_serial_defect_str(err.defect));
        detail::check(s, "ilmap_deserialize");
        return adopt(out);
    }
};

inline map map_ref::compose(map_ref b, unsigned flags, unsigned *exact_directions) const
{
    ::ilmap *out = nullptr;
    detail::check(::ilmap_compose(m_, b.m_, flags, &out, exact_directions), "ilmap_compose");
    return map::adopt(out);
}

inline map map_ref::invert(unsigned flags) const
{
    ::ilmap *out = nullptr;
    detail::check(::ilmap_invert(m_, flags, &out), "ilmap_invert");
    return map::adopt(out);
}

/* ---------------------------------------------------------------------
 * IL-to-native maps: native_map_ref (non-owning) and native_map (owning)
 * ------------------------------------------------------------------ */

/** native_to_il()'s answer: the IL offset and one ILMAP_MAPPING_* value. */
struct native_to_il_result {
    std::uint32_t il_offset;
    unsigned mapping;
};

/** native_to_il_detail()'s answer (ilmap_native_to_il_detail()). */
struct native_to_il_detail_result {
    std::uint32_t il_offset;
    unsigned mapping;
    std::size_t entry; /**< the matched entry's index in export order, or no_index */
    std::uint32_t which;
};

/** il_to_native()'s answer (ilmap_il_to_native()). */
struct il_to_native_result {
    native_entry entry; /**< as exported (end-unknown: the code size) */
    std::size_t index;  /**< its index in export order */
    bool il_matched;    /**< found il_offset itself, not a floor entry */
};

/** A non-owning view of an ilmap_native (nullptr: answers NO_INFO). */
class native_map_ref {
public:
    constexpr native_map_ref() noexcept = default;
    constexpr native_map_ref(const ::ilmap_native *m) noexcept : m_(m) {}

    const ::ilmap_native *get() const noexcept { return m_; }
    explicit operator bool() const noexcept { return m_ != nullptr; }

    /* Lookups: noexcept, allocation-free, async-signal-safe. */
    native_to_il_result native_to_il(std::uint32_t native_offset) const noexcept
    {
        native_to_il_result r{0, 0};
        r.mapping = ::ilmap_native_to_il(m_, native_offset, &r.il_offset);
        return r;
    }
    native_to_il_detail_result native_to_il_detail(std::uint32_t native_offset) const noexcept
    {
        native_to_il_detail_result r{0, 0, no_index, 0};
        r.mapping = ::ilmap_native_to_il_detail(m_, native_offset, &r.il_offset, &r.entry,
                                                &r.which);
        return r;
    }
    /** The floor entry of il_offset; nullopt when there is none (or no map). */
    std::optional<il_to_native_result> il_to_native(std::uint32_t il_offset) const noexcept
    {
        il_to_native_result r{};
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

    /* Copy-outs (the buffer protocol): may throw, allocate. An empty ref
     * throws ILMAP_E_INVALID_ARG, as the C calls answer for NULL. */
    /** The exported map (ilmap_native_export()). */
    std::vector<native_entry> entries() const
    {
        return detail::copy_out<native_entry>(
            "ilmap_native_export", [this](std::size_t cap, std::size_t *total, native_entry *out) {
                return ::ilmap_native_export(m_, cap, total, out);
            });
    }
    /** ilmap_native_export_records(): ILMAP_RECORDS_EXPORTED or
     *  ILMAP_RECORDS_CALL_SITES. */
    std::vector<native_record> records(unsigned list = ILMAP_RECORDS_EXPORTED) const
    {
        return detail::copy_out<native_record>(
            "ilmap_native_export_records",
            [this, list](std::size_t cap, std::size_t *total, native_record *out) {
                return ::ilmap_native_export_records(m_, list, cap, total, out);
            });
    }
    std::vector<native_record> call_sites() const { return records(ILMAP_RECORDS_CALL_SITES); }
    /** Every native range of one IL offset (ilmap_il_to_native_ranges()). */
    std::vector<native_entry> ranges(std::uint32_t il_offset) const
    {
        return detail::copy_out<native_entry>(
            "ilmap_il_to_native_ranges",
            [this, il_offset](std::size_t cap, std::size_t *total, native_entry *out) {
                return ::ilmap_il_to_native_ranges(m_, il_offset, cap, total, out);
            });
    }
    /** The serialized form (ilmap_native_serialize()). */
    std::vector<std::uint8_t> serialize() const
    {
        return detail::copy_out<std::uint8_t>(
            "ilmap_native_serialize",
            [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_native_serialize(m_, cap, total, out);
            });
    }

protected:
    const ::ilmap_native *m_ = nullptr;
};

/** An owned ilmap_native: freed with ilmap_native_free(). Move-only. */
class native_map : public native_map_ref {
public:
    native_map() noexcept = default;
    /** ilmap_native_from_entries(): an exported array (what
     *  GetILToNativeMapping2 returned), any order. Refusals carry the
     *  offending index (ilmap_native_validate()). */
    native_map(span<const native_entry> entries, std::uint32_t code_size)
    {
        ::ilmap_native *out = nullptr;
        status s = ::ilmap_native_from_entries(entries.data(), entries.size(), code_size, &out);
        if (s != ILMAP_OK) {
            std::size_t bad = no_index;
            ::ilmap_native_validate(entries.data(), entries.size(), code_size, &bad, nullptr);
            throw error(s, "ilmap_native_from_entries", bad);
        }
        m_ = out;
    }
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

    /** ilmap_native_build(): the map the runtime builds from the JIT's
     *  boundaries, optionally through the method's COR_IL_MAP
     *  (instrumented; an empty ref is no map). flags: 0 or ILMAP_DAC. */
    static native_map build(span<const boundary> jit, std::uint32_t code_size,
                            map_ref instrumented = {}, unsigned flags = 0)
    {
        ::ilmap_native *out = nullptr;
        status s = ::ilmap_native_build(jit.data(), jit.size(), instrumented.get(), code_size,
                                        flags, &out);
        if (s != ILMAP_OK) {
            std::size_t bad = no_index;
            ::ilmap_native_validate_boundaries(jit.data(), jit.size(), code_size, &bad);
            throw error(s, "ilmap_native_build", bad);
        }
        return adopt(out);
    }
    /** ilmap_native_from_entries(), as the constructor. */
    static native_map from_entries(span<const native_entry> entries, std::uint32_t code_size)
    {
        return native_map(entries, code_size);
    }
    /** ilmap_native_translate(): an export made without a COR_IL_MAP, as
     *  the runtime would have exported it with instrumented in force.
     *  lossless (optional) receives whether the result is exact. */
    static native_map translate(span<const native_entry> exported, std::uint32_t code_size,
                                map_ref instrumented, unsigned flags = 0,
                                bool *lossless = nullptr)
    {
        ::ilmap_native *out = nullptr;
        int exact = 0;
        detail::check(::ilmap_native_translate(exported.data(), exported.size(), code_size,
                                               instrumented.get(), flags, &out, &exact),
                      "ilmap_native_translate");
        if (lossless)
            *lossless = exact != 0;
        return adopt(out);
    }
    /** ilmap_native_deserialize() (flags: 0 or ILMAP_SERIAL_PREFIX). */
    static native_map deserialize(span<const std::uint8_t> bytes, unsigned flags = 0)
    {
        ::ilmap_native *out = nullptr;
        ::ilmap_serial_error err{};
        status s = ::ilmap_native_deserialize(bytes.data(), bytes.size(), flags, &out, &err);
        if (s == ILMAP_E_FORMAT)
            throw error(s, "ilmap_native_deserialize", err.index, ::ilmap_serial_defect_str(err.defect));
        detail::check(s, "ilmap_native_deserialize");
        return adopt(out);
    }
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
inline void free_store(::ilmap_store *s) { ::ilmap_store_free(s); }
inline void free_fid_mapper(::ilmap_fid_mapper *m) { ::ilmap_fid_mapper_free(m); }
inline void free_sig(::ilmap_sig *g) { ::ilmap_sig_free(g); }
inline void free_pdb(::ilmap_pdb *p) { ::ilmap_pdb_free(p); }
inline void free_pdb_lines(::ilmap_pdb_lines *l) { ::ilmap_pdb_lines_free(l); }
inline void free_reader(::ilmap_store_reader *r)
{
    if (r)
        (void)::ilmap_store_reader_unregister(r);
}

} // namespace detail

/* ---------------------------------------------------------------------
 * The rewriter (ilmap-il.h)
 * ------------------------------------------------------------------ */

/** A rewritten method body and its COR_IL_MAP (ilmap_rewrite_create()). */
class rewrite {
public:
    rewrite() noexcept = default;
    /** Refusals carry bad_index (offset, clause or insertion index). */
    rewrite(span<const std::uint8_t> body, span<const ::ilmap_il_insertion> insertions,
            std::uint32_t extra_stack = 0, unsigned flags = 0)
    {
        ::ilmap_rewrite *out = nullptr;
        std::size_t bad = no_index;
        status s = ::ilmap_rewrite_create(body.data(), body.size(), insertions.data(),
                                          insertions.size(), extra_stack, flags, &out, &bad);
        if (s != ILMAP_OK)
            throw error(s, "ilmap_rewrite_create", bad);
        h_.reset(out);
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
    map to_map(unsigned flags = 0) const { return map(entries(), flags); }
    /** Where the original instruction at old_offset begins now; nullopt
     *  when no original instruction starts there. */
    std::optional<std::uint32_t> old_to_new(std::uint32_t old_offset) const noexcept
    {
        std::uint32_t n = 0;
        if (::ilmap_rewrite_old_to_new(h_.get(), old_offset, &n) != ILMAP_OK)
            return std::nullopt;
        return n;
    }
    ::ilmap_rewrite_info info() const
    {
        ::ilmap_rewrite_info i{};
        detail::check(::ilmap_rewrite_get_info(h_.get(), &i), "ilmap_rewrite_get_info");
        return i;
    }

private:
    detail::unique_handle<::ilmap_rewrite, detail::free_rewrite> h_;
};

/* ---------------------------------------------------------------------
 * The version store (ilmap-versions.h)
 * ------------------------------------------------------------------ */

/**
 * A snapshot guard: ilmap_store_reader_begin() in the constructor,
 * ilmap_store_reader_end() in the destructor. Every query is noexcept,
 * lock-free and allocation-free (async-signal-safe), except the two list
 * calls that return vectors. Maps it hands out are valid until it ends.
 * If the read could not begin, get() is nullptr and queries find nothing.
 */
class snapshot {
public:
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
     *  doc/source-lines.md#store): the status with the location and the
     *  source as the C call leaves them; source.pdb is valid while this
     *  guard lives. flags: 0 or ILMAP_STORE_RETURN_ADDRESS. */
    struct source_answer {
        ::ilmap_status status;
        ::ilmap_store_location location;
        ::ilmap_store_source source;
    };
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
    /** A function's ReJITIDs, ascending (throws ILMAP_E_NOT_FOUND). */
    std::vector<rejit_id> versions(function_id fid) const
    {
        return detail::copy_out<rejit_id>(
            "ilmap_store_snapshot_list_versions",
            [this, fid](std::size_t cap, std::size_t *total, rejit_id *out) {
                return ::ilmap_store_snapshot_list_versions(s_, fid, cap, total, out);
            });
    }
    /** A version's native bodies' code starts, ascending. */
    std::vector<std::uintptr_t> bodies(function_id fid, rejit_id rejit) const
    {
        return detail::copy_out<std::uintptr_t>(
            "ilmap_store_snapshot_list_bodies",
            [this, fid, rejit](std::size_t cap, std::size_t *total, std::uintptr_t *out) {
                return ::ilmap_store_snapshot_list_bodies(s_, fid, rejit, cap, total, out);
            });
    }

private:
    ::ilmap_store_reader *reader_;
    const ::ilmap_store_snapshot *s_ = nullptr;
};

/** A reader slot (ilmap_store_reader_register()), unregistered by the
 *  destructor. One thread at a time; destroy it before its store. */
class reader {
public:
    reader() noexcept = default;
    explicit reader(::ilmap_store *store)
    {
        ::ilmap_store_reader *r = nullptr;
        detail::check(::ilmap_store_reader_register(store, &r), "ilmap_store_reader_register");
        h_.reset(r);
    }
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

private:
    detail::unique_handle<::ilmap_store_reader, detail::free_reader> h_;
};

/**
 * The version store. Writers throw on failure. A writer that takes a map
 * takes it by rvalue reference and consumes it only on success: on a
 * throw the caller's object still owns it.
 */
class pdb;

class store {
public:
    /** ilmap_store_create(): max_readers 0 = ILMAP_STORE_DEFAULT_READERS. */
    explicit store(std::uint32_t max_readers = 0, unsigned flags = 0)
    {
        ::ilmap_store *s = nullptr;
        detail::check(::ilmap_store_create(max_readers, flags, &s), "ilmap_store_create");
        h_.reset(s);
    }
    ::ilmap_store *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    reader register_reader() const { return reader(h_.get()); }

    void set_il_map(module_id module, std::uint32_t method_def, map &&m)
    {
        detail::check(::ilmap_store_set_il_map(h_.get(), module, method_def, m.get()),
                      "ilmap_store_set_il_map");
        (void)m.release();
    }
    void clear_il_map(module_id module, std::uint32_t method_def)
    {
        detail::check(::ilmap_store_set_il_map(h_.get(), module, method_def, nullptr),
                      "ilmap_store_set_il_map");
    }
    void set_il_map_for_function(function_id fid, map &&m)
    {
        detail::check(::ilmap_store_set_il_map_for_function(h_.get(), fid, m.get()),
                      "ilmap_store_set_il_map_for_function");
        (void)m.release();
    }
    void add_function(function_id fid, module_id module, std::uint32_t method_def)
    {
        detail::check(::ilmap_store_add_function(h_.get(), fid, module, method_def),
                      "ilmap_store_add_function");
    }
    /** flags: 0 or ILMAP_VERSION_CURRENT; an empty map: no map. */
    void add_version(function_id fid, rejit_id rejit, map &&m, unsigned flags = 0)
    {
        detail::check(::ilmap_store_add_version(h_.get(), fid, rejit, m.get(), flags),
                      "ilmap_store_add_version");
        (void)m.release();
    }
    void set_current(function_id fid, rejit_id rejit)
    {
        detail::check(::ilmap_store_set_current(h_.get(), fid, rejit),
                      "ilmap_store_set_current");
    }
    /** RequestRevert; returns how many instances changed. */
    std::size_t revert(module_id module, std::uint32_t method_def)
    {
        std::size_t n = 0;
        detail::check(::ilmap_store_revert(h_.get(), module, method_def, &n),
                      "ilmap_store_revert");
        return n;
    }
    /** flags: 0 or ILMAP_BODY_ORIGINAL_IL; an empty native map: none. */
    void add_body(function_id fid, rejit_id rejit, span<const ::ilmap_code_range> ranges,
                  native_map &&m, unsigned flags = 0)
    {
        const ::ilmap_status st = ::ilmap_store_add_body(h_.get(), fid, rejit, ranges.data(),
                                                         ranges.size(), m.get(), flags);
        if (st == ILMAP_E_CODE_SIZE) {
            // Both sizes in the message: which one is wrong is the caller's call.
            std::uint64_t total = 0;
            for (const ::ilmap_code_range &r : ranges)
                total += r.size;
            const std::string sizes = "the native map's code size is " +
                                      std::to_string(m.code_size()) + " bytes, the ranges hold " +
                                      std::to_string(total);
            throw error(st, "ilmap_store_add_body", no_index, sizes.c_str());
        }
        detail::check(st, "ilmap_store_add_body");
        (void)m.release();
    }
    void remove_body(std::uintptr_t code_start)
    {
        detail::check(::ilmap_store_remove_body(h_.get(), code_start), "ilmap_store_remove_body");
    }
    /** ModuleUnloadStarted: everything of the module, its PDB included
     *  (ilmap_store_remove_module()); returns what was removed. */
    ::ilmap_store_removed remove_module(module_id module)
    {
        ::ilmap_store_removed removed{};
        detail::check(::ilmap_store_remove_module(h_.get(), module, &removed),
                      "ilmap_store_remove_module");
        return removed;
    }
    /** One ReJIT version and its bodies (ilmap_store_remove_version()). */
    ::ilmap_store_removed remove_version(function_id fid, rejit_id rejit)
    {
        ::ilmap_store_removed removed{};
        detail::check(::ilmap_store_remove_version(h_.get(), fid, rejit, &removed),
                      "ilmap_store_remove_version");
        return removed;
    }
    /** ilmap_store_attach_pdb(): the store takes the PDB, the handle and
     *  the bytes the object keeps (pdb(std::vector&&), pdb::for_assembly()),
     *  and frees them once no read can see them; p is empty after. A pdb
     *  over the caller's span hands over the handle only: those bytes must
     *  stay alive until the module is removed or its PDB replaced and the
     *  store has reclaimed it (or the store is freed). On failure p is
     *  unchanged. Defined after class pdb. */
    void attach_pdb(module_id module, pdb &&p);
    /** Detaches the module's PDB (freed once no read can see it). */
    void detach_pdb(module_id module)
    {
        detail::check(::ilmap_store_attach_pdb(h_.get(), module, nullptr, nullptr, nullptr),
                      "ilmap_store_attach_pdb");
    }
    /** Frees what no read can see; returns how many objects still wait. */
    std::size_t reclaim()
    {
        std::size_t pending = 0;
        detail::check(::ilmap_store_reclaim(h_.get(), &pending), "ilmap_store_reclaim");
        return pending;
    }
    ::ilmap_store_stats stats() const
    {
        ::ilmap_store_stats st{};
        detail::check(::ilmap_store_get_stats(h_.get(), &st), "ilmap_store_get_stats");
        return st;
    }

private:
    detail::unique_handle<::ilmap_store, detail::free_store> h_;
};

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
 *  SetFunctionIDMapper2. Free it at shutdown only. */
class fid_mapper {
public:
    fid_mapper() noexcept = default;
    explicit fid_mapper(std::size_t max_functions, ::ilmap_fid_filter_fn filter = nullptr,
                        void *context = nullptr)
    {
        ::ilmap_fid_mapper *m = nullptr;
        detail::check(::ilmap_fid_mapper_create(max_functions, filter, context, &m),
                      "ilmap_fid_mapper_create");
        h_.reset(m);
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
    ::ilmap_fid_mapper_stats stats() const
    {
        ::ilmap_fid_mapper_stats st{};
        detail::check(::ilmap_fid_mapper_get_stats(h_.get(), &st), "ilmap_fid_mapper_get_stats");
        return st;
    }
    /** Installs this mapper as the global one (ilmap_fid_mapper_callback). */
    void set_global() const noexcept { (void)::ilmap_fid_mapper_set_global(h_.get()); }

private:
    detail::unique_handle<::ilmap_fid_mapper, detail::free_fid_mapper> h_;
};

/* ---------------------------------------------------------------------
 * Metadata signatures (ilmap-sig.h, doc/signatures.md)
 * ------------------------------------------------------------------ */

/** A decoded signature: move-only, immutable; the getters are const. */
class sig {
public:
    sig() noexcept = default;
    /** ilmap_sig_decode(blob, flags): ILMAP_E_FORMAT / ILMAP_E_LIMIT throw
     *  with the defect's description and its byte offset as index(). */
    explicit sig(span<const std::uint8_t> blob, unsigned flags = 0)
    {
        ::ilmap_sig *out = nullptr;
        ::ilmap_sig_defect defect = ILMAP_SIG_DEFECT_NONE;
        std::size_t where = no_index;
        status s = ::ilmap_sig_decode(blob.data(), blob.size(), flags, &out, &defect, &where);
        if (s != ILMAP_OK)
            throw error(s, "ilmap_sig_decode", where,
                        defect != ILMAP_SIG_DEFECT_NONE ? ::ilmap_sig_defect_str(defect) : nullptr);
        h_.reset(out);
    }

    ::ilmap_sig *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }
    ::ilmap_sig_kind kind() const noexcept { return ::ilmap_sig_get_kind(h_.get()); }
    std::size_t size() const noexcept { return ::ilmap_sig_get_size(h_.get()); }
    std::uint32_t node_count() const noexcept { return ::ilmap_sig_get_node_count(h_.get()); }

    /** Signature `index`'s header (0: the blob's; a FNPTR node's number). */
    ::ilmap_sig_info info(std::uint32_t index = 0) const
    {
        ::ilmap_sig_info in{};
        detail::check(::ilmap_sig_get_info(h_.get(), index, &in), "ilmap_sig_get_info");
        return in;
    }
    /** Item i (parameter, local, type argument) of signature `index`. */
    std::uint32_t item(std::uint32_t index, std::uint32_t i) const
    {
        std::uint32_t n = ILMAP_SIG_NO_NODE;
        detail::check(::ilmap_sig_get_item(h_.get(), index, i, &n), "ilmap_sig_get_item");
        return n;
    }
    ::ilmap_sig_node node(std::uint32_t index) const
    {
        ::ilmap_sig_node n{};
        detail::check(::ilmap_sig_get_node(h_.get(), index, &n), "ilmap_sig_get_node");
        return n;
    }
    /** ilmap_sig_encode(): the bytes again. */
    std::vector<std::uint8_t> encode() const
    {
        return detail::copy_out<std::uint8_t>("ilmap_sig_encode",
            [this](std::size_t cap, std::size_t *total, std::uint8_t *out) {
                return ::ilmap_sig_encode(h_.get(), cap, total, out);
            });
    }
    /** ilmap_sig_classify(): `this`, the parameters, the return value. */
    std::vector<::ilmap_sig_slot> classify(const ::ilmap_sig_generics *generics = nullptr,
                                           unsigned flags = 0) const
    {
        return detail::copy_out<::ilmap_sig_slot>("ilmap_sig_classify",
            [this, generics, flags](std::size_t cap, std::size_t *total, ::ilmap_sig_slot *out) {
                return ::ilmap_sig_classify(h_.get(), generics, flags, cap, total, out);
            });
    }

private:
    detail::unique_handle<::ilmap_sig, detail::free_sig> h_;
};

/* ---------------------------------------------------------------------
 * Portable PDBs (ilmap-pdb.h)
 * ------------------------------------------------------------------ */

namespace detail {
/* A PDB call's failure: the defect's description and its byte offset. */
inline void check_pdb(status s, const char *call, const ::ilmap_pdb_error &err)
{
    if (s != ILMAP_OK)
        throw error(s, call, err.defect != ILMAP_PDB_DEFECT_NONE ? err.offset : no_index,
                    err.defect != ILMAP_PDB_DEFECT_NONE ? ::ilmap_pdb_defect_str(err.defect)
                                                        : nullptr);
}
} // namespace detail

/** One method's source lines decoded once (ilmap_pdb_lines): owns its
 *  points, so it outlives the pdb it came from. */
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

/** A Portable PDB (ilmap_pdb). Over the caller's bytes (zero-copy: they
 *  must outlive the object), over bytes it owns (a moved-in vector), or an
 *  assembly's PDB found as the runtime finds it (for_assembly(): the
 *  handle owns the bytes). Failures throw with the defect's description
 *  and its byte offset as index(). */
class pdb {
public:
    pdb() noexcept = default;
    /** ilmap_pdb_open() over data, which must stay alive and unchanged. */
    explicit pdb(span<const std::uint8_t> data) { open(data); }
    /** ilmap_pdb_open() over bytes the object keeps (moving a vector keeps
     *  its buffer where it is). */
    explicit pdb(std::vector<std::uint8_t> &&owned) : owned_(std::move(owned)) { open(owned_); }
    pdb(pdb &&o) noexcept = default;
    /** Releases the handle before the bytes it points into. */
    pdb &operator=(pdb &&o) noexcept
    {
        if (this != &o) {
            h_ = std::move(o.h_);
            owned_ = std::move(o.owned_);
        }
        return *this;
    }
    pdb(const pdb &) = delete;
    pdb &operator=(const pdb &) = delete;
    ~pdb() = default;

    /** An assembly's PDB, found and opened as ilmap_pdb_open_for_assembly()
     *  does (the CodeView path, its name beside the assembly, the embedded
     *  PDB, NAME.pdb beside it; ids checked); the handle owns the bytes.
     *  pe: the assembly's bytes when the caller has them (read during the
     *  call only), else empty and the file at path is read. origin, when
     *  given, says where it was found. Throws ILMAP_E_NOT_FOUND when there
     *  is none, ILMAP_E_FORMAT when the one there is malformed or not the
     *  assembly's own, ILMAP_E_IO when path cannot be read (pe empty),
     *  ILMAP_E_UNSUPPORTED for an embedded PDB without zlib. */
    static pdb for_assembly(const char *path, span<const std::uint8_t> pe = {},
                            ::ilmap_pdb_origin *origin = nullptr)
    {
        ::ilmap_pdb *out = nullptr;
        ::ilmap_pdb_error err{};
        detail::check_pdb(::ilmap_pdb_open_for_assembly(path, pe.data(), pe.size(), &out,
                                                        origin, &err),
                          "ilmap_pdb_open_for_assembly", err);
        pdb p;
        p.h_.reset(out);
        return p;
    }

    ::ilmap_pdb *get() const noexcept { return h_.get(); }
    explicit operator bool() const noexcept { return h_.get() != nullptr; }

    ::ilmap_pdb_info info() const
    {
        ::ilmap_pdb_info in{};
        detail::check(::ilmap_pdb_get_info(h_.get(), &in), "ilmap_pdb_get_info");
        return in;
    }
    /** A document's full name as stored (ilmap_pdb_get_document_name()). */
    std::string document_name(std::uint32_t document) const
    {
        ::ilmap_pdb_error err{};
        std::vector<char> name = detail::copy_out<char>("ilmap_pdb_get_document_name",
            [this, document, &err](std::size_t cap, std::size_t *total, char *out) {
                status s = ::ilmap_pdb_get_document_name(h_.get(), document, cap, total, out,
                                                         &err);
                if (s != ILMAP_OK && s != ILMAP_E_TRUNCATED)
                    detail::check_pdb(s, "ilmap_pdb_get_document_name", err);
                return s;
            });
        return std::string(name.data(), name.empty() ? 0 : name.size() - 1);
    }
    /** Every sequence point of a method, in blob order. */
    std::vector<::ilmap_pdb_sequence_point> sequence_points(std::uint32_t method_token) const
    {
        ::ilmap_pdb_error err{};
        return detail::copy_out<::ilmap_pdb_sequence_point>("ilmap_pdb_get_sequence_points",
            [this, method_token, &err](std::size_t cap, std::size_t *total,
                                       ::ilmap_pdb_sequence_point *out) {
                status s = ::ilmap_pdb_get_sequence_points(h_.get(), method_token, cap, total,
                                                           out, &err);
                if (s != ILMAP_OK && s != ILMAP_E_TRUNCATED)
                    detail::check_pdb(s, "ilmap_pdb_get_sequence_points", err);
                return s;
            });
    }
    /** ilmap_pdb_find_source(): nullopt when there is no source, or a
     *  defect in the part of the blob read (err, when given, says which). */
    std::optional<::ilmap_pdb_sequence_point>
    find_source(std::uint32_t method_token, std::uint32_t il_offset,
                ::ilmap_pdb_error *err = nullptr) const noexcept
    {
        ::ilmap_pdb_sequence_point p{};
        if (::ilmap_pdb_find_source(h_.get(), method_token, il_offset, &p, err) != ILMAP_OK)
            return std::nullopt;
        return p;
    }
    /** ilmap_pdb_lines_create(): the method decoded once. */
    pdb_lines lines(std::uint32_t method_token) const
    {
        ::ilmap_pdb_lines *l = nullptr;
        detail::check(::ilmap_pdb_lines_create(h_.get(), method_token, &l),
                      "ilmap_pdb_lines_create");
        return pdb_lines(l);
    }

private:
    void open(span<const std::uint8_t> data)
    {
        ::ilmap_pdb *out = nullptr;
        ::ilmap_pdb_error err{};
        detail::check_pdb(::ilmap_pdb_open(data.data(), data.size(), &out, &err),
                          "ilmap_pdb_open", err);
        h_.reset(out);
    }

    /* Declared first, destroyed last: the handle points into it. */
    std::vector<std::uint8_t> owned_;
    friend class store; // attach_pdb hands the handle and the bytes over
    detail::unique_handle<::ilmap_pdb, detail::free_pdb> h_;
};

namespace detail {
inline void free_pdb_bytes(void *bytes) { delete static_cast<std::vector<std::uint8_t> *>(bytes); }
} // namespace detail

inline void store::attach_pdb(module_id module, pdb &&p)
{
    // Moving a vector keeps its buffer where the handle points.
    std::vector<std::uint8_t> *bytes =
        p.owned_.empty() ? nullptr : new std::vector<std::uint8_t>(std::move(p.owned_));
    const ::ilmap_status s = ::ilmap_store_attach_pdb(
        h_.get(), module, p.h_.get(), bytes ? &detail::free_pdb_bytes : nullptr, bytes);
    if (s != ILMAP_OK) {
        if (bytes) {
            p.owned_ = std::move(*bytes);
            delete bytes;
        }
        detail::check(s, "ilmap_store_attach_pdb");
    }
    (void)p.h_.release();
}

/** ilmap_pdb_check_map(): the indexes in points of the visible sequence
 *  points whose IL offset has no entry of its own in the map. */
inline std::vector<std::size_t> check_map(span<const ::ilmap_pdb_sequence_point> points,
                                          span<const ilmap_entry> entries)
{
    return detail::copy_out<std::size_t>("ilmap_pdb_check_map",
        [&](std::size_t cap, std::size_t *total, std::size_t *out) {
            return ::ilmap_pdb_check_map(points.data(), points.size(), entries.data(),
                                         entries.size(), cap, total, out);
        });
}

} // namespace ilmap_cpp

#endif /* C++17 */
#endif /* ILMAP_HPP */
