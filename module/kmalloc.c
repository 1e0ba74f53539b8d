// SPDX-License-Identifier: GPL-2.0
/*
 * slablab's kmalloc: slablab_kmalloc() and slablab_kfree() over the kmalloc size
 * classes (slablab caches of kmalloc's sizes, kmalloc-8 to kmalloc-8192, or SLOB's
 * heap on slob), the classes' table, the freeze that keeps callers out while the
 * classes switch design, and the kernel's kmalloc classes made again for the native
 * targets (slablab_native_class_create()).
 *
 * Layers
 *   Below the cache API (cache.c), above the designs: cache.c makes the classes
 *   (slablab_cache_api_init()) and destroys them, switches their design
 *   (slablab_set_kmalloc(), which freezes them here) and batches their RCU frees
 *   (__slablab_kfree_rcu(); the batches free through slablab_kfree()). This file calls
 *   the designs (their fast paths inline through dispatch.h, slob's kmalloc) and the
 *   back end, never cache.c (docs/design.md "Layers", tests/host/test_layers.py).
 *
 * Locks and their order: backend.c's top comment. This file takes no lock of its own:
 * slablab_kmalloc() and slablab_kfree() take what a cache's alloc and free take (the
 * design's), and hold a reference on the classes, not a lock (slablab_kmalloc_users,
 * below). The freeze (slablab_kmalloc_freeze(), _thaw()) runs under cpus_read_lock and
 * slablab_mutex (in that order), which its caller, slablab_set_kmalloc(), holds.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/llist.h>
#include <linux/wait.h>
#include "compat.h"
#include "dispatch.h"
#include "trace.h"

/*
 * The design the kmalloc size classes run on, and their lists tunable
 * (slablab_set_kmalloc(); slablab_mutex): what is reported. slablab_kmalloc() reads
 * each class's own design (s->design) under a reference on slablab_kmalloc_users: it
 * changes only while the classes are frozen.
 */
unsigned int slablab_kmalloc_design = SLABLAB_DESIGN_SLUB;
unsigned int slablab_kmalloc_lists = SLABLAB_DEFAULT_LISTS;

/*
 * The kmalloc classes' users, frozen for a design switch as blk-mq freezes a queue.
 * slablab_kmalloc() and slablab_kfree() of a class object hold a reference
 * (kmalloc_users_get()) from before they read the design until the class is done with
 * the object (and has counted it); slablab_set_kmalloc() freezes the classes (new gets
 * fail), waits on slablab_kmalloc_drained until no reference is held, and only then
 * counts the classes' objects: with nobody in flight the count is exact, and with none
 * live no class object can exist for a kfree to bring in. While frozen,
 * slablab_kmalloc() takes its memory from the page allocator (it never fails for the
 * switch), and a kfree of a class object that cannot take a reference is queued on
 * slablab_kfree_deferred: its object counts as live, so the switch is refused, and
 * the switcher frees the queue once the classes are live again.
 *
 * The reference is percpu_rw_semaphore's read side without its lockdep map and
 * blocking (a reader that finds the classes frozen fails): a per-cpu count changed in
 * a preempt-disabled section that reads slablab_kmalloc_frozen. Since v5.0 such a
 * section is an RCU reader, so the synchronize_rcu() after setting the flag leaves
 * every get either failed or counted, and every later put on the ordered path
 * (smp_mb() before its decrement, then a wake-up). It was a percpu_ref, whose tryget
 * and put each call __rcu_read_lock() and __rcu_read_unlock() (PREEMPT_RCU): 81 to 89
 * instructions of a 64-byte kmalloc+kfree pair, the most of what it cost over a
 * cache's alloc+free; this costs 28 (docs/benchmarks.md "kmalloc's cost over a cache").
 * Callable from any context but NMI. Counts are per cpu and a reference may be
 * dropped on another cpu than took it: only their sum means anything.
 */
static DEFINE_PER_CPU(unsigned int, slablab_kmalloc_users);
static bool slablab_kmalloc_frozen;	/* written under slablab_mutex */
static DECLARE_WAIT_QUEUE_HEAD(slablab_kmalloc_drained);
LLIST_HEAD(slablab_kfree_deferred);

/* A reference on the classes, or false while they are frozen for a switch. */
static __always_inline bool kmalloc_users_get(void)
{
	bool live;

	RCU_LOCKDEP_WARN(!rcu_is_watching(), "slablab kmalloc reference outside RCU");
	preempt_disable();
	/* acquire: the design written before the flag was cleared (slablab_kmalloc_thaw()) */
	live = !smp_load_acquire(&slablab_kmalloc_frozen);
	if (likely(live))
		this_cpu_inc(slablab_kmalloc_users);
	preempt_enable();
	return live;
}

static __always_inline void kmalloc_users_put(void)
{
	bool frozen;

	preempt_disable();
	frozen = READ_ONCE(slablab_kmalloc_frozen);
	if (unlikely(frozen))
		smp_mb();	/* the class's work before the count the switcher sums */
	this_cpu_dec(slablab_kmalloc_users);
	preempt_enable();
	/*
	 * Outside the preempt-disabled section: the waitqueue's lock sleeps on PREEMPT_RT.
	 * The queue is static, so waking after the decrement is safe.
	 */
	if (unlikely(frozen))
		wake_up(&slablab_kmalloc_drained);
}

/* Frozen classes: true once no reference is held (as readers_active_check()). */
static bool kmalloc_users_drained(void)
{
	unsigned int sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += data_race(per_cpu(slablab_kmalloc_users, cpu));	/* only decrements now */
	if (sum)
		return false;
	/* The holders' work (their smp_mb() before the decrement) before the caller's. */
	smp_mb();
	return true;
}

/*
 * Pages slablab_kmalloc() handed out straight from the page allocator (large requests,
 * or the page policy): storms of the kmalloc target count them with the size classes.
 */
static atomic_long_t slablab_kmalloc_pages_direct = ATOMIC_LONG_INIT(0);

/* ---- the size classes ---- */

/* The classes (internal.h: slablab_kmalloc_index() and the native targets use them too). */
const unsigned int slablab_kmalloc_sizes[SLABLAB_KMALLOC_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192
};

/* cache.c makes and destroys them (slablab_cache_api_init(), _exit_caches()). */
struct slablab_cache *slablab_kmalloc_caches[ARRAY_SIZE(slablab_kmalloc_sizes)];

/*
 * The class of a request up to 192 bytes, by (size - 1) / 8, as the kernel's
 * kmalloc_size_index[]: a load instead of a search (18 instructions fewer per pair at
 * 64 bytes, docs/benchmarks.md). Above 192 bytes the classes are powers of two.
 * slablab_kmalloc_class_check() holds both against slablab_kmalloc_sizes[] at init.
 */
const u8 slablab_kmalloc_size_index[24] = {
	0,				/*   1..8   -> 8 */
	1,				/*   9..16  -> 16 */
	2, 2,				/*  17..32  -> 32 */
	3, 3, 3, 3,			/*  33..64  -> 64 */
	4, 4, 4, 4,			/*  65..96  -> 96 */
	5, 5, 5, 5,			/*  97..128 -> 128 */
	6, 6, 6, 6, 6, 6, 6, 6,		/* 129..192 -> 192 */
};

/* Every size gets the smallest class that holds it: the table and the sizes agree. */
int slablab_kmalloc_class_check(void)
{
	unsigned int i = 0;
	size_t size;

	BUILD_BUG_ON(slablab_kmalloc_sizes[ARRAY_SIZE(slablab_kmalloc_sizes) - 1] !=
		     SLABLAB_KMALLOC_MAX);
	for (size = 1; size <= SLABLAB_KMALLOC_MAX; size++) {
		if (size > slablab_kmalloc_sizes[i])
			i++;
		if (WARN_ON_ONCE(slablab_kmalloc_index(size) != i))
			return -EINVAL;
	}
	return 0;
}

/**
 * slablab_native_class_create - the kernel's kmalloc class of @size, made again
 * @name: the kmem_cache's name
 * @size: a class size (slablab_kmalloc_sizes[])
 *
 * For the native targets of storms and replays, which need the kernel's SLUB with
 * kmalloc's geometry in caches of their own: the kernel's classes hold the whole
 * system's objects, whose free slots take a workload's objects without a page. Made as
 * mm/slab_common.c makes a class (create_boot_cache(): the class's alignment, no flags,
 * the whole object a usercopy window), so SLUB gives it the same slot, order, objects
 * per slab, cpu_partial and min_partial (on 7.x the same sheaves); the window (and
 * SLABLAB_NO_MERGE where the kernel has it: compat.h) also keeps it from being merged
 * with another cache, as kmalloc's classes are not. Sleeps; takes
 * cpus_read_lock (kmem_cache_create()).
 *
 * Return: the cache, or NULL.
 */
struct kmem_cache *slablab_native_class_create(const char *name, unsigned int size)
{
	return kmem_cache_create_usercopy(name, size, slablab_kmalloc_class_align(size),
					  SLABLAB_NO_MERGE, 0, size, NULL);
}

/**
 * slablab_kernel_slab_pages - the kernel's slab pages now, whole-system
 *
 * NR_SLAB_UNRECLAIMABLE_B and NR_SLAB_RECLAIMABLE_B (with the large kmallocs' pages the
 * kernel counts with them; SLOB's heap pages), with each cpu's difference not yet
 * folded into the global count, as zone_page_state_snapshot() folds a zone's: the
 * global count alone trails each cpu by up to its stat threshold a counter (20 pages
 * in the 2 GiB test VM), as much as a small storm holds, and read a growing replay
 * dozens of pages short. Racy by what changes while it sums. For the native figures
 * that no cache of the kernel's has (SLOB's storms, the native replays).
 *
 * Return: the pages.
 */
u64 slablab_kernel_slab_pages(void)
{
	static const enum node_stat_item items[] = {
		NR_SLAB_UNRECLAIMABLE_B, NR_SLAB_RECLAIMABLE_B,
	};
	long pages = 0;
	unsigned int i;
	int nid, cpu;

	for (i = 0; i < ARRAY_SIZE(items); i++) {
		pages += atomic_long_read(&vm_node_stat[items[i]]);
		for_each_online_node(nid) {
			struct pglist_data *pgdat = NODE_DATA(nid);

			/* byte items' differences are kept in pages (__mod_node_page_state()) */
			for_each_online_cpu(cpu)
				pages += READ_ONCE(per_cpu_ptr(pgdat->per_cpu_nodestats,
							       cpu)->vm_node_stat_diff[items[i]]);
		}
	}
	return pages > 0 ? pages : 0;
}

/* A request the size classes do not serve (or cannot now: frozen), from pages. */
static void *kmalloc_pages(size_t size, gfp_t gfp)
{
	struct page *page = alloc_pages(gfp | __GFP_COMP, get_order(size));

	if (!page)
		return NULL;
	atomic_long_add(1L << get_order(size), &slablab_kmalloc_pages_direct);
	/* as 6.1's kmalloc_large_node_notrace(): kmemleak knows the requested size */
	kmemleak_alloc(page_address(page), size, 1, gfp);
	return page_address(page);
}

/*
 * slablab_kmalloc() with a reference on slablab_kmalloc_users: the design is stable. On
 * the class's own design, not slablab_kmalloc_design: a slob class's objects need the
 * size header slablab_kfree() reads on a slob page, whatever the other classes run.
 */
static void *kmalloc_classes(size_t size, gfp_t gfp)
{
	struct slablab_cache *s = slablab_kmalloc_class(size);

	if (s && unlikely(READ_ONCE(s->design) == SLABLAB_DESIGN_SLOB)) {
		/* SLOB's kmalloc: a size header in the heap, a page or more from pages. */
		if (size < PAGE_SIZE - SLABLAB_SLOB_MINALIGN)
			return slablab_slob_kmalloc(s, size, gfp);
		s = NULL;
	}
	if (s && !(size > PAGE_SIZE / 2 &&
		   READ_ONCE(slablab_page_policy) == SLABLAB_PAGE_POLICY_PAGE_ALLOC))
		return design_alloc(s, gfp, NUMA_NO_NODE);
	return kmalloc_pages(size, gfp);
}

/*
 * The kmalloc event of what slablab_kmalloc() gave @size bytes: the class and slot it
 * came from (kmem's bytes_alloc: a slab's slot, SLOB's block with its header, or the
 * pages of a large request). Only while the event is enabled.
 */
static noinline void trace_kmalloc_event(unsigned long call_site, const void *p, size_t size,
					 gfp_t gfp)
{
	struct slablab_cache *s = NULL;
	size_t bytes = 0;
	struct page *page;

	if (p) {
		page = virt_to_head_page(p);
		if (page_private(page) & SLABLAB_PAGE_SLOB) {
			s = slablab_kmalloc_class(size);
			bytes = size + SLABLAB_SLOB_MINALIGN;
		} else if (page_private(page)) {
			s = ((struct slablab_slab *)page_private(page))->cache;
			bytes = s->stride;
		} else {
			bytes = PAGE_SIZE << compound_order(page);
		}
	}
	trace_slablab_kmalloc(call_site, p, s, size, bytes, gfp, NUMA_NO_NODE);
}

/**
 * slablab_kmalloc - allocate @size bytes from slablab's size classes
 * @size: bytes wanted
 * @gfp: allocation flags
 *
 * Requests above the largest class (8 KiB) go to the page allocator. Requests above
 * PAGE_SIZE / 2 do too when the page policy is SLABLAB_PAGE_POLICY_PAGE_ALLOC (what
 * SLUB did in 2008, seed 004); under SLABLAB_PAGE_POLICY_SLAB they are served by the
 * 4 KiB class, whose slabs are order 3. While slablab_set_kmalloc() switches the
 * classes' design every request goes to the page allocator. Callable from any context
 * @gfp allows, concurrently with a design switch.
 *
 * Return: the memory, or NULL (also for @size 0).
 */
void *slablab_kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	if (unlikely(!size))
		return NULL;
	if (likely(kmalloc_users_get())) {
		p = kmalloc_classes(size, gfp);
		kmalloc_users_put();
	} else {
		p = kmalloc_pages(size, gfp);	/* frozen for a design switch */
	}
	if (trace_slablab_kmalloc_enabled())
		trace_kmalloc_event(_RET_IP_, p, size, gfp);
	return p;
}
EXPORT_SYMBOL_GPL(slablab_kmalloc);

/**
 * slablab_kfree - free memory from slablab_kmalloc()
 * @p: the memory; NULL is ignored
 *
 * Only memory slablab_kmalloc() returned, or an object of a cache that is not on the
 * slob design: a slob cache's objects have no size header (as in SLOB, whose kfree()
 * could not free kmem_cache_alloc() objects either).
 */
void slablab_kfree(const void *p)
{
	struct page *page;
	struct slablab_slab *slab;
	struct slablab_cache *s;

	if (unlikely(!p))
		return;
	page = virt_to_head_page(p);
	if (unlikely(page_private(page) & SLABLAB_PAGE_SLOB)) {
		/*
		 * kmalloc on slob: counted in the class its header's size chooses. The heap
		 * outlives design switches and the class is only a counter here, so no
		 * reference is needed: a switch away from slob that this free's count let
		 * through leaves the heap to finish it.
		 */
		s = slablab_kmalloc_class(slablab_slob_ksize(p));
		trace_slablab_kfree(_RET_IP_, p, s);
		slablab_slob_kfree(s, p);
		return;
	}
	slab = (struct slablab_slab *)page_private(page);
	if (!slab) {
		/* Straight from the page allocator (large, or the page policy). */
		trace_slablab_kfree(_RET_IP_, p, NULL);
		kmemleak_free(p);	/* 6.1's free_large_kmalloc() */
		atomic_long_sub(1L << compound_order(page), &slablab_kmalloc_pages_direct);
		__free_pages(page, compound_order(page));
		return;
	}
	s = slab->cache;
	if (s->owner != SLABLAB_OWNER_KMALLOC) {
		trace_slablab_kfree(_RET_IP_, p, s);
		cache_free_slab(s, slab, (void *)p);	/* (the event is kfree's) */
		return;
	}
	if (unlikely(!kmalloc_users_get())) {
		/*
		 * Frozen for a switch, which this live object refuses: free it after (its
		 * event fires then, from slablab_kmalloc_free_deferred()).
		 */
		llist_add((struct llist_node *)p, &slablab_kfree_deferred);
		return;
	}
	trace_slablab_kfree(_RET_IP_, p, s);
	/* The slab found above, inline: not slablab_cache_free()'s second lookup. */
	cache_free_slab(s, slab, (void *)p);
	kmalloc_users_put();
}
EXPORT_SYMBOL_GPL(slablab_kfree);

/* ---- the freeze ---- */

/*
 * Free what slablab_kfree() queued while the classes were frozen. A kfree that saw the
 * flag set may queue its object after a thaw took the queue (it was delayed between
 * the two): slablab_set_kmalloc() calls this first too, so such an object is freed,
 * and stops counting as live, before the next switch judges the classes.
 */
void slablab_kmalloc_free_deferred(void)
{
	struct llist_node *deferred, *n, *next;

	deferred = llist_del_all(&slablab_kfree_deferred);
	llist_for_each_safe(n, next, deferred)
		slablab_kfree(n);
}

/* Make the classes live again, then free what slablab_kfree() queued meanwhile. */
void slablab_kmalloc_thaw(void)
{
	/* release: the design and the classes, before the flag (kmalloc_users_get()) */
	smp_store_release(&slablab_kmalloc_frozen, false);
	slablab_kmalloc_free_deferred();
}

/*
 * Freeze the classes (see slablab_kmalloc_users): nobody is in slablab_kmalloc() or
 * in a class's slablab_kfree() when this returns 0. -EINTR: a fatal signal came
 * while waiting; the classes are live again.
 */
int slablab_kmalloc_freeze(void)
{
	WRITE_ONCE(slablab_kmalloc_frozen, true);
	/* Every get now fails or is counted; every put now takes the ordered path. */
	synchronize_rcu();
	if (wait_event_killable(slablab_kmalloc_drained, kmalloc_users_drained())) {
		slablab_kmalloc_thaw();		/* and free what kfree deferred meanwhile */
		return -EINTR;
	}
	return 0;
}

/**
 * slablab_kmalloc_direct_pages - pages slablab_kmalloc() took from the page allocator
 *
 * Return: the pages held now by slablab_kmalloc() allocations that no size class served.
 */
unsigned long slablab_kmalloc_direct_pages(void)
{
	return atomic_long_read(&slablab_kmalloc_pages_direct);
}
