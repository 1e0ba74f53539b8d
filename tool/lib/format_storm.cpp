// SPDX-License-Identifier: GPL-2.0 OR MIT
// Text for storms, compare and watch. Pure functions of the typed results.
#include "slabctl/format.hpp"

#include "slabctl/names.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace slabctl {
namespace {

uint64_t total_alloc(const StatArray& s) noexcept
{
	return s[SLABLAB_ALLOC_FASTPATH] + s[SLABLAB_ALLOC_SLOWPATH];
}

uint64_t total_free(const StatArray& s) noexcept
{
	return s[SLABLAB_FREE_FASTPATH] + s[SLABLAB_FREE_SLOWPATH];
}

std::string opt_fixed(std::optional<double> v, int decimals, std::string_view suffix = "")
{
	if (!v)
		return "-";
	return fmt::format("{:.{}f}{}", *v, decimals, suffix);
}

std::string yes_no(std::optional<bool> b)
{
	return b ? (*b ? "1" : "0") : "?";
}

void row(std::string& out, std::string_view key, const std::string& value)
{
	fmt::format_to(std::back_inserter(out), "  {:<20} {}\n", key, value);
}

std::string csv_field(const std::string& v)
{
	if (v.find_first_of(",\"\n") == std::string::npos)
		return v;
	std::string q = "\"";
	for (char c : v) {
		if (c == '"')
			q += '"';
		q += c;
	}
	return q + '"';
}

template <typename T>
std::string opt_csv(const std::optional<T>& v)
{
	return v ? fmt::format("{}", *v) : std::string();
}

std::string opt_csv_double(const std::optional<double>& v)
{
	return v ? fmt::format("{:.6g}", *v) : std::string();
}

}  // namespace

std::string format_si(double value, int decimals)
{
	if (std::isnan(value))
		return "-";
	const double a = std::fabs(value);
	if (a < 1000.0)
		return fmt::format("{:.0f}", value);
	static constexpr struct {
		double div;
		char suffix;
	} kUnits[] = {{1e12, 'T'}, {1e9, 'G'}, {1e6, 'M'}, {1e3, 'k'}};
	for (const auto& u : kUnits)
		if (a >= u.div * 0.9995)
			return fmt::format("{:.{}f}{}", value / u.div, decimals, u.suffix);
	return fmt::format("{:.0f}", value);
}

std::string format_figure(std::optional<double> value, const FigureInfo& fi)
{
	if (!value)
		return "-";
	if (fi.higher_is_better && fi.decimals == 0)
		return format_si(*value, 2);
	return fmt::format("{:.{}f}", *value, fi.decimals);
}

std::string format_ns(uint64_t ns)
{
	if (ns < 1000)
		return fmt::format("{} ns", ns);
	if (ns < 1000000)
		return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
	if (ns < 1000000000)
		return fmt::format("{:.1f} ms", static_cast<double>(ns) / 1e6);
	return fmt::format("{:.2f} s", static_cast<double>(ns) / 1e9);
}

StormSettings storm_settings(const StormResult& r)
{
	StormSettings s;
	if (r.features) {
		s.init_on_alloc = (*r.features & SLABLAB_FEAT_INIT_ON_ALLOC) != 0;
		s.init_on_free = (*r.features & SLABLAB_FEAT_INIT_ON_FREE) != 0;
	}
	// CACHE_FLAGS are the named cache's (the model's, for native); slablab's kmalloc
	// classes take hardened/random from the kernel like SLUB does, as native caches do.
	if (r.spec.target == SLABLAB_TARGET_SLABLAB) {
		if (r.cache_flags) {
			s.hardened = (*r.cache_flags & SLABLAB_CACHE_F_HARDENED) != 0;
			s.random = (*r.cache_flags & SLABLAB_CACHE_F_RANDOM) != 0;
		}
	} else if (r.features) {
		s.hardened = (*r.features & SLABLAB_FEAT_FREELIST_HARDENED) != 0;
		s.random = (*r.features & SLABLAB_FEAT_FREELIST_RANDOM) != 0;
	}
	s.debug = r.cache_flags && (*r.cache_flags & SLABLAB_CACHE_F_DEBUG);
	return s;
}

std::string render_storm_settings(const StormSettings& s)
{
	return fmt::format("init_on_alloc={} init_on_free={} hardened={} random={}{}",
			   yes_no(s.init_on_alloc), yes_no(s.init_on_free), yes_no(s.hardened),
			   yes_no(s.random), s.debug ? " debug=1" : "");
}

std::string storm_title(const StormSpec& s)
{
	std::string t = fmt::format("{} {}", target_name(s.target),
				    storm_pattern_name(s.pattern));
	if (s.target == SLABLAB_TARGET_SLABLAB && !s.cache.empty())
		t += " on " + s.cache;
	else if (s.target == SLABLAB_TARGET_NATIVE && !s.cache.empty())
		t += " like " + s.cache;
	else if (!s.sizes.empty())
		t += " of " + format_storm_sizes(s.sizes);
	else if (s.size)
		t += fmt::format(" of {}", *s.size);
	return t;
}

std::optional<double> storm_fraction(const StormResult& r)
{
	if (r.finished() && !r.interrupted && r.state == SLABLAB_STORM_DONE)
		return 1.0;
	if (r.ops_planned)
		return std::min(1.0, static_cast<double>(r.ops_done) /
					     static_cast<double>(r.ops_planned));
	if (r.spec.duration_ms && *r.spec.duration_ms)
		return std::min(1.0, static_cast<double>(r.elapsed_ns) /
					     (static_cast<double>(*r.spec.duration_ms) * 1e6));
	return std::nullopt;
}

std::string render_storm_bar(const StormResult& r, int width)
{
	auto frac = storm_fraction(r);
	std::string bar;
	if (frac && width > 0) {
		int filled = static_cast<int>(*frac * width + 1e-9);
		bar = fmt::format("[{}{}] {:3.0f}%", std::string(static_cast<std::size_t>(filled), '#'),
				  std::string(static_cast<std::size_t>(width - filled), '.'),
				  *frac * 100.0);
	}
	std::string ops = r.ops_planned ? fmt::format("{}/{} ops", format_si(static_cast<double>(r.ops_done)),
						      format_si(static_cast<double>(r.ops_planned)))
					: fmt::format("{} ops", format_si(static_cast<double>(r.ops_done)));
	return fmt::format("{}{}{}  {}", bar, bar.empty() ? "" : "  ", ops, format_ns(r.elapsed_ns));
}

std::string render_storm_line(const StormResult& r)
{
	auto frac = storm_fraction(r);
	std::string pct = frac ? fmt::format("{:.0f}% ", *frac * 100.0) : "";
	std::string ops = r.ops_planned ? fmt::format("{}/{} ops", r.ops_done, r.ops_planned)
					: fmt::format("{} ops", r.ops_done);
	return fmt::format("storm {} {}: {}{} {}", r.id, storm_state_name(r.state), pct, ops,
			   format_ns(r.elapsed_ns));
}

std::string render_storm_status(const StormResult& r)
{
	if (r.state == SLABLAB_STORM_NONE)
		return "no storm has run";
	std::string s = fmt::format("storm {} {}: {}", r.id, storm_state_name(r.state),
				    storm_title(r.spec));
	if (r.running())
		s += "  " + render_storm_bar(r, 20);
	else
		s += fmt::format(", {} ops in {}", r.ops_done, format_ns(r.elapsed_ns));
	return s;
}

std::string render_storm_result(const StormResult& r)
{
	const StormFigures f = storm_figures(r);
	std::string out = fmt::format("storm {} ({}): {}{}\n", r.id, storm_title(r.spec),
				      storm_state_name(r.state),
				      r.interrupted ? " (interrupted: stopped in the kernel)" : "");
	const uint32_t nthreads = r.spec.threads.value_or(static_cast<uint32_t>(r.threads.size()));
	row(out, "threads",
	    fmt::format("{}{}", nthreads, r.spec.cpus.empty() ? "" : " on cpus " + r.spec.cpus));
	std::string ops = fmt::format("{} in {}", r.ops_done, format_ns(r.elapsed_ns));
	if (r.ops_planned)
		ops += fmt::format(" ({} planned)", r.ops_planned);
	else if (r.spec.duration_ms)
		ops += fmt::format(" ({} ms planned)", *r.spec.duration_ms);
	row(out, "ops", ops);
	std::string rate = f.ops_per_sec ? format_si(*f.ops_per_sec, 2) : "-";
	if (f.thread_ops_per_sec_min)
		rate += fmt::format("; per thread min {}, max {}",
				    format_si(*f.thread_ops_per_sec_min, 2),
				    format_si(*f.thread_ops_per_sec_max, 2));
	row(out, "ops/s", rate);
	row(out, "allocs / frees", fmt::format("{} / {}", r.allocs, r.frees));
	row(out, "cycles per alloc", opt_fixed(f.cycles_per_alloc, 1));
	row(out, "cycles per free", opt_fixed(f.cycles_per_free, 1));
	row(out, "cycles per pair", opt_fixed(f.cycles_per_pair, 1));
	row(out, "ns per op",
	    opt_fixed(f.ns_per_op, 2) +
		    (r.cycles_per_sec ? fmt::format("  (cycles at {:.3f} GHz)",
						    static_cast<double>(r.cycles_per_sec) / 1e9)
				      : std::string()));
	row(out, "loop overhead",
	    f.loop_cycles ? fmt::format("{:.2f} cycles per iteration (not subtracted)",
					*f.loop_cycles)
			  : std::string("-"));
	if (r.has_stats) {
		const auto& s = r.stats;
		row(out, "fast path",
		    fmt::format("alloc {}, free {}", opt_fixed(f.alloc_fastpath_pct, 1, "%"),
				opt_fixed(f.free_fastpath_pct, 1, "%")));
		std::string causes;
		for (std::size_t item : slow_path_causes())
			if (s[item])
				causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ",
						      stat_name(item), s[item]);
		row(out, "slow path", causes.empty() ? "none" : causes);
		std::string cp;
		for (std::size_t item : cpu_partial_stats())
			cp += fmt::format("{}{} {}", cp.empty() ? "" : ", ", stat_name(item), s[item]);
		row(out, "cpu partial", cp);
		row(out, "counted allocs/frees",
		    fmt::format("{} / {}", total_alloc(s), total_free(s)));
	} else {
		row(out, "fast path", "- (no slablab counters for this target)");
	}
	std::string mem = fmt::format("peak {} pages", r.peak_pages);
	if (f.peak_bytes)
		mem += fmt::format(" ({})", format_size(*f.peak_bytes));
	mem += fmt::format(", live {}, metadata {}", format_size(r.peak_live_bytes),
			   format_size(r.meta_bytes));
	row(out, "memory", mem);
	row(out, "overhead", opt_fixed(f.overhead_pct, 1, "%"));
	if (f.fragmentation_pct)
		row(out, "fragmentation",
		    fmt::format("{} at steady state ({} samples), {} after shrink",
				opt_fixed(f.fragmentation_pct, 1, "%"), r.steady_samples,
				opt_fixed(f.shrunk_fragmentation_pct, 1, "%")));
	if (r.rcu_waiting_peak)
		row(out, "rcu waiting",
		    fmt::format("peak {}, mean {} objects ({} samples), {} at the end; "
				"typesafe slabs' pages peak {}",
				*r.rcu_waiting_peak, r.rcu_waiting_mean.value_or(0), r.rcu_samples,
				r.rcu_waiting_end.value_or(0), r.rcu_pages_peak.value_or(0)));
	row(out, "failures", fmt::format("{}", r.failures));
	if (r.remote_frees)
		row(out, "remote frees",
		    fmt::format("{} (objects freed by another worker than allocated them)",
				r.remote_frees));
	row(out, "settings", render_storm_settings(storm_settings(r)));
	if (!r.native_name.empty())
		row(out, "native cache", r.native_name);
	if (!r.threads.empty() && r.threads.size() <= 16) {
		out += "  per thread:   cpu        ops        ops/s  cycles/op\n";
		for (const auto& t : r.threads) {
			double rate_t = t.ns ? static_cast<double>(t.ops) * 1e9 / static_cast<double>(t.ns)
					     : NAN;
			std::string cpo = t.ops ? fmt::format("{:.1f}", static_cast<double>(t.cycles) /
									static_cast<double>(t.ops))
						: "-";
			out += fmt::format("  {:>16} {:>10} {:>12} {:>10}\n", t.cpu, t.ops,
					   format_si(rate_t, 2), cpo);
		}
	}
	return out;
}

std::string render_compare_run_line(const CompareResult& c, const CompareRun& run,
				    std::size_t index, std::size_t total)
{
	const auto& v = c.variants.at(run.variant);
	std::string figs;
	for (const auto& key : c.figures) {
		const FigureInfo* fi = figure_info(key);
		if (!fi)
			continue;
		figs += fmt::format("{}{} {}", figs.empty() ? "" : ", ",
				    format_figure(figure_value(run.figures, key), *fi), fi->title);
	}
	const int w = static_cast<int>(fmt::format("{}", total).size());
	std::string which = run.warmup ? fmt::format("warm-up {}/{}, discarded", run.repeat,
						     c.spec.warmup)
				       : c.spec.until ? fmt::format("repeat {}", run.repeat)
						      : fmt::format("repeat {}/{}", run.repeat,
								    c.spec.repeat);
	return fmt::format("[{:>{}}/{}] {} ({}): {}{}", index + 1, w, total, v.label, which,
			   figs, run.result.interrupted ? " (interrupted)" : "");
}

std::string render_until_progress(const CompareResult& round, uint32_t repeat)
{
	double widest = 0;
	bool all = true;
	for (const auto& ci : compare_intervals(round)) {
		all = all && ci.has_value();
		if (ci)
			widest = std::max(widest, ci->half_width());
	}
	return fmt::format("until ±{:g}%: {} repeats of at most {}, widest 95% CI {}{}",
			   round.spec.until.value_or(0) * 100, repeat, round.spec.max_repeats,
			   all ? fmt::format("±{:.1f}%", widest * 100)
			       : std::string("not yet computable"),
			   round.until_met ? ", reached" : "");
}

namespace {

/// A margin in percent: 0.05 -> "5", 0.0235 -> "2.4" (the Python side's words).
std::string margin_pct(double m)
{
	const double v = m * 100;
	return std::fabs(v - std::round(v)) < 0.05 ? fmt::format("{:.0f}", v)
						    : fmt::format("{:.1f}", v);
}

/// "no difference (within ±5%)", "A/A noise floor ±2.1%", "12.0% lower (better, p=0.003)",
/// "inconclusive: sd 3.1%/pair, MDE ±4.0% at n=7 (...); 25 repeats to tell ±5% (~3 min of runs)".
std::string verdict_text(const FigureSummary& fs, const FigureInfo& info, bool aa,
			 double tolerance, double seconds_per_repeat)
{
	if (!fs.ci)
		return fmt::format("too few pairs (< {})", kMinPairsForInterval);
	if (aa)
		return fmt::format("A/A noise floor ±{:.1f}%",
				   std::max(fs.ci->hi - 1.0, 1.0 - fs.ci->lo) * 100);
	switch (fs.verdict) {
	case Verdict::higher:
	case Verdict::lower: {
		bool higher = fs.verdict == Verdict::higher;
		return fmt::format("{:.1f}% {} ({}, p={:.2g})", std::abs(fs.ci->ratio - 1.0) * 100,
				   higher ? "higher" : "lower",
				   higher == info.higher_is_better ? "better" : "worse", fs.ci->p);
	}
	case Verdict::same:
		return fmt::format("no difference (within ±{}%)", margin_pct(tolerance));
	default:
		return "inconclusive: " + decision_needs(*fs.ci, tolerance, seconds_per_repeat);
	}
}

}  // namespace

std::string render_compare(const CompareResult& c)
{
	std::string out;
	const StormSpec& b = c.spec.base;
	std::string what = fmt::format("pattern {}", storm_pattern_name(b.pattern));
	if (!b.cache.empty())
		what += ", cache " + b.cache;
	if (b.size)
		what += fmt::format(", size {}", *b.size);
	if (!b.sizes.empty())
		what += ", sizes " + format_storm_sizes(b.sizes);
	if (c.spec.threads.empty() && b.threads)
		what += fmt::format(", {} threads", *b.threads);
	if (!b.cpus.empty())
		what += ", cpus " + b.cpus;
	if (b.ops)
		what += fmt::format(", {} ops per thread", *b.ops);
	if (b.duration_ms)
		what += fmt::format(", {} ms per storm", *b.duration_ms);
	std::size_t counted = 0;
	for (const auto& run : c.runs)
		counted += run.counted();
	std::size_t warm = 0;
	for (const auto& run : c.runs)
		warm += run.warmup;
	fmt::format_to(std::back_inserter(out),
		       "compare{}: {}; {} variants x {} repeats, interleaved; {} of {} runs counted{}\n",
		       c.spec.aa ? " (A/A: one variant twice)" : "", what, c.variants.size(),
		       c.repeats_done, counted, c.variants.size() * c.repeats_done,
		       c.interrupted ? " (interrupted)" : "");
	fmt::format_to(std::back_inserter(out), "warm-up: {} round(s) first, {} run(s) discarded\n",
		       c.spec.warmup, warm);
	if (c.spec.until)
		fmt::format_to(std::back_inserter(out), "until: ±{:g}% {} after {} repeats (at most {})\n",
			       *c.spec.until * 100,
			       c.until_met ? "reached" : "NOT reached", c.repeats_done,
			       c.spec.max_repeats);

	std::size_t label_w = 8;
	for (const auto& v : c.variants)
		label_w = std::max(label_w, v.label.size());

	// settings each variant ran with (its first finished run)
	out += "settings:\n";
	for (std::size_t vi = 0; vi < c.variants.size(); vi++) {
		std::string s = "(no run finished)";
		for (const auto& run : c.runs)
			if (run.variant == vi && run.result.has_results) {
				s = render_storm_settings(storm_settings(run.result));
				break;
			}
		fmt::format_to(std::back_inserter(out), "  {:<{}}  {}\n", c.variants[vi].label,
			       label_w, s);
	}

	for (std::size_t fi = 0; fi < c.figures.size() && fi < c.summaries.size(); fi++) {
		const FigureInfo* info = figure_info(c.figures[fi]);
		if (!info)
			continue;
		const auto& sums = c.summaries[fi];
		// seed 000's shape: a title line naming the figure, then one row per variant
		std::string title = fmt::format("{} ({} is better)", info->title,
						info->higher_is_better ? "higher" : "lower");
		std::string ptitle = fmt::format("paired ratio to {}, per repeat", c.variants[0].label);
		std::size_t w = std::max({label_w + 2, title.size(), sums.size() > 1 ? ptitle.size() : 0});
		auto num = [&](const Summary& s, double v) {
			return s.n ? format_figure(v, *info) : std::string("-");
		};
		fmt::format_to(std::back_inserter(out),
			       "\n{:<{}} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}\n", title, w,
			       "runs", "min", "median", "avg", "max", "sd", "ratio");
		for (std::size_t vi = 0; vi < sums.size(); vi++) {
			const Summary& s = sums[vi].values;
			fmt::format_to(std::back_inserter(out),
				       "{:<{}} {:>4} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}\n",
				       "  " + c.variants[vi].label, w, s.n, num(s, s.min),
				       num(s, s.median), num(s, s.mean), num(s, s.max), num(s, s.sd),
				       sums[vi].ratio ? fmt::format("{:.3f}", *sums[vi].ratio) : "-");
		}
		if (sums.size() > 1) {
			fmt::format_to(std::back_inserter(out),
				       "{:<{}} {:>4} {:>9} {:>9} {:>9}  {:<28} {}\n", ptitle, w, "n",
				       "median", "min", "max", "ratio [95% CI]", "verdict");
			for (std::size_t vi = 1; vi < sums.size(); vi++) {
				const Summary& p = sums[vi].paired;
				auto r3 = [&](double v) {
					return p.n ? fmt::format("{:.3f}", v) : std::string("-");
				};
				fmt::format_to(std::back_inserter(out),
					       "{:<{}} {:>4} {:>9} {:>9} {:>9}  {:<28} {}\n",
					       "  " + c.variants[vi].label, w, p.n, r3(p.median),
					       r3(p.min), r3(p.max), format_interval(sums[vi].ci),
					       verdict_text(sums[vi], *info, c.spec.aa,
							    compare_tolerance(c.spec),
							    compare_seconds_per_repeat(c)));
			}
		}
		std::string outl;
		for (std::size_t vi = 0; vi < sums.size(); vi++)
			for (uint32_t rep : sums[vi].outliers)
				outl += fmt::format("{}{} repeat {}", outl.empty() ? "" : ", ",
						    c.variants[vi].label, rep);
		fmt::format_to(std::back_inserter(out), "outliers (1.5 IQR, still counted): {}\n",
			       outl.empty() ? "none" : outl);
	}
	out += "\nratio: a variant's median / the first variant's median; paired ratio: the same "
	       "per repeat (runs made back to back); 95% CI: Student-t on the paired repeats' log "
	       "ratios (docs/benchmarks.md).\n";
	{
		const std::string m = margin_pct(compare_tolerance(c.spec));
		fmt::format_to(std::back_inserter(out),
			       "no difference: only when the CI lies inside ±{}% ({}); higher/lower: "
			       "the CI excludes 1; inconclusive: it holds 1 and reaches past ±{}%, with "
			       "the per-pair sd, the minimum detectable effect (MDE, 80% power) and the "
			       "repeats whose MDE is ±{}% (docs/benchmarks.md)\n",
			       m,
			       c.spec.noise_floor > 0 ? "--noise-floor, the A/A floor"
						      : "the default; --noise-floor sets it",
			       m, m);
	}
	if (!c.restore_error.empty())
		out += "warning: " + c.restore_error + "\n";
	return out;
}

std::vector<std::string> run_csv_columns()
{
	// The tidy keys first (one row per run: experiment, variant, x, repeat), then the
	// run as the kernel reported it. slablab.sweep writes the same columns (and adds
	// its own after them): docs/sweeps.md.
	std::vector<std::string> cols = {
		"experiment", "variant", "x", "repeat", "run", "set", "target", "pattern",
		"cache", "size", "sizes", "threads", "cpus", "ops", "duration_ms", "batch",
		"working_set", "ring", "seed", "max_live_bytes", "id", "state", "interrupted",
		"ops_planned", "ops_done", "elapsed_ns", "allocs", "frees", "alloc_cycles",
		"free_cycles", "pair_cycles", "loop_cycles_x1000", "failures", "remote_frees",
		"peak_pages",
		"peak_live_bytes", "meta_bytes", "steady_pages", "steady_live_bytes",
		"steady_samples", "shrunk_pages", "shrunk_live_bytes", "thin", "rate", "producers",
		// rcu_waiting_peak and _mean are figures (below)
		"rcu_waiting_end", "rcu_pages_peak", "rcu_samples", "cycles_per_sec", "features",
		"cache_flags",
		"native_name", "page_size", "init_on_alloc", "init_on_free", "hardened", "random"};
	// what reruns the row (docs/benchmarks.md): where it ran, what ran, whether it counted
	for (const char* k : kRunContextColumns)
		cols.emplace_back(k);
	for (const auto& fi : figure_table())
		cols.emplace_back(fi.key);
	cols.emplace_back("peak_bytes");
	for (std::size_t i = 0; i < kNrStats; i++)
		cols.push_back("stat_" + std::string(stat_name(i)));
	cols.emplace_back("thread_list");
	return cols;
}

namespace {

/// The run's value of any summarized figure is an outlier among its variant's.
bool is_outlier(const CompareResult& c, const CompareRun& run)
{
	if (run.warmup)
		return false;
	for (const auto& row : c.summaries)
		if (run.variant < row.size()) {
			const auto& o = row[run.variant].outliers;
			if (std::find(o.begin(), o.end(), run.repeat) != o.end())
				return true;
		}
	return false;
}

}  // namespace

std::string compare_csv(const CompareResult& c)
{
	const std::vector<std::string> cols = run_csv_columns();
	// x is the swept value: the thread count when --threads gave several
	const bool threads_swept = c.spec.threads.size() > 1;

	std::string out;
	for (std::size_t i = 0; i < cols.size(); i++)
		out += (i ? "," : "") + cols[i];
	out += '\n';
	for (std::size_t ri = 0; ri < c.runs.size(); ri++) {
		const CompareRun& run = c.runs[ri];
		const StormResult& r = run.result;
		const CompareVariant& v = c.variants.at(run.variant);
		// the spec as the kernel applied it (defaults filled in); what was asked for
		// when the storm never started
		const StormSpec& s = r.id ? r.spec : v.spec;
		const StormSettings st = storm_settings(r);
		auto b = [](std::optional<bool> x) { return x ? std::string(*x ? "1" : "0") : ""; };
		std::vector<std::string> f = {
			"compare", v.label, threads_swept ? opt_csv(s.threads) : std::string(),
			fmt::format("{}", run.repeat), fmt::format("{}", ri + 1), v.set_text,
			target_name(s.target), storm_pattern_name(s.pattern), s.cache,
			opt_csv(s.size), format_storm_sizes(s.sizes), opt_csv(s.threads), s.cpus,
			opt_csv(s.ops), opt_csv(s.duration_ms), opt_csv(s.batch),
			opt_csv(s.working_set), opt_csv(s.ring), opt_csv(s.seed),
			opt_csv(s.max_live_bytes), fmt::format("{}", r.id),
			storm_state_name(r.state), r.interrupted ? "1" : "0",
			fmt::format("{}", r.ops_planned), fmt::format("{}", r.ops_done),
			fmt::format("{}", r.elapsed_ns), fmt::format("{}", r.allocs),
			fmt::format("{}", r.frees), fmt::format("{}", r.alloc_cycles),
			fmt::format("{}", r.free_cycles), fmt::format("{}", r.pair_cycles),
			fmt::format("{}", r.loop_cycles_x1000), fmt::format("{}", r.failures),
			fmt::format("{}", r.remote_frees),
			fmt::format("{}", r.peak_pages), fmt::format("{}", r.peak_live_bytes),
			fmt::format("{}", r.meta_bytes), fmt::format("{}", r.steady_pages),
			fmt::format("{}", r.steady_live_bytes), fmt::format("{}", r.steady_samples),
			opt_csv(r.shrunk_pages), opt_csv(r.shrunk_live_bytes), opt_csv(s.thin),
			opt_csv(s.rate), opt_csv(s.producers), opt_csv(r.rcu_waiting_end), opt_csv(r.rcu_pages_peak),
			fmt::format("{}", r.rcu_samples), fmt::format("{}", r.cycles_per_sec),
			opt_csv(r.features), opt_csv(r.cache_flags), r.native_name,
			fmt::format("{}", r.page_size), b(st.init_on_alloc), b(st.init_on_free),
			b(st.hardened), b(st.random),
			// kRunContextColumns
			c.context.kernel_release, opt_csv(c.context.cpus),
			opt_csv(c.context.memory_mb), c.context.icount,
			run.design.empty() ? c.context.design : run.design, run.tunables,
			c.context.commit, run.warmup ? "1" : "0", is_outlier(c, run) ? "1" : "0"};
		for (const auto& fi : figure_table())
			f.push_back(opt_csv_double(figure_value(run.figures, fi.key)));
		f.push_back(opt_csv(run.figures.peak_bytes));
		for (std::size_t i = 0; i < kNrStats; i++)
			f.push_back(r.has_stats ? fmt::format("{}", r.stats[i]) : "");
		std::string threads;
		for (const auto& t : r.threads)
			threads += fmt::format("{}{}:{}:{}:{}", threads.empty() ? "" : ";", t.cpu, t.ops,
					       t.cycles, t.ns);
		f.push_back(threads);
		for (std::size_t i = 0; i < f.size(); i++)
			out += (i ? "," : "") + csv_field(f[i]);
		out += '\n';
	}
	return out;
}

std::string watch_header(int name_width)
{
	return table_header(true, name_width) + "   Alloc/s    Free/s";
}

std::string watch_line(const CacheInfo& c, const CacheInfo* prev, double seconds, int name_width)
{
	TableOptions o;
	o.activity = true;
	std::string line = table_line(c, 0, o, name_width);
	std::string ar = "-", fr = "-";
	if (prev && seconds > 0) {
		auto rate = [&](uint64_t now, uint64_t before) {
			// counters may have been reset in between: no negative rates
			return now >= before ? format_si(static_cast<double>(now - before) / seconds)
					     : std::string("-");
		};
		ar = rate(total_alloc(c.stats), total_alloc(prev->stats));
		fr = rate(total_free(c.stats), total_free(prev->stats));
	}
	return fmt::format("{} {:>9} {:>9}", line, ar, fr);
}

}  // namespace slabctl
