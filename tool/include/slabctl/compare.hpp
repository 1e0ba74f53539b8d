// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: slabctl compare — the same storm against several targets or settings,
// interleaved (A B A B …), repeated, and summarized per variant.
#pragma once

#include "slabctl/client.hpp"
#include "slabctl/stats.hpp"
#include "slabctl/storm.hpp"
#include "slabctl/types.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace slabctl {

/// Most variants one compare may run (targets x sets x thread counts).
inline constexpr std::size_t kMaxCompareVariants = 64;
/// Most repeats of each variant.
inline constexpr uint32_t kMaxCompareRepeat = 1000;
/// Most warm-up rounds.
inline constexpr uint32_t kMaxCompareWarmup = 100;

/**
 * What to compare. Variants are the product targets x sets x threads, in that order (the
 * first axis varies slowest). `sets` apply to the slablab cache (`base.cache`) and so only
 * to target slablab: other targets run once per thread count whatever the sets.
 */
struct CompareSpec {
	StormSpec base;			///< the storm; its target is ignored
	/// Targets; empty: slablab and native, or slablab alone when sets are given.
	std::vector<uint32_t> targets;
	/// Cache settings, one variant each: "KEY=VALUE[,KEY=VALUE…]" (parse_set_variant()).
	std::vector<std::string> sets;
	/// Thread counts, one variant each; empty: base.threads.
	std::vector<uint32_t> threads;
	uint32_t repeat = 7;		///< runs of each variant (with `until`: at least)
	/// Rounds (one run of each variant) run first and discarded: caches, page allocator
	/// and cpu frequency settle. They are shown and written to the CSV (warmup=1).
	uint32_t warmup = 1;
	/// Run more rounds until every ratio's 95% interval is at most ±until (0.02: ±2%)...
	std::optional<double> until;
	uint32_t max_repeats = 50;	///< ... or this many repeats have run
	/// A/A: the first variant twice (labels "X" and "X (A')"): the machine's noise floor.
	bool aa = false;
	/// Relative half width of the A/A interval (0.03: ±3%): the equivalence margin, a ratio
	/// whose interval lies inside [1 - noise_floor, 1 + noise_floor] is "no difference"
	/// (0: not measured; compare_tolerance() is then kDefaultTolerance).
	double noise_floor = 0;
	uint64_t bootstrap_seed = kBootstrapSeed;	///< unused (the interval is not random)
	/// Figures to summarize (figure_table() keys); empty: main_figures(base.pattern).
	std::vector<std::string> figures;
	std::chrono::milliseconds poll{150};	///< STORM_GET interval while a storm runs
};

/// One variant: a label for tables and the full storm spec it runs.
struct CompareVariant {
	std::string label;		///< "slablab", "native", "slablab cpu_partial=0", "native threads=2"
	std::string set_text;		///< the --set text, "" if none
	std::optional<Tunables> set;	///< parsed set_text
	StormSpec spec;			///< what runs (target, threads, cache/size as the target needs)
};

/// Build and check the variants (UsageError on a bad spec; the message names the variant).
std::vector<CompareVariant> compare_variants(const CompareSpec& spec);
/// The figure keys compare will summarize (checked; UsageError for unknown keys).
std::vector<std::string> compare_figure_keys(const CompareSpec& spec);

/// One storm of a compare.
struct CompareRun {
	std::size_t variant = 0;	///< index into CompareResult::variants
	uint32_t repeat = 0;		///< 1-based (warm-up rounds count on their own)
	bool warmup = false;		///< a warm-up run: shown, never summarized
	StormResult result;
	StormFigures figures;
	std::string tunables;		///< the cache's settings during the run ("" for native)
	std::string design;		///< the slablab cache's design during the run (CSV design)
	bool counted() const noexcept
	{
		return !warmup && !result.interrupted && result.finished();
	}
};

/// What reruns a compare: where it ran (CSV columns kernel_release ... slablab_commit).
struct RunContext {
	std::string kernel_release;	///< the module's STATUS (uname -r of the guest)
	std::optional<uint32_t> cpus;	///< online cpus (the VM's vCPUs)
	std::optional<uint64_t> memory_mb;	///< MemTotal of the machine running slabctl
	/// qemu's -icount shift when the VM runs deterministic TCG (scripts/vm.sh VM_ICOUNT,
	/// SLABLAB_VM_ICOUNT in the guest): cycles are then instructions << shift, not time;
	/// empty otherwise
	std::string icount;
	/// the slab design of the compared cache at the start (a run's own: CompareRun::design)
	std::string design = "slub";
	std::string commit;		///< `git describe` of slablab at build time
};

/// The context of this machine (kernel release and cpus from the module's status).
RunContext run_context(Client& client);

/// One figure of one variant over its runs.
struct FigureSummary {
	Summary values;			///< over the variant's counted runs
	std::optional<double> ratio;	///< values.median / the first variant's median
	Summary paired;			///< per repeat: value / the first variant's value that repeat
	/// 95% Student-t interval of the paired ratio, ratio_interval() (the first variant: none)
	std::optional<RatioInterval> ci;
	Verdict verdict = Verdict::none;	///< of ci, against compare_tolerance(spec)
	/// Repeats whose value is an outlier among the variant's values (Tukey's fences):
	/// shown in the table, still counted.
	std::vector<uint32_t> outliers;
};

struct CompareResult {
	CompareSpec spec;
	std::vector<CompareVariant> variants;
	std::vector<std::string> figures;
	std::vector<CompareRun> runs;		///< in the order they ran
	bool interrupted = false;		///< should_stop() ended it early
	std::string restore_error;		///< the cache's settings could not be restored
	uint32_t repeats_done = 0;		///< rounds run after the warm-up (summarize_compare())
	bool until_met = false;			///< spec.until was reached
	RunContext context;			///< where it ran
	/// summaries[figure][variant], in the order of `figures` and `variants`
	std::vector<std::vector<FigureSummary>> summaries;
};

/// The equivalence margin of a compare's verdicts: --noise-floor, else kDefaultTolerance.
double compare_tolerance(const CompareSpec& spec) noexcept;
/// The machine time of one repeat: the counted runs' elapsed time over the repeats (0: none).
double compare_seconds_per_repeat(const CompareResult& result) noexcept;

/// (Re)compute result.summaries from result.runs. Pure; runs that were interrupted or did
/// not finish are left out.
void summarize_compare(CompareResult& result);

/// The intervals --until waits for: every figure's, every variant's but the first.
std::vector<std::optional<RatioInterval>> compare_intervals(const CompareResult& result);
/**
 * --until's stopping rule after a round (summaries up to date): spec.until is given, at
 * least spec.repeat repeats are done, and every interval is at most ±until wide.
 * run_compare() also stops at spec.max_repeats, met or not.
 */
bool compare_until_met(const CompareResult& result);

struct CompareProgress {
	std::size_t run = 0;		///< 0-based index of this run
	std::size_t total = 0;		///< runs planned
	std::size_t variant_index = 0;	///< index into the variants
	const CompareVariant* variant = nullptr;
	uint32_t repeat = 0;		///< 1-based
	bool warmup = false;		///< a warm-up run
	const StormResult* storm = nullptr; ///< the latest STORM_GET of this run; null: round
	/// With spec.until, after each round: the result so far (summaries filled), storm null.
	const CompareResult* round = nullptr;
};
using CompareProgressFn = std::function<void(const CompareProgress&)>;

/**
 * Run every variant `repeat` times, interleaved. `--set` settings are applied to the cache
 * before each slablab run that needs them (relative to the cache's settings at the start,
 * so variants never leak into each other) and the original settings are put back at the
 * end — also when should_stop() ends the compare early or a storm fails. `progress` sees
 * every STORM_GET of every run and, with spec.until, the summaries after every round.
 * spec.warmup rounds run first and are left out of the summaries; with spec.until, rounds
 * go on past spec.repeat until intervals_narrow_enough() or spec.max_repeats.
 */
CompareResult run_compare(Client& client, const CompareSpec& spec,
			  const CompareProgressFn& progress = {},
			  const Client::ShouldStop& should_stop = {});

}  // namespace slabctl
