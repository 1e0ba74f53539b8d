// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slabctl record and replay (docs/replay.md). record runs a command while the kernel's
// kmem tracepoints are traced (libslabctl's record_trace()) and writes a trace file whose
// objects are ids, never addresses. replay streams a trace to the module, on one target
// or on several in turn (--compare), and prints what each replay measured. import makes a
// trace of other tools' kmem traces (tracefs text, perf script, trace-cmd .dat), which
// replay also reads directly.
#include "common.hpp"
#include "slabctl/slabctl.hpp"
#include "slabctl/trace.hpp"
#include "slabctl/trace_import.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <linux/slablab.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slabctl::cli {

namespace {

struct RecordOptions {
	std::string output;
	std::vector<std::string> events{"kmalloc", "cache"};
	size_t buffer_kb = 16384;
	std::vector<std::string> command;
};

int record(const RecordOptions& o)
{
	RecordSpec spec;
	spec.kmalloc = spec.cache = false;
	for (const auto& e : o.events) {
		if (e == "kmalloc")
			spec.kmalloc = true;
		else if (e == "cache")
			spec.cache = true;
		else
			throw UsageError(fmt::format("--events: '{}' is not kmalloc or cache", e));
	}
	spec.output = o.output;
	spec.buffer_kb = o.buffer_kb;
	spec.command = o.command;
	const RecordReport r = record_trace(spec);
	if (json_output()) {
		Json env = json_envelope("record");
		env["record"] = to_json(r);
		print_json(env);
	}
	fmt::print(stderr,
		   "slabctl: recorded {} events ({} objects, {} caches, {} cpus) in {:.3f} s to {}\n"
		   "  lost events: {}{}\n"
		   "  frees of objects from before the recording: {}\n"
		   "  objects live at the end: {} ({} of them allocated at a live address: their "
		   "free was not traced); peak live bytes: {}\n",
		   r.events, r.objects, r.caches, r.cpus,
		   static_cast<double>(r.duration_ns) / 1e9, r.output, r.lost_events,
		   r.lost_events ? " (raise --buffer-kb)" : "", r.unmatched_frees, r.live_at_end,
		   r.lost_frees, r.peak_live_bytes);
	if (r.exit_status != 0)
		report_failure("record",
			       fmt::format("the command exited with status {}", r.exit_status));
	return r.exit_status == 0 ? kExitOk : kExitFailed;
}

struct ImportOptions {
	std::string input;
	std::string output;
	std::string format = "auto";
	bool json = false;
};

int import(const ImportOptions& o)
{
	const auto f = trace_format_from_name(o.format);
	if (!f)
		throw UsageError(fmt::format("--format: '{}' is not auto, native, text, perf or dat",
					     o.format));
	const ImportResult res =
		o.output.empty() ? import_trace(o.input, *f) : import_trace_to(o.input, o.output, *f);
	const Trace& t = res.trace;
	const ImportReport& r = res.report;
	if (o.json) {
		Json env = json_envelope("import");
		env["import"] = to_json(res, o.output);
		print_json(env);
	}
	fmt::print(stderr,
		   "slabctl: imported {} ({}): {} events ({} objects, {} caches, {} cpus) over "
		   "{:.3f} s{}\n"
		   "  lost events: {}\n"
		   "  frees of objects from before the recording: {}\n"
		   "  objects live at the end: {} ({} of them allocated at a live address: their "
		   "free was not traced); peak live bytes: {}\n"
		   "  skipped: {} ({} comment or blank lines, {} events of other tracepoints, {} "
		   "null pointers)\n",
		   r.input, trace_format_name(r.format), t.events.size(), t.nr_objects,
		   t.caches.size(), t.nr_cpus, static_cast<double>(t.duration_ns) / 1e9,
		   o.output.empty() ? "" : fmt::format(" to {}", o.output), t.lost_events,
		   t.unmatched_frees, t.live_at_end, t.lost_frees, t.peak_live_bytes, r.skipped(),
		   r.comment_lines, r.other_events, r.null_pointers);
	return kExitOk;
}

struct ReplayOptions {
	std::string file;
	std::string target = "slablab";
	std::string compare;
	std::optional<std::string> design;
	uint64_t max_live_bytes = 0;
	double time_scale = 0;
	double sample_ms = 0;
	std::optional<uint32_t> cpu_partial;
};

void print_one(const std::string& file, const ReplayResult& r)
{
	const Json j = to_json(r);
	fmt::print("replay of {} on {}: {} events, {} thread(s){}{}\n", file, j["label"].get<std::string>(),
		   r.events, r.threads,
		   r.folded ? fmt::format(" (folded from {} recorded cpus)", r.recorded_cpus) : "",
		   r.time_scale > 0 ? fmt::format(", time-scaled x{}", r.time_scale) : "");
	fmt::print("  ops/s {:.0f}   cycles/alloc {:.1f}   cycles/free {:.1f}\n",
		   j["ops_per_sec"].get<double>(), j["cycles_per_alloc"].get<double>(),
		   j["cycles_per_free"].get<double>());
	fmt::print("  allocs {}  frees {}  remote frees {}  failures {}  live at end {}\n",
		   r.allocs, r.frees, r.remote_frees, r.failures, r.live_at_end);
	fmt::print("  peak live bytes {}  peak pages {}  time-weighted pages {}  overhead "
		   "{:.1f}%\n",
		   r.peak_live_bytes, r.peak_pages, r.avg_pages, j["overhead_pct"].get<double>());
	fmt::print("  {:<32} {:>10} {:>10} {:>8} {:>8}\n", "cache", "allocs", "frees", "live",
		   "pages");
	for (const auto& c : r.caches)
		if (c.allocs)
			fmt::print("  {:<32} {:>10} {:>10} {:>8} {:>8}\n", c.name, c.allocs,
				   c.frees, c.live_at_end, c.pages);
}

int replay(const ReplayOptions& o)
{
	const std::vector<ReplayVariant> variants =
		parse_replay_targets(o.compare.empty() ? o.target : o.compare, o.design);
	ReplaySpec base;
	base.max_live_bytes = o.max_live_bytes;
	base.time_scale = o.time_scale;
	if (o.sample_ms < 0)
		throw UsageError("--sample-ms must not be negative", ERANGE);
	base.sample_ns = static_cast<uint64_t>(o.sample_ms * 1e6);
	base.cpu_partial = o.cpu_partial;
	const Trace t = import_trace(o.file).trace;
	Client client;
	catch_interrupts();
	const auto runs = run_replay_compare(
		client, t, variants, base,
		[&](size_t i, size_t n, const ReplayResult& r) {
			if (n > 1 && !json_output())
				fmt::print(stderr, "slabctl: replay {}/{} on {}: {:.3f} s\n", i + 1, n,
					   r.label, static_cast<double>(r.elapsed_ns) / 1e9);
		},
		[] { return interrupted(); });
	const bool stopped = !runs.empty() && runs.back().state == SLABLAB_REPLAY_STOPPED;
	if (json_output()) {
		Json env = json_envelope("replay");
		if (o.compare.empty())
			env["replay"] = to_json(runs.front());
		else
			env["compare"] = replay_compare_json(o.file, runs);
		print_json(env);
	} else if (o.compare.empty()) {
		print_one(o.file, runs.front());
	} else {
		fmt::print("replay of {}: {} events on {} target(s){}\n", o.file,
			   runs.front().events, runs.size(),
			   o.time_scale > 0 ? fmt::format(", time-scaled x{}", o.time_scale) : "");
		fmt::print("{}", format_replay_table(runs));
	}
	if (stopped) {
		fmt::print(stderr, "slabctl: interrupted: the replay was stopped in the kernel\n");
		return kExitInterrupted;
	}
	return kExitOk;
}

}  // namespace

Action setup_record(CLI::App& cmd)
{
	auto o = std::make_shared<RecordOptions>();
	cmd.add_option("-o,--output", o->output, "The trace file to write")->required();
	cmd.add_option("--events", o->events,
		       "Which allocations: kmalloc (kmalloc/kfree), cache (kmem_cache_*); "
		       "default both")
		->delimiter(',');
	cmd.add_option("--buffer-kb", o->buffer_kb,
		       "Ring buffer per cpu in KiB, read to disk as the command runs (lost "
		       "events: the reader fell behind; raise it)")
		->capture_default_str();
	cmd.add_option("COMMAND", o->command, "The command to run while recording (after --)")
		->required();
	add_json_flag(cmd, "Also print what was recorded as JSON (schema slablab/1), as slabctl -j");
	return [o] { return record(*o); };
}

Action setup_import(CLI::App& cmd)
{
	auto o = std::make_shared<ImportOptions>();
	cmd.add_option("IN", o->input,
		       "A trace of the kmem tracepoints: tracefs trace/trace_pipe text, perf "
		       "script output, a trace-cmd .dat, or a slablab trace")
		->required();
	cmd.add_option("-o,--output", o->output,
		       "Write it as a slablab trace (else only the summary is printed)");
	cmd.add_option("--format", o->format, "auto (by its first bytes), native, text, perf, dat")
		->capture_default_str();
	cmd.add_flag("--json", o->json, "Also print what was imported as JSON (schema slablab/1)");
	return [o] { return import(*o); };
}

Action setup_replay(CLI::App& cmd)
{
	auto o = std::make_shared<ReplayOptions>();
	cmd.add_option("FILE", o->file,
		       "A trace from slabctl record or slabctl import, or one it imports "
		       "(tracefs text, perf script output, trace-cmd .dat: detected)")
		->required();
	cmd.add_option("--target", o->target,
		       "slablab (one slablab cache per recorded cache), native (the kernel's "
		       "SLUB), kmalloc (slablab_kmalloc's classes for every event), "
		       "native-kmalloc (the kernel's kmalloc for every event), slablab:DESIGN "
		       "or a design name")
		->capture_default_str();
	cmd.add_option("--compare", o->compare,
		       "Replay on several targets in turn and print them side by side, e.g. "
		       "slablab:slub,slablab:sheaves,native (or slub,sheaves,native)");
	cmd.add_option("--design", o->design,
		       "The design of a plain slablab target's caches (slub, sheaves, ...)");
	cmd.add_option("--time-scale", o->time_scale,
		       "Time-scaled mode: each event at its recorded time times this factor "
		       "(1: as recorded, 0.1: ten times faster); 0: as fast as possible")
		->check(CLI::Range(0.0, 1000.0));
	cmd.add_option("--sample-ms", o->sample_ms,
		       "Sample the pages held every this many ms (pages over time; default in "
		       "time-scaled mode: the scaled duration / 500)");
	cmd.add_option("--cpu-partial", o->cpu_partial,
		       "cpu_partial of the caches the slablab target makes for the recorded "
		       "caches (default: each cache's; the kmalloc classes keep theirs)")
		->check(CLI::Range(0, SLABLAB_MAX_CPU_PARTIAL));
	cmd.add_option("--max-live-bytes", o->max_live_bytes,
		       "Cap on the trace's peak live bytes (default: the module's, RAM / 4)");
	add_json_flag(cmd);
	return [o] { return replay(*o); };
}

}  // namespace slabctl::cli
