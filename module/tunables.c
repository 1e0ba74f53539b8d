// SPDX-License-Identifier: GPL-2.0
/*
 * The cache tunables' registry (slablab_tunables[], tunables-gen.c, generated from
 * uapi/slablab.yaml's cache-tunables and uapi/tunables.yaml), its computed defaults
 * (uapi/tunables.yaml's "computed": slablab_<name>_default()) and range check. A leaf,
 * as trace.c is: it calls nothing of the module, so that cache.c (creation's defaults,
 * the check and apply steps every setting of a tunable goes through, the setters),
 * netlink-cache.c and debugfs.c may all read it (tests/host/test_layers.py); they
 * include tunables.h, which declares it.
 *
 * Locks: none; the functions read the cache they are given, whose caller holds
 * slablab_mutex or owns a cache not yet listed.
 */

#include <linux/bitops.h>
#include "tunables.h"

/* ---- the defaults creation computes from the cache's layout (tunables.yaml's "computed") */

/** slablab_order_default - the order policy's choice (slablab_choose_order()) */
unsigned int slablab_order_default(const struct slablab_cache *s)
{
	return s->order_default;
}

/** slablab_cpu_partial_default - SLUB's set_cpu_partial() for the cache's object stride */
unsigned int slablab_cpu_partial_default(const struct slablab_cache *s)
{
	return slablab_default_cpu_partial(s->stride, PAGE_SIZE);
}

/** slablab_min_partial_default - SLUB's set_min_partial() for the cache's object size */
unsigned int slablab_min_partial_default(const struct slablab_cache *s)
{
	return slablab_default_min_partial(s->object_size);
}

/** slablab_sheaf_capacity_default - 7.3's calculate_sheaf_capacity() for the stride */
unsigned int slablab_sheaf_capacity_default(const struct slablab_cache *s)
{
	return slablab_default_sheaf_capacity(s->stride, PAGE_SIZE);
}

/**
 * slablab_limit_default - SLAB's enable_cpucache() limit for the cache's object stride
 * @s: the cache
 *
 * Return: objects a cpu's array holds.
 */
unsigned int slablab_limit_default(const struct slablab_cache *s)
{
	if (s->stride > 131072)
		return 1;
	if (s->stride > PAGE_SIZE)
		return 8;
	if (s->stride > 1024)
		return 24;
	if (s->stride > 256)
		return 54;
	return 120;
}

/** slablab_batchcount_default - SLAB's enable_cpucache(): half the limit, rounded up */
unsigned int slablab_batchcount_default(const struct slablab_cache *s)
{
	return (slablab_limit_default(s) + 1) / 2;
}

/** slablab_shared_default - SLAB's enable_cpucache(): 8 for objects up to a page on SMP */
unsigned int slablab_shared_default(const struct slablab_cache *s)
{
	return s->stride <= PAGE_SIZE && num_possible_cpus() > 1 ? 8 : 0;
}

/**
 * slablab_tunables_defaults - give a new cache every default the registry computes
 * @s: the cache, its layout and order policy's choice made (not yet listed)
 *
 * The tunables whose default is the request's (flags, design, sheaves_cpu_slabs) are
 * left to the caller.
 */
void slablab_tunables_defaults(struct slablab_cache *s)
{
	const struct slablab_tunable *t;

	for (t = slablab_tunables; t < slablab_tunables + SLABLAB_NR_TUNABLES; t++) {
		unsigned int *field = (unsigned int *)((char *)s + t->offset);

		if (t->dflt == SLABLAB_DEFAULT_VALUE)
			*field = t->dflt_value;
		else if (t->dflt == SLABLAB_DEFAULT_COMPUTED)
			*field = t->dflt_fn(s);
	}
}

/* ---- the registry's ranges ---- */

/* Fails to build unless every tunable's field is an unsigned int, as the registry reads it. */
#define SLABLAB_TUNABLE_SIZE(attr, name, type, kind, enum, min, max)			\
	BUILD_BUG_ON_ZERO(sizeof_field(struct slablab_cache, name) != sizeof(unsigned int)),

static const int slablab_tunable_sizes[] __maybe_unused = {
	SLABLAB_CACHE_TUNABLES(SLABLAB_TUNABLE_SIZE)
};

#undef SLABLAB_TUNABLE_SIZE

/* A set of tunables is a u32 mask of their ids (slablab_cache_args.tunables_set). */
static_assert(SLABLAB_NR_TUNABLES <= 32);

/**
 * slablab_tunables_check_ranges - each value within the registry's range
 * @tv: the tunables given; @tv->bad is set to the one out of range
 * @extack: where to say which, or NULL
 *
 * What netlink's policy checks of a request, for the in-kernel args and debugfs.
 *
 * Return: 0, -ERANGE, or -EINVAL (an unknown flag).
 */
int slablab_tunables_check_ranges(struct slablab_tunable_values *tv,
				  struct netlink_ext_ack *extack)
{
	unsigned int id;

	for (id = 0; id < SLABLAB_NR_TUNABLES; id++) {
		const struct slablab_tunable *t = &slablab_tunables[id];
		u32 v;

		if (!(tv->set & BIT(id)))
			continue;	/* (its value was never written) */
		v = tv->v[id];
		if (t->is_flags ? (v & ~t->max) : (v < t->min || v > t->max)) {
			tv->bad = id;
			if (t->is_flags)
				NL_SET_ERR_MSG_FMT_MOD(extack, "unknown %s %#x", t->name,
						       v & ~t->max);
			else
				NL_SET_ERR_MSG_FMT_MOD(extack, "%s %u out of range %u..%u",
						       t->name, v, t->min, t->max);
			return t->is_flags ? -EINVAL : -ERANGE;
		}
	}
	return 0;
}

/* The registry itself, generated: after the computed defaults it names. */
#include "tunables-gen.c"
