// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs mirror of slablab's state: /sys/kernel/debug/slablab/caches/<name>/ holds
 * files named and formatted like /sys/kernel/slab/<cache>/ (values; stat files as
 * "SUM C0=n C1=m"; writing 0 to a stat file resets it), so tools written for
 * /sys/kernel/slab read a slablab cache directory unchanged. Netlink stays the stable
 * interface; this is the convenient one for people and shell scripts, and the home of
 * the test hooks, which are no part of the netlink ABI: caches/<name>/fail_slab_every
 * (fault injection on any kernel), fail_new_slab/ (the kernel's fault_attr, where it
 * has CONFIG_FAULT_INJECTION_DEBUG_FS) and, with selftests=1 only, the selftest_* files
 * of slablab/ and of each cache's directory, which selftest.c adds to the directories
 * made here (debugfs.h); selftest.c's top lists them.
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
 *
 * Locking: no lock of its own. Writes and validate take cpus_read_lock, then
 * slablab_mutex (cache.c's order); objects_partial and order_reason take slablab_mutex
 * alone; the other files read without either, as SLUB's sysfs files do. A new cache's
 * files are made with slablab_mutex held (cache.c's observer), and removed without it.
 * The test hooks' locks: selftest.c's top.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/fault-inject.h>
#include "debugfs.h"
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
	if (slablab_selftests)
		slablab_selftest_debugfs_add_cache(s, dir);
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
	if (slablab_selftests)
		slablab_selftest_debugfs_init(slablab_debugfs_root);
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
