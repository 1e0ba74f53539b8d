// SPDX-License-Identifier: GPL-2.0
/*
 * slablab allocator core: slab caches beside the kernel's own, designed after SLUB as
 * it stood in 6.1 (before sheaves), with every policy a run-time tunable.
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
 * Object states
 *   Every slab is in exactly one of these states:
 *   - cpu slab:     frozen, c->slab of one cpu; its free objects are split between the
 *                   lockless per-cpu freelist (c->ft.freelist) and slab->fc.freelist
 *                   (where remote frees land);
 *   - cpu partial:  frozen, on one cpu's c->partial list (put there by a free);
 *   - node partial: unfrozen, has free objects, on s->node[nid]->partial;
 *   - full:         unfrozen, no free objects, on no list;
 *   - dying:        unfrozen, empty, on no list, SLABLAB_SLAB_DYING set: the path that
 *                   emptied it decided under list_lock to free it and will call
 *                   discard_slab() once that lock is dropped.
 *   A new slab is published on s->all_slabs already frozen, its freelist held by the
 *   cpu that made it; a slab leaves c->slab before anything may unfreeze it (see
 *   slab_alloc_slow()), so that what c->slab points to is never freed. validate walks
 *   s->all_slabs under slabs_lock and the slab's list_lock, and so sees every slab in
 *   one of these states, never between two.
 *   Frozen slabs are touched only by their cpu, except that anyone may push freed
 *   objects onto slab->fc.freelist with the slab's double-word cmpxchg. A free that
 *   turns a full slab partial either freezes it onto the freeing cpu's partial list
 *   (cpu_partial > 0) or puts it on the node list; a free that empties an unfrozen slab
 *   takes the node's list_lock *before* its cmpxchg, so list membership and counters
 *   change together.
 *
 * Fast paths (s->fastpath)
 *   cmpxchg: the cpu freelist and a transaction id (tid) are one double word, updated
 *            with this_cpu_cmpxchg_double()/this_cpu_try_cmpxchg128(): no lock, no irq
 *            disabling; the tid (which encodes the cpu) makes a preempted or migrated
 *            attempt fail and retry. Every slow-path change of c->freelist or c->slab
 *            bumps the tid for the same reason.
 *   irqoff:  the same per-cpu data updated under local_lock_irqsave() (interrupts off
 *            on !PREEMPT_RT). It also bumps the tid, so the two modes can be switched
 *            while the cache is in use.
 *   On PREEMPT_RT both modes take the per-cpu local_lock (a per-cpu spinlock there),
 *   because slow-path holders can be preempted mid-update; see the docs.
 *
 * Locks and their order (outermost first)
 *   storm_mutex (storm.c)              the storm; held while waiting for a storm's
 *                                      controller, which takes cpus_read_lock (its
 *                                      kmem_cache_destroy()): so nobody waits for a
 *                                      controller under the two locks below
 *   cpu_hotplug_lock (cpus_read_lock)  keeps the set of online cpus still while caches
 *                                      are created, destroyed, flushed or re-tuned
 *   slablab_mutex                      the cache list, names, debugfs, handles,
 *                                      tunable changes, the flush work items
 *   s->cpu->lock (local_lock)          a cpu's slow path against its fast path
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
#include <linux/cpuhotplug.h>
#include <linux/workqueue.h>
#include <linux/random.h>
#include <linux/swab.h>
#include <linux/uaccess.h>
#include <linux/nodemask.h>
#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/cache.h>
#include <linux/sched/mm.h>
#include <linux/jump_label.h>
#include <linux/fault-inject.h>
#include "internal.h"

/* include/slablab.h's flags are the uapi's, and SLABLAB_KERNEL_DEFAULTS is none of them. */
static_assert(SLABLAB_DEBUG == SLABLAB_CACHE_F_DEBUG);
static_assert(SLABLAB_HARDENED == SLABLAB_CACHE_F_HARDENED);
static_assert(SLABLAB_RANDOM == SLABLAB_CACHE_F_RANDOM);
static_assert(SLABLAB_HWCACHE_ALIGN == SLABLAB_CACHE_F_HWCACHE_ALIGN);
static_assert((SLABLAB_DEBUG | SLABLAB_HARDENED | SLABLAB_RANDOM | SLABLAB_HWCACHE_ALIGN) ==
	      __SLABLAB_CACHE_F_ALL);
static_assert(!(SLABLAB_KERNEL_DEFAULTS & __SLABLAB_CACHE_F_ALL));

/*
 * The module parameters and globals every layer reads live here, at the bottom, so
 * that no file has to call upwards (docs/design.md, "Layers").
 */
bool slablab_selftests;
module_param_named(selftests, slablab_selftests, bool, 0444);
MODULE_PARM_DESC(selftests,
		 "enable the test harness hooks in debugfs: selftest_warn, selftest_kernel_cache, selftest_native_sysfs, caches/*/selftest (never on a real system)");

#ifndef NL_SET_ERR_MSG_FMT
char slablab_extack_buf[128];
#endif

/* slablab_mutex: the cache list, tunable changes, flush work items, handles, debugfs */
DEFINE_MUTEX(slablab_mutex);
LIST_HEAD(slablab_caches);
/* Bumped on every change of slablab_caches (slablab_mutex): the cache dump's cb->seq. */
unsigned int slablab_caches_gen;
unsigned int slablab_page_policy = SLABLAB_PAGE_POLICY_SLAB;

/*
 * Pages slablab_kmalloc() handed out straight from the page allocator (large requests,
 * or the page policy): storms of the kmalloc target count them with the size classes.
 */
static atomic_long_t slablab_kmalloc_pages_direct = ATOMIC_LONG_INIT(0);

/*
 * Who is told of every cache made and freed: debugfs.c, a layer above, which gives each
 * cache its directory. Set before slablab_slab_init() and cleared after
 * slablab_slab_exit() (module init and exit), so it never changes while caches come
 * and go.
 */
static const struct slablab_cache_observer *slablab_observer;

static struct kmem_cache *slablab_meta_cache;
static struct workqueue_struct *slablab_flush_wq;
static enum cpuhp_state slablab_cpuhp_state;

/* The tid advances by a power of two at least the cpu count, so tid % TID_STEP = cpu. */
#define TID_STEP roundup_pow_of_two(CONFIG_NR_CPUS)

#define RZ_ACTIVE	0xcc	/* red zone of an allocated object (debug) */
#define RZ_INACTIVE	0xbb	/* red zone of a free object (debug) */
#define POISON_BYTE	0x6b	/* free object contents (debug) */
#define POISON_LAST	0xa5	/* last byte of a free object (debug) */

/* gfp bits that say how hard to try, passed on to the page and metadata allocations */
#define SLABLAB_RECLAIM_GFP (__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_NOWARN | \
			     __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | __GFP_NORETRY | \
			     __GFP_MEMALLOC | __GFP_NOMEMALLOC | __GFP_HIGH)

static inline unsigned long next_tid(unsigned long tid)
{
	return tid + TID_STEP;
}

static __always_inline void stat(struct slablab_cache *s, enum slablab_stat_item si)
{
	this_cpu_inc(s->cpu->stat[si]);
}

static __always_inline void stat_add(struct slablab_cache *s, enum slablab_stat_item si,
				     unsigned long n)
{
	this_cpu_add(s->cpu->stat[si], n);
}

/* ---- double-word cmpxchg, 6.1 (cmpxchg_double) and 6.6+ (cmpxchg128) ---- */

static __always_inline bool pair_cmpxchg(union slablab_pair *p, union slablab_pair old,
					 union slablab_pair new)
{
#ifdef system_has_cmpxchg128
	return try_cmpxchg128(&p->full, &old.full, new.full);
#else
	return cmpxchg_double(&p->freelist, &p->word, old.freelist, old.word,
			      new.freelist, new.word);
#endif
}

/*
 * The per-cpu freelist+tid cmpxchg. The kernel's this_cpu_cmpxchg_double() may call an
 * emulation helper that is not exported to modules, so issue cmpxchg16b on the %gs
 * per-cpu segment ourselves (x86-64 only; slablab_slab_init() checks CX16). No lock
 * prefix: only this cpu (and its interrupts) may touch the word, as in the kernel.
 */
static __always_inline bool cpu_pair_cmpxchg(struct slablab_cpu __percpu *pc,
					     union slablab_pair old, union slablab_pair new)
{
	void *o1 = old.freelist;
	unsigned long o2 = old.word;
	bool ok;

	asm volatile("cmpxchg16b %%gs:%[var]"
		     CC_SET(z)
		     : CC_OUT(z) (ok), [var] "+m" (*(union slablab_pair __force *)&pc->ft),
		       "+a" (o1), "+d" (o2)
		     : "b" (new.freelist), "c" (new.word)
		     : "memory");
	return ok;
}

static bool slablab_have_cmpxchg_double(void)
{
#ifdef system_has_cmpxchg128
	return system_has_cmpxchg128();
#else
	return system_has_cmpxchg_double();
#endif
}

/* A racy but tear-free enough snapshot; every use re-checks it with pair_cmpxchg(). */
static __always_inline union slablab_pair read_pair(union slablab_pair *p)
{
	union slablab_pair v;

	v.word = READ_ONCE(p->word);
	v.freelist = READ_ONCE(p->freelist);
	return v;
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

/* ---- free pointers ---- */

static __always_inline void *fp_code(const struct slablab_cache *s, void *ptr,
				     unsigned long addr)
{
	if (s->flags & SLABLAB_CACHE_F_HARDENED)
		return (void *)((unsigned long)ptr ^ s->random ^ swab(addr));
	return ptr;
}

static __always_inline void *get_fp(const struct slablab_cache *s, void *obj)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;

	return fp_code(s, READ_ONCE(*(void **)addr), addr);
}

/*
 * The lockless alloc fast path reads the free pointer of a cpu freelist head it read
 * earlier. If the task was preempted or migrated in between, that object may since
 * have been allocated, or its slab flushed, emptied and freed to the page allocator;
 * the cmpxchg then fails on the tid and the value is never used, but the read itself
 * happens, as in SLUB's get_freepointer_safe(). mm/slub.c is built without KASAN and
 * KCSAN instrumentation (KASAN_SANITIZE_slub.o := n), so its plain read passes; here
 * READ_ONCE() would have KASAN report a use-after-free of the freed page. Read it the
 * way only this read may: READ_ONCE_NOCHECK(), unseen by KASAN and KCSAN. With
 * DEBUG_PAGEALLOC the freed page is unmapped: read it without faulting.
 */
static __always_inline void *get_fp_safe(const struct slablab_cache *s, void *obj)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;
	void *p;

	if (IS_ENABLED(CONFIG_DEBUG_PAGEALLOC) && debug_pagealloc_enabled_static()) {
		if (copy_from_kernel_nofault(&p, (void **)addr, sizeof(p)))
			return NULL;
	} else {
		p = READ_ONCE_NOCHECK(*(void **)addr);
	}
	return fp_code(s, p, addr);
}

static __always_inline void set_fp(const struct slablab_cache *s, void *obj, void *fp)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;

	*(void **)addr = fp_code(s, fp, addr);
}

static __always_inline struct slablab_slab *obj_to_slab(const void *obj)
{
	return (struct slablab_slab *)page_private(virt_to_head_page(obj));
}

static __always_inline bool node_match(struct slablab_slab *slab, int node)
{
	return node == NUMA_NO_NODE || slab_nid(slab) == node;
}

/*
 * The node check of the lockless fast path, which holds no lock on c->slab: that slab
 * may have been freed, its metadata with it (a kmem_cache object, or the slab's own
 * leftover space). Ask the struct page of the freelist head instead, which always
 * exists (it lies in the cpu slab, so its node is the slab's), as SLUB's node_match()
 * reads only the struct slab overlaying struct page.
 */
static __always_inline bool obj_node_match(const void *obj, int node)
{
	return node == NUMA_NO_NODE || page_to_nid(virt_to_page(obj)) == node;
}

static unsigned int slab_objects(struct slablab_slab *slab)
{
	struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

	return c.objects;
}

/* ---- debug: red zones, poison, double-free detection ---- */

static unsigned int rz_len(const struct slablab_cache *s)
{
	return ALIGN(s->object_size, sizeof(void *)) - s->object_size + sizeof(void *);
}

/*
 * The last red-zone byte is the object's state (allocated or free), flipped with a byte
 * cmpxchg; the bytes before it are pattern, so a small overflow hits pattern first and
 * is reported without losing track of the object.
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

static void debug_alloc_check(struct slablab_cache *s, void *obj)
{
	struct slablab_slab *slab = obj_to_slab(obj);
	u8 *rz = (u8 *)obj + s->object_size;
	unsigned int i, len = rz_len(s);
	u8 *p = obj;

	if (cmpxchg(rz_state(s, obj), (u8)RZ_INACTIVE, (u8)RZ_ACTIVE) != (u8)RZ_INACTIVE)
		debug_report(s, slab, obj, "allocated object was not free (corrupt freelist)");
	for (i = 0; i + 1 < len; i++) {
		if (rz[i] != RZ_INACTIVE) {
			debug_report(s, slab, obj, "red zone overwritten while free");
			break;
		}
	}
	memset(rz, RZ_ACTIVE, len - 1);
	if (s->ctor)
		return;
	for (i = 0; i + 1 < s->object_size; i++) {
		if (p[i] != POISON_BYTE)
			break;
	}
	if (i + 1 < s->object_size || p[s->object_size - 1] != POISON_LAST)
		debug_report(s, slab, obj, "write after free");
}

/* Returns false when the object must not be freed (already free, not ours). */
static bool debug_free_check(struct slablab_cache *s, struct slablab_slab *slab, void *obj)
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

/* ---- slabs ---- */

static void add_partial(struct slablab_node *n, struct slablab_slab *slab, bool tail)
{
	lockdep_assert_held(&n->list_lock);
	if (tail)
		list_add_tail(&slab->node_list, &n->partial);
	else
		list_add(&slab->node_list, &n->partial);
	slab->base_flags |= SLABLAB_SLAB_ON_PARTIAL;
	n->nr_partial++;
}

static void remove_partial(struct slablab_node *n, struct slablab_slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	list_del(&slab->node_list);
	slab->base_flags &= ~SLABLAB_SLAB_ON_PARTIAL;
	n->nr_partial--;
}

/*
 * An empty unfrozen slab off every list will be discarded once list_lock is dropped:
 * say so while the lock is held (validate holds it, see SLABLAB_SLAB_DYING).
 */
static void mark_dying(struct slablab_node *n, struct slablab_slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	slab->base_flags |= SLABLAB_SLAB_DYING;
}

static unsigned int min_order_for(const struct slablab_cache *s)
{
	return slablab_size_order(s->stride, PAGE_SIZE);
}

/* Lay out a fresh slab's freelist: in order, or along the cache's random sequence. */
static void *build_freelist(struct slablab_cache *s, void *base, unsigned int nr)
{
	void *head = NULL, *prev = NULL;
	unsigned int i, pos = 0, idx, taken = 0;

	if (s->random_seq)
		pos = get_random_u32() % s->random_seq_len;
	for (i = 0; taken < nr; i++) {
		void *obj;

		if (s->random_seq) {
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

/*
 * A new slab for the calling cpu. It is published on s->all_slabs already frozen, with
 * every object counted in use and its freelist handed to the caller in @freelist, so
 * that nobody (validate) ever sees it unfrozen with a freelist the cpu is consuming.
 */
static struct slablab_slab *new_slab(struct slablab_cache *s, gfp_t gfp, int node,
				     void **freelist)
{
	unsigned int order = READ_ONCE(s->order), min_order = min_order_for(s);
	gfp_t pgfp = (gfp & SLABLAB_RECLAIM_GFP) | __GFP_COMP;
	struct slablab_counters cnt = { .word = 0 };
	struct slablab_slab *slab;
	struct page *page = NULL;
	unsigned int fail_every = READ_ONCE(s->fail_slab_every);
	unsigned int nr, meta_off;
	unsigned long flags;

	if (order < min_order)
		order = min_order;
	/* Read once: the knob may drop to 0 between a test and a division. */
	if (unlikely(fail_every) &&
	    !((unsigned int)atomic_inc_return(&s->fail_slab_count) % fail_every))
		return NULL;	/* injected failure: as if the page allocator said no */
	if (fail_new_slab(gfp, order))
		return NULL;
	if (order > min_order)
		/* Don't work hard for a high order: fall back to the smallest that fits. */
		page = alloc_pages_node(node, (pgfp | __GFP_NOWARN | __GFP_NORETRY) &
					~__GFP_NOFAIL, order);
	if (!page && order > min_order) {
		order = min_order;
		page = alloc_pages_node(node, pgfp, order);
		if (page)
			stat(s, SLABLAB_ORDER_FALLBACK);
	} else if (!page) {
		page = alloc_pages_node(node, pgfp, order);
	}
	if (!page)
		return NULL;
	nr = slablab_objs_per_slab(order, s->stride, PAGE_SIZE);
	meta_off = ALIGN(nr * s->stride, sizeof(*slab));
	if (meta_off + sizeof(*slab) <= (PAGE_SIZE << order)) {
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
	return slab;
}

static void discard_slab(struct slablab_cache *s, struct slablab_slab *slab)
{
	bool on_slab = slab->base_flags & SLABLAB_SLAB_ON_SLAB;
	struct page *page = slab_page(slab);
	unsigned int order = slab_order(slab);
	unsigned long flags;

	spin_lock_irqsave(&s->slabs_lock, flags);
	list_del(&slab->all_list);
	s->nr_slabs--;
	s->total_objects -= slab_objects(slab);
	s->nr_pages -= 1UL << order;
	if (!on_slab)
		s->nr_meta_slabs--;
	spin_unlock_irqrestore(&s->slabs_lock, flags);

	/* On-slab metadata goes with the pages: read everything first. */
	set_page_private(page, 0);
	if (!on_slab)
		kmem_cache_free(slablab_meta_cache, slab);
	__free_pages(page, order);
	stat(s, SLABLAB_FREE_SLAB);
}

/*
 * Take a frozen slab's whole freelist for its cpu. When there is none the slab is
 * unfrozen in the same cmpxchg: it is full and belongs to no list from then on.
 */
static void *get_freelist(struct slablab_cache *s, struct slablab_slab *slab)
{
	union slablab_pair old, new;
	struct slablab_counters c;

	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		c.inuse = c.objects;
		c.frozen = !!old.freelist;
		new.freelist = NULL;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			return old.freelist;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
}

/*
 * Give a cpu slab back: merge the cpu's freelist into the slab's, unfreeze it, and put
 * it where its fill level says (node partial list, freed, or nowhere when full).
 * As SLUB 6.1 does, a slab goes to the partial list's tail when it had remote frees
 * (objects on slab->fc.freelist: it is likely to get more, so use others first), else
 * to its head. Returns whether the slab was freed.
 */
static bool deactivate_slab(struct slablab_cache *s, struct slablab_slab *slab, void *freelist)
{
	struct slablab_node *n = s->node[slab_nid(slab)];
	struct slablab_counters c;
	union slablab_pair old, new;
	unsigned int cnt = 0;
	unsigned long flags;
	void *tail = NULL, *p;

	for (p = freelist; p; p = get_fp(s, p)) {
		tail = p;
		cnt++;
	}
	spin_lock_irqsave(&n->list_lock, flags);
	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		if (tail)
			set_fp(s, tail, old.freelist);
		c.inuse -= cnt;
		c.frozen = 0;
		new.freelist = tail ? freelist : old.freelist;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (old.freelist)
		stat(s, SLABLAB_DEACTIVATE_REMOTE_FREES);
	if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
		mark_dying(n, slab);
		spin_unlock_irqrestore(&n->list_lock, flags);
		stat(s, SLABLAB_DEACTIVATE_EMPTY);
		discard_slab(s, slab);
		return true;
	}
	if (new.freelist) {
		add_partial(n, slab, !!old.freelist);
		stat(s, old.freelist ? SLABLAB_DEACTIVATE_TO_TAIL : SLABLAB_DEACTIVATE_TO_HEAD);
	} else {
		stat(s, SLABLAB_DEACTIVATE_FULL);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return false;
}

/*
 * Unfreeze a list of cpu partial slabs onto their node lists (or free empty ones).
 * Returns the number of slabs freed.
 */
static unsigned int unfreeze_partials(struct slablab_cache *s, struct slablab_slab *list)
{
	unsigned int freed = 0;

	while (list) {
		struct slablab_slab *slab = list;
		struct slablab_node *n = s->node[slab_nid(slab)];
		struct slablab_counters c;
		union slablab_pair old, new;
		unsigned long flags;

		list = slab->next;
		slab->next = NULL;
		spin_lock_irqsave(&n->list_lock, flags);
		for (;;) {
			old = read_pair(&slab->fc);
			c.word = old.word;
			c.frozen = 0;
			new.freelist = old.freelist;
			new.word = c.word;
			if (pair_cmpxchg(&slab->fc, old, new))
				break;
			stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
		}
		if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
			mark_dying(n, slab);
			spin_unlock_irqrestore(&n->list_lock, flags);
			stat(s, SLABLAB_DEACTIVATE_EMPTY);
			discard_slab(s, slab);
			freed++;
			continue;
		}
		if (old.freelist) {
			add_partial(n, slab, true);
			stat(s, SLABLAB_FREE_ADD_PARTIAL);
		}
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	return freed;
}

/* A free froze a slab that was full: keep it on this cpu's partial list. */
static void put_cpu_partial(struct slablab_cache *s, struct slablab_slab *slab)
{
	struct slablab_slab *drain = NULL;
	struct slablab_cpu *c;
	unsigned long flags;
	unsigned int limit;

	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	limit = READ_ONCE(s->cpu_partial_slabs);
	if (!limit) {
		/* cpu_partial was set to 0 after the free decided: hand it to the node. */
		local_unlock_irqrestore(&s->cpu->lock, flags);
		slab->next = NULL;
		unfreeze_partials(s, slab);
		return;
	}
	if (c->partial && c->partial_slabs >= limit) {
		drain = c->partial;
		c->partial = NULL;
		c->partial_slabs = 0;
	}
	slab->next = c->partial;
	c->partial = slab;
	c->partial_slabs++;
	local_unlock_irqrestore(&s->cpu->lock, flags);
	stat(s, SLABLAB_CPU_PARTIAL_FREE);
	if (drain) {
		unfreeze_partials(s, drain);
		stat(s, SLABLAB_CPU_PARTIAL_DRAIN);
	}
}

/*
 * Take slabs from a node list: the first becomes the cpu slab (its freelist is
 * returned), more go to the cpu partial list up to half its bound. Called with the
 * cpu's local_lock held.
 */
static void *get_partial_node(struct slablab_cache *s, struct slablab_node *n,
			      struct slablab_cpu *c, struct slablab_slab **ret)
{
	struct slablab_slab *slab, *tmp;
	void *freelist = NULL;
	unsigned long flags;

	if (!n || !READ_ONCE(n->nr_partial))
		return NULL;
	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry_safe(slab, tmp, &n->partial, node_list) {
		struct slablab_counters cn;
		union slablab_pair old, new;

		for (;;) {
			old = read_pair(&slab->fc);
			cn.word = old.word;
			cn.frozen = 1;
			if (!freelist)
				cn.inuse = cn.objects;
			new.freelist = freelist ? old.freelist : NULL;
			new.word = cn.word;
			if (pair_cmpxchg(&slab->fc, old, new))
				break;
			stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
		}
		remove_partial(n, slab);
		if (!freelist) {
			freelist = old.freelist;
			*ret = slab;
			if (!READ_ONCE(s->cpu_partial_slabs))
				break;
			continue;
		}
		slab->next = c->partial;
		c->partial = slab;
		c->partial_slabs++;
		stat(s, SLABLAB_CPU_PARTIAL_NODE);
		if (c->partial_slabs > READ_ONCE(s->cpu_partial_slabs) / 2)
			break;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return freelist;
}

static void *get_partial(struct slablab_cache *s, gfp_t gfp, int node, struct slablab_cpu *c,
			 struct slablab_slab **ret)
{
	int local = node == NUMA_NO_NODE ? numa_mem_id() : node, nid;
	unsigned int ratio = READ_ONCE(s->remote_node_defrag_ratio);
	void *freelist;

	freelist = get_partial_node(s, s->node[local], c, ret);
	/* __GFP_THISNODE: SLUB's zonelist for it (ZONELIST_NOFALLBACK) has no other node */
	if (freelist || node != NUMA_NO_NODE || (gfp & __GFP_THISNODE))
		return freelist;
	/*
	 * SLUB's get_any_partial(): another node's partial slab instead of a new one, for
	 * ratio percent of such allocations (get_cycles() as the cheap dice), and only from
	 * nodes keeping more than min_partial, so that remote allocations defragment
	 * the other nodes rather than empty their reserve. Unlike SLUB, nodes are tried in
	 * id order, not by distance (its zonelist walk), and cpusets and the task's mempolicy
	 * are not consulted: __cpuset_node_allowed() and the zonelist iterator are not
	 * exported to modules.
	 */
	if (!ratio || get_cycles() % 1024 > ratio * 10)
		return NULL;
	for_each_online_node(nid) {
		struct slablab_node *n = s->node[nid];

		if (nid == local || !n || READ_ONCE(n->nr_partial) <= READ_ONCE(s->min_partial))
			continue;
		freelist = get_partial_node(s, n, c, ret);
		if (freelist)
			return freelist;
	}
	return NULL;
}

/* Everything that is not "pop the cpu freelist". */
static void *slab_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_slab *slab, *fresh;
	struct slablab_cpu *c;
	unsigned long flags;
	void *freelist, *obj;

	/*
	 * A node without normal memory (memoryless, offline) never has slabs of its own:
	 * the page allocator falls back elsewhere, so insisting on the node would take a
	 * new slab for every allocation. Ignore the constraint, as SLUB (slab_nodes) does.
	 */
	if (node != NUMA_NO_NODE && !node_state(node, N_NORMAL_MEMORY))
		node = NUMA_NO_NODE;
	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
retry:
	slab = c->slab;
	if (slab && !node_match(slab, node)) {
		freelist = c->ft.freelist;
		c->slab = NULL;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&s->cpu->lock, flags);
		stat(s, SLABLAB_ALLOC_NODE_MISMATCH);
		deactivate_slab(s, slab, freelist);
		local_lock_irqsave(&s->cpu->lock, flags);
		c = this_cpu_ptr(s->cpu);
		goto retry;
	}
	if (slab && c->ft.freelist) {
		/* An interrupt freed to us, or we moved to a cpu whose freelist has objects. */
		freelist = c->ft.freelist;
		goto load;
	}
	if (slab) {
		/*
		 * get_freelist() unfreezes a slab it finds full; remote frees may then empty
		 * and discard it at once. Take it out of c->slab first, so that nobody who
		 * reads c->slab (slablab_cpu_view(), under slabs_lock, which discard_slab()
		 * needs) can find a slab that is already freed; back when it had objects.
		 */
		WRITE_ONCE(c->slab, NULL);
		freelist = get_freelist(s, slab);
		if (freelist) {
			WRITE_ONCE(c->slab, slab);
			stat(s, SLABLAB_ALLOC_REFILL);
			goto load;
		}
		c->ft.word = next_tid(c->ft.word);
		stat(s, SLABLAB_DEACTIVATE_BYPASS);
	}
	if (c->partial && node_match(c->partial, node)) {
		slab = c->partial;
		c->partial = slab->next;
		c->partial_slabs--;
		slab->next = NULL;
		c->slab = slab;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(c->ft.word);
		stat(s, SLABLAB_CPU_PARTIAL_ALLOC);
		goto retry;
	}
	freelist = get_partial(s, gfp, node, c, &slab);
	if (freelist) {
		c->slab = slab;
		stat(s, SLABLAB_ALLOC_FROM_PARTIAL);
		goto load;
	}
	local_unlock_irqrestore(&s->cpu->lock, flags);

	fresh = new_slab(s, gfp, node, &freelist);
	if (!fresh)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLAB);

	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	if (unlikely(c->slab)) {
		/* The cpu got a slab while we slept: keep one object, give the rest back. */
		local_unlock_irqrestore(&s->cpu->lock, flags);
		obj = freelist;
		deactivate_slab(s, fresh, get_fp(s, obj));
		stat(s, SLABLAB_ALLOC_SLOWPATH);
		return obj;
	}
	c->slab = fresh;
load:
	obj = freelist;
	c->ft.freelist = get_fp(s, obj);
	c->ft.word = next_tid(c->ft.word);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	stat(s, SLABLAB_ALLOC_SLOWPATH);
	return obj;
}

/*
 * Test hook (selftests=1): runs in the cmpxchg fast path between reading the cpu
 * freelist and using it, where a preempted task can lose its cpu slab to the rest of
 * the system. See slablab_selftest_fastpath_race().
 */
static DEFINE_STATIC_KEY_FALSE(slablab_race_hook);
static void fastpath_race_hook(struct slablab_cache *s);

static __always_inline bool use_locked_fastpath(const struct slablab_cache *s)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) ||
	       READ_ONCE(s->fastpath) == SLABLAB_FASTPATH_IRQOFF;
}

static __always_inline void *alloc_hook(struct slablab_cache *s, void *obj, gfp_t gfp)
{
	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG))
		debug_alloc_check(s, obj);
	if (!s->ctor && want_init_on_alloc(gfp))
		memset(obj, 0, s->object_size);
	return obj;
}

static __always_inline void *slab_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_cpu __percpu *pc = s->cpu;
	struct slablab_slab *slab;
	union slablab_pair old, new;
	struct slablab_cpu *c;
	unsigned long flags;
	void *obj;

	might_alloc(gfp);
	if (use_locked_fastpath(s)) {
		local_lock_irqsave(&pc->lock, flags);
		c = this_cpu_ptr(pc);
		obj = c->ft.freelist;
		if (unlikely(!obj || !c->slab || !node_match(c->slab, node))) {
			local_unlock_irqrestore(&pc->lock, flags);
			obj = slab_alloc_slow(s, gfp, node);
			goto out;
		}
		c->ft.freelist = get_fp(s, obj);
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&pc->lock, flags);
		stat(s, SLABLAB_ALLOC_FASTPATH);
		goto out;
	}
redo:
	c = raw_cpu_ptr(pc);
	old.word = READ_ONCE(c->ft.word);
	barrier();	/* the tid first: a freelist read after it can't be newer */
	old.freelist = READ_ONCE(c->ft.freelist);
	slab = READ_ONCE(c->slab);
	if (static_branch_unlikely(&slablab_race_hook))
		fastpath_race_hook(s);
	if (unlikely(!old.freelist || !slab || !obj_node_match(old.freelist, node))) {
		obj = slab_alloc_slow(s, gfp, node);
		goto out;
	}
	new.freelist = get_fp_safe(s, old.freelist);
	new.word = next_tid(old.word);
	if (unlikely(!cpu_pair_cmpxchg(pc, old, new))) {
		stat(s, SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	obj = old.freelist;
	stat(s, SLABLAB_ALLOC_FASTPATH);
out:
	if (likely(obj))
		alloc_hook(s, obj, gfp);
	return obj;
}

/*
 * Free a detached list head..tail of cnt objects, all of one slab that is not (or no
 * longer) this cpu's slab.
 */
static void slab_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			   void *tail, unsigned int cnt)
{
	struct slablab_node *n = NULL;
	struct slablab_counters c;
	union slablab_pair old, new;
	unsigned long flags = 0;
	bool was_frozen;

	stat_add(s, SLABLAB_FREE_SLOWPATH, cnt);
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
			if (READ_ONCE(s->cpu_partial_slabs) && !old.freelist) {
				/* Full slab turning partial: freeze it onto our cpu's list. */
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
		else if (c.frozen)
			put_cpu_partial(s, slab);
		return;
	}
	if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
		if (old.freelist) {
			/* It had free objects and was unfrozen: it is on the node list. */
			remove_partial(n, slab);
			stat(s, SLABLAB_FREE_REMOVE_PARTIAL);
		}
		mark_dying(n, slab);
		spin_unlock_irqrestore(&n->list_lock, flags);
		discard_slab(s, slab);
		return;
	}
	if (!old.freelist) {
		add_partial(n, slab, true);
		stat(s, SLABLAB_FREE_ADD_PARTIAL);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
}

static __always_inline void do_slab_free(struct slablab_cache *s, struct slablab_slab *slab,
					 void *head, void *tail, unsigned int cnt)
{
	struct slablab_cpu __percpu *pc = s->cpu;
	union slablab_pair old, new;
	struct slablab_cpu *c;
	unsigned long flags;

	if (use_locked_fastpath(s)) {
		local_lock_irqsave(&pc->lock, flags);
		c = this_cpu_ptr(pc);
		if (unlikely(slab != c->slab)) {
			local_unlock_irqrestore(&pc->lock, flags);
			slab_free_slow(s, slab, head, tail, cnt);
			return;
		}
		set_fp(s, tail, c->ft.freelist);
		c->ft.freelist = head;
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&pc->lock, flags);
		stat_add(s, SLABLAB_FREE_FASTPATH, cnt);
		return;
	}
redo:
	c = raw_cpu_ptr(pc);
	old.word = READ_ONCE(c->ft.word);
	barrier();	/* tid before slab: a slab change bumps the tid */
	if (unlikely(slab != READ_ONCE(c->slab))) {
		slab_free_slow(s, slab, head, tail, cnt);
		return;
	}
	old.freelist = READ_ONCE(c->ft.freelist);
	set_fp(s, tail, old.freelist);
	new.freelist = head;
	new.word = next_tid(old.word);
	if (unlikely(!cpu_pair_cmpxchg(pc, old, new))) {
		stat(s, SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL);
		goto redo;
	}
	stat_add(s, SLABLAB_FREE_FASTPATH, cnt);
}

/* Prepare one object for freeing; false when debug checks refuse it. */
static __always_inline bool free_hook(struct slablab_cache *s, struct slablab_slab *slab,
				      void *obj)
{
	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG))
		return debug_free_check(s, slab, obj);
	if (want_init_on_free() && !s->ctor)
		memset(obj, 0, s->object_size);
	return true;
}

/* ---- flushing per-cpu state ---- */

enum flush_mode { FLUSH_ALL, FLUSH_PARTIAL_OVER_LIMIT };

struct slablab_flush_work {
	struct work_struct work;
	struct slablab_cache *s;
	enum flush_mode mode;
	bool skip;		/* nothing to flush on this cpu: no work queued */
	unsigned int freed;	/* slabs the flush freed */
};

static DEFINE_PER_CPU(struct slablab_flush_work, slablab_flush_works);

/* Detach a cpu's slab and partial list; @c is this cpu's (lock held) or a dead cpu's. */
static void detach_cpu(struct slablab_cpu *c, enum flush_mode mode, struct slablab_cache *s,
		       struct slablab_slab **slab, void **freelist,
		       struct slablab_slab **partial)
{
	*slab = NULL;
	*freelist = NULL;
	*partial = NULL;
	if (mode == FLUSH_ALL) {
		*slab = c->slab;
		*freelist = c->ft.freelist;
		c->slab = NULL;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(c->ft.word);
	}
	if (mode == FLUSH_ALL || c->partial_slabs > READ_ONCE(s->cpu_partial_slabs)) {
		*partial = c->partial;
		c->partial = NULL;
		c->partial_slabs = 0;
	}
}

/* Returns the number of slabs freed. */
static unsigned int flush_detached(struct slablab_cache *s, struct slablab_slab *slab,
				   void *freelist, struct slablab_slab *partial)
{
	unsigned int freed = 0;

	if (slab) {
		freed += deactivate_slab(s, slab, freelist);
		stat(s, SLABLAB_CPUSLAB_FLUSH);
	}
	if (partial) {
		freed += unfreeze_partials(s, partial);
		stat(s, SLABLAB_CPU_PARTIAL_DRAIN);
	}
	return freed;
}

static void flush_cpu_work(struct work_struct *w)
{
	struct slablab_flush_work *fw = container_of(w, struct slablab_flush_work, work);
	struct slablab_cache *s = fw->s;
	struct slablab_slab *slab, *partial;
	unsigned long flags;
	void *freelist;

	local_lock_irqsave(&s->cpu->lock, flags);
	detach_cpu(this_cpu_ptr(s->cpu), fw->mode, s, &slab, &freelist, &partial);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	fw->freed = flush_detached(s, slab, freelist, partial);
}

/*
 * Whether a cpu has anything for a flush to do, read from another cpu without its lock,
 * as SLUB 6.1's has_cpu_slab(): a cpu without a cpu slab or cpu partial slabs is
 * skipped (a FLUSH_PARTIAL_OVER_LIMIT one unless its list is over the bound). The
 * work re-reads everything under the cpu's lock.
 */
static bool cpu_needs_flush(struct slablab_cache *s, int cpu, enum flush_mode mode)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

	if (mode == FLUSH_PARTIAL_OVER_LIMIT)
		return READ_ONCE(c->partial_slabs) > READ_ONCE(s->cpu_partial_slabs);
	return READ_ONCE(c->slab) || READ_ONCE(c->partial);
}

/*
 * Run the flush on every online cpu that has something to flush, and wait. Needs
 * cpus_read_lock and slablab_mutex. Returns the number of slabs the flush freed.
 *
 * The skip is best effort on a busy cache, as in SLUB 6.1: a cpu between taking a new
 * slab and publishing it may read as empty. That is fine for shrink, validate and a
 * cpu_partial change; callers that free every slab afterwards (destroy, a flags
 * change) must not leave a cpu pointing into freed pages, so they pass @every_cpu.
 */
static unsigned long flush_cpus(struct slablab_cache *s, enum flush_mode mode, bool every_cpu)
{
	unsigned long freed = 0;
	int cpu;

	lockdep_assert_held(&slablab_mutex);
	for_each_online_cpu(cpu) {
		struct slablab_flush_work *fw = per_cpu_ptr(&slablab_flush_works, cpu);

		fw->skip = !every_cpu && !cpu_needs_flush(s, cpu, mode);
		if (fw->skip)
			continue;
		fw->s = s;
		fw->mode = mode;
		fw->freed = 0;
		INIT_WORK(&fw->work, flush_cpu_work);
		queue_work_on(cpu, slablab_flush_wq, &fw->work);
	}
	for_each_online_cpu(cpu) {
		struct slablab_flush_work *fw = per_cpu_ptr(&slablab_flush_works, cpu);

		if (fw->skip)
			continue;
		flush_work(&fw->work);
		freed += fw->freed;
	}
	return freed;
}

static unsigned long flush_all_mode(struct slablab_cache *s, enum flush_mode mode)
{
	return flush_cpus(s, mode, false);
}

/* The race the test hook stages: the rest of the system flushed this cpu meanwhile. */
static noinline void fastpath_race_hook(struct slablab_cache *s)
{
	struct slablab_slab *slab, *partial;
	unsigned long flags;
	void *freelist;

	if (READ_ONCE(s->selftest_race) != current)
		return;
	WRITE_ONCE(s->selftest_race, NULL);
	local_lock_irqsave(&s->cpu->lock, flags);
	detach_cpu(this_cpu_ptr(s->cpu), FLUSH_ALL, s, &slab, &freelist, &partial);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	flush_detached(s, slab, freelist, partial);
}

/**
 * slablab_selftest_fastpath_race - make the cmpxchg fast path lose its race (selftests=1)
 * @s: the cache
 *
 * Twice (slablab_cache_alloc(), then slablab_cache_alloc_node() for this node): leave
 * this cpu an empty cpu slab with every object on the cpu freelist, then allocate with
 * the test hook armed. Between reading the freelist head and reading that object's free
 * pointer, the hook flushes the cpu: the slab is deactivated and, with min_partial=0,
 * handed back to the page allocator. The allocation must then fail its cmpxchg (the
 * flush moved the tid), having read only what may be read of a freed slab, and retry.
 *
 * Return: 0; -EOPNOTSUPP when the cache's fast path takes the local lock (irqoff,
 * PREEMPT_RT: there is no window); -ENOMEM; -EIO when the hook did not run.
 */
int slablab_selftest_fastpath_race(struct slablab_cache *s)
{
	int round, err = 0;
	void *obj;

	if (!slablab_selftests)
		return -EPERM;
	if (use_locked_fastpath(s))
		return -EOPNOTSUPP;
	static_branch_inc(&slablab_race_hook);
	for (round = 0; round < 2 && !err; round++) {
		preempt_disable();
		obj = slablab_cache_alloc(s, GFP_ATOMIC);
		if (!obj) {
			err = -ENOMEM;
			goto next;
		}
		slablab_cache_free(s, obj);
		WRITE_ONCE(s->selftest_race, current);
		if (round)
			obj = slablab_cache_alloc_node(s, GFP_ATOMIC, numa_node_id());
		else
			obj = slablab_cache_alloc(s, GFP_ATOMIC);
		if (READ_ONCE(s->selftest_race)) {
			WRITE_ONCE(s->selftest_race, NULL);
			err = -EIO;
		}
		if (obj)
			slablab_cache_free(s, obj);
		else if (!err)
			err = -ENOMEM;
next:
		preempt_enable();
	}
	static_branch_dec(&slablab_race_hook);
	return err;
}

static int slablab_cpu_dead(unsigned int cpu)
{
	struct slablab_slab *slab, *partial;
	struct slablab_cache *s;
	void *freelist;

	mutex_lock(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list) {
		/* The cpu is gone: nobody else touches its per-cpu state. */
		detach_cpu(per_cpu_ptr(s->cpu, cpu), FLUSH_ALL, s, &slab, &freelist, &partial);
		flush_detached(s, slab, freelist, partial);
	}
	mutex_unlock(&slablab_mutex);
	return 0;
}

/* ---- public allocation API ---- */

/**
 * slablab_cache_alloc - allocate an object from a slablab cache
 * @s: the cache
 * @gfp: allocation flags, as for kmem_cache_alloc()
 *
 * Return: the object, or NULL when memory could not be had.
 */
void *slablab_cache_alloc(struct slablab_cache *s, gfp_t gfp)
{
	return slab_alloc(s, gfp, NUMA_NO_NODE);
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc);

/**
 * slablab_cache_alloc_node - allocate an object from a given NUMA node
 * @s: the cache
 * @gfp: allocation flags
 * @node: node to allocate from, or NUMA_NO_NODE
 *
 * Return: the object, or NULL.
 */
void *slablab_cache_alloc_node(struct slablab_cache *s, gfp_t gfp, int node)
{
	/* Nodes without normal memory are mapped to NUMA_NO_NODE by the slow path. */
	if (node != NUMA_NO_NODE && (node < 0 || node >= nr_node_ids))
		node = NUMA_NO_NODE;
	return slab_alloc(s, gfp, node);
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc_node);

/**
 * slablab_cache_free - free an object to the cache it came from
 * @s: the cache
 * @obj: the object; NULL is ignored
 */
void slablab_cache_free(struct slablab_cache *s, void *obj)
{
	struct slablab_slab *slab;

	if (unlikely(!obj))
		return;
	slab = obj_to_slab(obj);
	if (!free_hook(s, slab, obj))
		return;
	do_slab_free(s, slab, obj, obj, 1);
}
EXPORT_SYMBOL_GPL(slablab_cache_free);

/**
 * slablab_cache_free_bulk - free an array of objects
 * @s: the cache
 * @nr: number of objects
 * @p: the objects; NULL entries are skipped. The array's contents are consumed.
 *
 * Objects of one slab are linked into one detached freelist and freed with a single
 * cmpxchg, as kmem_cache_free_bulk() does.
 */
void slablab_cache_free_bulk(struct slablab_cache *s, size_t nr, void **p)
{
	unsigned int misses;
	size_t i, j;

	for (i = 0; i < nr; i++) {
		struct slablab_slab *slab;
		void *head, *tail;
		unsigned int cnt = 1;

		if (!p[i])
			continue;
		head = p[i];
		p[i] = NULL;
		slab = obj_to_slab(head);
		if (!free_hook(s, slab, head))
			continue;
		tail = head;
		/* Gather the following objects of the same slab, giving up after 3 misses. */
		for (j = i + 1, misses = 0; j < nr && misses < 3; j++) {
			void *obj = p[j];

			if (!obj)
				continue;
			if (obj_to_slab(obj) != slab) {
				misses++;
				continue;
			}
			p[j] = NULL;
			if (!free_hook(s, slab, obj))
				continue;
			set_fp(s, obj, head);
			head = obj;
			cnt++;
		}
		do_slab_free(s, slab, head, tail, cnt);
	}
}
EXPORT_SYMBOL_GPL(slablab_cache_free_bulk);

/**
 * slablab_cache_alloc_bulk - allocate an array of objects, all or nothing
 * @s: the cache
 * @gfp: allocation flags
 * @nr: number of objects
 * @p: array to fill
 *
 * Return: @nr on success, 0 when any allocation failed (and nothing is held).
 */
int slablab_cache_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p)
{
	struct slablab_cpu *c;
	unsigned long flags;
	size_t i, fast = 0;

	might_alloc(gfp);
	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	for (i = 0; i < nr; i++) {
		void *obj = c->ft.freelist;

		if (unlikely(!obj || !c->slab)) {
			c->ft.word = next_tid(c->ft.word);
			local_unlock_irqrestore(&s->cpu->lock, flags);
			p[i] = slab_alloc_slow(s, gfp, NUMA_NO_NODE);
			if (!p[i])
				goto fail;
			local_lock_irqsave(&s->cpu->lock, flags);
			c = this_cpu_ptr(s->cpu);
			continue;
		}
		c->ft.freelist = get_fp(s, obj);
		p[i] = obj;
		fast++;
	}
	c->ft.word = next_tid(c->ft.word);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	stat_add(s, SLABLAB_ALLOC_FASTPATH, fast);
	for (i = 0; i < nr; i++)
		alloc_hook(s, p[i], gfp);
	return nr;
fail:
	stat_add(s, SLABLAB_ALLOC_FASTPATH, fast);
	for (fast = 0; fast < i; fast++)
		alloc_hook(s, p[fast], gfp);
	slablab_cache_free_bulk(s, i, p);
	return 0;
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc_bulk);

/* ---- cache creation, tunables, destruction ---- */

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
 * Object slot layout from size, alignment and @flags: returns the stride and sets
 * *@fp_offset. Reads nothing of @s but its creation-time fields.
 */
static unsigned int layout_stride(const struct slablab_cache *s, unsigned int flags,
				  unsigned int *fp_offset)
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
	} else if (s->ctor) {
		/* The constructed object must survive being free: pointer after it. */
		*fp_offset = ALIGN(size, sizeof(void *));
		end = *fp_offset + sizeof(void *);
	} else {
		/* Mid-object, as SLUB does, away from the edges overflows hit first. */
		*fp_offset = ALIGN_DOWN(size / 2, sizeof(void *));
		end = max_t(unsigned int, size, sizeof(void *));
	}
	return slablab_stride(end, align);
}

/* The layout of the cache's current flags; sets stride and fp_offset. */
static void compute_layout(struct slablab_cache *s)
{
	s->stride = layout_stride(s, s->flags, &s->fp_offset);
}

static int init_random_seq(struct slablab_cache *s)
{
	unsigned int n = slablab_objs_per_slab(SLABLAB_MAX_ORDER, s->stride, PAGE_SIZE);
	unsigned int i;

	kvfree(s->random_seq);
	s->random_seq = NULL;
	s->random_seq_len = 0;
	if (!(s->flags & SLABLAB_CACHE_F_RANDOM) || n < 2)
		return 0;
	s->random_seq = kvmalloc_array(n, sizeof(*s->random_seq), GFP_KERNEL);
	if (!s->random_seq)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->random_seq[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned int j = get_random_u32() % (i + 1);

		swap(s->random_seq[i], s->random_seq[j]);
	}
	s->random_seq_len = n;
	return 0;
}

static void set_cpu_partial_bound(struct slablab_cache *s)
{
	unsigned int objs = slablab_objs_per_slab(READ_ONCE(s->order), s->stride, PAGE_SIZE);

	WRITE_ONCE(s->cpu_partial_slabs, slablab_cpu_partial_slabs(s->cpu_partial, objs));
}

/* Order policy for the current layout; -E2BIG when one object exceeds the largest slab. */
static int choose_order(struct slablab_cache *s, struct netlink_ext_ack *extack)
{
	/* The cpu count SLUB's calculate_order() uses: present cpus, else possible ids. */
	unsigned int nr_cpus = num_present_cpus() > 1 ? num_present_cpus() : nr_cpu_ids;
	struct slablab_order_choice oc;

	oc = slablab_calc_order(s->stride, nr_cpus, SLABLAB_DEFAULT_MAX_ORDER, PAGE_SIZE);
	if (oc.reason == SLABLAB_ORDER_TOO_BIG)
		oc = slablab_calc_order(s->stride, nr_cpus, SLABLAB_MAX_ORDER, PAGE_SIZE);
	if (oc.reason == SLABLAB_ORDER_TOO_BIG) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "object stride %u exceeds an order-%d slab",
				       s->stride, SLABLAB_MAX_ORDER);
		return -E2BIG;
	}
	s->order_choice = oc;
	s->order_default = oc.order;
	return 0;
}

static void free_cache_struct(struct slablab_cache *s)
{
	int nid;

	if (s->node) {
		for_each_node(nid)
			kfree(s->node[nid]);
		kfree(s->node);
	}
	kvfree(s->random_seq);
	free_percpu(s->cpu);
	kfree(s);
}

/**
 * slablab_cache_create_owner - create a cache (slablab_mutex and cpus_read_lock held)
 * @name: unique name, [A-Za-z0-9_.:-], shorter than SLABLAB_NAME_MAX
 * @size: object size, SLABLAB_MIN_SIZE..SLABLAB_MAX_SIZE
 * @align: 0 or a power of two up to SLABLAB_MAX_ALIGN
 * @flags: SLABLAB_CACHE_F_* (plus SLABLAB_KERNEL_DEFAULTS)
 * @ctor: constructor run on each object when its slab is created, or NULL
 * @owner: who owns the cache
 * @extack: where to say what was wrong, or NULL
 *
 * Return: the cache or an ERR_PTR.
 */
struct slablab_cache *slablab_cache_create_owner(const char *name, unsigned int size,
						 unsigned int align, unsigned int flags,
						 void (*ctor)(void *), enum slablab_owner owner,
						 struct netlink_ext_ack *extack)
{
	struct slablab_cache *s;
	int cpu, nid, err;

	lockdep_assert_held(&slablab_mutex);
	if (!slablab_valid_name(name, SLABLAB_NAME_MAX)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cache name must be 1-31 characters of [A-Za-z0-9_.:-], not . or ..");
		return ERR_PTR(-EINVAL);
	}
	if (size < SLABLAB_MIN_SIZE || size > SLABLAB_MAX_SIZE) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "object size %u out of range %u..%u",
				       size, SLABLAB_MIN_SIZE, SLABLAB_MAX_SIZE);
		return ERR_PTR(-ERANGE);
	}
	if (align && (!is_power_of_2(align) || align > SLABLAB_MAX_ALIGN)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "alignment %u is not a power of two up to %u",
				       align, SLABLAB_MAX_ALIGN);
		return ERR_PTR(-EINVAL);
	}
	if (flags & SLABLAB_KERNEL_DEFAULTS)
		flags = (flags & ~SLABLAB_KERNEL_DEFAULTS) | slablab_default_flags();
	if (flags & ~__SLABLAB_CACHE_F_ALL) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "unknown cache flags %#x",
				       flags & ~__SLABLAB_CACHE_F_ALL);
		return ERR_PTR(-EINVAL);
	}
	if (slablab_cache_find(name)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "cache %s already exists", name);
		return ERR_PTR(-EEXIST);
	}

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	strscpy(s->name, name, sizeof(s->name));
	s->object_size = size;
	s->align = align;
	s->flags = flags;
	s->ctor = ctor;
	s->owner = owner;
	s->fastpath = SLABLAB_FASTPATH_CMPXCHG;
	s->random = get_random_long();
	spin_lock_init(&s->slabs_lock);
	INIT_LIST_HEAD(&s->all_slabs);
	atomic_long_set(&s->debug_errors, 0);
	atomic_set(&s->users, 0);
	compute_layout(s);
	err = choose_order(s, extack);
	if (err)
		goto err_free;
	s->order = s->order_default;
	s->min_partial = slablab_default_min_partial(size);
	s->cpu_partial = slablab_default_cpu_partial(s->stride, PAGE_SIZE);
	set_cpu_partial_bound(s);
	s->remote_node_defrag_ratio = 100;	/* SLUB's default (1000 in its units of 0.1%) */

	err = -ENOMEM;
	if (init_random_seq(s))
		goto err_free;
	s->cpu = alloc_percpu_gfp(struct slablab_cpu, GFP_KERNEL | __GFP_ZERO);
	if (!s->cpu)
		goto err_free;
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		c->ft.word = cpu;	/* init tid: tid % TID_STEP is the cpu */
		local_lock_init(&c->lock);
	}
	s->node = kcalloc(nr_node_ids, sizeof(*s->node), GFP_KERNEL);
	if (!s->node)
		goto err_free;
	for_each_node(nid) {
		struct slablab_node *n = kzalloc_node(sizeof(*n), GFP_KERNEL,
						      node_state(nid, N_NORMAL_MEMORY) ?
						      nid : NUMA_NO_NODE);

		if (!n)
			goto err_free;
		spin_lock_init(&n->list_lock);
		INIT_LIST_HEAD(&n->partial);
		s->node[nid] = n;
	}
	list_add_tail(&s->list, &slablab_caches);
	slablab_caches_gen++;
	if (slablab_observer)
		slablab_observer->added(s);
	return s;

err_free:
	free_cache_struct(s);
	return ERR_PTR(err);
}

/**
 * slablab_cache_create - create a slablab cache
 * @name: unique name, [A-Za-z0-9_.:-], shorter than SLABLAB_NAME_MAX
 * @size: object size in bytes
 * @align: required alignment, 0 for the default
 * @flags: SLABLAB_DEBUG, SLABLAB_HARDENED, SLABLAB_RANDOM, SLABLAB_HWCACHE_ALIGN,
 *	   SLABLAB_KERNEL_DEFAULTS
 * @ctor: constructor, or NULL
 *
 * May sleep. The cache appears in netlink dumps and debugfs with owner "kernel".
 *
 * Return: the cache, or NULL on failure (the reason is logged).
 */
struct slablab_cache *slablab_cache_create(const char *name, unsigned int size,
					   unsigned int align, unsigned int flags,
					   void (*ctor)(void *))
{
	struct slablab_cache *s;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	s = slablab_cache_create_owner(name, size, align, flags, ctor,
				       SLABLAB_OWNER_KERNEL, NULL);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	if (IS_ERR(s)) {
		pr_err("cannot create cache %s (size %u): error %ld\n", name, size, PTR_ERR(s));
		return NULL;
	}
	return s;
}
EXPORT_SYMBOL_GPL(slablab_cache_create);

/* Free every slab of a cache that has no objects in use (destroy, relayout). */
static void discard_all_slabs(struct slablab_cache *s)
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
		discard_slab(s, slab);
	}
}

static u64 objects_in_use(struct slablab_cache *s)
{
	s64 n = slablab_stat_sum_raw_alloc(s);

	return n > 0 ? n : 0;
}

/**
 * slablab_cache_destroy_locked - destroy a cache (slablab_mutex and cpus_read_lock held)
 * @s: the cache
 * @extack: where to say why not, or NULL
 *
 * Return: 0, or -EBUSY while objects are allocated or a storm uses the cache.
 */
int slablab_cache_destroy_locked(struct slablab_cache *s, struct netlink_ext_ack *extack)
{
	u64 live;

	lockdep_assert_held(&slablab_mutex);
	if (atomic_read(&s->users)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "cache %s is in use by a running storm", s->name);
		return -EBUSY;
	}
	flush_cpus(s, FLUSH_ALL, true);
	live = objects_in_use(s);
	if (live) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "cache %s still has %llu objects allocated",
				       s->name, live);
		pr_info("cache %s not destroyed: %llu objects still allocated\n", s->name, live);
		return -EBUSY;
	}
	list_del(&s->list);
	slablab_caches_gen++;
	s->dead = true;
	discard_all_slabs(s);
	return 0;
}

/**
 * slablab_cache_release - free a cache slablab_cache_destroy_locked() unlinked
 * @s: the cache
 *
 * Called without slablab_mutex: removing the debugfs directory waits for debugfs
 * handlers in flight, and those may be waiting for slablab_mutex (then see ->dead).
 */
void slablab_cache_release(struct slablab_cache *s)
{
	if (slablab_observer)
		slablab_observer->released(s);
	free_cache_struct(s);
}

/**
 * slablab_cache_destroy - destroy a cache that has no objects allocated
 * @s: the cache
 *
 * May sleep.
 *
 * Return: 0, or -EBUSY (the cache is left intact) while objects are allocated.
 */
int slablab_cache_destroy(struct slablab_cache *s)
{
	int err;

	if (!s)
		return 0;
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	err = slablab_cache_destroy_locked(s, NULL);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	if (!err)
		slablab_cache_release(s);
	return err;
}
EXPORT_SYMBOL_GPL(slablab_cache_destroy);

/*
 * The tunables' setters: one per row of SLABLAB_CACHE_TUNABLES (include/slablab/protocol.h),
 * all with this signature, so that netlink.c applies a CACHE_SET by walking that table.
 * The caller holds slablab_mutex and cpus_read_lock; values are within the policy's range.
 */
int slablab_set_cpu_partial(struct slablab_cache *s, unsigned int objects,
			    struct netlink_ext_ack *extack)
{
	if (objects > SLABLAB_MAX_CPU_PARTIAL)
		return -ERANGE;
	WRITE_ONCE(s->cpu_partial, objects);
	set_cpu_partial_bound(s);
	/* Takes effect at once: lists over the new bound are drained now. */
	flush_all_mode(s, FLUSH_PARTIAL_OVER_LIMIT);
	return 0;
}

int slablab_set_min_partial(struct slablab_cache *s, unsigned int slabs,
			    struct netlink_ext_ack *extack)
{
	if (slabs > SLABLAB_MAX_MIN_PARTIAL)
		return -ERANGE;
	WRITE_ONCE(s->min_partial, slabs);
	return 0;
}

/**
 * slablab_check_tunables - check a flags and an order change as one, applying nothing
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @flags: the new flags, or NULL to keep the current ones
 * @order: the new order, or NULL to keep it
 * @extack: where to say what is wrong, or NULL
 *
 * The order is checked against the layout the new flags give, not the current one, so
 * that slablab_set_flags() followed by slablab_set_order() with values this accepted
 * can only fail for lack of memory, and then slablab_set_flags() changes nothing: a
 * CACHE_SET with both is all or nothing.
 *
 * Return: 0, -EINVAL (unknown flags), -EBUSY (flags of a cache in use or not owned by
 * netlink), -E2BIG (the new layout exceeds the largest slab) or -ERANGE (order).
 */
int slablab_check_tunables(struct slablab_cache *s, const u32 *flags, const u32 *order,
			   struct netlink_ext_ack *extack)
{
	unsigned int stride = s->stride, fp_offset, min_order;
	u64 live;

	lockdep_assert_held(&slablab_mutex);
	if (flags && *flags != s->flags) {
		if (*flags & ~__SLABLAB_CACHE_F_ALL) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "unknown cache flags %#x",
					       *flags & ~__SLABLAB_CACHE_F_ALL);
			return -EINVAL;
		}
		if (s->owner != SLABLAB_OWNER_NETLINK || atomic_read(&s->users)) {
			NL_SET_ERR_MSG_MOD(extack,
					   "flags of this cache cannot change while it is in use");
			return -EBUSY;
		}
		live = objects_in_use(s);
		if (live) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "flags can only change on an empty cache: %llu objects allocated",
					       live);
			return -EBUSY;
		}
		stride = layout_stride(s, *flags, &fp_offset);
	}
	min_order = slablab_size_order(stride, PAGE_SIZE);
	if (min_order > SLABLAB_MAX_ORDER) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "object stride %u exceeds an order-%d slab",
				       stride, SLABLAB_MAX_ORDER);
		return -E2BIG;
	}
	if (!order)
		return 0;
	if (*order > SLABLAB_MAX_ORDER) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "order %u out of range 0..%d", *order,
				       SLABLAB_MAX_ORDER);
		return -ERANGE;
	}
	if (*order < min_order) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "order %u slabs cannot hold one %u-byte object (minimum order %u)",
				       *order, stride, min_order);
		return -ERANGE;
	}
	return 0;
}

int slablab_set_order(struct slablab_cache *s, unsigned int order, struct netlink_ext_ack *extack)
{
	int err = slablab_check_tunables(s, NULL, &order, extack);

	if (err)
		return err;
	WRITE_ONCE(s->order, order);	/* applies to new slabs */
	set_cpu_partial_bound(s);
	return 0;
}

/*
 * Fault injection usable on any kernel (debugfs caches/<name>/fail_slab_every): every
 * Nth new slab fails (0: never).
 */
int slablab_set_fail_slab_every(struct slablab_cache *s, unsigned int n,
				struct netlink_ext_ack *extack)
{
	atomic_set(&s->fail_slab_count, 0);
	WRITE_ONCE(s->fail_slab_every, n);
	return 0;
}

int slablab_set_remote_node_defrag_ratio(struct slablab_cache *s, unsigned int percent,
					 struct netlink_ext_ack *extack)
{
	if (percent > 100)
		return -ERANGE;
	WRITE_ONCE(s->remote_node_defrag_ratio, percent);
	return 0;
}

int slablab_set_fastpath(struct slablab_cache *s, unsigned int mode,
			 struct netlink_ext_ack *extack)
{
	if (mode >= __SLABLAB_FASTPATH_MAX)
		return -EINVAL;
	/* Both modes bump the tid on every change, so switching live is safe. */
	WRITE_ONCE(s->fastpath, mode);
	return 0;
}

/*
 * Flags change the object layout or how free pointers are stored, so they can only
 * change while the cache holds no objects: every slab is freed first.
 */
int slablab_set_flags(struct slablab_cache *s, unsigned int flags, struct netlink_ext_ack *extack)
{
	unsigned int old_flags = s->flags, old_stride = s->stride, old_fp = s->fp_offset;
	struct slablab_order_choice old_choice = s->order_choice;
	unsigned int old_default = s->order_default;
	int err;

	/* Refuse before touching anything: a refused request changes nothing. */
	err = slablab_check_tunables(s, &flags, NULL, extack);
	if (err || flags == s->flags)
		return err;
	flush_cpus(s, FLUSH_ALL, true);
	discard_all_slabs(s);
	s->flags = flags;
	compute_layout(s);
	err = choose_order(s, extack);
	if (!err)
		err = init_random_seq(s);
	if (err) {
		s->flags = old_flags;
		s->stride = old_stride;
		s->fp_offset = old_fp;
		s->order_choice = old_choice;
		s->order_default = old_default;
		init_random_seq(s);
		return err;
	}
	if (s->order < min_order_for(s))
		s->order = s->order_default;
	set_cpu_partial_bound(s);
	return 0;
}

/**
 * slablab_shrink_locked - flush cpu slabs and free empty slabs beyond min_partial
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 *
 * Return: the number of slabs freed, by the flush and by the shrink proper.
 */
unsigned long slablab_shrink_locked(struct slablab_cache *s)
{
	struct slablab_slab *slab, *tmp;
	unsigned long flags, freed;
	LIST_HEAD(victims);
	int nid;

	freed = flush_all_mode(s, FLUSH_ALL);
	for_each_node(nid) {
		struct slablab_node *n = s->node[nid];

		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry_safe(slab, tmp, &n->partial, node_list) {
			struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

			if (n->nr_partial <= READ_ONCE(s->min_partial))
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
		discard_slab(s, slab);
		freed++;
	}
	return freed;
}

/**
 * slablab_cache_shrink - give empty slabs beyond min_partial back to the page allocator
 * @s: the cache
 *
 * May sleep.
 *
 * Return: the number of slabs freed.
 */
unsigned long slablab_cache_shrink(struct slablab_cache *s)
{
	unsigned long freed;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	freed = slablab_shrink_locked(s);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return freed;
}
EXPORT_SYMBOL_GPL(slablab_cache_shrink);

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
	if (c.objects != slablab_objs_per_slab(order, s->stride, PAGE_SIZE))
		verr(r, s, slab, "objects %lu, expected %lu", c.objects,
		     slablab_objs_per_slab(order, s->stride, PAGE_SIZE));
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
 * slablab_validate - check every slab of a cache
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @r: the report to fill
 *
 * Flushes the cpu slabs first, so a quiet cache is checked completely; slabs that a
 * cpu takes while the walk runs are counted but their freelists are skipped.
 */
void slablab_validate(struct slablab_cache *s, struct slablab_validate_report *r)
{
	unsigned long flags, nr = 0, total = 0, partial;
	struct slablab_slab *slab;
	int nid;

	memset(r, 0, sizeof(*r));
	flush_all_mode(s, FLUSH_ALL);
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

void slablab_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
		      u32 *partial_slabs, u32 *partial_objects)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
	struct slablab_slab *slab;
	unsigned long flags;

	/* discard_slab() needs slabs_lock: a slab still seen as c->slab stays alive. */
	spin_lock_irqsave(&s->slabs_lock, flags);
	slab = READ_ONCE(c->slab);
	*slab_objs = slab ? slab_objects(slab) : 0;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	*partial_slabs = READ_ONCE(c->partial_slabs);
	/* An estimate, as SLUB's: slabs on the list are assumed half free. */
	*partial_objects = *partial_slabs * slablab_objs_per_slab(READ_ONCE(s->order),
								  s->stride, PAGE_SIZE) / 2;
}

void slablab_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	unsigned long flags;
	int cpu, nid;

	memset(g, 0, sizeof(*g));
	g->objects = objects_in_use(s);
	spin_lock_irqsave(&s->slabs_lock, flags);
	g->slabs = s->nr_slabs;
	g->total_objects = s->total_objects;
	g->pages = s->nr_pages;
	g->meta_bytes = (u64)s->nr_meta_slabs * kmem_cache_size(slablab_meta_cache);
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	for_each_node(nid)
		g->partial_slabs += READ_ONCE(s->node[nid]->nr_partial);
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		if (READ_ONCE(c->slab))
			g->cpu_slabs++;
		g->cpu_partial_slabs += READ_ONCE(c->partial_slabs);
	}
	g->live_bytes = g->objects * s->object_size;
}

/* ---- kmalloc size classes ---- */

static const unsigned int slablab_kmalloc_sizes[] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192
};

static struct slablab_cache *slablab_kmalloc_caches[ARRAY_SIZE(slablab_kmalloc_sizes)];

static struct slablab_cache *kmalloc_class(size_t size)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_sizes); i++) {
		if (size <= slablab_kmalloc_sizes[i])
			return slablab_kmalloc_caches[i];
	}
	return NULL;
}

/**
 * slablab_kmalloc - allocate @size bytes from slablab's size classes
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * Requests above the largest class (8 KiB) go to the page allocator. Requests above
 * PAGE_SIZE / 2 do too when the page policy is SLABLAB_PAGE_POLICY_PAGE_ALLOC (what
 * SLUB did in 2008, seed 004); under SLABLAB_PAGE_POLICY_SLAB they are served by the
 * 4 KiB class, whose slabs are order 3.
 *
 * Return: the memory, or NULL (also for @size 0).
 */
void *slablab_kmalloc(size_t size, gfp_t gfp)
{
	struct slablab_cache *s;
	struct page *page;

	if (unlikely(!size))
		return NULL;
	s = kmalloc_class(size);
	if (s && !(size > PAGE_SIZE / 2 &&
		   READ_ONCE(slablab_page_policy) == SLABLAB_PAGE_POLICY_PAGE_ALLOC))
		return slab_alloc(s, gfp, NUMA_NO_NODE);
	page = alloc_pages(gfp | __GFP_COMP, get_order(size));
	if (!page)
		return NULL;
	atomic_long_add(1L << get_order(size), &slablab_kmalloc_pages_direct);
	return page_address(page);
}
EXPORT_SYMBOL_GPL(slablab_kmalloc);

/**
 * slablab_kfree - free memory from slablab_kmalloc()
 * @p: the memory; NULL is ignored
 */
void slablab_kfree(const void *p)
{
	struct page *page;
	struct slablab_slab *slab;

	if (unlikely(!p))
		return;
	page = virt_to_head_page(p);
	slab = (struct slablab_slab *)page_private(page);
	if (!slab) {
		/* Straight from the page allocator (large, or the page policy). */
		atomic_long_sub(1L << compound_order(page), &slablab_kmalloc_pages_direct);
		__free_pages(page, compound_order(page));
		return;
	}
	slablab_cache_free(slab->cache, (void *)p);
}
EXPORT_SYMBOL_GPL(slablab_kfree);

/**
 * slablab_kmalloc_direct_pages - pages slablab_kmalloc() took from the page allocator
 *
 * Return: the pages held now by slablab_kmalloc() allocations that no size class served.
 */
unsigned long slablab_kmalloc_direct_pages(void)
{
	return atomic_long_read(&slablab_kmalloc_pages_direct);
}

/* ---- init / exit ---- */

/**
 * slablab_set_cache_observer - name who is told of every cache made and released
 * @obs: the observer, or NULL for none
 *
 * Context: module init before slablab_slab_init(), or exit after slablab_slab_exit().
 */
void slablab_set_cache_observer(const struct slablab_cache_observer *obs)
{
	slablab_observer = obs;
}

int slablab_slab_init(void)
{
	char name[SLABLAB_NAME_MAX];
	unsigned int i;
	int ret;

	BUILD_BUG_ON(sizeof(struct slablab_slab) != 64);
	if (!slablab_have_cmpxchg_double()) {
		pr_err("this cpu has no double-word cmpxchg (cmpxchg16b); slablab needs it\n");
		return -ENODEV;
	}
	slablab_meta_cache = kmem_cache_create("slablab_slab", sizeof(struct slablab_slab),
					       2 * sizeof(void *), 0, NULL);
	if (!slablab_meta_cache)
		return -ENOMEM;
	slablab_flush_wq = alloc_workqueue("slablab_flush", WQ_MEM_RECLAIM, 0);
	if (!slablab_flush_wq) {
		ret = -ENOMEM;
		goto err_meta;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "slablab:dead", NULL,
					slablab_cpu_dead);
	if (ret < 0)
		goto err_wq;
	slablab_cpuhp_state = ret;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_sizes); i++) {
		struct slablab_cache *s;

		snprintf(name, sizeof(name), "kmalloc-%u", slablab_kmalloc_sizes[i]);
		s = slablab_cache_create_owner(name, slablab_kmalloc_sizes[i], 0,
					       SLABLAB_KERNEL_DEFAULTS, NULL,
					       SLABLAB_OWNER_KMALLOC, NULL);
		if (IS_ERR(s)) {
			ret = PTR_ERR(s);
			mutex_unlock(&slablab_mutex);
			cpus_read_unlock();
			goto err_caches;
		}
		slablab_kmalloc_caches[i] = s;
	}
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return 0;

err_caches:
	slablab_slab_exit_caches();
	cpuhp_remove_state_nocalls(slablab_cpuhp_state);
err_wq:
	destroy_workqueue(slablab_flush_wq);
err_meta:
	kmem_cache_destroy(slablab_meta_cache);
	return ret;
}

/* Destroy every cache left, in reverse creation order; objects still live are leaked. */
void slablab_slab_exit_caches(void)
{
	struct slablab_cache *s, *tmp;
	LIST_HEAD(dead);

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	list_for_each_entry_safe_reverse(s, tmp, &slablab_caches, list) {
		if (s->owner == SLABLAB_OWNER_KERNEL)
			pr_warn("cache %s created by another module was never destroyed\n",
				s->name);
		atomic_set(&s->users, 0);
		if (slablab_cache_destroy_locked(s, NULL)) {
			/* Live objects: nobody can free them any more; release the memory. */
			list_del(&s->list);
			s->dead = true;
			discard_all_slabs(s);
		}
		list_add(&s->list, &dead);
	}
	memset(slablab_kmalloc_caches, 0, sizeof(slablab_kmalloc_caches));
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	list_for_each_entry_safe(s, tmp, &dead, list)
		slablab_cache_release(s);
}

void slablab_slab_exit(void)
{
	slablab_slab_exit_caches();
	cpuhp_remove_state_nocalls(slablab_cpuhp_state);
	destroy_workqueue(slablab_flush_wq);
	kmem_cache_destroy(slablab_meta_cache);
}
