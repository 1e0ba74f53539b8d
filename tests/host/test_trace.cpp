// SPDX-License-Identifier: GPL-2.0 OR MIT
// The trace file (docs/replay.md): build_trace()'s ids and counts, a round trip that
// compares every field, the writer and reader against a golden file written by hand from
// the spec (data/trace-v1.hex), and the errors of bad and truncated files (with the offset).
#include "slabctl/error.hpp"
#include "slabctl/trace.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <unistd.h>

using namespace slabctl;

namespace {

RawEvent ev(uint64_t ts, uint16_t cpu, TraceOp op, uint64_t ptr, uint32_t size = 0,
	    bool kmalloc = true, std::string cache = {})
{
	RawEvent e;
	e.ts_ns = ts;
	e.cpu = cpu;
	e.op = op;
	e.ptr = ptr;
	e.bytes_req = size;
	e.bytes_alloc = size;
	e.kmalloc = kmalloc;
	e.cache = std::move(cache);
	return e;
}

Trace sample()
{
	return build_trace({ev(30, 1, TraceOp::free, 0x1000),	// remote free of 0x1000
			    ev(10, 0, TraceOp::alloc, 0x1000, 64),
			    ev(20, 0, TraceOp::free, 0x9000),	// allocated before
			    ev(40, 0, TraceOp::alloc, 0x1000, 128),	// the address again
			    ev(50, 1, TraceOp::alloc, 0x2000, 200, false),
			    ev(60, 1, TraceOp::free, 0x2000, 0, false, "dentry")},
			   3);
}

std::vector<uint8_t> bytes_of(const Trace& t)
{
	// one file per process: ctest -j runs the cases as processes at once (and other
	// checkouts' ctest share the directory)
	const std::string path =
		::testing::TempDir() + "slabctl-trace-test-" + std::to_string(getpid());
	write_trace(t, path);
	std::ifstream f(path, std::ios::binary);
	std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	std::remove(path.c_str());
	return d;
}

std::string error_of(const std::vector<uint8_t>& d)
{
	try {
		parse_trace(d, "t");
	} catch (const Error& e) {
		return e.what();
	}
	return {};
}

}  // namespace

TEST(Trace, BuildMapsPointersToIds)
{
	const Trace t = sample();
	ASSERT_EQ(t.events.size(), 6U);
	EXPECT_EQ(t.nr_objects, 3U);	// 0x1000 twice, 0x2000
	EXPECT_EQ(t.unmatched_frees, 1U);
	EXPECT_EQ(t.live_at_end, 1U);	// the second 0x1000
	EXPECT_EQ(t.lost_frees, 0U);
	EXPECT_EQ(t.lost_events, 3U);
	EXPECT_EQ(t.nr_cpus, 2U);
	EXPECT_EQ(t.events[0].object, 1U);
	EXPECT_EQ(t.events[0].ts_ns, 0U);
	EXPECT_EQ(t.events[2].object, 1U);	// the remote free, at ts 30
	EXPECT_EQ(t.events[2].cpu, 1U);
	EXPECT_EQ(t.events[3].object, 2U);
	ASSERT_EQ(t.caches.size(), 1U);	// named by its free
	EXPECT_EQ(t.caches[0].name, "dentry");
	EXPECT_EQ(t.events[4].cache, 1U);
	EXPECT_EQ(t.events[5].cache, 1U);
	EXPECT_EQ(t.peak_live_bytes, 328U);	// 128 + 200
}

namespace {

// A trace built by hand (not by build_trace(), which zeroes a free's bytes_req and
// leaves align 0): every field of the header, the caches and the events holds a value
// no other field of its record holds, so a writer or reader that swaps, drops or
// narrows one (bytes_req for bytes_alloc, cpu for cache, gfp...) fails the round trip.
Trace distinct()
{
	Trace t;
	t.nr_cpus = 5;
	t.nr_objects = 0x0102030405ULL;	// above 32 bits: a u64 field
	t.lost_events = 0x11;
	t.unmatched_frees = 0x12;
	t.live_at_end = 0x13;
	t.peak_live_bytes = 0x140000000ULL;
	t.duration_ns = 0x1500000016ULL;
	t.caches = {{"dentry", 192, 8}, {"kmalloc-rcl-96", 96, 64}};
	auto e = [](uint64_t ts, uint32_t obj, uint32_t req, uint32_t alloc, uint32_t gfp,
		    uint16_t cpu, uint16_t cache, TraceOp op) {
		TraceEvent x;
		x.ts_ns = ts;
		x.object = obj;
		x.bytes_req = req;
		x.bytes_alloc = alloc;
		x.gfp = gfp;
		x.cpu = cpu;
		x.cache = cache;
		x.op = op;
		return x;
	};
	t.events = {e(0x100000001ULL, 7, 100, 128, 0xcc0, 3, 1, TraceOp::alloc),
		    e(0x200000002ULL, 9, 40, 64, 0x400cc0, 4, 2, TraceOp::alloc),
		    e(0x300000003ULL, 7, 0, 128, 0x2800, 1, 1, TraceOp::free),
		    e(0x400000004ULL, 0, 0, 0, 0, 2, 0, TraceOp::free)};
	return t;
}

void expect_same(const Trace& r, const Trace& t)
{
	EXPECT_EQ(r.nr_cpus, t.nr_cpus);
	EXPECT_EQ(r.nr_objects, t.nr_objects);
	EXPECT_EQ(r.lost_events, t.lost_events);
	EXPECT_EQ(r.unmatched_frees, t.unmatched_frees);
	EXPECT_EQ(r.live_at_end, t.live_at_end);
	EXPECT_EQ(r.peak_live_bytes, t.peak_live_bytes);
	EXPECT_EQ(r.duration_ns, t.duration_ns);
	// lost_frees is the recorder's count, not in the file (docs/replay.md)
	EXPECT_EQ(r.lost_frees, 0U);
	ASSERT_EQ(r.caches.size(), t.caches.size());
	for (size_t i = 0; i < t.caches.size(); i++) {
		SCOPED_TRACE("cache " + std::to_string(i));
		EXPECT_EQ(r.caches[i].name, t.caches[i].name);
		EXPECT_EQ(r.caches[i].object_size, t.caches[i].object_size);
		EXPECT_EQ(r.caches[i].align, t.caches[i].align);
	}
	ASSERT_EQ(r.events.size(), t.events.size());
	for (size_t i = 0; i < t.events.size(); i++) {
		SCOPED_TRACE("event " + std::to_string(i));
		const TraceEvent& a = r.events[i];
		const TraceEvent& b = t.events[i];
		EXPECT_EQ(a.ts_ns, b.ts_ns);
		EXPECT_EQ(a.object, b.object);
		EXPECT_EQ(a.bytes_req, b.bytes_req);
		EXPECT_EQ(a.bytes_alloc, b.bytes_alloc);
		EXPECT_EQ(a.gfp, b.gfp);
		EXPECT_EQ(a.cpu, b.cpu);
		EXPECT_EQ(a.cache, b.cache);
		EXPECT_EQ(a.op, b.op);
	}
	// every field is compared above: these bindings stop compiling when a struct gains
	// or loses one (compare it here, and give it a place in docs/replay.md and the
	// golden fixture)
	[[maybe_unused]] auto [e1, e2, e3, e4, e5, e6, e7, e8] = TraceEvent{};
	[[maybe_unused]] auto [c1, c2, c3] = TraceCache{};
	[[maybe_unused]] auto& [t1, t2, t3, t4, t5, t6, t7, t8, t9, t10] = t;
}

// The golden fixture: tests/host/data/trace-v1.hex, written by hand from docs/replay.md's
// format tables (not by write_trace()): hex bytes, '#' to the end of a line a comment.
std::vector<uint8_t> golden()
{
	const std::string path = std::string(SLABLAB_TEST_DATA) + "/trace-v1.hex";
	std::ifstream f(path);
	EXPECT_TRUE(f) << "cannot open " << path;
	std::vector<uint8_t> d;
	std::string line;
	while (std::getline(f, line)) {
		line = line.substr(0, line.find('#'));
		std::istringstream in(line);
		std::string byte;
		while (in >> byte) {
			EXPECT_EQ(byte.size(), 2U) << path << ": not a hex byte: " << byte;
			d.push_back(static_cast<uint8_t>(std::stoul(byte, nullptr, 16)));
		}
	}
	return d;
}

std::string hex(const std::vector<uint8_t>& d)
{
	std::string s;
	for (size_t i = 0; i < d.size(); i++) {
		char b[8];
		std::snprintf(b, sizeof b, "%02x%s", d[i], i % 16 == 15 ? "\n" : " ");
		s += b;
	}
	return s;
}

}  // namespace

TEST(Trace, RoundTripKeepsEveryField)
{
	const Trace t = distinct();
	expect_same(parse_trace(bytes_of(t), "t"), t);
}

TEST(Trace, RoundTripOfBuiltTrace)
{
	Trace t = sample();
	t.lost_frees = 0;	// not in the file
	expect_same(parse_trace(bytes_of(t), "t"), t);
}

TEST(Trace, WriterMatchesTheSpecBytes)
{
	const std::vector<uint8_t> want = golden();
	ASSERT_EQ(want.size(), 80U + (4 + 4 + 2 + 6) + (4 + 4 + 2 + 14) + 4 * 32U)
		<< "the fixture's own size";
	const std::vector<uint8_t> got = bytes_of(distinct());
	ASSERT_EQ(got.size(), want.size());
	size_t first = 0;
	while (first < want.size() && got[first] == want[first])
		first++;
	EXPECT_EQ(hex(got), hex(want)) << "first difference at byte " << first;
}

TEST(Trace, ReaderTakesTheSpecBytes)
{
	expect_same(parse_trace(golden(), "golden"), distinct());
}

TEST(Trace, TruncatedNamesTheOffset)
{
	auto d = bytes_of(sample());
	d.resize(d.size() - 5);
	EXPECT_NE(error_of(d).find("truncated at offset"), std::string::npos) << error_of(d);
	d.resize(40);
	EXPECT_NE(error_of(d).find("truncated at offset 40"), std::string::npos) << error_of(d);
}

TEST(Trace, BadFiles)
{
	auto d = bytes_of(sample());
	auto bad = d;
	bad[0] = 'X';
	EXPECT_NE(error_of(bad).find("offset 0"), std::string::npos);
	bad = d;
	bad[8] = 9;	// version
	EXPECT_NE(error_of(bad).find("version 9"), std::string::npos);
	bad = d;
	bad.back() = 0;	// the last event's reserved byte is fine; its op is not
	bad[bad.size() - 4] = 7;
	EXPECT_NE(error_of(bad).find("op 7"), std::string::npos) << error_of(bad);
	bad = d;
	bad.push_back(0);
	EXPECT_NE(error_of(bad).find("after the last event"), std::string::npos);
}
