/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay engine's interface (replay.c, docs/replay.md): plain C in and out.
 * netlink-replay.c parses replay-new into a struct slablab_replay_setup and the
 * recorded caches, hands the events over in chunks, runs the replay and builds the
 * replies of replay-run, replay-get and replay-stop from a struct slablab_replay_report;
 * main.c stops and frees the replay at unload (slablab_replay_exit()). The payloads'
 * structs (struct slablab_replay_cache, _event, _cache_result, _sample) are
 * include/slablab/replay.h's, shared with slabctl. Included by replay.c,
 * netlink-replay.c and main.c.
 *
 * Locking: replay.c's top. Each call takes replay.c's replay_mutex itself, and cache.c's
 * locks (cpus_read_lock, slablab_mutex) only briefly inside it; a stop and unload wait
 * for the replay's kthreads under replay_mutex. So every call is made with none of those
 * held, but slablab_replay_get() and slablab_replay_stop(), which want replay_mutex held
 * (slablab_replay_lock()): the report they fill points into the replay (@res, @samples)
 * until slablab_replay_unlock().
 */
#ifndef _SLABLAB_REPLAY_ENGINE_H
#define _SLABLAB_REPLAY_ENGINE_H

#include "internal.h"
#include "../include/slablab/replay.h"

/**
 * struct slablab_replay_setup - a replay-new request, parsed by netlink-replay.c
 * @target: enum slablab_target
 * @nr_events: events the replay holds
 * @nr_objects: object ids 1..@nr_objects
 * @nr_cpus: recorded cpus
 * @max_live_bytes: cap on the trace's peak live bytes
 * @design: enum slablab_design of the slablab target's caches
 * @time_scale: 0: as fast as possible; else each event at its time * @time_scale / 1000
 * @sample_ns: pages sampled every @sample_ns ns into the samples (0: none)
 * @use_cpu_partial: give the slablab target's caches @cpu_partial (else their default)
 * @cpu_partial: cpu_partial of the slablab target's caches
 */
struct slablab_replay_setup {
	u32 target;
	u64 nr_events;
	u32 nr_objects;
	u32 nr_cpus;
	u64 max_live_bytes;
	u32 design;
	u32 time_scale;
	u64 sample_ns;
	bool use_cpu_partial;
	u32 cpu_partial;
};

/**
 * struct slablab_replay_report - a replay as replay-run/replay-get report it
 * @state: enum slablab_replay_state
 * @target: enum slablab_target
 * @threads: kthreads
 * @folded: fewer kthreads than recorded cpus
 * @allocs: allocations that succeeded
 * @frees: frees replayed
 * @remote_frees: frees on another kthread than the allocation's
 * @failures: allocations that failed
 * @alloc_cycles: cycles in allocations
 * @free_cycles: cycles in frees
 * @elapsed_ns: from the start to the last kthread's end
 * @peak_pages: highest pages sample of the target
 * @avg_pages: time-weighted mean of the pages samples
 * @peak_live_bytes: the trace's peak live bytes
 * @live_at_end: objects live after the last event
 * @design: enum slablab_design of the slablab target's caches
 * @time_scale: as set up (0: as fast as possible)
 * @use_cpu_partial: @cpu_partial was set up
 * @cpu_partial: cpu_partial of the slablab target's caches, as set up
 * @nr_res: entries of @res (0 until done)
 * @res: per cache (entry 0: kmalloc), owned by the replay
 * @nr_samples: entries of @samples (0 until done)
 * @samples: pages over time, owned by the replay
 */
struct slablab_replay_report {
	u32 state;
	u32 target;
	u32 threads;
	bool folded;
	u64 allocs;
	u64 frees;
	u64 remote_frees;
	u64 failures;
	u64 alloc_cycles;
	u64 free_cycles;
	u64 elapsed_ns;
	u64 peak_pages;
	u64 avg_pages;
	u64 peak_live_bytes;
	u64 live_at_end;
	u32 design;
	u32 time_scale;
	bool use_cpu_partial;
	u32 cpu_partial;
	u32 nr_res;
	const struct slablab_replay_cache_result *res;
	u32 nr_samples;
	const struct slablab_replay_sample *samples;
};

int slablab_replay_new(const struct slablab_replay_setup *setup,
		       const struct slablab_replay_cache *caches, u32 nr_caches,
		       struct netlink_ext_ack *extack);
int slablab_replay_data(u64 offset, const struct slablab_replay_event *ev,
			const u64 *times, u32 nr, struct netlink_ext_ack *extack);
int slablab_replay_run(struct slablab_replay_report *rep, struct netlink_ext_ack *extack);
void slablab_replay_get(struct slablab_replay_report *rep);
void slablab_replay_stop(struct slablab_replay_report *rep);
void slablab_replay_lock(void);
void slablab_replay_unlock(void);
void slablab_replay_exit(void);

#endif /* _SLABLAB_REPLAY_ENGINE_H */
