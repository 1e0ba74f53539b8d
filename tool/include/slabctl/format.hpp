// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: text rendering for slabctl (slabinfo-style tables, reports). Pure functions
// of the typed structs, so the host unit tests can check them without the kernel module.
#pragma once

#include "slabctl/types.hpp"

#include <cstdint>
#include <string>
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

/// Sort as slabinfo does: by name (case-insensitive), by Space or by activity (largest
/// first).
void sort_caches(std::vector<CacheInfo>& caches, SortKey key, uint32_t page_size);

/// The header line of the table (no newline).
std::string table_header(bool activity);
/// One line (no newline) in the default or the activity (-D) format.
std::string table_line(const CacheInfo& c, uint32_t page_size, const TableOptions& o);
/// Header and one line per cache, in the order given, each line ending in '\n'.
std::string render_table(const std::vector<CacheInfo>& caches, uint32_t page_size,
			 const TableOptions& o);

/// Summary over all caches (-T), in the manner of slabinfo's totals().
struct Totals {
	uint64_t caches = 0;		///< caches seen
	uint64_t active = 0;		///< caches with slabs and objects
	uint64_t space = 0, used = 0, loss = 0;
	uint64_t objects = 0, total_objects = 0;
	uint64_t slabs = 0, partial_slabs = 0, cpu_slabs = 0;
	uint64_t alloc = 0, free = 0;	///< fast + slow paths
};
Totals compute_totals(const std::vector<CacheInfo>& caches, uint32_t page_size);
std::string render_totals(const std::vector<CacheInfo>& caches, uint32_t page_size,
			  bool bytes = false);

/// Everything about one cache (-r): geometry, tunables, gauges, the slabinfo-style
/// performance counter summary, every counter, and the per-cpu breakdown.
std::string render_report(const CacheInfo& c, uint32_t page_size);

/// `slabctl status`.
std::string render_status(const Status& s);
/// "slablab module 0.1.0 (api 1) on 6.1.0-57-amd64, 2 cpus"
std::string module_version_line(const Status& s);
/// One line for create/set: "t64: size 64, align 8, stride 64, 64 objects/slab, order 0, …"
std::string render_cache_summary(const CacheInfo& c);
/// `slabctl validate`: "t64: OK: 3 slabs, 192 objects, 150 free" or the errors.
std::string render_validate(const ValidateReport& v);

}  // namespace slabctl
