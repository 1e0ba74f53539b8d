/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slablab: the parallel slab cache API exported by slablab.ko.
 *
 * Other modules include this header (add `-I<slablab>/include` to their ccflags and
 * KBUILD_EXTRA_SYMBOLS=<slablab>/module/Module.symvers) and use slablab caches exactly
 * as they would use kmem_cache_*(). Using any of these symbols makes the module depend
 * on slablab.ko, which keeps slablab loaded while the user is.
 */
#ifndef _SLABLAB_H
#define _SLABLAB_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/gfp.h>

struct slablab_cache;

/* Flags for slablab_cache_create(); values match enum slablab_cache_flags in the uapi. */
#define SLABLAB_DEBUG		BIT(0)
#define SLABLAB_HARDENED	BIT(1)
#define SLABLAB_RANDOM		BIT(2)
#define SLABLAB_HWCACHE_ALIGN	BIT(3)
/* Hardened/random as the running kernel's own SLUB is configured (the default for netlink). */
#define SLABLAB_KERNEL_DEFAULTS	BIT(31)

struct slablab_cache *slablab_cache_create(const char *name, unsigned int size,
					   unsigned int align, unsigned int flags,
					   void (*ctor)(void *));
int slablab_cache_destroy(struct slablab_cache *s);
void *slablab_cache_alloc(struct slablab_cache *s, gfp_t gfp);
void *slablab_cache_alloc_node(struct slablab_cache *s, gfp_t gfp, int node);
void slablab_cache_free(struct slablab_cache *s, void *obj);
int slablab_cache_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p);
void slablab_cache_free_bulk(struct slablab_cache *s, size_t nr, void **p);
unsigned long slablab_cache_shrink(struct slablab_cache *s);
void *slablab_kmalloc(size_t size, gfp_t gfp);
void slablab_kfree(const void *p);

#endif /* _SLABLAB_H */
