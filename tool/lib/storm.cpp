// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/storm.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace slabctl {
namespace {

std::optional<double> ratio(double num, double den)
{
	if (den <= 0)
		return std::nullopt;
	return num / den;
}

std::optional<double> ratio_if(uint64_t num, uint64_t den, bool need_num = true)
{
	if (den == 0 || (need_num && num == 0))
		return std::nullopt;
	return static_cast<double>(num) / static_cast<double>(den);
}

using F = StormFigures;
constexpr FigureInfo kFigures[] = {
	{"cycles_per_pair", "cycles per pair", false, 1, &F::cycles_per_pair},
	{"cycles_per_alloc", "cycles per alloc", false, 1, &F::cycles_per_alloc},
	{"cycles_per_free", "cycles per free", false, 1, &F::cycles_per_free},
	{"ns_per_op", "ns per op", false, 2, &F::ns_per_op},
	{"ops_per_sec", "ops/s", true, 0, &F::ops_per_sec},
	{"thread_ops_per_sec_min", "slowest thread ops/s", true, 0, &F::thread_ops_per_sec_min},
	{"thread_ops_per_sec_max", "fastest thread ops/s", true, 0, &F::thread_ops_per_sec_max},
	{"alloc_fastpath_pct", "alloc fast path %", true, 1, &F::alloc_fastpath_pct},
	{"free_fastpath_pct", "free fast path %", true, 1, &F::free_fastpath_pct},
	{"overhead_pct", "memory overhead %", false, 1, &F::overhead_pct},
	{"loop_cycles", "loop overhead (cycles)", false, 2, &F::loop_cycles},
	{"fragmentation_pct", "fragmentation %", false, 1, &F::fragmentation_pct},
	{"shrunk_fragmentation_pct", "fragmentation after shrink %", false, 1,
	 &F::shrunk_fragmentation_pct},
	{"rcu_waiting_mean", "objects waiting for RCU (mean)", false, 0, &F::rcu_waiting_mean},
	{"rcu_waiting_peak", "objects waiting for RCU (peak)", false, 0, &F::rcu_waiting_peak},
};

constexpr std::size_t kSlowPathCauses[] = {
	SLABLAB_ALLOC_SLOWPATH,	     SLABLAB_FREE_SLOWPATH,	  SLABLAB_ALLOC_REFILL,
	SLABLAB_ALLOC_FROM_PARTIAL,  SLABLAB_ALLOC_SLAB,	  SLABLAB_ALLOC_NODE_MISMATCH,
	SLABLAB_FREE_FROZEN,	     SLABLAB_FREE_ADD_PARTIAL,	  SLABLAB_FREE_REMOVE_PARTIAL,
	SLABLAB_FREE_SLAB,	     SLABLAB_DEACTIVATE_FULL,	  SLABLAB_DEACTIVATE_EMPTY,
	SLABLAB_DEACTIVATE_TO_HEAD,  SLABLAB_DEACTIVATE_TO_TAIL, SLABLAB_DEACTIVATE_REMOTE_FREES,
	SLABLAB_DEACTIVATE_BYPASS,   SLABLAB_ORDER_FALLBACK,	  SLABLAB_CMPXCHG_DOUBLE_FAIL,
	SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL,
};

constexpr std::size_t kCpuPartialStats[] = {
	SLABLAB_CPU_PARTIAL_ALLOC,
	SLABLAB_CPU_PARTIAL_FREE,
	SLABLAB_CPU_PARTIAL_NODE,
	SLABLAB_CPU_PARTIAL_DRAIN,
};

}  // namespace

StormFigures storm_figures(const StormResult& r)
{
	StormFigures f;
	f.cycles_per_alloc = ratio_if(r.alloc_cycles, r.allocs);
	f.cycles_per_free = ratio_if(r.free_cycles, r.frees);
	f.cycles_per_pair = ratio_if(r.pair_cycles, r.ops_done);
	if (r.loop_cycles_x1000)
		f.loop_cycles = static_cast<double>(r.loop_cycles_x1000) / 1000.0;
	const uint64_t cycles = r.alloc_cycles + r.free_cycles + r.pair_cycles;
	if (cycles && r.ops_done && r.cycles_per_sec)
		f.ns_per_op = static_cast<double>(cycles) / static_cast<double>(r.ops_done) /
			      static_cast<double>(r.cycles_per_sec) * 1e9;
	if (r.ops_done && r.elapsed_ns)
		f.ops_per_sec = static_cast<double>(r.ops_done) * 1e9 /
				static_cast<double>(r.elapsed_ns);
	for (const auto& t : r.threads) {
		if (!t.ns)
			continue;
		double v = static_cast<double>(t.ops) * 1e9 / static_cast<double>(t.ns);
		f.thread_ops_per_sec_min = f.thread_ops_per_sec_min ? std::min(*f.thread_ops_per_sec_min, v) : v;
		f.thread_ops_per_sec_max = f.thread_ops_per_sec_max ? std::max(*f.thread_ops_per_sec_max, v) : v;
	}
	if (r.has_stats) {
		const auto& s = r.stats;
		uint64_t a = s[SLABLAB_ALLOC_FASTPATH] + s[SLABLAB_ALLOC_SLOWPATH];
		uint64_t fr = s[SLABLAB_FREE_FASTPATH] + s[SLABLAB_FREE_SLOWPATH];
		if (a)
			f.alloc_fastpath_pct = 100.0 * static_cast<double>(s[SLABLAB_ALLOC_FASTPATH]) /
					       static_cast<double>(a);
		if (fr)
			f.free_fastpath_pct = 100.0 * static_cast<double>(s[SLABLAB_FREE_FASTPATH]) /
					      static_cast<double>(fr);
	}
	if (r.page_size && r.has_results)
		f.peak_bytes = r.peak_pages * r.page_size;
	if (f.peak_bytes && r.peak_live_bytes) {
		double held = static_cast<double>(*f.peak_bytes) + static_cast<double>(r.meta_bytes);
		double live = static_cast<double>(r.peak_live_bytes);
		f.overhead_pct = ratio((held - live) * 100.0, live);
	}
	auto frag = [&](uint64_t pages, uint64_t live) -> std::optional<double> {
		if (!r.page_size || !pages)
			return std::nullopt;
		double held = static_cast<double>(pages) * r.page_size;
		return std::max(0.0, (held - static_cast<double>(live)) * 100.0 / held);
	};
	if (r.steady_samples)
		f.fragmentation_pct = frag(r.steady_pages, r.steady_live_bytes);
	if (r.shrunk_pages && r.shrunk_live_bytes)
		f.shrunk_fragmentation_pct = frag(*r.shrunk_pages, *r.shrunk_live_bytes);
	if (r.rcu_samples && r.rcu_waiting_mean)
		f.rcu_waiting_mean = static_cast<double>(*r.rcu_waiting_mean);
	if (r.rcu_samples && r.rcu_waiting_peak)
		f.rcu_waiting_peak = static_cast<double>(*r.rcu_waiting_peak);
	return f;
}

std::span<const FigureInfo> figure_table() noexcept
{
	return kFigures;
}

const FigureInfo* figure_info(std::string_view key) noexcept
{
	for (const auto& fi : kFigures)
		if (fi.key == key)
			return &fi;
	return nullptr;
}

std::optional<double> figure_value(const StormFigures& f, std::string_view key) noexcept
{
	const FigureInfo* fi = figure_info(key);
	return fi ? f.*(fi->member) : std::nullopt;
}

std::vector<std::string_view> main_figures(uint32_t pattern)
{
	switch (pattern) {
	case SLABLAB_PATTERN_PAIR:
		return {"cycles_per_pair"};
	case SLABLAB_PATTERN_BATCH:
	case SLABLAB_PATTERN_BULK:
	case SLABLAB_PATTERN_PREFILL:
		return {"cycles_per_alloc", "cycles_per_free"};
	case SLABLAB_PATTERN_REMOTE:
	case SLABLAB_PATTERN_PRODUCER_CONSUMER:
		return {"ops_per_sec"};
	case SLABLAB_PATTERN_CHURN:
		return {"fragmentation_pct"};
	case SLABLAB_PATTERN_RCU:
		return {"cycles_per_alloc", "cycles_per_free", "rcu_waiting_mean"};
	default:
		return {"ns_per_op"};
	}
}

std::span<const std::size_t> slow_path_causes() noexcept
{
	return kSlowPathCauses;
}

std::span<const std::size_t> cpu_partial_stats() noexcept
{
	return kCpuPartialStats;
}

Summary summarize(std::vector<double> values)
{
	std::erase_if(values, [](double v) { return std::isnan(v); });
	Summary s;
	s.n = values.size();
	if (values.empty())
		return s;
	std::sort(values.begin(), values.end());
	s.min = values.front();
	s.max = values.back();
	const std::size_t mid = values.size() / 2;
	s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
	double sum = 0;
	for (double v : values)
		sum += v;
	s.mean = sum / static_cast<double>(values.size());
	if (values.size() > 1) {
		double sq = 0;
		for (double v : values)
			sq += (v - s.mean) * (v - s.mean);
		s.sd = std::sqrt(sq / static_cast<double>(values.size() - 1));
	}
	return s;
}

}  // namespace slabctl
