// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/compare.hpp"

#include "slabctl/names.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/version.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <utility>

namespace slabctl {
namespace {

bool uses_cache_settings(const StormSpec& s)
{
	return s.target == SLABLAB_TARGET_SLABLAB ||
	       (s.target == SLABLAB_TARGET_NATIVE && !s.cache.empty());
}

/// The spec a target runs: only the attributes that target takes.
StormSpec spec_for_target(const StormSpec& base, uint32_t target)
{
	StormSpec s = base;
	s.target = target;
	switch (target) {
	case SLABLAB_TARGET_SLABLAB:
		s.size.reset();
		s.sizes.clear();
		break;
	case SLABLAB_TARGET_NATIVE:
		// a model cache; else SIZE, or SIZES: the kernel's kmalloc classes, made anew
		if (!s.cache.empty()) {
			s.size.reset();
			s.sizes.clear();
		}
		break;
	default:	// kmalloc targets
		s.cache.clear();
		break;
	}
	return s;
}

/// Which tunables any variant touches (every tunable of SLABLAB_CACHE_TUNABLES, the
/// design among them: a design change empties the cache, which a storm's end leaves
/// with no object allocated, so it happens between two runs like any other setting).
struct Touched {
#define SLABCTL_TOUCHED(attr, name, ...) bool name = false;
	SLABLAB_CACHE_TUNABLES(SLABCTL_TOUCHED)
#undef SLABCTL_TOUCHED
	bool any() const
	{
		bool any = false;
#define SLABCTL_ANY(attr, name, ...) any = any || name;
		SLABLAB_CACHE_TUNABLES(SLABCTL_ANY)
#undef SLABCTL_ANY
		return any;
	}
};

Touched touched(const std::vector<CompareVariant>& variants)
{
	Touched t;
	for (const auto& v : variants) {
		if (!v.set)
			continue;
#define SLABCTL_TOUCH(attr, name, ...) t.name = t.name || v.set->name.has_value();
		SLABLAB_CACHE_TUNABLES(SLABCTL_TOUCH)
#undef SLABCTL_TOUCH
		t.flags = t.flags || v.set->relative_flags();
	}
	return t;
}

/// The cache's original values of the touched tunables, as an absolute Tunables.
Tunables original_settings(const CacheInfo& c, const Touched& t)
{
	Tunables o;
#define SLABCTL_ORIGINAL(attr, name, ...) \
	if (t.name)                       \
		o.name = c.name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_ORIGINAL)
#undef SLABCTL_ORIGINAL
	return o;
}

/// A variant's settings over the original ones: absolute values for every touched key.
Tunables absolute_settings(const Tunables& original, const Tunables& set)
{
	Tunables a = original;
#define SLABCTL_ABSOLUTE(attr, name, ...) \
	if (set.name)                     \
		a.name = set.name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_ABSOLUTE)
#undef SLABCTL_ABSOLUTE
	if (a.flags) {
		uint32_t base = set.flags ? *set.flags : *a.flags;
		a.flags = (base | set.flags_set) & ~set.flags_clear;
	}
	return a;
}

/// The settings a slablab cache ran with, as the CSV's tunables column has them.
std::string format_tunables(const CacheInfo& c)
{
	std::string out;
#define SLABCTL_TUNABLE(attr, name, ...) \
	out += fmt::format("{}{}={}", out.empty() ? "" : " ", #name, c.name);
	SLABLAB_CACHE_TUNABLES(SLABCTL_TUNABLE)
#undef SLABCTL_TUNABLE
	return out;
}

/// What moves the cache from settings @a to @b: the keys whose values differ (a design's
/// own tunables are not sent when only the design changes, nor the design when only they do).
Tunables changed_settings(const Tunables& a, const Tunables& b)
{
	Tunables d;
#define SLABCTL_CHANGED(attr, name, ...) \
	if (b.name && a.name != b.name)   \
		d.name = b.name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_CHANGED)
#undef SLABCTL_CHANGED
	return d;
}

bool same_settings(const Tunables& a, const Tunables& b)
{
	bool same = true;
#define SLABCTL_SAME(attr, name, ...) same = same && a.name == b.name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_SAME)
#undef SLABCTL_SAME
	return same;
}

}  // namespace

std::vector<std::string> compare_figure_keys(const CompareSpec& spec)
{
	std::vector<std::string> keys;
	if (spec.figures.empty()) {
		for (auto k : main_figures(spec.base.pattern))
			keys.emplace_back(k);
		return keys;
	}
	for (const auto& k : spec.figures) {
		if (!figure_info(k)) {
			std::string known;
			for (const auto& fi : figure_table())
				known += fmt::format("{}{}", known.empty() ? "" : ", ", fi.key);
			throw UsageError(fmt::format("unknown figure '{}' (known: {})", k, known));
		}
		if (std::find(keys.begin(), keys.end(), k) == keys.end())
			keys.push_back(k);
	}
	return keys;
}

std::vector<CompareVariant> compare_variants(const CompareSpec& spec)
{
	if (spec.repeat < 1 || spec.repeat > kMaxCompareRepeat)
		throw UsageError(fmt::format("repeat {} is out of range (1..{})", spec.repeat,
					     kMaxCompareRepeat),
				 ERANGE);
	if (spec.max_repeats < spec.repeat || spec.max_repeats > kMaxCompareRepeat)
		throw UsageError(fmt::format("--max-repeats {} is out of range ({}..{}: at least "
					     "--repeat)",
					     spec.max_repeats, spec.repeat, kMaxCompareRepeat),
				 ERANGE);
	if (spec.warmup > kMaxCompareWarmup)
		throw UsageError(fmt::format("--warmup {} is out of range (0..{})", spec.warmup,
					     kMaxCompareWarmup),
				 ERANGE);
	if (spec.until && !(*spec.until > 0 && *spec.until < 1))
		throw UsageError("--until must lie between 0 and 100%", ERANGE);
	if (spec.noise_floor < 0 || spec.noise_floor >= 1)
		throw UsageError("--noise-floor must lie between 0 and 100%", ERANGE);
	std::vector<std::pair<std::string, Tunables>> sets;
	for (const auto& text : spec.sets) {
		try {
			sets.emplace_back(text, parse_set_variant(text));
		} catch (const UsageError& e) {
			throw UsageError(fmt::format("--set {}: {}", text, e.what()), e.err);
		}
	}
	// Default targets: slablab and the kernel's SLUB; slablab alone when the sets vary a
	// tunable of slablab's own, but beside SLUB again when they vary the design; rcu:
	// slablab alone.
	std::vector<uint32_t> targets = spec.targets;
	if (targets.empty()) {
		const bool designs = std::any_of(sets.begin(), sets.end(), [](const auto& s) {
			return s.second.design.has_value();
		});
		// rcu has no native target (the storm could not wait for kfree_rcu())
		if ((sets.empty() || designs) && spec.base.pattern != SLABLAB_PATTERN_RCU)
			targets = {SLABLAB_TARGET_SLABLAB, SLABLAB_TARGET_NATIVE};
		else
			targets = {SLABLAB_TARGET_SLABLAB};
	}
	for (std::size_t i = 0; i < targets.size(); i++)
		for (std::size_t j = 0; j < i; j++)
			if (targets[i] == targets[j])
				throw UsageError(fmt::format("target {} is given twice",
							     target_name(targets[i])));
	if (!sets.empty()) {
		if (spec.base.cache.empty())
			throw UsageError("--set changes a slablab cache: give it with --cache NAME");
		if (std::find(targets.begin(), targets.end(), SLABLAB_TARGET_SLABLAB) == targets.end())
			throw UsageError("--set applies to target slablab (the cache), and no slablab "
					 "target is compared");
	}
	for (uint32_t t : spec.threads)
		if (t < 1 || t > SLABLAB_STORM_MAX_THREADS)
			throw UsageError(fmt::format("threads {} is out of range (1..{})", t,
						     SLABLAB_STORM_MAX_THREADS),
					 ERANGE);
	std::vector<std::optional<uint32_t>> thread_axis;
	if (spec.threads.empty())
		thread_axis.push_back(spec.base.threads);
	else
		thread_axis.assign(spec.threads.begin(), spec.threads.end());

	std::vector<CompareVariant> out;
	for (uint32_t target : targets) {
		StormSpec tspec = spec_for_target(spec.base, target);
		std::vector<std::optional<std::pair<std::string, Tunables>>> set_axis;
		if (target == SLABLAB_TARGET_SLABLAB && !sets.empty())
			set_axis.assign(sets.begin(), sets.end());
		else
			set_axis.push_back(std::nullopt);
		for (const auto& set : set_axis) {
			for (const auto& threads : thread_axis) {
				CompareVariant v;
				v.spec = tspec;
				v.spec.threads = threads;
				v.label = target_name(target);
				if (set) {
					v.set_text = set->first;
					v.set = set->second;
					v.label += " " + set->first;
				}
				if (spec.threads.size() > 1)
					v.label += fmt::format(" threads={}", *threads);
				try {
					validate_storm_spec(v.spec);
				} catch (const UsageError& e) {
					throw UsageError(fmt::format("{}: {}", v.label, e.what()), e.err);
				}
				out.push_back(std::move(v));
			}
		}
	}
	if (spec.aa) {
		// A/A: the first variant against itself, interleaved like any other pair
		out.resize(1);
		CompareVariant again = out[0];
		again.label += " (A')";
		out.push_back(std::move(again));
	}
	if (out.size() > kMaxCompareVariants)
		throw UsageError(fmt::format("{} variants, at most {}", out.size(),
					     kMaxCompareVariants),
				 ERANGE);
	return out;
}

double compare_tolerance(const CompareSpec& spec) noexcept
{
	return spec.noise_floor > 0 ? spec.noise_floor : kDefaultTolerance;
}

double compare_seconds_per_repeat(const CompareResult& result) noexcept
{
	double ns = 0;
	for (const auto& run : result.runs)
		if (run.counted())
			ns += static_cast<double>(run.result.elapsed_ns);
	return result.repeats_done ? ns / 1e9 / result.repeats_done : 0;
}

void summarize_compare(CompareResult& result)
{
	const std::size_t nv = result.variants.size();
	result.summaries.assign(result.figures.size(), std::vector<FigureSummary>(nv));
	uint32_t max_repeat = 0;
	result.repeats_done = 0;
	for (const auto& run : result.runs) {
		if (run.warmup)
			continue;
		max_repeat = std::max(max_repeat, run.repeat);
		if (!run.result.interrupted)
			result.repeats_done = std::max(result.repeats_done, run.repeat);
	}
	for (std::size_t fi = 0; fi < result.figures.size(); fi++) {
		const std::string& key = result.figures[fi];
		// values[variant][repeat - 1]
		std::vector<std::vector<double>> values(nv, std::vector<double>(max_repeat, NAN));
		for (const auto& run : result.runs) {
			if (!run.counted() || run.variant >= nv || run.repeat < 1)
				continue;
			if (auto v = figure_value(run.figures, key))
				values[run.variant][run.repeat - 1] = *v;
		}
		auto& row = result.summaries[fi];
		for (std::size_t v = 0; v < nv; v++) {
			row[v].values = summarize(values[v]);
			for (std::size_t i : outlier_indices(values[v]))
				row[v].outliers.push_back(static_cast<uint32_t>(i + 1));
			if (v > 0) {
				row[v].ci = ratio_interval(values[0], values[v]);
				row[v].verdict = verdict(row[v].ci, compare_tolerance(result.spec));
			}
		}
		for (std::size_t v = 0; v < nv; v++) {
			if (row[0].values.n && row[v].values.n && row[0].values.median != 0)
				row[v].ratio = row[v].values.median / row[0].values.median;
			std::vector<double> ratios;
			for (uint32_t r = 0; r < max_repeat; r++) {
				double a = values[v][r], b = values[0][r];
				if (!std::isnan(a) && !std::isnan(b) && b != 0)
					ratios.push_back(a / b);
			}
			row[v].paired = summarize(std::move(ratios));
		}
	}
}

std::vector<std::optional<RatioInterval>> compare_intervals(const CompareResult& result)
{
	std::vector<std::optional<RatioInterval>> out;
	for (const auto& row : result.summaries)
		for (std::size_t v = 1; v < row.size(); v++)
			out.push_back(row[v].ci);
	return out;
}

bool compare_until_met(const CompareResult& result)
{
	const CompareSpec& spec = result.spec;
	return spec.until && result.repeats_done >= spec.repeat &&
	       intervals_narrow_enough(compare_intervals(result), *spec.until);
}

RunContext run_context(Client& client)
{
	RunContext c;
	Status st = client.status();
	c.kernel_release = st.kernel_release;
	c.cpus = st.nr_online_cpus;
	std::ifstream meminfo("/proc/meminfo");
	std::string key;
	uint64_t kb = 0;
	while (meminfo >> key >> kb) {
		if (key == "MemTotal:") {
			c.memory_mb = kb / 1024;
			break;
		}
		meminfo.ignore(256, '\n');
	}
	c.commit = build_commit();
	// set by scripts/vm.sh in a VM under -icount (deterministic TCG)
	if (const char* icount = std::getenv("SLABLAB_VM_ICOUNT"))
		c.icount = icount;
	return c;
}

CompareResult run_compare(Client& client, const CompareSpec& spec,
			  const CompareProgressFn& progress, const Client::ShouldStop& should_stop)
{
	CompareResult result;
	result.spec = spec;
	result.variants = compare_variants(spec);
	result.figures = compare_figure_keys(spec);

	// Settings: each variant's absolute settings over the cache's original ones.
	const Touched t = touched(result.variants);
	Tunables original;
	std::vector<std::optional<Tunables>> desired(result.variants.size());
	if (t.any()) {
		original = original_settings(client.cache_get(spec.base.cache, false), t);
		for (std::size_t i = 0; i < result.variants.size(); i++) {
			const auto& v = result.variants[i];
			if (v.set)
				desired[i] = absolute_settings(original, *v.set);
			else if (t.flags && uses_cache_settings(v.spec))
				desired[i] = original;	// native copies the cache's flags
		}
	}
	std::optional<Tunables> applied;	// nullopt: the original settings
	auto apply = [&](const Tunables& want) {
		if (same_settings(want, applied.value_or(original)))
			return;
		client.cache_set(spec.base.cache, changed_settings(applied.value_or(original), want));
		applied = want;
	};
	auto restore = [&] {
		if (!applied || same_settings(*applied, original))
			return;
		try {
			client.cache_set(spec.base.cache, changed_settings(*applied, original));
			applied.reset();
		} catch (const Error& e) {
			result.restore_error = fmt::format(
				"restoring the settings of cache {} failed: {}", spec.base.cache,
				e.what());
		}
	};

	result.context = run_context(client);
	for (const auto& v : result.variants) {
		if (v.spec.target != SLABLAB_TARGET_SLABLAB)
			continue;
		result.context.design = design_name(
			original.design ? *original.design
					: client.cache_get(spec.base.cache, false).design);
		break;
	}
	const uint32_t last = spec.until ? spec.max_repeats : spec.repeat;
	const std::size_t total = result.variants.size() * (spec.warmup + spec.repeat);
	// The cache's settings as a run saw them (CSV column tunables): read once per variant.
	std::vector<std::optional<std::string>> tunables(result.variants.size());
	std::vector<std::string> designs(result.variants.size());
	try {
		for (uint32_t round = 1; round <= spec.warmup + last && !result.interrupted;
		     round++) {
			const bool warmup = round <= spec.warmup;
			const uint32_t rep = warmup ? round : round - spec.warmup;
			for (std::size_t vi = 0; vi < result.variants.size(); vi++) {
				const CompareVariant& v = result.variants[vi];
				if (should_stop && should_stop()) {
					result.interrupted = true;
					break;
				}
				if (desired[vi])
					apply(*desired[vi]);
				if (!tunables[vi]) {
					tunables[vi] = std::string();
					designs[vi] = result.context.design;
					if (uses_cache_settings(v.spec)) {
						CacheInfo c = client.cache_get(spec.base.cache, false);
						tunables[vi] = format_tunables(c);
						if (v.spec.target == SLABLAB_TARGET_SLABLAB)
							designs[vi] = design_name(c.design);
					}
				}
				CompareProgress p;
				p.run = result.runs.size();
				p.total = std::max(total, result.runs.size() + 1);
				p.variant_index = vi;
				p.variant = &v;
				p.repeat = rep;
				p.warmup = warmup;
				StormResult r = client.run_storm(
					v.spec,
					[&](const StormResult& s) {
						if (!progress)
							return;
						p.storm = &s;
						progress(p);
					},
					should_stop, spec.poll);
				CompareRun run;
				run.variant = vi;
				run.repeat = rep;
				run.warmup = warmup;
				run.figures = storm_figures(r);
				run.result = std::move(r);
				run.tunables = *tunables[vi];
				run.design = designs[vi];
				const bool stopped = run.result.interrupted;
				result.runs.push_back(std::move(run));
				if (stopped) {
					result.interrupted = true;
					break;
				}
			}
			if (warmup || result.interrupted)
				continue;
			result.repeats_done = rep;
			if (!spec.until || rep < spec.repeat)
				continue;
			summarize_compare(result);
			result.until_met = compare_until_met(result);
			if (progress) {
				CompareProgress p;
				p.run = result.runs.size();
				p.total = p.run;
				p.repeat = rep;
				p.round = &result;
				progress(p);
			}
			if (result.until_met)
				break;
		}
	} catch (...) {
		restore();
		throw;
	}
	restore();
	summarize_compare(result);
	return result;
}

}  // namespace slabctl
