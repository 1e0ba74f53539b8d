// SPDX-License-Identifier: GPL-2.0 OR MIT
// Importing other tools' kmem traces (trace_import.hpp): every field of tracefs text
// (6.1 as captured in the test VM, 7.x's kmem_cache_alloc with name=, the _node events of
// older kernels) and of perf script output, lost events from the header and from LOST
// lines, a native trace rendered as 6.1 text and imported back equal, format detection,
// and the errors of empty, binary, truncated and malformed input with file and line.
#include "slabctl/error.hpp"
#include "slabctl/trace.hpp"
#include "slabctl/trace_import.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

using namespace slabctl;

namespace {

const std::string kData = SLABLAB_TEST_DATA;

std::string error_of(const std::string& text, TraceFormat f = TraceFormat::text)
{
	try {
		parse_trace_text(text, "in.txt", f);
	} catch (const Error& e) {
		EXPECT_EQ(e.err, EINVAL);
		return e.what();
	}
	return {};
}

std::string tmp_path(const std::string& name)
{
	return ::testing::TempDir() + fmt::format("slabctl-import-{}-{}", getpid(), name);
}

std::string write_tmp(const std::string& name, const std::string& content)
{
	const std::string p = tmp_path(name);
	std::ofstream(p, std::ios::binary) << content;
	return p;
}

struct Ev {
	uint64_t ts;
	uint32_t object, req, alloc;
	uint16_t cpu, cache;
	TraceOp op;
};

void expect_events(const Trace& t, const std::vector<Ev>& want)
{
	ASSERT_EQ(t.events.size(), want.size());
	for (size_t i = 0; i < want.size(); i++) {
		const TraceEvent& e = t.events[i];
		SCOPED_TRACE(fmt::format("event {}", i));
		EXPECT_EQ(e.ts_ns, want[i].ts);
		EXPECT_EQ(e.object, want[i].object);
		EXPECT_EQ(e.bytes_req, want[i].req);
		EXPECT_EQ(e.bytes_alloc, want[i].alloc);
		EXPECT_EQ(e.cpu, want[i].cpu);
		EXPECT_EQ(e.cache, want[i].cache);
		EXPECT_EQ(e.op, want[i].op);
		EXPECT_EQ(e.gfp, 0U);	// printed by name: not imported (replay ignores gfp)
	}
}

constexpr auto A = TraceOp::alloc;
constexpr auto F = TraceOp::free;

}  // namespace

// data/kmem-6.1-small.txt: lines of a 6.1 VM's instance `trace` (task names with a dash,
// a space, a module's [9pnet] call site, irq-info flags), hand-picked so every value
// below follows from the file
TEST(TraceImport, Tracefs61EveryField)
{
	const ImportResult r = import_trace(kData + "/kmem-6.1-small.txt");
	EXPECT_EQ(r.report.format, TraceFormat::text);
	EXPECT_EQ(r.report.lines, 14U);
	EXPECT_EQ(r.report.comment_lines, 6U);
	EXPECT_EQ(r.report.other_events, 1U);
	EXPECT_EQ(r.report.other_by_name.at("sched_process_exec"), 1U);
	EXPECT_EQ(r.report.null_pointers, 1U);	// kfree(NULL)
	EXPECT_EQ(r.report.skipped(), 8U);
	const Trace& t = r.trace;
	EXPECT_EQ(t.lost_events, 3U);	// entries-written 12 - entries-in-buffer 9
	EXPECT_EQ(t.nr_cpus, 2U);
	EXPECT_EQ(t.nr_objects, 3U);
	EXPECT_EQ(t.unmatched_frees, 1U);	// the filp free
	EXPECT_EQ(t.live_at_end, 1U);
	EXPECT_EQ(t.peak_live_bytes, 4096U + 256 + 96);
	EXPECT_EQ(t.duration_ns, 225634000U);
	ASSERT_EQ(t.caches.size(), 2U);
	EXPECT_EQ(t.caches[0].name, "names_cache");	// named by its free
	EXPECT_EQ(t.caches[0].object_size, 4096U);
	EXPECT_EQ(t.caches[1].name, "size-256");	// never freed: by bytes_alloc
	EXPECT_EQ(t.caches[1].object_size, 232U);	// bytes_req
	expect_events(t, {{0, 1, 4096, 4096, 0, 1, A},
			  {57000, 2, 232, 256, 0, 2, A},
			  {234000, 3, 88, 96, 1, 0, A},
			  {292000, 1, 0, 4096, 0, 1, F},
			  {125635000, 3, 0, 96, 1, 0, F},
			  {225634000, 0, 0, 0, 0, 0, F}});
}

// 7.x: kmem_cache_alloc carries name= (after ptr); trace_pipe's LOST lines; the counter
// clock (no fraction: ns)
TEST(TraceImport, Tracefs7NamesAllocsAndLostLines)
{
	const std::string text =
		"   cat-90  [003] ..... 1000: kmem_cache_alloc: call_site=alloc_vmap_area+0x8a/0x870 "
		"ptr=00000000deadbeef name=vmap_area bytes_req=64 bytes_alloc=64 "
		"gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"CPU:2 [LOST 40 EVENTS]\n"
		"   cat-90  [002] ..... 1500: kmem_cache_alloc: call_site=x+0x1/0x2 "
		"ptr=00000000cafe0000 name=my cache bytes_req=24 bytes_alloc=32 "
		"gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"CPU:3 [LOST 2 EVENTS]\n"
		"   cat-90  [003] ..... 2000: kmem_cache_free: call_site=y+0x1/0x2 "
		"ptr=00000000deadbeef name=vmap_area\n";
	const ImportResult r = parse_trace_text(text, "pipe", TraceFormat::text);
	const Trace& t = r.trace;
	EXPECT_EQ(t.lost_events, 42U);
	EXPECT_EQ(t.nr_cpus, 4U);
	ASSERT_EQ(t.caches.size(), 2U);
	EXPECT_EQ(t.caches[0].name, "vmap_area");
	EXPECT_EQ(t.caches[1].name, "my cache");	// never freed: named by its allocation
	EXPECT_EQ(t.caches[1].object_size, 24U);
	expect_events(t, {{0, 1, 64, 64, 3, 1, A}, {500, 2, 24, 32, 2, 2, A}, {1000, 1, 0, 64, 3, 1, F}});
}

// kernels before 6.1: kmalloc_node and kmem_cache_alloc_node, without accounted=
TEST(TraceImport, NodeEventsOfOldKernels)
{
	const std::string text =
		"# tracer: nop\n"
		"  kworker/0:1-12    [000] .... 5.000001: kmalloc_node: call_site=__alloc_skb+0x8e/0x1d0 "
		"ptr=00000000aaaa0000 bytes_req=640 bytes_alloc=1024 gfp_flags=GFP_KERNEL|__GFP_NOWARN "
		"node=0\n"
		"  kworker/0:1-12    [000] .... 5.000002: kmem_cache_alloc_node: call_site=__alloc_skb+0x5a "
		"ptr=00000000bbbb0000 bytes_req=232 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1\n"
		"  kworker/0:1-12    [001] .... 5.000010: kmem_cache_free: call_site=kfree_skbmem+0x4e "
		"ptr=00000000bbbb0000 name=skbuff_head_cache\n";
	const Trace t = parse_trace_text(text, "old", TraceFormat::text).trace;
	ASSERT_EQ(t.caches.size(), 1U);
	EXPECT_EQ(t.caches[0].name, "skbuff_head_cache");
	expect_events(t, {{0, 1, 640, 1024, 0, 0, A}, {1000, 2, 232, 256, 0, 1, A}, {9000, 2, 0, 256, 1, 1, F}});
}

// perf script's default fields: comm, tid, [cpu], time (µs), SYSTEM:EVENT:, the fields as
// libtraceevent prints them (pointers 0x..., (nil))
TEST(TraceImport, PerfScriptEveryField)
{
	const ImportResult r = import_trace(kData + "/kmem-6.1-small.perf.txt");
	EXPECT_EQ(r.report.format, TraceFormat::perf);
	EXPECT_EQ(r.report.other_events, 1U);
	EXPECT_EQ(r.report.other_by_name.at("kmem:mm_page_alloc"), 1U);
	EXPECT_EQ(r.report.null_pointers, 1U);
	const Trace& t = r.trace;
	EXPECT_EQ(t.lost_events, 0U);
	ASSERT_EQ(t.caches.size(), 2U);
	EXPECT_EQ(t.caches[0].name, "names_cache");
	EXPECT_EQ(t.caches[1].name, "filp");
	EXPECT_EQ(t.caches[1].object_size, 232U);
	expect_events(t, {{0, 1, 4096, 4096, 1, 1, A},
			  {12000, 2, 232, 256, 0, 2, A},
			  {20000, 3, 100, 128, 1, 0, A},
			  {31000, 1, 0, 4096, 0, 1, F},
			  {40000, 3, 0, 128, 0, 0, F},
			  {52000, 2, 0, 256, 1, 2, F}});
}

// A trace rendered as 6.1's tracefs text (pointers from ids, as %p hashes them) and
// imported back: the same events and caches
TEST(TraceImport, NativeRenderedAsTextRoundTrips)
{
	std::vector<RawEvent> raw;
	const char* names[] = {"dentry", "inode_cache", "kmalloc"};
	uint64_t ts = 1000000;
	for (uint64_t i = 0; i < 300; i++) {
		RawEvent a;
		a.ts_ns = ts += 2000 * (1 + i % 3);	// µs: what the text keeps
		a.ptr = 0x1000 + (i % 40) * 0x40 + (i / 40) * 0x10000;
		a.cpu = static_cast<uint16_t>(i % 3);
		a.kmalloc = i % 3 == 2;
		a.bytes_req = 24 + static_cast<uint32_t>(i % 7);
		a.bytes_alloc = 32 * (1 + static_cast<uint32_t>(i % 3));
		raw.push_back(a);
		if (i % 5 != 4) {	// most freed, on another cpu, named by the free
			RawEvent f = a;
			f.op = TraceOp::free;
			f.ts_ns = ts + 1000;
			f.cpu = static_cast<uint16_t>((i + 1) % 3);
			f.cache = a.kmalloc ? "" : names[i % 2];
			raw.push_back(f);
		}
	}
	const Trace native = build_trace(raw, 0);
	// rendered from the Trace (ids), not from raw: what a kernel would print for it
	std::string text =
		"# tracer: nop\n#\n# entries-in-buffer/entries-written: 7/7   #P:3\n#\n";
	for (const TraceEvent& e : native.events) {
		const bool kmalloc = e.cache == 0;
		const std::string ptr = fmt::format("{:016x}", 0x5000000ULL + e.object);
		const uint64_t at = 1000000 + e.ts_ns;
		std::string line = fmt::format("          tar-77      [{:03}] .....  {}.{:06}: ", e.cpu,
					       at / 1000000000, at % 1000000000 / 1000);
		if (e.op == TraceOp::alloc)
			line += fmt::format("{}: call_site=f+0x1/0x2 ptr={} bytes_req={} bytes_alloc={} "
					    "gfp_flags=GFP_KERNEL node=-1 accounted=false",
					    kmalloc ? "kmalloc" : "kmem_cache_alloc", ptr, e.bytes_req,
					    e.bytes_alloc);
		else if (kmalloc)
			line += fmt::format("kfree: call_site=g+0x1/0x2 ptr={}", ptr);
		else
			line += fmt::format("kmem_cache_free: call_site=g+0x1/0x2 ptr={} name={}", ptr,
					    native.caches[e.cache - 1].name);
		text += line + "\n";
	}
	const Trace t = parse_trace_text(text, "rendered", TraceFormat::text).trace;
	EXPECT_EQ(t.nr_objects, native.nr_objects);
	EXPECT_EQ(t.nr_cpus, native.nr_cpus);
	EXPECT_EQ(t.live_at_end, native.live_at_end);
	EXPECT_EQ(t.peak_live_bytes, native.peak_live_bytes);
	EXPECT_EQ(t.duration_ns, native.duration_ns);
	ASSERT_EQ(t.caches.size(), native.caches.size());
	for (size_t i = 0; i < t.caches.size(); i++) {
		EXPECT_EQ(t.caches[i].name, native.caches[i].name);
		EXPECT_EQ(t.caches[i].object_size, native.caches[i].object_size);
	}
	ASSERT_EQ(t.events.size(), native.events.size());
	for (size_t i = 0; i < t.events.size(); i++) {
		const TraceEvent &a = t.events[i], &b = native.events[i];
		SCOPED_TRACE(fmt::format("event {}", i));
		EXPECT_EQ(a.ts_ns, b.ts_ns);
		EXPECT_EQ(a.object, b.object);
		EXPECT_EQ(a.bytes_req, b.bytes_req);
		EXPECT_EQ(a.bytes_alloc, b.bytes_alloc);
		EXPECT_EQ(a.cpu, b.cpu);
		EXPECT_EQ(a.cache, b.cache);
		EXPECT_EQ(a.op, b.op);
	}
}

// hashed pointers: kfree(ZERO_SIZE_PTR) is the hash kfree'd most often while not live;
// its frees are dropped (null pointers), a single free of an older object is kept
TEST(TraceImport, HashedZeroSizePtrFreesAreDropped)
{
	auto line = [](int us, const char* ev, const char* rest) {
		return fmt::format("  sh-1 [000] ..... 1.{:06}: {}: call_site=f+0x1/0x2 {}\n", us, ev,
				   rest);
	};
	const std::string alloc = "bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 "
				  "accounted=false";
	const std::string text = line(1, "kfree", "ptr=000000005a5a5a5a") +
				 line(2, "kmalloc", ("ptr=0000000011111111 " + alloc).c_str()) +
				 line(3, "kfree", "ptr=000000005a5a5a5a") +
				 line(4, "kfree", "ptr=0000000022222222") +	// from before
				 line(5, "kfree", "ptr=0000000011111111") +
				 line(6, "kfree", "ptr=000000005a5a5a5a");
	const ImportResult r = parse_trace_text(text, "z", TraceFormat::text);
	EXPECT_EQ(r.report.null_pointers, 3U);
	EXPECT_EQ(r.trace.unmatched_frees, 1U);
	expect_events(r.trace, {{0, 1, 8, 8, 0, 0, A}, {2000, 0, 0, 0, 0, 0, F}, {3000, 1, 0, 8, 0, 0, F}});
	// raw pointers (no_hash_pointers, perf): only those up to 16 are null
	std::string raw = text;
	for (size_t at = 0; (at = raw.find("ptr=00000000", at)) != std::string::npos; at += 4)
		raw.replace(at + 4, 8, "ffff8880");
	const ImportResult u = parse_trace_text(raw, "u", TraceFormat::text);
	EXPECT_EQ(u.report.null_pointers, 0U);
	EXPECT_EQ(u.trace.unmatched_frees, 4U);
}

TEST(TraceImport, DetectsEachFormat)
{
	EXPECT_EQ(detect_trace_format(kData + "/kmem-6.1-small.txt"), TraceFormat::text);
	EXPECT_EQ(detect_trace_format(kData + "/kmem-6.1-small.perf.txt"), TraceFormat::perf);
	const std::string native = tmp_path("native.trace");
	write_trace(build_trace({}, 0), native);
	EXPECT_EQ(detect_trace_format(native), TraceFormat::native);
	const std::string dat = write_tmp("x.dat", std::string("\x17\x08\x44tracing6\0junk", 16));
	EXPECT_EQ(detect_trace_format(dat), TraceFormat::dat);
	// a .dat cut short: libtracecmd cannot open it, and the message names the file
	try {
		import_trace(dat);
		ADD_FAILURE() << "a truncated .dat was imported";
	} catch (const Error& e) {
		EXPECT_NE(std::string(e.what()).find(dat + ": not a readable trace-cmd .dat"),
			  std::string::npos)
			<< e.what();
	}
	std::remove(native.c_str());
	std::remove(dat.c_str());
}

TEST(TraceImport, ErrorsNameFileLineAndWhatWasExpected)
{
	EXPECT_EQ(error_of(""), "in.txt: empty: expected tracefs trace text");
	const std::string ok = "  sh-1 [000] ..... 1.000001: kmalloc: call_site=f ptr=0000000000001234 "
			       "bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n";
	// truncated: the last line cut before its newline
	EXPECT_NE(error_of(ok + ok.substr(0, 40)).find("in.txt:2: truncated: the last line has no "
						       "newline"),
		  std::string::npos);
	EXPECT_NE(error_of(ok + "hello world\n").find("in.txt:2: expected an event line: TASK-PID "
						      "[CPU] TIMESTAMP: EVENT: FIELDS"),
		  std::string::npos);
	EXPECT_NE(error_of("  sh-1 [000] ..... 1.0x1: kmalloc: ptr=1\n").find("in.txt:1: a timestamp"),
		  std::string::npos);
	EXPECT_NE(error_of("  sh-1 [000] ..... 1.000001: kmalloc: call_site=f ptr=0000000000001234 "
			   "bytes_req=8 gfp_flags=GFP_KERNEL\n")
			  .find("in.txt:1: kmalloc has no bytes_alloc= field"),
		  std::string::npos);
	EXPECT_NE(error_of("  sh-1 [000] ..... 1.000001: kfree: call_site=f ptr=zz\n")
			  .find("in.txt:1: ptr=zz: expected a pointer in hex"),
		  std::string::npos);
	EXPECT_NE(error_of("  sh-1 [000] ..... 1.000001: kmalloc: ptr=0000000000001234 bytes_req=-1 "
			   "bytes_alloc=8\n")
			  .find("in.txt:1: bytes_req=-1: expected a decimal number"),
		  std::string::npos);
	EXPECT_NE(error_of("# tracer: nop\n  sh-1 [000] ..... 1.000001: sched_switch: a=b\n")
			  .find("in.txt: no kmem events"),
		  std::string::npos);
	EXPECT_NE(error_of(ok, TraceFormat::perf).find("in.txt:1: expected a perf script event"),
		  std::string::npos);
	// files: empty, binary, missing
	const std::string empty = write_tmp("empty", "");
	const std::string binary = write_tmp("bin", std::string("\x7f" "ELF\0\0\0", 7));
	for (const auto& [path, want] :
	     {std::pair{empty, empty + ": empty: expected a slablab trace"},
	      std::pair{binary, binary + ": unknown format at offset 0: expected a slablab trace"},
	      std::pair{tmp_path("missing"), "cannot open " + tmp_path("missing")}}) {
		try {
			import_trace(path);
			ADD_FAILURE() << path << " was imported";
		} catch (const Error& e) {
			EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
		}
	}
	std::remove(empty.c_str());
	std::remove(binary.c_str());
}

// nothing half-written: a failed import leaves an existing output alone
TEST(TraceImport, FailedImportLeavesTheOutputAlone)
{
	const std::string out = write_tmp("out.trace", "previous");
	const std::string in = write_tmp("bad.txt", "  sh-1 [000] ..... 1.000001: kfree: ptr=zz\n");
	EXPECT_THROW(import_trace_to(in, out), Error);
	std::ifstream f(out);
	std::stringstream s;
	s << f.rdbuf();
	EXPECT_EQ(s.str(), "previous");
	const std::string good = kData + "/kmem-6.1-small.txt";
	import_trace_to(good, out);
	EXPECT_EQ(read_trace(out).events.size(), 6U);
	std::remove(out.c_str());
	std::remove(in.c_str());
}

TEST(TraceImport, FormatNames)
{
	for (const char* n : {"auto", "native", "text", "perf", "dat"})
		EXPECT_EQ(trace_format_name(*trace_format_from_name(n)), n);
	EXPECT_FALSE(trace_format_from_name("ftrace"));
}
