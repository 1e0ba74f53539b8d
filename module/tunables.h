/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache tunables' registry (tunables.c, tunables-gen.c): struct slablab_tunable and
 * slablab_tunables[], one entry per enum slablab_tunable_id, generated from
 * uapi/slablab.yaml and uapi/tunables.yaml; the enum tunables' value names; the
 * defaults creation gives and the range check (tunables.c); and the check-and-apply
 * steps every setting of a tunable goes through (slablab_tunables_set(), cache.c).
 * Included by tunables.c (and so tunables-gen.c), cache.c, netlink-cache.c (the
 * replies and cache-new/cache-set) and debugfs.c (a file per tunable). The setters,
 * slablab_set_<name>(), are cache.c's and the designs' (internal.h), not the
 * registry's: it is a leaf every layer may read (tests/host/test_layers.py).
 *
 * Locking: the registry and the name tables are constant, read without a lock.
 * slablab_tunable_get() reads one field with READ_ONCE(): a setter writes it under
 * slablab_mutex, so a reader without it sees each value whole, not a set of them at
 * one moment. tunables.c's functions read the cache they are given, whose caller holds
 * slablab_mutex or owns a cache not yet listed; slablab_tunables_set() and
 * slablab_tunable_set() want cpus_read_lock and slablab_mutex held (cache.c's order).
 */
#ifndef _SLABLAB_TUNABLES_H
#define _SLABLAB_TUNABLES_H

#include "internal.h"

/*
 * The tunable registry (tunables-gen.c, generated from uapi/slablab.yaml and
 * uapi/tunables.yaml): one entry per enum slablab_tunable_id.
 */
enum slablab_default_rule {
	SLABLAB_DEFAULT_REQUEST,	/* slablab_cache_args' own field (flags, design, ...) */
	SLABLAB_DEFAULT_VALUE,		/* @dflt_value */
	SLABLAB_DEFAULT_COMPUTED,	/* @dflt_fn(s), from the cache's layout */
};

/**
 * struct slablab_tunable - one cache tunable, as every part of the module sees it
 * @name: the struct slablab_cache field, debugfs file, slabctl key and JSON key
 * @attr: its SLABLAB_CACHE_A_* attribute
 * @offset: of its unsigned int in struct slablab_cache
 * @designs: SLABLAB_TUNABLE_D_* bits of the designs whose code reads it
 * @min: the least value it takes (the netlink policy's)
 * @max: the largest (a flags tunable: the mask of its bits)
 * @names: an enum tunable's value names, else NULL
 * @nr_names: entries of @names
 * @is_flags: a flags tunable (debugfs shows it in the read-only "flags" file)
 * @dflt: how creation sets it
 * @dflt_value: its default for SLABLAB_DEFAULT_VALUE
 * @dflt_fn: its default for SLABLAB_DEFAULT_COMPUTED
 *
 * Its setter is slablab_set_<name>() (cache.c's table of them): not here, so that the
 * registry is a leaf every layer may read, as trace.c is.
 */
struct slablab_tunable {
	const char *name;
	int attr;
	size_t offset;
	unsigned int designs;
	u32 min;
	u32 max;
	const char *const *names;
	unsigned int nr_names;
	bool is_flags;
	enum slablab_default_rule dflt;
	u32 dflt_value;
	unsigned int (*dflt_fn)(const struct slablab_cache *s);
};

extern const struct slablab_tunable slablab_tunables[SLABLAB_NR_TUNABLES];
extern const char *const slablab_fastpath_names[__SLABLAB_FASTPATH_MAX];
extern const char *const slablab_design_names[__SLABLAB_DESIGN_MAX];

/* The value of tunable @t in @s. */
static inline unsigned int slablab_tunable_get(const struct slablab_cache *s,
					       const struct slablab_tunable *t)
{
	return READ_ONCE(*(const unsigned int *)((const char *)s + t->offset));
}

/**
 * struct slablab_tunable_values - tunables to check and apply together
 * @set: BIT(id) of each one given
 * @v: the values, by enum slablab_tunable_id
 * @bad: set by slablab_tunables_set() to the id of the tunable that
 *	failed, -1 when none did (cache-new and cache-set point the extack at its
 *	attribute)
 */
struct slablab_tunable_values {
	u32 set;
	u32 v[SLABLAB_NR_TUNABLES];
	int bad;
};

/* tunables.c, a leaf: the defaults creation gives and the registry's ranges */
void slablab_tunables_defaults(struct slablab_cache *s);
int slablab_tunables_check_ranges(struct slablab_tunable_values *tv,
				  struct netlink_ext_ack *extack);
/* cache.c: check and apply, for creation, cache-new, cache-set, the args and debugfs */
int slablab_tunables_set(struct slablab_cache *s, struct slablab_tunable_values *tv,
			 struct netlink_ext_ack *extack);
int slablab_tunable_set(struct slablab_cache *s, unsigned int id, u32 v,
			struct netlink_ext_ack *extack);
unsigned int slablab_order_default(const struct slablab_cache *s);
unsigned int slablab_cpu_partial_default(const struct slablab_cache *s);
unsigned int slablab_min_partial_default(const struct slablab_cache *s);
unsigned int slablab_sheaf_capacity_default(const struct slablab_cache *s);
unsigned int slablab_limit_default(const struct slablab_cache *s);
unsigned int slablab_batchcount_default(const struct slablab_cache *s);
unsigned int slablab_shared_default(const struct slablab_cache *s);

#endif /* _SLABLAB_TUNABLES_H */
