// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl storm start|show|stop and slabctl compare: allocation storms in the kernel, one
// at a time or interleaved against each other; and storm-status, storm show's deprecated
// spelling.
#include "common.hpp"
#include "options.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <memory>

namespace slabctl::cli {
namespace {

/// The storm options storm and compare share. Sizes and counts are read by CLI11's unit
/// validators; the rest (lists, durations) by libslabctl, after CLI11 is done, so that the
/// messages are its own.
struct StormOptions {
	std::string cache, sizes, threads, cpus, duration, seed;
	uint64_t size = 0, ops = 0, batch = 0, working_set = 0, ring = 0, max_live = 0, thin = 0,
		 rate = 0, producers = 0;
	// given on the command line?
	const CLI::Option *size_opt = nullptr, *ops_opt = nullptr, *batch_opt = nullptr,
			  *working_set_opt = nullptr, *ring_opt = nullptr, *max_live_opt = nullptr,
			  *thin_opt = nullptr, *rate_opt = nullptr, *producers_opt = nullptr;
	bool quiet = false;
};

void add_storm_options(CLI::App& app, StormOptions& o, bool threads_list)
{
	app.add_option("-c,--cache", o.cache,
		       "slablab cache: the target of 'slablab', the model of 'native' (its size, "
		       "alignment and flags)");
	o.size_opt = app.add_option("-s,--size", o.size,
				    "Object size (K/M suffixes): 'native' without --cache, kmalloc "
				    "targets")
			     ->transform(size_value());
	app.add_option("--sizes", o.sizes,
		       fmt::format("Weighted sizes for kmalloc targets and native (its own kmalloc "
				   "classes): SIZE[:WEIGHT],… e.g. 64:3,192:1 (at most {})",
				   SLABLAB_STORM_MAX_SIZES));
	if (threads_list)
		app.add_option("-t,--threads", o.threads,
			       fmt::format("Threads, or a list of thread counts to compare: 1,2,4 "
					   "(1..{}; default: one per cpu of --cpus)",
					   SLABLAB_STORM_MAX_THREADS));
	else
		app.add_option("-t,--threads", o.threads,
			       fmt::format("Threads, 1..{} (default: one per cpu of --cpus)",
					   SLABLAB_STORM_MAX_THREADS));
	app.add_option("--cpus", o.cpus, "Cpus to run on: a list like 0-1 or 0-3,6 (default: online)");
	o.ops_opt = app.add_option("-n,--ops", o.ops,
				   "Allocations per thread (k/M/G = 10^3/10^6/10^9; default 100000)")
			    ->transform(count_value());
	app.add_option("-d,--duration", o.duration,
		       fmt::format("Run for a time instead of --ops: 500ms, 2s, 1m (a bare number "
				   "is seconds; at most {} s)",
				   SLABLAB_STORM_MAX_DURATION_MS / 1000));
	o.batch_opt = app.add_option("-b,--batch", o.batch,
				     fmt::format("Objects per batch (batch, bulk; prefill: per sheaf), 1..{} (default 16)",
						 SLABLAB_STORM_MAX_BATCH))
			      ->transform(count_value());
	o.working_set_opt =
		app.add_option("-w,--working-set", o.working_set,
			       fmt::format("Live objects per thread (churn), 1..{} (default 4096)",
					   SLABLAB_STORM_MAX_WORKING_SET))
			->transform(count_value());
	o.ring_opt = app.add_option("--ring", o.ring,
				    fmt::format("Ring slots between producer and consumer (remote), "
						"a power of two up to {} (default 256)",
						SLABLAB_STORM_MAX_RING))
			     ->transform(count_value());
	o.thin_opt = app.add_option("--thin", o.thin,
				    "Churn: after the fill keep every Nth object, free the rest "
				    "(fragmentation 1 - 1/N; default 1: keep all)")
			     ->transform(count_value());
	o.producers_opt = app.add_option("--producers", o.producers,
					 "producer-consumer: threads that allocate, 1..threads - 1; "
					 "the rest free (default threads / 2)")
				  ->transform(count_value());
	o.rate_opt = app.add_option("--rate", o.rate,
				    "rcu: objects a second each thread allocates and frees by RCU "
				    "at most (default 0: as fast as it can)")
			     ->transform(count_value());
	app.add_option("--seed", o.seed, "Random seed (churn, sizes; default 1)");
	o.max_live_opt = app.add_option("--max-live", o.max_live,
					"Cap on live object bytes (K/M/G suffixes; default RAM / 4)")
				 ->transform(size_value());
	app.add_flag("-q,--quiet", o.quiet, "No progress display");
	add_json_flag(app);
}

uint32_t to_u32(uint64_t v, std::string_view what)
{
	if (v > UINT32_MAX)
		throw UsageError(fmt::format("{} {} is out of range", what, v), ERANGE);
	return static_cast<uint32_t>(v);
}

/// The spec from the options (threads only when it is a single number).
StormSpec build_spec(const StormOptions& o, StormTarget target, StormPattern pattern,
		     std::vector<uint32_t>* thread_list)
{
	StormSpec s;
	s.target = wire(target);
	s.pattern = wire(pattern);
	s.cache = o.cache;
	if (o.size_opt->count())
		s.size = to_u32(o.size, "--size");
	if (!o.sizes.empty())
		s.sizes = parse_storm_sizes(o.sizes);
	if (!o.threads.empty()) {
		std::vector<uint32_t> list = parse_u32_list(o.threads, "--threads");
		if (thread_list && list.size() > 1)
			*thread_list = list;
		else if (list.size() == 1)
			s.threads = list[0];
		else
			throw UsageError(fmt::format("--threads: '{}' is not one number", o.threads));
	}
	s.cpus = o.cpus;
	if (o.ops_opt->count())
		s.ops = o.ops;
	if (!o.duration.empty()) {
		uint64_t ms = parse_duration_ms(o.duration, "--duration");
		if (ms == 0)
			throw UsageError(fmt::format("--duration '{}' is shorter than 1 ms", o.duration),
					 ERANGE);
		s.duration_ms = to_u32(ms, "--duration (ms)");
	}
	if (o.batch_opt->count())
		s.batch = to_u32(o.batch, "--batch");
	if (o.working_set_opt->count())
		s.working_set = to_u32(o.working_set, "--working-set");
	if (o.ring_opt->count())
		s.ring = to_u32(o.ring, "--ring");
	if (!o.seed.empty()) {
		auto v = parse_uint(o.seed);
		if (!v)
			throw UsageError(fmt::format("--seed: '{}' is not a number", o.seed));
		s.seed = *v;
	}
	if (o.max_live_opt->count())
		s.max_live_bytes = o.max_live;
	if (o.thin_opt->count())
		s.thin = to_u32(o.thin, "--thin");
	if (o.rate_opt->count())
		s.rate = to_u32(o.rate, "--rate");
	if (o.producers_opt->count())
		s.producers = to_u32(o.producers, "--producers");
	return s;
}

/// Where progress goes: a bar redrawn in place on a terminal, plain lines otherwise, or
/// nothing.
struct ProgressOut {
	std::FILE* f = nullptr;
	bool bar = false;
	bool drawn = false;	///< a bar is on screen (needs clearing before other output)
	std::chrono::steady_clock::time_point last_line{};

	static ProgressOut choose(bool json, bool quiet)
	{
		ProgressOut p;
		if (quiet)
			return p;
		if (!json) {
			p.f = stdout;
			p.bar = stdout_is_tty();
		} else if (stderr_is_tty()) {
			p.f = stderr;	// stdout is the JSON document
			p.bar = true;
		}
		return p;
	}
	void draw(const std::string& text)
	{
		if (!f)
			return;
		fmt::print(f, "\r\033[K{}", text);
		std::fflush(f);
		drawn = true;
	}
	void line(const std::string& text)
	{
		if (!f)
			return;
		clear();
		fmt::print(f, "{}\n", text);
		std::fflush(f);
	}
	void clear()
	{
		if (f && drawn) {
			fmt::print(f, "\r\033[K");
			std::fflush(f);
			drawn = false;
		}
	}
	/// Plain mode: true at most once a second.
	bool due()
	{
		auto now = std::chrono::steady_clock::now();
		if (now - last_line < std::chrono::seconds(1))
			return false;
		last_line = now;
		return true;
	}
};

void print_interrupted_note(bool json)
{
	fmt::print(stderr, "slabctl: interrupted: the storm was stopped in the kernel{}\n",
		   json ? "" : "; what was done is shown above");
}

struct StormCommandOptions : StormOptions {
	StormTarget target = StormTarget::slablab;
	StormPattern pattern = StormPattern::pair;
	std::string command;	///< "storm start", or "storm" (the deprecated spelling)
};

int run_storm(const StormCommandOptions& o)
{
	StormSpec spec = build_spec(o, o.target, o.pattern, nullptr);
	validate_storm_spec(spec);
	Client client;
	catch_interrupts();
	ProgressOut out = ProgressOut::choose(json_output(), o.quiet);
	bool announced = false;
	StormResult r = client.run_storm(
		spec,
		[&](const StormResult& s) {
			if (!announced) {
				announced = true;
				std::string threads =
					s.spec.threads ? fmt::format(", {} threads", *s.spec.threads)
						       : "";
				out.line(fmt::format("storm {} started: {}{}", s.id,
						     storm_title(s.spec), threads));
				out.due();
				return;
			}
			if (out.bar)
				out.draw(render_storm_bar(s));
			else if (s.running() && out.due())
				out.line(render_storm_line(s));
		},
		[] { return interrupted(); });
	out.clear();
	if (json_output()) {
		Json j = json_envelope(o.command);
		j["storm"] = to_json(r);
		print_json(j);
	} else {
		fmt::print("{}", render_storm_result(r));
	}
	std::fflush(stdout);
	if (r.interrupted) {
		print_interrupted_note(json_output());
		return static_cast<int>(kExitInterrupted);
	}
	return static_cast<int>(kExitOk);
}

struct StormStatusOptions {
	uint32_t id = 0;
	const CLI::Option* id_opt = nullptr;
	bool stop = false;
	std::string command;	///< "storm show", "storm stop" or "storm-status"
};

/// storm show's, stop's and storm-status's options: the storm's id, --json.
std::shared_ptr<StormStatusOptions> add_storm_id_options(CLI::App& cmd)
{
	auto o = std::make_shared<StormStatusOptions>();
	o->id_opt = cmd.add_option("ID", o->id, "Storm id (default: the last storm)");
	add_json_flag(cmd);
	o->command = command_path(cmd);
	return o;
}

int run_storm_status(const StormStatusOptions& o)
{
	std::optional<uint32_t> id;
	if (o.id_opt->count())
		id = o.id;
	Client client;
	StormResult r = o.stop ? client.storm_stop(id) : client.storm_get(id);
	if (json_output()) {
		Json j = json_envelope(o.command);
		j["storm"] = to_json(r);
		print_json(j);
	} else if (r.state == SLABLAB_STORM_NONE) {
		fmt::print("no storm has run\n");
	} else if (r.running()) {
		fmt::print("{}\n", render_storm_status(r));
	} else {
		fmt::print("{}", render_storm_result(r));
	}
	return static_cast<int>(kExitOk);
}

struct CompareOptions {
	StormOptions storm;
	StormPattern pattern = StormPattern::pair;
	std::string csv;
	std::vector<StormTarget> targets;
	std::vector<std::string> sets, figures;
	uint32_t repeat = 7, warmup = 1, max_repeats = 50;
	std::string until, noise_floor;
	bool aa = false;
	uint64_t bootstrap_seed = kBootstrapSeed;
};

int run_compare(const CompareOptions& o)
{
	CompareSpec spec;
	spec.base = build_spec(o.storm, StormTarget::slablab, o.pattern, &spec.threads);
	for (StormTarget t : o.targets)
		spec.targets.push_back(wire(t));
	spec.sets = o.sets;
	spec.repeat = o.repeat;
	spec.figures = o.figures;
	spec.warmup = o.warmup;
	spec.max_repeats = std::max(o.max_repeats, o.until.empty() ? o.repeat : 0U);
	if (!o.until.empty())
		spec.until = parse_until(o.until);
	if (!o.noise_floor.empty())
		spec.noise_floor = parse_until(o.noise_floor);
	spec.aa = o.aa;
	spec.bootstrap_seed = o.bootstrap_seed;
	compare_variants(spec);		// usage errors before the kernel is asked
	compare_figure_keys(spec);
	std::unique_ptr<std::ofstream> csv;
	if (!o.csv.empty()) {
		csv = std::make_unique<std::ofstream>(o.csv);
		if (!*csv)
			throw Error(errno, "", "",
				    fmt::format("cannot write {}: {}", o.csv,
						std::strerror(errno)));
	}

	Client client;
	catch_interrupts();
	ProgressOut out = ProgressOut::choose(json_output(), o.storm.quiet);
	// Lines for finished runs need the variants; keep a shadow for them.
	CompareResult shadow;
	shadow.spec = spec;
	shadow.variants = compare_variants(spec);
	shadow.figures = compare_figure_keys(spec);
	std::size_t finished = 0;
	CompareResult res = run_compare(
		client, spec,
		[&](const CompareProgress& p) {
			if (p.round) {
				// --until: the counter goes to stderr, whatever stdout is (the
				// table, JSON, or a pipe): how many repeats and how wide the
				// widest interval is, after each round
				if (!o.storm.quiet) {
					out.clear();
					fmt::print(stderr, "{}\n",
						   render_until_progress(*p.round, p.repeat));
					std::fflush(stderr);
				}
				return;
			}
			const StormResult& s = *p.storm;
			if (s.finished()) {
				CompareRun run;
				run.variant = p.variant_index;
				run.repeat = p.repeat;
				run.warmup = p.warmup;
				run.result = s;
				run.figures = storm_figures(s);
				out.line(render_compare_run_line(shadow, run, p.run, p.total));
				finished++;
				return;
			}
			if (out.bar)
				out.draw(fmt::format("[{}/{}] {} ({} {})  {}", p.run + 1, p.total,
						     p.variant->label,
						     p.warmup ? "warm-up" : "repeat", p.repeat,
						     render_storm_bar(s, 20)));
		},
		[] { return interrupted(); });
	out.clear();
	if (csv) {
		*csv << compare_csv(res);
		csv->close();
	}
	if (json_output()) {
		Json j = json_envelope("compare");
		j.update(to_json(res));
		print_json(j);
	} else {
		if (finished && out.f == stdout)
			fmt::print("\n");	// after the run lines
		fmt::print("{}", render_compare(res));
		if (csv)
			fmt::print("{} runs written to {}\n", res.runs.size(), o.csv);
	}
	std::fflush(stdout);
	if (!res.restore_error.empty())
		report_failure("compare", res.restore_error);
	if (res.interrupted) {
		print_interrupted_note(json_output());
		return static_cast<int>(kExitInterrupted);
	}
	return static_cast<int>(res.restore_error.empty() ? kExitOk : kExitFailed);
}

}  // namespace

Action setup_storm(CLI::App& cmd)
{
	cmd.require_subcommand(1);
	return nullptr;	// only its verbs run (main() runs `storm start` without one)
}

Action setup_storm_start(CLI::App& cmd)
{
	auto o = std::make_shared<StormCommandOptions>();
	o->command = command_path(cmd);
	accept_storm_target(
		cmd.add_option("TARGET", o->target,
			       "slablab (a slablab cache), native (the kernel's SLUB: a kmem_cache "
			       "made like --cache, or of --size; with --sizes, its kmalloc classes "
			       "made anew), kmalloc (slablab_kmalloc), native-kmalloc (the kernel's "
			       "kmalloc)")
			->required());
	accept_storm_pattern(
		cmd.add_option("PATTERN", o->pattern,
			       "pair (alloc+free loop), batch (N allocs then N frees), remote "
			       "(allocated on one cpu, freed on another), churn (working set, random "
			       "replacement), bulk (alloc_bulk/free_bulk), prefill (a prefilled "
			       "sheaf of --batch objects per op; slablab only), rcu (alloc, free by "
			       "RCU, at --rate; slablab and kmalloc only), producer-consumer "
			       "(--producers threads allocate into one ring, the rest free)")
			->required());
	add_storm_options(cmd, *o, false);
	return [o] { return run_storm(*o); };
}

Action setup_storm_show(CLI::App& cmd)
{
	auto o = add_storm_id_options(cmd);
	return [o] { return run_storm_status(*o); };
}

Action setup_storm_stop(CLI::App& cmd)
{
	auto o = add_storm_id_options(cmd);
	o->stop = true;
	return [o] { return run_storm_status(*o); };
}

Action setup_storm_status(CLI::App& cmd)
{
	auto o = add_storm_id_options(cmd);
	cmd.add_flag("--stop", o->stop, "Stop the storm (STORM_STOP) and show what it did");
	return [o] {
		deprecation_notice(o->stop ? "storm-status --stop" : "storm-status",
				   o->stop ? "storm stop" : "storm show");
		return run_storm_status(*o);
	};
}

Action setup_compare(CLI::App& cmd)
{
	auto o = std::make_shared<CompareOptions>();
	accept_storm_pattern(
		cmd.add_option("PATTERN", o->pattern,
			       "pair, batch, remote, churn, bulk, prefill, rcu or producer-consumer")
			->required());
	accept_storm_target(cmd.add_option(
		"-T,--target", o->targets,
		"A target to compare (repeat the option): slablab, native, kmalloc, "
		"native-kmalloc (default: slablab and native; rcu: slablab)"));
	cmd.add_option("--set", o->sets,
		       "Cache settings to compare, one variant each (repeat the option): "
		       "KEY=VALUE[,KEY=VALUE…] with the keys of 'slabctl set', applied to "
		       "--cache before its runs and restored afterwards, e.g. --set cpu_partial=0 "
		       "--set cpu_partial=120");
	cmd.add_option("-r,--repeat", o->repeat,
		       fmt::format("Runs of each variant, 1..{} (default 7)", kMaxCompareRepeat));
	cmd.add_option("--warmup", o->warmup,
		       fmt::format("Rounds run first and discarded (shown, written to the CSV "
				   "with warmup=1), 0..{} (default 1)",
				   kMaxCompareWarmup));
	cmd.add_option("--until", o->until,
		       "Go on past --repeat until every ratio's 95% confidence interval is at "
		       "most this wide: ±2% (or 2%, 0.02); capped by --max-repeats");
	cmd.add_option("--max-repeats", o->max_repeats,
		       "With --until: the most repeats of each variant (default 50)");
	cmd.add_flag("--aa", o->aa,
		     "A/A: run the first variant twice, interleaved, to measure this machine's "
		     "noise floor (the ratio should be 1; its CI is the floor)");
	cmd.add_option("--noise-floor", o->noise_floor,
		       "The A/A floor (±2.5% or 0.025): the equivalence margin, a ratio whose CI "
		       "lies inside it is no difference (default ±5%); one whose CI holds 1 and "
		       "reaches past it is inconclusive, with the repeats a decision needs");
	cmd.add_option("--bootstrap-seed", o->bootstrap_seed,
		       "Accepted and ignored: the interval is a Student-t interval, not a bootstrap "
		       "(kept so that scripts keep working)");
	cmd.add_option("--figure", o->figures,
		       "Figure(s) to summarize instead of the pattern's main one: cycles_per_pair, "
		       "cycles_per_alloc, cycles_per_free, ns_per_op, ops_per_sec, overhead_pct, …");
	cmd.add_option("--csv", o->csv, "Write every run (one row each, every field) to FILE");
	add_storm_options(cmd, o->storm, true);
	return [o] { return run_compare(*o); };
}

}  // namespace slabctl::cli
