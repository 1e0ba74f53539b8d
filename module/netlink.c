// SPDX-License-Identifier: GPL-2.0
/*
 * slablab generic netlink family: the stable control interface. The protocol is
 * specified in uapi/slablab.yaml; scripts/gen-protocol.py generates from it
 * uapi/linux/slablab.h and netlink-gen.c: the policies, the ops table and the
 * handlers' prototypes (netlink-gen.h). This file is the family's core: the family
 * itself, its pre_doit (privileges), get-status, and what every handler shares
 * (netlink.h): the lock helpers, the reply helper, the statistics nest and the memory
 * cap of storms and replays. The other commands parse their requests and build their
 * replies in their own files:
 *   netlink-cache.c   cache-*, obj-alloc, obj-free, lab-set
 *   netlink-storm.c   storm-* (the engine is storm.c)
 *   netlink-replay.c  replay-* (the engine is replay.c)
 *
 * Privilege: every command that changes state needs CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN
 * in the ops table, checked in slablab_nl_pre_doit()); reading caches, status and storm
 * progress is open to everyone. Those commands also carry GENL_ADMIN_PERM, genetlink's
 * CAP_NET_ADMIN check: it refuses before the request is even parsed, so an unprivileged
 * caller learns nothing from malformed requests. Root has both. Both flags come from the
 * spec's admin-perm (the generated ops table).
 *
 * Replies: a handler that changes state allocates its reply before it does anything, so
 * a request that fails for lack of memory changes nothing (an OBJ_ALLOC whose reply
 * could not be allocated would otherwise hold objects nobody knows the handle of).
 *
 * Locking: the family is parallel_ops, so no handler runs under genl_mutex: a command
 * that waits long (a storm's drain, a replay's teardown, rcu_barrier(), the exact
 * layers' work on every cpu) holds up slablab alone, not every generic netlink family.
 * Handlers serialise on slablab's own locks: cpus_read_lock() and slablab_mutex
 * (cache.c's lock order) through slablab_lock(); storm commands take storm.c's
 * storm_mutex instead, and those two only briefly inside it (storm.c's lock order);
 * replay commands call replay.c with no lock of the family's files held, and it takes
 * its replay_mutex (and those two only briefly inside it). No handler keeps state of
 * its own between requests but in those locks' data, and the cache dump keeps its
 * cursor in its netlink_callback. Lock order: storm_mutex or replay_mutex, then
 * cpus_read_lock(), then slablab_mutex. Each file's top comment says which of them its
 * commands take.
 */
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/utsname.h>
#include <linux/cpu.h>
#include <linux/nodemask.h>
#include <net/genetlink.h>
#include "netlink.h"

/**
 * slablab_lock - take what a command on caches holds: cpus_read_lock(), then slablab_mutex
 *
 * In cache.c's lock order. Storm commands take it only briefly, inside storm_mutex.
 */
void slablab_lock(void)
{
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
}

/**
 * slablab_unlock - drop what slablab_lock() took
 */
void slablab_unlock(void)
{
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
}

/**
 * slablab_put_stats - put a statistics nest: one u64 per enum slablab_stat_item
 * @skb: the message
 * @attr: the nest's attribute type
 * @v: the values, __SLABLAB_STAT_MAX of them
 *
 * Attribute type = item + 1; type 0 is alignment padding (uapi header). Used for cache,
 * per-cpu and storm statistics alike.
 *
 * Return: 0, or -EMSGSIZE (the nest is cancelled).
 */
int slablab_put_stats(struct sk_buff *skb, int attr, const u64 *v)
{
	struct nlattr *nest = nla_nest_start(skb, attr);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < __SLABLAB_STAT_MAX; i++) {
		if (nla_put_u64_64bit(skb, i + 1, v[i], 0))
			goto cancel;
	}
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * slablab_reply_new - start a reply to @info, allocated before the request's work
 * @info: the request
 * @cmd: the reply's command
 * @size: room for the reply's attributes (genlmsg_new())
 * @hdr: set to the reply's header, for genlmsg_end()
 *
 * A handler that changes state calls it before it changes anything (the top of the file).
 *
 * Return: the reply, or NULL (with an extack message) when memory is short.
 */
struct sk_buff *slablab_reply_new(struct genl_info *info, u8 cmd, size_t size, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);

	if (msg) {
		*hdr = genlmsg_put_reply(msg, info, &slablab_nl_family, 0, cmd);
		if (*hdr)
			return msg;
		nlmsg_free(msg);
	}
	NL_SET_ERR_MSG_MOD(info->extack, "no memory for the reply; nothing was changed");
	return NULL;
}

/**
 * slablab_parse_max_live_bytes - the memory cap of a storm or a replay
 * @attr: its attribute, NULL when absent
 * @name: the attribute's name, for the extack message
 * @bytes: set to the cap
 * @extack: the request's extack
 *
 * A quarter of RAM when absent, at most half, so that a run cannot take the memory the
 * rest of the system needs.
 *
 * Return: 0, or -ERANGE (with an extack message naming @attr).
 */
int slablab_parse_max_live_bytes(const struct nlattr *attr, const char *name, u64 *bytes,
				 struct netlink_ext_ack *extack)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	*bytes = attr ? nla_get_u64(attr) : ram / 4;
	if (*bytes > ram / 2) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s is at most half of RAM, %llu MiB", name,
				       ram / 2 >> 20);
		NL_SET_BAD_ATTR(extack, attr);
		return -ERANGE;
	}
	return 0;
}

int slablab_nl_get_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	unsigned int nr_caches;
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &slablab_nl_family, 0, SLABLAB_CMD_GET_STATUS);
	if (!hdr)
		goto err;
	slablab_lock();
	nr_caches = slablab_nr_caches();
	slablab_unlock();
	if (nla_put_string(msg, SLABLAB_A_VERSION, SLABLAB_VERSION) ||
	    nla_put_u32(msg, SLABLAB_A_API_VERSION, SLABLAB_GENL_VERSION) ||
	    nla_put_string(msg, SLABLAB_A_KERNEL_RELEASE, utsname()->release) ||
	    nla_put_u32(msg, SLABLAB_A_NR_CPU_IDS, nr_cpu_ids) ||
	    nla_put_u32(msg, SLABLAB_A_NR_ONLINE_CPUS, num_online_cpus()) ||
	    nla_put_u32(msg, SLABLAB_A_NR_NODES, num_online_nodes()) ||
	    nla_put_u32(msg, SLABLAB_A_PAGE_SIZE, PAGE_SIZE) ||
	    nla_put_u32(msg, SLABLAB_A_NR_CACHES, nr_caches) ||
	    nla_put_u32(msg, SLABLAB_A_FEATURES, slablab_features() |
			(slablab_selftests ? SLABLAB_FEAT_SELFTEST : 0)) ||
	    nla_put_u32(msg, SLABLAB_A_KMALLOC_PAGE_POLICY, READ_ONCE(slablab_page_policy)) ||
	    nla_put_u32(msg, SLABLAB_A_KMALLOC_DESIGN, READ_ONCE(slablab_kmalloc_design)) ||
	    nla_put_u32(msg, SLABLAB_A_KMALLOC_LISTS, READ_ONCE(slablab_kmalloc_lists)))
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

#ifdef GENL_SET_ERR_MSG_FMT	/* 6.2 brought this and the split do/dump ops */
#define slablab_doit_ops genl_split_ops
#else
#define slablab_doit_ops genl_ops
#endif

static int slablab_nl_pre_doit(const struct slablab_doit_ops *ops, struct sk_buff *skb,
			       struct genl_info *info)
{
	/*
	 * netlink_capable(): the sender now needs it, and so does the socket's opener
	 * unless the sender gave a destination address (NETLINK_SKB_DST), so a socket
	 * opened by root and handed to an unprivileged process grants nothing.
	 */
	if ((ops->internal_flags & SLABLAB_NL_SYS_ADMIN) &&
	    !netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "this command changes state and needs CAP_SYS_ADMIN (run as root)");
		return -EPERM;
	}
	return 0;
}

/*
 * The family; its ops table, slablab_nl_ops[], is generated from the spec (netlink-gen.c).
 * parallel_ops: handlers take slablab's locks, not genl_mutex (the top of the file).
 */
struct genl_family slablab_nl_family __ro_after_init = {
	.name = SLABLAB_GENL_NAME,
	.version = SLABLAB_GENL_VERSION,
	.maxattr = SLABLAB_A_MAX,
	.policy = slablab_policy,
	.pre_doit = slablab_nl_pre_doit,
	.parallel_ops = true,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = slablab_nl_ops,
	.n_ops = ARRAY_SIZE(slablab_nl_ops),
	.resv_start_op = SLABLAB_CMD_GET_STATUS,	/* strict from the first command */
};

int __init slablab_netlink_init(void)
{
	return genl_register_family(&slablab_nl_family);
}

void slablab_netlink_exit(void)
{
	genl_unregister_family(&slablab_nl_family);
}
