/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target layer: what a storm (storm.c) or a replay (replay.c) allocates from, and
 * what is measured of it. One struct, one inline dispatch, one measurement of the
 * pages held and one way to make the per-cpu kthreads, for both engines (target.c).
 *
 * A target is one of enum slablab_target (the uapi's: slablab, native, kmalloc,
 * native-kmalloc) over caches numbered from 1, as a replay's events number them:
 *   cache N   lab[N - 1] (slablab) or native[N - 1] (native); kmalloc targets take
 *             every allocation by its size whatever cache it names
 *   cache 0   an allocation by size: slablab_kmalloc() (slablab), a class of the
 *             target's own made as the kernel makes its kmalloc classes (native;
 *             above the largest, the kernel's kmalloc()), or the kmalloc targets'
 * A storm is a target of one cache (cache 1), or of sizes alone (native with SIZES,
 * kmalloc targets: cache 0); a replay has one cache per recorded cache.
 *
 * The dispatch is a switch on a constant inside __always_inline loops: each engine
 * instantiates its loop once per kind, so each allocator is called directly, never
 * through a function pointer (retpolines would add the same cost to both sides and blur
 * the ratio). A replay's cache number is the event's, a storm's a constant.
 *
 * Locking: target.c's top. Its caches live as long as the target (the engine creates
 * and destroys them; every slablab cache it holds has ->users raised); its native
 * figures' files are opened by the engine's starting caller and read by its kthreads;
 * slablab_target_set_sysfs_root() takes target.c's target_root_lock.
 *
 * Included by storm.c, replay.c and target.c, and by selftest.c for the
 * selftest_native_sysfs hook (slablab_target_set_sysfs_root()).
 */
#ifndef _SLABLAB_TARGET_H
#define _SLABLAB_TARGET_H

#include <linux/slab.h>
#include <linux/path.h>
#include "internal.h"

/* slablab's kmalloc classes a target may count (kmalloc.c has SLABLAB_KMALLOC_CLASSES) */
#define SLABLAB_TARGET_MAX_KMALLOC	32

/*
 * Where the native targets' figures come from: what the kernel's allocator has
 * (slablab_native_source()):
 *   SYSFS     SLUB: /sys/kernel/slab/<cache>/{slabs,order}; with CONFIG_SLUB_STATS
 *             also the cache's counters
 *   SLABINFO  SLAB: no SLUB sysfs; the caches' /proc/slabinfo rows (num_slabs *
 *             pagesperslab); the kmalloc-N rows for the kernel's kmalloc
 *   SYSTEM    SLOB: no sysfs, no slabinfo, and its caches share one heap, so no
 *             figure is any cache's own: the kernel's slab pages (NR_SLAB_*),
 *             whole-system
 */
enum slablab_native_src {
	SLABLAB_NATIVE_SYSFS,
	SLABLAB_NATIVE_SLABINFO,
	SLABLAB_NATIVE_SYSTEM,
};

/* What reading a native target's figures needs, looked up when it starts. */
struct slablab_native_figures {
	u32 src;			/* enum slablab_native_src */
	char sysfs_root[64];		/* slablab_target_sysfs_root at start */
	struct path sysfs_dir;		/* it, looked up by the starting caller */
	int sysfs_dir_err;		/* the lookup's error */
	struct path proc_dir;		/* SLABINFO: /proc, looked up by the caller */
	int proc_dir_err;
	struct mutex lock;		/* SLABINFO: buf, one reading at a time */
	char *buf;			/* SLABINFO: PAGE_SIZE */
	/* SYSFS: each cache's slabs file, open, and its order (sysfs_figures_open()) */
	struct slablab_native_fig {
		struct file *slabs;
		u32 order;
	} *figs;
	u32 nr_figs;
	unsigned long warned;		/* bit 0: a reading failed, said once */
};

struct slablab_alloc_target {
	u32 kind;			/* enum slablab_target */
	u32 nr_caches;			/* caches 1..nr_caches */
	struct slablab_cache **lab;	/* [nr_caches]: slablab */
	struct kmem_cache **native;	/* [nr_caches]: native */
	/* a one-cache target's (a storm's): lab/native point here */
	struct slablab_cache *one_lab;
	struct kmem_cache *one_native;
	/* native: cache 0's classes of the target's own, by slablab_kmalloc_index() */
	struct kmem_cache *classes[SLABLAB_KMALLOC_CLASSES];
	/* slablab's kmalloc classes it counts (slablab_target_collect_kmalloc()) */
	struct slablab_cache *kmalloc_caches[SLABLAB_TARGET_MAX_KMALLOC];
	unsigned int nr_kmalloc_caches;
	/*
	 * native: pages of the kernel's kmalloc() above its classes (the page allocator's,
	 * as slablab_kmalloc_direct_pages() are slablab's), which no cache's figure holds
	 */
	atomic_long_t large_pages;
	/*
	 * native: the kernel caches' names. A one-cache target's cache is NAME, more
	 * caches are NAME-N (from 0), the classes NAME-kmalloc-SIZE: every cache the target
	 * made is NAME or NAME-..., which is how slabinfo rows are matched.
	 */
	char name[SLABLAB_NAME_MAX + 16];
	struct slablab_native_figures nf;
};

/* What the rcu pattern sees of an object: its rcu_head at offset 0 (size checked). */
struct slablab_target_rcu_obj {
	struct rcu_head rcu;
};

static inline bool slablab_target_is_native(u32 kind)
{
	return kind == SLABLAB_TARGET_NATIVE || kind == SLABLAB_TARGET_NATIVE_KMALLOC;
}

/*
 * The kernel's kmalloc() and kfree() for a native target. With @large (a compile-time
 * constant: the target may ask for more than the kernel's largest class), the pages of
 * what goes past the classes to the page allocator are counted in tg->large_pages, as
 * slablab_kmalloc() counts its own; kfree() asks the folio the same question right
 * after. Without, nothing is added to the timed calls: a storm whose sizes all fit a
 * class. Not on SLOB, whose figure is the system's slab pages anyway.
 */
static __always_inline void *target_kmalloc(struct slablab_alloc_target *tg, u32 size,
					    gfp_t gfp, const bool large)
{
	void *p = kmalloc(size, gfp);

	if (large && !IS_ENABLED(CONFIG_SLOB) && unlikely(size > KMALLOC_MAX_CACHE_SIZE) && p)
		atomic_long_add(folio_nr_pages(virt_to_folio(p)), &tg->large_pages);
	return p;
}

static __always_inline void target_kfree(struct slablab_alloc_target *tg, void *p,
					 const bool large)
{
	struct folio *folio;

	/* kmalloc(0)'s ZERO_SIZE_PTR has no folio: kfree() ignores it, so must this */
	if (large && !IS_ENABLED(CONFIG_SLOB) && likely(!ZERO_OR_NULL_PTR(p))) {
		folio = virt_to_folio(p);
		if (unlikely(!folio_test_slab(folio)))
			atomic_long_sub(folio_nr_pages(folio), &tg->large_pages);
	}
	kfree(p);
}

/*
 * Cache @cache's slablab and native caches. A storm's is a constant 1 and its target
 * has one cache, in one_lab/one_native: read there, no load of the array's address
 * inside its timed loops.
 */
static __always_inline struct slablab_cache *target_lab(struct slablab_alloc_target *tg,
							u32 cache)
{
	if (__builtin_constant_p(cache) && cache == 1)
		return tg->one_lab;
	return tg->lab[cache - 1];
}

static __always_inline struct kmem_cache *target_native(struct slablab_alloc_target *tg,
							u32 cache)
{
	if (__builtin_constant_p(cache) && cache == 1)
		return tg->one_native;
	return tg->native[cache - 1];
}

/*
 * An object of @size bytes from cache @cache of @tg (0: by size; see the top); @large:
 * sizes past the kernel's largest kmalloc class may come (target_kmalloc()).
 */
static __always_inline void *slablab_target_alloc(struct slablab_alloc_target *tg,
						  const u32 kind, u32 cache, u32 size,
						  gfp_t gfp, const bool large)
{
	switch (kind) {
	case SLABLAB_TARGET_SLABLAB:
		return cache ? slablab_cache_alloc(target_lab(tg, cache), gfp) :
			       slablab_kmalloc(size, gfp);
	case SLABLAB_TARGET_NATIVE:
		if (cache)
			return kmem_cache_alloc(target_native(tg, cache), gfp);
		/*
		 * the target's own classes; above the largest (or 0) the kernel's kmalloc().
		 * Without @large every size fits one (a storm's, checked at its start).
		 */
		if (!IS_ENABLED(CONFIG_SLOB) && (!large || likely(size - 1 < SLABLAB_KMALLOC_MAX)))
			return kmem_cache_alloc(tg->classes[slablab_kmalloc_index(size)], gfp);
		return target_kmalloc(tg, size, gfp, large);
	case SLABLAB_TARGET_KMALLOC:
		return slablab_kmalloc(size, gfp);
	default:
		return target_kmalloc(tg, size, gfp, large);
	}
}

static __always_inline void slablab_target_free(struct slablab_alloc_target *tg,
						const u32 kind, u32 cache, void *p,
						const bool large)
{
	switch (kind) {
	case SLABLAB_TARGET_SLABLAB:
		if (cache)
			slablab_cache_free(target_lab(tg, cache), p);
		else
			slablab_kfree(p);
		break;
	case SLABLAB_TARGET_NATIVE:
		if (cache)
			kmem_cache_free(target_native(tg, cache), p);
		else	/* finds the class, or the large kmalloc's pages */
			target_kfree(tg, p, large);
		break;
	case SLABLAB_TARGET_KMALLOC:
		slablab_kfree(p);
		break;
	default:
		target_kfree(tg, p, large);
	}
}

/*
 * Free @p after a grace period through its rcu_head at offset 0: slablab targets only
 * (the kernel's kfree_rcu() has no barrier to wait for on 6.1; storms check).
 */
static __always_inline void slablab_target_free_rcu(struct slablab_alloc_target *tg,
						    const u32 kind, u32 cache, void *p)
{
	struct slablab_target_rcu_obj *o = p;

	if (kind == SLABLAB_TARGET_SLABLAB && cache)
		slablab_cache_free_rcu(target_lab(tg, cache), o, rcu);
	else
		slablab_kfree_rcu(o, rcu);
}

/* All or nothing: @n, or 0 with nothing held. Cache @cache (>= 1) of cache targets. */
static __always_inline int slablab_target_alloc_bulk(struct slablab_alloc_target *tg,
						     const u32 kind, u32 cache, u32 n,
						     void **objs)
{
	if (kind == SLABLAB_TARGET_SLABLAB)
		return slablab_cache_alloc_bulk(target_lab(tg, cache), GFP_KERNEL, n, objs);
	/* 6.x returns the count (@n or 0), 7.x true or false: both all or nothing */
	return kmem_cache_alloc_bulk(target_native(tg, cache), GFP_KERNEL, n, objs) ? n : 0;
}

/* Frees @n objects (NULL entries skipped) and clears @objs. */
static __always_inline void slablab_target_free_bulk(struct slablab_alloc_target *tg,
						     const u32 kind, u32 cache, u32 n,
						     void **objs)
{
	u32 i;

	if (cache && kind == SLABLAB_TARGET_SLABLAB) {
		slablab_cache_free_bulk(target_lab(tg, cache), n, objs);
		return;
	}
	if (cache && kind == SLABLAB_TARGET_NATIVE) {
		kmem_cache_free_bulk(target_native(tg, cache), n, objs);
		return;
	}
	for (i = 0; i < n; i++) {
		if (objs[i])
			/* bulk runs on cache targets (storms refuse others): no large kmalloc */
			slablab_target_free(tg, kind, cache, objs[i], false);
		objs[i] = NULL;
	}
}

/*
 * Is the native figure shared with the rest of the system (the kernel's kmalloc classes;
 * SLOB's slab pages)? Then what counts is what lies above its value at the start.
 */
static inline bool slablab_target_shared_figure(const struct slablab_alloc_target *tg)
{
	return tg->kind == SLABLAB_TARGET_NATIVE_KMALLOC ||
	       (tg->kind == SLABLAB_TARGET_NATIVE && tg->nf.src == SLABLAB_NATIVE_SYSTEM);
}

void slablab_target_init(struct slablab_alloc_target *tg, u32 kind, const char *name);
int slablab_target_alloc_caches(struct slablab_alloc_target *tg, u32 nr);
void slablab_target_collect_kmalloc(struct slablab_alloc_target *tg);
void slablab_target_add_lab(struct slablab_alloc_target *tg, u32 i, struct slablab_cache *s);
void slablab_target_cache_name(const struct slablab_alloc_target *tg, u32 i, char *buf,
			       size_t len);
struct kmem_cache *slablab_target_native_create(const char *name, unsigned int size,
						unsigned int align, slab_flags_t flags);
struct kmem_cache *slablab_target_create_class(struct slablab_alloc_target *tg, u32 size);
void slablab_target_release(struct slablab_alloc_target *tg, bool owned);
void slablab_target_empty(struct slablab_alloc_target *tg);
void slablab_target_shrink(struct slablab_alloc_target *tg);
void slablab_target_rcu_drain(struct slablab_alloc_target *tg);
int slablab_target_figures_check(struct slablab_alloc_target *tg, struct netlink_ext_ack *extack);
int slablab_target_read_u64(struct slablab_alloc_target *tg, const char *name, u64 *v);
int slablab_target_native_pages(struct slablab_alloc_target *tg, u64 *pages, char *path,
				size_t path_len);
u64 slablab_target_pages(struct slablab_alloc_target *tg, u64 *meta, const char *who, u32 id);
u64 slablab_target_rcu_waiting(struct slablab_alloc_target *tg, u64 *rcu_pages);
struct task_struct *slablab_target_kthread(int (*fn)(void *data), void *data, int cpu,
					   const char *name, u32 id, u32 idx);
/* the selftest_native_sysfs hook's: where native targets' SLUB figures are read from */
int slablab_target_set_sysfs_root(const char *root);

#endif /* _SLABLAB_TARGET_H */
