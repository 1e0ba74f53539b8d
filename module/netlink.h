/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the slablab generic netlink family share: the family and the
 * helpers of its core (netlink.c), documented there. The policies, the ops table and
 * the handlers' prototypes are generated from the spec: netlink-gen.h.
 */
#ifndef _SLABLAB_NETLINK_H
#define _SLABLAB_NETLINK_H

#include <net/genetlink.h>
#include "internal.h"
#include "netlink-gen.h"

/* The family (netlink.c): a reply or a dump message names it. */
extern struct genl_family slablab_nl_family;

void slablab_lock(void);
void slablab_unlock(void);
struct sk_buff *slablab_reply_new(struct genl_info *info, u8 cmd, size_t size, void **hdr);
int slablab_put_stats(struct sk_buff *skb, int attr, const u64 *v);
int slablab_parse_max_live_bytes(const struct nlattr *attr, const char *name, u64 *bytes,
				 struct netlink_ext_ack *extack);

#endif /* _SLABLAB_NETLINK_H */
