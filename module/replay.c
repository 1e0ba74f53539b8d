// SPDX-License-Identifier: GPL-2.0
/*
 * The replay engine: a recorded allocation trace (slabctl record, docs/replay.md) run
 * again in the kernel, event by event, on a slablab cache per recorded cache or on the
 * kernel's own SLUB. netlink-replay.c hands it the set-up (slablab_replay_new()), the
 * events in chunks (slablab_replay_data()), starts it (slablab_replay_run()) and reads it
 * back (slablab_replay_get()). It calls only the allocator (cache.c) and the kernel's.
 *
 * One kthread per recorded cpu, bound to an online cpu; with fewer online cpus than
 * recorded ones the streams are folded (recorded cpu c runs on kthread c % threads,
 * each kthread's events still in trace order). Every object id is allocated once and
 * freed at most once after (checked before the start), so the only order across
 * kthreads is an object's free after its allocation: a free whose object another
 * kthread allocates waits for that allocation (a remote free). Each kthread's events
 * are a subsequence of the trace's order, so the earliest event not yet replayed never
 * waits: no deadlock, also when streams are folded onto one cpu (the wait yields).
 *
 * Memory is bounded before the start: the trace's peak live bytes (sizes as replayed)
 * against max-live-bytes; the events themselves against SLABLAB_REPLAY_MAX_EVENTS.
 *
 * Two modes: as fast as possible, or time-scaled (time_scale, per mille: each event
 * waits until its recorded time * time_scale / 1000 after the start). Pages held are
 * sampled by the kthreads every REPLAY_SAMPLE_EVERY events and, with sample_ns, by a
 * sampler kthread every sample_ns into r->samples (pages over time); every sample goes
 * into the peak and the time-weighted mean. What it allocates from and how its pages are
 * counted is the target layer's (target.h), the storms' own: slablab targets count their
 * caches' and the kmalloc classes' pages, native ones the kernel's own figures of the
 * caches and classes the replay made (native-kmalloc: of the kernel's kmalloc classes).
 *
 * The last kthread to finish its events queues replay_finish_work, which finishes the
 * replay (frees what is still live, destroys its caches): replay-get only reads, so it
 * needs no privilege.
 *
 * Locking (outermost first):
 *   replay_mutex     the replay (slablab_replay) and its id: every slablab_replay_*()
 *                    call and replay_finish_work. Held while waiting for the kthreads to
 *                    finish (replay-stop and unload: replay-get never waits), and while
 *                    the replay's caches are made and destroyed.
 *   cpu_hotplug_lock (cpus_read_lock) and
 *   slablab_mutex    cache.c's, taken briefly to create and destroy the slablab caches
 *                    and to bind the kthreads to online cpus. kmem_cache_create() and
 *                    kmem_cache_destroy() (native) run with neither held: they take
 *                    cpus_read_lock themselves.
 *   the target's     nf.lock (target.c: SLABINFO readings), taken by the kthreads and
 *                    the sampler when they read the pages, before
 *   r->peak_lock     the pages samples' peak and time-weighted sum, taken by the
 *                    kthreads and the sampler.
 * The kthreads take no lock of this file but peak_lock; a native target's reading
 * sleeps in file reads (and on SLAB in slab_mutex, /proc/slabinfo's). r->samples is
 * the sampler's alone until it is stopped. The replay's slablab caches and slablab's
 * kmalloc classes have ->users raised from replay-run until the replay is finished,
 * so cache-del refuses them (-EBUSY) and set-kmalloc leaves the classes alone.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/timex.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <linux/hrtimer.h>
/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h> */
#if __has_include("linux/unaligned.h")
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include "replay.h"
#include "target.h"
#include "compat.h"

#define REPLAY_SAMPLE_EVERY	4096	/* events between a kthread's pages samples */
#define REPLAY_MIN_SAMPLE_NS	100000ULL	/* 100 us */
#define REPLAY_SLACK_NS		(10 * NSEC_PER_USEC)	/* a time-scaled wait's timer slack */
#define REPLAY_MAX_SIZE		(4U << 20)	/* largest kmalloc event */
/* a failed allocation is an outcome the replay counts, not a kernel warning */
#define REPLAY_GFP		(GFP_KERNEL | __GFP_NOWARN)

/* r->obj[] values besides a live object: never a pointer the allocators return */
#define OBJ_FAILED	((void *)1)	/* its allocation failed: the free is skipped */
#define OBJ_FREED	((void *)2)	/* freed */
#define OBJ_CHECKED	((void *)3)	/* replay_check() only: | alloc event << 2 */

struct replay_thread {
	struct slablab_replay *r;
	u32 idx;
	int cpu;
	u32 *ev;		/* indices into r->ev, in trace order */
	u64 nr;
	u64 allocs, frees, remote_frees, failures;
	u64 alloc_cycles, free_cycles;
	u64 end_ns;
	struct task_struct *task;
} ____cacheline_aligned_in_smp;

struct slablab_replay {
	u32 id;
	u32 state;			/* enum slablab_replay_state */
	u32 design;			/* enum slablab_design (slablab target) */
	u32 time_scale;			/* per mille; 0: as fast as possible */
	bool use_cpu_partial;		/* the slablab target's caches get cpu_partial */
	u32 cpu_partial;
	u64 sample_ns;			/* the sampler's period; 0: no sampler */
	u64 nr_events, loaded;
	u32 nr_objects, nr_cpus, nr_caches;
	u64 max_live_bytes, peak_live_bytes;
	struct slablab_replay_cache *caches;	/* [nr_caches] */
	struct slablab_replay_event *ev;	/* [nr_events] */
	u64 *ts;				/* [nr_events], time-scaled mode only */
	void **obj;				/* [nr_objects + 1] */
	u16 *owner;				/* [nr_objects + 1]: allocating kthread */
	/* a cache per recorded cache; native: the kmalloc events' classes it needs */
	struct slablab_alloc_target tg;
	struct slablab_replay_cache_result *res;	/* [nr_caches + 1], once done */
	struct replay_thread *t;
	struct task_struct *sampler;		/* with sample_ns */
	struct slablab_replay_sample *samples;	/* [SLABLAB_REPLAY_MAX_SAMPLES] */
	u32 nr_samples;
	u32 threads;
	bool folded;
	bool go;			/* release: the kthreads start */
	bool stop;
	atomic_t running;
	struct completion done;		/* the last kthread finished its events */
	u64 start_ns, end_ns;
	u64 base_pages;
	spinlock_t peak_lock;		/* peak_pages, page_ns, last_pages, last_ns */
	u64 peak_pages;
	u64 page_ns;			/* sum of pages * ns between samples */
	u64 last_pages, last_ns;	/* the latest sample */
	u64 avg_pages;			/* page_ns / elapsed, once finished */
};

/* replay_mutex: slablab_replay and replay_next_id (see above) */
static DEFINE_MUTEX(replay_mutex);
static struct slablab_replay *slablab_replay;
static u32 replay_next_id = 1;

static void replay_finish_workfn(struct work_struct *work);
static DECLARE_WORK(replay_finish_work, replay_finish_workfn);

/* The bytes an allocation event holds, as replayed: a free's own size is not trusted. */
static u64 replay_event_bytes(const struct slablab_replay *r, const struct slablab_replay_event *e)
{
	return e->cache ? r->caches[e->cache - 1].size : e->size;
}

/* ---- the kthreads ---- */

/* Pages the target holds (slablab_target_pages()). */
static u64 replay_pages(struct slablab_replay *r)
{
	u64 meta;

	return slablab_target_pages(&r->tg, &meta, "replay", r->id);
}

/* One pages sample into the peak and the time-weighted sum; returns it. */
static u64 replay_sample(struct slablab_replay *r)
{
	u64 pages = replay_pages(r), now;

	pages = pages > r->base_pages ? pages - r->base_pages : 0;
	spin_lock(&r->peak_lock);
	now = ktime_get_ns();	/* under the lock: the samples' times never go back */
	if (now > r->last_ns)
		r->page_ns += r->last_pages * (now - r->last_ns);
	r->last_pages = pages;
	r->last_ns = now;
	if (pages > r->peak_pages)
		r->peak_pages = pages;
	spin_unlock(&r->peak_lock);
	return pages;
}

/*
 * Sleeps once, until @due_ns (CLOCK_MONOTONIC) or a wake-up; the caller checks what it
 * waits for after set_current_state(TASK_IDLE) (no hung task, no load) and loops.
 */
static void replay_sleep_until(u64 due_ns)
{
	ktime_t due = ns_to_ktime(due_ns);

	schedule_hrtimeout_range(&due, REPLAY_SLACK_NS, HRTIMER_MODE_ABS);
}

/* Time-scaled mode: waits until event @i's scaled time; false when asked to stop. */
static bool replay_wait_due(struct slablab_replay *r, u64 i)
{
	u64 due = r->start_ns + div_u64(r->ts[i] * r->time_scale, 1000);
	bool stop;

	for (;;) {
		set_current_state(TASK_IDLE);
		stop = READ_ONCE(r->stop);
		if (stop || ktime_get_ns() >= due)
			break;
		replay_sleep_until(due);
	}
	__set_current_state(TASK_RUNNING);
	return !stop;
}

/* Waits for another kthread's allocation of @id; NULL when asked to stop. */
static void *replay_wait_alloc(struct slablab_replay *r, u32 id)
{
	void *p;

	/* acquire: pairs with the allocating kthread's release of obj[id] */
	while (!(p = smp_load_acquire(&r->obj[id]))) {
		if (READ_ONCE(r->stop))
			return NULL;
		cond_resched();	/* the allocation may be due on this very cpu */
		cpu_relax();
	}
	return p;
}

static __always_inline void replay_events(struct replay_thread *t, const u32 target)
{
	struct slablab_replay *r = t->r;
	u64 i;

	for (i = 0; i < t->nr; i++) {
		const struct slablab_replay_event *e = &r->ev[t->ev[i]];
		u64 c0, c1;
		void *p;

		if (READ_ONCE(r->stop))
			break;
		if (r->ts && !replay_wait_due(r, t->ev[i]))
			break;
		if (e->op == SLABLAB_REPLAY_OP_ALLOC) {
			u32 bytes = replay_event_bytes(r, e);

			c0 = get_cycles();
			p = slablab_target_alloc(&r->tg, target, e->cache, bytes, REPLAY_GFP,
						 true);
			c1 = get_cycles();
			t->alloc_cycles += c1 - c0;
			if (p) {
				t->allocs++;
			} else {
				t->failures++;
				p = OBJ_FAILED;
			}
			r->owner[e->object] = t->idx;
			/* release: the owner and the object to a remote free */
			smp_store_release(&r->obj[e->object], p);
		} else {
			p = replay_wait_alloc(r, e->object);
			if (!p)
				break;
			if (p == OBJ_FAILED)
				continue;
			if (r->owner[e->object] != t->idx)
				t->remote_frees++;
			c0 = get_cycles();
			slablab_target_free(&r->tg, target, e->cache, p, true);
			c1 = get_cycles();
			t->free_cycles += c1 - c0;
			t->frees++;
			WRITE_ONCE(r->obj[e->object], OBJ_FREED);
		}
		if (!(i % REPLAY_SAMPLE_EVERY))
			replay_sample(r);
		if (!(i & 255))
			cond_resched();
	}
}

static int replay_thread_fn(void *arg)
{
	struct replay_thread *t = arg;
	struct slablab_replay *r = t->r;

	/* acquire go: pairs with slablab_replay_run()'s release */
	while (!smp_load_acquire(&r->go) && !kthread_should_stop())
		schedule_timeout_interruptible(1);
	/* one copy of the loop per target: the allocator calls are direct */
	switch (r->tg.kind) {
	case SLABLAB_TARGET_SLABLAB:
		replay_events(t, SLABLAB_TARGET_SLABLAB);
		break;
	case SLABLAB_TARGET_NATIVE:
		replay_events(t, SLABLAB_TARGET_NATIVE);
		break;
	case SLABLAB_TARGET_KMALLOC:
		replay_events(t, SLABLAB_TARGET_KMALLOC);
		break;
	default:
		replay_events(t, SLABLAB_TARGET_NATIVE_KMALLOC);
	}
	replay_sample(r);
	t->end_ns = ktime_get_ns();
	if (atomic_dec_and_test(&r->running)) {
		complete(&r->done);
		if (r->sampler)
			wake_up_process(r->sampler);
		/* finished by a work item: replay-get only reads (and needs no privilege) */
		queue_work(slablab_unbound_wq, &replay_finish_work);
	}
	/* stay until kthread_stop(): the task must not be gone when it is called */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Pages over time: a sample every sample_ns while the kthreads run. */
static int replay_sampler_fn(void *arg)
{
	struct slablab_replay *r = arg;
	u64 next;

	/* acquire go: start_ns, as for the event kthreads */
	while (!smp_load_acquire(&r->go) && !kthread_should_stop())
		schedule_timeout_interruptible(1);
	next = r->start_ns;
	for (;;) {
		u64 pages = replay_sample(r);

		if (r->nr_samples < SLABLAB_REPLAY_MAX_SAMPLES) {
			r->samples[r->nr_samples].ns = ktime_get_ns() - r->start_ns;
			r->samples[r->nr_samples].pages = pages;
			r->nr_samples++;
		}
		next += r->sample_ns;
		do {
			set_current_state(TASK_IDLE);
			/* the last kthread wakes this one after its decrement */
			if (!atomic_read(&r->running) || kthread_should_stop())
				goto out;
			replay_sleep_until(next);
		} while (ktime_get_ns() < next);
	}
out:
	/* stay until kthread_stop(), as the event kthreads */
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Asks the kthreads to leave their events, waking those that wait for a due time. */
static void replay_stop_threads(struct slablab_replay *r)
{
	u32 k;

	WRITE_ONCE(r->stop, true);
	for (k = 0; k < r->threads; k++)
		wake_up_process(r->t[k].task);
}

/* ---- set-up and tear-down (replay_mutex held) ---- */

/* The replay's caches (its own, destroyed) and classes. */
static void replay_destroy_caches(struct slablab_replay *r)
{
	slablab_target_release(&r->tg, true);
}

static void replay_free_all(struct slablab_replay *r)
{
	u32 i;

	if (!r)
		return;
	replay_destroy_caches(r);
	kvfree(r->res);
	for (i = 0; r->t && i < r->threads; i++)
		kvfree(r->t[i].ev);
	kfree(r->t);
	kvfree(r->caches);
	kvfree(r->ev);
	kvfree(r->ts);
	kvfree(r->samples);
	kvfree(r->obj);
	kvfree(r->owner);
	kfree(r);
}

/*
 * The native target's kmalloc events go to kmalloc classes of the replay's own, made as
 * the kernel makes its classes (slablab_native_class_create()), as the slablab target's
 * go to slablab's classes, emptied first: the kernel's own classes hold the system's
 * objects, and the free slots of their partial slabs (7.x: of their sheaves too) take
 * the replay's objects without a page, which neither the replay's count nor the
 * system's shows. Only the classes the events use are made; above the largest class an
 * event goes to the kernel's kmalloc() (the page allocator, no class's). Not on SLOB:
 * its kfree() frees no cache's object, and its caches share one heap, classes or not.
 */
static int replay_create_classes(struct slablab_replay *r, struct netlink_ext_ack *extack)
{
	u64 i;

	if (IS_ENABLED(CONFIG_SLOB))
		return 0;
	for (i = 0; i < r->nr_events; i++) {
		const struct slablab_replay_event *e = &r->ev[i];

		if (!(i & 4095))
			cond_resched();
		if (e->op != SLABLAB_REPLAY_OP_ALLOC || e->cache ||
		    e->size - 1 >= SLABLAB_KMALLOC_MAX)
			continue;
		if (!slablab_target_create_class(&r->tg, e->size)) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cannot create the class of size %u",
					       e->size);
			return -ENOMEM;
		}
	}
	return 0;
}

static int replay_create_caches(struct slablab_replay *r, struct netlink_ext_ack *extack)
{
	char name[SLABLAB_NAME_MAX + 16];
	struct slablab_cache *s;
	u32 i;

	if (r->tg.kind == SLABLAB_TARGET_NATIVE_KMALLOC)
		return 0;
	if (r->tg.kind == SLABLAB_TARGET_NATIVE) {
		for (i = 0; i < r->nr_caches; i++) {
			slablab_target_cache_name(&r->tg, i, name, sizeof(name));
			r->tg.native[i] = slablab_target_native_create(name, r->caches[i].size,
								       r->caches[i].align, 0);
			if (!r->tg.native[i]) {
				NL_SET_ERR_MSG_FMT_MOD(extack, "cannot create kmem_cache %s", name);
				return -ENOMEM;
			}
		}
		return replay_create_classes(r, extack);
	}
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	for (i = 0; r->tg.kind == SLABLAB_TARGET_SLABLAB && i < r->nr_caches; i++) {
		struct slablab_cache_args args = {
			.align = r->caches[i].align,
			.flags = SLABLAB_KERNEL_DEFAULTS,
			.design = r->design,
			.tunables_set = r->use_cpu_partial ? BIT(SLABLAB_TUNABLE_CPU_PARTIAL) : 0,
			.tunables = { [SLABLAB_TUNABLE_CPU_PARTIAL] = r->cpu_partial },
		};

		snprintf(name, SLABLAB_NAME_MAX, "replay%u.%u", r->id, i);
		s = slablab_cache_create_owner(name, max_t(u32, r->caches[i].size,
							   SLABLAB_MIN_SIZE),
					       &args, SLABLAB_OWNER_NETLINK, extack);
		if (IS_ERR(s)) {
			mutex_unlock(&slablab_mutex);
			cpus_read_unlock();
			return PTR_ERR(s);
		}
		/* pinned as made: cache-del refuses it until the replay destroys it */
		slablab_target_add_lab(&r->tg, i, s);
	}
	/* and set-kmalloc refuses to change the classes under it */
	slablab_target_collect_kmalloc(&r->tg);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return 0;
}

/*
 * The finished replay: per-cache figures, the objects still live freed (their pages
 * counted first), the caches destroyed. The kthreads are done (r->done).
 */
static void replay_finish(struct slablab_replay *r, bool stopped)
{
	struct slablab_replay_cache_result *res = r->res;
	struct slablab_gauges g;
	u64 i;

	for (i = 0; i < r->threads; i++) {
		kthread_stop(r->t[i].task);
		r->end_ns = max(r->end_ns, r->t[i].end_ns);
	}
	if (r->sampler)
		kthread_stop(r->sampler);
	/* the last sample holds until the end */
	spin_lock(&r->peak_lock);
	if (r->end_ns > r->last_ns)
		r->page_ns += r->last_pages * (r->end_ns - r->last_ns);
	spin_unlock(&r->peak_lock);
	r->avg_pages = r->end_ns > r->start_ns ?
		       div64_u64(r->page_ns, r->end_ns - r->start_ns) : r->last_pages;
	for (i = 0; i < r->nr_caches && r->tg.kind == SLABLAB_TARGET_SLABLAB; i++) {
		slablab_gauges(r->tg.lab[i], &g);
		res[i + 1].pages = g.pages;
	}
	for (i = 0; i < r->nr_events; i++) {
		const struct slablab_replay_event *e = &r->ev[i];
		void *p;

		if (e->op != SLABLAB_REPLAY_OP_ALLOC)
			continue;
		p = r->obj[e->object];
		if (!p || p == OBJ_FAILED)
			continue;
		res[e->cache].allocs++;
		if (p == OBJ_FREED) {
			res[e->cache].frees++;
			continue;
		}
		res[e->cache].live_at_end++;
		slablab_target_free(&r->tg, r->tg.kind, e->cache, p, true);
		r->obj[e->object] = OBJ_FREED;
		if (!(i & 4095))
			cond_resched();
	}
	replay_destroy_caches(r);
	/* release: the results before the state (slablab_replay_get() reads it locked) */
	smp_store_release(&r->state, stopped ? SLABLAB_REPLAY_STOPPED : SLABLAB_REPLAY_DONE);
}

/**
 * slablab_replay_new - set up a replay (replay-new)
 * @setup: target, nr_events, nr_objects, nr_cpus, max_live_bytes, design,
 *	time_scale, sample_ns, use_cpu_partial and cpu_partial
 * @caches: the recorded caches, [@nr_caches]
 * @nr_caches: entries of @caches
 * @extack: where to say what was wrong
 *
 * Replaces a loaded or finished replay. Return: 0, -EBUSY while one runs, -ENOMEM,
 * -EINVAL/-ERANGE for a bad set-up, -E2BIG over the caps (events, caches, and the
 * replay's own arrays at most RAM / 8).
 */
int slablab_replay_new(const struct slablab_replay_setup *setup,
		       const struct slablab_replay_cache *caches, u32 nr_caches,
		       struct netlink_ext_ack *extack)
{
	char name[SLABLAB_NAME_MAX + 16];
	struct slablab_replay *r;
	u64 meta, ram;
	u32 i;
	int err;

	if (setup->nr_events > SLABLAB_REPLAY_MAX_EVENTS) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "at most %u events in a replay",
				       SLABLAB_REPLAY_MAX_EVENTS);
		return -E2BIG;
	}
	if (nr_caches > SLABLAB_REPLAY_MAX_CACHES) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "at most %u caches in a replay",
				       SLABLAB_REPLAY_MAX_CACHES);
		return -E2BIG;
	}
	if (setup->nr_objects > setup->nr_events) {
		NL_SET_ERR_MSG_MOD(extack, "more objects than events");
		return -EINVAL;
	}
	/* the events, each kthread's index of them, an object's pointer and owner */
	meta = setup->nr_events * (sizeof(struct slablab_replay_event) + sizeof(u32) +
				   (setup->time_scale ? sizeof(u64) : 0)) +
	       ((u64)setup->nr_objects + 1) * (sizeof(void *) + sizeof(u16));
	if (setup->sample_ns && setup->sample_ns < REPLAY_MIN_SAMPLE_NS) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "sample-ns %llu is under %llu",
				       setup->sample_ns, REPLAY_MIN_SAMPLE_NS);
		return -ERANGE;
	}
	ram = (u64)totalram_pages() << PAGE_SHIFT;
	if (meta > ram / 8) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "the trace needs %llu MiB, over RAM / 8 (%llu MiB)",
				       meta >> 20, ram / 8 >> 20);
		return -E2BIG;
	}
	for (i = 0; i < nr_caches; i++) {
		u32 size = caches[i].size, align = caches[i].align;

		if (!size || size > SLABLAB_MAX_SIZE) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cache %u: size %u out of range 1..%u",
					       i, size, SLABLAB_MAX_SIZE);
			return -ERANGE;
		}
		if (align && (!is_power_of_2(align) || align > SLABLAB_MAX_ALIGN)) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "cache %u: align %u is not a power of two up to %u",
					       i, align, SLABLAB_MAX_ALIGN);
			return -ERANGE;
		}
	}

	mutex_lock(&replay_mutex);
	if (slablab_replay && slablab_replay->state == SLABLAB_REPLAY_RUNNING) {
		if (!completion_done(&slablab_replay->done)) {
			NL_SET_ERR_MSG_MOD(extack, "a replay is running");
			err = -EBUSY;
			goto out_unlock;
		}
		/* done, not yet collected by replay-get: its kthreads and objects go */
		replay_finish(slablab_replay, false);
	}
	err = -ENOMEM;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		goto out_unlock;
	r->id = replay_next_id++;
	r->state = SLABLAB_REPLAY_LOADING;
	snprintf(name, sizeof(name), "slablab-replay-%u", r->id);
	slablab_target_init(&r->tg, setup->target, name);
	r->nr_events = setup->nr_events;
	r->nr_objects = setup->nr_objects;
	r->nr_cpus = setup->nr_cpus;
	r->nr_caches = nr_caches;
	r->max_live_bytes = setup->max_live_bytes;
	r->design = setup->design;
	r->time_scale = setup->time_scale;
	r->sample_ns = setup->sample_ns;
	r->use_cpu_partial = setup->use_cpu_partial;
	r->cpu_partial = setup->cpu_partial;
	spin_lock_init(&r->peak_lock);
	init_completion(&r->done);
	r->caches = kvmalloc_array(nr_caches + 1, sizeof(*caches), GFP_KERNEL);
	if (r->caches && nr_caches)
		memcpy(r->caches, caches, array_size(nr_caches, sizeof(*caches)));
	r->ev = kvmalloc_array(r->nr_events, sizeof(*r->ev), GFP_KERNEL | __GFP_NOWARN);
	r->obj = kvcalloc(r->nr_objects + 1, sizeof(*r->obj), GFP_KERNEL | __GFP_NOWARN);
	r->owner = kvcalloc(r->nr_objects + 1, sizeof(*r->owner), GFP_KERNEL | __GFP_NOWARN);
	r->res = kvcalloc(nr_caches + 1, sizeof(*r->res), GFP_KERNEL);
	if (r->time_scale)
		r->ts = kvmalloc_array(r->nr_events, sizeof(*r->ts), GFP_KERNEL | __GFP_NOWARN);
	if (r->sample_ns)
		r->samples = kvcalloc(SLABLAB_REPLAY_MAX_SAMPLES, sizeof(*r->samples),
				      GFP_KERNEL);
	if (!r->caches || !r->ev || !r->obj || !r->owner || !r->res ||
	    slablab_target_alloc_caches(&r->tg, nr_caches) || (r->time_scale && !r->ts) ||
	    (r->sample_ns && !r->samples)) {
		replay_free_all(r);
		goto out_unlock;
	}
	replay_free_all(slablab_replay);
	slablab_replay = r;
	err = 0;
out_unlock:
	mutex_unlock(&replay_mutex);
	return err;
}

/*
 * Event @i as replay-data gives it: an op, a recorded cpu, a declared cache and an
 * object id within what replay-new set up, reserved bytes zero, and a kmalloc event's
 * size within 1..REPLAY_MAX_SIZE. A size of 0 is no allocation: the kernel's kmalloc()
 * answers ZERO_SIZE_PTR, which the native targets would count live and then free as an
 * object (storms refuse it too, storm_size_range). A free's size and a cache event's
 * are not read (replay_event_bytes()), but are held to the same bound.
 */
static int replay_event_check(const struct slablab_replay *r,
			      const struct slablab_replay_event *e, u64 i,
			      struct netlink_ext_ack *extack)
{
	if (e->op != SLABLAB_REPLAY_OP_ALLOC && e->op != SLABLAB_REPLAY_OP_FREE)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: op %u, not alloc (%u) or free (%u)",
				       i, e->op, SLABLAB_REPLAY_OP_ALLOC, SLABLAB_REPLAY_OP_FREE);
	else if (e->cpu >= r->nr_cpus)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: cpu %u, not below nr-cpus %u",
				       i, e->cpu, r->nr_cpus);
	else if (e->cache > r->nr_caches)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: cache %u, but %u caches given",
				       i, e->cache, r->nr_caches);
	else if (!e->object || e->object > r->nr_objects)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: object %u, not in 1..%u (nr-objects)",
				       i, e->object, r->nr_objects);
	else if (e->reserved[0] || e->reserved[1] || e->reserved[2])
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: reserved bytes not zero", i);
	else if (e->size > REPLAY_MAX_SIZE)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: size %u over %u", i, e->size,
				       REPLAY_MAX_SIZE);
	else if (e->op == SLABLAB_REPLAY_OP_ALLOC && !e->cache && !e->size)
		NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu: kmalloc of 0 bytes (sizes are 1..%u)",
				       i, REPLAY_MAX_SIZE);
	else
		return 0;
	return -EINVAL;
}

/**
 * slablab_replay_data - events of the loading replay (replay-data)
 * @offset: index of the first, the number given so far (events come in order)
 * @ev: the events
 * @times: their recorded times, [@nr] (time-scaled mode), else NULL
 * @nr: how many
 * @extack: where to say what was wrong
 *
 * Return: 0, -ENOENT (no replay loading), -EINVAL (a bad event, replay_event_check();
 * a bad offset; times missing, unasked for or going back), -ERANGE (a time whose
 * scaled value would not fit in u64).
 */
int slablab_replay_data(u64 offset, const struct slablab_replay_event *ev,
			const u64 *times, u32 nr, struct netlink_ext_ack *extack)
{
	struct slablab_replay *r;
	int err = -EINVAL;
	u64 max_ts;
	u32 i;

	mutex_lock(&replay_mutex);
	r = slablab_replay;
	if (!r || r->state != SLABLAB_REPLAY_LOADING) {
		NL_SET_ERR_MSG_MOD(extack, "no replay is loading (replay-new first)");
		err = -ENOENT;
		goto out;
	}
	if (offset != r->loaded || nr > r->nr_events - r->loaded) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "events %llu..%llu: expected from %llu, %llu in all",
				       offset, offset + nr, r->loaded, r->nr_events);
		goto out;
	}
	if (!times != !r->ts) {
		if (r->ts)
			NL_SET_ERR_MSG_MOD(extack, "a time-scaled replay needs times");
		else
			NL_SET_ERR_MSG_MOD(extack, "times without time-scale");
		goto out;
	}
	/*
	 * replay_wait_due() scales a time by time_scale (up to 1000000) in u64: a time
	 * past U64_MAX / time_scale ns (5.1 hours at the largest scale) would wrap, and
	 * its event would be due at once, so it is refused here, where times arrive.
	 */
	max_ts = times ? div_u64(U64_MAX, r->time_scale) : 0;
	for (i = 0; times && i < nr; i++) {
		u64 prev = i ? get_unaligned(&times[i - 1]) : offset ? r->ts[offset - 1] : 0;
		u64 ts = get_unaligned(&times[i]);

		if (ts < prev) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "event %llu's time goes back",
					       offset + i);
			goto out;
		}
		if (ts > max_ts) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "event %llu: time over %llu s overflows time-scale %u",
					       offset + i, div_u64(max_ts, NSEC_PER_SEC),
					       r->time_scale);
			err = -ERANGE;
			goto out;
		}
	}
	for (i = 0; i < nr; i++) {
		if (replay_event_check(r, &ev[i], offset + i, extack))
			goto out;
	}
	memcpy(&r->ev[offset], ev, array_size(nr, sizeof(*ev)));
	if (times)
		memcpy(&r->ts[offset], times, array_size(nr, sizeof(*times)));
	r->loaded += nr;
	err = 0;
out:
	mutex_unlock(&replay_mutex);
	return err;
}

/*
 * Each object allocated once, freed at most once after and to the cache it came from
 * (a kmem_cache_free() or slablab_cache_free() to another cache corrupts it); the peak
 * live bytes. A live object's obj[] slot holds its allocation's event index until then
 * (below SLABLAB_REPLAY_MAX_EVENTS: fits beside the tag even in 32 bits).
 */
static int replay_check(struct slablab_replay *r, struct netlink_ext_ack *extack)
{
	u64 i, live = 0, peak = 0;
	int err = 0;

	for (i = 0; i < r->nr_events; i++) {
		const struct slablab_replay_event *e = &r->ev[i], *a;
		void **o = &r->obj[e->object];
		uintptr_t slot = (uintptr_t)*o;

		if (e->op == SLABLAB_REPLAY_OP_ALLOC) {
			if (slot) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "event %llu allocates object %u a second time",
						       i, e->object);
				err = -EINVAL;
				break;
			}
			*o = (void *)((uintptr_t)i << 2 | (uintptr_t)OBJ_CHECKED);
			live += replay_event_bytes(r, e);
			peak = max(peak, live);
		} else {
			if ((slot & 3) != (uintptr_t)OBJ_CHECKED) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "event %llu frees object %u, not live",
						       i, e->object);
				err = -EINVAL;
				break;
			}
			a = &r->ev[slot >> 2];
			if (a->cache != e->cache) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "event %llu: object %u allocated from cache %u, freed to %u",
						       i, e->object, a->cache, e->cache);
				err = -EINVAL;
				break;
			}
			live -= replay_event_bytes(r, a);
			*o = OBJ_FREED;
		}
		if (!(i & 4095))
			cond_resched();
	}
	memset(r->obj, 0, array_size(r->nr_objects + 1, sizeof(*r->obj)));
	if (err)
		return err;
	r->peak_live_bytes = peak;
	if (peak > r->max_live_bytes) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "trace peaks at %llu MiB, over the %llu MiB cap (max-live-bytes)",
				       peak >> 20, r->max_live_bytes >> 20);
		return -E2BIG;
	}
	return 0;
}

/* One kthread per recorded cpu, or per online cpu when there are fewer (folded). */
static int replay_make_threads(struct slablab_replay *r, struct netlink_ext_ack *extack)
{
	u64 i, *count;
	int cpu, err = 0;
	u32 k;

	r->threads = min_t(u32, r->nr_cpus, num_online_cpus());
	r->folded = r->threads < r->nr_cpus;
	r->t = kcalloc(r->threads, sizeof(*r->t), GFP_KERNEL);
	count = kcalloc(r->threads, sizeof(*count), GFP_KERNEL);
	if (!r->t || !count) {
		kfree(count);
		return -ENOMEM;
	}
	for (i = 0; i < r->nr_events; i++) {
		count[r->ev[i].cpu % r->threads]++;
		if (!(i & 65535))
			cond_resched();
	}
	for (k = 0; k < r->threads; k++) {
		r->t[k].r = r;
		r->t[k].idx = k;
		r->t[k].ev = kvmalloc_array(max_t(u64, count[k], 1), sizeof(u32), GFP_KERNEL);
		if (!r->t[k].ev)
			err = -ENOMEM;
	}
	kfree(count);
	if (err)
		return err;
	for (i = 0; i < r->nr_events; i++) {
		struct replay_thread *t = &r->t[r->ev[i].cpu % r->threads];

		t->ev[t->nr++] = i;
		if (!(i & 65535))
			cond_resched();
	}
	/*
	 * Bound to the first online cpus, kept online until each kthread is bound. A cpu
	 * that went down since r->threads was counted leaves fewer: two kthreads share a
	 * cpu then (a remote free's wait yields to the allocation, cond_resched()).
	 */
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	for (k = 0; k < r->threads; k++) {
		struct task_struct *task;

		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		r->t[k].cpu = cpu;
		task = slablab_target_kthread(replay_thread_fn, &r->t[k], cpu, "replay", r->id, k);
		if (IS_ERR(task)) {
			NL_SET_ERR_MSG_MOD(extack, "cannot create the replay's kthreads");
			err = PTR_ERR(task);
			break;
		}
		r->t[k].task = task;
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	cpus_read_unlock();
	if (!err && r->sample_ns) {
		r->sampler = kthread_create(replay_sampler_fn, r, "slablab-replay-sampler");
		if (IS_ERR(r->sampler)) {
			NL_SET_ERR_MSG_MOD(extack, "cannot create the replay's sampler");
			err = PTR_ERR(r->sampler);
			r->sampler = NULL;
		}
	}
	if (err) {
		while (k--)
			kthread_stop(r->t[k].task);
	}
	return err;
}

static void replay_fill_report(struct slablab_replay *r, struct slablab_replay_report *rep)
{
	u32 i;

	memset(rep, 0, sizeof(*rep));
	if (!r)
		return;
	rep->state = r->state;
	rep->target = r->tg.kind;
	rep->threads = r->threads;
	rep->folded = r->folded;
	rep->peak_live_bytes = r->peak_live_bytes;
	rep->design = r->design;
	rep->time_scale = r->time_scale;
	rep->use_cpu_partial = r->use_cpu_partial;
	rep->cpu_partial = r->cpu_partial;
	if (r->state != SLABLAB_REPLAY_DONE && r->state != SLABLAB_REPLAY_STOPPED)
		return;
	for (i = 0; i < r->threads; i++) {
		struct replay_thread *t = &r->t[i];

		rep->allocs += t->allocs;
		rep->frees += t->frees;
		rep->remote_frees += t->remote_frees;
		rep->failures += t->failures;
		rep->alloc_cycles += t->alloc_cycles;
		rep->free_cycles += t->free_cycles;
	}
	for (i = 0; i <= r->nr_caches; i++)
		rep->live_at_end += r->res[i].live_at_end;
	rep->elapsed_ns = r->end_ns - r->start_ns;
	rep->peak_pages = r->peak_pages;
	rep->avg_pages = r->avg_pages;
	rep->nr_res = r->nr_caches + 1;
	rep->res = r->res;
	rep->nr_samples = r->nr_samples;
	rep->samples = r->samples;
}

/**
 * slablab_replay_run - start the loaded replay (replay-run)
 * @rep: what it runs as (state, threads, folded, peak_live_bytes)
 * @extack: where to say what was wrong
 *
 * Return: 0, -ENOENT (nothing loaded), -EINVAL (events missing or out of order),
 * -E2BIG (over max-live-bytes), -ENOMEM.
 */
int slablab_replay_run(struct slablab_replay_report *rep, struct netlink_ext_ack *extack)
{
	struct slablab_replay *r;
	u32 k;
	int err;

	mutex_lock(&replay_mutex);
	r = slablab_replay;
	err = -ENOENT;
	if (!r || r->state != SLABLAB_REPLAY_LOADING) {
		NL_SET_ERR_MSG_MOD(extack, "no replay is loaded");
		goto out;
	}
	err = -EINVAL;
	if (r->loaded != r->nr_events) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "%llu of %llu events given",
				       r->loaded, r->nr_events);
		goto out;
	}
	err = replay_check(r, extack);
	if (!err)
		err = replay_create_caches(r, extack);
	if (!err)
		err = slablab_target_figures_check(&r->tg, extack);
	if (!err)
		err = replay_make_threads(r, extack);
	if (err) {
		/* nothing ran: the caches go, the replay cannot be run again */
		replay_free_all(r);
		slablab_replay = NULL;
		goto out;
	}
	/*
	 * slablab's kmalloc classes start empty, as the native target's classes are made
	 * (replay_create_classes()): empty slabs that an earlier replay or storm left would
	 * take this one's objects without a page (slablab_cache_shrink() keeps min_partial
	 * of them). Other users' objects stay, and their slabs' pages are in the base.
	 */
	slablab_target_empty(&r->tg);
	/*
	 * Where the native figure is shared with the system (the kernel's kmalloc classes,
	 * SLOB's slab pages) it is what lies above the base: let what an earlier replay or
	 * storm left to RCU be freed first (the debugfs and sysfs dentries and inodes of the
	 * caches it destroyed, a few hundred per cache), or their slabs go back to the page
	 * allocator in the middle of this replay: 8-12 pages of a 194-page replay of the
	 * kernel's SLUB that followed one of the slub design's, when its figure was the
	 * system's slab pages. The replay's own caches and classes start at 0.
	 */
	if (slablab_target_shared_figure(&r->tg))
		rcu_barrier();
	r->base_pages = replay_pages(r);
	atomic_set(&r->running, r->threads);
	r->state = SLABLAB_REPLAY_RUNNING;
	for (k = 0; k < r->threads; k++)
		wake_up_process(r->t[k].task);
	if (r->sampler)
		wake_up_process(r->sampler);
	r->start_ns = ktime_get_ns();
	r->last_ns = r->start_ns;
	/* release go: the set-up above to the kthreads */
	smp_store_release(&r->go, true);
	replay_fill_report(r, rep);
out:
	mutex_unlock(&replay_mutex);
	return err;
}

/* Finishes the replay whose last kthread queued this, unless someone did already. */
static void replay_finish_workfn(struct work_struct *work)
{
	struct slablab_replay *r;

	mutex_lock(&replay_mutex);
	r = slablab_replay;
	if (r && r->state == SLABLAB_REPLAY_RUNNING && completion_done(&r->done))
		replay_finish(r, READ_ONCE(r->stop));
	mutex_unlock(&replay_mutex);
}

/**
 * slablab_replay_get - the replay's state and, once done, its results (replay-get)
 * @rep: filled in; @rep->res and @rep->samples point into the replay (valid while
 *	slablab_replay_lock() is held: netlink-replay.c puts them into the reply under it)
 *
 * Changes nothing: a replay whose kthreads are done is running until
 * replay_finish_work has finished it.
 */
void slablab_replay_get(struct slablab_replay_report *rep)
{
	lockdep_assert_held(&replay_mutex);
	replay_fill_report(slablab_replay, rep);
}

/**
 * slablab_replay_stop - stop a running replay (replay-stop)
 * @rep: filled in as by slablab_replay_get()
 *
 * Its kthreads leave their events and are waited for; what is still live is freed,
 * the caches destroyed (state stopped). A replay whose kthreads were done already is
 * finished as done; a loading or finished one is left alone.
 */
void slablab_replay_stop(struct slablab_replay_report *rep)
{
	struct slablab_replay *r = slablab_replay;

	lockdep_assert_held(&replay_mutex);
	if (r && r->state == SLABLAB_REPLAY_RUNNING) {
		bool stopped = !completion_done(&r->done);

		if (stopped) {
			replay_stop_threads(r);
			wait_for_completion(&r->done);
		}
		replay_finish(r, stopped);
	}
	replay_fill_report(r, rep);
}

/**
 * slablab_replay_lock - hold the replay across slablab_replay_get() and the reply
 */
void slablab_replay_lock(void)
{
	mutex_lock(&replay_mutex);
}

/**
 * slablab_replay_unlock - release slablab_replay_lock()
 */
void slablab_replay_unlock(void)
{
	mutex_unlock(&replay_mutex);
}

/**
 * slablab_replay_exit - unload: stop a running replay, free everything
 */
void slablab_replay_exit(void)
{
	struct slablab_replay *r;

	mutex_lock(&replay_mutex);
	r = slablab_replay;
	if (r && r->state == SLABLAB_REPLAY_RUNNING) {
		replay_stop_threads(r);
		wait_for_completion(&r->done);
		replay_finish(r, true);
	}
	replay_free_all(r);
	slablab_replay = NULL;
	mutex_unlock(&replay_mutex);
	/* queued by the last kthread: it finds no replay now, and must not outlive us */
	cancel_work_sync(&replay_finish_work);
}
