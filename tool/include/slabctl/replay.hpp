// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: record and replay (docs/replay.md) beyond the Client's single replay: the
// recorder, replays on several targets in turn, their JSON and the side-by-side table.
#pragma once

#include "slabctl/client.hpp"
#include "slabctl/json.hpp"
#include "slabctl/trace.hpp"
#include "slabctl/trace_import.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace slabctl {

/// slabctl record: what to trace while `command` runs.
struct RecordSpec {
	std::string output;			///< the trace file
	bool kmalloc = true;			///< kmalloc/kfree events
	bool cache = true;			///< kmem_cache_alloc/free events
	size_t buffer_kb = 16384;		///< ring buffer per cpu
	std::vector<std::string> command;	///< argv, run with execvp
};

/// What record found (also in the file's header, but for the command's status).
struct RecordReport {
	std::string output;
	int exit_status = 0;	///< the command's (128 + signal when killed)
	uint64_t events = 0, objects = 0;
	uint32_t caches = 0, cpus = 0;
	uint64_t duration_ns = 0;
	uint64_t lost_events = 0, unmatched_frees = 0, live_at_end = 0, lost_frees = 0;
	uint64_t peak_live_bytes = 0;
};

/**
 * Record the kernel's kmem tracepoints while spec.command runs (a tracefs instance of
 * our own, libtracefs / libtraceevent) and write the trace. Throws Error (errno) when
 * tracing cannot be set up; the command's failure is in exit_status.
 */
RecordReport record_trace(const RecordSpec& spec);

Json to_json(const RecordReport& r);

/// slabctl import --json and slablab.import_trace(): the trace's summary (as record's),
/// the format read and what was skipped; `output` "" (not written) is null.
Json to_json(const ImportResult& r, const std::string& output);

/// One target of a replay comparison: its label as given and how to replay it.
struct ReplayVariant {
	std::string label;
	ReplaySpec spec;
};

/**
 * "slablab,slablab:sheaves,native" (or a design name alone for slablab with it; "kmalloc",
 * "native-kmalloc") into variants; `design` applies to a plain "slablab". Throws UsageError.
 */
std::vector<ReplayVariant> parse_replay_targets(const std::string& list,
						const std::optional<std::string>& design = {});

/// Called after each target's replay (index, total, its result).
using ReplayProgressFn = std::function<void(size_t, size_t, const ReplayResult&)>;

/**
 * Replay `trace` on every variant in turn (each with `base`'s max_live_bytes, time_scale
 * and sample_ns). `should_stop` stops the running replay and ends the comparison.
 */
std::vector<ReplayResult> run_replay_compare(Client& client, const Trace& trace,
					     const std::vector<ReplayVariant>& variants,
					     const ReplaySpec& base,
					     const ReplayProgressFn& progress = {},
					     const Client::ShouldStop& should_stop = {});

/// A replay with its figures: ops_per_sec, cycles_per_alloc/free, peak/avg bytes,
/// overhead_pct (peak pages' bytes over the trace's peak live bytes), samples.
Json to_json(const ReplayResult& r);
/// {"file", "targets": [labels], "replays": [to_json each]}
Json replay_compare_json(const std::string& file, const std::vector<ReplayResult>& runs);
/// The side-by-side table: a column per target, a row per figure and per cache.
std::string format_replay_table(const std::vector<ReplayResult>& runs);

}  // namespace slabctl
