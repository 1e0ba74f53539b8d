// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/format.hpp"

#include "slabctl/names.hpp"
#include "slabctl/tunables.hpp"
#include "slabctl/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <system_error>
#include <utility>
#include <optional>
#include <variant>
#include <strings.h>

namespace slabctl {
namespace {

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

std::optional<uint64_t> sum_known(const std::optional<uint64_t>& a,
				  const std::optional<uint64_t>& b) noexcept
{
	if (!a || !b)
		return std::nullopt;
	return *a + *b;
}

std::string num(uint64_t v)
{
	return fmt::format("{}", v);
}

std::string num(const std::optional<uint64_t>& v)
{
	return v ? fmt::format("{}", *v) : std::string("-");
}

OptionalStats known_stats(const StatArray& s)
{
	OptionalStats o;
	std::copy(s.begin(), s.end(), o.begin());
	return o;
}

// ---- the table's columns ----

/// A column of the cache table: its header right-aligned over the cells (or, at width 0,
/// as wide as its text: the last column), one space before each.
struct Column {
	std::string_view header;
	int width;		///< without -B
	int memwidth;	///< with -B (plain byte counts)
	std::string (*cell)(const CacheRow& r, const TableOptions& o);
};

/// "-" unless the fast-path share is known: percent of `fast` in the path total.
std::string fast_share(const std::optional<uint64_t>& fast, const std::optional<uint64_t>& total)
{
	return total ? num(percent(fast.value_or(0), *total)) : std::string("-");
}

// Every cell is computed from the row alone, "-" where a figure is unknown; the formulas
// are slabinfo.c's.
constexpr Column kDefaultColumns[] = {
	{"Objects", 8, 8, [](const CacheRow& r, const TableOptions&) { return num(r.objects); }},
	{"Objsize", 7, 7, [](const CacheRow& r, const TableOptions&) { return num(r.size); }},
	{"Space", 8, 12,
	 [](const CacheRow& r, const TableOptions& o) {
		 return r.space ? format_size(*r.space, o.bytes) : std::string("-");
	 }},
	{"Slabs/Part/Cpu", 14, 14,
	 [](const CacheRow& r, const TableOptions&) {
		 std::optional<uint64_t> full;	// slabs neither partial nor owned by a cpu
		 if (r.slabs && r.cpu_slabs)
			 full = sub_sat(*r.slabs, *r.cpu_slabs);
		 return fmt::format("{}/{}/{}", num(full), num(r.partial_slabs), num(r.cpu_slabs));
	 }},
	{"O/S", 4, 4, [](const CacheRow& r, const TableOptions&) { return num(r.objs_per_slab); }},
	{"O", 1, 1, [](const CacheRow& r, const TableOptions&) { return num(r.order); }},
	{"%Fr", 3, 3,
	 [](const CacheRow& r, const TableOptions&) {
		 if (!r.slabs || (*r.slabs != 0 && !r.partial_slabs))
			 return std::string("-");
		 return num(percent(r.partial_slabs.value_or(0), *r.slabs, 100));
	 }},
	{"%Ef", 3, 3,
	 [](const CacheRow& r, const TableOptions&) {
		 if (!r.space || (*r.space != 0 && !(r.objects && r.size)))
			 return std::string("-");
		 return num(percent(r.objects.value_or(0) * r.size.value_or(0), *r.space, 100));
	 }},
	{"Flg", 0, 0, [](const CacheRow& r, const TableOptions&) { return r.flags; }},
};

constexpr Column kActivityColumns[] = {
	{"Objects", 8, 8, [](const CacheRow& r, const TableOptions&) { return num(r.objects); }},
	{"Alloc", 10, 10, [](const CacheRow& r, const TableOptions&) { return num(r.allocs()); }},
	{"Free", 10, 10, [](const CacheRow& r, const TableOptions&) { return num(r.frees()); }},
	// one header over two cells: allocations, then frees, on the fast path
	{"%Fast", 7, 7,
	 [](const CacheRow& r, const TableOptions&) {
		 return fmt::format("{:>3} {:>3}",
				    fast_share(r.stats[SLABLAB_ALLOC_FASTPATH], r.allocs()),
				    fast_share(r.stats[SLABLAB_FREE_FASTPATH], r.frees()));
	 }},
	{"Fallb", 5, 5,
	 [](const CacheRow& r, const TableOptions&) { return num(r.stats[SLABLAB_ORDER_FALLBACK]); }},
	{"O", 1, 1, [](const CacheRow& r, const TableOptions&) { return num(r.order); }},
	{"CmpX", 4, 4,
	 [](const CacheRow& r, const TableOptions&) {
		 return num(r.stats[SLABLAB_CMPXCHG_DOUBLE_FAIL]);
	 }},
	{"UL", 4, 4,
	 [](const CacheRow& r, const TableOptions&) {
		 return num(r.stats[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL]);
	 }},
};

constexpr int kNameWidth = 21;	// slabinfo's %-21s

std::span<const Column> columns(bool activity)
{
	if (activity)
		return kActivityColumns;
	return kDefaultColumns;
}

void append_cell(std::string& out, std::string_view text, int width)
{
	out += ' ';
	if (width > 0)
		fmt::format_to(std::back_inserter(out), "{:>{}}", text, width);
	else
		out += text;
}

std::string header_line(int name_w, bool activity, bool bytes)
{
	std::string out = fmt::format("{:<{}}", "Name", name_w);
	for (const auto& col : columns(activity))
		append_cell(out, col.header, bytes ? col.memwidth : col.width);
	return out;
}

std::string row_line(const CacheRow& r, const TableOptions& o, int name_w)
{
	std::string out = fmt::format("{:<{}}", r.display_name(), name_w);
	for (const auto& col : columns(o.activity))
		append_cell(out, col.cell(r, o), o.bytes ? col.memwidth : col.width);
	return out;
}

void kv(std::string& out, std::string_view key, const std::string& value)
{
	fmt::format_to(std::back_inserter(out), "  {:<28}{}\n", key, value);
}

void kv(std::string& out, std::string_view key, uint64_t value)
{
	kv(out, key, fmt::format("{}", value));
}

/// The slab-occupancy histogram as text: a line per bucket that holds slabs (range of
/// objects in use, slabs, a bar scaled to the fullest bucket). @p what names the unit:
/// "slab", or "page" for slob's heap pages (docs/design.md, "The slob design").
void occupancy_histogram(std::string& out, const std::vector<CacheInfo::OccupancyBucket>& h,
			 std::string_view what)
{
	uint64_t most = 0, total = 0;
	for (const auto& b : h) {
		most = std::max(most, b.slabs);
		total += b.slabs;
	}
	out += fmt::format("\n{}{} occupancy (objects in use per {}: {}s; {} {}s{})\n",
			   static_cast<char>(std::toupper(static_cast<unsigned char>(what[0]))),
			   what.substr(1), what, what, total, what,
			   h.size() > 2 && h[1].lo != h[1].hi ? ", bucketed" : "");
	if (!total) {
		out += fmt::format("  (no {}s)\n", what);
		return;
	}
	const uint32_t full = h.back().hi;
	for (const auto& b : h) {
		if (!b.slabs)
			continue;
		std::string range = b.lo == b.hi ? fmt::format("{}", b.lo)
						 : fmt::format("{}-{}", b.lo, b.hi);
		if (b.lo == 0 && b.hi == 0)
			range += " (empty)";
		else if (b.lo == full)
			range += " (full)";
		const auto bar = static_cast<std::size_t>((b.slabs * 40 + most - 1) / most);
		out += fmt::format("  {:<16} {:>10}  {}\n", range, b.slabs, std::string(bar, '#'));
	}
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

/// Every counter in two columns ("-" for one that is unknown).
void all_counters(std::string& out, const OptionalStats& s)
{
	out += "\nCounters\n--------\n";
	const auto& names = stat_names();
	const std::size_t half = (kNrStats + 1) / 2;
	for (std::size_t i = 0; i < half; i++) {
		std::string left = fmt::format("{:<24}{:>14}", names[i], num(s[i]));
		if (i + half < kNrStats)
			fmt::format_to(std::back_inserter(out), "  {}    {:<24}{:>14}\n", left,
				       names[i + half], num(s[i + half]));
		else
			fmt::format_to(std::back_inserter(out), "  {}\n", left);
	}
}

/// Counters as rows, cpus as columns: what the per-cpu counter tables show.
struct PerCpuCounters {
	std::vector<uint32_t> cpus;		///< the columns, in order
	std::vector<std::size_t> counters;	///< the rows: stat items shown
	std::vector<std::vector<uint64_t>> values; ///< [row][column]
};

/// slablab's per-cpu entries: every cpu reported; the counters non-zero on some cpu.
PerCpuCounters percpu_counters(const CacheInfo& c)
{
	PerCpuCounters t;
	for (const auto& p : c.percpu)
		t.cpus.push_back(p.cpu);
	for (std::size_t i = 0; i < kNrStats; i++) {
		if (std::none_of(c.percpu.begin(), c.percpu.end(),
				 [i](const PerCpuInfo& p) { return p.stats[i] != 0; }))
			continue;
		t.counters.push_back(i);
		auto& row = t.values.emplace_back();
		for (const auto& p : c.percpu)
			row.push_back(p.stats[i]);
	}
	return t;
}

/// A kernel cache's " C<cpu>=<n>" parts: the kernel lists only cpus with a non-zero
/// count, so the columns are every cpu listed for some counter (0 where one is not).
PerCpuCounters percpu_counters(const NativeCache& c)
{
	PerCpuCounters t;
	std::set<uint32_t> cpus;
	for (const auto& parts : c.stats_cpus)
		for (const auto& p : parts)
			cpus.insert(p.id);
	t.cpus.assign(cpus.begin(), cpus.end());
	for (std::size_t i = 0; i < kNrStats; i++) {
		if (c.stats_cpus[i].empty())
			continue;
		t.counters.push_back(i);
		auto& row = t.values.emplace_back(t.cpus.size(), 0);
		for (std::size_t j = 0; j < t.cpus.size(); j++)
			for (const auto& p : c.stats_cpus[i])
				if (p.id == t.cpus[j])
					row[j] = p.value;
	}
	return t;
}

/// The per-cpu counter tables, 6 cpus at a time, then `footnote`; nothing without cpus,
/// one line when no counter is shown.
void render_percpu_counters(std::string& out, const PerCpuCounters& t, std::string_view footnote)
{
	if (t.cpus.empty())
		return;
	if (t.counters.empty()) {
		out += "\nPer-cpu counters: all zero\n";
		return;
	}
	constexpr std::size_t kCols = 6;
	for (std::size_t first = 0; first < t.cpus.size(); first += kCols) {
		const std::size_t last = std::min(first + kCols, t.cpus.size());
		fmt::format_to(std::back_inserter(out), "\n  {:<24}", "Per-cpu counters");
		for (std::size_t j = first; j < last; j++)
			fmt::format_to(std::back_inserter(out), " {:>11}", fmt::format("cpu{}", t.cpus[j]));
		out += '\n';
		for (std::size_t r = 0; r < t.counters.size(); r++) {
			fmt::format_to(std::back_inserter(out), "  {:<24}", stat_name(t.counters[r]));
			for (std::size_t j = first; j < last; j++)
				fmt::format_to(std::back_inserter(out), " {:>11}", t.values[r][j]);
			out += '\n';
		}
	}
	fmt::format_to(std::back_inserter(out), "  ({})\n", footnote);
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
	// Counters that are zero on every cpu are left out to keep it readable.
	render_percpu_counters(out, percpu_counters(c),
			       "counters that are zero on every cpu are not shown");
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
	if (c.flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)
		f += 'B';
	if (c.owner == SLABLAB_OWNER_KMALLOC)
		f += 'k';
	else if (c.owner == SLABLAB_OWNER_KERNEL)
		f += 'm';
	return f;
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

// ---- the row model ----

std::string CacheRow::display_name() const
{
	return kernel ? std::string(kNativePrefix) + name : name;
}

std::optional<uint64_t> CacheRow::allocs() const noexcept
{
	return sum_known(stats[SLABLAB_ALLOC_FASTPATH], stats[SLABLAB_ALLOC_SLOWPATH]);
}

std::optional<uint64_t> CacheRow::frees() const noexcept
{
	return sum_known(stats[SLABLAB_FREE_FASTPATH], stats[SLABLAB_FREE_SLOWPATH]);
}

std::optional<uint64_t> CacheRow::activity() const noexcept
{
	return sum_known(allocs(), frees());
}

bool CacheRow::countable() const noexcept
{
	return objects && size && stride && total_objects && slabs && partial_slabs && cpu_slabs &&
	       space;
}

CacheRow cache_row(const CacheInfo& c, uint32_t page_size)
{
	CacheRow r;
	r.name = c.name;
	r.objects = c.objects;
	r.total_objects = c.total_objects;
	r.size = c.size;
	r.stride = std::max(c.obj_stride, c.size);
	r.slabs = c.slabs;
	r.partial_slabs = c.partial_slabs;
	r.cpu_slabs = cache_cpu_slabs(c);
	r.objs_per_slab = c.objs_per_slab;
	r.order = c.order;
	r.space = cache_space(c, page_size);
	r.flags = flag_letters(c);
	r.stats = known_stats(c.stats);
	return r;
}

CacheRow cache_row(const NativeCache& c, uint32_t page_size)
{
	CacheRow r;
	r.name = c.name;
	r.kernel = true;
	r.objects = c.objects;
	r.total_objects = c.total_objects;
	r.size = c.object_size;
	if (c.slab_size && c.object_size)
		r.stride = std::max(*c.slab_size, *c.object_size);
	r.slabs = c.slabs;
	r.partial_slabs = c.partial;
	r.cpu_slabs = c.cpu_slabs;	// SLUB's cpu_slabs counts the cpu partial slabs too
	r.objs_per_slab = c.objs_per_slab;
	r.order = c.order;
	r.space = c.space(page_size);
	r.flags = native_flag_letters(c);
	r.stats = c.stats;
	return r;
}

CacheRow cache_row(const InfoRow& r, uint32_t page_size)
{
	return std::visit([page_size](const auto& c) { return cache_row(c, page_size); }, r);
}

std::string row_display_name(const InfoRow& r)
{
	if (const auto* c = std::get_if<CacheInfo>(&r))
		return c->name;
	return std::get<NativeCache>(r).display_name();
}

namespace {

template <typename T>
std::vector<CacheRow> rows_of(const std::vector<T>& caches, uint32_t page_size)
{
	std::vector<CacheRow> rows;
	rows.reserve(caches.size());
	for (const auto& c : caches)
		rows.push_back(cache_row(c, page_size));
	return rows;
}

/// Largest first; unknown values after every known one.
bool larger_known_first(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b)
{
	if (a.has_value() != b.has_value())
		return a.has_value();
	return a && *a > *b;
}

/// Sort `caches` by their rows: by name (the cache's own name, case-insensitive; a slablab
/// cache before the kernel cache of the same name), by Space or by activity (largest first,
/// unknown last), the name breaking ties. Each row is built once.
template <typename T>
void sort_by_rows(std::vector<T>& caches, SortKey key, uint32_t page_size)
{
	const std::vector<CacheRow> rows = rows_of(caches, page_size);
	auto by_name = [](const CacheRow& a, const CacheRow& b) {
		int r = strcasecmp(a.name.c_str(), b.name.c_str());
		if (r != 0)
			return r < 0;
		if (a.name != b.name)
			return a.name < b.name;
		return a.kernel < b.kernel;
	};
	auto before = [&](const CacheRow& a, const CacheRow& b) {
		std::optional<uint64_t> xa, xb;
		if (key == SortKey::size) {
			xa = a.space;
			xb = b.space;
		} else if (key == SortKey::activity) {
			xa = a.activity();
			xb = b.activity();
		}
		if (xa != xb)
			return larger_known_first(xa, xb);
		return by_name(a, b);
	};
	std::vector<std::size_t> order(caches.size());
	std::iota(order.begin(), order.end(), std::size_t{0});
	std::stable_sort(order.begin(), order.end(),
			 [&](std::size_t a, std::size_t b) { return before(rows[a], rows[b]); });
	std::vector<T> sorted;
	sorted.reserve(caches.size());
	for (std::size_t i : order)
		sorted.push_back(std::move(caches[i]));
	caches = std::move(sorted);
}

}  // namespace

void sort_caches(std::vector<CacheInfo>& caches, SortKey key, uint32_t page_size)
{
	sort_by_rows(caches, key, page_size);
}

void sort_rows(std::vector<InfoRow>& rows, SortKey key, uint32_t page_size)
{
	sort_by_rows(rows, key, page_size);
}

// ---- the table ----

std::string table_header(bool activity, int name_width)
{
	return header_line(name_width, activity, false);
}

std::string table_line(const CacheRow& r, const TableOptions& o, int name_width)
{
	return row_line(r, o, name_width);
}

std::string table_line(const CacheInfo& c, uint32_t page_size, const TableOptions& o,
		       int name_width)
{
	return row_line(cache_row(c, page_size), o, name_width);
}

std::string table_line(const NativeCache& c, uint32_t page_size, const TableOptions& o,
		       int name_width)
{
	return row_line(cache_row(c, page_size), o, name_width);
}

std::string render_row_table(const std::vector<CacheRow>& rows, const TableOptions& o)
{
	std::size_t w = kNameWidth;
	for (const auto& r : rows)
		w = std::max(w, r.display_name().size());
	const int name_w = static_cast<int>(w);
	std::string out = header_line(name_w, o.activity, o.bytes && !o.activity);
	out += '\n';
	for (const auto& r : rows) {
		out += row_line(r, o, name_w);
		out += '\n';
	}
	return out;
}

std::string render_table(const std::vector<CacheInfo>& caches, uint32_t page_size,
			 const TableOptions& o)
{
	return render_row_table(rows_of(caches, page_size), o);
}

std::string render_rows(const std::vector<InfoRow>& rows, uint32_t page_size,
			 const TableOptions& o)
{
	return render_row_table(rows_of(rows, page_size), o);
}

// ---- totals (-T) ----

namespace {

/// The rows -T counts (countable()) and how many it could not.
struct Counted {
	std::vector<const CacheRow*> rows;
	uint64_t incomplete = 0;
};

Counted counted_rows(const std::vector<CacheRow>& rows)
{
	Counted c;
	for (const auto& r : rows) {
		if (r.countable())
			c.rows.push_back(&r);
		else
			c.incomplete++;
	}
	return c;
}

bool active(const CacheRow& r) noexcept
{
	return *r.slabs && *r.objects;
}

Totals sum_rows(const Counted& counted)
{
	Totals t;
	for (const CacheRow* r : counted.rows) {
		t.caches++;
		if (active(*r))
			t.active++;
		t.space += *r->space;
		t.used += *r->objects * *r->size;
		t.objects += *r->objects;
		t.total_objects += *r->total_objects;
		t.slabs += *r->slabs;
		t.partial_slabs += *r->partial_slabs;
		t.cpu_slabs += *r->cpu_slabs;
		const auto alloc = r->allocs(), free = r->frees();
		if (alloc && free) {
			t.alloc += *alloc;
			t.free += *free;
		} else {
			t.without_stats++;
		}
	}
	t.loss = sub_sat(t.space, t.used);
	t.caches += counted.incomplete;
	t.incomplete = counted.incomplete;
	return t;
}

std::string render_counted(const Counted& counted, const Totals& t, bool bytes,
			   std::string_view title, std::string_view note, bool kernel)
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
	const uint64_t nr_counted = t.caches - t.incomplete;
	const bool have_stats = nr_counted ? t.without_stats < nr_counted : !kernel;
	fmt::format_to(std::back_inserter(out), "# Alloc    : {:>6}   # Free'd : {:>6}\n",
		       have_stats ? sz(t.alloc) : "-", have_stats ? sz(t.free) : "-");
	if (!t.active) {
		out += "\nNo objects\n";
		return out;
	}

	MinMax objects, slabs, partial, ppart, space, used, loss;
	MinMax memobj, userobj, lossobj;
	uint64_t weighted_stride = 0, weighted_loss = 0;
	for (const CacheRow* r : counted.rows) {
		if (!active(*r))
			continue;
		const uint64_t objs = *r->objects, size = *r->size, stride = *r->stride;
		const uint64_t nr_slabs = *r->slabs, part = *r->partial_slabs, mem = *r->space;
		objects.add(objs);
		slabs.add(nr_slabs);
		partial.add(part);
		ppart.add(std::min<uint64_t>(percent(part, nr_slabs), 100));
		space.add(mem);
		used.add(objs * size);
		loss.add(sub_sat(mem, objs * size));
		memobj.add(stride);
		userobj.add(size);
		lossobj.add(stride - size);
		weighted_stride += objs * stride;
		weighted_loss += objs * (stride - size);
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

}  // namespace

Totals compute_row_totals(const std::vector<CacheRow>& rows)
{
	return sum_rows(counted_rows(rows));
}

std::string render_row_totals(const std::vector<CacheRow>& rows, bool bytes,
			      std::string_view title, bool kernel)
{
	const Counted counted = counted_rows(rows);
	const Totals t = sum_rows(counted);
	std::string note;
	if (t.incomplete)
		note = fmt::format("({} of {} caches not counted: some of their files could not be "
				   "read)",
				   t.incomplete, t.caches);
	return render_counted(counted, t, bytes, title, note, kernel);
}

Totals compute_totals(const std::vector<CacheInfo>& caches, uint32_t page_size)
{
	return compute_row_totals(rows_of(caches, page_size));
}

Totals compute_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size)
{
	return compute_row_totals(rows_of(caches, page_size));
}

std::string render_totals(const std::vector<CacheInfo>& caches, uint32_t page_size, bool bytes,
			  std::string_view title)
{
	return render_row_totals(rows_of(caches, page_size), bytes, title, false);
}

std::string render_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size,
				 bool bytes, std::string_view title)
{
	return render_row_totals(rows_of(caches, page_size), bytes, title, true);
}

std::string render_memory_accounting(const Totals* slablab, const Totals& kernel,
				     const SlabMeminfo& mi, bool bytes)
{
	auto sz = [bytes](uint64_t v) { return format_size(v, bytes); };
	const std::string_view title = "Memory accounting (/proc/meminfo)";
	std::string out = fmt::format("{}\n{}\n", title, std::string(title.size(), '-'));
	auto line = [&out](std::string_view label, std::string_view value, std::string_view what) {
		fmt::format_to(std::back_inserter(out), "{:<14}{:>8}   {}\n", label, value, what);
	};
	line("Slab:", sz(mi.slab),
	     fmt::format("SReclaimable {} + SUnreclaim {}: the kernel's slab pages",
			 sz(mi.sreclaimable), sz(mi.sunreclaim)));
	line("kernel caches", sz(kernel.space),
	     fmt::format("the kernel caches' totals above: {}% of Slab: (the rest: kmalloc()s "
			 "over 8 KiB, pages counted in Slab: without a cache){}",
			 percent(kernel.space, mi.slab),
			 kernel.incomplete
				 ? fmt::format(" ({} caches not counted)", kernel.incomplete)
				 : std::string()));
	if (slablab)
		line("slablab", sz(slablab->space),
		     fmt::format("plain pages, not in Slab:; in MemTotal - MemFree ({} of {})",
				 sz(sub_sat(mi.mem_total, mi.mem_free)), sz(mi.mem_total)));
	else
		line("slablab", "-", "the module is not loaded");
	return out;
}

/// One tunable of the report: numbers, an enum value's name, flag names (as --json).
static void report_tunable(std::string& out, const TunableDesc& d, uint32_t v)
{
	switch (d.kind) {
	case TunableKind::NUM:
		kv(out, d.name, v);
		break;
	case TunableKind::ENUM:
		kv(out, d.name, d.value_name(v));
		break;
	case TunableKind::FLAGS:
		kv(out, d.name, fmt::format("{} ({:#x})", v ? join(cache_flag_names(v)) : "none", v));
		break;
	}
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
	if (c.flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)
		out += "** Slabs freed after an RCU grace period (typesafe_by_rcu)\n";

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
	// The tunables the cache's design reads (the registry's designs column,
	// uapi/tunables.yaml); the others are kept for a design change and shown by --json.
	const uint32_t design_bit = design_reads_mask(c);
	for (const auto& d : kTunables)
		if (d.designs & design_bit)
			report_tunable(out, d, c.*(d.in_info));
	kv(out, "order_default", fmt::format("{} (largest allowed: {})", c.order_default,
					     c.design == SLABLAB_DESIGN_SLAB ? SLABLAB_MAX_ORDER :
					     c.max_order));

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

	if (c.has_layers) {
		// Where the object slots are (docs/design.md, "Where memory is"); what the
		// cached layers hold looks allocated to every other slab tool.
		out += "\nObjects per layer\n";
#define SLABCTL_LAYER(attr, name)                                                         \
	if (c.layers.name)                                                                   \
		kv(out, #name, *c.layers.name);
		SLABLAB_CACHE_LAYERS(SLABCTL_LAYER)
#undef SLABCTL_LAYER
	}
	if (c.has_occupancy && !c.occupancy.empty())
		occupancy_histogram(out, c.occupancy,
				    c.design == SLABLAB_DESIGN_SLOB ? "page" : "slab");

	if (!c.has_stats) {
		out += "\nCounters: not reported\n";
	} else {
		perf_counters(out, c.stats);
		all_counters(out, known_stats(c.stats));
	}
	percpu_tables(out, c);
	return out;
}

std::string module_version_line(const Status& s)
{
	return fmt::format("slablab module {} (api {}) on {}, {} cpu{}", s.version, s.api_version,
			   s.kernel_release, s.nr_online_cpus, s.nr_online_cpus == 1 ? "" : "s");
}

std::string render_slabinfo(const std::vector<CacheInfo>& caches)
{
	std::string out = "slabinfo - version: 2.1\n"
			  "# name            <active_objs> <num_objs> <objsize> <objperslab> "
			  "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : "
			  "slabdata <active_slabs> <num_slabs> <sharedavail>\n";
	for (const auto& c : caches) {
		const bool slab = c.design == SLABLAB_DESIGN_SLAB;
		const uint64_t free = c.layers.slabs_free.value_or(0);
		const uint64_t active = c.total_objects > free ? c.total_objects - free : 0;
		const uint64_t free_slabs = slab ? c.free_slabs : 0;
		fmt::format_to(std::back_inserter(out),
			       "{:<17} {:>6} {:>6} {:>6} {:>4} {:>4} : tunables {:>4} {:>4} {:>4} : "
			       "slabdata {:>6} {:>6} {:>6}\n",
			       c.name, active, c.total_objects, c.obj_stride, c.objs_per_slab,
			       1U << c.order, slab ? c.limit : 0, slab ? c.batchcount : 0,
			       slab ? c.shared : 0, c.slabs - std::min(free_slabs, c.slabs), c.slabs,
			       c.layers.shared.value_or(0));
	}
	return out;
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
	out += render_lab(s);
	auto f = feature_names(s.features);
	row("features", fmt::format("{} ({:#x})", f.empty() ? "none" : join(f, ", "), s.features));
	return out;
}

std::string render_lab(const Status& s)
{
	return fmt::format("{:<20}{}\n{:<20}{} (lists {})\n", "kmalloc page policy",
			   page_policy_name(s.kmalloc_page_policy), "kmalloc design",
			   design_name(s.kmalloc_design), s.kmalloc_lists);
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

uint32_t design_reads_mask(const CacheInfo& c)
{
	return (1U << c.design) | (c.design == SLABLAB_DESIGN_SHEAVES && c.sheaves_cpu_slabs ?
				   SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS : 0);
}

std::vector<std::string> set_notes(const Tunables& asked, const CacheInfo& after)
{
	std::vector<std::string> notes;
	const uint32_t reads = design_reads_mask(after);
	for (const auto& d : kTunables) {
		if (!(asked.*(d.in_tunables)) || (d.designs & reads))
			continue;
		std::vector<std::string> readers;
		for (uint32_t i = 0; i < __SLABLAB_DESIGN_MAX; i++)
			if (d.designs & (1U << i))
				readers.push_back(design_name(i));
		if (d.designs & SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS)
			readers.push_back("sheaves with sheaves_cpu_slabs=1");
		notes.push_back(fmt::format("the {} design does not read {}: it is kept for a "
					    "design change (read by {})",
					    design_name(after.design), d.name, join(readers, ", ")));
	}
	// slablab_set_max_order(): a set order stays, order_default moves.
	if (asked.max_order && !asked.order && (reads & SLABLAB_TUNABLE_DESIGNS_MAX_ORDER) &&
	    after.order != after.order_default)
		notes.push_back(fmt::format("order {} was set and stays: under max_order {} the "
					    "order policy chose {} (order_default), which new "
					    "slabs take after `slabctl set {} order={}`",
					    after.order, after.max_order, after.order_default,
					    after.name, after.order_default));
	return notes;
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
		all_counters(out, c.stats);
		render_percpu_counters(out, percpu_counters(c),
				       "the kernel lists only cpus with a non-zero count");
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
