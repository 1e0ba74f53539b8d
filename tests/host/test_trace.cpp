// SPDX-License-Identifier: GPL-2.0 OR MIT
// The trace file (docs/replay.md): build_trace()'s ids and counts, a round trip, and the
// errors of bad and truncated files (with the offset).
#include "slabctl/error.hpp"
#include "slabctl/trace.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
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

TEST(Trace, RoundTrip)
{
	const Trace t = sample();
	const Trace r = parse_trace(bytes_of(t), "t");
	ASSERT_EQ(r.events.size(), t.events.size());
	EXPECT_EQ(r.nr_objects, t.nr_objects);
	EXPECT_EQ(r.caches[0].name, "dentry");
	for (size_t i = 0; i < t.events.size(); i++) {
		EXPECT_EQ(r.events[i].object, t.events[i].object);
		EXPECT_EQ(r.events[i].op, t.events[i].op);
		EXPECT_EQ(r.events[i].ts_ns, t.events[i].ts_ns);
	}
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
