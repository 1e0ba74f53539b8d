// SPDX-License-Identifier: GPL-2.0
/*
 * The sheaves design: the per-cpu front end of Linux 7.3's mm/slub.c (7.3.4), over the
 * shared back end (backend.c). A sheaf is an array of object pointers; each cpu has a
 * main sheaf and a spare, each node a barn of full and empty sheaves. Slabs are never
 * frozen here (except a new slab for the moment it is split between a sheaf and its
 * node list, and a partial slab a refill has taken off its list until it takes its
 * freelist): every free object is either in a sheaf or on its slab's freelist.
 *
 * Per-cpu state (struct slablab_cpu)
 *   - main:  the sheaf allocations pop from and frees push to; never NULL while the
 *            cpu's lock is not held (unless sheaf_capacity is 0: no sheaves at all);
 *   - spare: a sheaf of any fill (a returned prefilled sheaf may be partly full), or
 *            NULL.
 *   Allocation (7.3's alloc_from_pcs()) pops main; an empty main is swapped with a
 *   non-empty spare, else traded for a full sheaf of the barn (the empty one going
 *   into the barn), else (outside the lock) an empty sheaf (the spare, a barn one, or
 *   a new one allocated with the caller's gfp, whatever it is) is refilled to its
 *   capacity from partial or new slabs; when even that fails, one object comes from
 *   the slabs. A request for this cpu's node by number is served so too, one for
 *   another node from the slabs. A free of an object of another node goes straight to
 *   its slab; else it pushes main; a full main takes an empty barn sheaf when there is
 *   no spare, is swapped with a spare that has room, or traded for an empty sheaf of
 *   the barn (the full one going into the barn); a barn with barn_max_full full
 *   sheaves has the full spare flushed outside the lock; no empty sheaf at all means
 *   a new one (no reclaim), else main is flushed whole, SHEAF_BATCH (7.3's
 *   PCS_BATCH_MAX) objects per lock hold. Bulk frees and allocations take what the
 *   sheaves and the barn give without a new sheaf, the slabs the rest.
 *
 * Per-cache state (struct slablab_sheaves_state, s->sheaves_state; internal.h)
 *   The barns, one per node (s->sheaves_state.barn[nid]): made by init, freed by
 *   destroy, touched by this file alone. The tunables (sheaf_capacity, barn_max_full,
 *   barn_max_empty, sheaves_cpu_slabs) are fields of the cache: a design change keeps
 *   them.
 *
 * Below the sheaves: the slabs, or with sheaves_cpu_slabs the slub design's per-cpu
 * slab and cpu partial lists (6.18's double caching), reached through s->under's take
 * and give ops, which cache.c set up; objects_take(), object_take() and give_back()
 * choose. From the slabs, as 7.3.4's mm/slub.c: a refill or a bulk allocation
 * (refill_objects()) takes whole slabs off the head of the node's partial list under
 * list_lock, their freelists outside it, and gives the last one's surplus back, that
 * slab going to the tail of the list, so that the next refill starts at the slab after
 * it (refill_from_node()); then new slabs, the rest of each going to the head
 * (take_from_new_slab()); one object the sheaves cannot serve comes off the first
 * partial slab, which stays at the head (take_one_from_node(), 7.3's
 * get_from_partial_node()), or from a new slab. Objects go back through
 * slablab_return_to_slab().
 *
 * Prefilled sheaves (cache.c's slablab_cache_prefill_sheaf() API): the prefill_sheaf,
 * refill_sheaf and return_sheaf ops lend a caller a sheaf of free objects (the cpu's
 * spare, a barn sheaf or a new one) and take it back, as 7.3's.
 *
 * Sheaves are freed with kfree_rcu(), so that a reader of another cpu's sheaf sizes
 * (cpu_view, the flush's hint) needs only rcu_read_lock().
 *
 * Differences from 7.3, kept deliberately: on kernels without local_trylock_t (6.1,
 * 6.12) the cpu's lock is local_lock_irqsave() (below); sheaves have no pfmemalloc
 * tracking and no kmalloc_nolock() (7.3's allow_spin); a partly filled rcu_free sheaf
 * that a flush hands to RCU goes to the barn after the grace period (7.3's
 * rcu_free_sheaf_nobarn() sends it to the slabs); remote-node partial slabs are not
 * taken on a refill (remote_node_defrag_ratio is the slub design's); a partial slab a
 * refill takes off its list is frozen until its freelist is taken (refill_from_node():
 * validate walks the freelists of unfrozen slabs only); a debug cache
 * keeps its sheaves
 * (7.3: none), so that the debug checks see them; sheaf_capacity may change at run
 * time; barn_max_full and barn_max_empty are tunables (7.3's MAX_FULL_SHEAVES and
 * MAX_EMPTY_SHEAVES, 10; like 7.3, only lowering it and an emptied rcu_free sheaf's
 * return bound the empty sheaves).
 *
 * Locks (backend.c's order; outermost first)
 *   slablab_mutex                  every flush (the work items are shared), a bound's
 *                                  change, init and destroy
 *   the cpu's sheaves lock         c->main, c->spare and the sheaves they point to
 *                                  (design_sheaves.h's pcs_trylock(), pcs_lock()).
 *                                  With local_trylock_t (6.16+, compat.h) it is
 *                                  c->sheaves_lock, as 7.3's cpu_sheaves->lock:
 *                                  preemption off only; allocations and frees try it
 *                                  (7.3's local_trylock()) and go to the slabs when
 *                                  the context they interrupted holds it, the flushes
 *                                  (work items) and the prefill API take it (7.3's
 *                                  local_lock()). That lock lets an interrupt in on a
 *                                  half-done pop or push of the task it interrupted,
 *                                  so it is taken in process context only: the work
 *                                  items are, and the prefill API is for process
 *                                  context (cache.c's kernel-doc; from any other it
 *                                  warns once and refuses, as 7.3's is task-context
 *                                  only too). slub's lock under the sheaves
 *                                  (s->cpu->lock) is another one, never nested with
 *                                  it either way. Without (6.1, 6.12)
 *                                  it is s->cpu->lock, local_lock_irqsave(): any
 *                                  context may allocate (the exported API may be
 *                                  called from an interrupt, which a preempt-only
 *                                  local_lock() would let in on a half-done pop), and
 *                                  with sheaves_cpu_slabs slub's take and give share
 *                                  it. Either way it is never held across a call
 *                                  into the layer below, except by the pcs_held
 *                                  selftest (selftests=1), which nests the slow
 *                                  paths' locks under it as an interrupt would.
 *   barn->lock (spinlock, irqsave) a barn's lists and counts; taken under the cpu's
 *                                  lock or alone; no slab lock is taken under it
 *   s->slabs_lock, n->list_lock    as in backend.c, never under the two above (but
 *                                  in the pcs_held selftest)
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/cpu.h>
#include "design_sheaves.h"

#define SHEAF_BATCH	32	/* objects a flush of main gives back per lock hold */

/**
 * struct slablab_barn - a node's reserve of sheaves
 * @lock: the lists and counts
 * @full: full sheaves
 * @empty: empty sheaves
 * @nr_full: sheaves on @full. barn_max_full bounds what a trade or a returned sheaf
 *	puts in; a forced put (a refill or an empty sheaf that lost a race, whose full
 *	sheaf must go somewhere) may exceed it
 * @nr_empty: sheaves on @empty; barn_max_empty bounds them when it is lowered and where
 *	an emptied rcu_free sheaf comes back (as 7.3, which checks MAX_EMPTY_SHEAVES only
 *	for a kfree_rcu sheaf)
 */
struct slablab_barn {
	spinlock_t lock;		/* the lists and the counts */
	struct list_head full;
	struct list_head empty;
	unsigned int nr_full;
	unsigned int nr_empty;
};

static struct slablab_sheaf *sheaf_new(struct slablab_cache *s, unsigned int capacity,
				       gfp_t gfp)
{
	struct slablab_sheaf *sh;

	/* the test hooks (debugfs selftest_fail_sheaf_alloc and _nth) */
	if (unlikely(atomic_dec_if_positive(&slablab_fail_sheaf_alloc) >= 0 ||
		     slablab_fail_nth(&slablab_fail_sheaf_alloc_nth)))
		return NULL;
	sh = kmalloc(struct_size(sh, objects, capacity),
		     ((gfp & SLABLAB_RECLAIM_GFP) & ~__GFP_NOFAIL) | __GFP_NOWARN);
	if (!sh)
		return NULL;
	/*
	 * It holds free objects, and an allocation leaves its slot stale: no references
	 * for kmemleak (as SLAB's array caches), or a leaked object would never be
	 * reported. An oversize prefilled sheaf (cache.c) holds allocated ones: scanned.
	 */
	kmemleak_no_scan(sh);
	INIT_LIST_HEAD(&sh->barn_list);
	sh->capacity = capacity;
	sh->size = 0;
	sh->oversize = false;
	stat(s, SLABLAB_SHEAF_ALLOC);
	return sh;
}

/* Free an empty sheaf; any context. */
static void sheaf_free(struct slablab_cache *s, struct slablab_sheaf *sh)
{
	stat(s, SLABLAB_SHEAF_FREE);
	kfree_rcu(sh, rcu);
}

/* ---- the slabs under the sheaves ---- */

/*
 * One object off a node's partial slabs (7.3.4's get_from_partial_node(),
 * mm/slub.c:3885, for ___slab_alloc()): off the first slab, which stays at the head
 * unless it is full now. Only allocations take objects off a partial slab, and only
 * under its node's list_lock: its freelist head is read here with nothing taken below
 * it; frees push onto the head, which the cmpxchg checks.
 */
static void *take_one_from_node(struct slablab_cache *s, struct slablab_node *n)
{
	struct slablab_slab *slab;
	union slablab_pair old, new;
	struct slablab_counters c;
	unsigned long flags;
	void *obj = NULL;

	if (!n || !READ_ONCE(n->nr_partial))
		return NULL;
	spin_lock_irqsave(&n->list_lock, flags);
	slab = list_first_entry_or_null(&n->partial, struct slablab_slab, node_list);
	if (slab) {
		for (;;) {
			old = read_pair(&slab->fc);
			c.word = old.word;
			c.inuse++;
			new.freelist = get_fp(s, old.freelist);
			new.word = c.word;
			if (pair_cmpxchg(&slab->fc, old, new))
				break;
			stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
		}
		obj = old.freelist;
		if (!new.freelist)
			remove_partial(n, slab);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return obj;
}

/*
 * A slab isolated by refill_from_node() is frozen while it is off the list with its
 * freelist still on it; take that freelist whole and unfreeze it: it is full now, on
 * no list (7.3.4's get_freelist_nofreeze(), mm/slub.c:4442, on a slab 7.3 does not
 * freeze). Returns the freelist, its length in *@count.
 */
static void *take_isolated_freelist(struct slablab_cache *s, struct slablab_slab *slab,
				    unsigned int *count)
{
	union slablab_pair old, new;
	struct slablab_counters c;

	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		*count = c.objects - c.inuse;
		c.inuse = c.objects;
		c.frozen = 0;
		new.freelist = NULL;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			return old.freelist;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
}

/*
 * Give the @cnt objects from @head back to the slab whose freelist a refill just took,
 * if it is still full, and put it at the tail of its node's list (7.3.4's
 * __slab_try_return_freelist(), mm/slub.c:5683). False when a free came in meanwhile:
 * the caller frees them as any free does then.
 */
static bool return_isolated_freelist(struct slablab_cache *s, struct slablab_node *n,
				     struct slablab_slab *slab, void *head, unsigned int cnt)
{
	union slablab_pair old, new;
	struct slablab_counters c;
	unsigned long flags;

	old = read_pair(&slab->fc);
	if (old.freelist)
		return false;
	c.word = old.word;
	c.inuse -= cnt;
	new.freelist = head;
	new.word = c.word;
	spin_lock_irqsave(&n->list_lock, flags);
	if (!pair_cmpxchg(&slab->fc, old, new)) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		return false;
	}
	add_partial(n, slab, true);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return true;
}

/*
 * Up to @want objects off a node's partial slabs for a sheaf or a bulk allocation, as
 * 7.3.4's __refill_objects_node() (mm/slub.c:7265) with min == max == @want (all its
 * callers here: refill_sheaf(), __kmem_cache_alloc_bulk()):
 *   - under list_lock, get_partial_node_bulk() (mm/slub.c:3814) takes whole slabs off
 *     the head of the list until their free objects reach @want;
 *   - outside it, each slab's freelist is taken whole (get_freelist_nofreeze(): the
 *     slab is full then, on no list), its objects into @p until there are @want;
 *   - the surplus of the last slab goes back to it, and the slab to the tail of the
 *     list (__slab_try_return_freelist()), or, when a free came in meanwhile, is freed
 *     as any free (__slab_free(), which puts a full slab at the tail too);
 *   - slabs taken off but not reached (a count read before a free came in is low) go
 *     back to the tail, in their order.
 * So a partly used slab ends at the tail and the next refill starts at the slab after
 * it. One difference: an isolated slab is frozen (a cmpxchg under list_lock where 7.3
 * reads the counters racily) until its freelist is taken, so that validate, which
 * walks unfrozen slabs' freelists under list_lock, leaves it alone as a cpu's; a free
 * into it meanwhile counts free_frozen (7.3: no event).
 */
static unsigned int refill_from_node(struct slablab_cache *s, struct slablab_node *n,
				     void **p, unsigned int want)
{
	struct slablab_slab *slab, *tmp;
	unsigned int got = 0, total = 0, count;
	struct slablab_counters c;
	unsigned long flags;
	LIST_HEAD(isolated);
	void *obj, *tail;

	if (!n || !READ_ONCE(n->nr_partial))
		return 0;
	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry_safe(slab, tmp, &n->partial, node_list) {
		c.word = slab_set_frozen(s, slab, true).word;
		remove_partial(n, slab);
		list_add_tail(&slab->node_list, &isolated);
		total += c.objects - c.inuse;
		if (total >= want)
			break;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);

	list_for_each_entry_safe(slab, tmp, &isolated, node_list) {
		list_del(&slab->node_list);
		obj = take_isolated_freelist(s, slab, &count);
		while (count && got < want) {
			p[got++] = obj;
			obj = get_fp(s, obj);
			count--;
		}
		if (unlikely(count)) {
			if (return_isolated_freelist(s, n, slab, obj, count))
				break;
			for (tail = obj; get_fp(s, tail); tail = get_fp(s, tail))
				;
			slablab_return_to_slab(s, slab, obj, tail, count, false);
		}
		if (got >= want)
			break;
	}
	if (unlikely(!list_empty(&isolated))) {
		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry_safe(slab, tmp, &isolated, node_list) {
			slab_set_frozen(s, slab, false);
			list_del(&slab->node_list);
			add_partial(n, slab, true);
		}
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	return got;
}

/*
 * Take up to @want objects of a new slab; the rest of it goes onto its node's partial
 * list, the slab unfrozen (slablab_new_slab() hands it over frozen, all in use).
 */
static unsigned int take_from_new_slab(struct slablab_cache *s, gfp_t gfp, int node,
				       void **p, unsigned int want)
{
	struct slablab_slab *slab;
	struct slablab_node *n;
	struct slablab_counters c;
	union slablab_pair old, new;
	void *freelist, *obj, *tail = NULL;
	unsigned int got = 0, rest = 0;
	unsigned long flags;

	slab = slablab_new_slab(s, gfp, node, &freelist);
	if (!slab)
		return 0;
	stat(s, SLABLAB_ALLOC_SLAB);
	while (freelist && got < want) {
		p[got++] = freelist;
		freelist = get_fp(s, freelist);
	}
	for (obj = freelist; obj; obj = get_fp(s, obj)) {
		tail = obj;
		rest++;
	}
	n = s->node[slab_nid(slab)];
	spin_lock_irqsave(&n->list_lock, flags);
	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		c.inuse -= rest;
		c.frozen = 0;
		if (tail)
			set_fp(s, tail, old.freelist);
		new.freelist = tail ? freelist : old.freelist;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (new.freelist)
		add_partial(n, slab, false);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return got;
}

/* The node whose partial slabs serve a request for @node (updated in *@node too). */
static int slabs_node(int *node)
{
	/* A node without normal memory never has slabs of its own (see design_slub.c). */
	if (*node != NUMA_NO_NODE && !node_state(*node, N_NORMAL_MEMORY))
		*node = NUMA_NO_NODE;
	return *node == NUMA_NO_NODE ? numa_mem_id() : *node;
}

/*
 * Up to @want objects from slabs for a sheaf or a bulk allocation (7.3.4's
 * refill_objects(), mm/slub.c:7398, min == max): the node's partial slabs first
 * (refill_from_node()), then new slabs, the rest of each going to the head of the
 * list (alloc_from_new_slab()). Returns how many (0: none could be had). No lock of
 * this design held.
 */
static unsigned int slabs_take(struct slablab_cache *s, gfp_t gfp, int node, void **p,
			       unsigned int want)
{
	int local = slabs_node(&node);
	unsigned int got, more;

	got = refill_from_node(s, s->node[local], p, want);
	while (got < want) {
		more = take_from_new_slab(s, gfp, node, p + got, want - got);
		if (!more)
			break;
		got += more;
	}
	return got;
}

/*
 * One object from slabs for an allocation the sheaves cannot serve (7.3.4's
 * ___slab_alloc(), mm/slub.c:4533): off the node's first partial slab, else a new
 * slab, the rest of which goes to the head of the list.
 */
static void *slabs_take_one(struct slablab_cache *s, gfp_t gfp, int node)
{
	int local = slabs_node(&node);
	void *obj = take_one_from_node(s, s->node[local]);

	if (!obj && !take_from_new_slab(s, gfp, node, &obj, 1))
		return NULL;
	return obj;
}

/*
 * Up to @want free objects for a sheaf or a bulk allocation: from the slabs, or with
 * cpu_slabs through the per-cpu slab layer under the sheaves (s->under: slub's cpu
 * slab and cpu partial list, 6.18's double caching). Not counted as allocations. No
 * lock of this design held.
 */
static unsigned int objects_take(struct slablab_cache *s, gfp_t gfp, int node, void **p,
				 unsigned int want)
{
	if (s->under)
		return s->under->take(s, gfp, node, p, want);
	return slabs_take(s, gfp, node, p, want);
}

/* One free object for an allocation the sheaves cannot serve, as objects_take(). */
static void *object_take(struct slablab_cache *s, gfp_t gfp, int node)
{
	void *obj;

	if (s->under)
		return s->under->take(s, gfp, node, &obj, 1) ? obj : NULL;
	return slabs_take_one(s, gfp, node);
}

/* A detached list of objects of @slab, counted as freed already, back below the sheaves. */
static void give_back(struct slablab_cache *s, struct slablab_slab *slab, void *head,
		      void *tail, unsigned int cnt)
{
	if (s->under)
		s->under->give(s, slab, head, tail, cnt);
	else
		slablab_return_to_slab(s, slab, head, tail, cnt, false);
}

/*
 * Give objects already counted as freed back to their slabs (or the layer under the
 * sheaves): the following objects of the same slab go in one detached list (giving up
 * after 3 misses, as bulk free does). Consumes @p.
 */
static void return_objects(struct slablab_cache *s, void **p, unsigned int nr)
{
	unsigned int i, j, misses;

	for (i = 0; i < nr; i++) {
		struct slablab_slab *slab;
		void *head, *tail;
		unsigned int cnt = 1;

		if (!p[i])
			continue;
		head = p[i];
		p[i] = NULL;
		tail = head;
		slab = obj_to_slab(head);
		for (j = i + 1, misses = 0; j < nr && misses < 3; j++) {
			if (!p[j])
				continue;
			if (obj_to_slab(p[j]) != slab) {
				misses++;
				continue;
			}
			set_fp(s, p[j], head);
			head = p[j];
			p[j] = NULL;
			cnt++;
		}
		set_fp(s, tail, NULL);
		give_back(s, slab, head, tail, cnt);
	}
}

/* Flush a sheaf nobody else can see to its slabs. */
static void sheaf_flush(struct slablab_cache *s, struct slablab_sheaf *sh)
{
	if (!sh->size)
		return;
	trace_slablab_drain(s, "sheaf_flush", sh->size);
	stat_add(s, SLABLAB_SHEAF_FLUSH, sh->size);
	return_objects(s, sh->objects, sh->size);
	sh->size = 0;
}

/* ---- the barn ---- */

/*
 * Whether @sh is of the cache's capacity. Read under the lock of the place the sheaf
 * goes to (a barn's, or the cpu's): slablab_set_sheaf_capacity() changes the capacity
 * first and then empties every cpu under its lock and every barn under its lock, so a
 * sheaf of the old capacity that was in flight meanwhile (a refill outside the cpu's
 * lock, a prefilled sheaf coming back) either arrives before that sweep, which frees
 * it, or sees the new capacity and is refused. So is a sheaf taken out of a barn not
 * yet emptied for a cpu already emptied (barn_get_empty(), barn_trade_empty(),
 * barn_trade_full(), the prefill): after a change no cpu and no barn holds a sheaf of
 * an old capacity.
 */
static bool current_capacity(struct slablab_cache *s, struct slablab_sheaf *sh)
{
	return sh->capacity == READ_ONCE(s->sheaf_capacity);
}

static struct slablab_barn *local_barn(struct slablab_cache *s)
{
	return s->sheaves_state.barn[numa_mem_id()];
}

static struct slablab_sheaf *barn_get(struct slablab_barn *barn, bool full)
{
	struct slablab_sheaf *sh = NULL;
	struct list_head *list = full ? &barn->full : &barn->empty;
	unsigned long flags;

	/* a racy peek, as 7.3's barn_get_*_sheaf(): an empty barn skips the lock */
	if (!data_race(full ? barn->nr_full : barn->nr_empty))
		return NULL;
	spin_lock_irqsave(&barn->lock, flags);
	sh = list_first_entry_or_null(list, struct slablab_sheaf, barn_list);
	if (sh) {
		list_del(&sh->barn_list);
		if (full)
			barn->nr_full--;
		else
			barn->nr_empty--;
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	return sh;
}

/*
 * An empty sheaf of the barn for this cpu, as barn_get(); one of a capacity the cache
 * no longer has counts as none and is freed. A sheaf a capacity change left in the
 * barn, taken after that change emptied this cpu and before it emptied the barn, would
 * otherwise stay the cpu's for good. Called under the cpu's lock (replace_full_main(),
 * where the sheaf becomes main), or before a refill, which install_sheaf() checks again
 * under it.
 */
static struct slablab_sheaf *barn_get_empty(struct slablab_cache *s,
					    struct slablab_barn *barn)
{
	struct slablab_sheaf *sh = barn_get(barn, false);

	if (sh && unlikely(!current_capacity(s, sh))) {
		sheaf_free(s, sh);
		sh = NULL;
	}
	return sh;
}

/*
 * An empty sheaf into the barn: past barn_max_empty as 7.3's barn_put_empty_sheaf(),
 * or with @bound only below it, as 7.3's rcu_free_sheaf() puts an emptied kfree_rcu
 * sheaf back (MAX_EMPTY_SHEAVES), the one place 7.3 bounds them. False when refused:
 * at the bound, or of an old capacity (free it then).
 */
static bool barn_put_empty(struct slablab_cache *s, struct slablab_barn *barn,
			   struct slablab_sheaf *sh, bool bound)
{
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&barn->lock, flags);
	/* of a capacity the cache no longer has: refused (read under the lock, below) */
	if (current_capacity(s, sh) &&
	    (!bound || barn->nr_empty < READ_ONCE(s->barn_max_empty))) {
		list_add(&sh->barn_list, &barn->empty);
		barn->nr_empty++;
		done = true;
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	return done;
}

/* Put an empty sheaf (unpublished) into the barn, or free it. */
static void put_empty(struct slablab_cache *s, struct slablab_sheaf *sh)
{
	if (!barn_put_empty(s, local_barn(s), sh, false))
		sheaf_free(s, sh);
}

/*
 * Trade an empty sheaf for a full one of the barn (7.3's barn_replace_empty_sheaf()):
 * the empty one goes onto the barn's empty list past barn_max_empty (the number of
 * sheaves does not change). NULL when the barn has no full sheaf (or a capacity
 * changed: neither sheaf is traded then).
 */
static struct slablab_sheaf *barn_trade_empty(struct slablab_cache *s,
					      struct slablab_barn *barn,
					      struct slablab_sheaf *empty)
{
	struct slablab_sheaf *full = NULL;
	unsigned long flags;

	/* a racy peek, as 7.3's: an empty barn skips the lock */
	if (!data_race(barn->nr_full))
		return NULL;
	spin_lock_irqsave(&barn->lock, flags);
	if (barn->nr_full && current_capacity(s, empty)) {
		full = list_first_entry(&barn->full, struct slablab_sheaf, barn_list);
		if (current_capacity(s, full)) {
			list_del(&full->barn_list);
			barn->nr_full--;
			list_add(&empty->barn_list, &barn->empty);
			barn->nr_empty++;
		} else {
			full = NULL;
		}
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	return full;
}

/*
 * Trade a full sheaf for an empty one of the barn (7.3's barn_replace_full_sheaf()).
 * NULL with *@no_room when the barn holds barn_max_full full sheaves already (or the
 * sheaf is of an old capacity), NULL alone when it has no empty sheaf. An empty sheaf
 * of an old capacity counts as none (as in barn_trade_empty()): it leaves the barn and
 * is freed, the full one stays the caller's.
 */
static struct slablab_sheaf *barn_trade_full(struct slablab_cache *s,
					     struct slablab_barn *barn,
					     struct slablab_sheaf *full, bool *no_room)
{
	struct slablab_sheaf *empty = NULL, *stale = NULL;
	unsigned long flags;

	*no_room = false;
	spin_lock_irqsave(&barn->lock, flags);
	if (!current_capacity(s, full) || barn->nr_full >= READ_ONCE(s->barn_max_full)) {
		*no_room = true;
	} else if (barn->nr_empty) {
		empty = list_first_entry(&barn->empty, struct slablab_sheaf, barn_list);
		list_del(&empty->barn_list);
		barn->nr_empty--;
		if (likely(current_capacity(s, empty))) {
			list_add(&full->barn_list, &barn->full);
			barn->nr_full++;
		} else {
			stale = empty;
			empty = NULL;
		}
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	if (stale)
		sheaf_free(s, stale);
	return empty;
}

/*
 * A full sheaf into the barn. @force: past barn_max_full (7.3's barn_put_full_sheaf()
 * after barn_replace_full_sheaf() found room but no empty sheaf). False when refused.
 */
static bool barn_put_full_bound(struct slablab_cache *s, struct slablab_barn *barn,
				struct slablab_sheaf *sh, bool force)
{
	unsigned long flags;
	bool done = false;

	spin_lock_irqsave(&barn->lock, flags);
	if (current_capacity(s, sh) && (force || barn->nr_full < READ_ONCE(s->barn_max_full))) {
		list_add(&sh->barn_list, &barn->full);
		barn->nr_full++;
		done = true;
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	return done;
}

/* ---- allocation ---- */

/*
 * main is empty: swap with a non-empty spare, or trade it for a full sheaf of the
 * barn, the empty one going into the barn (7.3's __pcs_replace_empty_main() and
 * alloc_from_pcs_bulk()). The cpu's lock held; returns whether main has objects now.
 */
static bool swap_empty_main(struct slablab_cache *s, struct slablab_cpu *c)
{
	struct slablab_sheaf *full;

	if (c->spare && c->spare->size) {
		swap(c->main, c->spare);
		return true;
	}
	full = barn_trade_empty(s, local_barn(s), c->main);
	if (!full) {
		stat(s, SLABLAB_BARN_GET_FAIL);
		return false;
	}
	stat(s, SLABLAB_BARN_GET);
	WRITE_ONCE(c->main, full);
	return true;
}

/*
 * A refilled sheaf for this cpu (the second half of 7.3's __pcs_replace_empty_main()):
 * it becomes main if main is (still) empty, the old main the spare or (with a spare)
 * going to the barn; else the spare if there is none or it is empty; else it goes to
 * the barn. The barn's bounds are not checked: only a race gets there. Returns the
 * cpu, locked, with objects in main; NULL (unlocked) when the lock cannot be had (the
 * sheaf went to the barn) or the capacity changed meanwhile (its objects went back).
 */
static struct slablab_cpu *install_sheaf(struct slablab_cache *s, struct slablab_sheaf *full,
					 unsigned long *flags)
{
	struct slablab_sheaf *empty = NULL;
	struct slablab_cpu *c;

	if (!pcs_trylock(s, flags)) {
		c = NULL;
		goto barn_put;
	}
	c = this_cpu_ptr(s->cpu);
	if (!current_capacity(s, full)) {
		/* the capacity changed during the refill (0: no sheaves at all now) */
		pcs_unlock(s, flags);
		sheaf_flush(s, full);
		sheaf_free(s, full);
		return NULL;
	}
	if (!c->main) {
		c->main = full;	/* only after a capacity change that could not allocate */
	} else if (!c->main->size) {
		if (!c->spare)
			c->spare = c->main;
		else
			empty = c->main;
		/* unpublished before it may be freed: other cpus read c->main under RCU */
		WRITE_ONCE(c->main, full);
	} else if (!c->spare) {
		c->spare = full;
	} else if (!c->spare->size) {
		empty = c->spare;
		WRITE_ONCE(c->spare, full);
	} else {
		goto barn_put;
	}
	if (empty)
		put_empty(s, empty);
	return c;
barn_put:
	if (barn_put_full_bound(s, local_barn(s), full, true)) {
		stat(s, SLABLAB_BARN_PUT);
		return c;
	}
	/* of an old capacity (only under the lock: c is this cpu's) */
	if (c)
		pcs_unlock(s, flags);
	sheaf_flush(s, full);
	sheaf_free(s, full);
	return NULL;
}

/*
 * Refill an empty sheaf to its capacity by one bulk take from the slabs, outside the
 * cpu's lock (7.3's refill_sheaf() under __pcs_replace_empty_main()), and install it.
 * The sheaf is @sh (the spare, or one of the barn), else a new one allocated with the
 * caller's gfp, whatever it allows: 7.3 backs off only for kmalloc_nolock(), which
 * slablab has not. Memory reserves are not used for objects nobody asked for yet
 * (__GFP_NOMEMALLOC); nor is __GFP_NOFAIL. A refill that falls short gives its objects
 * back and frees the sheaf (7.3: "very low on memory"): then the caller's one object
 * comes from the slabs with its own gfp. Returns install_sheaf()'s.
 */
static struct slablab_cpu *refill_main(struct slablab_cache *s, gfp_t gfp,
				       struct slablab_sheaf *sh, unsigned long *flags)
{
	unsigned int cap = READ_ONCE(s->sheaf_capacity), got;

	if (!sh && cap)
		sh = sheaf_new(s, cap, gfp);
	if (!sh)
		return NULL;
	gfp = (gfp & ~(__GFP_NOFAIL | __GFP_MEMALLOC)) | __GFP_NOMEMALLOC | __GFP_NOWARN;
	got = objects_take(s, gfp, NUMA_NO_NODE, sh->objects + sh->size,
			   sh->capacity - sh->size);
	sh->size += got;
	stat_add(s, SLABLAB_SHEAF_REFILL, got);
	if (sh->size < sh->capacity) {
		sheaf_flush(s, sh);
		sheaf_free(s, sh);
		return NULL;
	}
	return install_sheaf(s, sh, flags);
}

/*
 * The allocation past the inline pop (design_sheaves.h): main empty (or no sheaves, or
 * the cpu's lock held by the context this one interrupted), or a node-specific request.
 * Main is looked at again under the lock: an interrupt or another task on this cpu may
 * have refilled it meanwhile.
 */
static void *sheaves_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_sheaf *empty, *main;
	struct slablab_cpu *c;
	unsigned long flags;
	void *obj;

	/*
	 * 7.3's alloc_from_pcs(): a request for this cpu's node takes the sheaves like any
	 * other, one for another node the slabs.
	 */
	if (!IS_ENABLED(CONFIG_NUMA))
		node = NUMA_NO_NODE;
	if (node != NUMA_NO_NODE && node != numa_mem_id())
		goto slabs;
	if (!pcs_trylock(s, &flags))
		goto slabs;
	c = this_cpu_ptr(s->cpu);
	if (unlikely(!c->main))
		goto unlock;
	if (unlikely(!c->main->size) && !swap_empty_main(s, c)) {
		/* an empty spare (a non-empty one was swapped), else one of the barn */
		empty = NULL;
		if (c->spare && current_capacity(s, c->spare)) {
			empty = c->spare;
			c->spare = NULL;
		}
		pcs_unlock(s, &flags);
		if (!empty)
			empty = barn_get_empty(s, local_barn(s));
		c = refill_main(s, gfp, empty, &flags);
		if (!c)
			goto slabs;
	}
	main = c->main;
	obj = main->objects[main->size - 1];
	/* the cpu may have moved to another node since the sheaf was filled (7.3 checks) */
	if (unlikely(node != NUMA_NO_NODE) && slab_nid(obj_to_slab(obj)) != node)
		goto unlock;
	main->size--;
	pcs_unlock(s, &flags);
	stat(s, SLABLAB_ALLOC_FASTPATH);
	return alloc_hook(s, obj, gfp);
unlock:
	pcs_unlock(s, &flags);
slabs:
	obj = object_take(s, gfp, node);
	if (!obj)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLOWPATH);
	return alloc_hook(s, obj, gfp);
}

/* The slow path, timed for the slablab_alloc_slow event while it is enabled. */
void *slablab_sheaves_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node)
{
	u64 t0 = slablab_slow_start();
	void *obj = sheaves_alloc_slow(s, gfp, node);

	slablab_slow_end(s, obj, node, t0);
	return obj;
}

/* ---- free ---- */

/*
 * Whether a freed object may go into this cpu's sheaves (7.3's can_free_to_pcs()): one
 * of the cpu's node, or of any node when the cpu's own has no normal memory (without
 * CONFIG_HAVE_MEMORYLESS_NODES numa_mem_id() is that node, whose allocations cannot get
 * a local object anyway).
 */
static bool can_free_to_pcs(struct slablab_slab *slab)
{
	if (!IS_ENABLED(CONFIG_NUMA) || likely(slab_nid(slab) == numa_mem_id()))
		return true;
	return !IS_ENABLED(CONFIG_HAVE_MEMORYLESS_NODES) &&
	       !node_state(numa_mem_id(), N_NORMAL_MEMORY);
}

/* What a free with a full main needs next (replace_full_main()). */
enum full_main {
	MAIN_HAS_ROOM,		/* main has room now */
	NEED_EMPTY,		/* no spare, no empty sheaf in the barn: allocate one */
	NEED_EMPTY_PUT_FAIL,	/* a full spare, the barn has room but no empty sheaf */
	FLUSH_SPARE,		/* a full spare, the barn is full: flush the spare */
};

/*
 * main is full: take an empty sheaf of the barn for a missing spare, swap with a
 * spare that has room, or trade main for an empty sheaf of the barn (7.3's
 * __pcs_replace_full_main() and __free_to_pcs_batch()). The cpu's lock held.
 */
static enum full_main replace_full_main(struct slablab_cache *s, struct slablab_cpu *c)
{
	struct slablab_barn *barn = local_barn(s);
	struct slablab_sheaf *empty;
	bool no_room;

	if (!c->spare) {
		empty = barn_get_empty(s, barn);
		if (!empty)
			return NEED_EMPTY;
		c->spare = c->main;
		c->main = empty;
		return MAIN_HAS_ROOM;
	}
	if (c->spare->size < c->spare->capacity) {
		swap(c->main, c->spare);
		return MAIN_HAS_ROOM;
	}
	empty = barn_trade_full(s, barn, c->main, &no_room);
	if (empty) {
		stat(s, SLABLAB_BARN_PUT);
		c->main = empty;
		return MAIN_HAS_ROOM;
	}
	if (no_room) {
		stat(s, SLABLAB_BARN_PUT_FAIL);
		return FLUSH_SPARE;
	}
	return NEED_EMPTY_PUT_FAIL;
}

/*
 * An empty sheaf for a cpu whose main was full (7.3's __pcs_install_empty_sheaf()): it
 * becomes main, the full main the spare; or (main has room after all) it goes to the
 * barn, or (the spare has room) the two swap and it goes to the barn; or (both full)
 * the full main goes to the barn. The barn's bounds are not checked: only a race, or a
 * barn that had room but no empty sheaf, gets there. False when the cpu's lock cannot
 * be had (the sheaf went to the barn).
 */
static bool install_empty(struct slablab_cache *s, struct slablab_sheaf *empty)
{
	struct slablab_sheaf *full = NULL;
	struct slablab_cpu *c;
	unsigned long flags;

	if (!pcs_trylock(s, &flags)) {
		put_empty(s, empty);
		return false;
	}
	c = this_cpu_ptr(s->cpu);
	if (!c->main || !current_capacity(s, empty)) {
		/* the capacity changed: put_empty() frees it */
	} else if (!c->spare) {
		c->spare = c->main;
		c->main = empty;
		empty = NULL;
	} else if (c->main->size < c->main->capacity) {
		/* main has room (we were preempted) */
	} else if (c->spare->size < c->spare->capacity) {
		swap(c->main, c->spare);
	} else {
		full = c->main;
		WRITE_ONCE(c->main, empty);
		empty = NULL;
		if (barn_put_full_bound(s, local_barn(s), full, true)) {
			stat(s, SLABLAB_BARN_PUT);
			full = NULL;
		}
	}
	if (empty)
		put_empty(s, empty);
	pcs_unlock(s, &flags);
	if (full) {
		/* of an old capacity: refused by the barn */
		sheaf_flush(s, full);
		sheaf_free(s, full);
	}
	return true;
}

/*
 * Flush main whole, SHEAF_BATCH objects per hold of the cpu's lock (7.3's
 * sheaf_try_flush_main()); stops where the lock cannot be had. True when at least one
 * batch was flushed (main may have filled again since; the caller retries), false when
 * the lock could not be had at all.
 */
static bool flush_main(struct slablab_cache *s)
{
	void *batch[SHEAF_BATCH];
	struct slablab_sheaf *main;
	unsigned int n, left;
	unsigned long flags;
	bool flushed = false;

	do {
		if (!pcs_trylock(s, &flags))
			return flushed;
		flushed = true;
		main = this_cpu_ptr(s->cpu)->main;
		n = main ? min_t(unsigned int, SHEAF_BATCH, main->size) : 0;
		left = 0;
		if (n) {
			main->size -= n;
			memcpy(batch, &main->objects[main->size], n * sizeof(void *));
			left = main->size;
		}
		pcs_unlock(s, &flags);
		stat_add(s, SLABLAB_SHEAF_FLUSH, n);
		return_objects(s, batch, n);
	} while (left);
	return flushed;
}

/*
 * Free one object that passed free_hook(), past the inline push (design_sheaves.h):
 * main full (or no sheaves, or the cpu's lock held by the context this one
 * interrupted), or an object of another node.
 */
void slablab_sheaves_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *obj)
{
	struct slablab_sheaf *sh;
	unsigned int cap;
	struct slablab_cpu *c;
	enum full_main next;
	unsigned long flags;

	/* Objects of another node go straight to their slab (7.3: no sheaf, lockless). */
	if (unlikely(!can_free_to_pcs(slab)))
		goto to_slab;
retry:
	if (!pcs_trylock(s, &flags))
		goto to_slab;
	c = this_cpu_ptr(s->cpu);
	if (unlikely(!c->main)) {
		pcs_unlock(s, &flags);
		goto to_slab;
	}
	next = likely(c->main->size < c->main->capacity) ? MAIN_HAS_ROOM :
							   replace_full_main(s, c);
	if (likely(next == MAIN_HAS_ROOM)) {
		c->main->objects[c->main->size++] = obj;
		pcs_unlock(s, &flags);
		stat(s, SLABLAB_FREE_FASTPATH);
		return;
	}
	if (next == FLUSH_SPARE) {
		/* Both full and the barn has no room: flush the spare outside the lock. */
		sh = c->spare;
		c->spare = NULL;
		pcs_unlock(s, &flags);
		sheaf_flush(s, sh);
	} else {
		pcs_unlock(s, &flags);
		/* No empty sheaf at hand: a new one (7.3: __GFP_NOWARN alone, no reclaim). */
		cap = READ_ONCE(s->sheaf_capacity);
		sh = cap ? sheaf_new(s, cap, __GFP_NOWARN) : NULL;
		if (!sh) {
			if (next == NEED_EMPTY_PUT_FAIL)
				stat(s, SLABLAB_BARN_PUT_FAIL);
			/* Else flush main whole, then free into it. */
			if (!flush_main(s))
				goto to_slab;
			goto retry;
		}
	}
	if (!install_empty(s, sh))
		goto to_slab;
	goto retry;
to_slab:
	stat(s, SLABLAB_FREE_SLOWPATH);
	give_back(s, slab, obj, obj, 1);
}

/* The free op: a detached list of @cnt objects of @slab, debug checks done. */
static void sheaves_free(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			 void *tail, unsigned int cnt)
{
	free_list_each(s, slab, head, cnt, sheaves_free_one);
}

/*
 * Free an array (7.3's free_to_pcs_bulk()): the debug checks first, partitioning @p in
 * place: the objects of other nodes to the front ([0, remote)), this node's after them
 * ([remote, n)), the NULLs and the objects the checks refused dropped. Then this node's
 * objects, as many as main has room for per lock hold, a full main replaced as
 * __free_to_pcs_batch() does (the spare, an empty barn sheaf, a trade with the barn);
 * what no sheaf can take goes to the slabs (no sheaf is allocated, none flushed). The
 * objects of other nodes go to their slabs last, as 7.3's: the fewer calls before the
 * sheaves are reached, the less likely the task has moved to another cpu meanwhile.
 */
static void sheaves_free_bulk(struct slablab_cache *s, size_t nr, void **p)
{
	struct slablab_sheaf *main;
	unsigned int k, j, size;
	struct slablab_cpu *c;
	enum full_main next;
	unsigned long flags;
	size_t i, n = 0, remote = 0;

	for (i = 0; i < nr; i++) {
		void *obj = p[i];
		struct slablab_slab *slab;

		if (!obj)
			continue;
		slab = obj_to_slab(obj);
		if (!free_hook(s, slab, obj))
			continue;
		if (unlikely(!can_free_to_pcs(slab))) {
			/* the first local object (if any) moves to the end, @obj before it */
			p[n++] = p[remote];
			p[remote++] = obj;
		} else {
			p[n++] = obj;
		}
	}
	i = remote;
	while (i < n) {
		if (!pcs_trylock(s, &flags))
			break;
		c = this_cpu_ptr(s->cpu);
		main = c->main;
		if (likely(main) && unlikely(main->size == main->capacity)) {
			next = replace_full_main(s, c);
			if (next == NEED_EMPTY_PUT_FAIL)
				stat(s, SLABLAB_BARN_PUT_FAIL);
			main = next == MAIN_HAS_ROOM ? c->main : NULL;
		}
		k = 0;
		if (likely(main)) {
			/*
			 * size and room in registers: the kernel's -fno-strict-aliasing would
			 * have main->size reloaded after every store into the array. A plain
			 * loop: k is small (a batch), a memcpy call costs more.
			 */
			size = main->size;
			k = min_t(size_t, main->capacity - size, n - i);
			for (j = 0; j < k; j++)
				main->objects[size + j] = p[i + j];
			main->size = size + k;
		}
		pcs_unlock(s, &flags);
		if (!k)
			break;
		i += k;
		stat_add(s, SLABLAB_FREE_FASTPATH, k);
	}
	if (i < n) {
		stat_add(s, SLABLAB_FREE_SLOWPATH, n - i);
		return_objects(s, p + i, n - i);
	}
	/* as slablab_sheaves_free_slow(): through the layer under the sheaves */
	if (remote) {
		stat_add(s, SLABLAB_FREE_SLOWPATH, remote);
		return_objects(s, p, remote);
	}
}

/*
 * From main (and what the spare and the barn give it) under the cpu's lock; slabs for
 * the rest (7.3's alloc_from_pcs_bulk(): no sheaf is refilled for a bulk allocation).
 */
static int sheaves_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p)
{
	struct slablab_cpu *c;
	unsigned long flags;
	size_t i = 0, j;
	unsigned int got;

	if (pcs_trylock(s, &flags)) {
		c = this_cpu_ptr(s->cpu);
		while (i < nr && c->main) {
			struct slablab_sheaf *m = c->main;
			unsigned int size = m->size, k = min_t(size_t, size, nr - i);

			/* m->size in a register (see sheaves_free_bulk()) */
			for (j = 0; j < k; j++)
				p[i + j] = m->objects[size - 1 - j];
			m->size = size - k;
			i += k;
			if (i == nr || !swap_empty_main(s, c))
				break;
		}
		pcs_unlock(s, &flags);
	}
	stat_add(s, SLABLAB_ALLOC_FASTPATH, i);
	while (i < nr) {
		got = objects_take(s, gfp, NUMA_NO_NODE, p + i, nr - i);
		if (!got)
			goto fail;
		stat_add(s, SLABLAB_ALLOC_SLOWPATH, got);
		i += got;
	}
	for (j = 0; j < nr; j++)
		alloc_hook(s, p[j], gfp);
	return nr;
fail:
	for (j = 0; j < i; j++)
		alloc_hook(s, p[j], gfp);
	sheaves_free_bulk(s, i, p);
	return 0;
}

static void *sheaves_alloc_op(struct slablab_cache *s, gfp_t gfp, int node)
{
	return sheaves_alloc(s, gfp, node);
}

/* ---- flushing ---- */

/* Give back one cpu's sheaves: main in batches (it stays), the spare whole. */
static void flush_cpu(struct slablab_cache *s, struct slablab_cpu *c, bool locked)
{
	struct slablab_sheaf *spare;
	void *batch[SHEAF_BATCH];
	unsigned long flags = 0;
	unsigned int n;

	for (;;) {
		if (locked) {
			pcs_lock(s, &flags);
			c = this_cpu_ptr(s->cpu);
		}
		n = c->main ? min_t(unsigned int, SHEAF_BATCH, c->main->size) : 0;
		if (n) {
			c->main->size -= n;
			memcpy(batch, &c->main->objects[c->main->size], n * sizeof(void *));
			spare = NULL;
		} else {
			spare = c->spare;
			c->spare = NULL;
		}
		if (locked)
			pcs_unlock(s, &flags);
		if (!n)
			break;
		stat_add(s, SLABLAB_SHEAF_FLUSH, n);
		return_objects(s, batch, n);
	}
	if (spare) {
		sheaf_flush(s, spare);
		sheaf_free(s, spare);
	}
}

static unsigned int rcu_flush_this_cpu(struct slablab_cache *s, int mode, void *arg);

static unsigned int flush_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	if (mode == SLABLAB_FLUSH_ALL) {
		/* the rcu_free sheaf to RCU, as 7.3's pcs_flush_all() */
		rcu_flush_this_cpu(s, mode, arg);
		flush_cpu(s, NULL, true);
	}
	return 0;
}

/* The flush's hint: whether a cpu holds sheaf objects or a spare (racy, under RCU). */
static bool cpu_has_sheaves(struct slablab_cache *s, int cpu, int mode)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
	struct slablab_sheaf *m;
	bool used;

	if (mode != SLABLAB_FLUSH_ALL)
		return false;
	rcu_read_lock();
	m = READ_ONCE(c->main);
	used = READ_ONCE(c->spare) || (m && READ_ONCE(m->size)) || READ_ONCE(c->rcu_free);
	rcu_read_unlock();
	return used;
}

/*
 * Empty the barns: full sheaves are flushed to their slabs; every sheaf over the
 * barn's bounds (all of them with @all) is freed.
 */
static void flush_barns(struct slablab_cache *s, bool all)
{
	struct slablab_sheaf *sh, *tmp;
	unsigned long flags;
	LIST_HEAD(full);
	LIST_HEAD(empty);
	int nid;

	for_each_node(nid) {
		struct slablab_barn *barn = s->sheaves_state.barn[nid];

		spin_lock_irqsave(&barn->lock, flags);
		while (barn->nr_full && (all || barn->nr_full > READ_ONCE(s->barn_max_full))) {
			sh = list_first_entry(&barn->full, struct slablab_sheaf, barn_list);
			list_move(&sh->barn_list, &full);
			barn->nr_full--;
		}
		while (barn->nr_empty && (all || barn->nr_empty > READ_ONCE(s->barn_max_empty))) {
			sh = list_first_entry(&barn->empty, struct slablab_sheaf, barn_list);
			list_move(&sh->barn_list, &empty);
			barn->nr_empty--;
		}
		spin_unlock_irqrestore(&barn->lock, flags);
	}
	list_for_each_entry_safe(sh, tmp, &full, barn_list) {
		list_del(&sh->barn_list);
		sheaf_flush(s, sh);
		sheaf_free(s, sh);
	}
	list_for_each_entry_safe(sh, tmp, &empty, barn_list) {
		list_del(&sh->barn_list);
		sheaf_free(s, sh);
	}
}

/* Slabs freed between two reads of the gauge: what a flush gave the page allocator. */
static unsigned long nr_slabs(struct slablab_cache *s)
{
	return READ_ONCE(s->nr_slabs);
}

static unsigned long sheaves_flush(struct slablab_cache *s, enum slablab_flush_mode mode,
				   bool every_cpu)
{
	unsigned long before = nr_slabs(s), after;

	slablab_on_each_cpu(s, flush_this_cpu, cpu_has_sheaves, mode, NULL, every_cpu);
	flush_barns(s, mode == SLABLAB_FLUSH_ALL);
	/* then the layer the sheaves just gave their objects to */
	if (s->under)
		s->under->flush(s, mode, every_cpu);
	after = nr_slabs(s);
	return before > after ? before - after : 0;
}

/* With cpu_slabs the dead cpu's sheaves go to this cpu's slab layer, then its own goes. */
static void rcu_flush_dead_cpu(struct slablab_cache *s, int cpu);

static void sheaves_flush_dead_cpu(struct slablab_cache *s, int cpu)
{
	rcu_flush_dead_cpu(s, cpu);
	flush_cpu(s, per_cpu_ptr(s->cpu, cpu), false);
	if (s->under)
		s->under->flush_dead_cpu(s, cpu);
}

/* ---- figures ---- */

/*
 * The per-cpu figures: the objects in the cpu's sheaves as its slab objects; with
 * cpu_slabs the cpu partial figures of the layer under them.
 */
static void sheaves_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
			     u32 *partial_slabs, u32 *partial_objects)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
	struct slablab_sheaf *m, *sp;
	u32 under_objs;

	/* Sheaves are freed after an RCU grace period: their sizes can be read so. */
	rcu_read_lock();
	m = READ_ONCE(c->main);
	sp = READ_ONCE(c->spare);
	*slab_objs = (m ? READ_ONCE(m->size) : 0) + (sp ? READ_ONCE(sp->size) : 0);
	rcu_read_unlock();
	*partial_slabs = 0;
	*partial_objects = 0;
	if (s->under)
		s->under->cpu_view(s, cpu, &under_objs, partial_slabs, partial_objects);
}

/* Sheaves hold no slabs: the gauges of cpu slabs are the layer's under them, if any. */
static u64 rcu_free_pending(struct slablab_cache *s);

static void sheaves_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	g->rcu_pending += rcu_free_pending(s);
	if (s->under)
		s->under->gauges(s, g);
}

struct sheaves_layer_count {
	atomic64_t main;
	atomic64_t spare;
};

static unsigned int count_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct sheaves_layer_count *n = arg;
	struct slablab_cpu *c;
	unsigned long flags;
	u64 m, sp;

	pcs_lock(s, &flags);
	c = this_cpu_ptr(s->cpu);
	m = c->main ? c->main->size : 0;
	sp = c->spare ? c->spare->size : 0;
	pcs_unlock(s, &flags);
	atomic64_add(m, &n->main);
	atomic64_add(sp, &n->spare);
	return 0;
}

/*
 * The racy count of the cpus' sheaves (a reader without CAP_SYS_ADMIN): their sizes
 * read from here, as sheaves_cpu_view() does (sheaves are freed after a grace period);
 * no work, no IPI.
 */
static void sheaves_count_racy(struct slablab_cache *s, struct sheaves_layer_count *n)
{
	struct slablab_sheaf *m, *sp;
	int cpu;

	rcu_read_lock();
	for_each_online_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		m = READ_ONCE(c->main);
		sp = READ_ONCE(c->spare);
		atomic64_add(m ? READ_ONCE(m->size) : 0, &n->main);
		atomic64_add(sp ? READ_ONCE(sp->size) : 0, &n->spare);
	}
	rcu_read_unlock();
}

/*
 * The layers op. Offline cpus hold nothing (their sheaves were flushed when they
 * died); the cpus' sheaves are counted on each cpu under its lock (@exact), else
 * racily from here; the barns under their locks.
 */
static void sheaves_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact)
{
	struct sheaves_layer_count n = {
		.main = ATOMIC64_INIT(0), .spare = ATOMIC64_INIT(0),
	};
	struct slablab_sheaf *sh;
	unsigned long flags;
	int nid;

	if (exact)
		slablab_on_each_cpu(s, count_this_cpu, NULL, 0, &n, true);
	else
		sheaves_count_racy(s, &n);
	l->sheaf_main = atomic64_read(&n.main);
	l->sheaf_spare = atomic64_read(&n.spare);
	for_each_node(nid) {
		struct slablab_barn *barn = s->sheaves_state.barn[nid];

		spin_lock_irqsave(&barn->lock, flags);
		list_for_each_entry(sh, &barn->full, barn_list)
			l->barn += sh->size;
		spin_unlock_irqrestore(&barn->lock, flags);
	}
	l->present |= BIT(SLABLAB_LAYERS_A_SHEAF_MAIN) | BIT(SLABLAB_LAYERS_A_SHEAF_SPARE) |
		      BIT(SLABLAB_LAYERS_A_BARN);
	if (s->under)
		s->under->layers(s, l, exact);
}

/* ---- prefilled sheaves (cache.c's slablab_cache_prefill_sheaf() and the rest) ---- */

/* A full sheaf, else an empty one, of the barn (7.3's barn_get_full_or_empty_sheaf()). */
static struct slablab_sheaf *barn_get_full_or_empty(struct slablab_barn *barn)
{
	struct slablab_sheaf *sh = barn_get(barn, true);

	return sh ?: barn_get(barn, false);
}

/*
 * Fill @sh to its capacity from below the sheaves; false when it holds fewer than @size.
 * Never from the memory reserves (__GFP_NOMEMALLOC): 7.3 tries so first
 * (__prefill_sheaf_pfmemalloc()) and only then, where @gfp allows, takes the reserves
 * for a sheaf it marks pfmemalloc; slablab has no pfmemalloc sheaves.
 */
static bool fill_sheaf(struct slablab_cache *s, gfp_t gfp, struct slablab_sheaf *sh,
		       unsigned int size)
{
	unsigned int got;

	gfp |= __GFP_NOMEMALLOC;
	if (sh->size < sh->capacity) {
		got = objects_take(s, gfp, NUMA_NO_NODE, sh->objects + sh->size,
				   sh->capacity - sh->size);
		sh->size += got;
		stat_add(s, SLABLAB_SHEAF_REFILL, got);
	}
	return sh->size >= size;
}

/*
 * The prefill_sheaf op (7.3's kmem_cache_prefill_sheaf() for a size within the
 * capacity): the cpu's spare (sheaf_prefill_fast), else a barn sheaf, full first, else
 * a new one (sheaf_prefill_slow), filled up to the capacity. A sheaf of a capacity the
 * cache no longer has, or one that cannot be filled to @size, is flushed and freed.
 */
static struct slablab_sheaf *sheaves_prefill_sheaf(struct slablab_cache *s, gfp_t gfp,
						   unsigned int size)
{
	struct slablab_sheaf *sh = NULL;
	struct slablab_cpu *c;
	unsigned long flags;

	/* process context only: cache.c refuses any other (pcs_lock(): local_lock()) */
	pcs_lock(s, &flags);
	c = this_cpu_ptr(s->cpu);
	if (c->spare) {
		sh = c->spare;
		c->spare = NULL;
	}
	pcs_unlock(s, &flags);
	if (sh) {
		stat(s, SLABLAB_SHEAF_PREFILL_FAST);
	} else {
		stat(s, SLABLAB_SHEAF_PREFILL_SLOW);
		sh = barn_get_full_or_empty(local_barn(s));
		/* 7.3 counts these for a prefill too: a full barn sheaf, or none */
		stat(s, sh && sh->size ? SLABLAB_BARN_GET : SLABLAB_BARN_GET_FAIL);
	}
	if (sh && (sh->capacity < size || !current_capacity(s, sh))) {
		sheaf_flush(s, sh);
		sheaf_free(s, sh);
		sh = NULL;
	}
	/*
	 * Never smaller than @size: the capacity cache.c checked @size against may have
	 * changed since (to 0, even); a sheaf of another capacity is freed on its return.
	 */
	if (!sh)
		sh = sheaf_new(s, max(READ_ONCE(s->sheaf_capacity), size), gfp);
	if (!sh)
		return NULL;
	/* 7.3 refills (to the capacity) only a sheaf holding fewer than @size */
	if (sh->size < size && !fill_sheaf(s, gfp, sh, size)) {
		sheaf_flush(s, sh);
		sheaf_free(s, sh);
		return NULL;
	}
	return sh;
}

/* The refill_sheaf op: fill it to its capacity (7.3's refill_sheaf()). */
static int sheaves_refill_sheaf(struct slablab_cache *s, gfp_t gfp, struct slablab_sheaf *sh,
				unsigned int size)
{
	return fill_sheaf(s, gfp, sh, size) ? 0 : -ENOMEM;
}

/*
 * The return_sheaf op (7.3.4's kmem_cache_return_sheaf(), mm/slub.c:5194): the sheaf
 * becomes the cpu's spare when it has none (sheaf_return_fast), whatever its fill and
 * whether or not the cpu has a main (a cpu left without one by a capacity change that
 * could not allocate it keeps the spare for a prefill or a flush); else
 * (sheaf_return_slow) it is refilled and put into the barn, unless the barn holds
 * barn_max_full full sheaves already or the refill fails: then it is flushed and
 * freed. A sheaf of a capacity the cache no longer has is flushed and freed.
 */
static void sheaves_return_sheaf(struct slablab_cache *s, gfp_t gfp, struct slablab_sheaf *sh)
{
	struct slablab_barn *barn;
	struct slablab_cpu *c;
	unsigned long flags;

	/* not from an interrupt (cache.c warned): no pcs_lock() there, flushed and freed */
	if (unlikely(!in_task()))
		goto flush;
	pcs_lock(s, &flags);
	c = this_cpu_ptr(s->cpu);
	if (!current_capacity(s, sh)) {
		pcs_unlock(s, &flags);
		goto flush;
	}
	if (!c->spare) {
		c->spare = sh;
		sh = NULL;
	}
	pcs_unlock(s, &flags);
	if (!sh) {
		stat(s, SLABLAB_SHEAF_RETURN_FAST);
		return;
	}
	stat(s, SLABLAB_SHEAF_RETURN_SLOW);
	barn = local_barn(s);
	/*
	 * A racy peek, as 7.3's: barn_put_full_bound() below does not recheck the bound.
	 * The refill is 7.3's too: no reserves, no warning (the sheaf is flushed instead).
	 */
	if (data_race(barn->nr_full) >= READ_ONCE(s->barn_max_full) ||
	    !fill_sheaf(s, gfp | __GFP_NOWARN, sh, sh->capacity))
		goto flush;
	if (barn_put_full_bound(s, barn, sh, true)) {
		stat(s, SLABLAB_BARN_PUT);
		return;
	}
flush:
	sheaf_flush(s, sh);
	sheaf_free(s, sh);
}

/* ---- set up and tear down ---- */

/*
 * After a flush of every cpu and the barns and slablab_rcu_drain(): only empty sheaves
 * are left, and no rcu_free sheaf.
 */
static void sheaves_destroy(struct slablab_cache *s)
{
	int cpu, nid;

	if (s->under && s->under->destroy)
		s->under->destroy(s);

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		struct slablab_sheaf *main = c->main, *spare = c->spare;

		/* slablab_rcu_drain() handed it to RCU: one left would leak with its objects */
		WARN_ON_ONCE(c->rcu_free);
		/* unpublished before they are freed: cpu_view reads them under RCU */
		WRITE_ONCE(c->main, NULL);
		WRITE_ONCE(c->spare, NULL);
		if (main)
			sheaf_free(s, main);
		if (spare)
			sheaf_free(s, spare);
	}
	if (!s->sheaves_state.barn)
		return;
	for_each_node(nid) {
		struct slablab_barn *barn = s->sheaves_state.barn[nid];
		struct slablab_sheaf *sh, *tmp;

		if (!barn)
			continue;
		WARN_ON_ONCE(barn->nr_full);
		list_for_each_entry_safe(sh, tmp, &barn->empty, barn_list)
			sheaf_free(s, sh);
		kfree(barn);
	}
	kfree(s->sheaves_state.barn);
	s->sheaves_state.barn = NULL;
}

static int sheaves_init(struct slablab_cache *s)
{
	unsigned int cap = s->sheaf_capacity;
	int cpu, nid, err;

	if (s->under) {
		err = s->under->init(s);
		if (err)
			return err;
	}
	s->sheaves_state.barn = kcalloc(nr_node_ids, sizeof(*s->sheaves_state.barn), GFP_KERNEL);
	if (!s->sheaves_state.barn)
		goto fail;
	for_each_node(nid) {
		struct slablab_barn *barn = kzalloc_node(sizeof(*barn), GFP_KERNEL, nid);

		if (!barn)
			goto fail;
		spin_lock_init(&barn->lock);
		INIT_LIST_HEAD(&barn->full);
		INIT_LIST_HEAD(&barn->empty);
		s->sheaves_state.barn[nid] = barn;
	}
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		c->spare = NULL;
		c->main = NULL;
		c->rcu_free = NULL;
	}
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

		if (cap) {
			c->main = sheaf_new(s, cap, GFP_KERNEL);
			if (!c->main)
				goto fail;
		}
	}
	return 0;
fail:
	sheaves_destroy(s);
	return -ENOMEM;
}

static void sheaves_relayout(struct slablab_cache *s)
{
	if (s->under)
		s->under->relayout(s);
}

/* ---- tunables ---- */

static void rcu_free_submit(struct slablab_cache *s, struct slablab_cpu *c, int cpu,
			    struct slablab_sheaf *sh);

/*
 * Swap a cpu's sheaves for a new main of the new capacity (NULL: none, or no memory):
 * this cpu's under its lock (@locked), else offline @cpu's. Its rcu_free sheaf goes to
 * RCU as it is, so that none of the old capacity fills later.
 */
static void replace_sheaves(struct slablab_cache *s, int cpu, struct slablab_sheaf *main,
			    bool locked)
{
	struct slablab_sheaf *old_main, *old_spare, *rcu_free;
	struct slablab_cpu *c;
	unsigned long flags = 0;

	if (locked) {
		pcs_lock(s, &flags);
		cpu = smp_processor_id();
	}
	c = per_cpu_ptr(s->cpu, cpu);
	old_main = c->main;
	old_spare = c->spare;
	c->main = main;
	c->spare = NULL;
	rcu_free = c->rcu_free;
	c->rcu_free = NULL;
	if (rcu_free) {
		if (!locked)
			local_irq_save(flags);	/* as rcu_flush_dead_cpu() */
		rcu_free_submit(s, c, cpu, rcu_free);
		if (!locked)
			local_irq_restore(flags);
	}
	if (locked)
		pcs_unlock(s, &flags);
	if (old_main) {
		sheaf_flush(s, old_main);
		sheaf_free(s, old_main);
	}
	if (old_spare) {
		sheaf_flush(s, old_spare);
		sheaf_free(s, old_spare);
	}
}

/* slablab_on_each_cpu()'s work: a new main for this cpu (@arg counts failures). */
static unsigned int replace_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	unsigned int cap = READ_ONCE(s->sheaf_capacity);
	struct slablab_sheaf *main = NULL;

	if (cap) {
		main = sheaf_new(s, cap, GFP_KERNEL);
		if (!main)
			atomic_inc(arg);
	}
	replace_sheaves(s, 0, main, true);
	return 0;
}

/**
 * slablab_set_sheaf_capacity - objects per sheaf (the sheaf-capacity tunable)
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @objects: the new capacity; 0: no sheaves
 * @extack: where a failure is told
 *
 * On a sheaves cache every cpu's sheaves are given back and each cpu gets a new main
 * sheaf of the new capacity; the barns are emptied. Sheaves of the old capacity still
 * in flight (a refill outside the lock) are freed when they next reach a barn. Upstream
 * fixes the capacity at creation.
 *
 * Return: 0, -ERANGE, or -ENOMEM when some cpu got no new sheaf (it allocates from the slabs
 * until the next change).
 */
int slablab_set_sheaf_capacity(struct slablab_cache *s, unsigned int objects,
			       struct netlink_ext_ack *extack)
{
	atomic_t failed = ATOMIC_INIT(0);
	int cpu;

	if (objects > SLABLAB_MAX_SHEAF_CAPACITY)
		return -ERANGE;
	if (objects == s->sheaf_capacity)
		return 0;
	WRITE_ONCE(s->sheaf_capacity, objects);
	if (s->ops != &slablab_sheaves_ops)
		return 0;
	lockdep_assert_held(&slablab_mutex);
	slablab_on_each_cpu(s, replace_this_cpu, NULL, 0, &failed, true);
	for_each_possible_cpu(cpu) {
		struct slablab_sheaf *main = NULL;

		if (cpu_online(cpu))
			continue;
		/* Offline: flushed when it died, and it cannot come up under cpus_read_lock. */
		if (objects) {
			main = sheaf_new(s, objects, GFP_KERNEL);
			if (!main)
				atomic_inc(&failed);
		}
		replace_sheaves(s, cpu, main, false);
	}
	flush_barns(s, true);
	if (atomic_read(&failed)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "%d cpus got no sheaf of %u objects",
				       atomic_read(&failed), objects);
		return -ENOMEM;
	}
	return 0;
}

/**
 * slablab_set_barn_max_full - full sheaves a barn keeps (the barn-max-full tunable)
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @sheaves: the new bound; the barns' surplus is flushed at once
 * @extack: unused (netlink's policy checks the range first; debugfs writes do not)
 *
 * Return: 0, or -ERANGE above SLABLAB_MAX_BARN_SHEAVES.
 */
int slablab_set_barn_max_full(struct slablab_cache *s, unsigned int sheaves,
			      struct netlink_ext_ack *extack)
{
	if (sheaves > SLABLAB_MAX_BARN_SHEAVES)
		return -ERANGE;
	WRITE_ONCE(s->barn_max_full, sheaves);
	if (s->ops == &slablab_sheaves_ops)
		flush_barns(s, false);
	return 0;
}

/**
 * slablab_set_barn_max_empty - empty sheaves a barn keeps (the barn-max-empty tunable)
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @sheaves: the new bound; the barns' surplus is freed at once
 * @extack: unused (netlink's policy checks the range first; debugfs writes do not)
 *
 * Return: 0, or -ERANGE above SLABLAB_MAX_BARN_SHEAVES.
 */
int slablab_set_barn_max_empty(struct slablab_cache *s, unsigned int sheaves,
			       struct netlink_ext_ack *extack)
{
	if (sheaves > SLABLAB_MAX_BARN_SHEAVES)
		return -ERANGE;
	WRITE_ONCE(s->barn_max_empty, sheaves);
	if (s->ops == &slablab_sheaves_ops)
		flush_barns(s, false);
	return 0;
}

/* ---- RCU frees: the rcu_free sheaf (7.3's __kfree_rcu_sheaf(), rcu_free_sheaf()) ---- */

/*
 * An rcu_free sheaf's grace period is over (rcu_free_sheaf()): the debug checks of
 * slablab_cache_free() run on each object (one that fails them is dropped, as
 * __rcu_free_sheaf_prepare() drops it), they count as frees, and the sheaf goes to the
 * barn of its cpu's node as a full sheaf, else its objects go back to their slabs and
 * it becomes an empty sheaf of that barn below barn_max_empty, else it is freed. The
 * cache outlives this: slablab_rcu_drain() waits until the cpu's batch counts none of
 * its objects as waiting.
 */
static void rcu_free_sheaf(struct rcu_head *head)
{
	struct slablab_sheaf *sh = container_of(head, struct slablab_sheaf, rcu);
	struct slablab_cache *s = sh->cache;
	struct slablab_rcu_batch *b = &per_cpu_ptr(s->cpu, sh->cpu)->rcu;
	struct slablab_barn *barn = s->sheaves_state.barn[cpu_to_node(sh->cpu)];
	unsigned int i = 0, n = sh->size;
	unsigned long flags;

	while (i < sh->size) {
		void *obj = sh->objects[i];

		if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG))
			slablab_debug_rcu_unqueue(s, obj);
		if (!free_hook(s, obj_to_slab(obj), obj)) {
			sh->objects[i] = sh->objects[--sh->size];
			continue;
		}
		i++;
	}
	stat_add(s, SLABLAB_FREE_FASTPATH, sh->size);
	if (sh->size && barn_put_full_bound(s, barn, sh, false)) {
		stat(s, SLABLAB_BARN_PUT);
	} else {
		if (sh->size) {
			stat(s, SLABLAB_BARN_PUT_FAIL);
			sheaf_flush(s, sh);
		}
		/* emptied: kept below barn_max_empty only (7.3's MAX_EMPTY_SHEAVES) */
		if (!barn_put_empty(s, barn, sh, true))
			sheaf_free(s, sh);
	}
	/* Last: the drain reads the count under this lock (nothing of @s after it). */
	raw_spin_lock_irqsave(&b->lock, flags);
	b->nr_waiting -= n;
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/* Hand @c's rcu_free sheaf @sh to RCU (@c's lock held, or @c's cpu dead). */
static void rcu_free_submit(struct slablab_cache *s, struct slablab_cpu *c, int cpu,
			    struct slablab_sheaf *sh)
{
	unsigned long flags;

	sh->cache = s;
	sh->cpu = cpu;
	/* irqsave: on 7.x the sheaves lock leaves interrupts on, and cache.c's batch of
	 * this cpu takes this lock from any context
	 */
	raw_spin_lock_irqsave(&c->rcu.lock, flags);
	c->rcu.nr_waiting += sh->size;
	raw_spin_unlock_irqrestore(&c->rcu.lock, flags);
	stat(s, SLABLAB_FREE_RCU_BATCH);
	call_rcu(&sh->rcu, rcu_free_sheaf);
}

/*
 * An RCU free into the cpu's rcu_free sheaf (7.3.4's __kfree_rcu_sheaf(),
 * mm/slub.c:6112): the sheaf comes from an empty spare, the barn's empty sheaves or a
 * new one (__GFP_NOWARN alone: no kswapd, which 7.3 must not wake under the pi_lock an
 * RCU free may come with); a full one is handed to RCU before the lock is dropped. A
 * new sheaf that lost a race (the lock could not be had again, or another rcu_free
 * sheaf arrived meanwhile) is freed, as 7.3.4 frees it (6.18 to 7.0 put it into the
 * barn). False (cache.c's batch takes the object) without sheaves or an empty sheaf to
 * be had: FREE_RCU_SHEAF_FAIL.
 */
static bool free_rcu_sheaf(struct slablab_cache *s, void *obj)
{
	struct slablab_sheaf *sh, *empty = NULL;
	unsigned int cap = READ_ONCE(s->sheaf_capacity);
	struct slablab_cpu *c;
	unsigned long flags;

	/* 7.3 tries the lock too: the context an interrupt came in on may hold it */
	if (!cap || !pcs_trylock(s, &flags))
		goto fail;
	c = this_cpu_ptr(s->cpu);
	if (!c->rcu_free && c->spare && !c->spare->size && current_capacity(s, c->spare)) {
		c->rcu_free = c->spare;
		c->spare = NULL;
	}
	if (!c->rcu_free) {
		c->rcu_free = barn_get(local_barn(s), false);
		/* one of a capacity the cache no longer has is no sheaf (freed below) */
		if (c->rcu_free && !current_capacity(s, c->rcu_free)) {
			empty = c->rcu_free;
			c->rcu_free = NULL;
			pcs_unlock(s, &flags);
			sheaf_free(s, empty);
			empty = NULL;
			if (!pcs_trylock(s, &flags))
				goto fail;
			c = this_cpu_ptr(s->cpu);
		}
	}
	if (!c->rcu_free) {
		pcs_unlock(s, &flags);
		empty = sheaf_new(s, cap, __GFP_NOWARN);
		if (!empty)
			goto fail;
		if (!pcs_trylock(s, &flags)) {
			sheaf_free(s, empty);
			goto fail;
		}
		c = this_cpu_ptr(s->cpu);
		if (!c->rcu_free && current_capacity(s, empty)) {
			c->rcu_free = empty;
			empty = NULL;
		}
		if (!c->rcu_free) {
			pcs_unlock(s, &flags);
			sheaf_free(s, empty);
			goto fail;
		}
	}
	sh = c->rcu_free;
	sh->objects[sh->size++] = obj;
	if (sh->size >= sh->capacity) {
		c->rcu_free = NULL;
		rcu_free_submit(s, c, smp_processor_id(), sh);
	}
	pcs_unlock(s, &flags);
	if (empty)
		sheaf_free(s, empty);
	stat(s, SLABLAB_FREE_RCU_SHEAF);
	return true;
fail:
	stat(s, SLABLAB_FREE_RCU_SHEAF_FAIL);
	return false;
}

/*
 * An RCU free may come with a raw spinlock held (as kvfree_call_rcu() may), and the
 * rcu_free sheaf takes the barn's spinlock_t and may kmalloc() a sheaf: a sleeping lock
 * on PREEMPT_RT, where RCU frees skip the sheaf (7.3's kvfree_call_rcu()) and wait on
 * cache.c's batch (a raw spinlock). Elsewhere spinlock_t spins, and lockdep is told
 * that the nesting is fine there (7.3's kfree_rcu_sheaf_map); not on PREEMPT_RT, where
 * it would hide real reports.
 */
static DEFINE_WAIT_OVERRIDE_MAP(slablab_free_rcu_sheaf_map, LD_WAIT_CONFIG);

static bool sheaves_free_rcu(struct slablab_cache *s, void *obj)
{
	bool done;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return false;
	lock_map_acquire_try(&slablab_free_rcu_sheaf_map);
	done = free_rcu_sheaf(s, obj);
	lock_map_release(&slablab_free_rcu_sheaf_map);
	return done;
}

static unsigned int rcu_flush_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slablab_sheaf *sh;
	struct slablab_cpu *c;
	unsigned long flags;

	pcs_lock(s, &flags);	/* a work item: task context */
	c = this_cpu_ptr(s->cpu);
	sh = c->rcu_free;
	c->rcu_free = NULL;
	if (sh)
		rcu_free_submit(s, c, smp_processor_id(), sh);
	pcs_unlock(s, &flags);
	return 0;
}

static bool cpu_has_rcu_free(struct slablab_cache *s, int cpu, int mode)
{
	return data_race(READ_ONCE(per_cpu_ptr(s->cpu, cpu)->rcu_free));	/* a hint */
}

/* Hand every cpu's partly filled rcu_free sheaf to RCU (7.3's flush_all_rcu_sheaves()). */
static void sheaves_rcu_flush(struct slablab_cache *s)
{
	slablab_on_each_cpu(s, rcu_flush_this_cpu, cpu_has_rcu_free, 0, NULL, false);
}

/* A dead cpu's rcu_free sheaf goes to RCU too (its lock is not needed). */
static void rcu_flush_dead_cpu(struct slablab_cache *s, int cpu)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
	struct slablab_sheaf *sh = c->rcu_free;
	unsigned long flags;

	c->rcu_free = NULL;
	if (sh) {
		local_irq_save(flags);
		rcu_free_submit(s, c, cpu, sh);
		local_irq_restore(flags);
	}
}

/* Objects in the cpus' rcu_free sheaves not yet handed to RCU (the rcu-pending gauge). */
static u64 rcu_free_pending(struct slablab_cache *s)
{
	struct slablab_sheaf *sh;
	u64 n = 0;
	int cpu;

	/* Sheaves are freed after a grace period: their sizes can be read so. */
	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		sh = READ_ONCE(per_cpu_ptr(s->cpu, cpu)->rcu_free);
		if (sh)
			n += READ_ONCE(sh->size);
	}
	rcu_read_unlock();
	return n;
}

/* ---- test hooks (selftests=1: debugfs caches/<name>/selftest) ---- */

static bool stale_sheaf(struct slablab_cache *s, struct slablab_sheaf *sh)
{
	return sh && !current_capacity(s, sh);
}

/* slablab_on_each_cpu()'s work: count this cpu's sheaves of another capacity in @arg. */
static unsigned int check_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slablab_cpu *c;
	unsigned long flags;

	pcs_lock(s, &flags);
	c = this_cpu_ptr(s->cpu);
	if (stale_sheaf(s, c->main) || stale_sheaf(s, c->spare) || stale_sheaf(s, c->rcu_free))
		atomic_inc(arg);
	pcs_unlock(s, &flags);
	return 0;
}

/**
 * slablab_selftest_sheaf_capacity - whether every sheaf is of the cache's capacity
 * @s: the cache
 *
 * The claim of current_capacity(): after a change of sheaf_capacity no cpu and no barn
 * holds a sheaf of an old capacity. Every online cpu's main, spare and rcu_free are looked at
 * under its lock, every barn under its lock, all under cpus_read_lock and slablab_mutex
 * (no change meanwhile), while the cache may be in use. Sheaves in flight (a refill,
 * a prefilled sheaf) are not looked at: where they arrive they are refused.
 *
 * Context: process context; a test hook (selftests=1).
 * Return: 0; -EUCLEAN when a cpu or a barn holds a sheaf of another capacity;
 * -EOPNOTSUPP on another design; -ENOENT when the cache is being destroyed.
 */
int slablab_selftest_sheaf_capacity(struct slablab_cache *s)
{
	atomic_t stale = ATOMIC_INIT(0);
	struct slablab_sheaf *sh;
	unsigned long flags;
	int nid, err = 0;

	if (!slablab_selftests)
		return -EPERM;
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	if (s->dead) {
		err = -ENOENT;
		goto out;
	}
	if (s->ops != &slablab_sheaves_ops) {
		err = -EOPNOTSUPP;
		goto out;
	}
	slablab_on_each_cpu(s, check_this_cpu, NULL, 0, &stale, true);
	for_each_node(nid) {
		struct slablab_barn *barn = s->sheaves_state.barn[nid];

		spin_lock_irqsave(&barn->lock, flags);
		list_for_each_entry(sh, &barn->full, barn_list)
			if (stale_sheaf(s, sh))
				atomic_inc(&stale);
		list_for_each_entry(sh, &barn->empty, barn_list)
			if (stale_sheaf(s, sh))
				atomic_inc(&stale);
		spin_unlock_irqrestore(&barn->lock, flags);
	}
	if (atomic_read(&stale)) {
		pr_warn("slablab: %s: %d sheaves of a capacity other than %u\n", s->name,
			atomic_read(&stale), s->sheaf_capacity);
		err = -EUCLEAN;
	}
out:
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return err;
}

#define SELFTEST_BULK	8	/* objects the pcs_held hook allocates and frees in bulk */

/**
 * slablab_selftest_pcs_held - allocate and free with this cpu's sheaves lock held
 * @s: the cache
 *
 * As an interrupt that lands in a pop or push of this cpu's sheaves would: with the
 * sheaves lock held (pcs_lock()), one allocation and its free, then a bulk allocation
 * of SELFTEST_BULK objects and its bulk free, by the design's paths the exported API
 * dispatches to (not the API itself: the design layer calls no cache API). Each must
 * find the lock taken (pcs_trylock()) and go to the slabs (alloc_slowpath,
 * free_slowpath), leaving main and spare as they were. Only with local_trylock_t
 * (6.16+): without, the lock is local_lock_irqsave() and no interrupt gets in.
 *
 * Context: process context; a test hook (selftests=1).
 * Return: 0; -EPERM without selftests=1; -EOPNOTSUPP without local_trylock_t, on
 * another design or without sheaves (sheaf_capacity 0); -ENOENT when the cache is
 * being destroyed; -ENOMEM; -EIO when main or the spare changed.
 */
int slablab_selftest_pcs_held(struct slablab_cache *s)
{
	struct slablab_sheaf *main, *spare;
	unsigned int main_size, spare_size;
	void *bulk[SELFTEST_BULK], *obj;
	struct slablab_cpu *c;
	unsigned long flags;
	int err = 0;

	if (!slablab_selftests)
		return -EPERM;
#ifndef SLABLAB_HAVE_LOCAL_TRYLOCK
	return -EOPNOTSUPP;
#endif
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	if (s->dead) {
		err = -ENOENT;
		goto out;
	}
	if (s->ops != &slablab_sheaves_ops || !READ_ONCE(s->sheaf_capacity)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	pcs_lock(s, &flags);
	c = this_cpu_ptr(s->cpu);
	main = c->main;
	spare = c->spare;
	main_size = main ? main->size : 0;
	spare_size = spare ? spare->size : 0;
	/*
	 * the paths slablab_cache_alloc()/_free() and their bulk forms dispatch to; the
	 * free is dispatch.h's cache_free_slab() for this design: keep them in step
	 */
	obj = sheaves_alloc(s, GFP_ATOMIC, NUMA_NO_NODE);
	if (obj) {
		struct slablab_slab *slab = obj_to_slab(obj);

		if (free_hook(s, slab, obj))
			sheaves_free_one(s, slab, obj);
	} else {
		err = -ENOMEM;
	}
	if (sheaves_alloc_bulk(s, GFP_ATOMIC, SELFTEST_BULK, bulk))
		sheaves_free_bulk(s, SELFTEST_BULK, bulk);
	else
		err = -ENOMEM;
	if (c->main != main || c->spare != spare || (main && main->size != main_size) ||
	    (spare && spare->size != spare_size))
		err = -EIO;
	pcs_unlock(s, &flags);
out:
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return err;
}

const struct slablab_design_ops slablab_sheaves_ops = {
	.name = "sheaves",
	.init = sheaves_init,
	.destroy = sheaves_destroy,
	.alloc = sheaves_alloc_op,
	.free = sheaves_free,
	.alloc_bulk = sheaves_alloc_bulk,
	.free_bulk = sheaves_free_bulk,
	.flush = sheaves_flush,
	.flush_dead_cpu = sheaves_flush_dead_cpu,
	.relayout = sheaves_relayout,
	.gauges = sheaves_gauges,
	.cpu_view = sheaves_cpu_view,
	.layers = sheaves_layers,
	.prefill_sheaf = sheaves_prefill_sheaf,
	.refill_sheaf = sheaves_refill_sheaf,
	.return_sheaf = sheaves_return_sheaf,
	.free_rcu = sheaves_free_rcu,
	.rcu_flush = sheaves_rcu_flush,
};
