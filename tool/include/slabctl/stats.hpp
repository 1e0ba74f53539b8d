// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: how sure a comparison is. The ratio of two variants run back to back
// (interleaved repeats) with a Student-t interval on the paired log ratios — the one
// implementation slabctl compare and the Python package (slablab._core.ratio_interval)
// use —, the stopping rule of `compare --until`, outliers (shown, never dropped) and the
// verdict a table prints. Pure and deterministic: the same samples give the same interval
// on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace slabctl {

/// The default of compare --bootstrap-seed. The interval is no longer a bootstrap (it has
/// no randomness): the option and the JSON field stay so that scripts keep working.
inline constexpr uint64_t kBootstrapSeed = 0x5ab1ab;
/// Fewest pairs an interval is computed from: below it, no interval (and --until goes on).
inline constexpr std::size_t kMinPairsForInterval = 3;

/// A ratio of B to A with its 95% confidence interval.
struct RatioInterval {
	std::size_t n = 0;	///< pairs it was computed from
	double ratio = 0;	///< geometric mean of the per-pair ratios B_i / A_i
	double lo = 0, hi = 0;	///< Student-t interval (level, default 95%)
	/// Sample standard deviation of the paired log ratios log(b_i / a_i): the per-pair
	/// noise a verdict's minimum detectable effect and repeats are computed from.
	double sd = 0;
	/// Two-sided p-value of the paired t test of "no difference" (mean log ratio 0,
	/// n - 1 degrees of freedom); a constant ratio: 0, or 1 when it is exactly 1.
	double p = 1;
	/// Half the interval's width relative to the ratio: (hi - lo) / 2 / ratio.
	double half_width() const noexcept { return ratio > 0 ? (hi - lo) / 2.0 / ratio : 0; }
	bool contains(double x) const noexcept { return lo <= x && x <= hi; }
};

/**
 * The ratio B/A over paired samples (a[i], b[i] measured back to back) and its confidence
 * interval: the geometric mean of b[i]/a[i] and a Student-t interval on the mean of the
 * log ratios (n - 1 degrees of freedom), exponentiated.
 *
 * Why Student-t and not a bootstrap: the repeats here are few (3 to 15). A percentile
 * bootstrap's "95%" interval covers the true ratio only ~76% of the time at n = 3, ~84% at
 * n = 5 (it ignores the uncertainty of the spread itself); the t interval is exact when the
 * log ratios are normal (log-normal noise, the usual shape of timings) and stays near its
 * level for other shapes at these n (tests/host/test_coverage.py simulates it: >= 93% for
 * log-normal, shifted normal and gamma noise at n = 5 and 10). BCa needs more samples than
 * we have to estimate its acceleration, and is random; this is neither.
 *
 * Pairs with a NaN or a value <= 0 are left out. nullopt with fewer than `min_pairs`
 * (at least 2) pairs. Identical log ratios (a constant ratio) give exactly [r, r].
 */
std::optional<RatioInterval> ratio_interval(std::span<const double> a, std::span<const double> b,
					    double level = 0.95,
					    std::size_t min_pairs = kMinPairsForInterval);

/// The p-quantile of Student's t distribution with `df` (> 0) degrees of freedom: the
/// inverse of its CDF (the regularized incomplete beta function), to ~1e-12. NaN outside
/// 0 < p < 1 or for df <= 0.
double student_t_quantile(double p, double df) noexcept;

/// P(T <= t) for Student's t with `df` (> 0) degrees of freedom; NaN for df <= 0.
double student_t_cdf(double t, double df) noexcept;

/// The significance level and power the minimum detectable effect is stated at.
inline constexpr double kVerdictAlpha = 0.05;
inline constexpr double kVerdictPower = 0.80;
/// The equivalence margin when none is given: an interval inside 1 ± 5% is "no difference".
inline constexpr double kDefaultTolerance = 0.05;
/// Most repeats repeats_to_detect() reports (more: "over N").
inline constexpr std::size_t kMaxRepeatsToDetect = 100000;

/**
 * The minimum detectable effect of a paired comparison, as a log ratio: the true mean log
 * ratio a two-sided test at `alpha` finds with probability `power` from `n` pairs whose log
 * ratios scatter with standard deviation `sd`:
 *
 *     MDE = (t(1 - alpha/2, n - 1) + t(power, n - 1)) * sd / sqrt(n)
 *
 * (the usual t approximation of the noncentral-t power; at 80% power and n >= 5 it is within
 * a few percent of the exact value). exp(MDE) - 1 is the relative effect. NaN for n < 2.
 */
double min_detectable_log_effect(double sd, std::size_t n, double alpha = kVerdictAlpha,
				 double power = kVerdictPower) noexcept;

/**
 * The fewest pairs (at least kMinPairsForInterval) whose minimum detectable effect is at most
 * `log_effect` (> 0) at this `sd`: the repeats a decision at that size needs. nullopt when
 * more than kMaxRepeatsToDetect would (or log_effect <= 0).
 */
std::optional<std::size_t> repeats_to_detect(double sd, double log_effect,
					     double alpha = kVerdictAlpha,
					     double power = kVerdictPower) noexcept;

/**
 * compare --until's stopping rule: true when every interval exists and its half width is at
 * most `target` (0.02 for ±2%). No intervals: false.
 */
bool intervals_narrow_enough(std::span<const std::optional<RatioInterval>> intervals,
			     double target) noexcept;

/// Parse "±2%", "2%", "+-2%", "0.02": the relative half width --until asks for.
double parse_until(const std::string& text);

/**
 * Outliers among some values (Tukey's fences: beyond 1.5 x IQR from the quartiles), as
 * indices into `values`; NaNs are never outliers. Fewer than 4 values: none.
 */
std::vector<std::size_t> outlier_indices(std::span<const double> values);

/// What a ratio interval says, for the tables.
enum class Verdict {
	none,		///< no interval (too few pairs)
	same,		///< equivalence: the interval lies inside 1 ± the tolerance
	higher,		///< B/A is above 1 (the interval excludes 1), not inside 1 ± tolerance
	lower,		///< B/A is below 1
	inconclusive,	///< the interval holds 1 and reaches beyond 1 ± tolerance
};

/**
 * The verdict on an interval. "No difference" only by equivalence: `same` when the whole
 * interval lies within [1 - tolerance, 1 + tolerance] (an interval that merely holds 1 is not
 * evidence of none: it may be too wide to see anything); else `higher` or `lower` when it
 * excludes 1; else `inconclusive`. A tolerance of 0 never says `same` (but an exact [1, 1]).
 */
Verdict verdict(const std::optional<RatioInterval>& ci, double tolerance) noexcept;

/**
 * What an inconclusive interval lacks, in words: "sd 3.1%/pair, MDE ±4.0% at n=7 (80% power,
 * 5% two-sided); 25 repeats to tell ±5%" — the per-pair sd of the log ratios, the minimum
 * detectable effect at this n and the repeats whose MDE is `target` (a relative effect,
 * 0.05 for ±5%). `seconds_per_repeat` > 0 adds the machine time those repeats take.
 */
std::string decision_needs(const RatioInterval& ci, double target, double seconds_per_repeat = 0);

/// "1.042 [1.010, 1.075]" or "-".
std::string format_interval(const std::optional<RatioInterval>& ci);
/// "+4.2% [+1.0%, +7.5%]" (relative to 1) or "-".
std::string format_interval_pct(const std::optional<RatioInterval>& ci);

}  // namespace slabctl
