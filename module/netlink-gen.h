/* SPDX-License-Identifier: GPL-2.0 */
/* generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit */
#ifndef _SLABLAB_NETLINK_GEN_H
#define _SLABLAB_NETLINK_GEN_H

#include <net/genetlink.h>
#include "../uapi/linux/slablab.h"

extern const struct nla_policy slablab_storm_size_policy[SLABLAB_STORM_SIZE_A_MAX + 1];
extern const struct nla_policy slablab_replay_policy[SLABLAB_REPLAY_A_MAX + 1];
extern const struct nla_policy slablab_storm_policy[SLABLAB_STORM_A_MAX + 1];
extern const struct nla_policy slablab_cache_policy[SLABLAB_CACHE_A_MAX + 1];
extern const struct nla_policy slablab_policy[SLABLAB_A_MAX + 1];

/*
 * genl_ops.internal_flags of the spec's admin-perm operations: they change state, and
 * the family's pre_doit (netlink.c) refuses them without CAP_SYS_ADMIN. They also
 * carry GENL_ADMIN_PERM, genetlink's CAP_NET_ADMIN check.
 */
#define SLABLAB_NL_SYS_ADMIN	BIT(0)

/* Ops table for slablab: genl_ops (kernel-policy: global; 6.1 has no split ops) */
extern const struct genl_ops slablab_nl_ops[19];

/*
 * The handlers, <family>_nl_<op>_doit and _dumpit as ynl-gen-c names them: what each
 * command takes and replies is in uapi/linux/slablab.h's top comment (the spec's doc).
 */

/**
 * slablab_nl_get_status_doit - the do handler of get-status (SLABLAB_CMD_GET_STATUS)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_get_status_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_new_doit - the do handler of cache-new (SLABLAB_CMD_CACHE_NEW)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_new_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_del_doit - the do handler of cache-del (SLABLAB_CMD_CACHE_DEL)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_del_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_get_doit - the do handler of cache-get (SLABLAB_CMD_CACHE_GET)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_get_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_get_dumpit - the dump handler of cache-get (SLABLAB_CMD_CACHE_GET)
 * @skb: the message to fill
 * @cb: the dump's state (its cursor in cb->args)
 *
 * Return: the length of @skb (0: the dump is done), or a negative errno
 */
int slablab_nl_cache_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * slablab_nl_cache_set_doit - the do handler of cache-set (SLABLAB_CMD_CACHE_SET)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_set_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_shrink_doit - the do handler of cache-shrink
 *	(SLABLAB_CMD_CACHE_SHRINK)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_shrink_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_validate_doit - the do handler of cache-validate
 *	(SLABLAB_CMD_CACHE_VALIDATE)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_validate_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_cache_reset_stats_doit - the do handler of cache-reset-stats
 *	(SLABLAB_CMD_CACHE_RESET_STATS)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_cache_reset_stats_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_obj_alloc_doit - the do handler of obj-alloc (SLABLAB_CMD_OBJ_ALLOC)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_obj_alloc_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_obj_free_doit - the do handler of obj-free (SLABLAB_CMD_OBJ_FREE)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_obj_free_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_lab_set_doit - the do handler of lab-set (SLABLAB_CMD_LAB_SET)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_lab_set_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_storm_start_doit - the do handler of storm-start (SLABLAB_CMD_STORM_START)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_storm_start_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_storm_get_doit - the do handler of storm-get (SLABLAB_CMD_STORM_GET)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_storm_get_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_storm_stop_doit - the do handler of storm-stop (SLABLAB_CMD_STORM_STOP)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_storm_stop_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_replay_new_doit - the do handler of replay-new (SLABLAB_CMD_REPLAY_NEW)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_replay_new_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_replay_data_doit - the do handler of replay-data (SLABLAB_CMD_REPLAY_DATA)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_replay_data_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_replay_run_doit - the do handler of replay-run (SLABLAB_CMD_REPLAY_RUN)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_replay_run_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_replay_get_doit - the do handler of replay-get (SLABLAB_CMD_REPLAY_GET)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_replay_get_doit(struct sk_buff *skb, struct genl_info *info);

/**
 * slablab_nl_replay_stop_doit - the do handler of replay-stop (SLABLAB_CMD_REPLAY_STOP)
 * @skb: the request
 * @info: its attributes, header, sender and extack
 *
 * admin-perm: the caller needs CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 * CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN, the family's pre_doit).
 * Return: 0, or a negative errno (with an extack message)
 */
int slablab_nl_replay_stop_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _SLABLAB_NETLINK_GEN_H */
