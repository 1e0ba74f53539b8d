// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's Client: the connection, GET_STATUS, the caches, the objects held under
// handles and the lab's kmalloc settings. Its storm, replay and compare methods are bound
// by bind_storm.cpp, bind_replay.cpp and bind_compare.cpp.
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slablab_core {
namespace {

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

const char* const kClientDoc = R"doc(A connection to the slablab kernel module (generic netlink family "slablab").

Client(host_checks=True)

Opening it resolves the family; if the module is not loaded this raises
slablab.ModuleNotLoaded. With host_checks=True (the default) names and ranges are
checked before anything is sent (slablab.InvalidArgument, a ValueError); pass
host_checks=False to let the kernel see, and reject, bad requests.

Methods that change state need root (CAP_SYS_ADMIN): otherwise slablab.PermissionDenied.
Errors from the kernel carry .errno, .op (e.g. "CACHE_NEW") and .extack (the kernel's
message). A Client may be shared between threads; calls release the GIL.)doc";

void bind_connection(ClientClass& client)
{
	client
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
			"kmalloc_design, kmalloc_lists.");
}

void bind_cache_lifecycle(ClientClass& client)
{
	client
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
			[](slabctl::Client& c, const std::string& name, bool percpu, bool exact) {
				slabctl::CacheInfo info;
				{
					py::gil_scoped_release nogil;
					info = c.cache_get(name, percpu, exact);
				}
				return to_py(slabctl::to_json(info));
			},
			py::arg("name"), py::arg("percpu") = true, py::arg("exact") = false,
			"CACHE_GET: the cache as a dict (see docs/python.md): geometry and "
			"tunables, 'gauges', 'stats' (keyed by STAT_NAMES), 'layers' and, with "
			"percpu=True, 'percpu' (a list of per-cpu dicts). The layers are read "
			"racily from one cpu; exact=True counts them on every cpu under its lock "
			"(CAP_SYS_ADMIN, else PermissionDenied; work queued on each cpu).")
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
			"How many times this Client repeated an interrupted cache_list() dump.");
}

void bind_cache_changes(ClientClass& client)
{
	client
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
			py::arg("name"), "CACHE_RESET_STATS: zero the cache's event counters.");
}

void bind_objects(ClientClass& client)
{
	client
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
			"tunable of the kmalloc size classes; EBUSY while they hold objects.");
}

}  // namespace

ClientClass bind_client(py::module_& m)
{
	ClientClass client(m, "Client", kClientDoc);
	bind_connection(client);
	bind_cache_lifecycle(client);
	bind_cache_changes(client);
	bind_objects(client);
	return client;
}

}  // namespace slablab_core
