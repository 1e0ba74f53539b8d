// SPDX-License-Identifier: GPL-2.0
/* generated from uapi/slablab.yaml, uapi/tunables.yaml by scripts/gen-protocol.py */
/*
 * The tunable registry (struct slablab_tunable, tunables.h): every place a tunable
 * appears in the module walks this table: creation's defaults and the range check
 * (tunables.c), the check and apply steps cache-new, cache-set, slablab_cache_args
 * and debugfs share (cache.c, whose slablab_set_<name>() are the setters), the
 * replies (netlink-cache.c) and the debugfs files. tunables.c includes it, after the
 * computed defaults the table names: one object, no file-level cycle.
 */

const char *const slablab_fastpath_names[2] = {
	[SLABLAB_FASTPATH_CMPXCHG] = "cmpxchg",
	[SLABLAB_FASTPATH_IRQOFF] = "irqoff",
};

const char *const slablab_design_names[4] = {
	[SLABLAB_DESIGN_SLUB] = "slub",
	[SLABLAB_DESIGN_SHEAVES] = "sheaves",
	[SLABLAB_DESIGN_SLAB] = "slab",
	[SLABLAB_DESIGN_SLOB] = "slob",
};

const struct slablab_tunable slablab_tunables[SLABLAB_NR_TUNABLES] = {
	[SLABLAB_TUNABLE_FLAGS] = {
		.name = "flags",
		.attr = SLABLAB_CACHE_A_FLAGS,
		.offset = offsetof(struct slablab_cache, flags),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES |
			   SLABLAB_TUNABLE_D_SLAB |
			   SLABLAB_TUNABLE_D_SLOB,
		.min = 0,
		.max = 31,
		.is_flags = true,
		.dflt = SLABLAB_DEFAULT_REQUEST,
	},
	[SLABLAB_TUNABLE_ORDER] = {
		.name = "order",
		.attr = SLABLAB_CACHE_A_ORDER,
		.offset = offsetof(struct slablab_cache, order),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES |
			   SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 4,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_order_default,
	},
	[SLABLAB_TUNABLE_CPU_PARTIAL] = {
		.name = "cpu_partial",
		.attr = SLABLAB_CACHE_A_CPU_PARTIAL,
		.offset = offsetof(struct slablab_cache, cpu_partial),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS,
		.min = 0,
		.max = 65536,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_cpu_partial_default,
	},
	[SLABLAB_TUNABLE_MIN_PARTIAL] = {
		.name = "min_partial",
		.attr = SLABLAB_CACHE_A_MIN_PARTIAL,
		.offset = offsetof(struct slablab_cache, min_partial),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 1024,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_min_partial_default,
	},
	[SLABLAB_TUNABLE_FASTPATH] = {
		.name = "fastpath",
		.attr = SLABLAB_CACHE_A_FASTPATH,
		.offset = offsetof(struct slablab_cache, fastpath),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS,
		.min = 0,
		.max = 1,
		.names = slablab_fastpath_names,
		.nr_names = ARRAY_SIZE(slablab_fastpath_names),
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_FASTPATH_CMPXCHG,
	},
	[SLABLAB_TUNABLE_REMOTE_NODE_DEFRAG_RATIO] = {
		.name = "remote_node_defrag_ratio",
		.attr = SLABLAB_CACHE_A_REMOTE_NODE_DEFRAG_RATIO,
		.offset = offsetof(struct slablab_cache, remote_node_defrag_ratio),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES_CPU_SLABS,
		.min = 0,
		.max = 100,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = 100,
	},
	[SLABLAB_TUNABLE_DESIGN] = {
		.name = "design",
		.attr = SLABLAB_CACHE_A_DESIGN,
		.offset = offsetof(struct slablab_cache, design),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES |
			   SLABLAB_TUNABLE_D_SLAB |
			   SLABLAB_TUNABLE_D_SLOB,
		.min = 0,
		.max = 3,
		.names = slablab_design_names,
		.nr_names = ARRAY_SIZE(slablab_design_names),
		.dflt = SLABLAB_DEFAULT_REQUEST,
	},
	[SLABLAB_TUNABLE_SHEAF_CAPACITY] = {
		.name = "sheaf_capacity",
		.attr = SLABLAB_CACHE_A_SHEAF_CAPACITY,
		.offset = offsetof(struct slablab_cache, sheaf_capacity),
		.designs = SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 1024,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_sheaf_capacity_default,
	},
	[SLABLAB_TUNABLE_BARN_MAX_FULL] = {
		.name = "barn_max_full",
		.attr = SLABLAB_CACHE_A_BARN_MAX_FULL,
		.offset = offsetof(struct slablab_cache, barn_max_full),
		.designs = SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 1024,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_BARN_DEFAULT_MAX,
	},
	[SLABLAB_TUNABLE_BARN_MAX_EMPTY] = {
		.name = "barn_max_empty",
		.attr = SLABLAB_CACHE_A_BARN_MAX_EMPTY,
		.offset = offsetof(struct slablab_cache, barn_max_empty),
		.designs = SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 1024,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_BARN_DEFAULT_MAX,
	},
	[SLABLAB_TUNABLE_LISTS] = {
		.name = "lists",
		.attr = SLABLAB_CACHE_A_LISTS,
		.offset = offsetof(struct slablab_cache, lists),
		.designs = SLABLAB_TUNABLE_D_SLAB |
			   SLABLAB_TUNABLE_D_SLOB,
		.min = 1,
		.max = 3,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_DEFAULT_LISTS,
	},
	[SLABLAB_TUNABLE_LIMIT] = {
		.name = "limit",
		.attr = SLABLAB_CACHE_A_LIMIT,
		.offset = offsetof(struct slablab_cache, limit),
		.designs = SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 4096,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_limit_default,
	},
	[SLABLAB_TUNABLE_BATCHCOUNT] = {
		.name = "batchcount",
		.attr = SLABLAB_CACHE_A_BATCHCOUNT,
		.offset = offsetof(struct slablab_cache, batchcount),
		.designs = SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 4096,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_batchcount_default,
	},
	[SLABLAB_TUNABLE_SHARED] = {
		.name = "shared",
		.attr = SLABLAB_CACHE_A_SHARED,
		.offset = offsetof(struct slablab_cache, shared),
		.designs = SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 64,
		.dflt = SLABLAB_DEFAULT_COMPUTED,
		.dflt_fn = slablab_shared_default,
	},
	[SLABLAB_TUNABLE_REAP_CPU_MS] = {
		.name = "reap_cpu_ms",
		.attr = SLABLAB_CACHE_A_REAP_CPU_MS,
		.offset = offsetof(struct slablab_cache, reap_cpu_ms),
		.designs = SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 3600000,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_SLAB_REAP_CPU_MS,
	},
	[SLABLAB_TUNABLE_REAP_NODE_MS] = {
		.name = "reap_node_ms",
		.attr = SLABLAB_CACHE_A_REAP_NODE_MS,
		.offset = offsetof(struct slablab_cache, reap_node_ms),
		.designs = SLABLAB_TUNABLE_D_SLAB,
		.min = 0,
		.max = 3600000,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_SLAB_REAP_NODE_MS,
	},
	[SLABLAB_TUNABLE_SHEAVES_CPU_SLABS] = {
		.name = "sheaves_cpu_slabs",
		.attr = SLABLAB_CACHE_A_SHEAVES_CPU_SLABS,
		.offset = offsetof(struct slablab_cache, sheaves_cpu_slabs),
		.designs = SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 1,
		.dflt = SLABLAB_DEFAULT_REQUEST,
	},
	[SLABLAB_TUNABLE_MAX_ORDER] = {
		.name = "max_order",
		.attr = SLABLAB_CACHE_A_MAX_ORDER,
		.offset = offsetof(struct slablab_cache, max_order),
		.designs = SLABLAB_TUNABLE_D_SLUB |
			   SLABLAB_TUNABLE_D_SHEAVES,
		.min = 0,
		.max = 4,
		.dflt = SLABLAB_DEFAULT_VALUE,
		.dflt_value = SLABLAB_DEFAULT_MAX_ORDER,
	},
};

/* Each default given as a value (a constant's included) within its range. */
static_assert(100 <= 100);	/* remote_node_defrag_ratio */
static_assert(SLABLAB_BARN_DEFAULT_MAX <= 1024);	/* barn_max_full */
static_assert(SLABLAB_BARN_DEFAULT_MAX <= 1024);	/* barn_max_empty */
static_assert(SLABLAB_DEFAULT_LISTS <= 3 && SLABLAB_DEFAULT_LISTS >= 1);	/* lists */
static_assert(SLABLAB_SLAB_REAP_CPU_MS <= 3600000);	/* reap_cpu_ms */
static_assert(SLABLAB_SLAB_REAP_NODE_MS <= 3600000);	/* reap_node_ms */
static_assert(SLABLAB_DEFAULT_MAX_ORDER <= 4);	/* max_order */
