/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sheaves design's fast paths, inline, as design_slub.h's: cache.c's switch on
 * s->design inlines them, so that a sheaf pop or push costs no call through the ops
 * table. They take the cpu's lock, pop from (push to) main and let go; everything else
 * (an empty or full main, a node-specific request, an object of another node) is
 * design_sheaves.c's slow path, whose top comment describes the design and its locking.
 */
#ifndef _SLABLAB_DESIGN_SHEAVES_H
#define _SLABLAB_DESIGN_SHEAVES_H

#include "backend.h"

/* struct slablab_sheaf is in internal.h: the prefill API (cache.c) lends sheaves too. */

void *slablab_sheaves_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node);
void slablab_sheaves_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *obj);

/*
 * The sheaves' lock (design_sheaves.c's top comment). With local_trylock_t (6.16+,
 * compat.h) it is the cpu's sheaves_lock, as 7.3's cpu_sheaves->lock: preemption off
 * only; the allocation and free paths, which an interrupt may take, try it
 * (pcs_trylock(), 7.3's local_trylock()) and go to the slabs when the context they
 * interrupted holds it; the flushes (work items) and the prefill API take it
 * (pcs_lock(), 7.3's local_lock()). Without (6.1, 6.12) it is the cpu's lock with
 * interrupts off (local_lock_irqsave()), which a try always gets. @flags is used only
 * then.
 */
#ifdef SLABLAB_HAVE_LOCAL_TRYLOCK
static __always_inline bool pcs_trylock(struct slablab_cache *s, unsigned long *flags)
{
	return local_trylock(&s->cpu->sheaves_lock);
}

static __always_inline void pcs_lock(struct slablab_cache *s, unsigned long *flags)
{
	local_lock(&s->cpu->sheaves_lock);
}

static __always_inline void pcs_unlock(struct slablab_cache *s, unsigned long *flags)
{
	local_unlock(&s->cpu->sheaves_lock);
}
#else
static __always_inline bool pcs_trylock(struct slablab_cache *s, unsigned long *flags)
{
	local_lock_irqsave(&s->cpu->lock, *flags);
	return true;
}

static __always_inline void pcs_lock(struct slablab_cache *s, unsigned long *flags)
{
	local_lock_irqsave(&s->cpu->lock, *flags);
}

static __always_inline void pcs_unlock(struct slablab_cache *s, unsigned long *flags)
{
	local_unlock_irqrestore(&s->cpu->lock, *flags);
}
#endif

/* Pop main under the cpu's sheaves lock: no atomic instruction, no cmpxchg16b. */
static __always_inline void *sheaves_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_sheaf *main;
	unsigned long flags;
	void *obj;

	if (likely(node == NUMA_NO_NODE) && likely(pcs_trylock(s, &flags))) {
		main = this_cpu_ptr(s->cpu)->main;
		if (likely(main && main->size)) {
			obj = main->objects[--main->size];
			pcs_unlock(s, &flags);
			stat(s, SLABLAB_ALLOC_FASTPATH);
			return alloc_hook(s, obj, gfp);
		}
		pcs_unlock(s, &flags);
	}
	return slablab_sheaves_alloc_slow(s, gfp, node);
}

/* Push one object that passed free_hook() onto main under the cpu's lock. */
static __always_inline void sheaves_free_one(struct slablab_cache *s,
					     struct slablab_slab *slab, void *obj)
{
	struct slablab_sheaf *main;
	unsigned long flags;

	if (likely(slab_nid(slab) == numa_mem_id()) && likely(pcs_trylock(s, &flags))) {
		main = this_cpu_ptr(s->cpu)->main;
		if (likely(main && main->size < main->capacity)) {
			main->objects[main->size++] = obj;
			pcs_unlock(s, &flags);
			stat(s, SLABLAB_FREE_FASTPATH);
			return;
		}
		pcs_unlock(s, &flags);
	}
	slablab_sheaves_free_slow(s, slab, obj);
}

#endif /* _SLABLAB_DESIGN_SHEAVES_H */
