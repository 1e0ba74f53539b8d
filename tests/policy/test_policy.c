// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for module/policy.h: the same header the module compiles, built with
 * the host compiler. Properties are checked over every size and many cpu counts; a few
 * known SLUB (6.1) choices anchor them. Prints one line per failure and a summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../module/policy.h"

#define PAGE 4096u

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		if (failures < 50) {					\
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	}								\
} while (0)

static unsigned long leftover(unsigned int order, unsigned int stride)
{
	return ((unsigned long)PAGE << order) % stride;
}

static void test_order_properties(enum slablab_order_rules rules)
{
	static const unsigned int cpus[] = { 1, 2, 3, 4, 8, 16, 64, 256, 4096 };
	unsigned int ci, stride, max_order;

	for (ci = 0; ci < sizeof(cpus) / sizeof(cpus[0]); ci++) {
		for (max_order = 0; max_order <= 4; max_order++) {
			for (stride = 8; stride <= 65536; stride += 8) {
				struct slablab_order_choice c =
					slablab_calc_order(stride, cpus[ci], max_order, PAGE,
							   rules);
				unsigned int objs;

				if ((unsigned long)stride > ((unsigned long)PAGE << max_order)) {
					CHECK(c.reason == SLABLAB_ORDER_TOO_BIG,
					      "stride %u max_order %u", stride, max_order);
					continue;
				}
				CHECK(c.reason != SLABLAB_ORDER_TOO_BIG, "stride %u fits", stride);
				CHECK(c.order <= max_order, "stride %u order %u > max %u", stride,
				      c.order, max_order);
				objs = slablab_objs_per_slab(c.order, stride, PAGE);
				CHECK(objs >= 1, "stride %u order %u holds no object", stride,
				      c.order);
				if (c.reason == SLABLAB_ORDER_FIT ||
				    c.reason == SLABLAB_ORDER_FEWER_OBJECTS) {
					CHECK(leftover(c.order, stride) <=
					      ((unsigned long)PAGE << c.order) / c.fraction,
					      "stride %u order %u leftover %lu > 1/%u", stride,
					      c.order, leftover(c.order, stride), c.fraction);
					CHECK(objs >= c.min_objects, "stride %u: %u objs < %u", stride,
					      objs, c.min_objects);
					/* Smallest such order: one lower fails the same rule. */
					if (c.order > 0 &&
					    slablab_objs_per_slab(c.order - 1, stride, PAGE) >=
					    c.min_objects)
						CHECK(leftover(c.order - 1, stride) >
						      ((unsigned long)PAGE << (c.order - 1)) / c.fraction,
						      "stride %u: order %u would do", stride, c.order - 1);
				}
			}
		}
	}
}

#define R61 SLABLAB_ORDER_RULES_6_1
#define R68 SLABLAB_ORDER_RULES_6_8

static void test_known_slub_choices(void)
{
	/* SLUB 6.1 with 2 possible cpus (slub_max_order 3): /sys/kernel/slab/<c>/order */
	CHECK(slablab_calc_order(8, 2, 3, PAGE, R61).order == 0, "kmalloc-8");
	CHECK(slablab_calc_order(64, 2, 3, PAGE, R61).order == 0, "kmalloc-64");
	CHECK(slablab_calc_order(192, 2, 3, PAGE, R61).order == 0, "kmalloc-192");
	CHECK(slablab_calc_order(1024, 2, 3, PAGE, R61).order == 2, "kmalloc-1k order %u",
	      slablab_calc_order(1024, 2, 3, PAGE, R61).order);
	CHECK(slablab_calc_order(2048, 2, 3, PAGE, R61).order == 3, "kmalloc-2k");
	/* Seed 004: page-sized objects from order-3 slabs, 8 per slab. */
	CHECK(slablab_calc_order(4096, 2, 3, PAGE, R61).order == 3, "kmalloc-4k");
	CHECK(slablab_objs_per_slab(3, 4096, PAGE) == 8, "8 per slab");
	CHECK(slablab_calc_order(8192, 2, 3, PAGE, R61).order == 3, "kmalloc-8k");
}

/*
 * Where 6.1's and 6.8's calculate_order() part: 6.1 stops relaxing the leftover at 1/4
 * and lowers min_objects, 6.8 relaxes to 1/2 and keeps it. 11000-byte objects: two in
 * an order-3 slab leave 10768 bytes (1/3, within 1/2), one in order 2 leaves 5384
 * (1/3 of 16 KiB); 6.1 takes order 2 (min_objects 1 after 2 fails 1/4 at every order),
 * 6.8 order 3. Elsewhere, e.g. the kmalloc classes, they agree.
 */
static void test_rules_6_1_and_6_8(void)
{
	unsigned int stride, differ = 0;

	CHECK(slablab_calc_order(11000, 2, 3, PAGE, R61).order == 2, "6.1: 11000 B order %u",
	      slablab_calc_order(11000, 2, 3, PAGE, R61).order);
	CHECK(slablab_calc_order(11000, 2, 3, PAGE, R68).order == 3, "6.8: 11000 B order %u",
	      slablab_calc_order(11000, 2, 3, PAGE, R68).order);
	for (stride = 8; stride <= 65536; stride += 8) {
		struct slablab_order_choice a = slablab_calc_order(stride, 2, 3, PAGE, R61);
		struct slablab_order_choice b = slablab_calc_order(stride, 2, 3, PAGE, R68);

		if (a.order != b.order) {
			differ++;
			CHECK(stride >= 10928 && stride <= 12280, "rules differ at %u", stride);
		}
		if (stride <= 8192 && !(stride & (stride - 1)))
			CHECK(a.order == b.order, "kmalloc-%u differs", stride);
	}
	CHECK(differ == (12280 - 10928) / 8 + 1, "%u strides differ", differ);
}

static void test_min_partial(void)
{
	unsigned int size;

	for (size = 8; size <= 65536; size++) {
		unsigned int mp = slablab_default_min_partial(size);

		CHECK(mp >= 5 && mp <= 10, "size %u min_partial %u", size, mp);
		if (size > 8)
			CHECK(mp >= slablab_default_min_partial(size - 1),
			      "min_partial not monotonic at %u", size);
	}
	/* ilog2(size)/2 inside the clamp: 2^12 -> 6, 2^16 -> 8 */
	CHECK(slablab_default_min_partial(4096) == 6, "4096");
	CHECK(slablab_default_min_partial(65536) == 8, "65536");
	CHECK(slablab_default_min_partial(64) == 5, "64 clamps to 5");
}

static void test_cpu_partial(void)
{
	CHECK(slablab_default_cpu_partial(64, PAGE) == 120, "small");
	CHECK(slablab_default_cpu_partial(256, PAGE) == 52, "256");
	CHECK(slablab_default_cpu_partial(1024, PAGE) == 24, "1024");
	CHECK(slablab_default_cpu_partial(4096, PAGE) == 6, "page");
	CHECK(slablab_cpu_partial_slabs(0, 64) == 0, "0 objects: a bound of 0 slabs");
	/* Bound assumes half-free slabs: 120 objects of 64 per slab -> 4 slabs */
	CHECK(slablab_cpu_partial_slabs(120, 64) == 4, "got %u",
	      slablab_cpu_partial_slabs(120, 64));
	CHECK(slablab_cpu_partial_slabs(6, 8) == 2, "page-sized");
}

/*
 * 7.3's calculate_sheaf_capacity(): /sys/kernel/slab/<c>/sheaf_capacity of Debian's
 * 7.3.4 (x86-64) for the kmalloc caches; for every slot size the sheaf fills its
 * kmalloc bucket exactly, and one more object would not fit it.
 */
static void test_sheaf_capacity(void)
{
	static const struct { unsigned int size, capacity; } known[] = {
		{ 8, 60 }, { 16, 60 }, { 32, 60 }, { 64, 60 }, { 96, 60 }, { 128, 60 },
		{ 192, 60 }, { 256, 28 }, { 512, 28 }, { 1024, 12 }, { 2048, 12 },
		{ 4096, 4 }, { 8192, 4 },
	};
	const unsigned long hdr = SLABLAB_UPSTREAM_SHEAF_HEADER;
	unsigned int i, stride;

	CHECK(hdr == 32, "7.x's struct slab_sheaf header is %lu bytes on 64-bit", hdr);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		CHECK(slablab_default_sheaf_capacity(known[i].size, PAGE) == known[i].capacity,
		      "kmalloc-%u: %u, 7.3 says %u", known[i].size,
		      slablab_default_sheaf_capacity(known[i].size, PAGE), known[i].capacity);
	CHECK(slablab_kmalloc_roundup(1) == 8 && slablab_kmalloc_roundup(65) == 96 &&
	      slablab_kmalloc_roundup(97) == 128 && slablab_kmalloc_roundup(129) == 192 &&
	      slablab_kmalloc_roundup(193) == 256 && slablab_kmalloc_roundup(8193) == 16384,
	      "kmalloc buckets");
	for (stride = 8; stride <= 65536; stride += 8) {
		unsigned int cap = slablab_default_sheaf_capacity(stride, PAGE);
		unsigned long bytes = hdr + cap * sizeof(void *);

		CHECK(cap >= 4, "stride %u: capacity %u", stride, cap);
		CHECK(slablab_kmalloc_roundup(bytes) == bytes, "stride %u: %lu bytes is no bucket",
		      stride, bytes);
		CHECK(slablab_kmalloc_roundup(bytes + sizeof(void *)) > bytes,
		      "stride %u: room for one more", stride);
		if (stride > 8)
			CHECK(cap <= slablab_default_sheaf_capacity(stride - 8, PAGE),
			      "stride %u: larger slots, more objects", stride);
	}
}

static void test_names_and_stride(void)
{
	CHECK(slablab_valid_name("kmalloc-64", 32), "plain");
	CHECK(slablab_valid_name("a.b:c_d-9", 32), "all classes");
	CHECK(!slablab_valid_name("", 32), "empty");
	CHECK(!slablab_valid_name("a/b", 32), "slash");
	CHECK(!slablab_valid_name(".", 32), "dot");
	CHECK(!slablab_valid_name("..", 32), "dot dot");
	CHECK(slablab_valid_name("...", 32), "three dots is a name");
	CHECK(slablab_valid_name(".a", 32), "leading dot");
	CHECK(!slablab_valid_name("a b", 32), "space");
	CHECK(slablab_valid_name("0123456789012345678901234567890", 32), "31 chars");
	CHECK(!slablab_valid_name("01234567890123456789012345678901", 32), "32 chars");
	CHECK(slablab_stride(9, 8) == 16, "9/8");
	CHECK(slablab_stride(64, 64) == 64, "64/64");
	CHECK(slablab_stride(65, 64) == 128, "65/64");
}

/*
 * SLAB's choices, as /proc/slabinfo of Debian's 6.1 source built with CONFIG_SLAB shows
 * them for caches of these sizes (objperslab, pagesperslab; make fidelity's geometry
 * table on the 6.1-slab kernel): stride is the aligned size (16 at least).
 */
static void test_known_slab_choices(void)
{
	static const struct { unsigned int size, stride, order, objs, mgmt, ctor; } k[] = {
		{ 8, 16, 0, 240, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },
		{ 16, 16, 0, 240, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },
		{ 24, 24, 0, 163, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },
		{ 24, 32, 0, 124, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },	/* hwcache_align */
		{ 32, 32, 0, 124, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },
		{ 40, 40, 0, 99, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },
		{ 40, 64, 0, 63, SLABLAB_SLAB_MGMT_ON_SLAB, 0 },	/* hwcache_align */
		{ 64, 64, 0, 64, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 96, 96, 0, 42, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 100, 104, 0, 39, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 200, 200, 0, 20, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 320, 320, 0, 12, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 500, 504, 0, 8, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 700, 704, 1, 11, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 1024, 1024, 0, 4, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 1100, 1104, 1, 7, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 2048, 2048, 0, 2, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 3000, 3000, 1, 2, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 4096, 4096, 0, 1, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 5000, 5000, 1, 1, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		{ 8192, 8192, 1, 1, SLABLAB_SLAB_MGMT_OBJFREELIST, 0 },
		/* a constructor: no OBJFREELIST; off the slab where kmalloc-32 is half an object */
		{ 64, 64, 0, 63, SLABLAB_SLAB_MGMT_ON_SLAB, 1 },
		{ 4096, 4096, 0, 1, SLABLAB_SLAB_MGMT_OFF_SLAB, 1 },
		{ 256, 256, 0, 16, SLABLAB_SLAB_MGMT_OFF_SLAB, 1 },
	};
	unsigned int i, mgmt;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct slablab_order_choice c =
			slablab_slab_geometry(k[i].stride, k[i].size, k[i].ctor == 0, 1, 10, PAGE,
					      64, &mgmt);

		CHECK(c.order == k[i].order && c.min_objects == k[i].objs && mgmt == k[i].mgmt,
		      "size %u stride %u ctor %u: order %u objs %u mgmt %u, SLAB %u %u %u",
		      k[i].size, k[i].stride, k[i].ctor, c.order, c.min_objects, mgmt,
		      k[i].order, k[i].objs, k[i].mgmt);
	}
}

/*
 * Properties of SLAB's policy over every stride: the count never passes what an index
 * names, an on-slab freelist's indices fit in the leftover, the order is the lowest
 * with a leftover within 1/8 unless slab_max_order stopped it, and a constructor (no
 * OBJFREELIST) moves a large object's freelist off the slab only when that pays.
 */
static void test_slab_properties(void)
{
	/* SLAB's kmalloc caches are SLAB_HWCACHE_ALIGN: kmalloc-96 takes 128 on 64-byte lines */
	CHECK(slablab_slab_kmalloc_class(1, 32, 64) == 32, "kmalloc-32");
	CHECK(slablab_slab_kmalloc_class(90, 32, 64) == 128, "kmalloc-96 on 64-byte lines");
	CHECK(slablab_slab_kmalloc_class(90, 32, 32) == 96, "kmalloc-96 on 32-byte lines");
	CHECK(slablab_slab_kmalloc_class(150, 32, 64) == 192, "kmalloc-192");
	CHECK(slablab_slab_kmalloc_class(255, 32, 64) == 256, "kmalloc-256");
	CHECK(slablab_slab_kmalloc_class(20, 128, 64) == 128, "arm64's KMALLOC_MIN_SIZE");

	unsigned int stride, max_order, mgmt;

	for (max_order = 0; max_order <= 1; max_order++) {
		for (stride = 16; stride <= 8192; stride += 8) {
			struct slablab_order_choice c =
				slablab_slab_geometry(stride, stride, 1, max_order, 10, PAGE, 64,
						      &mgmt);
			unsigned long slab = (unsigned long)PAGE << c.order, left;
			unsigned int n = slablab_slab_estimate(c.order, stride, mgmt, PAGE, &left);

			CHECK(c.reason != SLABLAB_ORDER_TOO_BIG, "stride %u", stride);
			CHECK(n == c.min_objects, "stride %u: %u vs %u", stride, n, c.min_objects);
			CHECK(n >= 1 && n <= 255, "stride %u: %u objects", stride, n);
			if (mgmt == SLABLAB_SLAB_MGMT_ON_SLAB)
				CHECK((unsigned long)n * (stride + 1) <= slab, "stride %u", stride);
			if (c.reason == SLABLAB_ORDER_SLAB_FIT)
				CHECK(left * 8 <= slab, "stride %u: leftover %lu", stride, left);
			if (c.order > max_order)
				CHECK(((unsigned long)PAGE << (c.order - 1)) < stride,
				      "stride %u: order %u past slab_max_order %u with room below",
				      stride, c.order, max_order);
			c = slablab_slab_geometry(stride, stride, 0, max_order, 10, PAGE, 64, &mgmt);
			CHECK(mgmt != SLABLAB_SLAB_MGMT_OBJFREELIST, "ctor stride %u", stride);
			if (mgmt == SLABLAB_SLAB_MGMT_OFF_SLAB)
				CHECK(slablab_slab_kmalloc_class(c.min_objects, 32, 64) <= stride / 2,
				      "ctor stride %u: off-slab freelist of %u", stride,
				      c.min_objects);
		}
	}
}

int main(void)
{
	test_order_properties(SLABLAB_ORDER_RULES_6_1);
	test_order_properties(SLABLAB_ORDER_RULES_6_8);
	test_known_slub_choices();
	test_rules_6_1_and_6_8();
	test_known_slab_choices();
	test_slab_properties();
	test_min_partial();
	test_cpu_partial();
	test_sheaf_capacity();
	test_names_and_stride();
	printf("policy: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
