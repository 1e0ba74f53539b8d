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

/// splitmix64: tiny, fast, and the same sequence on every platform and standard library
/// (std::uniform_int_distribution is not), so a seed names one interval.
struct SplitMix64 {
	uint64_t state;
	uint64_t next() noexcept
	{
		uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	/// Uniform in [0, n): Lemire's multiply-shift (bias below 2^-40 for our n).
	std::size_t below(std::size_t n) noexcept
	{
		return static_cast<std::size_t>(
			(static_cast<unsigned __int128>(next()) * n) >> 64);
	}
};

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

std::optional<RatioInterval> bootstrap_ratio(std::span<const double> a, std::span<const double> b,
					     uint64_t seed, unsigned resamples, double level)
{
	std::vector<double> logs;	// log(b_i / a_i) of the usable pairs
	for (std::size_t i = 0; i < std::min(a.size(), b.size()); i++)
		if (a[i] > 0 && b[i] > 0 && std::isfinite(a[i]) && std::isfinite(b[i]))
			logs.push_back(std::log(b[i] / a[i]));
	if (logs.size() < kMinPairsForInterval || resamples == 0)
		return std::nullopt;
	const std::size_t n = logs.size();
	auto mean = [](const std::vector<double>& v) {
		double s = 0;
		for (double x : v)
			s += x;
		return s / static_cast<double>(v.size());
	};
	RatioInterval ci;
	ci.n = n;
	const double m = mean(logs);
	ci.ratio = std::exp(m);
	// Identical pairs: every resample has the same mean; say [r, r] exactly, free of
	// rounding in the sums.
	if (std::all_of(logs.begin(), logs.end(), [&](double x) { return x == logs[0]; })) {
		ci.ratio = ci.lo = ci.hi = std::exp(logs[0]);
		return ci;
	}
	SplitMix64 rng{seed};
	std::vector<double> stats(resamples);
	for (unsigned r = 0; r < resamples; r++) {
		double s = 0;
		for (std::size_t k = 0; k < n; k++)
			s += logs[rng.below(n)];
		stats[r] = s / static_cast<double>(n);
	}
	std::sort(stats.begin(), stats.end());
	const double tail = (1.0 - level) / 2.0;
	ci.lo = std::exp(quantile(stats, tail));
	ci.hi = std::exp(quantile(stats, 1.0 - tail));
	return ci;
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

Verdict verdict(const std::optional<RatioInterval>& ci, double noise_floor) noexcept
{
	if (!ci)
		return Verdict::none;
	if (ci->contains(1.0) || (ci->lo >= 1.0 - noise_floor && ci->hi <= 1.0 + noise_floor))
		return Verdict::same;
	return ci->lo > 1.0 ? Verdict::higher : Verdict::lower;
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
