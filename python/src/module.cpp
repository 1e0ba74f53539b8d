// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slablab._core: pybind11 bindings of libslabctl. No netlink code here: every call goes
// through slabctl::Client. Results are the JSON objects of slabctl/json.hpp turned into
// Python dicts, so `slabctl --json` and Python share one documented shape. C++ exceptions
// become the classes of slablab.errors (chosen there, by errno).
#include "slabctl/slabctl.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using slabctl::Json;

namespace {

py::object to_py(const Json& j)
{
	switch (j.type()) {
	case Json::value_t::null:
		return py::none();
	case Json::value_t::boolean:
		return py::bool_(j.get<bool>());
	case Json::value_t::number_integer:
		return py::int_(j.get<int64_t>());
	case Json::value_t::number_unsigned:
		return py::int_(j.get<uint64_t>());
	case Json::value_t::number_float:
		return py::float_(j.get<double>());
	case Json::value_t::string:
		return py::str(j.get_ref<const std::string&>());
	case Json::value_t::array: {
		py::list list;
		for (const auto& e : j)
			list.append(to_py(e));
		return list;
	}
	case Json::value_t::object: {
		py::dict d;
		for (const auto& [k, v] : j.items())
			d[py::str(k)] = to_py(v);
		return d;
	}
	default:
		return py::none();
	}
}

/// A Python int that must fit the u32 the protocol carries.
uint32_t u32_arg(const char* what, int64_t v)
{
	if (v < 0 || v > static_cast<int64_t>(UINT32_MAX))
		throw slabctl::UsageError(std::string(what) + " " + std::to_string(v) +
					  " is out of range (0..4294967295)",
				  ERANGE);
	return static_cast<uint32_t>(v);
}

std::optional<uint32_t> opt_u32(const char* what, const std::optional<int64_t>& v)
{
	if (!v)
		return std::nullopt;
	return u32_arg(what, *v);
}

/// fastpath / page policy: a name or (for kernel tests) a raw number.
template <typename FromName>
std::optional<uint32_t> enum_arg(const char* what, const py::object& v, FromName from_name)
{
	if (v.is_none())
		return std::nullopt;
	if (py::isinstance<py::str>(v)) {
		std::string name = v.cast<std::string>();
		auto value = from_name(name);
		if (!value)
			throw slabctl::UsageError(std::string(what) + ": unknown value '" + name + "'");
		return value;
	}
	if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
		return u32_arg(what, v.cast<int64_t>());
	throw py::type_error(std::string(what) + " must be a str or an int");
}

/// flags=: None, an int, "debug,random" or an iterable of flag names.
std::optional<uint32_t> flags_arg(const py::object& v)
{
	if (v.is_none())
		return std::nullopt;
	if (py::isinstance<py::str>(v))
		return slabctl::parse_cache_flags(v.cast<std::string>());
	if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v))
		return u32_arg("flags", v.cast<int64_t>());
	if (py::isinstance<py::iterable>(v)) {
		uint32_t flags = 0;
		for (const auto& item : v) {
			std::string name = py::str(item);
			auto bit = slabctl::cache_flag_from_name(name);
			if (!bit)
				throw slabctl::UsageError("unknown cache flag '" + name + "'");
			flags |= *bit;
		}
		return flags;
	}
	throw py::type_error("flags must be None, an int, a str or an iterable of str");
}

/// The tunable keywords (**kwargs) of cache_create() / cache_set(): every tunable of the
/// spec (slabctl::kTunables) by name; anything else is a TypeError, as for a keyword the
/// signature does not have.
template <typename Target>
void tunable_kwargs(const py::kwargs& kwargs, Target& target,
		    std::optional<uint32_t> Target::*(*member)(const slabctl::TunableDesc&),
		    const char* func)
{
	for (const auto& [key, value] : kwargs) {
		const std::string name = py::str(key);
		const slabctl::TunableDesc* d = slabctl::find_tunable(name);
		if (!d || d->name != name)
			throw py::type_error(std::string(func) +
					     "() got an unexpected keyword argument '" + name + "'");
		const py::object v = py::reinterpret_borrow<py::object>(value);
		std::optional<uint32_t> parsed;
		switch (d->kind) {
		case slabctl::TunableKind::FLAGS:
			parsed = flags_arg(v);
			break;
		case slabctl::TunableKind::ENUM:
			parsed = enum_arg(d->name.data(), v, d->from_name);
			break;
		case slabctl::TunableKind::NUM:
			if (!v.is_none()) {
				if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
					throw py::type_error(name + " must be an int");
				parsed = u32_arg(d->name.data(), v.cast<int64_t>());
			}
			break;
		}
		if (parsed)
			target.*(member(*d)) = parsed;
	}
}

std::optional<uint32_t> slabctl::CacheSpec::*spec_member(const slabctl::TunableDesc& d)
{
	return d.in_spec;
}

std::optional<uint32_t> slabctl::Tunables::*tunables_member(const slabctl::TunableDesc& d)
{
	return d.in_tunables;
}

struct FlagBools {
	std::optional<bool> debug, hardened, random, hwcache_align, typesafe_by_rcu;

	void apply(uint32_t& set, uint32_t& clear) const
	{
		auto one = [&](const std::optional<bool>& b, uint32_t bit) {
			if (!b)
				return;
			(*b ? set : clear) |= bit;
		};
		one(debug, SLABLAB_CACHE_F_DEBUG);
		one(hardened, SLABLAB_CACHE_F_HARDENED);
		one(random, SLABLAB_CACHE_F_RANDOM);
		one(hwcache_align, SLABLAB_CACHE_F_HWCACHE_ALIGN);
		one(typesafe_by_rcu, SLABLAB_CACHE_F_TYPESAFE_BY_RCU);
	}
	bool any() const { return debug || hardened || random || hwcache_align || typesafe_by_rcu; }
};

void raise_python(const slabctl::Error& e, bool module_not_loaded)
{
	try {
		py::object make = py::module_::import("slablab.errors").attr("_make");
		py::object exc = make(py::str(e.what()), e.err, e.op, e.extack, module_not_loaded);
		PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
	} catch (py::error_already_set&) {
		PyErr_SetString(PyExc_RuntimeError, e.what());
	}
}


/// target=/pattern=: a name or (for kernel tests) a raw number.
uint32_t storm_enum(const char* what, const py::object& v,
		    std::optional<uint32_t> (*from_name)(std::string_view) noexcept)
{
	if (v.is_none())
		throw slabctl::UsageError(std::string(what) + " is required");
	auto value = enum_arg(what, v, [&](const std::string& n) { return from_name(n); });
	return *value;
}

/// sizes=: None, "64:3,192:1", {64: 3, 192: 1}, [64, (192, 2)].
std::vector<slabctl::StormSize> sizes_arg(const py::object& v)
{
	std::vector<slabctl::StormSize> out;
	if (v.is_none())
		return out;
	if (py::isinstance<py::str>(v))
		return slabctl::parse_storm_sizes(v.cast<std::string>());
	auto entry = [&](const py::handle& size, const py::handle& weight) {
		slabctl::StormSize e;
		e.size = u32_arg("sizes: size", size.cast<int64_t>());
		e.weight = weight.is_none() ? 1 : u32_arg("sizes: weight", weight.cast<int64_t>());
		out.push_back(e);
	};
	if (py::isinstance<py::dict>(v)) {
		for (const auto& [size, weight] : v.cast<py::dict>())
			entry(size, weight);
		return out;
	}
	if (py::isinstance<py::iterable>(v)) {
		for (const auto& item : v) {
			if (py::isinstance<py::int_>(item)) {
				entry(item, py::none());
			} else if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
				py::sequence t = py::reinterpret_borrow<py::sequence>(item);
				if (t.size() != 2)
					throw py::type_error("sizes entries are SIZE or (SIZE, WEIGHT)");
				entry(t[0], t[1]);
			} else {
				throw py::type_error("sizes entries are SIZE or (SIZE, WEIGHT)");
			}
		}
		return out;
	}
	throw py::type_error("sizes must be None, a str like '64:3,192:1', a dict or a list");
}

/// cpus=: None, "0-1", or an iterable of cpu numbers.
std::string cpus_arg(const py::object& v)
{
	if (v.is_none())
		return {};
	if (py::isinstance<py::str>(v))
		return v.cast<std::string>();
	if (py::isinstance<py::iterable>(v)) {
		std::string out;
		for (const auto& item : v)
			out += (out.empty() ? "" : ",") +
			       std::to_string(u32_arg("cpus", item.cast<int64_t>()));
		if (out.empty())
			throw slabctl::UsageError("cpus: empty list");
		return out;
	}
	throw py::type_error("cpus must be None, a str like '0-1' or a list of ints");
}

std::optional<uint64_t> opt_u64(const char* what, const std::optional<int64_t>& v)
{
	if (!v)
		return std::nullopt;
	if (*v < 0)
		throw slabctl::UsageError(std::string(what) + " " + std::to_string(*v) +
					  " is out of range",
				  ERANGE);
	return static_cast<uint64_t>(*v);
}

/// The storm keywords every storm method takes, in one place.
struct StormKw {
	py::object cache = py::none(), size = py::none(), sizes = py::none(),
		   threads = py::none(), cpus = py::none(), ops = py::none(),
		   duration_ms = py::none(), batch = py::none(), working_set = py::none(),
		   ring = py::none(), seed = py::none(), max_live_bytes = py::none(),
		   thin = py::none(), rate = py::none();

	slabctl::StormSpec spec(uint32_t target, uint32_t pattern) const
	{
		auto o32 = [](const char* what, const py::object& v) -> std::optional<uint32_t> {
			if (v.is_none())
				return std::nullopt;
			return u32_arg(what, v.cast<int64_t>());
		};
		auto o64 = [](const char* what, const py::object& v) -> std::optional<uint64_t> {
			if (v.is_none())
				return std::nullopt;
			return opt_u64(what, v.cast<int64_t>());
		};
		slabctl::StormSpec s;
		s.target = target;
		s.pattern = pattern;
		if (!cache.is_none())
			s.cache = cache.cast<std::string>();
		s.size = o32("size", size);
		s.sizes = sizes_arg(sizes);
		s.threads = o32("threads", threads);
		s.cpus = cpus_arg(cpus);
		s.ops = o64("ops", ops);
		s.duration_ms = o32("duration_ms", duration_ms);
		s.batch = o32("batch", batch);
		s.working_set = o32("working_set", working_set);
		s.ring = o32("ring", ring);
		s.seed = o64("seed", seed);
		s.max_live_bytes = o64("max_live_bytes", max_live_bytes);
		s.thin = o32("thin", thin);
		s.rate = o32("rate", rate);
		return s;
	}
};

/// The keyword arguments of every storm method (after target and pattern).
#define STORM_KW_ARGS                                                                      \
	py::arg("cache") = py::none(), py::arg("size") = py::none(),                         \
	py::arg("sizes") = py::none(), py::arg("threads") = py::none(),                       \
	py::arg("cpus") = py::none(), py::arg("ops") = py::none(),                            \
	py::arg("duration_ms") = py::none(), py::arg("batch") = py::none(),                   \
	py::arg("working_set") = py::none(), py::arg("ring") = py::none(),                    \
	py::arg("seed") = py::none(), py::arg("max_live_bytes") = py::none(),                 \
	py::arg("thin") = py::none(), py::arg("rate") = py::none()

#define STORM_KW_PARAMS                                                                    \
	const py::object &cache, const py::object &size, const py::object &sizes,            \
		const py::object &threads, const py::object &cpus, const py::object &ops,    \
		const py::object &duration_ms, const py::object &batch,                       \
		const py::object &working_set, const py::object &ring, const py::object &seed, \
		const py::object &max_live_bytes, const py::object &thin, const py::object &rate

#define STORM_KW_VALUE                                                                     \
	StormKw{cache, size, sizes, threads, cpus, ops, duration_ms, batch, working_set, ring, \
		seed, max_live_bytes, thin, rate}

std::chrono::milliseconds poll_arg(double seconds)
{
	if (!(seconds > 0) || seconds > 60)
		throw slabctl::UsageError("poll_interval must be in (0, 60] seconds", ERANGE);
	return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(seconds * 1000)));
}

/**
 * Ctrl-C while a storm runs without the GIL: should_stop() asks Python for pending
 * signals; a KeyboardInterrupt (or whatever a signal handler raised) is kept here and
 * raised once the storm is stopped in the kernel.
 */
struct SignalWatch {
	std::unique_ptr<py::error_already_set> pending;

	bool operator()()
	{
		py::gil_scoped_acquire gil;
		if (pending)
			return true;
		if (PyErr_CheckSignals() != 0) {
			pending = std::make_unique<py::error_already_set>();
			return true;
		}
		return false;
	}
	void raise_if_pending()
	{
		if (pending) {
			pending->restore();
			pending.reset();
			throw py::error_already_set();
		}
	}
};

const char* const kStormSpecDoc =
	"target: 'slablab' (a slablab cache; also 'cache'), 'native' (the kernel's SLUB: a "
	"kmem_cache made like `cache`, or of `size`; with `sizes`, the kernel's kmalloc "
	"classes made anew for the storm), 'kmalloc' (slablab_kmalloc), 'native-kmalloc' (the "
	"kernel's kmalloc). pattern: 'pair', 'batch', 'remote', 'churn', "
	"'bulk', 'prefill' (slablab target only), 'rcu' (slablab and kmalloc targets). "
	"Keywords (None: the kernel's default): cache (str), size (bytes), sizes "
	"('64:3,192:1', {64: 3, 192: 1} or [64, (192, 2)]; kmalloc and native targets), threads, cpus "
	"('0-1' or [0, 1]), ops (allocations per thread), duration_ms (instead of ops), batch, "
	"working_set, ring (power of two), seed, max_live_bytes, thin (churn: keep every "
	"thin-th object after the fill), rate (rcu: objects a second per thread, 0: as fast "
	"as it can).";

/// A trace argument: a path (str or os.PathLike).
std::string path_arg(const py::object& v)
{
	return py::str(py::module_::import("os").attr("fspath")(v));
}

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

const char* const kClientDoc = R"doc(A connection to the slablab kernel module (generic netlink family "slablab").

Client(host_checks=True)

Opening it resolves the family; if the module is not loaded this raises
slablab.ModuleNotLoaded. With host_checks=True (the default) names and ranges are
checked before anything is sent (slablab.InvalidArgument, a ValueError); pass
host_checks=False to let the kernel see, and reject, bad requests.

Methods that change state need root (CAP_SYS_ADMIN): otherwise slablab.PermissionDenied.
Errors from the kernel carry .errno, .op (e.g. "CACHE_NEW") and .extack (the kernel's
message). A Client may be shared between threads; calls release the GIL.)doc";

}  // namespace

PYBIND11_MODULE(_core, m)
{
	m.doc() = "slablab._core: bindings of libslabctl, the slablab generic netlink client. "
		  "Use the slablab package, which re-exports this module.";
	m.attr("__version__") = slabctl::kVersion;
	m.attr("API_VERSION") = SLABLAB_GENL_VERSION;
	m.attr("JSON_SCHEMA") = std::string(slabctl::kJsonSchema);

	py::tuple stats(slabctl::kNrStats);
	for (std::size_t i = 0; i < slabctl::kNrStats; i++)
		stats[i] = py::str(std::string(slabctl::stat_name(i)));
	m.attr("STAT_NAMES") = stats;
	py::list tunables;
	for (const auto& d : slabctl::kTunables)
		tunables.append(py::str(std::string(d.name)));
	m.attr("TUNABLES") = py::tuple(tunables);	// the spec's cache-tunables
	py::list flags, features;
	for (const auto& f : slabctl::cache_flag_table())
		flags.append(py::str(std::string(f.name)));
	for (const auto& f : slabctl::feature_table())
		features.append(py::str(std::string(f.name)));
	m.attr("CACHE_FLAGS") = py::tuple(flags);
	m.attr("FEATURES") = py::tuple(features);
	py::list fastpaths, policies;
	for (auto n : slabctl::fastpath_names())
		fastpaths.append(py::str(std::string(n)));
	for (auto n : slabctl::page_policy_names())
		policies.append(py::str(std::string(n)));
	m.attr("FASTPATHS") = py::tuple(fastpaths);
	py::list designs;
	for (auto n : slabctl::design_names())
		designs.append(py::str(std::string(n)));
	m.attr("DESIGNS") = py::tuple(designs);	// the spec's design enum
	m.attr("PAGE_POLICIES") = py::tuple(policies);
	py::list replay_targets;
	for (auto n : slabctl::replay_target_names())
		replay_targets.append(py::str(std::string(n)));
	m.attr("REPLAY_TARGETS") = py::tuple(replay_targets);
	py::dict limits;
	limits["name_max"] = SLABLAB_NAME_MAX - 1;
	limits["min_size"] = SLABLAB_MIN_SIZE;
	limits["max_size"] = SLABLAB_MAX_SIZE;
	limits["max_align"] = SLABLAB_MAX_ALIGN;
	limits["max_order"] = SLABLAB_MAX_ORDER;
	limits["max_cpu_partial"] = SLABLAB_MAX_CPU_PARTIAL;
	limits["max_min_partial"] = SLABLAB_MAX_MIN_PARTIAL;
	limits["max_handle_objects"] = SLABLAB_MAX_HANDLE_OBJECTS;
	limits["max_handle_bytes"] = SLABLAB_MAX_HANDLE_BYTES;
	limits["max_handles"] = SLABLAB_MAX_HANDLES;
	limits["storm_max_threads"] = SLABLAB_STORM_MAX_THREADS;
	limits["storm_max_duration_ms"] = SLABLAB_STORM_MAX_DURATION_MS;
	limits["storm_max_batch"] = SLABLAB_STORM_MAX_BATCH;
	limits["storm_max_working_set"] = SLABLAB_STORM_MAX_WORKING_SET;
	limits["storm_max_ring"] = SLABLAB_STORM_MAX_RING;
	limits["storm_min_ring"] = SLABLAB_STORM_MIN_RING;
	limits["storm_max_sizes"] = SLABLAB_STORM_MAX_SIZES;
	limits["storm_max_weight"] = SLABLAB_STORM_MAX_WEIGHT;
	limits["storm_max_ops"] = SLABLAB_STORM_MAX_OPS;
	m.attr("LIMITS") = limits;
	py::list targets, patterns, states, figures;
	for (auto n : slabctl::storm_target_names())
		targets.append(py::str(std::string(n)));
	for (auto n : slabctl::storm_pattern_names())
		patterns.append(py::str(std::string(n)));
	for (uint32_t st = 0; st < __SLABLAB_STORM_STATE_MAX; st++)
		states.append(py::str(slabctl::storm_state_name(st)));
	for (const auto& fi : slabctl::figure_table())
		figures.append(py::str(std::string(fi.key)));
	m.attr("STORM_TARGETS") = py::tuple(targets);
	m.attr("STORM_PATTERNS") = py::tuple(patterns);
	m.attr("STORM_STATES") = py::tuple(states);
	m.attr("FIGURES") = py::tuple(figures);
	py::list run_csv_columns;
	for (const auto& col : slabctl::run_csv_columns())
		run_csv_columns.append(py::str(col));
	m.attr("RUN_CSV_COLUMNS") = py::tuple(run_csv_columns);
	m.attr("BUILD_COMMIT") = slabctl::build_commit();

	py::register_exception_translator([](std::exception_ptr p) {
		try {
			if (p)
				std::rethrow_exception(p);
		} catch (const slabctl::ModuleNotLoaded& e) {
			raise_python(e, true);
		} catch (const slabctl::Error& e) {
			raise_python(e, false);
		}
	});

	m.def(
		"format_size", [](uint64_t value) { return slabctl::format_size(value); },
		py::arg("value"),
		"A size as slabctl and tools/mm/slabinfo print it: 4096 -> '4.0K', 1228800 -> '1.2M'.");

	m.def(
		"summarize",
		[](const std::vector<double>& values) {
			return to_py(slabctl::to_json(slabctl::summarize(values)));
		},
		py::arg("values"),
		"The statistics slabctl compare prints: {'n', 'min', 'median', 'mean', 'max', "
		"'sd'} (sd: sample standard deviation, n - 1; NaNs are left out; the values are "
		"None when n is 0).");
	m.def(
		"main_figures",
		[](const py::object& pattern) {
			uint32_t p = storm_enum("pattern", pattern, slabctl::storm_pattern_from_name);
			py::list out;
			for (auto k : slabctl::main_figures(p))
				out.append(py::str(std::string(k)));
			return out;
		},
		py::arg("pattern"),
		"The figure(s) compare summarizes by default for a pattern: pair -> "
		"['cycles_per_pair'], batch/bulk/prefill -> ['cycles_per_alloc', 'cycles_per_free'], "
		"remote -> ['ops_per_sec'], churn -> ['fragmentation_pct'], rcu -> "
		"['cycles_per_alloc', 'cycles_per_free', 'rcu_waiting_mean'].");

	m.def(
		"native_caches",
		[](const std::optional<std::string>& root, const std::vector<std::string>& patterns) {
			const std::filesystem::path r = root ? std::filesystem::path(*root)
							     : slabctl::default_native_root();
			std::vector<slabctl::NativeCache> caches;
			{
				py::gil_scoped_release nogil;
				caches = slabctl::read_native_caches(
					r, [&](const slabctl::NativeEntry& e) {
						if (patterns.empty())
							return true;
						for (const auto& p : patterns)
							if (slabctl::native_matches(p, e))
								return true;
						return false;
					});
			}
			py::list out;
			for (const auto& c : caches)
				out.append(to_py(slabctl::to_json(c)));
			return out;
		},
		py::arg("root") = py::none(), py::arg("patterns") = std::vector<std::string>{},
		"The kernel's own (SLUB) caches, read from /sys/kernel/slab (root=, or "
		"$SLABCTL_SYSFS_SLAB) as `slabctl info --native --json` shows them: one dict per "
		"cache ('allocator': 'slub'), merged caches once under a readable name with their "
		"'aliases'; figures that could not be read are None. patterns: shell patterns "
		"matched against name, aliases, sysfs_name and 'slub/<name>'. Needs no module; "
		"most files are readable by root only. Raises an Error (FileNotFoundError, "
		"PermissionError) when the directory itself cannot be read.");
	m.def(
		"native_cache",
		[](const std::string& name, const std::optional<std::string>& root) {
			const std::filesystem::path r = root ? std::filesystem::path(*root)
							     : slabctl::default_native_root();
			slabctl::NativeCache c;
			{
				py::gil_scoped_release nogil;
				slabctl::NativeListing l = slabctl::list_native_caches(r);
				const slabctl::NativeEntry* e = slabctl::find_native(l, name);
				if (!e)
					throw slabctl::Error(ENOENT, r.string(), {},
							     "no kernel cache '" + name + "' in " +
								     r.string());
				c = slabctl::read_native_cache(r, *e, true);
			}
			return to_py(slabctl::to_json(c, true));
		},
		py::arg("name"), py::arg("root") = py::none(),
		"One kernel cache by name, alias, sysfs directory name or 'slub/<name>', with "
		"everything `slabctl info -r NAME --native --json` has: the dict of "
		"native_caches() plus 'nodes', 'percpu_stats' and 'files' (every file read). "
		"Raises NotFound when there is no such cache.");

	m.def(
		"record",
		[](const py::object& output, const std::vector<std::string>& command,
		   const std::vector<std::string>& events, int64_t buffer_kb) {
			slabctl::RecordSpec spec;
			spec.output = path_arg(output);
			spec.command = command;
			spec.kmalloc = spec.cache = false;
			for (const auto& e : events) {
				if (e == "kmalloc")
					spec.kmalloc = true;
				else if (e == "cache")
					spec.cache = true;
				else
					throw slabctl::UsageError("events: '" + e +
								  "' is not kmalloc or cache");
			}
			if (buffer_kb <= 0)
				throw slabctl::UsageError("buffer_kb must be positive", ERANGE);
			spec.buffer_kb = static_cast<size_t>(buffer_kb);
			slabctl::RecordReport r;
			{
				py::gil_scoped_release nogil;
				r = slabctl::record_trace(spec);
			}
			return to_py(slabctl::to_json(r));
		},
		py::arg("output"), py::arg("command"), py::kw_only(),
		py::arg("events") = std::vector<std::string>{"kmalloc", "cache"},
		py::arg("buffer_kb") = 16384,
		"slabctl record from Python (root: tracefs): trace the kernel's kmem tracepoints "
		"while `command` (an argv list) runs and write the trace to `output`. Returns what "
		"was recorded: events, objects, caches, cpus, duration_ns, lost_events, "
		"unmatched_frees, live_at_end, lost_frees, peak_live_bytes, and the command's "
		"exit_status (not an error).");
	m.def(
		"read_trace",
		[](const py::object& path) {
			const std::string file = path_arg(path);
			slabctl::Trace t;
			{
				py::gil_scoped_release nogil;
				t = slabctl::read_trace(file);
			}
			py::dict d;
			d["nr_cpus"] = t.nr_cpus;
			d["nr_events"] = t.events.size();
			d["nr_objects"] = t.nr_objects;
			d["lost_events"] = t.lost_events;
			d["unmatched_frees"] = t.unmatched_frees;
			d["live_at_end"] = t.live_at_end;
			d["peak_live_bytes"] = t.peak_live_bytes;
			d["duration_ns"] = t.duration_ns;
			py::list caches;
			for (const auto& c : t.caches) {
				py::dict cd;
				cd["name"] = c.name;
				cd["object_size"] = c.object_size;
				cd["align"] = c.align;
				caches.append(cd);
			}
			d["caches"] = caches;
			return d;
		},
		py::arg("path"),
		"The header of a trace file and its caches (docs/replay.md, \"File format\"): "
		"nr_cpus, nr_events, nr_objects, lost_events, unmatched_frees, live_at_end, "
		"peak_live_bytes, duration_ns, caches [{name, object_size, align}]. A bad or "
		"truncated file raises InvalidArgument naming the byte offset.");

	py::class_<slabctl::Client>(m, "Client", kClientDoc)
		.def(py::init([](bool host_checks) {
			     slabctl::Client::Options o;
			     o.host_checks = host_checks;
			     py::gil_scoped_release nogil;
			     return std::make_unique<slabctl::Client>(o);
		     }),
		     py::arg("host_checks") = true,
		     "Connect and resolve the family; raises ModuleNotLoaded if the module is "
		     "not loaded.")
		.def_property_readonly("family_id", &slabctl::Client::family_id,
				       "The generic netlink family id the kernel assigned.")
		.def_property_readonly("host_checks", &slabctl::Client::host_checks,
				       "Whether requests are checked on the host before sending.")
		.def("__repr__",
		     [](const slabctl::Client& c) {
			     return "<slablab.Client family_id=" + std::to_string(c.family_id()) + ">";
		     })
		.def(
			"version",
			[](slabctl::Client& c) {
				slabctl::Status s;
				{
					py::gil_scoped_release nogil;
					s = c.status();
				}
				return s.version;
			},
			"The loaded module's version string, e.g. '0.1.0' (GET_STATUS).")
		.def(
			"status",
			[](slabctl::Client& c) {
				slabctl::Status s;
				{
					py::gil_scoped_release nogil;
					s = c.status();
				}
				return to_py(slabctl::to_json(s));
			},
			"GET_STATUS as a dict: version, api_version, kernel_release, nr_cpu_ids, "
			"nr_online_cpus, nr_nodes, page_size, nr_caches, features (list of names), "
			"features_value, kmalloc_page_policy ('slab' | 'page_alloc'), "
			"kmalloc_design, kmalloc_lists.")
		.def(
			"cache_create",
			[](slabctl::Client& c, const std::string& name, int64_t size,
			   std::optional<int64_t> align, std::optional<bool> debug,
			   std::optional<bool> hardened, std::optional<bool> random,
			   std::optional<bool> hwcache_align, std::optional<bool> typesafe_by_rcu,
			   const py::kwargs& tunables) {
				slabctl::CacheSpec spec;
				spec.name = name;
				spec.size = u32_arg("size", size);
				spec.align = opt_u32("align", align);
				tunable_kwargs(tunables, spec, spec_member, "cache_create");
				FlagBools b{debug, hardened, random, hwcache_align, typesafe_by_rcu};
				if (b.any()) {
					uint32_t set = 0, clear = 0;
					b.apply(set, clear);
					spec.flags = (spec.flags.value_or(0) | set) & ~clear;
				}
				slabctl::CacheInfo info;
				{
					py::gil_scoped_release nogil;
					info = c.cache_create(spec);
				}
				return to_py(slabctl::to_json(info));
			},
			py::arg("name"), py::arg("size"), py::kw_only(), py::arg("align") = py::none(),
			py::arg("debug") = py::none(), py::arg("hardened") = py::none(),
			py::arg("random") = py::none(), py::arg("hwcache_align") = py::none(),
			py::arg("typesafe_by_rcu") = py::none(),
			"CACHE_NEW: create cache `name` for objects of `size` bytes and return it "
			"as cache_get() would. Keywords (unset ones are left to the kernel): align "
			"(power of two), every tunable of the spec (TUNABLES: flags as an int, "
			"'debug,random' or a list of names; fastpath as 'cmpxchg' | 'irqoff'; the "
			"others as ints) and the flag switches debug, hardened, random, hwcache_align, "
			"typesafe_by_rcu (bool).")
		.def(
			"cache_destroy",
			[](slabctl::Client& c, const std::string& name) {
				py::gil_scoped_release nogil;
				c.cache_destroy(name);
			},
			py::arg("name"),
			"CACHE_DEL. Raises Busy while objects are allocated, PermissionDenied for "
			"caches of other owners, NotFound if there is no such cache.")
		.def(
			"cache_get",
			[](slabctl::Client& c, const std::string& name, bool percpu) {
				slabctl::CacheInfo info;
				{
					py::gil_scoped_release nogil;
					info = c.cache_get(name, percpu);
				}
				return to_py(slabctl::to_json(info));
			},
			py::arg("name"), py::arg("percpu") = true,
			"CACHE_GET: the cache as a dict (see docs/python.md): geometry and "
			"tunables, 'gauges', 'stats' (keyed by STAT_NAMES) and, with percpu=True, "
			"'percpu' (a list of per-cpu dicts).")
		.def(
			"cache_list",
			[](slabctl::Client& c, bool percpu) {
				std::vector<slabctl::CacheInfo> caches;
				{
					py::gil_scoped_release nogil;
					caches = c.cache_list(percpu);
				}
				py::list out;
				for (const auto& info : caches)
					out.append(to_py(slabctl::to_json(info)));
				return out;
			},
			py::arg("percpu") = false,
			"CACHE_GET dump: every cache (netlink-created, kernel-created and the "
			"kmalloc size classes) as a list of dicts like cache_get(). A dump the "
			"module flags as interrupted by a change of the cache list is repeated "
			"(dump_retries counts that); when it keeps changing, OperationFailed "
			"with errno EAGAIN.")
		.def_property_readonly(
			"dump_retries", [](const slabctl::Client& c) { return c.dump_retries(); },
			"How many times this Client repeated an interrupted cache_list() dump.")
		.def(
			"cache_set",
			[](slabctl::Client& c, const std::string& name, std::optional<bool> debug,
			   std::optional<bool> hardened, std::optional<bool> random,
			   std::optional<bool> hwcache_align, std::optional<bool> typesafe_by_rcu,
			   const py::kwargs& tunables) {
				slabctl::Tunables t;
				tunable_kwargs(tunables, t, tunables_member, "cache_set");
				FlagBools{debug, hardened, random, hwcache_align, typesafe_by_rcu}.apply(
					t.flags_set, t.flags_clear);
				slabctl::CacheInfo info;
				{
					py::gil_scoped_release nogil;
					info = c.cache_set(name, t);
				}
				return to_py(slabctl::to_json(info));
			},
			py::arg("name"), py::kw_only(), py::arg("debug") = py::none(),
			py::arg("hardened") = py::none(), py::arg("random") = py::none(),
			py::arg("hwcache_align") = py::none(), py::arg("typesafe_by_rcu") = py::none(),
			"CACHE_SET: change only the tunables given (keywords: every tunable of the "
			"spec, TUNABLES) and return the cache after the "
			"change. flags= replaces all flags; debug=/hardened=/random=/hwcache_align= "
			"switch one flag (the current flags are read first). The kernel checks "
			"everything before applying anything.")
		.def(
			"cache_shrink",
			[](slabctl::Client& c, const std::string& name) {
				py::gil_scoped_release nogil;
				return c.cache_shrink(name).slabs_freed;
			},
			py::arg("name"), "CACHE_SHRINK: free the cache's empty slabs; returns how many.")
		.def(
			"cache_validate",
			[](slabctl::Client& c, const std::string& name) {
				slabctl::ValidateReport v;
				{
					py::gil_scoped_release nogil;
					v = c.cache_validate(name);
				}
				return to_py(slabctl::to_json(v));
			},
			py::arg("name"),
			"CACHE_VALIDATE: walk every slab. Returns {'cache', 'ok', 'slabs', "
			"'objects', 'free_objects', 'errors', 'first_error' (str or None)}; finding "
			"errors is not an exception.")
		.def(
			"cache_reset_stats",
			[](slabctl::Client& c, const std::string& name) {
				py::gil_scoped_release nogil;
				c.cache_reset_stats(name);
			},
			py::arg("name"), "CACHE_RESET_STATS: zero the cache's event counters.")
		.def(
			"obj_alloc",
			[](slabctl::Client& c, const std::string& name, int64_t count,
			   std::optional<int64_t> cpu) {
				uint32_t n = u32_arg("count", count);
				auto on = opt_u32("cpu", cpu);
				py::gil_scoped_release nogil;
				return c.obj_alloc(name, n, on).id;
			},
			py::arg("name"), py::arg("count"), py::arg("cpu") = py::none(),
			"OBJ_ALLOC: allocate `count` objects from cache `name` into a kernel-held "
			"handle, on `cpu` (default: any); all or nothing. Returns the handle (int).")
		.def(
			"obj_free",
			[](slabctl::Client& c, int64_t handle, std::optional<int64_t> cpu,
			   std::optional<int64_t> count) {
				uint32_t h = u32_arg("handle", handle);
				auto on = opt_u32("cpu", cpu);
				auto n = opt_u32("count", count);
				py::gil_scoped_release nogil;
				return c.obj_free(h, on, n);
			},
			py::arg("handle"), py::arg("cpu") = py::none(), py::arg("count") = py::none(),
			"OBJ_FREE: free `count` objects of the handle, newest first (default: all, "
			"which releases the handle), on `cpu` (default: any). Returns the objects "
			"still held.")
		.def(
			"set_page_policy",
			[](slabctl::Client& c, const py::object& policy) {
				auto p = enum_arg("policy", policy, slabctl::page_policy_from_name);
				if (!p)
					throw py::type_error("policy must be 'slab' or 'page_alloc'");
				py::gil_scoped_release nogil;
				c.lab_set_page_policy(*p);
			},
			py::arg("policy"),
			"LAB_SET: how slablab_kmalloc serves PAGE_SIZE requests: 'slab' or "
			"'page_alloc'.")
		.def(
			"set_kmalloc",
			[](slabctl::Client& c, const py::object& design, std::optional<int64_t> lists) {
				auto d = enum_arg("design", design, slabctl::design_from_name);
				if (!design.is_none() && !d)
					throw py::type_error("design must be a design name or value");
				std::optional<uint32_t> l;
				if (lists)
					l = static_cast<uint32_t>(*lists);
				py::gil_scoped_release nogil;
				c.lab_set_kmalloc(d, l);
			},
			py::arg("design") = py::none(), py::arg("lists") = py::none(),
			"LAB_SET: the design ('slub', 'sheaves', 'slab', 'slob') and the lists "
			"tunable of the kmalloc size classes; EBUSY while they hold objects.")
		.def(
			"storm_start",
			[](slabctl::Client& c, const py::object& target, const py::object& pattern,
			   STORM_KW_PARAMS) {
				slabctl::StormSpec spec = STORM_KW_VALUE.spec(
					storm_enum("target", target, slabctl::storm_target_from_name),
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
			"first storm, state 'none'.")
		.def(
			"storm",
			[](slabctl::Client& c, const py::object& target, const py::object& pattern,
			   STORM_KW_PARAMS, const py::object& progress, double poll_interval) {
				slabctl::StormSpec spec = STORM_KW_VALUE.spec(
					storm_enum("target", target, slabctl::storm_target_from_name),
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
				.c_str())
		.def(
			"replay",
			[](slabctl::Client& c, const py::object& trace, const std::string& target,
			   const py::object& design, const py::object& max_live_bytes,
			   double time_scale, const py::object& sample_ms,
			   const py::object& cpu_partial) {
				auto variants = slabctl::parse_replay_targets(
					target, design.is_none()
							? std::nullopt
							: std::optional<std::string>(design.cast<std::string>()));
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
				.c_str())
		.def(
			"replay_compare",
			[](slabctl::Client& c, const py::object& trace, const py::object& targets,
			   const py::object& design, const py::object& max_live_bytes,
			   double time_scale, const py::object& sample_ms, const py::object& progress,
			   const py::object& cpu_partial) {
				std::string list;
				if (py::isinstance<py::str>(targets)) {
					list = targets.cast<std::string>();
				} else {
					for (const auto& t : targets)
						list += (list.empty() ? "" : ",") + std::string(py::str(t));
				}
				auto variants = slabctl::parse_replay_targets(
					list, design.is_none()
						      ? std::nullopt
						      : std::optional<std::string>(design.cast<std::string>()));
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
				.c_str())
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
			"real state), with none loaded state_name is 'none'.")
		.def(
			"compare",
			[](slabctl::Client& c, const py::object& pattern, const py::object& targets,
			   const py::object& sets, const py::object& threads, int64_t repeat,
			   const py::object& figures, const py::object& cache, const py::object& size,
			   const py::object& sizes, const py::object& cpus, const py::object& ops,
			   const py::object& duration_ms, const py::object& batch,
			   const py::object& working_set, const py::object& ring, const py::object& seed,
			   const py::object& max_live_bytes, const py::object& thin,
			   const py::object& rate,
			   const py::object& progress,
			   double poll_interval, int64_t warmup, const py::object& until,
			   int64_t max_repeats, bool aa, double noise_floor) {
				slabctl::CompareSpec spec;
				py::object single_threads = py::none();
				if (!threads.is_none()) {
					if (py::isinstance<py::int_>(threads))
						single_threads = threads;
					else
						for (const auto& t : threads)
							spec.threads.push_back(
								u32_arg("threads", t.cast<int64_t>()));
				}
				spec.base = StormKw{cache, size, sizes, single_threads, cpus, ops,
						    duration_ms, batch, working_set, ring, seed,
						    max_live_bytes, thin, rate}
						    .spec(SLABLAB_TARGET_CACHE,
							  storm_enum("pattern", pattern,
								     slabctl::storm_pattern_from_name));
				if (!targets.is_none()) {
					if (py::isinstance<py::str>(targets))
						throw py::type_error("targets is a list of target names");
					for (const auto& t : targets)
						spec.targets.push_back(storm_enum(
							"target", py::reinterpret_borrow<py::object>(t),
							slabctl::storm_target_from_name));
				}
				if (!sets.is_none()) {
					for (const auto& item : sets) {
						if (py::isinstance<py::str>(item)) {
							spec.sets.push_back(item.cast<std::string>());
						} else if (py::isinstance<py::dict>(item)) {
							std::string text;
							for (const auto& [k, v] : item.cast<py::dict>()) {
								std::string value =
									py::isinstance<py::bool_>(v)
										? (v.cast<bool>() ? "1" : "0")
										: std::string(py::str(v));
								text += (text.empty() ? "" : ",") +
									std::string(py::str(k)) + "=" + value;
							}
							spec.sets.push_back(text);
						} else {
							throw py::type_error("sets entries are 'KEY=VALUE,...' "
									     "strings or dicts");
						}
					}
				}
				spec.repeat = u32_arg("repeat", repeat);
				spec.warmup = u32_arg("warmup", warmup);
				if (!until.is_none())
					spec.until = until.cast<double>();
				spec.max_repeats = std::max(u32_arg("max_repeats", max_repeats),
							    until.is_none() ? spec.repeat : 0U);
				spec.aa = aa;
				spec.noise_floor = noise_floor;
				slabctl::compare_variants(spec);	// usage errors first
				if (!figures.is_none())
					for (const auto& f : figures)
						spec.figures.push_back(py::str(f));
				spec.poll = poll_arg(poll_interval);
				SignalWatch watch;
				slabctl::CompareProgressFn cb;
				if (!progress.is_none())
					cb = [&](const slabctl::CompareProgress& p) {
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
				slabctl::CompareResult res;
				{
					py::gil_scoped_release nogil;
					res = slabctl::run_compare(c, spec, cb, [&] { return watch(); });
				}
				watch.raise_if_pending();
				return to_py(slabctl::to_json(res));
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
			py::arg("rate") = py::none(),
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
			"noise_floor: an interval inside ±noise_floor is 'same'. Each summary has "
			"'ci' {n, ratio, lo, hi}, 'verdict' and 'outliers'.");
}
