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

#include "slablab/protocol.h"

struct slablab_cache;
struct slablab_sheaf;

/*
 * The cache tunables, in the order creation and cache-set apply them: SLABLAB_TUNABLE_
 * and the spec's name (SLABLAB_TUNABLE_CPU_PARTIAL, ...), for slablab_cache_args.
 */
#define SLABLAB_TUNABLE_ID(attr, name, type, kind, enum, min, max) SLABLAB_TUNABLE_##attr,
enum slablab_tunable_id {
	SLABLAB_CACHE_TUNABLES(SLABLAB_TUNABLE_ID)
	SLABLAB_NR_TUNABLES
};

#undef SLABLAB_TUNABLE_ID

/* Flags for slablab_cache_create(); values match enum slablab_cache_flags in the uapi. */
#define SLABLAB_DEBUG		BIT(0)
#define SLABLAB_HARDENED	BIT(1)
#define SLABLAB_RANDOM		BIT(2)
#define SLABLAB_HWCACHE_ALIGN	BIT(3)
/* SLAB_TYPESAFE_BY_RCU: slabs go back to the page allocator only after a grace period */
#define SLABLAB_TYPESAFE_BY_RCU	BIT(4)
/* Hardened/random as the running kernel's own SLUB is configured (the default for netlink). */
#define SLABLAB_KERNEL_DEFAULTS	BIT(31)

/**
 * struct slablab_cache_args - what slablab_cache_create_args() may be told besides
 *	name and size, in the style of 6.12's struct kmem_cache_args: all zero (or a NULL
 *	pointer) means every default
 * @align: required alignment, 0 for the default (a power of two up to 4096)
 * @flags: SLABLAB_DEBUG, SLABLAB_HARDENED, SLABLAB_RANDOM, SLABLAB_HWCACHE_ALIGN,
 *	SLABLAB_TYPESAFE_BY_RCU (not with SLABLAB_DEBUG), SLABLAB_KERNEL_DEFAULTS
 * @ctor: constructor run on every object slot of a new slab, or NULL
 * @design: the per-cpu front end, a value of enum slablab_design (uapi/linux/slablab.h);
 *	0 is SLABLAB_DESIGN_SLUB, the default
 * @sheaves_cpu_slabs: sheaves in front of the slub design's per-cpu slab and cpu partial
 *	lists (6.18's double caching); false: sheaves straight over slabs (7.0)
 * @tunables_set: the tunables given in @tunables, a mask of BIT(SLABLAB_TUNABLE_<NAME>)
 *	(0 is a valid value of most, so a mask says which were given, as kmem_cache_args'
 *	use_freeptr_offset does); flags, design and sheaves_cpu_slabs have their fields
 * @tunables: values of the tunables @tunables_set names, by enum slablab_tunable
 *
 * The tunables are those of cache-new (uapi/slablab.yaml's cache-tunables, generated
 * into <slablab/protocol.h>); creation checks and applies them as cache-new does, so a
 * bad value fails the creation. E.g. no cpu partial lists and three partial slabs:
 *
 *	.tunables_set = BIT(SLABLAB_TUNABLE_CPU_PARTIAL) | BIT(SLABLAB_TUNABLE_MIN_PARTIAL),
 *	.tunables = { [SLABLAB_TUNABLE_CPU_PARTIAL] = 0, [SLABLAB_TUNABLE_MIN_PARTIAL] = 3 },
 */
struct slablab_cache_args {
	unsigned int align;
	unsigned int flags;
	void (*ctor)(void *obj);
	unsigned int design;
	bool sheaves_cpu_slabs;
	u32 tunables_set;
	u32 tunables[SLABLAB_NR_TUNABLES];
};

struct slablab_cache *slablab_cache_create_args(const char *name, unsigned int size,
						const struct slablab_cache_args *args);
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
struct slablab_sheaf *slablab_cache_prefill_sheaf(struct slablab_cache *s, gfp_t gfp,
						  unsigned int size);
void *slablab_cache_alloc_from_sheaf(struct slablab_cache *s, gfp_t gfp,
				     struct slablab_sheaf *sheaf);
int slablab_cache_refill_sheaf(struct slablab_cache *s, gfp_t gfp,
			       struct slablab_sheaf **sheafp, unsigned int size);
void slablab_cache_return_sheaf(struct slablab_cache *s, gfp_t gfp,
				struct slablab_sheaf *sheaf);
unsigned int slablab_cache_sheaf_size(struct slablab_sheaf *sheaf);
void *slablab_kmalloc(size_t size, gfp_t gfp);
void slablab_kfree(const void *p);

struct rcu_head;
void __slablab_cache_free_rcu(struct slablab_cache *s, struct rcu_head *head, void *obj);
void __slablab_kfree_rcu(struct rcu_head *head, void *ptr);

/*
 * RCU frees, in the shape of the kernel's two-argument kfree_rcu(ptr, rhf): @ptr is freed
 * after a grace period, @rhf names a struct rcu_head inside *@ptr that slablab may use
 * until then (the generic path links objects through it; the sheaves design's rcu_free
 * sheaf, like 7.x's, does not touch it). There is no headless form (the kernel's
 * kfree_rcu_mightsleep()): see docs/design.md, "RCU frees". NULL is ignored. Any
 * context, as kfree_rcu(): interrupts off or a raw spinlock held too (the kernel-doc of
 * __slablab_cache_free_rcu() says how).
 */
#define slablab_cache_free_rcu(s, ptr, rhf)					\
do {										\
	typeof(ptr) ___p = (ptr);						\
										\
	if (___p)								\
		__slablab_cache_free_rcu(s, (void *)___p +			\
					 offsetof(typeof(*___p), rhf), ___p);	\
} while (0)

#define slablab_kfree_rcu(ptr, rhf)						\
do {										\
	typeof(ptr) ___p = (ptr);						\
										\
	if (___p)								\
		__slablab_kfree_rcu((void *)___p + offsetof(typeof(*___p), rhf),	\
				    ___p);					\
} while (0)

#endif /* _SLABLAB_H */
