/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/* generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit */
/*
 * X-macro tables of the slablab protocol, for the module (netlink fill and set,
 * debugfs), slabctl (types, decoders, JSON, names) and the Python binding. Each
 * table is a macro taking the macro X to apply to every row:
 *
 *   #define PUT(attr, name, type, kind, enum, min, max) ...
 *   SLABLAB_CACHE_TUNABLES(PUT)
 */
#ifndef _SLABLAB_PROTOCOL_H
#define _SLABLAB_PROTOCOL_H

/*
 * The cache tunables (spec: cache-tunables), in the order the module applies them.
 * X(attr, name, type, kind, enum, min, max): attr is the SLABLAB_CACHE_A_ suffix; name
 * the module's struct slablab_cache field, slablab_set_<name>(), the debugfs/sysfs
 * file, slabctl's KEY and JSON key and Python's keyword; type u32 or u64; kind NUM,
 * ENUM or FLAGS (then enum is the spec's enum, else none); min..max what the kernel's
 * policy accepts (a flags tunable: max is the mask of its bits).
 */
#define SLABLAB_CACHE_TUNABLES(X) \
	X(FLAGS, flags, u32, FLAGS, cache_flags, 0, 31) \
	X(ORDER, order, u32, NUM, none, 0, 4) \
	X(CPU_PARTIAL, cpu_partial, u32, NUM, none, 0, 65536) \
	X(MIN_PARTIAL, min_partial, u32, NUM, none, 0, 1024) \
	X(FASTPATH, fastpath, u32, ENUM, fastpath, 0, 1) \
	X(REMOTE_NODE_DEFRAG_RATIO, remote_node_defrag_ratio, u32, NUM, none, 0, 100) \
	X(DESIGN, design, u32, ENUM, design, 0, 3) \
	X(SHEAF_CAPACITY, sheaf_capacity, u32, NUM, none, 0, 1024) \
	X(BARN_MAX_FULL, barn_max_full, u32, NUM, none, 0, 1024) \
	X(BARN_MAX_EMPTY, barn_max_empty, u32, NUM, none, 0, 1024) \
	X(LISTS, lists, u32, NUM, none, 1, 3) \
	X(LIMIT, limit, u32, NUM, none, 0, 4096) \
	X(BATCHCOUNT, batchcount, u32, NUM, none, 0, 4096) \
	X(SHARED, shared, u32, NUM, none, 0, 64) \
	X(REAP_CPU_MS, reap_cpu_ms, u32, NUM, none, 0, 3600000) \
	X(REAP_NODE_MS, reap_node_ms, u32, NUM, none, 0, 3600000) \
	X(SHEAVES_CPU_SLABS, sheaves_cpu_slabs, u32, NUM, none, 0, 1) \
	X(MAX_ORDER, max_order, u32, NUM, none, 0, 4)

/*
 * The designs whose code reads each tunable (uapi/tunables.yaml):
 * SLABLAB_TUNABLE_DESIGNS_<attr>, a mask of SLABLAB_TUNABLE_D_* (bit n: enum
 * slablab_design n; SHEAVES_CPU_SLABS: a sheaves cache standing on slub's cpu slabs),
 * for an X of SLABLAB_CACHE_TUNABLES to paste. A client's report shows a cache the
 * tunables of its design.
 */
#define SLABLAB_TUNABLE_D_SLUB	0x1
#define SLABLAB_TUNABLE_D_SHEAVES	0x2
#define SLABLAB_TUNABLE_D_SLAB	0x4
#define SLABLAB_TUNABLE_D_SLOB	0x8
#define SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS	0x10

#define SLABLAB_TUNABLE_DESIGNS_FLAGS \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES | \
	SLABLAB_TUNABLE_D_SLAB | \
	SLABLAB_TUNABLE_D_SLOB)
#define SLABLAB_TUNABLE_DESIGNS_ORDER \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES | \
	SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_CPU_PARTIAL \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS)
#define SLABLAB_TUNABLE_DESIGNS_MIN_PARTIAL \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES)
#define SLABLAB_TUNABLE_DESIGNS_FASTPATH \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS)
#define SLABLAB_TUNABLE_DESIGNS_REMOTE_NODE_DEFRAG_RATIO \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS)
#define SLABLAB_TUNABLE_DESIGNS_DESIGN \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES | \
	SLABLAB_TUNABLE_D_SLAB | \
	SLABLAB_TUNABLE_D_SLOB)
#define SLABLAB_TUNABLE_DESIGNS_SHEAF_CAPACITY \
	(SLABLAB_TUNABLE_D_SHEAVES)
#define SLABLAB_TUNABLE_DESIGNS_BARN_MAX_FULL \
	(SLABLAB_TUNABLE_D_SHEAVES)
#define SLABLAB_TUNABLE_DESIGNS_BARN_MAX_EMPTY \
	(SLABLAB_TUNABLE_D_SHEAVES)
#define SLABLAB_TUNABLE_DESIGNS_LISTS \
	(SLABLAB_TUNABLE_D_SLAB | \
	SLABLAB_TUNABLE_D_SLOB)
#define SLABLAB_TUNABLE_DESIGNS_LIMIT \
	(SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_BATCHCOUNT \
	(SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_SHARED \
	(SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_REAP_CPU_MS \
	(SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_REAP_NODE_MS \
	(SLABLAB_TUNABLE_D_SLAB)
#define SLABLAB_TUNABLE_DESIGNS_SHEAVES_CPU_SLABS \
	(SLABLAB_TUNABLE_D_SHEAVES)
#define SLABLAB_TUNABLE_DESIGNS_MAX_ORDER \
	(SLABLAB_TUNABLE_D_SLUB | \
	SLABLAB_TUNABLE_D_SHEAVES)

/*
 * The gauges of a cache reply (spec: cache-gauges). X(attr, name, type): attr is the
 * SLABLAB_CACHE_A_ suffix, name the JSON key under "gauges".
 */
#define SLABLAB_CACHE_GAUGES(X) \
	X(OBJECTS, objects, u64) \
	X(TOTAL_OBJECTS, total_objects, u64) \
	X(SLABS, slabs, u64) \
	X(PARTIAL_SLABS, partial_slabs, u64) \
	X(CPU_SLABS, cpu_slabs, u64) \
	X(CPU_PARTIAL_SLABS, cpu_partial_slabs, u64) \
	X(PAGES, pages, u64) \
	X(LIVE_BYTES, live_bytes, u64) \
	X(META_BYTES, meta_bytes, u64) \
	X(FREE_SLABS, free_slabs, u64) \
	X(SLOB_SCAN_MAX, slob_scan_max, u64) \
	X(RCU_PENDING, rcu_pending, u64) \
	X(RCU_WAITING, rcu_waiting, u64) \
	X(RCU_SLABS, rcu_slabs, u64) \
	X(RCU_PAGES, rcu_pages, u64)

/*
 * Where a cache's object slots are (spec: the layers attribute set), in attribute
 * order. X(attr, name): attr is the SLABLAB_LAYERS_A_ suffix, name the module's struct
 * slablab_layers field and the JSON key under "layers". A design reports the layers it
 * has (struct slablab_layers' present mask).
 */
#define SLABLAB_CACHE_LAYERS(X) \
	X(TOTAL, total) \
	X(CALLERS, callers) \
	X(CPU_SLAB, cpu_slab) \
	X(CPU_PARTIAL, cpu_partial) \
	X(SLABS_FREE, slabs_free) \
	X(SHEAF_MAIN, sheaf_main) \
	X(SHEAF_SPARE, sheaf_spare) \
	X(BARN, barn) \
	X(ARRAY, array) \
	X(SHARED, shared) \
	X(ALIEN, alien) \
	X(SHEAF_PREFILLED, sheaf_prefilled)

/*
 * The designs (spec: design), in enum slablab_design order. X(design, name): design is
 * the SLABLAB_DESIGN_ suffix, name what every interface calls it (the tracepoints,
 * slabctl, debugfs, JSON).
 */
#define SLABLAB_DESIGNS(X) \
	X(SLUB, slub) \
	X(SHEAVES, sheaves) \
	X(SLAB, slab) \
	X(SLOB, slob)

/*
 * The event counters (spec: stat-item), in enum slablab_stat_item order. X(item, name):
 * item is the SLABLAB_ suffix, name the debugfs and sysfs file and the JSON key.
 */
#define SLABLAB_STAT_ITEMS(X) \
	X(ALLOC_FASTPATH, alloc_fastpath) \
	X(ALLOC_SLOWPATH, alloc_slowpath) \
	X(FREE_FASTPATH, free_fastpath) \
	X(FREE_SLOWPATH, free_slowpath) \
	X(FREE_FROZEN, free_frozen) \
	X(FREE_ADD_PARTIAL, free_add_partial) \
	X(FREE_REMOVE_PARTIAL, free_remove_partial) \
	X(ALLOC_FROM_PARTIAL, alloc_from_partial) \
	X(ALLOC_SLAB, alloc_slab) \
	X(ALLOC_REFILL, alloc_refill) \
	X(ALLOC_NODE_MISMATCH, alloc_node_mismatch) \
	X(FREE_SLAB, free_slab) \
	X(CPUSLAB_FLUSH, cpuslab_flush) \
	X(DEACTIVATE_FULL, deactivate_full) \
	X(DEACTIVATE_EMPTY, deactivate_empty) \
	X(DEACTIVATE_TO_HEAD, deactivate_to_head) \
	X(DEACTIVATE_TO_TAIL, deactivate_to_tail) \
	X(DEACTIVATE_REMOTE_FREES, deactivate_remote_frees) \
	X(DEACTIVATE_BYPASS, deactivate_bypass) \
	X(ORDER_FALLBACK, order_fallback) \
	X(CMPXCHG_DOUBLE_CPU_FAIL, cmpxchg_double_cpu_fail) \
	X(CMPXCHG_DOUBLE_FAIL, cmpxchg_double_fail) \
	X(CPU_PARTIAL_ALLOC, cpu_partial_alloc) \
	X(CPU_PARTIAL_FREE, cpu_partial_free) \
	X(CPU_PARTIAL_NODE, cpu_partial_node) \
	X(CPU_PARTIAL_DRAIN, cpu_partial_drain) \
	X(SHEAF_FLUSH, sheaf_flush) \
	X(SHEAF_REFILL, sheaf_refill) \
	X(SHEAF_ALLOC, sheaf_alloc) \
	X(SHEAF_FREE, sheaf_free) \
	X(BARN_GET, barn_get) \
	X(BARN_GET_FAIL, barn_get_fail) \
	X(BARN_PUT, barn_put) \
	X(BARN_PUT_FAIL, barn_put_fail) \
	X(ALLOCHIT, allochit) \
	X(ALLOCMISS, allocmiss) \
	X(FREEHIT, freehit) \
	X(FREEMISS, freemiss) \
	X(NODEALLOCS, nodeallocs) \
	X(REMOTEFREES, remotefrees) \
	X(ALIENOVERFLOW, alienoverflow) \
	X(GROWN, grown) \
	X(REAPED, reaped) \
	X(LISTALLOCS, listallocs) \
	X(MAXOBJS, maxobjs) \
	X(MAXFREEABLE, maxfreeable) \
	X(SHEAF_PREFILL_FAST, sheaf_prefill_fast) \
	X(SHEAF_PREFILL_SLOW, sheaf_prefill_slow) \
	X(SHEAF_PREFILL_OVERSIZE, sheaf_prefill_oversize) \
	X(SHEAF_RETURN_FAST, sheaf_return_fast) \
	X(SHEAF_RETURN_SLOW, sheaf_return_slow) \
	X(SLOB_SCAN, slob_scan) \
	X(SLOB_NEW_PAGE, slob_new_page) \
	X(SLOB_COALESCE, slob_coalesce) \
	X(SLOB_HEADER_BYTES, slob_header_bytes) \
	X(FREE_RCU, free_rcu) \
	X(FREE_RCU_BATCH, free_rcu_batch) \
	X(FREE_RCU_SHEAF, free_rcu_sheaf) \
	X(FREE_RCU_SHEAF_FAIL, free_rcu_sheaf_fail) \
	X(RCU_SLAB_DEFERRED, rcu_slab_deferred)

#endif /* _SLABLAB_PROTOCOL_H */
