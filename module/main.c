// SPDX-License-Identifier: GPL-2.0
/*
 * slablab: a laboratory for Linux slab allocators.
 *
 * Module entry: brings up debugfs, the allocator core (and slablab's kmalloc classes)
 * and the generic netlink family, in that order, and takes them down in reverse, ending
 * the storm, the replay and the handles before the allocator. Slabs, their states and
 * the locking rules are described at the top of backend.c, the layers in docs/design.md.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <net/genetlink.h>
#include "internal.h"
#include "replay.h"
#include "storm.h"

static int __init slablab_init(void)
{
	int ret;

	ret = slablab_debugfs_init();
	if (ret)
		return ret;
	ret = slablab_cache_api_init();
	if (ret)
		goto err_debugfs;
	ret = slablab_netlink_init();
	if (ret)
		goto err_cache_api;
	pr_info("slablab %s loaded: generic netlink family \"%s\", debugfs slablab/\n",
		SLABLAB_VERSION, SLABLAB_GENL_NAME);
	return 0;

err_cache_api:
	slablab_cache_api_exit();
err_debugfs:
	slablab_debugfs_exit();
	return ret;
}

static void __exit slablab_exit(void)
{
	slablab_netlink_exit();
	/* not under slablab_mutex: it waits for the storm's controller (storm.c) */
	slablab_storm_exit();
	slablab_replay_exit();
	slablab_handles_release_all();
	slablab_cache_api_exit();
	slablab_debugfs_exit();
	pr_info("slablab unloaded\n");
}

module_init(slablab_init);
module_exit(slablab_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("slablab developers");
MODULE_DESCRIPTION("A laboratory for Linux slab allocators: parallel slab caches and storms");
MODULE_VERSION(SLABLAB_VERSION);
MODULE_ALIAS_GENL_FAMILY(SLABLAB_GENL_NAME);
