// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slablab._core: pybind11 bindings of libslabctl. No netlink code here: every call goes
// through slabctl::Client. Results are the JSON objects of slabctl/json.hpp turned into
// Python dicts, so `slabctl --json` and Python share one documented shape. C++ exceptions
// become the classes of slablab.errors (chosen there, by errno).
#include "slabctl/slabctl.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

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

struct FlagBools {
	std::optional<bool> debug, hardened, random, hwcache_align;

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
	}
	bool any() const { return debug || hardened || random || hwcache_align; }
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
	m.attr("PAGE_POLICIES") = py::tuple(policies);
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
	m.attr("LIMITS") = limits;

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
			"features_value, kmalloc_page_policy ('slab' | 'page_alloc').")
		.def(
			"cache_create",
			[](slabctl::Client& c, const std::string& name, int64_t size,
			   std::optional<int64_t> align, const py::object& flags,
			   std::optional<int64_t> cpu_partial, std::optional<int64_t> min_partial,
			   std::optional<int64_t> order, const py::object& fastpath,
			   std::optional<bool> debug, std::optional<bool> hardened,
			   std::optional<bool> random, std::optional<bool> hwcache_align) {
				slabctl::CacheSpec spec;
				spec.name = name;
				spec.size = u32_arg("size", size);
				spec.align = opt_u32("align", align);
				spec.flags = flags_arg(flags);
				spec.cpu_partial = opt_u32("cpu_partial", cpu_partial);
				spec.min_partial = opt_u32("min_partial", min_partial);
				spec.order = opt_u32("order", order);
				spec.fastpath = enum_arg("fastpath", fastpath, slabctl::fastpath_from_name);
				FlagBools b{debug, hardened, random, hwcache_align};
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
			py::arg("flags") = py::none(), py::arg("cpu_partial") = py::none(),
			py::arg("min_partial") = py::none(), py::arg("order") = py::none(),
			py::arg("fastpath") = py::none(), py::arg("debug") = py::none(),
			py::arg("hardened") = py::none(), py::arg("random") = py::none(),
			py::arg("hwcache_align") = py::none(),
			"CACHE_NEW: create cache `name` for objects of `size` bytes and return it "
			"as cache_get() would. Keyword tunables (unset ones are left to the kernel): "
			"align (power of two), flags (int, 'debug,random' or a list of names), "
			"cpu_partial, min_partial, order, fastpath ('cmpxchg' | 'irqoff'), and the "
			"flag switches debug, hardened, random, hwcache_align (bool).")
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
			"kmalloc size classes) as a list of dicts like cache_get().")
		.def(
			"cache_set",
			[](slabctl::Client& c, const std::string& name, std::optional<int64_t> cpu_partial,
			   std::optional<int64_t> min_partial, std::optional<int64_t> order,
			   const py::object& fastpath, const py::object& flags, std::optional<bool> debug,
			   std::optional<bool> hardened, std::optional<bool> random,
			   std::optional<bool> hwcache_align) {
				slabctl::Tunables t;
				t.cpu_partial = opt_u32("cpu_partial", cpu_partial);
				t.min_partial = opt_u32("min_partial", min_partial);
				t.order = opt_u32("order", order);
				t.fastpath = enum_arg("fastpath", fastpath, slabctl::fastpath_from_name);
				t.flags = flags_arg(flags);
				FlagBools{debug, hardened, random, hwcache_align}.apply(t.flags_set,
										 t.flags_clear);
				slabctl::CacheInfo info;
				{
					py::gil_scoped_release nogil;
					info = c.cache_set(name, t);
				}
				return to_py(slabctl::to_json(info));
			},
			py::arg("name"), py::kw_only(), py::arg("cpu_partial") = py::none(),
			py::arg("min_partial") = py::none(), py::arg("order") = py::none(),
			py::arg("fastpath") = py::none(), py::arg("flags") = py::none(),
			py::arg("debug") = py::none(), py::arg("hardened") = py::none(),
			py::arg("random") = py::none(), py::arg("hwcache_align") = py::none(),
			"CACHE_SET: change only the tunables given and return the cache after the "
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
			"selftest_warn",
			[](slabctl::Client& c) {
				py::gil_scoped_release nogil;
				c.selftest_warn();
			},
			"SELFTEST_WARN: trigger a WARN_ONCE in the kernel (SLABLAB_SELFTEST=1 "
			"builds; OperationFailed with errno EOPNOTSUPP otherwise).");
}
