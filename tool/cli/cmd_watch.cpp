// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl watch: a live view of the caches' activity, like top.
#include "common.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>

namespace slabctl::cli {
namespace {

uint64_t activity(const CacheInfo& c)
{
	return c.stat(SLABLAB_ALLOC_FASTPATH) + c.stat(SLABLAB_ALLOC_SLOWPATH) +
	       c.stat(SLABLAB_FREE_FASTPATH) + c.stat(SLABLAB_FREE_SLOWPATH);
}

std::string clock_now()
{
	std::time_t t = std::time(nullptr);
	std::tm tm{};
	localtime_r(&t, &tm);
	return fmt::format("{:%H:%M:%S}", tm);
}

std::optional<double> rate(uint64_t now, uint64_t before, double seconds)
{
	if (seconds <= 0 || now < before)
		return std::nullopt;
	return static_cast<double>(now - before) / seconds;
}

struct WatchOptions {
	std::vector<std::string> patterns;
	std::string interval = "1";
	uint64_t count = 0;
	bool by_activity = false;
};

int run_watch(const WatchOptions& o)
{
	const double interval = parse_interval_s(o.interval, "--interval");
	for (const auto& p : o.patterns)
		if (p.empty())
			throw UsageError("empty cache pattern");
	Client client;
	catch_interrupts();
	const bool json = json_output();
	const bool tty = !json && stdout_is_tty();
	std::map<std::string, CacheInfo> prev;
	auto prev_time = std::chrono::steady_clock::now();
	bool storms = true;	// the module answers STORM_GET
	for (uint64_t sample = 0; o.count == 0 || sample < o.count; sample++) {
		std::vector<CacheInfo> caches =
			select_caches(client.cache_list(false), o.patterns);
		const auto now = std::chrono::steady_clock::now();
		const double dt =
			std::chrono::duration<double>(now - prev_time).count();
		prev_time = now;
		if (sample == 0 && !o.patterns.empty() && caches.empty())
			throw Error(ENOENT, "", "",
				    fmt::format("no cache matches {}", fmt::join(o.patterns, " ")));
		std::optional<StormResult> storm;
		if (storms) {
			try {
				storm = client.storm_get();
			} catch (const Error& e) {
				if (e.err != ENOENT)
					storms = false;	// a module without storms
			}
		}
		auto per_sec = [&](const CacheInfo& c) -> double {
			auto it = prev.find(c.name);
			if (it == prev.end() || dt <= 0)
				return 0;
			uint64_t a = activity(c), b = activity(it->second);
			return a >= b ? static_cast<double>(a - b) / dt : 0;
		};
		if (o.by_activity)
			std::stable_sort(caches.begin(), caches.end(),
					 [&](const CacheInfo& a, const CacheInfo& b) {
						 double ra = per_sec(a), rb = per_sec(b);
						 return ra != rb ? ra > rb : a.name < b.name;
					 });
		else
			sort_caches(caches, SortKey::name, 0);

		if (json) {
			Json j = json_envelope("watch");
			j["sample"] = sample;
			j["time"] = static_cast<double>(std::time(nullptr));
			j["seconds"] = sample ? Json(dt) : Json(nullptr);
			Json list = Json::array();
			for (const auto& c : caches) {
				auto it = prev.find(c.name);
				const CacheInfo* p = it == prev.end() ? nullptr : &it->second;
				Json cj = Json::object();
				cj["name"] = c.name;
				cj["objects"] = c.objects;
				cj["slabs"] = c.slabs;
				cj["pages"] = c.pages;
				uint64_t ta = c.stat(SLABLAB_ALLOC_FASTPATH) +
					      c.stat(SLABLAB_ALLOC_SLOWPATH);
				uint64_t tf = c.stat(SLABLAB_FREE_FASTPATH) +
					      c.stat(SLABLAB_FREE_SLOWPATH);
				cj["alloc"] = ta;
				cj["free"] = tf;
				cj["alloc_fastpath_pct"] =
					percent(c.stat(SLABLAB_ALLOC_FASTPATH), ta);
				cj["free_fastpath_pct"] =
					percent(c.stat(SLABLAB_FREE_FASTPATH), tf);
				cj["order_fallback"] = c.stat(SLABLAB_ORDER_FALLBACK);
				cj["order"] = c.order;
				cj["cmpxchg_double_fail"] = c.stat(SLABLAB_CMPXCHG_DOUBLE_FAIL);
				cj["cmpxchg_double_cpu_fail"] =
					c.stat(SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL);
				std::optional<double> ar, fr;
				if (p) {
					ar = rate(ta, p->stat(SLABLAB_ALLOC_FASTPATH) +
							      p->stat(SLABLAB_ALLOC_SLOWPATH),
						  dt);
					fr = rate(tf, p->stat(SLABLAB_FREE_FASTPATH) +
							      p->stat(SLABLAB_FREE_SLOWPATH),
						  dt);
				}
				cj["alloc_per_sec"] = ar ? Json(*ar) : Json(nullptr);
				cj["free_per_sec"] = fr ? Json(*fr) : Json(nullptr);
				list.push_back(std::move(cj));
			}
			j["caches"] = std::move(list);
			j["storm"] = storm ? to_json(*storm) : Json(nullptr);
			print_json(j);	// a line each without -p: JSON Lines
		} else {
			int w = 21;
			for (const auto& c : caches)
				w = std::max(w, static_cast<int>(c.name.size()));
			std::string screen;
			if (tty)
				screen += "\033[H\033[2J";
			else if (sample)
				screen += '\n';
			screen += fmt::format(
				"slabctl watch  {}  every {:g} s{}{}\n", clock_now(), interval,
				sample ? fmt::format("  (rates over {:.2f} s)", dt) : "",
				tty ? "  Ctrl-C quits" : "");
			screen += watch_header(w) + '\n';
			for (const auto& c : caches) {
				auto it = prev.find(c.name);
				screen += watch_line(c, it == prev.end() ? nullptr : &it->second,
						     dt, w) +
					  '\n';
			}
			if (storm && storm->state != SLABLAB_STORM_NONE)
				screen += render_storm_status(*storm) + '\n';
			fmt::print("{}", screen);
		}
		std::fflush(stdout);
		prev.clear();
		for (auto& c : caches)
			prev.emplace(c.name, std::move(c));
		if (o.count && sample + 1 >= o.count)
			break;
		if (!sleep_unless_interrupted(interval))
			break;
	}
	return static_cast<int>(kExitOk);
}

}  // namespace

Action setup_watch(CLI::App& cmd)
{
	auto o = std::make_shared<WatchOptions>();
	cmd.add_option("CACHE", o->patterns, "Cache names or shell patterns (default: every cache)");
	cmd.add_option("-i,--interval", o->interval,
		       "Seconds between refreshes (decimals, or 500ms; default 1)");
	cmd.add_option("-n,--count", o->count,
		       "Refresh this many times, then exit (default: until Ctrl-C)");
	cmd.add_flag("-A,--activity", o->by_activity,
		     "Sort by allocations + frees per second, most active first");
	add_json_flag(cmd, "One JSON document per refresh, one per line (schema slablab/1), as "
			   "slabctl -j");
	return [o] { return run_watch(*o); };
}

}  // namespace slabctl::cli
