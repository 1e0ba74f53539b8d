// SPDX-License-Identifier: GPL-2.0
/*
 * The test hooks: debugfs files that exist with selftests=1 only and are no part of the
 * netlink ABI (netdevsim keeps its test hooks in debugfs too), kept beside debugfs.c's
 * plumbing as mm/ keeps its *_test.c files beside the allocator. debugfs.c makes the
 * directories and, with selftests=1, has this file add the hooks' files to them
 * (slablab_selftest_debugfs_init(), slablab_selftest_debugfs_add_cache(): debugfs.h):
 *   slablab/selftest_warn, selftest_kernel_cache, selftest_native_sysfs   below
 *   slablab/selftest_fail_random_seq, selftest_fail_sheaf_alloc (both also as _nth: the
 *     Nth fails), selftest_fail_atomic_slabs, selftest_walk_irqoff_ns and _slabs
 *                                  the back end's and the designs' counters (backend.c,
 *                                  design_sheaves.c), as files
 *   slablab/selftest_dump_percpu_max   netlink-cache.c's cap of the cache dump
 *   caches/<name>/selftest         the cases of selftest_cases[], by name
 *   caches/<name>/selftest_cpu_locks, selftest_new_slab_gfp, selftest_partial
 * The tests that use them are tests/vm/'s.
 *
 * Locking (outermost first):
 *   selftest_kernel_lock   the "selftest-kernel" cache (selftest_kernel_cache), taken
 *                          before cache.c's locks
 *   cpu_hotplug_lock (cpus_read_lock) and
 *   slablab_mutex          cache.c's: a case marked SELFTEST_LOCKED runs under
 *                          slablab_mutex on a cache not ->dead (slablab_selftest_run());
 *                          rcu_typesafe and the designs' cases (fastpath_race ...) take
 *                          cpus_read_lock and slablab_mutex themselves
 *   s->slabs_lock          rcu_typesafe's read of the slabs waiting for a grace period
 *   n->list_lock           selftest_partial's walk of each node's partial list
 * A cache's files live in its directory, which debugfs.c removes only after the cache
 * was unlinked under slablab_mutex, and whose removal waits for handlers in flight.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "debugfs.h"
#include "target.h"

/*
 * Test hooks (selftests=1 only): writing the name of one case to caches/<name>/selftest
 * runs it on that cache. The corruption cases make what the debug checks must catch;
 * each takes its object with preemption off, so that a freed object comes back next:
 * from this cpu's per-cpu layer or, for a slub debug cache (which has none), from the
 * head of its slab's freelist (the tests' fresh caches have that one slab).
 */

/* An object allocated with preemption off (kept off); NULL (preemption on) if none. */
static u8 *selftest_alloc_here(struct slablab_cache *s)
{
	u8 *obj;

	preempt_disable();
	obj = slablab_cache_alloc(s, GFP_ATOMIC);
	if (!obj)
		preempt_enable();
	return obj;
}

static int selftest_double_free(struct slablab_cache *s)
{
	u8 *obj = selftest_alloc_here(s);

	if (!obj)
		return -ENOMEM;
	slablab_cache_free(s, obj);
	slablab_cache_free(s, obj);
	preempt_enable();
	return 0;
}

/* Write to a free object, then allocate it again: the poison check must see it. */
static int selftest_use_after_free(struct slablab_cache *s)
{
	u8 *obj = selftest_alloc_here(s), *again;

	if (!obj)
		return -ENOMEM;
	slablab_cache_free(s, obj);
	obj[0] = 0x42;
	again = slablab_cache_alloc(s, GFP_ATOMIC);
	slablab_cache_free(s, again);
	preempt_enable();
	return 0;
}

/* One byte past the object: the red zone check on free must see it. */
static int selftest_overflow(struct slablab_cache *s)
{
	u8 *obj = selftest_alloc_here(s);

	if (!obj)
		return -ENOMEM;
	obj[s->object_size] = 0x42;
	slablab_cache_free(s, obj);
	preempt_enable();
	return 0;
}

/* Hold one object, as another kernel user of the cache would (one at a time). */
static int selftest_hold_from(struct slablab_cache *s, gfp_t gfp, int node)
{
	void *obj = slablab_cache_alloc_node(s, gfp, node);

	if (!obj)
		return -ENOMEM;
	if (s->selftest_obj) {
		slablab_cache_free(s, obj);
		return -EBUSY;
	}
	s->selftest_obj = obj;
	return 0;
}

static int selftest_hold(struct slablab_cache *s)
{
	return selftest_hold_from(s, GFP_KERNEL, NUMA_NO_NODE);
}

/* The same with an allocation that may not sleep. */
static int selftest_hold_atomic(struct slablab_cache *s)
{
	return selftest_hold_from(s, GFP_ATOMIC, NUMA_NO_NODE);
}

/* The same from this cpu's node, asked for by number. */
static int selftest_hold_node(struct slablab_cache *s)
{
	return selftest_hold_from(s, GFP_KERNEL, numa_mem_id());
}

/* Free the object a hold took. */
static int selftest_release(struct slablab_cache *s)
{
	void *obj = s->selftest_obj;

	if (!obj)
		return -ENOENT;
	s->selftest_obj = NULL;
	slablab_cache_free(s, obj);
	return 0;
}

/*
 * kmemleak's test (tests/vm/test_kmemleak.py, the debug kernel): "leak" allocates
 * SLABLAB_SELFTEST_LEAKS objects, half one at a time and half in one bulk allocation
 * (the two ways the alloc hook is reached), writes "<cache>/<N>" into each (kmemleak's
 * report shows the first bytes) and keeps them only as their addresses XORed with ~0UL,
 * which kmemleak does not take for references; "unleak" frees them. Copies of an
 * address that callees spilled into the stack below this frame may survive the call
 * until the stack is used again (kmemleak scans whole stacks): the test allows for a
 * few unreported objects.
 */
static unsigned long selftest_leak_mark(struct slablab_cache *s, char *obj, unsigned int i)
{
	memset(obj, 0, s->object_size);
	snprintf(obj, s->object_size, "%s/%u", s->name, i);
	return (unsigned long)obj ^ ~0UL;
}

static int selftest_leak(struct slablab_cache *s)
{
	const unsigned int half = SLABLAB_SELFTEST_LEAKS / 2;
	void *bulk[SLABLAB_SELFTEST_LEAKS / 2];
	unsigned int i;
	char *obj;

	if (s->object_size < 32)
		return -EINVAL;		/* the marker must fit */
	for (i = 0; i < SLABLAB_SELFTEST_LEAKS; i++) {
		if (s->selftest_leaked[i])
			return -EBUSY;
	}
	for (i = 0; i < half; i++) {
		obj = slablab_cache_alloc(s, GFP_KERNEL);
		if (!obj)
			return -ENOMEM;	/* "unleak" frees those allocated */
		s->selftest_leaked[i] = selftest_leak_mark(s, obj, i);
	}
	if (!slablab_cache_alloc_bulk(s, GFP_KERNEL, half, bulk))
		return -ENOMEM;
	for (i = 0; i < half; i++)
		s->selftest_leaked[half + i] = selftest_leak_mark(s, bulk[i], half + i);
	memzero_explicit(bulk, sizeof(bulk));
	return 0;
}

static int selftest_unleak(struct slablab_cache *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < SLABLAB_SELFTEST_LEAKS; i++) {
		if (!s->selftest_leaked[i])
			continue;
		slablab_cache_free(s, (void *)(s->selftest_leaked[i] ^ ~0UL));
		s->selftest_leaked[i] = 0;
		n++;
	}
	return n ? 0 : -ENOENT;
}

/* What the RCU cases free by RCU: an object that starts with its rcu_head. */
struct selftest_rcu_obj {
	struct rcu_head rcu;
};

#define SELFTEST_RCU_OBJS	64

static void *selftest_rcu_alloc(struct slablab_cache *s, gfp_t gfp)
{
	if (s->owner == SLABLAB_OWNER_KMALLOC)
		return slablab_kmalloc(s->object_size, gfp);
	return slablab_cache_alloc(s, gfp);
}

static void selftest_rcu_free(struct slablab_cache *s, void *p, bool rcu)
{
	struct selftest_rcu_obj *obj = p;

	if (s->owner == SLABLAB_OWNER_KMALLOC) {
		if (rcu)
			slablab_kfree_rcu(obj, rcu);
		else
			slablab_kfree(obj);
	} else if (rcu) {
		slablab_cache_free_rcu(s, obj, rcu);
	} else {
		slablab_cache_free(s, obj);
	}
}

/*
 * An object freed by RCU is not reused before a grace period: free one by RCU inside a
 * read-side critical section (no grace period can end before it does) and allocate
 * SELFTEST_RCU_OBJS more there; none may be it. -EADDRINUSE when one is. A kmalloc
 * class runs slablab_kmalloc() and slablab_kfree_rcu(). An object freed by RCU just
 * before, on the same cpu, arms its batch first, so that the one in the section waits
 * on the pending list and goes to RCU as the next batch, from the first's callback
 * (the first may be reused in the section: its grace period began before it):
 * -EAGAIN when it did not (the first's batch was done already; try again). With an
 * rcu_free sheaf (sheaves) both go into it instead.
 */
static int selftest_rcu_reuse(struct slablab_cache *s)
{
	bool batched = !(s->ops->free_rcu && READ_ONCE(s->sheaf_capacity));
	void *objs[SELFTEST_RCU_OBJS], *obj, *first;
	struct slablab_rcu_batch *b;
	bool handoff = true;
	int i, err = 0;

	if (s->object_size < sizeof(struct selftest_rcu_obj))
		return -EINVAL;
	preempt_disable();	/* one cpu's batch */
	first = selftest_rcu_alloc(s, GFP_ATOMIC);
	if (!first) {
		preempt_enable();
		return -ENOMEM;
	}
	selftest_rcu_free(s, first, true);
	rcu_read_lock();
	obj = selftest_rcu_alloc(s, GFP_ATOMIC);
	if (!obj) {
		rcu_read_unlock();
		preempt_enable();
		return -ENOMEM;
	}
	selftest_rcu_free(s, obj, true);
	if (batched) {
		b = &this_cpu_ptr(s->cpu)->rcu;
		/* racy: the first's callback may run meanwhile; -EAGAIN retries then */
		handoff = data_race(READ_ONCE(b->armed) && READ_ONCE(b->nr_pending));
	}
	for (i = 0; i < SELFTEST_RCU_OBJS; i++) {
		objs[i] = selftest_rcu_alloc(s, GFP_ATOMIC);
		if (objs[i] == obj) {
			pr_err("selftest rcu_reuse: %s: object %p reused before a grace period\n",
			       s->name, obj);
			err = -EADDRINUSE;
		}
	}
	for (i = 0; i < SELFTEST_RCU_OBJS; i++)
		if (objs[i])
			selftest_rcu_free(s, objs[i], false);
	rcu_read_unlock();
	preempt_enable();
	if (!err && !handoff)
		err = -EAGAIN;
	return err;
}

/*
 * A double RCU free on a debug cache: two objects freed by RCU, then the second again,
 * which would link its rcu_head into the cpu's batch twice (a cycle: the callback
 * would never end). The debug checks must report it and drop that free (the kernel's
 * "just leak"): both objects are freed once, after their grace period.
 */
static int selftest_rcu_double_free(struct slablab_cache *s)
{
	void *a, *b;

	if (s->object_size < sizeof(struct selftest_rcu_obj))
		return -EINVAL;
	a = selftest_rcu_alloc(s, GFP_KERNEL);
	b = selftest_rcu_alloc(s, GFP_KERNEL);
	if (!a || !b) {
		if (a)
			selftest_rcu_free(s, a, false);
		if (b)
			selftest_rcu_free(s, b, false);
		return -ENOMEM;
	}
	selftest_rcu_free(s, a, true);
	selftest_rcu_free(s, b, true);
	selftest_rcu_free(s, b, true);
	return 0;
}

/* Free SELFTEST_RCU_OBJS objects by RCU and return: destroy must wait for them. */
static int selftest_rcu_pending(struct slablab_cache *s)
{
	void *obj;
	int i;

	if (s->object_size < sizeof(struct selftest_rcu_obj))
		return -EINVAL;
	for (i = 0; i < SELFTEST_RCU_OBJS; i++) {
		obj = selftest_rcu_alloc(s, GFP_KERNEL);
		if (!obj)
			return -ENOMEM;
		selftest_rcu_free(s, obj, true);
	}
	return 0;
}

/*
 * A typesafe_by_rcu cache never gives memory back to the page allocator before a grace
 * period: fill a few slabs, note their pages, free every object and shrink the cache
 * (its slabs are freed), then, if no grace period has passed since before the frees
 * (poll_state_synchronize_rcu()), every page must still be allocated and still the
 * cache's (->private unchanged). -EFAULT when one is not; -EAGAIN when a grace period
 * passed first (nothing shown: the test tries again); -ENODATA when no slab (slob: no
 * block) was deferred; -EIO when deferred slabs are left after slablab_rcu_drain().
 */
static int selftest_rcu_typesafe(struct slablab_cache *s)
{
	unsigned long priv[SELFTEST_RCU_OBJS], cookie, rcu_slabs;
	struct page *pages[SELFTEST_RCU_OBJS];
	unsigned int n, i, j, npages = 0;
	u64 deferred;
	void **objs;
	int err = 0;

	if (!(s->flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU))
		return -EINVAL;
	n = clamp_t(unsigned int, 3 * ((PAGE_SIZE << s->order) / s->stride), 64, 4096);
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	if (s->dead) {
		err = -ENOENT;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct page *page;

		objs[i] = slablab_cache_alloc(s, GFP_KERNEL);
		if (!objs[i]) {
			err = -ENOMEM;
			break;
		}
		page = virt_to_head_page(objs[i]);
		for (j = 0; j < npages && pages[j] != page; j++)
			;
		if (j == npages && npages < SELFTEST_RCU_OBJS) {
			pages[npages] = page;
			priv[npages++] = page_private(page);
		}
	}
	deferred = slablab_stat_sum_raw(s, SLABLAB_RCU_SLAB_DEFERRED);
	cookie = get_state_synchronize_rcu();
	for (i = 0; i < n; i++)
		slablab_cache_free(s, objs[i]);
	if (err)
		goto drain;
	slablab_shrink_locked(s);
	for (j = 0; j < npages; j++) {
		if (!page_count(pages[j]) || page_private(pages[j]) != priv[j]) {
			err = -EFAULT;
			break;
		}
	}
	if (poll_state_synchronize_rcu(cookie))
		err = -EAGAIN;	/* a grace period passed: a free would have been right */
	else if (err)
		pr_err("selftest rcu_typesafe: %s: page %p freed before a grace period\n",
		       s->name, pages[j]);
	else if (slablab_stat_sum_raw(s, SLABLAB_RCU_SLAB_DEFERRED) == deferred)
		err = -ENODATA;
drain:
	slablab_rcu_drain(s);
	spin_lock_irq(&s->slabs_lock);
	rcu_slabs = s->rcu_slabs;
	spin_unlock_irq(&s->slabs_lock);
	if (!err && rcu_slabs)
		err = -EIO;
out:
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	kvfree(objs);
	return err;
}

/*
 * A prefilled sheaf of 0 objects: 7.3.4's kmem_cache_prefill_sheaf() lends none
 * (NULL). -EEXIST when one was lent (it goes back at once).
 */
static int selftest_prefill_zero(struct slablab_cache *s)
{
	struct slablab_sheaf *sh = slablab_cache_prefill_sheaf(s, GFP_KERNEL, 0);

	if (!sh)
		return 0;
	slablab_cache_return_sheaf(s, GFP_KERNEL, sh);
	return -EEXIST;
}

/* How a case runs (slablab_selftest_case.needs). */
#define SELFTEST_LOCKED	BIT(0)	/* under slablab_mutex, on a live cache: it allocates */
#define SELFTEST_DEBUG	BIT(1)	/* only on a debug cache without ctor: it corrupts */

/**
 * struct slablab_selftest_case - one test hook of caches/<name>/selftest
 * @name: what is written to the file to run it
 * @run: the case; returns 0 or a negative errno (the write's result)
 * @needs: SELFTEST_LOCKED and/or SELFTEST_DEBUG
 */
struct slablab_selftest_case {
	const char *name;
	int (*run)(struct slablab_cache *s);
	unsigned int needs;
};

static const struct slablab_selftest_case selftest_cases[] = {
	{ "double_free", selftest_double_free, SELFTEST_LOCKED | SELFTEST_DEBUG },
	{ "use_after_free", selftest_use_after_free, SELFTEST_LOCKED | SELFTEST_DEBUG },
	{ "overflow", selftest_overflow, SELFTEST_LOCKED | SELFTEST_DEBUG },
	{ "hold", selftest_hold, SELFTEST_LOCKED },
	{ "hold_atomic", selftest_hold_atomic, SELFTEST_LOCKED },
	{ "hold_node", selftest_hold_node, SELFTEST_LOCKED },
	{ "release", selftest_release, SELFTEST_LOCKED },
	{ "leak", selftest_leak, SELFTEST_LOCKED },
	{ "unleak", selftest_unleak, SELFTEST_LOCKED },
	/*
	 * The cmpxchg fast path loses its cpu slab to a flush mid-allocation. It takes
	 * cpus_read_lock and slablab_mutex itself, after arming the hook's static key
	 * (which takes cpus_read_lock).
	 */
	{ "fastpath_race", slablab_selftest_fastpath_race, 0 },
	/*
	 * A cpu slab appears while the slow path makes a new one (6.1's retry_load_slab).
	 * Takes cpus_read_lock and slablab_mutex itself, after arming its hook's key.
	 */
	{ "install_race", slablab_selftest_install_race, 0 },
	{ "rcu_reuse", selftest_rcu_reuse, SELFTEST_LOCKED },
	{ "rcu_pending", selftest_rcu_pending, SELFTEST_LOCKED },
	{ "rcu_double_free", selftest_rcu_double_free, SELFTEST_LOCKED | SELFTEST_DEBUG },
	/* takes cpus_read_lock and slablab_mutex itself: it shrinks the cache */
	{ "rcu_typesafe", selftest_rcu_typesafe, 0 },
	/*
	 * The sheaves: whether every cpu's and barn's sheaf is of the cache's capacity;
	 * allocations and frees with this cpu's sheaves lock held (7.x). Both take
	 * cpus_read_lock and slablab_mutex themselves.
	 */
	{ "sheaf_capacity", slablab_selftest_sheaf_capacity, 0 },
	{ "pcs_held", slablab_selftest_pcs_held, 0 },
	{ "prefill_zero", selftest_prefill_zero, SELFTEST_LOCKED },
};

static int slablab_selftest_run(struct slablab_cache *s, const struct slablab_selftest_case *c)
{
	int err;

	if (!(c->needs & SELFTEST_LOCKED))
		return c->run(s);
	/* Never allocate from a cache a destroy is discarding (->dead). */
	mutex_lock(&slablab_mutex);
	if (s->dead)
		err = -ENOENT;
	else if ((c->needs & SELFTEST_DEBUG) && (!(s->flags & SLABLAB_CACHE_F_DEBUG) || s->ctor))
		err = -EINVAL;	/* without debug checks this would corrupt the cache */
	else
		err = c->run(s);
	mutex_unlock(&slablab_mutex);
	return err;
}

static ssize_t slablab_selftest_write(struct file *file, const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct slablab_cache *s = file_inode(file)->i_private;
	char buf[16];
	int err, i;

	err = copy_word(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(selftest_cases); i++) {
		if (!strcmp(buf, selftest_cases[i].name)) {
			err = slablab_selftest_run(s, &selftest_cases[i]);
			return err ? err : len;
		}
	}
	return -EINVAL;
}

static const struct file_operations slablab_selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = slablab_selftest_write,
	.llseek = noop_llseek,
};

/* The gfp of the cache's last page allocation for a new slab, as the kernel names it. */
static int slablab_selftest_gfp_show(struct seq_file *m, void *unused)
{
	struct slablab_cache *s = m->private;
	gfp_t gfp = READ_ONCE(s->selftest_new_slab_gfp);

	seq_printf(m, "%pGg\n", &gfp);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slablab_selftest_gfp);

/* Partial slabs a selftest_partial read lists per node, at most (interrupts are off). */
#define SELFTEST_PARTIAL_MAX	64

/*
 * The node partial lists in their order, head first: "<nid>:" and each slab's free
 * objects, one line per node that has partial slabs (the first SELFTEST_PARTIAL_MAX).
 */
static int slablab_selftest_partial_show(struct seq_file *m, void *unused)
{
	struct slablab_cache *s = m->private;
	unsigned int free[SELFTEST_PARTIAL_MAX];
	struct slablab_slab *slab;
	unsigned long flags;
	int nid, i, nr;

	for_each_node(nid) {
		struct slablab_node *n = s->node[nid];

		nr = 0;
		spin_lock_irqsave(&n->list_lock, flags);
		list_for_each_entry(slab, &n->partial, node_list) {
			struct slablab_counters c = { .word = READ_ONCE(slab->fc.word) };

			if (nr == SELFTEST_PARTIAL_MAX)
				break;
			free[nr++] = c.objects - c.inuse;
		}
		spin_unlock_irqrestore(&n->list_lock, flags);
		if (!nr)
			continue;
		seq_printf(m, "%d:", nid);
		for (i = 0; i < nr; i++)
			seq_printf(m, " %u", free[i]);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slablab_selftest_partial);

/**
 * slablab_selftest_debugfs_add_cache - the test hooks' files of a new cache
 * @s: the cache (slablab_mutex held: cache.c's observer)
 * @dir: its debugfs directory
 */
void slablab_selftest_debugfs_add_cache(struct slablab_cache *s, struct dentry *dir)
{
	debugfs_create_file("selftest", 0200, dir, s, &slablab_selftest_fops);
	/* the slab design's acquisitions of its cpu lock; write 0: reset */
	debugfs_create_atomic_t("selftest_cpu_locks", 0600, dir, &s->selftest_cpu_locks);
	debugfs_create_file("selftest_new_slab_gfp", 0400, dir, s, &slablab_selftest_gfp_fops);
	debugfs_create_file("selftest_partial", 0400, dir, s, &slablab_selftest_partial_fops);
}

/*
 * Test hook (selftests=1 only): selftest_kernel_cache makes ("create") or destroys
 * ("destroy") the cache "selftest-kernel" through slablab_cache_create() and
 * slablab_cache_destroy(), as another kernel module would: owner "kernel".
 * "create-args" makes it through slablab_cache_create_args() instead, with the
 * tunables selftest_kernel_args gives (cpu_partial 0, which only the use_ flag can
 * say, and min_partial 3), so a test sees the args arrive. Its mutex is taken before
 * cache.c's locks.
 */
static DEFINE_MUTEX(selftest_kernel_lock);
static struct slablab_cache *selftest_kernel_cache;
static const struct slablab_cache_args selftest_kernel_args = {
	.flags = SLABLAB_HWCACHE_ALIGN,
	.design = SLABLAB_DESIGN_SLUB,
	.tunables_set = BIT(SLABLAB_TUNABLE_CPU_PARTIAL) | BIT(SLABLAB_TUNABLE_MIN_PARTIAL),
	.tunables = { [SLABLAB_TUNABLE_CPU_PARTIAL] = 0, [SLABLAB_TUNABLE_MIN_PARTIAL] = 3 },
};

/*
 * slablab_cache_args whose tunables creation must refuse, making no cache: a value out
 * of the registry's range, and a tunable that is a field of the args (design). -EPROTO
 * when one was made, or when the caches list grew.
 */
static int selftest_kernel_bad_args(void)
{
	static const struct slablab_cache_args bad[] = {
		{ .tunables_set = BIT(SLABLAB_TUNABLE_CPU_PARTIAL),
		  .tunables = { [SLABLAB_TUNABLE_CPU_PARTIAL] = SLABLAB_MAX_CPU_PARTIAL + 1 } },
		{ .tunables_set = BIT(SLABLAB_TUNABLE_MAX_ORDER),
		  .tunables = { [SLABLAB_TUNABLE_MAX_ORDER] = SLABLAB_MAX_ORDER + 1 } },
		{ .tunables_set = BIT(SLABLAB_TUNABLE_DESIGN),
		  .tunables = { [SLABLAB_TUNABLE_DESIGN] = SLABLAB_DESIGN_SLAB } },
		{ .tunables_set = BIT(SLABLAB_NR_TUNABLES) },
	};
	struct slablab_cache *s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		s = slablab_cache_create_args("selftest-bad-args", 64, &bad[i]);
		if (s) {
			slablab_cache_destroy(s);
			return -EPROTO;
		}
	}
	return 0;
}

static ssize_t slablab_selftest_kernel_write(struct file *file, const char __user *ubuf,
					     size_t len, loff_t *ppos)
{
	static const char *const ops[] = { "create", "destroy", "create-args", "create-bad-args" };
	int op = parse_name(ubuf, len, ops, ARRAY_SIZE(ops)), err = 0;

	if (op < 0)
		return op;
	if (op == 3)
		return selftest_kernel_bad_args() ?: len;
	mutex_lock(&selftest_kernel_lock);
	if (op != 1 && !selftest_kernel_cache) {
		if (op)
			selftest_kernel_cache = slablab_cache_create_args("selftest-kernel", 64,
									  &selftest_kernel_args);
		else
			selftest_kernel_cache = slablab_cache_create("selftest-kernel", 64, 0, 0,
								     NULL);
		err = selftest_kernel_cache ? 0 : -ENOMEM;
	} else if (op == 1 && selftest_kernel_cache) {
		err = slablab_cache_destroy(selftest_kernel_cache);
		if (!err)
			selftest_kernel_cache = NULL;
	} else {
		err = op == 1 ? -ENOENT : -EEXIST;
	}
	mutex_unlock(&selftest_kernel_lock);
	return err ? err : len;
}

static const struct file_operations slablab_selftest_kernel_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = slablab_selftest_kernel_write,
	.llseek = noop_llseek,
};

/*
 * Test hook (selftests=1 only): selftest_native_sysfs names the directory storms read
 * SLUB's figures of native targets from instead of /sys/kernel/slab, so a test can
 * show that a storm whose figures cannot be read is refused (storm.c).
 */
static ssize_t slablab_selftest_sysfs_write(struct file *file, const char __user *ubuf,
					    size_t len, loff_t *ppos)
{
	char root[64];
	int err;

	if (!len || len >= sizeof(root))
		return -EINVAL;
	if (copy_from_user(root, ubuf, len))
		return -EFAULT;
	root[len] = 0;
	err = slablab_target_set_sysfs_root(strim(root));
	return err ? err : len;
}

static const struct file_operations slablab_selftest_sysfs_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = slablab_selftest_sysfs_write,
	.llseek = noop_llseek,
};

/*
 * Test hook (selftests=1 only): any write to selftest_warn triggers a kernel WARN, so
 * that the test harness can prove it catches splats (netdevsim keeps its test hooks in
 * debugfs too: they are no part of the netlink ABI).
 */
static ssize_t slablab_selftest_warn_write(struct file *file, const char __user *ubuf,
					   size_t len, loff_t *ppos)
{
	WARN(1, "slablab: selftest WARN requested through debugfs\n");
	return len;
}

static const struct file_operations slablab_selftest_warn_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = slablab_selftest_warn_write,
	.llseek = noop_llseek,
};

/**
 * slablab_selftest_debugfs_init - the test hooks' files of the lab, at module init
 * @root: debugfs's slablab directory
 */
void slablab_selftest_debugfs_init(struct dentry *root)
{
	debugfs_create_file("selftest_kernel_cache", 0200, root, NULL,
			    &slablab_selftest_kernel_fops);
	debugfs_create_file("selftest_warn", 0200, root, NULL, &slablab_selftest_warn_fops);
	debugfs_create_file("selftest_native_sysfs", 0200, root, NULL,
			    &slablab_selftest_sysfs_fops);
	/* the next N freelist sequences fail to allocate (backend.c) */
	debugfs_create_atomic_t("selftest_fail_random_seq", 0600, root,
				&slablab_fail_random_seq);
	/* the next N sheaf allocations fail (design_sheaves.c) */
	debugfs_create_atomic_t("selftest_fail_sheaf_alloc", 0600, root,
				&slablab_fail_sheaf_alloc);
	/* the Nth freelist sequence, or sheaf, from now fails, once (backend.c) */
	debugfs_create_atomic_t("selftest_fail_random_seq_nth", 0600, root,
				&slablab_fail_random_seq_nth);
	debugfs_create_atomic_t("selftest_fail_sheaf_alloc_nth", 0600, root,
				&slablab_fail_sheaf_alloc_nth);
	/* the next N new slabs that may not reclaim fail (backend.c) */
	debugfs_create_atomic_t("selftest_fail_atomic_slabs", 0600, root,
				&slablab_fail_atomic_slabs);
	/* caches/<name>/selftest_cpu_locks counts from now on (design_slab.c) */
	static_branch_enable(&slablab_count_cpu_locks);
	/* the longest irqs-off hold of a layers/occupancy walk; write 0: reset */
	debugfs_create_u64("selftest_walk_irqoff_ns", 0600, root, &slablab_walk_irqoff_max_ns);
	debugfs_create_u64("selftest_walk_irqoff_slabs", 0600, root,
			   &slablab_walk_irqoff_max_slabs);
	/* at most N per-cpu entries per dump message (0: as many as fit) */
	debugfs_create_u32("selftest_dump_percpu_max", 0600, root,
			   &slablab_selftest_dump_percpu_max);
}
