// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: other people's traces of the kmem tracepoints (docs/replay.md, "Importing
// other traces") made into slablab traces: the text of tracefs' `trace`/`trace_pipe`,
// `perf script` output and trace-cmd's .dat files. Each importer only produces RawEvents;
// build_trace() makes the Trace, so ids, lost and unmatched frees and cache names come out
// exactly as for `slabctl record`.
#pragma once

#include "slabctl/trace.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace slabctl {

enum class TraceFormat { automatic, native, text, perf, dat };

/// "auto", "native", "text", "perf", "dat".
std::string_view trace_format_name(TraceFormat f);
/// The inverse of trace_format_name(); nullopt for an unknown name.
std::optional<TraceFormat> trace_format_from_name(std::string_view name);

/**
 * What the file is, from its first bytes: the SLABTRC magic (native), trace-cmd's
 * "\x17\x08\x44tracing" (dat), else text: perf when its first event line names the event
 * as SYSTEM:EVENT (kmem:kmalloc), tracefs text otherwise. Throws Error (EINVAL) naming the
 * file and what was expected for an empty, binary or unrecognised file.
 */
TraceFormat detect_trace_format(const std::string& path);

/// What an import read besides the trace itself.
struct ImportReport {
	std::string input;
	TraceFormat format = TraceFormat::automatic;	///< the format read (never automatic)
	uint64_t lines = 0;		///< text and perf: lines read
	uint64_t comment_lines = 0;	///< '#' lines (tracefs' header), blank lines
	uint64_t other_events = 0;	///< events of other tracepoints (lines or records)
	/// failed allocations, kfree(NULL)/(ZERO_SIZE_PTR) (hashed: the kfree'd-while-dead one)
	uint64_t null_pointers = 0;
	std::map<std::string, uint64_t> other_by_name;	///< other_events by event name
	/// lines and records not imported: comment lines + other events + null pointers
	uint64_t skipped() const { return comment_lines + other_events + null_pointers; }
};

struct ImportResult {
	Trace trace;
	ImportReport report;
};

/**
 * Read `path` in format `f` (automatic: detect_trace_format()) into a Trace. Every error
 * throws Error (EINVAL for bad input) whose message names the file and the line (text,
 * perf) or byte offset (native) and what was expected there.
 */
ImportResult import_trace(const std::string& path, TraceFormat f = TraceFormat::automatic);

/// The text importers on text in memory (`what` names it in errors); f is text or perf.
ImportResult parse_trace_text(std::string_view text, const std::string& what, TraceFormat f);

/// import_trace(), then the trace written to `output` (a temporary file renamed over it:
/// nothing is half-written).
ImportResult import_trace_to(const std::string& path, const std::string& output,
			     TraceFormat f = TraceFormat::automatic);

/// Writes `t` to `path` through a temporary file in the same directory, renamed over it.
void write_trace_atomic(const Trace& t, const std::string& path);

}  // namespace slabctl
