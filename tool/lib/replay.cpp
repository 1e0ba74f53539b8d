// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libslabctl: the recorder (kmem tracepoints through kmem_trace.c), replays on several
// targets in turn, and the JSON and table forms of replays (docs/replay.md).
#include "slabctl/replay.hpp"

#include "event_spool.hpp"
#include "kmem_trace.h"
#include "slabctl/error.hpp"
#include "slabctl/names.hpp"
#include "unique_fd.hpp"

#include <linux/slablab.h>

#include <fmt/format.h>

#include <sys/eventfd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

namespace slabctl {

namespace {

struct TraceCloser {
	void operator()(kmem_trace* t) const { kmem_trace_close(t); }
};

struct ReaderCloser {
	void operator()(kmem_trace_reader* r) const { kmem_trace_reader_close(r); }
};

/// The instance's tracing on for as long as it lives (the command's run), off after it
/// whatever happens: the reader's last pass reads what the buffers hold, and no more.
class TracingOn {
public:
	explicit TracingOn(kmem_trace* t) : t_(t) { kmem_trace_on(t_); }
	~TracingOn() { off(); }
	TracingOn(const TracingOn&) = delete;
	TracingOn& operator=(const TracingOn&) = delete;
	void off() noexcept
	{
		if (t_)
			kmem_trace_off(std::exchange(t_, nullptr));
	}

private:
	kmem_trace* t_;
};

/// The reader thread: drains the ring buffers into the spool while the command runs,
/// woken by the watermark of each cpu's buffer (poll()) or by stop().
class StreamReader {
public:
	StreamReader(kmem_trace_reader* r, EventSpool& spool) : spool_(spool)
	{
		wake_ = Fd(::eventfd(0, EFD_CLOEXEC));
		if (!wake_)
			throw Error(errno, "RECORD", {},
				    fmt::format("eventfd: {}", std::strerror(errno)));
		thread_ = std::thread([this, r] {
			missed_ = kmem_trace_reader_run(r, wake_.get(), sink, &spool_, &what_);
			if (missed_ < 0)
				err_ = errno ? errno : EIO;
		});
	}
	~StreamReader() { stop(); }
	StreamReader(const StreamReader&) = delete;
	StreamReader& operator=(const StreamReader&) = delete;

	/// Wakes the reader for its last pass over the buffers and waits for it.
	void stop() noexcept
	{
		if (!thread_.joinable())
			return;
		const uint64_t one = 1;
		// cannot fail: the counter is far from its limit
		[[maybe_unused]] const ssize_t n = ::write(wake_.get(), &one, sizeof one);
		thread_.join();
	}
	/// After stop(): the events the sub-buffers said were lost; throws Error (errno) when
	/// the reading failed, naming the spool when it was the spool's write.
	uint64_t missed(int exit_status) const
	{
		if (missed_ >= 0)
			return static_cast<uint64_t>(missed_);
		const std::string status =
			fmt::format("the command exited with status {}", exit_status);
		if (spool_.error())
			throw Error(spool_.error(), "RECORD", {},
				    fmt::format("cannot write the spool {}: {} ({})", spool_.path(),
						std::strerror(spool_.error()), status));
		throw Error(err_, "RECORD", {},
			    fmt::format("{}: {} ({})", what_, std::strerror(err_), status));
	}

private:
	static int sink(const kmem_trace_event* e, void* arg)
	{
		return static_cast<EventSpool*>(arg)->append(*e) ? 0 : -1;
	}

	EventSpool& spool_;
	Fd wake_;
	long long missed_ = 0;
	int err_ = 0;
	const char* what_ = "";
	std::thread thread_;	// last: it runs on the members above
};

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

/// SIGINT and SIGQUIT ignored while it lives, as system(3) does around its child: a
/// Ctrl-C stops the recorded command, and the recorder then turns tracing off, reads
/// what is left and removes its instance, rather than dying with the tracepoints on.
class IgnoreInterrupts {
public:
	IgnoreInterrupts()
	{
		struct sigaction ign {};
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGINT, &ign, &int_);
		sigaction(SIGQUIT, &ign, &quit_);
	}
	IgnoreInterrupts(const IgnoreInterrupts&) = delete;
	IgnoreInterrupts& operator=(const IgnoreInterrupts&) = delete;
	~IgnoreInterrupts()
	{
		sigaction(SIGINT, &int_, nullptr);
		sigaction(SIGQUIT, &quit_, nullptr);
	}

private:
	struct sigaction int_ {};
	struct sigaction quit_ {};
};

int run_command(const std::vector<std::string>& command)
{
	std::vector<char*> argv;
	for (const auto& a : command)
		argv.push_back(const_cast<char*>(a.c_str()));
	argv.push_back(nullptr);
	const IgnoreInterrupts ignore;
	const pid_t pid = fork();
	if (pid < 0)
		throw Error(errno, "RECORD", {}, fmt::format("fork: {}", std::strerror(errno)));
	if (pid == 0) {
		// the command gets the signals' defaults back (ignored ones survive exec)
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
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

double ratio(uint64_t a, uint64_t b)
{
	return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

}  // namespace

RecordReport record_trace(const RecordSpec& spec)
{
	if (spec.command.empty())
		throw UsageError("record: no command to run");
	if (!spec.kmalloc && !spec.cache)
		throw UsageError("record: no events (kmalloc, cache)");
	// the spool first: an output directory that cannot take it fails before anything is
	// traced or run. Optional: closed (its blocks freed) once read back, before the
	// output is written beside it
	std::optional<EventSpool> spool(std::in_place, spec.output);
	const std::string name = fmt::format("slablab-record-{}", getpid());
	const char* what = "";
	errno = 0;
	std::unique_ptr<kmem_trace, TraceCloser> t(
		kmem_trace_open(name.c_str(), spec.buffer_kb, spec.kmalloc, spec.cache, &what));
	if (!t)
		throw Error(errno ? errno : EIO, "RECORD", {}, what);
	errno = 0;
	std::unique_ptr<kmem_trace_reader, ReaderCloser> reader(
		kmem_trace_reader_open(t.get(), &what));
	if (!reader)
		throw Error(errno ? errno : EIO, "RECORD", {}, what);
	int rc = 0;
	uint64_t missed = 0;
	{
		StreamReader streamer(reader.get(), *spool);
		TracingOn on(t.get());
		rc = run_command(spec.command);
		on.off();
		streamer.stop();
		missed = streamer.missed(rc);
	}
	const uint64_t lost = std::max<uint64_t>(kmem_trace_overruns(t.get()), missed);
	reader.reset();
	t.reset();
	std::vector<RawEvent> raw;
	try {
		raw = spool->read_all();
	} catch (const Error& e) {
		throw Error(e.err, "RECORD", {},
			    fmt::format("{} (the command exited with status {})", e.what(), rc));
	}
	spool.reset();
	Trace tr = build_trace(std::move(raw), lost);
	for (TraceCache& c : tr.caches)
		fill_cache_geometry(c);
	write_trace(tr, spec.output);
	RecordReport r;
	r.output = spec.output;
	r.exit_status = rc;
	r.events = tr.events.size();
	r.objects = tr.nr_objects;
	r.caches = static_cast<uint32_t>(tr.caches.size());
	r.cpus = tr.nr_cpus;
	r.duration_ns = tr.duration_ns;
	r.lost_events = tr.lost_events;
	r.unmatched_frees = tr.unmatched_frees;
	r.live_at_end = tr.live_at_end;
	r.lost_frees = tr.lost_frees;
	r.peak_live_bytes = tr.peak_live_bytes;
	return r;
}

Json to_json(const RecordReport& r)
{
	Json j;
	j["output"] = r.output;
	j["exit_status"] = r.exit_status;
	j["events"] = r.events;
	j["objects"] = r.objects;
	j["caches"] = r.caches;
	j["cpus"] = r.cpus;
	j["duration_ns"] = r.duration_ns;
	j["lost_events"] = r.lost_events;
	j["unmatched_frees"] = r.unmatched_frees;
	j["live_at_end"] = r.live_at_end;
	j["lost_frees"] = r.lost_frees;
	j["peak_live_bytes"] = r.peak_live_bytes;
	return j;
}

Json to_json(const ImportResult& res, const std::string& output)
{
	const Trace& t = res.trace;
	const ImportReport& r = res.report;
	Json j;
	j["input"] = r.input;
	j["output"] = output.empty() ? Json() : Json(output);
	j["format"] = std::string(trace_format_name(r.format));
	j["events"] = t.events.size();
	j["objects"] = t.nr_objects;
	j["caches"] = t.caches.size();
	j["cpus"] = t.nr_cpus;
	j["duration_ns"] = t.duration_ns;
	j["lost_events"] = t.lost_events;
	j["unmatched_frees"] = t.unmatched_frees;
	j["live_at_end"] = t.live_at_end;
	j["lost_frees"] = t.lost_frees;
	j["peak_live_bytes"] = t.peak_live_bytes;
	j["lines"] = r.lines;
	j["skipped"] = r.skipped();
	j["comment_lines"] = r.comment_lines;
	j["other_events"] = r.other_events;
	j["null_pointers"] = r.null_pointers;
	Json by_name = Json::object();
	for (const auto& [name, n] : r.other_by_name)
		by_name[name] = n;
	j["other_by_name"] = by_name;
	return j;
}

std::vector<ReplayVariant> parse_replay_targets(const std::string& list,
						const std::optional<std::string>& design)
{
	std::optional<uint32_t> default_design;
	if (design) {
		default_design = design_from_name(*design);
		if (!default_design)
			throw UsageError(fmt::format("unknown design '{}' ({})", *design,
						     fmt::join(design_names(), ", ")));
	}
	std::vector<ReplayVariant> out;
	std::istringstream in(list);
	std::string item;
	while (std::getline(in, item, ',')) {
		if (item.empty())
			continue;
		ReplayVariant v;
		v.label = item;
		std::string target = item, d;
		if (auto colon = item.find(':'); colon != std::string::npos) {
			target = item.substr(0, colon);
			d = item.substr(colon + 1);
		} else if (design_from_name(item)) {
			target = "slablab";	// a design alone: slablab with it
			d = item;
		}
		if (!target_from_name(target))
			throw UsageError(fmt::format(
				"unknown replay target '{}' ({}, slablab:DESIGN or a design: {})",
				item, fmt::join(target_names(), ", "),
				fmt::join(design_names(), ", ")));
		v.spec.target = target;
		if (!d.empty()) {
			if (target != "slablab")
				throw UsageError(fmt::format(
					"'{}': a design is for the slablab target only", item));
			v.spec.design = design_from_name(d);
			if (!v.spec.design)
				throw UsageError(fmt::format("unknown design '{}' ({})", d,
							     fmt::join(design_names(), ", ")));
		} else if (target == "slablab" && default_design) {
			v.spec.design = default_design;
			v.label = "slablab:" + *design;
		}
		out.push_back(std::move(v));
	}
	if (out.empty())
		throw UsageError("no replay targets");
	return out;
}

std::vector<ReplayResult> run_replay_compare(Client& client, const Trace& trace,
					     const std::vector<ReplayVariant>& variants,
					     const ReplaySpec& base, const ReplayProgressFn& progress,
					     const Client::ShouldStop& should_stop)
{
	std::vector<ReplayResult> runs;
	for (size_t i = 0; i < variants.size(); i++) {
		ReplaySpec s = variants[i].spec;
		s.max_live_bytes = base.max_live_bytes;
		s.time_scale = base.time_scale;
		s.sample_ns = base.sample_ns;
		s.cpu_partial = base.cpu_partial;
		ReplayResult r = client.replay(trace, s, should_stop);
		r.label = variants[i].label;
		runs.push_back(std::move(r));
		if (progress)
			progress(i, variants.size(), runs.back());
		if (runs.back().state == SLABLAB_REPLAY_STOPPED)
			break;
	}
	return runs;
}

Json to_json(const ReplayResult& r)
{
	Json j;
	j["target"] = r.target;
	j["label"] = r.label.empty() ? r.target : r.label;
	j["design"] = r.design.empty() ? Json(nullptr) : Json(r.design);
	j["state"] = r.state;
	j["state_name"] = r.state == SLABLAB_REPLAY_DONE ? "done" :
			  r.state == SLABLAB_REPLAY_STOPPED ? "stopped" :
			  r.state == SLABLAB_REPLAY_RUNNING ? "running" :
			  r.state == SLABLAB_REPLAY_LOADING ? "loading" : "none";
	j["time_scale"] = r.time_scale;
	j["cpu_partial"] = r.cpu_partial ? Json(*r.cpu_partial) : Json(nullptr);
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
	j["page_size"] = r.page_size;
	j["peak_pages"] = r.peak_pages;
	j["avg_pages"] = r.avg_pages;
	j["peak_live_bytes"] = r.peak_live_bytes;
	j["live_at_end"] = r.live_at_end;
	j["ops_per_sec"] = r.elapsed_ns ? static_cast<double>(r.allocs + r.frees) * 1e9 /
						  static_cast<double>(r.elapsed_ns) :
					  0.0;
	j["cycles_per_alloc"] = ratio(r.alloc_cycles, r.allocs);
	j["cycles_per_free"] = ratio(r.free_cycles, r.frees);
	// the pages at the peak against the bytes the trace holds at its own peak
	const uint64_t peak_bytes = r.peak_pages * r.page_size;
	j["overhead_pct"] = r.peak_live_bytes ?
				    (static_cast<double>(peak_bytes) -
				     static_cast<double>(r.peak_live_bytes)) * 100.0 /
					    static_cast<double>(r.peak_live_bytes) :
				    0.0;
	Json caches = Json::array();
	for (const auto& c : r.caches)
		caches.push_back({{"name", c.name}, {"allocs", c.allocs}, {"frees", c.frees},
				  {"live_at_end", c.live_at_end}, {"pages", c.pages}});
	j["caches"] = caches;
	Json ns = Json::array(), pages = Json::array();
	for (const auto& s : r.samples) {
		ns.push_back(s.ns);
		pages.push_back(s.pages);
	}
	j["samples"] = {{"ns", ns}, {"pages", pages}};
	return j;
}

Json replay_compare_json(const std::string& file, const std::vector<ReplayResult>& runs)
{
	Json j;
	j["file"] = file;
	Json labels = Json::array(), replays = Json::array();
	for (const auto& r : runs) {
		labels.push_back(r.label.empty() ? r.target : r.label);
		replays.push_back(to_json(r));
	}
	j["targets"] = labels;
	j["replays"] = replays;
	return j;
}

std::string format_replay_table(const std::vector<ReplayResult>& runs)
{
	std::vector<Json> js;
	for (const auto& r : runs)
		js.push_back(to_json(r));
	constexpr int kName = 28, kCol = 16;
	std::string out = fmt::format("{:<{}}", "", kName);
	for (const auto& j : js)
		out += fmt::format(" {:>{}}", j["label"].get<std::string>(), kCol);
	out += '\n';
	auto row = [&](const std::string& name, auto value) {
		out += fmt::format("{:<{}}", name, kName);
		for (const auto& j : js)
			out += fmt::format(" {:>{}}", value(j), kCol);
		out += '\n';
	};
	auto num = [](const char* key, int prec) {
		return [key, prec](const Json& j) {
			return fmt::format("{:.{}f}", j[key].get<double>(), prec);
		};
	};
	auto u = [](const char* key) {
		return [key](const Json& j) { return fmt::format("{}", j[key].get<uint64_t>()); };
	};
	row("ops/s", num("ops_per_sec", 0));
	row("cycles/alloc", num("cycles_per_alloc", 1));
	row("cycles/free", num("cycles_per_free", 1));
	row("peak pages", u("peak_pages"));
	row("time-weighted pages", u("avg_pages"));
	row("overhead vs live bytes %", num("overhead_pct", 1));
	row("allocs", u("allocs"));
	row("frees", u("frees"));
	row("remote frees", u("remote_frees"));
	row("failures", u("failures"));
	row("live at end", u("live_at_end"));
	row("threads", u("threads"));
	// per recorded cache: the pages its cache held at the end (the slablab target's own
	// caches; "-" elsewhere) and its objects live at the end
	if (!runs.empty()) {
		for (size_t c = 0; c < runs.front().caches.size(); c++) {
			const auto& cache = runs.front().caches[c];
			if (!cache.allocs)
				continue;
			row(fmt::format("{} pages/live", cache.name.substr(0, kName - 11)),
			    [&](const Json& j) -> std::string {
				    const auto& cs = j["caches"];
				    if (c >= cs.size())
					    return "-";
				    // only the slablab target has a cache of its own per recorded one
				    const bool own = j["target"] == "slablab" && c > 0;
				    return fmt::format("{}/{}",
						       own ? fmt::format("{}", cs[c]["pages"].get<uint64_t>())
							   : "-",
						       cs[c]["live_at_end"].get<uint64_t>());
			    });
		}
	}
	return out;
}

}  // namespace slabctl
