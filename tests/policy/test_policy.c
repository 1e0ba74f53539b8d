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

static void test_order_properties(void)
{
	static const unsigned int cpus[] = { 1, 2, 3, 4, 8, 16, 64, 256, 4096 };
	unsigned int ci, stride, max_order;

	for (ci = 0; ci < sizeof(cpus) / sizeof(cpus[0]); ci++) {
		for (max_order = 0; max_order <= 4; max_order++) {
			for (stride = 8; stride <= 65536; stride += 8) {
				struct slablab_order_choice c =
					slablab_calc_order(stride, cpus[ci], max_order, PAGE);
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

static void test_known_slub_choices(void)
{
	/* SLUB 6.1 with 2 possible cpus (slub_max_order 3): /sys/kernel/slab/<c>/order */
	CHECK(slablab_calc_order(8, 2, 3, PAGE).order == 0, "kmalloc-8");
	CHECK(slablab_calc_order(64, 2, 3, PAGE).order == 0, "kmalloc-64");
	CHECK(slablab_calc_order(192, 2, 3, PAGE).order == 0, "kmalloc-192");
	CHECK(slablab_calc_order(1024, 2, 3, PAGE).order == 2, "kmalloc-1k order %u",
	      slablab_calc_order(1024, 2, 3, PAGE).order);
	CHECK(slablab_calc_order(2048, 2, 3, PAGE).order == 3, "kmalloc-2k");
	/* Seed 004: page-sized objects from order-3 slabs, 8 per slab. */
	CHECK(slablab_calc_order(4096, 2, 3, PAGE).order == 3, "kmalloc-4k");
	CHECK(slablab_objs_per_slab(3, 4096, PAGE) == 8, "8 per slab");
	CHECK(slablab_calc_order(8192, 2, 3, PAGE).order == 3, "kmalloc-8k");
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

int main(void)
{
	test_order_properties();
	test_known_slub_choices();
	test_min_partial();
	test_cpu_partial();
	test_sheaf_capacity();
	test_names_and_stride();
	printf("policy: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
