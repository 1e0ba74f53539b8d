/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storm engine's interface (storm.c): plain C in and out. netlink-storm.c parses a
 * STORM_START request into a struct slablab_storm_spec and builds the replies of
 * STORM_START, STORM_GET and STORM_STOP from a struct slablab_storm_report; main.c
 * stops a running storm at unload (slablab_storm_exit()). Included by storm.c,
 * netlink-storm.c and main.c; docs/storms.md has what the patterns do.
 *
 * Locking: storm.c's top. Each call takes storm.c's storm_mutex itself, and cache.c's
 * locks (cpus_read_lock, slablab_mutex) only briefly inside it; a stop waits for the
 * storm's controller under storm_mutex. So every call is made with none of those held.
 * The spec and the report are the caller's, filled under storm_mutex.
 */
#ifndef _SLABLAB_STORM_H
#define _SLABLAB_STORM_H

#include "internal.h"

/**
 * struct slablab_storm_spec - what a storm runs: parsed from STORM_START (netlink-storm.c),
 * completed by slablab_storm_start() and reported back as the storm ran
 * @target: enum slablab_target
 * @pattern: enum slablab_storm_pattern
 * @cache: the slablab cache (cache target) or the model (native), "" for none
 * @size: object size (0: the cache's); the engine sets the size it used
 * @nr_sizes: entries of @sizes and @weights (kmalloc targets)
 * @sizes: object sizes, drawn by weight
 * @weights: the weights of @sizes
 * @threads: workers (0: one per cpu, at most SLABLAB_STORM_MAX_THREADS; the remote
 *	pattern at least 2)
 * @cpus: the cpus the workers are bound to, as a cpu list (set by the engine)
 * @ops: operations per worker (producer, for remote), unless @duration_ms
 * @duration_ms: run this long instead (0: @ops)
 * @batch: objects per batch (batch, bulk)
 * @working_set: live objects per worker (churn)
 * @ring: slots of each producer/consumer ring (remote), a power of two
 * @seed: seed of the workers' random numbers
 * @max_live_bytes: what the storm may hold at once
 * @thin: churn: after the fill keep every @thin-th object and free the rest (1: all)
 * @rate: rcu: objects a second per worker at most (0: as fast as it can)
 * @producers: producer-consumer: workers 0..@producers - 1 allocate, the rest free (0:
 *	not given; the engine sets threads / 2)
 */
struct slablab_storm_spec {
	u32 target;
	u32 pattern;
	char cache[SLABLAB_NAME_MAX];
	u32 size;
	u32 nr_sizes;
	u32 sizes[SLABLAB_STORM_MAX_SIZES];
	u32 weights[SLABLAB_STORM_MAX_SIZES];
	u32 threads;
	char cpus[SLABLAB_STORM_CPUS_MAX];
	u64 ops;
	u32 duration_ms;
	u32 batch;
	u32 working_set;
	u32 ring;
	u64 seed;
	u64 max_live_bytes;
	u32 thin;
	u32 rate;
	u32 producers;
};

/**
 * struct slablab_storm_thread_result - one worker's figures
 * @cpu: the cpu it was bound to
 * @ops: operations it did
 * @cycles: cycles in its timed sections
 * @ns: how long it ran
 */
struct slablab_storm_thread_result {
	u32 cpu;
	u64 ops;
	u64 cycles;
	u64 ns;
};

/**
 * struct slablab_storm_report - a storm as STORM_START/GET/STOP report it
 * @id: the storm (0: no storm has run)
 * @state: enum slablab_storm_state (NONE: no storm has run, nothing below is set)
 * @spec: what it runs
 * @ops_planned: operations all workers will do (0 for a timed storm)
 * @ops_done: operations done so far
 * @elapsed_ns: since the workers were released (to the end, once finished)
 * @cache_flags: SLABLAB_CACHE_F_* of the cache or the native target's model
 * @native_name: the native target's kmem_cache, "" for other targets
 * @finished: DONE or STOPPED: the results below are set
 * @allocs: allocations that succeeded
 * @frees: frees
 * @alloc_cycles: cycles in timed allocations
 * @free_cycles: cycles in timed frees
 * @pair_cycles: cycles in timed allocate-free pairs
 * @loop_cycles_x1000: cycles of 1000 iterations of an empty timed loop
 * @failures: allocations that failed
 * @remote_frees: frees of objects another worker allocated (remote, producer-consumer)
 * @peak_pages: pages the target held at the peak sample
 * @peak_live_bytes: live object bytes at that sample
 * @meta_bytes: slab metadata bytes off the slabs at that sample
 * @steady_pages: churn: mean pages held over the samples taken while every worker held
 *	its full working set
 * @steady_live_bytes: churn: mean live object bytes over those samples
 * @steady_samples: churn: how many such samples
 * @shrunk: churn: @shrunk_pages and @shrunk_live_bytes are set
 * @shrunk_pages: churn: pages held after the loops and a shrink of the target, the
 *	working sets still live
 * @shrunk_live_bytes: churn: live object bytes then
 * @rcu_samples: rcu: samples of the objects waiting for a grace period (0: none taken)
 * @rcu_waiting_peak: rcu: the most objects freed by RCU, not yet freed, at a sample
 * @rcu_waiting_mean: rcu: their mean over the samples
 * @rcu_waiting_end: rcu: objects still waiting when the last worker's loop ended
 * @rcu_pages_peak: rcu: the most pages of typesafe-by-rcu slabs waiting, at a sample
 * @has_stats: @stats holds the allocator's counters (cache and kmalloc targets)
 * @stats: the allocator's events during the storm, per enum slablab_stat_item
 * @thread: per worker, [@spec.threads]
 */
struct slablab_storm_report {
	u32 id;
	u32 state;
	struct slablab_storm_spec spec;
	u64 ops_planned;
	u64 ops_done;
	u64 elapsed_ns;
	u32 cache_flags;
	char native_name[SLABLAB_NAME_MAX + 16];
	bool finished;
	u64 allocs;
	u64 frees;
	u64 alloc_cycles;
	u64 free_cycles;
	u64 pair_cycles;
	u64 loop_cycles_x1000;
	u64 failures;
	u64 remote_frees;
	u64 peak_pages;
	u64 peak_live_bytes;
	u64 meta_bytes;
	u64 steady_pages;
	u64 steady_live_bytes;
	u32 steady_samples;
	bool shrunk;
	u64 shrunk_pages;
	u64 shrunk_live_bytes;
	u32 rcu_samples;
	u64 rcu_waiting_peak;
	u64 rcu_waiting_mean;
	u64 rcu_waiting_end;
	u64 rcu_pages_peak;
	bool has_stats;
	u64 stats[__SLABLAB_STAT_MAX];
	struct slablab_storm_thread_result thread[SLABLAB_STORM_MAX_THREADS];
};

int slablab_storm_start(const struct slablab_storm_spec *spec, const unsigned long *cpus,
			unsigned int nr_cpu_bits, struct slablab_storm_report *rep,
			u32 *bad_attr, struct netlink_ext_ack *extack);
int slablab_storm_report(u32 id, bool stop, struct slablab_storm_report *rep,
			 struct netlink_ext_ack *extack);
void slablab_storm_exit(void);

#endif /* _SLABLAB_STORM_H */
