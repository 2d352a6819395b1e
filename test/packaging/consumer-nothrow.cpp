// The exception-free C++ consumer of the packaging test
// (test/packaging-test.sh): every operation of ilmap.hpp in its
// result<T> form (op(ilm::nothrow, ...)), no try, catch or throw. Built with
// g++ and clang++, with exceptions, with -fno-exceptions, and with
// -DILMAP_CPP_NO_EXCEPTIONS; EXPECT_EXCEPTIONS (0 or 1, given by the
// script) is what ILMAP_CPP_EXCEPTIONS must say. Exits non-zero unless
// every answer is right.
#include <ilmap.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ilm = ilmap_cpp;

#ifdef EXPECT_EXCEPTIONS
static_assert(ILMAP_CPP_EXCEPTIONS == EXPECT_EXCEPTIONS, "ILMAP_CPP_EXCEPTIONS");
#endif
// The throwing forms exist exactly when ILMAP_CPP_EXCEPTIONS says so.
static_assert(std::is_constructible_v<ilm::map, ilm::span<const ilmap_entry>> ==
                  (ILMAP_CPP_EXCEPTIONS == 1),
              "map's throwing constructor");
static_assert(std::is_default_constructible_v<ilm::store> == (ILMAP_CPP_EXCEPTIONS == 1),
              "store() creates a store, so it throws");
// The result forms never throw.
static_assert(noexcept(ilm::map::create(ilm::nothrow, ilm::span<const ilmap_entry>())), "");
static_assert(noexcept(std::declval<const ilm::map &>().entries(ilm::nothrow)), "");
static_assert(noexcept(ilm::store::create(ilm::nothrow)), "");
static_assert(noexcept(ilm::il_decode(ilm::nothrow, ilm::span<const std::uint8_t>())), "");
static_assert(noexcept(std::declval<const ilm::pdb_ref &>().document_name(ilm::nothrow, 1u)), "");
static_assert(std::is_same_v<decltype(ilm::nothrow), const std::nothrow_t>, "std::nothrow");
static_assert(std::is_nothrow_move_constructible_v<ilm::reader>, "");
static_assert(std::is_nothrow_move_assignable_v<ilm::pdb>, "");
static_assert(std::is_convertible_v<const ilm::pdb &, ilm::pdb_ref>, "a pdb is a pdb_ref");
static_assert(std::is_convertible_v<const ilmap_pdb *, ilm::pdb_ref>, "");
static_assert(!std::is_copy_constructible_v<ilm::reader>, "");

static int failures = 0;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                             \
        }                                                                           \
    } while (0)

// A result that must hold a value: its message when it does not.
#define CHECK_OK(r)                                                                 \
    do {                                                                            \
        if (!(r)) {                                                                 \
            std::fprintf(stderr, "%s:%d: FAILED: %s: %s\n", __FILE__, __LINE__, #r, \
                         (r).message().c_str());                                    \
            ++failures;                                                             \
        }                                                                           \
    } while (0)

static bool contains(const std::string &s, const char *part)
{
    return s.find(part) != std::string::npos;
}

static const ilmap_entry seed[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };

static void test_result()
{
    ilm::result<ilm::map> r = ilm::map::create(ilm::nothrow, seed);
    CHECK_OK(r);
    CHECK(r.ok() && r.status() == ILMAP_OK && r.message().empty());
    CHECK(r->old_to_new(7) == 10 && (*r).new_to_old(15) == 5 && r.value().size() == 3);
    const ilm::map m = std::move(r).value();
    CHECK(m && m.old_to_new(7) == 10);

    // A failure: status, its string, the call, the index, the message.
    const ilmap_entry unsorted[] = { { 0, 0, 1 }, { 9, 20, 1 }, { 5, 10, 1 } };
    const ilm::result<ilm::map> bad = ilm::map::create(ilm::nothrow, unsorted);
    CHECK(!bad && !bad.ok() && bad.status() == ILMAP_E_UNSORTED && bad.index() == 2);
    CHECK(std::strcmp(bad.status_str(), ilmap_status_str(ILMAP_E_UNSORTED)) == 0);
    CHECK(std::strcmp(bad.failure().call(), "ilmap_create") == 0);
    CHECK(bad.message() == std::string("ilmap_create: ") + ilmap_status_str(ILMAP_E_UNSORTED) +
                               ": " + ilmap_defect_str(ILMAP_DEFECT_OLD_DESCENDING) +
                               " at index 2");
    std::printf("expected failure: %s\n", bad.message().c_str());
    // Passed on as it is.
    const ilm::result<int> passed = bad.failure();
    CHECK(!passed && passed.status() == ILMAP_E_UNSORTED && passed.index() == 2);
    // result<void>.
    const ilm::result<void> fine;
    CHECK(fine && fine.status() == ILMAP_OK);
    const ilm::result<void> no = ilm::failure(ILMAP_E_NOT_FOUND, "x");
    CHECK(!no && no.message() == std::string("x: ") + ilmap_status_str(ILMAP_E_NOT_FOUND));
#if ILMAP_CPP_EXCEPTIONS
    // value() of a failure throws the error the throwing form throws.
    bool thrown = false;
    try {
        (void)bad.value();
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_UNSORTED && e.index() == 2 && bad.message() == e.what();
    }
    CHECK(thrown);
#endif
}

static void test_map()
{
    const ilm::map m = ilm::map::create(ilm::nothrow, seed).value();
    const ilm::result<std::vector<ilmap_entry>> all = m.entries(ilm::nothrow);
    CHECK_OK(all);
    CHECK(all && all->size() == 3 && (*all)[1].new_offset == 10);
    const auto bytes = m.serialize(ilm::nothrow);
    CHECK_OK(bytes);
    CHECK(bytes && bytes->size() == 32 + 12 * 3);
    const auto loaded = ilm::map::deserialize(ilm::nothrow, *bytes);
    CHECK(loaded && loaded->old_to_new(7) == 10);
    std::vector<std::uint8_t> broken = *bytes;
    broken[40] ^= 0xFF;
    const auto refused = ilm::map::deserialize(ilm::nothrow, broken);
    CHECK(!refused && refused.status() == ILMAP_E_FORMAT && contains(refused.message(), "ilmap_deserialize"));
    CHECK(!ilm::map_ref().serialize(ilm::nothrow) &&
          ilm::map_ref().serialize(ilm::nothrow).status() == ILMAP_E_INVALID_ARG);

    const auto inv = m.invert(ilm::nothrow);
    CHECK(inv && inv->old_to_new(15) == 5);
    unsigned exact = 0;
    const auto id = m.compose(ilm::nothrow, *inv, 0, &exact);
    CHECK(id && id->old_to_new(9) == 9 && exact != 0);
    const auto same = m.equivalent(ilm::nothrow, *loaded);
    CHECK(same && *same);
    const auto other = m.equivalent(ilm::nothrow, *inv);
    CHECK(other && !*other);
    const auto no_dirs = m.equivalent(ilm::nothrow, *inv, 0);
    CHECK(!no_dirs && no_dirs.status() == ILMAP_E_INVALID_ARG);
    const auto lenient = ilm::map::create(ilm::nothrow, { { 0, 0, 1 }, { 9, 20, 1 }, { 5, 10, 1 } },
                                          ilm::lenient);
    CHECK(lenient && lenient->is_lenient());
}

static void test_native_map()
{
    const std::vector<ilmap_native_entry> entries = {
        { ilm::prolog, 0, 4 }, { 0, 4, 12 }, { 5, 12, 20 }, { ilm::epilog, 20, 30 } };
    const auto nm = ilm::native_map::from_entries(ilm::nothrow, entries, 30);
    CHECK_OK(nm);
    CHECK(nm && nm->native_to_il(15).il_offset == 5);
    const ilm::native_to_il_answer a = nm->native_to_il(4);
    CHECK(a.il_offset == 0 && a.mapping == ILMAP_MAPPING_EXACT);
    const auto exported = nm->entries(ilm::nothrow);
    CHECK(exported && exported->size() == 4);
    const auto records = nm->records(ilm::nothrow);
    CHECK(records && records->size() == 4);
    const auto calls = nm->call_sites(ilm::nothrow);
    CHECK(calls && calls->empty());
    const auto ranges = nm->ranges(ilm::nothrow, 5);
    CHECK(ranges && ranges->size() == 1 && (*ranges)[0].native_start == 12);
    const auto bytes = nm->serialize(ilm::nothrow);
    CHECK(bytes && !bytes->empty());
    const auto loaded = ilm::native_map::deserialize(ilm::nothrow, *bytes);
    CHECK(loaded && loaded->native_to_il(15).il_offset == 5);
    const ilmap_native_entry overlapping[] = { { 0, 0, 10 }, { 1, 5, 12 } };
    const auto overlap = ilm::native_map::from_entries(ilm::nothrow, overlapping, 30);
    CHECK(!overlap && overlap.status() == ILMAP_E_OVERLAP && overlap.index() == 1);

    // build(): the C order (jit, instrumented, code_size, flags).
    const ilm::map il_map = ilm::map::create(ilm::nothrow, seed).value();
    const ilmap_boundary jit[] = { { 0, ilm::prolog, ILMAP_SOURCE_STACK_EMPTY },
                                   { 4, 0, ILMAP_SOURCE_STACK_EMPTY },
                                   { 12, 10, ILMAP_SOURCE_STACK_EMPTY },
                                   { 20, ilm::epilog, ILMAP_SOURCE_STACK_EMPTY } };
    const auto built = ilm::native_map::build(ilm::nothrow, jit, il_map, 30);
    CHECK(built && built->native_to_il(15).il_offset == 5 && built->code_size() == 30);
    const auto plain = ilm::native_map::build(ilm::nothrow, jit, nullptr, 30);
    CHECK(plain && plain->native_to_il(15).il_offset == 10);
    const ilmap_boundary beyond[] = { { 0, 0, ILMAP_SOURCE_STACK_EMPTY },
                                      { 40, 2, ILMAP_SOURCE_STACK_EMPTY } };
    const auto too_far = ilm::native_map::build(ilm::nothrow, beyond, {}, 30);
    CHECK(!too_far && too_far.status() == ILMAP_E_CODE_SIZE && too_far.index() == 1);

    // translate(): an export without the COR_IL_MAP, through it.
    const std::vector<ilmap_native_entry> raw = { { 0, 4, 12 }, { 10, 12, 20 } };
    bool lossless = false;
    const auto translated = ilm::native_map::translate(ilm::nothrow, raw, 30, il_map, 0, &lossless);
    CHECK(translated && translated->native_to_il(15).il_offset == 5);
}

static void test_rewrite_and_sig()
{
    const std::uint8_t body[] = { (2 << 2) | 2, 0x00, 0x2A };
    const std::uint8_t nop[] = { 0x00 };
    const ilmap_il_insertion ins[] = { { 1, 1, nop } };
    const auto rw = ilm::rewrite::create(ilm::nothrow, body, ins);
    CHECK_OK(rw);
    CHECK(rw && rw->body().size() == 4 && rw->old_to_new(1) == std::optional<std::uint32_t>(2));
    const auto info = rw->info(ilm::nothrow);
    CHECK(info && info->instructions == 2 && info->code_size == 3);
    const auto rmap = rw->to_map(ilm::nothrow);
    CHECK(rmap && rmap->old_to_new(1) == 1);
    const ilmap_il_insertion inside[] = { { 0, 1, nop }, { 3, 1, nop } }; // 3: past the code
    const auto bad_rw = ilm::rewrite::create(ilm::nothrow, body, inside);
    CHECK(!bad_rw && bad_rw.status() == ILMAP_E_EDIT && bad_rw.index() == 1);
    CHECK(!ilm::rewrite().info(ilm::nothrow));
    const ilmap_il_wrap_spec spec = { 0x0A000001, 0x0A000002, 0x01000003, 0x06000004,
                                      0x11000005, 1, 0, 0x01000006, 0 };
    const std::uint8_t jumps[] = { (6 << 2) | 2, 0x00, 0x27, 0x01, 0x00, 0x00, 0x06 };
    const auto refused = ilm::rewrite::wrap(ilm::nothrow, jumps, spec);
    CHECK(!refused && refused.status() == ILMAP_E_UNSUPPORTED && refused.index() == 1);
    const auto wrapped = ilm::rewrite::wrap(ilm::nothrow, body, spec);
    CHECK(wrapped && wrapped->entries().size() == 2);

    const std::vector<std::uint8_t> blob{ 0x20, 0x02, 0x01, 0x08, 0x1D, 0x0E };
    const auto g = ilm::sig::decode(ilm::nothrow, blob);
    CHECK_OK(g);
    const auto sinfo = g->info(ilm::nothrow);
    CHECK(sinfo && sinfo->count == 2);
    const auto item = g->item(ilm::nothrow, 0, 0);
    CHECK(item && *item != ILMAP_SIG_NO_NODE);
    const auto node = g->node(ilm::nothrow, *item);
    CHECK(node && node->element == 0x08);
    const auto enc = g->encode(ilm::nothrow);
    CHECK(enc && *enc == blob);
    const auto slots = g->classify(ilm::nothrow, nullptr, ILMAP_SIG_POINTER_8);
    CHECK(slots && slots->size() == 4 && (*slots)[0].role == ILMAP_SIG_ROLE_THIS);
    const auto no_item = g->item(ilm::nothrow, 0, 5);
    CHECK(!no_item && no_item.status() == ILMAP_E_NOT_FOUND);
    const std::vector<std::uint8_t> bad{ 0x20, 0x01, 0x01, 0x17 };
    const auto bad_sig = ilm::sig::decode(ilm::nothrow, bad);
    CHECK(!bad_sig && bad_sig.status() == ILMAP_E_FORMAT && bad_sig.index() == 3);

    auto fm = ilm::fid_mapper::create(ilm::nothrow, 16);
    CHECK_OK(fm);
    ilm::fid_mapper mapper = std::move(fm).value();
    CHECK(mapper.map_function(0x1234) && mapper.lookup(0x1234)->client_id == 1);
    const auto fstats = mapper.stats(ilm::nothrow);
    CHECK(fstats && fstats->hooked == 1);
    const auto none = ilm::fid_mapper::create(ilm::nothrow, 0);
    CHECK(!none && none.status() == ILMAP_E_INVALID_ARG);
}

// The IL side (see consumer.cpp for the body): try { nop; leave L } catch
// { pop; leave L } L: ret.
static const std::uint8_t fat_body[] = {
    0x0B, 0x30, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A, 0x00,
    0x01, 0x10, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x03, 0x01, 0x00, 0x00, 0x01
};

static void test_il()
{
    const ilm::result<ilmap_il_body> body = ilm::il_body_parse(ilm::nothrow, fat_body);
    CHECK_OK(body);
    if (!body)
        return;
    CHECK(body->code_size == 7 && body->eh_count == 1 && body->eh_fat == 0);
    const auto clauses = ilm::il_body_clauses(ilm::nothrow, *body);
    CHECK(clauses && clauses->size() == 1 && (*clauses)[0].handler_offset == 3 &&
          (*clauses)[0].class_or_filter == 0x01000001u);
    CHECK(ilm::il_body_validate(ilm::nothrow, *body).ok());
    const ilm::span<const std::uint8_t> code(body->code, body->code_size);
    const auto starts = ilm::il_starts(ilm::nothrow, code);
    CHECK(starts && (*starts == std::vector<std::uint32_t>{ 0, 1, 3, 4, 6 }));
    const auto instrs = ilm::il_decode(ilm::nothrow, code);
    CHECK(instrs && instrs->size() == 5 && (*instrs)[3].opcode == 0xDE &&
          (*instrs)[3].target == 6 && (*instrs)[3].length == 2);
    const ilmap_edit edits[] = { { ILMAP_EDIT_INSERT, 3, 5 }, { ILMAP_EDIT_REPLACE, 1, 5 },
                                 { ILMAP_EDIT_INSERT, 7, 2 } };
    const auto layout = ilm::edits_build(ilm::nothrow, *starts, body->code_size, edits);
    CHECK_OK(layout);
    CHECK(layout && layout->new_code_size == 17 &&
          (layout->new_offsets == std::vector<std::uint32_t>{ 0, 1, 11, 12, 14 }) &&
          layout->entries.size() == 5 && layout->entries[2].new_offset == 6);
    // The layout's entries are a strict COR_IL_MAP.
    const auto m = ilm::map::create(ilm::nothrow, layout->entries);
    CHECK(m && m->old_to_new(3) == 6 && m->new_to_old(8) == 3);

    // Refusals, each with where.
    const ilmap_edit twice[] = { { ILMAP_EDIT_REPLACE, 1, 5 }, { ILMAP_EDIT_REPLACE, 1, 5 } };
    const auto two = ilm::edits_build(ilm::nothrow, *starts, body->code_size, twice);
    CHECK(!two && two.status() == ILMAP_E_EDIT && two.index() == 1);
    const std::uint32_t unsorted_starts[] = { 0, 3, 1 };
    const auto bad_starts = ilm::edits_build(ilm::nothrow, unsorted_starts, 7, {});
    CHECK(!bad_starts && bad_starts.status() == ILMAP_E_INVALID_ARG);
    const std::uint8_t to_nowhere[] = { 0x2B, 0x05, 0x2A }; // br.s +5: past the end
    const auto br = ilm::il_decode(ilm::nothrow, to_nowhere);
    CHECK(!br && br.status() == ILMAP_E_IL_BRANCH && br.index() == 0);
    const std::uint8_t into_operand[] = { 0x2B, 0xFF, 0x2A }; // br.s -1: into itself
    const auto mid = ilm::il_starts(ilm::nothrow, into_operand);
    CHECK(!mid && mid.status() == ILMAP_E_IL_BRANCH);
    const std::uint8_t cut[] = { 0x00, 0xDE };
    const auto truncated = ilm::il_starts(ilm::nothrow, cut);
    CHECK(!truncated && truncated.status() == ILMAP_E_IL_TRUNCATED && truncated.index() == 1);
    const std::uint8_t fat_but_short[] = { 0x0B, 0x30, 0x02, 0x00 };
    const auto header = ilm::il_body_parse(ilm::nothrow, fat_but_short);
    CHECK(!header && header.status() == ILMAP_E_IL_TRUNCATED);
    // A clause that ends inside an instruction: the body parses, does not
    // validate (the clause's index).
    std::array<std::uint8_t, sizeof fat_body> skewed{};
    std::memcpy(skewed.data(), fat_body, sizeof fat_body);
    skewed[28] = 2; // try_length 3 -> 2: the try ends inside the leave
    const auto parsed = ilm::il_body_parse(ilm::nothrow, skewed);
    CHECK(parsed);
    const auto invalid = ilm::il_body_validate(ilm::nothrow, *parsed);
    CHECK(!invalid && invalid.status() == ILMAP_E_IL_EH && invalid.index() == 0);
}

static std::vector<std::uint8_t> read_bytes(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f),
                                     std::istreambuf_iterator<char>());
}

static void mark_released(void *flag) { *static_cast<bool *>(flag) = true; }

static void test_pdb(const std::string &dir)
{
    const std::vector<std::uint8_t> bytes = read_bytes(dir + "/tiny.pdb");
    CHECK(!bytes.empty());
    const auto opened = ilm::pdb::open(ilm::nothrow, bytes);
    CHECK_OK(opened);
    if (!opened)
        return;
    const ilm::pdb &p = *opened;

    // pdb_ref: the read operations, from the pdb or a raw handle.
    const ilm::pdb_ref views[] = { p, ilm::pdb_ref(p.get()) };
    for (const ilm::pdb_ref &v : views) {
        const auto info = v.info(ilm::nothrow);
        CHECK(info && info->method_count >= 3 && info->document_count >= 1);
        const auto sp = v.find_source(0x06000001, 0);
        CHECK(sp && sp->start_line == 7 && sp->start_column == 13);
        const auto name = v.document_name(ilm::nothrow, sp ? sp->document : 1);
        CHECK(name && *name == "/src/Tiny.cs");
        char buffer[32];
        const ilm::result<std::string_view> view = v.document_name(ilm::nothrow, 1, buffer);
        CHECK(view && *view == "/src/Tiny.cs" && view->data() == buffer && buffer[12] == '\0');
        std::array<char, 13> exact{};
        CHECK(v.document_name(ilm::nothrow, 1, exact).ok());
        std::array<char, 12> one_short{};
        const auto short_view = v.document_name(ilm::nothrow, 1, one_short);
        CHECK(!short_view && short_view.status() == ILMAP_E_TRUNCATED &&
              contains(short_view.message(), "needs 13 bytes, the buffer holds 12"));
        const auto missing = v.document_name(ilm::nothrow, 1000);
        CHECK(!missing && missing.status() == ILMAP_E_NOT_FOUND);
        const auto points = v.sequence_points(ilm::nothrow, 0x06000001);
        CHECK(points && !points->empty());
        const auto lines = v.lines(ilm::nothrow, 0x06000002);
        CHECK(lines && lines->find_source(3) && lines->find_source(3)->start_line == 16);
        const auto not_method = v.lines(ilm::nothrow, 0x02000001);
        CHECK(!not_method && not_method.status() == ILMAP_E_INVALID_ARG);
        if (points) {
            const ilmap_entry none[] = { { 0xFFFFFF00u, 0, 1 } };
            const auto unmapped = ilm::check_map(ilm::nothrow, *points, none);
            CHECK(unmapped && !unmapped->empty());
        }
    }
    CHECK(!ilm::pdb_ref().info(ilm::nothrow));

    // Refused bytes: the defect and its offset; the caller keeps them.
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + 16);
    const auto refused = ilm::pdb::open(ilm::nothrow, std::move(cut));
    CHECK(!refused && refused.status() == ILMAP_E_FORMAT && refused.index() != ilm::no_index);
    CHECK(cut.size() == 16);

    // release() over owned bytes: the handle and the bytes (heap vector),
    // freed by hand in the documented order.
    std::vector<std::uint8_t> copy = bytes;
    const std::uint8_t *where = copy.data();
    auto owned = ilm::pdb::open(ilm::nothrow, std::move(copy));
    CHECK(owned && copy.empty());
    ilm::released_pdb parts = owned->release();
    CHECK(!*owned && parts.pdb && parts.release && parts.context);
    CHECK(static_cast<std::vector<std::uint8_t> *>(parts.context)->data() == where);
    CHECK(ilm::pdb_ref(parts.pdb).find_source(0x06000001, 0));
    ilmap_pdb_free(parts.pdb);
    parts.release(parts.context);
    // ... or taken back, or moved around: one owner at a time.
    auto again = ilm::pdb::open(ilm::nothrow, std::vector<std::uint8_t>(bytes));
    CHECK(again);
    ilm::pdb back = ilm::pdb::adopt(again->release());
    ilm::pdb moved;
    moved = std::move(back);
    CHECK(!back && moved.find_source(0x06000002, 3));
    moved = ilm::pdb();
    CHECK(!moved);
    // A pdb over the caller's bytes hands over the handle only.
    auto zero_copy = ilm::pdb::open(ilm::nothrow, bytes);
    const ilm::released_pdb handle_only = zero_copy->release();
    CHECK(handle_only.pdb && !handle_only.release && !handle_only.context);
    // adopt() with a release: called after the handle is freed.
    bool released = false;
    {
        const ilm::pdb adopted = ilm::pdb::adopt(handle_only.pdb, &mark_released, &released);
        CHECK(adopted.find_source(0x06000001, 0));
    }
    CHECK(released);

    // An assembly's PDB, from the file beside it.
    ilmap_pdb_origin origin = ILMAP_PDB_ORIGIN_NONE;
    const auto beside = ilm::pdb::for_assembly(ilm::nothrow, (dir + "/tiny.dll").c_str(), {}, &origin);
    CHECK(beside && beside->find_source(0x06000001, 0) && origin != ILMAP_PDB_ORIGIN_NONE);
    const auto nowhere = ilm::pdb::for_assembly(ilm::nothrow, (dir + "/no-such.dll").c_str());
    CHECK(!nowhere && nowhere.status() == ILMAP_E_IO);
}

static void test_store(const std::string &dir)
{
    const ilm::function_id fid = 0x100;
    const ilm::module_id module = 0x200;
    auto created = ilm::store::create(ilm::nothrow);
    CHECK_OK(created);
    if (!created)
        return;
    std::optional<ilm::store> st(std::move(created).value());
    CHECK_OK(st->add_function(ilm::nothrow, fid, module, 0x06000001));
    CHECK(st->add_function(ilm::nothrow, fid, module, 0x06000002).status() == ILMAP_E_EXISTS);
    ilm::map il_map = ilm::map::create(ilm::nothrow, seed).value();
    CHECK_OK(st->set_il_map(ilm::nothrow, module, 0x06000001, std::move(il_map)));
    CHECK(!il_map); // consumed
    const ilmap_native_entry ne[] = { { 0, 0, 12 }, { 10, 12, 20 }, { 20, 20, 30 } };
    ilm::native_map nm = ilm::native_map::from_entries(ilm::nothrow, ne, 30).value();
    const ilmap_code_range short_code[] = { { 0x30000, 24 } };
    const auto wrong = st->add_body(ilm::nothrow, fid, 0, short_code, std::move(nm));
    CHECK(!wrong && wrong.status() == ILMAP_E_CODE_SIZE && nm && // not consumed
          contains(wrong.message(), "code size is 30 bytes, the ranges hold 24"));
    const ilmap_code_range code[] = { { 0x10000, 30 } };
    CHECK_OK(st->add_body(ilm::nothrow, fid, 0, code, std::move(nm)));
    CHECK(!nm);
    CHECK_OK(st->add_version(ilm::nothrow, fid, 1, ilm::map(), ILMAP_VERSION_CURRENT));
    CHECK_OK(st->set_current(ilm::nothrow, fid, 0));
    ilm::map for_function = ilm::map::create(ilm::nothrow, seed).value();
    CHECK_OK(st->set_il_map_for_function(ilm::nothrow, fid, std::move(for_function)));
    const auto reverted = st->revert(ilm::nothrow, module, 0x06000001);
    CHECK(reverted && *reverted == 0);
    CHECK_OK(st->clear_il_map(ilm::nothrow, module, 0x06000009));

    ilm::result<ilm::reader> registered = st->register_reader(ilm::nothrow);
    CHECK_OK(registered);
    ilm::reader rd = std::move(registered).value();
    {
        const ilm::snapshot snap = rd.begin();
        const auto loc = snap.lookup(0x10000 + 15);
        CHECK(loc && loc->original_il_offset == 5);
        const auto versions = snap.versions(ilm::nothrow, fid);
        CHECK(versions && (*versions == std::vector<ilm::rejit_id>{ 0, 1 }));
        const auto bodies = snap.bodies(ilm::nothrow, fid, 0);
        CHECK(bodies && (*bodies == std::vector<std::uintptr_t>{ 0x10000 }));
        const auto unknown = snap.versions(ilm::nothrow, 0x999);
        CHECK(!unknown && unknown.status() == ILMAP_E_NOT_FOUND);
        const auto entries = snap.native_entries(ilm::nothrow, 0x10000);
        CHECK(entries && entries->size() == 3);
        CHECK(snap.native_entries(ilm::nothrow, 0x20000).status() == ILMAP_E_NOT_FOUND);
        // The map set for the function (seed) and the one its body captured.
        const auto il_entries = snap.il_entries(ilm::nothrow, fid, 0);
        CHECK(il_entries && il_entries->size() == 3);
        const auto method_entries = snap.method_entries(ilm::nothrow, module, 0x06000001);
        CHECK(method_entries && method_entries->size() == 3);
        const auto body_entries = snap.body_il_entries(ilm::nothrow, 0x10000);
        CHECK(body_entries && body_entries->size() == 3);
        CHECK(snap.il_entries(ilm::nothrow, fid, 7).status() == ILMAP_E_NOT_FOUND);
    }
    const auto removed_version = st->remove_version(ilm::nothrow, fid, 1);
    CHECK(removed_version && removed_version->versions == 1);
    CHECK(st->remove_version(ilm::nothrow, fid, 1).status() == ILMAP_E_NOT_FOUND);
    CHECK_OK(st->remove_body(ilm::nothrow, 0x10000));
    CHECK(!rd.lookup(0x10000 + 15));
    CHECK_OK(st->clear_il_map(ilm::nothrow, module, 0x06000001));

    // A module's PDB, over the caller's bytes, its release marking when
    // the store is done with it; an empty pdb is refused, not a detach.
    const std::vector<std::uint8_t> bytes = read_bytes(dir + "/tiny.pdb");
    bool freed = false;
    ilm::pdb empty;
    CHECK(st->attach_pdb(ilm::nothrow, module, std::move(empty)).status() == ILMAP_E_INVALID_ARG);
    ilm::pdb p = ilm::pdb::adopt(ilm::pdb::open(ilm::nothrow, bytes)->release().pdb,
                                 &mark_released, &freed);
    const ilmap_pdb *handle = p.get();
    const auto zero = st->attach_pdb(ilm::nothrow, 0, std::move(p));
    CHECK(!zero && zero.status() == ILMAP_E_INVALID_ARG && p.get() == handle); // unchanged
    CHECK_OK(st->attach_pdb(ilm::nothrow, module, std::move(p)));
    CHECK(!p);
    const ilmap_native_entry ne2[] = { { 0, 0, 12 }, { 3, 12, 20 } };
    const ilmap_code_range code2[] = { { 0x50000, 20 } };
    CHECK_OK(st->add_body(ilm::nothrow, fid, 0, code2,
                          ilm::native_map::from_entries(ilm::nothrow, ne2, 20).value()));
    const auto stats = st->stats(ilm::nothrow);
    CHECK(stats && stats->pdbs == 1 && stats->readers == 1);

    // The reader outlives the store object: it still answers, the state
    // (and the PDB) go with the reader.
    st.reset();
    CHECK(!freed);
    // Without an IL map, native 14 is IL 3, line 8 of method 0x06000001.
    const ilm::source_answer a = rd.lookup_source(0x50000 + 14);
    CHECK(a.status == ILMAP_OK && a.source.point.start_line == 8);
    {
        const ilm::snapshot snap = rd.begin();
        const ilm::source_answer b = snap.lookup_source(0x50000 + 14);
        char name[32];
        const auto doc = ilm::pdb_ref(b.source.pdb).document_name(ilm::nothrow,
                                                                   b.source.point.document, name);
        CHECK(b.status == ILMAP_OK && doc && *doc == "/src/Tiny.cs");
    }
    // Moving another reader in: this one's share goes, and with it the state.
    auto second = ilm::store::create(ilm::nothrow, 1);
    CHECK_OK(second);
    auto other_reader = second->register_reader(ilm::nothrow);
    CHECK_OK(other_reader);
    const auto full = second->register_reader(ilm::nothrow);
    CHECK(!full && full.status() == ILMAP_E_FULL);
    rd = std::move(other_reader).value();
    CHECK(freed && rd);
    second = ilm::failure(ILMAP_E_NOT_FOUND, "dropped"); // the store object goes
    CHECK(!rd.lookup(0x50000 + 14));
    // Registering on a moved-from store fails, it does not crash.
    auto third = ilm::store::create(ilm::nothrow).value();
    const ilm::store gone = std::move(third);
    CHECK(gone && !third && third.register_reader(ilm::nothrow).status() == ILMAP_E_INVALID_ARG);
    const auto reclaimed = ilm::store::create(ilm::nothrow)->reclaim(ilm::nothrow);
    CHECK(reclaimed && *reclaimed == 0);
}

int main()
{
    test_result();
    test_map();
    test_native_map();
    test_rewrite_and_sig();
    test_il();
    const char *dir = std::getenv("ILMAP_CONSUMER_DATA");
    CHECK(dir != nullptr); // the script sets it: this test never skips
    if (dir) {
        test_pdb(dir);
        test_store(dir);
    }
    std::printf("libilmap %s (C++, %s): %d failure(s)\n", ilm::version(),
                ILMAP_CPP_EXCEPTIONS ? "result forms, exceptions on" : "no exceptions", failures);
    return failures == 0 ? 0 : 1;
}
