// SPDX-License-Identifier: GPL-2.0
/*
 * slablab's shared back end: what every design (design_*.c) stands on. Slabs from the
 * page allocator, their metadata, the node partial lists and min_partial, the order
 * policy and the object layout, debug checks, freeing to a slab, validate, the shrink
 * of the node lists, the statistics, and running a function on every cpu. It is the
 * bottom layer: it calls no other file of the module (docs/design.md, "Layers").
 *
 * Layout
 *   A slab is a 2^order block of pages from the page allocator (__GFP_COMP). Free
 *   objects carry the free pointer at s->fp_offset (mid-object like SLUB, or after the
 *   object when a constructor or debugging needs the object bytes). Slab metadata
 *   (struct slablab_slab, 64 bytes) is found from any object through the head page's
 *   ->private; it sits in the slab's leftover space after the last object when 64
 *   bytes are left there, else in a kernel kmem_cache (reported as meta_bytes) —
 *   never in front of the objects, so page-sized objects still pack 8 to an order-3
 *   slab. Nothing of the kernel's struct slab is reused.
 *
 * Slab states
 *   Every slab is in exactly one of these states:
 *   - frozen:       owned by a design's per-cpu layer (slub: a cpu slab, c->slab of one
 *                   cpu, or on one cpu's c->partial list; design_slub.c); its free
 *                   objects may be split between that layer and slab->fc.freelist
 *                   (where remote frees land); or, briefly and owned by no cpu, taken
 *                   off the partial list by a sheaves refill until its freelist is
 *                   taken (design_sheaves.c refill_from_node());
 *   - node partial: unfrozen, has free objects, on s->node[nid]->partial;
 *   - full:         unfrozen, no free objects, on no list;
 *   - dying:        unfrozen, empty, on no list, SLABLAB_SLAB_DYING set: the path that
 *                   emptied it decided under list_lock to free it and will call
 *                   slablab_discard_slab() once that lock is dropped.
 *   A new slab (slablab_new_slab()) is published on s->all_slabs already frozen, its
 *   freelist held by the caller; validate walks s->all_slabs under slabs_lock and the
 *   slab's list_lock, and so sees every slab in one of these states, never between
 *   two. Frozen slabs are touched only by their owner, except that anyone may push
 *   freed objects onto slab->fc.freelist with the slab's double-word cmpxchg. A free
 *   that turns a full slab partial either freezes it for the freeing design (which
 *   then owns it) or puts it on the node list; a free that empties an unfrozen slab
 *   takes the node's list_lock *before* its cmpxchg, so list membership and counters
 *   change together.
 *
 * Locks and their order (outermost first)
 *   storm_mutex (storm.c)              the storm; held while waiting for a storm's
 *                                      controller, which takes cpus_read_lock (its
 *                                      kmem_cache_destroy()): so nobody waits for a
 *                                      controller under the two locks below
 *   cpu_hotplug_lock (cpus_read_lock)  keeps the set of online cpus still while caches
 *                                      are created, destroyed, flushed or re-tuned
 *   slablab_mutex                      the cache list, names, debugfs, handles,
 *                                      tunable changes, designs, the flush work items
 *   the sheaves lock (local_lock)      a cpu's sheaves (design_sheaves.c): on 6.16+
 *                                      c->sheaves_lock (local_trylock_t, preemption
 *                                      off), never nested with s->cpu->lock either
 *                                      way (nor held across a call into slub's
 *                                      layer under the sheaves) but in the pcs_held
 *                                      selftest, which nests them as an interrupt
 *                                      would; before, it is s->cpu->lock itself
 *   s->cpu->lock (local_lock)          a cpu's slow path against its fast path (the
 *                                      design's; see design_slub.c)
 *   barn->lock (spinlock, irqsave)     a node's barn of sheaves; under the sheaves
 *                                      lock or alone, never around a slab lock
 *   s->slabs_lock (spinlock, irqsave)  s->all_slabs and the slab/page gauges; taken
 *                                      alone, except by validate, which holds it around
 *                                      each node's list_lock so no slab can vanish
 *   n->list_lock (spinlock, irqsave)   a node's partial list and nr_partial, the
 *                                      ON_PARTIAL and DYING bits of its slabs
 *   slab->fc (double-word cmpxchg)     freelist + inuse/objects/frozen of one slab
 *
 * Statistics are per-cpu, monotonic counters (this_cpu_inc); "reset" records a new
 * baseline, so objects in use = allocations - frees over all time stays exact.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/workqueue.h>
#include <linux/random.h>
#include <linux/nodemask.h>
#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/cache.h>
#include <linux/fault-inject.h>
#include <linux/timekeeping.h>
#include <linux/rcupdate.h>
#include "backend.h"
#include "compat.h"

/* include/slablab.h's flags are the uapi's, and SLABLAB_KERNEL_DEFAULTS is none of them. */
static_assert(SLABLAB_DEBUG == SLABLAB_CACHE_F_DEBUG);
static_assert(SLABLAB_HARDENED == SLABLAB_CACHE_F_HARDENED);
static_assert(SLABLAB_RANDOM == SLABLAB_CACHE_F_RANDOM);
static_assert(SLABLAB_HWCACHE_ALIGN == SLABLAB_CACHE_F_HWCACHE_ALIGN);
static_assert(SLABLAB_TYPESAFE_BY_RCU == SLABLAB_CACHE_F_TYPESAFE_BY_RCU);
static_assert((SLABLAB_DEBUG | SLABLAB_HARDENED | SLABLAB_RANDOM | SLABLAB_HWCACHE_ALIGN |
	       SLABLAB_TYPESAFE_BY_RCU) == __SLABLAB_CACHE_F_ALL);
static_assert(!(SLABLAB_KERNEL_DEFAULTS & __SLABLAB_CACHE_F_ALL));

/*
 * The module parameters and globals every layer reads live here, at the bottom, so
 * that no file has to call upwards (docs/design.md, "Layers").
 */
bool slablab_selftests;
module_param_named(selftests, slablab_selftests, bool, 0444);
MODULE_PARM_DESC(selftests,
		 "enable the test harness hooks in debugfs: selftest_warn, selftest_kernel_cache, selftest_native_sysfs, selftest_fail_random_seq, selftest_fail_sheaf_alloc, selftest_fail_atomic_slabs, caches/*/selftest (never on a real system)");

/*
 * Test hook (selftests=1 only: debugfs selftest_fail_random_seq): the next N
 * allocations of a freelist sequence fail, so that tests reach the paths a failed
 * kvmalloc takes (a flags change that cannot make its sequence).
 */
atomic_t slablab_fail_random_seq = ATOMIC_INIT(0);

/*
 * Test hooks (selftests=1 only: debugfs selftest_fail_random_seq_nth and
 * selftest_fail_sheaf_alloc_nth): N > 0 fails the Nth freelist sequence (sheaf)
 * allocation from now, once, and those before it succeed (slablab_fail_nth()), so that
 * a kmalloc design switch fails at the class a test names: the next-N hooks fail
 * kmalloc-8's.
 */
atomic_t slablab_fail_random_seq_nth = ATOMIC_INIT(0);
atomic_t slablab_fail_sheaf_alloc_nth = ATOMIC_INIT(0);

/*
 * Test hook (selftests=1 only: debugfs selftest_fail_sheaf_alloc): the next N sheaf
 * allocations of the sheaves design fail, so that tests reach what a free does when no
 * empty sheaf can be had (design_sheaves.c).
 */
atomic_t slablab_fail_sheaf_alloc = ATOMIC_INIT(0);

/*
 * Test hook (selftests=1 only: debugfs selftest_fail_atomic_slabs): the next N new slabs
 * (or slob pages) asked for without __GFP_DIRECT_RECLAIM fail, those that may reclaim
 * do not (fail_page_alloc's ignore-gfp-wait, on any kernel), so that tests reach what
 * the slab design does when its refill's grow, which may not reclaim, fails.
 */
atomic_t slablab_fail_atomic_slabs = ATOMIC_INIT(0);

#ifndef NL_SET_ERR_MSG_FMT
/* 6.1: formatted extack messages, each in the next buffer (internal.h) */
static struct slablab_extack_buf {
	unsigned long written;	/* jiffies | 1 when last taken; 0: never */
	char msg[NETLINK_MAX_FMTMSG_LEN];
} slablab_extack_bufs[SLABLAB_EXTACK_BUFS];
static atomic_t slablab_extack_next = ATOMIC_INIT(0);

/* The next buffer, or NULL when it was taken less than SLABLAB_EXTACK_REUSE ago. */
char *slablab_extack_slot(void)
{
	unsigned int i = (unsigned int)atomic_inc_return(&slablab_extack_next);
	struct slablab_extack_buf *b = &slablab_extack_bufs[i % SLABLAB_EXTACK_BUFS];
	unsigned long now = jiffies, written = READ_ONCE(b->written);

	if (written && time_before(now, written + SLABLAB_EXTACK_REUSE))
		return NULL;
	/* two takers of one buffer (the counter wrapped meanwhile): one gets it */
	if (cmpxchg(&b->written, written, now | 1) != written)
		return NULL;
	return b->msg;
}
#endif

/*
 * Selftests only (debugfs selftest_walk_irqoff_ns and _slabs): the longest time, in
 * ns, that a walk of s->all_slabs (slablab_backend_walk_slabs(): CACHE_GET's layers
 * and occupancy, debugfs objects_partial) held slabs_lock with interrupts off, and the
 * most slabs one such hold visited. Those walks run for any reader, so the VM suite
 * checks that they never hold interrupts off for long: the slab count exactly (time
 * under TCG depends on the host), the time as a figure. Written under slablab_mutex
 * (the walker asserts it); debugfs may reset them to 0 at any time.
 */
u64 slablab_walk_irqoff_max_ns;
u64 slablab_walk_irqoff_max_slabs;

static u64 walk_irqoff_start(void)
{
	return slablab_selftests ? ktime_get_ns() : 0;
}

static void walk_irqoff_end(u64 t0, unsigned long slabs)
{
	u64 d;

	if (!slablab_selftests)
		return;
	d = ktime_get_ns() - t0;
	if (d > READ_ONCE(slablab_walk_irqoff_max_ns))
		WRITE_ONCE(slablab_walk_irqoff_max_ns, d);
	if (slabs > READ_ONCE(slablab_walk_irqoff_max_slabs))
		WRITE_ONCE(slablab_walk_irqoff_max_slabs, slabs);
}

/* slablab_mutex: the cache list, tunable changes, flush work items, handles, debugfs */
DEFINE_MUTEX(slablab_mutex);
LIST_HEAD(slablab_caches);
/* Bumped on every change of slablab_caches (slablab_mutex): the cache dump's cb->seq. */
unsigned int slablab_caches_gen;
unsigned int slablab_page_policy = SLABLAB_PAGE_POLICY_SLAB;

static struct kmem_cache *slablab_meta_cache;
static struct workqueue_struct *slablab_flush_wq;

#define RZ_ACTIVE	0xcc	/* red zone of an allocated object (debug) */
#define RZ_INACTIVE	0xbb	/* red zone of a free object (debug) */
#define RZ_RCU		0xdd	/* state byte of an object an RCU free is pending for (debug) */
#define POISON_BYTE	0x6b	/* free object contents (debug) */
#define POISON_LAST	0xa5	/* last byte of a free object (debug) */

bool slablab_have_cmpxchg_double(void)
{
#ifdef system_has_cmpxchg128
	return system_has_cmpxchg128();
#else
	return system_has_cmpxchg_double();
#endif
}

/* An atomic snapshot of both words (a cmpxchg that writes back what it read). */
static union slablab_pair read_pair_atomic(union slablab_pair *p)
{
	union slablab_pair v;

	do {
		v = read_pair(p);
	} while (!pair_cmpxchg(p, v, v));
	return v;
}

/* ---- debug: red zones, poison, double-free detection ---- */

static unsigned int rz_len(const struct slablab_cache *s)
{
	return ALIGN(s->object_size, sizeof(void *)) - s->object_size + sizeof(void *);
}

/*
 * The last red-zone byte is the object's state (allocated, free, or RCU-freed and
 * waiting for its grace period), flipped with a byte cmpxchg; the bytes before it are
 * pattern, so a small overflow hits pattern first and is reported without losing track
 * of the object.
 */
static u8 *rz_state(const struct slablab_cache *s, void *obj)
{
	return (u8 *)obj + s->object_size + rz_len(s) - 1;
}

static void debug_report(struct slablab_cache *s, struct slablab_slab *slab,
			 const void *obj, const char *what)
{
	long idx = -1;

	atomic_long_inc(&s->debug_errors);
	if (slab && obj >= slab_base(slab))
		idx = ((unsigned long)obj - (unsigned long)slab_base(slab)) / s->stride;
	pr_err_ratelimited("cache %s: %s: object %p (slot %ld of slab %p)\n",
			   s->name, what, obj, idx, slab ? slab_base(slab) : NULL);
}

static void debug_init_free(const struct slablab_cache *s, void *obj)
{
	if (!s->ctor) {
		memset(obj, POISON_BYTE, s->object_size - 1);
		*((u8 *)obj + s->object_size - 1) = POISON_LAST;
	}
	memset((u8 *)obj + s->object_size, RZ_INACTIVE, rz_len(s));
}

/* Check an object a design hands out; false when it was not free (reported). */
bool slablab_debug_alloc_check(struct slablab_cache *s, void *obj)
{
	struct slablab_slab *slab = obj_to_slab(obj);
	u8 *rz = (u8 *)obj + s->object_size;
	unsigned int i, len = rz_len(s);
	bool was_free = true;
	u8 *p = obj;

	if (cmpxchg(rz_state(s, obj), (u8)RZ_INACTIVE, (u8)RZ_ACTIVE) != (u8)RZ_INACTIVE) {
		debug_report(s, slab, obj, "allocated object was not free (corrupt freelist)");
		was_free = false;
	}
	for (i = 0; i + 1 < len; i++) {
		if (rz[i] != RZ_INACTIVE) {
			debug_report(s, slab, obj, "red zone overwritten while free");
			break;
		}
	}
	memset(rz, RZ_ACTIVE, len - 1);
	if (s->ctor)
		return was_free;
	for (i = 0; i + 1 < s->object_size; i++) {
		if (p[i] != POISON_BYTE)
			break;
	}
	if (i + 1 < s->object_size || p[s->object_size - 1] != POISON_LAST)
		debug_report(s, slab, obj, "write after free");
	return was_free;
}

/* Returns false when the object must not be freed (already free, not ours). */
bool slablab_debug_free_check(struct slablab_cache *s, struct slablab_slab *slab, void *obj)
{
	u8 *rz = (u8 *)obj + s->object_size;
	unsigned int i, len = rz_len(s);
	unsigned long off;
	u8 state;

	if (!slab || slab->cache != s) {
		debug_report(s, slab, obj, "free of an object not from this cache");
		return false;
	}
	off = (unsigned long)obj - (unsigned long)slab_base(slab);
	if (off % s->stride || off / s->stride >= slab_objects(slab)) {
		debug_report(s, slab, obj, "free of a pointer that is not an object start");
		return false;
	}
	state = cmpxchg(rz_state(s, obj), (u8)RZ_ACTIVE, (u8)RZ_INACTIVE);
	if (state != (u8)RZ_ACTIVE) {
		debug_report(s, slab, obj, state == (u8)RZ_INACTIVE ? "double free" :
			     state == (u8)RZ_RCU ? "free of an object its RCU free waits for" :
			     "red zone state byte overwritten: object not freed");
		return false;
	}
	for (i = 0; i + 1 < len; i++) {
		if (rz[i] != RZ_ACTIVE) {
			debug_report(s, slab, obj, "red zone overwritten (buffer overflow)");
			break;
		}
	}
	debug_init_free(s, obj);
	return true;
}

/**
 * slablab_debug_rcu_queue - the debug checks of an RCU free, before it is queued
 * @s: a debug cache
 * @obj: the object
 * @head: its rcu_head
 *
 * An object of @s, with @head inside it, allocated: its state byte becomes RCU-pending
 * until slablab_debug_rcu_unqueue(). A second RCU free meanwhile would link @head twice
 * (a cycle in cache.c's batch): it is reported and refused, the object leaked, as the
 * kernel's debug_rcu_head_queue() makes kvfree_call_rcu() leak a double kfree_rcu().
 * Any context.
 *
 * Return: false when the free must not be queued.
 */
bool slablab_debug_rcu_queue(struct slablab_cache *s, void *obj, const void *head)
{
	struct slablab_slab *slab = obj_to_slab(obj);
	unsigned long off;
	u8 state;

	if (!slab || slab->cache != s) {
		debug_report(s, slab, obj, "RCU free of an object not from this cache");
		return false;
	}
	off = (unsigned long)obj - (unsigned long)slab_base(slab);
	if (off % s->stride || off / s->stride >= slab_objects(slab)) {
		debug_report(s, slab, obj, "RCU free of a pointer that is not an object start");
		return false;
	}
	/* unsigned: a head before the object is out of range too */
	if ((unsigned long)(head - obj) + sizeof(struct rcu_head) > s->object_size) {
		debug_report(s, slab, obj, "RCU free with its rcu_head outside the object");
		return false;
	}
	state = cmpxchg(rz_state(s, obj), (u8)RZ_ACTIVE, (u8)RZ_RCU);
	if (state != (u8)RZ_ACTIVE) {
		debug_report(s, slab, obj, state == (u8)RZ_RCU ? "double RCU free" :
			     state == (u8)RZ_INACTIVE ? "RCU free of a free object" :
			     "red zone state byte overwritten: object not freed");
		return false;
	}
	return true;
}

/**
 * slablab_debug_rcu_unqueue - an RCU free's grace period is over
 * @s: a debug cache
 * @obj: the object slablab_debug_rcu_queue() accepted
 *
 * Allocated again for the free that follows (slablab_debug_free_check()); a state byte
 * overwritten meanwhile stays as it is, for that check to report.
 */
void slablab_debug_rcu_unqueue(struct slablab_cache *s, void *obj)
{
	cmpxchg(rz_state(s, obj), (u8)RZ_RCU, (u8)RZ_ACTIVE);
}

/* ---- slabs ---- */

unsigned int slablab_min_order(const struct slablab_cache *s)
{
	return slablab_size_order(s->stride + s->slot_index, PAGE_SIZE);
}

/*
 * Lay out a fresh slab's freelist: in order, or along the cache's random sequence.
 * The sequence is a permutation of the slots of the largest slab, so it names each of
 * @nr slots once; one shorter than @nr would never name them all and the loop would
 * not end: warn and lay the slab out in order instead.
 */
static void *build_freelist(struct slablab_cache *s, void *base, unsigned int nr)
{
	bool random = s->random_seq && !WARN_ON_ONCE(s->random_seq_len < nr);
	void *head = NULL, *prev = NULL;
	unsigned int i, pos = 0, idx, taken = 0;

	if (random)
		pos = get_random_u32() % s->random_seq_len;
	for (i = 0; taken < nr; i++) {
		void *obj;

		if (random) {
			idx = s->random_seq[pos];
			pos = pos + 1 == s->random_seq_len ? 0 : pos + 1;
			if (idx >= nr)
				continue;
		} else {
			idx = i;
		}
		obj = base + (unsigned long)idx * s->stride;
		if (s->flags & SLABLAB_CACHE_F_DEBUG)
			debug_init_free(s, obj);
		if (s->ctor)
			s->ctor(obj);
		if (prev)
			set_fp(s, prev, obj);
		else
			head = obj;
		prev = obj;
		taken++;
	}
	set_fp(s, prev, NULL);
	return head;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/*
 * The kernel's fault injection (Documentation/fault-injection/), as failslab does it
 * for kmem_cache allocations: debugfs slablab/fail_new_slab/ (probability, interval,
 * times, space, task-filter, verbose ...) fails new slabs of every slablab cache.
 */
DECLARE_FAULT_ATTR(slablab_fail_new_slab);

static bool fail_new_slab(gfp_t gfp, unsigned int order)
{
	if (gfp & __GFP_NOFAIL)
		return false;	/* as failslab: such a caller cannot handle a failure */
	return should_fail(&slablab_fail_new_slab, PAGE_SIZE << order);
}
#else
static inline bool fail_new_slab(gfp_t gfp, unsigned int order)
{
	return false;
}
#endif

/**
 * slablab_inject_new_slab_failure - whether fault injection fails this new slab (or page)
 * @s: the cache
 * @gfp: the allocation's flags (__GFP_NOFAIL is never failed by fail_new_slab)
 * @order: the order asked for
 *
 * The cache's fail_slab_every (every Nth new slab fails), the test hook
 * selftest_fail_atomic_slabs (selftests=1: the next N that may not reclaim) and the
 * kernel's fault_attr fail_new_slab, for every design that takes pages: slabs here,
 * slob's heap pages.
 *
 * Return: true when the caller must act as if the page allocator said no.
 */
bool slablab_inject_new_slab_failure(struct slablab_cache *s, gfp_t gfp, unsigned int order)
{
	unsigned int fail_every = READ_ONCE(s->fail_slab_every);

	/* Read once: the knob may drop to 0 between a test and a division. */
	if (unlikely(fail_every) &&
	    !((unsigned int)atomic_inc_return(&s->fail_slab_count) % fail_every))
		return true;
	if (unlikely(slablab_selftests) && !gfpflags_allow_blocking(gfp) &&
	    atomic_add_unless(&slablab_fail_atomic_slabs, -1, 0))
		return true;
	return fail_new_slab(gfp, order);
}

/* The pages of a new slab; with selftests=1 the gfp is kept for the test hook. */
static struct page *new_slab_pages(struct slablab_cache *s, int node, gfp_t gfp,
				   unsigned int order)
{
	if (unlikely(slablab_selftests))
		WRITE_ONCE(s->selftest_new_slab_gfp, gfp);
	return alloc_pages_node(node, gfp, order);
}

/*
 * The pages of a new slab, as SLUB's allocate_slab() (@fallback) or SLAB's
 * kmem_getpages() takes them; @pgfp is the caller's gfp as both pass it on (the
 * reclaim and constraint bits, __GFP_COMP: 6.1's s->allocflags / cachep->allocflags).
 */
static struct page *new_slab_alloc_pages(struct slablab_cache *s, gfp_t pgfp, int node,
					 unsigned int *order, bool fallback)
{
	unsigned int min_order = slablab_min_order(s);
	struct page *page;
	gfp_t alloc_gfp;

	if (!fallback)
		/*
		 * SLAB 6.1's kmem_getpages() (mm/slab.c:1363, from cache_grow_begin(),
		 * :2570): one attempt at the cache's gfporder with the caller's gfp, and no
		 * smaller order when it fails.
		 */
		return new_slab_pages(s, node, pgfp, *order);
	/*
	 * SLUB's allocate_slab() (6.1 mm/slub.c:1946-1962, 7.3.4 mm/slub.c:3458-3474):
	 * the first attempt, at the cache's order, may fail quietly and never dips into
	 * the reserves for it; above the minimum order it neither reclaims nor wakes
	 * kswapd when the caller could, so that fragmentation sends it to the minimum
	 * order rather than into compaction. The second, at the minimum order (the same
	 * order when the cache has no other), asks with the caller's gfp as it is and
	 * counts ORDER_FALLBACK.
	 */
	alloc_gfp = (pgfp | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;
	if ((alloc_gfp & __GFP_DIRECT_RECLAIM) && *order > min_order)
		alloc_gfp = (alloc_gfp | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM;
	page = new_slab_pages(s, node, alloc_gfp, *order);
	if (page)
		return page;
	*order = min_order;
	page = new_slab_pages(s, node, pgfp, *order);
	if (page)
		stat(s, SLABLAB_ORDER_FALLBACK);
	return page;
}

/*
 * A new slab for the calling cpu. It is published on s->all_slabs already frozen, with
 * every object counted in use and its freelist handed to the caller in @freelist, so
 * that nobody (validate) ever sees it unfrozen with a freelist the cpu is consuming.
 * Its pages as SLUB takes them (@fallback) or SLAB (new_slab_alloc_pages()).
 */
static struct slablab_slab *new_slab(struct slablab_cache *s, gfp_t gfp, int node,
				     void **freelist, bool fallback)
{
	unsigned int order = READ_ONCE(s->order), min_order = slablab_min_order(s);
	/* a node constraint binds the pages (SLAB's cache_grow_begin(), SLUB's new_slab()) */
	gfp_t pgfp = (gfp & (SLABLAB_RECLAIM_GFP | SLABLAB_CONSTRAINT_GFP)) | __GFP_COMP;
	struct slablab_counters cnt = { .word = 0 };
	struct slablab_slab *slab;
	struct page *page;
	unsigned int nr, meta_off;
	unsigned long flags;

	if (order < min_order)
		order = min_order;
	if (slablab_inject_new_slab_failure(s, gfp, order))
		return NULL;	/* injected failure: as if the page allocator said no */
	page = new_slab_alloc_pages(s, pgfp, node, &order, fallback);
	if (!page)
		return NULL;
	nr = slablab_cache_objs(s, order);
	meta_off = ALIGN(nr * s->stride, sizeof(*slab));
	/* (the slab design's on-slab SLAB index would take nr * slot_index of the leftover) */
	if (meta_off + sizeof(*slab) <= (PAGE_SIZE << order) - nr * s->slot_index) {
		/* The leftover after the last object holds the metadata for free. */
		slab = page_address(page) + meta_off;
		slab->base_flags = (unsigned long)page_address(page) | SLABLAB_SLAB_ON_SLAB;
	} else {
		slab = kmem_cache_alloc_node(slablab_meta_cache, gfp & SLABLAB_RECLAIM_GFP,
					     page_to_nid(page));
		if (!slab) {
			__free_pages(page, order);
			return NULL;
		}
		slab->base_flags = (unsigned long)page_address(page);
	}
	slab->cache = s;
	INIT_LIST_HEAD(&slab->node_list);
	set_page_private(page, (unsigned long)slab);
	*freelist = build_freelist(s, slab_base(slab), nr);
	cnt.inuse = nr;
	cnt.objects = nr;
	cnt.frozen = 1;
	slab->fc.freelist = NULL;
	slab->fc.word = cnt.word;

	spin_lock_irqsave(&s->slabs_lock, flags);
	list_add(&slab->all_list, &s->all_slabs);
	s->nr_slabs++;
	s->total_objects += nr;
	s->nr_pages += 1UL << order;
	if (!(slab->base_flags & SLABLAB_SLAB_ON_SLAB))
		s->nr_meta_slabs++;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	trace_slablab_slab_new(s, page_to_nid(page), order, nr);
	return slab;
}

/**
 * slablab_new_slab - a new slab, its pages taken as SLUB's allocate_slab() takes them
 * @s: the cache
 * @gfp: the allocation's flags
 * @node: the node of the pages, or NUMA_NO_NODE
 * @freelist: where its objects' freelist is handed over
 *
 * The slub and sheaves designs' new slab: the cache's order tried without reclaim
 * (when above the minimum), then the minimum order with @gfp (new_slab_alloc_pages()).
 * The slab is frozen, every object counted in use.
 *
 * Return: the slab, or NULL when no pages could be had.
 */
struct slablab_slab *slablab_new_slab(struct slablab_cache *s, gfp_t gfp, int node,
				      void **freelist)
{
	return new_slab(s, gfp, node, freelist, true);
}

/**
 * slablab_new_slab_one_order - a new slab, its pages taken as SLAB's kmem_getpages()
 * @s: the cache
 * @gfp: the allocation's flags
 * @node: the node of the pages, or NUMA_NO_NODE
 * @freelist: where its objects' freelist is handed over
 *
 * The slab design's grow: one attempt at the cache's order with @gfp, no fallback.
 *
 * Return: as slablab_new_slab().
 */
struct slablab_slab *slablab_new_slab_one_order(struct slablab_cache *s, gfp_t gfp, int node,
						void **freelist)
{
	return new_slab(s, gfp, node, freelist, false);
}

/* The pages and metadata of a discarded slab go back (now, or after a grace period). */
static void free_slab_pages(struct slablab_slab *slab)
{
	bool on_slab = slab->base_flags & SLABLAB_SLAB_ON_SLAB;
	struct page *page = slab_page(slab);
	unsigned int order = slab_order(slab);

	/* On-slab metadata goes with the pages: read everything first. */
	set_page_private(page, 0);
	if (!on_slab)
		kmem_cache_free(slablab_meta_cache, slab);
	__free_pages(page, order);
}

/*
 * A typesafe-by-rcu slab's grace period is over: no RCU reader can still hold one of
 * its objects, so its pages may become anything (SLUB's rcu_free_slab()). The cache
 * outlives this: destroy waits until its rcu_slabs is 0 (slablab_rcu_drain()).
 */
static void rcu_free_slab(struct rcu_head *head)
{
	struct slablab_slab *slab = container_of(head, struct slablab_slab, rcu);
	bool on_slab = slab->base_flags & SLABLAB_SLAB_ON_SLAB;
	unsigned long pages = 1UL << slab_order(slab), flags;
	struct slablab_cache *s = slab->cache;

	free_slab_pages(slab);
	/* Last: destroy waits for rcu_slabs (nothing of @s is touched after it). */
	spin_lock_irqsave(&s->slabs_lock, flags);
	s->rcu_pages -= pages;
	if (!on_slab)
		s->nr_meta_slabs--;
	s->rcu_slabs--;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
}

/*
 * Take an empty slab off the cache and free it. A typesafe-by-rcu cache's slab leaves
 * the cache's figures (slabs, total_objects, pages) now but keeps its pages, its
 * metadata and its page's ->private until a grace period has passed (SLUB's
 * free_slab(): call_rcu(&slab->rcu_head, rcu_free_slab)): counted in rcu_slabs and
 * rcu_pages meanwhile. The flag is read now: a flags change later does not matter.
 */
void slablab_discard_slab(struct slablab_cache *s, struct slablab_slab *slab)
{
	bool on_slab = slab->base_flags & SLABLAB_SLAB_ON_SLAB;
	bool rcu = READ_ONCE(s->flags) & SLABLAB_CACHE_F_TYPESAFE_BY_RCU;
	unsigned int order = slab_order(slab);
	unsigned long flags;

	spin_lock_irqsave(&s->slabs_lock, flags);
	list_del(&slab->all_list);
	s->nr_slabs--;
	s->total_objects -= slab_objects(slab);
	s->nr_pages -= 1UL << order;
	if (rcu) {
		s->rcu_slabs++;
		s->rcu_pages += 1UL << order;
	} else if (!on_slab) {
		s->nr_meta_slabs--;
	}
	spin_unlock_irqrestore(&s->slabs_lock, flags);

	stat(s, SLABLAB_FREE_SLAB);
	trace_slablab_slab_free(s, slab_nid(slab), order, slab_objects(slab));
	if (rcu) {
		stat(s, SLABLAB_RCU_SLAB_DEFERRED);
		call_rcu(&slab->rcu, rcu_free_slab);
		return;
	}
	free_slab_pages(slab);
}

/**
 * slablab_free_to_slab - free objects to their slab, past every per-cpu layer
 * @s: the cache
 * @slab: the slab of the objects, owned by no per-cpu layer of the caller's cpu (it
 *	may be frozen for another cpu's)
 * @head: the first object of a detached list of @cnt objects, linked by free pointer
 * @tail: the last of them
 * @cnt: how many
 * @may_freeze: a full slab this free turns partial is frozen for the caller (which
 *	must then take it into a per-cpu layer, as slub's cpu partial list) instead of
 *	going on its node's partial list
 *
 * Counts FREE_SLOWPATH (@cnt), and how the slab's lists changed.
 *
 * Return: true when the slab was frozen for the caller (only with @may_freeze).
 */
bool slablab_free_to_slab(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			  void *tail, unsigned int cnt, bool may_freeze)
{
	stat_add(s, SLABLAB_FREE_SLOWPATH, cnt);
	return slablab_return_to_slab(s, slab, head, tail, cnt, may_freeze);
}

/**
 * slablab_return_to_slab - slablab_free_to_slab() for objects already counted as freed
 * @s: the cache
 * @slab: the slab of the objects (as for slablab_free_to_slab())
 * @head: the first object of a detached list of @cnt objects, linked by free pointer
 * @tail: the last of them
 * @cnt: how many
 * @may_freeze: as for slablab_free_to_slab()
 *
 * For a design whose per-cpu layer held freed objects and now gives them back (the
 * sheaves' flush): callers freed them long ago, so FREE_SLOWPATH is not counted again.
 *
 * Return: as slablab_free_to_slab().
 */
bool slablab_return_to_slab(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			    void *tail, unsigned int cnt, bool may_freeze)
{
	struct slablab_node *n = NULL;
	struct slablab_counters c;
	union slablab_pair old, new;
	unsigned long flags = 0;
	bool was_frozen;

	for (;;) {
		if (n) {
			spin_unlock_irqrestore(&n->list_lock, flags);
			n = NULL;
		}
		old = read_pair(&slab->fc);
		set_fp(s, tail, old.freelist);
		c.word = old.word;
		was_frozen = c.frozen;
		c.inuse -= cnt;
		if ((!c.inuse || !old.freelist) && !was_frozen) {
			if (may_freeze && !old.freelist) {
				/* Full slab turning partial: freeze it for the caller. */
				c.frozen = 1;
			} else {
				n = s->node[slab_nid(slab)];
				spin_lock_irqsave(&n->list_lock, flags);
			}
		}
		new.freelist = head;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (!n) {
		if (was_frozen)
			stat(s, SLABLAB_FREE_FROZEN);
		return !was_frozen && c.frozen;
	}
	if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
		if (old.freelist) {
			/* It had free objects and was unfrozen: it is on the node list. */
			remove_partial(n, slab);
			stat(s, SLABLAB_FREE_REMOVE_PARTIAL);
		}
		mark_dying(n, slab);
		spin_unlock_irqrestore(&n->list_lock, flags);
		slablab_discard_slab(s, slab);
		return false;
	}
	if (!old.freelist) {
		add_partial(n, slab, true);
		stat(s, SLABLAB_FREE_ADD_PARTIAL);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return false;
}

/* ---- running a design's function on every cpu ---- */

struct slablab_cpu_work {
	struct work_struct work;
	struct slablab_cache *s;
	slablab_cpu_fn fn;
	int mode;
	void *arg;
	bool skip;		/* nothing to do on this cpu: no work queued */
	unsigned int freed;	/* slabs the function freed */
};

static DEFINE_PER_CPU(struct slablab_cpu_work, slablab_cpu_works);

static void cpu_work_fn(struct work_struct *w)
{
	struct slablab_cpu_work *cw = container_of(w, struct slablab_cpu_work, work);

	cw->freed = cw->fn(cw->s, cw->mode, cw->arg);
}

/**
 * slablab_on_each_cpu - run a design's function on every online cpu, and wait
 * @s: the cache (cpus_read_lock and slablab_mutex held: the work items are shared)
 * @fn: what to run, on the cpu, in a work item (it takes the cpu's local lock itself)
 * @needed: whether a cpu has anything for @fn to do, read from another cpu without its
 *	lock (a hint, as SLUB 6.1's has_cpu_slab()); NULL: every cpu
 * @mode: passed to @fn and @needed (enum slablab_flush_mode for flushes)
 * @arg: passed to @fn (what it counts into, for example; it runs on many cpus at once)
 * @every_cpu: run on every online cpu whatever @needed says
 *
 * The skip is best effort on a busy cache, as in SLUB 6.1: a cpu between taking a new
 * slab and publishing it may read as empty. That is fine for shrink, validate and a
 * bound's change; callers that free every slab afterwards (destroy, a relayout, a
 * design change) must not leave a cpu pointing into freed pages, so they pass
 * @every_cpu.
 *
 * Return: the sum of what @fn returned (slabs freed).
 */
unsigned long slablab_on_each_cpu(struct slablab_cache *s, slablab_cpu_fn fn,
				  slablab_cpu_pred needed, int mode, void *arg, bool every_cpu)
{
	unsigned long freed = 0;
	int cpu;

	lockdep_assert_held(&slablab_mutex);
	for_each_online_cpu(cpu) {
		struct slablab_cpu_work *cw = per_cpu_ptr(&slablab_cpu_works, cpu);

		cw->skip = !every_cpu && needed && !needed(s, cpu, mode);
		if (cw->skip)
			continue;
		cw->s = s;
		cw->fn = fn;
		cw->mode = mode;
		cw->arg = arg;
		cw->freed = 0;
		INIT_WORK(&cw->work, cpu_work_fn);
		queue_work_on(cpu, slablab_flush_wq, &cw->work);
	}
	for_each_online_cpu(cpu) {
		struct slablab_cpu_work *cw = per_cpu_ptr(&slablab_cpu_works, cpu);

		if (cw->skip)
			continue;
		flush_work(&cw->work);
		freed += cw->freed;
	}
	return freed;
}

/* ---- flags, the cache list, layout and order ---- */

unsigned int slablab_default_flags(void)
{
	unsigned int f = 0;

	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		f |= SLABLAB_CACHE_F_HARDENED;
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM))
		f |= SLABLAB_CACHE_F_RANDOM;
	return f;
}

u32 slablab_features(void)
{
	u32 f = 0;

	if (want_init_on_alloc(GFP_KERNEL))
		f |= SLABLAB_FEAT_INIT_ON_ALLOC;
	if (want_init_on_free())
		f |= SLABLAB_FEAT_INIT_ON_FREE;
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		f |= SLABLAB_FEAT_FREELIST_HARDENED;
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM))
		f |= SLABLAB_FEAT_FREELIST_RANDOM;
	if (slablab_have_cmpxchg_double())
		f |= SLABLAB_FEAT_CMPXCHG_DOUBLE;
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		f |= SLABLAB_FEAT_PREEMPT_RT;
	return f;
}

unsigned int slablab_nr_caches(void)
{
	struct slablab_cache *s;
	unsigned int n = 0;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list)
		n++;
	return n;
}

struct slablab_cache *slablab_cache_find(const char *name)
{
	struct slablab_cache *s;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list) {
		if (!strcmp(s->name, name))
			return s;
	}
	return NULL;
}

/*
 * Object slot layout from size, alignment, @flags and @design: returns the stride and
 * sets *@fp_offset. Reads nothing of @s but its creation-time fields.
 */
unsigned int slablab_layout_stride(const struct slablab_cache *s, unsigned int flags,
				   unsigned int design, unsigned int *fp_offset)
{
	unsigned int size = s->object_size, align = s->align, end = size;

	if (flags & SLABLAB_CACHE_F_HWCACHE_ALIGN) {
		unsigned int ralign = cache_line_size();

		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	align = max_t(unsigned int, align, sizeof(void *));
	if (flags & SLABLAB_CACHE_F_DEBUG) {
		/* object | red zone | free pointer */
		end = size + rz_len(s);
		*fp_offset = end;
		end += sizeof(void *);
	} else if (s->ctor || (flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)) {
		/*
		 * The constructed object must survive being free, and a typesafe-by-rcu
		 * object stays readable by RCU readers after its free (SLUB keeps the free
		 * pointer out of such objects too): pointer after it.
		 */
		*fp_offset = ALIGN(size, sizeof(void *));
		end = *fp_offset + sizeof(void *);
	} else {
		/* Mid-object, as SLUB does, away from the edges overflows hit first. */
		*fp_offset = ALIGN_DOWN(size / 2, sizeof(void *));
		end = max_t(unsigned int, size, sizeof(void *));
	}
	/* SLAB's byte-sized freelist index wants objects of SLAB_OBJ_MIN_SIZE and up */
	if (design == SLABLAB_DESIGN_SLAB && slablab_slab_idx_size(PAGE_SIZE) == 1)
		end = max_t(unsigned int, end, SLABLAB_SLAB_OBJ_MIN_SIZE);
	return slablab_stride(end, align);
}

/* SLAB's slab_max_order: 1 on machines with more than 32 MB (kmem_cache_init()). */
static unsigned int slab_max_order(void)
{
	return totalram_pages() > (32UL << 20) >> PAGE_SHIFT ? SLABLAB_SLAB_MAX_ORDER_HI : 0;
}

/*
 * SLAB's order and freelist placement for the cache's layout (slablab_slab_geometry()):
 * no OBJFREELIST for a constructor, typesafe-by-rcu or init_on_free, as
 * set_objfreelist_slab_cache() refuses them.
 */
static struct slablab_order_choice slab_geometry(const struct slablab_cache *s,
						 unsigned int *mgmt)
{
	bool objfreelist_ok = !s->ctor && !(s->flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU) &&
			      !want_init_on_free();

	/* (SLABLAB_MAX_ORDER, not KMALLOC_MAX_ORDER: objects over 64 KiB are refused) */
	return slablab_slab_geometry(s->stride, s->object_size, objfreelist_ok,
				     slab_max_order(), SLABLAB_MAX_ORDER, PAGE_SIZE,
				     cache_line_size(), mgmt);
}

/*
 * The layout of the cache's current flags under @design: stride, free pointer and,
 * for the slab design, where SLAB would keep the freelist (an on-slab one takes an
 * index per object from the slab) and how many objects an index names.
 */
void slablab_compute_layout(struct slablab_cache *s, unsigned int design)
{
	unsigned int mgmt = SLABLAB_SLAB_MGMT_OBJFREELIST;

	s->stride = slablab_layout_stride(s, s->flags, design, &s->fp_offset);
	s->slot_index = 0;
	s->max_objs = 0;
	if (design == SLABLAB_DESIGN_SLAB) {
		slab_geometry(s, &mgmt);
		if (mgmt == SLABLAB_SLAB_MGMT_ON_SLAB)
			s->slot_index = slablab_slab_idx_size(PAGE_SIZE);
		s->max_objs = slablab_slab_obj_max_num(PAGE_SIZE);
	}
}

/**
 * slablab_make_random_seq - a freelist sequence for the cache's current layout
 * @s: the cache; its flags and stride say whether it needs one, and how long
 * @design: the design the layout is for: slob lays out no slabs of slots, so needs none
 * @seq: set to the sequence, or NULL when the cache needs none
 * @len: set to its entries
 *
 * Touches nothing of @s, so that a caller can make the sequence of a new layout
 * before it commits to that layout, and keep the old one if this fails.
 *
 * Return: 0, or -ENOMEM (@seq NULL).
 */
int slablab_make_random_seq(const struct slablab_cache *s, unsigned int design,
			    unsigned int **seq, unsigned int *len)
{
	unsigned int n = slablab_cache_objs(s, SLABLAB_MAX_ORDER);
	unsigned int i, *q;

	*seq = NULL;
	*len = 0;
	if (design == SLABLAB_DESIGN_SLOB || !(s->flags & SLABLAB_CACHE_F_RANDOM) || n < 2)
		return 0;
	/* only a positive count fails: a negative one written to debugfs fails none */
	if (atomic_dec_if_positive(&slablab_fail_random_seq) >= 0)
		return -ENOMEM;
	if (slablab_fail_nth(&slablab_fail_random_seq_nth))
		return -ENOMEM;
	q = kvmalloc_array(n, sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		q[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned int j = get_random_u32() % (i + 1);

		swap(q[i], q[j]);
	}
	*seq = q;
	*len = n;
	return 0;
}

/* Replace the cache's sequence by @seq of @len entries (slablab_make_random_seq()'s). */
void slablab_set_random_seq(struct slablab_cache *s, unsigned int *seq, unsigned int len)
{
	kvfree(s->random_seq);
	s->random_seq = seq;
	s->random_seq_len = len;
}

/*
 * Order policy for the current layout under @design (the slab design: SLAB's
 * calculate_slab_order(); the others: SLUB's calculate_order()); -E2BIG when one
 * object exceeds the largest slab.
 */
int slablab_choose_order(struct slablab_cache *s, unsigned int design,
			 struct netlink_ext_ack *extack)
{
	/* The cpu count SLUB's calculate_order() uses: present cpus, else possible ids. */
	unsigned int nr_cpus = num_present_cpus() > 1 ? num_present_cpus() : nr_cpu_ids;
	struct slablab_order_choice oc;
	unsigned int mgmt;

	if (design == SLABLAB_DESIGN_SLAB) {
		oc = slab_geometry(s, &mgmt);
	} else {
		/*
		 * The cache's max_order stands for SLUB's slub_max_order; the rules are
		 * those of the SLUB the design models (sheaves: 7.x's).
		 */
		oc = slablab_calc_order(s->stride, nr_cpus, s->max_order, PAGE_SIZE,
					design == SLABLAB_DESIGN_SHEAVES ?
					SLABLAB_ORDER_RULES_6_8 : SLABLAB_ORDER_RULES_6_1);
		/*
		 * calculate_order()'s last resort when one object does not fit a slab of
		 * slub_max_order: the smallest order that holds one, up to MAX_ORDER.
		 */
		if (oc.reason == SLABLAB_ORDER_TOO_BIG &&
		    slablab_size_order(s->stride, PAGE_SIZE) <= SLABLAB_MAX_ORDER) {
			oc.order = slablab_size_order(s->stride, PAGE_SIZE);
			oc.fraction = 0;
			oc.min_objects = 1;
			oc.reason = SLABLAB_ORDER_ONE_OBJECT;
		}
	}
	if (oc.reason == SLABLAB_ORDER_TOO_BIG) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "object stride %u exceeds an order-%d slab",
				       s->stride, SLABLAB_MAX_ORDER);
		return -E2BIG;
	}
	s->order_choice = oc;	/* slablab_mutex held: debugfs reads it under it */
	WRITE_ONCE(s->order_default, oc.order);
	return 0;
}

/* Free every slab of a cache that has no objects in use (destroy, relayout). */
void slablab_discard_all_slabs(struct slablab_cache *s)
{
	struct slablab_slab *slab, *tmp;
	unsigned long flags;
	LIST_HEAD(victims);
	int nid;

	for_each_node(nid) {
		struct slablab_node *n = s->node[nid];

		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry_safe(slab, tmp, &n->partial, node_list)
			remove_partial(n, slab);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	spin_lock_irqsave(&s->slabs_lock, flags);
	list_splice_init(&s->all_slabs, &victims);
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	list_for_each_entry_safe(slab, tmp, &victims, all_list) {
		spin_lock_irqsave(&s->slabs_lock, flags);
		list_add(&slab->all_list, &s->all_slabs);
		spin_unlock_irqrestore(&s->slabs_lock, flags);
		slablab_discard_slab(s, slab);
	}
}

/**
 * slablab_leak_forget_range - unregister from kmemleak what may start in a range
 * @start: the range
 * @len: its length in bytes
 * @step: the granularity objects start at
 *
 * For memory about to go back to the page allocator with objects kmemleak still knows
 * (a cache destroyed with live objects at module exit): left registered, they would be
 * reported as leaks of memory that is no longer ours, and the next object allocated
 * there would overlap them (kmemleak then stops itself). kmemleak_free() of an address
 * it does not know is silent (mm/kmemleak.c warns only when built with DEBUG), so every
 * address an object may start at is passed, upwards: every object kmemleak knows in the
 * range must start on a @step, or an address inside it is looked up while it is still
 * registered ("Found object by alias", a warning). A no-op without CONFIG_DEBUG_KMEMLEAK.
 */
void slablab_leak_forget_range(void *start, size_t len, size_t step)
{
	size_t off;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		return;
	for (off = 0; off < len; off += step)
		kmemleak_free(start + off);
}

/**
 * slablab_leak_forget_slabs - unregister a dead cache's objects from kmemleak
 * @s: a cache no one can reach any more, its per-cpu layers flushed, about to have its
 *	slabs discarded with live objects (slablab_cache_api_exit_caches())
 *
 * Walks the slabs without slabs_lock: nothing else uses a dead cache, and a long walk
 * must not hold interrupts off. A slot that is free is unknown to kmemleak.
 */
void slablab_leak_forget_slabs(struct slablab_cache *s)
{
	struct slablab_slab *slab;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		return;
	list_for_each_entry(slab, &s->all_slabs, all_list) {
		slablab_leak_forget_range(slab_base(slab),
					  (size_t)slab_objects(slab) * s->stride, s->stride);
		cond_resched();
	}
}

/* Objects in use by callers: allocations - frees over all time, never below 0. */
u64 slablab_objects_in_use(struct slablab_cache *s)
{
	s64 n = slablab_stat_sum_raw_alloc(s);

	return n > 0 ? n : 0;
}

/**
 * slablab_shrink_nodes - free the empty slabs of the node lists
 * @s: the cache (slablab_mutex held)
 * @keep_min_partial: leave each node min_partial slabs (slablab's shrink); false frees
 *	every empty slab, as SLUB 6.1's kmem_cache_shrink() does (a storm's empty start)
 *
 * Slabs a design's per-cpu layers hold are not touched: flush them first.
 *
 * Return: the number of slabs freed.
 */
unsigned long slablab_shrink_nodes(struct slablab_cache *s, bool keep_min_partial)
{
	struct slablab_slab *slab, *tmp;
	unsigned long flags, freed = 0;
	LIST_HEAD(victims);
	int nid;

	for_each_node(nid) {
		struct slablab_node *n = s->node[nid];

		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry_safe(slab, tmp, &n->partial, node_list) {
			struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

			if (keep_min_partial && n->nr_partial <= READ_ONCE(s->min_partial))
				break;
			/* Under list_lock an empty unfrozen slab cannot change. */
			if (c.inuse || c.frozen)
				continue;
			remove_partial(n, slab);
			mark_dying(n, slab);
			list_add(&slab->node_list, &victims);
		}
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	list_for_each_entry_safe(slab, tmp, &victims, node_list) {
		list_del(&slab->node_list);
		slablab_discard_slab(s, slab);
		freed++;
	}
	return freed;
}

/* ---- validation ---- */

static void verr(struct slablab_validate_report *r, struct slablab_cache *s,
		 struct slablab_slab *slab, const char *fmt, unsigned long a, unsigned long b)
{
	char msg[120];

	snprintf(msg, sizeof(msg), fmt, a, b);
	if (!r->errors++)
		snprintf(r->first_error, sizeof(r->first_error), "slab %u: %s",
			 (unsigned int)r->slabs, msg);
	pr_err_ratelimited("validate %s: slab %p: %s\n", s->name, slab ? slab_base(slab) : NULL,
			   msg);
}

/* Walk one unfrozen slab's freelist (its node's list_lock held, so it can't be taken). */
static void validate_slab(struct slablab_cache *s, struct slablab_slab *slab,
			  struct slablab_validate_report *r)
{
	union slablab_pair v = read_pair_atomic(&slab->fc);
	struct slablab_counters c = { .word = v.word };
	unsigned int n = 0, order = slab_order(slab);
	unsigned long end = (unsigned long)slab_base(slab) + (PAGE_SIZE << order);
	void *p;

	r->objects += c.objects;
	if (c.objects != slablab_cache_objs(s, order))
		verr(r, s, slab, "objects %lu, expected %u", c.objects,
		     slablab_cache_objs(s, order));
	if (c.inuse > c.objects)
		verr(r, s, slab, "inuse %lu > objects %lu", c.inuse, c.objects);
	if (c.frozen)
		return;	/* a cpu owns it now: its freelist is not ours to walk */
	if (slab_dying(slab)) {
		/* Freed as soon as validate lets go of slabs_lock; its freelist is still whole. */
		if (c.inuse || slab_on_partial(slab))
			verr(r, s, slab, "marked for freeing but inuse %lu, on a list %lu",
			     c.inuse, slab_on_partial(slab));
	} else if (v.freelist && !slab_on_partial(slab)) {
		verr(r, s, slab, "has free objects but is on no list (inuse %lu/%lu)",
		     c.inuse, c.objects);
	}
	for (p = v.freelist; p; p = get_fp(s, p)) {
		unsigned long off = (unsigned long)p - (unsigned long)slab_base(slab);

		if ((unsigned long)p < (unsigned long)slab_base(slab) || (unsigned long)p >= end ||
		    off % s->stride || off / s->stride >= c.objects) {
			verr(r, s, slab, "free pointer out of bounds at entry %lu (offset %#lx)", n,
			     off);
			return;
		}
		if (++n > c.objects) {
			verr(r, s, slab, "freelist has a cycle (over %lu entries)", c.objects, 0);
			return;
		}
		if (s->flags & SLABLAB_CACHE_F_DEBUG) {
			u8 *rz = rz_state(s, p);

			if (*rz != RZ_INACTIVE)
				verr(r, s, slab, "free object %lu has an allocated red zone (%#lx)",
				     off / s->stride, *rz);
		}
	}
	r->free_objects += n;
	if (n != c.objects - c.inuse)
		verr(r, s, slab, "freelist holds %lu objects, counters say %lu", n,
		     c.objects - c.inuse);
}

/**
 * slablab_validate_slabs - check every slab of a cache
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @r: the report to fill
 *
 * Frozen slabs (a design's per-cpu layers own them) are counted but their freelists
 * are skipped: the cache API flushes the design first, so a quiet cache is checked
 * completely.
 */
void slablab_validate_slabs(struct slablab_cache *s, struct slablab_validate_report *r)
{
	unsigned long flags, nr = 0, total = 0, partial;
	struct slablab_slab *slab;
	int nid;

	memset(r, 0, sizeof(*r));
	spin_lock_irqsave(&s->slabs_lock, flags);
	for_each_node(nid) {
		struct slablab_node *n = s->node[nid];

		spin_lock(&n->list_lock);
		partial = 0;
		list_for_each_entry(slab, &n->partial, node_list) {
			partial++;
			if (slab_nid(slab) != nid)
				verr(r, s, slab, "on node %lu's list but from node %lu", nid,
				     slab_nid(slab));
		}
		if (partial != n->nr_partial)
			verr(r, s, NULL, "node list holds %lu slabs, nr_partial says %lu",
			     partial, n->nr_partial);
		list_for_each_entry(slab, &s->all_slabs, all_list) {
			if (slab_nid(slab) != nid)
				continue;
			nr++;
			total += slab_objects(slab);
			validate_slab(s, slab, r);
			r->slabs++;
		}
		spin_unlock(&n->list_lock);
	}
	if (nr != s->nr_slabs || total != s->total_objects)
		verr(r, s, NULL, "slab count %lu vs gauge %lu (or object totals differ)", nr,
		     s->nr_slabs);
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	/* a random cache's fresh slabs would otherwise be laid out in order, silently */
	nr = s->flags & SLABLAB_CACHE_F_RANDOM ?
	     slablab_cache_objs(s, SLABLAB_MAX_ORDER) : 0;
	if (nr >= 2 && (!s->random_seq || s->random_seq_len != nr))
		verr(r, s, NULL, "random flag but a freelist sequence of %lu entries, not %lu",
		     s->random_seq ? s->random_seq_len : 0, nr);
	if (atomic_long_read(&s->debug_errors) && !r->errors)
		snprintf(r->first_error, sizeof(r->first_error),
			 "%ld corruption reports from debug checks (see the kernel log)",
			 atomic_long_read(&s->debug_errors));
	r->errors += atomic_long_read(&s->debug_errors);
}

/* ---- statistics ---- */

/*
 * One cpu's count since the last reset. A reset copies the count into the baseline
 * while the cpu keeps counting: read the baseline first, and clamp, so that a reset
 * racing this read gives 0 rather than a difference wrapped to ~1.8e19.
 */
u64 slablab_stat_cpu(struct slablab_cache *s, int cpu, int item)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
	unsigned long base, now;

	base = smp_load_acquire(&c->stat_base[item]);	/* pairs with slablab_stat_reset() */
	now = READ_ONCE(c->stat[item]);
	return now >= base ? now - base : 0;
}

u64 slablab_stat_sum(struct slablab_cache *s, int item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += slablab_stat_cpu(s, cpu, item);
	return sum;
}

/**
 * slablab_stat_sum_raw - the monotonic count of one event over all cpus, resets ignored
 * @s: the cache
 * @item: enum slablab_stat_item
 *
 * What storms snapshot: the difference of two raw sums is the events in between, even
 * when CACHE_RESET_STATS moved the baseline meanwhile (slablab_stat_sum() would then go
 * backwards, and a delta of it wrap).
 *
 * Return: the sum of the per-cpu counters since the cache was created.
 */
u64 slablab_stat_sum_raw(struct slablab_cache *s, int item)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(s->cpu, cpu)->stat[item]);
	return sum;
}

s64 slablab_stat_sum_raw_alloc(struct slablab_cache *s)
{
	s64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		n += READ_ONCE(c->stat[SLABLAB_ALLOC_FASTPATH]) +
		     READ_ONCE(c->stat[SLABLAB_ALLOC_SLOWPATH]) -
		     READ_ONCE(c->stat[SLABLAB_FREE_FASTPATH]) -
		     READ_ONCE(c->stat[SLABLAB_FREE_SLOWPATH]);
	}
	return n;
}

void slablab_stat_reset(struct slablab_cache *s, int item)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		for (i = 0; i < __SLABLAB_STAT_MAX; i++) {
			if (item < 0 || item == i)
				/* release: a reader that sees the baseline sees its count */
				smp_store_release(&c->stat_base[i], READ_ONCE(c->stat[i]));
		}
	}
}

/* The back end's gauges; the design adds its per-cpu ones (ops->gauges). */
void slablab_backend_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	unsigned long flags;
	int nid;

	memset(g, 0, sizeof(*g));
	g->objects = slablab_objects_in_use(s);
	spin_lock_irqsave(&s->slabs_lock, flags);
	g->slabs = s->nr_slabs;
	g->total_objects = s->total_objects;
	g->pages = s->nr_pages;
	g->meta_bytes = (u64)s->nr_meta_slabs * kmem_cache_size(slablab_meta_cache);
	g->rcu_slabs = s->rcu_slabs;
	g->rcu_pages = s->rcu_pages;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	for_each_node(nid)
		g->partial_slabs += READ_ONCE(s->node[nid]->nr_partial);
	g->live_bytes = g->objects * s->object_size;
}

/**
 * slablab_backend_walk_slabs - call @fn on every slab of a cache, in batches
 * @s: the cache
 * @fn: called for each slab with slabs_lock held, interrupts off: it only adds up
 *	what @c (the slab's counters, read once) and the slab's fixed fields say
 * @arg: passed to @fn
 *
 * The one walk of s->all_slabs for figures any reader may ask for (CACHE_GET's layers
 * and occupancy, debugfs objects_partial): slabs_lock, and so interrupts off, for at
 * most SLABLAB_OCCUPANCY_BATCH slabs at a time, the visited ones moved to the tail of
 * s->all_slabs (whose order nobody relies on), the lock dropped and the cpu offered to
 * the scheduler between batches, so that interrupts are never off for long however
 * many slabs the cache has. The lock keeps every slab of a batch from being freed
 * while @fn reads it. Exact on a quiet cache; while slabs come and go, each slab made
 * or freed between two batches may make the walk miss one slab or visit one twice,
 * and slabs visited early are as of their batch.
 *
 * slablab_mutex held: a second walker moving slabs to the tail at the same time would
 * make both visit slabs twice. The irqs-off figure (selftest_walk_irqoff_ns) starts
 * once the lock is taken: the time spent spinning for it with interrupts off is not
 * in it (on PREEMPT_RT the lock disables no interrupts, so timing from before
 * spin_lock_irqsave() would be no better a figure).
 */
static void slablab_backend_walk_slabs(struct slablab_cache *s,
				       void (*fn)(struct slablab_slab *slab,
						  struct slablab_counters c, void *arg),
				       void *arg)
{
	struct list_head *first, *last, *pos;
	unsigned long flags, left;
	unsigned int i;
	u64 t0;

	lockdep_assert_held(&slablab_mutex);
	spin_lock_irqsave(&s->slabs_lock, flags);
	t0 = walk_irqoff_start();
	for (left = s->nr_slabs; left && !list_empty(&s->all_slabs);) {
		first = s->all_slabs.next;
		last = first;
		for (pos = first, i = 0;
		     i < SLABLAB_OCCUPANCY_BATCH && left && pos != &s->all_slabs;
		     pos = pos->next, i++, left--) {
			struct slablab_slab *slab = list_entry(pos, struct slablab_slab, all_list);
			struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

			fn(slab, c, arg);
			last = pos;
		}
		list_bulk_move_tail(&s->all_slabs, first, last);
		walk_irqoff_end(t0, i);
		spin_unlock_irqrestore(&s->slabs_lock, flags);
		/* process context, slablab_mutex only: let others run between batches */
		cond_resched();
		spin_lock_irqsave(&s->slabs_lock, flags);
		t0 = walk_irqoff_start();
		left = min(left, s->nr_slabs);
	}
	walk_irqoff_end(t0, 0);
	spin_unlock_irqrestore(&s->slabs_lock, flags);
}

static void layers_slab(struct slablab_slab *slab, struct slablab_counters c, void *arg)
{
	struct slablab_layers *l = arg;

	if (!c.frozen)
		l->slabs_free += c.objects - c.inuse;
	else
		l->frozen_free += c.objects - c.inuse;
}

/**
 * slablab_backend_layers - the back end's layers: total, callers', free in slabs
 * @s: the cache (slablab_mutex held)
 * @l: zeroed by the caller; the design adds its layers after
 *
 * Free in slabs counts the unfrozen slabs only (node partial lists; full slabs have
 * none): what a frozen slab holds belongs to a design's per-cpu layer, which counts
 * it (its racy count from @l->frozen_free, the free objects of the frozen slabs). Any
 * user may ask (CACHE_GET), so the slabs are walked in batches
 * (slablab_backend_walk_slabs()). Exact on a quiet cache, as the layers' sum is
 * anyway (struct slablab_layers).
 */
void slablab_backend_layers(struct slablab_cache *s, struct slablab_layers *l)
{
	unsigned long flags;

	l->callers = slablab_objects_in_use(s);
	spin_lock_irqsave(&s->slabs_lock, flags);
	l->total = s->total_objects;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	slablab_backend_walk_slabs(s, layers_slab, l);
	l->present |= BIT(SLABLAB_LAYERS_A_TOTAL) | BIT(SLABLAB_LAYERS_A_CALLERS) |
		      BIT(SLABLAB_LAYERS_A_SLABS_FREE);
}

struct objects_partial_walk {
	u64 total;
	u64 *nodes;
};

static void objects_partial_slab(struct slablab_slab *slab, struct slablab_counters c,
				 void *arg)
{
	struct objects_partial_walk *w = arg;

	/* frozen slabs belong to a cpu; full ones are on no node partial list */
	if (c.frozen || c.inuse >= c.objects)
		return;
	w->total += c.inuse;
	w->nodes[slab_nid(slab)] += c.inuse;
}

/**
 * slablab_backend_objects_partial - objects in use on the slabs that are not full
 * @s: the cache (slablab_mutex held)
 * @nodes: nr_node_ids counters, zeroed by the caller: each node's part of the total
 *
 * SLUB's show_slab_objects(SO_PARTIAL | SO_OBJECTS) for debugfs objects_partial: the
 * objects in use on the unfrozen slabs that are not full (those the partial file
 * counts: SLUB's node partial lists, the slab design's partial slabs; empty ones add
 * nothing). The file is world-readable, so the slabs are walked in batches
 * (slablab_backend_walk_slabs()), never all under one irqs-off hold.
 *
 * Return: the total.
 */
u64 slablab_backend_objects_partial(struct slablab_cache *s, u64 *nodes)
{
	struct objects_partial_walk w = { .nodes = nodes };

	slablab_backend_walk_slabs(s, objects_partial_slab, &w);
	return w.total;
}

/* ---- the slab-occupancy histogram ---- */

/**
 * slablab_occupancy_range - the objects in use a bucket stands for
 * @h: the histogram (@h->objs and @h->nr set)
 * @bucket: 0 .. @h->nr - 1
 * @lo: the fewest objects in use of a slab of @h->objs slots in @bucket
 * @hi: the most
 */
void slablab_occupancy_range(const struct slablab_occupancy *h, unsigned int bucket,
			     unsigned int *lo, unsigned int *hi)
{
	unsigned int mid = h->nr - 2, span = h->objs - 1;

	if (!bucket || bucket == h->nr - 1) {
		*lo = bucket ? h->objs : 0;
		*hi = *lo;
		return;
	}
	/* the first count slablab_occupancy_bucket() maps to @bucket, and to the next one */
	*lo = 1 + DIV_ROUND_UP((bucket - 1) * span, mid);
	*hi = bucket + 1 == h->nr - 1 ? h->objs - 1 : DIV_ROUND_UP(bucket * span, mid);
}

static void occupancy_slab(struct slablab_slab *slab, struct slablab_counters c, void *arg)
{
	struct slablab_occupancy *h = arg;

	h->slabs[slablab_occupancy_bucket(h, c.objects, c.inuse)]++;
}

/**
 * slablab_backend_occupancy - count the cache's slabs by objects in use
 * @s: the cache (slablab_mutex held)
 * @h: filled (struct slablab_occupancy)
 *
 * In use is the slab's own view (objects not on its freelist). The slabs are walked
 * in batches (slablab_backend_walk_slabs()): exact on a quiet cache; while slabs come
 * and go, a slab may be missed or counted twice.
 */
void slablab_backend_occupancy(struct slablab_cache *s, struct slablab_occupancy *h)
{
	memset(h, 0, sizeof(*h));
	h->objs = slablab_cache_objs(s, READ_ONCE(s->order));
	h->nr = min_t(unsigned int, h->objs + 1, SLABLAB_OCCUPANCY_BUCKETS);
	slablab_backend_walk_slabs(s, occupancy_slab, h);
}

/* ---- init / exit ---- */

int slablab_backend_init(void)
{
	BUILD_BUG_ON(sizeof(struct slablab_slab) != 64);
	if (!slablab_have_cmpxchg_double()) {
		pr_err("this cpu has no double-word cmpxchg (cmpxchg16b); slablab needs it\n");
		return -ENODEV;
	}
	slablab_meta_cache = kmem_cache_create("slablab_slab", sizeof(struct slablab_slab),
					       2 * sizeof(void *), 0, NULL);
	if (!slablab_meta_cache)
		return -ENOMEM;
	slablab_flush_wq = alloc_workqueue("slablab_flush", WQ_MEM_RECLAIM | SLABLAB_WQ_PERCPU, 0);
	if (!slablab_flush_wq) {
		kmem_cache_destroy(slablab_meta_cache);
		return -ENOMEM;
	}
	return 0;
}

void slablab_backend_exit(void)
{
	destroy_workqueue(slablab_flush_wq);
	kmem_cache_destroy(slablab_meta_cache);
}
