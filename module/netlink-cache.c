// SPDX-License-Identifier: GPL-2.0
/*
 * slablab generic netlink family: the commands on caches, their objects and the lab —
 * cache-new, cache-del, cache-get (do and dump), cache-set, cache-shrink,
 * cache-validate, cache-reset-stats, obj-alloc, obj-free and lab-set. Their requests are
 * parsed and the cache replies built here: a cache with its tunables (reported, checked
 * and applied through the registry: tunables.c, cache.c), gauges, layers, occupancy,
 * statistics and per-cpu entries. The family and what every handler shares: netlink.c.
 *
 * Locking: the family is parallel_ops (netlink.c): no handler holds genl_mutex. Each
 * holds slablab_lock() — cpus_read_lock(), then slablab_mutex (cache.c's lock order) —
 * while it looks up, changes or reports caches and handles; no lock of its own. The
 * cache dump's cursor (in cb->args) and consistency check:
 * slablab_nl_cache_get_dumpit(). Nothing a reader asks for queues work on another cpu
 * or waits for one, except the exact layers count CAP_SYS_ADMIN may ask for
 * (layers_for()).
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include "netlink.h"
#include "tunables.h"

/*
 * Selftests only (debugfs selftest_dump_percpu_max): at most this many per-cpu
 * entries per message of the cache dump, 0 for as many as fit. With it at 1 a cache's
 * entries span several messages on a 2-cpu VM, as they do on a machine of many cpus,
 * so the suite checks that split without booting one. Read once per dump callback
 * (slablab_nl_cache_get_dumpit()): every message one callback fills has the same cap.
 * Only the dump reads it, so it lives here, not in the back end.
 */
unsigned int slablab_selftest_dump_percpu_max;

/*
 * The policies (slablab_policy and the nests' tables) are generated from the spec:
 * netlink-gen.c. So is the tunable registry (slablab_tunables[], tunables-gen.c): each
 * tunable's attribute and field, which put_tunables() reports and tunables_from()
 * gathers for cache.c to check and apply (slablab_tunables_set()).
 */

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

/* The tunables @tb holds, for cache.c (the policy has range-checked them). */
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
 * Check every tunable in @tb against @s, then apply them (cache.c): nothing is
 * applied unless all pass the check. A refusal points at its attribute.
 */
static int set_tunables(struct slablab_cache *s, struct nlattr **tb,
			struct netlink_ext_ack *extack)
{
	struct slablab_tunable_values tv;
	int err;

	tunables_from(tb, &tv);
	err = slablab_tunables_set(s, &tv, extack);
	if (err && tv.bad >= 0)
		NL_SET_BAD_ATTR(extack, tb[slablab_tunables[tv.bad].attr]);
	return err;
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
 * How a reply counts the layers: not at all, racily from the handler's cpu, or exactly,
 * on every cpu under its lock (slablab_layers()).
 */
enum layers_count { LAYERS_NONE, LAYERS_RACY, LAYERS_EXACT };

/*
 * The count a request asks for: exact only with SLABLAB_GET_F_EXACT, which needs
 * CAP_SYS_ADMIN of both the socket's opener and the task (sk_ns_capable(), audited:
 * -EPERM without); racy otherwise, for everyone. Not netlink_capable(), which a sender
 * that addressed its message passes on the task alone: a dump's first callback may run
 * in whichever task reads the socket (netlink_dump() deferred by a full receive
 * queue), and an unprivileged opener must not get the exact count through a
 * privileged reader. The exact count queues work on every online cpu and
 * waits for it, under slablab_lock(): a cpu that never runs its kworker (a SCHED_FIFO
 * task with RT throttling off, an isolated cpu) holds the asker, cpu hotplug and every
 * command on caches, so only an administrator who asks for it pays that. SLUB's
 * world-readable sysfs files read the per-cpu state racily for the same reason.
 */
static int layers_for(const struct sk_buff *skb, const struct nlattr *flags,
		      enum layers_count *count, struct netlink_ext_ack *extack)
{
	*count = LAYERS_RACY;
	if (!flags || !(nla_get_u32(flags) & SLABLAB_GET_F_EXACT))
		return 0;
	if (!sk_ns_capable(NETLINK_CB(skb).sk, &init_user_ns, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG_MOD(extack, "the exact layers count needs CAP_SYS_ADMIN");
		NL_SET_BAD_ATTR(extack, flags);
		return -EPERM;
	}
	*count = LAYERS_EXACT;
	return 0;
}

/*
 * The LAYERS nest of @s: the layers its design has (struct slablab_layers' present
 * mask), each from the field the spec's table names. @exact: counted on every cpu.
 */
static int put_layers(struct sk_buff *skb, struct slablab_cache *s, bool exact)
{
	struct slablab_layers l;
	struct nlattr *nest;
	unsigned int i;

	slablab_layers(s, &l, exact);
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
 * with SLABLAB_GET_F_LAYERS), counted as it says.
 */
static int put_cache(struct sk_buff *skb, struct slablab_cache *s, int *percpu,
		     unsigned int percpu_max, const u64 *slabs_freed, enum layers_count layers)
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
	    (layers != LAYERS_NONE &&
	     (put_layers(skb, s, layers == LAYERS_EXACT) || put_occupancy(skb, s))) ||
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

/*
 * Fill @msg (from slablab_reply_new()) with the cache, its layers as @layers says, and
 * whatever @extra adds, and send it. Consumes @msg in every case.
 */
static int reply_cache(struct genl_info *info, struct sk_buff *msg, void *hdr,
		       struct slablab_cache *s, const u64 *slabs_freed,
		       enum layers_count layers, int (*extra)(struct sk_buff *, void *),
		       void *arg)
{
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
		*msg = slablab_reply_new(info, cmd, cache_msg_size(), hdr);
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

int slablab_nl_cache_new_doit(struct sk_buff *skb, struct genl_info *info)
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
	msg = slablab_reply_new(info, SLABLAB_CMD_CACHE_NEW, cache_msg_size(), &hdr);
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
	err = put_cache(msg, s, &cpu, 0, NULL, LAYERS_NONE);
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

int slablab_nl_cache_del_doit(struct sk_buff *skb, struct genl_info *info)
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

int slablab_nl_cache_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[SLABLAB_CACHE_A_MAX + 1];
	enum layers_count layers;
	struct slablab_cache *s;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = layers_for(skb, info->attrs[SLABLAB_A_FLAGS], &layers, info->extack);
	if (err)
		return err;
	s = cache_op_begin(info, tb, SLABLAB_CMD_CACHE_GET, &msg, &hdr);
	if (IS_ERR(s))
		return PTR_ERR(s);
	err = reply_cache(info, msg, hdr, s, NULL, layers, NULL, NULL);
	slablab_unlock();
	return err;
}

/*
 * The cache dump. Cursor: cb->args[0] is the index of the cache to put next in
 * slablab_caches; cb->args[1] is 0 when that cache was not begun, else the cpu its
 * per-cpu entries continue from; cb->args[2] is 0, or 1 + the layers count asked for
 * (layers_for(): decided, or refused, at the first call). A cache whose per-cpu
 * entries do not fit a message of its own (many cpus) spans several: the first
 * carries the whole cache with the entries that fit, each next one only its NAME and
 * further PERCPU entries, always first in its skb (selftest_dump_percpu_max,
 * selftests=1 only, caps the entries per message, so that a 2-cpu VM splits too). An
 * index into a list that changes between calls could skip or repeat a cache: cb->seq is
 * the list's generation, and genl_dump_check_consistent() flags NLM_F_DUMP_INTR on
 * every message after a change, so the reader dumps again.
 */
int slablab_nl_cache_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
#ifdef GENL_SET_ERR_MSG_FMT	/* 6.2 brought this and genl_dumpit_info.info */
	struct nlattr *fl = info->info.attrs[SLABLAB_A_FLAGS];
#else
	struct nlattr *fl = info->attrs[SLABLAB_A_FLAGS];
#endif
	bool percpu = fl && (nla_get_u32(fl) & SLABLAB_GET_F_PERCPU), first = true;
	enum layers_count layers = LAYERS_NONE;
	/* selftests only: split the per-cpu entries without a machine of many cpus */
	unsigned int percpu_max = READ_ONCE(slablab_selftest_dump_percpu_max);
	long idx = 0, start = cb->args[0];
	int cpu = cb->args[1], err = 0;
	struct slablab_cache *s;

	if (fl && (nla_get_u32(fl) & SLABLAB_GET_F_EXACT) &&
	    !(nla_get_u32(fl) & SLABLAB_GET_F_LAYERS)) {
		NL_SET_ERR_MSG_MOD(cb->extack, "the exact flag counts layers: set the layers flag");
		return -EINVAL;
	}
	if (fl && (nla_get_u32(fl) & SLABLAB_GET_F_LAYERS)) {
		/* decided once: a later recvmsg() may be another task's */
		if (!cb->args[2]) {
			err = layers_for(cb->skb, fl, &layers, cb->extack);
			if (err)
				return err;
			cb->args[2] = 1 + layers;
		}
		layers = cb->args[2] - 1;
	}
	slablab_lock();
	cb->seq = slablab_caches_gen << 1 | 1;	/* never 0: 0 means "not known yet" */
	list_for_each_entry(s, &slablab_caches, list) {
		void *hdr;

		if (idx < start) {
			idx++;
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &slablab_nl_family, NLM_F_MULTI, SLABLAB_CMD_CACHE_GET);
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

int slablab_nl_cache_set_doit(struct sk_buff *skb, struct genl_info *info)
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
	err = reply_cache(info, msg, hdr, s, NULL, LAYERS_NONE, NULL, NULL);
	slablab_unlock();
	return err;
out_free:
	slablab_unlock();
	nlmsg_free(msg);
	return err;
}

int slablab_nl_cache_shrink_doit(struct sk_buff *skb, struct genl_info *info)
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
	err = reply_cache(info, msg, hdr, s, &freed, LAYERS_NONE, NULL, NULL);
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

int slablab_nl_cache_validate_doit(struct sk_buff *skb, struct genl_info *info)
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
	err = reply_cache(info, msg, hdr, s, NULL, LAYERS_NONE, put_validate, r);
	slablab_unlock();
out:
	kfree(r);
	return err;
}

int slablab_nl_cache_reset_stats_doit(struct sk_buff *skb, struct genl_info *info)
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

/* Fill and send a handle reply started with slablab_reply_new(); consumes @msg. */
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

int slablab_nl_obj_alloc_doit(struct sk_buff *skb, struct genl_info *info)
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
	msg = slablab_reply_new(info, SLABLAB_CMD_OBJ_ALLOC, HANDLE_REPLY_SIZE, &hdr);
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

int slablab_nl_obj_free_doit(struct sk_buff *skb, struct genl_info *info)
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
	msg = slablab_reply_new(info, SLABLAB_CMD_OBJ_FREE, HANDLE_REPLY_SIZE, &hdr);
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

int slablab_nl_lab_set_doit(struct sk_buff *skb, struct genl_info *info)
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
