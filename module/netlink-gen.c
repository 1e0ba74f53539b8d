// SPDX-License-Identifier: GPL-2.0
/* generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit */
/*
 * The policies of the slablab family (kernel-policy: global): one table per
 * attribute set requests carry, holding only the attributes requests may carry, so
 * that strict validation rejects the reply-only ones as unknown. Then the ops table:
 * one genl_ops per operation, with the handlers netlink-gen.h declares (netlink.c,
 * netlink-cache.c, netlink-storm.c, netlink-replay.c define them).
 */
#include "netlink-gen.h"

static struct netlink_range_validation storm_size_size_range = {
	.min = 1,
	.max = 32768,
};

static struct netlink_range_validation replay_time_scale_range = {
	.max = 1000000,
};

static struct netlink_range_validation replay_cpu_partial_range = {
	.max = 65536,
};

static struct netlink_range_validation storm_size_range = {
	.min = 1,
	.max = 32768,
};

static struct netlink_range_validation storm_ops_range = {
	.min = 1,
	.max = 1099511627776ULL,
};

static struct netlink_range_validation storm_duration_ms_range = {
	.min = 1,
	.max = 600000,
};

static struct netlink_range_validation storm_batch_range = {
	.min = 1,
	.max = 65536,
};

static struct netlink_range_validation storm_working_set_range = {
	.min = 1,
	.max = 4194304,
};

static struct netlink_range_validation storm_ring_range = {
	.min = 2,
	.max = 65536,
};

static struct netlink_range_validation cache_cpu_partial_range = {
	.max = 65536,
};

static struct netlink_range_validation cache_reap_cpu_ms_range = {
	.max = 3600000,
};

static struct netlink_range_validation cache_reap_node_ms_range = {
	.max = 3600000,
};

static struct netlink_range_validation slablab_count_range = {
	.min = 1,
	.max = 1048576,
};

const struct nla_policy slablab_storm_size_policy[SLABLAB_STORM_SIZE_A_MAX + 1] = {
	[SLABLAB_STORM_SIZE_A_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_size_size_range),
	[SLABLAB_STORM_SIZE_A_WEIGHT] = NLA_POLICY_MIN(NLA_U32, 1),
};

const struct nla_policy slablab_replay_policy[SLABLAB_REPLAY_A_MAX + 1] = {
	[SLABLAB_REPLAY_A_TARGET] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_TARGET_MAX - 1),
	[SLABLAB_REPLAY_A_NR_EVENTS] = NLA_POLICY_MIN(NLA_U64, 1),
	[SLABLAB_REPLAY_A_NR_OBJECTS] = NLA_POLICY_MIN(NLA_U32, 1),
	[SLABLAB_REPLAY_A_NR_CPUS] = NLA_POLICY_RANGE(NLA_U32, 1, 4096),
	[SLABLAB_REPLAY_A_CACHES] = { .type = NLA_BINARY },
	[SLABLAB_REPLAY_A_MAX_LIVE_BYTES] = NLA_POLICY_MIN(NLA_U64, 1),
	[SLABLAB_REPLAY_A_OFFSET] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_EVENTS] = { .type = NLA_BINARY },
	[SLABLAB_REPLAY_A_STATE] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_REPLAY_MAX - 1),
	[SLABLAB_REPLAY_A_THREADS] = { .type = NLA_U32 },
	[SLABLAB_REPLAY_A_FOLDED] = { .type = NLA_U32 },
	[SLABLAB_REPLAY_A_ALLOCS] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_FREES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_REMOTE_FREES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_FAILURES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_ALLOC_CYCLES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_FREE_CYCLES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_ELAPSED_NS] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_PEAK_PAGES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_PEAK_LIVE_BYTES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_LIVE_AT_END] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_CACHE_RESULTS] = { .type = NLA_BINARY },
	[SLABLAB_REPLAY_A_DESIGN] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_DESIGN_MAX - 1),
	[SLABLAB_REPLAY_A_TIME_SCALE] = NLA_POLICY_FULL_RANGE(NLA_U32, &replay_time_scale_range),
	[SLABLAB_REPLAY_A_TIMES] = { .type = NLA_BINARY },
	[SLABLAB_REPLAY_A_SAMPLE_NS] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_SAMPLES] = { .type = NLA_BINARY },
	[SLABLAB_REPLAY_A_AVG_PAGES] = { .type = NLA_U64 },
	[SLABLAB_REPLAY_A_CPU_PARTIAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &replay_cpu_partial_range),
};

const struct nla_policy slablab_storm_policy[SLABLAB_STORM_A_MAX + 1] = {
	[SLABLAB_STORM_A_TARGET] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_TARGET_MAX - 1),
	[SLABLAB_STORM_A_PATTERN] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_PATTERN_MAX - 1),
	[SLABLAB_STORM_A_CACHE] = { .type = NLA_NUL_STRING, .len = SLABLAB_NAME_MAX - 1 },
	[SLABLAB_STORM_A_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_size_range),
	[SLABLAB_STORM_A_SIZES] = NLA_POLICY_NESTED_ARRAY(slablab_storm_size_policy),
	[SLABLAB_STORM_A_THREADS] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
	[SLABLAB_STORM_A_CPUS] = { .type = NLA_NUL_STRING, .len = SLABLAB_STORM_CPUS_MAX - 1 },
	[SLABLAB_STORM_A_OPS] = NLA_POLICY_FULL_RANGE(NLA_U64, &storm_ops_range),
	[SLABLAB_STORM_A_DURATION_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_duration_ms_range),
	[SLABLAB_STORM_A_BATCH] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_batch_range),
	[SLABLAB_STORM_A_WORKING_SET] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_working_set_range),
	[SLABLAB_STORM_A_RING] = NLA_POLICY_FULL_RANGE(NLA_U32, &storm_ring_range),
	[SLABLAB_STORM_A_SEED] = { .type = NLA_U64 },
	[SLABLAB_STORM_A_MAX_LIVE_BYTES] = NLA_POLICY_MIN(NLA_U64, 1),
	[SLABLAB_STORM_A_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[SLABLAB_STORM_A_THIN] = NLA_POLICY_MIN(NLA_U32, 1),
	[SLABLAB_STORM_A_RATE] = { .type = NLA_U32 },
	[SLABLAB_STORM_A_PRODUCERS] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
};

const struct nla_policy slablab_cache_policy[SLABLAB_CACHE_A_MAX + 1] = {
	[SLABLAB_CACHE_A_NAME] = { .type = NLA_NUL_STRING, .len = SLABLAB_NAME_MAX - 1 },
	[SLABLAB_CACHE_A_SIZE] = { .type = NLA_U32 },
	[SLABLAB_CACHE_A_ALIGN] = { .type = NLA_U32 },
	[SLABLAB_CACHE_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, __SLABLAB_CACHE_F_ALL),
	[SLABLAB_CACHE_A_ORDER] = NLA_POLICY_MAX(NLA_U32, 4),
	[SLABLAB_CACHE_A_CPU_PARTIAL] = NLA_POLICY_FULL_RANGE(NLA_U32, &cache_cpu_partial_range),
	[SLABLAB_CACHE_A_MIN_PARTIAL] = NLA_POLICY_MAX(NLA_U32, 1024),
	[SLABLAB_CACHE_A_FASTPATH] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_FASTPATH_MAX - 1),
	[SLABLAB_CACHE_A_REMOTE_NODE_DEFRAG_RATIO] = NLA_POLICY_MAX(NLA_U32, 100),
	[SLABLAB_CACHE_A_DESIGN] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_DESIGN_MAX - 1),
	[SLABLAB_CACHE_A_SHEAF_CAPACITY] = NLA_POLICY_MAX(NLA_U32, 1024),
	[SLABLAB_CACHE_A_BARN_MAX_FULL] = NLA_POLICY_MAX(NLA_U32, 1024),
	[SLABLAB_CACHE_A_BARN_MAX_EMPTY] = NLA_POLICY_MAX(NLA_U32, 1024),
	[SLABLAB_CACHE_A_LISTS] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
	[SLABLAB_CACHE_A_LIMIT] = NLA_POLICY_MAX(NLA_U32, 4096),
	[SLABLAB_CACHE_A_BATCHCOUNT] = NLA_POLICY_MAX(NLA_U32, 4096),
	[SLABLAB_CACHE_A_SHARED] = NLA_POLICY_MAX(NLA_U32, 64),
	[SLABLAB_CACHE_A_REAP_CPU_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &cache_reap_cpu_ms_range),
	[SLABLAB_CACHE_A_REAP_NODE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &cache_reap_node_ms_range),
	[SLABLAB_CACHE_A_SHEAVES_CPU_SLABS] = NLA_POLICY_MAX(NLA_U32, 1),
	[SLABLAB_CACHE_A_MAX_ORDER] = NLA_POLICY_MAX(NLA_U32, 4),
};

const struct nla_policy slablab_policy[SLABLAB_A_MAX + 1] = {
	[SLABLAB_A_KMALLOC_PAGE_POLICY] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_PAGE_POLICY_MAX - 1),
	[SLABLAB_A_CACHE] = NLA_POLICY_NESTED(slablab_cache_policy),
	[SLABLAB_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, __SLABLAB_GET_F_ALL),
	[SLABLAB_A_HANDLE] = NLA_POLICY_MIN(NLA_U32, 1),
	[SLABLAB_A_COUNT] = NLA_POLICY_FULL_RANGE(NLA_U32, &slablab_count_range),
	[SLABLAB_A_CPU] = { .type = NLA_U32 },
	[SLABLAB_A_STORM] = NLA_POLICY_NESTED(slablab_storm_policy),
	[SLABLAB_A_REPLAY] = NLA_POLICY_NESTED(slablab_replay_policy),
	[SLABLAB_A_KMALLOC_DESIGN] = NLA_POLICY_MAX(NLA_U32, __SLABLAB_DESIGN_MAX - 1),
	[SLABLAB_A_KMALLOC_LISTS] = NLA_POLICY_RANGE(NLA_U32, 1, 3),
};

/* Ops table for slablab: every operation of the spec, in its order */
const struct genl_ops slablab_nl_ops[19] = {
	{
		.cmd	= SLABLAB_CMD_GET_STATUS,
		.doit	= slablab_nl_get_status_doit,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_NEW,
		.doit		= slablab_nl_cache_new_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_DEL,
		.doit		= slablab_nl_cache_del_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd	= SLABLAB_CMD_CACHE_GET,
		.doit	= slablab_nl_cache_get_doit,
		.dumpit	= slablab_nl_cache_get_dumpit,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_SET,
		.doit		= slablab_nl_cache_set_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_SHRINK,
		.doit		= slablab_nl_cache_shrink_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_VALIDATE,
		.doit		= slablab_nl_cache_validate_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_CACHE_RESET_STATS,
		.doit		= slablab_nl_cache_reset_stats_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_OBJ_ALLOC,
		.doit		= slablab_nl_obj_alloc_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_OBJ_FREE,
		.doit		= slablab_nl_obj_free_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_LAB_SET,
		.doit		= slablab_nl_lab_set_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_STORM_START,
		.doit		= slablab_nl_storm_start_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd	= SLABLAB_CMD_STORM_GET,
		.doit	= slablab_nl_storm_get_doit,
	},
	{
		.cmd		= SLABLAB_CMD_STORM_STOP,
		.doit		= slablab_nl_storm_stop_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_REPLAY_NEW,
		.doit		= slablab_nl_replay_new_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_REPLAY_DATA,
		.doit		= slablab_nl_replay_data_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd		= SLABLAB_CMD_REPLAY_RUN,
		.doit		= slablab_nl_replay_run_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
	{
		.cmd	= SLABLAB_CMD_REPLAY_GET,
		.doit	= slablab_nl_replay_get_doit,
	},
	{
		.cmd		= SLABLAB_CMD_REPLAY_STOP,
		.doit		= slablab_nl_replay_stop_doit,
		.flags		= GENL_ADMIN_PERM,
		.internal_flags	= SLABLAB_NL_SYS_ADMIN,
	},
};
