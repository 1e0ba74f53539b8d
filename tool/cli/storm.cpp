// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl storm and slabctl compare: allocation storms in the kernel, one at a time or
// interleaved against each other.
#include "common.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <memory>

namespace slabctl::cli {
namespace {

/// The storm options storm and compare share, as typed (parsed after CLI11 is done so
/// that the messages are libslabctl's).
struct StormOptions {
	std::string cache, size, sizes, threads, cpus, ops, duration, batch, working_set, ring,
		seed, max_live;
	bool json = false, quiet = false;
};

const std::vector<std::string> kTargets = {"slablab", "native", "kmalloc", "native-kmalloc"};
const std::vector<std::string> kPatterns = {"pair", "batch", "remote", "churn", "bulk"};

void add_storm_options(CLI::App* app, StormOptions& o, bool threads_list)
{
	app->add_option("-c,--cache", o.cache,
			"slablab cache: the target of 'slablab', the model of 'native' (its size, "
			"alignment and flags)");
	app->add_option("-s,--size", o.size,
			"Object size (K/M suffixes): 'native' without --cache, kmalloc targets");
	app->add_option("--sizes", o.sizes,
			fmt::format("Weighted sizes for kmalloc targets: SIZE[:WEIGHT],… e.g. "
				    "64:3,192:1 (at most {})",
				    SLABLAB_STORM_MAX_SIZES));
	if (threads_list)
		app->add_option("-t,--threads", o.threads,
				fmt::format("Threads, or a list of thread counts to compare: 1,2,4 "
					    "(1..{}; default: one per cpu of --cpus)",
					    SLABLAB_STORM_MAX_THREADS));
	else
		app->add_option("-t,--threads", o.threads,
				fmt::format("Threads, 1..{} (default: one per cpu of --cpus)",
					    SLABLAB_STORM_MAX_THREADS));
	app->add_option("--cpus", o.cpus, "Cpus to run on: a list like 0-1 or 0-3,6 (default: online)");
	app->add_option("-n,--ops", o.ops,
			"Allocations per thread (k/M/G = 10^3/10^6/10^9; default 100000)");
	app->add_option("-d,--duration", o.duration,
			fmt::format("Run for a time instead of --ops: 500ms, 2s, 1m (a bare number "
				    "is seconds; at most {} s)",
				    SLABLAB_STORM_MAX_DURATION_MS / 1000));
	app->add_option("-b,--batch", o.batch,
			fmt::format("Objects per batch (batch, bulk), 1..{} (default 16)",
				    SLABLAB_STORM_MAX_BATCH));
	app->add_option("-w,--working-set", o.working_set,
			fmt::format("Live objects per thread (churn), 1..{} (default 4096)",
				    SLABLAB_STORM_MAX_WORKING_SET));
	app->add_option("--ring", o.ring,
			fmt::format("Ring slots between producer and consumer (remote), a power of "
				    "two up to {} (default 256)",
				    SLABLAB_STORM_MAX_RING));
	app->add_option("--seed", o.seed, "Random seed (churn, sizes; default 1)");
	app->add_option("--max-live", o.max_live,
			"Cap on live object bytes (K/M/G suffixes; default RAM / 4)");
	app->add_flag("-q,--quiet", o.quiet, "No progress display");
	app->add_flag("--json", o.json, "JSON output (schema slablab/1)");
}

uint32_t to_u32(uint64_t v, std::string_view what)
{
	if (v > UINT32_MAX)
		throw UsageError(fmt::format("{} {} is out of range", what, v), ERANGE);
	return static_cast<uint32_t>(v);
}

/// The spec from the options (threads only when it is a single number).
StormSpec build_spec(const StormOptions& o, uint32_t target, uint32_t pattern,
		     std::vector<uint32_t>* thread_list)
{
	StormSpec s;
	s.target = target;
	s.pattern = pattern;
	s.cache = o.cache;
	if (!o.size.empty())
		s.size = to_u32(parse_size(o.size, "--size"), "--size");
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
	if (!o.ops.empty())
		s.ops = parse_count(o.ops, "--ops");
	if (!o.duration.empty()) {
		uint64_t ms = parse_duration_ms(o.duration, "--duration");
		if (ms == 0)
			throw UsageError(fmt::format("--duration '{}' is shorter than 1 ms", o.duration),
					 ERANGE);
		s.duration_ms = to_u32(ms, "--duration (ms)");
	}
	if (!o.batch.empty())
		s.batch = to_u32(parse_count(o.batch, "--batch"), "--batch");
	if (!o.working_set.empty())
		s.working_set = to_u32(parse_count(o.working_set, "--working-set"), "--working-set");
	if (!o.ring.empty())
		s.ring = to_u32(parse_count(o.ring, "--ring"), "--ring");
	if (!o.seed.empty()) {
		auto v = parse_uint(o.seed);
		if (!v)
			throw UsageError(fmt::format("--seed: '{}' is not a number", o.seed));
		s.seed = *v;
	}
	if (!o.max_live.empty())
		s.max_live_bytes = parse_size(o.max_live, "--max-live");
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

}  // namespace

void add_storm_commands(CLI::App& app, Action& action)
{
	// ---- storm ----
	static StormOptions so;
	static std::string storm_target, storm_pattern;
	CLI::App* storm = subcommand(
		app, "storm",
		"Run an allocation storm in the kernel (needs root) and show its results: ops/s, "
		"cycles per alloc/free/pair, fast-path %, memory overhead. Ctrl-C stops it");
	storm->add_option("TARGET", storm_target,
			  "slablab (a slablab cache), native (the kernel's SLUB: a kmem_cache made "
			  "like --cache, or of --size), kmalloc (slablab_kmalloc), native-kmalloc "
			  "(the kernel's kmalloc)")
		->required()
		->check(CLI::IsMember(kTargets));
	storm->add_option("PATTERN", storm_pattern,
			  "pair (alloc+free loop), batch (N allocs then N frees), remote (allocated "
			  "on one cpu, freed on another), churn (working set, random "
			  "replacement), bulk (alloc_bulk/free_bulk)")
		->required()
		->check(CLI::IsMember(kPatterns));
	add_storm_options(storm, so, false);
	storm->callback([&action] {
		action = [] {
			StormSpec spec = build_spec(so, *storm_target_from_name(storm_target),
						    *storm_pattern_from_name(storm_pattern), nullptr);
			validate_storm_spec(spec);
			Client client;
			catch_interrupts();
			ProgressOut out = ProgressOut::choose(so.json, so.quiet);
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
			if (so.json) {
				Json j = json_envelope("storm");
				j["storm"] = to_json(r);
				print_json(j);
			} else {
				fmt::print("{}", render_storm_result(r));
			}
			std::fflush(stdout);
			if (r.interrupted) {
				print_interrupted_note(so.json);
				return static_cast<int>(kExitInterrupted);
			}
			return static_cast<int>(kExitOk);
		};
	});

	// ---- storm-status: the last storm, for scripts and a second terminal ----
	static bool status_json = false;
	static uint32_t status_id = 0;
	static bool stop_it = false;
	CLI::App* sstat = subcommand(
		app, "storm-status",
		"Show the running or last storm (STORM_GET); --stop stops it (needs root)");
	auto* o_id = sstat->add_option("ID", status_id, "Storm id (default: the last storm)");
	sstat->add_flag("--stop", stop_it, "Stop the storm (STORM_STOP) and show what it did");
	sstat->add_flag("--json", status_json, "JSON output (schema slablab/1)");
	sstat->callback([&action, o_id] {
		action = [o_id] {
			std::optional<uint32_t> id;
			if (o_id->count())
				id = status_id;
			Client client;
			StormResult r = stop_it ? client.storm_stop(id) : client.storm_get(id);
			if (status_json) {
				Json j = json_envelope("storm-status");
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
		};
	});

	// ---- compare ----
	static StormOptions co;
	static std::string cmp_pattern, cmp_csv;
	static std::vector<std::string> cmp_targets, cmp_sets, cmp_figures;
	static uint32_t cmp_repeat = 7;
	CLI::App* compare = subcommand(
		app, "compare",
		"Run the same storm against several targets or settings, interleaved (A B A B …), "
		"and summarize each: min/median/avg/max/sd and ratios (needs root)");
	compare->add_option("PATTERN", cmp_pattern, "pair, batch, remote, churn or bulk")
		->required()
		->check(CLI::IsMember(kPatterns));
	compare->add_option("-T,--target", cmp_targets,
			    "A target to compare (repeat the option): slablab, native, kmalloc, "
			    "native-kmalloc (default: slablab and native)")
		->check(CLI::IsMember(kTargets));
	compare->add_option("--set", cmp_sets,
			    "Cache settings to compare, one variant each (repeat the option): "
			    "KEY=VALUE[,KEY=VALUE…] with the keys of 'slabctl set', applied to "
			    "--cache before its runs and restored afterwards, e.g. --set cpu_partial=0 "
			    "--set cpu_partial=120");
	compare->add_option("-r,--repeat", cmp_repeat,
			    fmt::format("Runs of each variant, 1..{} (default 7)", kMaxCompareRepeat));
	compare->add_option("--figure", cmp_figures,
			    "Figure(s) to summarize instead of the pattern's main one: cycles_per_pair, "
			    "cycles_per_alloc, cycles_per_free, ns_per_op, ops_per_sec, overhead_pct, …");
	compare->add_option("--csv", cmp_csv, "Write every run (one row each, every field) to FILE");
	add_storm_options(compare, co, true);
	compare->callback([&action] {
		action = [] {
			CompareSpec spec;
			spec.base = build_spec(co, SLABLAB_TARGET_CACHE,
					       *storm_pattern_from_name(cmp_pattern), &spec.threads);
			for (const auto& t : cmp_targets)
				spec.targets.push_back(*storm_target_from_name(t));
			spec.sets = cmp_sets;
			spec.repeat = cmp_repeat;
			spec.figures = cmp_figures;
			compare_variants(spec);		// usage errors before the kernel is asked
			compare_figure_keys(spec);
			std::unique_ptr<std::ofstream> csv;
			if (!cmp_csv.empty()) {
				csv = std::make_unique<std::ofstream>(cmp_csv);
				if (!*csv)
					throw Error(errno, "", "",
						    fmt::format("cannot write {}: {}", cmp_csv,
								std::strerror(errno)));
			}

			Client client;
			catch_interrupts();
			ProgressOut out = ProgressOut::choose(co.json, co.quiet);
			// Lines for finished runs need the variants; keep a shadow for them.
			CompareResult shadow;
			shadow.spec = spec;
			shadow.variants = compare_variants(spec);
			shadow.figures = compare_figure_keys(spec);
			std::size_t finished = 0;
			CompareResult res = run_compare(
				client, spec,
				[&](const CompareProgress& p) {
					const StormResult& s = *p.storm;
					if (s.finished()) {
						CompareRun run;
						run.variant = p.variant_index;
						run.repeat = p.repeat;
						run.result = s;
						run.figures = storm_figures(s);
						out.line(render_compare_run_line(shadow, run, p.run, p.total));
						finished++;
						return;
					}
					if (out.bar)
						out.draw(fmt::format("[{}/{}] {} (repeat {}/{})  {}",
								     p.run + 1, p.total, p.variant->label,
								     p.repeat, spec.repeat,
								     render_storm_bar(s, 20)));
				},
				[] { return interrupted(); });
			out.clear();
			if (csv) {
				*csv << compare_csv(res);
				csv->close();
			}
			if (co.json) {
				Json j = json_envelope("compare");
				j.update(to_json(res));
				print_json(j);
			} else {
				if (finished && out.f == stdout)
					fmt::print("\n");	// after the run lines
				fmt::print("{}", render_compare(res));
				if (csv)
					fmt::print("{} runs written to {}\n", res.runs.size(), cmp_csv);
			}
			std::fflush(stdout);
			if (!res.restore_error.empty())
				fmt::print(stderr, "slabctl: compare: {}\n", res.restore_error);
			if (res.interrupted) {
				print_interrupted_note(co.json);
				return static_cast<int>(kExitInterrupted);
			}
			return static_cast<int>(res.restore_error.empty() ? kExitOk : kExitFailed);
		};
	});
}

}  // namespace slabctl::cli
