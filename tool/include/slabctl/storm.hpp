// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: what a storm's numbers mean. Pure functions of StormResult (no kernel
// needed): the derived figures slabctl prints and compares, and the statistics over
// repeated runs.
#pragma once

#include "slabctl/types.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/**
 * The figures derived from one storm's results. Each is absent (nullopt) when its inputs
 * are missing or zero (e.g. cycles per pair of a batch storm, fast-path % of a native
 * storm, which has no slablab counters).
 */
struct StormFigures {
	std::optional<double> cycles_per_alloc;	///< ALLOC_CYCLES / ALLOCS
	std::optional<double> cycles_per_free;	///< FREE_CYCLES / FREES
	std::optional<double> cycles_per_pair;	///< PAIR_CYCLES / OPS_DONE
	std::optional<double> loop_cycles;	///< LOOP_CYCLES / 1000: empty-loop overhead
	/// (ALLOC_CYCLES + FREE_CYCLES + PAIR_CYCLES) / OPS_DONE in ns (CYCLES_PER_SEC)
	std::optional<double> ns_per_op;
	std::optional<double> ops_per_sec;	///< OPS_DONE / ELAPSED_NS, all threads
	std::optional<double> thread_ops_per_sec_min; ///< slowest thread: ops / its ns
	std::optional<double> thread_ops_per_sec_max; ///< fastest thread
	std::optional<double> alloc_fastpath_pct; ///< alloc_fastpath / all allocs (deltas)
	std::optional<double> free_fastpath_pct;  ///< free_fastpath / all frees (deltas)
	/// (PEAK_PAGES x page size + META_BYTES - PEAK_LIVE_BYTES) / PEAK_LIVE_BYTES x 100
	std::optional<double> overhead_pct;
	/// churn, steady state: (STEADY_PAGES x page size - STEADY_LIVE_BYTES) / (STEADY_PAGES
	/// x page size) x 100: the share of the pages held that holds no live object
	std::optional<double> fragmentation_pct;
	/// the same after the loops and a shrink (SHRUNK_PAGES, SHRUNK_LIVE_BYTES)
	std::optional<double> shrunk_fragmentation_pct;
	/// rcu: RCU_WAITING_MEAN, RCU_WAITING_PEAK (objects freed by RCU, not yet freed)
	std::optional<double> rcu_waiting_mean;
	std::optional<double> rcu_waiting_peak;
	std::optional<uint64_t> peak_bytes;	///< PEAK_PAGES x page size
};

StormFigures storm_figures(const StormResult& r);

/// A figure that compare can summarize: its key (JSON, CSV, --figure), title and unit.
struct FigureInfo {
	std::string_view key;		///< "cycles_per_pair"
	std::string_view title;		///< "cycles per pair"
	bool higher_is_better;
	int decimals;			///< digits after the point in tables
	std::optional<double> StormFigures::*member;	///< where StormFigures keeps it
};

/// Every figure compare can use (the StormFigures members, peak_bytes excepted).
std::span<const FigureInfo> figure_table() noexcept;
const FigureInfo* figure_info(std::string_view key) noexcept;
std::optional<double> figure_value(const StormFigures& f, std::string_view key) noexcept;

/**
 * The main figure(s) of a pattern, the ones compare summarizes by default: pair: cycles per
 * pair; batch, bulk: cycles per alloc and per free; remote: ops/s; churn: fragmentation %;
 * rcu: cycles per alloc, per RCU free and the mean objects waiting for a grace period.
 */
std::vector<std::string_view> main_figures(uint32_t pattern);

/// Slow-path counters worth showing for a storm (stat items), in display order.
std::span<const std::size_t> slow_path_causes() noexcept;
/// The cpu_partial_* counters.
std::span<const std::size_t> cpu_partial_stats() noexcept;

/// min / median / mean / max / sample standard deviation of some values.
struct Summary {
	std::size_t n = 0;
	double min = 0, median = 0, mean = 0, max = 0;
	double sd = 0;	///< sample standard deviation (n - 1); 0 for fewer than 2 values
};

/// NaNs are left out. The median of an even count is the mean of the two middle values.
Summary summarize(std::vector<double> values);

}  // namespace slabctl
