// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's constants: the spec's names and limits, as libslabctl knows them.
#include "bindings.hpp"
#include "common.hpp"

#include <string>

namespace slablab_core {
namespace {

/// A tuple of str from a range of names (std::string or std::string_view), or of table
/// entries through `name_of`.
template <typename Range, typename NameOf>
py::tuple str_tuple(const Range& range, NameOf name_of)
{
	py::list out;
	for (const auto& e : range)
		out.append(py::str(std::string(name_of(e))));
	return py::tuple(out);
}

template <typename Range>
py::tuple str_tuple(const Range& range)
{
	return str_tuple(range, [](const auto& name) { return name; });
}

py::tuple stat_names()
{
	py::tuple stats(slabctl::kNrStats);
	for (std::size_t i = 0; i < slabctl::kNrStats; i++)
		stats[i] = py::str(std::string(slabctl::stat_name(i)));
	return stats;
}

py::tuple storm_states()
{
	py::list states;
	for (uint32_t st = 0; st < __SLABLAB_STORM_STATE_MAX; st++)
		states.append(py::str(slabctl::storm_state_name(st)));
	return py::tuple(states);
}

py::dict limits()
{
	py::dict l;
	l["name_max"] = SLABLAB_NAME_MAX - 1;
	l["min_size"] = SLABLAB_MIN_SIZE;
	l["max_size"] = SLABLAB_MAX_SIZE;
	l["max_align"] = SLABLAB_MAX_ALIGN;
	l["max_order"] = SLABLAB_MAX_ORDER;
	l["max_cpu_partial"] = SLABLAB_MAX_CPU_PARTIAL;
	l["max_min_partial"] = SLABLAB_MAX_MIN_PARTIAL;
	l["max_handle_objects"] = SLABLAB_MAX_HANDLE_OBJECTS;
	l["max_handle_bytes"] = SLABLAB_MAX_HANDLE_BYTES;
	l["max_handles"] = SLABLAB_MAX_HANDLES;
	l["storm_max_threads"] = SLABLAB_STORM_MAX_THREADS;
	l["storm_max_duration_ms"] = SLABLAB_STORM_MAX_DURATION_MS;
	l["storm_max_batch"] = SLABLAB_STORM_MAX_BATCH;
	l["storm_max_working_set"] = SLABLAB_STORM_MAX_WORKING_SET;
	l["storm_max_ring"] = SLABLAB_STORM_MAX_RING;
	l["storm_min_ring"] = SLABLAB_STORM_MIN_RING;
	l["storm_max_sizes"] = SLABLAB_STORM_MAX_SIZES;
	l["storm_max_weight"] = SLABLAB_STORM_MAX_WEIGHT;
	l["storm_max_ops"] = SLABLAB_STORM_MAX_OPS;
	return l;
}

}  // namespace

void bind_constants(py::module_& m)
{
	m.attr("__version__") = slabctl::kVersion;
	m.attr("API_VERSION") = SLABLAB_GENL_VERSION;
	m.attr("JSON_SCHEMA") = std::string(slabctl::kJsonSchema);

	auto name = [](const auto& e) { return e.name; };
	m.attr("STAT_NAMES") = stat_names();
	m.attr("TUNABLES") = str_tuple(slabctl::kTunables, name);	// the spec's cache-tunables
	m.attr("CACHE_FLAGS") = str_tuple(slabctl::cache_flag_table(), name);
	m.attr("FEATURES") = str_tuple(slabctl::feature_table(), name);
	m.attr("FASTPATHS") = str_tuple(slabctl::fastpath_names());
	m.attr("DESIGNS") = str_tuple(slabctl::design_names());	// the spec's design enum
	m.attr("PAGE_POLICIES") = str_tuple(slabctl::page_policy_names());
	// storms' and replays': one enum (STORM_TARGETS and REPLAY_TARGETS name it too)
	m.attr("TARGETS") = str_tuple(slabctl::target_names());
	m.attr("REPLAY_TARGETS") = m.attr("TARGETS");
	m.attr("LIMITS") = limits();
	m.attr("STORM_TARGETS") = m.attr("TARGETS");
	m.attr("STORM_PATTERNS") = str_tuple(slabctl::storm_pattern_names());
	m.attr("STORM_STATES") = storm_states();
	m.attr("FIGURES") = str_tuple(slabctl::figure_table(), [](const auto& f) { return f.key; });
	m.attr("RUN_CSV_COLUMNS") = str_tuple(slabctl::run_csv_columns());
	m.attr("BUILD_COMMIT") = slabctl::build_commit();
}

}  // namespace slablab_core
