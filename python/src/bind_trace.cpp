// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's traces: slabctl record and import from Python, a trace's events as a
// numpy array and a trace file's header (docs/replay.md).
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace slablab_core {
namespace {

// One event of slablab.trace_events()'s structured array (docs/python.md): the file's
// event (docs/replay.md, "Events") without its reserved bytes.
struct PyTraceEvent {
	uint64_t ts_ns;
	uint32_t object;
	uint32_t bytes_req;
	uint32_t bytes_alloc;
	uint32_t gfp;
	uint16_t cpu;
	uint16_t cache;
	uint8_t op;
};

slabctl::TraceFormat format_arg(const std::string& name)
{
	const auto f = slabctl::trace_format_from_name(name);
	if (!f)
		throw slabctl::UsageError("format: '" + name +
					  "' is not auto, native, text, perf or dat");
	return *f;
}

/// A trace's caches as [{name, object_size, align}].
py::list trace_caches(const slabctl::Trace& t)
{
	py::list caches;
	for (const auto& c : t.caches) {
		py::dict cd;
		cd["name"] = c.name;
		cd["object_size"] = c.object_size;
		cd["align"] = c.align;
		caches.append(cd);
	}
	return caches;
}

/// record, import_trace: traces made from the kernel's kmem tracepoints.
void bind_trace_makers(py::module_& m)
{
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
		"import_trace",
		[](const py::object& path, const std::string& format, const py::object& output) {
			const std::string in = path_arg(path);
			const slabctl::TraceFormat f = format_arg(format);
			const std::string out = output.is_none() ? std::string() : path_arg(output);
			slabctl::Json j;
			{
				py::gil_scoped_release nogil;
				const slabctl::ImportResult r =
					out.empty() ? slabctl::import_trace(in, f)
						    : slabctl::import_trace_to(in, out, f);
				j = slabctl::to_json(r, out);
			}
			return to_py(j);
		},
		py::arg("path"), py::arg("format") = "auto", py::arg("output") = py::none(),
		"slabctl import from Python: read a trace of the kmem tracepoints (format 'auto', "
		"'native', 'text' (tracefs trace/trace_pipe), 'perf' (perf script output), 'dat' "
		"(trace-cmd)) and, with output, write it as a slablab trace. Returns what "
		"`slabctl import --json` prints: input, output, format, events, objects, caches, "
		"cpus, duration_ns, lost_events, unmatched_frees, live_at_end, lost_frees, "
		"peak_live_bytes, lines, skipped, comment_lines, other_events, null_pointers, "
		"other_by_name. Bad input raises InvalidArgument naming the file and line or "
		"offset.");
}

/// trace_events, read_trace: what a trace holds.
void bind_trace_readers(py::module_& m)
{
	PYBIND11_NUMPY_DTYPE(PyTraceEvent, ts_ns, object, bytes_req, bytes_alloc, gfp, cpu, cache,
			     op);
	m.def(
		"trace_events",
		[](const py::object& path, const std::string& format) {
			const std::string in = path_arg(path);
			const slabctl::TraceFormat f = format_arg(format);
			slabctl::Trace t;
			{
				py::gil_scoped_release nogil;
				t = slabctl::import_trace(in, f).trace;
			}
			py::array_t<PyTraceEvent> a(static_cast<py::ssize_t>(t.events.size()));
			auto* out = a.mutable_data();
			for (size_t i = 0; i < t.events.size(); i++) {
				const slabctl::TraceEvent& e = t.events[i];
				out[i] = {e.ts_ns, e.object, e.bytes_req, e.bytes_alloc, e.gfp,
					  e.cpu,   e.cache,  static_cast<uint8_t>(e.op)};
			}
			return py::make_tuple(a, trace_caches(t));
		},
		py::arg("path"), py::arg("format") = "auto",
		"A trace's events (any format import_trace reads) as a numpy structured array "
		"with fields ts_ns (u8), object, bytes_req, bytes_alloc, gfp (u4), cpu, cache (u2), "
		"op (u1: 1 alloc, 2 free), and its caches [{name, object_size, align}] (event "
		"cache i + 1 is caches[i]; 0 is kmalloc): a tuple (events, caches). Needs numpy.");
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
			d["caches"] = trace_caches(t);
			return d;
		},
		py::arg("path"),
		"The header of a trace file and its caches (docs/replay.md, \"File format\"): "
		"nr_cpus, nr_events, nr_objects, lost_events, unmatched_frees, live_at_end, "
		"peak_live_bytes, duration_ns, caches [{name, object_size, align}]. A bad or "
		"truncated file raises InvalidArgument naming the byte offset.");
}

}  // namespace

void bind_trace(py::module_& m)
{
	bind_trace_makers(m);
	bind_trace_readers(m);
}

}  // namespace slablab_core
