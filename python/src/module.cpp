// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slablab._core: pybind11 bindings of libslabctl. No netlink code here: every call goes
// through slabctl::Client. Results are the JSON objects of slabctl/json.hpp turned into
// Python dicts, so `slabctl --json` and Python share one documented shape. C++ exceptions
// become the classes of slablab.errors (chosen there, by errno).
//
// This file makes the module and its exception translator; the bindings themselves are
// in bind_*.cpp by area (bindings.hpp), sharing common.hpp.
#include "bindings.hpp"
#include "common.hpp"

#include <exception>

namespace slablab_core {
namespace {

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

void translate_error(std::exception_ptr p)
{
	try {
		if (p)
			std::rethrow_exception(p);
	} catch (const slabctl::ModuleNotLoaded& e) {
		raise_python(e, true);
	} catch (const slabctl::Error& e) {
		raise_python(e, false);
	}
}

}  // namespace
}  // namespace slablab_core

PYBIND11_MODULE(_core, m)
{
	using namespace slablab_core;

	m.doc() = "slablab._core: bindings of libslabctl, the slablab generic netlink client. "
		  "Use the slablab package, which re-exports this module.";
	bind_constants(m);
	pybind11::register_exception_translator(translate_error);
	bind_stats(m);
	bind_native(m);
	bind_trace(m);
	ClientClass client = bind_client(m);
	bind_storm(client);
	bind_replay(client);
	bind_compare(client);
}
