/* SPDX-License-Identifier: GPL-2.0 */
/* generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit */
#ifndef _SLABLAB_NETLINK_GEN_H
#define _SLABLAB_NETLINK_GEN_H

#include <net/netlink.h>
#include "../uapi/linux/slablab.h"

extern const struct nla_policy slablab_storm_size_policy[SLABLAB_STORM_SIZE_A_MAX + 1];
extern const struct nla_policy slablab_replay_policy[SLABLAB_REPLAY_A_MAX + 1];
extern const struct nla_policy slablab_storm_policy[SLABLAB_STORM_A_MAX + 1];
extern const struct nla_policy slablab_cache_policy[SLABLAB_CACHE_A_MAX + 1];
extern const struct nla_policy slablab_policy[SLABLAB_A_MAX + 1];

#endif /* _SLABLAB_NETLINK_GEN_H */
