// SPDX-License-Identifier: GPL-2.0
/*
 * slablab generic netlink family: the storm commands — storm-start, storm-get and
 * storm-stop. A STORM_START request becomes a struct slablab_storm_spec for the engine
 * (storm.c), whose struct slablab_storm_report becomes the reply of all three. The
 * family and what every handler shares: netlink.c.
 *
 * Locking: without genl_mutex (the family is parallel_ops), the engine's calls take
 * storm.c's storm_mutex, and slablab_lock()'s cpus_read_lock() and slablab_mutex only
 * briefly inside it (storm.c's lock order); this file holds no lock of its own and calls
 * the engine with none held. The reply is allocated before the engine changes anything.
 */
#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/cpu.h>
#include <net/genetlink.h>
#include "netlink.h"
#include "storm.h"

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
	sp->producers = tb[SLABLAB_STORM_A_PRODUCERS] ?
			nla_get_u32(tb[SLABLAB_STORM_A_PRODUCERS]) : 0;
	if (!is_power_of_2(sp->ring)) {
		NL_SET_ERR_MSG_MOD(extack, "RING must be a power of two");
		NL_SET_BAD_ATTR(extack, tb[SLABLAB_STORM_A_RING]);
		return -EINVAL;
	}
	return 0;
}

/* The memory cap: MAX_LIVE_BYTES, a quarter of RAM by default, at most half. */
static int storm_parse_limits(struct slablab_storm_spec *sp, struct nlattr **tb,
			      struct netlink_ext_ack *extack)
{
	return slablab_parse_max_live_bytes(tb[SLABLAB_STORM_A_MAX_LIVE_BYTES], "MAX_LIVE_BYTES",
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
	    (sp->pattern == SLABLAB_PATTERN_PRODUCER_CONSUMER &&
	     nla_put_u32(skb, SLABLAB_STORM_A_PRODUCERS, sp->producers)) ||
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
	    nla_put_u64_64bit(skb, SLABLAB_STORM_A_REMOTE_FREES, rep->remote_frees,
			      SLABLAB_STORM_A_PAD) ||
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

/* Fill a reply started with slablab_reply_new() with @rep and send it; consumes @msg. */
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
int slablab_nl_storm_start_doit(struct sk_buff *skb, struct genl_info *info)
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
	/* the workers: THREADS, or one per cpu (remote, producer-consumer: at least two) */
	threads = sp->threads ?: max(num_possible_cpus(), 2U);
	msg = slablab_reply_new(info, SLABLAB_CMD_STORM_START, storm_msg_size(threads), &hdr);
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
		msg = slablab_reply_new(info, cmd, storm_msg_size(SLABLAB_STORM_MAX_THREADS), &hdr);
		if (!msg)
			goto out;
	}
	err = slablab_storm_report(id, stop, rep, info->extack);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	if (!msg) {
		msg = slablab_reply_new(info, cmd, storm_msg_size(rep->spec.threads), &hdr);
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

int slablab_nl_storm_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return storm_report(info, SLABLAB_CMD_STORM_GET, false);
}

int slablab_nl_storm_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	return storm_report(info, SLABLAB_CMD_STORM_STOP, true);
}
