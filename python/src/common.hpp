// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// What the bind_*.cpp files of slablab._core share: the JSON -> Python conversion, the
// checks of Python arguments before they reach libslabctl (a UsageError, which becomes
// slablab.InvalidArgument, or a TypeError), the storm keywords and Ctrl-C while the GIL
// is released.
#pragma once

#include "slabctl/slabctl.hpp"

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slablab_core {

namespace py = pybind11;
using slabctl::Json;

/// A JSON value of slabctl/json.hpp as the Python object json.loads() would give.
py::object to_py(const Json& j);

/// A Python int that must fit the u32 the protocol carries.
uint32_t u32_arg(const char* what, int64_t v);
std::optional<uint32_t> opt_u32(const char* what, const std::optional<int64_t>& v);
/// A Python int that must not be negative.
std::optional<uint64_t> opt_u64(const char* what, const std::optional<int64_t>& v);

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

/// target=/pattern=: a name or (for kernel tests) a raw number; required.
uint32_t storm_enum(const char* what, const py::object& v,
		    std::optional<uint32_t> (*from_name)(std::string_view) noexcept);

/// poll_interval=: seconds in (0, 60].
std::chrono::milliseconds poll_arg(double seconds);

/// A trace argument: a path (str or os.PathLike).
std::string path_arg(const py::object& v);

/// The storm keywords every storm method takes, in one place.
struct StormKw {
	py::object cache = py::none(), size = py::none(), sizes = py::none(),
		   threads = py::none(), cpus = py::none(), ops = py::none(),
		   duration_ms = py::none(), batch = py::none(), working_set = py::none(),
		   ring = py::none(), seed = py::none(), max_live_bytes = py::none(),
		   thin = py::none(), rate = py::none(), producers = py::none();

	slabctl::StormSpec spec(uint32_t target, uint32_t pattern) const;
};

/**
 * Ctrl-C while a storm runs without the GIL: should_stop() asks Python for pending
 * signals; a KeyboardInterrupt (or whatever a signal handler raised) is kept here and
 * raised once the storm is stopped in the kernel.
 */
struct SignalWatch {
	std::unique_ptr<py::error_already_set> pending;

	bool operator()();
	void raise_if_pending();
};

}  // namespace slablab_core
