// The C++ consumer of the packaging test (test/packaging-test.sh): uses
// only ilmap.hpp, built against the installed library (pkg-config, CMake)
// and as a Meson subproject, with -Wall -Wextra -Wpedantic -Werror (and
// more). Exits non-zero unless every answer is right. The throwing forms:
// consumer-nothrow.cpp covers the result<T> forms, with and without
// exceptions.
#include <ilmap.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace ilm = ilmap_cpp;

static int failures = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                    \
        }                                                                  \
    } while (0)

static_assert(!std::is_copy_constructible_v<ilm::map>, "map is move-only");
static_assert(std::is_nothrow_move_constructible_v<ilm::map>, "map moves without throwing");
static_assert(!std::is_copy_constructible_v<ilm::native_map>, "native_map is move-only");
static_assert(std::is_nothrow_move_assignable_v<ilm::native_map>, "native_map moves");
static_assert(!std::is_copy_constructible_v<ilm::store>, "store is move-only");
static_assert(noexcept(std::declval<const ilm::map &>().old_to_new(0u)), "lookups are noexcept");
static_assert(noexcept(std::declval<const ilm::native_map &>().native_to_il(0u)), "noexcept");
static_assert(noexcept(std::declval<const ilm::native_map &>().il_to_native(0u)), "noexcept");

static void test_map()
{
    // The rewrite inserted 5 bytes before old offset 5 and 6 before old 9.
    const ilmap_entry seed[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    const ilm::map m(seed);
    CHECK(m.old_to_new(7) == 10);
    CHECK(m.new_to_old(15) == 5);
    CHECK(m.new_to_old_dac(15) == 5);
    CHECK(m.old_to_new(100) == 20);
    CHECK(m.size() == 3);
    CHECK(!m.is_lenient());

    // Batch lookups over spans: a std::array in, a std::vector out, in place.
    const std::array<std::uint32_t, 4> in{ { 0, 5, 7, 9 } };
    std::vector<std::uint32_t> out(4);
    CHECK(m.old_to_new_batch(in, out) == 4);
    CHECK((out == std::vector<std::uint32_t>{ 0, 10, 10, 20 }));
    m.new_to_old_batch(out);
    CHECK((out == std::vector<std::uint32_t>{ 0, 5, 5, 9 }));
    const std::array<std::uint32_t, 3> dac_in{ { 0, 15, 0x80000000u } };
    std::vector<std::uint32_t> dac_out(3);
    CHECK(m.new_to_old_dac_batch(dac_in, dac_out) == 3);
    CHECK((dac_out == std::vector<std::uint32_t>{ 0, 5, 0x80000000u }));

    // Copy-out through the two-call buffer protocol.
    const std::vector<ilmap_entry> all = m.entries();
    CHECK(all.size() == 3 && all[1].old_offset == 5 && all[1].new_offset == 10);

    // A braced list, a vector, a pointer and a count.
    const ilm::map from_list({ { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } });
    CHECK(from_list.old_to_new(7) == 10);
    const ilm::map from_vector(all);
    CHECK(from_vector.new_to_old(15) == 5);
    const ilm::map from_pointer(ilm::span<const ilmap_entry>(all.data(), all.size()));
    CHECK(m.equivalent(from_pointer));

    // Serialize, load back.
    const std::vector<std::uint8_t> bytes = m.serialize();
    CHECK(bytes.size() == 32 + 12 * 3);
    const ilm::map loaded = ilm::map::deserialize(bytes);
    CHECK(loaded.old_to_new(7) == 10);

    // Algebra: m composed with its inverse is the identity on m's keys.
    const ilm::map inv = m.invert();
    CHECK(inv.old_to_new(15) == 5);
    const ilm::map id = m.compose(inv);
    CHECK(id.old_to_new(5) == 5 && id.old_to_new(9) == 9);

    // Moves transfer ownership; the moved-from map is the identity.
    ilm::map a(seed);
    ilm::map b = std::move(a);
    CHECK(!a && b);
    CHECK(a.old_to_new(7) == 7 && b.old_to_new(7) == 10);
    a = std::move(b);
    CHECK(a && !b && a.old_to_new(7) == 10);
    ilm::map_ref ref = a;
    CHECK(ref.get() == a.get() && ref.new_to_old(15) == 5);

    // Errors are exceptions with the status, its string and the index.
    const ilmap_entry unsorted[] = { { 0, 0, 1 }, { 9, 20, 1 }, { 5, 10, 1 } };
    bool thrown = false;
    try {
        ilm::map bad(unsorted);
    } catch (const ilm::error &e) {
        thrown = true;
        CHECK(e.status() == ILMAP_E_UNSORTED);
        CHECK(e.index() == 2);
        CHECK(std::strcmp(e.status_str(), ilmap_status_str(ILMAP_E_UNSORTED)) == 0);
        CHECK(std::strstr(e.what(), "ilmap_create") != nullptr);
        std::printf("expected error: %s\n", e.what());
    }
    CHECK(thrown);
    const ilm::validation v = ilm::map::validate(unsorted);
    CHECK(!v && v.defect == ILMAP_DEFECT_OLD_DESCENDING && v.bad_index == 2);
    const ilm::map lenient_map(unsorted, ilm::lenient);
    CHECK(lenient_map.is_lenient());
}

static void test_native_map()
{
    // An exported IL-to-native map: prolog, IL 0, IL 5, epilog.
    const std::vector<ilmap_native_entry> entries = {
        { ilm::prolog, 0, 4 }, { 0, 4, 12 }, { 5, 12, 20 }, { ilm::epilog, 20, 30 } };
    const ilm::native_map nm(entries, 30);
    CHECK(nm.size() == 4 && nm.code_size() == 30 && nm.last_il() == 5);

    ilm::native_to_il_answer r = nm.native_to_il(15);
    CHECK(r.il_offset == 5 && r.mapping == ILMAP_MAPPING_APPROXIMATE);
    r = nm.native_to_il(4);
    CHECK(r.il_offset == 0 && r.mapping == ILMAP_MAPPING_EXACT);
    r = nm.native_to_il(2);
    CHECK(r.il_offset == 0 && r.mapping == ILMAP_MAPPING_PROLOG);
    r = nm.native_to_il(25);
    CHECK(r.il_offset == 5 && r.mapping == ILMAP_MAPPING_EPILOG);
    CHECK(nm.native_to_il(40).mapping == ILMAP_MAPPING_NO_INFO);

    const auto floor = nm.il_to_native(7);
    CHECK(floor && floor->entry.il_offset == 5 && floor->entry.native_start == 12 &&
          floor->entry.native_end == 20 && !floor->il_matched);
    const auto exact = nm.il_to_native(0);
    CHECK(exact && exact->il_matched && exact->entry.native_start == 4);
    CHECK(!ilm::native_map().il_to_native(0));

    const std::vector<ilmap_native_entry> exported = nm.entries();
    CHECK(exported.size() == 4 && exported[0].il_offset == ilm::prolog);
    CHECK(nm.ranges(5).size() == 1 && nm.ranges(6).empty());
    CHECK(nm.call_sites().empty());

    const ilm::native_map loaded = ilm::native_map::deserialize(nm.serialize());
    CHECK(loaded.native_to_il(15).il_offset == 5);

    // Built from JIT boundaries through the worked example's map
    // (doc/il-maps.md#worked-example): IL offsets come out in original
    // coordinates (instrumented 10 -> original 5).
    const ilmap_entry seed[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    const ilm::map il_map(seed);
    bool thrown = false;
    const ilmap_boundary jit[] = { { 0, ilm::prolog, ILMAP_SOURCE_STACK_EMPTY },
                                   { 4, 0, ILMAP_SOURCE_STACK_EMPTY },
                                   { 12, 10, ILMAP_SOURCE_STACK_EMPTY },
                                   { 20, ilm::epilog, ILMAP_SOURCE_STACK_EMPTY } };
    const ilm::native_map built = ilm::native_map::build(jit, il_map, 30);
    CHECK(built.native_to_il(15).il_offset == 5);
    // Without a map (the C order: jit, instrumented, code_size, flags).
    const ilm::native_map plain = ilm::native_map::build(jit, nullptr, 30, ilm::dac);
    CHECK(plain.native_to_il(15).il_offset == 10 && plain.is_dac());
    thrown = false;
    try {
        const ilmap_boundary beyond[] = { { 0, 0, ILMAP_SOURCE_STACK_EMPTY },
                                          { 40, 2, ILMAP_SOURCE_STACK_EMPTY } };
        (void)ilm::native_map::build(beyond, {}, 30);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_CODE_SIZE && e.index() == 1;
    }
    CHECK(thrown);

    thrown = false;
    try {
        const ilmap_native_entry overlapping[] = { { 0, 0, 10 }, { 1, 5, 12 } };
        ilm::native_map bad(overlapping, 30);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_OVERLAP && e.index() == 1;
    }
    CHECK(thrown);
}

static void test_rewrite()
{
    // A tiny body: nop; ret. One nop inserted before the ret.
    const std::uint8_t body[] = { (2 << 2) | 2, 0x00, 0x2A };
    const std::uint8_t nop[] = { 0x00 };
    const ilmap_il_insertion ins[] = { { 1, 1, nop } };
    const ilm::rewrite rw(body, ins);
    CHECK(rw.body().size() == 4);
    CHECK(rw.entries().size() == 2);
    CHECK(rw.old_to_new(1) == std::optional<std::uint32_t>(2));
    CHECK(!rw.old_to_new(2));
    CHECK(rw.to_map().old_to_new(1) == 1);

    // The same body wrapped in Begin/End: four clauses more, ret still
    // mapped, the nop where the prologue ends.
    const ilmap_il_wrap_spec spec = { 0x0A000001, 0x0A000002, 0x01000003, 0x06000004,
                                      0x11000005, 0, 0, 0, 0 };
    const ilm::rewrite wrapped = ilm::rewrite::wrap(body, spec);
    CHECK(wrapped.entries().size() == 2 && wrapped.entries()[0].new_offset == 0);
    CHECK(wrapped.old_to_new(0).value_or(0) > 0);
}

static void test_store()
{
    const ilm::function_id fid = 0x100;
    const ilm::module_id module = 0x200;
    const std::uint32_t method = 0x06000001;
    ilm::store st;
    st.add_function(fid, module, method);
    const ilmap_entry seed[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    st.set_il_map(module, method, ilm::map(seed));
    // Native offsets 12..20 are instrumented IL 10 = original IL 5.
    const ilmap_native_entry ne[] = { { 0, 0, 12 }, { 10, 12, 20 }, { 20, 20, 30 } };
    ilm::native_map nm(ne, 30);
    const ilmap_code_range code[] = { { 0x10000, 30 } };
    st.add_body(fid, 0, code, std::move(nm));
    CHECK(!nm);  // consumed

    const ilm::reader rd = st.register_reader();
    {
        const ilm::snapshot snap = rd.begin();
        CHECK(snap);
        const auto loc = snap.lookup(0x10000 + 15);
        CHECK(loc && loc->function_id == fid && loc->native_offset == 15 &&
              loc->il_offset == 10 && loc->original_il_offset == 5);
        CHECK(!snap.lookup(0x20000));
        // The whole journey: no PDB attached, so the location and no source.
        const auto src = snap.lookup_source(0x10000 + 16, ILMAP_STORE_RETURN_ADDRESS);
        CHECK(src.status == ILMAP_E_NOT_FOUND && src.location.native_offset == 15 &&
              src.source.pdb == nullptr);
        const auto il_map = snap.il_map(fid, 0);
        CHECK(il_map && il_map->old_to_new(7) == 10);
        CHECK(snap.versions(fid) == std::vector<ilm::rejit_id>{ 0 });
        CHECK(snap.bodies(fid, 0) == std::vector<std::uintptr_t>{ 0x10000 });
        const auto entries = snap.native_entries(0x10000 + 29);
        CHECK(entries.size() == 3 && entries[1].il_offset == 10 &&
              entries[1].native_start == 12 && entries[1].native_end == 20);
        const auto il_entries = snap.il_entries(fid, 0);
        CHECK(il_entries.size() == 3 && il_entries[1].old_offset == 5 &&
              il_entries[1].new_offset == 10);
        CHECK(snap.method_entries(module, method).size() == 3);
        CHECK(snap.body_il_entries(0x10000).size() == 3);
    }
    const auto again = rd.lookup(0x10000 + 15);
    CHECK(again && again->original_il_offset == 5);

    bool thrown = false;
    try {
        st.add_function(fid, module, method + 1);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_EXISTS;
    }
    CHECK(thrown);

    // A body whose map's code size is not its ranges' total: both sizes said.
    thrown = false;
    const ilmap_code_range short_code[] = { { 0x30000, 24 } };
    ilm::native_map wrong(ne, 30);
    try {
        st.add_body(fid, 0, short_code, std::move(wrong));
    } catch (const ilm::error &e) {
        const std::string what = e.what();
        thrown = e.status() == ILMAP_E_CODE_SIZE &&
                 what.find("code size is 30 bytes, the ranges hold 24") != std::string::npos;
    }
    CHECK(thrown && wrong);  // not consumed
}

static void test_fid_mapper()
{
    ilm::fid_mapper fm(16);
    const auto first = fm.map_function(0x1234);
    CHECK(first && first->hook && first->client_id == 1);
    const auto seen = fm.lookup(0x1234);
    CHECK(seen && seen->client_id == 1);
    CHECK(fm.function(1) == std::optional<ilm::function_id>(0x1234));
    CHECK(!fm.function(2));
    CHECK(fm.stats().hooked == 1);
}

static void test_sig()
{
    // instance void M(int, string[]), decoded, encoded, classified.
    const std::vector<std::uint8_t> blob{ 0x20, 0x02, 0x01, 0x08, 0x1D, 0x0E };
    const ilm::sig g(blob);
    CHECK(g.kind() == ILMAP_SIG_KIND_METHOD && g.info().count == 2);
    CHECK(g.encode() == blob);
    const std::vector<ilmap_sig_slot> slots = g.classify(nullptr, ILMAP_SIG_POINTER_8);
    CHECK(slots.size() == 4 && slots[0].role == ILMAP_SIG_ROLE_THIS &&
          slots[1].repr == ILMAP_SIG_REPR_PRIMITIVE && slots[1].size == 4 &&
          slots[2].repr == ILMAP_SIG_REPR_OBJECT_ID && slots[3].repr == ILMAP_SIG_REPR_VOID);
    // A defect throws with its byte offset.
    const std::vector<std::uint8_t> bad{ 0x20, 0x01, 0x01, 0x17 };
    bool thrown = false;
    try {
        ilm::sig b(bad);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_FORMAT && e.index() == 3;
    }
    CHECK(thrown);
}

// The PDB classes over the test data's tiny.pdb and tiny-embedded.dll, in
// the directory ILMAP_CONSUMER_DATA names (test/packaging-test.sh sets it;
// without it this test fails: it never skips).
static std::vector<std::uint8_t> read_bytes(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f),
                                     std::istreambuf_iterator<char>());
}

static void test_pdb()
{
    const char *dir = std::getenv("ILMAP_CONSUMER_DATA");
    CHECK(dir != nullptr);
    if (!dir)
        return;
    const std::vector<std::uint8_t> bytes = read_bytes(std::string(dir) + "/tiny.pdb");
    CHECK(!bytes.empty());
    bool thrown = false;
    const ilm::pdb p(bytes); // zero-copy over bytes
    CHECK(p.info().method_count >= 3);
    // The answers `ilmap source` gives (test/cli-test.sh checks them too).
    const std::optional<ilmap_pdb_sequence_point> at0 = p.find_source(0x06000001, 0);
    CHECK(at0 && at0->start_line == 7 && at0->start_column == 13);
    CHECK(at0 && p.document_name(at0->document) == "/src/Tiny.cs");
    CHECK(!p.find_source(0x06000003, 1));
    const ilm::pdb_lines lines = p.lines(0x06000002);
    const std::optional<ilmap_pdb_sequence_point> at3 = lines.find_source(3);
    CHECK(lines.size() > 0 && at3 && at3->start_line == 16 && at3->start_column == 18);
    // Every visible point of a method, and the map check (doc/source-lines.md#map-check): a map
    // with no entry for any point lists them all.
    const std::vector<ilmap_pdb_sequence_point> points = p.sequence_points(0x06000001);
    std::size_t visible = 0;
    for (const ilmap_pdb_sequence_point &sp : points)
        visible += sp.start_line != ILMAP_PDB_HIDDEN_LINE;
    const ilmap_entry none[] = { { 0xFFFFFF00u, 0, 1 } };
    CHECK(!points.empty() && ilm::check_map(points, none).size() == visible);
    // A non-owning view, from the pdb or from the raw handle; a document
    // name into a buffer, in one call without allocating.
    const ilm::pdb_ref view = p;
    const ilm::pdb_ref raw(p.get());
    char name[64];
    CHECK(at0 && view.document_name(at0->document, name) == "/src/Tiny.cs" &&
          std::strcmp(name, "/src/Tiny.cs") == 0);
    CHECK(raw.find_source(0x06000002, 3) && raw.info().document_count == p.info().document_count);
    char small[4];
    thrown = false;
    try {
        (void)raw.document_name(1, small);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_TRUNCATED &&
                 std::strstr(e.what(), "needs 13 bytes, the buffer holds 4") != nullptr;
    }
    CHECK(thrown);
    // release(): over the caller's bytes the handle alone (release null) ...
    ilm::pdb zero_copy(bytes);
    const ilm::released_pdb parts = zero_copy.release();
    CHECK(!zero_copy && parts.pdb != nullptr && parts.release == nullptr);
    CHECK(ilm::pdb_ref(parts.pdb).find_source(0x06000001, 0));
    ilmap_pdb_free(parts.pdb);
    // ... over owned bytes the handle and the bytes, given back by adopt().
    ilm::pdb owning = ilm::pdb::open(std::vector<std::uint8_t>(bytes));
    const ilm::released_pdb owned = owning.release();
    CHECK(!owning && owned.pdb != nullptr && owned.release != nullptr && owned.context != nullptr);
    const ilm::pdb back = ilm::pdb::adopt(owned);
    CHECK(back.get() == owned.pdb && back.find_source(0x06000001, 0));
    // A defect throws with its byte offset; the bytes stay the caller's.
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + 16);
    thrown = false;
    try {
        ilm::pdb bad(std::move(cut));
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_FORMAT && e.index() != ilm::no_index;
    }
    CHECK(thrown && cut.size() == 16);
    // An assembly's PDB found as the runtime finds it: embedded (from the
    // bytes in hand), and beside the DLL (from the file), moved around.
    const std::string embedded_dll = std::string(dir) + "/tiny-embedded.dll";
    const std::vector<std::uint8_t> dll = read_bytes(embedded_dll);
    CHECK(!dll.empty());
    try {
        ilmap_pdb_origin origin = ILMAP_PDB_ORIGIN_NONE;
        ilm::pdb e = ilm::pdb::for_assembly(embedded_dll.c_str(), dll, &origin);
        ilm::pdb moved;
        moved = std::move(e);
        const std::optional<ilmap_pdb_sequence_point> sp = moved.find_source(0x06000002, 3);
        CHECK(!e && sp && sp->start_line == 16 && origin == ILMAP_PDB_ORIGIN_EMBEDDED);
    } catch (const ilm::error &e) {
        CHECK(e.status() == ILMAP_E_UNSUPPORTED); // a library built without zlib
    }
    ilmap_pdb_origin beside = ILMAP_PDB_ORIGIN_NONE;
    const ilm::pdb b = ilm::pdb::for_assembly((std::string(dir) + "/tiny.dll").c_str(), {}, &beside);
    const std::optional<ilmap_pdb_sequence_point> sb = b.find_source(0x06000001, 0);
    CHECK(sb && sb->start_line == 7 && beside != ILMAP_PDB_ORIGIN_NONE &&
          beside != ILMAP_PDB_ORIGIN_EMBEDDED);
}

// What a profiler does with the store and a module's PDB: a body of
// method 0x06000001 (IL 0 at native [0, 12), IL 3 at [12, 20)), its
// module's PDB attached from owned bytes (line 8 at IL 3, as above), a
// ReJIT version removed, then the module removed at unload.
static void test_store_pdb()
{
    const char *dir = std::getenv("ILMAP_CONSUMER_DATA");
    CHECK(dir != nullptr);
    if (!dir)
        return;
    const ilm::function_id fid = 0x300;
    const ilm::module_id module = 0x400;
    ilm::store st;
    st.add_function(fid, module, 0x06000001);
    const ilmap_native_entry ne[] = { { 0, 0, 12 }, { 3, 12, 20 } };
    const ilmap_code_range code[] = { { 0x50000, 20 } };
    st.add_body(fid, 0, code, ilm::native_map(ne, 20));
    ilm::pdb p(read_bytes(std::string(dir) + "/tiny.pdb"));
    st.attach_pdb(module, std::move(p));
    CHECK(!p); // handed over, bytes and all
    const ilm::reader rd = st.register_reader();
    {
        const ilm::snapshot snap = rd.begin();
        const auto src = snap.lookup_source(0x50000 + 14);
        CHECK(src.status == ILMAP_OK && src.source.pdb != nullptr &&
              src.source.point.start_line == 8 && src.location.il_offset == 3);
    }
    // A ReJIT version and its body, removed.
    st.add_version(fid, 1, ilm::map(), ILMAP_VERSION_CURRENT);
    const ilmap_code_range code1[] = { { 0x60000, 20 } };
    st.add_body(fid, 1, code1, ilm::native_map(ne, 20));
    const ilmap_store_removed v = st.remove_version(fid, 1);
    CHECK(v.versions == 1 && v.bodies == 1 && !rd.lookup(0x60000 + 1));
    // ModuleUnloadStarted: the function, its body and the PDB leave.
    const ilmap_store_removed m = st.remove_module(module);
    CHECK(m.functions == 1 && m.bodies == 1 && !rd.lookup(0x50000 + 1));
    CHECK(st.reclaim() == 0);
    // Detaching what is not there is fine; a PDB can come and go.
    st.detach_pdb(module);
}


// The IL side: a fat body whose code is try { nop; leave L } catch { pop;
// leave L } L: ret, with one small EH clause.
static const std::uint8_t fat_body[] = {
    0x0B, 0x30, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // header
    0x00, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A, 0x00,                         // code, pad
    0x01, 0x10, 0x00, 0x00,                                                 // EH section
    0x00, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x03, 0x01, 0x00, 0x00, 0x01  // the clause
};

static void test_il()
{
    const ilmap_il_body body = ilm::il_body_parse(fat_body);
    CHECK(body.header_size == 12 && body.code_size == 7 && body.max_stack == 2 &&
          body.eh_count == 1 && body.code == fat_body + 12);
    const std::vector<ilmap_il_clause> clauses = ilm::il_body_clauses(body);
    CHECK(clauses.size() == 1 && clauses[0].flags == ILMAP_IL_CLAUSE_CATCH &&
          clauses[0].try_offset == 0 && clauses[0].try_length == 3 &&
          clauses[0].handler_offset == 3 && clauses[0].handler_length == 3 &&
          clauses[0].class_or_filter == 0x01000001u);
    ilm::il_body_validate(body);
    const ilm::span<const std::uint8_t> code(body.code, body.code_size);
    const std::vector<std::uint32_t> starts = ilm::il_starts(code);
    CHECK((starts == std::vector<std::uint32_t>{ 0, 1, 3, 4, 6 }));
    const std::vector<ilmap_il_instr> instrs = ilm::il_decode(code);
    CHECK(instrs.size() == 5 && instrs[1].opcode == 0xDE && instrs[1].target == 6 &&
          instrs[1].operand == ILMAP_IL_BRANCH8 && instrs[4].opcode == 0x2A);
    // The first leave widened (REPLACE, 2 -> 5 bytes), 5 bytes of probe
    // before the handler's pop.
    const ilmap_edit edits[] = { { ILMAP_EDIT_INSERT, 3, 5 }, { ILMAP_EDIT_REPLACE, 1, 5 } };
    const ilm::edit_layout layout = ilm::edits_build(starts, body.code_size, edits);
    CHECK(layout.new_code_size == 15);
    CHECK((layout.new_offsets == std::vector<std::uint32_t>{ 0, 1, 11, 12, 14 }));
    CHECK(layout.entries.size() == 5 && layout.entries[2].old_offset == 3 &&
          layout.entries[2].new_offset == 6 && layout.entries[4].new_offset == 14);
    // Refusals carry where: an edit inside an instruction, a cut operand.
    bool thrown = false;
    try {
        const ilmap_edit inside[] = { { ILMAP_EDIT_INSERT, 0, 1 }, { ILMAP_EDIT_INSERT, 2, 1 } };
        (void)ilm::edits_build(starts, body.code_size, inside);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_EDIT && e.index() == 1;
    }
    CHECK(thrown);
    thrown = false;
    try {
        const std::uint8_t cut[] = { 0x00, 0xDE };
        (void)ilm::il_decode(cut);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_IL_TRUNCATED && e.index() == 1 &&
                 std::strstr(e.what(), "ilmap_il_decode") != nullptr;
    }
    CHECK(thrown);
    thrown = false;
    try {
        const std::uint8_t tiny_but_long[] = { (9 << 2) | 2, 0x00 };
        (void)ilm::il_body_parse(tiny_but_long);
    } catch (const ilm::error &e) {
        thrown = e.status() == ILMAP_E_IL_TRUNCATED;
    }
    CHECK(thrown);
}

// A reader cannot outlive its store: it shares the store's state, which
// the last of the store object and its readers frees. The PDB's release
// callback says when that happens.
static void mark_released(void *flag) { *static_cast<bool *>(flag) = true; }

static void test_store_lifetime()
{
    const char *dir = std::getenv("ILMAP_CONSUMER_DATA");
    if (!dir)
        return;
    const std::vector<std::uint8_t> bytes = read_bytes(std::string(dir) + "/tiny.pdb");
    bool freed = false;
    std::optional<ilm::store> st(std::in_place);
    st->add_function(0x500, 0x600, 0x06000002);
    const ilmap_native_entry ne[] = { { 0, 0, 12 }, { 3, 12, 20 } };
    const ilmap_code_range code[] = { { 0x70000, 20 } };
    st->add_body(0x500, 0, code, ilm::native_map(ne, 20));
    // The bytes stay the test's; the callback marks when the store is done.
    st->attach_pdb(0x600, ilm::pdb::adopt(ilm::pdb(bytes).release().pdb, &mark_released, &freed));
    ilm::reader rd = st->register_reader();
    CHECK(st->stats().readers == 1);
    st.reset(); // the store object goes first
    CHECK(!freed);
    const ilm::source_answer a = rd.lookup_source(0x70000 + 14);
    CHECK(a.status == ILMAP_OK && a.source.point.start_line == 16 && a.location.il_offset == 3);
    {
        const ilm::snapshot snap = rd.begin();
        const ilm::source_answer b = snap.lookup_source(0x70000 + 14);
        char name[64];
        CHECK(b.status == ILMAP_OK &&
              ilm::pdb_ref(b.source.pdb).document_name(b.source.point.document, name) ==
                  "/src/Tiny.cs");
    }
    rd = ilm::reader(); // the last share: the state and the PDB go now
    CHECK(freed);
}

int main()
{
    try {
        test_map();
        test_native_map();
        test_rewrite();
        test_store();
        test_fid_mapper();
        test_sig();
        test_pdb();
        test_store_pdb();
        test_il();
        test_store_lifetime();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "unexpected exception: %s\n", e.what());
        return 1;
    }
    const ilm::map m({ { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } });
    std::printf("libilmap %s (C++): old 7 -> new %u, new 15 -> old %u, %d failure(s)\n",
                ilm::version(), m.old_to_new(7), m.new_to_old(15), failures);
    return failures == 0 ? 0 : 1;
}
