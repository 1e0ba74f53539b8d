/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-object paths' dispatch on a cache's design, inline: a switch, not an indirect
 * call (cache.c's top comment, "Dispatch"). The design's fast path is inlined from its
 * header (design_slub.h, design_sheaves.h); a design without one falls to the default
 * case, which calls through its ops table. For the cache API (cache.c) and kmalloc
 * (kmalloc.c), whose objects are freed and allocated alike.
 */
#ifndef _SLABLAB_DISPATCH_H
#define _SLABLAB_DISPATCH_H

#include "design_sheaves.h"
#include "design_slub.h"

static __always_inline void *design_alloc(struct slablab_cache *s, gfp_t gfp, int node)
{
	switch (s->design) {
	case SLABLAB_DESIGN_SLUB:
		return slub_alloc(s, gfp, node);
	case SLABLAB_DESIGN_SHEAVES:
		return sheaves_alloc(s, gfp, node);
	default:
		return s->ops->alloc(s, gfp, node);
	}
}

static __always_inline void design_free(struct slablab_cache *s, struct slablab_slab *slab,
					void *obj)
{
	switch (s->design) {
	case SLABLAB_DESIGN_SLUB:
		slub_free(s, slab, obj, obj, 1);
		break;
	case SLABLAB_DESIGN_SHEAVES:
		sheaves_free_one(s, slab, obj);
		break;
	default:
		s->ops->free(s, slab, obj, obj, 1);
	}
}

/* Free @obj of @slab, a slab of @s: slablab_cache_free() once the slab is known. */
static __always_inline void cache_free_slab(struct slablab_cache *s, struct slablab_slab *slab,
					    void *obj)
{
	if (!free_hook(s, slab, obj))
		return;
	design_free(s, slab, obj);
}

#endif /* _SLABLAB_DISPATCH_H */
