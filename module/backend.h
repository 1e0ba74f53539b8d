/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared back end's inline helpers and entry points, for the designs (design_*.c)
 * and the cache API (cache.c) above it. backend.c's top comment describes slabs, their
 * states and the locks; nothing here takes a lock a design does not already know of.
 */
#ifndef _SLABLAB_BACKEND_H
#define _SLABLAB_BACKEND_H

#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/swab.h>
#include <linux/uaccess.h>
#include "internal.h"
#include "trace.h"

/* gfp bits that say how hard to try, passed on to the page and metadata allocations */
#define SLABLAB_RECLAIM_GFP (__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_NOWARN | \
			     __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | __GFP_NORETRY | \
			     __GFP_MEMALLOC | __GFP_NOMEMALLOC | __GFP_HIGH)
/* gfp bits that say where from: for the pages only (mm/internal.h's GFP_CONSTRAINT_MASK) */
#define SLABLAB_CONSTRAINT_GFP (__GFP_HARDWALL | __GFP_THISNODE)

static __always_inline void stat(struct slablab_cache *s, enum slablab_stat_item si)
{
	this_cpu_inc(s->cpu->stat[si]);
}

static __always_inline void stat_add(struct slablab_cache *s, enum slablab_stat_item si,
				     unsigned long n)
{
	this_cpu_add(s->cpu->stat[si], n);
}

/* ---- double-word cmpxchg, 6.1 (cmpxchg_double) and 6.6+ (cmpxchg128) ---- */

static __always_inline bool pair_cmpxchg(union slablab_pair *p, union slablab_pair old,
					 union slablab_pair new)
{
#ifdef system_has_cmpxchg128
	return try_cmpxchg128(&p->full, &old.full, new.full);
#else
	return cmpxchg_double(&p->freelist, &p->word, old.freelist, old.word,
			      new.freelist, new.word);
#endif
}

/* A racy but tear-free enough snapshot; every use re-checks it with pair_cmpxchg(). */
static __always_inline union slablab_pair read_pair(union slablab_pair *p)
{
	union slablab_pair v;

	v.word = READ_ONCE(p->word);
	v.freelist = READ_ONCE(p->freelist);
	return v;
}

/*
 * Freeze or unfreeze @slab and change nothing else of it: its freelist, inuse and
 * objects stay as they are, in one cmpxchg of its pair, tried again (each failure
 * counted as CMPXCHG_DOUBLE_FAIL) until it holds. Frees may come in meanwhile: what
 * the caller needs of the slab it reads from the pair this returns, the one replaced.
 */
static __always_inline union slablab_pair slab_set_frozen(struct slablab_cache *s,
							  struct slablab_slab *slab,
							  bool frozen)
{
	union slablab_pair old, new;
	struct slablab_counters c;

	for (;;) {
		old = read_pair(&slab->fc);
		c.word = old.word;
		c.frozen = frozen;
		new.freelist = old.freelist;
		new.word = c.word;
		if (pair_cmpxchg(&slab->fc, old, new))
			return old;
		stat(s, SLABLAB_CMPXCHG_DOUBLE_FAIL);
	}
}

/* ---- free pointers ---- */

static __always_inline void *fp_code(const struct slablab_cache *s, void *ptr,
				     unsigned long addr)
{
	if (s->flags & SLABLAB_CACHE_F_HARDENED)
		return (void *)((unsigned long)ptr ^ s->random ^ swab(addr));
	return ptr;
}

static __always_inline void *get_fp(const struct slablab_cache *s, void *obj)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;

	return fp_code(s, READ_ONCE(*(void **)addr), addr);
}

/*
 * The lockless alloc fast path reads the free pointer of a cpu freelist head it read
 * earlier. If the task was preempted or migrated in between, that object may since
 * have been allocated, or its slab flushed, emptied and freed to the page allocator;
 * the cmpxchg then fails on the tid and the value is never used, but the read itself
 * happens, as in SLUB's get_freepointer_safe(). mm/slub.c is built without KASAN and
 * KCSAN instrumentation (KASAN_SANITIZE_slub.o := n), so its plain read passes; here
 * READ_ONCE() would have KASAN report a use-after-free of the freed page. Read it the
 * way only this read may: READ_ONCE_NOCHECK(), unseen by KASAN and KCSAN. With
 * DEBUG_PAGEALLOC the freed page is unmapped: read it without faulting.
 */
static __always_inline void *get_fp_safe(const struct slablab_cache *s, void *obj)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;
	void *p;

	if (IS_ENABLED(CONFIG_DEBUG_PAGEALLOC) && debug_pagealloc_enabled_static()) {
		if (copy_from_kernel_nofault(&p, (void **)addr, sizeof(p)))
			return NULL;
	} else {
		p = READ_ONCE_NOCHECK(*(void **)addr);
	}
	return fp_code(s, p, addr);
}

static __always_inline void set_fp(const struct slablab_cache *s, void *obj, void *fp)
{
	unsigned long addr = (unsigned long)obj + s->fp_offset;

	*(void **)addr = fp_code(s, fp, addr);
}

/*
 * The free op (struct slablab_design_ops) of a design that takes objects one at a
 * time: @free_one on each of the detached list of @cnt objects of @slab from @head,
 * linked by free pointer, head first. Each object's successor is read before
 * @free_one has it, as that may write over its free pointer.
 */
static __always_inline void free_list_each(struct slablab_cache *s, struct slablab_slab *slab,
					   void *head, unsigned int cnt,
					   void (*free_one)(struct slablab_cache *s,
							    struct slablab_slab *slab, void *obj))
{
	while (cnt--) {
		void *next = cnt ? get_fp(s, head) : NULL;

		free_one(s, slab, head);
		head = next;
	}
}

static __always_inline struct slablab_slab *obj_to_slab(const void *obj)
{
	return (struct slablab_slab *)page_private(virt_to_head_page(obj));
}

static __always_inline bool node_match(struct slablab_slab *slab, int node)
{
	return node == NUMA_NO_NODE || slab_nid(slab) == node;
}

/*
 * The node check of the lockless fast path, which holds no lock on c->slab: that slab
 * may have been freed, its metadata with it (a kmem_cache object, or the slab's own
 * leftover space). Ask the struct page of the freelist head instead, which always
 * exists (it lies in the cpu slab, so its node is the slab's), as SLUB's node_match()
 * reads only the struct slab overlaying struct page.
 */
static __always_inline bool obj_node_match(const void *obj, int node)
{
	return node == NUMA_NO_NODE || page_to_nid(virt_to_page(obj)) == node;
}

static inline unsigned int slab_objects(struct slablab_slab *slab)
{
	struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

	return c.objects;
}

/* ---- node partial lists ---- */

static inline void add_partial(struct slablab_node *n, struct slablab_slab *slab, bool tail)
{
	lockdep_assert_held(&n->list_lock);
	if (tail)
		list_add_tail(&slab->node_list, &n->partial);
	else
		list_add(&slab->node_list, &n->partial);
	slab->base_flags |= SLABLAB_SLAB_ON_PARTIAL;
	n->nr_partial++;
}

static inline void remove_partial(struct slablab_node *n, struct slablab_slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	list_del(&slab->node_list);
	slab->base_flags &= ~SLABLAB_SLAB_ON_PARTIAL;
	n->nr_partial--;
}

/*
 * An empty unfrozen slab off every list will be discarded once list_lock is dropped:
 * say so while the lock is held (validate holds it, see SLABLAB_SLAB_DYING).
 */
static inline void mark_dying(struct slablab_node *n, struct slablab_slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	slab->base_flags |= SLABLAB_SLAB_DYING;
}

/* ---- back end entry points (backend.c) ---- */

bool slablab_have_cmpxchg_double(void);
bool slablab_debug_alloc_check(struct slablab_cache *s, void *obj);
bool slablab_debug_free_check(struct slablab_cache *s, struct slablab_slab *slab, void *obj);
bool slablab_debug_rcu_queue(struct slablab_cache *s, void *obj, const void *head);
void slablab_debug_rcu_unqueue(struct slablab_cache *s, void *obj);
unsigned int slablab_min_order(const struct slablab_cache *s);
bool slablab_inject_new_slab_failure(struct slablab_cache *s, gfp_t gfp, unsigned int order);
struct slablab_slab *slablab_new_slab(struct slablab_cache *s, gfp_t gfp, int node,
				      void **freelist);
struct slablab_slab *slablab_new_slab_one_order(struct slablab_cache *s, gfp_t gfp, int node,
						void **freelist);
void slablab_discard_slab(struct slablab_cache *s, struct slablab_slab *slab);
bool slablab_free_to_slab(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			  void *tail, unsigned int cnt, bool may_freeze);
bool slablab_return_to_slab(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			    void *tail, unsigned int cnt, bool may_freeze);
unsigned long slablab_on_each_cpu(struct slablab_cache *s, slablab_cpu_fn fn,
				  slablab_cpu_pred needed, int mode, void *arg, bool every_cpu);
unsigned int slablab_layout_stride(const struct slablab_cache *s, unsigned int flags,
				   unsigned int design, unsigned int *fp_offset);
void slablab_compute_layout(struct slablab_cache *s, unsigned int design);
int slablab_make_random_seq(const struct slablab_cache *s, unsigned int design,
			    unsigned int **seq, unsigned int *len);
void slablab_set_random_seq(struct slablab_cache *s, unsigned int *seq, unsigned int len);
int slablab_choose_order(struct slablab_cache *s, unsigned int design,
			 struct netlink_ext_ack *extack);
void slablab_discard_all_slabs(struct slablab_cache *s);
void slablab_leak_forget_slabs(struct slablab_cache *s);
void slablab_leak_forget_range(void *start, size_t len, size_t step);
unsigned long slablab_shrink_nodes(struct slablab_cache *s, bool keep_min_partial);
void slablab_validate_slabs(struct slablab_cache *s, struct slablab_validate_report *r);
void slablab_backend_gauges(struct slablab_cache *s, struct slablab_gauges *g);
void slablab_backend_layers(struct slablab_cache *s, struct slablab_layers *l);
void slablab_backend_occupancy(struct slablab_cache *s, struct slablab_occupancy *h);

int slablab_backend_init(void);
void slablab_backend_exit(void);

/* ---- the occupancy histogram (backend.c, design_slob.c) ---- */

/* Slabs (heap pages) counted per hold of their lock: interrupts are off for ~that many loads. */
#define SLABLAB_OCCUPANCY_BATCH	256

/*
 * The occupancy bucket of a slab (or slob heap page) of @objects slots, @inuse of them
 * in use: a count per bucket when the histogram has one per count, else the middle
 * buckets split 1..@objects - 1 (slablab_occupancy_range() inverts it for @h->objs).
 */
static inline unsigned int slablab_occupancy_bucket(const struct slablab_occupancy *h,
						    unsigned int objects, unsigned int inuse)
{
	if (!inuse)
		return 0;
	if (inuse >= objects)
		return h->nr - 1;
	return 1 + (inuse - 1) * (h->nr - 2) / (objects - 1);
}

/*
 * A slow path's start for the slablab_alloc_slow event: the clock only while the event
 * is enabled (0 otherwise; 1 or more when read).
 */
static __always_inline u64 slablab_slow_start(void)
{
	return trace_slablab_alloc_slow_enabled() ? ktime_get_ns() | 1 : 0;
}

/* Its end: the event, with the time since slablab_slow_start() when that read the clock. */
static __always_inline void slablab_slow_end(const struct slablab_cache *s, const void *obj,
					     int node, u64 t0)
{
	if (unlikely(t0))
		trace_slablab_alloc_slow(s, obj, node, ktime_get_ns() - t0);
}

/*
 * Whether an allocation zeroes the object: 6.1's slab_want_init_on_alloc() (mm/slab.h):
 * init_on_alloc zeroes every object but a constructed one, and a typesafe-by-rcu or
 * poisoned (debug) one only for __GFP_ZERO; without it only __GFP_ZERO does. The slob
 * design zeroes a heap block for __GFP_ZERO alone, as 6.1's slob_alloc() (its large
 * objects' pages are zeroed by the page allocator, init_on_alloc included).
 */
static __always_inline bool slablab_want_init_on_alloc(const struct slablab_cache *s, gfp_t gfp)
{
	if (s->design == SLABLAB_DESIGN_SLOB || !want_init_on_alloc(0))
		return gfp & __GFP_ZERO;
	if (s->ctor)
		return false;
	if (s->flags & (SLABLAB_CACHE_F_TYPESAFE_BY_RCU | SLABLAB_CACHE_F_DEBUG))
		return gfp & __GFP_ZERO;
	return true;
}

/* Whether a free zeroes the object: 6.1's slab_want_init_on_free(); never on slob. */
static __always_inline bool slablab_want_init_on_free(const struct slablab_cache *s)
{
	return want_init_on_free() && !s->ctor && s->design != SLABLAB_DESIGN_SLOB &&
	       !(s->flags & (SLABLAB_CACHE_F_TYPESAFE_BY_RCU | SLABLAB_CACHE_F_DEBUG));
}

/*
 * kmemleak (CONFIG_DEBUG_KMEMLEAK; without it these calls are empty inlines): an
 * object is registered when a caller gets it and unregistered when it comes back, as
 * 6.1's slab_post_alloc_hook() and slab_free_hook() do (kmemleak_alloc_recursive(),
 * kmemleak_free_recursive(); slablab has no SLAB_NOLEAKTRACE caches), so a slablab
 * object nobody points to is reported, and what objects point to is scanned. Objects
 * in a design's per-cpu layers, barns, arrays or (not oversize) prefilled sheaves are
 * free: unknown to kmemleak, and the arrays and sheaves that hold them are not scanned
 * (kmemleak_no_scan(): their stale slots would hide a leaked object). Two differences
 * from SLUB, both for the debug mode: an object its check finds was not free (a corrupt
 * freelist handed out a live one) is registered already and is not registered again
 * (kmemleak stops itself on an overlap), and a free the checks refuse (a double free, a
 * foreign pointer) leaves kmemleak alone: the object stays allocated, and known.
 */
static __always_inline void *alloc_hook(struct slablab_cache *s, void *obj, gfp_t gfp)
{
	bool was_free = true;

	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG))
		was_free = slablab_debug_alloc_check(s, obj);
	if (slablab_want_init_on_alloc(s, gfp))
		memset(obj, 0, s->object_size);
	if (likely(was_free))
		kmemleak_alloc(obj, s->object_size, 1, gfp);
	return obj;
}

/* Prepare one object for freeing; false when debug checks refuse it. */
static __always_inline bool free_hook(struct slablab_cache *s, struct slablab_slab *slab,
				      void *obj)
{
	if (unlikely(s->flags & SLABLAB_CACHE_F_DEBUG) &&
	    !slablab_debug_free_check(s, slab, obj))
		return false;
	kmemleak_free(obj);
	/* (never for a debug cache: slablab_want_init_on_free()) */
	if (slablab_want_init_on_free(s))
		memset(obj, 0, s->object_size);
	return true;
}

#endif /* _SLABLAB_BACKEND_H */
