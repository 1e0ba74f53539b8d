// SPDX-License-Identifier: GPL-2.0
/*
 * slablab's cache API: slab caches beside the kernel's own, each with a design (the
 * per-cpu front end: design_*.c) over the shared back end (backend.c), every policy a
 * run-time tunable. Here are the exported allocation functions, which dispatch on the
 * cache's design, the prefill API (sheaves lent to callers, on any design), cache
 * creation and destruction, the tunables' setters (a relayout, a design change and
 * sheaves_cpu_slabs among them), shrink and validate, RCU frees, the kmalloc size
 * classes' creation and design change (their kmalloc and kfree: kmalloc.c, a layer
 * below, which calls nothing here), cpu hotplug, and module init and exit of the
 * allocator.
 *
 * Dispatch
 *   s->ops is the design's ops table (struct slablab_design_ops, docs/design.md
 *   "Designs"). The per-object paths (alloc, free, kmalloc, kfree) do not call through
 *   it: a switch on s->design (dispatch.h, shared with kmalloc.c) calls the design's
 *   fast path, inline from its header, so that an object costs what it did before
 *   designs existed — an indirect call per object is a retpoline or an IBRS-era
 *   indirect branch on many x86 kernels, several ns against a ~10 ns fast path, and
 *   would stop the inlining. A design without an inline fast path falls to the default
 *   case, which calls through the table. Bulk and slow operations call through the
 *   table (one call per request).
 *
 * Locks and their order: backend.c's top comment. This file takes cpus_read_lock and
 * slablab_mutex (in that order) around every cache and tunable change, and holds them
 * while it calls a design's init, flush, relayout and layers ops, and destroy on a
 * design change; destroy on release runs with neither (the cache is unlisted: nobody
 * else reaches it). flush_dead_cpu runs under slablab_mutex alone (cpu hotplug holds
 * the hotplug lock for writing).
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/random.h>
#include <linux/nodemask.h>
#include <linux/vmalloc.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/llist.h>
#include <linux/wait.h>
#include "compat.h"
#include "dispatch.h"
#include "trace.h"
#include "tunables.h"

/* The designs, by enum slablab_design; NULL: reserved, not built yet. */
static const struct slablab_design_ops *const slablab_designs[__SLABLAB_DESIGN_MAX] = {
	[SLABLAB_DESIGN_SLUB] = &slablab_slub_ops,
	[SLABLAB_DESIGN_SHEAVES] = &slablab_sheaves_ops,
	[SLABLAB_DESIGN_SLAB] = &slablab_slab_design_ops,
	[SLABLAB_DESIGN_SLOB] = &slablab_slob_ops,
};

/*
 * Who is told of every cache made and freed: debugfs.c, a layer above, which gives each
 * cache its directory. Set before slablab_cache_api_init() and cleared after
 * slablab_cache_api_exit() (module init and exit), so it never changes while caches come
 * and go.
 */
static const struct slablab_cache_observer *slablab_observer;

static enum cpuhp_state slablab_cpuhp_state;
static enum cpuhp_state slablab_cpuhp_online_state;

/* A design's per-cpu work (slab's reap) starts on a cpu that comes up... */
static int slablab_cpu_online(unsigned int cpu)
{
	struct slablab_cache *s;

	mutex_lock(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list) {
		if (s->ops->cpu_online)
			s->ops->cpu_online(s, cpu);
	}
	mutex_unlock(&slablab_mutex);
	return 0;
}

/* ... and is cancelled on it before it goes down (before its workqueues are unbound). */
static int slablab_cpu_offline(unsigned int cpu)
{
	struct slablab_cache *s;

	mutex_lock(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list) {
		if (s->ops->cpu_offline)
			s->ops->cpu_offline(s, cpu);
	}
	mutex_unlock(&slablab_mutex);
	return 0;
}

static int slablab_cpu_dead(unsigned int cpu)
{
	struct slablab_cache *s;

	mutex_lock(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list)
		s->ops->flush_dead_cpu(s, cpu);
	mutex_unlock(&slablab_mutex);
	return 0;
}

static unsigned long flush_all(struct slablab_cache *s, bool every_cpu)
{
	return s->ops->flush(s, SLABLAB_FLUSH_ALL, every_cpu);
}

/* ---- the per-object paths: dispatch.h's switch, not an indirect call ---- */

/**
 * slablab_cache_alloc - allocate an object from a slablab cache
 * @s: the cache
 * @gfp: allocation flags, as for kmem_cache_alloc()
 *
 * Return: the object, or NULL when memory could not be had.
 */
void *slablab_cache_alloc(struct slablab_cache *s, gfp_t gfp)
{
	void *obj = design_alloc(s, gfp, NUMA_NO_NODE);

	trace_slablab_cache_alloc(_RET_IP_, obj, s, s->object_size, s->stride, gfp, NUMA_NO_NODE);
	return obj;
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
	void *obj;

	if (node != NUMA_NO_NODE && (node < 0 || node >= nr_node_ids))
		node = NUMA_NO_NODE;
	obj = design_alloc(s, gfp, node);
	trace_slablab_cache_alloc(_RET_IP_, obj, s, s->object_size, s->stride, gfp, node);
	return obj;
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc_node);

/**
 * slablab_cache_free - free an object to the cache it came from
 * @s: the cache
 * @obj: the object; NULL is ignored
 */
void slablab_cache_free(struct slablab_cache *s, void *obj)
{
	if (unlikely(!obj))
		return;
	trace_slablab_cache_free(_RET_IP_, obj, s);
	cache_free_slab(s, obj_to_slab(obj), obj);
}
EXPORT_SYMBOL_GPL(slablab_cache_free);

/**
 * slablab_cache_free_bulk - free an array of objects
 * @s: the cache
 * @nr: number of objects
 * @p: the objects; NULL entries are skipped. The array's contents are consumed.
 *
 * Objects of one slab are freed together where the design can (slub: one detached
 * freelist, one cmpxchg, as kmem_cache_free_bulk() does).
 */
void slablab_cache_free_bulk(struct slablab_cache *s, size_t nr, void **p)
{
	s->ops->free_bulk(s, nr, p);
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
	might_alloc(gfp);
	return s->ops->alloc_bulk(s, gfp, nr, p);
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc_bulk);

/* ---- RCU frees ---- */

/*
 * RCU frees: slablab_cache_free_rcu() and slablab_kfree_rcu() (include/slablab.h), in
 * the shape of the kernel's two-argument kfree_rcu(ptr, rhf). An object waits on its
 * cpu's batch of its cache (struct slablab_rcu_batch in the cache's per-cpu state),
 * linked through the rcu_head inside it, whose ->func holds the head's offset in the
 * object (6.1's kvfree_call_rcu() encoding). Each cpu has one batch of each cache
 * waiting for a grace period at a time: the first free of an idle cpu hands its batch
 * to call_rcu() at once; frees that come while it waits collect on the pending list,
 * which becomes the next batch when the callback has freed the waiting one. That is
 * 6.1's kfree_rcu() batching (kernel/rcu/tree.c: kfree_rcu_monitor() drains a per-cpu
 * list into a batch whose previous grace period is over), simplified: 6.1 drains after
 * KFREE_DRAIN_JIFFIES (5 * HZ; one jiffy once a cpu holds KVFREE_BULK_MAX_ENTR
 * objects), has KFREE_N_BATCHES (2) batches per cpu in flight, each with two channels
 * of pages of pointers and the rcu_head list, and frees in a workqueue after the grace
 * period (queue_rcu_work(), kfree_rcu_work()). slablab has no drain delay, one batch in
 * flight and the list only, and frees in the RCU callback (softirq) through the
 * ordinary free path, where the objects count as frees. Until then an object counts as
 * in use (allocations - frees).
 * slablab_kmalloc() memory of no cache (a page or more, or the page policy's) waits on
 * slablab_kfree_rcu_batch, a batch per cpu of no cache. The sheaves design puts cache
 * objects in an rcu_free sheaf instead, as 7.x does (design_sheaves.c).
 */
static DEFINE_PER_CPU(struct slablab_rcu_batch, slablab_kfree_rcu_batch);

static void rcu_batch_init(struct slablab_rcu_batch *b, struct slablab_cache *s)
{
	raw_spin_lock_init(&b->lock);
	b->s = s;
}

static void rcu_batch_free(struct rcu_head *rcu);

/* The pending list becomes the batch that waits (b->lock held, nothing waiting). */
static void rcu_batch_arm(struct slablab_rcu_batch *b)
{
	b->waiting = b->pending;
	b->nr_waiting += b->nr_pending;	/* with the rcu_free sheaves' (sheaves) */
	b->pending = NULL;
	b->nr_pending = 0;
	b->armed = true;
	if (b->s)
		stat(b->s, SLABLAB_FREE_RCU_BATCH);
	call_rcu(&b->rcu, rcu_batch_free);
}

/* A batch's grace period is over: free its objects, then hand on the next batch. */
static void rcu_batch_free(struct rcu_head *rcu)
{
	struct slablab_rcu_batch *b = container_of(rcu, struct slablab_rcu_batch, rcu);
	struct slablab_cache *s = b->s;
	struct rcu_head *head, *next;
	unsigned long flags, n = 0;

	/* Only this callback changes ->waiting while the batch is armed. */
	for (head = b->waiting; head; head = next) {
		void *obj = (void *)head - (unsigned long)head->func;

		next = head->next;
		n++;
		if (s && unlikely(s->flags & SLABLAB_CACHE_F_DEBUG))
			slablab_debug_rcu_unqueue(s, obj);
		if (s && s->owner != SLABLAB_OWNER_KMALLOC)
			slablab_cache_free(s, obj);
		else
			slablab_kfree(obj);
	}
	raw_spin_lock_irqsave(&b->lock, flags);
	b->waiting = NULL;
	b->nr_waiting -= n;
	b->armed = false;
	if (b->pending)
		rcu_batch_arm(b);
	/* Last: slablab_rcu_drain() reads the counts under this lock. */
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/* Queue @head (inside @obj) on this cpu's batch @pcpu; any context. */
static void rcu_batch_add(struct slablab_rcu_batch __percpu *pcpu, struct rcu_head *head,
			  void *obj)
{
	struct slablab_rcu_batch *b;
	unsigned long flags;

	local_irq_save(flags);
	b = this_cpu_ptr(pcpu);
	raw_spin_lock(&b->lock);
	head->func = (rcu_callback_t)(unsigned long)((void *)head - obj);
	head->next = b->pending;
	b->pending = head;
	b->nr_pending++;
	if (!b->armed)
		rcu_batch_arm(b);
	raw_spin_unlock(&b->lock);
	local_irq_restore(flags);
}

/* Objects of @s's batches (the no-cache batches for NULL) not yet freed. */
static unsigned long rcu_batches_outstanding(struct slablab_cache *s)
{
	unsigned long n = 0, flags;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct slablab_rcu_batch *b = s ? &per_cpu_ptr(s->cpu, cpu)->rcu :
						  per_cpu_ptr(&slablab_kfree_rcu_batch, cpu);

		raw_spin_lock_irqsave(&b->lock, flags);
		n += b->nr_pending + b->nr_waiting + b->armed;
		raw_spin_unlock_irqrestore(&b->lock, flags);
	}
	return n;
}

/*
 * Hand @s's partly filled rcu_free sheaves to RCU (the design's rcu_flush) and say
 * whether any RCU free of @s is not yet done: batched, waiting for its grace period,
 * or a typesafe_by_rcu slab deferred.
 */
static bool rcu_outstanding(struct slablab_cache *s)
{
	unsigned long flags, slabs = 0;

	if (s && s->ops && s->ops->rcu_flush)
		s->ops->rcu_flush(s);
	if (s) {
		spin_lock_irqsave(&s->slabs_lock, flags);
		slabs = s->rcu_slabs;
		spin_unlock_irqrestore(&s->slabs_lock, flags);
	}
	return slabs || rcu_batches_outstanding(s);
}

/**
 * slablab_rcu_drain - wait until every RCU free of a cache is done
 * @s: the cache, or NULL for slablab_kmalloc() memory of no cache
 *
 * Its batches (and the design's rcu_free sheaves) handed to RCU, every grace-period
 * callback run, and the typesafe-by-rcu slabs it discarded given back: rcu_barrier()
 * until nothing is left, since a callback may queue the next batch (kmem_cache_destroy()
 * calls kvfree_rcu_barrier_on_cache() and rcu_barrier() for the same reasons). May
 * sleep. New RCU frees must not come meanwhile (destroy, unload, a change that needs
 * an empty cache, under slablab_mutex: netlink caches are RCU freed by the hooks only).
 */
void slablab_rcu_drain(struct slablab_cache *s)
{
	while (rcu_outstanding(s))
		rcu_barrier();
}

/*
 * Whether an RCU free of memory in @page may go to the design's rcu_free sheaf: only
 * memory of this cpu's node does (7.3's kfree_rcu_sheaf() checks slab_nid()), so that
 * the sheaf, a full sheaf of this node's barn after the grace period, holds none of
 * another node's. Any other waits on the cpu's batch, not counted as a sheaf failure.
 */
static bool rcu_free_local(struct page *page)
{
	return !IS_ENABLED(CONFIG_NUMA) || page_to_nid(page) == numa_mem_id();
}

/**
 * __slablab_cache_free_rcu - free a cache object after an RCU grace period
 * @s: the cache it came from
 * @head: a struct rcu_head inside @obj
 * @obj: the object
 *
 * Use slablab_cache_free_rcu(s, ptr, rhf), which finds @head from the member's name.
 * Any context, as kfree_rcu(): with interrupts off or a raw spinlock held too. The
 * batches take raw spinlocks only; the sheaves design's rcu_free sheaf takes the cpu's
 * sheaves lock and a barn's spinlock_t and may kmalloc(GFP_NOWAIT) a sheaf, which
 * lockdep is told is fine under a raw spinlock (a wait-type override, as 7.3's
 * kfree_rcu_sheaf_map); on PREEMPT_RT, where those sleep, the sheaf is skipped (as
 * 7.3's kvfree_call_rcu() does). @obj counts as in use until it is freed, after a
 * grace period. The sheaves design batches it in a per-cpu rcu_free sheaf (7.x) when
 * it is of this cpu's node, every other design (and another node's object) on the
 * cpu's batch (6.1's kfree_rcu() model).
 */
void __slablab_cache_free_rcu(struct slablab_cache *s, struct rcu_head *head, void *obj)
{
	if (unlikely(!obj))
		return;
	/* a double RCU free would link @head twice: reported and leaked (debug only) */
	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG) && !slablab_debug_rcu_queue(s, obj, head))
		return;
	/*
	 * As 6.1's kvfree_call_rcu(): the caller drops its references now, the free (and
	 * kmemleak_free()) comes after a grace period: not a leak meanwhile, not scanned.
	 */
	kmemleak_ignore(obj);
	stat(s, SLABLAB_FREE_RCU);
	if (s->ops->free_rcu && rcu_free_local(virt_to_page(obj)) && s->ops->free_rcu(s, obj))
		return;
	rcu_batch_add(&s->cpu->rcu, head, obj);
}
EXPORT_SYMBOL_GPL(__slablab_cache_free_rcu);

/**
 * __slablab_kfree_rcu - slablab_kfree() after an RCU grace period
 * @head: a struct rcu_head inside @ptr
 * @ptr: memory from slablab_kmalloc()
 *
 * Use slablab_kfree_rcu(ptr, rhf). Any context, as __slablab_cache_free_rcu() (raw
 * spinlocks held too; PREEMPT_RT skips the rcu_free sheaf). Memory of a size class
 * waits with the class's objects (its batches, or its rcu_free sheaves on sheaves) and
 * is freed by slablab_kfree(); memory of no class (a page or more) on the per-cpu
 * batches of no cache.
 */
void __slablab_kfree_rcu(struct rcu_head *head, void *ptr)
{
	struct page *page;
	struct slablab_cache *s = NULL;

	if (unlikely(!ptr))
		return;
	page = virt_to_head_page(ptr);
	if (page_private(page) & SLABLAB_PAGE_SLOB)
		s = slablab_kmalloc_class(slablab_slob_ksize(ptr));
	else if (page_private(page))
		s = ((struct slablab_slab *)page_private(page))->cache;
	if (!s) {
		kmemleak_ignore(ptr);	/* as __slablab_cache_free_rcu() */
		rcu_batch_add(&slablab_kfree_rcu_batch, head, ptr);
		return;
	}
	/* as __slablab_cache_free_rcu() (slob, a heap block, has no debug mode) */
	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG) &&
	    !(page_private(page) & SLABLAB_PAGE_SLOB) && !slablab_debug_rcu_queue(s, ptr, head))
		return;
	kmemleak_ignore(ptr);
	stat(s, SLABLAB_FREE_RCU);
	/* The rcu_free sheaf holds objects of its cache: a slob heap block is none. */
	if (!(page_private(page) & SLABLAB_PAGE_SLOB) && s->ops->free_rcu &&
	    rcu_free_local(page) && s->ops->free_rcu(s, ptr))
		return;
	rcu_batch_add(&s->cpu->rcu, head, ptr);
}
EXPORT_SYMBOL_GPL(__slablab_kfree_rcu);

/* ---- prefilled sheaves ---- */

/* Prefilled sheaves out with callers, or the objects in them (the per-cpu shares' sum). */
static long prefilled(struct slablab_cache *s, bool sheaves)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		n += sheaves ? READ_ONCE(c->prefilled_sheaves) : READ_ONCE(c->prefilled_objects);
	}
	return n > 0 ? n : 0;
}

/* A one-off sheaf of @size objects, filled by a bulk allocation of the cache's design. */
static struct slablab_sheaf *prefill_oversize(struct slablab_cache *s, gfp_t gfp,
					      unsigned int size)
{
	struct slablab_sheaf *sh;

	sh = kmalloc(struct_size(sh, objects, size), (gfp & SLABLAB_RECLAIM_GFP) | __GFP_NOWARN);
	if (!sh)
		return NULL;
	sh->capacity = size;
	sh->oversize = true;
	if (size && !s->ops->alloc_bulk(s, gfp, size, sh->objects)) {
		kfree(sh);
		return NULL;
	}
	sh->size = size;
	stat(s, SLABLAB_SHEAF_PREFILL_OVERSIZE);
	return sh;
}

/**
 * slablab_cache_prefill_sheaf - lend the caller a sheaf of at least @size objects
 * @s: the cache
 * @gfp: allocation flags for the sheaf and its objects
 * @size: objects the caller will allocate from it at most (before a refill)
 *
 * Linux 7.3's kmem_cache_prefill_sheaf(): the objects are taken now, so that up to
 * @size allocations from the sheaf (slablab_cache_alloc_from_sheaf()) cannot fail, in
 * a context that could not allocate itself (the maple tree preallocates so before
 * taking its lock). On a sheaves cache a @size within sheaf_capacity takes the cpu's
 * spare sheaf (sheaf_prefill_fast), else a barn sheaf or a new one (sheaf_prefill_slow),
 * filled to the capacity; its objects stay free objects of the cache (the layers count
 * them as sheaf_prefilled) until allocated from it. A larger @size, or any @size on a
 * design without sheaves (slub, or sheaves with sheaf_capacity 0), gets a one-off sheaf
 * of exactly @size, filled by slablab_cache_alloc_bulk() (sheaf_prefill_oversize): its
 * objects count as allocated from then on, as in 7.3, where a cache without sheaves
 * gets such a sheaf too.
 *
 * Every sheaf goes back with slablab_cache_return_sheaf(); the cache can be destroyed,
 * or change its design, only when none is out. A @size of 0 gets no sheaf: NULL, as
 * 7.3.4's (mm/slub.c:5117), counting nothing.
 *
 * Context: process context, as 7.3's (the sheaves lock it takes, local_lock() on 7.x,
 * keeps out neither an interrupt nor what that interrupt would corrupt: a pop or push
 * of the task it landed in); from any other it warns once and returns NULL. May sleep
 * if @gfp allows.
 *
 * Return: the sheaf, or NULL when @size is 0 or the objects could not be had (nothing
 * is held then).
 */
struct slablab_sheaf *slablab_cache_prefill_sheaf(struct slablab_cache *s, gfp_t gfp,
						  unsigned int size)
{
	struct slablab_sheaf *sh;
	unsigned int cap = READ_ONCE(s->sheaf_capacity);

	might_alloc(gfp);
	if (WARN_ON_ONCE(!in_task()))
		return NULL;
	if (unlikely(!size))
		return NULL;
	if (s->ops->prefill_sheaf && cap && size <= cap)
		sh = s->ops->prefill_sheaf(s, gfp, size);
	else
		sh = prefill_oversize(s, gfp, size);
	if (!sh)
		return NULL;
	if (!sh->oversize)
		this_cpu_add(s->cpu->prefilled_objects, sh->size);
	this_cpu_inc(s->cpu->prefilled_sheaves);
	return sh;
}
EXPORT_SYMBOL_GPL(slablab_cache_prefill_sheaf);

/**
 * slablab_cache_alloc_from_sheaf - allocate an object from a prefilled sheaf
 * @s: the cache the sheaf was prefilled from
 * @gfp: allocation flags (for the alloc hook: __GFP_ZERO, init_on_alloc, and with
 *	CONFIG_DEBUG_KMEMLEAK kmemleak's metadata for the object, so they must fit the
 *	caller's context, as 7.3's)
 * @sheaf: the sheaf
 *
 * Never fails while the sheaf has objects: no lock, no slab, only a pop. Counts
 * ALLOC_FASTPATH for the sheaves' own sheaves (a one-off sheaf's objects were counted
 * when it was filled).
 *
 * Return: the object, or NULL when the sheaf is empty.
 */
void *slablab_cache_alloc_from_sheaf(struct slablab_cache *s, gfp_t gfp,
				     struct slablab_sheaf *sheaf)
{
	void *obj;

	if (unlikely(!sheaf->size))
		return NULL;
	obj = sheaf->objects[--sheaf->size];
	/* an oversize sheaf is scanned: its stale slot would hide a leak of @obj */
	kmemleak_erase(&sheaf->objects[sheaf->size]);
	if (sheaf->oversize) {
		/*
		 * Hooked when the bulk allocation filled the sheaf, with the prefill's gfp:
		 * a __GFP_ZERO given here (7.3 runs the post-alloc hook now) still zeroes.
		 */
		if (slablab_want_init_on_alloc(s, gfp))
			memset(obj, 0, s->object_size);
	} else {
		this_cpu_dec(s->cpu->prefilled_objects);
		stat(s, SLABLAB_ALLOC_FASTPATH);
		alloc_hook(s, obj, gfp);
	}
	/* 7.3's kmem_cache_alloc_from_sheaf() fires kmem_cache_alloc */
	trace_slablab_cache_alloc(_RET_IP_, obj, s, s->object_size, s->stride, gfp, NUMA_NO_NODE);
	return obj;
}
EXPORT_SYMBOL_GPL(slablab_cache_alloc_from_sheaf);

/**
 * slablab_cache_refill_sheaf - make a prefilled sheaf hold at least @size objects again
 * @s: the cache
 * @gfp: allocation flags
 * @sheafp: the sheaf; replaced by a bigger one when @size exceeds its capacity
 * @size: objects wanted in it
 *
 * 7.3's kmem_cache_refill_sheaf(): a sheaf already holding @size is left alone; one
 * whose capacity allows @size is filled up to its capacity; else a new sheaf is
 * prefilled for @size and the old one returned.
 *
 * Context: process context, as slablab_cache_prefill_sheaf(); from any other it warns
 * once and returns -EINVAL. May sleep if @gfp allows.
 *
 * Return: 0; -EINVAL without a sheaf (or outside process context); -ENOMEM when the
 * objects could not be had (the sheaf keeps what it held and stays the caller's).
 */
int slablab_cache_refill_sheaf(struct slablab_cache *s, gfp_t gfp,
			       struct slablab_sheaf **sheafp, unsigned int size)
{
	struct slablab_sheaf *sh;
	unsigned int before;
	int err;

	if (!sheafp || !*sheafp || WARN_ON_ONCE(!in_task()))
		return -EINVAL;
	sh = *sheafp;
	if (sh->size >= size)
		return 0;
	if (size <= sh->capacity) {
		before = sh->size;
		if (sh->oversize) {
			err = 0;
			if (s->ops->alloc_bulk(s, gfp, sh->capacity - sh->size,
					       sh->objects + sh->size))
				sh->size = sh->capacity;
			else
				err = -ENOMEM;
			return err;
		}
		err = s->ops->refill_sheaf(s, gfp, sh, size);
		this_cpu_add(s->cpu->prefilled_objects, sh->size - before);
		return err;
	}
	sh = slablab_cache_prefill_sheaf(s, gfp, size);
	if (!sh)
		return -ENOMEM;
	slablab_cache_return_sheaf(s, gfp, *sheafp);
	*sheafp = sh;
	return 0;
}
EXPORT_SYMBOL_GPL(slablab_cache_refill_sheaf);

/**
 * slablab_cache_return_sheaf - give a prefilled sheaf back, with what is left in it
 * @s: the cache it was prefilled from
 * @gfp: allocation flags, for a refill on the way into the barn (sheaves)
 * @sheaf: the sheaf; the caller must not touch it again
 *
 * A sheaves cache keeps it as the cpu's spare (sheaf_return_fast) or refills it into
 * the barn (sheaf_return_slow), else flushes its objects and frees it; a one-off sheaf
 * has its objects freed (slablab_cache_free_bulk()) and is freed.
 *
 * Context: process context, as slablab_cache_prefill_sheaf(); from any other it warns
 * once and the sheaf is flushed and freed, without the sheaves lock.
 */
void slablab_cache_return_sheaf(struct slablab_cache *s, gfp_t gfp,
				struct slablab_sheaf *sheaf)
{
	/* the sheaves design flushes and frees it then (design_sheaves.c) */
	WARN_ON_ONCE(!in_task());
	this_cpu_dec(s->cpu->prefilled_sheaves);
	if (sheaf->oversize) {
		s->ops->free_bulk(s, sheaf->size, sheaf->objects);
		kfree(sheaf);
		return;
	}
	this_cpu_sub(s->cpu->prefilled_objects, sheaf->size);
	s->ops->return_sheaf(s, gfp, sheaf);
}
EXPORT_SYMBOL_GPL(slablab_cache_return_sheaf);

/**
 * slablab_cache_sheaf_size - the objects a prefilled sheaf holds
 * @sheaf: the sheaf
 *
 * Return: how many allocations from it cannot fail.
 */
unsigned int slablab_cache_sheaf_size(struct slablab_sheaf *sheaf)
{
	return sheaf->size;
}
EXPORT_SYMBOL_GPL(slablab_cache_sheaf_size);

/* ---- cache creation, tunables, destruction ---- */

/*
 * Set up the per-cpu front end of an empty cache whose previous one (if any) was torn
 * down: @design, standing on slub's per-cpu slabs when a sheaves cache has
 * @cpu_slabs. On failure the design's init has cleaned up after itself and the cache
 * has no front end (s->ops unchanged, pointing at the torn-down one).
 */
static int set_front_end(struct slablab_cache *s, unsigned int design, bool cpu_slabs)
{
	const struct slablab_design_ops *ops = slablab_designs[design];
	int err;

	s->sheaves_cpu_slabs = cpu_slabs;
	s->under = design == SLABLAB_DESIGN_SHEAVES && cpu_slabs ? &slablab_slub_ops : NULL;
	err = ops->init(s);
	if (err)
		return err;
	s->ops = ops;
	WRITE_ONCE(s->design, design);
	return 0;
}

/* Flags that cannot go together: debug's poison would overwrite what RCU readers read. */
static int check_flags(unsigned int flags, struct netlink_ext_ack *extack)
{
	if ((flags & SLABLAB_CACHE_F_DEBUG) && (flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)) {
		NL_SET_ERR_MSG_MOD(extack, "typesafe_by_rcu caches have no debug mode");
		return -EINVAL;
	}
	return 0;
}

/* In the reverse order of creation: the design's state first (it may still flush). */
static void free_cache_struct(struct slablab_cache *s)
{
	int nid;

	/* The design first: its work items (slab's reap) use the node locks. */
	if (s->ops && s->ops->destroy)
		s->ops->destroy(s);
	if (s->node) {
		for_each_node(nid)
			kfree(s->node[nid]);
		kfree(s->node);
	}
	kvfree(s->random_seq);
	free_percpu(s->cpu);
	kfree(s);
}

/*
 * slablab_cache_args' tunables into @tv: known ones, none of those its own fields give
 * (flags, design, sheaves_cpu_slabs: the cache is built from them, and a kernel-owned
 * cache could not change them after), each within its range — refused before anything
 * is allocated; the checks against the cache come once it is made.
 */
static int args_tunables(const struct slablab_cache_args *args,
			 struct slablab_tunable_values *tv, struct netlink_ext_ack *extack)
{
	u32 unknown = args->tunables_set & ~(u32)GENMASK(SLABLAB_NR_TUNABLES - 1, 0);
	unsigned int id;

	if (unknown) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "unknown tunables %#x in the cache's args",
				       unknown);
		return -EINVAL;
	}
	tv->set = args->tunables_set;
	for (id = 0; id < SLABLAB_NR_TUNABLES; id++) {
		if (!(tv->set & BIT(id)))
			continue;
		if (slablab_tunables[id].dflt == SLABLAB_DEFAULT_REQUEST) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "%s is a field of slablab_cache_args",
					       slablab_tunables[id].name);
			return -EINVAL;
		}
		tv->v[id] = args->tunables[id];
	}
	return slablab_tunables_check_ranges(tv, extack);
}

/**
 * slablab_cache_create_owner - create a cache (slablab_mutex and cpus_read_lock held)
 * @name: unique name, [A-Za-z0-9_.:-], shorter than SLABLAB_NAME_MAX
 * @size: object size, SLABLAB_MIN_SIZE..SLABLAB_MAX_SIZE
 * @args: alignment, flags (SLABLAB_CACHE_F_* plus SLABLAB_KERNEL_DEFAULTS), ctor,
 *	design and design tunables; NULL: every default
 * @owner: who owns the cache
 * @extack: where to say what was wrong, or NULL
 *
 * Return: the cache or an ERR_PTR.
 */
struct slablab_cache *slablab_cache_create_owner(const char *name, unsigned int size,
						 const struct slablab_cache_args *args,
						 enum slablab_owner owner,
						 struct netlink_ext_ack *extack)
{
	static const struct slablab_cache_args defaults;
	struct slablab_tunable_values tv;
	unsigned int align, flags;
	struct slablab_cache *s;
	int cpu, nid, err;

	if (!args)
		args = &defaults;
	align = args->align;
	flags = args->flags;

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
	err = check_flags(flags, extack);
	if (err)
		return ERR_PTR(err);
	if (args->design >= __SLABLAB_DESIGN_MAX || !slablab_designs[args->design]) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "design %u is not built into this module",
				       args->design);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (args->design == SLABLAB_DESIGN_SLOB && (flags & SLABLAB_CACHE_F_DEBUG)) {
		NL_SET_ERR_MSG_MOD(extack, "the slob design has no debug mode");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (args->design == SLABLAB_DESIGN_SLOB && (flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU) &&
	    size > SLABLAB_SLOB_RCU_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "slob: typesafe_by_rcu objects up to %lu bytes",
				       SLABLAB_SLOB_RCU_MAX);
		return ERR_PTR(-EOPNOTSUPP);
	}
	err = args_tunables(args, &tv, extack);
	if (err)
		return ERR_PTR(err);
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
	s->ctor = args->ctor;
	s->owner = owner;
	s->random = get_random_long();
	spin_lock_init(&s->slabs_lock);
	INIT_LIST_HEAD(&s->all_slabs);
	atomic_long_set(&s->debug_errors, 0);
	atomic_set(&s->users, 0);
	slablab_compute_layout(s, args->design);
	/* the order policy reads max_order: its default first, the others after the order */
	s->max_order = slablab_tunables[SLABLAB_TUNABLE_MAX_ORDER].dflt_value;
	err = slablab_choose_order(s, args->design, extack);
	if (err)
		goto err_free;
	slablab_tunables_defaults(s);

	err = -ENOMEM;
	if (slablab_make_random_seq(s, args->design, &s->random_seq, &s->random_seq_len))
		goto err_free;
	s->cpu = alloc_percpu_gfp(struct slablab_cpu, GFP_KERNEL | __GFP_ZERO);
	if (!s->cpu)
		goto err_free;
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		local_lock_init(&c->lock);
		slablab_sheaves_lock_init(&c->sheaves_lock);
		rcu_batch_init(&c->rcu, s);
	}
	err = -ENOMEM;
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
	/* After the nodes: a design may use their locks (slab's lists) */
	err = set_front_end(s, args->design, args->sheaves_cpu_slabs);
	if (err)
		goto err_free;
	/* The caller's tunables, as cache-new applies its request's (not yet listed). */
	if (tv.set) {
		err = slablab_tunables_set(s, &tv, extack);
		if (err)
			goto err_free;
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
 * slablab_cache_create_args - create a slablab cache, told everything in one struct
 * @name: unique name, [A-Za-z0-9_.:-], shorter than SLABLAB_NAME_MAX
 * @size: object size in bytes
 * @args: alignment, flags, constructor, design and design tunables (struct
 *	slablab_cache_args); NULL, or all zero, for every default
 *
 * The style of 6.12's kmem_cache_create() with struct kmem_cache_args: a field added
 * later defaults to zero, so callers written before it keep meaning the same. May
 * sleep. The cache appears in netlink dumps and debugfs with owner "kernel".
 *
 * Return: the cache, or NULL on failure (the reason is logged).
 */
struct slablab_cache *slablab_cache_create_args(const char *name, unsigned int size,
						const struct slablab_cache_args *args)
{
	struct slablab_cache *s;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	s = slablab_cache_create_owner(name, size, args, SLABLAB_OWNER_KERNEL, NULL);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	if (IS_ERR(s)) {
		pr_err("cannot create cache %s (size %u): error %ld\n", name, size, PTR_ERR(s));
		return NULL;
	}
	return s;
}
EXPORT_SYMBOL_GPL(slablab_cache_create_args);

/**
 * slablab_cache_create - create a slablab cache with the default design and tunables
 * @name: unique name, [A-Za-z0-9_.:-], shorter than SLABLAB_NAME_MAX
 * @size: object size in bytes
 * @align: required alignment, 0 for the default
 * @flags: SLABLAB_DEBUG, SLABLAB_HARDENED, SLABLAB_RANDOM, SLABLAB_HWCACHE_ALIGN,
 *	   SLABLAB_KERNEL_DEFAULTS
 * @ctor: constructor, or NULL
 *
 * slablab_cache_create_args() with only these set. May sleep.
 *
 * Return: the cache, or NULL on failure (the reason is logged).
 */
struct slablab_cache *slablab_cache_create(const char *name, unsigned int size,
					   unsigned int align, unsigned int flags,
					   void (*ctor)(void *))
{
	struct slablab_cache_args args = { .align = align, .flags = flags, .ctor = ctor };

	return slablab_cache_create_args(name, size, &args);
}
EXPORT_SYMBOL_GPL(slablab_cache_create);

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
	/* Objects freed by RCU count as in use until their grace period ends: wait for it. */
	slablab_rcu_drain(s);
	flush_all(s, true);
	live = slablab_objects_in_use(s) + prefilled(s, true);
	if (live) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "cache %s: %llu objects allocated or in prefilled sheaves",
				       s->name, live);
		pr_info("cache %s not destroyed: %llu objects allocated or sheaves prefilled\n",
			s->name, live);
		return -EBUSY;
	}
	list_del(&s->list);
	slablab_caches_gen++;
	s->dead = true;
	slablab_discard_all_slabs(s);
	/* typesafe_by_rcu: the slabs just discarded wait for a grace period, and use @s */
	slablab_rcu_drain(s);
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
 * all with this signature, so that netlink-cache.c applies a CACHE_SET by walking that
 * table.
 * The caller holds slablab_mutex and cpus_read_lock; values are within the policy's range.
 */

int slablab_set_min_partial(struct slablab_cache *s, unsigned int slabs,
			    struct netlink_ext_ack *extack)
{
	WRITE_ONCE(s->min_partial, slabs);
	return 0;
}

/*
 * Whether the cache may be emptied of slabs and per-cpu state now (a relayout or a
 * design change): owned by netlink, no storm, no object allocated. @what names the
 * change in the message.
 */
static int check_empty(struct slablab_cache *s, const char *what,
		       struct netlink_ext_ack *extack)
{
	u64 live;

	if (s->owner != SLABLAB_OWNER_NETLINK || atomic_read(&s->users)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s of this cache cannot change while it is in use",
				       what);
		return -EBUSY;
	}
	/* Objects freed by RCU count as in use until their grace period ends: wait for it. */
	slablab_rcu_drain(s);
	live = slablab_objects_in_use(s);
	if (live) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "%s needs an empty cache: %llu objects in use",
				       what, live);
		return -EBUSY;
	}
	if (prefilled(s, true)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "%s cannot change while %ld prefilled sheaves are out",
				       what, prefilled(s, true));
		return -EBUSY;
	}
	return 0;
}

/* Whether @s could run on @design: built in, and not in debug mode for slob. */
static int check_design_built(struct slablab_cache *s, u32 design, unsigned int flags,
			      struct netlink_ext_ack *extack)
{
	if (design >= __SLABLAB_DESIGN_MAX || !slablab_designs[design]) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "design %u is not built into this module", design);
		return -EOPNOTSUPP;
	}
	if (design == SLABLAB_DESIGN_SLOB && (flags & SLABLAB_CACHE_F_DEBUG)) {
		/* No slots: red zones and poison have nowhere to live (docs/design.md). */
		NL_SET_ERR_MSG_MOD(extack, "the slob design has no debug mode");
		return -EOPNOTSUPP;
	}
	if (design == SLABLAB_DESIGN_SLOB && (flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU) &&
	    s->object_size > SLABLAB_SLOB_RCU_MAX) {
		/* the block's RCU tail must fit a heap page (design_slob.c) */
		NL_SET_ERR_MSG_FMT_MOD(extack, "slob: typesafe_by_rcu objects up to %lu bytes",
				       SLABLAB_SLOB_RCU_MAX);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int check_design(struct slablab_cache *s, u32 design, struct netlink_ext_ack *extack)
{
	int err;

	if (design == s->design)
		return 0;
	err = check_design_built(s, design, s->flags, extack);
	if (err)
		return err;
	return check_empty(s, "the design", extack);
}

/**
 * slablab_check_tunables - check a flags, an order and a design change as one,
 *	applying nothing
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @flags: the new flags, or NULL to keep the current ones
 * @order: the new order, or NULL to keep it
 * @design: the new design (enum slablab_design), or NULL to keep it
 * @extack: where to say what is wrong, or NULL
 *
 * The order is checked against the layout the new flags give, not the current one, so
 * that slablab_set_flags() followed by slablab_set_order() with values this accepted
 * can only fail for lack of memory, and then slablab_set_flags() changes nothing: a
 * CACHE_SET with both is all or nothing.
 *
 * Return: 0, -EINVAL (unknown flags), -EBUSY (flags or design of a cache in use or not
 * owned by netlink), -EOPNOTSUPP (a design not built), -E2BIG (the new layout exceeds
 * the largest slab) or -ERANGE (order).
 */
int slablab_check_tunables(struct slablab_cache *s, const u32 *flags, const u32 *order,
			   const u32 *design, struct netlink_ext_ack *extack)
{
	unsigned int stride = s->stride, fp_offset, min_order;
	int err;

	lockdep_assert_held(&slablab_mutex);
	if (design) {
		err = check_design(s, *design, extack);
		if (err)
			return err;
	}
	if (flags && *flags != s->flags) {
		if (*flags & ~__SLABLAB_CACHE_F_ALL) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "unknown cache flags %#x",
					       *flags & ~__SLABLAB_CACHE_F_ALL);
			return -EINVAL;
		}
		err = check_flags(*flags, extack);
		if (err)
			return err;
		err = check_empty(s, "flags", extack);
		if (err)
			return err;
		err = check_design_built(s, design ? *design : s->design, *flags, extack);
		if (err)
			return err;
	}
	if ((flags && *flags != s->flags) || (design && *design != s->design))
		stride = slablab_layout_stride(s, flags ? *flags : s->flags,
					       design ? *design : s->design, &fp_offset);
	/* (an on-slab SLAB index byte more cannot need a higher order: objfreelist fits) */
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
				       "order %u slabs cannot hold one %u-byte object (min order %u)",
				       *order, stride, min_order);
		return -ERANGE;
	}
	return 0;
}

/*
 * SLUB's slub_max_order, per cache: the order policy chooses again under it, and new
 * slabs take its choice unless an order was set (slablab_set_order()).
 */
int slablab_set_max_order(struct slablab_cache *s, unsigned int max_order,
			  struct netlink_ext_ack *extack)
{
	unsigned int old = s->max_order;
	int err;

	WRITE_ONCE(s->max_order, max_order);
	err = slablab_choose_order(s, s->design, extack);
	if (err) {
		WRITE_ONCE(s->max_order, old);
		return err;
	}
	if (!s->order_set && s->order != s->order_default) {
		WRITE_ONCE(s->order, s->order_default);	/* applies to new slabs */
		s->ops->relayout(s);
	}
	return 0;
}

int slablab_set_order(struct slablab_cache *s, unsigned int order, struct netlink_ext_ack *extack)
{
	int err = slablab_check_tunables(s, NULL, &order, NULL, extack);

	if (err)
		return err;
	WRITE_ONCE(s->order, order);	/* applies to new slabs */
	s->order_set = true;
	s->ops->relayout(s);
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

/* What a relayout changes, kept to put back when it fails. */
struct layout_state {
	unsigned int flags, stride, fp_offset, slot_index, max_objs;
	unsigned int order, order_default;
	bool order_set;
	struct slablab_order_choice order_choice;
	unsigned int *random_seq, random_seq_len;
};

static void layout_save(const struct slablab_cache *s, struct layout_state *l)
{
	*l = (struct layout_state) {
		.flags = s->flags, .stride = s->stride, .fp_offset = s->fp_offset,
		.slot_index = s->slot_index, .max_objs = s->max_objs, .order = s->order,
		.order_set = s->order_set,
		.order_default = s->order_default, .order_choice = s->order_choice,
		.random_seq = s->random_seq, .random_seq_len = s->random_seq_len,
	};
}

/* Put @l back, and let go of the sequence made for the layout given up. */
static void layout_restore(struct slablab_cache *s, const struct layout_state *l)
{
	if (s->random_seq != l->random_seq)
		kvfree(s->random_seq);
	s->flags = l->flags;
	s->stride = l->stride;
	s->fp_offset = l->fp_offset;
	s->slot_index = l->slot_index;
	s->max_objs = l->max_objs;
	WRITE_ONCE(s->order, l->order);
	s->order_set = l->order_set;
	s->order_default = l->order_default;
	s->order_choice = l->order_choice;
	s->random_seq = l->random_seq;
	s->random_seq_len = l->random_seq_len;
}

/*
 * Lay an empty cache out for @flags under @design: stride, freelist placement, order
 * policy and freelist sequence, all or nothing. The old layout stays in @old (its
 * sequence too) for layout_restore(), until relayout_done() lets it go. The new
 * layout's sequence is made before anything is committed: a rollback that had to
 * allocate could fail too, and leave a random cache without one. An order never set
 * follows the new default; one that was set stays, unless it no longer holds an object.
 * Nothing allocates from the cache meanwhile (it is empty, and no storm or handle holds
 * it); figures read without slablab_mutex may be a mix of both layouts for a moment.
 */
static int relayout(struct slablab_cache *s, unsigned int flags, unsigned int design,
		    struct layout_state *old, struct netlink_ext_ack *extack)
{
	unsigned int *seq = NULL, seq_len = 0;
	int err;

	layout_save(s, old);
	s->flags = flags;
	slablab_compute_layout(s, design);
	err = slablab_choose_order(s, design, extack);
	if (!err) {
		err = slablab_make_random_seq(s, design, &seq, &seq_len);
		if (err)
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the new layout's freelist sequence");
	}
	if (err) {
		layout_restore(s, old);
		return err;
	}
	s->random_seq = seq;
	s->random_seq_len = seq_len;
	if (s->order_set && s->order < slablab_min_order(s))
		s->order_set = false;	/* it holds no object now: the default again */
	if (!s->order_set)
		WRITE_ONCE(s->order, s->order_default);
	return 0;
}

static void relayout_done(struct layout_state *old)
{
	kvfree(old->random_seq);
	old->random_seq = NULL;
}

/*
 * Flags change the object layout or how free pointers are stored, so they can only
 * change while the cache holds no objects: every slab is freed first (relayout()).
 */
int slablab_set_flags(struct slablab_cache *s, unsigned int flags, struct netlink_ext_ack *extack)
{
	struct layout_state old;
	int err;

	/* Refuse before touching anything: a refused request changes nothing. */
	err = slablab_check_tunables(s, &flags, NULL, NULL, extack);
	if (err || flags == s->flags)
		return err;
	/* slob's typesafe_by_rcu blocks: their size is the old layout's */
	slablab_rcu_drain(s);
	flush_all(s, true);
	slablab_discard_all_slabs(s);
	err = relayout(s, flags, s->design, &old, extack);
	if (err)
		return err;
	relayout_done(&old);
	s->ops->relayout(s);
	return 0;
}

/*
 * Set the front end of @design up again on an empty cache whose new one failed (and is
 * torn down) and whose layout is @design's again; when not even that works, slub's,
 * whose init cannot fail, on slub's layout when it can be had, else on the one it has,
 * which slub can run too (not quite for slob's, which has no freelist sequence: slub
 * would lay out a random cache's slots in order; slob's init cannot fail, so it never
 * comes to that). Return: 0, or -ENOMEM when the cache is slub now.
 */
static int front_end_restore(struct slablab_cache *s, unsigned int design, bool cpu_slabs)
{
	struct layout_state slub;
	int err;

	err = set_front_end(s, design, cpu_slabs);
	if (!err)
		return 0;
	if (!relayout(s, s->flags, SLABLAB_DESIGN_SLUB, &slub, NULL))
		relayout_done(&slub);
	WARN_ON_ONCE(set_front_end(s, SLABLAB_DESIGN_SLUB, cpu_slabs));
	return err;
}

/*
 * Replace the per-cpu front end of an empty cache (a design or a sheaves_cpu_slabs change):
 * every cpu's state is given back and every slab freed, then the new front end is set
 * up. Nobody allocates meanwhile: the cache is netlink's, no storm holds it, no sheaf
 * is out, and the handles allocate under slablab_mutex, which the caller holds. When
 * the new front end cannot be set up (-ENOMEM) the old one is set up again; when not
 * even that works, the slub design, whose init cannot fail: the cache always runs
 * the design s->design names, fully set up.
 */
static int switch_front_end(struct slablab_cache *s, unsigned int design, bool cpu_slabs,
			    struct netlink_ext_ack *extack)
{
	unsigned int old_design = s->design;
	bool old_sheaves_cpu_slabs = s->sheaves_cpu_slabs, new_layout = design != old_design;
	struct layout_state old;
	int err;

	/* slob's typesafe_by_rcu blocks free through the design they were freed on */
	slablab_rcu_drain(s);
	flush_all(s, true);
	slablab_discard_all_slabs(s);
	/* the slab design lays slabs out as SLAB does (slablab_compute_layout()) */
	if (new_layout) {
		err = relayout(s, s->flags, design, &old, extack);
		if (err)
			return err;
	}
	if (s->ops->destroy)
		s->ops->destroy(s);
	err = set_front_end(s, design, cpu_slabs);
	if (!err) {
		if (new_layout)
			relayout_done(&old);
		return 0;
	}
	if (new_layout)
		layout_restore(s, &old);
	if (!front_end_restore(s, old_design, old_sheaves_cpu_slabs)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "per-cpu setup failed for %s: the cache stays %s",
				       slablab_designs[design]->name, s->ops->name);
		return err;
	}
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "per-cpu setup failed for %s and %s: the cache is slub now",
			       slablab_designs[design]->name, slablab_designs[old_design]->name);
	return err;
}

/* A design change, on an empty cache (slablab_check_tunables()). */
int slablab_set_design(struct slablab_cache *s, unsigned int design,
		       struct netlink_ext_ack *extack)
{
	int err;

	err = slablab_check_tunables(s, NULL, NULL, &design, extack);
	if (err || design == s->design)
		return err;
	return switch_front_end(s, design, s->sheaves_cpu_slabs, extack);
}

/**
 * slablab_check_sheaves_cpu_slabs - whether the sheaves_cpu_slabs tunable may become @on now
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @on: the new value (0 or 1)
 * @extack: where to say why not
 *
 * A sheaves cache changes its front end, so it must be empty (as for a design change);
 * other designs only keep the value for a later change to sheaves.
 *
 * Return: 0, -ERANGE or -EBUSY.
 */
int slablab_check_sheaves_cpu_slabs(struct slablab_cache *s, unsigned int on,
				    struct netlink_ext_ack *extack)
{
	if (on > 1)
		return -ERANGE;
	if (on == s->sheaves_cpu_slabs || s->design != SLABLAB_DESIGN_SHEAVES)
		return 0;
	return check_empty(s, "sheaves_cpu_slabs", extack);
}

int slablab_set_sheaves_cpu_slabs(struct slablab_cache *s, unsigned int on,
				  struct netlink_ext_ack *extack)
{
	int err = slablab_check_sheaves_cpu_slabs(s, on, extack);

	if (err || on == s->sheaves_cpu_slabs)
		return err;
	if (s->design != SLABLAB_DESIGN_SHEAVES) {
		s->sheaves_cpu_slabs = on;
		return 0;
	}
	return switch_front_end(s, s->design, on, extack);
}

/**
 * slablab_shrink_locked - flush cpu slabs and free empty slabs beyond min_partial
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 *
 * Return: the number of slabs freed, by the flush and by the shrink proper.
 */
unsigned long slablab_shrink_locked(struct slablab_cache *s)
{
	unsigned long freed = flush_all(s, false);

	return freed + slablab_shrink_nodes(s, true);
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

/**
 * slablab_cache_empty - flush the per-cpu layers and free every empty slab
 * @s: the cache
 *
 * What SLUB 6.1's kmem_cache_shrink() does (min_partial is not kept, unlike
 * slablab_cache_shrink()): a storm on shared caches (the kmalloc classes) starts from
 * them holding only their other users' live objects, not empty slabs an earlier storm
 * left that would fill without taking a page. May sleep.
 *
 * Return: the number of slabs freed.
 */
unsigned long slablab_cache_empty(struct slablab_cache *s)
{
	unsigned long freed;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	freed = flush_all(s, false);
	freed += slablab_shrink_nodes(s, false);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return freed;
}

/**
 * slablab_validate - check every slab of a cache
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @r: the report to fill
 *
 * Flushes the design's per-cpu layers first, so a quiet cache is checked completely;
 * slabs that a cpu takes while the walk runs are counted but their freelists are
 * skipped.
 */
void slablab_validate(struct slablab_cache *s, struct slablab_validate_report *r)
{
	if (s->design == SLABLAB_DESIGN_SLOB) {
		/* No slabs: the lab's heap, which every slob cache shares, is checked. */
		slablab_slob_validate(s, r);
		return;
	}
	flush_all(s, false);
	slablab_validate_slabs(s, r);
	if (s->ops->validate)
		s->ops->validate(s, r);
}

/**
 * slablab_check_lists - whether @design takes @lists slab lists
 * @design: enum slablab_design
 * @lists: the lists tunable
 * @extack: where a refusal is told
 *
 * Return: 0, or -EINVAL (slab: 1 or 3; slob: 1, 2 or 3; other designs have no lists).
 */
int slablab_check_lists(unsigned int design, unsigned int lists,
			struct netlink_ext_ack *extack)
{
	switch (design) {
	case SLABLAB_DESIGN_SLOB:
		if (lists >= 1 && lists <= 3)
			return 0;
		break;
	case SLABLAB_DESIGN_SLAB:
		if (lists == 1 || lists == 3)
			return 0;
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "lists is a tunable of the slab and slob designs");
		return -EINVAL;
	}
	NL_SET_ERR_MSG_FMT_MOD(extack, "%u lists: slab takes 1 or 3, slob 1, 2 or 3", lists);
	return -EINVAL;
}

/*
 * The lists tunable (slab, slob). On slob it chooses the heap lists this cache's
 * requests search and its new pages join; pages already on a list stay there, so it
 * may change at any time.
 */
int slablab_set_lists(struct slablab_cache *s, unsigned int lists,
		      struct netlink_ext_ack *extack)
{
	int err = slablab_check_lists(s->design, lists, extack);

	if (err || lists == s->lists)
		return err;
	/* slab re-sorts its node lists; slob's pages stay on the lists they joined */
	if (s->design == SLABLAB_DESIGN_SLAB)
		return slablab_slab_design_set_lists(s, lists, extack);
	WRITE_ONCE(s->lists, lists);
	return 0;
}

/* One cpu's figures for the per-cpu reply, from the design. */
void slablab_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
		      u32 *partial_slabs, u32 *partial_objects)
{
	s->ops->cpu_view(s, cpu, slab_objs, partial_slabs, partial_objects);
}

/*
 * A racy count of the slub design's cpu slabs: their cpu freelists can be walked only
 * on their cpu, under its lock. Racily they are what the slots leave: total, less the
 * callers' objects and every other layer (at least the remote frees on the cpu slabs,
 * which the design put in @l->cpu_slab). Exact on a quiet cache, as the layers' sum.
 */
static void cpu_slab_by_remainder(struct slablab_layers *l)
{
	u64 others = l->callers + l->cpu_partial + l->slabs_free + l->sheaf_main +
		     l->sheaf_spare + l->barn + l->array + l->shared + l->alien +
		     l->sheaf_prefilled;

	if (l->total > others)
		l->cpu_slab = max(l->cpu_slab, l->total - others);
}

/**
 * slablab_layers - where a cache's object slots are (slablab_mutex, cpus_read_lock held)
 * @s: the cache
 * @l: filled: the back end's layers, then the design's (struct slablab_layers)
 * @exact: count each cpu's layers on it, under its lock (work on every online cpu,
 *	waited for: CAP_SYS_ADMIN only); else read them racily from this cpu, queueing no
 *	work and sending no IPI, as SLUB's world-readable sysfs files do
 *
 * Both are exact on a quiet cache; while it is busy each exact figure is exact at its
 * moment, and a racy one may be off by what moved while it was read.
 */
void slablab_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact)
{
	lockdep_assert_held(&slablab_mutex);
	memset(l, 0, sizeof(*l));
	slablab_backend_layers(s, l);
	s->ops->layers(s, l, exact);
	/* a design without sheaves lends one-off sheaves only: their objects are callers' */
	if (s->ops->prefill_sheaf) {
		l->sheaf_prefilled = prefilled(s, false);
		l->present |= BIT(SLABLAB_LAYERS_A_SHEAF_PREFILLED);
	}
	if (!exact && (l->present & BIT(SLABLAB_LAYERS_A_CPU_SLAB)))
		cpu_slab_by_remainder(l);
}

/**
 * slablab_occupancy - the slab-occupancy histogram of a cache (slablab_mutex,
 *	cpus_read_lock held: the design cannot change)
 * @s: the cache
 * @h: filled: how many slabs hold how many objects in use (struct slablab_occupancy)
 *
 * The slab designs' slabs are the back end's, so the back end counts them; slob
 * counts its heap pages (slob_occupancy()).
 */
void slablab_occupancy(struct slablab_cache *s, struct slablab_occupancy *h)
{
	lockdep_assert_held(&slablab_mutex);
	if (s->ops->occupancy)
		s->ops->occupancy(s, h);
	else
		slablab_backend_occupancy(s, h);
}

void slablab_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	int cpu;

	slablab_backend_gauges(s, g);
	for_each_possible_cpu(cpu) {
		struct slablab_rcu_batch *b = &per_cpu_ptr(s->cpu, cpu)->rcu;

		/* a gauge, read without the batch's lock: each count is one word */
		g->rcu_pending += data_race(READ_ONCE(b->nr_pending));
		/* likewise */
		g->rcu_waiting += data_race(READ_ONCE(b->nr_waiting));
	}
	s->ops->gauges(s, g);
}

/* ---- checking and applying the tunables of one request (the registry, tunables.c) ---- */

/*
 * A request's tunables are checked together before any is applied
 * (slablab_tunables_check(): the design first, then flags and order against the layout
 * they give, the lists against the design the cache will have, the slab design's limit,
 * batchcount and shared as one), then applied in the registry's order, flags first.
 * What the check passed can then fail only for lack of memory, and the setters that
 * allocate (flags, design, the slab arrays) undo themselves when it runs out. cache-new,
 * cache-set (netlink-cache.c), slablab_cache_args (creation) and debugfs writes all come here,
 * so a tunable is judged the same way wherever it is set.
 */

/* The setters by enum slablab_tunable_id: slablab_set_<name>() of each row of the spec. */
typedef int (*slablab_tunable_setter)(struct slablab_cache *s, unsigned int v,
				      struct netlink_ext_ack *extack);
#define SLABLAB_SETTER(attr, name, type, kind, enum, min, max)				\
	[SLABLAB_TUNABLE_##attr] = slablab_set_##name,
static const slablab_tunable_setter slablab_tunable_setters[SLABLAB_NR_TUNABLES] = {
	SLABLAB_CACHE_TUNABLES(SLABLAB_SETTER)
};

#undef SLABLAB_SETTER

static bool given(const struct slablab_tunable_values *tv, unsigned int id)
{
	return tv->set & BIT(id);
}

/* @tv's value of @id, or NULL when it has none (slablab_check_tunables()' convention) */
static const u32 *value_of(const struct slablab_tunable_values *tv, unsigned int id)
{
	return given(tv, id) ? &tv->v[id] : NULL;
}

/**
 * slablab_tunables_check - judge a request's tunables together, applying nothing
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @tv: the tunables given; @tv->bad is set to the one refused
 * @extack: where to say why, or NULL
 *
 * The design first (a cache in use or not built), the lists against the design the
 * cache will have, flags and order together (the order against the layout the new
 * flags give), the slab design's limit, batchcount and shared as one, and a sheaves
 * cache's cpu slab layer. The others were range-checked and cannot fail, so that
 * slablab_tunables_apply() after this changes nothing unless it succeeds.
 *
 * Return: 0 or the refusal's error (-EINVAL, -ERANGE, -EBUSY, -EOPNOTSUPP, -E2BIG).
 */
static int slablab_tunables_check(struct slablab_cache *s,
				  struct slablab_tunable_values *tv,
				  struct netlink_ext_ack *extack)
{
	const u32 *design = value_of(tv, SLABLAB_TUNABLE_DESIGN);
	const u32 *flags = value_of(tv, SLABLAB_TUNABLE_FLAGS);
	const u32 *order = value_of(tv, SLABLAB_TUNABLE_ORDER);
	int err;

	tv->bad = -1;
	err = slablab_tunables_check_ranges(tv, extack);
	if (err)
		return err;
	/* The design first: its refusal (-EBUSY, -EOPNOTSUPP) names its attribute. */
	if (design) {
		err = slablab_check_tunables(s, NULL, NULL, design, extack);
		if (err) {
			tv->bad = SLABLAB_TUNABLE_DESIGN;
			return err;
		}
	}
	/* lists against the design the cache will have (it is applied after it) */
	if (given(tv, SLABLAB_TUNABLE_LISTS)) {
		err = slablab_check_lists(design ? *design : s->design,
					  tv->v[SLABLAB_TUNABLE_LISTS], extack);
		if (err) {
			tv->bad = SLABLAB_TUNABLE_LISTS;
			return err;
		}
	}
	/*
	 * Flags and order against the design the cache will have: slob with debug is
	 * refused here, not after the flags were applied (the torture run found a CACHE_SET
	 * of design slob with debug that failed and left the flags and order changed).
	 */
	err = slablab_check_tunables(s, flags, order, design, extack);
	if (err) {
		tv->bad = err == -ERANGE ? SLABLAB_TUNABLE_ORDER : SLABLAB_TUNABLE_FLAGS;
		return err;
	}
	/* The slab design's triple (lists was judged above, for every design). */
	err = slablab_slab_design_check_tunables(s, value_of(tv, SLABLAB_TUNABLE_LIMIT),
						 value_of(tv, SLABLAB_TUNABLE_BATCHCOUNT),
						 value_of(tv, SLABLAB_TUNABLE_SHARED), extack);
	if (err) {
		tv->bad = given(tv, SLABLAB_TUNABLE_LIMIT) ? SLABLAB_TUNABLE_LIMIT :
			  given(tv, SLABLAB_TUNABLE_BATCHCOUNT) ? SLABLAB_TUNABLE_BATCHCOUNT :
			  SLABLAB_TUNABLE_SHARED;
		return err;
	}
	/* A sheaves cache's cpu slab layer changes only while it is empty, as a design. */
	if (given(tv, SLABLAB_TUNABLE_SHEAVES_CPU_SLABS)) {
		err = slablab_check_sheaves_cpu_slabs(s, tv->v[SLABLAB_TUNABLE_SHEAVES_CPU_SLABS],
						      extack);
		if (err)
			tv->bad = SLABLAB_TUNABLE_SHEAVES_CPU_SLABS;
	}
	return err;
}

/*
 * limit, batchcount and shared are judged and set together, as SLAB's slabinfo write
 * took them: one at a time, "limit=10 batchcount=5" from limit 120 and batchcount 60
 * would break batchcount <= limit on the way.
 */
static bool is_cpucache(unsigned int id)
{
	return id == SLABLAB_TUNABLE_LIMIT || id == SLABLAB_TUNABLE_BATCHCOUNT ||
	       id == SLABLAB_TUNABLE_SHARED;
}

static int apply_cpucache(struct slablab_cache *s, const struct slablab_tunable_values *tv,
			  struct netlink_ext_ack *extack)
{
	return slablab_set_cpucache(s,
				    given(tv, SLABLAB_TUNABLE_LIMIT) ?
				    tv->v[SLABLAB_TUNABLE_LIMIT] : s->limit,
				    given(tv, SLABLAB_TUNABLE_BATCHCOUNT) ?
				    tv->v[SLABLAB_TUNABLE_BATCHCOUNT] : s->batchcount,
				    given(tv, SLABLAB_TUNABLE_SHARED) ?
				    tv->v[SLABLAB_TUNABLE_SHARED] : s->shared, extack);
}

/**
 * slablab_tunables_apply - set the tunables slablab_tunables_check() passed
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @tv: the tunables; @tv->bad is set to the one that failed
 * @extack: where to say why, or NULL
 *
 * In the registry's order (flags first); limit, batchcount and shared as one.
 *
 * Return: 0, or -ENOMEM (the failing setter changed nothing; those before it stay).
 */
static int slablab_tunables_apply(struct slablab_cache *s,
				  struct slablab_tunable_values *tv,
				  struct netlink_ext_ack *extack)
{
	bool cpucache_done = false;
	unsigned int id;
	int err;

	tv->bad = -1;
	for (id = 0; id < SLABLAB_NR_TUNABLES; id++) {
		if (!given(tv, id))
			continue;
		if (is_cpucache(id)) {
			if (cpucache_done)
				continue;
			cpucache_done = true;
			err = apply_cpucache(s, tv, extack);
		} else {
			err = slablab_tunable_setters[id](s, tv->v[id], extack);
		}
		if (err) {
			tv->bad = id;
			return err;
		}
	}
	return 0;
}

/**
 * slablab_tunables_set - check a request's tunables together, then set them
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @tv: the tunables given; @tv->bad is set to the one refused or failed, else -1
 * @extack: where to say why not, or NULL
 *
 * What cache-new, cache-set, slablab_cache_args and a debugfs write all do: nothing is
 * set unless every tunable passes slablab_tunables_check().
 *
 * Return: 0 or the error of slablab_tunables_check() or slablab_tunables_apply().
 */
int slablab_tunables_set(struct slablab_cache *s, struct slablab_tunable_values *tv,
			 struct netlink_ext_ack *extack)
{
	int err = slablab_tunables_check(s, tv, extack);

	return err ?: slablab_tunables_apply(s, tv, extack);
}

/**
 * slablab_tunable_set - check and set one tunable (a debugfs write)
 * @s: the cache (slablab_mutex and cpus_read_lock held)
 * @id: which, enum slablab_tunable_id
 * @v: its new value
 * @extack: where to say why not, or NULL
 *
 * Return: 0 or the error of slablab_tunables_set().
 */
int slablab_tunable_set(struct slablab_cache *s, unsigned int id, u32 v,
			struct netlink_ext_ack *extack)
{
	struct slablab_tunable_values tv = { .set = BIT(id) };

	if (id >= SLABLAB_NR_TUNABLES)
		return -EINVAL;
	tv.v[id] = v;
	return slablab_tunables_set(s, &tv, extack);
}

/* ---- the kmalloc classes' design (their kmalloc and kfree: kmalloc.c) ---- */

#define KMALLOC_RCU_ROUNDS	3	/* rcu_barrier()s kmalloc_rcu_settle() waits at most */

/*
 * The classes' RCU frees done before their objects are counted (slablab_set_kmalloc()):
 * as slablab_rcu_drain(), but bounded, since other kernel code may go on RCU freeing
 * class memory meanwhile. Two rounds see a pending batch that a callback armed after
 * the first; what is still left then counts as in use. Not while frozen: the callbacks'
 * slablab_kfree() would only defer the objects.
 */
static void kmalloc_rcu_settle(void)
{
	unsigned int i, round;
	bool left;

	for (round = 0; round < KMALLOC_RCU_ROUNDS; round++) {
		left = false;
		for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_caches); i++)
			left |= rcu_outstanding(slablab_kmalloc_caches[i]);
		if (!left)
			return;
		rcu_barrier();
	}
}

/* The classes' objects, or -EBUSY when a storm uses one (slablab_set_kmalloc()). */
static int kmalloc_classes_live(u64 *live, struct netlink_ext_ack *extack)
{
	unsigned int i;

	*live = 0;
	for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_caches); i++) {
		struct slablab_cache *s = slablab_kmalloc_caches[i];

		if (atomic_read(&s->users)) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "%s is in use (a storm)", s->name);
			return -EBUSY;
		}
		*live += slablab_objects_in_use(s);
	}
	if (*live) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "kmalloc classes hold %llu objects: they must be empty",
				       *live);
		return -EBUSY;
	}
	return 0;
}

/*
 * What a class had before a switch of the kmalloc design, and how far the switch took
 * it, to put it back when another class fails (kmalloc_switch_classes(); slablab_mutex).
 */
static struct kmalloc_undo {
	struct layout_state layout;	/* the old layout (and sequence), once laid_out */
	unsigned int design, lists;
	bool laid_out;			/* on @design's layout (relayout()) */
	bool torn;			/* the old front end destroyed */
	bool switched;			/* the new front end set up */
} kmalloc_undo[SLABLAB_KMALLOC_CLASSES];

/*
 * Put class @i back as it was: its layout and sequence without allocating, its old
 * front end set up again if it was destroyed. Return: 0, or -ENOMEM when that front
 * end could not be set up (sheaves, slab: their init allocates) and the class is slub.
 */
static int kmalloc_class_undo(unsigned int i)
{
	struct slablab_cache *s = slablab_kmalloc_caches[i];
	struct kmalloc_undo *u = &kmalloc_undo[i];

	if (u->switched) {
		/* frozen and empty since it switched: only the front end's own state goes */
		flush_all(s, true);
		slablab_discard_all_slabs(s);
		if (s->ops->destroy)
			s->ops->destroy(s);
	}
	if (u->laid_out)
		layout_restore(s, &u->layout);
	/* before the old front end is set up: the slab design's init reads it */
	WRITE_ONCE(s->lists, u->lists);
	if (u->torn)
		return front_end_restore(s, u->design, s->sheaves_cpu_slabs);
	return 0;
}

/*
 * A class that was on @design already takes @lists as a live change would: slab
 * re-links its node lists (slablab_set_lists(); @lists was checked for @design, so it
 * cannot fail), the other designs keep it.
 */
static void kmalloc_class_lists(struct slablab_cache *s, unsigned int design,
				unsigned int lists)
{
	if (design == SLABLAB_DESIGN_SLAB || design == SLABLAB_DESIGN_SLOB)
		WARN_ON_ONCE(slablab_set_lists(s, lists, NULL));
	else
		WRITE_ONCE(s->lists, lists);
}

/*
 * Every class onto @design with @lists, all or nothing (slablab_set_kmalloc(): the
 * classes frozen and empty). Each class is laid out for @design first, its old layout
 * kept (relayout(): the freelist sequence, the step that fails for memory; slob needs
 * none), and only when every class is, do the front ends change (set_front_end(): fails
 * for memory on sheaves and slab). A failure puts every class back (kmalloc_class_undo()),
 * which allocates nothing but the old front ends of designs whose init allocates and,
 * should one of those fail too, slub's layout for that class (front_end_restore():
 * its freelist sequence), which is then slub, and the extack says so. kmalloc
 * dispatches on each class's own design (kmalloc.c), so even then no class hands out
 * an object that its kfree would take for another design's.
 *
 * Return: 0, or -ENOMEM (or relayout()'s -E2BIG) with every class put back.
 */
static int kmalloc_switch_classes(unsigned int design, unsigned int lists,
				  struct netlink_ext_ack *extack)
{
	const unsigned int n = ARRAY_SIZE(slablab_kmalloc_caches);
	struct slablab_cache *s;
	struct kmalloc_undo *u;
	const char *failed = NULL, *cause = NULL;
	unsigned int i, back;
	int err = 0;

	for (i = 0; i < n; i++) {
		s = slablab_kmalloc_caches[i];
		kmalloc_undo[i] = (struct kmalloc_undo) {
			.design = s->design, .lists = s->lists,
		};
	}
	for (i = 0; i < n; i++) {
		s = slablab_kmalloc_caches[i];
		u = &kmalloc_undo[i];
		/* one already on @design takes @lists once all switched (kmalloc_class_lists()) */
		if (s->design == design)
			continue;
		WRITE_ONCE(s->lists, lists);
		/* slob's typesafe_by_rcu blocks free through the design they were freed on */
		slablab_rcu_drain(s);
		flush_all(s, true);
		slablab_discard_all_slabs(s);
		err = relayout(s, s->flags, design, &u->layout, NULL);
		if (err) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "%s: %s for %s; no class changed",
					       s->name, err == -ENOMEM ? "no memory" : "no order",
					       slablab_designs[design]->name);
			cause = s->name;
			break;
		}
		u->laid_out = true;
	}
	for (i = 0; !err && i < n; i++) {
		s = slablab_kmalloc_caches[i];
		u = &kmalloc_undo[i];
		if (!u->laid_out)
			continue;
		if (s->ops->destroy)
			s->ops->destroy(s);
		u->torn = true;
		err = set_front_end(s, design, s->sheaves_cpu_slabs);
		if (err) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "%s: %s per-cpu setup failed; no class changed",
					       s->name, slablab_designs[design]->name);
			cause = s->name;
			break;
		}
		u->switched = true;
	}
	if (!err) {
		for (i = 0; i < n; i++) {
			if (kmalloc_undo[i].laid_out)
				relayout_done(&kmalloc_undo[i].layout);
			else
				kmalloc_class_lists(slablab_kmalloc_caches[i], design, lists);
		}
		return 0;
	}
	for (i = 0, back = 0; i < n; i++) {
		if (kmalloc_class_undo(i))
			failed = slablab_kmalloc_caches[i]->name;
		else
			back++;
	}
	if (failed)
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s failed at %s; %u classes back, %s is slub",
				       slablab_designs[design]->name, cause, back, failed);
	return err;
}

/* Whether every class is on @design (a failed switch's undo may leave one on slub). */
static bool kmalloc_classes_on(unsigned int design)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_caches); i++) {
		if (slablab_kmalloc_caches[i]->design != design)
			return false;
	}
	return true;
}

/**
 * slablab_set_kmalloc - the design and the lists tunable of the kmalloc size classes
 * @design: the new design (enum slablab_design), or NULL to keep it
 * @lists: the new lists tunable of every class, or NULL to keep it
 * @extack: where a refusal is told
 *
 * cpus_read_lock and slablab_mutex held; sleeps. A design change needs classes that
 * hold no objects and that no storm uses. It freezes the classes first (see
 * slablab_kmalloc_users): slablab_kmalloc() and slablab_kfree() may run concurrently
 * from any context; meanwhile slablab_kmalloc() serves every request from the page
 * allocator. So an object is never freed to a design other than the one that
 * allocated it: the switch happens only when no class object exists and none is
 * being allocated or freed. On slob, slablab_kmalloc() serves requests below a page
 * from the heap behind a size header and the rest from the page allocator (mm/slob.c's
 * __do_kmalloc_node()); on the other designs every class cache switches design.
 * Checks everything before changing anything, and switches every class or none
 * (kmalloc_switch_classes()). After a failed switch that left a class on slub, even a
 * lists-only change takes the switch's path, so it needs the classes empty (-EBUSY).
 *
 * Return: 0, -EOPNOTSUPP (a design not built), -EINVAL (lists the design does not
 * take), -EBUSY (objects held, or in use), -EINTR (a fatal signal while waiting for
 * callers in flight), or -ENOMEM (every class is back on its design; should a class's
 * old sheaves or slab front end fail as well, that class is slub: the extack says so).
 */
int slablab_set_kmalloc(const u32 *design, const u32 *lists, struct netlink_ext_ack *extack)
{
	unsigned int new_design = design ? *design : slablab_kmalloc_design;
	unsigned int new_lists = lists ? *lists : slablab_kmalloc_lists;
	unsigned int i;
	int err = 0;
	u64 live;

	lockdep_assert_held(&slablab_mutex);
	if (new_design >= __SLABLAB_DESIGN_MAX || !slablab_designs[new_design]) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "design %u is not built into this module",
				       new_design);
		return -EOPNOTSUPP;
	}
	/* Only a design with lists checks them: the classes keep theirs for later. */
	if ((lists || new_design != slablab_kmalloc_design) &&
	    (new_design == SLABLAB_DESIGN_SLOB || new_design == SLABLAB_DESIGN_SLAB)) {
		err = slablab_check_lists(new_design, new_lists, extack);
		if (err)
			return err;
	}
	if (new_design == slablab_kmalloc_design && kmalloc_classes_on(new_design)) {
		/*
		 * lists alone may change live: slob reads it per request, slab re-links its
		 * node lists (slablab_set_lists()); the other designs keep it for later.
		 */
		for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_caches); i++) {
			struct slablab_cache *s = slablab_kmalloc_caches[i];

			if (new_design == SLABLAB_DESIGN_SLAB || new_design == SLABLAB_DESIGN_SLOB)
				err = slablab_set_lists(s, new_lists, extack);
			else
				WRITE_ONCE(s->lists, new_lists);
			if (err)
				return err;
		}
		WRITE_ONCE(slablab_kmalloc_lists, new_lists);
		return 0;
	}
	/* A storm's refusal needs no freeze; the count is judged again once frozen. */
	kmalloc_rcu_settle();
	slablab_kmalloc_free_deferred();
	err = kmalloc_classes_live(&live, extack);
	if (err)
		return err;
	err = slablab_kmalloc_freeze();
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "interrupted waiting for kmalloc callers in flight");
		return err;
	}
	err = kmalloc_classes_live(&live, extack);
	if (err)
		goto thaw;
	err = kmalloc_switch_classes(new_design, new_lists, extack);
	if (err)
		goto thaw;
	WRITE_ONCE(slablab_kmalloc_lists, new_lists);
	WRITE_ONCE(slablab_kmalloc_design, new_design);
thaw:
	/* A refused switch may have deferred frees; a done one cannot (no object was live). */
	WARN_ON_ONCE(!err && !llist_empty(&slablab_kfree_deferred));
	slablab_kmalloc_thaw();
	return err;
}

/**
 * slablab_heap_show - the slob heap's figures, for debugfs
 * @m: the seq_file
 */
void slablab_heap_show(struct seq_file *m)
{
	slablab_slob_show(m);
}

/* ---- init / exit ---- */

/**
 * slablab_set_cache_observer - name who is told of every cache made and released
 * @obs: the observer, or NULL for none
 *
 * Context: module init before slablab_cache_api_init(), or exit after slablab_cache_api_exit().
 */
void slablab_set_cache_observer(const struct slablab_cache_observer *obs)
{
	slablab_observer = obs;
}

int slablab_cache_api_init(void)
{
	static const struct slablab_cache_args kmalloc_args = {
		.flags = SLABLAB_KERNEL_DEFAULTS,
	};
	char name[SLABLAB_NAME_MAX];
	unsigned int i;
	int ret, cpu;

	for_each_possible_cpu(cpu)
		rcu_batch_init(per_cpu_ptr(&slablab_kfree_rcu_batch, cpu), NULL);

	ret = slablab_kmalloc_class_check();
	if (ret)
		return ret;
	ret = slablab_backend_init();
	if (ret)
		return ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "slablab:dead", NULL,
					slablab_cpu_dead);
	if (ret < 0)
		goto err_backend;
	slablab_cpuhp_state = ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "slablab:online",
					slablab_cpu_online, slablab_cpu_offline);
	if (ret < 0)
		goto err_dead;
	slablab_cpuhp_online_state = ret;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	for (i = 0; i < ARRAY_SIZE(slablab_kmalloc_sizes); i++) {
		struct slablab_cache *s;

		snprintf(name, sizeof(name), "kmalloc-%u", slablab_kmalloc_sizes[i]);
		s = slablab_cache_create_owner(name, slablab_kmalloc_sizes[i], &kmalloc_args,
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
	slablab_cache_api_exit_caches();
	cpuhp_remove_state_nocalls(slablab_cpuhp_online_state);
err_dead:
	cpuhp_remove_state_nocalls(slablab_cpuhp_state);
err_backend:
	slablab_backend_exit();
	return ret;
}

/* Destroy every cache left, in reverse creation order; objects still live are leaked. */
void slablab_cache_api_exit_caches(void)
{
	struct slablab_cache *s, *tmp;
	LIST_HEAD(dead);

	/* kmalloc memory of no class first: its frees are done by slablab_kfree() */
	slablab_rcu_drain(NULL);
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
			slablab_leak_forget_slabs(s);
			slablab_discard_all_slabs(s);
			/* typesafe_by_rcu: those slabs' callbacks use @s, released below */
			slablab_rcu_drain(s);
		}
		list_add(&s->list, &dead);
	}
	memset(slablab_kmalloc_caches, 0, sizeof(slablab_kmalloc_caches));
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	list_for_each_entry_safe(s, tmp, &dead, list)
		slablab_cache_release(s);
	/* After every cache: heap pages are shared, and the caches' release orphaned them. */
	slablab_slob_exit();
}

void slablab_cache_api_exit(void)
{
	slablab_cache_api_exit_caches();
	/* No grace-period callback of ours (their code is the module's) may be left. */
	rcu_barrier();
	cpuhp_remove_state_nocalls(slablab_cpuhp_online_state);
	cpuhp_remove_state_nocalls(slablab_cpuhp_state);
	slablab_backend_exit();
}
