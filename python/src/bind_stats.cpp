// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's pure functions of libslabctl: sizes as slabctl prints them and the
// statistics of slabctl compare.
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <cstddef>
#include <optional>
#include <vector>

namespace slablab_core {

void bind_stats(py::module_& m)
{
	m.def(
		"format_size", [](uint64_t value) { return slabctl::format_size(value); },
		py::arg("value"),
		"A size as slabctl and tools/mm/slabinfo print it: 4096 -> '4.0K', 1228800 -> '1.2M'.");

	m.def(
		"summarize",
		[](const std::vector<double>& values) {
			return to_py(slabctl::to_json(slabctl::summarize(values)));
		},
		py::arg("values"),
		"The statistics slabctl compare prints: {'n', 'min', 'median', 'mean', 'max', "
		"'sd'} (sd: sample standard deviation, n - 1; NaNs are left out; the values are "
		"None when n is 0).");
	m.def(
		"ratio_interval",
		[](const std::vector<double>& a, const std::vector<double>& b, double level,
		   std::size_t min_pairs) -> std::optional<py::tuple> {
			auto ci = slabctl::ratio_interval(a, b, level, min_pairs);
			if (!ci)
				return std::nullopt;
			return py::make_tuple(ci->n, ci->ratio, ci->lo, ci->hi);
		},
		py::arg("a"), py::arg("b"), py::arg("level") = 0.95,
		py::arg("min_pairs") = slabctl::kMinPairsForInterval,
		"The ratio B/A of paired samples (a[i], b[i] measured back to back) as slabctl "
		"compare computes it: (n, ratio, lo, hi), the geometric mean of b[i]/a[i] and its "
		"Student-t interval on the mean log ratio at `level`. Pairs with a NaN or a value "
		"<= 0 are left out; None with fewer than min_pairs (at least 2) pairs. A constant "
		"ratio gives exactly (r, r).");
	m.def(
		"ratio_test",
		[](const std::vector<double>& a, const std::vector<double>& b, double level,
		   std::size_t min_pairs) -> std::optional<py::tuple> {
			auto ci = slabctl::ratio_interval(a, b, level, min_pairs);
			if (!ci)
				return std::nullopt;
			return py::make_tuple(ci->n, ci->ratio, ci->lo, ci->hi, ci->sd, ci->p);
		},
		py::arg("a"), py::arg("b"), py::arg("level") = 0.95,
		py::arg("min_pairs") = slabctl::kMinPairsForInterval,
		"ratio_interval() with the paired t test beside: (n, ratio, lo, hi, sd, p), sd the "
		"sample standard deviation of the log ratios and p the two-sided p-value of a "
		"mean log ratio of 0 (a constant ratio: sd 0, p 0, or 1 when it is 1).");
	m.def(
		"student_t_cdf",
		[](double t, double df) { return slabctl::student_t_cdf(t, df); },
		py::arg("t"), py::arg("df"),
		"P(T <= t) for Student's t with df degrees of freedom (NaN for df <= 0).");
	m.def(
		"min_detectable_log_effect",
		[](double sd, std::size_t n, double alpha, double power) {
			return slabctl::min_detectable_log_effect(sd, n, alpha, power);
		},
		py::arg("sd"), py::arg("n"), py::arg("alpha") = slabctl::kVerdictAlpha,
		py::arg("power") = slabctl::kVerdictPower,
		"The minimum detectable effect (a log ratio) of n pairs whose log ratios have sd: "
		"(t(1 - alpha/2, n-1) + t(power, n-1)) * sd / sqrt(n); NaN for n < 2.");
	m.def(
		"repeats_to_detect",
		[](double sd, double log_effect, double alpha, double power) {
			return slabctl::repeats_to_detect(sd, log_effect, alpha, power);
		},
		py::arg("sd"), py::arg("log_effect"), py::arg("alpha") = slabctl::kVerdictAlpha,
		py::arg("power") = slabctl::kVerdictPower,
		"The fewest pairs (at least 3) whose minimum detectable effect is at most "
		"log_effect; None when more than 100000 would be.");
	m.def(
		"student_t_quantile",
		[](double p, double df) { return slabctl::student_t_quantile(p, df); },
		py::arg("p"), py::arg("df"),
		"The p-quantile of Student's t distribution with df degrees of freedom (NaN "
		"outside 0 < p < 1 or for df <= 0).");
	m.def(
		"main_figures",
		[](const py::object& pattern) {
			uint32_t p = storm_enum("pattern", pattern, slabctl::storm_pattern_from_name);
			py::list out;
			for (auto k : slabctl::main_figures(p))
				out.append(py::str(std::string(k)));
			return out;
		},
		py::arg("pattern"),
		"The figure(s) compare summarizes by default for a pattern: pair -> "
		"['cycles_per_pair'], batch/bulk/prefill -> ['cycles_per_alloc', 'cycles_per_free'], "
		"remote -> ['ops_per_sec'], churn -> ['fragmentation_pct'], rcu -> "
		"['cycles_per_alloc', 'cycles_per_free', 'rcu_waiting_mean'].");}

}  // namespace slablab_core
