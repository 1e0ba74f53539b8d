// SPDX-License-Identifier: GPL-2.0 OR MIT
// The statistics compare trusts: the paired ratio's Student-t interval on known
// distributions (its coverage simulated), the t quantile, --until's stopping rule, outliers, verdicts, warm-up runs and the CSV
// columns that say how to rerun a row.
#include "slabctl/compare.hpp"
#include "slabctl/error.hpp"
#include "slabctl/format.hpp"
#include "slabctl/stats.hpp"
#include "slabctl/version.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace slabctl;

namespace {

/// Paired samples a_i, b_i = a_i x ratio, each with independent log-normal noise of
/// relative size `noise` (plus a shared per-pair drift that pairing must cancel).
void paired_samples(std::mt19937_64& gen, std::size_t n, double ratio, double noise,
		    std::vector<double>& a, std::vector<double>& b)
{
	std::normal_distribution<double> e(0.0, noise), drift(0.0, 0.3);
	a.clear();
	b.clear();
	for (std::size_t i = 0; i < n; i++) {
		double base = 100.0 * std::exp(drift(gen));	// the machine's mood that pair
		a.push_back(base * std::exp(e(gen)));
		b.push_back(base * ratio * std::exp(e(gen)));
	}
}

}  // namespace

TEST(RatioInterval, IdenticalSamplesGiveExactlyOne)
{
	std::vector<double> a = {10, 12, 9, 15, 11};
	auto ci = ratio_interval(a, a);
	ASSERT_TRUE(ci);
	EXPECT_EQ(ci->n, 5u);
	EXPECT_EQ(ci->ratio, 1.0);
	EXPECT_EQ(ci->lo, 1.0);
	EXPECT_EQ(ci->hi, 1.0);
	EXPECT_EQ(verdict(ci, 0), Verdict::same);
	// a constant ratio is known exactly too
	std::vector<double> b;
	for (double x : a)
		b.push_back(x * 2);
	ci = ratio_interval(a, b);
	ASSERT_TRUE(ci);
	EXPECT_DOUBLE_EQ(ci->ratio, 2.0);
	EXPECT_DOUBLE_EQ(ci->lo, 2.0);
	EXPECT_DOUBLE_EQ(ci->hi, 2.0);
	EXPECT_EQ(verdict(ci, 0), Verdict::higher);
}

TEST(RatioInterval, TooFewOrUnusablePairs)
{
	std::vector<double> a = {1, 2}, b = {1, 2};
	EXPECT_FALSE(ratio_interval(a, b));
	// NaNs and non-positive values are left out, pair by pair
	std::vector<double> c = {1, NAN, 3, 0, 5, 6}, d = {2, 4, -1, 8, 10, 12};
	auto ci = ratio_interval(c, d);
	ASSERT_TRUE(ci);
	EXPECT_EQ(ci->n, 3u);	// (1,2), (5,10), (6,12)
	EXPECT_DOUBLE_EQ(ci->ratio, 2.0);
	EXPECT_EQ(verdict(std::nullopt, 0), Verdict::none);
}

TEST(RatioInterval, StudentTQuantile)
{
	// scipy.stats.t.ppf(0.975, df)
	EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706204736174698, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302652729749464, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.975, 4), 2.7764451051977934, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.975, 9), 2.2621571628540993, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.995, 14), 2.976842734370834, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.025, 9), -2.2621571628540993, 1e-9);
	EXPECT_NEAR(student_t_quantile(0.975, 1e6), 1.959966, 1e-5);
	EXPECT_EQ(student_t_quantile(0.5, 3), 0.0);
	EXPECT_TRUE(std::isnan(student_t_quantile(1.0, 3)));
	EXPECT_TRUE(std::isnan(student_t_quantile(0.9, 0)));
}

TEST(RatioInterval, KnownCaseAndDeterminism)
{
	// logs = log 2 + {-0.1, 0, 0.1}: mean log 2, sd 0.1, t(0.975, 2) = 4.3027
	std::vector<double> a = {1, 1, 1}, b = {2 * std::exp(-0.1), 2, 2 * std::exp(0.1)};
	auto ci = ratio_interval(a, b);
	ASSERT_TRUE(ci);
	const double half = 4.302652729749464 * 0.1 / std::sqrt(3.0);
	EXPECT_NEAR(ci->ratio, 2.0, 1e-12);
	EXPECT_NEAR(ci->lo, 2.0 * std::exp(-half), 1e-9);
	EXPECT_NEAR(ci->hi, 2.0 * std::exp(half), 1e-9);
	auto again = ratio_interval(a, b);
	EXPECT_EQ(ci->lo, again->lo);
	EXPECT_EQ(ci->hi, again->hi);
	// two pairs when asked for; a bad level is a usage error
	EXPECT_FALSE(ratio_interval(std::span(a).first(2), std::span(b).first(2)));
	EXPECT_TRUE(ratio_interval(std::span(a).first(2), std::span(b).first(2), 0.95, 2));
	EXPECT_THROW(ratio_interval(a, b, 1.0), UsageError);
}

namespace {

/// Coverage of the nominal 95% interval over `trials` simulated experiments of n pairs.
template <typename Draw>
double coverage(std::mt19937_64& gen, std::size_t n, int trials, double truth, Draw draw)
{
	std::vector<double> a(n), b(n);
	int hit = 0;
	for (int t = 0; t < trials; t++) {
		for (std::size_t i = 0; i < n; i++)
			draw(gen, a[i], b[i]);
		auto ci = ratio_interval(a, b);
		hit += ci && ci->contains(truth);
	}
	return static_cast<double>(hit) / trials;
}

}  // namespace

// Coverage: over 2000 simulated experiments with a known true ratio, the nominal 95%
// interval holds it at least 93% of the time at n = 5 and 10, for log-normal ratios (with
// a shared drift pairing cancels) and skewed (gamma) noise around a known geometric mean.
// tests/host/test_coverage.py checks more shapes through _core, and the test's power.
TEST(RatioInterval, CoversTheTrueRatio)
{
	std::mt19937_64 gen(2024);
	for (std::size_t n : {5u, 10u}) {
		std::normal_distribution<double> e(0.0, 0.08), drift(0.0, 0.3);
		double c = coverage(gen, n, 2000, 1.25, [&](auto& g, double& a, double& b) {
			double base = 100.0 * std::exp(drift(g));
			a = base * std::exp(e(g));
			b = base * 1.25 * std::exp(e(g));
		});
		EXPECT_GE(c, 0.93) << "log-normal, n=" << n;
		EXPECT_LE(c, 0.97) << "log-normal, n=" << n;
		// ratio = 1.1 x G / E[log G] normalized: log ratio = log 1.1 + log G - E log G,
		// E log G = digamma(k) + log(theta) = digamma(2) = 1 - euler_gamma for k=2, theta=1
		std::gamma_distribution<double> g2(2.0, 1.0);
		const double elog = 1.0 - 0.5772156649015329;
		c = coverage(gen, n, 2000, 1.1, [&](auto& g, double& a, double& b) {
			a = 1.0;
			b = 1.1 * std::exp(0.1 * (std::log(g2(g)) - elog));
		});
		EXPECT_GE(c, 0.93) << "gamma, n=" << n;
	}
}

// Pairing cancels what the two variants of one round share: with a large per-pair drift
// and small noise the interval is narrow (an unpaired ratio of medians would not be).
TEST(RatioInterval, PairingCancelsSharedDrift)
{
	std::mt19937_64 gen(7);
	std::vector<double> a, b;
	paired_samples(gen, 20, 0.9, 0.01, a, b);
	auto ci = ratio_interval(a, b);
	ASSERT_TRUE(ci);
	EXPECT_LT(ci->half_width(), 0.01);
	EXPECT_NEAR(ci->ratio, 0.9, 0.01);
	EXPECT_EQ(verdict(ci, 0), Verdict::lower);
	// inside an A/A floor of ±15% it is no difference
	EXPECT_EQ(verdict(ci, 0.15), Verdict::same);
}

TEST(Until, Parse)
{
	EXPECT_DOUBLE_EQ(parse_until("±2%"), 0.02);
	EXPECT_DOUBLE_EQ(parse_until("2%"), 0.02);
	EXPECT_DOUBLE_EQ(parse_until("+-0.5%"), 0.005);
	EXPECT_DOUBLE_EQ(parse_until("0.03"), 0.03);
	for (const char* bad : {"", "%", "two", "0", "100%", "-2%", "2%%", "1.5"})
		EXPECT_THROW(parse_until(bad), UsageError) << bad;
}

TEST(Until, NarrowEnough)
{
	RatioInterval narrow{10, 1.0, 0.99, 1.01}, wide{10, 1.0, 0.9, 1.1};
	EXPECT_NEAR(narrow.half_width(), 0.01, 1e-12);
	std::vector<std::optional<RatioInterval>> v = {narrow};
	EXPECT_TRUE(intervals_narrow_enough(v, 0.02));
	EXPECT_FALSE(intervals_narrow_enough(v, 0.005));
	v.push_back(wide);	// every interval must be narrow
	EXPECT_FALSE(intervals_narrow_enough(v, 0.02));
	v = {narrow, std::nullopt};	// one not yet computable
	EXPECT_FALSE(intervals_narrow_enough(v, 0.02));
	EXPECT_FALSE(intervals_narrow_enough({}, 0.02));
}

namespace {

/// A finished pair storm of `cycles` cycles per pair (1000 ops).
CompareRun pair_run(std::size_t variant, uint32_t repeat, double cycles, bool warmup = false)
{
	CompareRun run;
	run.variant = variant;
	run.repeat = repeat;
	run.warmup = warmup;
	run.result.id = 1;
	run.result.state = SLABLAB_STORM_DONE;
	run.result.spec.target = variant ? SLABLAB_TARGET_NATIVE : SLABLAB_TARGET_SLABLAB;
	run.result.spec.pattern = SLABLAB_PATTERN_PAIR;
	run.result.has_results = true;
	run.result.ops_done = 1000;
	run.result.pair_cycles = static_cast<uint64_t>(cycles * 1000);
	run.figures = storm_figures(run.result);
	return run;
}

CompareResult empty_compare(std::optional<double> until, uint32_t repeat)
{
	CompareResult c;
	c.spec.base.cache = "t64";
	c.spec.repeat = repeat;
	c.spec.until = until;
	c.variants = compare_variants(c.spec);
	c.figures = compare_figure_keys(c.spec);
	return c;
}

TEST(Compare, UntilProgressCounter)
{
	CompareResult c = empty_compare(0.02, 3);
	c.spec.max_repeats = 50;
	c.runs.push_back(pair_run(0, 1, 100));
	c.runs.push_back(pair_run(1, 1, 120));
	c.repeats_done = 1;
	summarize_compare(c);
	EXPECT_EQ(render_until_progress(c, 1),
		  "until ±2%: 1 repeats of at most 50, widest 95% CI not yet computable");
	for (uint32_t rep = 2; rep <= 4; rep++) {
		c.runs.push_back(pair_run(0, rep, 100));
		c.runs.push_back(pair_run(1, rep, 120 + rep));
	}
	c.repeats_done = 4;
	summarize_compare(c);
	std::string line = render_until_progress(c, 4);
	EXPECT_TRUE(line.starts_with("until ±2%: 4 repeats of at most 50, widest 95% CI ±"))
		<< line;
	EXPECT_FALSE(line.ends_with(", reached")) << line;
	c.until_met = true;
	EXPECT_TRUE(render_until_progress(c, 4).ends_with(", reached"));
}

/// Rounds added one at a time, as run_compare() does, until the rule says stop: how many.
uint32_t rounds_until(double target, double noise, uint32_t max_repeats)
{
	CompareResult c = empty_compare(target, 5);
	std::mt19937_64 gen(99);
	std::normal_distribution<double> e(0.0, noise);
	for (uint32_t rep = 1; rep <= max_repeats; rep++) {
		double base = 100;
		c.runs.push_back(pair_run(0, rep, base * std::exp(e(gen))));
		c.runs.push_back(pair_run(1, rep, base * 1.2 * std::exp(e(gen))));
		c.repeats_done = rep;
		summarize_compare(c);
		if (compare_until_met(c))
			return rep;
	}
	return max_repeats + 1;	// not met
}

}  // namespace

TEST(Until, StoppingRule)
{
	// never before --repeat, however narrow
	CompareResult c = empty_compare(0.5, 5);
	for (uint32_t rep = 1; rep <= 4; rep++) {
		c.runs.push_back(pair_run(0, rep, 100));
		c.runs.push_back(pair_run(1, rep, 120));
		c.repeats_done = rep;
		summarize_compare(c);
		EXPECT_FALSE(compare_until_met(c)) << rep;
	}
	c.runs.push_back(pair_run(0, 5, 100));
	c.runs.push_back(pair_run(1, 5, 120));
	c.repeats_done = 5;
	summarize_compare(c);
	EXPECT_TRUE(compare_until_met(c));
	// no --until: never "met"
	c.spec.until.reset();
	EXPECT_FALSE(compare_until_met(c));

	// noisier runs or a narrower target need more rounds; hopeless ones hit the cap
	uint32_t quiet = rounds_until(0.02, 0.02, 200), noisy = rounds_until(0.02, 0.06, 200);
	EXPECT_GE(quiet, 5u);
	EXPECT_LT(quiet, noisy);
	EXPECT_LE(noisy, 200u);
	EXPECT_GT(rounds_until(0.005, 0.06, 50), 50u);
}

TEST(Compare, WarmupRunsAreShownNotSummarized)
{
	CompareResult c = empty_compare(std::nullopt, 3);
	c.spec.warmup = 1;
	c.runs.push_back(pair_run(0, 1, 1000, true));	// cold: would spoil the ratio
	c.runs.push_back(pair_run(1, 1, 10, true));
	for (uint32_t rep = 1; rep <= 3; rep++) {
		c.runs.push_back(pair_run(0, rep, 100));
		c.runs.push_back(pair_run(1, rep, 100));
	}
	c.repeats_done = 3;
	summarize_compare(c);
	const auto& second = c.summaries[0][1];
	EXPECT_EQ(second.values.n, 3u);
	ASSERT_TRUE(second.ci);
	EXPECT_EQ(second.ci->lo, 1.0);
	EXPECT_EQ(second.ci->hi, 1.0);
	EXPECT_EQ(second.verdict, Verdict::same);
	std::string t = render_compare(c);
	EXPECT_NE(t.find("warm-up: 1 round(s) first, 2 run(s) discarded"), std::string::npos) << t;
	EXPECT_NE(t.find("no difference"), std::string::npos) << t;
	EXPECT_NE(t.find("1.000 [1.000, 1.000]"), std::string::npos) << t;
}

TEST(Compare, OutliersAreShownAndCounted)
{
	CompareResult c = empty_compare(std::nullopt, 6);
	const double a[] = {100, 101, 99, 100, 400, 100};	// repeat 5: a hiccup
	for (uint32_t rep = 1; rep <= 6; rep++) {
		c.runs.push_back(pair_run(0, rep, a[rep - 1]));
		c.runs.push_back(pair_run(1, rep, 90));
	}
	c.repeats_done = 6;
	summarize_compare(c);
	EXPECT_EQ(c.summaries[0][0].outliers, (std::vector<uint32_t>{5}));
	EXPECT_TRUE(c.summaries[0][1].outliers.empty());
	EXPECT_EQ(c.summaries[0][0].values.n, 6u);	// never dropped
	EXPECT_DOUBLE_EQ(c.summaries[0][0].values.max, 400);
	std::string t = render_compare(c);
	EXPECT_NE(t.find("outliers (1.5 IQR, still counted): slablab repeat 5"), std::string::npos)
		<< t;
	EXPECT_EQ(outlier_indices(std::vector<double>{1, 2, 3}).size(), 0u);	// too few
}

TEST(Compare, AaIsTheFirstVariantTwice)
{
	CompareSpec spec;
	spec.base.cache = "t64";
	spec.aa = true;
	auto v = compare_variants(spec);
	ASSERT_EQ(v.size(), 2u);
	EXPECT_EQ(v[0].label, "slablab");
	EXPECT_EQ(v[1].label, "slablab (A')");
	EXPECT_EQ(v[1].spec.target, v[0].spec.target);
	spec.max_repeats = 3;	// below --repeat 7
	EXPECT_THROW(compare_variants(spec), UsageError);
}

TEST(Compare, CsvSaysHowToRerun)
{
	CompareResult c = empty_compare(std::nullopt, 4);
	c.spec.warmup = 1;
	c.context.kernel_release = "6.1.0-test";
	c.context.cpus = 2;
	c.context.memory_mb = 1984;
	c.context.icount = "3";
	c.context.commit = "v0.1-12-gabcdef";
	c.runs.push_back(pair_run(0, 1, 100, true));
	c.runs.push_back(pair_run(1, 1, 100, true));
	const double a[] = {100, 101, 99, 400};
	for (uint32_t rep = 1; rep <= 4; rep++) {
		c.runs.push_back(pair_run(0, rep, a[rep - 1]));
		c.runs.back().tunables = "flags=0 order=0 cpu_partial=30";
		c.runs.push_back(pair_run(1, rep, 90));
	}
	c.repeats_done = 4;
	summarize_compare(c);
	const auto cols = run_csv_columns();
	for (const char* k : kRunContextColumns)
		ASSERT_NE(std::find(cols.begin(), cols.end(), k), cols.end()) << k;
	for (const char* k : {"seed", "init_on_alloc", "hardened", "random", "cache", "set"})
		ASSERT_NE(std::find(cols.begin(), cols.end(), k), cols.end()) << k;
	std::istringstream in(compare_csv(c));
	std::string line;
	std::getline(in, line);
	auto col = [&](const std::string& row, const std::string& key) {
		std::size_t idx = std::find(cols.begin(), cols.end(), key) - cols.begin();
		std::stringstream rs(row);
		std::string field;
		for (std::size_t i = 0; i <= idx; i++)
			std::getline(rs, field, ',');
		return field;
	};
	std::vector<std::string> rows;
	while (std::getline(in, line))
		rows.push_back(line);
	ASSERT_EQ(rows.size(), 10u);
	for (const auto& r : rows) {
		EXPECT_EQ(col(r, "kernel_release"), "6.1.0-test");
		EXPECT_EQ(col(r, "vm_cpus"), "2");
		EXPECT_EQ(col(r, "vm_memory_mb"), "1984");
		EXPECT_EQ(col(r, "vm_icount"), "3");
		EXPECT_EQ(col(r, "design"), "slub");
		EXPECT_EQ(col(r, "slablab_commit"), "v0.1-12-gabcdef");
	}
	EXPECT_EQ(col(rows[0], "warmup"), "1");
	EXPECT_EQ(col(rows[2], "warmup"), "0");
	EXPECT_EQ(col(rows[2], "tunables"), "flags=0 order=0 cpu_partial=30");
	EXPECT_EQ(col(rows[3], "tunables"), "");	// native: the kernel's cache
	EXPECT_EQ(col(rows[8], "outlier"), "1");	// slablab repeat 4
	EXPECT_EQ(col(rows[2], "outlier"), "0");
	// the commit is baked in at build time
	EXPECT_GT(std::string(build_commit()).size(), 0u);
}

// Issue 41: "no difference" only by equivalence. An interval that holds 1 but reaches
// past the margin is inconclusive, and says what would decide it (this test uses only
// what compare had before the fix: the old code printed "no difference" here).
TEST(Compare, AnIntervalHoldingOneIsNotNoDifference)
{
	CompareResult c = empty_compare(std::nullopt, 6);
	const double b[] = {80, 125, 90, 115, 85, 110};	// ±20% around the same
	for (uint32_t rep = 1; rep <= 6; rep++) {
		c.runs.push_back(pair_run(0, rep, 100));
		c.runs.push_back(pair_run(1, rep, b[rep - 1]));
	}
	c.repeats_done = 6;
	summarize_compare(c);
	const auto& s = c.summaries[0][1];
	ASSERT_TRUE(s.ci);
	EXPECT_TRUE(s.ci->contains(1.0));
	EXPECT_GT(s.ci->hi, 1.05);
	EXPECT_NE(s.verdict, Verdict::same);
	std::string t = render_compare(c);
	std::string row = t.substr(t.find("  native", t.find("paired ratio")));
	row = row.substr(0, row.find('\n'));
	EXPECT_EQ(row.find("no difference"), std::string::npos) << t;
	EXPECT_NE(row.find("inconclusive: sd "), std::string::npos) << row;
	EXPECT_NE(row.find("MDE ±"), std::string::npos) << row;
	EXPECT_NE(row.find("repeats to tell ±5%"), std::string::npos) << row;
}

TEST(Compare, EquivalenceIsNoDifferenceWithinTheMargin)
{
	CompareResult c = empty_compare(std::nullopt, 4);
	const double b[] = {101, 99, 100.5, 99.5};
	for (uint32_t rep = 1; rep <= 4; rep++) {
		c.runs.push_back(pair_run(0, rep, 100));
		c.runs.push_back(pair_run(1, rep, b[rep - 1]));
	}
	c.repeats_done = 4;
	summarize_compare(c);
	EXPECT_EQ(c.summaries[0][1].verdict, Verdict::same);
	std::string t = render_compare(c);
	EXPECT_NE(t.find("no difference (within ±5%)"), std::string::npos) << t;
	EXPECT_NE(t.find("no difference: only when the CI lies inside ±5% (the default"),
		  std::string::npos) << t;
	// the A/A floor is the margin when given: ±0.5% is narrower than this interval
	c.spec.noise_floor = 0.005;
	summarize_compare(c);
	EXPECT_EQ(c.summaries[0][1].verdict, Verdict::inconclusive);
	t = render_compare(c);
	EXPECT_NE(t.find("inconclusive: sd "), std::string::npos) << t;
	EXPECT_NE(t.find("repeats to tell ±0.5%"), std::string::npos) << t;
	EXPECT_NE(t.find("inside ±0.5% (--noise-floor, the A/A floor)"), std::string::npos) << t;
}

TEST(Verdict, EquivalenceSignificanceOrNeither)
{
	auto ci = [](double lo, double hi) {
		RatioInterval r;
		r.n = 10;
		r.ratio = std::sqrt(lo * hi);
		r.lo = lo;
		r.hi = hi;
		return std::optional<RatioInterval>(r);
	};
	EXPECT_EQ(verdict(ci(0.98, 1.03), 0.05), Verdict::same);
	EXPECT_EQ(verdict(ci(0.90, 1.10), 0.05), Verdict::inconclusive);	// old: same
	EXPECT_EQ(verdict(ci(1.02, 1.04), 0.05), Verdict::same);	// small, whatever its side
	EXPECT_EQ(verdict(ci(1.02, 1.09), 0.05), Verdict::higher);
	EXPECT_EQ(verdict(ci(0.85, 0.97), 0.05), Verdict::lower);
	EXPECT_EQ(verdict(ci(0.90, 1.10), 0), Verdict::inconclusive);
	EXPECT_EQ(verdict(std::nullopt, 0.05), Verdict::none);
}

TEST(RatioInterval, PairedTestSdAndP)
{
	// scipy: the log ratios' sd (ddof 1) and stats.ttest_1samp(logs, 0).pvalue
	std::vector<double> a = {100, 110, 95, 105, 98, 102}, b = {104, 111, 99, 104, 103, 104};
	auto ci = ratio_interval(a, b);
	ASSERT_TRUE(ci);
	EXPECT_NEAR(ci->sd, 0.022625999197462412, 1e-12);
	EXPECT_NEAR(ci->p, 0.043263122646846154, 1e-9);
	// a constant ratio: no spread, p 0 (or 1 when the ratio is 1)
	std::vector<double> twice = {200, 220, 190, 210, 196, 204};
	ci = ratio_interval(a, twice);
	ASSERT_TRUE(ci);
	EXPECT_EQ(ci->sd, 0);
	EXPECT_EQ(ci->p, 0);
	ci = ratio_interval(a, a);
	ASSERT_TRUE(ci);
	EXPECT_EQ(ci->p, 1);
	EXPECT_NEAR(student_t_cdf(2.2621571627409915, 9), 0.975, 1e-9);
	EXPECT_NEAR(student_t_cdf(-2.2621571627409915, 9), 0.025, 1e-9);
}

TEST(RatioInterval, MinimumDetectableEffectAndRepeats)
{
	// (t(0.975, 9) + t(0.8, 9)) sd / sqrt(10), scipy's quantiles
	EXPECT_NEAR(min_detectable_log_effect(0.05, 10),
		    (2.2621571627409915 + 0.8834038596855205) * 0.05 / std::sqrt(10.0), 1e-10);
	EXPECT_TRUE(std::isnan(min_detectable_log_effect(0.05, 1)));
	// the fewest n whose MDE is at most log(1.02) at sd 0.05: 53 (scipy, by search)
	auto n = repeats_to_detect(0.05, std::log1p(0.02));
	ASSERT_TRUE(n);
	EXPECT_EQ(*n, 53u);
	EXPECT_LE(min_detectable_log_effect(0.05, *n), std::log1p(0.02));
	EXPECT_GT(min_detectable_log_effect(0.05, *n - 1), std::log1p(0.02));
	EXPECT_EQ(repeats_to_detect(0, 0.01), std::optional<std::size_t>(3));
	EXPECT_FALSE(repeats_to_detect(1.0, 1e-6));
	EXPECT_FALSE(repeats_to_detect(0.05, 0));
	RatioInterval r;
	r.n = 10;
	r.ratio = r.lo = r.hi = 1;
	r.sd = 0.05;
	std::string t = decision_needs(r, 0.02, 60);
	EXPECT_NE(t.find("sd 5.1%/pair, MDE ±"), std::string::npos) << t;
	EXPECT_NE(t.find("at n=10 (80% power, 5% two-sided); 53 repeats to tell ±2% (~53 min of "
			 "runs)"),
		  std::string::npos)
		<< t;
}
