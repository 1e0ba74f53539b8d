// SPDX-License-Identifier: GPL-2.0
/*
 * The slob design: SLOB's heap (mm/slob.c of 6.1, removed in 6.4) behind the design
 * ops. There are no slabs of fixed-size slots and no per-cpu layer: every slob-design
 * cache of the lab, and the kmalloc size classes when they run on slob, carve their
 * objects out of one heap of order-0 pages under one lock, as SLOB did.
 *
 * Pages
 *   A heap page is cut into units of SLOB_UNIT (2) bytes. Its free blocks form a list
 *   in address order, encoded in the free units themselves: a block of more than one
 *   unit holds its size and the offset (in units from the page start) of the next free
 *   block; a one-unit block holds the negated offset. The last block's next offset is
 *   the page's end. A page's metadata (struct slob_page: free units, blocks in use,
 *   first free block, list link, the cache charged for the page) is kmalloc'ed: SLOB
 *   kept it in struct page, which a module may not overlay; its bytes are reported as
 *   the charged cache's meta_bytes. The head page's ->private is the metadata's address with bit 0
 *   set (SLABLAB_PAGE_SLOB): slablab_kfree() tells a heap page from a slab (a pointer,
 *   bit 0 clear) and from a page of the page allocator (0) by it.
 *
 * Allocation (slob_alloc)
 *   Partially free pages are on one of up to three lists, chosen by the request size
 *   (SLOB_BREAK1 256, SLOB_BREAK2 1024) and the requesting cache's lists tunable: 3
 *   (small, medium, large, SLOB since 2.6.25), 2 (below 1024 and the rest), 1 (one
 *   list, SLOB before 2.6.25). The list is walked from its head; a page with enough
 *   free units is searched first fit (an aligned fit, cutting an alignment fragment
 *   off the front when needed); the page that satisfied the request becomes the list's
 *   head (the list is rotated, Knuth's next fit, as SLOB's list_rotate_to_front()).
 *   No fit: a new page joins the list of the request. A page that becomes full leaves
 *   its list; a full page that gets a free rejoins the list the freed block's size
 *   chooses (slob_free()), else a page stays on the list it joined.
 *
 * Free (slob_free)
 *   The block is inserted in address order and merged with a free neighbour on either
 *   side (counted as slob_coalesce). A page whose every unit is free goes back to the
 *   page allocator at once: slob keeps no empty pages, so shrink has nothing to do.
 *
 * Objects of a page or more (object_size >= PAGE_SIZE) come from the page allocator
 * (->private 0), as SLOB's kmem_cache_alloc() did, charged to the cache's pages.
 *
 * Zeroing: only __GFP_ZERO zeroes a block, as slob_alloc() did; 6.1's SLOB ignores
 * init_on_alloc and init_on_free (only its pages, from the page allocator, are zeroed
 * by init_on_alloc), and so does this design.
 *
 * Locks
 *   slob_heap.lock (spinlock, irqsave): every heap page's blocks and metadata, the
 *   lists, the heap's figures, each slob cache's charged pages and scan maximum
 *   (struct slablab_slob_state, s->slob_state: this file's alone, zeroed by init). It is
 *   taken alone: no other slablab lock is held under it, and it is taken under none
 *   but cpus_read_lock and slablab_mutex (a design change, destroy, validate, the
 *   occupancy histogram). The
 *   cache's per-cpu lock is never used: there is no per-cpu state.
 */

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include "backend.h"

/* A unit; a page's units are counted in s16 (PAGE_SIZE / SLOB_UNIT fits up to 32 KiB pages). */
struct slob_block {
	s16 units;
};

static_assert(PAGE_SIZE / 2 <= S16_MAX);

#define SLOB_UNIT	sizeof(struct slob_block)
#define SLOB_UNITS(size)	DIV_ROUND_UP(size, SLOB_UNIT)
#define SLOB_BREAK1	256
#define SLOB_BREAK2	1024
#define SLOB_LISTS	3
#define SLOB_MINALIGN	SLABLAB_SLOB_MINALIGN

/**
 * struct slob_page - a heap page's metadata (SLOB kept it in struct page)
 * @list: link in a heap list, while @on_list
 * @all: link in the heap's list of every page (validate, orphaning)
 * @base: the page's address
 * @owner: the cache charged for the page (the one whose request took it), or NULL
 *	once that cache is gone
 * @units: free units
 * @objects: blocks in use, of any cache (the page-occupancy histogram)
 * @freelist: the first free block, or NULL when full
 * @on_list: which heap list the page is on, or -1 (full)
 */
struct slob_page {
	struct list_head list;
	struct list_head all;
	void *base;
	struct slablab_cache *owner;
	int units;
	int objects;
	struct slob_block *freelist;
	int on_list;
};

/**
 * struct slob_heap - the lab's one heap
 * @lock: everything below, every heap page and each slob cache's charged pages
 * @free: partially free pages, by list
 * @all: every heap page
 * @nr_pages: heap pages
 * @nr_list: pages on each list
 * @free_units: free units in all heap pages
 * @orphan_pages: pages whose charged cache is gone (they hold other caches' objects)
 * @large: pages of objects of a page or more (page->lru), freed at module exit when
 *	their objects were never freed
 */
struct slob_heap {
	spinlock_t lock;	/* everything below, every heap page, slob caches' charges */
	struct list_head free[SLOB_LISTS];
	struct list_head all;
	unsigned long nr_pages;
	unsigned long nr_list[SLOB_LISTS];
	unsigned long free_units;
	unsigned long orphan_pages;
	struct list_head large;
};

static struct slob_heap slob_heap = {
	.lock = __SPIN_LOCK_UNLOCKED(slob_heap.lock),
	.free = {
		LIST_HEAD_INIT(slob_heap.free[0]),
		LIST_HEAD_INIT(slob_heap.free[1]),
		LIST_HEAD_INIT(slob_heap.free[2]),
	},
	.all = LIST_HEAD_INIT(slob_heap.all),
	.large = LIST_HEAD_INIT(slob_heap.large),
};

static inline struct slob_page *slob_page_of(const void *p)
{
	unsigned long priv = page_private(virt_to_head_page(p));

	return (priv & SLABLAB_PAGE_SLOB) ? (struct slob_page *)(priv & ~SLABLAB_PAGE_SLOB) :
					     NULL;
}

/* ---- free blocks, encoded in their units (as mm/slob.c) ---- */

static void set_slob(struct slob_block *s, s16 size, struct slob_block *next)
{
	struct slob_block *base = (struct slob_block *)((unsigned long)s & PAGE_MASK);
	s16 offset = next - base;

	if (size > 1) {
		s[0].units = size;
		s[1].units = offset;
	} else {
		s[0].units = -offset;
	}
}

static s16 slob_units(struct slob_block *s)
{
	return s->units > 0 ? s->units : 1;
}

static struct slob_block *slob_next(struct slob_block *s)
{
	struct slob_block *base = (struct slob_block *)((unsigned long)s & PAGE_MASK);
	s16 next = s[0].units < 0 ? -s[0].units : s[1].units;

	return base + next;
}

/* The last free block of its page points at the page's end. */
static bool slob_last(struct slob_block *s)
{
	return !((unsigned long)slob_next(s) & ~PAGE_MASK);
}

/* ---- the lists ---- */

/* The list a request of @size bytes uses, for a cache with @lists lists. */
static int slob_list_of(unsigned int lists, size_t size)
{
	switch (lists) {
	case 1:
		return 0;
	case 2:
		return size < SLOB_BREAK2 ? 0 : 1;
	default:
		return size < SLOB_BREAK1 ? 0 : size < SLOB_BREAK2 ? 1 : 2;
	}
}

static void slob_list_add(struct slob_page *sp, int idx)
{
	lockdep_assert_held(&slob_heap.lock);
	list_add(&sp->list, &slob_heap.free[idx]);
	sp->on_list = idx;
	slob_heap.nr_list[idx]++;
}

static void slob_list_del(struct slob_page *sp)
{
	lockdep_assert_held(&slob_heap.lock);
	list_del(&sp->list);
	slob_heap.nr_list[sp->on_list]--;
	sp->on_list = -1;
}

/*
 * First fit within one page, the block @align-aligned at @align_offset bytes into it
 * (mm/slob.c's slob_page_alloc()). Returns the block, or NULL; *@full when the page
 * left its list.
 */
static void *slob_page_alloc(struct slob_page *sp, size_t size, int align, int align_offset,
			     bool *full)
{
	struct slob_block *prev, *cur, *aligned = NULL;
	int delta = 0, units = SLOB_UNITS(size);

	*full = false;
	for (prev = NULL, cur = sp->freelist; ; prev = cur, cur = slob_next(cur)) {
		s16 avail = slob_units(cur);

		if (align) {
			aligned = (struct slob_block *)
				(ALIGN((unsigned long)cur + align_offset, align) - align_offset);
			delta = aligned - cur;
		}
		if (avail >= units + delta) {
			struct slob_block *next;

			if (delta) {
				/* An alignment fragment stays free in front of the block. */
				next = slob_next(cur);
				set_slob(aligned, avail - delta, next);
				set_slob(cur, delta, aligned);
				prev = cur;
				cur = aligned;
				avail = slob_units(cur);
			}
			next = slob_next(cur);
			if (avail == units) {
				/* exact fit: unlink */
				if (prev)
					set_slob(prev, slob_units(prev), next);
				else
					sp->freelist = next;
			} else {
				/* split: the rest stays free after the block */
				if (prev)
					set_slob(prev, slob_units(prev), cur + units);
				else
					sp->freelist = cur + units;
				set_slob(cur + units, avail - units, next);
			}
			sp->units -= units;
			sp->objects++;
			slob_heap.free_units -= units;
			if (!sp->units) {
				sp->freelist = NULL;
				slob_list_del(sp);
				*full = true;
			}
			return cur;
		}
		if (slob_last(cur))
			return NULL;
	}
}

/* Charge @s for @pages pages; @heap: heap pages (with kmalloc'ed metadata), not whole objects. */
static void slob_charge(struct slablab_cache *s, long pages, bool heap)
{
	lockdep_assert_held(&slob_heap.lock);
	s->slob_state.pages += pages;
	if (heap)
		s->slob_state.heap_pages += pages;
}

/* A page comes back to the page allocator (the heap lock dropped by then). */
static void slob_free_page(struct slob_page *sp)
{
	struct page *page = virt_to_page(sp->base);

	set_page_private(page, 0);
	__free_page(page);
	kfree(sp);
}

/*
 * @size bytes from the heap for @s (mm/slob.c's slob_alloc()): @align-aligned at
 * @align_offset. Counts the pages scanned and, when none fit, the new page.
 */
static void *slob_alloc(struct slablab_cache *s, size_t size, gfp_t gfp, int align,
			int node, int align_offset)
{
	int idx = slob_list_of(READ_ONCE(s->lists), size), units = SLOB_UNITS(size);
	struct list_head *slob_list = &slob_heap.free[idx];
	struct slob_page *sp, *new_sp;
	unsigned long flags, scanned = 0;
	struct page *page;
	void *b = NULL;
	bool full;

	spin_lock_irqsave(&slob_heap.lock, flags);
	list_for_each_entry(sp, slob_list, list) {
		scanned++;
		if (node != NUMA_NO_NODE && page_to_nid(virt_to_page(sp->base)) != node)
			continue;
		if (sp->units < units)
			continue;
		b = slob_page_alloc(sp, size, align, align_offset, &full);
		if (!b)
			continue;
		/* Next fit: the next search starts here (Knuth vol. 1, 2.5). */
		if (!full && !list_is_first(&sp->list, slob_list))
			list_rotate_to_front(&sp->list, slob_list);
		break;
	}
	if (scanned > s->slob_state.scan_max)
		WRITE_ONCE(s->slob_state.scan_max, scanned);
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	stat_add(s, SLABLAB_SLOB_SCAN, scanned);
	if (b)
		return b;

	/*
	 * No page fits: a new one, allocated without the lock (it may sleep, as @gfp
	 * allows), as SLOB did; its metadata with the same flags (__GFP_NOFAIL too).
	 */
	if (slablab_inject_new_slab_failure(s, gfp, 0))
		return NULL;	/* fault injection, as for a slab design's new slab */
	new_sp = kmalloc(sizeof(*new_sp), gfp & SLABLAB_RECLAIM_GFP);
	if (!new_sp)
		return NULL;
	page = alloc_pages_node(node, gfp & SLABLAB_RECLAIM_GFP, 0);
	if (!page) {
		kfree(new_sp);
		return NULL;
	}
	new_sp->base = page_address(page);
	new_sp->owner = s;
	new_sp->units = SLOB_UNITS(PAGE_SIZE);
	new_sp->objects = 0;
	new_sp->freelist = new_sp->base;
	new_sp->on_list = -1;
	set_slob(new_sp->freelist, SLOB_UNITS(PAGE_SIZE),
		 new_sp->freelist + SLOB_UNITS(PAGE_SIZE));
	set_page_private(page, (unsigned long)new_sp | SLABLAB_PAGE_SLOB);
	stat(s, SLABLAB_SLOB_NEW_PAGE);
	stat(s, SLABLAB_ALLOC_SLAB);
	trace_slablab_slab_new(s, page_to_nid(page), 0, 0);	/* a heap page: no slots */

	spin_lock_irqsave(&slob_heap.lock, flags);
	list_add(&new_sp->all, &slob_heap.all);
	slob_heap.nr_pages++;
	slob_heap.free_units += new_sp->units;
	slob_charge(s, 1, true);
	slob_list_add(new_sp, idx);
	b = slob_page_alloc(new_sp, size, align, align_offset, &full);
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	WARN_ON_ONCE(!b);	/* a whole page fits anything below PAGE_SIZE - align */
	return b;
}

/* Give @size bytes at @block back to the heap (mm/slob.c's slob_free()). */
static void slob_free(struct slablab_cache *s, void *block, size_t size)
{
	struct slob_page *sp = slob_page_of(block);
	struct slob_block *prev, *next, *b = block;
	unsigned long flags;
	int units = SLOB_UNITS(size);
	bool merged = false;

	spin_lock_irqsave(&slob_heap.lock, flags);
	slob_heap.free_units += units;
	if (sp->units + units == SLOB_UNITS(PAGE_SIZE)) {
		/* The page is all free: back to the page allocator. */
		if (sp->on_list >= 0)
			slob_list_del(sp);
		list_del(&sp->all);
		slob_heap.nr_pages--;
		slob_heap.free_units -= SLOB_UNITS(PAGE_SIZE);
		if (sp->owner) {
			/*
			 * Counted where it was charged (alloc_slab - free_slab = pages, per
			 * cache); the owner cannot be destroyed while the lock is held.
			 */
			slob_charge(sp->owner, -1, true);
			stat(sp->owner, SLABLAB_FREE_SLAB);
			trace_slablab_slab_free(sp->owner, page_to_nid(virt_to_page(sp->base)),
						0, 0);
		} else {
			slob_heap.orphan_pages--;
		}
		spin_unlock_irqrestore(&slob_heap.lock, flags);
		slob_free_page(sp);
		return;
	}
	sp->objects--;
	if (!sp->freelist) {
		/* A full page turns partially free: it joins the list of this block's size. */
		sp->units = units;
		sp->freelist = b;
		set_slob(b, units, (struct slob_block *)
			 ((unsigned long)(b + SLOB_UNITS(PAGE_SIZE)) & PAGE_MASK));
		slob_list_add(sp, slob_list_of(READ_ONCE(s->lists), size));
		goto out;
	}
	/* Insert in address order, merging with the neighbours. */
	sp->units += units;
	if (b < sp->freelist) {
		if (b + units == sp->freelist) {
			units += slob_units(sp->freelist);
			sp->freelist = slob_next(sp->freelist);
			merged = true;
		}
		set_slob(b, units, sp->freelist);
		sp->freelist = b;
	} else {
		prev = sp->freelist;
		next = slob_next(prev);
		while (b > next) {
			prev = next;
			next = slob_next(prev);
		}
		if (!slob_last(prev) && b + units == next) {
			units += slob_units(next);
			set_slob(b, units, slob_next(next));
			merged = true;
		} else {
			set_slob(b, units, next);
		}
		if (prev + slob_units(prev) == b) {
			units = slob_units(b) + slob_units(prev);
			set_slob(prev, units, slob_next(b));
			merged = true;
		} else {
			set_slob(prev, slob_units(prev), b);
		}
	}
out:
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	if (merged)
		stat(s, SLABLAB_SLOB_COALESCE);
}

/* ---- the cache ops ---- */

/* A slob cache's alignment: the cache's, else ARCH_SLAB_MINALIGN (SLOB's calculate_alignment()). */
static int slob_align(struct slablab_cache *s)
{
	unsigned int align = max_t(unsigned int, s->align, ARCH_SLAB_MINALIGN);

	if (s->flags & SLABLAB_CACHE_F_HWCACHE_ALIGN) {
		unsigned int ralign = cache_line_size();

		while (s->object_size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	return align;
}

/*
 * A typesafe-by-rcu object's tail while its free waits for a grace period (SLOB's
 * struct slob_rcu, with the cache for the charge).
 */
struct slob_rcu {
	struct rcu_head head;
	struct slablab_cache *s;
	size_t size;
};

/*
 * What a slob cache allocates per object: its size rounded up to units, and for a
 * typesafe-by-rcu cache a struct slob_rcu after the object (SLOB's c->size +=
 * sizeof(struct slob_rcu)); cache.c refuses such caches of objects over
 * SLABLAB_SLOB_RCU_MAX (PAGE_SIZE / 2), so that object and tail fit a heap page.
 */
static size_t slob_size(struct slablab_cache *s)
{
	size_t size = s->object_size;

	if (s->flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)
		size = ALIGN(size, sizeof(void *)) + sizeof(struct slob_rcu);
	return SLOB_UNITS(size) * SLOB_UNIT;
}

/* The grace period of a typesafe-by-rcu block is over (SLOB's kmem_rcu_free()). */
static void slob_rcu_free(struct rcu_head *head)
{
	struct slob_rcu *r = container_of(head, struct slob_rcu, head);
	struct slablab_cache *s = r->s;
	size_t size = r->size;
	unsigned long flags;

	slob_free(s, (void *)r + sizeof(*r) - size, size);
	/* Last: destroy waits for rcu_slabs (slablab_rcu_drain()). */
	spin_lock_irqsave(&s->slabs_lock, flags);
	s->rcu_slabs--;
	spin_unlock_irqrestore(&s->slabs_lock, flags);
}

static void *slob_alloc_obj(struct slablab_cache *s, gfp_t gfp, int node)
{
	void *b;

	if (node != NUMA_NO_NODE && !node_state(node, N_NORMAL_MEMORY))
		node = NUMA_NO_NODE;
	if (s->object_size < PAGE_SIZE) {
		/* every slob allocation walks the heap: its slow path, for the event */
		u64 t0 = slablab_slow_start();

		b = slob_alloc(s, slob_size(s), gfp, slob_align(s), node, 0);
		slablab_slow_end(s, b, node, t0);
		/* only __GFP_ZERO: 6.1's SLOB ignores init_on_alloc (slob_alloc()) */
		if (b && unlikely(gfp & __GFP_ZERO))
			memset(b, 0, s->object_size);
	} else {
		unsigned int order = get_order(s->object_size);
		struct page *page = NULL;
		unsigned long flags;

		/* the page allocator zeroes them (for __GFP_ZERO, or init_on_alloc) */
		if (!slablab_inject_new_slab_failure(s, gfp, order))
			page = alloc_pages_node(node, (gfp & (SLABLAB_RECLAIM_GFP | __GFP_ZERO)) |
						__GFP_COMP, order);
		b = page ? page_address(page) : NULL;
		if (b) {
			spin_lock_irqsave(&slob_heap.lock, flags);
			list_add(&page->lru, &slob_heap.large);
			slob_charge(s, 1L << order, false);
			spin_unlock_irqrestore(&slob_heap.lock, flags);
			stat(s, SLABLAB_ALLOC_SLAB);
			trace_slablab_slab_new(s, page_to_nid(page), order, 1);
		}
	}
	if (!b)
		return NULL;
	stat(s, SLABLAB_ALLOC_SLOWPATH);
	/* A free block's first units hold the free list: construct on every allocation. */
	if (s->ctor) {
		WARN_ON_ONCE(gfp & __GFP_ZERO);		/* as slob_alloc_node() */
		s->ctor(b);
	}
	/*
	 * kmemleak: as slob_alloc_node(), with SLOB's c->size (the units, and the RCU tail
	 * of a typesafe_by_rcu cache); the free side is cache.c's free_hook()
	 */
	kmemleak_alloc(b, s->object_size < PAGE_SIZE ? slob_size(s) : s->object_size, 1, gfp);
	return b;
}

static void slob_free_obj(struct slablab_cache *s, void *obj)
{
	stat(s, SLABLAB_FREE_SLOWPATH);
	if (s->flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU) {
		/*
		 * SLOB defers every free of such a cache by a grace period (its heap
		 * blocks are shared by every cache: nothing else keeps them of the type).
		 */
		size_t size = slob_size(s);
		struct slob_rcu *r = obj + size - sizeof(*r);
		unsigned long flags;

		r->s = s;
		r->size = size;
		spin_lock_irqsave(&s->slabs_lock, flags);
		s->rcu_slabs++;
		spin_unlock_irqrestore(&s->slabs_lock, flags);
		stat(s, SLABLAB_RCU_SLAB_DEFERRED);
		call_rcu(&r->head, slob_rcu_free);
		return;
	}
	if (s->object_size < PAGE_SIZE) {
		slob_free(s, obj, slob_size(s));
	} else {
		struct page *page = virt_to_head_page(obj);
		unsigned int order = compound_order(page);
		unsigned long flags;

		spin_lock_irqsave(&slob_heap.lock, flags);
		list_del(&page->lru);
		slob_charge(s, -(1L << order), false);
		spin_unlock_irqrestore(&slob_heap.lock, flags);
		stat(s, SLABLAB_FREE_SLAB);
		trace_slablab_slab_free(s, page_to_nid(page), order, 1);
		__free_pages(page, order);
	}
}

/* The free op: objects linked through their first word, @cnt of them (@slab unused). */
static void slob_free_op(struct slablab_cache *s, struct slablab_slab *slab, void *head,
			 void *tail, unsigned int cnt)
{
	/* cache.c frees one object at a time to this design: head == tail */
	WARN_ON_ONCE(cnt != 1 || head != tail);
	slob_free_obj(s, head);
}

static void slob_free_bulk(struct slablab_cache *s, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		void *obj = p[i];

		if (!obj)
			continue;
		p[i] = NULL;
		if (free_hook(s, NULL, obj))
			slob_free_obj(s, obj);
	}
}

static int slob_alloc_bulk(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		p[i] = slob_alloc_obj(s, gfp, NUMA_NO_NODE);
		if (!p[i]) {
			slob_free_bulk(s, i, p);
			return 0;
		}
	}
	return nr;
}

/* ---- kmalloc on slob (mm/slob.c's __do_kmalloc_node() and kfree()) ---- */

/**
 * slablab_slob_kmalloc - @size bytes behind a size header from the heap
 * @s: the kmalloc size class the request is counted in (and charged pages to)
 * @size: bytes wanted, below PAGE_SIZE - SLOB_MINALIGN (larger requests go to the page
 *	allocator: cache.c)
 * @gfp: allocation flags
 *
 * The header (SLOB_MINALIGN bytes, holding @size) sits in front of the block; a
 * power-of-two size is aligned to itself, as SLOB's kmalloc did.
 *
 * Return: the memory, or NULL.
 */
void *slablab_slob_kmalloc(struct slablab_cache *s, size_t size, gfp_t gfp)
{
	unsigned int minalign = SLOB_MINALIGN, align = minalign;
	u64 t0 = slablab_slow_start();
	unsigned int *m;

	if (is_power_of_2(size))
		align = max_t(unsigned int, minalign, size);
	m = slob_alloc(s, size + minalign, gfp, align, NUMA_NO_NODE, minalign);
	slablab_slow_end(s, m, NUMA_NO_NODE, t0);
	if (!m)
		return NULL;
	*m = size;
	stat(s, SLABLAB_ALLOC_SLOWPATH);
	stat_add(s, SLABLAB_SLOB_HEADER_BYTES, minalign);
	if (unlikely(gfp & __GFP_ZERO))		/* SLOB: not init_on_alloc */
		memset((void *)m + minalign, 0, size);
	/* as 6.1's __do_kmalloc_node(): the block past its header, the size asked for */
	kmemleak_alloc((void *)m + minalign, size, 1, gfp);
	return (void *)m + minalign;
}

/**
 * slablab_slob_ksize - the size a slablab_slob_kmalloc() block was asked for
 * @p: the block
 *
 * Return: the size in its header.
 */
size_t slablab_slob_ksize(const void *p)
{
	return *(const unsigned int *)(p - SLOB_MINALIGN);
}

/**
 * slablab_slob_kfree - free a slablab_slob_kmalloc() block
 * @s: the size class it was counted in (slablab_slob_ksize() chooses it)
 * @p: the block
 */
void slablab_slob_kfree(struct slablab_cache *s, const void *p)
{
	void *m = (void *)p - SLOB_MINALIGN;
	size_t size = *(unsigned int *)m;

	/* (no init_on_free: 6.1's SLOB has none) */
	kmemleak_free(p);
	stat(s, SLABLAB_FREE_SLOWPATH);
	slob_free(s, m, size + SLOB_MINALIGN);
}

/* ---- figures ---- */

static void slob_gauges(struct slablab_cache *s, struct slablab_gauges *g)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_heap.lock, flags);
	g->pages += s->slob_state.pages;
	g->meta_bytes += s->slob_state.heap_pages * kmalloc_size_roundup(sizeof(struct slob_page));
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	g->slob_scan_max = READ_ONCE(s->slob_state.scan_max);
	/* No slots: every object is a caller's, so total = in use (the counting identity). */
	g->total_objects += g->objects;
}

/*
 * The largest block @s asks the heap for, its alignment and the offset it is aligned
 * at: a slob cache's object; a kmalloc class's largest request on the heap behind its
 * size header (slablab_slob_kmalloc(): a power-of-two class aligned to itself).
 */
static void slob_block_shape(struct slablab_cache *s, size_t *size, int *align, int *offset)
{
	if (s->owner != SLABLAB_OWNER_KMALLOC) {
		*size = slob_size(s);
		*align = slob_align(s);
		*offset = 0;
		return;
	}
	*size = min_t(size_t, s->object_size, PAGE_SIZE - SLOB_MINALIGN - 1);
	*align = is_power_of_2(*size) ? max_t(unsigned int, SLOB_MINALIGN, *size) : SLOB_MINALIGN;
	*offset = SLOB_MINALIGN;
	*size += SLOB_MINALIGN;
}

/* How many blocks of that shape an empty page takes, placed as slob_page_alloc() does. */
static unsigned int slob_blocks_per_page(size_t size, int align, int offset)
{
	unsigned long at = 0, n = 0;

	for (;;) {
		unsigned long start = ALIGN(at + offset, align) - offset;

		if (start + SLOB_UNITS(size) * SLOB_UNIT > PAGE_SIZE)
			return n;
		n++;
		at = start + SLOB_UNITS(size) * SLOB_UNIT;
	}
}

/* Whether a block of that shape fits in one of @sp's free blocks (slob_page_alloc()'s test). */
static bool slob_page_fits(struct slob_page *sp, size_t size, int align, int offset)
{
	int units = SLOB_UNITS(size);
	struct slob_block *cur;

	lockdep_assert_held(&slob_heap.lock);
	if (sp->units < units)
		return false;
	for (cur = sp->freelist; cur; cur = slob_next(cur)) {
		struct slob_block *aligned = (struct slob_block *)
			(ALIGN((unsigned long)cur + offset, align) - offset);

		if (slob_units(cur) >= units + (aligned - cur))
			return true;
		if (slob_last(cur))
			break;
	}
	return false;
}

/* Pages of @s's objects of a page or more, each theirs alone (the heap's lock held). */
static unsigned long slob_large_pages(struct slablab_cache *s)
{
	return s->slob_state.pages - s->slob_state.heap_pages;
}

/*
 * The page-occupancy histogram: the heap pages charged to @s by blocks in use on them.
 * A heap page is shared: its blocks are of any slob cache (or kmalloc class), so
 * objects in use counts them all. @h->objs is how many of @s's largest blocks, aligned
 * as @s asks, an empty page takes (at least 2, so that a page holding one block is not
 * "full"); full is a page that could not take another such block (first fit over its
 * free blocks), and a page with room left counts in the buckets below, however many
 * (smaller) blocks it holds. A heap page is never empty (an empty page goes back at
 * once). A cache's objects of a page or more have their pages each: objs 1, every such
 * object one full "page" (of 2^order pages); a kmalloc class of a page or more has
 * heap pages (kmalloc requests behind headers) and such objects (cache allocations),
 * counted as full beside them. The walk takes the heap lock for
 * SLABLAB_OCCUPANCY_BATCH pages at a time, moving the pages it looked at to the tail of
 * slob_heap.all (whose order nobody relies on): exact while every slob cache and
 * kmalloc class on slob is quiet; while pages come and go, a page may be missed or
 * counted twice. It looks at every heap page, whichever cache it is charged to, and
 * walks the free blocks of the cache's own (slob_page_fits()): a batch of fragmented
 * pages holds interrupts off for more than 256 loads, tens of microseconds at most.
 * Between batches the lock is dropped and the cpu offered to the scheduler: any user
 * may ask (CACHE_GET), and a heap of many pages is a long walk.
 */
static void slob_occupancy(struct slablab_cache *s, struct slablab_occupancy *h)
{
	struct list_head *first, *last, *pos;
	int align, offset;
	unsigned long flags, left;
	unsigned int i;
	size_t size;

	lockdep_assert_held(&slablab_mutex);
	memset(h, 0, sizeof(*h));
	if (s->object_size >= PAGE_SIZE && s->owner != SLABLAB_OWNER_KMALLOC) {
		h->objs = 1;
		h->nr = 2;
		spin_lock_irqsave(&slob_heap.lock, flags);
		h->slabs[1] = slob_large_pages(s) >> get_order(s->object_size);
		spin_unlock_irqrestore(&slob_heap.lock, flags);
		return;
	}
	slob_block_shape(s, &size, &align, &offset);
	h->objs = max(2U, slob_blocks_per_page(size, align, offset));
	h->nr = min_t(unsigned int, h->objs + 1, SLABLAB_OCCUPANCY_BUCKETS);
	spin_lock_irqsave(&slob_heap.lock, flags);
	for (left = slob_heap.nr_pages; left && !list_empty(&slob_heap.all);) {
		first = slob_heap.all.next;
		last = first;
		for (pos = first, i = 0;
		     i < SLABLAB_OCCUPANCY_BATCH && left && pos != &slob_heap.all;
		     pos = pos->next, i++, left--) {
			struct slob_page *sp = list_entry(pos, struct slob_page, all);
			unsigned int inuse = h->objs;

			last = pos;
			if (sp->owner != s)
				continue;
			if (slob_page_fits(sp, size, align, offset))
				inuse = clamp_t(unsigned int, sp->objects, 1, h->objs - 1);
			h->slabs[slablab_occupancy_bucket(h, h->objs, inuse)]++;
		}
		list_bulk_move_tail(&slob_heap.all, first, last);
		spin_unlock_irqrestore(&slob_heap.lock, flags);
		/* any reader may ask (CACHE_GET): let others run between batches */
		cond_resched();
		spin_lock_irqsave(&slob_heap.lock, flags);
		left = min(left, slob_heap.nr_pages);
	}
	/* a kmalloc class's cache allocations of a page or more: full, as above */
	if (s->object_size >= PAGE_SIZE)
		h->slabs[h->nr - 1] += slob_large_pages(s) >> get_order(s->object_size);
	spin_unlock_irqrestore(&slob_heap.lock, flags);
}

static void slob_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact)
{
	/* No cached layer, no free slot: total = callers (see slob_gauges()). */
	l->total += l->callers;
}

static void slob_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objs,
			  u32 *partial_slabs, u32 *partial_objects)
{
	*slab_objs = 0;
	*partial_slabs = 0;
	*partial_objects = 0;
}

/* Nothing per cpu: a flush frees nothing (empty pages were freed when they emptied). */
static unsigned long slob_flush(struct slablab_cache *s, enum slablab_flush_mode mode,
				bool every_cpu)
{
	return 0;
}

static void slob_flush_dead_cpu(struct slablab_cache *s, int cpu)
{
}

static void slob_relayout(struct slablab_cache *s)
{
}

/* The charges are the heap lock's: a cache that was slob before had them zeroed there. */
static int slob_init(struct slablab_cache *s)
{
	unsigned long flags;

	spin_lock_irqsave(&slob_heap.lock, flags);
	s->slob_state.pages = 0;
	s->slob_state.heap_pages = 0;
	s->slob_state.scan_max = 0;
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	return 0;
}

/*
 * The cache holds no objects (a destroy or a design change: checked by cache.c), but
 * heap pages it was charged for may hold other caches' objects: they become the
 * heap's orphans, uncharged, and are freed by whichever free empties them. Each counts
 * as freed for @s now (free_slab), as the free that empties an orphan counts for no
 * cache: else a cache that changed design would keep alloc_slab - free_slab above its
 * pages for good. Only at module exit may objects still be live (never freed): their
 * heap pages are orphaned too and their large pages stay on slob_heap.large;
 * slablab_slob_exit() frees both.
 */
static void slob_destroy(struct slablab_cache *s)
{
	struct slob_page *sp;
	unsigned long flags, orphaned = 0;

	spin_lock_irqsave(&slob_heap.lock, flags);
	list_for_each_entry(sp, &slob_heap.all, all) {
		if (sp->owner != s)
			continue;
		sp->owner = NULL;
		slob_heap.orphan_pages++;
		slob_charge(s, -1, true);
		orphaned++;
	}
	s->slob_state.pages = 0;
	s->slob_state.heap_pages = 0;
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	stat_add(s, SLABLAB_FREE_SLAB, orphaned);
}

/**
 * slablab_slob_exit - free the heap's pages left at module exit
 *
 * Every cache is gone: what is left holds objects nobody freed (a kernel user's
 * cache destroyed with live objects, as slablab_cache_api_exit_caches() allows). They are
 * freed, as the other designs discard slabs with live objects.
 */
void slablab_slob_exit(void)
{
	struct slob_page *sp, *tmp;
	struct page *page, *ptmp;
	unsigned long flags, n = 0;
	LIST_HEAD(pages);
	LIST_HEAD(large);

	spin_lock_irqsave(&slob_heap.lock, flags);
	list_for_each_entry(sp, &slob_heap.all, all) {
		if (sp->on_list >= 0)
			slob_list_del(sp);
	}
	list_splice_init(&slob_heap.all, &pages);
	list_splice_init(&slob_heap.large, &large);
	slob_heap.nr_pages = 0;
	slob_heap.free_units = 0;
	slob_heap.orphan_pages = 0;
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	list_for_each_entry_safe(sp, tmp, &pages, all) {
		/*
		 * kmemleak must forget what is live there: every block kmemleak knows starts
		 * on ARCH_SLAB_MINALIGN (slob_align(), and kmalloc's past its header)
		 */
		slablab_leak_forget_range(sp->base, PAGE_SIZE,
					  min_t(size_t, ARCH_SLAB_MINALIGN, SLABLAB_SLOB_MINALIGN));
		slob_free_page(sp);
		cond_resched();
		n++;
	}
	list_for_each_entry_safe(page, ptmp, &large, lru) {
		kmemleak_free(page_address(page));
		list_del(&page->lru);
		__free_pages(page, compound_order(page));
		n++;
	}
	if (n)
		pr_warn("slob heap: %lu pages holding objects never freed released at exit\n", n);
}

/* ---- validate, the heap's figures ---- */

static void slob_verr(struct slablab_validate_report *r, struct slob_page *sp,
		      const char *what, long a)
{
	if (!r->errors++)
		snprintf(r->first_error, sizeof(r->first_error), "slob page %u: %s (%ld)",
			 (unsigned int)r->slabs, what, a);
	pr_err_ratelimited("validate slob heap: page %p: %s (%ld)\n", sp ? sp->base : NULL,
			   what, a);
}

/**
 * slablab_slob_validate - check every page of the heap
 * @s: the cache asking (its figures: objects in use)
 * @r: the report (slabs: heap pages; objects: in use by @s; no free slots)
 *
 * Each page's free list lies inside the page, in address order, its blocks neither
 * overlapping nor touching (touching blocks would have merged), and sums to the page's
 * free units; a page is on a list exactly when it has free units; its count of blocks
 * in use is at least its runs of used units (each holds a block or more) and at most
 * its used units; the lists' and the heap's counts agree.
 */
void slablab_slob_validate(struct slablab_cache *s, struct slablab_validate_report *r)
{
	unsigned long flags, nr_list[SLOB_LISTS] = {}, free_units = 0, pages = 0;
	struct slob_page *sp;
	int i;

	memset(r, 0, sizeof(*r));
	r->objects = slablab_objects_in_use(s);
	spin_lock_irqsave(&slob_heap.lock, flags);
	for (i = 0; i < SLOB_LISTS; i++) {
		list_for_each_entry(sp, &slob_heap.free[i], list) {
			nr_list[i]++;
			if (sp->on_list != i)
				slob_verr(r, sp, "on a list it does not name", sp->on_list);
		}
		if (nr_list[i] != slob_heap.nr_list[i])
			slob_verr(r, NULL, "list length differs from its count", i);
	}
	list_for_each_entry(sp, &slob_heap.all, all) {
		struct slob_block *start = sp->base, *end = start + SLOB_UNITS(PAGE_SIZE);
		struct slob_block *b, *prev_end = NULL, *used = start;
		int units = 0, n = 0, runs = 0;
		bool listed, walked = true;

		pages++;
		r->slabs++;
		listed = sp->on_list >= 0;
		if (!sp->units == listed)
			slob_verr(r, sp, "free units and list membership disagree", sp->units);
		for (b = sp->freelist; b; b = slob_next(b)) {
			walked = false;
			if (b < start || b >= end || (prev_end && b <= prev_end)) {
				slob_verr(r, sp, "free block out of place at unit", b - start);
				break;
			}
			if (++n > SLOB_UNITS(PAGE_SIZE)) {
				slob_verr(r, sp, "free list has a cycle", n);
				break;
			}
			units += slob_units(b);
			prev_end = b + slob_units(b);
			if (prev_end > end) {
				slob_verr(r, sp, "free block runs past the page at unit",
					  b - start);
				break;
			}
			runs += b > used;	/* used units before this free block */
			used = prev_end;
			if (slob_last(b)) {
				walked = true;
				break;
			}
		}
		runs += used < end;
		if (units != sp->units)
			slob_verr(r, sp, "free list units differ from the page's count", units);
		else if (walked && (sp->objects < runs ||
				    sp->objects > SLOB_UNITS(PAGE_SIZE) - sp->units))
			slob_verr(r, sp, "blocks in use disagree with the used units", sp->objects);
		free_units += sp->units;
	}
	if (pages != slob_heap.nr_pages || free_units != slob_heap.free_units)
		slob_verr(r, NULL, "heap page or free unit totals differ", pages);
	spin_unlock_irqrestore(&slob_heap.lock, flags);
}

/**
 * slablab_slob_show - the heap's figures (debugfs slob_heap)
 * @m: the seq_file
 */
void slablab_slob_show(struct seq_file *m)
{
	unsigned long flags, pages, orphans, free_units, nr_list[SLOB_LISTS];

	spin_lock_irqsave(&slob_heap.lock, flags);
	pages = slob_heap.nr_pages;
	orphans = slob_heap.orphan_pages;
	free_units = slob_heap.free_units;
	memcpy(nr_list, slob_heap.nr_list, sizeof(nr_list));
	spin_unlock_irqrestore(&slob_heap.lock, flags);
	seq_printf(m, "pages %lu\nfree_bytes %lu\nused_bytes %lu\norphan_pages %lu\n",
		   pages, free_units * SLOB_UNIT, pages * PAGE_SIZE - free_units * SLOB_UNIT,
		   orphans);
	seq_printf(m, "list_small %lu\nlist_medium %lu\nlist_large %lu\n", nr_list[0],
		   nr_list[1], nr_list[2]);
}

const struct slablab_design_ops slablab_slob_ops = {
	.name = "slob",
	.init = slob_init,
	.destroy = slob_destroy,
	.alloc = slob_alloc_obj,
	.free = slob_free_op,
	.alloc_bulk = slob_alloc_bulk,
	.free_bulk = slob_free_bulk,
	.flush = slob_flush,
	.flush_dead_cpu = slob_flush_dead_cpu,
	.relayout = slob_relayout,
	.gauges = slob_gauges,
	.cpu_view = slob_cpu_view,
	.layers = slob_layers,
	.occupancy = slob_occupancy,
};
