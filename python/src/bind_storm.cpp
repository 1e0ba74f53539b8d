// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's storms: Client.storm_start, storm_get, storm_stop (one request each)
// and Client.storm (one run to its end, Ctrl-C stopping it in the kernel; docs/storms.md).
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <optional>
#include <string>

namespace slablab_core {
namespace {

/// The keyword arguments of every storm method (after target and pattern).
#define STORM_KW_ARGS                                                                      \
	py::arg("cache") = py::none(), py::arg("size") = py::none(),                         \
	py::arg("sizes") = py::none(), py::arg("threads") = py::none(),                       \
	py::arg("cpus") = py::none(), py::arg("ops") = py::none(),                            \
	py::arg("duration_ms") = py::none(), py::arg("batch") = py::none(),                   \
	py::arg("working_set") = py::none(), py::arg("ring") = py::none(),                    \
	py::arg("seed") = py::none(), py::arg("max_live_bytes") = py::none(),                 \
	py::arg("thin") = py::none(), py::arg("rate") = py::none(),                           \
	py::arg("producers") = py::none()

#define STORM_KW_PARAMS                                                                    \
	const py::object &cache, const py::object &size, const py::object &sizes,            \
		const py::object &threads, const py::object &cpus, const py::object &ops,    \
		const py::object &duration_ms, const py::object &batch,                       \
		const py::object &working_set, const py::object &ring, const py::object &seed, \
		const py::object &max_live_bytes, const py::object &thin, const py::object &rate, \
		const py::object &producers

#define STORM_KW_VALUE                                                                     \
	StormKw{cache, size, sizes, threads, cpus, ops, duration_ms, batch, working_set, ring, \
		seed, max_live_bytes, thin, rate, producers}

const char* const kStormSpecDoc =
	"target: 'slablab' (a slablab cache; also 'cache'), 'native' (the kernel's SLUB: a "
	"kmem_cache made like `cache`, or of `size`; with `sizes`, the kernel's kmalloc "
	"classes made anew for the storm), 'kmalloc' (slablab_kmalloc), 'native-kmalloc' (the "
	"kernel's kmalloc). pattern: 'pair', 'batch', 'remote', 'churn', "
	"'bulk', 'prefill' (slablab target only), 'rcu' (slablab and kmalloc targets), "
	"'producer-consumer'. "
	"Keywords (None: the kernel's default): cache (str), size (bytes), sizes "
	"('64:3,192:1', {64: 3, 192: 1} or [64, (192, 2)]; kmalloc and native targets), threads, cpus "
	"('0-1' or [0, 1]), ops (allocations per thread), duration_ms (instead of ops), batch, "
	"working_set, ring (power of two), seed, max_live_bytes, thin (churn: keep every "
	"thin-th object after the fill), rate (rcu: objects a second per thread, 0: as fast "
	"as it can), producers (producer-consumer: threads that allocate, 1..threads - 1, "
	"default threads / 2).";

void bind_storm_requests(ClientClass& client)
{
	client
		.def(
			"storm_start",
			[](slabctl::Client& c, const py::object& target, const py::object& pattern,
			   STORM_KW_PARAMS) {
				slabctl::StormSpec spec = STORM_KW_VALUE.spec(
					storm_enum("target", target, slabctl::target_from_name),
					storm_enum("pattern", pattern, slabctl::storm_pattern_from_name));
				slabctl::StormResult r;
				{
					py::gil_scoped_release nogil;
					r = c.storm_start(spec);
				}
				return to_py(slabctl::to_json(r));
			},
			py::arg("target"), py::arg("pattern"), py::kw_only(), STORM_KW_ARGS,
			(std::string("STORM_START: start an allocation storm and return at once with "
				     "its dict (id, state 'running', the spec as the kernel applied "
				     "it; see docs/python.md). One storm at a time: Busy while another "
				     "runs. ") +
			 kStormSpecDoc)
				.c_str())
		.def(
			"storm_get",
			[](slabctl::Client& c, const std::optional<int64_t>& id) {
				auto which = opt_u32("id", id);
				slabctl::StormResult r;
				{
					py::gil_scoped_release nogil;
					r = c.storm_get(which);
				}
				return to_py(slabctl::to_json(r));
			},
			py::arg("id") = py::none(),
			"STORM_GET: the storm dict of storm `id` (default: the last one): state, "
			"progress and, once finished, 'result' and 'figures'. Before the first storm: "
			"state 'none' (id 0, spec None); NotFound for an `id` that is not the last "
			"storm.")
		.def(
			"storm_stop",
			[](slabctl::Client& c, const std::optional<int64_t>& id) {
				auto which = opt_u32("id", id);
				slabctl::StormResult r;
				{
					py::gil_scoped_release nogil;
					r = c.storm_stop(which);
				}
				return to_py(slabctl::to_json(r));
			},
			py::arg("id") = py::none(),
			"STORM_STOP: stop storm `id` (default: the last one), wait for its threads and "
			"return what it did (state 'stopped'). A storm that had finished is left "
			"alone and returned with its real state ('done' or 'stopped'); before the "
			"first storm, state 'none'.");
}

void bind_storm_run(ClientClass& client)
{
	client
		.def(
			"storm",
			[](slabctl::Client& c, const py::object& target, const py::object& pattern,
			   STORM_KW_PARAMS, const py::object& progress, double poll_interval) {
				slabctl::StormSpec spec = STORM_KW_VALUE.spec(
					storm_enum("target", target, slabctl::target_from_name),
					storm_enum("pattern", pattern, slabctl::storm_pattern_from_name));
				auto poll = poll_arg(poll_interval);
				SignalWatch watch;
				slabctl::Client::StormProgress cb;
				if (!progress.is_none())
					cb = [&](const slabctl::StormResult& r) {
						py::gil_scoped_acquire gil;
						progress(to_py(slabctl::to_json(r)));
					};
				slabctl::StormResult r;
				{
					py::gil_scoped_release nogil;
					r = c.run_storm(spec, cb, [&] { return watch(); }, poll);
				}
				watch.raise_if_pending();
				return to_py(slabctl::to_json(r));
			},
			py::arg("target"), py::arg("pattern"), py::kw_only(), STORM_KW_ARGS,
			py::arg("progress") = py::none(), py::arg("poll_interval") = 0.15,
			(std::string("Run a storm to its end and return its dict (as storm_get(): "
				     "'result', 'figures' with cycles_per_pair, ops_per_sec, "
				     "overhead_pct, ...). progress(storm_dict) is called with every "
				     "STORM_GET, every poll_interval seconds. KeyboardInterrupt (or an "
				     "exception from progress) stops the storm in the kernel first, "
				     "then propagates; storm_get() still has what it did. ") +
			 kStormSpecDoc)
				.c_str());
}

}  // namespace

void bind_storm(ClientClass& client)
{
	bind_storm_requests(client);
	bind_storm_run(client);
}

}  // namespace slablab_core
