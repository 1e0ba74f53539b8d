// SPDX-License-Identifier: GPL-2.0 OR MIT
// What the bind_*.cpp files share (common.hpp).
#include "common.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace slablab_core {
namespace {

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

std::optional<uint32_t> kw_u32(const char* what, const py::object& v)
{
	if (v.is_none())
		return std::nullopt;
	return u32_arg(what, v.cast<int64_t>());
}

std::optional<uint64_t> kw_u64(const char* what, const py::object& v)
{
	if (v.is_none())
		return std::nullopt;
	return opt_u64(what, v.cast<int64_t>());
}

}  // namespace

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

uint32_t storm_enum(const char* what, const py::object& v,
		    std::optional<uint32_t> (*from_name)(std::string_view) noexcept)
{
	if (v.is_none())
		throw slabctl::UsageError(std::string(what) + " is required");
	auto value = enum_arg(what, v, [&](const std::string& n) { return from_name(n); });
	return *value;
}

std::chrono::milliseconds poll_arg(double seconds)
{
	if (!(seconds > 0) || seconds > 60)
		throw slabctl::UsageError("poll_interval must be in (0, 60] seconds", ERANGE);
	return std::chrono::milliseconds(std::max<int64_t>(1, std::llround(seconds * 1000)));
}

std::string path_arg(const py::object& v)
{
	return py::str(py::module_::import("os").attr("fspath")(v));
}

slabctl::StormSpec StormKw::spec(uint32_t target, uint32_t pattern) const
{
	slabctl::StormSpec s;
	s.target = target;
	s.pattern = pattern;
	if (!cache.is_none())
		s.cache = cache.cast<std::string>();
	s.size = kw_u32("size", size);
	s.sizes = sizes_arg(sizes);
	s.threads = kw_u32("threads", threads);
	s.cpus = cpus_arg(cpus);
	s.ops = kw_u64("ops", ops);
	s.duration_ms = kw_u32("duration_ms", duration_ms);
	s.batch = kw_u32("batch", batch);
	s.working_set = kw_u32("working_set", working_set);
	s.ring = kw_u32("ring", ring);
	s.seed = kw_u64("seed", seed);
	s.max_live_bytes = kw_u64("max_live_bytes", max_live_bytes);
	s.thin = kw_u32("thin", thin);
	s.rate = kw_u32("rate", rate);
	s.producers = kw_u32("producers", producers);
	return s;
}

bool SignalWatch::operator()()
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

void SignalWatch::raise_if_pending()
{
	if (pending) {
		pending->restore();
		pending.reset();
		throw py::error_already_set();
	}
}

}  // namespace slablab_core
