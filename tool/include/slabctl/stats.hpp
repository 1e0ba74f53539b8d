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
	same,		///< the interval contains 1, or lies inside the A/A noise floor
	higher,		///< B/A is above 1 (and the noise floor)
	lower,		///< B/A is below 1
};

/**
 * The verdict on an interval: `same` when it contains 1 or lies within [1 - floor, 1 + floor]
 * (the A/A noise floor of this machine, 0 if not measured), else higher or lower.
 */
Verdict verdict(const std::optional<RatioInterval>& ci, double noise_floor = 0) noexcept;

/// "1.042 [1.010, 1.075]" or "-".
std::string format_interval(const std::optional<RatioInterval>& ci);
/// "+4.2% [+1.0%, +7.5%]" (relative to 1) or "-".
std::string format_interval_pct(const std::optional<RatioInterval>& ci);

}  // namespace slabctl
