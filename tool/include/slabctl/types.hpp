// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: typed views of the slablab generic netlink messages (uapi/linux/slablab.h).
#pragma once

#include <linux/slablab.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slabctl {

/// Number of event counters (enum slablab_stat_item).
inline constexpr std::size_t kNrStats = SLABLAB_STAT_MAX + 1;
using StatArray = std::array<uint64_t, kNrStats>;

/// SLABLAB_CMD_GET_STATUS reply.
struct Status {
	std::string version;		///< module version, e.g. "0.1.0"
	uint32_t api_version = 0;	///< SLABLAB_GENL_VERSION the module speaks
	std::string kernel_release;	///< utsname()->release
	uint32_t nr_cpu_ids = 0;
	uint32_t nr_online_cpus = 0;
	uint32_t nr_nodes = 0;
	uint32_t page_size = 0;
	uint32_t nr_caches = 0;
	uint32_t features = 0;		///< SLABLAB_FEAT_* bits
	uint32_t kmalloc_page_policy = 0; ///< enum slablab_page_policy

	bool has(uint32_t feature_bit) const noexcept { return (features & feature_bit) != 0; }
	bool init_on_alloc() const noexcept { return has(SLABLAB_FEAT_INIT_ON_ALLOC); }
	bool init_on_free() const noexcept { return has(SLABLAB_FEAT_INIT_ON_FREE); }
	bool freelist_hardened() const noexcept { return has(SLABLAB_FEAT_FREELIST_HARDENED); }
	bool freelist_random() const noexcept { return has(SLABLAB_FEAT_FREELIST_RANDOM); }
	bool cmpxchg_double() const noexcept { return has(SLABLAB_FEAT_CMPXCHG_DOUBLE); }
	bool selftest() const noexcept { return has(SLABLAB_FEAT_SELFTEST); }
	bool preempt_rt() const noexcept { return has(SLABLAB_FEAT_PREEMPT_RT); }
};

/// SLABLAB_CMD_CACHE_NEW request. Unset optionals are not sent: the kernel picks defaults.
struct CacheSpec {
	std::string name;			///< [A-Za-z0-9_.:-]{1,31}
	uint32_t size = 0;			///< SLABLAB_MIN_SIZE .. SLABLAB_MAX_SIZE
	std::optional<uint32_t> align;		///< power of two <= SLABLAB_MAX_ALIGN, 0 = default
	std::optional<uint32_t> flags;		///< SLABLAB_CACHE_F_* bits
	std::optional<uint32_t> cpu_partial;	///< <= SLABLAB_MAX_CPU_PARTIAL
	std::optional<uint32_t> min_partial;	///< <= SLABLAB_MAX_MIN_PARTIAL
	std::optional<uint32_t> order;		///< <= SLABLAB_MAX_ORDER
	std::optional<uint32_t> fastpath;	///< enum slablab_fastpath
};

/**
 * SLABLAB_CMD_CACHE_SET request: only the fields that are set are sent.
 *
 * Flags can be given absolutely (`flags`) or relatively (`flags_set` / `flags_clear`); a
 * relative change makes cache_set() read the current flags with CACHE_GET first (unless
 * `flags` is also given, which is then the base).
 */
struct Tunables {
	std::optional<uint32_t> cpu_partial;
	std::optional<uint32_t> min_partial;
	std::optional<uint32_t> order;
	std::optional<uint32_t> fastpath;
	std::optional<uint32_t> flags;
	uint32_t flags_set = 0;
	uint32_t flags_clear = 0;

	bool empty() const noexcept
	{
		return !cpu_partial && !min_partial && !order && !fastpath && !flags &&
		       flags_set == 0 && flags_clear == 0;
	}
	bool relative_flags() const noexcept { return (flags_set | flags_clear) != 0; }
};

/// One SLABLAB_PERCPU_A_ENTRY.
struct PerCpuInfo {
	uint32_t cpu = 0;
	uint32_t cpu_slab_objects = 0;	 ///< objects of the active slab
	uint32_t cpu_partial_slabs = 0;
	uint32_t cpu_partial_objects = 0; ///< free objects on the cpu partial list
	StatArray stats{};
};

/// A SLABLAB_A_CACHE nest as sent by CACHE_GET (and, partly, by SHRINK).
struct CacheInfo {
	std::string name;
	uint32_t size = 0;		///< object size asked for
	uint32_t align = 0;
	uint32_t flags = 0;		///< SLABLAB_CACHE_F_*
	uint32_t cpu_partial = 0;
	uint32_t min_partial = 0;
	uint32_t order = 0;		///< order of new slabs
	uint32_t fastpath = 0;		///< enum slablab_fastpath
	uint32_t obj_stride = 0;	///< bytes per object in a slab
	uint32_t objs_per_slab = 0;
	uint32_t order_default = 0;	///< what the order policy chose
	uint32_t owner = 0;		///< enum slablab_owner

	// gauges
	uint64_t objects = 0;		///< objects in use
	uint64_t total_objects = 0;	///< object capacity of all slabs
	uint64_t slabs = 0;
	uint64_t partial_slabs = 0;	///< on node partial lists
	uint64_t cpu_slabs = 0;		///< active per-cpu slabs
	uint64_t cpu_partial_slabs = 0;	///< on per-cpu partial lists
	uint64_t pages = 0;
	uint64_t live_bytes = 0;	///< objects in use x object size
	uint64_t meta_bytes = 0;	///< off-slab metadata bytes

	std::optional<uint64_t> slabs_freed; ///< only in a SHRINK reply

	bool has_stats = false;		///< SLABLAB_CACHE_A_STATS was present
	StatArray stats{};		///< indexed by enum slablab_stat_item
	bool has_percpu = false;	///< SLABLAB_CACHE_A_PERCPU was present
	std::vector<PerCpuInfo> percpu;

	uint64_t stat(std::size_t item) const noexcept { return item < kNrStats ? stats[item] : 0; }
};

/// SLABLAB_CMD_CACHE_VALIDATE reply.
struct ValidateReport {
	std::string cache;
	uint64_t slabs = 0;		///< slabs walked
	uint64_t objects = 0;		///< object slots walked
	uint64_t free_objects = 0;	///< objects found on freelists
	uint32_t errors = 0;
	std::string first_error;
	bool ok() const noexcept { return errors == 0; }
};

/// SLABLAB_CMD_OBJ_ALLOC reply: a kernel-held handle and the objects it holds.
struct Handle {
	uint32_t id = 0;
	uint32_t count = 0;
};

/// SLABLAB_CMD_CACHE_SHRINK reply.
struct ShrinkResult {
	uint64_t slabs_freed = 0;
	CacheInfo cache;	///< name and gauges after the shrink
};

}  // namespace slabctl
