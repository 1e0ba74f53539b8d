// SPDX-License-Identifier: GPL-2.0
/*
 * The slab design: the front end of SLAB (mm/slab.c of 6.1, gone from Linux in 6.8),
 * over the shared back end (backend.c) — per-cpu array caches, per-node shared arrays
 * and alien caches, and SLAB's own node slab lists.
 *
 * Names
 *   The slab design's ops table and the functions other files call are
 *   slablab_slab_design_* (slablab_slab_design_ops, _defaults(), _check_tunables(),
 *   _set_lists(); its tunables' setters are slablab_set_<tunable>(), as every
 *   tunable's), as the other designs' are slablab_slub_*, slablab_sheaves_* and
 *   slablab_slob_*: slablab_slab_* names the slab, struct slablab_slab (the back end's
 *   slablab_slab_new(), slablab_slab_free()). Not slablab_arrays_*: the array caches
 *   are only the design's per-cpu layer, not its node lists and reaping. Where
 *   userspace sees the design (the spec's design enum, debugfs, slabctl) it is "slab".
 *
 * Per-cpu state (struct slablab_cpu.ac)
 *   An array cache: a LIFO of free object pointers, @avail of them, at most @limit;
 *   @batchcount objects move at once to and from the node; @touched says the array
 *   was used since the last reap. An allocation pops it (allochit); an empty array is
 *   refilled (allocmiss) by up to batchcount objects — at most BATCHREFILL_LIMIT (16)
 *   while untouched — from the node's shared array, else from the node's slabs, else
 *   from a new slab of this node grown with gfp_exact_node() (this node only, no
 *   reclaim), its first batch straight into the array. When that grow fails, the
 *   object comes as SLAB's ____cache_alloc_node() finds one: the node's slabs
 *   (nodeallocs), a second grow there, then fallback_alloc(): other nodes' slabs, then
 *   a slab grown with the caller's own gfp. (Without NUMA, as 6.1 there, the grow
 *   keeps the caller's gfp but __GFP_NOFAIL and its failure fails the allocation.) A
 *   free pushes it (freehit); a full array
 *   (freemiss) first moves its oldest batchcount entries into the shared array (as
 *   many as fit) or else back to their slabs. An object of another node goes to this
 *   node's alien cache for that node (at most ALIEN_LIMIT, 12), which drains to the
 *   owning node's shared array first, its slabs for the rest; a node-specific request
 *   for another node goes straight to ____cache_alloc_node() for that node.
 *
 * Bulk requests (6.1's kmem_cache_alloc_bulk(), kmem_cache_free_bulk())
 *   Interrupts off once around the batch, its array operations (refills and this
 *   node's grows among them) inside: here the cpu's lock, taken once per
 *   SLAB_BULK_HOLD objects. An allocation gives it up for what touches no array and
 *   may sleep: ____cache_alloc_node() and fallback_alloc() once this node could not be
 *   grown without reclaim, and (without NUMA) a grow that may reclaim. Allocation
 *   hooks run after the batch, free hooks inside, as there; a failed allocation frees
 *   what the batch got and returns 0.
 *
 * Per-cache state (struct slablab_slab_design_state, s->slab_design_state; internal.h)
 *   The nodes below, the reapers, the count of objects out of the slab lists and its
 *   high marks, touched by this file alone: init makes the nodes and the reapers and
 *   zeroes the count, destroy cancels the reapers and frees the nodes; the high marks
 *   go on across design changes, as the counters whose rises they count. The tunables
 *   (lists, limit, batchcount, shared, reap_*) are fields of the cache.
 *
 * Per-node state (struct slablab_slab_node)
 *   - lists=3 (since 2.4.9-ac): slabs on full, partial or free lists; allocation takes
 *     from the first partial slab, else the first free one;
 *   - lists=1 (2.4.9): one list, full slabs first, then partial, then free, with
 *     firstnotfull pointing at the first slab that is not full;
 *   - free_objects (free objects in the node's slabs) beyond free_limit
 *     ((1 + cpus of the node) x batchcount + objects per slab) send free slabs back to
 *     the page allocator as objects return;
 *   - the shared array (shared x batchcount objects) and the alien caches.
 *   Slabs stay unfrozen: the back end's validate and layers see them as node slabs
 *   (SLABLAB_SLAB_ON_PARTIAL marks a slab on any of these lists), and objects leave and
 *   enter a slab's freelist only under the node's list_lock, each with the slab's
 *   double-word cmpxchg so that lockless readers of the counters see whole words.
 *
 * Reaping (SLAB's cache_reap())
 *   Per cache and cpu a delayed work item: every reap_cpu_ms (2 s) it drains one alien
 *   cache of the cpu's node (round robin) and gives back (limit + 4) / 5 objects of the
 *   cpu's array if untouched since the last reap (else clears touched); when the node
 *   is due (reap_node_ms, 4 s) it does the same to the shared array and frees
 *   (free_limit + 5 x objects per slab - 1) / (5 x objects per slab) free slabs unless a
 *   slab was taken off the free list since (free_touched). The work is started by init
 *   and cpu online, cancelled (synchronously) by destroy and cpu offline; a work that
 *   finds itself on another cpu (its cpu went down) does nothing.
 *
 * Geometry (slablab_compute_layout(), policy.h's slablab_slab_geometry()): SLAB's order,
 * objects per slab and freelist placement: objects of SLAB_OBJ_MIN_SIZE (16 B) and up,
 * the lowest order whose leftover is within 1/8 up to slab_max_order, an on-slab
 * freelist's index byte per object taken from the slab, at most SLAB_OBJ_MAX_NUM
 * objects. A constructor or typesafe-by-rcu cache keeps the back end's free pointer
 * after the object (a word more per slot than SLAB's).
 *
 * Differences from 6.1: object indices are not kept in a freelist array in the slab
 * but as the back end's free pointers (an off-slab freelist takes no kmalloc object,
 * an on-slab one's space holds the back end's slab metadata when it fits); no
 * pfmemalloc slabs; no colouring, SLAB_RECLAIM_ACCOUNT's order-0 rule or
 * SLAB_TYPESAFE_BY_RCU; debug mode is the back end's layout, not SLAB's DEBUG red
 * zones and user words; fallback_alloc() walks the nodes with
 * memory in their order, not the zonelist of the mempolicy's node within the cpuset
 * (no mempolicy or cpuset spreading, alternate_node_alloc(), either); objects that
 * ____cache_alloc_node() takes count in listallocs as a refill's do (6.1 counts them
 * as active only, and one from a slab it grew not at all, so that its active count
 * drifts); the reap is per cache, not one work item per cpu walking every cache under
 * the cache mutex.
 *
 * Locks (backend.c's order; outermost first)
 *   cpu_hotplug_lock (read)        around every op but the per-object ones and the
 *                                  gauges; hotplug holds it for writing around
 *                                  cpu_online, cpu_offline and flush_dead_cpu
 *   slablab_mutex                  tunable changes, init, destroy on a design change,
 *                                  flushes, layers, validate, hotplug. The reap work
 *                                  takes it with a trylock (as SLAB's cache_reap() took
 *                                  slab_mutex) and re-queues itself when it is busy, so
 *                                  whoever holds it may cancel_delayed_work_sync() the
 *                                  reap (destroy, cpu offline) without a deadlock; it
 *                                  re-queues under the mutex, so set_period() is never
 *                                  undone by a reap that read the old period
 *   s->cpu->lock (local_lock, irqs off) the cpu's array cache (and the pointer to it);
 *                                  a bulk request holds it for SLAB_BULK_HOLD objects
 *   alien->lock (spinlock, irqs off) one alien cache; taken under the cpu's lock by a
 *                                  free (free_alien()), alone by the reap, flush, layers
 *   n->list_lock (spinlock, irqs off) the back end's node lock: this design's node lists,
 *                                  sn->lists, counts, free_limit, the shared array and
 *                                  the slabs' freelists of that node; innermost of these
 *   s->slabs_lock                  as in backend.c (slablab_new_slab()/discard), never
 *                                  under list_lock here: slabs are discarded after it is
 *                                  dropped; a refill grows under the cpu's lock (6.1
 *                                  grows with interrupts off when the gfp cannot
 *                                  reclaim, as gfp_exact_node()'s cannot with NUMA)
 *   Every spinlock here is taken with interrupts off (irqsave, or inside the cpu's
 *   local_lock_irqsave()): frees may come from interrupts. Nothing here sleeps under
 *   a spinlock or the cpu's lock.
 *
 * Lifetimes
 *   A cpu's array and a node's shared array are replaced by a retune and freed after a
 *   grace period (cpu_view and node_has_objects() peek at them under RCU); the nodes
 *   are unpublished and freed after a grace period on destroy (the gauges read them
 *   from debugfs without slablab_mutex, possibly during a design change). The reap
 *   work is cancelled synchronously before anything it reads is freed: by destroy
 *   (design change, cache release, module unload) and by cpu offline.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/nodemask.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/timer.h>
#include <linux/kmemleak.h>
#include "backend.h"
#include "compat.h"

#define BATCHREFILL_LIMIT	16	/* an untouched array refills at most this many */
#define ALIEN_LIMIT		12	/* SLAB's alloc_alien_cache() limit */
/*
 * Objects of a bulk request per hold of the cpu's lock. 6.1 keeps interrupts off for
 * a whole batch, whatever its size; a storm's batch may be 65536 (storm-max-batch) and
 * a kernel caller's anything, so the lock is dropped and taken again after this many
 * (between two objects: the batch keeps 6.1's shape). A hold is then at most 64
 * array operations, each with at most one refill (batchcount objects, or a grow of
 * one slab without reclaim); the typical kernel batches (16 to 64) take it once.
 */
#define SLAB_BULK_HOLD		64

/**
 * struct slablab_array - an array cache (SLAB's struct array_cache)
 * @rcu: replaced arrays are freed after a grace period (cpu_view reads them under RCU)
 * @avail: objects in @entry
 * @limit: slots of @entry
 * @batchcount: objects moved at once to or from the node
 * @touched: used since the last reap
 * @entry: the objects, @entry[@avail - 1] the most recently freed
 */
struct slablab_array {
	struct rcu_head rcu;
	unsigned int avail;
	unsigned int limit;
	unsigned int batchcount;
	unsigned int touched;
	void *entry[];
};

/**
 * struct slablab_alien - an alien cache: frees of another node's objects
 * @lock: the array
 * @ac: the array (ALIEN_LIMIT slots)
 */
struct slablab_alien {
	spinlock_t lock;	/* @ac */
	struct slablab_array ac;
};

/**
 * struct slablab_slab_node - a node's slabs, shared array and alien caches, under the
 *	back end's s->node[nid]->list_lock (alien caches under their own locks)
 * @full: full slabs (lists=3)
 * @partial: partial slabs (lists=3), or every slab (lists=1: full, partial, free)
 * @free: empty slabs (lists=3)
 * @rcu: freed after a grace period: the gauges read the counts without a lock
 * @lists: 1 or 3, this node's scheme (s->lists is the tunable; a change re-links one
 *	node after another, each under its lock, so each node's lists follow their own)
 * @firstnotfull: lists=1: the first slab of @partial that is not full, or @partial
 * @nr_full: full slabs
 * @nr_partial: partial slabs
 * @nr_free: empty slabs
 * @free_objects: free objects in the node's slabs
 * @free_limit: free objects the node keeps in its slabs before freeing empty ones
 * @free_touched: a slab was taken off the free slabs since the last node reap
 * @next_reap: jiffies of the next node reap
 * @shared: the shared array, or NULL (shared = 0)
 * @alien: alien caches by owning node, [nr_node_ids]; NULL entries for this node
 */
struct slablab_slab_node {
	struct rcu_head rcu;
	unsigned int lists;
	struct list_head full;
	struct list_head partial;
	struct list_head free;
	struct list_head *firstnotfull;
	unsigned long nr_full;
	unsigned long nr_partial;
	unsigned long nr_free;
	unsigned long free_objects;
	unsigned long free_limit;
	bool free_touched;
	unsigned long next_reap;
	struct slablab_array *shared;
	struct slablab_alien **alien;
};

/**
 * struct slablab_slab_nodes - a slab cache's nodes
 * @rcu: freed after a grace period: the gauges find the nodes without a lock
 * @node: by node id, [nr_node_ids]
 */
struct slablab_slab_nodes {
	struct rcu_head rcu;
	struct slablab_slab_node *node[];
};

/**
 * struct slablab_reaper - one cpu's periodic reap of one cache
 * @work: the delayed work, queued on @cpu
 * @s: the cache
 * @cpu: the cpu whose array it reaps
 * @alien_node: the node whose alien cache the next reap drains (round robin)
 */
struct slablab_reaper {
	struct delayed_work work;
	struct slablab_cache *s;
	int cpu;
	int alien_node;
};

DEFINE_STATIC_KEY_FALSE(slablab_count_cpu_locks);

/*
 * The cpu's lock: its array (and the pointer to it). With selftests=1 every acquisition
 * is counted in s->selftest_cpu_locks (debugfs caches/<name>/selftest_cpu_locks), which
 * is how the tests see a bulk request take it once per batch; a static key, so that
 * nothing is added to the path otherwise.
 */
static __always_inline void cpu_lock(struct slablab_cache *s, unsigned long *flags)
{
	local_lock_irqsave(&s->cpu->lock, *flags);
	if (static_branch_unlikely(&slablab_count_cpu_locks))
		atomic_inc(&s->selftest_cpu_locks);
}

static __always_inline void cpu_unlock(struct slablab_cache *s, unsigned long *flags)
{
	local_unlock_irqrestore(&s->cpu->lock, *flags);
}

static struct slablab_slab_node *get_node(struct slablab_cache *s, int nid)
{
	return s->slab_design_state.nodes->node[nid];
}

static spinlock_t *node_lock(struct slablab_cache *s, int nid)
{
	return &s->node[nid]->list_lock;
}

/* Objects a slab of the cache's current order holds (SLAB's cachep->num). */
static unsigned int objs_per_slab(struct slablab_cache *s)
{
	unsigned int order = max(READ_ONCE(s->order), slablab_min_order(s));

	return slablab_cache_objs(s, order);
}

/* Free objects a node keeps in its slabs before giving empty ones back (SLAB's). */
static unsigned long free_limit(struct slablab_cache *s, int nid)
{
	return (1 + nr_cpus_node(nid)) * (unsigned long)s->batchcount + objs_per_slab(s);
}

/* ---- high marks as counters: the sum of the rises is the mark ---- */

static void raise_mark(struct slablab_cache *s, atomic_long_t *mark, long v,
		       enum slablab_stat_item si)
{
	long old = atomic_long_read(mark);

	while (v > old) {
		if (atomic_long_try_cmpxchg(mark, &old, v)) {
			stat_add(s, si, v - old);
			return;
		}
	}
}

static void count_out(struct slablab_cache *s, unsigned int nr)
{
	long active = atomic_long_add_return(nr, &s->slab_design_state.active);

	stat_add(s, SLABLAB_LISTALLOCS, nr);
	raise_mark(s, &s->slab_design_state.maxobjs, active, SLABLAB_MAXOBJS);
}

/* ---- one slab's freelist, under its node's list_lock ---- */

static unsigned int slab_inuse(struct slablab_slab *slab)
{
	struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

	return c.inuse;
}

/* Take up to @want objects off @slab's freelist into @p; returns how many. */
static unsigned int slab_take(struct slablab_cache *s, struct slablab_slab *slab, void **p,
			      unsigned int want)
{
	union slablab_pair old, new;
	struct slablab_counters c;
	unsigned int k;
	void *obj;

	do {
		old = read_pair(&slab->fc);
		c.word = old.word;
		for (k = 0, obj = old.freelist; obj && k < want; obj = get_fp(s, obj))
			p[k++] = obj;
		c.inuse += k;
		new.freelist = obj;
		new.word = c.word;
	} while (!pair_cmpxchg(&slab->fc, old, new));
	return k;
}

/* Put one object back on @slab's freelist. */
static void slab_put(struct slablab_cache *s, struct slablab_slab *slab, void *obj)
{
	union slablab_pair old, new;
	struct slablab_counters c;

	do {
		old = read_pair(&slab->fc);
		set_fp(s, obj, old.freelist);
		c.word = old.word;
		c.inuse--;
		new.freelist = obj;
		new.word = c.word;
	} while (!pair_cmpxchg(&slab->fc, old, new));
}

/* ---- the node lists ---- */

enum slab_state { SLAB_FREE, SLAB_PARTIAL, SLAB_FULL };

static bool one_list(struct slablab_slab_node *sn)
{
	return sn->lists == 1;
}

static enum slab_state slab_state(struct slablab_slab *slab)
{
	unsigned int inuse = slab_inuse(slab);

	if (!inuse)
		return SLAB_FREE;
	return inuse == slab_objects(slab) ? SLAB_FULL : SLAB_PARTIAL;
}

static unsigned long *state_count(struct slablab_slab_node *sn, enum slab_state st)
{
	return st == SLAB_FREE ? &sn->nr_free : st == SLAB_FULL ? &sn->nr_full : &sn->nr_partial;
}

/* Take @slab off the node's lists; @st is its state while it was on them. */
static void list_unlink(struct slablab_slab_node *sn, struct slablab_slab *slab,
			enum slab_state st)
{
	if (sn->firstnotfull == &slab->node_list)
		sn->firstnotfull = slab->node_list.next;
	list_del(&slab->node_list);
	slab->base_flags &= ~SLABLAB_SLAB_ON_PARTIAL;
	(*state_count(sn, st))--;
}

/*
 * Put @slab on the node's lists as its state says. lists=3: full and free slabs at the
 * head of theirs, partial ones at the tail after a free (the most time for the rest
 * of the slab to come back, as 6.1's free_block()), at the head after an allocation.
 * lists=1 keeps 2.4.9's order (full | partial | free) around firstnotfull.
 */
static void list_link(struct slablab_cache *s, struct slablab_slab_node *sn,
		      struct slablab_slab *slab, bool after_free)
{
	enum slab_state st = slab_state(slab);

	(*state_count(sn, st))++;
	slab->base_flags |= SLABLAB_SLAB_ON_PARTIAL;
	if (one_list(sn)) {
		if (st == SLAB_FULL) {
			/* just before the first slab that is not full */
			list_add_tail(&slab->node_list, sn->firstnotfull);
		} else if (st == SLAB_FREE) {
			/* at the tail; the first not full when nothing else is */
			list_add_tail(&slab->node_list, &sn->partial);
			if (sn->firstnotfull == &sn->partial)
				sn->firstnotfull = &slab->node_list;
		} else {
			/* partial: it becomes the first not full (2.4.9's moveslab_partial) */
			list_add_tail(&slab->node_list, sn->firstnotfull);
			sn->firstnotfull = &slab->node_list;
		}
		return;
	}
	if (st == SLAB_FULL)
		list_add(&slab->node_list, &sn->full);
	else if (st == SLAB_FREE)
		list_add(&slab->node_list, &sn->free);
	else if (after_free)
		list_add_tail(&slab->node_list, &sn->partial);
	else
		list_add(&slab->node_list, &sn->partial);
}

/* The slab the next allocation of the node comes from, or NULL (SLAB's get_first_slab()). */
static struct slablab_slab *first_slab(struct slablab_cache *s, struct slablab_slab_node *sn)
{
	struct slablab_slab *slab;

	if (one_list(sn)) {
		if (sn->firstnotfull == &sn->partial)
			return NULL;
		slab = list_entry(sn->firstnotfull, struct slablab_slab, node_list);
		if (!slab_inuse(slab))
			sn->free_touched = true;
		return slab;
	}
	slab = list_first_entry_or_null(&sn->partial, struct slablab_slab, node_list);
	if (!slab) {
		sn->free_touched = true;
		slab = list_first_entry_or_null(&sn->free, struct slablab_slab, node_list);
	}
	return slab;
}

/* An empty slab to give back, or NULL: the last free one (SLAB takes slabs_free.prev). */
static struct slablab_slab *last_free_slab(struct slablab_cache *s, struct slablab_slab_node *sn)
{
	struct slablab_slab *slab;

	if (one_list(sn)) {
		if (list_empty(&sn->partial))
			return NULL;
		slab = list_last_entry(&sn->partial, struct slablab_slab, node_list);
		return slab_inuse(slab) ? NULL : slab;
	}
	if (list_empty(&sn->free))
		return NULL;
	return list_last_entry(&sn->free, struct slablab_slab, node_list);
}

/* Take a free slab off the lists for discarding once list_lock is dropped. */
static void unlink_free_slab(struct slablab_cache *s, int nid, struct slablab_slab *slab,
			     struct list_head *victims)
{
	struct slablab_slab_node *sn = get_node(s, nid);

	list_unlink(sn, slab, SLAB_FREE);
	sn->free_objects -= slab_objects(slab);
	mark_dying(s->node[nid], slab);
	list_add(&slab->node_list, victims);
}

static unsigned long discard_victims(struct slablab_cache *s, struct list_head *victims)
{
	struct slablab_slab *slab, *tmp;
	unsigned long n = 0;

	list_for_each_entry_safe(slab, tmp, victims, node_list) {
		list_del(&slab->node_list);
		slablab_discard_slab(s, slab);
		n++;
	}
	return n;
}

/*
 * Take up to @want objects from the node's slabs into @p (list_lock held); returns
 * how many.
 */
static unsigned int take_from_lists(struct slablab_cache *s, int nid, void **p,
				    unsigned int want)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	unsigned int got = 0, k;
	enum slab_state st;

	lockdep_assert_held(node_lock(s, nid));
	while (got < want) {
		struct slablab_slab *slab = first_slab(s, sn);

		if (!slab)
			break;
		st = slab_state(slab);
		k = slab_take(s, slab, p + got, want - got);
		if (WARN_ON_ONCE(!k))
			break;	/* a slab on the lists with no free object: corrupted */
		/* 2.4.9 moves a slab only when its state changes; 6.1 always */
		if (!one_list(sn) || slab_state(slab) != st) {
			list_unlink(sn, slab, st);
			list_link(s, sn, slab, false);
		}
		got += k;
	}
	sn->free_objects -= got;
	if (got)
		count_out(s, got);
	return got;
}

/*
 * Give objects back to their slabs of node @nid (list_lock held; SLAB's free_block()).
 * Slabs beyond the node's free_limit go onto @victims, to be discarded after the lock.
 */
static void free_block(struct slablab_cache *s, int nid, void **p, unsigned int nr,
		       struct list_head *victims)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	struct slablab_slab *slab;
	enum slab_state st;
	unsigned int i;

	lockdep_assert_held(node_lock(s, nid));
	for (i = 0; i < nr; i++) {
		slab = obj_to_slab(p[i]);
		if (WARN_ON_ONCE(slab_nid(slab) != nid))
			continue;	/* never: arrays hold only their node's objects */
		st = slab_state(slab);
		slab_put(s, slab, p[i]);
		if (one_list(sn)) {
			/* 2.4.9 moves a slab only when its state changes */
			if (slab_state(slab) == st)
				continue;
		} else if (st == SLAB_PARTIAL && slab_inuse(slab)) {
			/*
			 * Partial before and after: 6.1's free_block() moves each slab
			 * an object is freed to onto the tail of the partial list; this
			 * one's counts and flag stay as they are, so the move is all there
			 * is to do (a list_unlink() and list_link() pair cost twice the
			 * instructions, seed-001 in experiments.md).
			 */
			list_move_tail(&slab->node_list, &sn->partial);
			continue;
		}
		list_unlink(sn, slab, st);
		list_link(s, sn, slab, true);
	}
	sn->free_objects += nr;
	atomic_long_sub(nr, &s->slab_design_state.active);
	while (sn->free_objects > sn->free_limit) {
		slab = last_free_slab(s, sn);
		if (!slab)
			break;
		unlink_free_slab(s, nid, slab, victims);
	}
}

/* Free up to @tofree free slabs of a node; returns how many. */
static unsigned long drain_freelist(struct slablab_cache *s, int nid, unsigned long tofree)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	struct slablab_slab *slab;
	unsigned long flags, n;
	LIST_HEAD(victims);

	spin_lock_irqsave(node_lock(s, nid), flags);
	for (n = 0; n < tofree; n++) {
		slab = last_free_slab(s, sn);
		if (!slab)
			break;
		unlink_free_slab(s, nid, slab, &victims);
	}
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	return discard_victims(s, &victims);
}

/*
 * SLAB's gfp_exact_node(): the gfp of a grow for one node's lists (a refill's, a node
 * request's) — from that node only, without reclaim and without a warning, since the
 * caller goes on to fallback_alloc(), which may reclaim, when it fails. Without NUMA
 * only __GFP_NOFAIL goes.
 */
static gfp_t gfp_exact_node(gfp_t gfp)
{
#ifdef CONFIG_NUMA
	return (gfp | __GFP_THISNODE | __GFP_NOWARN) & ~(__GFP_RECLAIM | __GFP_NOFAIL);
#else
	return gfp & ~__GFP_NOFAIL;
#endif
}

/*
 * SLAB's cache_grow_begin(): a new slab of node @node (NUMA_NO_NODE: the local one),
 * frozen, its objects on the private *@freelist, or NULL. Nobody else takes from it
 * until grow_end(): the caller may take objects off *@freelist first. Its pages come
 * as kmem_getpages() takes them: at the cache's order with @gfp, once; SLAB has no
 * order fallback (6.1 mm/slab.c:1363).
 */
static struct slablab_slab *grow_begin(struct slablab_cache *s, gfp_t gfp, int node,
				       void **freelist)
{
	struct slablab_slab *slab = slablab_new_slab_one_order(s, gfp, node, freelist);

	if (slab)
		stat(s, SLABLAB_ALLOC_SLAB);
	return slab;
}

/* Take up to @want objects off a grown slab's private freelist into @p (alloc_block()). */
static unsigned int grow_take(struct slablab_cache *s, void **freelist, void **p,
			      unsigned int want)
{
	unsigned int k;
	void *obj;

	for (k = 0, obj = *freelist; obj && k < want; obj = get_fp(s, obj))
		p[k++] = obj;
	*freelist = obj;
	return k;
}

/*
 * SLAB's cache_grow_end(): a slab from grow_begin(), @taken of its objects taken off
 * @freelist (into an array or to a caller: counted out here), joins its node: the rest
 * of the freelist handed to it, unfrozen, onto the list of its state. A slab none was
 * taken from goes to the tail of the free slabs (6.1's list_add_tail() there, where
 * free_block() puts a slab that became free at the head): allocations take the older
 * free slabs first, and drain_freelist() (which takes slabs_free.prev) this one.
 */
static void grow_end(struct slablab_cache *s, struct slablab_slab *slab, void *freelist,
		     unsigned int taken)
{
	int nid = slab_nid(slab);
	struct slablab_slab_node *sn = get_node(s, nid);
	union slablab_pair old, new;
	struct slablab_counters c;
	unsigned long flags;

	spin_lock_irqsave(node_lock(s, nid), flags);
	/* From now on a node slab: its free objects may be taken by anyone. */
	do {
		old = read_pair(&slab->fc);
		c.word = old.word;
		c.inuse = taken;
		c.frozen = 0;
		new.freelist = freelist;
		new.word = c.word;
	} while (!pair_cmpxchg(&slab->fc, old, new));
	sn->free_objects += c.objects - taken;
	list_link(s, sn, slab, false);
	if (!taken && !one_list(sn))
		list_move_tail(&slab->node_list, &sn->free);
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	stat(s, SLABLAB_GROWN);
	if (taken)
		count_out(s, taken);
}

/* ---- array caches ---- */

static struct slablab_array *array_new(int node, unsigned int limit, unsigned int batch)
{
	struct slablab_array *ac;

	/* a shared array may be 64 x 4096 pointers: 2 MiB, too much to ask of kmalloc */
	ac = kvzalloc_node(struct_size(ac, entry, limit), GFP_KERNEL, node);
	if (!ac)
		return NULL;
	/* It holds pointers to free objects: no references for kmemleak (as SLAB). */
	kmemleak_no_scan(ac);
	ac->limit = limit;
	ac->batchcount = batch;
	return ac;
}

/* Move up to @max of the newest objects of @from to @to (SLAB's transfer_objects()). */
static unsigned int transfer(struct slablab_array *to, struct slablab_array *from,
			     unsigned int max)
{
	unsigned int nr = min3(from->avail, max, to->limit - to->avail);

	if (!nr)
		return 0;
	memcpy(to->entry + to->avail, from->entry + from->avail - nr, nr * sizeof(void *));
	from->avail -= nr;
	to->avail += nr;
	return nr;
}

/* Give the @nr oldest objects of an array back to node @nid's slabs (list_lock held). */
static void array_give_back(struct slablab_cache *s, int nid, struct slablab_array *ac,
			    unsigned int nr, struct list_head *victims)
{
	free_block(s, nid, ac->entry, nr, victims);
	ac->avail -= nr;
	memmove(ac->entry, ac->entry + nr, ac->avail * sizeof(void *));
}

/* SLAB's drain_array_locked(): all, or (limit + 4) / 5 (half of what is left, if less). */
static unsigned int drain_array_locked(struct slablab_cache *s, int nid,
				       struct slablab_array *ac, bool all,
				       struct list_head *victims)
{
	unsigned int tofree;

	if (!ac || !ac->avail)
		return 0;
	tofree = all ? ac->avail : (ac->limit + 4) / 5;
	if (tofree > ac->avail)
		tofree = (ac->avail + 1) / 2;
	array_give_back(s, nid, ac, tofree, victims);
	return tofree;
}

/* Whether node @nid has objects for a refill: a racy peek, as SLAB's. */
static bool node_has_objects(struct slablab_cache *s, struct slablab_slab_node *sn)
{
	struct slablab_array *shared;
	bool has;

	if (READ_ONCE(sn->free_objects))
		return true;
	rcu_read_lock();	/* a retune frees shared arrays after a grace period */
	shared = READ_ONCE(sn->shared);
	has = shared && READ_ONCE(shared->avail);
	rcu_read_unlock();
	return has;
}

/*
 * The cpu's array is empty: refill it (SLAB's cache_alloc_refill()) from the shared
 * array, else the node's slabs, else a new slab of this node, grown with
 * gfp_exact_node() — which cannot reclaim (with NUMA), so with the cpu's lock held, as
 * 6.1 grows with interrupts off — whose first batch goes straight into the array
 * (alloc_block()) before grow_end() puts the slab on its list. A grow that may sleep
 * (only without NUMA) gives up the cpu's lock (*@flags its saved state) meanwhile, and
 * the array is looked at again. Returns an object, or NULL: the caller goes on to the
 * node's slabs and fallback_alloc() (node_alloc()), as __do_cache_alloc() does.
 */
static void *refill(struct slablab_cache *s, gfp_t gfp, unsigned long *flags)
{
	struct slablab_array *ac = this_cpu_ptr(s->cpu)->ac, *shared;
	int nid = numa_mem_id();
	struct slablab_slab_node *sn = get_node(s, nid);
	unsigned int batch = ac->batchcount, taken;
	struct slablab_slab *slab;
	gfp_t exact;
	void *freelist;
	bool blocking;

	if (!ac->touched && batch > BATCHREFILL_LIMIT)
		batch = BATCHREFILL_LIMIT;	/* little recent use: a partial refill */
	if (node_has_objects(s, sn)) {
		spin_lock(node_lock(s, nid));
		shared = sn->shared;
		if (shared && transfer(ac, shared, batch))
			shared->touched = 1;
		else
			ac->avail += take_from_lists(s, nid, ac->entry + ac->avail, batch);
		spin_unlock(node_lock(s, nid));
	}
	if (unlikely(!ac->avail)) {
		exact = gfp_exact_node(gfp);
		blocking = gfpflags_allow_blocking(exact);
		if (blocking)
			cpu_unlock(s, flags);
		slab = grow_begin(s, exact, nid, &freelist);
		if (blocking)
			cpu_lock(s, flags);
		/* the array may have changed (or be another cpu's) if the lock was given up */
		ac = this_cpu_ptr(s->cpu)->ac;
		if (slab) {
			taken = 0;
			/*
			 * The array holds its node's objects only, and a retune may have
			 * replaced it by a smaller one meanwhile (6.1's alloc_block() would
			 * fill the new one with the old batchcount).
			 */
			if (!ac->avail && slab_nid(slab) == numa_mem_id()) {
				taken = grow_take(s, &freelist, ac->entry,
						  min(batch, ac->batchcount));
				ac->avail = taken;
			}
			grow_end(s, slab, freelist, taken);
		}
		if (!ac->avail)
			return NULL;
	}
	ac->touched = 1;
	return ac->entry[--ac->avail];
}

/* ---- allocation ---- */

/*
 * One object of node @nid (SLAB's ____cache_alloc_node() but its fallback): from the
 * node's slabs (nodeallocs), else from a new slab of the node grown with
 * gfp_exact_node(), straight to the caller (6.1 counts no nodealloc there). NULL when
 * neither can be had. No lock held.
 */
static void *node_alloc_exact(struct slablab_cache *s, gfp_t gfp, int nid)
{
	struct slablab_slab *slab;
	unsigned long flags;
	unsigned int got;
	void *obj = NULL, *freelist;

	spin_lock_irqsave(node_lock(s, nid), flags);
	got = take_from_lists(s, nid, &obj, 1);
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	if (got) {
		stat(s, SLABLAB_NODEALLOCS);
		return obj;
	}
	slab = grow_begin(s, gfp_exact_node(gfp), nid, &freelist);
	if (!slab)
		return NULL;
	grow_end(s, slab, freelist, grow_take(s, &freelist, &obj, 1));
	return obj;
}

/*
 * SLAB's fallback_alloc(): no object of the node that was asked for, and none from a
 * slab grown there without reclaim. Unless the request is for that node only
 * (__GFP_THISNODE), another node's slabs, then a slab grown with the caller's own gfp
 * (it may reclaim, the page allocator may take it from any node), onto its node's
 * lists, and the object from there. 6.1 walks the zonelist of the mempolicy's node
 * (nearest first) within the cpuset; this walks the nodes with memory in their order.
 */
static void *fallback_alloc(struct slablab_cache *s, gfp_t gfp)
{
	struct slablab_slab *slab;
	int nid;
	void *obj, *freelist;

	if (gfp & __GFP_THISNODE)
		return NULL;
	for (;;) {
		for_each_node_state(nid, N_NORMAL_MEMORY) {
			if (READ_ONCE(get_node(s, nid)->free_objects)) {
				obj = node_alloc_exact(s, gfp, nid);
				if (obj)
					return obj;
			}
		}
		slab = grow_begin(s, gfp, numa_mem_id(), &freelist);
		if (!slab)
			return NULL;
		nid = slab_nid(slab);
		grow_end(s, slab, freelist, 0);
		obj = node_alloc_exact(s, gfp, nid);
		if (obj)
			return obj;
		/* others took the new slab's objects meanwhile: look again, as 6.1 */
	}
}

/*
 * SLAB's ____cache_alloc_node(): node @nid's slabs, a slab grown there without reclaim,
 * else fallback_alloc(). For a request for another node, and for this node when the
 * array could not be refilled (__do_cache_alloc()). No lock held. Without NUMA, 6.1's
 * __do_cache_alloc() is ____cache_alloc() alone: a failed refill fails the allocation.
 */
static void *node_alloc(struct slablab_cache *s, gfp_t gfp, int nid)
{
	if (!IS_ENABLED(CONFIG_NUMA))
		return NULL;
	return node_alloc_exact(s, gfp, nid) ?: fallback_alloc(s, gfp);
}

/*
 * One object from this cpu's array (SLAB's ____cache_alloc()), refilled when empty;
 * the cpu's lock held. NULL: the refill found nothing and could not grow this node.
 */
static __always_inline void *array_alloc(struct slablab_cache *s, gfp_t gfp,
					 unsigned long *flags)
{
	struct slablab_array *ac = this_cpu_ptr(s->cpu)->ac;
	void *obj;
	u64 t0;

	if (likely(ac->avail)) {
		ac->touched = 1;
		stat(s, SLABLAB_ALLOCHIT);
		stat(s, SLABLAB_ALLOC_FASTPATH);
		return ac->entry[--ac->avail];
	}
	stat(s, SLABLAB_ALLOCMISS);
	t0 = slablab_slow_start();
	obj = refill(s, gfp, flags);
	if (obj)
		stat(s, SLABLAB_ALLOC_SLOWPATH);
	slablab_slow_end(s, obj, NUMA_NO_NODE, t0);
	return obj;
}

static void *slab_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	unsigned long flags;
	int nid = NUMA_NO_NODE;
	void *obj;

	/* A node without normal memory never has slabs of its own (see design_slub.c). */
	if (unlikely(node != NUMA_NO_NODE)) {
		if (!node_state(node, N_NORMAL_MEMORY))
			node = NUMA_NO_NODE;
		else if (node != numa_mem_id())
			nid = node;
	}
	if (likely(nid == NUMA_NO_NODE)) {
		cpu_lock(s, &flags);
		obj = array_alloc(s, gfp, &flags);
		if (unlikely(!obj))
			nid = numa_mem_id();	/* the node it could not refill from */
		cpu_unlock(s, &flags);
		if (likely(obj))
			return alloc_hook(s, obj, gfp);
	}
	obj = node_alloc(s, gfp, nid);
	if (!obj)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLOWPATH);
	return alloc_hook(s, obj, gfp);
}

/* ---- free ---- */

/*
 * Drain an alien cache to the node its objects belong to: that node's shared array
 * first, its slabs for the rest (SLAB's __drain_alien_cache()). The alien's lock held.
 */
static void drain_alien(struct slablab_cache *s, struct slablab_array *ac, int nid,
			struct list_head *victims)
{
	struct slablab_slab_node *sn = get_node(s, nid);

	if (!ac->avail)
		return;
	spin_lock(node_lock(s, nid));
	if (sn->shared)
		transfer(sn->shared, ac, ac->limit);
	free_block(s, nid, ac->entry, ac->avail, victims);
	ac->avail = 0;
	spin_unlock(node_lock(s, nid));
}

/*
 * Free an object of node @nid from a cpu of another node (SLAB's __cache_free_alien()),
 * the cpu's lock held (so this cpu's node stays); slabs to discard go onto @victims.
 */
static void free_alien(struct slablab_cache *s, void *obj, int nid, struct list_head *victims)
{
	struct slablab_slab_node *sn = get_node(s, numa_mem_id());
	struct slablab_alien *alien = sn->alien ? sn->alien[nid] : NULL;

	stat(s, SLABLAB_REMOTEFREES);
	stat(s, SLABLAB_FREE_SLOWPATH);
	if (alien) {
		spin_lock(&alien->lock);
		if (unlikely(alien->ac.avail == alien->ac.limit)) {
			stat(s, SLABLAB_ALIENOVERFLOW);
			drain_alien(s, &alien->ac, nid, victims);
		}
		alien->ac.entry[alien->ac.avail++] = obj;
		spin_unlock(&alien->lock);
	} else {
		spin_lock(node_lock(s, nid));
		free_block(s, nid, &obj, 1, victims);
		spin_unlock(node_lock(s, nid));
	}
}

/*
 * The cpu's array is full: its batchcount oldest objects go to the shared array (as
 * many as fit) or else back to their slabs (SLAB's cache_flusharray()). Cpu lock held.
 */
static void flusharray(struct slablab_cache *s, struct slablab_array *ac,
		       struct list_head *victims)
{
	int nid = numa_mem_id();
	struct slablab_slab_node *sn = get_node(s, nid);
	unsigned int batch = min(ac->batchcount, ac->avail);
	struct slablab_array *shared;

	trace_slablab_drain(s, "cache_flusharray", batch);
	spin_lock(node_lock(s, nid));
	shared = sn->shared;
	if (shared && shared->limit > shared->avail) {
		batch = min(batch, shared->limit - shared->avail);
		memcpy(shared->entry + shared->avail, ac->entry, batch * sizeof(void *));
		shared->avail += batch;
		ac->avail -= batch;
		memmove(ac->entry, ac->entry + batch, ac->avail * sizeof(void *));
	} else {
		array_give_back(s, nid, ac, batch, victims);
	}
	raise_mark(s, &s->slab_design_state.maxfreeable, sn->nr_free, SLABLAB_MAXFREEABLE);
	spin_unlock(node_lock(s, nid));
}

/*
 * Free one object that passed free_hook() (SLAB's ___cache_free()), the cpu's lock held;
 * slabs to discard go onto @victims, for after the lock.
 */
static __always_inline void array_free(struct slablab_cache *s, struct slablab_slab *slab,
				       void *obj, struct list_head *victims)
{
	int nid = slab_nid(slab);
	struct slablab_array *ac;

	if (unlikely(nid != numa_mem_id())) {
		free_alien(s, obj, nid, victims);
		return;
	}
	ac = this_cpu_ptr(s->cpu)->ac;
	if (likely(ac->avail < ac->limit)) {
		stat(s, SLABLAB_FREEHIT);
		stat(s, SLABLAB_FREE_FASTPATH);
	} else {
		stat(s, SLABLAB_FREEMISS);
		stat(s, SLABLAB_FREE_SLOWPATH);
		flusharray(s, ac, victims);
	}
	ac->entry[ac->avail++] = obj;
}

static void slab_free_obj(struct slablab_cache *s, struct slablab_slab *slab, void *obj)
{
	unsigned long flags;
	LIST_HEAD(victims);

	cpu_lock(s, &flags);
	array_free(s, slab, obj, &victims);
	cpu_unlock(s, &flags);
	discard_victims(s, &victims);
}

/* The free op: a detached list of @cnt objects of @slab, debug checks done. */
static void slab_free(struct slablab_cache *s, struct slablab_slab *slab, void *head,
		      void *tail, unsigned int cnt)
{
	free_list_each(s, slab, head, cnt, slab_free_obj);
}

/*
 * SLAB's kmem_cache_free_bulk(): interrupts off once around the batch, each object's
 * hooks and ___cache_free() inside. Here the cpu's lock, once per SLAB_BULK_HOLD
 * entries (see there); the slabs given back are discarded after each hold.
 */
static void slab_free_bulk(struct slablab_cache *s, size_t nr, void **p)
{
	struct slablab_slab *slab;
	unsigned long flags;
	LIST_HEAD(victims);
	size_t i = 0, end;
	void *obj;

	while (i < nr) {
		end = min_t(size_t, nr, i + SLAB_BULK_HOLD);
		cpu_lock(s, &flags);
		for (; i < end; i++) {
			obj = p[i];
			if (!obj)
				continue;
			p[i] = NULL;
			slab = obj_to_slab(obj);
			if (free_hook(s, slab, obj))
				array_free(s, slab, obj, &victims);
		}
		cpu_unlock(s, &flags);
		discard_victims(s, &victims);
	}
}

/*
 * SLAB's kmem_cache_alloc_bulk(): interrupts off once around the batch of
 * __do_cache_alloc()s — array pops, refills and this node's grows inside — and the
 * hooks after, outside. Here the cpu's lock, once per SLAB_BULK_HOLD objects; it is
 * given up for ____cache_alloc_node() and fallback_alloc() when this node could not be
 * grown without reclaim (they touch no array, and fallback_alloc() may sleep), and by
 * refill() for a grow that may sleep. A failure frees what the batch got and returns
 * 0, as 6.1.
 */
static int slab_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p)
{
	unsigned long flags;
	size_t i = 0, j, end;
	void *obj;
	int nid;

	while (i < nr) {
		end = min_t(size_t, nr, i + SLAB_BULK_HOLD);
		cpu_lock(s, &flags);
		while (i < end && (obj = array_alloc(s, gfp, &flags)))
			p[i++] = obj;
		nid = numa_mem_id();
		cpu_unlock(s, &flags);
		if (i < end) {
			/* the array is empty and this node could not be grown */
			obj = node_alloc(s, gfp, nid);
			if (!obj)
				goto fail;
			stat(s, SLABLAB_ALLOC_SLOWPATH);
			p[i++] = obj;
		}
	}
	for (j = 0; j < nr; j++)
		alloc_hook(s, p[j], gfp);
	return nr;
fail:
	for (j = 0; j < i; j++)
		alloc_hook(s, p[j], gfp);
	slab_free_bulk(s, i, p);
	return 0;
}

static void *slab_alloc_op(struct slablab_cache *s, gfp_t gfp, int node)
{
	return slab_alloc(s, gfp, node);
}

/* ---- flushing ---- */

/* Give back every object of this cpu's array (SLAB's do_drain()); slablab_on_each_cpu(). */
static unsigned int drain_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slablab_array *ac;
	unsigned long flags;
	LIST_HEAD(victims);
	int nid;

	cpu_lock(s, &flags);
	ac = this_cpu_ptr(s->cpu)->ac;
	nid = numa_mem_id();
	spin_lock(node_lock(s, nid));
	drain_array_locked(s, nid, ac, true, &victims);
	spin_unlock(node_lock(s, nid));
	cpu_unlock(s, &flags);
	return discard_victims(s, &victims);
}

static bool cpu_has_objects(struct slablab_cache *s, int cpu, int mode)
{
	struct slablab_array *ac;
	bool has;

	if (mode != SLABLAB_FLUSH_ALL)
		return false;
	rcu_read_lock();
	ac = READ_ONCE(per_cpu_ptr(s->cpu, cpu)->ac);
	has = ac && READ_ONCE(ac->avail);
	rcu_read_unlock();
	return has;
}

/* Every node's alien caches, then its shared array, then (@all) its free slabs. */
static void drain_nodes(struct slablab_cache *s, bool free_slabs)
{
	unsigned long flags;
	int nid, i;

	for_each_node(nid) {
		struct slablab_slab_node *sn = get_node(s, nid);
		LIST_HEAD(victims);

		for (i = 0; sn->alien && i < nr_node_ids; i++) {
			struct slablab_alien *alien = sn->alien[i];

			if (!alien)
				continue;
			spin_lock_irqsave(&alien->lock, flags);
			drain_alien(s, &alien->ac, i, &victims);
			spin_unlock_irqrestore(&alien->lock, flags);
		}
		spin_lock_irqsave(node_lock(s, nid), flags);
		drain_array_locked(s, nid, sn->shared, true, &victims);
		spin_unlock_irqrestore(node_lock(s, nid), flags);
		discard_victims(s, &victims);
		if (free_slabs)
			drain_freelist(s, nid, ULONG_MAX);
	}
}

/*
 * The flush op. FLUSH_ALL (shrink, validate, destroy, a relayout or design change):
 * every cpu's array, every alien cache and shared array, and every free slab, as
 * SLAB's __kmem_cache_shrink(). This design's bounds change by retuning, which drains
 * what it replaces: nothing is over a bound for FLUSH_OVER_LIMIT.
 */
static unsigned long slab_flush(struct slablab_cache *s, enum slablab_flush_mode mode,
				bool every_cpu)
{
	unsigned long before = READ_ONCE(s->nr_slabs), after;

	if (mode != SLABLAB_FLUSH_ALL)
		return 0;
	slablab_on_each_cpu(s, drain_this_cpu, cpu_has_objects, mode, NULL, every_cpu);
	drain_nodes(s, true);
	after = READ_ONCE(s->nr_slabs);
	return before > after ? before - after : 0;
}

/* A dead cpu's array, to its node (no lock needed on it: the cpu is gone). */
static void slab_flush_dead_cpu(struct slablab_cache *s, int cpu)
{
	struct slablab_array *ac = per_cpu_ptr(s->cpu, cpu)->ac;
	int nid = cpu_to_mem(cpu);
	unsigned long flags;
	LIST_HEAD(victims);

	spin_lock_irqsave(node_lock(s, nid), flags);
	drain_array_locked(s, nid, ac, true, &victims);
	/* one cpu fewer on the node (SLAB's cpuup_canceled()) */
	get_node(s, nid)->free_limit = free_limit(s, nid);
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	discard_victims(s, &victims);
}

/* ---- reaping (SLAB's cache_reap()) ---- */

static unsigned long reap_delay(struct slablab_cache *s)
{
	unsigned int ms = READ_ONCE(s->reap_cpu_ms);

	if (!ms)
		ms = READ_ONCE(s->reap_node_ms);
	return ms ? msecs_to_jiffies(ms) : 0;
}

/* A node's periodic reap: its shared array, then some free slabs unless touched. */
static void reap_node(struct slablab_cache *s, int nid)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	unsigned int ms = READ_ONCE(s->reap_node_ms), num = objs_per_slab(s);
	unsigned long flags;
	LIST_HEAD(victims);

	if (!ms || time_before(jiffies, READ_ONCE(sn->next_reap)))
		return;
	spin_lock_irqsave(node_lock(s, nid), flags);
	sn->next_reap = jiffies + msecs_to_jiffies(ms);
	if (sn->shared && sn->shared->avail) {
		if (sn->shared->touched)
			sn->shared->touched = 0;
		else
			drain_array_locked(s, nid, sn->shared, false, &victims);
	}
	if (sn->free_touched) {
		sn->free_touched = false;
		num = 0;
	}
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	discard_victims(s, &victims);
	if (num)
		stat_add(s, SLABLAB_REAPED,
			 drain_freelist(s, nid, (sn->free_limit + 5 * num - 1) / (5 * num)));
}

/* One alien cache of this node per reap, round robin (SLAB's reap_alien()). */
static void reap_alien(struct slablab_cache *s, struct slablab_reaper *r, int nid)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	struct slablab_alien *alien;
	LIST_HEAD(victims);

	if (!sn->alien)
		return;
	r->alien_node = next_node_in(r->alien_node, node_online_map);
	alien = r->alien_node < nr_node_ids ? sn->alien[r->alien_node] : NULL;
	if (!alien || !READ_ONCE(alien->ac.avail) || !spin_trylock_irq(&alien->lock))
		return;
	drain_alien(s, &alien->ac, r->alien_node, &victims);
	spin_unlock_irq(&alien->lock);
	discard_victims(s, &victims);
}

/*
 * The reap of this cpu's array: untouched since the last one, it gives back
 * (limit + 4) / 5 objects; touched, it is only marked untouched.
 */
static void reap_array(struct slablab_cache *s)
{
	struct slablab_array *ac;
	unsigned long flags;
	LIST_HEAD(victims);
	int nid;

	cpu_lock(s, &flags);
	ac = this_cpu_ptr(s->cpu)->ac;
	if (ac->avail) {
		if (ac->touched) {
			ac->touched = 0;
		} else {
			nid = numa_mem_id();
			spin_lock(node_lock(s, nid));
			drain_array_locked(s, nid, ac, false, &victims);
			spin_unlock(node_lock(s, nid));
		}
	}
	cpu_unlock(s, &flags);
	discard_victims(s, &victims);
}

/*
 * The reap work of one cpu. It runs under slablab_mutex, taken with a trylock as SLAB's
 * cache_reap() takes slab_mutex: so no retune, flush or destroy runs meanwhile (and
 * whoever holds the mutex may cancel this work synchronously); when the mutex is busy
 * it tries again a little later.
 */
static void reap_work(struct work_struct *w)
{
	struct slablab_reaper *r = container_of(to_delayed_work(w), struct slablab_reaper,
						work);
	struct slablab_cache *s = r->s;
	unsigned long delay;

	/* Its cpu went down before the work was cancelled: cpu online starts it again. */
	if (raw_smp_processor_id() != r->cpu)
		return;
	if (!mutex_trylock(&slablab_mutex)) {
		queue_delayed_work_on(r->cpu, slablab_percpu_wq, &r->work, HZ / 10);
		return;
	}
	if (!s->dead && s->ops == &slablab_slab_design_ops) {
		int nid = numa_mem_id();

		if (READ_ONCE(s->reap_cpu_ms)) {
			reap_alien(s, r, nid);
			reap_array(s);
		}
		reap_node(s, nid);
		/*
		 * Queued again under the mutex: a period change (set_period(), which cancels
		 * or re-queues under it) comes wholly before this or wholly after.
		 */
		delay = reap_delay(s);
		if (delay)
			queue_delayed_work_on(r->cpu, slablab_percpu_wq, &r->work, delay);
	}
	mutex_unlock(&slablab_mutex);
}

/* Start (or restart, with the current period; or stop) the reap of @cpu. */
static void reaper_start(struct slablab_cache *s, int cpu)
{
	struct slablab_reaper *r = per_cpu_ptr(s->slab_design_state.reaper, cpu);
	unsigned long delay = reap_delay(s);

	if (delay)
		mod_delayed_work_on(cpu, slablab_percpu_wq, &r->work, delay);
	else
		cancel_delayed_work(&r->work);	/* both periods off */
}

static void reapers_start(struct slablab_cache *s)
{
	int cpu;

	for_each_online_cpu(cpu)
		reaper_start(s, cpu);
}

static void slab_cpu_online(struct slablab_cache *s, int cpu)
{
	int nid = cpu_to_mem(cpu);
	unsigned long flags;

	/* one cpu more on the node (SLAB's init_cache_node() on cpu up) */
	spin_lock_irqsave(node_lock(s, nid), flags);
	get_node(s, nid)->free_limit = free_limit(s, nid);
	spin_unlock_irqrestore(node_lock(s, nid), flags);
	reaper_start(s, cpu);
}

static void slab_cpu_offline(struct slablab_cache *s, int cpu)
{
	cancel_delayed_work_sync(&per_cpu_ptr(s->slab_design_state.reaper, cpu)->work);
}

/* ---- figures ---- */

static void slab_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
			  u32 *partial_slabs, u32 *partial_objects)
{
	struct slablab_array *ac;

	/* A retune frees replaced arrays after a grace period. */
	rcu_read_lock();
	ac = READ_ONCE(per_cpu_ptr(s->cpu, cpu)->ac);
	*slab_objs = ac ? READ_ONCE(ac->avail) : 0;
	rcu_read_unlock();
	*partial_slabs = 0;
	*partial_objects = 0;
}

/*
 * Called without slablab_mutex (debugfs reads), so possibly while a design change
 * destroys this design's state: the nodes are read under RCU, and none may be left.
 */
static void slab_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	struct slablab_slab_nodes *nodes;
	int nid;

	rcu_read_lock();
	nodes = READ_ONCE(s->slab_design_state.nodes);
	for_each_node(nid) {
		struct slablab_slab_node *sn = nodes ? nodes->node[nid] : NULL;

		if (!sn)
			continue;
		g->partial_slabs += READ_ONCE(sn->nr_partial);
		g->free_slabs += READ_ONCE(sn->nr_free);
	}
	rcu_read_unlock();
}

static unsigned int count_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	unsigned long flags;
	unsigned int n;

	cpu_lock(s, &flags);
	n = this_cpu_ptr(s->cpu)->ac->avail;
	cpu_unlock(s, &flags);
	atomic64_add(n, arg);
	return 0;
}

/* The racy count of the cpus' arrays, read from here as slab_cpu_view() does. */
static u64 arrays_racy(struct slablab_cache *s)
{
	struct slablab_array *ac;
	u64 n = 0;
	int cpu;

	/* A retune frees replaced arrays after a grace period. */
	rcu_read_lock();
	for_each_online_cpu(cpu) {
		ac = READ_ONCE(per_cpu_ptr(s->cpu, cpu)->ac);
		n += ac ? READ_ONCE(ac->avail) : 0;
	}
	rcu_read_unlock();
	return n;
}

/*
 * The layers op: arrays on each cpu under its lock (@exact: work on every cpu), else
 * racily from here (a reader without CAP_SYS_ADMIN); shared and alien under their
 * locks.
 */
static void slab_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact)
{
	atomic64_t arrays = ATOMIC64_INIT(0);
	unsigned long flags;
	int nid, i;

	if (exact)
		slablab_on_each_cpu(s, count_this_cpu, NULL, 0, &arrays, true);
	else
		atomic64_set(&arrays, arrays_racy(s));
	l->array = atomic64_read(&arrays);
	for_each_node(nid) {
		struct slablab_slab_node *sn = get_node(s, nid);

		spin_lock_irqsave(node_lock(s, nid), flags);
		l->shared += sn->shared ? sn->shared->avail : 0;
		spin_unlock_irqrestore(node_lock(s, nid), flags);
		for (i = 0; sn->alien && i < nr_node_ids; i++) {
			if (!sn->alien[i])
				continue;
			spin_lock_irqsave(&sn->alien[i]->lock, flags);
			l->alien += sn->alien[i]->ac.avail;
			spin_unlock_irqrestore(&sn->alien[i]->lock, flags);
		}
	}
	l->present |= BIT(SLABLAB_LAYERS_A_ARRAY) | BIT(SLABLAB_LAYERS_A_SHARED) |
		      BIT(SLABLAB_LAYERS_A_ALIEN);
}

static void verr(struct slablab_validate_report *r, const char *fmt, int nid, unsigned long a,
		 unsigned long b)
{
	char msg[120];

	snprintf(msg, sizeof(msg), fmt, nid, a, b);
	if (!r->errors++)
		strscpy(r->first_error, msg, sizeof(r->first_error));
	pr_err_ratelimited("validate: %s\n", msg);
}

/* One slab of node @nid's lists; @prev: the state of the one before it (lists=1). */
static void validate_one(struct slablab_cache *s, int nid, struct slablab_slab *slab,
			 int list, enum slab_state *prev, bool *nf_seen,
			 struct slablab_validate_report *r)
{
	struct slablab_slab_node *sn = get_node(s, nid);
	enum slab_state st = slab_state(slab);

	if (slab_nid(slab) != nid || !slab_on_partial(slab))
		verr(r, "node %d: slab of node %lu on its lists (flag %lu)", nid, slab_nid(slab),
		     slab_on_partial(slab));
	if (!one_list(sn)) {
		if (st != (enum slab_state)list)
			verr(r, "node %d: slab of state %lu on list %lu", nid, st, list);
		return;
	}
	if (st > *prev)
		verr(r, "node %d: one list out of order (%lu after %lu)", nid, st, *prev);
	if (&slab->node_list == sn->firstnotfull)
		*nf_seen = true;
	if (st != SLAB_FULL && !*nf_seen)
		verr(r, "node %d: state %lu before firstnotfull (%lu)", nid, st, 0);
	*prev = st;
}

/*
 * The validate op: every node's lists against their counts, each slab on the list of
 * its state (lists=3) or in 2.4.9's order around firstnotfull (lists=1), and the
 * node's free objects. The back end has walked every slab's freelist already.
 */
static void slab_validate(struct slablab_cache *s, struct slablab_validate_report *r)
{
	unsigned long flags, nr[3], free_objs;
	struct slablab_slab *slab;
	int nid, i;

	for_each_node(nid) {
		struct slablab_slab_node *sn = get_node(s, nid);
		struct list_head *lists[3] = { &sn->free, &sn->partial, &sn->full };
		enum slab_state prev = SLAB_FULL;
		bool nf_seen;

		memset(nr, 0, sizeof(nr));
		free_objs = 0;
		spin_lock_irqsave(node_lock(s, nid), flags);
		nf_seen = sn->firstnotfull == &sn->partial;
		for (i = 0; i < 3; i++) {
			list_for_each_entry(slab, lists[i], node_list) {
				nr[slab_state(slab)]++;
				free_objs += slab_objects(slab) - slab_inuse(slab);
				validate_one(s, nid, slab, i, &prev, &nf_seen, r);
			}
		}
		if (nr[SLAB_FREE] != sn->nr_free || nr[SLAB_PARTIAL] != sn->nr_partial ||
		    nr[SLAB_FULL] != sn->nr_full)
			verr(r, "node %d: %lu slabs on the lists, counts say %lu", nid,
			     nr[0] + nr[1] + nr[2], sn->nr_free + sn->nr_partial + sn->nr_full);
		if (free_objs != sn->free_objects)
			verr(r, "node %d: %lu free objects in slabs, free_objects %lu", nid,
			     free_objs, sn->free_objects);
		spin_unlock_irqrestore(node_lock(s, nid), flags);
	}
}

/* ---- set up and tear down ---- */

static struct slablab_array *shared_new(struct slablab_cache *s, int nid)
{
	if (!s->shared)
		return NULL;
	/* SLAB's batchcount of a shared array is 0xbaadf00d: never used */
	return array_new(nid, s->shared * s->batchcount, 0);
}

static void free_node(struct slablab_slab_node *sn)
{
	int i;

	if (!sn)
		return;
	if (sn->alien) {
		for (i = 0; i < nr_node_ids; i++)
			kfree(sn->alien[i]);
		kfree(sn->alien);
	}
	kvfree(sn->shared);
	kfree_rcu(sn, rcu);	/* the gauges may be reading its counts */
}

static void free_nodes(struct slablab_slab_nodes *nodes)
{
	int nid;

	for_each_node(nid)
		free_node(nodes->node[nid]);
	kfree_rcu(nodes, rcu);
}

/* After a flush of every cpu and node: only empty arrays are left. */
static void slab_destroy(struct slablab_cache *s)
{
	struct slablab_slab_design_state *st = &s->slab_design_state;
	struct slablab_slab_nodes *nodes;
	int cpu;

	if (st->reaper) {
		for_each_possible_cpu(cpu)
			cancel_delayed_work_sync(&per_cpu_ptr(st->reaper, cpu)->work);
		free_percpu(st->reaper);
		st->reaper = NULL;
	}
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
		struct slablab_array *ac = c->ac;

		/* unpublished before it is freed: cpu_view reads it under RCU */
		WRITE_ONCE(c->ac, NULL);
		kfree_rcu(ac, rcu);
	}
	nodes = st->nodes;
	if (!nodes)
		return;
	/* unpublished before it is freed: the gauges read the nodes under RCU */
	WRITE_ONCE(st->nodes, NULL);
	free_nodes(nodes);
}

static struct slablab_slab_node *node_new(struct slablab_cache *s, int nid)
{
	int node = node_state(nid, N_NORMAL_MEMORY) ? nid : NUMA_NO_NODE;
	struct slablab_slab_node *sn;
	int i;

	sn = kzalloc_node(sizeof(*sn), GFP_KERNEL, node);
	if (!sn)
		return NULL;
	INIT_LIST_HEAD(&sn->full);
	INIT_LIST_HEAD(&sn->partial);
	INIT_LIST_HEAD(&sn->free);
	sn->lists = s->lists;
	sn->firstnotfull = &sn->partial;
	sn->free_limit = free_limit(s, nid);
	sn->next_reap = jiffies + msecs_to_jiffies(s->reap_node_ms) + nid;
	sn->shared = shared_new(s, node);
	if (s->shared && !sn->shared)
		goto fail;
	if (nr_node_ids > 1) {
		sn->alien = kcalloc_node(nr_node_ids, sizeof(*sn->alien), GFP_KERNEL, node);
		if (!sn->alien)
			goto fail;
		for_each_node(i) {
			struct slablab_alien *alien;

			if (i == nid)
				continue;
			alien = kzalloc_node(struct_size(alien, ac.entry, ALIEN_LIMIT),
					     GFP_KERNEL, node);
			if (!alien)
				goto fail;
			kmemleak_no_scan(alien);
			spin_lock_init(&alien->lock);
			alien->ac.limit = ALIEN_LIMIT;
			alien->ac.batchcount = ALIEN_LIMIT;
			sn->alien[i] = alien;
		}
	}
	return sn;
fail:
	free_node(sn);
	return NULL;
}

static int slab_init(struct slablab_cache *s)
{
	struct slablab_slab_nodes *nodes;
	struct slablab_cpu *c;
	int cpu, nid;

	if (s->lists != 1 && s->lists != 3)
		s->lists = 3;	/* slob's 2 has no meaning here */
	s->slab_design_state.reaper = alloc_percpu(struct slablab_reaper);
	if (!s->slab_design_state.reaper)
		return -ENOMEM;
	/* Every work item set up before anything can fail: slab_destroy() cancels them all. */
	for_each_possible_cpu(cpu) {
		struct slablab_reaper *r = per_cpu_ptr(s->slab_design_state.reaper, cpu);

		r->s = s;
		r->cpu = cpu;
		r->alien_node = cpu_to_mem(cpu);
		INIT_DELAYED_WORK(&r->work, reap_work);
	}
	atomic_long_set(&s->slab_design_state.active, 0);
	nodes = kzalloc(struct_size(nodes, node, nr_node_ids), GFP_KERNEL);
	if (!nodes)
		goto fail;
	for_each_node(nid) {
		nodes->node[nid] = node_new(s, nid);
		if (!nodes->node[nid]) {
			free_nodes(nodes);
			goto fail;
		}
	}
	/* published whole: the gauges read it without a lock */
	smp_store_release(&s->slab_design_state.nodes, nodes);
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(s->cpu, cpu);
		c->ac = array_new(cpu_to_mem(cpu), s->limit, s->batchcount);
		if (!c->ac)
			goto fail;
	}
	reapers_start(s);
	return 0;
fail:
	slab_destroy(s);
	return -ENOMEM;
}

static void slab_relayout(struct slablab_cache *s)
{
	int nid;

	/* objects per slab enter free_limit */
	for_each_node(nid)
		WRITE_ONCE(get_node(s, nid)->free_limit, free_limit(s, nid));
}

/* ---- tunables ---- */

/* slablab_on_each_cpu()'s work: swap in this cpu's new array, drain the old one. */
static unsigned int swap_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slablab_array **arrays = arg, *old;
	unsigned long flags;
	LIST_HEAD(victims);
	int cpu, nid;

	cpu_lock(s, &flags);
	cpu = smp_processor_id();
	old = this_cpu_ptr(s->cpu)->ac;
	WRITE_ONCE(this_cpu_ptr(s->cpu)->ac, arrays[cpu]);
	arrays[cpu] = old;
	nid = numa_mem_id();
	spin_lock(node_lock(s, nid));
	drain_array_locked(s, nid, old, true, &victims);
	spin_unlock(node_lock(s, nid));
	cpu_unlock(s, &flags);
	return discard_victims(s, &victims);
}

/*
 * SLAB's do_tune_cpucache(): new arrays of the cache's limit and batchcount on every
 * cpu (the old ones drained to their slabs), new shared arrays, new free limits.
 */
static int retune(struct slablab_cache *s)
{
	struct slablab_array **arrays, **shared;
	unsigned long flags;
	LIST_HEAD(victims);
	int cpu, nid, err = -ENOMEM;

	lockdep_assert_held(&slablab_mutex);
	arrays = kcalloc(nr_cpu_ids, sizeof(*arrays), GFP_KERNEL);
	shared = kcalloc(nr_node_ids, sizeof(*shared), GFP_KERNEL);
	if (!arrays || !shared)
		goto out;
	/* Everything allocated before anything changes: a refusal leaves all as it was. */
	for_each_possible_cpu(cpu) {
		arrays[cpu] = array_new(cpu_to_mem(cpu), s->limit, s->batchcount);
		if (!arrays[cpu])
			goto out;
	}
	for_each_node(nid) {
		shared[nid] = shared_new(s, nid);
		if (s->shared && !shared[nid])
			goto out;
	}
	slablab_on_each_cpu(s, swap_this_cpu, NULL, 0, arrays, true);
	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
		struct slablab_array *old;

		if (cpu_online(cpu))
			continue;
		/* Offline: drained when it died, and it cannot come up under cpus_read_lock. */
		old = c->ac;
		WRITE_ONCE(c->ac, arrays[cpu]);
		arrays[cpu] = old;
	}
	for_each_node(nid) {
		struct slablab_slab_node *sn = get_node(s, nid);
		struct slablab_array *old;

		spin_lock_irqsave(node_lock(s, nid), flags);
		old = sn->shared;
		drain_array_locked(s, nid, old, true, &victims);
		WRITE_ONCE(sn->shared, shared[nid]);
		shared[nid] = old;
		sn->free_limit = free_limit(s, nid);
		spin_unlock_irqrestore(node_lock(s, nid), flags);
		discard_victims(s, &victims);
	}
	err = 0;
out:
	/* the replaced arrays, or on failure the new ones (never published) */
	for (cpu = 0; arrays && cpu < nr_cpu_ids; cpu++)
		kfree_rcu(arrays[cpu], rcu);
	for (nid = 0; shared && nid < nr_node_ids; nid++)
		kfree_rcu(shared[nid], rcu);	/* node_has_objects() peeks under RCU */
	kfree(shared);
	kfree(arrays);
	return err;
}

static bool is_slab(struct slablab_cache *s)
{
	return s->ops == &slablab_slab_design_ops;
}

/* SLAB's rules for the triple, as its slabinfo write judged them. */
static int check_cpucache(unsigned int limit, unsigned int batchcount, unsigned int shared,
			  struct netlink_ext_ack *extack)
{
	if (limit < 1 || batchcount < 1 || batchcount > limit) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "need limit >= 1, 1 <= batchcount <= limit (got %u, %u)",
				       limit, batchcount);
		return -EINVAL;
	}
	if (limit > SLABLAB_MAX_SLAB_LIMIT || shared > SLABLAB_MAX_SLAB_SHARED) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "limit %u, shared %u: at most %u and %u", limit,
				       shared, SLABLAB_MAX_SLAB_LIMIT, SLABLAB_MAX_SLAB_SHARED);
		return -ERANGE;
	}
	return 0;
}

/**
 * slablab_slab_design_check_tunables - judge the slab design's tunables of one request
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @limit: the new limit, or NULL
 * @batchcount: the new batchcount, or NULL
 * @shared: the new shared factor, or NULL
 * @extack: where a refusal is told
 *
 * Before anything of the request is applied (netlink's check_tunables()).
 *
 * Return: 0, -EINVAL, or -ERANGE.
 */
int slablab_slab_design_check_tunables(struct slablab_cache *s, const u32 *limit,
				       const u32 *batchcount, const u32 *shared,
				       struct netlink_ext_ack *extack)
{
	if (!limit && !batchcount && !shared)
		return 0;
	return check_cpucache(limit ? *limit : s->limit, batchcount ? *batchcount : s->batchcount,
			      shared ? *shared : s->shared, extack);
}

/**
 * slablab_set_cpucache - limit, batchcount and shared together (SLAB's slabinfo write)
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @limit: objects per cpu array, >= 1
 * @batchcount: objects moved at once, 1..@limit
 * @shared: the shared arrays hold @shared x @batchcount objects
 * @extack: where a refusal is told
 *
 * On a slab cache the arrays are replaced at once (do_tune_cpucache()); another
 * design keeps the values for when it changes to slab.
 *
 * Return: 0, -EINVAL (SLAB's rules), -ERANGE, or -ENOMEM (nothing changed).
 */
int slablab_set_cpucache(struct slablab_cache *s, unsigned int limit, unsigned int batchcount,
			 unsigned int shared, struct netlink_ext_ack *extack)
{
	unsigned int old[3] = { s->limit, s->batchcount, s->shared };
	int err = check_cpucache(limit, batchcount, shared, extack);

	if (err)
		return err;
	if (limit == old[0] && batchcount == old[1] && shared == old[2])
		return 0;
	WRITE_ONCE(s->limit, limit);
	WRITE_ONCE(s->batchcount, batchcount);
	WRITE_ONCE(s->shared, shared);
	if (!is_slab(s))
		return 0;
	err = retune(s);
	if (err) {
		s->limit = old[0];
		s->batchcount = old[1];
		s->shared = old[2];
		NL_SET_ERR_MSG_MOD(extack, "no memory for the new array caches");
	}
	return err;
}

int slablab_set_limit(struct slablab_cache *s, unsigned int objects,
		      struct netlink_ext_ack *extack)
{
	return slablab_set_cpucache(s, objects, s->batchcount, s->shared, extack);
}

int slablab_set_batchcount(struct slablab_cache *s, unsigned int objects,
			   struct netlink_ext_ack *extack)
{
	return slablab_set_cpucache(s, s->limit, objects, s->shared, extack);
}

int slablab_set_shared(struct slablab_cache *s, unsigned int factor,
		       struct netlink_ext_ack *extack)
{
	return slablab_set_cpucache(s, s->limit, s->batchcount, factor, extack);
}

/* A period's change takes effect at once: every cpu's reap is queued anew. */
static int set_period(struct slablab_cache *s, unsigned int *field, unsigned int ms)
{
	if (ms > SLABLAB_MAX_REAP_MS)
		return -ERANGE;
	WRITE_ONCE(*field, ms);
	if (is_slab(s))
		reapers_start(s);
	return 0;
}

int slablab_set_reap_cpu_ms(struct slablab_cache *s, unsigned int ms,
			    struct netlink_ext_ack *extack)
{
	return set_period(s, &s->reap_cpu_ms, ms);
}

int slablab_set_reap_node_ms(struct slablab_cache *s, unsigned int ms,
			     struct netlink_ext_ack *extack)
{
	int nid, err = set_period(s, &s->reap_node_ms, ms);

	if (!err && is_slab(s))
		for_each_node(nid)
			WRITE_ONCE(get_node(s, nid)->next_reap, jiffies + msecs_to_jiffies(ms));
	return err;
}

/**
 * slablab_slab_design_set_lists - one slab list (2.4.9) or three, on a slab cache
 * @s: the cache (cpus_read_lock and slablab_mutex held)
 * @lists: 1 or 3
 * @extack: where a refusal is told
 *
 * Every node's slabs are put on the lists of the new scheme at once, under its lock.
 *
 * Return: 0 or -EINVAL.
 */
int slablab_slab_design_set_lists(struct slablab_cache *s, unsigned int lists,
				  struct netlink_ext_ack *extack)
{
	unsigned long flags;
	int nid;

	if (lists != 1 && lists != 3) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "the slab design keeps 1 or 3 slab lists, not %u",
				       lists);
		return -EINVAL;
	}
	for_each_node(nid) {
		struct slablab_slab_node *sn = get_node(s, nid);
		struct slablab_slab *slab, *tmp;
		LIST_HEAD(all);

		spin_lock_irqsave(node_lock(s, nid), flags);
		list_splice_init(&sn->full, &all);
		list_splice_init(&sn->partial, &all);
		list_splice_init(&sn->free, &all);
		sn->firstnotfull = &sn->partial;
		sn->nr_full = 0;
		sn->nr_partial = 0;
		sn->nr_free = 0;
		sn->lists = lists;
		list_for_each_entry_safe(slab, tmp, &all, node_list) {
			list_del(&slab->node_list);
			list_link(s, sn, slab, false);
		}
		spin_unlock_irqrestore(node_lock(s, nid), flags);
	}
	WRITE_ONCE(s->lists, lists);
	return 0;
}

const struct slablab_design_ops slablab_slab_design_ops = {
	.name = "slab",
	.init = slab_init,
	.destroy = slab_destroy,
	.alloc = slab_alloc_op,
	.free = slab_free,
	.alloc_bulk = slab_alloc_bulk,
	.free_bulk = slab_free_bulk,
	.flush = slab_flush,
	.flush_dead_cpu = slab_flush_dead_cpu,
	.relayout = slab_relayout,
	.gauges = slab_gauges,
	.cpu_view = slab_cpu_view,
	.layers = slab_layers,
	.validate = slab_validate,
	.cpu_online = slab_cpu_online,
	.cpu_offline = slab_cpu_offline,
};
