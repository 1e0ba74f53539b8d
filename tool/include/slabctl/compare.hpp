// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: slabctl compare — the same storm against several targets or settings,
// interleaved (A B A B …), repeated, and summarized per variant.
#pragma once

#include "slabctl/client.hpp"
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
	uint32_t repeat = 7;		///< runs of each variant
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
	uint32_t repeat = 0;		///< 1-based
	StormResult result;
	StormFigures figures;
	bool counted() const noexcept { return !result.interrupted && result.finished(); }
};

/// One figure of one variant over its runs.
struct FigureSummary {
	Summary values;			///< over the variant's counted runs
	std::optional<double> ratio;	///< values.median / the first variant's median
	Summary paired;			///< per repeat: value / the first variant's value that repeat
};

struct CompareResult {
	CompareSpec spec;
	std::vector<CompareVariant> variants;
	std::vector<std::string> figures;
	std::vector<CompareRun> runs;		///< in the order they ran
	bool interrupted = false;		///< should_stop() ended it early
	std::string restore_error;		///< the cache's settings could not be restored
	/// summaries[figure][variant], in the order of `figures` and `variants`
	std::vector<std::vector<FigureSummary>> summaries;
};

/// (Re)compute result.summaries from result.runs. Pure; runs that were interrupted or did
/// not finish are left out.
void summarize_compare(CompareResult& result);

struct CompareProgress {
	std::size_t run = 0;		///< 0-based index of this run
	std::size_t total = 0;		///< runs planned
	std::size_t variant_index = 0;	///< index into the variants
	const CompareVariant* variant = nullptr;
	uint32_t repeat = 0;		///< 1-based
	const StormResult* storm = nullptr; ///< the latest STORM_GET of this run
};
using CompareProgressFn = std::function<void(const CompareProgress&)>;

/**
 * Run every variant `repeat` times, interleaved. `--set` settings are applied to the cache
 * before each slablab run that needs them (relative to the cache's settings at the start,
 * so variants never leak into each other) and the original settings are put back at the
 * end — also when should_stop() ends the compare early or a storm fails. `progress` sees
 * every STORM_GET of every run.
 */
CompareResult run_compare(Client& client, const CompareSpec& spec,
			  const CompareProgressFn& progress = {},
			  const Client::ShouldStop& should_stop = {});

}  // namespace slabctl
