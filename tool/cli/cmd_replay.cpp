// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slabctl record and replay (docs/replay.md). record enables the kernel's kmem
// tracepoints in a tracefs instance of its own (libtracefs), runs the command, reads the
// events back (libtraceevent parses them by the kernel's own format files) and writes a
// trace file whose objects are ids, never addresses. replay streams a trace to the
// module and prints what the replay measured.
#include "common.hpp"
#include "slabctl/slabctl.hpp"
#include "slabctl/trace.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

// libtracefs 1.6 declares no C linkage of its own
extern "C" {
#include <tracefs/tracefs.h>
}

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace slabctl::cli {

namespace {

// 6.1 and later; the _node variants are those of kernels before 6.1 (merged then).
constexpr const char* kAllocEvents[] = {"kmalloc", "kmalloc_node", "kmem_cache_alloc",
					"kmem_cache_alloc_node"};
constexpr const char* kFreeEvents[] = {"kfree", "kmem_cache_free"};

struct RecordOptions {
	std::string output;
	std::vector<std::string> events{"kmalloc", "cache"};
	size_t buffer_kb = 16384;
	std::vector<std::string> command;
};

struct RecordContext {
	std::vector<RawEvent> events;
	unsigned long long missed = 0;
};

int on_event(tep_event* event, tep_record* record, int cpu, void* arg)
{
	auto* ctx = static_cast<RecordContext*>(arg);
	const std::string name = event->name;
	RawEvent e;
	e.ts_ns = record->ts;
	e.cpu = static_cast<uint16_t>(cpu);
	if (record->missed_events > 0)
		ctx->missed += static_cast<unsigned long long>(record->missed_events);
	unsigned long long v = 0;
	if (tep_get_field_val(nullptr, event, "ptr", record, &v, 0) < 0)
		return 0;
	e.ptr = v;
	if (!e.ptr)
		return 0;	// a failed allocation, or kfree(NULL)
	e.kmalloc = name.rfind("kmalloc", 0) == 0 || name == "kfree";
	if (name == "kfree" || name == "kmem_cache_free") {
		e.op = TraceOp::free;
		int len = 0;
		if (name == "kmem_cache_free") {
			const char* s = static_cast<const char*>(
				tep_get_field_raw(nullptr, event, "name", record, &len, 0));
			if (s && len > 0)
				e.cache.assign(s, strnlen(s, static_cast<size_t>(len)));
		}
	} else {
		e.op = TraceOp::alloc;
		if (!tep_get_field_val(nullptr, event, "bytes_req", record, &v, 0))
			e.bytes_req = static_cast<uint32_t>(v);
		if (!tep_get_field_val(nullptr, event, "bytes_alloc", record, &v, 0))
			e.bytes_alloc = static_cast<uint32_t>(v);
		if (!tep_get_field_val(nullptr, event, "gfp_flags", record, &v, 0))
			e.gfp = static_cast<uint32_t>(v);
	}
	ctx->events.push_back(std::move(e));
	return 0;
}

// Events the ring buffers dropped: "overrun:" of each per_cpu/cpuN/stats.
uint64_t overruns(tracefs_instance* inst)
{
	uint64_t lost = 0;
	for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		char* text = tracefs_instance_file_read(
			inst, fmt::format("per_cpu/cpu{}/stats", cpu).c_str(), nullptr);
		if (!text)
			continue;
		std::istringstream in(text);
		std::string line;
		while (std::getline(in, line))
			if (line.rfind("overrun:", 0) == 0)
				lost += std::strtoull(line.c_str() + 8, nullptr, 10);
		free(text);	// NOLINT(cppcoreguidelines-no-malloc): libtracefs' buffer
	}
	return lost;
}

// A cache's object size and alignment as SLUB's sysfs says (best effort: 0 if absent).
void fill_cache_geometry(TraceCache& c)
{
	auto read = [&](const char* file) -> uint32_t {
		std::ifstream f(fmt::format("/sys/kernel/slab/{}/{}", c.name, file));
		uint32_t v = 0;
		f >> v;
		return f ? v : 0;
	};
	if (c.name.rfind("size-", 0) == 0)
		return;
	if (uint32_t size = read("object_size"))
		c.object_size = size;
	c.align = read("align");
	if (c.align & (c.align - 1))
		c.align = 0;
}

struct InstanceDeleter {
	void operator()(tracefs_instance* i) const
	{
		tracefs_instance_destroy(i);
		tracefs_instance_free(i);
	}
};

int run_command(const std::vector<std::string>& command)
{
	const pid_t pid = fork();
	if (pid < 0)
		throw Error(errno, "RECORD", {}, fmt::format("fork: {}", std::strerror(errno)));
	if (pid == 0) {
		std::vector<char*> argv;
		for (const auto& a : command)
			argv.push_back(const_cast<char*>(a.c_str()));
		argv.push_back(nullptr);
		execvp(argv[0], argv.data());
		fmt::print(stderr, "slabctl: record: cannot run {}: {}\n", command[0],
			   std::strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int record(const RecordOptions& o)
{
	bool kmalloc = false, cache = false;
	for (const auto& e : o.events) {
		if (e == "kmalloc")
			kmalloc = true;
		else if (e == "cache")
			cache = true;
		else
			throw UsageError(fmt::format("--events: '{}' is not kmalloc or cache", e));
	}
	const std::string name = fmt::format("slablab-record-{}", getpid());
	std::unique_ptr<tracefs_instance, InstanceDeleter> inst(
		tracefs_instance_create(name.c_str()));
	if (!inst)
		throw Error(errno ? errno : ENODEV, "RECORD", {},
			    "cannot create a tracefs instance (is tracefs mounted, are you root?)");
	if (tracefs_instance_set_buffer_size(inst.get(), o.buffer_kb, -1) < 0)
		throw Error(errno ? errno : EINVAL, "RECORD", {},
			    fmt::format("cannot size the buffers to {} KiB a cpu", o.buffer_kb));
	// one clock for every cpu: the replay orders events across cpus by it
	if (tracefs_instance_file_write(inst.get(), "trace_clock", "mono") < 0)
		throw Error(errno ? errno : EINVAL, "RECORD", {}, "cannot set trace_clock mono");
	int enabled = 0;
	for (const char* ev : kAllocEvents) {
		const bool is_kmalloc = std::strncmp(ev, "kmalloc", 7) == 0;
		if ((is_kmalloc ? kmalloc : cache) && tracefs_event_enable(inst.get(), "kmem", ev) == 0)
			enabled++;
	}
	for (const char* ev : kFreeEvents) {
		const bool is_kmalloc = std::strcmp(ev, "kfree") == 0;
		if ((is_kmalloc ? kmalloc : cache) && tracefs_event_enable(inst.get(), "kmem", ev) == 0)
			enabled++;
	}
	if (!enabled)
		throw Error(ENOENT, "RECORD", {}, "this kernel has none of the kmem tracepoints");
	tracefs_trace_on(inst.get());
	const int rc = run_command(o.command);
	tracefs_trace_off(inst.get());

	const char* systems[] = {"kmem", nullptr};
	tep_handle* tep = tracefs_local_events_system(nullptr, systems);
	if (!tep)
		throw Error(errno ? errno : EIO, "RECORD", {}, "cannot read the kmem event formats");
	RecordContext ctx;
	tracefs_iterate_raw_events(tep, inst.get(), nullptr, 0, on_event, &ctx);
	tep_free(tep);
	const uint64_t lost = std::max<uint64_t>(overruns(inst.get()), ctx.missed);
	Trace t = build_trace(std::move(ctx.events), lost);
	for (TraceCache& c : t.caches)
		fill_cache_geometry(c);
	write_trace(t, o.output);
	fmt::print(stderr,
		   "slabctl: recorded {} events ({} objects, {} caches, {} cpus) in {:.3f} s to {}\n"
		   "  lost events: {}{}\n"
		   "  frees of objects from before the recording: {}\n"
		   "  objects live at the end: {} ({} of them allocated at a live address: their "
		   "free was not traced); peak live bytes: {}\n",
		   t.events.size(), t.nr_objects, t.caches.size(), t.nr_cpus,
		   static_cast<double>(t.duration_ns) / 1e9, o.output, t.lost_events,
		   t.lost_events ? " (raise --buffer-kb)" : "", t.unmatched_frees, t.live_at_end,
		   t.lost_frees, t.peak_live_bytes);
	if (rc != 0)
		fmt::print(stderr, "slabctl: record: the command exited with status {}\n", rc);
	return rc == 0 ? kExitOk : kExitFailed;
}

struct ReplayOptions {
	std::string file;
	std::string target = "slablab";
	uint64_t max_live_bytes = 0;
	bool json = false;
};

Json replay_json(const ReplayResult& r)
{
	Json j;
	j["target"] = r.target;
	j["state"] = r.state;
	j["threads"] = r.threads;
	j["folded"] = r.folded;
	j["recorded_cpus"] = r.recorded_cpus;
	j["events"] = r.events;
	j["allocs"] = r.allocs;
	j["frees"] = r.frees;
	j["remote_frees"] = r.remote_frees;
	j["failures"] = r.failures;
	j["alloc_cycles"] = r.alloc_cycles;
	j["free_cycles"] = r.free_cycles;
	j["elapsed_ns"] = r.elapsed_ns;
	j["peak_pages"] = r.peak_pages;
	j["peak_live_bytes"] = r.peak_live_bytes;
	j["live_at_end"] = r.live_at_end;
	const double ops = static_cast<double>(r.allocs + r.frees);
	j["ops_per_sec"] = r.elapsed_ns ? ops * 1e9 / static_cast<double>(r.elapsed_ns) : 0.0;
	j["cycles_per_alloc"] = r.allocs ? static_cast<double>(r.alloc_cycles) /
						   static_cast<double>(r.allocs) : 0.0;
	j["cycles_per_free"] = r.frees ? static_cast<double>(r.free_cycles) /
						 static_cast<double>(r.frees) : 0.0;
	Json caches = Json::array();
	for (const auto& c : r.caches)
		caches.push_back({{"name", c.name}, {"allocs", c.allocs}, {"frees", c.frees},
				  {"live_at_end", c.live_at_end}, {"pages", c.pages}});
	j["caches"] = caches;
	return j;
}

int replay(const ReplayOptions& o)
{
	const Trace t = read_trace(o.file);
	Client client;
	const ReplayResult r = client.replay(t, o.target, o.max_live_bytes);
	const Json j = replay_json(r);
	if (o.json) {
		Json env = json_envelope("replay");
		env["replay"] = j;
		print_json(env);
		return kExitOk;
	}
	fmt::print("replay of {} on {}: {} events, {} thread(s){}\n", o.file, r.target, r.events,
		   r.threads,
		   r.folded ? fmt::format(" (folded from {} recorded cpus)", r.recorded_cpus) : "");
	fmt::print("  ops/s {:.0f}   cycles/alloc {:.1f}   cycles/free {:.1f}\n",
		   j["ops_per_sec"].get<double>(), j["cycles_per_alloc"].get<double>(),
		   j["cycles_per_free"].get<double>());
	fmt::print("  allocs {}  frees {}  remote frees {}  failures {}  live at end {}\n",
		   r.allocs, r.frees, r.remote_frees, r.failures, r.live_at_end);
	fmt::print("  peak live bytes {}  peak pages {}\n", r.peak_live_bytes, r.peak_pages);
	fmt::print("  {:<32} {:>10} {:>10} {:>8} {:>8}\n", "cache", "allocs", "frees", "live",
		   "pages");
	for (const auto& c : r.caches)
		if (c.allocs)
			fmt::print("  {:<32} {:>10} {:>10} {:>8} {:>8}\n", c.name, c.allocs,
				   c.frees, c.live_at_end, c.pages);
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
		       "Ring buffer per cpu in KiB (lost events: raise it)")
		->capture_default_str();
	cmd.add_option("COMMAND", o->command, "The command to run while recording (after --)")
		->required();
	return [o] { return record(*o); };
}

Action setup_replay(CLI::App& cmd)
{
	auto o = std::make_shared<ReplayOptions>();
	cmd.add_option("FILE", o->file, "A trace from slabctl record")->required();
	cmd.add_option("--target", o->target, "slablab (one slablab cache per recorded cache) "
		       "or native (the kernel's SLUB)")
		->check(CLI::IsMember({"slablab", "native"}))
		->capture_default_str();
	// --design (issue 13) goes here: the slablab target's design per replay cache.
	cmd.add_option("--max-live-bytes", o->max_live_bytes,
		       "Cap on the trace's peak live bytes (default: the module's, RAM / 4)");
	cmd.add_flag("--json", o->json, "JSON output (schema slablab/1)");
	return [o] { return replay(*o); };
}

}  // namespace slabctl::cli
