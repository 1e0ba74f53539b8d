/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sheaves design's fast paths, inline, as design_slub.h's: slab.c's switch on
 * s->design inlines them, so that a sheaf pop or push costs no call through the ops
 * table. They take the cpu's lock, pop from (push to) main and let go; everything else
 * (an empty or full main, a node-specific request, an object of another node) is
 * design_sheaves.c's slow path, whose top comment describes the design and its locking.
 */
#ifndef _SLABLAB_DESIGN_SHEAVES_H
#define _SLABLAB_DESIGN_SHEAVES_H

#include "backend.h"

/* struct slablab_sheaf is in internal.h: the prefill API (slab.c) lends sheaves too. */

void *slablab_sheaves_alloc_slow(struct slablab_cache *s, gfp_t gfp, int node);
void slablab_sheaves_free_slow(struct slablab_cache *s, struct slablab_slab *slab, void *obj);

/*
 * Pop main under the cpu's lock: no atomic instruction, no cmpxchg16b (the lock is
 * local_lock_irqsave(): interrupts off for the pop, as 6.1 has no local_trylock_t).
 */
static __always_inline void *sheaves_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	struct slablab_sheaf *main;
	unsigned long flags;
	void *obj;

	if (likely(node == NUMA_NO_NODE)) {
		local_lock_irqsave(&s->cpu->lock, flags);
		main = this_cpu_ptr(s->cpu)->main;
		if (likely(main && main->size)) {
			obj = main->objects[--main->size];
			local_unlock_irqrestore(&s->cpu->lock, flags);
			stat(s, SLABLAB_ALLOC_FASTPATH);
			return alloc_hook(s, obj, gfp);
		}
		local_unlock_irqrestore(&s->cpu->lock, flags);
	}
	return slablab_sheaves_alloc_slow(s, gfp, node);
}

/* Push one object that passed free_hook() onto main under the cpu's lock. */
static __always_inline void sheaves_free_one(struct slablab_cache *s,
					     struct slablab_slab *slab, void *obj)
{
	struct slablab_sheaf *main;
	unsigned long flags;

	if (likely(slab_nid(slab) == numa_mem_id())) {
		local_lock_irqsave(&s->cpu->lock, flags);
		main = this_cpu_ptr(s->cpu)->main;
		if (likely(main && main->size < main->capacity)) {
			main->objects[main->size++] = obj;
			local_unlock_irqrestore(&s->cpu->lock, flags);
			stat(s, SLABLAB_FREE_FASTPATH);
			return;
		}
		local_unlock_irqrestore(&s->cpu->lock, flags);
	}
	slablab_sheaves_free_slow(s, slab, obj);
}

#endif /* _SLABLAB_DESIGN_SHEAVES_H */
