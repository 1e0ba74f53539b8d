// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's Client.compare: slabctl compare from Python, the same storm against
// several targets, settings or thread counts, interleaved (docs/storms.md).
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace slablab_core {
namespace {

/// Client.compare's keywords besides the storm's.
struct CompareKw {
	py::object pattern, targets, sets;
	int64_t repeat;
	py::object figures;
	double poll_interval;
	int64_t warmup;
	py::object until;
	int64_t max_repeats;
	bool aa;
	double noise_floor;
};

/// threads=: an int is the storm's thread count, a list the thread counts to compare
/// (then the storm's is left to each variant).
std::vector<uint32_t> split_threads(StormKw& storm)
{
	std::vector<uint32_t> compared;
	if (storm.threads.is_none() || py::isinstance<py::int_>(storm.threads))
		return compared;
	for (const auto& t : storm.threads)
		compared.push_back(u32_arg("threads", t.cast<int64_t>()));
	storm.threads = py::none();
	return compared;
}

/// targets=: None or a list of target names (not a str).
std::vector<uint32_t> targets_arg(const py::object& targets)
{
	std::vector<uint32_t> out;
	if (targets.is_none())
		return out;
	if (py::isinstance<py::str>(targets))
		throw py::type_error("targets is a list of target names");
	for (const auto& t : targets)
		out.push_back(storm_enum("target", py::reinterpret_borrow<py::object>(t),
					 slabctl::target_from_name));
	return out;
}

/// One entry of sets= as a dict: {'cpu_partial': 0, 'debug': True} -> "cpu_partial=0,debug=1".
std::string set_text(const py::dict& set)
{
	std::string text;
	for (const auto& [k, v] : set) {
		std::string value = py::isinstance<py::bool_>(v) ? (v.cast<bool>() ? "1" : "0")
								 : std::string(py::str(v));
		text += (text.empty() ? "" : ",") + std::string(py::str(k)) + "=" + value;
	}
	return text;
}

/// sets=: None or a list of 'KEY=VALUE,...' strings and dicts.
std::vector<std::string> sets_arg(const py::object& sets)
{
	std::vector<std::string> out;
	if (sets.is_none())
		return out;
	for (const auto& item : sets) {
		if (py::isinstance<py::str>(item))
			out.push_back(item.cast<std::string>());
		else if (py::isinstance<py::dict>(item))
			out.push_back(set_text(item.cast<py::dict>()));
		else
			throw py::type_error("sets entries are 'KEY=VALUE,...' strings or dicts");
	}
	return out;
}

/// The CompareSpec of compare()'s keywords, checked in the order the keywords come.
slabctl::CompareSpec compare_spec(const CompareKw& kw, StormKw storm)
{
	slabctl::CompareSpec spec;
	spec.threads = split_threads(storm);
	spec.base = storm.spec(SLABLAB_TARGET_SLABLAB,
			       storm_enum("pattern", kw.pattern, slabctl::storm_pattern_from_name));
	spec.targets = targets_arg(kw.targets);
	spec.sets = sets_arg(kw.sets);
	spec.repeat = u32_arg("repeat", kw.repeat);
	spec.warmup = u32_arg("warmup", kw.warmup);
	if (!kw.until.is_none())
		spec.until = kw.until.cast<double>();
	spec.max_repeats = std::max(u32_arg("max_repeats", kw.max_repeats),
				    kw.until.is_none() ? spec.repeat : 0U);
	spec.aa = kw.aa;
	spec.noise_floor = kw.noise_floor;
	slabctl::compare_variants(spec);	// usage errors first
	if (!kw.figures.is_none())
		for (const auto& f : kw.figures)
			spec.figures.push_back(py::str(f));
	spec.poll = poll_arg(kw.poll_interval);
	return spec;
}

/// progress=: progress(dict) with every STORM_GET of every run; none without it.
slabctl::CompareProgressFn compare_progress(const py::object& progress)
{
	if (progress.is_none())
		return {};
	return [&progress](const slabctl::CompareProgress& p) {
		if (!p.storm)
			return;	// an --until round summary
		py::gil_scoped_acquire gil;
		py::dict d;
		d["run"] = p.run;
		d["total"] = p.total;
		d["variant"] = p.variant_index;
		d["label"] = p.variant->label;
		d["repeat"] = p.repeat;
		d["storm"] = to_py(slabctl::to_json(*p.storm));
		progress(d);
	};
}

/// Run the compare without the GIL; Ctrl-C stops it (the cache's settings restored).
py::object run_compare(slabctl::Client& c, const slabctl::CompareSpec& spec,
		       const py::object& progress)
{
	SignalWatch watch;
	const slabctl::CompareProgressFn cb = compare_progress(progress);
	slabctl::CompareResult res;
	{
		py::gil_scoped_release nogil;
		res = slabctl::run_compare(c, spec, cb, [&] { return watch(); });
	}
	watch.raise_if_pending();
	return to_py(slabctl::to_json(res));
}

}  // namespace

void bind_compare(ClientClass& client)
{
	client.def(
		"compare",
		[](slabctl::Client& c, const py::object& pattern, const py::object& targets,
		   const py::object& sets, const py::object& threads, int64_t repeat,
		   const py::object& figures, const py::object& cache, const py::object& size,
		   const py::object& sizes, const py::object& cpus, const py::object& ops,
		   const py::object& duration_ms, const py::object& batch,
		   const py::object& working_set, const py::object& ring, const py::object& seed,
		   const py::object& max_live_bytes, const py::object& thin, const py::object& rate,
		   const py::object& producers, const py::object& progress, double poll_interval, int64_t warmup,
		   const py::object& until, int64_t max_repeats, bool aa, double noise_floor) {
			const CompareKw kw{pattern, targets, sets, repeat, figures, poll_interval,
					   warmup, until, max_repeats, aa, noise_floor};
			const StormKw storm{cache, size, sizes, threads, cpus, ops, duration_ms,
					    batch, working_set, ring, seed, max_live_bytes, thin,
					    rate, producers};
			return run_compare(c, compare_spec(kw, storm), progress);
		},
		py::arg("pattern"), py::kw_only(), py::arg("targets") = py::none(),
		py::arg("sets") = py::none(), py::arg("threads") = py::none(),
		py::arg("repeat") = 7, py::arg("figures") = py::none(),
		py::arg("cache") = py::none(), py::arg("size") = py::none(),
		py::arg("sizes") = py::none(), py::arg("cpus") = py::none(),
		py::arg("ops") = py::none(), py::arg("duration_ms") = py::none(),
		py::arg("batch") = py::none(), py::arg("working_set") = py::none(),
		py::arg("ring") = py::none(), py::arg("seed") = py::none(),
		py::arg("max_live_bytes") = py::none(), py::arg("thin") = py::none(),
		py::arg("rate") = py::none(), py::arg("producers") = py::none(),
		py::arg("progress") = py::none(),
		py::arg("poll_interval") = 0.15, py::arg("warmup") = 1,
		py::arg("until") = py::none(), py::arg("max_repeats") = 50,
		py::arg("aa") = false, py::arg("noise_floor") = 0.0,
		"slabctl compare from Python: run the same storm against each variant, "
		"interleaved, `repeat` times, and return the dict `slabctl compare --json` "
		"prints (without 'schema'/'command'): 'variants' with a 'summary' per figure "
		"(n, min, median, mean, max, sd, ratio, paired_ratio) and every run. "
		"targets: list of target names (default ['slablab', 'native'], or "
		"['slablab'] with sets); sets: list of 'KEY=VALUE,...' or dicts applied to "
		"`cache` (restored afterwards); threads: an int, or a list of thread counts "
		"to compare; figures: figure keys (default: the pattern's main ones). "
		"progress(dict) sees every STORM_GET: run, total, variant, label, repeat, "
		"storm. KeyboardInterrupt stops the running storm, restores the cache's "
		"settings and propagates. warmup: rounds run first and not summarized; "
		"until: go on until every ratio's 95% CI is at most ±until (0.02), at most "
		"max_repeats; aa: the first variant against itself (the noise floor); "
		"noise_floor: the equivalence margin, an interval inside ±noise_floor is 'same' "
		"(0: ±5%), one that holds 1 and reaches past it 'inconclusive'. Each summary has "
		"'ci' {n, ratio, lo, hi, sd, p, mde}, 'verdict' and 'outliers'.");
}

}  // namespace slablab_core
