// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: typed views of the slablab generic netlink messages (uapi/linux/slablab.h).
#pragma once

#include <linux/slablab.h>
#include <slablab/protocol.h>	// the X-macro tables generated from uapi/slablab.yaml

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slabctl {

/// The C++ type of a protocol type name of the X-macro tables (u32, u64).
using proto_u32 = uint32_t;
using proto_u64 = uint64_t;
#define SLABCTL_TYPE(type) proto_##type

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
	uint32_t kmalloc_design = 0;	///< enum slablab_design of the kmalloc classes
	uint32_t kmalloc_lists = 0;	///< the kmalloc classes' lists tunable (slab, slob)

	bool has(uint32_t feature_bit) const noexcept { return (features & feature_bit) != 0; }
	bool init_on_alloc() const noexcept { return has(SLABLAB_FEAT_INIT_ON_ALLOC); }
	bool init_on_free() const noexcept { return has(SLABLAB_FEAT_INIT_ON_FREE); }
	bool freelist_hardened() const noexcept { return has(SLABLAB_FEAT_FREELIST_HARDENED); }
	bool freelist_random() const noexcept { return has(SLABLAB_FEAT_FREELIST_RANDOM); }
	bool cmpxchg_double() const noexcept { return has(SLABLAB_FEAT_CMPXCHG_DOUBLE); }
	bool selftest() const noexcept { return has(SLABLAB_FEAT_SELFTEST); }
	bool preempt_rt() const noexcept { return has(SLABLAB_FEAT_PREEMPT_RT); }
};

/// SLABLAB_CMD_LAB_SET request: the module-wide settings Status reports, each sent only
/// when set (slabctl lab set KEY=VALUE…).
struct LabSettings {
	std::optional<uint32_t> kmalloc_design;		///< enum slablab_design
	std::optional<uint32_t> kmalloc_lists;		///< 1..3
	std::optional<uint32_t> kmalloc_page_policy;	///< enum slablab_page_policy
};

/// SLABLAB_CMD_CACHE_NEW request. Unset optionals are not sent: the kernel picks defaults.
struct CacheSpec {
	std::string name;			///< [A-Za-z0-9_.:-]{1,31}
	uint32_t size = 0;			///< SLABLAB_MIN_SIZE .. SLABLAB_MAX_SIZE
	std::optional<uint32_t> align;		///< power of two <= SLABLAB_MAX_ALIGN, 0 = default
	/// the tunables (SLABLAB_CACHE_TUNABLES: flags, order, cpu_partial, ...)
#define SLABCTL_FIELD(attr, name, type, kind, enum, min, max) std::optional<SLABCTL_TYPE(type)> name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_FIELD)
#undef SLABCTL_FIELD
};

/**
 * SLABLAB_CMD_CACHE_SET request: only the fields that are set are sent.
 *
 * Flags can be given absolutely (`flags`) or relatively (`flags_set` / `flags_clear`); a
 * relative change makes cache_set() read the current flags with CACHE_GET first (unless
 * `flags` is also given, which is then the base).
 */
struct Tunables {
	/// the tunables (SLABLAB_CACHE_TUNABLES: flags, order, cpu_partial, ...)
#define SLABCTL_FIELD(attr, name, type, kind, enum, min, max) std::optional<SLABCTL_TYPE(type)> name;
	SLABLAB_CACHE_TUNABLES(SLABCTL_FIELD)
#undef SLABCTL_FIELD
	uint32_t flags_set = 0;
	uint32_t flags_clear = 0;

	bool empty() const noexcept
	{
		bool any = flags_set != 0 || flags_clear != 0;
#define SLABCTL_ANY(attr, name, type, kind, enum, min, max) any = any || name.has_value();
		SLABLAB_CACHE_TUNABLES(SLABCTL_ANY)
#undef SLABCTL_ANY
		return !any;
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
	uint32_t obj_stride = 0;	///< bytes per object in a slab
	uint32_t objs_per_slab = 0;
	uint32_t order_default = 0;	///< what the order policy chose
	uint32_t owner = 0;		///< enum slablab_owner

	/// the tunables (SLABLAB_CACHE_TUNABLES) and the gauges (SLABLAB_CACHE_GAUGES:
	/// objects, total_objects, slabs, ..., live_bytes, meta_bytes), as uapi/slablab.yaml
	/// documents them
#define SLABCTL_FIELD(attr, name, type, ...) SLABCTL_TYPE(type) name = 0;
	SLABLAB_CACHE_TUNABLES(SLABCTL_FIELD)
	SLABLAB_CACHE_GAUGES(SLABCTL_FIELD)
#undef SLABCTL_FIELD

	std::optional<uint64_t> slabs_freed; ///< only in a SHRINK reply

	bool has_stats = false;		///< SLABLAB_CACHE_A_STATS was present
	StatArray stats{};		///< indexed by enum slablab_stat_item
	bool has_percpu = false;	///< SLABLAB_CACHE_A_PERCPU was present
	std::vector<PerCpuInfo> percpu;

	/// Objects per layer (SLABLAB_CACHE_LAYERS: total, callers, cpu_slab, ...): each set
	/// where the cache's design has that layer; all unset when LAYERS was absent.
	struct Layers {
#define SLABCTL_LAYER(attr, name) std::optional<uint64_t> name;
		SLABLAB_CACHE_LAYERS(SLABCTL_LAYER)
#undef SLABCTL_LAYER
	};
	bool has_layers = false;	///< SLABLAB_CACHE_A_LAYERS was present
	Layers layers;

	/// One bucket of the slab-occupancy histogram: slabs holding lo..hi objects in use.
	struct OccupancyBucket {
		uint32_t lo = 0;
		uint32_t hi = 0;
		uint64_t slabs = 0;
		bool operator==(const OccupancyBucket&) const = default;
	};
	bool has_occupancy = false;	///< SLABLAB_CACHE_A_OCCUPANCY was present
	std::vector<OccupancyBucket> occupancy;	///< empty to full

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

/// One entry of a storm's size distribution (SLABLAB_STORM_SIZE_A_ENTRY).
struct StormSize {
	uint32_t size = 0;	///< bytes
	uint32_t weight = 1;	///< relative weight
	bool operator==(const StormSize&) const = default;
};

/**
 * SLABLAB_CMD_STORM_START request (and the spec a STORM_* reply echoes, defaults filled
 * in). Unset optionals and empty strings/lists are not sent: the kernel picks defaults.
 */
struct StormSpec {
	uint32_t target = SLABLAB_TARGET_SLABLAB;		///< enum slablab_target
	uint32_t pattern = SLABLAB_PATTERN_PAIR;	///< enum slablab_storm_pattern
	std::string cache;				///< slablab cache (CACHE; NATIVE's model)
	std::optional<uint32_t> size;			///< object size (NATIVE without CACHE, kmalloc)
	std::vector<StormSize> sizes;			///< weighted sizes (kmalloc targets)
	std::optional<uint32_t> threads;		///< default: one per cpu of cpus
	std::string cpus;				///< cpu list "0-3,6"; default: online cpus
	std::optional<uint64_t> ops;			///< allocations per thread
	std::optional<uint32_t> duration_ms;		///< instead of ops
	std::optional<uint32_t> batch;			///< batch / bulk size
	std::optional<uint32_t> working_set;		///< churn: live objects per thread
	std::optional<uint32_t> ring;			///< remote: ring slots (power of two)
	std::optional<uint64_t> seed;			///< RNG seed (churn, sizes)
	std::optional<uint64_t> max_live_bytes;		///< live-memory cap
	std::optional<uint32_t> thin;			///< churn: keep every thin-th object
	std::optional<uint32_t> rate;			///< rcu: objects/s per thread (0: max)
	std::optional<uint32_t> producers;		///< producer-consumer: allocating threads

	bool operator==(const StormSpec&) const = default;
};

/// One SLABLAB_STORM_THREAD_A_ENTRY.
struct StormThread {
	uint32_t cpu = 0;
	uint64_t ops = 0;
	uint64_t cycles = 0;	///< cycles in its timed loops
	uint64_t ns = 0;	///< from the start barrier to its end
};

/**
 * A SLABLAB_A_STORM nest from STORM_START / STORM_GET / STORM_STOP: state, the spec as
 * the kernel applied it, progress, and (once finished) the results. The derived figures
 * (cycles per op, ops/s, …) are computed by storm_figures() in storm.hpp.
 */
struct StormResult {
	uint32_t id = 0;
	uint32_t state = SLABLAB_STORM_NONE;	///< enum slablab_storm_state
	StormSpec spec;				///< as applied (defaults filled in)
	/// false for the STATE NONE reply (no storm has run): it carries no spec
	bool has_spec = true;

	// progress
	uint64_t ops_planned = 0;	///< all threads; 0 for duration storms
	uint64_t ops_done = 0;		///< all threads
	uint64_t elapsed_ns = 0;	///< start barrier to last thread done (so far)

	// results (once finished)
	bool has_results = false;	///< any result attribute was present
	uint64_t allocs = 0;		///< objects allocated in timed loops
	uint64_t frees = 0;		///< frees in timed loops of objects allocated in them
	uint64_t alloc_cycles = 0;	///< cycles in timed alloc loops
	uint64_t free_cycles = 0;	///< cycles in timed free loops
	uint64_t pair_cycles = 0;	///< cycles in pair loops (alloc + free)
	uint64_t loop_cycles_x1000 = 0;	///< empty-loop cycles per iteration x 1000
	uint64_t failures = 0;		///< allocations that returned NULL
	uint64_t remote_frees = 0;	///< frees on another cpu than the allocation's
	uint64_t peak_pages = 0;	///< pages held by the target at the peak
	uint64_t peak_live_bytes = 0;	///< bytes of live objects at that moment
	uint64_t meta_bytes = 0;	///< slablab off-slab metadata at the peak
	/// churn: means over the samples taken while every thread held its working set
	uint64_t steady_pages = 0;
	uint64_t steady_live_bytes = 0;
	uint32_t steady_samples = 0;	///< churn: how many (0: no steady-state figure)
	/// churn: after the loops and a shrink of the target, working sets still held
	std::optional<uint64_t> shrunk_pages;
	std::optional<uint64_t> shrunk_live_bytes;
	/// rcu: objects freed by RCU and not yet freed (the target's rcu_pending +
	/// rcu_waiting): the most and the mean over the samples, and at the loops' end
	std::optional<uint64_t> rcu_waiting_peak;
	std::optional<uint64_t> rcu_waiting_mean;
	std::optional<uint64_t> rcu_waiting_end;
	/// rcu: the most pages of typesafe-by-rcu slabs waiting for a grace period
	std::optional<uint64_t> rcu_pages_peak;
	uint32_t rcu_samples = 0;	///< rcu: how many samples
	uint64_t cycles_per_sec = 0;	///< get_cycles() rate
	std::optional<uint32_t> features;	///< SLABLAB_FEAT_* the kernel ran with
	std::optional<uint32_t> cache_flags;	///< SLABLAB_CACHE_F_* of the target cache
	std::vector<StormThread> threads;
	bool has_stats = false;		///< stat deltas present (slablab targets)
	StatArray stats{};		///< deltas, indexed by enum slablab_stat_item
	std::string native_name;	///< the kernel cache's name (NATIVE)

	/// Page size of the machine the storm ran on (from GET_STATUS; 0 if unknown): the
	/// memory overhead figure needs it.
	uint32_t page_size = 0;
	/// Set by Client::run_storm() when it stopped the storm because it was asked to.
	bool interrupted = false;

	bool running() const noexcept { return state == SLABLAB_STORM_RUNNING; }
	bool finished() const noexcept
	{
		return state == SLABLAB_STORM_DONE || state == SLABLAB_STORM_STOPPED;
	}
};

}  // namespace slabctl
