// SPDX-License-Identifier: GPL-2.0 OR MIT
// generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit
// The attribute sets of the slablab family: names by attribute type and the set
// each nest holds, to name the attribute the kernel's extack points at.
#pragma once

#include <linux/slablab.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace slabctl::protocol {

/// One attribute: its spec name (with _ for -), and for a nest the index of its
/// set in kAttrSets (-1 otherwise); `array` when the nest holds repeated entries.
struct AttrDesc {
	uint16_t type;
	std::string_view name;
	int nested;
	bool array;
};

struct AttrSetDesc {
	std::string_view name;
	std::span<const AttrDesc> attrs;
};

inline constexpr AttrDesc kSlablabAttrs[] = {
	{SLABLAB_A_VERSION, "version", -1, false},
	{SLABLAB_A_API_VERSION, "api_version", -1, false},
	{SLABLAB_A_KERNEL_RELEASE, "kernel_release", -1, false},
	{SLABLAB_A_NR_CPU_IDS, "nr_cpu_ids", -1, false},
	{SLABLAB_A_NR_ONLINE_CPUS, "nr_online_cpus", -1, false},
	{SLABLAB_A_NR_NODES, "nr_nodes", -1, false},
	{SLABLAB_A_PAGE_SIZE, "page_size", -1, false},
	{SLABLAB_A_NR_CACHES, "nr_caches", -1, false},
	{SLABLAB_A_FEATURES, "features", -1, false},
	{SLABLAB_A_KMALLOC_PAGE_POLICY, "kmalloc_page_policy", -1, false},
	{SLABLAB_A_CACHE, "cache", 1, false},
	{SLABLAB_A_FLAGS, "flags", -1, false},
	{SLABLAB_A_HANDLE, "handle", -1, false},
	{SLABLAB_A_COUNT, "count", -1, false},
	{SLABLAB_A_CPU, "cpu", -1, false},
	{SLABLAB_A_VALIDATE, "validate", 3, false},
	{SLABLAB_A_STORM, "storm", 5, false},
	{SLABLAB_A_REPLAY, "replay", 9, false},
	{SLABLAB_A_KMALLOC_DESIGN, "kmalloc_design", -1, false},
	{SLABLAB_A_KMALLOC_LISTS, "kmalloc_lists", -1, false},
};

inline constexpr AttrDesc kCacheAttrs[] = {
	{SLABLAB_CACHE_A_NAME, "name", -1, false},
	{SLABLAB_CACHE_A_SIZE, "size", -1, false},
	{SLABLAB_CACHE_A_ALIGN, "align", -1, false},
	{SLABLAB_CACHE_A_FLAGS, "flags", -1, false},
	{SLABLAB_CACHE_A_CPU_PARTIAL, "cpu_partial", -1, false},
	{SLABLAB_CACHE_A_MIN_PARTIAL, "min_partial", -1, false},
	{SLABLAB_CACHE_A_ORDER, "order", -1, false},
	{SLABLAB_CACHE_A_FASTPATH, "fastpath", -1, false},
	{SLABLAB_CACHE_A_OBJ_STRIDE, "obj_stride", -1, false},
	{SLABLAB_CACHE_A_OBJS_PER_SLAB, "objs_per_slab", -1, false},
	{SLABLAB_CACHE_A_ORDER_DEFAULT, "order_default", -1, false},
	{SLABLAB_CACHE_A_OWNER, "owner", -1, false},
	{SLABLAB_CACHE_A_OBJECTS, "objects", -1, false},
	{SLABLAB_CACHE_A_TOTAL_OBJECTS, "total_objects", -1, false},
	{SLABLAB_CACHE_A_SLABS, "slabs", -1, false},
	{SLABLAB_CACHE_A_PARTIAL_SLABS, "partial_slabs", -1, false},
	{SLABLAB_CACHE_A_CPU_SLABS, "cpu_slabs", -1, false},
	{SLABLAB_CACHE_A_CPU_PARTIAL_SLABS, "cpu_partial_slabs", -1, false},
	{SLABLAB_CACHE_A_PAGES, "pages", -1, false},
	{SLABLAB_CACHE_A_LIVE_BYTES, "live_bytes", -1, false},
	{SLABLAB_CACHE_A_STATS, "stats", 4, false},
	{SLABLAB_CACHE_A_PERCPU, "percpu", 2, true},
	{SLABLAB_CACHE_A_SLABS_FREED, "slabs_freed", -1, false},
	{SLABLAB_CACHE_A_META_BYTES, "meta_bytes", -1, false},
	{SLABLAB_CACHE_A_REMOTE_NODE_DEFRAG_RATIO, "remote_node_defrag_ratio", -1, false},
	{SLABLAB_CACHE_A_DESIGN, "design", -1, false},
	{SLABLAB_CACHE_A_LAYERS, "layers", 8, false},
	{SLABLAB_CACHE_A_SHEAF_CAPACITY, "sheaf_capacity", -1, false},
	{SLABLAB_CACHE_A_BARN_MAX_FULL, "barn_max_full", -1, false},
	{SLABLAB_CACHE_A_BARN_MAX_EMPTY, "barn_max_empty", -1, false},
	{SLABLAB_CACHE_A_LISTS, "lists", -1, false},
	{SLABLAB_CACHE_A_LIMIT, "limit", -1, false},
	{SLABLAB_CACHE_A_BATCHCOUNT, "batchcount", -1, false},
	{SLABLAB_CACHE_A_SHARED, "shared", -1, false},
	{SLABLAB_CACHE_A_REAP_CPU_MS, "reap_cpu_ms", -1, false},
	{SLABLAB_CACHE_A_REAP_NODE_MS, "reap_node_ms", -1, false},
	{SLABLAB_CACHE_A_FREE_SLABS, "free_slabs", -1, false},
	{SLABLAB_CACHE_A_OCCUPANCY, "occupancy", 10, true},
	{SLABLAB_CACHE_A_SHEAVES_CPU_SLABS, "sheaves_cpu_slabs", -1, false},
	{SLABLAB_CACHE_A_SLOB_SCAN_MAX, "slob_scan_max", -1, false},
	{SLABLAB_CACHE_A_RCU_PENDING, "rcu_pending", -1, false},
	{SLABLAB_CACHE_A_RCU_WAITING, "rcu_waiting", -1, false},
	{SLABLAB_CACHE_A_RCU_SLABS, "rcu_slabs", -1, false},
	{SLABLAB_CACHE_A_RCU_PAGES, "rcu_pages", -1, false},
	{SLABLAB_CACHE_A_MAX_ORDER, "max_order", -1, false},
};

inline constexpr AttrDesc kPercpuAttrs[] = {
	{SLABLAB_PERCPU_A_ENTRY, "entry", 2, true},
	{SLABLAB_PERCPU_A_CPU, "cpu", -1, false},
	{SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS, "cpu_slab_objects", -1, false},
	{SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS, "cpu_partial_slabs", -1, false},
	{SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS, "cpu_partial_objects", -1, false},
	{SLABLAB_PERCPU_A_STATS, "stats", 4, false},
};

inline constexpr AttrDesc kValidateAttrs[] = {
	{SLABLAB_VALIDATE_A_SLABS, "slabs", -1, false},
	{SLABLAB_VALIDATE_A_OBJECTS, "objects", -1, false},
	{SLABLAB_VALIDATE_A_FREE_OBJECTS, "free_objects", -1, false},
	{SLABLAB_VALIDATE_A_ERRORS, "errors", -1, false},
	{SLABLAB_VALIDATE_A_FIRST_ERROR, "first_error", -1, false},
};

inline constexpr AttrDesc kStatsAttrs[] = {
	{SLABLAB_STATS_A_ALLOC_FASTPATH, "alloc_fastpath", -1, false},
	{SLABLAB_STATS_A_ALLOC_SLOWPATH, "alloc_slowpath", -1, false},
	{SLABLAB_STATS_A_FREE_FASTPATH, "free_fastpath", -1, false},
	{SLABLAB_STATS_A_FREE_SLOWPATH, "free_slowpath", -1, false},
	{SLABLAB_STATS_A_FREE_FROZEN, "free_frozen", -1, false},
	{SLABLAB_STATS_A_FREE_ADD_PARTIAL, "free_add_partial", -1, false},
	{SLABLAB_STATS_A_FREE_REMOVE_PARTIAL, "free_remove_partial", -1, false},
	{SLABLAB_STATS_A_ALLOC_FROM_PARTIAL, "alloc_from_partial", -1, false},
	{SLABLAB_STATS_A_ALLOC_SLAB, "alloc_slab", -1, false},
	{SLABLAB_STATS_A_ALLOC_REFILL, "alloc_refill", -1, false},
	{SLABLAB_STATS_A_ALLOC_NODE_MISMATCH, "alloc_node_mismatch", -1, false},
	{SLABLAB_STATS_A_FREE_SLAB, "free_slab", -1, false},
	{SLABLAB_STATS_A_CPUSLAB_FLUSH, "cpuslab_flush", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_FULL, "deactivate_full", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_EMPTY, "deactivate_empty", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_TO_HEAD, "deactivate_to_head", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_TO_TAIL, "deactivate_to_tail", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_REMOTE_FREES, "deactivate_remote_frees", -1, false},
	{SLABLAB_STATS_A_DEACTIVATE_BYPASS, "deactivate_bypass", -1, false},
	{SLABLAB_STATS_A_ORDER_FALLBACK, "order_fallback", -1, false},
	{SLABLAB_STATS_A_CMPXCHG_DOUBLE_CPU_FAIL, "cmpxchg_double_cpu_fail", -1, false},
	{SLABLAB_STATS_A_CMPXCHG_DOUBLE_FAIL, "cmpxchg_double_fail", -1, false},
	{SLABLAB_STATS_A_CPU_PARTIAL_ALLOC, "cpu_partial_alloc", -1, false},
	{SLABLAB_STATS_A_CPU_PARTIAL_FREE, "cpu_partial_free", -1, false},
	{SLABLAB_STATS_A_CPU_PARTIAL_NODE, "cpu_partial_node", -1, false},
	{SLABLAB_STATS_A_CPU_PARTIAL_DRAIN, "cpu_partial_drain", -1, false},
	{SLABLAB_STATS_A_SHEAF_FLUSH, "sheaf_flush", -1, false},
	{SLABLAB_STATS_A_SHEAF_REFILL, "sheaf_refill", -1, false},
	{SLABLAB_STATS_A_SHEAF_ALLOC, "sheaf_alloc", -1, false},
	{SLABLAB_STATS_A_SHEAF_FREE, "sheaf_free", -1, false},
	{SLABLAB_STATS_A_BARN_GET, "barn_get", -1, false},
	{SLABLAB_STATS_A_BARN_GET_FAIL, "barn_get_fail", -1, false},
	{SLABLAB_STATS_A_BARN_PUT, "barn_put", -1, false},
	{SLABLAB_STATS_A_BARN_PUT_FAIL, "barn_put_fail", -1, false},
	{SLABLAB_STATS_A_ALLOCHIT, "allochit", -1, false},
	{SLABLAB_STATS_A_ALLOCMISS, "allocmiss", -1, false},
	{SLABLAB_STATS_A_FREEHIT, "freehit", -1, false},
	{SLABLAB_STATS_A_FREEMISS, "freemiss", -1, false},
	{SLABLAB_STATS_A_NODEALLOCS, "nodeallocs", -1, false},
	{SLABLAB_STATS_A_REMOTEFREES, "remotefrees", -1, false},
	{SLABLAB_STATS_A_ALIENOVERFLOW, "alienoverflow", -1, false},
	{SLABLAB_STATS_A_GROWN, "grown", -1, false},
	{SLABLAB_STATS_A_REAPED, "reaped", -1, false},
	{SLABLAB_STATS_A_LISTALLOCS, "listallocs", -1, false},
	{SLABLAB_STATS_A_MAXOBJS, "maxobjs", -1, false},
	{SLABLAB_STATS_A_MAXFREEABLE, "maxfreeable", -1, false},
	{SLABLAB_STATS_A_SHEAF_PREFILL_FAST, "sheaf_prefill_fast", -1, false},
	{SLABLAB_STATS_A_SHEAF_PREFILL_SLOW, "sheaf_prefill_slow", -1, false},
	{SLABLAB_STATS_A_SHEAF_PREFILL_OVERSIZE, "sheaf_prefill_oversize", -1, false},
	{SLABLAB_STATS_A_SHEAF_RETURN_FAST, "sheaf_return_fast", -1, false},
	{SLABLAB_STATS_A_SHEAF_RETURN_SLOW, "sheaf_return_slow", -1, false},
	{SLABLAB_STATS_A_SLOB_SCAN, "slob_scan", -1, false},
	{SLABLAB_STATS_A_SLOB_NEW_PAGE, "slob_new_page", -1, false},
	{SLABLAB_STATS_A_SLOB_COALESCE, "slob_coalesce", -1, false},
	{SLABLAB_STATS_A_SLOB_HEADER_BYTES, "slob_header_bytes", -1, false},
	{SLABLAB_STATS_A_FREE_RCU, "free_rcu", -1, false},
	{SLABLAB_STATS_A_FREE_RCU_BATCH, "free_rcu_batch", -1, false},
	{SLABLAB_STATS_A_FREE_RCU_SHEAF, "free_rcu_sheaf", -1, false},
	{SLABLAB_STATS_A_FREE_RCU_SHEAF_FAIL, "free_rcu_sheaf_fail", -1, false},
	{SLABLAB_STATS_A_RCU_SLAB_DEFERRED, "rcu_slab_deferred", -1, false},
};

inline constexpr AttrDesc kStormAttrs[] = {
	{SLABLAB_STORM_A_TARGET, "target", -1, false},
	{SLABLAB_STORM_A_PATTERN, "pattern", -1, false},
	{SLABLAB_STORM_A_CACHE, "cache", -1, false},
	{SLABLAB_STORM_A_SIZE, "size", -1, false},
	{SLABLAB_STORM_A_SIZES, "sizes", 6, true},
	{SLABLAB_STORM_A_THREADS, "threads", -1, false},
	{SLABLAB_STORM_A_CPUS, "cpus", -1, false},
	{SLABLAB_STORM_A_OPS, "ops", -1, false},
	{SLABLAB_STORM_A_DURATION_MS, "duration_ms", -1, false},
	{SLABLAB_STORM_A_BATCH, "batch", -1, false},
	{SLABLAB_STORM_A_WORKING_SET, "working_set", -1, false},
	{SLABLAB_STORM_A_RING, "ring", -1, false},
	{SLABLAB_STORM_A_SEED, "seed", -1, false},
	{SLABLAB_STORM_A_MAX_LIVE_BYTES, "max_live_bytes", -1, false},
	{SLABLAB_STORM_A_ID, "id", -1, false},
	{SLABLAB_STORM_A_STATE, "state", -1, false},
	{SLABLAB_STORM_A_OPS_PLANNED, "ops_planned", -1, false},
	{SLABLAB_STORM_A_OPS_DONE, "ops_done", -1, false},
	{SLABLAB_STORM_A_ELAPSED_NS, "elapsed_ns", -1, false},
	{SLABLAB_STORM_A_ALLOCS, "allocs", -1, false},
	{SLABLAB_STORM_A_FREES, "frees", -1, false},
	{SLABLAB_STORM_A_ALLOC_CYCLES, "alloc_cycles", -1, false},
	{SLABLAB_STORM_A_FREE_CYCLES, "free_cycles", -1, false},
	{SLABLAB_STORM_A_PAIR_CYCLES, "pair_cycles", -1, false},
	{SLABLAB_STORM_A_LOOP_CYCLES, "loop_cycles", -1, false},
	{SLABLAB_STORM_A_FAILURES, "failures", -1, false},
	{SLABLAB_STORM_A_PEAK_PAGES, "peak_pages", -1, false},
	{SLABLAB_STORM_A_PEAK_LIVE_BYTES, "peak_live_bytes", -1, false},
	{SLABLAB_STORM_A_META_BYTES, "meta_bytes", -1, false},
	{SLABLAB_STORM_A_CYCLES_PER_SEC, "cycles_per_sec", -1, false},
	{SLABLAB_STORM_A_FEATURES, "features", -1, false},
	{SLABLAB_STORM_A_CACHE_FLAGS, "cache_flags", -1, false},
	{SLABLAB_STORM_A_THREAD_LIST, "thread_list", 7, true},
	{SLABLAB_STORM_A_STATS, "stats", 4, false},
	{SLABLAB_STORM_A_NATIVE_NAME, "native_name", -1, false},
	{SLABLAB_STORM_A_THIN, "thin", -1, false},
	{SLABLAB_STORM_A_STEADY_PAGES, "steady_pages", -1, false},
	{SLABLAB_STORM_A_STEADY_LIVE_BYTES, "steady_live_bytes", -1, false},
	{SLABLAB_STORM_A_STEADY_SAMPLES, "steady_samples", -1, false},
	{SLABLAB_STORM_A_SHRUNK_PAGES, "shrunk_pages", -1, false},
	{SLABLAB_STORM_A_SHRUNK_LIVE_BYTES, "shrunk_live_bytes", -1, false},
	{SLABLAB_STORM_A_RATE, "rate", -1, false},
	{SLABLAB_STORM_A_RCU_WAITING_PEAK, "rcu_waiting_peak", -1, false},
	{SLABLAB_STORM_A_RCU_WAITING_MEAN, "rcu_waiting_mean", -1, false},
	{SLABLAB_STORM_A_RCU_WAITING_END, "rcu_waiting_end", -1, false},
	{SLABLAB_STORM_A_RCU_PAGES_PEAK, "rcu_pages_peak", -1, false},
	{SLABLAB_STORM_A_RCU_SAMPLES, "rcu_samples", -1, false},
	{SLABLAB_STORM_A_PRODUCERS, "producers", -1, false},
	{SLABLAB_STORM_A_REMOTE_FREES, "remote_frees", -1, false},
};

inline constexpr AttrDesc kStormSizeAttrs[] = {
	{SLABLAB_STORM_SIZE_A_ENTRY, "entry", 6, true},
	{SLABLAB_STORM_SIZE_A_SIZE, "size", -1, false},
	{SLABLAB_STORM_SIZE_A_WEIGHT, "weight", -1, false},
};

inline constexpr AttrDesc kStormThreadAttrs[] = {
	{SLABLAB_STORM_THREAD_A_ENTRY, "entry", 7, true},
	{SLABLAB_STORM_THREAD_A_CPU, "cpu", -1, false},
	{SLABLAB_STORM_THREAD_A_OPS, "ops", -1, false},
	{SLABLAB_STORM_THREAD_A_CYCLES, "cycles", -1, false},
	{SLABLAB_STORM_THREAD_A_NS, "ns", -1, false},
};

inline constexpr AttrDesc kLayersAttrs[] = {
	{SLABLAB_LAYERS_A_TOTAL, "total", -1, false},
	{SLABLAB_LAYERS_A_CALLERS, "callers", -1, false},
	{SLABLAB_LAYERS_A_CPU_SLAB, "cpu_slab", -1, false},
	{SLABLAB_LAYERS_A_CPU_PARTIAL, "cpu_partial", -1, false},
	{SLABLAB_LAYERS_A_SLABS_FREE, "slabs_free", -1, false},
	{SLABLAB_LAYERS_A_SHEAF_MAIN, "sheaf_main", -1, false},
	{SLABLAB_LAYERS_A_SHEAF_SPARE, "sheaf_spare", -1, false},
	{SLABLAB_LAYERS_A_BARN, "barn", -1, false},
	{SLABLAB_LAYERS_A_ARRAY, "array", -1, false},
	{SLABLAB_LAYERS_A_SHARED, "shared", -1, false},
	{SLABLAB_LAYERS_A_ALIEN, "alien", -1, false},
	{SLABLAB_LAYERS_A_SHEAF_PREFILLED, "sheaf_prefilled", -1, false},
};

inline constexpr AttrDesc kReplayAttrs[] = {
	{SLABLAB_REPLAY_A_TARGET, "target", -1, false},
	{SLABLAB_REPLAY_A_NR_EVENTS, "nr_events", -1, false},
	{SLABLAB_REPLAY_A_NR_OBJECTS, "nr_objects", -1, false},
	{SLABLAB_REPLAY_A_NR_CPUS, "nr_cpus", -1, false},
	{SLABLAB_REPLAY_A_CACHES, "caches", -1, false},
	{SLABLAB_REPLAY_A_MAX_LIVE_BYTES, "max_live_bytes", -1, false},
	{SLABLAB_REPLAY_A_OFFSET, "offset", -1, false},
	{SLABLAB_REPLAY_A_EVENTS, "events", -1, false},
	{SLABLAB_REPLAY_A_STATE, "state", -1, false},
	{SLABLAB_REPLAY_A_THREADS, "threads", -1, false},
	{SLABLAB_REPLAY_A_FOLDED, "folded", -1, false},
	{SLABLAB_REPLAY_A_ALLOCS, "allocs", -1, false},
	{SLABLAB_REPLAY_A_FREES, "frees", -1, false},
	{SLABLAB_REPLAY_A_REMOTE_FREES, "remote_frees", -1, false},
	{SLABLAB_REPLAY_A_FAILURES, "failures", -1, false},
	{SLABLAB_REPLAY_A_ALLOC_CYCLES, "alloc_cycles", -1, false},
	{SLABLAB_REPLAY_A_FREE_CYCLES, "free_cycles", -1, false},
	{SLABLAB_REPLAY_A_ELAPSED_NS, "elapsed_ns", -1, false},
	{SLABLAB_REPLAY_A_PEAK_PAGES, "peak_pages", -1, false},
	{SLABLAB_REPLAY_A_PEAK_LIVE_BYTES, "peak_live_bytes", -1, false},
	{SLABLAB_REPLAY_A_LIVE_AT_END, "live_at_end", -1, false},
	{SLABLAB_REPLAY_A_CACHE_RESULTS, "cache_results", -1, false},
	{SLABLAB_REPLAY_A_DESIGN, "design", -1, false},
	{SLABLAB_REPLAY_A_TIME_SCALE, "time_scale", -1, false},
	{SLABLAB_REPLAY_A_TIMES, "times", -1, false},
	{SLABLAB_REPLAY_A_SAMPLE_NS, "sample_ns", -1, false},
	{SLABLAB_REPLAY_A_SAMPLES, "samples", -1, false},
	{SLABLAB_REPLAY_A_AVG_PAGES, "avg_pages", -1, false},
	{SLABLAB_REPLAY_A_CPU_PARTIAL, "cpu_partial", -1, false},
};

inline constexpr AttrDesc kOccupancyAttrs[] = {
	{SLABLAB_OCCUPANCY_A_BUCKET, "bucket", 10, true},
	{SLABLAB_OCCUPANCY_A_LO, "lo", -1, false},
	{SLABLAB_OCCUPANCY_A_HI, "hi", -1, false},
	{SLABLAB_OCCUPANCY_A_SLABS, "slabs", -1, false},
};

inline constexpr AttrSetDesc kAttrSets[] = {
	{"slablab", kSlablabAttrs},
	{"cache", kCacheAttrs},
	{"percpu", kPercpuAttrs},
	{"validate", kValidateAttrs},
	{"stats", kStatsAttrs},
	{"storm", kStormAttrs},
	{"storm-size", kStormSizeAttrs},
	{"storm-thread", kStormThreadAttrs},
	{"layers", kLayersAttrs},
	{"replay", kReplayAttrs},
	{"occupancy", kOccupancyAttrs},
};

/// Index of the top-level set in kAttrSets.
inline constexpr int kTopSet = 0;

}  // namespace slabctl::protocol
