/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slablab policy math: pure functions of their arguments, no kernel state, so the same
 * code is compiled into the module and into the host unit tests (tests/policy/test_policy.c).
 *
 * They follow SLUB as it stood in 6.1 (mm/slub.c: calculate_order(), set_cpu_partial(),
 * set_min_partial()), with the fractions the slablab design asks for; the sheaves'
 * capacity follows 7.3 (calculate_sheaf_capacity()), the slab design's geometry SLAB's
 * of 6.1 (mm/slab.c: calculate_slab_order(), cache_estimate(); below).
 */
#ifndef _SLABLAB_POLICY_H
#define _SLABLAB_POLICY_H

#define SLABLAB_MIN_PARTIAL_LO	5	/* SLUB's MIN_PARTIAL */
#define SLABLAB_MIN_PARTIAL_HI	10	/* SLUB's MAX_PARTIAL */
#define SLABLAB_DEFAULT_MAX_ORDER 3	/* PAGE_ALLOC_COSTLY_ORDER, SLUB's slub_max_order */

/**
 * enum slablab_order_reason - why slablab_calc_order() picked its order
 * @SLABLAB_ORDER_FIT: leftover within 1/fraction of the slab while holding min_objects
 * @SLABLAB_ORDER_FEWER_OBJECTS: as FIT, but min_objects had to be lowered
 * @SLABLAB_ORDER_ONE_OBJECT: nothing fit the leftover rules; one object per slab
 * @SLABLAB_ORDER_TOO_BIG: not even one object fits in a slab of max_order
 * @SLABLAB_ORDER_SLAB_FIT: SLAB: the lowest order whose leftover is within 1/8 of the slab
 * @SLABLAB_ORDER_SLAB_MAX_ORDER: SLAB: slab_max_order reached before the leftover fit
 * @SLABLAB_ORDER_SLAB_MAX_NUM: SLAB: a higher order would hold more objects than a
 *	freelist index can name (SLAB_OBJ_MAX_NUM)
 */
enum slablab_order_reason {
	SLABLAB_ORDER_FIT,
	SLABLAB_ORDER_FEWER_OBJECTS,
	SLABLAB_ORDER_ONE_OBJECT,
	SLABLAB_ORDER_TOO_BIG,
	SLABLAB_ORDER_SLAB_FIT,
	SLABLAB_ORDER_SLAB_MAX_ORDER,
	SLABLAB_ORDER_SLAB_MAX_NUM,
};

/**
 * struct slablab_order_choice - result of slablab_calc_order()
 * @order: slab order chosen (valid unless @reason is SLABLAB_ORDER_TOO_BIG)
 * @fraction: largest leftover allowed, as 1/fraction of the slab (0 when unbounded)
 * @min_objects: objects per slab the choice was made to hold
 * @reason: why
 */
struct slablab_order_choice {
	unsigned int order;
	unsigned int fraction;
	unsigned int min_objects;
	enum slablab_order_reason reason;
};

static inline unsigned int slablab_fls(unsigned int x)
{
	unsigned int r = 0;

	while (x) {
		r++;
		x >>= 1;
	}
	return r;
}

static inline unsigned int slablab_ilog2(unsigned long x)
{
	unsigned int r = 0;

	while (x > 1) {
		r++;
		x >>= 1;
	}
	return r;
}

/** slablab_objs_per_slab - objects of @stride bytes in a slab of 2^@order pages */
static inline unsigned int slablab_objs_per_slab(unsigned int order, unsigned int stride,
						 unsigned int page_size)
{
	return (unsigned int)(((unsigned long)page_size << order) / stride);
}

/** slablab_size_order - smallest order whose slab holds @bytes (get_order()) */
static inline unsigned int slablab_size_order(unsigned long bytes, unsigned int page_size)
{
	unsigned int order = 0;

	while (((unsigned long)page_size << order) < bytes)
		order++;
	return order;
}

/*
 * Smallest order in [size_order(min_objects * stride), max_order] whose leftover is at
 * most slab_size / fraction; max_order + 1 when there is none. Mirrors calc_slab_order().
 */
static inline unsigned int slablab_fit_order(unsigned int stride, unsigned int min_objects,
					     unsigned int max_order, unsigned int fraction,
					     unsigned int page_size)
{
	unsigned int order;

	for (order = slablab_size_order((unsigned long)min_objects * stride, page_size);
	     order <= max_order; order++) {
		unsigned long slab_size = (unsigned long)page_size << order;

		if (slab_size % stride <= slab_size / fraction)
			return order;
	}
	return max_order + 1;
}

/** slablab_min_objects - objects a slab should hold: SLUB's 4 * (fls(nr_cpus) + 1) */
static inline unsigned int slablab_min_objects(unsigned int nr_cpus)
{
	return 4 * (slablab_fls(nr_cpus) + 1);
}

/**
 * enum slablab_order_rules - whose calculate_order() slablab_calc_order() follows
 * @SLABLAB_ORDER_RULES_6_1: Linux 6.1's (the slub design's): for each min_objects, from
 *	the most a slab should hold down to 2, the leftover relaxed from 1/16 of the slab
 *	to 1/8 and 1/4; then one object per slab
 * @SLABLAB_ORDER_RULES_6_8: 6.8's and later (7.x, the sheaves design's): min_objects
 *	fixed, the leftover relaxed from 1/16 to 1/2; then one object per slab
 *
 * They differ where no order holds min_objects within 1/4 but one does within 1/2:
 * on 4 KiB pages strides of 10928 to 12280 bytes get order 2 (one per slab, then
 * fewer objects) under 6.1's rules and order 3 (two per slab) under 6.8's.
 */
enum slablab_order_rules {
	SLABLAB_ORDER_RULES_6_1,
	SLABLAB_ORDER_RULES_6_8,
};

/**
 * slablab_calc_order - the order policy
 * @stride: bytes per object in the slab
 * @nr_cpus: cpus the machine may have (nr_cpu_ids)
 * @max_order: largest order allowed
 * @page_size: PAGE_SIZE
 * @rules: whose calculate_order() to follow
 *
 * The smallest order whose leftover is within 1/16 of the slab, relaxing to 1/8, 1/4
 * (and 1/2 under 6.8's rules), while the slab holds slablab_min_objects(@nr_cpus)
 * objects (fewer when even a max_order slab cannot hold that many; under 6.1's rules
 * lowered one by one when nothing fits), capped by @max_order. Page-sized objects come
 * out at order 3 (8 per slab), as seed 004 asks.
 */
static inline struct slablab_order_choice
slablab_calc_order(unsigned int stride, unsigned int nr_cpus, unsigned int max_order,
		   unsigned int page_size, enum slablab_order_rules rules)
{
	struct slablab_order_choice c = { 0, 0, 0, SLABLAB_ORDER_TOO_BIG };
	unsigned int want = slablab_min_objects(nr_cpus);
	unsigned int max_objs = slablab_objs_per_slab(max_order, stride, page_size);
	unsigned int last = rules == SLABLAB_ORDER_RULES_6_1 ? 4 : 2;
	unsigned int min_objects, fraction;

	if (!stride || max_objs == 0)
		return c;
	if (want > max_objs)
		want = max_objs;
	for (min_objects = want; min_objects > 1; min_objects--) {
		for (fraction = 16; fraction >= last; fraction /= 2) {
			unsigned int order = slablab_fit_order(stride, min_objects, max_order,
							       fraction, page_size);

			if (order <= max_order) {
				c.order = order;
				c.fraction = fraction;
				c.min_objects = min_objects;
				c.reason = min_objects == want ? SLABLAB_ORDER_FIT
							       : SLABLAB_ORDER_FEWER_OBJECTS;
				return c;
			}
		}
		if (rules == SLABLAB_ORDER_RULES_6_8)
			break;	/* 6.8 lowers the leftover bar, never min_objects */
	}
	c.order = slablab_size_order(stride, page_size);
	c.fraction = 0;
	c.min_objects = 1;
	c.reason = SLABLAB_ORDER_ONE_OBJECT;
	return c;
}

/*
 * SLAB's geometry (6.1 mm/slab.c: __kmem_cache_create(), set_objfreelist_slab_cache(),
 * set_off_slab_cache(), set_on_slab_cache(), calculate_slab_order(), cache_estimate()).
 * A SLAB slab keeps one freelist index (freelist_idx_t) per object: in the slab's
 * leftover after the objects (on-slab), in a free object (OBJFREELIST), or in a kmalloc
 * object of its own (OFF_SLAB); only on-slab takes room from the objects.
 */

/** SLAB's SLAB_OBJ_MIN_SIZE: KMALLOC_MIN_SIZE (32 under SLAB) capped at 16 */
#define SLABLAB_SLAB_OBJ_MIN_SIZE	16
/** SLAB's SLAB_MAX_ORDER_HI: slab_max_order on machines with more than 32 MB */
#define SLABLAB_SLAB_MAX_ORDER_HI	1

/**
 * enum slablab_slab_mgmt - where a SLAB slab keeps its freelist of indices
 * @SLABLAB_SLAB_MGMT_ON_SLAB: after the objects, one index each
 * @SLABLAB_SLAB_MGMT_OBJFREELIST: in a free object (CFLGS_OBJFREELIST_SLAB)
 * @SLABLAB_SLAB_MGMT_OFF_SLAB: in a kmalloc object beside the slab (CFLGS_OFF_SLAB)
 */
enum slablab_slab_mgmt {
	SLABLAB_SLAB_MGMT_ON_SLAB,
	SLABLAB_SLAB_MGMT_OBJFREELIST,
	SLABLAB_SLAB_MGMT_OFF_SLAB,
};

/** slablab_slab_idx_size - sizeof(freelist_idx_t): one byte while PAGE_SIZE >> 8 <= 16 */
static inline unsigned int slablab_slab_idx_size(unsigned int page_size)
{
	return (page_size >> 8) <= SLABLAB_SLAB_OBJ_MIN_SIZE ? 1 : 2;
}

/** slablab_slab_obj_max_num - SLAB_OBJ_MAX_NUM: the most objects an index names */
static inline unsigned int slablab_slab_obj_max_num(unsigned int page_size)
{
	return (1u << (8 * slablab_slab_idx_size(page_size))) - 1;
}

/**
 * slablab_slab_estimate - objects of @stride bytes in a SLAB slab of 2^@order pages
 * @order: the slab's order
 * @stride: bytes per object
 * @mgmt: enum slablab_slab_mgmt
 * @page_size: PAGE_SIZE
 * @left_over: set to the bytes no object uses
 *
 * cache_estimate(): an on-slab freelist takes one index per object.
 *
 * Return: the objects (not capped at slablab_slab_obj_max_num()).
 */
static inline unsigned int slablab_slab_estimate(unsigned int order, unsigned int stride,
						 unsigned int mgmt, unsigned int page_size,
						 unsigned long *left_over)
{
	unsigned long slab_size = (unsigned long)page_size << order;
	unsigned int per = stride;

	if (mgmt == SLABLAB_SLAB_MGMT_ON_SLAB)
		per += slablab_slab_idx_size(page_size);
	*left_over = slab_size % per;
	return (unsigned int)(slab_size / per);
}

/**
 * slablab_slab_kmalloc_class - the size of SLAB's kmalloc cache for @bytes
 * @bytes: 1 or more
 * @kmalloc_min: KMALLOC_MIN_SIZE (32 under SLAB on x86-64)
 * @line: cache_line_size()
 *
 * 96 and 192 besides the powers of two (where above KMALLOC_MIN_SIZE); the cache's
 * size is aligned as create_kmalloc_caches() makes it, SLAB_HWCACHE_ALIGN (with a
 * 64-byte line kmalloc-96's objects take 128 bytes).
 *
 * Return: the class's object size (cachep->size).
 */
static inline unsigned long slablab_slab_kmalloc_class(unsigned long bytes,
						       unsigned int kmalloc_min,
						       unsigned int line)
{
	unsigned long class = kmalloc_min, ralign = line;

	if (bytes > 64 && bytes <= 96 && kmalloc_min <= 32)
		class = 96;
	else if (bytes > 128 && bytes <= 192 && kmalloc_min <= 64)
		class = 192;
	else
		while (class < bytes)
			class <<= 1;
	while (class <= ralign / 2)
		ralign /= 2;
	return (class + ralign - 1) / ralign * ralign;
}

/** SLAB's KMALLOC_MIN_SIZE on x86-64 (KMALLOC_SHIFT_LOW 5) */
#define SLABLAB_SLAB_KMALLOC_MIN	32

/**
 * slablab_slab_calc_order - calculate_slab_order() for one freelist placement
 * @stride: bytes per object (SLAB's aligned size)
 * @object_size: the size the cache was asked for (SLAB's cachep->size at this point)
 * @mgmt: enum slablab_slab_mgmt
 * @slab_max_order: SLAB's slab_max_order
 * @max_order: the highest order looked at (KMALLOC_MAX_ORDER)
 * @page_size: PAGE_SIZE
 * @line: cache_line_size() (the off-slab freelist's kmalloc cache is aligned to it)
 * @left_over: set to the chosen slab's leftover
 *
 * The lowest order with objects whose leftover is within 1/8 of the slab, stopping at
 * @slab_max_order or where the count would pass SLAB_OBJ_MAX_NUM; an off-slab freelist
 * only where its kmalloc object is at most half an object.
 *
 * Return: the choice; its @min_objects is the objects per slab, 0 (and reason
 * SLABLAB_ORDER_TOO_BIG) when this placement takes none.
 */
static inline struct slablab_order_choice
slablab_slab_calc_order(unsigned int stride, unsigned int object_size, unsigned int mgmt,
			unsigned int slab_max_order, unsigned int max_order,
			unsigned int page_size, unsigned int line, unsigned long *left_over)
{
	struct slablab_order_choice c = { 0, 0, 0, SLABLAB_ORDER_TOO_BIG };
	unsigned int order;

	*left_over = 0;
	for (order = 0; order <= max_order; order++) {
		unsigned long remainder;
		unsigned int num = slablab_slab_estimate(order, stride, mgmt, page_size,
							 &remainder);

		if (!num)
			continue;
		if (num > slablab_slab_obj_max_num(page_size)) {
			if (c.min_objects)
				c.reason = SLABLAB_ORDER_SLAB_MAX_NUM;
			break;
		}
		if (mgmt == SLABLAB_SLAB_MGMT_OFF_SLAB &&
		    slablab_slab_kmalloc_class((unsigned long)num *
					       slablab_slab_idx_size(page_size),
					       SLABLAB_SLAB_KMALLOC_MIN, line) > object_size / 2)
			continue;
		c.order = order;
		c.min_objects = num;
		c.fraction = 8;
		*left_over = remainder;
		if (order >= slab_max_order) {
			c.reason = remainder * 8 <= ((unsigned long)page_size << order) ?
				   SLABLAB_ORDER_SLAB_FIT : SLABLAB_ORDER_SLAB_MAX_ORDER;
			break;
		}
		if (remainder * 8 <= ((unsigned long)page_size << order)) {
			c.reason = SLABLAB_ORDER_SLAB_FIT;
			break;
		}
		c.reason = SLABLAB_ORDER_SLAB_MAX_ORDER;	/* the loop's end, unless it fits */
	}
	return c;
}

/**
 * slablab_slab_geometry - SLAB's freelist placement, order and objects per slab
 * @stride: bytes per object (SLAB's aligned size)
 * @object_size: the size the cache was asked for
 * @objfreelist_ok: no constructor, not typesafe-by-rcu, no init_on_free
 * @slab_max_order: SLAB's slab_max_order
 * @max_order: the highest order looked at
 * @page_size: PAGE_SIZE
 * @line: cache_line_size()
 * @mgmt: set to the placement (enum slablab_slab_mgmt)
 *
 * OBJFREELIST where allowed and the index array fits in one object; else OFF_SLAB where
 * the kmalloc'ed freelist pays for itself and the leftover could not hold it; else on-slab.
 *
 * Return: the choice (reason SLABLAB_ORDER_TOO_BIG when no slab up to @max_order holds
 * an object).
 */
static inline struct slablab_order_choice
slablab_slab_geometry(unsigned int stride, unsigned int object_size, int objfreelist_ok,
		      unsigned int slab_max_order, unsigned int max_order,
		      unsigned int page_size, unsigned int line, unsigned int *mgmt)
{
	unsigned int idx = slablab_slab_idx_size(page_size);
	struct slablab_order_choice c;
	unsigned long left;

	if (objfreelist_ok) {
		c = slablab_slab_calc_order(stride, object_size, SLABLAB_SLAB_MGMT_OBJFREELIST,
					    slab_max_order, max_order, page_size, line, &left);
		if (c.min_objects && (unsigned long)c.min_objects * idx <= object_size) {
			*mgmt = SLABLAB_SLAB_MGMT_OBJFREELIST;
			return c;
		}
	}
	c = slablab_slab_calc_order(stride, object_size, SLABLAB_SLAB_MGMT_OFF_SLAB,
				    slab_max_order, max_order, page_size, line, &left);
	if (c.min_objects && left < (unsigned long)c.min_objects * idx) {
		*mgmt = SLABLAB_SLAB_MGMT_OFF_SLAB;
		return c;
	}
	*mgmt = SLABLAB_SLAB_MGMT_ON_SLAB;
	return slablab_slab_calc_order(stride, object_size, SLABLAB_SLAB_MGMT_ON_SLAB,
				       slab_max_order, max_order, page_size, line, &left);
}

/** slablab_default_min_partial - ilog2(size) / 2 clamped to [5, 10] (seed 000) */
static inline unsigned int slablab_default_min_partial(unsigned int size)
{
	unsigned int mp = slablab_ilog2(size) / 2;

	if (mp < SLABLAB_MIN_PARTIAL_LO)
		mp = SLABLAB_MIN_PARTIAL_LO;
	if (mp > SLABLAB_MIN_PARTIAL_HI)
		mp = SLABLAB_MIN_PARTIAL_HI;
	return mp;
}

/** slablab_default_cpu_partial - objects kept on per-cpu partial lists (set_cpu_partial) */
static inline unsigned int slablab_default_cpu_partial(unsigned int stride, unsigned int page_size)
{
	if (stride >= page_size)
		return 6;
	if (stride >= 1024)
		return 24;
	if (stride >= 256)
		return 52;
	return 120;
}

/*
 * The bytes of 7.x's struct slab_sheaf (mm/slub.c) before its objects[]: a union of
 * two pointers (rcu_head, barn_list), the cache pointer, size and node. slablab's own
 * sheaf is laid out differently; the capacity is computed on upstream's.
 */
#define SLABLAB_UPSTREAM_SHEAF_HEADER	(3 * sizeof(void *) + 2 * sizeof(int))

/**
 * slablab_kmalloc_roundup - the kmalloc bucket a request of @size bytes gets
 * @size: bytes, at least 1
 *
 * kmalloc_size_roundup() with x86-64's buckets (KMALLOC_MIN_SIZE 8): 96 and 192
 * besides the powers of two, and above the largest kmalloc cache the page allocator's
 * PAGE_SIZE << get_order(size), which is the next power of two too.
 *
 * Return: the bucket's size.
 */
static inline unsigned long slablab_kmalloc_roundup(unsigned long size)
{
	unsigned long bucket = 8;

	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	while (bucket < size)
		bucket <<= 1;
	return bucket;
}

/**
 * slablab_default_sheaf_capacity - objects per sheaf (7.3's calculate_sheaf_capacity())
 * @stride: bytes per object slot (upstream's s->size)
 * @page_size: PAGE_SIZE
 *
 * 4, 12, 26 or 60 objects for slots of a page and up, 1 KiB and up, 256 B and up,
 * smaller; then, as 7.x does, as many more as fill the sheaf's allocation up to its
 * kmalloc bucket (on 64-bit: 4, 12, 28 or 60).
 *
 * Return: the capacity.
 */
static inline unsigned int slablab_default_sheaf_capacity(unsigned int stride,
							  unsigned int page_size)
{
	unsigned long bytes;
	unsigned int capacity;

	if (stride >= page_size)
		capacity = 4;
	else if (stride >= 1024)
		capacity = 12;
	else if (stride >= 256)
		capacity = 26;
	else
		capacity = 60;
	bytes = slablab_kmalloc_roundup(SLABLAB_UPSTREAM_SHEAF_HEADER +
					capacity * sizeof(void *));
	return (bytes - SLABLAB_UPSTREAM_SHEAF_HEADER) / sizeof(void *);
}

/** The largest sheaf_capacity (the spec's range of sheaf-capacity) */
#define SLABLAB_MAX_SHEAF_CAPACITY	1024

/** The most sheaves of each kind a barn keeps by default (7.0's MAX_FULL_SHEAVES). */
#define SLABLAB_BARN_DEFAULT_MAX	10
/** The most a barn may be told to keep (the spec's range of barn-max-full/-empty) */
#define SLABLAB_MAX_BARN_SHEAVES	1024

/** The largest limit and batchcount of the slab design (the spec's range) */
#define SLABLAB_MAX_SLAB_LIMIT		4096
/** The largest shared factor of the slab design (the spec's range of shared) */
#define SLABLAB_MAX_SLAB_SHARED		64
/** The longest reap period of the slab design, ms (the spec's range of reap-*-ms) */
#define SLABLAB_MAX_REAP_MS		3600000

/**
 * slablab_cpu_partial_slabs - slabs a per-cpu partial list may hold for @cpu_partial
 * objects, assuming slabs on it are half free (SLUB's slub_set_cpu_partial())
 * @cpu_partial: the cache's cpu_partial, in objects
 * @objs_per_slab: objects in one slab of the cache
 *
 * Return: the bound in slabs; 0 when either is 0 (a free still keeps the slab it froze
 * there, as 6.1's put_cpu_partial(): the lists are not off).
 */
static inline unsigned int slablab_cpu_partial_slabs(unsigned int cpu_partial,
						     unsigned int objs_per_slab)
{
	if (!cpu_partial || !objs_per_slab)
		return 0;
	return (cpu_partial * 2 + objs_per_slab - 1) / objs_per_slab;
}

/** slablab_stride - bytes per object: @size rounded up to @align (a power of two) */
static inline unsigned int slablab_stride(unsigned int size, unsigned int align)
{
	return (size + align - 1) & ~(align - 1);
}

/** slablab_valid_name - names are 1..@max-1 characters of [A-Za-z0-9_.:-], not . or .. */
static inline int slablab_valid_name(const char *name, unsigned int max)
{
	unsigned int i;

	for (i = 0; name[i]; i++) {
		char ch = name[i];

		if (i + 1 >= max)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == ':' ||
		      ch == '-'))
			return 0;
	}
	return i > 0 && !(name[0] == '.' && (i == 1 || (i == 2 && name[1] == '.')));
}

#endif /* _SLABLAB_POLICY_H */
