// SPDX-License-Identifier: GPL-2.0 OR MIT
// Hand-made caches for the formatting and JSON tests.
#pragma once

#include "slabctl/types.hpp"

namespace slabctl::test {

constexpr uint32_t kPage = 4096;

inline CacheInfo sample_cache()
{
	CacheInfo c;
	c.name = "t64";
	c.size = 64;
	c.align = 8;
	c.flags = SLABLAB_CACHE_F_DEBUG | SLABLAB_CACHE_F_HWCACHE_ALIGN;
	c.cpu_partial = 30;
	c.min_partial = 5;
	c.order = 0;
	c.fastpath = SLABLAB_FASTPATH_CMPXCHG;
	c.obj_stride = 64;
	c.objs_per_slab = 64;
	c.order_default = 0;
	c.owner = SLABLAB_OWNER_NETLINK;
	c.objects = 100;
	c.total_objects = 128;
	c.slabs = 2;
	c.partial_slabs = 1;
	c.cpu_slabs = 1;
	c.cpu_partial_slabs = 0;
	c.pages = 2;
	c.live_bytes = 6400;
	c.meta_bytes = 0;
	c.has_stats = true;
	c.stats[SLABLAB_ALLOC_FASTPATH] = 90;
	c.stats[SLABLAB_ALLOC_SLOWPATH] = 10;
	c.stats[SLABLAB_FREE_FASTPATH] = 30;
	c.stats[SLABLAB_FREE_SLOWPATH] = 10;
	c.stats[SLABLAB_ALLOC_SLAB] = 2;
	c.stats[SLABLAB_ORDER_FALLBACK] = 2;
	c.stats[SLABLAB_CMPXCHG_DOUBLE_FAIL] = 3;
	c.stats[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL] = 4;
	c.stats[SLABLAB_DEACTIVATE_REMOTE_FREES] = 5;
	c.has_percpu = true;
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		PerCpuInfo p;
		p.cpu = cpu;
		p.cpu_slab_objects = 10 + cpu;
		p.cpu_partial_slabs = cpu;
		p.cpu_partial_objects = 3 * cpu;
		p.stats[SLABLAB_ALLOC_FASTPATH] = 45;
		p.stats[SLABLAB_ALLOC_SLOWPATH] = 5;
		p.stats[SLABLAB_FREE_FASTPATH] = 15;
		p.stats[SLABLAB_FREE_SLOWPATH] = 5;
		c.percpu.push_back(p);
	}
	return c;
}

inline CacheInfo kmalloc_cache(const char* name, uint32_t size, uint64_t objects, uint64_t pages)
{
	CacheInfo c;
	c.name = name;
	c.size = size;
	c.obj_stride = size;
	c.objs_per_slab = static_cast<uint32_t>(kPage / size);
	c.owner = SLABLAB_OWNER_KMALLOC;
	c.objects = objects;
	c.slabs = pages;
	c.pages = pages;
	c.total_objects = pages * c.objs_per_slab;
	c.has_stats = true;
	c.stats[SLABLAB_ALLOC_FASTPATH] = objects;
	return c;
}

}  // namespace slabctl::test
