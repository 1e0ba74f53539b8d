// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs mirror of slablab's state: /sys/kernel/debug/slablab/caches/<name>/ holds
 * files named and formatted like /sys/kernel/slab/<cache>/ (values; stat files as
 * "SUM C0=n C1=m"; writing 0 to a stat file resets it), so tools written for
 * /sys/kernel/slab read a slablab cache directory unchanged. Netlink stays the stable
 * interface; this is the convenient one for people and shell scripts, and the home of
 * the test hooks, which are no part of the netlink ABI: caches/<name>/fail_slab_every
 * (fault injection on any kernel), fail_new_slab/ (the kernel's fault_attr, where it
 * has CONFIG_FAULT_INJECTION_DEBUG_FS) and, with selftests=1 only, selftest_warn,
 * selftest_kernel_cache, selftest_native_sysfs, selftest_fail_random_seq,
 * selftest_fail_sheaf_alloc (both also as _nth: the Nth fails), selftest_fail_atomic_slabs,
 * selftest_walk_irqoff_ns and _slabs,
 * selftest_dump_percpu_max and caches/<name>/selftest, selftest_cpu_locks,
 * selftest_new_slab_gfp and selftest_partial.
 *
 * Every file the kernel's tools/vm/slabinfo.c (tools/mm/ in 7.x) reads in
 * read_slab_dir() that SLUB's sysfs has is here, so slabinfo run with this directory
 * bind-mounted over /sys/kernel/slab reads slablab's caches
 * (tests/vm/test_slabinfo_oracle.py). The formats are mm/slub.c's (6.1) but for one
 * difference: slabs, objects, total_objects and cpu_slabs print the total alone,
 * where SLUB under CONFIG_NUMA adds " N<nid>=<count>" per node (slabinfo reads the
 * leading number only); partial and objects_partial add the per-node figures as SLUB
 * does, with CONFIG_NUMA only. cpu_slabs counts per cpu as SLUB's
 * show_slab_objects(SO_CPU): a cpu's slab and, only where it has one, its cpu partial
 * slabs (netlink's CPU_SLABS and CPU_PARTIAL_SLABS gauges count every cpu's). objects
 * is the objects in use (allocations less frees), not SLUB's total_objects less the
 * free objects on node partial lists (docs/slabctl.md). The flag files show the
 * SLAB_* flags a cache's flags stand for (slub_flags()); slablab merges no caches
 * (aliases 0).
 *
 * Lifetime: files are created with debugfs_create_file(), whose proxy makes
 * debugfs_remove_recursive() wait for handlers in flight. Writers take cpus_read_lock
 * and slablab_mutex and then check s->dead, because the cache's directory is removed
 * (by slablab_cache_release()) only after the cache was unlinked under that mutex.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/fault-inject.h>
#include <linux/rcupdate.h>
#include "internal.h"
#include "target.h"
#include "tunables.h"

static struct dentry *slablab_debugfs_root;
static struct dentry *slablab_debugfs_caches;

/*
 * The stat files' names in enum slablab_stat_item order, from the spec's stat-item
 * (include/slablab/protocol.h).
 */
#define SLABLAB_STAT_NAME(item, name) __stringify(name),
static const char *const stat_names[] = {
	SLABLAB_STAT_ITEMS(SLABLAB_STAT_NAME)
};

#undef SLABLAB_STAT_NAME

static const char *const page_policy_names[__SLABLAB_PAGE_POLICY_MAX] = {
	[SLABLAB_PAGE_POLICY_SLAB] = "slab",
	[SLABLAB_PAGE_POLICY_PAGE_ALLOC] = "page_alloc",
};

static const char *const order_reasons[] = {
	[SLABLAB_ORDER_FIT] = "fit",
	[SLABLAB_ORDER_FEWER_OBJECTS] = "fewer_objects",
	[SLABLAB_ORDER_ONE_OBJECT] = "one_object",
	[SLABLAB_ORDER_TOO_BIG] = "too_big",
	[SLABLAB_ORDER_SLAB_FIT] = "slab_fit",
	[SLABLAB_ORDER_SLAB_MAX_ORDER] = "slab_max_order",
	[SLABLAB_ORDER_SLAB_MAX_NUM] = "slab_max_num",
};

/*
 * The tunables' files come from the registry (slablab_tunables[], generated from the
 * spec): one named as the tunable (SLUB's sysfs file where it has one), read and
 * written as a number or, for an enum, a value's name; a write is checked and applied
 * as a cache-set of that tunable is (slablab_tunable_set()). Flags have none: the
 * read-only "flags" file shows them, SLUB's poison/red_zone/sanity_checks each one.
 */
enum dbg_attr {
	D_OBJECT_SIZE, D_SLAB_SIZE, D_OBJS_PER_SLAB, D_ORDER_DEFAULT, D_ORDER_REASON,
	D_OBJECTS, D_TOTAL_OBJECTS, D_SLABS, D_PARTIAL, D_CPU_SLABS, D_SLABS_CPU_PARTIAL,
	D_ALIGN, D_FLAGS, D_OWNER, D_PAGES, D_LIVE_BYTES, D_META_BYTES, D_POISON, D_RED_ZONE,
	D_SANITY_CHECKS, D_SHRINK, D_VALIDATE, D_FAIL_SLAB_EVERY, D_OBJECTS_PARTIAL,
	D_ALIASES, D_HWCACHE_ALIGN, D_RECLAIM_ACCOUNT, D_DESTROY_BY_RCU, D_STORE_USER,
	D_TRACE, D_CACHE_DMA,
	D_NR,
	D_TUNABLE_FIRST = D_NR,	/* then one per tunable of the registry */
};

/* then one per enum slablab_stat_item */
#define D_STAT_FIRST	(D_TUNABLE_FIRST + SLABLAB_NR_TUNABLES)

/*
 * @flag: for the files that show one SLAB_* flag of slub_flags() as 0 or 1, as SLUB's
 * <flag>_show() does (poison_show(), red_zone_show(), ...); 0 for the others.
 */
static const struct {
	const char *name;
	umode_t mode;
	slab_flags_t flag;
} dbg_files[D_NR] = {
	[D_OBJECT_SIZE] = { "object_size", 0444 },
	[D_SLAB_SIZE] = { "slab_size", 0444 },
	[D_OBJS_PER_SLAB] = { "objs_per_slab", 0444 },
	[D_ORDER_DEFAULT] = { "order_default", 0444 },
	[D_ORDER_REASON] = { "order_reason", 0444 },
	[D_OBJECTS] = { "objects", 0444 },
	[D_TOTAL_OBJECTS] = { "total_objects", 0444 },
	[D_SLABS] = { "slabs", 0444 },
	[D_PARTIAL] = { "partial", 0444 },
	[D_CPU_SLABS] = { "cpu_slabs", 0444 },
	[D_SLABS_CPU_PARTIAL] = { "slabs_cpu_partial", 0444 },
	[D_ALIGN] = { "align", 0444 },
	[D_FLAGS] = { "flags", 0444 },
	[D_OWNER] = { "owner", 0444 },
	[D_PAGES] = { "pages", 0444 },
	[D_LIVE_BYTES] = { "live_bytes", 0444 },
	[D_META_BYTES] = { "meta_bytes", 0444 },
	[D_POISON] = { "poison", 0444, SLAB_POISON },
	[D_RED_ZONE] = { "red_zone", 0444, SLAB_RED_ZONE },
	[D_SANITY_CHECKS] = { "sanity_checks", 0444, SLAB_CONSISTENCY_CHECKS },
	[D_SHRINK] = { "shrink", 0200 },
	[D_VALIDATE] = { "validate", 0600 },
	[D_FAIL_SLAB_EVERY] = { "fail_slab_every", 0644 },
	[D_OBJECTS_PARTIAL] = { "objects_partial", 0444 },
	[D_ALIASES] = { "aliases", 0444 },
	[D_HWCACHE_ALIGN] = { "hwcache_align", 0444, SLAB_HWCACHE_ALIGN },
	[D_RECLAIM_ACCOUNT] = { "reclaim_account", 0444, SLAB_RECLAIM_ACCOUNT },
	[D_DESTROY_BY_RCU] = { "destroy_by_rcu", 0444, SLAB_TYPESAFE_BY_RCU },
	[D_STORE_USER] = { "store_user", 0444, SLAB_STORE_USER },
	[D_TRACE] = { "trace", 0444, SLAB_TRACE },
	/* SLUB has it with CONFIG_ZONE_DMA only */
	[D_CACHE_DMA] = { "cache_dma", 0444, SLAB_CACHE_DMA },
};

struct slablab_dbg_file {
	struct slablab_cache *s;
	int attr;
};

static void show_stat(struct seq_file *m, struct slablab_cache *s, int item)
{
	int cpu;

	seq_printf(m, "%llu", slablab_stat_sum(s, item));
	for_each_possible_cpu(cpu) {
		u64 v = slablab_stat_cpu(s, cpu, item);

		if (v)
			seq_printf(m, " C%d=%llu", cpu, v);
	}
	seq_putc(m, '\n');
}

/*
 * The SLAB_* flags SLUB would have for what a cache's flags ask (slablab_slub_flags()).
 * SLUB keeps SLAB_POISON in s->flags for a cache with a constructor too
 * (calculate_sizes() drops only __OBJECT_POISON, the poisoning of the object itself,
 * and poison_show() prints SLAB_POISON), so it is set for every debug cache, as
 * slablab too poisons only the objects of a cache without one. typesafe_by_rcu is
 * SLAB_TYPESAFE_BY_RCU (destroy_by_rcu). slablab has no reclaim accounting, DMA
 * slabs, owner tracking or tracing: their flags are never set.
 */
static slab_flags_t slub_flags(struct slablab_cache *s)
{
	return slablab_slub_flags(s->flags);
}

/*
 * objects_partial as SLUB's show_slab_objects(SO_PARTIAL | SO_OBJECTS): the objects in
 * use on the slabs that are not full (slablab_backend_objects_partial()), then with
 * CONFIG_NUMA " N<node>=<objects>" for each node that has any. The back end walks the
 * slabs in batches under slabs_lock (the file is world-readable: no long irqs-off
 * hold) and wants slablab_mutex held, so that no other walk moves slabs under it.
 */
static int show_objects_partial(struct seq_file *m, struct slablab_cache *s)
{
	u64 total = 0, *nodes;
	int nid;

	nodes = kcalloc(nr_node_ids, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	mutex_lock(&slablab_mutex);
	if (!s->dead)
		total = slablab_backend_objects_partial(s, nodes);
	mutex_unlock(&slablab_mutex);
	seq_printf(m, "%llu", total);
	if (IS_ENABLED(CONFIG_NUMA))
		for (nid = 0; nid < nr_node_ids; nid++)
			if (nodes[nid])
				seq_printf(m, " N%d=%llu", nid, nodes[nid]);
	seq_putc(m, '\n');
	kfree(nodes);
	return 0;
}

static void show_tunable(struct seq_file *m, struct slablab_cache *s,
			 const struct slablab_tunable *t)
{
	unsigned int v = slablab_tunable_get(s, t);

	if (t->names && v < t->nr_names && t->names[v])
		seq_printf(m, "%s\n", t->names[v]);
	else
		seq_printf(m, "%u\n", v);
}

static void show_validate(struct seq_file *m, struct slablab_cache *s)
{
	struct slablab_validate_report *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return;
	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	if (!s->dead)
		slablab_validate(s, r);
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	seq_printf(m, "slabs %llu objects %llu free %llu errors %u%s%s\n", r->slabs,
		   r->objects, r->free_objects, r->errors, r->errors ? ": " : "",
		   r->first_error);
	kfree(r);
}

static int slablab_dbg_show(struct seq_file *m, void *v)
{
	struct slablab_dbg_file *f = m->private;
	struct slablab_cache *s = f->s;
	struct slablab_gauges g;
	u32 objs, pslabs, pobjs, tot_slabs = 0, tot_objs = 0;
	int cpu, nid;

	if (f->attr >= D_STAT_FIRST) {
		show_stat(m, s, f->attr - D_STAT_FIRST);
		return 0;
	}
	if (f->attr >= D_TUNABLE_FIRST) {
		show_tunable(m, s, &slablab_tunables[f->attr - D_TUNABLE_FIRST]);
		return 0;
	}
	if (dbg_files[f->attr].flag) {
		seq_printf(m, "%d\n", !!(slub_flags(s) & dbg_files[f->attr].flag));
		return 0;
	}
	slablab_gauges(s, &g);
	switch (f->attr) {
	case D_OBJECT_SIZE:
		seq_printf(m, "%u\n", s->object_size);
		break;
	case D_SLAB_SIZE:
		seq_printf(m, "%u\n", s->stride);
		break;
	case D_OBJS_PER_SLAB:
		seq_printf(m, "%u\n", slablab_cache_objs(s, READ_ONCE(s->order)));
		break;
	case D_ORDER_DEFAULT:
		seq_printf(m, "%u\n", READ_ONCE(s->order_default));
		break;
	case D_ORDER_REASON: {
		/* a max_order change chooses again on a cache in use: a whole choice */
		struct slablab_order_choice oc;

		mutex_lock(&slablab_mutex);
		oc = s->order_choice;
		mutex_unlock(&slablab_mutex);
		seq_printf(m, "%s min_objects=%u leftover<=1/%u\n", order_reasons[oc.reason],
			   oc.min_objects, oc.fraction);
		break;
	}
	case D_OBJECTS:
		seq_printf(m, "%llu\n", g.objects);
		break;
	case D_TOTAL_OBJECTS:
		seq_printf(m, "%llu\n", g.total_objects);
		break;
	case D_SLABS:
		seq_printf(m, "%llu\n", g.slabs);
		break;
	case D_PARTIAL:
		seq_printf(m, "%llu", g.partial_slabs);
		/* SLUB prints the per-node figures with CONFIG_NUMA only */
		if (IS_ENABLED(CONFIG_NUMA))
			for_each_node(nid)
				if (READ_ONCE(s->node[nid]->nr_partial))
					seq_printf(m, " N%d=%lu", nid,
						   READ_ONCE(s->node[nid]->nr_partial));
		seq_putc(m, '\n');
		break;
	case D_CPU_SLABS:
		/*
		 * SLUB's show_slab_objects(SO_CPU): each cpu's slab and, only where it
		 * has one, its cpu partial slabs.
		 */
		seq_printf(m, "%llu\n", g.cpu_slabs + g.cpu_partial_slabs_of_cpu_slabs);
		break;
	case D_SLABS_CPU_PARTIAL:
		for_each_possible_cpu(cpu) {
			slablab_cpu_view(s, cpu, &objs, &pslabs, &pobjs);
			tot_slabs += pslabs;
			tot_objs += pobjs;
		}
		seq_printf(m, "%u(%u)", tot_objs, tot_slabs);
		for_each_possible_cpu(cpu) {
			slablab_cpu_view(s, cpu, &objs, &pslabs, &pobjs);
			if (pslabs)
				seq_printf(m, " C%d=%u(%u)", cpu, pobjs, pslabs);
		}
		seq_putc(m, '\n');
		break;
	case D_ALIGN:
		seq_printf(m, "%u\n", s->align);
		break;
	case D_FLAGS:
		seq_printf(m, "%#x\n", s->flags);
		break;
	case D_OWNER:
		seq_printf(m, "%s\n", s->owner == SLABLAB_OWNER_NETLINK ? "netlink" :
			   s->owner == SLABLAB_OWNER_KMALLOC ? "kmalloc" : "kernel");
		break;
	case D_PAGES:
		seq_printf(m, "%llu\n", g.pages);
		break;
	case D_LIVE_BYTES:
		seq_printf(m, "%llu\n", g.live_bytes);
		break;
	case D_META_BYTES:
		seq_printf(m, "%llu\n", g.meta_bytes);
		break;
	case D_OBJECTS_PARTIAL:
		return show_objects_partial(m, s);
	case D_ALIASES:
		seq_puts(m, "0\n");	/* slablab merges no caches */
		break;
	case D_VALIDATE:
		show_validate(m, s);
		break;
	case D_FAIL_SLAB_EVERY:
		seq_printf(m, "%u\n", READ_ONCE(s->fail_slab_every));
		break;
	}
	return 0;
}

static int slablab_dbg_open(struct inode *inode, struct file *file)
{
	return single_open(file, slablab_dbg_show, inode->i_private);
}

/* A word written to a file, without surrounding white space, into @buf of @size. */
static int copy_word(char *buf, size_t size, const char __user *ubuf, size_t len)
{
	char *word;

	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	word = strim(buf);
	memmove(buf, word, strlen(word) + 1);
	return 0;
}

static int parse_name(const char __user *ubuf, size_t len, const char *const *names,
		      int n)
{
	char buf[16];
	int i, err;

	err = copy_word(buf, sizeof(buf), ubuf, len);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(buf, names[i]))
			return i;
	return -EINVAL;
}

static ssize_t slablab_dbg_write(struct file *file, const char __user *ubuf, size_t len,
				 loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct slablab_dbg_file *f = m->private;
	const struct slablab_tunable *t;
	struct slablab_cache *s = f->s;
	unsigned int val = 0;
	int err = 0;

	if (f->attr >= D_TUNABLE_FIRST && f->attr < D_STAT_FIRST &&
	    slablab_tunables[f->attr - D_TUNABLE_FIRST].names) {
		t = &slablab_tunables[f->attr - D_TUNABLE_FIRST];
		err = parse_name(ubuf, len, t->names, t->nr_names);
		if (err < 0)
			return err;
		val = err;
		err = 0;
	} else {
		err = kstrtouint_from_user(ubuf, len, 0, &val);
		if (err)
			return err;
	}
	if (f->attr >= D_STAT_FIRST && val)
		return -EINVAL;	/* like SLUB: only 0 (reset) may be written */

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	if (s->dead) {
		err = -ENOENT;
		goto out;
	}
	if (f->attr >= D_STAT_FIRST) {
		slablab_stat_reset(s, f->attr - D_STAT_FIRST);
		goto out;
	}
	if (f->attr >= D_TUNABLE_FIRST) {
		err = slablab_tunable_set(s, f->attr - D_TUNABLE_FIRST, val, NULL);
		goto out;
	}
	switch (f->attr) {
	case D_FAIL_SLAB_EVERY:
		err = slablab_set_fail_slab_every(s, val, NULL);
		break;
	case D_SHRINK:
		if (val != 1)
			err = -EINVAL;
		else
			slablab_shrink_locked(s);
		break;
	case D_VALIDATE: {
		struct slablab_validate_report *r;

		if (val != 1) {
			err = -EINVAL;
			break;
		}
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		slablab_validate(s, r);
		pr_info("validate %s: %llu slabs, %llu objects, %llu free, %u errors\n",
			s->name, r->slabs, r->objects, r->free_objects, r->errors);
		kfree(r);
		break;
	}
	default:
		err = -EPERM;
	}
out:
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	return err ? err : len;
}

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

static const struct file_operations slablab_dbg_fops = {
	.owner = THIS_MODULE,
	.open = slablab_dbg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = slablab_dbg_write,
	.release = single_release,
};

static void slablab_debugfs_add_cache(struct slablab_cache *s)
{
	struct slablab_dbg_file *files;
	struct dentry *dir;
	int i;

	files = kcalloc(D_STAT_FIRST + __SLABLAB_STAT_MAX, sizeof(*files), GFP_KERNEL);
	if (!files)
		return;	/* debugfs is a convenience: the cache works without it */
	dir = debugfs_create_dir(s->name, slablab_debugfs_caches);
	for (i = 0; i < D_STAT_FIRST + __SLABLAB_STAT_MAX; i++) {
		files[i].s = s;
		files[i].attr = i;
		if (i == D_CACHE_DMA && !IS_ENABLED(CONFIG_ZONE_DMA))
			continue;
		if (i < D_NR) {
			debugfs_create_file(dbg_files[i].name, dbg_files[i].mode, dir, &files[i],
					    &slablab_dbg_fops);
		} else if (i < D_STAT_FIRST) {
			if (!slablab_tunables[i - D_TUNABLE_FIRST].is_flags)
				debugfs_create_file(slablab_tunables[i - D_TUNABLE_FIRST].name,
						    0644, dir, &files[i], &slablab_dbg_fops);
		} else {
			debugfs_create_file(stat_names[i - D_STAT_FIRST], 0644, dir, &files[i],
					    &slablab_dbg_fops);
		}
	}
	if (slablab_selftests) {
		debugfs_create_file("selftest", 0200, dir, s, &slablab_selftest_fops);
		/* the slab design's acquisitions of its cpu lock; write 0: reset */
		debugfs_create_atomic_t("selftest_cpu_locks", 0600, dir, &s->selftest_cpu_locks);
		debugfs_create_file("selftest_new_slab_gfp", 0400, dir, s,
				    &slablab_selftest_gfp_fops);
		debugfs_create_file("selftest_partial", 0400, dir, s,
				    &slablab_selftest_partial_fops);
	}
	s->debugfs = dir;
	s->debugfs_priv = files;
}

static void slablab_debugfs_remove_cache(struct slablab_cache *s)
{
	debugfs_remove_recursive(s->debugfs);
	s->debugfs = NULL;
	kfree(s->debugfs_priv);
	s->debugfs_priv = NULL;
}

/* cache.c tells us of every cache made (slablab_mutex held) and freed (no lock). */
static const struct slablab_cache_observer slablab_debugfs_observer = {
	.added = slablab_debugfs_add_cache,
	.released = slablab_debugfs_remove_cache,
};

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

static int slablab_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s api %d\n", SLABLAB_VERSION, SLABLAB_GENL_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slablab_version);

static int slablab_policy_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", page_policy_names[READ_ONCE(slablab_page_policy)]);
	return 0;
}

static int slablab_policy_open(struct inode *inode, struct file *file)
{
	return single_open(file, slablab_policy_show, NULL);
}

static ssize_t slablab_policy_write(struct file *file, const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	int p = parse_name(ubuf, len, page_policy_names, __SLABLAB_PAGE_POLICY_MAX);

	if (p < 0)
		return p;
	WRITE_ONCE(slablab_page_policy, p);
	return len;
}

static const struct file_operations slablab_policy_fops = {
	.owner = THIS_MODULE,
	.open = slablab_policy_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = slablab_policy_write,
	.release = single_release,
};

/* The kmalloc classes' design and lists (read-only: lab-set changes them, with checks). */
static int slablab_kmalloc_design_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s lists %u\n", slablab_design_names[READ_ONCE(slablab_kmalloc_design)],
		   READ_ONCE(slablab_kmalloc_lists));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slablab_kmalloc_design);

/* The slob design's heap, shared by every slob cache (and kmalloc on slob). */
static int slablab_slob_heap_show(struct seq_file *m, void *v)
{
	slablab_heap_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(slablab_slob_heap);

int slablab_debugfs_init(void)
{
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(stat_names) != __SLABLAB_STAT_MAX);
	for (i = 0; i < ARRAY_SIZE(stat_names); i++) {
		if (WARN(!stat_names[i], "slablab: stat item %d has no debugfs name\n", i))
			return -EINVAL;
	}
	slablab_debugfs_root = debugfs_create_dir("slablab", NULL);
	slablab_debugfs_caches = debugfs_create_dir("caches", slablab_debugfs_root);
	debugfs_create_file("version", 0444, slablab_debugfs_root, NULL, &slablab_version_fops);
	debugfs_create_file("kmalloc_page_policy", 0644, slablab_debugfs_root, NULL,
			    &slablab_policy_fops);
	debugfs_create_file("kmalloc_design", 0444, slablab_debugfs_root, NULL,
			    &slablab_kmalloc_design_fops);
	debugfs_create_file("slob_heap", 0444, slablab_debugfs_root, NULL,
			    &slablab_slob_heap_fops);
	if (slablab_selftests) {
		debugfs_create_file("selftest_kernel_cache", 0200, slablab_debugfs_root, NULL,
				    &slablab_selftest_kernel_fops);
		debugfs_create_file("selftest_warn", 0200, slablab_debugfs_root, NULL,
				    &slablab_selftest_warn_fops);
		debugfs_create_file("selftest_native_sysfs", 0200, slablab_debugfs_root, NULL,
				    &slablab_selftest_sysfs_fops);
		/* the next N freelist sequences fail to allocate (backend.c) */
		debugfs_create_atomic_t("selftest_fail_random_seq", 0600, slablab_debugfs_root,
					&slablab_fail_random_seq);
		/* the next N sheaf allocations fail (design_sheaves.c) */
		debugfs_create_atomic_t("selftest_fail_sheaf_alloc", 0600, slablab_debugfs_root,
					&slablab_fail_sheaf_alloc);
		/* the Nth freelist sequence, or sheaf, from now fails, once (backend.c) */
		debugfs_create_atomic_t("selftest_fail_random_seq_nth", 0600,
					slablab_debugfs_root, &slablab_fail_random_seq_nth);
		debugfs_create_atomic_t("selftest_fail_sheaf_alloc_nth", 0600,
					slablab_debugfs_root, &slablab_fail_sheaf_alloc_nth);
		/* the next N new slabs that may not reclaim fail (backend.c) */
		debugfs_create_atomic_t("selftest_fail_atomic_slabs", 0600, slablab_debugfs_root,
					&slablab_fail_atomic_slabs);
		/* caches/<name>/selftest_cpu_locks counts from now on (design_slab.c) */
		static_branch_enable(&slablab_count_cpu_locks);
		/* the longest irqs-off hold of a layers/occupancy walk; write 0: reset */
		debugfs_create_u64("selftest_walk_irqoff_ns", 0600, slablab_debugfs_root,
				   &slablab_walk_irqoff_max_ns);
		debugfs_create_u64("selftest_walk_irqoff_slabs", 0600, slablab_debugfs_root,
				   &slablab_walk_irqoff_max_slabs);
		/* at most N per-cpu entries per dump message (0: as many as fit) */
		debugfs_create_u32("selftest_dump_percpu_max", 0600, slablab_debugfs_root,
				   &slablab_selftest_dump_percpu_max);
	}
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	/* a convenience like the rest: new slabs just never fail where it is missing */
	if (IS_ERR(fault_create_debugfs_attr("fail_new_slab", slablab_debugfs_root,
					     &slablab_fail_new_slab)))
		pr_warn("no debugfs slablab/fail_new_slab: fault injection unavailable\n");
#endif
	slablab_set_cache_observer(&slablab_debugfs_observer);
	return 0;
}

void slablab_debugfs_exit(void)
{
	slablab_set_cache_observer(NULL);
	debugfs_remove_recursive(slablab_debugfs_root);
}
