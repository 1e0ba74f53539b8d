// SPDX-License-Identifier: GPL-2.0
/*
 * The storm engine: workloads run in the kernel against a slablab cache and against the
 * kernel's own allocator, on the same kernel, measured per operation. Its interface is
 * plain C (storm.h): slablab_storm_start() takes a struct slablab_storm_spec that
 * netlink-storm.c parsed from STORM_START, slablab_storm_report() fills a struct
 * slablab_storm_report for STORM_GET/STOP. It calls only the allocator (cache.c).
 *
 * Three layers:
 *   target   struct slablab_alloc_target (target.h, shared with replays): what is allocated
 *            from (a slablab cache, a native kmem_cache or kmalloc classes of the
 *            storm's own, slablab's or the kernel's kmalloc), dispatched inline on a
 *            constant per loop (tg_alloc() and friends map the storm's variant to the
 *            target's kind and cache), and the pages it holds.
 *   worker   struct storm_thread: one pattern run against one target, with its
 *            accounting (ops done, allocations, frees, failures, cycles), in a kthread
 *            bound to its cpu (storm_worker_create()).
 *   storm    struct slablab_storm: the specification, the workers, and a controller
 *            kthread that releases the workers together, samples memory and computes
 *            the results.
 *
 * A storm is THREADS workers bound round robin to the cpus of its cpu list and one
 * controller. Workers wait at a start barrier, run their pattern in chunks timed with
 * get_cycles(), publish progress after every chunk and check for a stop request or the
 * deadline between chunks. Memory (pages held by the target, bytes of live objects) is
 * sampled by the controller every SAMPLE_MS and by the workers themselves once their
 * working set is first full and, for churn, again before they free it, so a storm of any
 * length has a sample of its steady state. Churn also averages the samples taken while
 * every worker holds its full working set (the steady state: fragmentation), and its
 * workers meet at a barrier after their loops, where the last one shrinks the target
 * and samples again (what fragmentation a shrink cannot give back). Before the workers
 * start, the controller empties slablab's kmalloc classes (their pages are then counted
 * whole) or shrinks the kernel's (counted from there): storm_empty_target(). The rcu
 * pattern's samples also read the target's RCU gauges (objects freed by RCU and not yet
 * freed), and its controller waits for every grace period after the workers are done
 * and before the storm is (storm_rcu_drain()), so a finished storm's counts are exact.
 *
 * Locking (outermost first):
 *   storm_mutex          the storm: slablab_storm, its id, STORM_START/GET/STOP and
 *                        unload; held while waiting for a storm's controller
 *   cpu_hotplug_lock     (cpus_read_lock) and
 *   slablab_mutex        cache.c's locks, taken only briefly, by STORM_START, to find and
 *                        pin its cache and the kmalloc classes and to check its cpus
 *                        against the online ones (cpus_read_lock again while binding
 *                        and waking its workers, so each cpu is still online)
 *   st->sample_lock      memory samples: controller and workers
 *   tg.nf.lock           target.c's: a native target's SLABINFO reading
 *   the target's own locks, and on SLAB the kernel's slab_mutex, which a read of
 *                        /proc/slabinfo takes (a native target's pages).
 * A leaf, taken with no other lock held and none taken under it:
 *   st->queue->lock      producer-consumer's shared ring (struct storm_mpmc): workers
 *                        only, for one slot, never across an allocation or a free;
 *                        interrupts stay on
 * Nobody waits for a storm's controller while holding cpus_read_lock or slablab_mutex,
 * and the native kmem_cache is created and destroyed with neither held: the controller
 * destroys it, kmem_cache_create() and kmem_cache_destroy() take cpus_read_lock, and a
 * cpu going offline holds the hotplug lock for writing while slablab_cpu_dead() takes
 * slablab_mutex. A pending hotplug writer blocks new readers, so a STORM_STOP waiting
 * under either lock for a controller blocked in kmem_cache_destroy() would wait for
 * ever; and kmem_cache_create() under cpus_read_lock would read-lock it recursively,
 * which deadlocks the same way when a writer queues in between.
 * The controller and the workers take no storm_mutex; the workers take cpus_read_lock
 * and slablab_mutex only in the churn shrink (slablab_cache_shrink(), kmem_cache_shrink()),
 * the controller only in the rcu drain (slablab_rcu_drain()), which is safe because
 * nobody waits for a storm while holding either (see above). Results
 * are written before the state becomes DONE/STOPPED with a release store; readers load
 * the state with acquire. A slablab cache under a storm has ->users raised (pinned under
 * slablab_mutex), so destroying it fails with -EBUSY until the controller drops it.
 * Storms refuse the caches of other kernel modules (SLABLAB_OWNER_KERNEL): such a module
 * may destroy its cache and unload at any time, and a pinned cache would outlive it
 * with its ctor pointing into freed module text.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/prandom.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/timex.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include "storm.h"
#include "target.h"
#include "compat.h"

#define SAMPLE_MS	50
#define CHUNK		256	/* ops between progress updates and stop checks */
#define SIZE_SEQ_LEN	1024	/* precomputed kmalloc sizes per thread */
#define RCU_PACE_MAX_US	10000	/* rcu with RATE: the longest sleep between stop checks */

/*
 * The workers' loop constant (st->variant): the target's kind, or this for the native
 * target with SIZES: the kernel's SLUB on kmalloc classes of the storm's own, allocated
 * by size (storm_create_native()). Not a uapi value: spec.target stays NATIVE.
 */
#define STORM_NATIVE_CLASSES	__SLABLAB_TARGET_MAX
/*
 * native-kmalloc with a size past the kernel's largest kmalloc class: its page
 * allocator pages are counted (target_kmalloc()), which costs a folio test per free.
 */
#define STORM_NATIVE_KMALLOC_LARGE	(__SLABLAB_TARGET_MAX + 1)

/*
 * A ring's slot: the object, its size (the ring's live bytes) and the cpu that
 * allocated it (a free on another cpu counts as remote: remote_frees).
 */
struct storm_slot {
	void *p;
	u32 size;
	u32 cpu;
};

struct storm_ring {
	struct storm_slot *slot;
	u32 mask;
	bool producer_done;
	u64 head ____cacheline_aligned_in_smp;	/* written by the producer */
	u64 tail ____cacheline_aligned_in_smp;	/* written by the consumer */
};

/*
 * producer-consumer's one ring, shared by all PRODUCERS producers and the consumers (the
 * rest of THREADS): multi-producer, multi-consumer. A spinlock makes it simple and
 * obviously right where remote's single-producer single-consumer ring needs only
 * acquire/release: an MPMC ring without a lock needs a sequence per slot, and what is
 * measured is the allocator, not the ring. The lock is taken with interrupts on (no
 * interrupt handler touches the ring) and held for one slot's read or write and two
 * counters, never across an allocation or a free. A producer waits for room before it
 * allocates and a consumer for an object before it frees, both unlocked (READ_ONCE of
 * head and tail), with cond_resched() every 256 spins (ring_wait()); a producer
 * checks the stop request and the deadline while it waits. Consumers run until every
 * producer is done and the ring is empty, so each object a producer pushed is freed by
 * a consumer; the controller checks that none is left before it releases the target
 * (storm_drain_queue()). storm_sample() reads live_bytes, the ring's objects' bytes.
 */
struct storm_mpmc {
	spinlock_t lock;	/* the slots, head, tail and live_bytes: see above */
	struct storm_slot *slot;
	u32 mask;
	u64 head;		/* pushes: under lock, READ_ONCE outside it */
	u64 tail;		/* pops: under lock, READ_ONCE outside it */
	long live_bytes;	/* under lock, READ_ONCE outside it */
	atomic_t producers_left;	/* producers still in their loop */
};

struct storm_thread {
	struct slablab_storm *st;
	int idx;
	int cpu;		/* bound to it */
	u64 ops_done;		/* progress, WRITE_ONCE after each chunk */
	u64 allocs, frees, failures;
	u64 alloc_cycles, free_cycles, pair_cycles;
	u64 ns;
	u64 end;		/* ktime when its loop ended */
	long live_bytes;	/* WRITE_ONCE, read by the samplers */
	bool steady;		/* churn: working set full, not yet freed (WRITE_ONCE) */
	u64 waited_ns;		/* churn: time at the shrink barrier, not the thread's */
	bool stopped;		/* left early on a stop request */
	struct completion exited;	/* the kthread left module code */
	struct rnd_state rng;
	void **slots;
	u32 *slot_size;
	u32 *size_seq;
	struct storm_ring *ring;
	u64 remote_frees;	/* frees on another cpu than the object's allocation */
} ____cacheline_aligned_in_smp;

struct slablab_storm {
	u32 id;
	u32 state;			/* enum slablab_storm_state, release/acquire */
	struct slablab_storm_spec spec;
	/* one cache (tg.lab[0], tg.native[0]) or by size; slablab's pinned through ->users */
	struct slablab_alloc_target tg;
	u32 variant;			/* the loops' constant: tg.kind, STORM_NATIVE_CLASSES */
	u32 obj_size;			/* fixed object size of cache targets */
	int *cpu_of;			/* [threads] */
	u32 cache_flags;
	u32 cache_align;		/* of the model cache (native targets) */
	struct storm_thread *t;
	struct storm_ring *rings;
	struct storm_mpmc *queue;	/* producer-consumer */
	struct task_struct *controller;
	atomic_t ready;
	atomic_t running;
	bool go;
	bool stop;
	bool abort;
	u64 start_ns, end_ns, deadline_ns;
	u64 loop_cycles_x1000;
	u64 stats_before[__SLABLAB_STAT_MAX], stats_delta[__SLABLAB_STAT_MAX];
	struct mutex sample_lock;	/* the peak fields and base_pages */
	u64 base_pages;
	u64 peak_pages, peak_live, peak_meta;
	/* churn: samples taken while every worker's working set was full (steady state) */
	u64 steady_pages_sum, steady_live_sum;
	u32 steady_samples;
	/* churn: the sample after the last worker's loop and a shrink of the target */
	u64 shrunk_pages, shrunk_live;
	bool shrunk;
	bool steady_over;			/* the shrink began: no more steady samples */
	atomic_t churn_left;			/* workers not yet at the shrink barrier */
	struct completion churn_shrunk;		/* the shrink sample is taken */
	/* rcu: the target's objects freed by RCU and not yet freed, per sample */
	u64 rcu_waiting_sum, rcu_waiting_peak, rcu_pages_peak, rcu_waiting_end;
	u32 rcu_samples;
	bool native_stats;		/* SLUB_STATS: the native cache's counters are stats */
	struct completion done;		/* the controller left module code */
	bool reaped;			/* someone waited for done (storm_mutex) */
};

/* storm_mutex: slablab_storm and slablab_storm_next_id; the outermost lock (see above) */
static DEFINE_MUTEX(storm_mutex);
static struct slablab_storm *slablab_storm;	/* the current or last storm */
static u32 slablab_storm_next_id = 1;

/* ---- targets: direct calls, resolved at compile time per loop ---- */

/*
 * The target's kind and cache of variant @v (cache 1, the storm's one; 0, by size), and
 * whether sizes past the kernel's largest kmalloc class may come.
 */
static __always_inline u32 tg_kind(const u32 v)
{
	if (v == STORM_NATIVE_CLASSES)
		return SLABLAB_TARGET_NATIVE;
	if (v == STORM_NATIVE_KMALLOC_LARGE)
		return SLABLAB_TARGET_NATIVE_KMALLOC;
	return v;
}

static __always_inline bool tg_large(const u32 v)
{
	return v == STORM_NATIVE_KMALLOC_LARGE;
}

static __always_inline u32 tg_cache(const u32 v)
{
	return v == SLABLAB_TARGET_SLABLAB || v == SLABLAB_TARGET_NATIVE;
}

static __always_inline void *tg_alloc(struct slablab_alloc_target *tg, const u32 v, u32 size)
{
	return slablab_target_alloc(tg, tg_kind(v), tg_cache(v), size, GFP_KERNEL, tg_large(v));
}

static __always_inline void tg_free(struct slablab_alloc_target *tg, const u32 v, void *p)
{
	slablab_target_free(tg, tg_kind(v), tg_cache(v), p, tg_large(v));
}

/* The rcu pattern's objects hold an rcu_head at offset 0 (storm_check_rcu_size()). */
static __always_inline void tg_free_rcu(struct slablab_alloc_target *tg, const u32 v, void *p)
{
	slablab_target_free_rcu(tg, tg_kind(v), tg_cache(v), p);
}

/* All or nothing: @n, or 0 with nothing held. Cache targets only (storm_parse checks). */
static __always_inline int tg_alloc_bulk(struct slablab_alloc_target *tg, const u32 v,
					 u32 n, void **objs)
{
	return slablab_target_alloc_bulk(tg, tg_kind(v), 1, n, objs);
}

/* Frees @n objects (NULL entries skipped) and clears @objs. */
static __always_inline void tg_free_bulk(struct slablab_alloc_target *tg, const u32 v,
					 u32 n, void **objs)
{
	slablab_target_free_bulk(tg, tg_kind(v), tg_cache(v), n, objs);
}

static __always_inline u32 t_size(struct storm_thread *t, u64 i)
{
	return t->size_seq ? t->size_seq[i & (SIZE_SEQ_LEN - 1)] : t->st->obj_size;
}

/* ---- memory samples ---- */

/*
 * The storm's counters' names, as slablab's (SLABLAB_STAT_ITEMS, which took SLUB's
 * names for SLUB's events): the files SLUB_STATS adds to a cache's sysfs directory.
 */
#define STORM_STAT_NAME(item, name) __stringify(name),
static const char *const storm_stat_names[] = {
	SLABLAB_STAT_ITEMS(STORM_STAT_NAME)
};

#undef STORM_STAT_NAME

/*
 * SLUB_STATS: the native cache's counters, the first number of each file (the total;
 * per-cpu parts follow), into @out. A counter this SLUB does not have (slablab's other
 * designs' events, or one a later kernel dropped) has no file and reads 0, as an event
 * a design never counts does. The cache is the storm's own (the test VM boots with
 * slab_nomerge): the delta of two snapshots is what the storm did, unless root clears
 * the counters meanwhile (writing 0 to a file): SLUB keeps no raw count beside them.
 */
static void native_snapshot_stats(struct slablab_storm *st, u64 *out)
{
	char path[SLABLAB_NAME_MAX + 64];
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(storm_stat_names) != __SLABLAB_STAT_MAX);
	for (i = 0; i < __SLABLAB_STAT_MAX; i++) {
		snprintf(path, sizeof(path), "%s/%s", st->tg.name, storm_stat_names[i]);
		if (slablab_target_read_u64(&st->tg, path, &out[i]))
			out[i] = 0;
	}
}

/*
 * Has the native cache SLUB_STATS' counters? alloc_fastpath is one every SLUB with
 * them has (6.1 to 7.x). Native kmalloc has none: its classes' counters count the
 * whole kernel's kmallocs, not the storm's; nor the native classes of SIZES (several
 * caches, not summed).
 */
static void storm_check_native_stats(struct slablab_storm *st)
{
	char path[SLABLAB_NAME_MAX + 64];
	u64 v;

	if (st->variant != SLABLAB_TARGET_NATIVE || st->tg.nf.src != SLABLAB_NATIVE_SYSFS)
		return;
	snprintf(path, sizeof(path), "%s/alloc_fastpath", st->tg.name);
	st->native_stats = !slablab_target_read_u64(&st->tg, path, &v);
}

/*
 * A native target's figures are the kernel's own (target.c): refuse a storm whose files
 * cannot be read rather than report 0 pages; then see whether it has SLUB_STATS.
 */
static int storm_check_native_figures(struct slablab_storm *st,
				      struct netlink_ext_ack *extack)
{
	int err = slablab_target_figures_check(&st->tg, extack);

	if (!err)
		storm_check_native_stats(st);
	return err;
}

/* Pages the storm's target holds now (kmalloc targets: all size classes). */
static u64 target_pages(struct slablab_storm *st, u64 *meta)
{
	return slablab_target_pages(&st->tg, meta, "storm", st->id);
}

/* Every worker of a churn storm holds its full working set (sample_lock held). */
static bool storm_all_steady(struct slablab_storm *st)
{
	u32 i;

	if (st->spec.pattern != SLABLAB_PATTERN_CHURN || st->steady_over)
		return false;
	for (i = 0; i < st->spec.threads; i++)
		if (!READ_ONCE(st->t[i].steady))
			return false;
	return true;
}

/*
 * Record the target's pages and the workers' live bytes now; keep the sample with the
 * most pages (then the most live bytes) as the peak. Live bytes are read first: a worker
 * publishes them after its objects are allocated, so a sample never counts objects its
 * pages could not hold. @wait: false skips the sample when another one is in progress
 * (that one sees this worker's published live bytes too). Sleeps (sysfs).
 */
static void storm_sample(struct slablab_storm *st, bool wait)
{
	u64 pages, meta, live = 0;
	bool steady;
	u32 i;

	if (!wait && !mutex_trylock(&st->sample_lock))
		return;
	if (wait)
		mutex_lock(&st->sample_lock);
	/*
	 * Steady first, then live bytes: a churn worker publishes its working set's live
	 * bytes before its steady flag (run_churn()), so a steady sample counts them. Read
	 * the other way, a sample could read a worker's live bytes before it filled its
	 * working set and its flag after: a steady sample of 0 live bytes (a churn with
	 * thin=2 once averaged half its live data on the debug kernel).
	 */
	steady = storm_all_steady(st);
	smp_rmb();	/* pairs with run_churn()'s smp_wmb() */
	for (i = 0; i < st->spec.threads; i++)
		live += max_t(long, READ_ONCE(st->t[i].live_bytes), 0);
	if (st->queue)		/* producer-consumer: the shared ring's objects */
		live += max_t(long, READ_ONCE(st->queue->live_bytes), 0);
	pages = target_pages(st, &meta);
	pages = pages > st->base_pages ? pages - st->base_pages : 0;
	if (pages > st->peak_pages || (pages == st->peak_pages && live > st->peak_live)) {
		st->peak_pages = pages;
		st->peak_live = live;
		st->peak_meta = meta;
	}
	if (steady) {
		st->steady_pages_sum += pages;
		st->steady_live_sum += live;
		st->steady_samples++;
	}
	if (st->spec.pattern == SLABLAB_PATTERN_RCU) {
		u64 rcu_pages, waiting = slablab_target_rcu_waiting(&st->tg, &rcu_pages);

		st->rcu_waiting_peak = max(st->rcu_waiting_peak, waiting);
		st->rcu_pages_peak = max(st->rcu_pages_peak, rcu_pages);
		st->rcu_waiting_sum += waiting;
		st->rcu_samples++;
	}
	mutex_unlock(&st->sample_lock);
}

/*
 * The last churn worker at the barrier: give the target's empty slabs back (what a
 * shrink can return is not fragmentation) and sample what is left, the working sets
 * still held. The kernel's kmalloc classes are not ours to shrink: no figure there.
 * Takes cpus_read_lock and slablab_mutex (slablab_cache_shrink(), kmem_cache_shrink()):
 * nobody holding either waits for a storm's workers (the lock order above).
 */
static void storm_shrink_sample(struct slablab_storm *st)
{
	u64 pages, meta, live = 0;
	unsigned int i;

	/*
	 * The workers keep their steady flags until they leave the barrier, after the
	 * shrink: a controller sample taken from here on is no steady-state sample.
	 */
	mutex_lock(&st->sample_lock);
	st->steady_over = true;
	mutex_unlock(&st->sample_lock);
	if (st->spec.target == SLABLAB_TARGET_NATIVE_KMALLOC)
		return;
	slablab_target_shrink(&st->tg);
	mutex_lock(&st->sample_lock);
	for (i = 0; i < st->spec.threads; i++)
		live += max_t(long, READ_ONCE(st->t[i].live_bytes), 0);
	pages = target_pages(st, &meta);
	st->shrunk_pages = pages > st->base_pages ? pages - st->base_pages : 0;
	st->shrunk_live = live;
	st->shrunk = true;
	mutex_unlock(&st->sample_lock);
}

/*
 * A churn worker done with its loop, its working set still held: wait until every
 * worker is here, so that the steady state is sampled with all working sets full and
 * the last one can shrink and sample. The wait is not the worker's time.
 */
static void churn_barrier(struct storm_thread *t)
{
	struct slablab_storm *st = t->st;
	u64 t0 = ktime_get_ns();

	storm_sample(st, true);
	if (atomic_dec_and_test(&st->churn_left)) {
		storm_shrink_sample(st);
		complete_all(&st->churn_shrunk);
	} else {
		/*
		 * TASK_IDLE, not plain uninterruptible: a worker done early (an OPS storm
		 * whose other workers share a cpu) may wait here for minutes, which is no
		 * hung task and no load (kthreads take no signals, so nothing else would
		 * end the wait early either).
		 */
		wait_for_completion_state(&st->churn_shrunk, TASK_IDLE);
	}
	t->waited_ns = ktime_get_ns() - t0;
}

/* ---- worker patterns ---- */

/* Ops for the next chunk: @unit, or what is left of OPS, so OPS is exact. */
static u64 chunk_of(struct storm_thread *t, u64 done, u64 unit)
{
	struct slablab_storm *st = t->st;

	if (st->spec.duration_ms)
		return unit;
	return min_t(u64, unit, st->spec.ops - done);
}

/* More ops to run? Ops storms stop at OPS, every storm at a stop request or deadline. */
static bool more(struct storm_thread *t, u64 done)
{
	struct slablab_storm *st = t->st;

	if (!st->spec.duration_ms && done >= st->spec.ops)
		return false;
	if (READ_ONCE(st->stop)) {
		t->stopped = true;
		return false;
	}
	return ktime_get_ns() < st->deadline_ns;
}

static __always_inline void run_pair(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	u64 done = 0;

	while (more(t, done)) {
		u64 c0, c1, i, n = chunk_of(t, done, CHUNK);

		c0 = get_cycles();
		for (i = 0; i < n; i++) {
			void *p = tg_alloc(&st->tg, target, t_size(t, done + i));

			if (unlikely(!p)) {
				t->failures++;
				continue;
			}
			tg_free(&st->tg, target, p);
		}
		c1 = get_cycles();
		t->pair_cycles += c1 - c0;
		done += n;
		t->allocs += n;
		t->frees += n;
		WRITE_ONCE(t->ops_done, done);
		cond_resched();
	}
	t->allocs -= t->failures;
	t->frees -= t->failures;
}

static __always_inline void run_batch(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	u64 done = 0;
	u32 n, i;

	while (more(t, done)) {
		long live = 0;
		u64 c0, c1, c2;

		n = chunk_of(t, done, st->spec.batch);
		c0 = get_cycles();
		for (i = 0; i < n; i++)
			t->slots[i] = tg_alloc(&st->tg, target, t_size(t, done + i));
		c1 = get_cycles();
		for (i = 0; i < n; i++) {
			if (t->slots[i])
				live += t_size(t, done + i);
			else
				t->failures++;
		}
		WRITE_ONCE(t->live_bytes, live);	/* between the timed phases */
		if (!done)
			storm_sample(st, false);	/* the first full batch */
		c2 = get_cycles();
		for (i = 0; i < n; i++)
			if (t->slots[i])
				tg_free(&st->tg, target, t->slots[i]);
		t->alloc_cycles += c1 - c0;
		t->free_cycles += get_cycles() - c2;
		WRITE_ONCE(t->live_bytes, 0);
		done += n;
		WRITE_ONCE(t->ops_done, done);
		cond_resched();
	}
	t->allocs = done - t->failures;
	t->frees = t->allocs;
}

static __always_inline void run_bulk(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	bool sampled = false;
	u64 done = 0;

	while (more(t, done)) {
		u32 n = chunk_of(t, done, st->spec.batch);
		u64 c0, c1, c2, c3;
		int got;

		c0 = get_cycles();
		got = tg_alloc_bulk(&st->tg, target, n, t->slots);
		c1 = get_cycles();
		if (got != n) {
			t->failures += n;
			done += n;
			WRITE_ONCE(t->ops_done, done);
			cond_resched();
			continue;
		}
		WRITE_ONCE(t->live_bytes, (long)n * st->obj_size);
		if (!sampled) {
			storm_sample(st, false);	/* the first full batch */
			sampled = true;
		}
		c2 = get_cycles();
		tg_free_bulk(&st->tg, target, n, t->slots);
		c3 = get_cycles();
		WRITE_ONCE(t->live_bytes, 0);
		t->alloc_cycles += c1 - c0;
		t->free_cycles += c3 - c2;
		t->allocs += n;
		t->frees += n;
		done += n;
		WRITE_ONCE(t->ops_done, done);
		cond_resched();
	}
}

/*
 * prefill (slablab caches only): per op, prefill a sheaf of BATCH objects, allocate
 * them all from it, free them, return the sheaf — the maple tree's preallocation
 * around a tree change (7.3's kmem_cache_prefill_sheaf() under mas_preallocate()).
 * alloc cycles: the prefill and the allocations from the sheaf; free cycles: the frees
 * and the return. An allocation from a prefilled sheaf that fails breaks the API's
 * promise: it is counted as a failure.
 */
static __always_inline void run_prefill(struct storm_thread *t)
{
	struct slablab_cache *s = t->st->tg.lab[0];
	bool sampled = false;
	u64 done = 0;

	while (more(t, done)) {
		u32 n = chunk_of(t, done, t->st->spec.batch), i, got = 0;
		struct slablab_sheaf *sheaf;
		u64 c0, c1, c2, c3;

		c0 = get_cycles();
		sheaf = slablab_cache_prefill_sheaf(s, GFP_KERNEL, n);
		if (sheaf) {
			for (i = 0; i < n; i++) {
				t->slots[i] = slablab_cache_alloc_from_sheaf(s, GFP_KERNEL, sheaf);
				got += !!t->slots[i];
			}
		}
		c1 = get_cycles();
		t->failures += n - got;
		if (!sampled && got) {
			WRITE_ONCE(t->live_bytes, (long)got * t->st->obj_size);
			storm_sample(t->st, false);	/* the first full batch */
			WRITE_ONCE(t->live_bytes, 0);
			sampled = true;
		}
		c2 = get_cycles();
		for (i = 0; i < n && sheaf; i++)
			slablab_cache_free(s, t->slots[i]);
		if (sheaf)
			slablab_cache_return_sheaf(s, GFP_KERNEL, sheaf);
		c3 = get_cycles();
		t->alloc_cycles += c1 - c0;
		t->free_cycles += c3 - c2;
		t->allocs += got;
		t->frees += got;
		done += n;
		WRITE_ONCE(t->ops_done, done);
		cond_resched();
	}
}

/*
 * churn's slot_size[]: the object's size, and whether the untimed fill allocated it.
 * ALLOCS and FREES count neither the fill nor what frees its objects: a timed free of a
 * fill object is not counted (nor its cycles), so FREES <= ALLOCS, and ALLOCS - FREES
 * is what the timed loop allocated and left to the untimed drain at the end.
 */
#define CHURN_FILLED	BIT(31)		/* sizes are at most 32768 (storm_size_range) */
#define CHURN_SIZE	(CHURN_FILLED - 1)

static __always_inline void run_churn(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	u32 w = st->spec.working_set, thin = st->spec.thin ?: 1, kept, i;
	long live = 0;
	u64 done = 0;

	/* Fill the working set (not timed, not counted but for its failures). */
	for (i = 0; i < w; i++) {
		u32 size = t_size(t, i);

		t->slot_size[i] = size | CHURN_FILLED;
		t->slots[i] = tg_alloc(&st->tg, target, size);
		if (t->slots[i])
			live += size;
		else
			t->failures++;
		if (!(i & 1023))
			cond_resched();
	}
	/* THIN: keep every THIN-th object, free the rest (holes in every slab; not timed). */
	for (i = 0; thin > 1 && i < w; i++) {
		if (!(i % thin) || !t->slots[i])
			continue;
		tg_free(&st->tg, target, t->slots[i]);
		t->slots[i] = NULL;
		live -= t->slot_size[i] & CHURN_SIZE;
		if (!(i & 1023))
			cond_resched();
	}
	kept = DIV_ROUND_UP(w, thin);
	WRITE_ONCE(t->live_bytes, live);
	smp_wmb();	/* live bytes before the flag: storm_sample() reads them after it */
	WRITE_ONCE(t->steady, true);
	storm_sample(st, false);		/* the working set is full */
	while (more(t, done)) {
		u64 n = chunk_of(t, done, CHUNK);

		for (i = 0; i < n; i++) {
			u32 idx = (prandom_u32_state(&t->rng) % kept) * thin;
			u32 size = t_size(t, done + i);
			u64 c0, c1, c2;
			void *p;

			c0 = get_cycles();
			if (t->slots[idx])
				tg_free(&st->tg, target, t->slots[idx]);
			c1 = get_cycles();
			p = tg_alloc(&st->tg, target, size);
			c2 = get_cycles();
			if (t->slots[idx]) {
				live -= t->slot_size[idx] & CHURN_SIZE;
				if (!(t->slot_size[idx] & CHURN_FILLED)) {
					t->frees++;
					t->free_cycles += c1 - c0;
				}
			}
			t->slots[idx] = p;
			t->slot_size[idx] = size;
			if (p) {
				live += size;
				t->allocs++;
				t->alloc_cycles += c2 - c1;
			} else {
				t->failures++;
			}
		}
		done += n;
		WRITE_ONCE(t->live_bytes, live);
		WRITE_ONCE(t->ops_done, done);
		cond_resched();
	}
	/* Steady state, however short the storm: sample, shrink, sample, then free. */
	churn_barrier(t);
	WRITE_ONCE(t->steady, false);
	for (i = 0; i < w; i++) {
		if (t->slots[i])
			tg_free(&st->tg, target, t->slots[i]);
		t->slots[i] = NULL;
		if (!(i & 1023))
			cond_resched();
	}
	WRITE_ONCE(t->live_bytes, 0);
}

/*
 * rcu with RATE: how many of the next @n ops may start now. The i-th op of the thread
 * (from 0) starts no earlier than @t0 + i / RATE seconds; when none may, sleep until
 * the next one may (at most RCU_PACE_MAX_US, so a stop or the deadline is seen) and
 * return 0. The sleep is the thread's time, not its cycles.
 */
static u64 rcu_paced(struct storm_thread *t, u64 t0, u64 done, u64 n)
{
	u32 rate = t->st->spec.rate;
	u64 now = ktime_get_ns(), allowed, next;

	allowed = mul_u64_u32_div(now - t0, rate, NSEC_PER_SEC) + 1;
	if (allowed > done)
		return min(n, allowed - done);
	next = t0 + mul_u64_u32_div(done, NSEC_PER_SEC, rate);
	if (next > now) {
		u64 us = min_t(u64, DIV_ROUND_UP_ULL(next - now, NSEC_PER_USEC), RCU_PACE_MAX_US);

		/* TASK_IDLE: a slow rate sleeps for the whole storm, which is no load */
		usleep_range_state(us, us + 50, TASK_IDLE);
	}
	return 0;
}

/*
 * rcu: allocate an object and free it by RCU (slablab_cache_free_rcu(),
 * slablab_kfree_rcu()), each call timed, at RATE objects a second or as fast as it
 * goes. The thread holds nothing itself: its objects wait for a grace period in the
 * target (the samples read the target's RCU gauges). Sampled after the first chunk and
 * as the loop ends, so a short storm has samples with objects waiting.
 */
static __always_inline void run_rcu(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	u64 done = 0, t0 = ktime_get_ns();
	bool sampled = false;

	while (more(t, done)) {
		u64 i, n = chunk_of(t, done, CHUNK);

		if (st->spec.rate) {
			n = rcu_paced(t, t0, done, n);
			if (!n)
				continue;
		}
		for (i = 0; i < n; i++) {
			u64 c0, c1, c2;
			void *p;

			c0 = get_cycles();
			p = tg_alloc(&st->tg, target, t_size(t, done + i));
			c1 = get_cycles();
			if (unlikely(!p)) {
				t->failures++;
				continue;
			}
			tg_free_rcu(&st->tg, target, p);
			c2 = get_cycles();
			t->alloc_cycles += c1 - c0;
			t->free_cycles += c2 - c1;
			t->allocs++;
			t->frees++;
		}
		done += n;
		WRITE_ONCE(t->ops_done, done);
		if (!sampled) {
			storm_sample(st, false);	/* the first chunk's objects waiting */
			sampled = true;
		}
		cond_resched();
	}
	storm_sample(st, true);		/* the last ones, however short the storm */
}

/*
 * One turn of a ring wait: spin, and let the cpu's other workers (a producer and its
 * consumer may share a cpu) run every 256 turns, as no worker sleeps. On a
 * non-preemptible kernel cond_resched() yields only once the tick set need_resched: a
 * worker waiting for one on its own cpu spins out the rest of its slice, which the
 * pattern's rate then includes (storms.md: give each worker a cpu of its own).
 */
static void ring_wait(unsigned int *spins)
{
	cpu_relax();
	if (!(++*spins & 255))
		cond_resched();
}

static __always_inline void run_producer(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	struct storm_ring *r = t->ring;
	u64 head = 0, done = 0;
	unsigned int spins = 0;

	for (;;) {
		u32 size = t_size(t, done);
		u64 c0, c1;
		void *p;

		if (!st->spec.duration_ms && done >= st->spec.ops)
			break;
		if (!(done & (CHUNK - 1)) && !more(t, done))
			break;

		/* acquire tail: the consumer has read the slot before releasing it */
		while (head - smp_load_acquire(&r->tail) > r->mask) {
			if (!more(t, done))
				goto out;
			ring_wait(&spins);
		}
		c0 = get_cycles();
		p = tg_alloc(&st->tg, target, size);
		c1 = get_cycles();
		done++;
		if (unlikely(!p)) {
			/* on to the chunk's end: a storm of failures still reschedules */
			t->failures++;
		} else {
			struct storm_slot *sl = &r->slot[head & r->mask];

			t->alloc_cycles += c1 - c0;
			t->allocs++;
			sl->p = p;
			sl->size = size;
			sl->cpu = raw_smp_processor_id();
			/* release head: the slot is written before the consumer sees it */
			smp_store_release(&r->head, ++head);
		}
		if (!(done & (CHUNK - 1))) {
			WRITE_ONCE(t->ops_done, done);
			WRITE_ONCE(t->live_bytes, (long)(head - READ_ONCE(r->tail)) * size);
			if (done == CHUNK)
				storm_sample(st, false);
			cond_resched();
		}
	}
out:
	WRITE_ONCE(t->ops_done, done);
	/* release: every head update happens before producer_done is seen */
	smp_store_release(&r->producer_done, true);
}

static __always_inline void run_consumer(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	struct storm_ring *r = t->ring;
	unsigned int spins = 0;
	u64 tail = 0;

	for (;;) {
		/* acquire head: pairs with the producer's release of the slot */
		u64 head = smp_load_acquire(&r->head);
		u64 c0, c1;
		u32 cpu;
		void *p;

		if (tail == head) {
			/* producer_done is released after its last head update */
			/* acquire: then a final head re-read sees the producer's last slot */
			if (smp_load_acquire(&r->producer_done) &&
			    /* acquire: its last slot, if it just pushed one */
			    tail == smp_load_acquire(&r->head))
				break;
			ring_wait(&spins);
			continue;
		}
		p = r->slot[tail & r->mask].p;
		cpu = r->slot[tail & r->mask].cpu;
		/* release tail: the slot was read before the producer may reuse it */
		smp_store_release(&r->tail, ++tail);
		c0 = get_cycles();
		tg_free(&st->tg, target, p);
		c1 = get_cycles();
		t->free_cycles += c1 - c0;
		t->frees++;
		t->remote_frees += cpu != raw_smp_processor_id();
		if (!(tail & (CHUNK - 1))) {
			WRITE_ONCE(t->ops_done, tail);
			cond_resched();
		}
	}
	WRITE_ONCE(t->ops_done, tail);
}

/* Room in @q, unlocked: tail read first, so a newer tail never passes an older head. */
static bool mpmc_room(struct storm_mpmc *q)
{
	u64 tail = READ_ONCE(q->tail);

	return READ_ONCE(q->head) - tail <= q->mask;
}

/*
 * Push @p of @size, allocated on @cpu, into @q if there is room: a bounded critical
 * section, interrupts on.
 */
static bool mpmc_push(struct storm_mpmc *q, void *p, u32 size, u32 cpu)
{
	bool pushed = false;

	spin_lock(&q->lock);
	if (q->head - q->tail <= q->mask) {
		q->slot[q->head & q->mask] = (struct storm_slot){ p, size, cpu };
		WRITE_ONCE(q->head, q->head + 1);
		WRITE_ONCE(q->live_bytes, q->live_bytes + size);
		pushed = true;
	}
	spin_unlock(&q->lock);
	return pushed;
}

/* The oldest slot of @q into @out; false when @q is empty. */
static bool mpmc_pop(struct storm_mpmc *q, struct storm_slot *out)
{
	bool popped = false;

	spin_lock(&q->lock);
	if (q->tail != q->head) {
		*out = q->slot[q->tail & q->mask];
		WRITE_ONCE(q->live_bytes, q->live_bytes - out->size);
		WRITE_ONCE(q->tail, q->tail + 1);
		popped = true;
	}
	spin_unlock(&q->lock);
	return popped;
}

static __always_inline void run_mpmc_producer(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	struct storm_mpmc *q = st->queue;
	unsigned int spins = 0;
	u64 done = 0;

	for (;;) {
		u32 size = t_size(t, done);
		u64 c0, c1;
		void *p;

		if (!st->spec.duration_ms && done >= st->spec.ops)
			break;
		if (!(done & (CHUNK - 1)) && !more(t, done))
			break;
		/* room before allocating: no object is held while the consumers catch up */
		while (!mpmc_room(q)) {
			if (!more(t, done))
				goto out;
			ring_wait(&spins);
		}
		c0 = get_cycles();
		p = tg_alloc(&st->tg, target, size);
		c1 = get_cycles();
		done++;
		if (unlikely(!p)) {
			/* on to the chunk's end: a storm of failures still reschedules */
			t->failures++;
		} else {
			u32 cpu = raw_smp_processor_id();

			t->alloc_cycles += c1 - c0;
			t->allocs++;
			/*
			 * Another producer may have taken the room: wait (unlocked) for a
			 * consumer, which runs until every producer is done, so this ends
			 * without a stop check.
			 */
			while (!mpmc_push(q, p, size, cpu))
				while (!mpmc_room(q))
					ring_wait(&spins);
		}
		if (!(done & (CHUNK - 1))) {
			WRITE_ONCE(t->ops_done, done);
			if (done == CHUNK)
				storm_sample(st, false);
			cond_resched();
		}
	}
out:
	WRITE_ONCE(t->ops_done, done);
	/* release: this producer's pushes happen before the consumers see it gone */
	atomic_dec_return_release(&q->producers_left);
}

static __always_inline void run_mpmc_consumer(struct storm_thread *t, const u32 target)
{
	struct slablab_storm *st = t->st;
	struct storm_mpmc *q = st->queue;
	unsigned int spins = 0;
	u64 freed = 0;

	for (;;) {
		struct storm_slot sl;
		u64 c0, c1;

		if (READ_ONCE(q->tail) == READ_ONCE(q->head)) {
			/*
			 * Every producer gone (acquire: their last pushes are visible) and
			 * the ring still empty: nothing more will come.
			 */
			if (!atomic_read_acquire(&q->producers_left) &&
			    READ_ONCE(q->tail) == READ_ONCE(q->head))
				break;
			ring_wait(&spins);
			continue;
		}
		if (!mpmc_pop(q, &sl))
			continue;	/* another consumer took it */
		c0 = get_cycles();
		tg_free(&st->tg, target, sl.p);
		c1 = get_cycles();
		t->free_cycles += c1 - c0;
		t->frees++;
		t->remote_frees += sl.cpu != raw_smp_processor_id();
		if (!(++freed & (CHUNK - 1))) {
			WRITE_ONCE(t->ops_done, freed);
			cond_resched();
		}
	}
	WRITE_ONCE(t->ops_done, freed);
}

/* Workers 0..PRODUCERS - 1 of a producer-consumer storm allocate, the rest free. */
static bool storm_is_producer(const struct slablab_storm_spec *sp, u32 i)
{
	if (sp->pattern == SLABLAB_PATTERN_REMOTE)
		return !(i & 1);
	if (sp->pattern == SLABLAB_PATTERN_PRODUCER_CONSUMER)
		return i < sp->producers;
	return true;
}

static __always_inline void run_pattern(struct storm_thread *t, const u32 target)
{
	switch (t->st->spec.pattern) {
	case SLABLAB_PATTERN_PAIR:
		run_pair(t, target);
		break;
	case SLABLAB_PATTERN_BATCH:
		run_batch(t, target);
		break;
	case SLABLAB_PATTERN_BULK:
		if (target == SLABLAB_TARGET_SLABLAB || target == SLABLAB_TARGET_NATIVE)
			run_bulk(t, target);
		break;
	case SLABLAB_PATTERN_CHURN:
		run_churn(t, target);
		break;
	case SLABLAB_PATTERN_PREFILL:
		if (target == SLABLAB_TARGET_SLABLAB)
			run_prefill(t);
		break;
	case SLABLAB_PATTERN_REMOTE:
		if (storm_is_producer(&t->st->spec, t->idx))
			run_producer(t, target);
		else
			run_consumer(t, target);
		break;
	case SLABLAB_PATTERN_RCU:
		if (target == SLABLAB_TARGET_SLABLAB || target == SLABLAB_TARGET_KMALLOC)
			run_rcu(t, target);
		break;
	case SLABLAB_PATTERN_PRODUCER_CONSUMER:
		if (storm_is_producer(&t->st->spec, t->idx))
			run_mpmc_producer(t, target);
		else
			run_mpmc_consumer(t, target);
		break;
	}
}

/* A worker's run: its pattern against its target, the target a compile-time constant. */
static void storm_thread_run(struct storm_thread *t)
{
	u64 t0 = ktime_get_ns();

	switch (t->st->variant) {
	case SLABLAB_TARGET_SLABLAB:
		run_pattern(t, SLABLAB_TARGET_SLABLAB);
		break;
	case SLABLAB_TARGET_NATIVE:
		run_pattern(t, SLABLAB_TARGET_NATIVE);
		break;
	case STORM_NATIVE_CLASSES:
		run_pattern(t, STORM_NATIVE_CLASSES);
		break;
	case STORM_NATIVE_KMALLOC_LARGE:
		run_pattern(t, STORM_NATIVE_KMALLOC_LARGE);
		break;
	case SLABLAB_TARGET_KMALLOC:
		run_pattern(t, SLABLAB_TARGET_KMALLOC);
		break;
	default:
		run_pattern(t, SLABLAB_TARGET_NATIVE_KMALLOC);
	}
	t->end = ktime_get_ns() - t->waited_ns;
	t->ns = t->end - t0;
}

static int storm_thread_fn(void *arg)
{
	struct storm_thread *t = arg;
	struct slablab_storm *st = t->st;

	atomic_inc(&st->ready);
	/* acquire go: the controller's set-up is visible after the barrier */
	while (!smp_load_acquire(&st->go)) {
		cpu_relax();
		cond_resched();
	}
	if (!READ_ONCE(st->abort))
		storm_thread_run(t);
	atomic_dec(&st->running);
	/* Never return into module text: unload may free it once this completes. */
	kthread_complete_and_exit(&t->exited, 0);
}

/* Worker @t's kthread, bound to t->cpu; it runs once woken. */
static struct task_struct *storm_worker_create(struct storm_thread *t)
{
	return slablab_target_kthread(storm_thread_fn, t, t->cpu, "storm", t->st->id, t->idx);
}

static void storm_thread_init(struct slablab_storm *st, u32 i, int cpu)
{
	struct storm_thread *t = &st->t[i];

	t->st = st;
	t->idx = i;
	t->cpu = cpu;
	init_completion(&t->exited);
	prandom_seed_state(&t->rng, st->spec.seed + i);
}

/* ---- the controller ---- */

/*
 * The target's raw (monotonic) counters: a CACHE_RESET_STATS during the storm moves the
 * reset baseline, never these, so the difference of two snapshots stays what the storm
 * did.
 */
static void snapshot_stats(struct slablab_storm *st, u64 *out)
{
	unsigned int c;
	int i;

	memset(out, 0, sizeof(u64) * __SLABLAB_STAT_MAX);
	if (st->native_stats)
		native_snapshot_stats(st, out);
	if (st->spec.target == SLABLAB_TARGET_SLABLAB) {
		for (i = 0; i < __SLABLAB_STAT_MAX; i++)
			out[i] = slablab_stat_sum_raw(st->tg.lab[0], i);
	}
	for (c = 0; c < st->tg.nr_kmalloc_caches; c++)
		for (i = 0; i < __SLABLAB_STAT_MAX; i++)
			out[i] += slablab_stat_sum_raw(st->tg.kmalloc_caches[c], i);
}

/* Cycles per iteration (x1000) of an empty timed loop: what timing itself costs. */
static u64 measure_loop_overhead(void)
{
	u64 c0, c1;
	int i;

	c0 = get_cycles();
	for (i = 0; i < 1000; i++) {
		barrier();
		c1 = get_cycles();
	}
	c1 = get_cycles();
	return c1 - c0;
}

/* Stopped: by a request (STORM_STOP, unload), or an OPS storm short of its OPS. */
static bool storm_stopped_early(struct slablab_storm *st)
{
	u32 i;

	for (i = 0; i < st->spec.threads; i++) {
		struct storm_thread *t = &st->t[i];
		bool producer = storm_is_producer(&st->spec, i);

		if (t->stopped ||
		    (producer && !st->spec.duration_ms && t->ops_done < st->spec.ops))
			return true;
	}
	return false;
}

/*
 * Give the target back: destroy the native kmem_caches, unpin the slablab caches. The
 * controller does it last; storm_free() does it for a storm that never had one.
 * kmem_cache_destroy() takes cpus_read_lock: never call this holding it or
 * slablab_mutex (see the top of the file).
 */
static void storm_release_target(struct slablab_storm *st)
{
	slablab_target_release(&st->tg, false);
}

/*
 * Shared targets start empty, so that runs are independent and pages are not undercounted
 * by empty slabs an earlier storm left (they fill without taking a page). slablab's
 * kmalloc classes are emptied outright (every empty slab freed, min_partial not kept):
 * their pages are then counted whole, so a figure includes whatever other users of the
 * classes (a replay) hold, never less than the storm's live objects. The kernel's
 * classes are shrunk as well (its kmem_cache_shrink() frees every empty slab); their
 * partial slabs hold the system's objects, and a storm's pages there are what it added.
 * The workers are at their start barrier (cond_resched(): the flushes can run there).
 * Takes cpus_read_lock and slablab_mutex; the controller holds neither (see the top).
 */
static void storm_empty_target(struct slablab_storm *st)
{
	slablab_target_empty(&st->tg);
}

/*
 * rcu: wait until every object the storm freed by RCU is freed (the target's rcu_free
 * sheaves handed on, rcu_barrier() until no batch or deferred slab is left), so that
 * its counts and stats are exact once it is done. The workers are gone. Takes
 * cpus_read_lock and slablab_mutex (the sheaves' flush runs on each cpu under them):
 * the controller holds neither, and nobody waits for it holding either (the top).
 */
static void storm_rcu_drain(struct slablab_storm *st)
{
	slablab_target_rcu_drain(&st->tg);
}

/*
 * producer-consumer: the consumers freed every object the producers pushed before they
 * ended (run_mpmc_consumer()). Checked here, with the target still held, so a leftover
 * (a bug) is freed to its allocator and warned about rather than left in a cache that
 * storm_release_target() destroys.
 */
static void storm_drain_queue(struct slablab_storm *st)
{
	struct storm_mpmc *q = st->queue;
	struct storm_slot sl;

	if (!q)
		return;
	WARN_ON_ONCE(q->head != q->tail);
	while (mpmc_pop(q, &sl))
		tg_free(&st->tg, st->spec.target, sl.p);
}

static int storm_controller_fn(void *arg)
{
	struct slablab_storm *st = arg;
	u64 meta;
	int i;

	/*
	 * Wait for every worker at the barrier, then release them together. TASK_IDLE
	 * here and below, not plain uninterruptible: the controller waits for as long as
	 * the storm runs (minutes), which is no hung task, and a signal must not cut it.
	 */
	while (atomic_read(&st->ready) < st->spec.threads)
		schedule_timeout_idle(1);
	st->loop_cycles_x1000 = measure_loop_overhead();
	storm_empty_target(st);
	snapshot_stats(st, st->stats_before);
	/*
	 * The kernel's kmalloc classes hold the system's objects, and SLOB's figure is the
	 * whole system's: count what the storm added.
	 */
	if (slablab_target_shared_figure(&st->tg))
		st->base_pages = target_pages(st, &meta);
	st->start_ns = ktime_get_ns();
	st->deadline_ns = st->start_ns + (u64)(st->spec.duration_ms ?:
					       SLABLAB_STORM_MAX_DURATION_MS) * NSEC_PER_MSEC;
	/* release go: everything set up above is visible to the workers */
	smp_store_release(&st->go, true);

	while (atomic_read(&st->running)) {
		schedule_timeout_idle(msecs_to_jiffies(SAMPLE_MS));
		if (atomic_read(&st->running))
			storm_sample(st, true);
	}
	for (i = 0; i < st->spec.threads; i++)
		wait_for_completion_state(&st->t[i].exited, TASK_IDLE);
	/* The storm ended with its last thread, not when the sampler noticed. */
	st->end_ns = st->start_ns;
	for (i = 0; i < st->spec.threads; i++)
		st->end_ns = max(st->end_ns, st->t[i].end);
	if (st->spec.pattern == SLABLAB_PATTERN_RCU) {
		u64 rcu_pages;

		st->rcu_waiting_end = slablab_target_rcu_waiting(&st->tg, &rcu_pages);
		storm_rcu_drain(st);
	}

	storm_drain_queue(st);
	snapshot_stats(st, st->stats_delta);
	for (i = 0; i < __SLABLAB_STAT_MAX; i++)
		st->stats_delta[i] -= st->stats_before[i];
	storm_release_target(st);
	/* release state: readers that see DONE/STOPPED see the results */
	smp_store_release(&st->state, storm_stopped_early(st) ? SLABLAB_STORM_STOPPED :
			  SLABLAB_STORM_DONE);
	kthread_complete_and_exit(&st->done, 0);
}

/*
 * Wait until the controller has left module code: storm_mutex held, and neither
 * cpus_read_lock nor slablab_mutex (the controller may be waiting for cpus_read_lock).
 */
static void storm_reap(struct slablab_storm *st)
{
	lockdep_assert_held(&storm_mutex);
	lockdep_assert_not_held(&slablab_mutex);
	if (!st->reaped)
		wait_for_completion(&st->done);
	st->reaped = true;
}

/* ---- set-up and tear-down ---- */

static void storm_free(struct slablab_storm *st)
{
	u32 i;

	if (!st)
		return;
	if (st->controller)
		storm_reap(st);
	else
		storm_release_target(st);
	if (st->t) {
		for (i = 0; i < st->spec.threads; i++) {
			kvfree(st->t[i].slots);
			kvfree(st->t[i].slot_size);
			kfree(st->t[i].size_seq);
		}
	}
	if (st->rings) {
		for (i = 0; i < st->spec.threads / 2; i++)
			kvfree(st->rings[i].slot);
	}
	kfree(st->rings);
	if (st->queue) {
		kvfree(st->queue->slot);
		kfree(st->queue);
	}
	kvfree(st->t);
	kfree(st->cpu_of);
	kfree(st);
}

/* What kvcalloc()/kcalloc() of @bytes really takes: its kmalloc bucket, or 2^n pages. */
static u64 alloc_bytes(u64 bytes)
{
	return bytes ? kmalloc_size_roundup(bytes) : 0;
}

/*
 * Bytes @n objects take in slabs of 2^@order pages of @objs @stride-byte slots, whole
 * slabs counted pro rata (the leftover included); @meta: slablab's 64-byte slab
 * metadata, beside the slab when its leftover cannot hold it.
 */
static u64 slab_bytes(u64 n, u32 stride, u32 order, u32 objs, bool meta)
{
	u64 slab = (u64)PAGE_SIZE << order;

	if (!objs)
		return n * (PAGE_SIZE << get_order(stride));
	if (meta && slab - (u64)objs * stride < sizeof(struct slablab_slab))
		slab += sizeof(struct slablab_slab);
	return DIV_ROUND_UP_ULL(n * slab, objs);
}

/*
 * The slot SLUB gives an object of the native kmem_cache (calculate_sizes() in 6.1,
 * without KASAN or slub_debug= on the command line): the object word aligned; debug
 * (red zone, poison) adds a red zone on each side and the free pointer after it.
 */
static u32 native_stride(u32 size, u32 align, u32 cache_flags)
{
	u32 end = ALIGN(size, sizeof(void *));

	if (cache_flags & SLABLAB_CACHE_F_HWCACHE_ALIGN) {
		u32 ralign = cache_line_size();

		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	align = max_t(u32, align, sizeof(void *));
	if (cache_flags & SLABLAB_CACHE_F_DEBUG) {
		if (end == size)
			end += sizeof(void *);		/* right red zone */
		end += sizeof(void *);			/* free pointer, outside the object */
		end += sizeof(void *);			/* SLUB's red zone padding word */
		end += ALIGN(sizeof(void *), align);	/* left red zone */
	} else if (cache_flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU) {
		end += sizeof(void *);			/* free pointer, outside the object */
	}
	return ALIGN(end, align);
}

/* Bytes @n objects of @size really take from the storm's target. */
static u64 storm_objs_bytes(struct slablab_storm *st, u32 size, u64 n)
{
	unsigned int nr_cpus = num_present_cpus() > 1 ? num_present_cpus() : nr_cpu_ids;
	struct slablab_cache *s = NULL;
	u64 pages = n * (PAGE_SIZE << get_order(size));
	struct slablab_order_choice oc;
	unsigned int i, order;
	u32 stride;

	switch (st->spec.target) {
	case SLABLAB_TARGET_SLABLAB:
		s = st->tg.lab[0];
		order = READ_ONCE(s->order);
		return slab_bytes(n, s->stride + s->slot_index, order,
				  slablab_cache_objs(s, order), true);
	case SLABLAB_TARGET_NATIVE:
		/* SIZES: the class that takes it, whose slot is its size (no model's flags) */
		if (st->variant == STORM_NATIVE_CLASSES)
			size = slablab_kmalloc_sizes[slablab_kmalloc_index(size)];
		/* the running kernel's SLUB order policy, as slablab's (policy.h) mirrors it */
		stride = native_stride(size, st->cache_align, st->cache_flags);
		oc = slablab_calc_order(stride, nr_cpus, SLABLAB_DEFAULT_MAX_ORDER, PAGE_SIZE,
					SLABLAB_KERNEL_ORDER_RULES);
		if (oc.reason == SLABLAB_ORDER_TOO_BIG)
			return n * (PAGE_SIZE << get_order(stride));
		return slab_bytes(n, stride, oc.order,
				  slablab_objs_per_slab(oc.order, stride, PAGE_SIZE), false);
	case SLABLAB_TARGET_KMALLOC:
		/* the smallest class that fits, else (or by page policy) the page allocator */
		for (i = 0; i < st->tg.nr_kmalloc_caches; i++) {
			struct slablab_cache *k = st->tg.kmalloc_caches[i];

			if (k->object_size >= size && (!s || k->object_size < s->object_size))
				s = k;
		}
		if (!s)
			return pages;
		order = READ_ONCE(s->order);
		return max(pages, slab_bytes(n, s->stride + s->slot_index, order,
					     slablab_cache_objs(s, order), true));
	default:
		return n * kmalloc_size_roundup(size);
	}
}

/*
 * Empty and partial slabs a slablab cache target may keep besides the live objects, at
 * the tunables in force at START: every cpu of the storm's cpu partial list (its bound,
 * at least one slab: a free keeps its slab there even with cpu_partial 0, as 6.1's
 * put_cpu_partial()) and its cpu slab, and min_partial slabs on every node. With
 * cpu_partial raised far, a remote storm's consumers otherwise pile up empty slabs the
 * live count never shows.
 */
static u64 storm_held_bytes(struct slablab_storm *st)
{
	struct slablab_cache *s = st->tg.lab[0];
	u64 cpus, slabs;

	if (st->spec.target != SLABLAB_TARGET_SLABLAB)
		return 0;
	cpus = min_t(u64, st->spec.threads, num_online_cpus());
	slabs = cpus * (max(READ_ONCE(s->cpu_partial_slabs), 1U) + 1) +
		(u64)nr_node_ids * READ_ONCE(s->min_partial);
	return slabs * ((u64)PAGE_SIZE << READ_ONCE(s->order));
}

/*
 * What a storm may hold at once, for the memory cap: the objects each pattern keeps,
 * all of the largest size, in what the target really takes for them (size classes,
 * strides, slab leftovers), plus the storm's own bookkeeping (slot arrays, rings, size
 * sequences, thread structures and kthread stacks).
 */
static u64 storm_live_estimate(struct slablab_storm *st)
{
	struct slablab_storm_spec *sp = &st->spec;
	u64 objs, slots = 0, pairs = sp->threads / 2, bytes = 0, book;
	u32 i;

	switch (sp->pattern) {
	case SLABLAB_PATTERN_BATCH:
	case SLABLAB_PATTERN_BULK:
	case SLABLAB_PATTERN_PREFILL:
		slots = sp->batch;
		objs = slots * sp->threads;
		break;
	case SLABLAB_PATTERN_CHURN:
		slots = sp->working_set;
		objs = slots * sp->threads;
		break;
	case SLABLAB_PATTERN_REMOTE:
		objs = pairs * (sp->ring + 1);	/* a full ring, and one being freed */
		break;
	case SLABLAB_PATTERN_PRODUCER_CONSUMER:
		/* a full ring, one in each producer's hand, one being freed by each consumer */
		objs = (u64)sp->ring + sp->threads;
		break;
	default:
		objs = sp->threads;
	}
	if (!sp->nr_sizes)
		bytes = storm_objs_bytes(st, st->obj_size, objs);
	for (i = 0; i < sp->nr_sizes; i++)
		bytes = max(bytes, storm_objs_bytes(st, sp->sizes[i], objs));

	book = alloc_bytes((u64)sp->threads * sizeof(struct storm_thread)) + THREAD_SIZE;
	book += sp->threads * (THREAD_SIZE + alloc_bytes(slots * sizeof(void *)) +
			       alloc_bytes(slots * sizeof(u32)) +
			       (sp->nr_sizes ? alloc_bytes(SIZE_SEQ_LEN * sizeof(u32)) : 0));
	if (sp->pattern == SLABLAB_PATTERN_REMOTE)
		book += alloc_bytes(pairs * sizeof(struct storm_ring)) +
			pairs * alloc_bytes(sp->ring * sizeof(struct storm_slot));
	if (sp->pattern == SLABLAB_PATTERN_PRODUCER_CONSUMER)
		book += alloc_bytes(sizeof(struct storm_mpmc)) +
			alloc_bytes(sp->ring * sizeof(struct storm_slot));
	return bytes + book + storm_held_bytes(st);
}

static int storm_prepare_threads(struct slablab_storm *st)
{
	struct slablab_storm_spec *sp = &st->spec;
	u32 i, j, slots = 0;

	st->t = kvcalloc(sp->threads, sizeof(*st->t), GFP_KERNEL);
	if (!st->t)
		return -ENOMEM;
	if (sp->pattern == SLABLAB_PATTERN_BATCH || sp->pattern == SLABLAB_PATTERN_BULK ||
	    sp->pattern == SLABLAB_PATTERN_PREFILL)
		slots = sp->batch;
	else if (sp->pattern == SLABLAB_PATTERN_CHURN)
		slots = sp->working_set;
	if (sp->pattern == SLABLAB_PATTERN_REMOTE) {
		st->rings = kcalloc(sp->threads / 2, sizeof(*st->rings), GFP_KERNEL);
		if (!st->rings)
			return -ENOMEM;
		for (i = 0; i < sp->threads / 2; i++) {
			st->rings[i].mask = sp->ring - 1;
			st->rings[i].slot = kvcalloc(sp->ring, sizeof(struct storm_slot),
						     GFP_KERNEL);
			if (!st->rings[i].slot)
				return -ENOMEM;
		}
	}
	if (sp->pattern == SLABLAB_PATTERN_PRODUCER_CONSUMER) {
		st->queue = kzalloc(sizeof(*st->queue), GFP_KERNEL);
		if (!st->queue)
			return -ENOMEM;
		spin_lock_init(&st->queue->lock);
		st->queue->mask = sp->ring - 1;
		atomic_set(&st->queue->producers_left, sp->producers);
		st->queue->slot = kvcalloc(sp->ring, sizeof(struct storm_slot), GFP_KERNEL);
		if (!st->queue->slot)
			return -ENOMEM;
	}
	for (i = 0; i < sp->threads; i++) {
		struct storm_thread *t = &st->t[i];

		storm_thread_init(st, i, st->cpu_of[i]);
		if (slots) {
			t->slots = kvcalloc(slots, sizeof(void *), GFP_KERNEL);
			t->slot_size = kvcalloc(slots, sizeof(u32), GFP_KERNEL);
			if (!t->slots || !t->slot_size)
				return -ENOMEM;
		}
		if (st->rings)
			t->ring = &st->rings[i / 2];
		if (sp->nr_sizes) {
			u32 total = 0;

			t->size_seq = kmalloc_array(SIZE_SEQ_LEN, sizeof(u32), GFP_KERNEL);
			if (!t->size_seq)
				return -ENOMEM;
			for (j = 0; j < sp->nr_sizes; j++)
				total += sp->weights[j];
			for (j = 0; j < SIZE_SEQ_LEN; j++) {
				u32 r = prandom_u32_state(&t->rng) % total, k = 0;

				while (r >= sp->weights[k]) {
					r -= sp->weights[k];
					k++;
				}
				t->size_seq[j] = sp->sizes[k];
			}
		}
	}
	return 0;
}

/*
 * The controller and the workers, bound and woken. The cpus were checked online at parse
 * time, but the locks were dropped since (the native cache and the big allocations are
 * made without them): check again under cpus_read_lock, which keeps every cpu online
 * until its worker is bound and running there. Nothing here waits for the controller,
 * so holding cpus_read_lock is safe (storm.c's lock order).
 */
static int storm_start_threads(struct slablab_storm *st, struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	int err = 0;
	u32 i;

	atomic_set(&st->running, st->spec.threads);
	atomic_set(&st->churn_left, st->spec.threads);
	st->controller = kthread_create(storm_controller_fn, st, "slablab-storm/%u", st->id);
	if (IS_ERR(st->controller)) {
		err = PTR_ERR(st->controller);
		st->controller = NULL;
		NL_SET_ERR_MSG_MOD(extack, "cannot create the storm's controller kthread");
		return err;
	}
	cpus_read_lock();
	for (i = 0; i < st->spec.threads; i++) {
		if (!cpu_online(st->t[i].cpu)) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cpu %d went offline during set-up",
					       st->t[i].cpu);
			task = ERR_PTR(-EINVAL);
		} else {
			task = storm_worker_create(&st->t[i]);
			if (IS_ERR(task))
				NL_SET_ERR_MSG_MOD(extack, "cannot create the storm's kthreads");
		}
		if (IS_ERR(task)) {
			u32 j;

			/* Release the workers made so far straight through the barrier. */
			WRITE_ONCE(st->abort, true);
			for (j = i; j < st->spec.threads; j++)
				complete(&st->t[j].exited);
			atomic_sub(st->spec.threads - i, &st->running);
			atomic_add(st->spec.threads - i, &st->ready);
			/* release go: the abort flag is visible to workers at the barrier */
			smp_store_release(&st->go, true);
			err = PTR_ERR(task);
			break;
		}
		wake_up_process(task);
	}
	cpus_read_unlock();
	wake_up_process(st->controller);
	return err;
}

/* ---- set-up: the spec checked against the allocator and the cpus ---- */

/* rcu: an object must hold the rcu_head it is freed through (at offset 0). */
static int storm_check_rcu_size(struct slablab_storm *st, u32 size, u32 attr,
				u32 *bad_attr, struct netlink_ext_ack *extack)
{
	if (st->spec.pattern != SLABLAB_PATTERN_RCU || size >= sizeof(struct rcu_head))
		return 0;
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "rcu needs objects of at least %zu bytes (a struct rcu_head), not %u",
			       sizeof(struct rcu_head), size);
	*bad_attr = attr;
	return -EINVAL;
}

/*
 * The native target with SIZES: the kernel's SLUB on a kmem_cache of the storm's own for
 * every kmalloc class the sizes fall in, made as the kernel makes that class
 * (slablab_native_class_create(), storm_create_native()). A storm of mixed sizes then
 * runs on the kernel's allocator from empty classes whose pages are all its own, as it
 * does on slablab's kmalloc classes, emptied before it: the kernel's own classes
 * (native-kmalloc) hold the system's objects, and their free slots take a storm's
 * objects without a page. One cache per class, so no model cache and no bulk pattern.
 */
static int storm_setup_native_classes(struct slablab_storm *st, u32 *bad_attr,
				      struct netlink_ext_ack *extack)
{
	struct slablab_storm_spec *sp = &st->spec;
	u32 i;

	/* SLOB's kfree() frees no cache's object, and its caches share one heap anyway */
	if (IS_ENABLED(CONFIG_SLOB)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "SLOB: no kmalloc classes of its own for the native target (one heap)");
		*bad_attr = SLABLAB_STORM_A_SIZES;
		return -EOPNOTSUPP;
	}
	if (sp->cache[0]) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the native target takes CACHE (a model) or SIZES (kmalloc classes), not both");
		*bad_attr = SLABLAB_STORM_A_CACHE;
		return -EINVAL;
	}
	if (sp->pattern == SLABLAB_PATTERN_BULK || sp->pattern == SLABLAB_PATTERN_PREFILL) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s needs one cache, not the classes of SIZES",
				       sp->pattern == SLABLAB_PATTERN_BULK ? "bulk" : "prefill");
		*bad_attr = SLABLAB_STORM_A_PATTERN;
		return -EINVAL;
	}
	for (i = 0; i < sp->nr_sizes; i++) {
		if (sp->sizes[i] > SLABLAB_KMALLOC_MAX) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "size %u: above the largest kmalloc class (%u)",
					       sp->sizes[i], SLABLAB_KMALLOC_MAX);
			*bad_attr = SLABLAB_STORM_A_SIZES;
			return -EINVAL;
		}
	}
	st->variant = STORM_NATIVE_CLASSES;
	st->obj_size = sp->sizes[0];
	return 0;
}

/*
 * The target: find the cache (or the native target's model) and check the spec fits
 * it; the object size of cache targets, the first size of kmalloc ones.
 */
static int storm_setup_target(struct slablab_storm *st, u32 *bad_attr,
			      struct netlink_ext_ack *extack)
{
	struct slablab_storm_spec *sp = &st->spec;
	u32 size_attr = SLABLAB_STORM_A_SIZES, i;
	struct slablab_cache *model;
	int err;

	slablab_target_init(&st->tg, sp->target, "");
	st->variant = sp->target;
	if (sp->rate && sp->pattern != SLABLAB_PATTERN_RCU) {
		NL_SET_ERR_MSG_MOD(extack, "RATE is for the rcu pattern");
		*bad_attr = SLABLAB_STORM_A_RATE;
		return -EINVAL;
	}
	if (sp->pattern == SLABLAB_PATTERN_RCU &&
	    (sp->target == SLABLAB_TARGET_NATIVE || sp->target == SLABLAB_TARGET_NATIVE_KMALLOC)) {
		/* docs/storms.md, "rcu": no barrier for the kernel's kfree_rcu() on 6.1 */
		NL_SET_ERR_MSG_MOD(extack,
				   "rcu needs a slablab target (cache or kmalloc): the kernel's kfree_rcu() has no barrier to wait for before the storm is done");
		*bad_attr = SLABLAB_STORM_A_TARGET;
		return -EINVAL;
	}
	if (sp->target == SLABLAB_TARGET_NATIVE && sp->nr_sizes)
		return storm_setup_native_classes(st, bad_attr, extack);
	switch (sp->target) {
	case SLABLAB_TARGET_SLABLAB:
	case SLABLAB_TARGET_NATIVE:
		if (sp->nr_sizes) {
			NL_SET_ERR_MSG_MOD(extack, "SIZES is for the kmalloc and native targets");
			return -EINVAL;
		}
		if (sp->cache[0]) {
			model = slablab_cache_find(sp->cache);
			if (!model) {
				NL_SET_ERR_MSG_FMT_MOD(extack, "no cache named %s", sp->cache);
				return -ENOENT;
			}
			/* its module may destroy it and unload (a native model is only copied) */
			if (sp->target == SLABLAB_TARGET_SLABLAB &&
			    model->owner == SLABLAB_OWNER_KERNEL) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "no storms on cache %s: another kernel module owns it",
						       sp->cache);
				*bad_attr = SLABLAB_STORM_A_CACHE;
				return -EPERM;
			}
			st->obj_size = model->object_size;
			st->cache_flags = model->flags;
			st->cache_align = model->align;
		} else if (sp->target == SLABLAB_TARGET_NATIVE && sp->size) {
			st->obj_size = sp->size;
		} else {
			if (sp->target == SLABLAB_TARGET_SLABLAB)
				NL_SET_ERR_MSG_MOD(extack, "the cache target needs CACHE");
			else
				NL_SET_ERR_MSG_MOD(extack,
						   "the native target needs CACHE (a model) or SIZE");
			return -EINVAL;
		}
		sp->size = st->obj_size;
		err = storm_check_rcu_size(st, st->obj_size, SLABLAB_STORM_A_CACHE, bad_attr,
					   extack);
		if (err)
			return err;
		if (sp->pattern == SLABLAB_PATTERN_PREFILL &&
		    sp->target != SLABLAB_TARGET_SLABLAB) {
			NL_SET_ERR_MSG_MOD(extack,
					   "prefill needs the cache target (the kernel's SLUB has no sheaves)");
			*bad_attr = SLABLAB_STORM_A_PATTERN;
			return -EINVAL;
		}
		/* the cache, pinned; a native target's model is copied, not used: it may go */
		st->tg.nr_caches = 1;
		if (sp->target == SLABLAB_TARGET_SLABLAB)
			slablab_target_add_lab(&st->tg, 0, model);
		return 0;
	default:
		if (sp->pattern == SLABLAB_PATTERN_BULK || sp->pattern == SLABLAB_PATTERN_PREFILL) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "%s needs a cache target, not kmalloc",
					       sp->pattern == SLABLAB_PATTERN_BULK ?
					       "bulk" : "prefill");
			return -EINVAL;
		}
		if (!sp->nr_sizes) {
			size_attr = SLABLAB_STORM_A_SIZE;
			if (!sp->size) {
				NL_SET_ERR_MSG_MOD(extack, "kmalloc targets need SIZE or SIZES");
				return -EINVAL;
			}
			sp->sizes[0] = sp->size;
			sp->weights[0] = 1;
			sp->nr_sizes = 1;
		}
		st->obj_size = sp->sizes[0];
		for (err = 0, i = 0; !err && i < sp->nr_sizes; i++)
			err = storm_check_rcu_size(st, sp->sizes[i], size_attr, bad_attr,
						   extack);
		if (err)
			return err;
		if (sp->target == SLABLAB_TARGET_KMALLOC)
			slablab_target_collect_kmalloc(&st->tg);
		for (i = 0; sp->target == SLABLAB_TARGET_NATIVE_KMALLOC && i < sp->nr_sizes; i++)
			if (sp->sizes[i] > KMALLOC_MAX_CACHE_SIZE)
				st->variant = STORM_NATIVE_KMALLOC_LARGE;
		return 0;
	}
}

/*
 * The cpus asked for (@cpus, NULL: the online ones) into @mask: each must be online;
 * a cpu at or above nr_cpu_ids is not online like any other.
 */
static int storm_setup_mask(const unsigned long *cpus, unsigned int nr_cpu_bits,
			    struct cpumask *mask, u32 *bad_attr, struct netlink_ext_ack *extack)
{
	unsigned int cpu;

	if (!cpus) {
		cpumask_copy(mask, cpu_online_mask);
		return 0;
	}
	for_each_set_bit(cpu, cpus, nr_cpu_bits) {
		if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cpu %u is not online", cpu);
			*bad_attr = SLABLAB_STORM_A_CPUS;
			return -EINVAL;
		}
		cpumask_set_cpu(cpu, mask);
	}
	return 0;
}

/*
 * producer-consumer: PRODUCERS of THREADS allocate, the rest free; at least one of each
 * (THREADS is 2 by default on one cpu). PRODUCERS is refused for the other patterns.
 */
static int storm_setup_producers(struct slablab_storm_spec *sp, bool threads_given,
				 u32 *bad_attr, struct netlink_ext_ack *extack)
{
	if (sp->pattern != SLABLAB_PATTERN_PRODUCER_CONSUMER) {
		if (!sp->producers)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "PRODUCERS is for the producer-consumer pattern only");
		*bad_attr = SLABLAB_STORM_A_PRODUCERS;
		return -EINVAL;
	}
	if (!threads_given && sp->threads == 1)
		sp->threads = 2;
	if (sp->threads < 2) {
		NL_SET_ERR_MSG_MOD(extack,
				   "producer-consumer needs at least 2 threads (a producer and a consumer)");
		*bad_attr = SLABLAB_STORM_A_THREADS;
		return -EINVAL;
	}
	if (!sp->producers)
		sp->producers = sp->threads / 2;
	if (sp->producers >= sp->threads) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "PRODUCERS is 1..THREADS - 1 (%u): a consumer is needed",
				       sp->threads - 1);
		*bad_attr = SLABLAB_STORM_A_PRODUCERS;
		return -ERANGE;
	}
	return 0;
}

/* The cpus and the threads: THREADS workers bound round robin to the cpus (st->cpu_of). */
static int storm_setup_cpus(struct slablab_storm *st, const unsigned long *cpus,
			    unsigned int nr_cpu_bits, u32 *bad_attr,
			    struct netlink_ext_ack *extack)
{
	struct slablab_storm_spec *sp = &st->spec;
	bool threads_given = sp->threads;
	cpumask_var_t mask;
	int err, cpu;
	u32 i;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	err = storm_setup_mask(cpus, nr_cpu_bits, mask, bad_attr, extack);
	if (err)
		goto out_mask;
	snprintf(sp->cpus, sizeof(sp->cpus), "%*pbl", cpumask_pr_args(mask));
	/*
	 * One worker per cpu by default, but no more than THREADS may ask for: a report
	 * (struct slablab_storm_report) has room for SLABLAB_STORM_MAX_THREADS workers.
	 */
	if (!sp->threads)
		sp->threads = min_t(u32, cpumask_weight(mask), SLABLAB_STORM_MAX_THREADS);
	if (sp->pattern == SLABLAB_PATTERN_REMOTE) {
		if (!threads_given && sp->threads == 1)
			sp->threads = 2;
		if (sp->threads & 1) {
			NL_SET_ERR_MSG_MOD(extack,
					   "remote needs an even number of threads (producer, consumer pairs)");
			*bad_attr = SLABLAB_STORM_A_THREADS;
			err = -EINVAL;
			goto out_mask;
		}
	}
	err = storm_setup_producers(sp, threads_given, bad_attr, extack);
	if (err)
		goto out_mask;
	st->cpu_of = kcalloc(sp->threads, sizeof(int), GFP_KERNEL);
	if (!st->cpu_of) {
		err = -ENOMEM;
		goto out_mask;
	}
	cpu = cpumask_first(mask);
	for (i = 0; i < sp->threads; i++) {
		st->cpu_of[i] = cpu;
		cpu = cpumask_next(cpu, mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(mask);
	}
out_mask:
	free_cpumask_var(mask);
	return err;
}

/* The memory cap: what the storm may hold at once, at most MAX_LIVE_BYTES. */
static int storm_check_live(struct slablab_storm *st, struct netlink_ext_ack *extack)
{
	u64 live = storm_live_estimate(st);

	if (live > st->spec.max_live_bytes) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "storm may hold %llu MiB, over the %llu MiB cap (MAX_LIVE_BYTES)",
				       live >> 20, st->spec.max_live_bytes >> 20);
		return -E2BIG;
	}
	return 0;
}

/*
 * The spec checked and completed under cache.c's locks, the only time a start holds
 * them: the cache is found and pinned (a storm's cache cannot be destroyed), the kmalloc
 * classes collected, the cpus checked against the online ones.
 */
static int storm_setup_locked(struct slablab_storm *st, const unsigned long *cpus,
			      unsigned int nr_cpu_bits, u32 *bad_attr,
			      struct netlink_ext_ack *extack)
{
	int err;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	err = storm_setup_target(st, bad_attr, extack);
	if (!err)
		err = storm_setup_cpus(st, cpus, nr_cpu_bits, bad_attr, extack);
	if (!err)
		err = storm_check_live(st, extack);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return err;
}

/*
 * Create the native target's kmem_cache, made like the slablab cache or of SIZE: the
 * SLAB_* flags debugfs shows for the cache (slablab_slub_flags(): a debug cache's twin
 * checks red zones and poison on every allocation and free, as slablab's debug mode
 * does), no constructor; or with SIZES its kmalloc classes. Takes cpus_read_lock
 * (kmem_cache_create): called with neither it nor slablab_mutex held. What was made
 * before a failure goes with the target (storm_release_target()).
 */
static int storm_create_native(struct slablab_storm *st, struct netlink_ext_ack *extack)
{
	slab_flags_t flags = slablab_slub_flags(st->cache_flags);
	u32 i;

	snprintf(st->tg.name, sizeof(st->tg.name), "slablab-native-%u", st->id);
	if (st->variant == STORM_NATIVE_CLASSES) {
		for (i = 0; i < st->spec.nr_sizes; i++) {
			if (!slablab_target_create_class(&st->tg, st->spec.sizes[i])) {
				NL_SET_ERR_MSG_FMT_MOD(extack, "cannot create the class of size %u",
						       st->spec.sizes[i]);
				return -ENOMEM;
			}
		}
		return 0;
	}
	st->tg.native[0] = slablab_target_native_create(st->tg.name, st->obj_size,
							st->cache_align, flags);
	if (!st->tg.native[0]) {
		NL_SET_ERR_MSG_MOD(extack, "cannot create the native kmem_cache");
		return -ENOMEM;
	}
	return 0;
}

/* ---- reports ---- */

/* What @st has done so far, or (finished) its results, into @rep. */
static void storm_fill_report(struct slablab_storm *st, struct slablab_storm_report *rep)
{
	/* acquire state: pairs with the controller's release; results are valid */
	u32 state = smp_load_acquire(&st->state);
	struct slablab_storm_spec *sp = &st->spec;
	u64 now;
	u32 i;

	memset(rep, 0, sizeof(*rep));
	rep->id = st->id;
	rep->state = state;
	rep->spec = *sp;
	for (i = 0; i < sp->threads; i++)
		rep->ops_done += storm_is_producer(sp, i) ? READ_ONCE(st->t[i].ops_done) : 0;
	rep->ops_planned = sp->duration_ms ? 0 : sp->ops *
			   (sp->pattern == SLABLAB_PATTERN_REMOTE ? sp->threads / 2 :
			    sp->pattern == SLABLAB_PATTERN_PRODUCER_CONSUMER ? sp->producers :
			    sp->threads);
	now = state == SLABLAB_STORM_RUNNING ? ktime_get_ns() : st->end_ns;
	rep->elapsed_ns = st->start_ns && now > st->start_ns ? now - st->start_ns : 0;
	rep->cache_flags = st->cache_flags;
	strscpy(rep->native_name, st->tg.name, sizeof(rep->native_name));
	if (state != SLABLAB_STORM_DONE && state != SLABLAB_STORM_STOPPED)
		return;
	rep->finished = true;
	/* storm_setup_cpus() keeps every storm within the report's thread[] */
	if (WARN_ON_ONCE(sp->threads > ARRAY_SIZE(rep->thread)))
		rep->spec.threads = ARRAY_SIZE(rep->thread);
	for (i = 0; i < rep->spec.threads; i++) {
		struct storm_thread *t = &st->t[i];

		rep->allocs += t->allocs;
		rep->frees += t->frees;
		rep->alloc_cycles += t->alloc_cycles;
		rep->free_cycles += t->free_cycles;
		rep->pair_cycles += t->pair_cycles;
		rep->failures += t->failures;
		rep->remote_frees += t->remote_frees;
		rep->thread[i].cpu = t->cpu;
		rep->thread[i].ops = t->ops_done;
		rep->thread[i].cycles = t->alloc_cycles + t->free_cycles + t->pair_cycles;
		rep->thread[i].ns = t->ns;
	}
	rep->loop_cycles_x1000 = st->loop_cycles_x1000;
	rep->peak_pages = st->peak_pages;
	rep->peak_live_bytes = st->peak_live;
	rep->meta_bytes = st->peak_meta;
	if (st->steady_samples) {
		rep->steady_pages = div_u64(st->steady_pages_sum, st->steady_samples);
		rep->steady_live_bytes = div_u64(st->steady_live_sum, st->steady_samples);
	}
	rep->steady_samples = st->steady_samples;
	rep->shrunk = st->shrunk;
	rep->shrunk_pages = st->shrunk_pages;
	rep->shrunk_live_bytes = st->shrunk_live;
	rep->rcu_samples = st->rcu_samples;
	if (st->rcu_samples)
		rep->rcu_waiting_mean = div_u64(st->rcu_waiting_sum, st->rcu_samples);
	rep->rcu_waiting_peak = st->rcu_waiting_peak;
	rep->rcu_waiting_end = st->rcu_waiting_end;
	rep->rcu_pages_peak = st->rcu_pages_peak;
	rep->has_stats = sp->target == SLABLAB_TARGET_SLABLAB ||
			 sp->target == SLABLAB_TARGET_KMALLOC || st->native_stats;
	memcpy(rep->stats, st->stats_delta, sizeof(rep->stats));
}

/* ---- the interface: start, report (and stop), unload ---- */

/**
 * slablab_storm_start - start a storm
 * @spec: what to run (netlink-storm.c parsed it; limits of the attribute policies hold)
 * @cpus: the cpus to bind the workers to, or NULL for every online cpu
 * @nr_cpu_bits: bits of @cpus
 * @rep: the storm as it started (also on an undeliverable reply: stop it by its id)
 * @bad_attr: set to the SLABLAB_STORM_A_* attribute an error is about, if one is
 * @extack: why not
 *
 * One storm at a time: -EBUSY while one runs. Takes storm_mutex, and cache.c's locks
 * only briefly inside it (storm_setup_locked()).
 *
 * Return: 0, or an errno (nothing then runs).
 */
int slablab_storm_start(const struct slablab_storm_spec *spec, const unsigned long *cpus,
			unsigned int nr_cpu_bits, struct slablab_storm_report *rep,
			u32 *bad_attr, struct netlink_ext_ack *extack)
{
	struct slablab_storm *st;
	int err;

	mutex_lock(&storm_mutex);
	if (slablab_storm &&
	    /* acquire: a finished storm's controller is done with its fields */
	    smp_load_acquire(&slablab_storm->state) == SLABLAB_STORM_RUNNING) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "storm %u is still running: one storm at a time",
				       slablab_storm->id);
		err = -EBUSY;
		goto out_unlock;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st) {
		err = -ENOMEM;
		goto out_unlock;
	}
	init_completion(&st->done);
	init_completion(&st->churn_shrunk);
	mutex_init(&st->sample_lock);
	st->spec = *spec;
	err = storm_setup_locked(st, cpus, nr_cpu_bits, bad_attr, extack);
	if (err)
		goto err_free;
	err = storm_prepare_threads(st);
	if (err)
		goto err_free;
	st->id = slablab_storm_next_id;
	if (st->spec.target == SLABLAB_TARGET_NATIVE) {
		err = storm_create_native(st, extack);
		if (err)
			goto err_free;
	}
	err = storm_check_native_figures(st, extack);
	if (err)
		goto err_free;
	st->state = SLABLAB_STORM_RUNNING;
	err = storm_start_threads(st, extack);
	if (err)	/* storm_free() reaps the controller, if any, or releases the target */
		goto err_free;
	slablab_storm_next_id++;
	storm_free(slablab_storm);
	slablab_storm = st;
	storm_fill_report(st, rep);
	goto out_unlock;

err_free:
	storm_free(st);
out_unlock:
	mutex_unlock(&storm_mutex);
	return err;
}

/**
 * slablab_storm_report - report a storm, and stop it first if asked
 * @id: the storm (0: the last one)
 * @stop: ask a running storm to stop and wait for it; a finished one (or none) is left
 *	as it is and reported with its real state
 * @rep: the report; STATE NONE and ID 0 when no storm has run (and @id is 0)
 * @extack: why not
 *
 * Takes storm_mutex (and, stopping, waits for the storm's controller under it).
 *
 * Return: 0, or -ENOENT when storm @id is not the last one (or none has run).
 */
int slablab_storm_report(u32 id, bool stop, struct slablab_storm_report *rep,
			 struct netlink_ext_ack *extack)
{
	struct slablab_storm *st;
	int err = 0;

	mutex_lock(&storm_mutex);
	st = slablab_storm;
	if (id && !st) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "no storm has run yet, so no storm %u", id);
		err = -ENOENT;
		goto out;
	}
	if (id && id != st->id) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "storm %u is gone; the last storm is %u", id,
				       st->id);
		err = -ENOENT;
		goto out;
	}
	if (!st) {
		memset(rep, 0, sizeof(*rep));
		rep->state = SLABLAB_STORM_NONE;
		goto out;
	}
	if (stop) {
		/* acquire: pairs with the controller's release of the final state */
		if (smp_load_acquire(&st->state) == SLABLAB_STORM_RUNNING)
			WRITE_ONCE(st->stop, true);
		storm_reap(st);
	}
	storm_fill_report(st, rep);
out:
	mutex_unlock(&storm_mutex);
	return err;
}

/*
 * Module unload, after the netlink family is gone: stop a running storm and wait for it,
 * holding neither cpus_read_lock nor slablab_mutex (see the top of the file).
 */
void slablab_storm_exit(void)
{
	mutex_lock(&storm_mutex);
	if (slablab_storm) {
		WRITE_ONCE(slablab_storm->stop, true);
		storm_free(slablab_storm);
		slablab_storm = NULL;
	}
	mutex_unlock(&storm_mutex);
}
