// SPDX-License-Identifier: GPL-2.0
/*
 * Scripted allocations: userspace asks for N objects of a cache allocated on a chosen
 * cpu and held by the kernel under a handle, then frees them (all or some) on a chosen
 * cpu. Tests use this to build exact situations (allocate on cpu 0, free on cpu 1).
 *
 * This file keeps the handles (ids, objects held, limits) and runs the allocations and
 * frees itself: on the chosen cpu through smp_call_on_cpu() (that cpu's bound kworker;
 * the caller waits), or inline without a cpu. It calls only the allocator (cache.c).
 *
 * Locking: everything here runs under slablab_mutex (and cpus_read_lock, so a chosen
 * cpu stays online while the kworker runs there; the kworker takes neither lock).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include "internal.h"

struct slablab_handle {
	struct list_head list;
	u32 id;
	u32 count;
	u32 capacity;
	struct slablab_cache *s;
	void **objs;
};

static LIST_HEAD(slablab_handles);
static u32 slablab_next_handle = 1;
static unsigned int slablab_nr_handles;
static u64 slablab_handle_bytes;

/* One scripted allocation or free: @n objects of @s, in @objs. */
struct handle_run {
	struct slablab_cache *s;
	void **objs;
	u32 n;
};

/* Allocate run->n objects into run->objs, all or nothing: 0 or -ENOMEM. */
static int handle_run_alloc(void *arg)
{
	struct handle_run *run = arg;
	u32 i;

	for (i = 0; i < run->n; i++) {
		run->objs[i] = slablab_cache_alloc(run->s, GFP_KERNEL);
		if (unlikely(!run->objs[i])) {
			slablab_cache_free_bulk(run->s, i, run->objs);
			return -ENOMEM;
		}
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

/* Free the run->n objects of run->objs, newest (last) first, and clear them. */
static int handle_run_free(void *arg)
{
	struct handle_run *run = arg;
	u32 i;

	for (i = 0; i < run->n; i++) {
		u32 last = run->n - 1 - i;

		slablab_cache_free(run->s, run->objs[last]);
		run->objs[last] = NULL;
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

/*
 * Run @fn on @cpu, or here when @cpu < 0 (then it cannot fail for want of a worker).
 * Context: slablab_mutex and cpus_read_lock held, so @cpu stays online; sleeps.
 * Return: @fn's result, or -ENXIO when @cpu is not online.
 */
static int handle_run_on(int cpu, int (*fn)(void *), struct slablab_cache *s, void **objs,
			 u32 n)
{
	struct handle_run run = { .s = s, .objs = objs, .n = n };

	lockdep_assert_held(&slablab_mutex);
	if (cpu < 0)
		return fn(&run);
	return smp_call_on_cpu(cpu, fn, &run, false);
}

static void handle_destroy(struct slablab_handle *h)
{
	list_del(&h->list);
	slablab_nr_handles--;
	slablab_handle_bytes -= (u64)h->capacity * h->s->object_size;
	kvfree(h->objs);
	kfree(h);
}

int slablab_handle_alloc(struct slablab_cache *s, u32 count, int cpu, u32 *id,
			 struct netlink_ext_ack *extack)
{
	u64 bytes = (u64)count * s->object_size;
	struct slablab_handle *h;
	int ret;

	lockdep_assert_held(&slablab_mutex);
	if (s->owner == SLABLAB_OWNER_KERNEL) {
		/* its module may destroy it and unload: objects held here would stop that */
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "no handles on cache %s: another kernel module owns it",
				       s->name);
		return -EPERM;
	}
	if (slablab_nr_handles >= SLABLAB_MAX_HANDLES) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "too many handles (%u); free some first",
				       SLABLAB_MAX_HANDLES);
		return -ENOSPC;
	}
	if (slablab_handle_bytes + bytes > SLABLAB_MAX_HANDLE_BYTES) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "handles: %llu bytes, over the %llu-byte limit",
				       slablab_handle_bytes + bytes,
				       (unsigned long long)SLABLAB_MAX_HANDLE_BYTES);
		return -E2BIG;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->objs = kvcalloc(count, sizeof(void *), GFP_KERNEL);
	if (!h->objs) {
		kfree(h);
		return -ENOMEM;
	}
	h->s = s;
	h->capacity = count;
	ret = handle_run_on(cpu, handle_run_alloc, s, h->objs, count);
	if (ret) {
		if (ret == -ENXIO)
			NL_SET_ERR_MSG_FMT_MOD(extack, "cpu %d is not online", cpu);
		else
			NL_SET_ERR_MSG_FMT_MOD(extack, "allocation of %u objects from %s failed",
					       count, s->name);
		kvfree(h->objs);
		kfree(h);
		return ret;
	}
	h->count = count;
	/* Ids wrap but skip 0 and ids still in use. */
	do {
		struct slablab_handle *o;
		bool used = false;

		h->id = slablab_next_handle++;
		if (!h->id)
			continue;
		list_for_each_entry(o, &slablab_handles, list)
			used |= o->id == h->id;
		if (!used)
			break;
	} while (1);
	list_add_tail(&h->list, &slablab_handles);
	slablab_nr_handles++;
	slablab_handle_bytes += bytes;
	*id = h->id;
	return 0;
}

int slablab_handle_free(u32 id, int cpu, u32 count, u32 *left, struct netlink_ext_ack *extack)
{
	struct slablab_handle *h;
	int err;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(h, &slablab_handles, list) {
		if (h->id != id)
			continue;
		if (count > h->count) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "handle %u holds only %u objects", id,
					       h->count);
			return -ERANGE;
		}
		if (!count)
			count = h->count;
		/* the newest @count objects, freed last first */
		err = handle_run_on(cpu, handle_run_free, h->s, h->objs + h->count - count,
				    count);
		if (err) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "cpu %d is not online", cpu);
			return err;
		}
		h->count -= count;
		*left = h->count;
		if (!h->count)
			handle_destroy(h);
		return 0;
	}
	NL_SET_ERR_MSG_FMT_MOD(extack, "no handle %u", id);
	return -ENOENT;
}

/* Objects the handles on @s hold (slablab_mutex held). */
u64 slablab_handles_objects(struct slablab_cache *s)
{
	struct slablab_handle *h;
	u64 n = 0;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(h, &slablab_handles, list) {
		if (h->s == s)
			n += h->count;
	}
	return n;
}

void slablab_handles_release_cache(struct slablab_cache *s)
{
	struct slablab_handle *h, *tmp;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry_safe(h, tmp, &slablab_handles, list) {
		if (h->s != s)
			continue;
		/* on this cpu (inline): cannot fail */
		handle_run_on(-1, handle_run_free, s, h->objs, h->count);
		handle_destroy(h);
	}
}

void slablab_handles_release_all(void)
{
	struct slablab_handle *h, *tmp;

	mutex_lock(&slablab_mutex);
	list_for_each_entry_safe(h, tmp, &slablab_handles, list) {
		handle_run_on(-1, handle_run_free, h->s, h->objs, h->count);
		handle_destroy(h);
	}
	mutex_unlock(&slablab_mutex);
}
