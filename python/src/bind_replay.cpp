// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's replays: Client.replay, replay_compare and replay_stop, a recorded trace
// run again in the kernel (docs/replay.md).
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slablab_core {
namespace {

/// The replay keywords of replay() and replay_compare() into a ReplaySpec.
slabctl::ReplaySpec replay_spec(const py::object& max_live_bytes, double time_scale,
				const py::object& sample_ms, const py::object& cpu_partial)
{
	slabctl::ReplaySpec spec;
	if (!cpu_partial.is_none()) {
		const auto v = cpu_partial.cast<int64_t>();
		if (v < 0 || v > SLABLAB_MAX_CPU_PARTIAL)
			throw slabctl::UsageError("cpu_partial must be in [0, " +
							  std::to_string(SLABLAB_MAX_CPU_PARTIAL) + "]",
						  ERANGE);
		spec.cpu_partial = static_cast<uint32_t>(v);
	}
	if (!max_live_bytes.is_none()) {
		const auto v = max_live_bytes.cast<int64_t>();
		if (v <= 0)
			throw slabctl::UsageError("max_live_bytes must be positive", ERANGE);
		spec.max_live_bytes = static_cast<uint64_t>(v);
	}
	if (!(time_scale >= 0) || time_scale > 1000)
		throw slabctl::UsageError("time_scale must be in [0, 1000] (0: as fast as possible)",
					  ERANGE);
	spec.time_scale = time_scale;
	if (!sample_ms.is_none()) {
		const double ms = sample_ms.cast<double>();
		if (!(ms >= 0.1))
			throw slabctl::UsageError("sample_ms must be at least 0.1", ERANGE);
		spec.sample_ns = static_cast<uint64_t>(ms * 1e6);
	}
	return spec;
}

/// design=: None or a design name.
std::optional<std::string> design_arg(const py::object& design)
{
	if (design.is_none())
		return std::nullopt;
	return design.cast<std::string>();
}

/// targets=: 'slub,sheaves,native' or a list of target names, as one comma list.
std::string targets_arg(const py::object& targets)
{
	if (py::isinstance<py::str>(targets))
		return targets.cast<std::string>();
	std::string list;
	for (const auto& t : targets)
		list += (list.empty() ? "" : ",") + std::string(py::str(t));
	return list;
}

const char* const kReplayDoc =
	"trace: a file from slabctl record or slablab.record() (str or path). "
	"time_scale: 0 (default) as fast as possible; else each event at its recorded time "
	"times time_scale (1.0: as recorded, 0.1: ten times faster). sample_ms: pages "
	"sampled every sample_ms into 'samples' (default: none, or the scaled duration / "
	"500 when time-scaled). max_live_bytes: cap on the trace's peak live bytes (default "
	"the module's, RAM / 4). cpu_partial: cpu_partial of the caches the slablab target "
	"makes for the recorded caches (default: each cache's; the kmalloc classes keep "
	"theirs). KeyboardInterrupt stops the replay in the kernel (REPLAY_STOP) "
	"and propagates.";

void bind_replay_one(ClientClass& client)
{
	client
		.def(
			"replay",
			[](slabctl::Client& c, const py::object& trace, const std::string& target,
			   const py::object& design, const py::object& max_live_bytes,
			   double time_scale, const py::object& sample_ms,
			   const py::object& cpu_partial) {
				auto variants =
					slabctl::parse_replay_targets(target, design_arg(design));
				if (variants.size() != 1)
					throw slabctl::UsageError(
						"replay() takes one target (replay_compare() several)");
				slabctl::ReplaySpec spec =
					replay_spec(max_live_bytes, time_scale, sample_ms, cpu_partial);
				spec.target = variants[0].spec.target;
				spec.design = variants[0].spec.design;
				const std::string path = path_arg(trace);
				SignalWatch watch;
				slabctl::ReplayResult r;
				{
					py::gil_scoped_release nogil;
					const slabctl::Trace t = slabctl::read_trace(path);
					r = c.replay(t, spec, [&] { return watch(); });
				}
				r.label = variants[0].label;
				watch.raise_if_pending();
				return to_py(slabctl::to_json(r));
			},
			py::arg("trace"), py::arg("target") = "slablab", py::kw_only(),
			py::arg("design") = py::none(), py::arg("max_live_bytes") = py::none(),
			py::arg("time_scale") = 0.0, py::arg("sample_ms") = py::none(),
			py::arg("cpu_partial") = py::none(),
			(std::string("slabctl replay from Python: replay the trace in the kernel on "
				     "`target` ('slablab', 'native', 'kmalloc', 'native-kmalloc', "
				     "'slablab:DESIGN' or a design name; design= for a plain slablab) "
				     "and return the replay dict (`slabctl replay --json`'s 'replay'): "
				     "allocs, frees, live_at_end, ops_per_sec, cycles_per_alloc, "
				     "peak_pages, avg_pages, overhead_pct, caches, samples. ") +
			 kReplayDoc)
				.c_str());
}

void bind_replay_compare(ClientClass& client)
{
	client
		.def(
			"replay_compare",
			[](slabctl::Client& c, const py::object& trace, const py::object& targets,
			   const py::object& design, const py::object& max_live_bytes,
			   double time_scale, const py::object& sample_ms, const py::object& progress,
			   const py::object& cpu_partial) {
				const std::string list = targets_arg(targets);
				auto variants = slabctl::parse_replay_targets(list, design_arg(design));
				const slabctl::ReplaySpec base =
					replay_spec(max_live_bytes, time_scale, sample_ms, cpu_partial);
				const std::string path = path_arg(trace);
				SignalWatch watch;
				slabctl::ReplayProgressFn cb;
				if (!progress.is_none())
					cb = [&](size_t i, size_t n, const slabctl::ReplayResult& r) {
						py::gil_scoped_acquire gil;
						progress(i, n, to_py(slabctl::to_json(r)));
					};
				std::vector<slabctl::ReplayResult> runs;
				{
					py::gil_scoped_release nogil;
					const slabctl::Trace t = slabctl::read_trace(path);
					runs = slabctl::run_replay_compare(c, t, variants, base, cb,
									   [&] { return watch(); });
				}
				watch.raise_if_pending();
				return to_py(slabctl::replay_compare_json(path, runs));
			},
			py::arg("trace"), py::arg("targets"), py::kw_only(),
			py::arg("design") = py::none(), py::arg("max_live_bytes") = py::none(),
			py::arg("time_scale") = 0.0, py::arg("sample_ms") = py::none(),
			py::arg("progress") = py::none(), py::arg("cpu_partial") = py::none(),
			(std::string("slabctl replay --compare from Python: replay the trace on each "
				     "target in turn (a list, or 'slub,sheaves,native') and return "
				     "{'file', 'targets': [labels], 'replays': [replay dicts]}. "
				     "progress(index, total, replay_dict) after each. ") +
			 kReplayDoc)
				.c_str());
}

void bind_replay_stop(ClientClass& client)
{
	client
		.def(
			"replay_stop",
			[](slabctl::Client& c) {
				slabctl::ReplayResult r;
				{
					py::gil_scoped_release nogil;
					r = c.replay_stop();
				}
				return to_py(slabctl::to_json(r));
			},
			"REPLAY_STOP: stop a running replay (its objects freed, its caches destroyed) "
			"and return its dict, state_name 'stopped'; a finished one is left alone (its "
			"real state), with none loaded state_name is 'none'.");
}

}  // namespace

void bind_replay(ClientClass& client)
{
	bind_replay_one(client);
	bind_replay_compare(client);
	bind_replay_stop(client);
}

}  // namespace slablab_core
