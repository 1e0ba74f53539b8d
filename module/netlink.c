// SPDX-License-Identifier: GPL-2.0
/*
 * slablab generic netlink family: the stable control interface. The protocol is
 * specified in uapi/linux/slablab.h. This file is the one place that defines the
 * family, its policies and its ops, and the only one that parses requests and builds
 * replies: storm requests become a struct slablab_storm_spec for the engine (storm.c),
 * whose struct slablab_storm_report becomes the reply.
 * The policies (netlink-gen.c) and uapi/linux/slablab.h are generated from the spec,
 * uapi/slablab.yaml, by scripts/gen-protocol.py.
 *
 * Privilege: every command that changes state needs CAP_SYS_ADMIN (SLABLAB_NL_SYS_ADMIN
 * in the ops table, checked in slablab_nl_pre_doit()); reading caches, status and storm
 * progress is open to everyone. Those commands also carry GENL_ADMIN_PERM, genetlink's
 * CAP_NET_ADMIN check: it refuses before the request is even parsed, so an unprivileged
 * caller learns nothing from malformed requests. Root has both.
 *
 * Replies: a handler that changes state allocates its reply before it does anything, so
 * a request that fails for lack of memory changes nothing (an OBJ_ALLOC whose reply
 * could not be allocated would otherwise hold objects nobody knows the handle of).
 *
 * Locking: the family is not parallel_ops, so every handler runs under genl_mutex.
 * Handlers then take cpus_read_lock() and slablab_mutex (cache.c's lock order) through
 * slablab_lock(); storm commands take storm.c's storm_mutex instead, and those two
 * only briefly inside it (storm.c's lock order). The cache dump's cursor and
 * consistency check: slablab_nl_cache_dump().
 */
#include <linux/module.h>
#include <linux/capability.h>
#include <linux/utsname.h>
#include <linux/cpu.h>
#include <linux/nodemask.h>
#include <net/genetlink.h>
#include "internal.h"

static struct genl_family slablab_family;

/*
 * Selftests only (debugfs selftest_dump_percpu_max): at most this many per-cpu
 * entries per message of the cache dump, 0 for as many as fit. With it at 1 a cache's
 * entries span several messages on a 2-cpu VM, as they do on a machine of many cpus,
 * so the suite checks that split without booting one. Read once per dump callback
 * (slablab_nl_cache_dump()): every message one callback fills has the same cap. Only
 * the dump reads it, so it lives here, not in the back end.
 */
unsigned int slablab_selftest_dump_percpu_max;

/*
 * The policies (slablab_policy and the nests' tables) are generated from the spec:
 * netlink-gen.c. So is the tunable registry (slablab_tunables[], tunables-gen.c): each
 * tunable's attribute and field, which put_tunables() reports and tunables_from()
 * gathers for tunables.c to check and apply.
 */

static void slablab_lock(void)
{
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
}

static void slablab_unlock(void)
{
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
}

/* Parse SLABLAB_A_CACHE into @tb; the name is required. */
static int parse_cache(struct genl_info *info, struct nlattr **tb)
{
	int err;

	if (GENL_REQ_ATTR_CHECK(info, SLABLAB_A_CACHE))
		return -EINVAL;
	err = nla_parse_nested(tb, SLABLAB_CACHE_A_MAX, info->attrs[SLABLAB_A_CACHE],
			       slablab_cache_policy, info->extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_CACHE], tb,
			      SLABLAB_CACHE_A_NAME)) {
		NL_SET_ERR_MSG_MOD(info->extack, "cache name (SLABLAB_CACHE_A_NAME) is required");
		return -EINVAL;
	}
	return 0;
}

/* Find the cache named in @tb (slablab_lock() held). */
static struct slablab_cache *lookup_cache(struct genl_info *info, struct nlattr **tb)
{
	const char *name = nla_data(tb[SLABLAB_CACHE_A_NAME]);
	struct slablab_cache *s = slablab_cache_find(name);

	if (!s) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack, "no cache named %s", name);
		NL_SET_BAD_ATTR(info->extack, tb[SLABLAB_CACHE_A_NAME]);
		return ERR_PTR(-ENOENT);
	}
	return s;
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

static int put_stats(struct sk_buff *skb, int attr, struct slablab_cache *s, int cpu)
{
	u64 v[__SLABLAB_STAT_MAX];
	int i;

	for (i = 0; i < __SLABLAB_STAT_MAX; i++)
		v[i] = cpu < 0 ? slablab_stat_sum(s, i) : slablab_stat_cpu(s, cpu, i);
	return slablab_put_stats(skb, attr, v);
}

static bool cpu_has_activity(struct slablab_cache *s, int cpu)
{
	int i;

	for (i = 0; i < __SLABLAB_STAT_MAX; i++) {
		if (slablab_stat_cpu(s, cpu, i))
			return true;
	}
	return false;
}

/*
 * Put a PERCPU nest with the entries of @s from cpu *@next on, as many as fit but at
 * most @max (0: no limit; the dump's selftest_dump_percpu_max), and leave *@next at
 * the first cpu not put (nr_cpu_ids when every one was). Possible cpus that are
 * offline and never did anything in the cache are left out.
 *
 * Return: 0 (possibly with entries left over), or -EMSGSIZE when not even one of the
 * entries left fits (the nest is cancelled).
 */
static int put_percpu(struct sk_buff *skb, struct slablab_cache *s, int *next,
		      unsigned int max)
{
	struct nlattr *list = nla_nest_start(skb, SLABLAB_CACHE_A_PERCPU), *e;
	u32 slab_objs, pslabs, pobjs;
	unsigned int put = 0;
	int cpu;

	if (!list)
		return -EMSGSIZE;
	for (cpu = *next; cpu < nr_cpu_ids; cpu++) {
		if (!cpu_possible(cpu))
			continue;
		slablab_cpu_view(s, cpu, &slab_objs, &pslabs, &pobjs);
		if (!cpu_online(cpu) && !slab_objs && !pslabs && !cpu_has_activity(s, cpu))
			continue;
		/* here, not at the loop's top: *@next is then a cpu that has an entry */
		if (max && put == max)
			break;
		e = nla_nest_start(skb, SLABLAB_PERCPU_A_ENTRY);
		if (!e)
			break;
		if (nla_put_u32(skb, SLABLAB_PERCPU_A_CPU, cpu) ||
		    nla_put_u32(skb, SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS, slab_objs) ||
		    nla_put_u32(skb, SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS, pslabs) ||
		    nla_put_u32(skb, SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS, pobjs) ||
		    put_stats(skb, SLABLAB_PERCPU_A_STATS, s, cpu)) {
			nla_nest_cancel(skb, e);
			break;
		}
		nla_nest_end(skb, e);
		put++;
	}
	if (cpu < nr_cpu_ids && !put) {
		nla_nest_cancel(skb, list);
		return -EMSGSIZE;
	}
	*next = cpu;
	nla_nest_end(skb, list);
	return 0;
}

static int put_gauges(struct sk_buff *skb, struct slablab_cache *s)
{
	struct slablab_gauges g;

	slablab_gauges(s, &g);
	if (nla_put_u64_64bit(skb, SLABLAB_CACHE_A_OBJECTS, g.objects, SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_TOTAL_OBJECTS, g.total_objects,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_SLABS, g.slabs, SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_PARTIAL_SLABS, g.partial_slabs,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_CPU_SLABS, g.cpu_slabs, SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_CPU_PARTIAL_SLABS, g.cpu_partial_slabs,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_PAGES, g.pages, SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_LIVE_BYTES, g.live_bytes,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_META_BYTES, g.meta_bytes,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_FREE_SLABS, g.free_slabs,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_SLOB_SCAN_MAX, g.slob_scan_max,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_RCU_PENDING, g.rcu_pending,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_RCU_WAITING, g.rcu_waiting,
			      SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_RCU_SLABS, g.rcu_slabs, SLABLAB_CACHE_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_CACHE_A_RCU_PAGES, g.rcu_pages, SLABLAB_CACHE_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The tunables of @s (the registry), each from its field. */
static int put_tunables(struct sk_buff *skb, struct slablab_cache *s)
{
	const struct slablab_tunable *t;

	for (t = slablab_tunables; t < slablab_tunables + SLABLAB_NR_TUNABLES; t++) {
		if (nla_put_u32(skb, t->attr, slablab_tunable_get(s, t)))
			return -EMSGSIZE;
	}
	return 0;
}

/* The layers (SLABLAB_CACHE_LAYERS): each one's attribute and struct slablab_layers field. */
#define SLABLAB_LAYER(attr, name)							\
	{ SLABLAB_LAYERS_A_##attr, offsetof(struct slablab_layers, name) },

static const struct {
	int attr;
	size_t offset;
} slablab_layer_fields[] = {
	SLABLAB_CACHE_LAYERS(SLABLAB_LAYER)
};

#undef SLABLAB_LAYER

/*
 * The LAYERS nest of @s: the layers its design has (struct slablab_layers' present
 * mask), each from the field the spec's table names. Runs a count on every cpu.
 */
static int put_layers(struct sk_buff *skb, struct slablab_cache *s)
{
	struct slablab_layers l;
	struct nlattr *nest;
	unsigned int i;

	slablab_layers(s, &l);
	nest = nla_nest_start(skb, SLABLAB_CACHE_A_LAYERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(slablab_layer_fields); i++) {
		int attr = slablab_layer_fields[i].attr;

		if (!(l.present & BIT(attr)))
			continue;
		if (nla_put_u64_64bit(skb, attr,
				      *(u64 *)((char *)&l + slablab_layer_fields[i].offset),
				      SLABLAB_LAYERS_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The OCCUPANCY nest of @s: a BUCKET nest { LO, HI, SLABS } per bucket, empty to full. */
static int put_occupancy(struct sk_buff *skb, struct slablab_cache *s)
{
	struct slablab_occupancy h;
	struct nlattr *nest, *b;
	unsigned int i, lo, hi;

	slablab_occupancy(s, &h);
	nest = nla_nest_start(skb, SLABLAB_CACHE_A_OCCUPANCY);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < h.nr; i++) {
		slablab_occupancy_range(&h, i, &lo, &hi);
		b = nla_nest_start(skb, SLABLAB_OCCUPANCY_A_BUCKET);
		if (!b || nla_put_u32(skb, SLABLAB_OCCUPANCY_A_LO, lo) ||
		    nla_put_u32(skb, SLABLAB_OCCUPANCY_A_HI, hi) ||
		    nla_put_u64_64bit(skb, SLABLAB_OCCUPANCY_A_SLABS, h.slabs[i],
				      SLABLAB_OCCUPANCY_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, b);
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Put the SLABLAB_A_CACHE nest of @s. With @percpu, its per-cpu entries from cpu
 * *@percpu on follow, as many as fit and at most @percpu_max (see put_percpu());
 * without, none. With @layers, the LAYERS and OCCUPANCY nests (CACHE_GET, and dumps
 * with SLABLAB_GET_F_LAYERS).
 */
static int put_cache(struct sk_buff *skb, struct slablab_cache *s, int *percpu,
		     unsigned int percpu_max, const u64 *slabs_freed, bool layers)
{
	struct nlattr *nest = nla_nest_start(skb, SLABLAB_A_CACHE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, SLABLAB_CACHE_A_NAME, s->name) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_SIZE, s->object_size) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_ALIGN, s->align) ||
	    put_tunables(skb, s) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_OBJ_STRIDE, s->stride) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_OBJS_PER_SLAB,
			slablab_cache_objs(s, READ_ONCE(s->order))) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_ORDER_DEFAULT, s->order_default) ||
	    nla_put_u32(skb, SLABLAB_CACHE_A_OWNER, s->owner) ||
	    put_gauges(skb, s) ||
	    put_stats(skb, SLABLAB_CACHE_A_STATS, s, -1) ||
	    (slabs_freed && nla_put_u64_64bit(skb, SLABLAB_CACHE_A_SLABS_FREED, *slabs_freed,
					       SLABLAB_CACHE_A_PAD)) ||
	    (layers && (put_layers(skb, s) || put_occupancy(skb, s))) ||
	    (percpu && put_percpu(skb, s, percpu, percpu_max))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A dump message continuing the per-cpu entries of @s from cpu *@next, at most @max
 * of them (0: as many as fit): only SLABLAB_A_CACHE { NAME, PERCPU { ... } } (uapi
 * header, CACHE_GET).
 */
static int put_cache_percpu_more(struct sk_buff *skb, struct slablab_cache *s, int *next,
				 unsigned int max)
{
	struct nlattr *nest = nla_nest_start(skb, SLABLAB_A_CACHE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, SLABLAB_CACHE_A_NAME, s->name) ||
	    put_percpu(skb, s, next, max)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Room for one cache with its per-cpu breakdown. */
static size_t cache_msg_size(void)
{
	size_t stats = nla_total_size(0) + __SLABLAB_STAT_MAX * nla_total_size_64bit(8);

	return NLMSG_GOODSIZE + num_possible_cpus() * (stats + 5 * nla_total_size(4));
}

/* Start a reply to @info: allocated before the request's work (see the top of the file). */
static struct sk_buff *reply_new(struct genl_info *info, u8 cmd, size_t size, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);

	if (msg) {
		*hdr = genlmsg_put_reply(msg, info, &slablab_family, 0, cmd);
		if (*hdr)
			return msg;
		nlmsg_free(msg);
	}
	NL_SET_ERR_MSG_MOD(info->extack, "no memory for the reply; nothing was changed");
	return NULL;
}

/*
 * Fill @msg (from reply_new()) with the cache and whatever @extra adds, and send it.
 * Consumes @msg in every case.
 */
static int reply_cache(struct genl_info *info, struct sk_buff *msg, void *hdr,
		       struct slablab_cache *s, const u64 *slabs_freed,
		       int (*extra)(struct sk_buff *, void *), void *arg)
{
	bool layers = info->genlhdr->cmd == SLABLAB_CMD_CACHE_GET;
	int cpu = 0, err = put_cache(msg, s, &cpu, 0, slabs_freed, layers);

	/* The message was sized for every cpu (cache_msg_size()). */
	if (!err && cpu < nr_cpu_ids)
		err = -EMSGSIZE;
	if (!err && extra)
		err = extra(msg, arg);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The start of every command on one named cache: parse SLABLAB_A_CACHE into @tb,
 * allocate the reply (@msg non-NULL: before any work, see the top of the file), take
 * slablab_lock() and find the cache. On success the caller holds the lock and owns
 * *@msg; on error nothing is held and the reply is freed.
 */
static struct slablab_cache *cache_op_begin(struct genl_info *info, struct nlattr **tb,
					    u8 cmd, struct sk_buff **msg, void **hdr)
{
	struct slablab_cache *s;
	int err;

	err = parse_cache(info, tb);
	if (err)
		return ERR_PTR(err);
	if (msg) {
		*msg = reply_new(info, cmd, cache_msg_size(), hdr);
		if (!*msg)
			return ERR_PTR(-ENOMEM);
	}
	slablab_lock();
	s = lookup_cache(info, tb);
	if (IS_ERR(s)) {
		slablab_unlock();
		if (msg)
			nlmsg_free(*msg);
	}
	return s;
}

static int slablab_nl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	unsigned int nr_caches;
	void *hdr;

	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &slablab_family, 0, SLABLAB_CMD_GET_STATUS);
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

/* The tunables @tb holds, for tunables.c (the policy has range-checked them). */
static void tunables_from(struct nlattr **tb, struct slablab_tunable_values *tv)
{
	unsigned int id;

	tv->set = 0;
	for (id = 0; id < SLABLAB_NR_TUNABLES; id++) {
		struct nlattr *a = tb[slablab_tunables[id].attr];

		if (a) {
			tv->set |= BIT(id);
			tv->v[id] = nla_get_u32(a);
		}
	}
}

/*
 * Check every tunable in @tb against @s, then apply them (tunables.c): nothing is
 * applied unless all pass the check. A refusal points at its attribute.
 */
static int set_tunables(struct slablab_cache *s, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	struct slablab_tunable_values tv;
	int err;

	tunables_from(tb, &tv);
	err = slablab_tunables_check(s, &tv, extack);
	if (!err)
		err = slablab_tunables_apply(s, &tv, extack);
	if (err && tv.bad >= 0)
		NL_SET_BAD_ATTR(extack, tb[slablab_tunables[tv.bad].attr]);
	return err;
}

static int slablab_nl_cache_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache_args args = {};
	struct slablab_cache *s;
	struct sk_buff *msg;
	unsigned int flags;
	int cpu, err;
	void *hdr;

	err = parse_cache(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_CACHE], tb,
			      SLABLAB_CACHE_A_SIZE)) {
		NL_SET_ERR_MSG_MOD(info->extack, "object size (SLABLAB_CACHE_A_SIZE) is required");
		return -EINVAL;
	}
	flags = tb[SLABLAB_CACHE_A_FLAGS] ? nla_get_u32(tb[SLABLAB_CACHE_A_FLAGS]) :
					    slablab_default_flags();
	msg = reply_new(info, SLABLAB_CMD_CACHE_NEW, cache_msg_size(), &hdr);
	if (!msg)
		return -ENOMEM;
	slablab_lock();
	args.align = tb[SLABLAB_CACHE_A_ALIGN] ? nla_get_u32(tb[SLABLAB_CACHE_A_ALIGN]) : 0;
	args.flags = flags;
	s = slablab_cache_create_owner(nla_data(tb[SLABLAB_CACHE_A_NAME]),
				       nla_get_u32(tb[SLABLAB_CACHE_A_SIZE]), &args,
				       SLABLAB_OWNER_NETLINK, info->extack);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out_free;
	}
	tb[SLABLAB_CACHE_A_FLAGS] = NULL;	/* already applied */
	err = set_tunables(s, tb, info->extack);
	if (err)
		goto out_destroy;
	cpu = 0;
	err = put_cache(msg, s, &cpu, 0, NULL, false);
	if (!err && cpu < nr_cpu_ids)
		err = -EMSGSIZE;
	if (err)
		goto out_destroy;
	slablab_unlock();
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_destroy:
	/* A request that fails creates nothing; the new cache is empty and unused. */
	if (!slablab_cache_destroy_locked(s, NULL)) {
		slablab_unlock();
		slablab_cache_release(s);
		nlmsg_free(msg);
		return err;
	}
out_free:
	slablab_unlock();
	nlmsg_free(msg);
	return err;
}

static int slablab_nl_cache_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;
	s64 live;
	int err;

	s = cache_op_begin(info, tb, 0, NULL, NULL);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (s->owner != SLABLAB_OWNER_NETLINK) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack, "cache %s is owned by %s, not netlink",
				       s->name, s->owner == SLABLAB_OWNER_KMALLOC ?
				       "kmalloc" : "a module");
		err = -EPERM;
		goto out;
	}
	/*
	 * Refuse before freeing the handles' objects: a refused request changes nothing.
	 * Under slablab_mutex with no storm, only the handles (and the selftest hook, which
	 * takes the mutex too) allocate from a netlink cache.
	 */
	if (atomic_read(&s->users)) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack, "cache %s is in use by a running storm",
				       s->name);
		err = -EBUSY;
		goto out;
	}
	/* Objects freed by RCU are in use until their grace period: wait for it first. */
	slablab_rcu_drain(s);
	live = slablab_stat_sum_raw_alloc(s) - (s64)slablab_handles_objects(s);
	if (live > 0) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack,
				       "cache %s: %lld objects allocated besides its handles",
				       s->name, live);
		err = -EBUSY;
		goto out;
	}
	slablab_handles_release_cache(s);
	err = slablab_cache_destroy_locked(s, info->extack);
	if (!err) {
		slablab_unlock();
		slablab_cache_release(s);
		return 0;
	}
out:
	slablab_unlock();
	return err;
}

static int slablab_nl_cache_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;
	struct sk_buff *msg;
	void *hdr;
	int err;

	s = cache_op_begin(info, tb, SLABLAB_CMD_CACHE_GET, &msg, &hdr);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = reply_cache(info, msg, hdr, s, NULL, NULL, NULL);
	slablab_unlock();
	return err;
}

/*
 * The cache dump. Cursor: cb->args[0] is the index of the cache to put next in
 * slablab_caches; cb->args[1] is 0 when that cache was not begun, else the cpu its
 * per-cpu entries continue from. A cache whose per-cpu entries do not fit a message
 * of its own (many cpus) spans several: the first carries the whole cache with the
 * entries that fit, each next one only its NAME and further PERCPU entries, always
 * first in its skb (selftest_dump_percpu_max, selftests=1 only, caps the entries per
 * message, so that a 2-cpu VM splits too). An index into a list that changes between
 * calls could skip or repeat a cache: cb->seq is the list's generation, and
 * genl_dump_check_consistent() flags NLM_F_DUMP_INTR on every message after a change,
 * so the reader dumps again.
 */
static int slablab_nl_cache_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
#ifdef GENL_SET_ERR_MSG_FMT	/* 6.2 brought this and genl_dumpit_info.info */
	struct nlattr *fl = info->info.attrs[SLABLAB_A_FLAGS];
#else
	struct nlattr *fl = info->attrs[SLABLAB_A_FLAGS];
#endif
	bool percpu = fl && (nla_get_u32(fl) & SLABLAB_GET_F_PERCPU), first = true;
	bool layers = fl && (nla_get_u32(fl) & SLABLAB_GET_F_LAYERS);
	/* selftests only: split the per-cpu entries without a machine of many cpus */
	unsigned int percpu_max = READ_ONCE(slablab_selftest_dump_percpu_max);
	long idx = 0, start = cb->args[0];
	int cpu = cb->args[1], err = 0;
	struct slablab_cache *s;

	slablab_lock();
	cb->seq = slablab_caches_gen << 1 | 1;	/* never 0: 0 means "not known yet" */
	list_for_each_entry(s, &slablab_caches, list) {
		void *hdr;

		if (idx < start) {
			idx++;
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &slablab_family, NLM_F_MULTI, SLABLAB_CMD_CACHE_GET);
		if (!hdr)
			break;
		if (cpu)
			err = put_cache_percpu_more(skb, s, &cpu, percpu_max);
		else
			err = put_cache(skb, s, percpu ? &cpu : NULL, percpu_max, NULL, layers);
		if (err) {
			genlmsg_cancel(skb, hdr);
			/* What does not fit an empty message never will. */
			if (!first)
				err = 0;
			break;
		}
		if (percpu && cpu < nr_cpu_ids) {
			/*
			 * Not every per-cpu entry fitted. A cache is split only when it
			 * does not fit a message of its own: else it starts the next one.
			 */
			if (first) {
				genl_dump_check_consistent(cb, hdr);
				genlmsg_end(skb, hdr);
			} else {
				genlmsg_cancel(skb, hdr);
				cpu = 0;
			}
			break;
		}
		/* on messages sent only: it records cb->seq as seen */
		genl_dump_check_consistent(cb, hdr);
		genlmsg_end(skb, hdr);
		first = false;
		idx++;
		cpu = 0;
	}
	slablab_unlock();
	cb->args[0] = idx;
	cb->args[1] = cpu;
	return err ? err : skb->len;
}

static int slablab_nl_cache_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;
	struct sk_buff *msg;
	void *hdr;
	int err;

	s = cache_op_begin(info, tb, SLABLAB_CMD_CACHE_SET, &msg, &hdr);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (tb[SLABLAB_CACHE_A_SIZE] || tb[SLABLAB_CACHE_A_ALIGN]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "size and alignment are fixed at creation; create another cache");
		NL_SET_BAD_ATTR(info->extack, tb[SLABLAB_CACHE_A_SIZE] ?:
				tb[SLABLAB_CACHE_A_ALIGN]);
		err = -EINVAL;
		goto out_free;
	}
	err = set_tunables(s, tb, info->extack);
	if (err)
		goto out_free;
	err = reply_cache(info, msg, hdr, s, NULL, NULL, NULL);
	slablab_unlock();
	return err;
out_free:
	slablab_unlock();
	nlmsg_free(msg);
	return err;
}

static int slablab_nl_cache_shrink(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;
	struct sk_buff *msg;
	void *hdr;
	u64 freed;
	int err;

	s = cache_op_begin(info, tb, SLABLAB_CMD_CACHE_SHRINK, &msg, &hdr);
	if (IS_ERR(s))
		return PTR_ERR(s);
	freed = slablab_shrink_locked(s);
	err = reply_cache(info, msg, hdr, s, &freed, NULL, NULL);
	slablab_unlock();
	return err;
}

static int put_validate(struct sk_buff *msg, void *arg)
{
	struct slablab_validate_report *r = arg;
	struct nlattr *nest = nla_nest_start(msg, SLABLAB_A_VALIDATE);

	if (!nest ||
	    nla_put_u64_64bit(msg, SLABLAB_VALIDATE_A_SLABS, r->slabs, SLABLAB_VALIDATE_A_PAD) ||
	    nla_put_u64_64bit(msg, SLABLAB_VALIDATE_A_OBJECTS, r->objects,
			      SLABLAB_VALIDATE_A_PAD) ||
	    nla_put_u64_64bit(msg, SLABLAB_VALIDATE_A_FREE_OBJECTS, r->free_objects,
			      SLABLAB_VALIDATE_A_PAD) ||
	    nla_put_u32(msg, SLABLAB_VALIDATE_A_ERRORS, r->errors) ||
	    (r->first_error[0] &&
	     nla_put_string(msg, SLABLAB_VALIDATE_A_FIRST_ERROR, r->first_error)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int slablab_nl_cache_validate(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_validate_report *r;
	struct slablab_cache *s;
	struct sk_buff *msg;
	void *hdr;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	s = cache_op_begin(info, tb, SLABLAB_CMD_CACHE_VALIDATE, &msg, &hdr);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out;
	}
	slablab_validate(s, r);
	err = reply_cache(info, msg, hdr, s, NULL, put_validate, r);
	slablab_unlock();
out:
	kfree(r);
	return err;
}

static int slablab_nl_cache_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;

	s = cache_op_begin(info, tb, 0, NULL, NULL);
	if (IS_ERR(s))
		return PTR_ERR(s);
	slablab_stat_reset(s, -1);
	slablab_unlock();
	return 0;
}

static int get_cpu_attr(struct genl_info *info, int *cpu)
{
	struct nlattr *a = info->attrs[SLABLAB_A_CPU];

	*cpu = -1;
	if (!a)
		return 0;
	*cpu = nla_get_u32(a);
	if (*cpu >= nr_cpu_ids || !cpu_online(*cpu)) {
		NL_SET_ERR_MSG_FMT_MOD(info->extack, "cpu %u is not online", nla_get_u32(a));
		NL_SET_BAD_ATTR(info->extack, a);
		return -EINVAL;
	}
	return 0;
}

/*
 * A handle reply: two u32s. Sized exactly, so it comes from a small kmalloc class that
 * can always fall back to an order-0 slab, not from a high-order one that fails first
 * when memory is short (or when the fault-injection tests fail high orders).
 */
#define HANDLE_REPLY_SIZE	(2 * nla_total_size(sizeof(u32)))

/* Fill and send a handle reply started with reply_new(); consumes @msg. */
static int reply_handle(struct genl_info *info, struct sk_buff *msg, void *hdr, u32 id,
			u32 count)
{
	if (nla_put_u32(msg, SLABLAB_A_HANDLE, id) || nla_put_u32(msg, SLABLAB_A_COUNT, count)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int slablab_nl_obj_alloc(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	struct slablab_cache *s;
	struct sk_buff *msg;
	u32 id, count;
	int cpu, err;
	void *hdr;

	err = parse_cache(info, tb);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, SLABLAB_A_COUNT))
		return -EINVAL;
	count = nla_get_u32(info->attrs[SLABLAB_A_COUNT]);
	msg = reply_new(info, SLABLAB_CMD_OBJ_ALLOC, HANDLE_REPLY_SIZE, &hdr);
	if (!msg)
		return -ENOMEM;
	slablab_lock();
	err = get_cpu_attr(info, &cpu);
	if (err)
		goto out_free;
	s = lookup_cache(info, tb);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out_free;
	}
	err = slablab_handle_alloc(s, count, cpu, &id, info->extack);
	if (err)
		goto out_free;
	/*
	 * The message was sized for these two u32s. The handle is the caller's only once
	 * the reply is delivered: when it is not (-EAGAIN: the caller's receive queue is
	 * full), the objects are freed again, inline on this cpu (which cannot fail), so
	 * the error the caller may see means what it says: nothing was allocated.
	 */
	err = reply_handle(info, msg, hdr, id, count);
	if (err) {
		u32 left;

		WARN_ON_ONCE(slablab_handle_free(id, -1, 0, &left, NULL));
	}
	slablab_unlock();
	return err;
out_free:
	slablab_unlock();
	nlmsg_free(msg);
	return err;
}

static int slablab_nl_obj_free(struct sk_buff *skb, struct genl_info *info)
{
	u32 id, count = 0, left = 0;
	struct sk_buff *msg;
	int cpu, err;
	void *hdr;

	if (GENL_REQ_ATTR_CHECK(info, SLABLAB_A_HANDLE))
		return -EINVAL;
	id = nla_get_u32(info->attrs[SLABLAB_A_HANDLE]);
	if (info->attrs[SLABLAB_A_COUNT])
		count = nla_get_u32(info->attrs[SLABLAB_A_COUNT]);
	msg = reply_new(info, SLABLAB_CMD_OBJ_FREE, HANDLE_REPLY_SIZE, &hdr);
	if (!msg)
		return -ENOMEM;
	slablab_lock();
	err = get_cpu_attr(info, &cpu);
	if (!err)
		err = slablab_handle_free(id, cpu, count, &left, info->extack);
	if (!err)
		err = reply_handle(info, msg, hdr, id, left);
	else
		nlmsg_free(msg);
	slablab_unlock();
	return err;
}

static int slablab_nl_lab_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *pa = info->attrs[SLABLAB_A_KMALLOC_PAGE_POLICY];
	struct nlattr *da = info->attrs[SLABLAB_A_KMALLOC_DESIGN];
	struct nlattr *la = info->attrs[SLABLAB_A_KMALLOC_LISTS];
	u32 design, lists;
	int err = 0;

	if (!pa && !da && !la) {
		/* the first of the three is reported missing (extack names one attribute) */
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, SLABLAB_A_KMALLOC_PAGE_POLICY);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "lab-set needs kmalloc-page-policy, kmalloc-design or kmalloc-lists");
		return -EINVAL;
	}
	if (da || la) {
		design = da ? nla_get_u32(da) : 0;
		lists = la ? nla_get_u32(la) : 0;
		slablab_lock();
		err = slablab_set_kmalloc(da ? &design : NULL, la ? &lists : NULL, info->extack);
		slablab_unlock();
		if (err) {
			NL_SET_BAD_ATTR(info->extack, err == -EINVAL && la ? la : da);
			return err;
		}
	}
	if (pa)
		WRITE_ONCE(slablab_page_policy, nla_get_u32(pa));
	return 0;
}

/* ---- storms: STORM_START, STORM_GET, STORM_STOP (the engine is storm.c) ---- */

/* The policies (slablab_storm_policy, slablab_storm_size_policy): netlink-gen.c. */

/*
 * Cpu lists name cpus up to this: a bitmap of it is 32 KiB. No kernel has that many
 * cpus, so a list naming more is refused as naming a cpu that cannot be online.
 */
#define STORM_CPU_BITS_MAX	BIT(18)

/*
 * The largest cpu @list (a cpu list) names: how wide a bitmap must be to parse it. The
 * numbers after a region's ':' ("0-63:2/8": cpus used and group size) name no cpu.
 */
static u64 cpulist_largest(const char *list)
{
	u64 n = 0, largest = 0;
	bool cpus = true;

	for (; *list; list++) {
		if (isdigit(*list)) {
			n = min_t(u64, n * 10 + (*list - '0'), U32_MAX);
			if (cpus)
				largest = max(largest, n);
			continue;
		}
		n = 0;
		if (*list == ':')
			cpus = false;
		else if (*list == ',' || isspace(*list))
			cpus = true;	/* the next region (bitmap_parselist()) */
	}
	return largest;
}

/*
 * Parse CPUS into a bitmap (bitmap_parselist()) wide enough for every cpu it names,
 * also those at or above nr_cpu_ids: the engine names the first one that is not online.
 * Sets *@bits and *@nbits; the caller frees *@bits.
 */
static int storm_parse_cpus(struct nlattr *attr, unsigned long **bits, unsigned int *nbits,
			    struct netlink_ext_ack *extack)
{
	char list[SLABLAB_STORM_CPUS_MAX];
	u64 largest;
	int err;

	nla_strscpy(list, attr, sizeof(list));
	largest = cpulist_largest(list);
	if (largest >= STORM_CPU_BITS_MAX) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "cpu %llu is not online (no cpu at or above %lu can be)",
				       largest, STORM_CPU_BITS_MAX);
		NL_SET_BAD_ATTR(extack, attr);
		return -EINVAL;
	}
	*nbits = max_t(unsigned int, largest + 1, nr_cpu_ids);
	*bits = bitmap_zalloc(*nbits, GFP_KERNEL);
	if (!*bits)
		return -ENOMEM;
	err = bitmap_parselist(list, *bits, *nbits);
	if (err || bitmap_empty(*bits, *nbits)) {
		/* the reason first: a long list is cut short at 80 bytes */
		NL_SET_ERR_MSG_FMT_MOD(extack, "not a cpu list like 0-3,6: CPUS \"%s\"", list);
		NL_SET_BAD_ATTR(extack, attr);
		bitmap_free(*bits);
		*bits = NULL;
		return -EINVAL;
	}
	return 0;
}

/* SIZE, or SIZES: entries of a size and a weight (kmalloc targets). */
static int storm_parse_sizes(struct slablab_storm_spec *sp, struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *e;
	int err, rem;

	if (tb[SLABLAB_STORM_A_SIZE])
		sp->size = nla_get_u32(tb[SLABLAB_STORM_A_SIZE]);
	if (!tb[SLABLAB_STORM_A_SIZES])
		return 0;
	nla_for_each_nested(e, tb[SLABLAB_STORM_A_SIZES], rem) {
		struct nlattr *sz[SLABLAB_STORM_SIZE_A_MAX + 1];

		if (sp->nr_sizes == SLABLAB_STORM_MAX_SIZES) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "at most SLABLAB_STORM_MAX_SIZES (%d) sizes",
					       SLABLAB_STORM_MAX_SIZES);
			NL_SET_BAD_ATTR(extack, e);
			return -E2BIG;
		}
		err = nla_parse_nested(sz, SLABLAB_STORM_SIZE_A_MAX, e, slablab_storm_size_policy,
				       extack);
		if (err)
			return err;
		if (!sz[SLABLAB_STORM_SIZE_A_SIZE]) {
			NL_SET_ERR_MSG_MOD(extack, "a SIZES entry needs a SIZE");
			return -EINVAL;
		}
		sp->sizes[sp->nr_sizes] = nla_get_u32(sz[SLABLAB_STORM_SIZE_A_SIZE]);
		sp->weights[sp->nr_sizes] = sz[SLABLAB_STORM_SIZE_A_WEIGHT] ?
			nla_get_u32(sz[SLABLAB_STORM_SIZE_A_WEIGHT]) : 1;
		if (sp->weights[sp->nr_sizes] > SLABLAB_STORM_MAX_WEIGHT) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "size weights go up to SLABLAB_STORM_MAX_WEIGHT (%u)",
					       SLABLAB_STORM_MAX_WEIGHT);
			NL_SET_BAD_ATTR(extack, sz[SLABLAB_STORM_SIZE_A_WEIGHT]);
			return -ERANGE;
		}
		sp->nr_sizes++;
	}
	return 0;
}

/* How long and how each worker runs: OPS or DURATION_MS, BATCH, WORKING_SET, RING, SEED. */
static int storm_parse_run(struct slablab_storm_spec *sp, struct nlattr **tb,
			   struct netlink_ext_ack *extack)
{
	if (tb[SLABLAB_STORM_A_OPS] && tb[SLABLAB_STORM_A_DURATION_MS]) {
		NL_SET_ERR_MSG_MOD(extack, "give OPS or DURATION_MS, not both");
		return -EINVAL;
	}
	sp->ops = tb[SLABLAB_STORM_A_OPS] ? nla_get_u64(tb[SLABLAB_STORM_A_OPS]) : 100000;
	sp->duration_ms = tb[SLABLAB_STORM_A_DURATION_MS] ?
			  nla_get_u32(tb[SLABLAB_STORM_A_DURATION_MS]) : 0;
	sp->batch = tb[SLABLAB_STORM_A_BATCH] ? nla_get_u32(tb[SLABLAB_STORM_A_BATCH]) : 16;
	sp->working_set = tb[SLABLAB_STORM_A_WORKING_SET] ?
			  nla_get_u32(tb[SLABLAB_STORM_A_WORKING_SET]) : 4096;
	sp->ring = tb[SLABLAB_STORM_A_RING] ? nla_get_u32(tb[SLABLAB_STORM_A_RING]) : 256;
	sp->seed = tb[SLABLAB_STORM_A_SEED] ? nla_get_u64(tb[SLABLAB_STORM_A_SEED]) : 1;
	sp->thin = tb[SLABLAB_STORM_A_THIN] ? nla_get_u32(tb[SLABLAB_STORM_A_THIN]) : 1;
	if (sp->thin > sp->working_set) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "THIN is at most WORKING_SET (%u)",
				       sp->working_set);
		NL_SET_BAD_ATTR(extack, tb[SLABLAB_STORM_A_THIN]);
		return -ERANGE;
	}
	sp->rate = tb[SLABLAB_STORM_A_RATE] ? nla_get_u32(tb[SLABLAB_STORM_A_RATE]) : 0;
	if (!is_power_of_2(sp->ring)) {
		NL_SET_ERR_MSG_MOD(extack, "RING must be a power of two");
		NL_SET_BAD_ATTR(extack, tb[SLABLAB_STORM_A_RING]);
		return -EINVAL;
	}
	return 0;
}

/*
 * The memory cap of a storm or a replay (@name, the attribute @attr): a quarter of RAM
 * when absent, at most half, so that a run cannot take the memory the rest of the
 * system needs.
 */
static int parse_max_live_bytes(const struct nlattr *attr, const char *name, u64 *bytes,
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

/* The memory cap: MAX_LIVE_BYTES, a quarter of RAM by default, at most half. */
static int storm_parse_limits(struct slablab_storm_spec *sp, struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	return parse_max_live_bytes(tb[SLABLAB_STORM_A_MAX_LIVE_BYTES], "MAX_LIVE_BYTES",
				    &sp->max_live_bytes, extack);
}

/*
 * Parse SLABLAB_A_STORM of a STORM_START into @sp (and @tb, to name a bad attribute
 * later): what the attributes say alone. The engine checks the rest against the cache
 * and the cpus.
 */
static int storm_parse(struct nlattr *nest, struct nlattr **tb, struct slablab_storm_spec *sp,
		       struct netlink_ext_ack *extack)
{
	int err;

	err = nla_parse_nested(tb, SLABLAB_STORM_A_MAX, nest, slablab_storm_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, SLABLAB_STORM_A_TARGET) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, SLABLAB_STORM_A_PATTERN)) {
		NL_SET_ERR_MSG_MOD(extack, "a storm needs a TARGET and a PATTERN");
		return -EINVAL;
	}
	sp->target = nla_get_u32(tb[SLABLAB_STORM_A_TARGET]);
	sp->pattern = nla_get_u32(tb[SLABLAB_STORM_A_PATTERN]);
	if (tb[SLABLAB_STORM_A_CACHE])
		nla_strscpy(sp->cache, tb[SLABLAB_STORM_A_CACHE], sizeof(sp->cache));
	if (tb[SLABLAB_STORM_A_THREADS])
		sp->threads = nla_get_u32(tb[SLABLAB_STORM_A_THREADS]);
	err = storm_parse_sizes(sp, tb, extack);
	if (!err)
		err = storm_parse_run(sp, tb, extack);
	if (!err)
		err = storm_parse_limits(sp, tb, extack);
	return err;
}

/* The reply when no storm has run: STATE NONE, ID 0. */
static int put_no_storm(struct sk_buff *skb)
{
	struct nlattr *nest = nla_nest_start(skb, SLABLAB_A_STORM);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SLABLAB_STORM_A_ID, 0) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_STATE, SLABLAB_STORM_NONE)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The spec, as the storm runs it, and its progress. */
static int put_storm_spec(struct sk_buff *skb, const struct slablab_storm_report *rep)
{
	const struct slablab_storm_spec *sp = &rep->spec;
	struct nlattr *list, *e;
	u32 i;

	if (nla_put_u32(skb, SLABLAB_STORM_A_ID, rep->id) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_STATE, rep->state) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_TARGET, sp->target) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_PATTERN, sp->pattern) ||
	    (sp->cache[0] && nla_put_string(skb, SLABLAB_STORM_A_CACHE, sp->cache)) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_SIZE, sp->size) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_THREADS, sp->threads) ||
	    nla_put_string(skb, SLABLAB_STORM_A_CPUS, sp->cpus) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_OPS, sp->ops, SLABLAB_STORM_A_PAD) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_DURATION_MS, sp->duration_ms) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_BATCH, sp->batch) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_WORKING_SET, sp->working_set) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_RING, sp->ring) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_SEED, sp->seed, SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_MAX_LIVE_BYTES, sp->max_live_bytes,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_THIN, sp->thin) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_RATE, sp->rate) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_OPS_PLANNED, rep->ops_planned,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_OPS_DONE, rep->ops_done, SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_ELAPSED_NS, rep->elapsed_ns,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_FEATURES, slablab_features()) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_CACHE_FLAGS, rep->cache_flags) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_CYCLES_PER_SEC, (u64)tsc_khz * 1000,
			      SLABLAB_STORM_A_PAD) ||
	    (rep->native_name[0] &&
	     nla_put_string(skb, SLABLAB_STORM_A_NATIVE_NAME, rep->native_name)))
		return -EMSGSIZE;
	if (sp->nr_sizes > 1 || (sp->nr_sizes && sp->target >= SLABLAB_TARGET_KMALLOC)) {
		list = nla_nest_start(skb, SLABLAB_STORM_A_SIZES);
		if (!list)
			return -EMSGSIZE;
		for (i = 0; i < sp->nr_sizes; i++) {
			e = nla_nest_start(skb, SLABLAB_STORM_SIZE_A_ENTRY);
			if (!e || nla_put_u32(skb, SLABLAB_STORM_SIZE_A_SIZE, sp->sizes[i]) ||
			    nla_put_u32(skb, SLABLAB_STORM_SIZE_A_WEIGHT, sp->weights[i]))
				return -EMSGSIZE;
			nla_nest_end(skb, e);
		}
		nla_nest_end(skb, list);
	}
	return 0;
}

/* The results of a finished storm: totals, per thread, the allocator's counters. */
static int put_storm_results(struct sk_buff *skb, const struct slablab_storm_report *rep)
{
	struct nlattr *list, *e;
	u32 i;

	if (nla_put_u64_64bit(skb, SLABLAB_STORM_A_ALLOCS, rep->allocs, SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_FREES, rep->frees, SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_ALLOC_CYCLES, rep->alloc_cycles,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_FREE_CYCLES, rep->free_cycles,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_PAIR_CYCLES, rep->pair_cycles,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_LOOP_CYCLES, rep->loop_cycles_x1000,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_FAILURES, rep->failures, SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_PEAK_PAGES, rep->peak_pages,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_PEAK_LIVE_BYTES, rep->peak_live_bytes,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_META_BYTES, rep->meta_bytes,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_STEADY_PAGES, rep->steady_pages,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_STEADY_LIVE_BYTES, rep->steady_live_bytes,
			      SLABLAB_STORM_A_PAD) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_STEADY_SAMPLES, rep->steady_samples) ||
	    (rep->shrunk &&
	     (nla_put_u64_64bit(skb, SLABLAB_STORM_A_SHRUNK_PAGES, rep->shrunk_pages,
				SLABLAB_STORM_A_PAD) ||
	      nla_put_u64_64bit(skb, SLABLAB_STORM_A_SHRUNK_LIVE_BYTES, rep->shrunk_live_bytes,
				SLABLAB_STORM_A_PAD))) ||
	    nla_put_u32(skb, SLABLAB_STORM_A_RCU_SAMPLES, rep->rcu_samples) ||
	    (rep->spec.pattern == SLABLAB_PATTERN_RCU &&
	     (nla_put_u64_64bit(skb, SLABLAB_STORM_A_RCU_WAITING_PEAK, rep->rcu_waiting_peak,
				SLABLAB_STORM_A_PAD) ||
	      nla_put_u64_64bit(skb, SLABLAB_STORM_A_RCU_WAITING_MEAN, rep->rcu_waiting_mean,
				SLABLAB_STORM_A_PAD) ||
	      nla_put_u64_64bit(skb, SLABLAB_STORM_A_RCU_WAITING_END, rep->rcu_waiting_end,
				SLABLAB_STORM_A_PAD) ||
	      nla_put_u64_64bit(skb, SLABLAB_STORM_A_RCU_PAGES_PEAK, rep->rcu_pages_peak,
				SLABLAB_STORM_A_PAD))))
		return -EMSGSIZE;
	list = nla_nest_start(skb, SLABLAB_STORM_A_THREAD_LIST);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < rep->spec.threads; i++) {
		const struct slablab_storm_thread_result *t = &rep->thread[i];

		e = nla_nest_start(skb, SLABLAB_STORM_THREAD_A_ENTRY);
		if (!e || nla_put_u32(skb, SLABLAB_STORM_THREAD_A_CPU, t->cpu) ||
		    nla_put_u64_64bit(skb, SLABLAB_STORM_THREAD_A_OPS, t->ops,
				      SLABLAB_STORM_THREAD_A_PAD) ||
		    nla_put_u64_64bit(skb, SLABLAB_STORM_THREAD_A_CYCLES, t->cycles,
				      SLABLAB_STORM_THREAD_A_PAD) ||
		    nla_put_u64_64bit(skb, SLABLAB_STORM_THREAD_A_NS, t->ns,
				      SLABLAB_STORM_THREAD_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);
	if (rep->has_stats && slablab_put_stats(skb, SLABLAB_STORM_A_STATS, rep->stats))
		return -EMSGSIZE;
	return 0;
}

static int put_storm(struct sk_buff *skb, const struct slablab_storm_report *rep)
{
	struct nlattr *nest;

	if (rep->state == SLABLAB_STORM_NONE)
		return put_no_storm(skb);
	nest = nla_nest_start(skb, SLABLAB_A_STORM);
	if (!nest)
		return -EMSGSIZE;
	if (put_storm_spec(skb, rep) ||
	    (rep->finished && put_storm_results(skb, rep))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A storm reply's size: room for @threads workers' results. */
static size_t storm_msg_size(u32 threads)
{
	return NLMSG_GOODSIZE + (size_t)threads * 64;
}

/* Fill a reply started with reply_new() with @rep and send it; consumes @msg. */
static int reply_storm(struct genl_info *info, struct sk_buff *msg, void *hdr,
		       const struct slablab_storm_report *rep)
{
	if (put_storm(msg, rep)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * Storm commands take storm.c's storm_mutex, and slablab_lock()'s locks only briefly
 * inside: a STORM_STOP waits for the storm's controller, which may itself be waiting
 * for cpus_read_lock (storm.c's lock order). The reply is allocated before the engine
 * changes anything.
 */
static int slablab_nl_storm_start(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_STORM_A_MAX + 1];
	struct slablab_storm_report *rep = NULL;
	struct slablab_storm_spec *sp;
	unsigned long *cpus = NULL;
	unsigned int nr_cpu_bits = 0;
	struct sk_buff *msg = NULL;
	u32 bad_attr = 0, threads;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, SLABLAB_A_STORM))
		return -EINVAL;
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	err = storm_parse(info->attrs[SLABLAB_A_STORM], tb, sp, info->extack);
	if (err)
		goto out;
	if (tb[SLABLAB_STORM_A_CPUS]) {
		err = storm_parse_cpus(tb[SLABLAB_STORM_A_CPUS], &cpus, &nr_cpu_bits,
				       info->extack);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	rep = kvzalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		goto out;
	/* the workers: THREADS, or one per cpu (remote: at least two) */
	threads = sp->threads ?: max(num_possible_cpus(), 2U);
	msg = reply_new(info, SLABLAB_CMD_STORM_START, storm_msg_size(threads), &hdr);
	if (!msg)
		goto out;
	err = slablab_storm_start(sp, cpus, nr_cpu_bits, rep, &bad_attr, info->extack);
	if (err) {
		if (bad_attr && tb[bad_attr])
			NL_SET_BAD_ATTR(info->extack, tb[bad_attr]);
		nlmsg_free(msg);
		goto out;
	}
	err = reply_storm(info, msg, hdr, rep);
	if (err) {
		/*
		 * Undeliverable (the caller's receive queue is full): nobody knows of this
		 * storm, so stop it rather than leave it running behind an error.
		 */
		slablab_storm_report(rep->id, true, rep, NULL);
	}
out:
	kvfree(rep);
	bitmap_free(cpus);
	kfree(sp);
	return err;
}

/*
 * STORM_GET and STORM_STOP: report the storm asked for (its ID, or the last one, or
 * NONE). With @stop, a running storm is first asked to stop and waited for.
 */
static int storm_report(struct genl_info *info, u8 cmd, bool stop)
{
	struct nlattr *tb[SLABLAB_STORM_A_MAX + 1] = {};
	struct slablab_storm_report *rep;
	struct sk_buff *msg = NULL;
	void *hdr;
	u32 id;
	int err;

	if (info->attrs[SLABLAB_A_STORM]) {
		err = nla_parse_nested(tb, SLABLAB_STORM_A_MAX, info->attrs[SLABLAB_A_STORM],
				       slablab_storm_policy, info->extack);
		if (err)
			return err;
	}
	id = tb[SLABLAB_STORM_A_ID] ? nla_get_u32(tb[SLABLAB_STORM_A_ID]) : 0;
	rep = kvzalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	err = -ENOMEM;
	if (stop) {
		/* stopping changes state: the reply first, for any number of workers */
		msg = reply_new(info, cmd, storm_msg_size(SLABLAB_STORM_MAX_THREADS), &hdr);
		if (!msg)
			goto out;
	}
	err = slablab_storm_report(id, stop, rep, info->extack);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	if (!msg) {
		msg = reply_new(info, cmd, storm_msg_size(rep->spec.threads), &hdr);
		if (!msg) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = reply_storm(info, msg, hdr, rep);
out:
	kvfree(rep);
	return err;
}

static int slablab_nl_storm_get(struct sk_buff *skb, struct genl_info *info)
{
	return storm_report(info, SLABLAB_CMD_STORM_GET, false);
}

static int slablab_nl_storm_stop(struct sk_buff *skb, struct genl_info *info)
{
	return storm_report(info, SLABLAB_CMD_STORM_STOP, true);
}

/*
 * Replay commands (replay.c): its replay_mutex is taken inside each call, never with a
 * lock of this file held; replay-get holds it (slablab_replay_lock()) while the reply is
 * built, as the per-cache results belong to the replay.
 */
static int replay_parse(struct genl_info *info, struct nlattr **tb)
{
	if (GENL_REQ_ATTR_CHECK(info, SLABLAB_A_REPLAY))
		return -EINVAL;
	return nla_parse_nested(tb, SLABLAB_REPLAY_A_MAX, info->attrs[SLABLAB_A_REPLAY],
				slablab_replay_policy, info->extack);
}

static int slablab_nl_replay_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_REPLAY_A_MAX + 1];
	struct slablab_replay_setup setup = {};
	const struct slablab_replay_cache *caches = NULL;
	u32 nr_caches = 0;
	int err;

	err = replay_parse(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_TARGET) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_NR_EVENTS) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_NR_OBJECTS) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_NR_CPUS))
		return -EINVAL;
	setup.target = nla_get_u32(tb[SLABLAB_REPLAY_A_TARGET]);
	setup.nr_events = nla_get_u64(tb[SLABLAB_REPLAY_A_NR_EVENTS]);
	setup.nr_objects = nla_get_u32(tb[SLABLAB_REPLAY_A_NR_OBJECTS]);
	setup.nr_cpus = nla_get_u32(tb[SLABLAB_REPLAY_A_NR_CPUS]);
	setup.design = tb[SLABLAB_REPLAY_A_DESIGN] ?
		       nla_get_u32(tb[SLABLAB_REPLAY_A_DESIGN]) : SLABLAB_DESIGN_SLUB;
	setup.time_scale = tb[SLABLAB_REPLAY_A_TIME_SCALE] ?
			   nla_get_u32(tb[SLABLAB_REPLAY_A_TIME_SCALE]) : 0;
	setup.sample_ns = tb[SLABLAB_REPLAY_A_SAMPLE_NS] ?
			  nla_get_u64(tb[SLABLAB_REPLAY_A_SAMPLE_NS]) : 0;
	setup.use_cpu_partial = !!tb[SLABLAB_REPLAY_A_CPU_PARTIAL];
	if (setup.use_cpu_partial)
		setup.cpu_partial = nla_get_u32(tb[SLABLAB_REPLAY_A_CPU_PARTIAL]);
	err = parse_max_live_bytes(tb[SLABLAB_REPLAY_A_MAX_LIVE_BYTES], "max-live-bytes",
				   &setup.max_live_bytes, info->extack);
	if (err)
		return err;
	if (tb[SLABLAB_REPLAY_A_CACHES]) {
		u32 len = nla_len(tb[SLABLAB_REPLAY_A_CACHES]);

		if (len % sizeof(*caches)) {
			NL_SET_ERR_MSG_MOD(info->extack,
					   "caches is not an array of struct slablab_replay_cache");
			NL_SET_BAD_ATTR(info->extack, tb[SLABLAB_REPLAY_A_CACHES]);
			return -EINVAL;
		}
		caches = nla_data(tb[SLABLAB_REPLAY_A_CACHES]);
		nr_caches = len / sizeof(*caches);
	}
	return slablab_replay_new(&setup, caches, nr_caches, info->extack);
}

static int slablab_nl_replay_data(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_REPLAY_A_MAX + 1];
	const u64 *times = NULL;
	u32 len, nr;
	int err;

	err = replay_parse(info, tb);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_OFFSET) ||
	    NL_REQ_ATTR_CHECK(info->extack, info->attrs[SLABLAB_A_REPLAY], tb,
			      SLABLAB_REPLAY_A_EVENTS))
		return -EINVAL;
	len = nla_len(tb[SLABLAB_REPLAY_A_EVENTS]);
	if (len % sizeof(struct slablab_replay_event)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "events is not an array of struct slablab_replay_event");
		NL_SET_BAD_ATTR(info->extack, tb[SLABLAB_REPLAY_A_EVENTS]);
		return -EINVAL;
	}
	nr = len / sizeof(struct slablab_replay_event);
	if (tb[SLABLAB_REPLAY_A_TIMES]) {
		if (nla_len(tb[SLABLAB_REPLAY_A_TIMES]) != nr * sizeof(u64)) {
			NL_SET_ERR_MSG_MOD(info->extack, "times is not one __u64 per event");
			NL_SET_BAD_ATTR(info->extack, tb[SLABLAB_REPLAY_A_TIMES]);
			return -EINVAL;
		}
		/* 4-byte aligned only (nla_data()): replay.c reads it unaligned */
		times = nla_data(tb[SLABLAB_REPLAY_A_TIMES]);
	}
	return slablab_replay_data(nla_get_u64(tb[SLABLAB_REPLAY_A_OFFSET]),
				   nla_data(tb[SLABLAB_REPLAY_A_EVENTS]), times, nr,
				   info->extack);
}

static int put_replay(struct sk_buff *skb, const struct slablab_replay_report *rep)
{
	struct nlattr *nest = nla_nest_start(skb, SLABLAB_A_REPLAY);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SLABLAB_REPLAY_A_STATE, rep->state) ||
	    nla_put_u32(skb, SLABLAB_REPLAY_A_TARGET, rep->target) ||
	    nla_put_u32(skb, SLABLAB_REPLAY_A_THREADS, rep->threads) ||
	    nla_put_u32(skb, SLABLAB_REPLAY_A_FOLDED, rep->folded) ||
	    nla_put_u32(skb, SLABLAB_REPLAY_A_DESIGN, rep->design) ||
	    nla_put_u32(skb, SLABLAB_REPLAY_A_TIME_SCALE, rep->time_scale) ||
	    (rep->use_cpu_partial &&
	     nla_put_u32(skb, SLABLAB_REPLAY_A_CPU_PARTIAL, rep->cpu_partial)) ||
	    nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_PEAK_LIVE_BYTES, rep->peak_live_bytes,
			      SLABLAB_REPLAY_A_PAD))
		goto cancel;
	if (rep->nr_res &&
	    (nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_ALLOCS, rep->allocs, SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_FREES, rep->frees, SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_REMOTE_FREES, rep->remote_frees,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_FAILURES, rep->failures,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_ALLOC_CYCLES, rep->alloc_cycles,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_FREE_CYCLES, rep->free_cycles,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_ELAPSED_NS, rep->elapsed_ns,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_PEAK_PAGES, rep->peak_pages,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_LIVE_AT_END, rep->live_at_end,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put_u64_64bit(skb, SLABLAB_REPLAY_A_AVG_PAGES, rep->avg_pages,
			       SLABLAB_REPLAY_A_PAD) ||
	     nla_put(skb, SLABLAB_REPLAY_A_CACHE_RESULTS, rep->nr_res * sizeof(*rep->res),
		     rep->res)))
		goto cancel;
	if (rep->nr_samples &&
	    nla_put(skb, SLABLAB_REPLAY_A_SAMPLES, rep->nr_samples * sizeof(*rep->samples),
		    rep->samples))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static size_t replay_msg_size(const struct slablab_replay_report *rep)
{
	return nla_total_size(0) + 7 * nla_total_size(sizeof(u32)) +
	       13 * nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(rep->nr_res * sizeof(struct slablab_replay_cache_result)) +
	       nla_total_size(rep->nr_samples * sizeof(struct slablab_replay_sample));
}

static int slablab_nl_replay_run(struct sk_buff *skb, struct genl_info *info)
{
	struct slablab_replay_report rep = {};	/* no results: the size of none */
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = reply_new(info, SLABLAB_CMD_REPLAY_RUN, replay_msg_size(&rep), &hdr);
	if (!msg)
		return -ENOMEM;
	err = slablab_replay_run(&rep, info->extack);
	if (err || put_replay(msg, &rep)) {
		nlmsg_free(msg);
		return err ?: -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* replay-get and replay-stop: the report is built and put under slablab_replay_lock() */
static int replay_reply(struct genl_info *info, u8 cmd,
			void (*fill)(struct slablab_replay_report *rep))
{
	struct slablab_replay_report rep;
	struct sk_buff *msg;
	void *hdr;
	int err = 0;

	slablab_replay_lock();
	fill(&rep);
	msg = reply_new(info, cmd, replay_msg_size(&rep), &hdr);
	if (!msg) {
		err = -ENOMEM;
	} else if (put_replay(msg, &rep)) {
		nlmsg_free(msg);
		err = -EMSGSIZE;
	}
	slablab_replay_unlock();
	if (err)
		return err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int slablab_nl_replay_get(struct sk_buff *skb, struct genl_info *info)
{
	return replay_reply(info, SLABLAB_CMD_REPLAY_GET, slablab_replay_get);
}

static int slablab_nl_replay_stop(struct sk_buff *skb, struct genl_info *info)
{
	return replay_reply(info, SLABLAB_CMD_REPLAY_STOP, slablab_replay_stop);
}

/* genl_ops.internal_flags: the command changes state and needs CAP_SYS_ADMIN. */
#define SLABLAB_NL_SYS_ADMIN	BIT(0)

#ifdef GENL_SET_ERR_MSG_FMT	/* 6.2 brought this and the split do/dump ops */
#define slablab_doit_ops genl_split_ops
#else
#define slablab_doit_ops genl_ops
#endif

static int slablab_nl_pre_doit(const struct slablab_doit_ops *ops, struct sk_buff *skb,
			       struct genl_info *info)
{
	/*
	 * netlink_capable(): the sender now and the socket's opener both need it, so a
	 * socket opened by root and handed to an unprivileged process grants nothing.
	 */
	if ((ops->internal_flags & SLABLAB_NL_SYS_ADMIN) &&
	    !netlink_capable(skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "this command changes state and needs CAP_SYS_ADMIN (run as root)");
		return -EPERM;
	}
	return 0;
}

static const struct genl_ops slablab_ops[] = {
	{
		.cmd = SLABLAB_CMD_GET_STATUS,
		.doit = slablab_nl_get_status,
	}, {
		.cmd = SLABLAB_CMD_CACHE_NEW,
		.doit = slablab_nl_cache_new,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_CACHE_DEL,
		.doit = slablab_nl_cache_del,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_CACHE_GET,
		.doit = slablab_nl_cache_get,
		.dumpit = slablab_nl_cache_dump,
	}, {
		.cmd = SLABLAB_CMD_CACHE_SET,
		.doit = slablab_nl_cache_set,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_CACHE_SHRINK,
		.doit = slablab_nl_cache_shrink,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_CACHE_VALIDATE,
		.doit = slablab_nl_cache_validate,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_CACHE_RESET_STATS,
		.doit = slablab_nl_cache_reset,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_OBJ_ALLOC,
		.doit = slablab_nl_obj_alloc,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_OBJ_FREE,
		.doit = slablab_nl_obj_free,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_LAB_SET,
		.doit = slablab_nl_lab_set,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_STORM_START,
		.doit = slablab_nl_storm_start,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_STORM_GET,
		.doit = slablab_nl_storm_get,
	}, {
		.cmd = SLABLAB_CMD_STORM_STOP,
		.doit = slablab_nl_storm_stop,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_REPLAY_NEW,
		.doit = slablab_nl_replay_new,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_REPLAY_DATA,
		.doit = slablab_nl_replay_data,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_REPLAY_RUN,
		.doit = slablab_nl_replay_run,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	}, {
		.cmd = SLABLAB_CMD_REPLAY_GET,
		.doit = slablab_nl_replay_get,
	}, {
		.cmd = SLABLAB_CMD_REPLAY_STOP,
		.doit = slablab_nl_replay_stop,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = SLABLAB_NL_SYS_ADMIN,
	},
};

static struct genl_family slablab_family __ro_after_init = {
	.name = SLABLAB_GENL_NAME,
	.version = SLABLAB_GENL_VERSION,
	.maxattr = SLABLAB_A_MAX,
	.policy = slablab_policy,
	.pre_doit = slablab_nl_pre_doit,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = slablab_ops,
	.n_ops = ARRAY_SIZE(slablab_ops),
	.resv_start_op = SLABLAB_CMD_GET_STATUS,	/* strict from the first command */
};

int __init slablab_netlink_init(void)
{
	return genl_register_family(&slablab_family);
}

void slablab_netlink_exit(void)
{
	genl_unregister_family(&slablab_family);
}
