// SPDX-License-Identifier: GPL-2.0
/*
 * Scripted allocations: userspace asks for N objects of a cache allocated on a chosen
 * cpu and held by the kernel under a handle, then frees them (all or some) on a chosen
 * cpu. Tests use this to build exact situations (allocate on cpu 0, free on cpu 1).
 *
 * Locking: everything here runs under slablab_mutex (and cpus_read_lock, so a chosen
 * cpu stays online while work_on_cpu() runs there).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/sched.h>
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

struct handle_job {
	struct slablab_handle *h;
	u32 n;		/* objects to allocate or free */
};

static long handle_alloc_fn(void *arg)
{
	struct handle_job *job = arg;
	struct slablab_handle *h = job->h;
	u32 i;

	for (i = 0; i < job->n; i++) {
		h->objs[i] = slablab_cache_alloc(h->s, GFP_KERNEL);
		if (!h->objs[i]) {
			slablab_cache_free_bulk(h->s, i, h->objs);
			return -ENOMEM;
		}
		if (!(i & 1023))
			cond_resched();
	}
	h->count = job->n;
	return 0;
}

static long handle_free_fn(void *arg)
{
	struct handle_job *job = arg;
	struct slablab_handle *h = job->h;
	u32 i;

	for (i = 0; i < job->n; i++) {
		h->count--;
		slablab_cache_free(h->s, h->objs[h->count]);
		h->objs[h->count] = NULL;
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

static long run_on(int cpu, long (*fn)(void *), void *arg)
{
	return cpu < 0 ? fn(arg) : work_on_cpu(cpu, fn, arg);
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
	struct handle_job job;
	long ret;

	lockdep_assert_held(&slablab_mutex);
	if (slablab_nr_handles >= SLABLAB_MAX_HANDLES) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "too many handles (%u); free some first",
				       SLABLAB_MAX_HANDLES);
		return -ENOSPC;
	}
	if (slablab_handle_bytes + bytes > SLABLAB_MAX_HANDLE_BYTES) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "handles would hold %llu bytes, over the %llu-byte limit",
				       slablab_handle_bytes + bytes, SLABLAB_MAX_HANDLE_BYTES);
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
	job.h = h;
	job.n = count;
	ret = run_on(cpu, handle_alloc_fn, &job);
	if (ret) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "allocation of %u objects from %s failed",
				       count, s->name);
		kvfree(h->objs);
		kfree(h);
		return ret;
	}
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
	struct handle_job job;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(h, &slablab_handles, list) {
		if (h->id != id)
			continue;
		if (count > h->count) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "handle %u holds only %u objects", id,
					       h->count);
			return -ERANGE;
		}
		job.h = h;
		job.n = count ? count : h->count;
		run_on(cpu, handle_free_fn, &job);
		*left = h->count;
		if (!h->count)
			handle_destroy(h);
		return 0;
	}
	NL_SET_ERR_MSG_FMT_MOD(extack, "no handle %u", id);
	return -ENOENT;
}

void slablab_handles_release_cache(struct slablab_cache *s)
{
	struct slablab_handle *h, *tmp;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry_safe(h, tmp, &slablab_handles, list) {
		if (h->s != s)
			continue;
		slablab_cache_free_bulk(s, h->count, h->objs);
		handle_destroy(h);
	}
}

void slablab_handles_release_all(void)
{
	struct slablab_handle *h, *tmp;

	mutex_lock(&slablab_mutex);
	list_for_each_entry_safe(h, tmp, &slablab_handles, list) {
		slablab_cache_free_bulk(h->s, h->count, h->objs);
		handle_destroy(h);
	}
	mutex_unlock(&slablab_mutex);
}
