// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: text rendering for slabctl (slabinfo-style tables, reports). Pure functions
// of the typed structs, so the host unit tests can check them without the kernel module.
#pragma once

#include "slabctl/compare.hpp"
#include "slabctl/native.hpp"
#include "slabctl/storm.hpp"
#include "slabctl/types.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace slabctl {

/**
 * A size or count as tools/mm/slabinfo.c prints it: values above 1000 with one decimal and
 * a decimal suffix (K = 10^3, M = 10^6, G = 10^9), truncated: 4096 → "4.0K",
 * 1228800 → "1.2M", 999 → "999". With bytes=true the plain number.
 */
std::string format_size(uint64_t value, bool bytes = false);

/// part*100/whole, or if_zero when whole is 0 (slabinfo's convention).
uint64_t percent(uint64_t part, uint64_t whole, uint64_t if_zero = 0) noexcept;

/// Bytes of slab memory: pages x page size (slabs << order when pages is 0).
uint64_t cache_space(const CacheInfo& c, uint32_t page_size) noexcept;
/// Space minus the bytes of objects in use (objects x size).
uint64_t cache_loss(const CacheInfo& c, uint32_t page_size) noexcept;
/// Slabs owned by cpus: active cpu slabs + cpu partial slabs.
uint64_t cache_cpu_slabs(const CacheInfo& c) noexcept;
/// alloc_fastpath + alloc_slowpath + free_fastpath + free_slowpath.
uint64_t cache_activity(const CacheInfo& c) noexcept;
/// The Flg column: A hwcache_align, D debug, H hardened, R random; k a kmalloc size
/// class, m created by a kernel module (owner kernel).
std::string flag_letters(const CacheInfo& c);

enum class SortKey { name, size, activity };

struct TableOptions {
	bool activity = false;	///< -D: the activity line format
	SortKey sort = SortKey::name;
	bool bytes = false;	///< -B: plain byte counts in Space
};

/// Event counters that may be unknown: a kernel cache's (CONFIG_SLUB_STATS, readable).
using OptionalStats = std::array<std::optional<uint64_t>, kNrStats>;

/**
 * One cache as the table (its columns), -T and the sort see it, built from either source:
 * a slablab cache (every figure known) or a kernel (SLUB) cache (nullopt where its sysfs
 * file is missing or could not be read; a column shows "-"). The columns are one table in
 * format.cpp over this struct: a new column is one entry there (and a field here if it
 * needs a figure neither source has given it yet).
 */
struct CacheRow {
	std::string name;		///< the cache's own name: "t64", "kmalloc-64"
	bool kernel = false;		///< a kernel (SLUB) cache, shown as "slub/<name>"
	std::optional<uint64_t> objects;	///< objects in use
	std::optional<uint64_t> total_objects;	///< object capacity of all slabs
	std::optional<uint64_t> size;		///< object size asked for (SLUB: object_size)
	std::optional<uint64_t> stride;		///< bytes per object in a slab, at least size
	std::optional<uint64_t> slabs;
	std::optional<uint64_t> partial_slabs;	///< on node partial lists
	std::optional<uint64_t> cpu_slabs;	///< owned by cpus: active + cpu partial
	std::optional<uint64_t> objs_per_slab;
	std::optional<uint64_t> order;
	std::optional<uint64_t> space;		///< bytes of slab memory
	std::string flags;			///< the Flg column's letters
	OptionalStats stats{};			///< indexed by enum slablab_stat_item

	/// "t64", or "slub/kmalloc-64" for a kernel cache.
	std::string display_name() const;
	/// alloc_fastpath + alloc_slowpath, if both are known.
	std::optional<uint64_t> allocs() const noexcept;
	/// free_fastpath + free_slowpath, if both are known.
	std::optional<uint64_t> frees() const noexcept;
	/// allocs() + frees(), if both are known.
	std::optional<uint64_t> activity() const noexcept;
	/// Whether -T can count it: every figure it sums is known.
	bool countable() const noexcept;
};

/// A row of `slabctl info`: a slablab cache or, with --native, a kernel (SLUB) cache.
using InfoRow = std::variant<CacheInfo, NativeCache>;

/// A slablab cache's row: every figure known (the counters as reported; zero without them).
CacheRow cache_row(const CacheInfo& c, uint32_t page_size);
/// A kernel cache's row, its figures computed as slabinfo.c computes them.
CacheRow cache_row(const NativeCache& c, uint32_t page_size);
CacheRow cache_row(const InfoRow& r, uint32_t page_size);

/// Sort as slabinfo does: by name (case-insensitive), by Space or by activity (largest
/// first).
void sort_caches(std::vector<CacheInfo>& caches, SortKey key, uint32_t page_size);

/// The header line of the table (no newline); the name column `name_width` wide.
std::string table_header(bool activity, int name_width = 21);
/// One line (no newline) in the default or the activity (-D) format; the name column is
/// `name_width` wide (21, slabinfo's, by default; longer names widen it).
std::string table_line(const CacheRow& r, const TableOptions& o, int name_width = 21);
std::string table_line(const CacheInfo& c, uint32_t page_size, const TableOptions& o,
		       int name_width = 21);
/// Header and one line per row, in the order given, each line ending in '\n'; the name
/// column as wide as the longest name (21 at least).
std::string render_row_table(const std::vector<CacheRow>& rows, const TableOptions& o);
/// render_row_table() of slablab caches.
std::string render_table(const std::vector<CacheInfo>& caches, uint32_t page_size,
			 const TableOptions& o);

// ---- the kernel's caches in the same table (info --native) ----

/// The Name column: "t64", or "slub/kmalloc-64" for a kernel cache.
std::string row_display_name(const InfoRow& r);
/// A kernel cache's Flg column, slabinfo's letters: * (other caches merged into it),
/// d cache_dma, A hwcache_align, P poison, a reclaim_account, Z red_zone, F sanity_checks,
/// U store_user, T trace; "-" when no flag file could be read.
std::string native_flag_letters(const NativeCache& c);
/**
 * Sort mixed rows: by name (the cache's own name, case-insensitive; a slablab cache before
 * the kernel cache of the same name), by Space or by activity (largest first; rows whose
 * figure is unknown last, by name).
 */
void sort_rows(std::vector<InfoRow>& rows, SortKey key, uint32_t page_size);
/// One kernel cache's line: the columns computed as slabinfo.c does, "-" where unknown.
std::string table_line(const NativeCache& c, uint32_t page_size, const TableOptions& o,
		       int name_width = 21);
/// Header and one line per row, slablab and kernel caches alike.
std::string render_rows(const std::vector<InfoRow>& rows, uint32_t page_size,
			 const TableOptions& o);

/// Summary over all caches (-T), in the manner of slabinfo's totals().
struct Totals {
	uint64_t caches = 0;		///< caches seen
	uint64_t active = 0;		///< caches with slabs and objects
	uint64_t space = 0, used = 0, loss = 0;
	uint64_t objects = 0, total_objects = 0;
	uint64_t slabs = 0, partial_slabs = 0, cpu_slabs = 0;
	uint64_t alloc = 0, free = 0;	///< fast + slow paths
	uint64_t incomplete = 0;	///< caches not counted: a figure was unknown
	uint64_t without_stats = 0;	///< caches counted without alloc/free (no SLUB_STATS)
};
/**
 * Totals over rows. A row counts when it is countable() (slablab's always are; a kernel
 * cache when its objects, object_size, slab_size, total_objects, slabs, partial, cpu_slabs
 * and order could all be read); the others are in `caches` and `incomplete` only.
 * alloc/free sum the counted rows whose counters are known.
 */
Totals compute_row_totals(const std::vector<CacheRow>& rows);
/**
 * The -T text: slabinfo's summary and its per-cache and per-object tables; a note says how
 * many rows were not counted. # Alloc and # Free'd are "-" when no counted row had its
 * counters, or (with none counted) when `kernel` says the rows are kernel caches, whose
 * counters need CONFIG_SLUB_STATS.
 */
std::string render_row_totals(const std::vector<CacheRow>& rows, bool bytes,
			      std::string_view title, bool kernel);
Totals compute_totals(const std::vector<CacheInfo>& caches, uint32_t page_size);
std::string render_totals(const std::vector<CacheInfo>& caches, uint32_t page_size,
			  bool bytes = false, std::string_view title = "Slabcache Totals");
/// compute_row_totals() of kernel caches.
Totals compute_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size);
/// render_row_totals() of kernel caches.
std::string render_native_totals(const std::vector<NativeCache>& caches, uint32_t page_size,
				 bool bytes = false,
				 std::string_view title = "Slabcache Totals");
/**
 * `info -T --native`'s closing block: /proc/meminfo's Slab: (the kernel's own count of its
 * slab pages) beside the kernel caches' totals above it and slablab's, whose pages are
 * plain alloc_pages() pages: in MemTotal - MemFree, never in Slab:. `slablab` is null
 * without the module. The caches' share of Slab: is below 100%: SLUB counts a kmalloc()
 * too large for its classes (over 8 KiB, kmalloc_large()) in NR_SLAB_UNRECLAIMABLE_B, with
 * no cache to show it in.
 */
std::string render_memory_accounting(const Totals* slablab, const Totals& kernel,
				     const SlabMeminfo& mi, bool bytes = false);

/// Everything about one cache (-r): geometry, tunables, gauges, the slabinfo-style
/// performance counter summary, every counter, and the per-cpu breakdown.
std::string render_report(const CacheInfo& c, uint32_t page_size);
/**
 * Everything about one kernel cache (info -r NAME --native): slabinfo's report (sizes,
 * slabs, debug flags, memory) with "-" for what is unknown, tunables, gauges, the per-node
 * parts, the SLUB_STATS counters as render_report() shows slablab's (when present), and
 * every file read with its raw content or why it could not be read.
 */
std::string render_native_report(const NativeCache& c, uint32_t page_size);

/// `slabctl status`.
std::string render_status(const Status& s);
/// `slabctl lab show`: the module-wide settings, as `slabctl status` shows them.
std::string render_lab(const Status& s);

/**
 * /proc/slabinfo version 2.1 for slablab caches: the header lines and one line per cache,
 * `: tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs>
 * <sharedavail>`, as SLAB printed them. Active objects are those not free in a slab
 * (SLAB counts objects in its arrays as active), so the caches need their layers; a
 * cache of another design prints tunables 0 0 0, as SLUB does.
 */
std::string render_slabinfo(const std::vector<CacheInfo>& caches);
/// "slablab module 0.1.0 (api 1) on 6.1.0-57-amd64, 2 cpus"
std::string module_version_line(const Status& s);
/// One line for create/set: "t64: size 64, align 8, stride 64, 64 objects/slab, order 0, …"
std::string render_cache_summary(const CacheInfo& c);
/// The SLABLAB_TUNABLE_D_* bits of what the code of the cache's design reads: its design,
/// and for a sheaves cache on slub's cpu slabs the tunables of those.
uint32_t design_reads_mask(const CacheInfo& c);
/**
 * `slabctl set`'s notes on what took no effect now (said on stderr; the set stands): a
 * tunable @p asked set that the code of @p after's design does not read (kept for a
 * design change, as uapi/tunables.yaml's designs column says), and a max_order that
 * moved order_default but not an order set before (docs/design.md, "Policy").
 */
std::vector<std::string> set_notes(const Tunables& asked, const CacheInfo& after);
/// `slabctl validate`: "t64: OK: 3 slabs, 192 objects, 150 free" or the errors.
std::string render_validate(const ValidateReport& v);

// ---- storms (format_storm.cpp) ----

/// A rate or large count with a decimal SI suffix, rounded: 999 → "999", 16300000 →
/// "16.3M", 1500 → "1.5k"; `decimals` digits after the point when a suffix is used.
std::string format_si(double value, int decimals = 1);
/// A figure for tables: ops/s-like figures with format_si(…, 2), others fixed-point with
/// the figure's decimals; "-" for nullopt.
std::string format_figure(std::optional<double> value, const FigureInfo& fi);
/// Nanoseconds as "850 ns", "12.3 ms", "1.50 s".
std::string format_ns(uint64_t ns);

/// What a storm ran with: init_on_alloc / init_on_free (FEATURES) and hardened / random
/// freelists (CACHE_FLAGS for slablab targets, the kernel's FEATURES for native ones).
struct StormSettings {
	std::optional<bool> init_on_alloc, init_on_free, hardened, random;
	bool debug = false;	///< the cache (or native's model) has the debug flag
};
StormSettings storm_settings(const StormResult& r);
/// "init_on_alloc=1 init_on_free=0 hardened=1 random=1" (unknown ones as "?"), then
/// " debug=1" for a debug cache.
std::string render_storm_settings(const StormSettings& s);

/// "slablab pair on t64", "native pair like t64", "kmalloc churn of 64:3,192:1".
std::string storm_title(const StormSpec& s);
/// Fraction done (0..1) from OPS_PLANNED or DURATION_MS; nullopt if neither is known.
std::optional<double> storm_fraction(const StormResult& r);
/// A progress bar line without newline: "[#####.....]  50%  100.0k/200.0k ops  120.0 ms"
/// (`width` = bar cells).
std::string render_storm_bar(const StormResult& r, int width = 30);
/// A plain progress line: "storm 3: 50% 100000/200000 ops 120.0 ms".
std::string render_storm_line(const StormResult& r);
/// The result table `slabctl storm start` prints at the end.
std::string render_storm_result(const StormResult& r);
/// One line about a storm for `watch`: "storm 3 running: slablab pair on t64 45% …".
std::string render_storm_status(const StormResult& r);

/// The compare tables: per figure min/median/avg/max/sd and the ratio to the first
/// variant, then the paired per-repeat ratios; the settings each variant ran with.
std::string render_compare(const CompareResult& c);
/// One finished run as a plain line: "[ 3/14] native  repeat 2/7: 45.2 cycles per pair".
std::string render_compare_run_line(const CompareResult& c, const CompareRun& run,
				    std::size_t index, std::size_t total);
/// `compare --until`'s progress counter after a round (one line, no newline): "until
/// ±2%: 7 repeats of at most 50, widest 95% CI ±3.4%" (", reached" once met; "not yet
/// computable" before every ratio has an interval). `round` is the result so far.
std::string render_until_progress(const CompareResult& round, uint32_t repeat);
/// The runs CSV's columns that say how to rerun a row and whether it counted: kernel
/// release, the machine's (VM's) cpus and memory, the VM's -icount shift (empty: its
/// clocks run in real time), the slab design, the cache's tunables during the run, the
/// slablab commit (git describe at build time), warm-up run (1: not summarized), outlier
/// (1: shown, still summarized). After `random`, before the figures.
inline constexpr const char* kRunContextColumns[] = {
	"kernel_release", "vm_cpus", "vm_memory_mb", "vm_icount", "design", "tunables",
	"slablab_commit", "warmup", "outlier"};
/// The columns of the runs CSV, shared by `slabctl compare --csv` and the Python sweeps
/// (slablab.RUN_CSV_COLUMNS): experiment, variant, x, repeat, run, set, the spec, the
/// storm, every result, figure and stat delta, the per-thread list.
std::vector<std::string> run_csv_columns();
/// Every run as CSV (run_csv_columns()): a header line and one row per run; experiment
/// is "compare", variant the variant's label, x the thread count when several were given.
std::string compare_csv(const CompareResult& c);

// ---- watch ----

/// Header of `slabctl watch`'s table: the -D columns plus Alloc/s and Free/s.
std::string watch_header(int name_width = 21);
/**
 * One line per cache: the -D columns and the allocation and free rates since `prev` (the
 * same cache in the previous sample; "-" without one), over `seconds`.
 */
std::string watch_line(const CacheInfo& now, const CacheInfo* prev, double seconds,
		       int name_width = 21);

}  // namespace slabctl
