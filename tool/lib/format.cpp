// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/format.hpp"

#include "slabctl/names.hpp"
#include "slabctl/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <strings.h>

namespace slabctl {
namespace {

constexpr int kNameWidth = 21;	// slabinfo's %-21s

int name_width(const std::vector<CacheInfo>& caches)
{
	std::size_t w = kNameWidth;
	for (const auto& c : caches)
		w = std::max(w, c.name.size());
	return static_cast<int>(w);
}

uint64_t sub_sat(uint64_t a, uint64_t b) noexcept
{
	return a > b ? a - b : 0;
}

uint64_t total_alloc(const StatArray& s) noexcept
{
	return s[SLABLAB_ALLOC_FASTPATH] + s[SLABLAB_ALLOC_SLOWPATH];
}

uint64_t total_free(const StatArray& s) noexcept
{
	return s[SLABLAB_FREE_FASTPATH] + s[SLABLAB_FREE_SLOWPATH];
}

std::string header_line(int name_w, bool activity, bool bytes)
{
	if (activity)
		return fmt::format("{:<{}}  Objects      Alloc       Free   %Fast Fallb O CmpX   UL",
				   "Name", name_w);
	return fmt::format("{:<{}}  Objects Objsize {:>{}} Slabs/Part/Cpu  O/S O %Fr %Ef Flg", "Name",
			   name_w, "Space", bytes ? 12 : 8);
}

std::string line(const CacheInfo& c, uint32_t page_size, const TableOptions& o, int name_w)
{
	const StatArray& s = c.stats;
	if (o.activity) {
		uint64_t ta = total_alloc(s), tf = total_free(s);
		return fmt::format("{:<{}} {:>8} {:>10} {:>10} {:>3} {:>3} {:>5} {:>1} {:>4} {:>4}",
				   c.name, name_w, c.objects, ta, tf,
				   percent(s[SLABLAB_ALLOC_FASTPATH], ta),
				   percent(s[SLABLAB_FREE_FASTPATH], tf), s[SLABLAB_ORDER_FALLBACK],
				   c.order, s[SLABLAB_CMPXCHG_DOUBLE_FAIL],
				   s[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL]);
	}
	const uint64_t space = cache_space(c, page_size);
	const uint64_t cpu = cache_cpu_slabs(c);
	std::string dist = fmt::format("{}/{}/{}", sub_sat(c.slabs, cpu), c.partial_slabs, cpu);
	return fmt::format("{:<{}} {:>8} {:>7} {:>{}} {:>14} {:>4} {:>1} {:>3} {:>3} {}", c.name,
			   name_w, c.objects, c.size, format_size(space, o.bytes),
			   o.bytes ? 12 : 8, dist, c.objs_per_slab, c.order,
			   percent(c.partial_slabs, c.slabs, 100),
			   percent(c.objects * c.size, space, 100), flag_letters(c));
}

void kv(std::string& out, std::string_view key, const std::string& value)
{
	fmt::format_to(std::back_inserter(out), "  {:<28}{}\n", key, value);
}

void kv(std::string& out, std::string_view key, uint64_t value)
{
	kv(out, key, fmt::format("{}", value));
}

void kv_size(std::string& out, std::string_view key, uint64_t value)
{
	if (value > 1000)
		kv(out, key, fmt::format("{} ({})", value, format_size(value)));
	else
		kv(out, key, value);
}

void perf_counters(std::string& out, const StatArray& s)
{
	const uint64_t ta = total_alloc(s), tf = total_free(s);
	auto row = [&](std::string_view label, uint64_t a, uint64_t f) {
		fmt::format_to(std::back_inserter(out), "{:<20} {:>10} {:>10} {:>3} {:>3}\n", label,
			       a, f, percent(a, ta), percent(f, tf));
	};
	out += "\nSlab Perf Counter         Alloc       Free %Al %Fr\n";
	out += "--------------------------------------------------\n";
	row("Fastpath", s[SLABLAB_ALLOC_FASTPATH], s[SLABLAB_FREE_FASTPATH]);
	row("Slowpath", s[SLABLAB_ALLOC_SLOWPATH], s[SLABLAB_FREE_SLOWPATH]);
	row("Page Alloc", s[SLABLAB_ALLOC_SLAB], s[SLABLAB_FREE_SLAB]);
	row("Add partial", s[SLABLAB_DEACTIVATE_TO_HEAD] + s[SLABLAB_DEACTIVATE_TO_TAIL],
	    s[SLABLAB_FREE_ADD_PARTIAL]);
	row("Remove partial", s[SLABLAB_ALLOC_FROM_PARTIAL], s[SLABLAB_FREE_REMOVE_PARTIAL]);
	row("Cpu partial list", s[SLABLAB_CPU_PARTIAL_ALLOC], s[SLABLAB_CPU_PARTIAL_FREE]);
	row("RemoteObj/SlabFrozen", s[SLABLAB_DEACTIVATE_REMOTE_FREES], s[SLABLAB_FREE_FROZEN]);
	fmt::format_to(std::back_inserter(out), "{:<20} {:>10} {:>10}\n", "Total", ta, tf);

	const uint64_t deact = s[SLABLAB_DEACTIVATE_FULL] + s[SLABLAB_DEACTIVATE_EMPTY] +
			       s[SLABLAB_DEACTIVATE_TO_HEAD] + s[SLABLAB_DEACTIVATE_TO_TAIL] +
			       s[SLABLAB_DEACTIVATE_BYPASS];
	auto drow = [&](std::string_view label, uint64_t v) {
		fmt::format_to(std::back_inserter(out), "{:<30}{:>10}  {:>3}%\n", label, v,
			       percent(v, deact));
	};
	out += "\nSlab Deactivation             Occurrences    %\n";
	out += "-----------------------------------------------\n";
	drow("Slab full", s[SLABLAB_DEACTIVATE_FULL]);
	drow("Slab empty", s[SLABLAB_DEACTIVATE_EMPTY]);
	drow("Moved to head of partial list", s[SLABLAB_DEACTIVATE_TO_HEAD]);
	drow("Moved to tail of partial list", s[SLABLAB_DEACTIVATE_TO_TAIL]);
	drow("Deactivation bypass", s[SLABLAB_DEACTIVATE_BYPASS]);
	drow("Refilled from foreign frees", s[SLABLAB_ALLOC_REFILL]);
	drow("Node mismatch", s[SLABLAB_ALLOC_NODE_MISMATCH]);

	fmt::format_to(std::back_inserter(out),
		       "\nFlushes {}   Order fallbacks {}   Cpu partial: node->cpu {}, drained {}\n",
		       s[SLABLAB_CPUSLAB_FLUSH], s[SLABLAB_ORDER_FALLBACK],
		       s[SLABLAB_CPU_PARTIAL_NODE], s[SLABLAB_CPU_PARTIAL_DRAIN]);
	fmt::format_to(std::back_inserter(out),
		       "Locked Cmpxchg Double redos   {}   (cmpxchg_double_fail)\n"
		       "Unlocked Cmpxchg Double redos {}   (cmpxchg_double_cpu_fail)\n",
		       s[SLABLAB_CMPXCHG_DOUBLE_FAIL], s[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL]);
}

void all_counters(std::string& out, const StatArray& s)
{
	out += "\nCounters\n--------\n";
	const auto& names = stat_names();
	const std::size_t half = (kNrStats + 1) / 2;
	for (std::size_t i = 0; i < half; i++) {
		std::string left = fmt::format("{:<24}{:>14}", names[i], s[i]);
		if (i + half < kNrStats)
			fmt::format_to(std::back_inserter(out), "  {}    {:<24}{:>14}\n", left,
				       names[i + half], s[i + half]);
		else
			fmt::format_to(std::back_inserter(out), "  {}\n", left);
	}
}

void percpu_tables(std::string& out, const CacheInfo& c)
{
	if (!c.has_percpu) {
		out += "\nPer cpu: not reported\n";
		return;
	}
	fmt::format_to(std::back_inserter(out), "\nPer cpu ({} cpus reported)\n", c.percpu.size());
	out += "  CPU  SlabObjs PartSlabs  PartObjs      Alloc       Free %FastA %FastF\n";
	for (const auto& p : c.percpu) {
		uint64_t ta = total_alloc(p.stats), tf = total_free(p.stats);
		fmt::format_to(std::back_inserter(out),
			       "  {:>3} {:>9} {:>9} {:>9} {:>10} {:>10} {:>6} {:>6}\n", p.cpu,
			       p.cpu_slab_objects, p.cpu_partial_slabs, p.cpu_partial_objects, ta, tf,
			       percent(p.stats[SLABLAB_ALLOC_FASTPATH], ta),
			       percent(p.stats[SLABLAB_FREE_FASTPATH], tf));
	}
	if (c.percpu.empty())
		return;

	// Every counter of every cpu: counters as rows, cpus as columns, 6 cpus at a time.
	// Counters that are zero on every cpu are left out to keep it readable.
	std::vector<std::size_t> rows;
	for (std::size_t i = 0; i < kNrStats; i++)
		if (std::any_of(c.percpu.begin(), c.percpu.end(),
				[i](const PerCpuInfo& p) { return p.stats[i] != 0; }))
			rows.push_back(i);
	if (rows.empty()) {
		out += "\nPer-cpu counters: all zero\n";
		return;
	}
	constexpr std::size_t kCols = 6;
	for (std::size_t first = 0; first < c.percpu.size(); first += kCols) {
		std::size_t last = std::min(first + kCols, c.percpu.size());
		out += fmt::format("\n  {:<24}", "Per-cpu counters");
		for (std::size_t j = first; j < last; j++)
			out += fmt::format(" {:>11}", fmt::format("cpu{}", c.percpu[j].cpu));
		out += '\n';
		for (std::size_t i : rows) {
			out += fmt::format("  {:<24}", stat_name(i));
			for (std::size_t j = first; j < last; j++)
				out += fmt::format(" {:>11}", c.percpu[j].stats[i]);
			out += '\n';
		}
	}
	out += "  (counters that are zero on every cpu are not shown)\n";
}

struct MinMax {
	uint64_t min = std::numeric_limits<uint64_t>::max(), max = 0, total = 0;
	void add(uint64_t v)
	{
		min = std::min(min, v);
		max = std::max(max, v);
		total += v;
	}
};

}  // namespace

std::string format_size(uint64_t value, bool bytes)
{
	if (bytes)
		return fmt::format("{}", value);
	uint64_t divisor = 1;
	char trailer = 0;
	if (value > 1000000000ULL) {
		divisor = 100000000ULL;
		trailer = 'G';
	} else if (value > 1000000ULL) {
		divisor = 100000ULL;
		trailer = 'M';
	} else if (value > 1000ULL) {
		divisor = 100;
		trailer = 'K';
	}
	std::string s = fmt::format("{}", value / divisor);
	if (divisor != 1) {
		s.insert(s.size() - 1, 1, '.');
		s.push_back(trailer);
	}
	return s;
}

uint64_t percent(uint64_t part, uint64_t whole, uint64_t if_zero) noexcept
{
	return whole ? part * 100 / whole : if_zero;
}

uint64_t cache_space(const CacheInfo& c, uint32_t page_size) noexcept
{
	if (c.pages)
		return c.pages * page_size;
	return c.slabs * (static_cast<uint64_t>(page_size) << std::min<uint32_t>(c.order, 20));
}

uint64_t cache_loss(const CacheInfo& c, uint32_t page_size) noexcept
{
	return sub_sat(cache_space(c, page_size), c.objects * c.size);
}

uint64_t cache_cpu_slabs(const CacheInfo& c) noexcept
{
	return c.cpu_slabs + c.cpu_partial_slabs;
}

uint64_t cache_activity(const CacheInfo& c) noexcept
{
	return total_alloc(c.stats) + total_free(c.stats);
}

std::string flag_letters(const CacheInfo& c)
{
	std::string f;
	// slabinfo's order: A (hwcache_align) first, then ours.
	if (c.flags & SLABLAB_CACHE_F_HWCACHE_ALIGN)
		f += 'A';
	if (c.flags & SLABLAB_CACHE_F_DEBUG)
		f += 'D';
	if (c.flags & SLABLAB_CACHE_F_HARDENED)
		f += 'H';
	if (c.flags & SLABLAB_CACHE_F_RANDOM)
		f += 'R';
	if (c.owner == SLABLAB_OWNER_KMALLOC)
		f += 'k';
	else if (c.owner == SLABLAB_OWNER_KERNEL)
		f += 'm';
	return f;
}

void sort_caches(std::vector<CacheInfo>& caches, SortKey key, uint32_t page_size)
{
	auto by_name = [](const CacheInfo& a, const CacheInfo& b) {
		int r = strcasecmp(a.name.c_str(), b.name.c_str());
		return r != 0 ? r < 0 : a.name < b.name;
	};
	switch (key) {
	case SortKey::name:
		std::stable_sort(caches.begin(), caches.end(), by_name);
		break;
	case SortKey::size:
		std::stable_sort(caches.begin(), caches.end(),
				 [&](const CacheInfo& a, const CacheInfo& b) {
					 uint64_t sa = cache_space(a, page_size);
					 uint64_t sb = cache_space(b, page_size);
					 return sa != sb ? sa > sb : by_name(a, b);
				 });
		break;
	case SortKey::activity:
		std::stable_sort(caches.begin(), caches.end(),
				 [&](const CacheInfo& a, const CacheInfo& b) {
					 uint64_t xa = cache_activity(a), xb = cache_activity(b);
					 return xa != xb ? xa > xb : by_name(a, b);
				 });
		break;
	}
}

std::string table_header(bool activity)
{
	return header_line(kNameWidth, activity, false);
}

std::string table_line(const CacheInfo& c, uint32_t page_size, const TableOptions& o,
		       int name_width)
{
	return line(c, page_size, o, name_width);
}

std::string render_table(const std::vector<CacheInfo>& caches, uint32_t page_size,
			 const TableOptions& o)
{
	const int w = name_width(caches);
	std::string out = header_line(w, o.activity, o.bytes && !o.activity);
	out += '\n';
	for (const auto& c : caches) {
		out += line(c, page_size, o, w);
		out += '\n';
	}
	return out;
}

Totals compute_totals(const std::vector<CacheInfo>& caches, uint32_t page_size)
{
	Totals t;
	for (const auto& c : caches) {
		t.caches++;
		if (c.slabs && c.objects)
			t.active++;
		t.space += cache_space(c, page_size);
		t.used += c.objects * c.size;
		t.objects += c.objects;
		t.total_objects += c.total_objects;
		t.slabs += c.slabs;
		t.partial_slabs += c.partial_slabs;
		t.cpu_slabs += cache_cpu_slabs(c);
		t.alloc += total_alloc(c.stats);
		t.free += total_free(c.stats);
	}
	t.loss = sub_sat(t.space, t.used);
	return t;
}

std::string render_totals(const std::vector<CacheInfo>& caches, uint32_t page_size, bool bytes)
{
	const Totals t = compute_totals(caches, page_size);
	auto sz = [bytes](uint64_t v) { return format_size(v, bytes); };
	std::string out = "Slabcache Totals\n----------------\n";
	fmt::format_to(std::back_inserter(out), "Slabcaches : {:>6}   Active   : {:>6}\n", t.caches,
		       t.active);
	fmt::format_to(std::back_inserter(out), "Memory used: {:>6}   # Loss   : {:>6}   MRatio:{:>6}%\n",
		       sz(t.space), sz(t.loss), percent(t.loss, t.used));
	const uint64_t free_objs = sub_sat(t.total_objects, t.objects);
	fmt::format_to(std::back_inserter(out), "# Objects  : {:>6}   # Free   : {:>6}   FRatio:{:>6}%\n",
		       sz(t.objects), sz(free_objs), percent(free_objs, t.total_objects));
	fmt::format_to(std::back_inserter(out), "# Alloc    : {:>6}   # Free'd : {:>6}\n", sz(t.alloc),
		       sz(t.free));
	if (!t.active) {
		out += "\nNo objects\n";
		return out;
	}

	MinMax objects, slabs, partial, ppart, space, used, loss;
	MinMax memobj, userobj, lossobj;
	uint64_t weighted_stride = 0, weighted_loss = 0;
	for (const auto& c : caches) {
		if (!c.slabs || !c.objects)
			continue;
		objects.add(c.objects);
		slabs.add(c.slabs);
		partial.add(c.partial_slabs);
		ppart.add(std::min<uint64_t>(percent(c.partial_slabs, c.slabs), 100));
		space.add(cache_space(c, page_size));
		used.add(c.objects * c.size);
		loss.add(cache_loss(c, page_size));
		const uint64_t stride = std::max(c.obj_stride, c.size);
		memobj.add(stride);
		userobj.add(c.size);
		lossobj.add(stride - c.size);
		weighted_stride += c.objects * stride;
		weighted_loss += c.objects * (stride - c.size);
	}
	const uint64_t n = t.active;
	out += "\nPer Cache    Average         Min         Max       Total\n";
	out += "---------------------------------------------------------\n";
	auto row4 = [&](std::string_view label, const MinMax& m) {
		fmt::format_to(std::back_inserter(out), "{:<9} {:>10}  {:>10}  {:>10}  {:>10}\n", label,
			       sz(m.total / n), sz(m.min), sz(m.max), sz(m.total));
	};
	row4("#Objects", objects);
	row4("#Slabs", slabs);
	row4("#PartSlab", partial);
	fmt::format_to(std::back_inserter(out), "{:<9}{:>10}% {:>10}% {:>10}% {:>10}%\n", "%PartSlab",
		       ppart.total / n, ppart.min, ppart.max, percent(t.partial_slabs, t.slabs));
	row4("Memory", space);
	row4("Used", used);
	row4("Loss", loss);

	out += "\nPer Object   Average         Min         Max\n";
	out += "---------------------------------------------\n";
	auto row3 = [&](std::string_view label, uint64_t avg, const MinMax& m) {
		fmt::format_to(std::back_inserter(out), "{:<9} {:>10}  {:>10}  {:>10}\n", label, sz(avg),
			       sz(m.min), sz(m.max));
	};
	const uint64_t objs = std::max<uint64_t>(objects.total, 1);
	row3("Memory", weighted_stride / objs, memobj);
	row3("User", used.total / objs, userobj);
	row3("Loss", weighted_loss / objs, lossobj);
	return out;
}

std::string render_report(const CacheInfo& c, uint32_t page_size)
{
	std::string out;
	fmt::format_to(std::back_inserter(out), "Slabcache: {:<24} Owner: {:<8} Order: {:>2}  Objects: {}\n",
		       c.name, owner_name(c.owner), c.order, c.objects);
	if (c.flags & SLABLAB_CACHE_F_HWCACHE_ALIGN)
		out += "** Hardware cacheline aligned\n";
	if (c.flags & SLABLAB_CACHE_F_DEBUG)
		out += "** Debugging: poisoning, red zones, free-pointer checks\n";
	if (c.flags & SLABLAB_CACHE_F_HARDENED)
		out += "** Free pointers obfuscated (hardened freelists)\n";
	if (c.flags & SLABLAB_CACHE_F_RANDOM)
		out += "** Freelists of new slabs randomized\n";

	const uint64_t slab_bytes = static_cast<uint64_t>(page_size) << std::min<uint32_t>(c.order, 20);
	const uint64_t space = cache_space(c, page_size);
	const uint64_t stride = std::max(c.obj_stride, c.size);

	out += "\nGeometry\n";
	kv(out, "size", c.size);
	kv(out, "align", c.align);
	kv(out, "obj_stride", c.obj_stride);
	kv(out, "objs_per_slab", c.objs_per_slab);
	kv(out, "slab bytes (order)", fmt::format("{} ({})", slab_bytes, c.order));
	kv(out, "loss per object", stride - c.size);
	kv(out, "padding per slab", sub_sat(slab_bytes, uint64_t{c.objs_per_slab} * stride));

	out += "\nTunables\n";
	kv(out, "flags", fmt::format("{} ({:#x})", c.flags ? join(cache_flag_names(c.flags)) : "none",
				     c.flags));
	kv(out, "fastpath", fastpath_name(c.fastpath));
	kv(out, "cpu_partial", c.cpu_partial);
	kv(out, "min_partial", c.min_partial);
	kv(out, "order", c.order);
	kv(out, "order_default", fmt::format("{} (largest allowed: {})", c.order_default,
					     SLABLAB_MAX_ORDER));
	kv(out, "fail_slab_every", c.fail_slab_every
		? fmt::format("{} (fault injection: every {}th new slab fails)",
			      c.fail_slab_every, c.fail_slab_every)
		: std::string("0 (off)"));

	out += "\nGauges\n";
	kv(out, "objects", c.objects);
	kv(out, "total_objects", c.total_objects);
	kv(out, "slabs", c.slabs);
	kv(out, "partial_slabs", c.partial_slabs);
	kv(out, "cpu_slabs", c.cpu_slabs);
	kv(out, "cpu_partial_slabs", c.cpu_partial_slabs);
	kv(out, "pages", c.pages);
	kv_size(out, "live_bytes", c.live_bytes);
	kv_size(out, "meta_bytes", c.meta_bytes);
	if (c.slabs_freed)
		kv(out, "slabs_freed", *c.slabs_freed);

	out += "\nMemory\n";
	kv_size(out, "space (pages x page size)", space);
	kv_size(out, "used (objects x size)", c.objects * c.size);
	kv_size(out, "loss", cache_loss(c, page_size));
	kv(out, "efficiency", fmt::format("{}%", percent(c.objects * c.size, space, 100)));
	kv(out, "partial slabs", fmt::format("{}%", percent(c.partial_slabs, c.slabs, 0)));
	kv(out, "free object slots", sub_sat(c.total_objects, c.objects));

	if (!c.has_stats) {
		out += "\nCounters: not reported\n";
	} else {
		perf_counters(out, c.stats);
		all_counters(out, c.stats);
	}
	percpu_tables(out, c);
	return out;
}

std::string module_version_line(const Status& s)
{
	return fmt::format("slablab module {} (api {}) on {}, {} cpu{}", s.version, s.api_version,
			   s.kernel_release, s.nr_online_cpus, s.nr_online_cpus == 1 ? "" : "s");
}

std::string render_status(const Status& s)
{
	std::string out;
	auto row = [&](std::string_view k, const std::string& v) {
		fmt::format_to(std::back_inserter(out), "{:<20}{}\n", k, v);
	};
	row("module version", fmt::format("{} (api {}; slabctl {} speaks api {})", s.version,
					  s.api_version, kVersion, SLABLAB_GENL_VERSION));
	row("kernel", s.kernel_release);
	row("cpus", fmt::format("{} online, {} possible ids", s.nr_online_cpus, s.nr_cpu_ids));
	row("numa nodes", fmt::format("{}", s.nr_nodes));
	row("page size", fmt::format("{}", s.page_size));
	row("caches", fmt::format("{}", s.nr_caches));
	row("kmalloc page policy", page_policy_name(s.kmalloc_page_policy));
	auto f = feature_names(s.features);
	row("features", fmt::format("{} ({:#x})", f.empty() ? "none" : join(f, ", "), s.features));
	return out;
}

std::string render_cache_summary(const CacheInfo& c)
{
	return fmt::format(
		"{}: size {}, align {}, stride {}, {} objects/slab, order {} (default {}), "
		"cpu_partial {}, min_partial {}, fastpath {}, flags {}",
		c.name, c.size, c.align, c.obj_stride, c.objs_per_slab, c.order, c.order_default,
		c.cpu_partial, c.min_partial, fastpath_name(c.fastpath),
		c.flags ? join(cache_flag_names(c.flags)) : "none");
}

std::string render_validate(const ValidateReport& v)
{
	std::string walked = fmt::format("{} slabs, {} object slots, {} free", v.slabs, v.objects,
					 v.free_objects);
	if (v.ok())
		return fmt::format("{}: OK ({})", v.cache, walked);
	return fmt::format("{}: {} error{} ({}); first: {}", v.cache, v.errors,
			   v.errors == 1 ? "" : "s", walked,
			   v.first_error.empty() ? "(not reported)" : v.first_error);
}

}  // namespace slabctl
