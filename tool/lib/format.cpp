// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/format.hpp"

#include "slabctl/names.hpp"
#include "slabctl/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <set>
#include <system_error>
#include <utility>
#include <optional>
#include <variant>
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

/// The cells of one table line; "-" for what is unknown.
struct Cells {
	std::string name;
	// default view
	std::string objects, objsize, space, dist, ops, order, fr, ef, flags;
	// activity view (-D)
	std::string alloc, free, fast_alloc, fast_free, fallback, cmpx, ul;
};

std::string num(uint64_t v)
{
	return fmt::format("{}", v);
}

std::string num(const std::optional<uint64_t>& v)
{
	return v ? fmt::format("{}", *v) : std::string("-");
}

std::string format_line(const Cells& c, const TableOptions& o, int name_w)
{
	if (o.activity)
		return fmt::format("{:<{}} {:>8} {:>10} {:>10} {:>3} {:>3} {:>5} {:>1} {:>4} {:>4}",
				   c.name, name_w, c.objects, c.alloc, c.free, c.fast_alloc,
				   c.fast_free, c.fallback, c.order, c.cmpx, c.ul);
	return fmt::format("{:<{}} {:>8} {:>7} {:>{}} {:>14} {:>4} {:>1} {:>3} {:>3} {}", c.name,
			   name_w, c.objects, c.objsize, c.space, o.bytes ? 12 : 8, c.dist, c.ops,
			   c.order, c.fr, c.ef, c.flags);
}

Cells cells(const CacheInfo& c, uint32_t page_size, const TableOptions& o)
{
	const StatArray& s = c.stats;
	Cells x;
	x.name = c.name;
	x.objects = num(c.objects);
	x.order = num(c.order);
	if (o.activity) {
		uint64_t ta = total_alloc(s), tf = total_free(s);
		x.alloc = num(ta);
		x.free = num(tf);
		x.fast_alloc = num(percent(s[SLABLAB_ALLOC_FASTPATH], ta));
		x.fast_free = num(percent(s[SLABLAB_FREE_FASTPATH], tf));
		x.fallback = num(s[SLABLAB_ORDER_FALLBACK]);
		x.cmpx = num(s[SLABLAB_CMPXCHG_DOUBLE_FAIL]);
		x.ul = num(s[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL]);
		return x;
	}
	const uint64_t space = cache_space(c, page_size);
	const uint64_t cpu = cache_cpu_slabs(c);
	x.objsize = num(c.size);
	x.space = format_size(space, o.bytes);
	x.dist = fmt::format("{}/{}/{}", sub_sat(c.slabs, cpu), c.partial_slabs, cpu);
	x.ops = num(c.objs_per_slab);
	x.fr = num(percent(c.partial_slabs, c.slabs, 100));
	x.ef = num(percent(c.objects * c.size, space, 100));
	x.flags = flag_letters(c);
	return x;
}

/// A kernel cache's cells, computed as slabinfo.c computes them; "-" where a file could
/// not be read (or does not exist on this kernel).
Cells cells(const NativeCache& c, uint32_t page_size, const TableOptions& o)
{
	Cells x;
	x.name = c.display_name();
	x.objects = num(c.objects);
	x.order = num(c.order);
	if (o.activity) {
		const auto& st = c.stats;
		std::optional<uint64_t> ta, tf;
		if (st[SLABLAB_ALLOC_FASTPATH] && st[SLABLAB_ALLOC_SLOWPATH])
			ta = *st[SLABLAB_ALLOC_FASTPATH] + *st[SLABLAB_ALLOC_SLOWPATH];
		if (st[SLABLAB_FREE_FASTPATH] && st[SLABLAB_FREE_SLOWPATH])
			tf = *st[SLABLAB_FREE_FASTPATH] + *st[SLABLAB_FREE_SLOWPATH];
		x.alloc = num(ta);
		x.free = num(tf);
		x.fast_alloc = ta ? num(percent(*st[SLABLAB_ALLOC_FASTPATH], *ta)) : "-";
		x.fast_free = tf ? num(percent(*st[SLABLAB_FREE_FASTPATH], *tf)) : "-";
		x.fallback = num(st[SLABLAB_ORDER_FALLBACK]);
		x.cmpx = num(st[SLABLAB_CMPXCHG_DOUBLE_FAIL]);
		x.ul = num(st[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL]);
		return x;
	}
	const auto space = c.space(page_size);
	x.objsize = num(c.object_size);
	x.space = space ? format_size(*space, o.bytes) : "-";
	std::optional<uint64_t> full;
	if (c.slabs && c.cpu_slabs)
		full = sub_sat(*c.slabs, *c.cpu_slabs);
	x.dist = fmt::format("{}/{}/{}", num(full), num(c.partial), num(c.cpu_slabs));
	x.ops = num(c.objs_per_slab);
	if (c.slabs && (*c.slabs == 0 || c.partial))
		x.fr = num(percent(c.partial.value_or(0), *c.slabs, 100));
	else
		x.fr = "-";
	if (space && (*space == 0 || (c.objects && c.object_size)))
		x.ef = num(percent(c.objects.value_or(0) * c.object_size.value_or(0), *space, 100));
	else
		x.ef = "-";
	x.flags = native_flag_letters(c);
	return x;
}

std::string line(const CacheInfo& c, uint32_t page_size, const TableOptions& o, int name_w)
{
	return format_line(cells(c, page_size, o), o, name_w);
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

std::string native_flag_letters(const NativeCache& c)
{
	bool any_known = false;
	std::string f;
	if (c.merged && *c.merged)
		f += '*';
	const auto table = native_flag_table();
	for (std::size_t i = 0; i < table.size() && i < c.flags.size(); i++) {
		if (!c.flags[i])
			continue;
		any_known = true;
		if (*c.flags[i] && table[i].letter)
			f += table[i].letter;
	}
	if (!any_known)
		f += '-';	// no flag file could be read
	return f;
}

std::string row_display_name(const InfoRow& r)
{
	if (const auto* c = std::get_if<CacheInfo>(&r))
		return c->name;
	return std::get<NativeCache>(r).display_name();
}

namespace {

const std::string& bare_name(const InfoRow& r)
{
	if (const auto* c = std::get_if<CacheInfo>(&r))
		return c->name;
	return std::get<NativeCache>(r).name;
}

std::optional<uint64_t> row_space(const InfoRow& r, uint32_t page_size)
{
	if (const auto* c = std::get_if<CacheInfo>(&r))
		return cache_space(*c, page_size);
	return std::get<NativeCache>(r).space(page_size);
}

std::optional<uint64_t> row_activity(const InfoRow& r)
{
	if (const auto* c = std::get_if<CacheInfo>(&r))
		return cache_activity(*c);
	return std::get<NativeCache>(r).activity();
}

/// Largest first; unknown values after every known one.
bool larger_known_first(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b)
{
	if (a.has_value() != b.has_value())
		return a.has_value();
	return a && *a > *b;
}

}  // namespace

void sort_rows(std::vector<InfoRow>& rows, SortKey key, uint32_t page_size)
{
	// by name: the cache's own name, case-insensitive, so that slablab's kmalloc-64 and
	// the kernel's slub/kmalloc-64 sit next to each other (slablab's first)
	auto by_name = [](const InfoRow& a, const InfoRow& b) {
		const std::string& na = bare_name(a);
		const std::string& nb = bare_name(b);
		int r = strcasecmp(na.c_str(), nb.c_str());
		if (r != 0)
			return r < 0;
		if (na != nb)
			return na < nb;
		return a.index() < b.index();
	};
	switch (key) {
	case SortKey::name:
		std::stable_sort(rows.begin(), rows.end(), by_name);
		break;
	case SortKey::size:
		std::stable_sort(rows.begin(), rows.end(), [&](const InfoRow& a, const InfoRow& b) {
			auto sa = row_space(a, page_size), sb = row_space(b, page_size);
			if (sa != sb)
				return larger_known_first(sa, sb);
			return by_name(a, b);
		});
		break;
	case SortKey::activity:
		std::stable_sort(rows.begin(), rows.end(), [&](const InfoRow& a, const InfoRow& b) {
			auto xa = row_activity(a), xb = row_activity(b);
			if (xa != xb)
				return larger_known_first(xa, xb);
			return by_name(a, b);
		});
		break;
	}
}

std::string table_line(const NativeCache& c, uint32_t page_size, const TableOptions& o,
		       int name_width)
{
	return format_line(cells(c, page_size, o), o, name_width);
}

std::string render_rows(const std::vector<InfoRow>& rows, uint32_t page_size,
			 const TableOptions& o)
{
	std::size_t w = kNameWidth;
	for (const auto& r : rows)
		w = std::max(w, row_display_name(r).size());
	const int name_w = static_cast<int>(w);
	std::string out = header_line(name_w, o.activity, o.bytes && !o.activity);
	out += '\n';
	for (const auto& r : rows) {
		if (const auto* c = std::get_if<CacheInfo>(&r))
			out += format_line(cells(*c, page_size, o), o, name_w);
		else
			out += format_line(cells(std::get<NativeCache>(r), page_size, o), o, name_w);
		out += '\n';
	}
	return out;
}

namespace {

/// What -T needs of one cache, every figure known.
struct TotalsItem {
	uint64_t objects = 0, size = 0, stride = 0, total_objects = 0;
	uint64_t slabs = 0, partial = 0, cpu = 0, space = 0;
	std::optional<uint64_t> alloc, free;
	bool active() const noexcept { return slabs && objects; }
};

TotalsItem totals_item(const CacheInfo& c, uint32_t page_size)
{
	TotalsItem i;
	i.objects = c.objects;
	i.size = c.size;
	i.stride = std::max(c.obj_stride, c.size);
	i.total_objects = c.total_objects;
	i.slabs = c.slabs;
	i.partial = c.partial_slabs;
	i.cpu = cache_cpu_slabs(c);
	i.space = cache_space(c, page_size);
	i.alloc = total_alloc(c.stats);
	i.free = total_free(c.stats);
	return i;
}

std::optional<TotalsItem> totals_item(const NativeCache& c, uint32_t page_size)
{
	const auto space = c.space(page_size);
	if (!c.objects || !c.object_size || !c.slab_size || !c.total_objects || !c.slabs ||
	    !c.partial || !c.cpu_slabs || !space)
		return std::nullopt;
	TotalsItem i;
	i.objects = *c.objects;
	i.size = *c.object_size;
	i.stride = std::max(*c.slab_size, *c.object_size);
	i.total_objects = *c.total_objects;
	i.slabs = *c.slabs;
	i.partial = *c.partial;
	i.cpu = *c.cpu_slabs;
	i.space = *space;
	const auto& st = c.stats;
	if (st[SLABLAB_ALLOC_FASTPATH] && st[SLABLAB_ALLOC_SLOWPATH])
		i.alloc = *st[SLABLAB_ALLOC_FASTPATH] + *st[SLABLAB_ALLOC_SLOWPATH];
	if (st[SLABLAB_FREE_FASTPATH] && st[SLABLAB_FREE_SLOWPATH])
		i.free = *st[SLABLAB_FREE_FASTPATH] + *st[SLABLAB_FREE_SLOWPATH];
	return i;
}

Totals sum_items(const std::vector<TotalsItem>& items)
{
	Totals t;
	for (const auto& i : items) {
		t.caches++;
		if (i.active())
			t.active++;
		t.space += i.space;
		t.used += i.objects * i.size;
		t.objects += i.objects;
		t.total_objects += i.total_objects;
		t.slabs += i.slabs;
		t.partial_slabs += i.partial;
		t.cpu_slabs += i.cpu;
		if (i.alloc && i.free) {
			t.alloc += *i.alloc;
			t.free += *i.free;
		} else {
			t.without_stats++;
		}
	}
	t.loss = sub_sat(t.space, t.used);
	return t;
}

std::string render_items(const std::vector<TotalsItem>& items, const Totals& t, bool bytes,
			 std::string_view title, std::string_view note, bool native = false)
{
	auto sz = [bytes](uint64_t v) { return format_size(v, bytes); };
	std::string out = fmt::format("{}\n{}\n", title, std::string(title.size(), '-'));
	if (!note.empty())
		fmt::format_to(std::back_inserter(out), "{}\n", note);
	fmt::format_to(std::back_inserter(out), "Slabcaches : {:>6}   Active   : {:>6}\n", t.caches,
		       t.active);
	fmt::format_to(std::back_inserter(out), "Memory used: {:>6}   # Loss   : {:>6}   MRatio:{:>6}%\n",
		       sz(t.space), sz(t.loss), percent(t.loss, t.used));
	const uint64_t free_objs = sub_sat(t.total_objects, t.objects);
	fmt::format_to(std::back_inserter(out), "# Objects  : {:>6}   # Free   : {:>6}   FRatio:{:>6}%\n",
		       sz(t.objects), sz(free_objs), percent(free_objs, t.total_objects));
	// alloc/free: known when a counted cache had its counters (slablab's always do; the
	// kernel's with CONFIG_SLUB_STATS)
	const uint64_t counted = t.caches - t.incomplete;
	const bool have_stats = counted ? t.without_stats < counted : !native;
	fmt::format_to(std::back_inserter(out), "# Alloc    : {:>6}   # Free'd : {:>6}\n",
		       have_stats ? sz(t.alloc) : "-", have_stats ? sz(t.free) : "-");
	if (!t.active) {
		out += "\nNo objects\n";
		return out;
	}

	MinMax objects, slabs, partial, ppart, space, used, loss;
	MinMax memobj, userobj, lossobj;
	uint64_t weighted_stride = 0, weighted_loss = 0;
	for (const auto& i : items) {
		if (!i.active())
			continue;
		objects.add(i.objects);
		slabs.add(i.slabs);
		partial.add(i.partial);
		ppart.add(std::min<uint64_t>(percent(i.partial, i.slabs), 100));
		space.add(i.space);
		used.add(i.objects * i.size);
		loss.add(sub_sat(i.space, i.objects * i.size));
		memobj.add(i.stride);
		userobj.add(i.size);
		lossobj.add(i.stride - i.size);
		weighted_stride += i.objects * i.stride;
		weighted_loss += i.objects * (i.stride - i.size);
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

std::vector<TotalsItem> items_of(const std::vector<CacheInfo>& caches, uint32_t page_size)
{
	std::vector<TotalsItem> items;
	items.reserve(caches.size());
	for (const auto& c : caches)
		items.push_back(totals_item(c, page_size));
	return items;
}

std::vector<TotalsItem> items_of(const std::vector<NativeCache>& caches, uint32_t page_size,
				 uint64_t& incomplete)
{
	std::vector<TotalsItem> items;
	incomplete = 0;
	for (const auto& c : caches) {
		if (auto i = totals_item(c, page_size))
			items.push_back(*i);
		else
			incomplete++;
	}
	return items;
}

}  // namespace

Totals compute_totals(const std::vector<CacheInfo>& caches, uint32_t page_size)
{
	return sum_items(items_of(caches, page_size));
}

Totals compute_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size)
{
	uint64_t incomplete = 0;
	Totals t = sum_items(items_of(caches, page_size, incomplete));
	t.caches += incomplete;
	t.incomplete = incomplete;
	return t;
}

std::string render_totals(const std::vector<CacheInfo>& caches, uint32_t page_size, bool bytes,
			  std::string_view title)
{
	const auto items = items_of(caches, page_size);
	return render_items(items, sum_items(items), bytes, title, {});
}

std::string render_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size,
				 bool bytes, std::string_view title)
{
	uint64_t incomplete = 0;
	const auto items = items_of(caches, page_size, incomplete);
	Totals t = sum_items(items);
	t.caches += incomplete;
	t.incomplete = incomplete;
	std::string note;
	if (incomplete)
		note = fmt::format("({} of {} caches not counted: some of their files could not be "
				   "read)",
				   incomplete, t.caches);
	return render_items(items, t, bytes, title, note, true);
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


// ---- info -r NAME --native ----

namespace {

std::string opt_size_text(const std::optional<uint64_t>& v)
{
	return v ? fmt::format("{}", *v) : std::string("-");
}

std::string onoff(const std::optional<bool>& v)
{
	if (!v)
		return "-  ";
	return *v ? "On " : "Off";
}

template <typename... T>
void append(std::string& out, fmt::format_string<T...> f, T&&... args)
{
	fmt::format_to(std::back_inserter(out), f, std::forward<T>(args)...);
}

template <typename F>
std::optional<uint64_t> known(F f, std::initializer_list<bool> have)
{
	for (bool h : have)
		if (!h)
			return std::nullopt;
	return f();
}

void wrap_words(std::string& out, std::string_view lead, const std::vector<std::string>& words)
{
	std::string line(lead);
	for (const auto& w : words) {
		if (line.size() + 1 + w.size() > 88 && line.size() > lead.size()) {
			out += line;
			out += '\n';
			line = std::string(lead.size(), ' ');
		}
		line += ' ';
		line += w;
	}
	out += line;
	out += '\n';
}

}  // namespace

std::string render_native_report(const NativeCache& c, uint32_t page_size)
{
	std::string out;
	append(out, "Slabcache: {:<24} Kernel (SLUB) cache, directory {}\n", c.display_name(), c.dir);
	append(out, "Aliases: {:>2} Order : {:>2} Objects: {}\n", opt_size_text(c.merged),
	    opt_size_text(c.order), opt_size_text(c.objects));
	if (!c.aliases.empty())
		wrap_words(out, "Names:", c.aliases);
	for (std::size_t i = 0; i < c.flags.size() && i < native_flag_table().size(); i++)
		if (c.flags[i] && *c.flags[i])
			append(out, "** {}\n", native_flag_table()[i].report);

	const auto& o = c.order;
	const std::optional<uint64_t> slab_bytes =
		known([&] { return static_cast<uint64_t>(page_size) << std::min<uint64_t>(*o, 20); },
		      {o.has_value()});
	const auto space = c.space(page_size);
	const auto used = known([&] { return *c.objects * *c.object_size; },
				{c.objects.has_value(), c.object_size.has_value()});
	const auto full = known([&] { return sub_sat(*c.slabs, *c.partial + *c.cpu_slabs); },
				{c.slabs.has_value(), c.partial.has_value(), c.cpu_slabs.has_value()});
	const auto loss = known([&] { return sub_sat(*space, *used); },
				{space.has_value(), used.has_value()});
	const auto obj_loss = known([&] { return sub_sat(*c.slab_size, *c.object_size); },
				    {c.slab_size.has_value(), c.object_size.has_value()});
	const auto lalig = known([&] { return *obj_loss * *c.objects; },
				 {obj_loss.has_value(), c.objects.has_value()});
	const auto lpadd = known(
		[&] { return sub_sat(*slab_bytes, *c.objs_per_slab * *c.slab_size) * *c.slabs; },
		{slab_bytes.has_value(), c.objs_per_slab.has_value(), c.slab_size.has_value(),
		 c.slabs.has_value()});
	auto v = opt_size_text;

	out += "\nSizes (bytes)     Slabs              Debug                Memory\n";
	out += "------------------------------------------------------------------------\n";
	append(out, "Object : {:>7}  Total  : {:>7}   Sanity Checks : {}  Total: {:>7}\n",
	    v(c.object_size), v(c.slabs), onoff(c.flag("sanity_checks")), v(space));
	append(out, "SlabObj: {:>7}  Full   : {:>7}   Redzoning     : {}  Used : {:>7}\n", v(c.slab_size),
	    v(full), onoff(c.flag("red_zone")), v(used));
	append(out, "SlabSiz: {:>7}  Partial: {:>7}   Poisoning     : {}  Loss : {:>7}\n", v(slab_bytes),
	    v(c.partial), onoff(c.flag("poison")), v(loss));
	append(out, "Loss   : {:>7}  CpuSlab: {:>7}   Tracking      : {}  Lalig: {:>7}\n", v(obj_loss),
	    v(c.cpu_slabs), onoff(c.flag("store_user")), v(lalig));
	append(out, "Align  : {:>7}  Objects: {:>7}   Tracing       : {}  Lpadd: {:>7}\n", v(c.align),
	    v(c.objs_per_slab), onoff(c.flag("trace")), v(lpadd));

	out += "\nTunables\n";
	kv(out, "min_partial", v(c.min_partial));
	kv(out, "cpu_partial", v(c.cpu_partial));
	kv(out, "usersize", v(c.usersize));
	kv(out, "aliases (merged caches)", v(c.merged));

	out += "\nGauges\n";
	kv(out, "objects", v(c.objects));
	kv(out, "total_objects", v(c.total_objects));
	kv(out, "slabs", v(c.slabs));
	kv(out, "partial", v(c.partial));
	kv(out, "cpu_slabs (+ cpu partial)", v(c.cpu_slabs));
	kv(out, "objects_partial", v(c.objects_partial));
	kv(out, "slabs_cpu_partial",
	   c.cpu_partial_slabs ? fmt::format("{} (about {} objects)", *c.cpu_partial_slabs,
					     v(c.cpu_partial_objects))
			       : std::string("-"));
	kv(out, "pages (slabs << order)", v(c.pages()));

	// per node: only what the kernel split by node (NUMA kernels)
	struct NodeCol {
		std::string_view label;
		const std::vector<NativePart>* parts;
	};
	const NodeCol cols[] = {{"Objects", &c.objects_nodes}, {"TotalObj", &c.total_objects_nodes},
				{"Slabs", &c.slabs_nodes},     {"Partial", &c.partial_nodes},
				{"CpuSlabs", &c.cpu_slabs_nodes}, {"PartObj", &c.objects_partial_nodes}};
	std::set<uint32_t> nodes;
	for (const auto& col : cols)
		for (const auto& p : *col.parts)
			nodes.insert(p.id);
	if (!nodes.empty()) {
		out += "\nPer node (nodes with nothing are not listed by the kernel)\n  Node";
		for (const auto& col : cols)
			append(out, " {:>10}", col.label);
		out += '\n';
		for (uint32_t n : nodes) {
			append(out, "  {:>4}", n);
			for (const auto& col : cols) {
				uint64_t val = 0;
				for (const auto& p : *col.parts)
					if (p.id == n)
						val = p.value;
				append(out, " {:>10}", val);
			}
			out += '\n';
		}
	}

	out += "\nMemory\n";
	kv(out, "space (slabs x slab bytes)",
	   space ? (*space > 1000 ? fmt::format("{} ({})", *space, format_size(*space))
				  : fmt::format("{}", *space))
		 : std::string("-"));
	kv(out, "used (objects x size)", v(used));
	kv(out, "loss", v(loss));
	kv(out, "efficiency",
	   space && used ? fmt::format("{}%", percent(*used, *space, 100)) : std::string("-"));
	kv(out, "partial slabs",
	   c.slabs && c.partial ? fmt::format("{}%", percent(*c.partial, *c.slabs, 0))
				: std::string("-"));
	kv(out, "free object slots",
	   c.total_objects && c.objects ? fmt::format("{}", sub_sat(*c.total_objects, *c.objects))
					: std::string("-"));

	const auto& names = stat_names();
	if (!c.has_stats()) {
		const NativeFile* f = c.file(names[SLABLAB_ALLOC_FASTPATH]);
		if (f && f->unreadable())
			append(out, "\nCounters: could not be read ({})\n",
			    std::generic_category().message(f->err));
		else
			out += "\nCounters: none (the kernel is built without CONFIG_SLUB_STATS)\n";
	} else {
		StatArray s{};
		for (std::size_t i = 0; i < kNrStats; i++)
			s[i] = c.stats[i].value_or(0);
		perf_counters(out, s);
		out += "\nCounters\n--------\n";
		const std::size_t half = (kNrStats + 1) / 2;
		for (std::size_t i = 0; i < half; i++) {
			std::string left = fmt::format("{:<24}{:>14}", names[i], v(c.stats[i]));
			if (i + half < kNrStats)
				append(out, "  {}    {:<24}{:>14}\n", left, names[i + half],
				    v(c.stats[i + half]));
			else
				append(out, "  {}\n", left);
		}
		std::set<uint32_t> cpus;
		for (const auto& parts : c.stats_cpus)
			for (const auto& p : parts)
				cpus.insert(p.id);
		std::vector<std::size_t> rows;
		for (std::size_t i = 0; i < kNrStats; i++)
			if (!c.stats_cpus[i].empty())
				rows.push_back(i);
		const std::vector<uint32_t> cpu_list(cpus.begin(), cpus.end());
		constexpr std::size_t kCols = 6;
		for (std::size_t first = 0; first < cpu_list.size(); first += kCols) {
			const std::size_t last = std::min(first + kCols, cpu_list.size());
			append(out, "\n  {:<24}", "Per-cpu counters");
			for (std::size_t j = first; j < last; j++)
				append(out, " {:>11}", fmt::format("cpu{}", cpu_list[j]));
			out += '\n';
			for (std::size_t i : rows) {
				append(out, "  {:<24}", names[i]);
				for (std::size_t j = first; j < last; j++) {
					uint64_t val = 0;
					for (const auto& p : c.stats_cpus[i])
						if (p.id == cpu_list[j])
							val = p.value;
					append(out, " {:>11}", val);
				}
				out += '\n';
			}
		}
		if (!cpu_list.empty())
			out += "  (the kernel lists only cpus with a non-zero count)\n";
	}

	std::size_t nread = 0, nbad = 0;
	std::vector<std::string> absent;
	for (const auto& f : c.files) {
		if (f.err == 0)
			nread++;
		else if (f.absent())
			absent.push_back(f.name);
		else
			nbad++;
	}
	append(out, "\nFiles in {} ({} read, {} could not be read)\n", c.dir, nread, nbad);
	for (const auto& f : c.files) {
		if (f.absent())
			continue;
		if (f.err)
			kv(out, f.name, fmt::format("({})", std::generic_category().message(f.err)));
		else
			kv(out, f.name, f.text.empty() ? std::string("(empty)") : f.text);
	}
	if (!absent.empty())
		wrap_words(out, "Not on this kernel:", absent);
	return out;
}

}  // namespace slabctl
