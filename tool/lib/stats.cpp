// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/stats.hpp"

#include "slabctl/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string_view>

namespace slabctl {
namespace {

/// The continued fraction of the incomplete beta function (modified Lentz), converging
/// for x < (a + 1) / (a + b + 2).
double beta_cf(double a, double b, double x) noexcept
{
	constexpr double kTiny = 1e-300, kEps = 1e-16;
	const double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (std::fabs(d) < kTiny)
		d = kTiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 500; m++) {
		const double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
		c = std::fabs(c) < kTiny ? kTiny : c;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
		c = std::fabs(c) < kTiny ? kTiny : c;
		const double del = d * c;
		h *= del;
		if (std::fabs(del - 1) < kEps)
			break;
	}
	return h;
}

/// The regularized incomplete beta function I_x(a, b).
double incomplete_beta(double a, double b, double x) noexcept
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
				      a * std::log(x) + b * std::log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/// P(T > t) for t >= 0, T Student's t with df degrees of freedom.
double t_upper_tail(double t, double df) noexcept
{
	return 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/// The q-quantile of sorted values (linear interpolation between order statistics).
double quantile(const std::vector<double>& sorted, double q)
{
	if (sorted.empty())
		return NAN;
	double pos = q * static_cast<double>(sorted.size() - 1);
	auto i = static_cast<std::size_t>(std::floor(pos));
	if (i + 1 >= sorted.size())
		return sorted.back();
	double frac = pos - static_cast<double>(i);
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

}  // namespace

double student_t_cdf(double t, double df) noexcept
{
	if (!(df > 0) || std::isnan(t))
		return NAN;
	return t >= 0 ? 1 - t_upper_tail(t, df) : t_upper_tail(-t, df);
}

double student_t_quantile(double p, double df) noexcept
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -student_t_quantile(1 - p, df);
	if (p == 0.5)
		return 0;
	const double tail = 1 - p;
	// bracket the quantile, then bisect: the tail is monotone in t, and ~100 halvings
	// reach double precision whatever df
	double lo = 0, hi = 1;
	while (t_upper_tail(hi, df) > tail && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
		const double mid = (lo + hi) / 2;
		(t_upper_tail(mid, df) > tail ? lo : hi) = mid;
	}
	return (lo + hi) / 2;
}

std::optional<RatioInterval> ratio_interval(std::span<const double> a, std::span<const double> b,
					    double level, std::size_t min_pairs)
{
	if (!(level > 0 && level < 1))
		throw UsageError(fmt::format("interval level {} is not between 0 and 1", level),
				 EINVAL);
	std::vector<double> logs;	// log(b_i / a_i) of the usable pairs
	for (std::size_t i = 0; i < std::min(a.size(), b.size()); i++)
		if (a[i] > 0 && b[i] > 0 && std::isfinite(a[i]) && std::isfinite(b[i]))
			logs.push_back(std::log(b[i] / a[i]));
	if (logs.size() < std::max<std::size_t>(min_pairs, 2))
		return std::nullopt;
	const std::size_t n = logs.size();
	RatioInterval ci;
	ci.n = n;
	// A constant ratio (identical samples among them) is known exactly: [r, r], free of
	// rounding in the sums.
	if (std::all_of(logs.begin(), logs.end(), [&](double x) { return x == logs[0]; })) {
		ci.ratio = ci.lo = ci.hi = std::exp(logs[0]);
		ci.sd = 0;
		ci.p = logs[0] == 0 ? 1 : 0;
		return ci;
	}
	double sum = 0;
	for (double x : logs)
		sum += x;
	const double mean = sum / static_cast<double>(n);
	double ss = 0;
	for (double x : logs)
		ss += (x - mean) * (x - mean);
	const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
	const double half = student_t_quantile(0.5 + level / 2, static_cast<double>(n - 1)) * se;
	ci.sd = std::sqrt(ss / static_cast<double>(n - 1));
	ci.p = std::min(1.0, 2 * t_upper_tail(std::fabs(mean) / se, static_cast<double>(n - 1)));
	ci.ratio = std::exp(mean);
	ci.lo = std::exp(mean - half);
	ci.hi = std::exp(mean + half);
	return ci;
}

double min_detectable_log_effect(double sd, std::size_t n, double alpha, double power) noexcept
{
	if (n < 2 || !(sd >= 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	const double df = static_cast<double>(n - 1);
	return (student_t_quantile(1 - alpha / 2, df) + student_t_quantile(power, df)) * sd /
	       std::sqrt(static_cast<double>(n));
}

std::optional<std::size_t> repeats_to_detect(double sd, double log_effect, double alpha,
					     double power) noexcept
{
	if (!(log_effect > 0) || !(sd >= 0))
		return std::nullopt;
	// the MDE falls with n (both quantiles and 1/sqrt(n) do): bisect the first n at or
	// under the effect
	std::size_t lo = kMinPairsForInterval, hi = kMaxRepeatsToDetect;
	if (min_detectable_log_effect(sd, lo, alpha, power) <= log_effect)
		return lo;
	if (min_detectable_log_effect(sd, hi, alpha, power) > log_effect)
		return std::nullopt;
	while (hi - lo > 1) {
		const std::size_t mid = lo + (hi - lo) / 2;
		(min_detectable_log_effect(sd, mid, alpha, power) <= log_effect ? hi : lo) = mid;
	}
	return hi;
}

bool intervals_narrow_enough(std::span<const std::optional<RatioInterval>> intervals,
			     double target) noexcept
{
	if (intervals.empty())
		return false;
	return std::all_of(intervals.begin(), intervals.end(), [&](const auto& ci) {
		return ci && ci->half_width() <= target;
	});
}

double parse_until(const std::string& text)
{
	std::string_view s = text;
	for (std::string_view prefix : {"±", "+-", "+/-"})
		if (s.starts_with(prefix)) {
			s.remove_prefix(prefix.size());
			break;
		}
	bool pct = s.ends_with('%');
	if (pct)
		s.remove_suffix(1);
	std::string num(s);
	char* end = nullptr;
	errno = 0;
	double v = num.empty() ? NAN : std::strtod(num.c_str(), &end);
	if (num.empty() || errno || !end || *end || !std::isfinite(v))
		throw UsageError(fmt::format("--until: '{}' is not a width like ±2% or 0.02", text));
	if (pct)
		v /= 100.0;
	if (v <= 0 || v >= 1)
		throw UsageError(fmt::format("--until: '{}' must lie between 0 and 100%", text),
				 ERANGE);
	return v;
}

std::vector<std::size_t> outlier_indices(std::span<const double> values)
{
	std::vector<double> sorted;
	for (double v : values)
		if (!std::isnan(v))
			sorted.push_back(v);
	std::vector<std::size_t> out;
	if (sorted.size() < 4)
		return out;
	std::sort(sorted.begin(), sorted.end());
	const double q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75);
	const double iqr = q3 - q1;
	for (std::size_t i = 0; i < values.size(); i++)
		if (!std::isnan(values[i]) &&
		    (values[i] < q1 - 1.5 * iqr || values[i] > q3 + 1.5 * iqr))
			out.push_back(i);
	return out;
}

Verdict verdict(const std::optional<RatioInterval>& ci, double tolerance) noexcept
{
	if (!ci)
		return Verdict::none;
	if (ci->lo >= 1.0 - tolerance && ci->hi <= 1.0 + tolerance)
		return Verdict::same;
	if (ci->contains(1.0))
		return Verdict::inconclusive;
	return ci->lo > 1.0 ? Verdict::higher : Verdict::lower;
}

namespace {

/// A relative size in percent: 0.05 -> "5", 0.049 -> "4.9".
std::string pct_text(double x)
{
	const double v = x * 100;
	return std::fabs(v - std::round(v)) < 0.05 ? fmt::format("{:.0f}", v)
						    : fmt::format("{:.1f}", v);
}

}  // namespace

std::string decision_needs(const RatioInterval& ci, double target, double seconds_per_repeat)
{
	auto rel = [](double log_x) { return (std::exp(log_x) - 1.0) * 100.0; };
	std::string out = fmt::format("sd {:.1f}%/pair", rel(ci.sd));
	const double mde = min_detectable_log_effect(ci.sd, ci.n);
	if (std::isfinite(mde))
		out += fmt::format(", MDE ±{:.1f}% at n={} (80% power, 5% two-sided)", rel(mde),
				   ci.n);
	if (!(target > 0))
		return out;
	auto need = repeats_to_detect(ci.sd, std::log1p(target));
	if (!need)
		return out + fmt::format("; over {} repeats to tell ±{}%", kMaxRepeatsToDetect,
					 pct_text(target));
	out += fmt::format("; {} repeats to tell ±{}%", *need, pct_text(target));
	if (seconds_per_repeat > 0) {
		const double s = seconds_per_repeat * static_cast<double>(*need);
		out += s < 120 ? fmt::format(" (~{:.0f} s of runs)", s)
			       : s < 7200 ? fmt::format(" (~{:.0f} min of runs)", s / 60)
					  : fmt::format(" (~{:.1f} h of runs)", s / 3600);
	}
	return out;
}

std::string format_interval(const std::optional<RatioInterval>& ci)
{
	if (!ci)
		return "-";
	return fmt::format("{:.3f} [{:.3f}, {:.3f}]", ci->ratio, ci->lo, ci->hi);
}

std::string format_interval_pct(const std::optional<RatioInterval>& ci)
{
	if (!ci)
		return "-";
	auto pct = [](double r) { return fmt::format("{:+.1f}%", (r - 1.0) * 100.0); };
	return fmt::format("{} [{}, {}]", pct(ci->ratio), pct(ci->lo), pct(ci->hi));
}

}  // namespace slabctl
