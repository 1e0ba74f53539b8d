// SPDX-License-Identifier: GPL-2.0
/*
 * The slub design: SLUB's per-cpu front end as it stood in 6.1 (before sheaves), over
 * the shared back end (backend.c). Its fast paths are inline in design_slub.h; here
 * are its slow paths, cpu slab deactivation, the cpu partial lists, bulk allocation
 * and free, the flushes and its ops table.
 *
 * Per-cpu state (struct slablab_cpu)
 *   - cpu slab:     frozen, c->slab of one cpu; its free objects are split between the
 *                   lockless per-cpu freelist (c->ft.freelist) and slab->fc.freelist
 *                   (where remote frees land);
 *   - cpu partial:  frozen, on one cpu's c->partial list (put there by a free that
 *                   turned a full slab partial, or taken from the node list with a
 *                   new cpu slab), about cpu_partial_slabs of them: as in 6.1, a free
 *                   moves a list at the bound to the node lists and keeps its own
 *                   slab, so a bound of 0 still keeps one (put_cpu_partial()). Only
 *                   debug caches have none (has_cpu_partial()).
 *   A slab leaves c->slab before anything may unfreeze it (see
 *   alloc_slow()), so that what c->slab points to is never freed.
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
 * Debug caches (SLABLAB_CACHE_F_DEBUG, 6.1's kmem_cache_debug()) have no per-cpu state:
 *   no cpu slab, no cpu partial list. Each allocation takes one object off a node
 *   partial slab or a new slab, each free goes to its slab, under the node's list_lock
 *   (debug_alloc(), free_to_partial_list()); the fast paths always miss.
 *
 * Locks (backend.c's order; this file takes no other)
 *   slablab_mutex                      held by every flush (the work items are shared),
 *                                      by the tunable change and by the fastpath_race
 *                                      and install_race test hooks (under
 *                                      cpus_read_lock, as a change)
 *   s->cpu->lock (local_lock)          a cpu's slow path against its fast path: c->slab,
 *                                      c->ft, c->partial, c->partial_slabs change only
 *                                      under it, on the cpu (or for a dead cpu)
 *   s->slabs_lock                      held around a read of another cpu's c->slab
 *                                      (slablab_slub_cpu_view()): discard needs it
 *   n->list_lock, slab->fc             as in backend.c; a debug cache's allocations
 *                                      and frees each hold the list_lock of the slab's
 *                                      node around their change of slab->fc
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/cpu.h>
#include <linux/nodemask.h>
#include <linux/sched/mm.h>
#include "design_slub.h"

static void *get_partial(struct slablab_cache *s, gfp_t gfp, int node, struct slablab_cpu *c,
			 struct slablab_slab **ret);

/* ---- debug caches: SLUB 6.1's kmem_cache_debug() paths ---- */

/*
 * A debug cache has neither a cpu slab nor cpu partial lists, as in 6.1 (Debian's
 * 6.1.192 has 6.2's alloc_single_from_partial(), alloc_single_from_new_slab() and
 * free_to_partial_list(), and kmem_cache_has_cpu_partial() is false for it): every
 * allocation takes one object off a node partial slab, or off a new slab, and every
 * free goes to the object's slab, each under the node's list_lock. The fast paths find
 * no cpu slab and miss. slablab's own checks (free_hook(), alloc_hook()) run outside
 * the list_lock, where SLUB's alloc_debug_processing() and free_debug_processing() run
 * under it: the state byte's cmpxchg catches racing double frees without the lock.
 */
static __always_inline bool slub_debug(const struct slablab_cache *s)
{
	return s->flags & SLABLAB_CACHE_F_DEBUG;
}

/*
 * One object off a slab on @n's partial list, as 6.1's alloc_single_from_partial(): the
 * slab stays on the list, or leaves it when this was its last free object (6.1 moves
 * it to the full list, which it keeps only with SLAB_STORE_USER). Not frozen. The pair
 * changes by cmpxchg, as every change of it does (backend.c); it does not fail here,
 * since every allocation and free of a debug cache holds this list_lock. NULL if the
 * slab had no free object.
 */
static void *alloc_single_from_partial(struct slablab_cache *s, struct slablab_node *n,
				       struct slablab_slab *slab)
{
	struct slablab_counters c;
	union slablab_pair old, new;

	lockdep_assert_held(&n->list_lock);
	for (;;) {
		old = read_pair(&slab->fc);
		if (!old.freelist)
			return NULL;
		c.word = old.word;
		c.inuse++;
		new.freelist = get_fp(s, old.freelist);
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (c.inuse == c.objects)
		remove_partial(n, slab);
	return old.freelist;
}

/*
 * The debug part of 6.1's get_partial_node(): the first slab on @n's partial list that
 * has an object gives it. Not counted (6.1 counts ALLOC_FROM_PARTIAL only for a slab
 * taken whole).
 */
static void *alloc_single_from_node(struct slablab_cache *s, struct slablab_node *n)
{
	struct slablab_slab *slab, *tmp;
	unsigned long flags;
	void *obj = NULL;

	if (!n || !READ_ONCE(n->nr_partial))
		return NULL;
	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry_safe(slab, tmp, &n->partial, node_list) {
		obj = alloc_single_from_partial(s, n, slab);
		if (obj)
			break;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return obj;
}

/*
 * One object of a new slab, the rest back on the slab's freelist, as 6.1's
 * alloc_single_from_new_slab(): the slab, unfrozen, goes to its node list's head (or
 * on no list when that was its only object) under the list_lock, so that validate sees
 * it frozen or on its list, never between. Nobody else knows the slab's objects yet.
 */
static void *alloc_single_from_new_slab(struct slablab_cache *s, struct slablab_slab *slab,
					void *freelist)
{
	struct slablab_node *n = s->node[slab_nid(slab)];
	struct slablab_counters c;
	union slablab_pair old, new;
	unsigned long flags;

	spin_lock_irqsave(&n->list_lock, flags);
	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		c.inuse = 1;
		c.frozen = 0;
		new.freelist = get_fp(s, freelist);
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (c.inuse < c.objects)
		add_partial(n, slab, false);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return freelist;
}

/*
 * 6.1's ___slab_alloc() for a debug cache: a node partial slab's object (the node's
 * own, else another's as get_any_partial()), else a new slab's (alloc_slab). Not
 * counted, as alloc_slow(). slablab's alloc check reports and hands the object out
 * (alloc_hook()), where 6.1 takes a slab that fails alloc_debug_processing() off its
 * list and tries the next: there is no retry here.
 */
static void *debug_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_slab *slab;
	void *freelist, *obj;

	/* as alloc_slow(): a node without normal memory never has slabs of its own */
	if (node != NUMA_NO_NODE && !node_state(node, N_NORMAL_MEMORY))
		node = NUMA_NO_NODE;
	obj = get_partial(s, gfp, node, NULL, NULL);
	if (obj)
		return obj;
	slab = slablab_new_slab(s, gfp, node, &freelist);
	if (!slab)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLAB);
	return alloc_single_from_new_slab(s, slab, freelist);
}

/*
 * Free @cnt objects of @slab (head..tail, checked) under the node's list_lock, as 6.1's
 * free_to_partial_list(): a full slab goes to the node list's tail (free_add_partial);
 * an empty one is freed when the node keeps min_partial slabs already
 * (free_remove_partial when it was on the list), else stays there. Never frozen.
 * The caller counts the frees.
 */
static void free_to_partial_list(struct slablab_cache *s, struct slablab_slab *slab,
				 void *head, void *tail, unsigned int cnt)
{
	struct slablab_node *n = s->node[slab_nid(slab)];
	struct slablab_counters c;
	union slablab_pair old, new;
	bool discard = false;
	unsigned long flags;

	spin_lock_irqsave(&n->list_lock, flags);
	for (;;) {
		old = read_pair(&slab->fc);
		set_fp(s, tail, old.freelist);
		c.word = old.word;
		c.inuse -= cnt;
		new.freelist = head;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			break;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
	if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
		if (old.freelist) {
			remove_partial(n, slab);
			stat(s, SLABLAB_FREE_REMOVE_PARTIAL);
		}
		mark_dying(n, slab);
		discard = true;
	} else if (!old.freelist) {
		add_partial(n, slab, true);
		stat(s, SLABLAB_FREE_ADD_PARTIAL);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (discard)
		slablab_discard_slab(s, slab);
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
	if (cnt)
		trace_slablab_drain(s, "deactivate_slab", cnt);
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
		slablab_discard_slab(s, slab);
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
		union slablab_pair old;
		unsigned long flags;

		list = slab->next;
		slab->next = NULL;
		spin_lock_irqsave(&n->list_lock, flags);
		old = slab_set_frozen(s, slab, false);
		c.word = old.word;
		if (!c.inuse && n->nr_partial >= READ_ONCE(s->min_partial)) {
			mark_dying(n, slab);
			spin_unlock_irqrestore(&n->list_lock, flags);
			stat(s, SLABLAB_DEACTIVATE_EMPTY);
			slablab_discard_slab(s, slab);
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

/*
 * Whether frees freeze full slabs for the cpu partial lists and refills take slabs for
 * them: 6.1's kmem_cache_has_cpu_partial() with CONFIG_SLUB_CPU_PARTIAL (as Debian
 * builds), !kmem_cache_debug(s). The cpu_partial value is no part of it: a bound of 0
 * slabs still keeps the newest slab (put_cpu_partial()) and has a refill take one
 * (get_partial_node()).
 */
static bool has_cpu_partial(struct slablab_cache *s)
{
	return !(READ_ONCE(s->flags) & SLABLAB_CACHE_F_DEBUG);
}

/*
 * A free froze a slab that was full: keep it on this cpu's partial list, as 6.1's
 * put_cpu_partial(s, slab, 1). An old list already at the bound goes to the node
 * lists first; the new slab always stays (the list's only one then).
 */
static void put_cpu_partial(struct slablab_cache *s, struct slablab_slab *slab)
{
	struct slablab_slab *drain = NULL;
	struct slablab_cpu *c;
	unsigned long flags;

	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	if (c->partial && c->partial_slabs >= READ_ONCE(s->cpu_partial_slabs)) {
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
 * Take slabs from a node list, as 6.1's get_partial_node(): the first becomes the cpu
 * slab (its freelist is returned), then slabs go to the cpu partial list (as
 * put_cpu_partial(s, slab, 0): never drained here) until more than half the bound
 * have been taken in this call: bound / 2 + 1 of them, so one with a bound of 0.
 * Called with the cpu's local_lock held.
 */
static void *get_partial_node(struct slablab_cache *s, struct slablab_node *n,
			      struct slablab_cpu *c, struct slablab_slab **ret)
{
	unsigned int limit = READ_ONCE(s->cpu_partial_slabs), taken = 0;
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
		} else {
			slab->next = c->partial;
			c->partial = slab;
			c->partial_slabs++;
			stat(s, SLABLAB_CPU_PARTIAL_NODE);
			taken++;
		}
		/* the slabs taken now, not the list's length (it may hold others) */
		if (!has_cpu_partial(s) || taken > limit / 2)
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

	freelist = slub_debug(s) ? alloc_single_from_node(s, s->node[local]) :
				   get_partial_node(s, s->node[local], c, ret);
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
		freelist = slub_debug(s) ? alloc_single_from_node(s, n) :
					   get_partial_node(s, n, c, ret);
		if (freelist)
			return freelist;
	}
	return NULL;
}

/*
 * Test hook (selftests=1): the install_race case's state, armed by
 * slablab_selftest_install_race() under slablab_mutex; only the arming task matches.
 */
static DEFINE_STATIC_KEY_FALSE(slablab_install_hook);
static struct {
	struct slablab_cache *s;
	struct task_struct *task;
	void *obj;
} install_race;

/*
 * The race the install_race hook stages, in alloc_slow() between taking a new slab and
 * taking the cpu's lock to install it: this cpu got a cpu slab meanwhile, as an
 * interrupt's allocation (or another task's on this cpu) would give it.
 */
static noinline void install_race_hook(struct slablab_cache *s)
{
	if (READ_ONCE(install_race.task) != current || READ_ONCE(install_race.s) != s)
		return;
	WRITE_ONCE(install_race.task, NULL);
	install_race.obj = slub_alloc(s, GFP_ATOMIC, NUMA_NO_NODE);
}

/*
 * Everything that is not "pop the cpu freelist": one object, not counted (the callers
 * count it as an allocation, or not: sheaves' refill through slub_take()).
 */
static void *alloc_slow(struct slablab_cache *s, gfp_t gfp, int node)
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

	fresh = slablab_new_slab(s, gfp, node, &freelist);
	if (!fresh)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLAB);
	if (static_branch_unlikely(&slablab_install_hook))
		install_race_hook(s);

	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	/*
	 * The cpu got a slab while the lock was dropped (an interrupt's allocation,
	 * another task on this cpu, or we moved to a cpu that has one). As 6.1's
	 * retry_load_slab, that one is flushed (CPUSLAB_FLUSH) and the new one installed,
	 * so the freelist in hand becomes the cpu's.
	 */
	while (unlikely(c->slab)) {
		void *flush_freelist = c->ft.freelist;

		slab = c->slab;
		c->slab = NULL;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&s->cpu->lock, flags);
		deactivate_slab(s, slab, flush_freelist);
		stat(s, SLABLAB_CPUSLAB_FLUSH);
		local_lock_irqsave(&s->cpu->lock, flags);
		c = this_cpu_ptr(s->cpu);
	}
	c->slab = fresh;
load:
	obj = freelist;
	c->ft.freelist = get_fp(s, obj);
	c->ft.word = next_tid(c->ft.word);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	return obj;
}

/* The slow path of slub_alloc() and bulk allocation: counts ALLOC_SLOWPATH. */
void *slablab_slub_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node)
{
	u64 t0 = slablab_slow_start();
	void *obj = slub_debug(s) ? debug_alloc(s, gfp, node) : alloc_slow(s, gfp, node);

	if (obj)
		stat(s, SLABLAB_ALLOC_SLOWPATH);
	slablab_slow_end(s, obj, node, t0);
	return obj;
}

/* A free to a slab that is not this cpu's slab. */
void slablab_slub_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			    void *tail, unsigned int cnt)
{
	if (slub_debug(s)) {
		stat_add(s, SLABLAB_FREE_SLOWPATH, cnt);
		free_to_partial_list(s, slab, head, tail, cnt);
		return;
	}
	if (slablab_free_to_slab(s, slab, head, tail, cnt, has_cpu_partial(s)))
		put_cpu_partial(s, slab);
}

/* ---- flushing per-cpu state ---- */

/* Detach a cpu's slab and partial list; @c is this cpu's (lock held) or a dead cpu's. */
static void detach_cpu(struct slablab_cpu *c, int mode, struct slablab_cache *s,
		       struct slablab_slab **slab, void **freelist,
		       struct slablab_slab **partial)
{
	*slab = NULL;
	*freelist = NULL;
	*partial = NULL;
	if (mode == SLABLAB_FLUSH_ALL) {
		*slab = c->slab;
		*freelist = c->ft.freelist;
		c->slab = NULL;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(c->ft.word);
	}
	if (mode == SLABLAB_FLUSH_ALL || c->partial_slabs > READ_ONCE(s->cpu_partial_slabs)) {
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

/* Flush this cpu (slablab_on_each_cpu()'s work item). */
static unsigned int flush_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slablab_slab *slab, *partial;
	unsigned long flags;
	void *freelist;

	local_lock_irqsave(&s->cpu->lock, flags);
	detach_cpu(this_cpu_ptr(s->cpu), mode, s, &slab, &freelist, &partial);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	return flush_detached(s, slab, freelist, partial);
}

/*
 * Whether a cpu has anything for a flush to do, read from another cpu without its lock,
 * as SLUB 6.1's has_cpu_slab(): a cpu without a cpu slab or cpu partial slabs is
 * skipped (a SLABLAB_FLUSH_OVER_LIMIT one unless its list is over the bound). The
 * work re-reads everything under the cpu's lock.
 */
static bool cpu_needs_flush(struct slablab_cache *s, int cpu, int mode)
{
	struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);

	if (mode == SLABLAB_FLUSH_OVER_LIMIT)
		return READ_ONCE(c->partial_slabs) > READ_ONCE(s->cpu_partial_slabs);
	return READ_ONCE(c->slab) || READ_ONCE(c->partial);
}

/*
 * The design's flush op: every online cpu that has something to flush (every one with
 * @every_cpu; see slablab_on_each_cpu()). Needs cpus_read_lock and slablab_mutex.
 * Returns the number of slabs the flush freed.
 */
static unsigned long slub_flush(struct slablab_cache *s, enum slablab_flush_mode mode,
				bool every_cpu)
{
	return slablab_on_each_cpu(s, flush_this_cpu, cpu_needs_flush, mode, NULL, every_cpu);
}

DEFINE_STATIC_KEY_FALSE(slablab_race_hook);

/* The race the test hook stages: the rest of the system flushed this cpu meanwhile. */
noinline void slablab_slub_race_hook(struct slablab_cache *s)
{
	struct slablab_slab *slab, *partial;
	unsigned long flags;
	void *freelist;

	if (READ_ONCE(s->selftest_race) != current)
		return;
	WRITE_ONCE(s->selftest_race, NULL);
	local_lock_irqsave(&s->cpu->lock, flags);
	detach_cpu(this_cpu_ptr(s->cpu), SLABLAB_FLUSH_ALL, s, &slab, &freelist, &partial);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	flush_detached(s, slab, freelist, partial);
}

/**
 * slablab_selftest_fastpath_race - make the cmpxchg fast path lose its race (selftests=1)
 * @s: the cache
 *
 * Twice (without a node, then for this node): leave
 * this cpu an empty cpu slab with every object on the cpu freelist, then allocate with
 * the test hook armed. Between reading the freelist head and reading that object's free
 * pointer, the hook flushes the cpu: the slab is deactivated and, with min_partial=0,
 * handed back to the page allocator. The allocation must then fail its cmpxchg (the
 * flush moved the tid), having read only what may be read of a freed slab, and retry.
 *
 * Runs under cpus_read_lock and slablab_mutex, as every cache change does: between
 * its free and its next allocation the cache is empty, and a design switch that ran
 * then would leave it calling slub's paths on another design's per-cpu state. The
 * hook's static key is armed before, since arming it takes cpus_read_lock.
 *
 * Return: 0; -EOPNOTSUPP when the cache's fast path takes the local lock (irqoff,
 * PREEMPT_RT: there is no window) or it has no cpu slab (another design, debug);
 * -ENOENT when the cache is being destroyed; -ENOMEM; -EIO when the hook did not run.
 */
int slablab_selftest_fastpath_race(struct slablab_cache *s)
{
	int round, err = 0;
	void *obj;

	if (!slablab_selftests)
		return -EPERM;
	static_branch_inc(&slablab_race_hook);
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	/*
	 * Never allocate from a cache a destroy is discarding; another design, and a debug
	 * cache, has no cpu slab to race for, and a locked fast path no window.
	 */
	if (s->dead)
		err = -ENOENT;
	else if (s->design != SLABLAB_DESIGN_SLUB || use_locked_fastpath(s) || slub_debug(s))
		err = -EOPNOTSUPP;
	for (round = 0; round < 2 && !err; round++) {
		preempt_disable();
		obj = slub_alloc(s, GFP_ATOMIC, NUMA_NO_NODE);
		if (!obj) {
			err = -ENOMEM;
			goto next;
		}
		slub_free_one(s, obj);
		WRITE_ONCE(s->selftest_race, current);
		if (round)
			obj = slub_alloc(s, GFP_ATOMIC, numa_node_id());
		else
			obj = slub_alloc(s, GFP_ATOMIC, NUMA_NO_NODE);
		if (READ_ONCE(s->selftest_race)) {
			WRITE_ONCE(s->selftest_race, NULL);
			err = -EIO;
		}
		if (obj)
			slub_free_one(s, obj);
		else if (!err)
			err = -ENOMEM;
next:
		preempt_enable();
	}
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	static_branch_dec(&slablab_race_hook);
	return err;
}

/**
 * slablab_selftest_install_race - a cpu slab appears while a new one is made (selftests=1)
 * @s: the cache, with no slabs: the allocation must need a new one
 *
 * Allocates one object with the install_race hook armed: after alloc_slow() has taken
 * a new slab and before it takes the cpu's lock again, the hook allocates another
 * object, which installs a cpu slab of its own. The first allocation must then do what
 * 6.1's ___slab_alloc() does at retry_load_slab: deactivate the cpu slab it finds
 * (CPUSLAB_FLUSH) and install the slab it made, whose object it returns. Both objects
 * are freed again. Migration is off throughout (preemption may stay on: the local lock
 * is a sleeping lock on PREEMPT_RT); under cpus_read_lock and slablab_mutex, as a
 * cache change, nobody else allocates from or flushes the cache meanwhile.
 *
 * Return: 0; -EOPNOTSUPP for another design, or a debug cache (6.1 takes a debug
 * cache's object off a new slab without installing it); -ENOENT when the cache is
 * being destroyed; -EBUSY when it has slabs; -ENOMEM; -EIO when the hook did not run
 * or the new slab is not this cpu's slab afterwards.
 */
int slablab_selftest_install_race(struct slablab_cache *s)
{
	struct slablab_slab *mine;
	unsigned long flags, slabs;
	int err = 0;
	void *obj;
	bool ran;

	if (!slablab_selftests)
		return -EPERM;
	static_branch_inc(&slablab_install_hook);
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	spin_lock_irqsave(&s->slabs_lock, flags);
	slabs = s->nr_slabs;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
	if (s->dead)
		err = -ENOENT;
	else if (s->design != SLABLAB_DESIGN_SLUB || (READ_ONCE(s->flags) & SLABLAB_CACHE_F_DEBUG))
		err = -EOPNOTSUPP;
	else if (slabs)
		err = -EBUSY;
	if (err)
		goto out;
	migrate_disable();
	WRITE_ONCE(install_race.s, s);
	install_race.obj = NULL;
	WRITE_ONCE(install_race.task, current);
	obj = slub_alloc(s, GFP_ATOMIC, NUMA_NO_NODE);
	ran = !READ_ONCE(install_race.task);
	WRITE_ONCE(install_race.task, NULL);
	if (!obj || (ran && !install_race.obj))
		err = -ENOMEM;
	else if (!ran)
		err = -EIO;
	if (obj) {
		local_lock_irqsave(&s->cpu->lock, flags);
		mine = this_cpu_ptr(s->cpu)->slab;
		local_unlock_irqrestore(&s->cpu->lock, flags);
		if (!err && mine != obj_to_slab(obj))
			err = -EIO;
		slub_free_one(s, obj);
	}
	if (install_race.obj)
		slub_free_one(s, install_race.obj);
	install_race.obj = NULL;
	WRITE_ONCE(install_race.s, NULL);
	migrate_enable();
out:
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	static_branch_dec(&slablab_install_hook);
	return err;
}

/* The design's flush_dead_cpu op: the cpu is gone, nobody else touches its state. */
static void slub_flush_dead_cpu(struct slablab_cache *s, int cpu)
{
	struct slablab_slab *slab, *partial;
	void *freelist;

	detach_cpu(per_cpu_ptr(s->cpu, cpu), SLABLAB_FLUSH_ALL, s, &slab, &freelist, &partial);
	flush_detached(s, slab, freelist, partial);
}

/* ---- bulk allocation and free ---- */

/*
 * Objects of one slab are linked into one detached freelist and freed with a single
 * cmpxchg, as kmem_cache_free_bulk() does.
 */
static void slub_free_bulk(struct slablab_cache *s, size_t nr, void **p)
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
		slub_free(s, slab, head, tail, cnt);
	}
}

/* Objects from the cpu freelist under one local lock; the slow path for the rest. */
static int slub_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p)
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
			p[i] = slablab_slub_alloc_slow(s, gfp, NUMA_NO_NODE);
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
	slub_free_bulk(s, i, p);
	return 0;
}

static void set_cpu_partial_bound(struct slablab_cache *s)
{
	unsigned int objs = slablab_cache_objs(s, READ_ONCE(s->order));

	WRITE_ONCE(s->cpu_partial_slabs, slablab_cpu_partial_slabs(s->cpu_partial, objs));
}

int slablab_set_cpu_partial(struct slablab_cache *s, unsigned int objects,
			    struct netlink_ext_ack *extack)
{
	if (objects > SLABLAB_MAX_CPU_PARTIAL)
		return -ERANGE;
	WRITE_ONCE(s->cpu_partial, objects);
	set_cpu_partial_bound(s);
	/* Takes effect at once: lists over the new bound are drained now. */
	if (s->ops == &slablab_slub_ops || s->under == &slablab_slub_ops)
		slub_flush(s, SLABLAB_FLUSH_OVER_LIMIT, false);
	return 0;
}

static void slub_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
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
	*partial_objects = *partial_slabs * slablab_cache_objs(s, READ_ONCE(s->order)) / 2;
}

static void slub_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
		unsigned int partial = READ_ONCE(c->partial_slabs);

		g->cpu_partial_slabs += partial;
		/*
		 * SLUB's show_slab_objects(SO_CPU) skips the cpu partial slabs of a cpu
		 * without a cpu slab: so does debugfs cpu_slabs, from this figure.
		 */
		if (READ_ONCE(c->slab)) {
			g->cpu_slabs++;
			g->cpu_partial_slabs_of_cpu_slabs += partial;
		}
	}
}

/* Free objects of a frozen slab on its own freelist (remote frees, partial slabs). */
static unsigned int slab_free_objects(struct slablab_slab *slab)
{
	struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

	return c.objects - c.inuse;
}

struct slub_layer_count {
	atomic64_t cpu_slab;
	atomic64_t cpu_partial;
};

/*
 * Count this cpu's layers (slablab_on_each_cpu()'s work item). Under the local lock on
 * the cpu nothing changes c->slab, c->ft or c->partial, and no fast path of this cpu
 * is between its reads and its cmpxchg while we walk: a preempted one fails on the tid
 * only if we changed it, which we do not. The cpu slab's free objects are its cpu
 * freelist plus the remote frees on its own freelist (the counters say the cpu
 * freelist is in use); a cpu partial slab's are on its freelist.
 */
static unsigned int count_this_cpu(struct slablab_cache *s, int mode, void *arg)
{
	struct slub_layer_count *n = arg;
	u64 in_slab = 0, in_partial = 0;
	struct slablab_slab *slab;
	struct slablab_cpu *c;
	unsigned long flags;
	void *p;

	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	if (c->slab) {
		unsigned int bound = slab_objects(c->slab);

		for (p = c->ft.freelist; p && in_slab < bound; p = get_fp(s, p))
			in_slab++;
		in_slab += slab_free_objects(c->slab);
	}
	for (slab = c->partial; slab; slab = slab->next)
		in_partial += slab_free_objects(slab);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	atomic64_add(in_slab, &n->cpu_slab);
	atomic64_add(in_partial, &n->cpu_partial);
	return 0;
}

/*
 * The racy count (a reader without CAP_SYS_ADMIN): no work, no IPI, no walk of another
 * cpu's lists (c->partial shares its link with the node lists' list_head, so a slab
 * unfrozen under the walk would lead it astray). The cpu partial slabs' free objects
 * are on their own freelists: the free objects of every frozen slab (the back end's
 * walk, @l->frozen_free) less the remote frees on the cpu slabs, read here under
 * slabs_lock, which keeps a slab still seen as c->slab from being discarded (as
 * slub_cpu_view()). The cpu freelists only their cpu can walk: cache.c counts them as
 * what the other layers leave of the slots (cpu_slab_by_remainder()).
 */
static void slub_layers_racy(struct slablab_cache *s, struct slablab_layers *l)
{
	struct slablab_slab *slab;
	unsigned long flags;
	u64 remote = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		spin_lock_irqsave(&s->slabs_lock, flags);
		slab = READ_ONCE(per_cpu_ptr(s->cpu, cpu)->slab);
		if (slab)
			remote += slab_free_objects(slab);
		spin_unlock_irqrestore(&s->slabs_lock, flags);
	}
	l->cpu_slab = remote;
	l->cpu_partial = l->frozen_free > remote ? l->frozen_free - remote : 0;
}

/*
 * The layers op: cpu slabs and cpu partial lists, counted on every online cpu under
 * its lock (@exact), else racily from here (slub_layers_racy()).
 */
static void slub_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact)
{
	struct slub_layer_count n = {
		.cpu_slab = ATOMIC64_INIT(0), .cpu_partial = ATOMIC64_INIT(0),
	};

	l->present |= BIT(SLABLAB_LAYERS_A_CPU_SLAB) | BIT(SLABLAB_LAYERS_A_CPU_PARTIAL);
	if (!exact) {
		slub_layers_racy(s, l);
		return;
	}
	slablab_on_each_cpu(s, count_this_cpu, NULL, 0, &n, true);
	l->cpu_slab = atomic64_read(&n.cpu_slab);
	l->cpu_partial = atomic64_read(&n.cpu_partial);
}

/*
 * A new cache, or one switching to slub (or to sheaves over slub): every cpu's state
 * is empty. The tid goes on from where it was, a step ahead, rather than restarting at
 * the cpu: a cache that comes back to slub must not reuse tids it handed out before
 * (a fast path that read c->ft before the change would otherwise see its tid again;
 * nobody allocates across a design change, but the tid's guarantee should not rest
 * on that). tid % TID_STEP stays the cpu. Cannot fail: cache.c falls back to this
 * design when another's init fails twice.
 */
static int slub_init(struct slablab_cache *s)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct slablab_cpu *c = per_cpu_ptr(s->cpu, cpu);
		unsigned long tid = c->ft.word;

		c->slab = NULL;
		c->partial = NULL;
		c->partial_slabs = 0;
		c->ft.freelist = NULL;
		c->ft.word = next_tid(tid - tid % TID_STEP + cpu);
	}
	set_cpu_partial_bound(s);
	return 0;
}

static void *slub_alloc_op(struct slablab_cache *s, gfp_t gfp, int node)
{
	return slub_alloc(s, gfp, node);
}

/* ---- the layer under another design (sheaves with cpu_slabs: 6.18's double caching) ---- */

/*
 * The take op: objects through the cpu freelist under the local lock, the slow path for
 * the rest, as slub_alloc_bulk() does (6.18's __kmem_cache_alloc_bulk() under a sheaf
 * refill), but neither counted as allocations nor hooked: they go into a sheaf, and
 * count when a caller pops them. The lockless fast path is not used: under sheaves
 * every change of c->ft is made under the local lock. A debug cache's objects come
 * one by one off the node lists (debug_alloc()), as 6.18's for kmem_cache_debug().
 */
static unsigned int slub_take(struct slablab_cache *s, gfp_t gfp, int node, void **p,
			      unsigned int nr)
{
	struct slablab_cpu *c;
	unsigned long flags;
	unsigned int i;

	if (slub_debug(s)) {
		for (i = 0; i < nr; i++) {
			p[i] = debug_alloc(s, gfp, node);
			if (!p[i])
				return i;
		}
		return nr;
	}
	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	for (i = 0; i < nr; i++) {
		void *obj = c->ft.freelist;

		if (unlikely(!obj || !c->slab || !node_match(c->slab, node))) {
			c->ft.word = next_tid(c->ft.word);
			local_unlock_irqrestore(&s->cpu->lock, flags);
			p[i] = alloc_slow(s, gfp, node);
			if (!p[i])
				return i;
			local_lock_irqsave(&s->cpu->lock, flags);
			c = this_cpu_ptr(s->cpu);
			continue;
		}
		c->ft.freelist = get_fp(s, obj);
		p[i] = obj;
	}
	c->ft.word = next_tid(c->ft.word);
	local_unlock_irqrestore(&s->cpu->lock, flags);
	return nr;
}

/*
 * The give op: objects a sheaf flushes, freed through slub's paths (6.18's
 * __kmem_cache_free_bulk() → do_slab_free()): onto the cpu freelist when they are of
 * the cpu slab, else to their slab, which a full slab turning partial puts on the cpu
 * partial list. Not counted as frees again. A debug cache's go to their slab under
 * the list_lock (free_to_partial_list()).
 */
static void slub_give(struct slablab_cache *s, struct slablab_slab *slab, void *head,
		      void *tail, unsigned int cnt)
{
	struct slablab_cpu *c;
	unsigned long flags;

	if (slub_debug(s)) {
		free_to_partial_list(s, slab, head, tail, cnt);
		return;
	}
	local_lock_irqsave(&s->cpu->lock, flags);
	c = this_cpu_ptr(s->cpu);
	if (slab == c->slab) {
		set_fp(s, tail, c->ft.freelist);
		c->ft.freelist = head;
		c->ft.word = next_tid(c->ft.word);
		local_unlock_irqrestore(&s->cpu->lock, flags);
		return;
	}
	local_unlock_irqrestore(&s->cpu->lock, flags);
	if (slablab_return_to_slab(s, slab, head, tail, cnt, has_cpu_partial(s)))
		put_cpu_partial(s, slab);
}

const struct slablab_design_ops slablab_slub_ops = {
	.name = "slub",
	.init = slub_init,
	.alloc = slub_alloc_op,
	.free = slub_free,
	.alloc_bulk = slub_alloc_bulk,
	.free_bulk = slub_free_bulk,
	.flush = slub_flush,
	.flush_dead_cpu = slub_flush_dead_cpu,
	.relayout = set_cpu_partial_bound,
	.gauges = slub_gauges,
	.cpu_view = slub_cpu_view,
	.layers = slub_layers,
	.take = slub_take,
	.give = slub_give,
};
