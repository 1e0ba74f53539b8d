// SPDX-License-Identifier: GPL-2.0
/*
 * slablab generic netlink family: the replay commands — replay-new, replay-data,
 * replay-run, replay-get and replay-stop. Their requests become calls of the replay
 * engine (replay.c: slablab_replay_new(), _data(), _run(), _get(), _stop()), whose
 * struct slablab_replay_report becomes the reply. The family and what every handler
 * shares: netlink.c.
 *
 * Locking: without genl_mutex (the family is parallel_ops), replay.c takes its
 * replay_mutex inside each call; replay-get and replay-stop hold it
 * (slablab_replay_lock()) while their reply is built, as the per-cache results belong to
 * the replay. No other lock is held here.
 */
#include <net/genetlink.h>
#include "netlink.h"
#include "replay.h"

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

int slablab_nl_replay_new_doit(struct sk_buff *skb, struct genl_info *info)
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
	err = slablab_parse_max_live_bytes(tb[SLABLAB_REPLAY_A_MAX_LIVE_BYTES], "max-live-bytes",
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

int slablab_nl_replay_data_doit(struct sk_buff *skb, struct genl_info *info)
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

int slablab_nl_replay_run_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct slablab_replay_report rep = {};	/* no results: the size of none */
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = slablab_reply_new(info, SLABLAB_CMD_REPLAY_RUN, replay_msg_size(&rep), &hdr);
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
	msg = slablab_reply_new(info, cmd, replay_msg_size(&rep), &hdr);
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

int slablab_nl_replay_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return replay_reply(info, SLABLAB_CMD_REPLAY_GET, slablab_replay_get);
}

int slablab_nl_replay_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	return replay_reply(info, SLABLAB_CMD_REPLAY_STOP, slablab_replay_stop);
}
