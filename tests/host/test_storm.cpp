// SPDX-License-Identifier: GPL-2.0 OR MIT
// Storms without the kernel: parsing and checking what people type, the derived figures,
// statistics, compare's variants and summaries, the text and the JSON.
#include "slabctl/compare.hpp"
#include "slabctl/error.hpp"
#include "slabctl/format.hpp"
#include "slabctl/json.hpp"
#include "slabctl/names.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/storm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace slabctl;

namespace {

bool contains(const std::string& hay, const std::string& needle)
{
	return hay.find(needle) != std::string::npos;
}

/// check(x) must throw a UsageError whose message contains `needle`.
template <typename Check, typename T>
void expect_refused(Check check, const T& x, const char* needle)
{
	try {
		check(x);
		ADD_FAILURE() << "accepted; wanted: " << needle;
	} catch (const UsageError& e) {
		EXPECT_TRUE(contains(e.what(), needle)) << e.what() << " / " << needle;
	}
}

/// A finished pair storm on 2 threads with round numbers.
StormResult pair_result()
{
	StormResult r;
	r.id = 7;
	r.state = SLABLAB_STORM_DONE;
	r.spec.target = SLABLAB_TARGET_SLABLAB;
	r.spec.pattern = SLABLAB_PATTERN_PAIR;
	r.spec.cache = "t64";
	r.spec.threads = 2;
	r.spec.cpus = "0-1";
	r.spec.ops = 1000;
	r.ops_planned = 2000;
	r.ops_done = 2000;
	r.elapsed_ns = 1000000;		// 1 ms: 2M ops/s
	r.has_results = true;
	r.allocs = 2000;
	r.frees = 2000;
	r.pair_cycles = 100000;		// 50 cycles per pair
	r.loop_cycles_x1000 = 1500;	// 1.5 cycles
	r.cycles_per_sec = 2000000000;	// 2 GHz: 25 ns per op
	r.peak_pages = 3;
	r.peak_live_bytes = 8192;
	r.meta_bytes = 4096;		// (3*4096 + 4096 - 8192) / 8192 = 100 %
	r.page_size = 4096;
	r.features = SLABLAB_FEAT_INIT_ON_ALLOC | SLABLAB_FEAT_FREELIST_HARDENED;
	r.cache_flags = SLABLAB_CACHE_F_HARDENED | SLABLAB_CACHE_F_RANDOM;
	r.threads = {{0, 1000, 40000, 400000}, {1, 1000, 60000, 1000000}};
	r.has_stats = true;
	r.stats[SLABLAB_ALLOC_FASTPATH] = 1990;
	r.stats[SLABLAB_ALLOC_SLOWPATH] = 10;
	r.stats[SLABLAB_FREE_FASTPATH] = 1500;
	r.stats[SLABLAB_FREE_SLOWPATH] = 500;
	r.stats[SLABLAB_ALLOC_SLAB] = 3;
	r.stats[SLABLAB_CPU_PARTIAL_FREE] = 4;
	return r;
}

}  // namespace

TEST(StormNames, TargetsPatternsStates)
{
	EXPECT_EQ(target_name(SLABLAB_TARGET_SLABLAB), "slablab");
	EXPECT_EQ(target_name(SLABLAB_TARGET_NATIVE), "native");
	EXPECT_EQ(target_name(SLABLAB_TARGET_KMALLOC), "kmalloc");
	EXPECT_EQ(target_name(SLABLAB_TARGET_NATIVE_KMALLOC), "native-kmalloc");
	EXPECT_EQ(target_name(9), "unknown(9)");
	EXPECT_EQ(target_from_name("cache"), SLABLAB_TARGET_SLABLAB);
	EXPECT_EQ(target_from_name("native_kmalloc"), SLABLAB_TARGET_NATIVE_KMALLOC);
	EXPECT_FALSE(target_from_name("slub"));
	EXPECT_EQ(storm_pattern_names(),
		  (std::vector<std::string_view>{"pair", "batch", "remote", "churn", "bulk",
						 "prefill", "rcu", "producer-consumer"}));
	for (auto n : storm_pattern_names())
		EXPECT_EQ(storm_pattern_name(*storm_pattern_from_name(n)), n);
	EXPECT_EQ(storm_state_name(SLABLAB_STORM_RUNNING), "running");
	EXPECT_EQ(storm_state_name(SLABLAB_STORM_STOPPED), "stopped");
	EXPECT_EQ(command_name(SLABLAB_CMD_STORM_START), "STORM_START");
	EXPECT_EQ(command_name(SLABLAB_CMD_STORM_GET), "STORM_GET");
	EXPECT_EQ(command_name(SLABLAB_CMD_STORM_STOP), "STORM_STOP");
}

TEST(StormParse, Duration)
{
	EXPECT_EQ(parse_duration_ms("500ms"), 500u);
	EXPECT_EQ(parse_duration_ms("2s"), 2000u);
	EXPECT_EQ(parse_duration_ms("1.5s"), 1500u);
	EXPECT_EQ(parse_duration_ms("1m"), 60000u);
	EXPECT_EQ(parse_duration_ms("3"), 3000u);
	EXPECT_EQ(parse_duration_ms("0.25"), 250u);
	EXPECT_EQ(parse_duration_ms("2S"), 2000u);
	for (auto bad : {"", "s", "ms", "1h", "1..2s", "-1s", "abc", "1 s"})
		EXPECT_THROW(parse_duration_ms(bad, "--duration"), UsageError) << bad;
	EXPECT_DOUBLE_EQ(parse_interval_s("0.5"), 0.5);
	EXPECT_DOUBLE_EQ(parse_interval_s("250ms"), 0.25);
	EXPECT_THROW(parse_interval_s("0"), UsageError);
}

TEST(StormParse, CpuList)
{
	EXPECT_EQ(parse_cpu_list("0"), (std::vector<uint32_t>{0}));
	EXPECT_EQ(parse_cpu_list("0-3,6"), (std::vector<uint32_t>{0, 1, 2, 3, 6}));
	EXPECT_EQ(parse_cpu_list("3,1,1"), (std::vector<uint32_t>{1, 3}));
	EXPECT_EQ(parse_cpu_list("0-7:2/4"), (std::vector<uint32_t>{0, 1, 4, 5}));
	for (auto bad : {"", ",", "1,", "a", "3-1", "1-", "-1", "0x1", "1:1/2", "0-3:3/2",
			 "0-3:0/2", "0-3:2", "70000"})
		EXPECT_THROW(parse_cpu_list(bad), UsageError) << bad;
}

TEST(StormParse, Sizes)
{
	auto s = parse_storm_sizes("64:3,192:1,1K");
	ASSERT_EQ(s.size(), 3u);
	EXPECT_EQ(s[0], (StormSize{64, 3}));
	EXPECT_EQ(s[1], (StormSize{192, 1}));
	EXPECT_EQ(s[2], (StormSize{1024, 1}));
	EXPECT_EQ(format_storm_sizes(s), "64:3,192,1024");
	for (auto bad : {"", "64:", "64:0", ":3", "64,,128", "x:1", "0", "64:3:4"})
		EXPECT_THROW(parse_storm_sizes(bad), UsageError) << bad;
	std::string many;
	for (int i = 0; i <= SLABLAB_STORM_MAX_SIZES; i++)
		many += (i ? "," : "") + std::to_string(8 * (i + 1));
	EXPECT_THROW(parse_storm_sizes(many), UsageError);
	EXPECT_EQ(parse_u32_list("1,2,4", "--threads"), (std::vector<uint32_t>{1, 2, 4}));
	EXPECT_THROW(parse_u32_list("1,,2", "--threads"), UsageError);
	EXPECT_THROW(parse_u32_list("1,x", "--threads"), UsageError);
}

TEST(StormParse, SetVariant)
{
	Tunables t = parse_set_variant("cpu_partial=0,min_partial=10");
	EXPECT_EQ(t.cpu_partial, 0u);
	EXPECT_EQ(t.min_partial, 10u);
	t = parse_set_variant("flags=debug,random,cpu_partial=0");
	EXPECT_EQ(t.flags, SLABLAB_CACHE_F_DEBUG | SLABLAB_CACHE_F_RANDOM);
	EXPECT_EQ(t.cpu_partial, 0u);
	t = parse_set_variant("hardened=0,order=1");
	EXPECT_EQ(t.flags_clear, static_cast<uint32_t>(SLABLAB_CACHE_F_HARDENED));
	EXPECT_EQ(t.order, 1u);
	EXPECT_EQ(parse_set_variant("order=99").order, 99u);	// the kernel judges the range
	// fail_slab_every left netlink (debugfs caches/<name>/fail_slab_every): not a key
	for (auto bad : {"", "colour=blue", "cpu_partial", "order=1,order=2", "fail_slab_every=3"})
		EXPECT_THROW(parse_set_variant(bad), UsageError) << bad;
}

TEST(StormParse, ValidateSpec)
{
	StormSpec s;
	s.cache = "t64";
	EXPECT_NO_THROW(validate_storm_spec(s));
	auto refused = [](const StormSpec& x, const char* needle) {
		expect_refused(validate_storm_spec, x, needle);
	};
	StormSpec x = s;
	x.cache.clear();
	refused(x, "needs a cache");
	x = s;
	x.size = 64;
	refused(x, "no size");
	x = s;
	x.cache = "bad name";
	refused(x, "bad name");
	x = s;
	x.pattern = SLABLAB_PATTERN_PREFILL;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.target = SLABLAB_TARGET_NATIVE;
	refused(x, "prefill needs the slablab target");
	// rcu: slablab and kmalloc targets, objects that hold an rcu_head, --rate for rcu only
	x = s;
	x.pattern = SLABLAB_PATTERN_RCU;
	x.rate = 1000;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.target = SLABLAB_TARGET_NATIVE;
	refused(x, "rcu needs a slablab target");
	x = s;
	x.pattern = SLABLAB_PATTERN_RCU;
	x.target = SLABLAB_TARGET_KMALLOC;
	x.cache.clear();
	x.size = 8;
	refused(x, "at least 16 bytes");
	x.size = 16;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.target = SLABLAB_TARGET_NATIVE_KMALLOC;
	refused(x, "rcu needs a slablab target");
	// producer-consumer: --producers for it only, 1..threads - 1
	x = s;
	x.pattern = SLABLAB_PATTERN_PRODUCER_CONSUMER;
	x.threads = 4;
	x.producers = 3;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.producers = 4;
	refused(x, "--producers 4 leaves no consumer of 4 threads");
	x.producers = 0;
	refused(x, "--producers is at least 1");
	x.threads.reset();
	x.producers = 7;	// the kernel judges it against its default of threads
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.pattern = SLABLAB_PATTERN_REMOTE;
	refused(x, "--producers applies to pattern producer-consumer");
	x = s;
	x.rate = 10;
	refused(x, "--rate applies to pattern rcu");
	x.rate = 0;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x = s;
	x.target = SLABLAB_TARGET_NATIVE;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.cache.clear();
	refused(x, "--size");
	x.size = 100;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.sizes = {{64, 1}};
	refused(x, "not both");
	x.size.reset();
	EXPECT_NO_THROW(validate_storm_spec(x));	// SIZES: kmalloc classes of its own
	x.cache = "t64";
	refused(x, "a cache to copy or sizes");
	x = StormSpec{};
	x.target = SLABLAB_TARGET_KMALLOC;
	refused(x, "--size N or --sizes");
	x.sizes = {{64, 3}, {192, 1}};
	EXPECT_NO_THROW(validate_storm_spec(x));
	x.cache = "t64";
	refused(x, "not a cache");
	x.cache.clear();
	x.pattern = SLABLAB_PATTERN_BULK;
	refused(x, "bulk needs a cache target");
	x.pattern = SLABLAB_PATTERN_PREFILL;
	refused(x, "prefill needs the slablab target");
	x.pattern = SLABLAB_PATTERN_PAIR;

	x = s;
	x.ops = 10;
	x.duration_ms = 10;
	refused(x, "not both");
	x = s;
	x.ring = 100;
	refused(x, "power of two");
	x.ring = 256;
	EXPECT_NO_THROW(validate_storm_spec(x));
	x = s;
	x.cpus = "0-1,x";
	refused(x, "cpu list");

	// Values out of the kernel's ranges pass: its policy judges them (and the error
	// names the range it returned, error.cpp), not a host-side copy of the limits.
	for (auto edit : std::vector<std::function<void(StormSpec&)>>{
		     [](StormSpec& y) { y.threads = 0; },
		     [](StormSpec& y) { y.threads = SLABLAB_STORM_MAX_THREADS + 1; },
		     [](StormSpec& y) { y.duration_ms = SLABLAB_STORM_MAX_DURATION_MS + 1; },
		     [](StormSpec& y) { y.ring = 1; },
		     [](StormSpec& y) { y.batch = SLABLAB_STORM_MAX_BATCH + 1; },
		     [](StormSpec& y) { y.working_set = 0; },
		     [](StormSpec& y) { y.target = __SLABLAB_TARGET_MAX; },
		     [](StormSpec& y) { y.pattern = __SLABLAB_PATTERN_MAX; },
	     }) {
		x = s;
		edit(x);
		EXPECT_NO_THROW(validate_storm_spec(x));
	}
	x = StormSpec{};
	x.target = SLABLAB_TARGET_KMALLOC;
	x.sizes = {{SLABLAB_MAX_SIZE + 1, 1000001}};
	EXPECT_NO_THROW(validate_storm_spec(x));
}

TEST(StormFigures, Derived)
{
	StormFigures f = storm_figures(pair_result());
	EXPECT_DOUBLE_EQ(*f.cycles_per_pair, 50.0);
	EXPECT_FALSE(f.cycles_per_alloc);	// no timed alloc loops in pair
	EXPECT_FALSE(f.cycles_per_free);
	EXPECT_DOUBLE_EQ(*f.loop_cycles, 1.5);
	EXPECT_DOUBLE_EQ(*f.ns_per_op, 25.0);
	EXPECT_DOUBLE_EQ(*f.ops_per_sec, 2e6);
	EXPECT_DOUBLE_EQ(*f.thread_ops_per_sec_min, 1e6);	// 1000 ops in 1 ms
	EXPECT_DOUBLE_EQ(*f.thread_ops_per_sec_max, 2.5e6);	// 1000 ops in 0.4 ms
	EXPECT_DOUBLE_EQ(*f.alloc_fastpath_pct, 99.5);
	EXPECT_DOUBLE_EQ(*f.free_fastpath_pct, 75.0);
	EXPECT_EQ(*f.peak_bytes, 3u * 4096u);
	EXPECT_DOUBLE_EQ(*f.overhead_pct, 100.0);
	EXPECT_FALSE(f.fragmentation_pct);	// not a churn storm: no steady samples
	EXPECT_FALSE(f.shrunk_fragmentation_pct);

	// churn: 8 pages held on average for 4 pages of live data: 50% fragmentation;
	// after the shrink 5 pages for the same data: 20%
	StormResult c = pair_result();
	c.spec.pattern = SLABLAB_PATTERN_CHURN;
	c.steady_samples = 3;
	c.steady_pages = 8;
	c.steady_live_bytes = 4 * 4096;
	c.shrunk_pages = 5;
	c.shrunk_live_bytes = 4 * 4096;
	f = storm_figures(c);
	EXPECT_DOUBLE_EQ(*f.fragmentation_pct, 50.0);
	EXPECT_DOUBLE_EQ(*f.shrunk_fragmentation_pct, 20.0);
	EXPECT_FALSE(f.rcu_waiting_mean);	// not an rcu storm

	// rcu: the kernel's mean and peak of the objects waiting for a grace period
	StormResult rc = pair_result();
	rc.spec.pattern = SLABLAB_PATTERN_RCU;
	rc.rcu_samples = 4;
	rc.rcu_waiting_mean = 300;
	rc.rcu_waiting_peak = 512;
	f = storm_figures(rc);
	EXPECT_DOUBLE_EQ(*f.rcu_waiting_mean, 300.0);
	EXPECT_DOUBLE_EQ(*figure_value(f, "rcu_waiting_peak"), 512.0);

	StormResult b = pair_result();
	b.spec.pattern = SLABLAB_PATTERN_BATCH;
	b.pair_cycles = 0;
	b.alloc_cycles = 60000;
	b.free_cycles = 40000;
	b.has_stats = false;	// a native target
	b.page_size = 0;
	f = storm_figures(b);
	EXPECT_DOUBLE_EQ(*f.cycles_per_alloc, 30.0);
	EXPECT_DOUBLE_EQ(*f.cycles_per_free, 20.0);
	EXPECT_FALSE(f.cycles_per_pair);
	EXPECT_DOUBLE_EQ(*f.ns_per_op, 25.0);
	EXPECT_FALSE(f.alloc_fastpath_pct);
	EXPECT_FALSE(f.overhead_pct);		// no page size, no bytes

	StormResult running;	// nothing yet
	running.state = SLABLAB_STORM_RUNNING;
	f = storm_figures(running);
	for (const auto& fi : figure_table())
		EXPECT_FALSE(figure_value(f, fi.key)) << fi.key;
	EXPECT_FALSE(figure_value(f, "no_such_figure"));
}

TEST(StormFigures, MainFigures)
{
	using V = std::vector<std::string_view>;
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_PAIR), (V{"cycles_per_pair"}));
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_BATCH), (V{"cycles_per_alloc", "cycles_per_free"}));
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_BULK), (V{"cycles_per_alloc", "cycles_per_free"}));
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_REMOTE), (V{"ops_per_sec"}));
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_CHURN), (V{"fragmentation_pct"}));
	EXPECT_EQ(main_figures(SLABLAB_PATTERN_RCU),
		  (V{"cycles_per_alloc", "cycles_per_free", "rcu_waiting_mean"}));
	for (const auto& fi : figure_table())
		EXPECT_EQ(figure_info(fi.key), &fi);
	EXPECT_TRUE(figure_info("ops_per_sec")->higher_is_better);
	EXPECT_FALSE(figure_info("cycles_per_pair")->higher_is_better);
}

TEST(Statistics, Summary)
{
	Summary s = summarize({3, 1, 2});
	EXPECT_EQ(s.n, 3u);
	EXPECT_DOUBLE_EQ(s.min, 1);
	EXPECT_DOUBLE_EQ(s.max, 3);
	EXPECT_DOUBLE_EQ(s.median, 2);
	EXPECT_DOUBLE_EQ(s.mean, 2);
	EXPECT_DOUBLE_EQ(s.sd, 1);	// sample sd: sqrt(((1)+(0)+(1)) / 2)
	s = summarize({4, 1, 3, 2});
	EXPECT_DOUBLE_EQ(s.median, 2.5);	// mean of the two middle values
	EXPECT_NEAR(s.sd, 1.2909944487, 1e-9);
	s = summarize({22.76, 22.80, 22.74});	// order does not matter
	EXPECT_DOUBLE_EQ(s.median, 22.76);
	s = summarize({5});
	EXPECT_EQ(s.n, 1u);
	EXPECT_DOUBLE_EQ(s.sd, 0);
	EXPECT_DOUBLE_EQ(s.median, 5);
	s = summarize({NAN, 7, NAN});
	EXPECT_EQ(s.n, 1u);
	EXPECT_DOUBLE_EQ(s.mean, 7);
	s = summarize({});
	EXPECT_EQ(s.n, 0u);
}

TEST(Compare, Variants)
{
	CompareSpec c;
	c.base.cache = "t64";
	c.base.size = 64;	// dropped for the cache targets
	auto v = compare_variants(c);
	ASSERT_EQ(v.size(), 2u);	// default: slablab and native
	EXPECT_EQ(v[0].label, "slablab");
	EXPECT_EQ(v[1].label, "native");
	EXPECT_EQ(v[0].spec.target, static_cast<uint32_t>(SLABLAB_TARGET_SLABLAB));
	EXPECT_EQ(v[1].spec.target, static_cast<uint32_t>(SLABLAB_TARGET_NATIVE));
	EXPECT_FALSE(v[0].spec.size);
	EXPECT_EQ(v[1].spec.cache, "t64");

	c.targets = {SLABLAB_TARGET_NATIVE, SLABLAB_TARGET_SLABLAB};
	c.sets = {"cpu_partial=0", "cpu_partial=120,min_partial=5"};
	c.threads = {1, 2};
	v = compare_variants(c);
	std::vector<std::string> labels;
	for (const auto& x : v)
		labels.push_back(x.label);
	EXPECT_EQ(labels, (std::vector<std::string>{
				  "native threads=1", "native threads=2",
				  "slablab cpu_partial=0 threads=1", "slablab cpu_partial=0 threads=2",
				  "slablab cpu_partial=120,min_partial=5 threads=1",
				  "slablab cpu_partial=120,min_partial=5 threads=2"}));
	EXPECT_EQ(v[3].spec.threads, 2u);
	EXPECT_EQ(v[2].set->cpu_partial, 0u);
	EXPECT_FALSE(v[0].set);

	// design variants: beside the kernel's SLUB by default (one run compares them all)
	CompareSpec d;
	d.base.cache = "s";
	d.sets = {"design=slub", "design=sheaves"};
	v = compare_variants(d);
	labels.clear();
	for (const auto& x : v)
		labels.push_back(x.label);
	EXPECT_EQ(labels, (std::vector<std::string>{"slablab design=slub",
						    "slablab design=sheaves", "native"}));
	EXPECT_EQ(v[1].set->design, static_cast<uint32_t>(SLABLAB_DESIGN_SHEAVES));
	d.sets = {"cpu_partial=0"};	// a tunable of slablab's own: slablab alone
	EXPECT_EQ(compare_variants(d).size(), 1u);

	// kmalloc targets take the size, not the cache
	CompareSpec k;
	k.base.size = 64;
	k.targets = {SLABLAB_TARGET_KMALLOC, SLABLAB_TARGET_NATIVE_KMALLOC};
	v = compare_variants(k);
	EXPECT_TRUE(v[0].spec.cache.empty());
	EXPECT_EQ(v[1].spec.size, 64u);
	// and so does native without a cache: a size, or sizes (its own kmalloc classes)
	CompareSpec n = k;
	n.base.size.reset();
	n.base.sizes = {{64, 3}, {192, 1}};
	n.targets = {SLABLAB_TARGET_KMALLOC, SLABLAB_TARGET_NATIVE};
	v = compare_variants(n);
	EXPECT_EQ(v[1].spec.sizes.size(), 2u);
	EXPECT_FALSE(v[1].spec.size);

	auto refused = [](const CompareSpec& x, const char* needle) {
		expect_refused(compare_variants, x, needle);
	};
	CompareSpec bad = c;
	bad.repeat = 0;
	refused(bad, "repeat 0");
	bad = c;
	bad.targets = {SLABLAB_TARGET_NATIVE, SLABLAB_TARGET_NATIVE};
	refused(bad, "twice");
	bad = c;
	bad.sets = {"colour=red"};
	refused(bad, "--set colour=red");
	bad = c;
	bad.targets = {SLABLAB_TARGET_NATIVE};
	refused(bad, "applies to target slablab");
	bad = c;
	bad.base.cache.clear();
	refused(bad, "--cache");
	bad = c;
	bad.threads = {0};
	refused(bad, "threads 0");
	bad = k;
	bad.base.size.reset();
	refused(bad, "kmalloc: target kmalloc needs");
	bad = c;
	bad.figures = {"speed"};
	EXPECT_THROW(compare_figure_keys(bad), UsageError);
	bad.figures = {"ns_per_op", "ns_per_op", "ops_per_sec"};
	EXPECT_EQ(compare_figure_keys(bad), (std::vector<std::string>{"ns_per_op", "ops_per_sec"}));
	bad.figures.clear();
	EXPECT_EQ(compare_figure_keys(bad), (std::vector<std::string>{"cycles_per_pair"}));
}

namespace {

/// A compare of two variants over 3 repeats with known cycles per pair.
CompareResult sample_compare(bool with_interrupted_run)
{
	CompareResult c;
	c.spec.base.cache = "t64";
	c.spec.base.ops = 1000;
	c.spec.repeat = 3;
	c.variants = compare_variants(c.spec);
	c.figures = compare_figure_keys(c.spec);
	const double a[] = {50, 40, 60}, b[] = {25, 30, 45};
	for (uint32_t rep = 1; rep <= 3; rep++) {
		for (std::size_t v = 0; v < 2; v++) {
			CompareRun run;
			run.variant = v;
			run.repeat = rep;
			run.result = pair_result();
			run.result.spec.target = v ? SLABLAB_TARGET_NATIVE : SLABLAB_TARGET_SLABLAB;
			run.result.pair_cycles =
				static_cast<uint64_t>((v ? b : a)[rep - 1] * 2000);
			run.figures = storm_figures(run.result);
			c.runs.push_back(run);
		}
	}
	if (with_interrupted_run) {
		CompareRun run = c.runs.back();
		run.repeat = 4;
		run.result.interrupted = true;
		run.result.state = SLABLAB_STORM_STOPPED;
		run.result.pair_cycles = 1;	// would spoil every figure if counted
		run.figures = storm_figures(run.result);
		c.runs.push_back(run);
		c.interrupted = true;
	}
	summarize_compare(c);
	return c;
}

}  // namespace

TEST(Compare, Summaries)
{
	CompareResult c = sample_compare(true);
	ASSERT_EQ(c.summaries.size(), 1u);
	const auto& first = c.summaries[0][0];
	const auto& second = c.summaries[0][1];
	EXPECT_EQ(first.values.n, 3u);
	EXPECT_DOUBLE_EQ(first.values.median, 50);
	EXPECT_DOUBLE_EQ(first.values.mean, 50);
	EXPECT_DOUBLE_EQ(first.values.sd, 10);
	EXPECT_DOUBLE_EQ(*first.ratio, 1.0);
	EXPECT_EQ(second.values.n, 3u);	// the interrupted run is left out
	EXPECT_DOUBLE_EQ(second.values.median, 30);
	EXPECT_DOUBLE_EQ(*second.ratio, 0.6);
	// per repeat: 25/50, 30/40, 45/60 = 0.5, 0.75, 0.75
	EXPECT_EQ(second.paired.n, 3u);
	EXPECT_DOUBLE_EQ(second.paired.median, 0.75);
	EXPECT_DOUBLE_EQ(second.paired.min, 0.5);
	EXPECT_DOUBLE_EQ(second.paired.max, 0.75);
}

TEST(Compare, Table)
{
	CompareResult c = sample_compare(false);
	std::string t = render_compare(c);
	EXPECT_TRUE(contains(t, "cycles per pair (lower is better)")) << t;
	EXPECT_TRUE(contains(t, "min    median       avg       max        sd   ratio")) << t;
	EXPECT_TRUE(contains(t, "  slablab                              3      40.0      50.0      50.0      60.0      10.0   1.000")) << t;
	EXPECT_TRUE(contains(t, "0.600")) << t;
	EXPECT_TRUE(contains(t, "paired ratio to slablab, per repeat")) << t;
	EXPECT_TRUE(contains(t, "  native                               3     0.750     0.500     0.750")) << t;
	EXPECT_TRUE(contains(t, "settings:")) << t;
	EXPECT_TRUE(contains(t, "init_on_alloc=1")) << t;
	EXPECT_TRUE(contains(t, "6 of 6 runs counted")) << t;
	std::string line = render_compare_run_line(c, c.runs[1], 1, 6);
	EXPECT_EQ(line, "[2/6] native (repeat 1/3): 25.0 cycles per pair");

	CompareResult i = sample_compare(true);
	EXPECT_TRUE(contains(render_compare(i), "(interrupted)"));
}

TEST(Compare, Csv)
{
	CompareResult c = sample_compare(false);
	std::string csv = compare_csv(c);
	std::istringstream in(csv);
	std::string header, row;
	std::getline(in, header);
	std::vector<std::string> cols;
	std::stringstream hs(header);
	for (std::string col; std::getline(hs, col, ',');)
		cols.push_back(col);
	// the shared runs schema (run_csv_columns(), slablab.RUN_CSV_COLUMNS), tidy keys first
	EXPECT_EQ(cols, run_csv_columns());
	EXPECT_EQ(std::vector<std::string>(cols.begin(), cols.begin() + 4),
		  (std::vector<std::string>{"experiment", "variant", "x", "repeat"}));
	for (auto k : {"run", "repeat", "set", "target", "pattern", "cache", "threads", "ops",
		       "ops_done", "pair_cycles", "cycles_per_pair", "ops_per_sec", "overhead_pct",
		       "stat_alloc_fastpath", "stat_cpu_partial_drain", "thread_list", "hardened"})
		EXPECT_NE(std::find(cols.begin(), cols.end(), k), cols.end()) << k;
	std::size_t rows = 0;
	while (std::getline(in, row)) {
		rows++;
		// no quoted fields here: every row has as many fields as the header
		EXPECT_EQ(std::count(row.begin(), row.end(), ','),
			  std::count(header.begin(), header.end(), ','))
			<< row;
	}
	EXPECT_EQ(rows, c.runs.size());
	EXPECT_TRUE(contains(csv, "0:1000:40000:400000;1:1000:60000:1000000"));
	EXPECT_TRUE(contains(csv, ",slablab,pair,t64,"));
	// one thread count: no swept x; the variant is its label
	EXPECT_TRUE(contains(csv, "\ncompare,native,,1,2,")) << csv;
}

TEST(StormText, Result)
{
	std::string t = render_storm_result(pair_result());
	for (auto k : {"storm 7 (slablab pair on t64): done", "cycles per pair      50.0",
		       "ns per op            25.00", "2.00M; per thread min 1.00M, max 2.50M",
		       "loop overhead        1.50 cycles", "alloc 99.5%, free 75.0%",
		       "alloc_slowpath 10", "alloc_slab 3", "cpu_partial_free 4",
		       "peak 3 pages (12.2K)", "overhead             100.0%", "failures             0",
		       "init_on_alloc=1 init_on_free=0 hardened=1 random=1"})
		EXPECT_TRUE(contains(t, k)) << k << "\n" << t;
	StormResult r = pair_result();
	r.interrupted = true;
	r.state = SLABLAB_STORM_STOPPED;
	EXPECT_TRUE(contains(render_storm_result(r), "stopped (interrupted"));
}

TEST(StormText, Progress)
{
	StormResult r = pair_result();
	r.state = SLABLAB_STORM_RUNNING;
	r.ops_done = 1000;
	EXPECT_EQ(render_storm_bar(r, 10), "[#####.....]  50%  1.0k/2.0k ops  1.0 ms");
	EXPECT_EQ(render_storm_line(r), "storm 7 running: 50% 1000/2000 ops 1.0 ms");
	r.ops_planned = 0;
	r.spec.duration_ms = 4;	// 1 ms of 4
	EXPECT_DOUBLE_EQ(*storm_fraction(r), 0.25);
	r.spec.duration_ms.reset();
	EXPECT_FALSE(storm_fraction(r));
	EXPECT_EQ(render_storm_bar(r), "1.0k ops  1.0 ms");
	EXPECT_TRUE(contains(render_storm_status(r), "storm 7 running: slablab pair on t64"));
	StormSpec s;
	s.target = SLABLAB_TARGET_KMALLOC;
	s.pattern = SLABLAB_PATTERN_CHURN;
	s.sizes = {{64, 3}, {192, 1}};
	EXPECT_EQ(storm_title(s), "kmalloc churn of 64:3,192");
	s.target = SLABLAB_TARGET_NATIVE;
	s.sizes.clear();
	s.cache = "t64";
	EXPECT_EQ(storm_title(s), "native churn like t64");
}

TEST(StormText, Numbers)
{
	EXPECT_EQ(format_si(999), "999");
	EXPECT_EQ(format_si(1500), "1.5k");
	EXPECT_EQ(format_si(16300000), "16.3M");
	EXPECT_EQ(format_si(2.5e9, 2), "2.50G");
	EXPECT_EQ(format_si(NAN), "-");
	EXPECT_EQ(format_ns(850), "850 ns");
	EXPECT_EQ(format_ns(12300000), "12.3 ms");
	EXPECT_EQ(format_ns(1500000000), "1.50 s");
	EXPECT_EQ(format_figure(std::nullopt, *figure_info("ops_per_sec")), "-");
	EXPECT_EQ(format_figure(2.5e6, *figure_info("ops_per_sec")), "2.50M");
	EXPECT_EQ(format_figure(47.04, *figure_info("cycles_per_pair")), "47.0");
}

TEST(StormText, Settings)
{
	StormResult r = pair_result();
	StormSettings s = storm_settings(r);
	EXPECT_EQ(s.init_on_alloc, true);
	EXPECT_EQ(s.hardened, true);	// the cache's flag
	EXPECT_EQ(s.random, true);
	r.spec.target = SLABLAB_TARGET_NATIVE;	// the kernel's config decides
	s = storm_settings(r);
	EXPECT_EQ(s.hardened, true);
	EXPECT_EQ(s.random, false);
	r.features.reset();
	EXPECT_EQ(render_storm_settings(storm_settings(r)),
		  "init_on_alloc=? init_on_free=? hardened=? random=?");
}

TEST(StormText, Watch)
{
	CacheInfo c;
	c.name = "t64";
	c.has_stats = true;
	c.stats[SLABLAB_ALLOC_FASTPATH] = 3000;
	c.stats[SLABLAB_FREE_FASTPATH] = 1000;
	CacheInfo before = c;
	before.stats[SLABLAB_ALLOC_FASTPATH] = 1000;
	std::string h = watch_header();
	std::string line = watch_line(c, &before, 2.0);
	EXPECT_EQ(line.size(), h.size()) << h << "\n" << line;
	EXPECT_TRUE(line.ends_with("      1.0k         0")) << line;
	EXPECT_TRUE(watch_line(c, nullptr, 1.0).ends_with("        -         -"));
	before.stats[SLABLAB_ALLOC_FASTPATH] = 5000;	// a reset in between
	EXPECT_TRUE(watch_line(c, &before, 1.0).ends_with("        -         0"));
	EXPECT_EQ(watch_header(25).find("Objects"), watch_header().find("Objects") + 4);
}

TEST(StormJson, Storm)
{
	Json j = to_json(pair_result());
	for (auto k : {"id", "state", "interrupted", "spec", "progress", "result", "figures",
		       "page_size"})
		EXPECT_TRUE(j.contains(k)) << k;
	EXPECT_EQ(j["state"], "done");
	EXPECT_EQ(j["spec"]["target"], "slablab");
	EXPECT_EQ(j["spec"]["pattern"], "pair");
	EXPECT_TRUE(j["spec"]["duration_ms"].is_null());
	EXPECT_EQ(j["spec"]["sizes"], Json::array());
	for (auto k : {"target", "pattern", "cache", "size", "sizes", "threads", "cpus", "ops",
		       "duration_ms", "batch", "working_set", "ring", "seed", "max_live_bytes",
		       "thin", "rate", "producers"})
		EXPECT_TRUE(j["spec"].contains(k)) << k;
	EXPECT_EQ(j["progress"]["ops_done"], 2000);
	const Json& res = j["result"];
	for (auto k : {"allocs", "frees", "alloc_cycles", "free_cycles", "pair_cycles",
		       "loop_cycles_x1000", "failures", "remote_frees", "peak_pages",
		       "peak_live_bytes", "meta_bytes", "cycles_per_sec", "features", "features_value",
		       "cache_flags", "cache_flags_value", "native_name", "threads", "stats"})
		EXPECT_TRUE(res.contains(k)) << k;
	EXPECT_EQ(res["features"], Json::array({"init_on_alloc", "freelist_hardened"}));
	EXPECT_EQ(res["threads"].size(), 2u);
	EXPECT_DOUBLE_EQ(res["threads"][1]["ops_per_sec"].get<double>(), 1e6);
	EXPECT_EQ(res["stats"]["alloc_slowpath"], 10);
	EXPECT_DOUBLE_EQ(j["figures"]["cycles_per_pair"].get<double>(), 50.0);
	EXPECT_TRUE(j["figures"]["cycles_per_alloc"].is_null());
	for (const auto& fi : figure_table())
		EXPECT_TRUE(j["figures"].contains(std::string(fi.key))) << fi.key;

	StormResult running;
	running.state = SLABLAB_STORM_RUNNING;
	running.spec.sizes = {{64, 3}};
	Json r = to_json(running);
	EXPECT_TRUE(r["result"].is_null());
	EXPECT_EQ(r["spec"]["sizes"][0]["weight"], 3);

	// STORM_GET before the first storm: STATE NONE, ID 0, no spec
	StormResult none;
	none.has_spec = false;
	Json n = to_json(none);
	EXPECT_EQ(n["state"], "none");
	EXPECT_EQ(n["id"], 0);
	EXPECT_TRUE(n["spec"].is_null());
	EXPECT_TRUE(n["result"].is_null());
	EXPECT_EQ(n["progress"]["ops_done"], 0);
}

TEST(StormJson, Compare)
{
	Json j = to_json(sample_compare(false));
	EXPECT_EQ(j["pattern"], "pair");
	EXPECT_EQ(j["repeat"], 3);
	EXPECT_EQ(j["figures"], Json::array({"cycles_per_pair"}));
	ASSERT_EQ(j["variants"].size(), 2u);
	const Json& s = j["variants"][1]["summary"]["cycles_per_pair"];
	for (auto k : {"n", "min", "median", "mean", "max", "sd", "ratio", "paired_ratio"})
		EXPECT_TRUE(s.contains(k)) << k;
	EXPECT_DOUBLE_EQ(s["median"].get<double>(), 30.0);
	EXPECT_DOUBLE_EQ(s["paired_ratio"]["median"].get<double>(), 0.75);
	EXPECT_EQ(j["runs"].size(), 6u);
	EXPECT_EQ(j["runs"][1]["label"], "native");
	EXPECT_EQ(j["runs"][1]["counted"], true);
	EXPECT_EQ(j["runs"][0]["storm"]["state"], "done");
	EXPECT_TRUE(j["restore_error"].is_null());
	Json none = to_json(Summary{});
	EXPECT_EQ(none["n"], 0);
	EXPECT_TRUE(none["median"].is_null());
}
