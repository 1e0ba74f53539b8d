// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs mirror of slablab's state: /sys/kernel/debug/slablab/caches/<name>/ holds
 * files named and formatted like /sys/kernel/slab/<cache>/ (values; stat files as
 * "SUM C0=n C1=m"; writing 0 to a stat file resets it), so tools written for
 * /sys/kernel/slab read a slablab cache directory unchanged. Netlink stays the stable
 * interface; this is the convenient one for people and shell scripts.
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
#include "internal.h"

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

static const char *const fastpath_names[__SLABLAB_FASTPATH_MAX] = {
	[SLABLAB_FASTPATH_CMPXCHG] = "cmpxchg",
	[SLABLAB_FASTPATH_IRQOFF] = "irqoff",
};

static const char *const page_policy_names[__SLABLAB_PAGE_POLICY_MAX] = {
	[SLABLAB_PAGE_POLICY_SLAB] = "slab",
	[SLABLAB_PAGE_POLICY_PAGE_ALLOC] = "page_alloc",
};

static const char *const order_reasons[] = {
	[SLABLAB_ORDER_FIT] = "fit",
	[SLABLAB_ORDER_FEWER_OBJECTS] = "fewer_objects",
	[SLABLAB_ORDER_ONE_OBJECT] = "one_object",
	[SLABLAB_ORDER_TOO_BIG] = "too_big",
};

enum dbg_attr {
	D_OBJECT_SIZE, D_SLAB_SIZE, D_OBJS_PER_SLAB, D_ORDER, D_ORDER_DEFAULT, D_ORDER_REASON,
	D_OBJECTS, D_TOTAL_OBJECTS, D_SLABS, D_PARTIAL, D_CPU_SLABS, D_SLABS_CPU_PARTIAL,
	D_CPU_PARTIAL, D_MIN_PARTIAL, D_ALIGN, D_FASTPATH, D_FLAGS, D_OWNER, D_PAGES,
	D_LIVE_BYTES, D_META_BYTES, D_POISON, D_RED_ZONE, D_SANITY_CHECKS, D_SHRINK,
	D_VALIDATE, D_FAIL_SLAB_EVERY,
	D_NR,
	D_STAT_FIRST = D_NR,	/* then one per enum slablab_stat_item */
};

static const struct {
	const char *name;
	umode_t mode;
} dbg_files[D_NR] = {
	[D_OBJECT_SIZE] = { "object_size", 0444 },
	[D_SLAB_SIZE] = { "slab_size", 0444 },
	[D_OBJS_PER_SLAB] = { "objs_per_slab", 0444 },
	[D_ORDER] = { "order", 0644 },
	[D_ORDER_DEFAULT] = { "order_default", 0444 },
	[D_ORDER_REASON] = { "order_reason", 0444 },
	[D_OBJECTS] = { "objects", 0444 },
	[D_TOTAL_OBJECTS] = { "total_objects", 0444 },
	[D_SLABS] = { "slabs", 0444 },
	[D_PARTIAL] = { "partial", 0444 },
	[D_CPU_SLABS] = { "cpu_slabs", 0444 },
	[D_SLABS_CPU_PARTIAL] = { "slabs_cpu_partial", 0444 },
	[D_CPU_PARTIAL] = { "cpu_partial", 0644 },
	[D_MIN_PARTIAL] = { "min_partial", 0644 },
	[D_ALIGN] = { "align", 0444 },
	[D_FASTPATH] = { "fastpath", 0644 },
	[D_FLAGS] = { "flags", 0444 },
	[D_OWNER] = { "owner", 0444 },
	[D_PAGES] = { "pages", 0444 },
	[D_LIVE_BYTES] = { "live_bytes", 0444 },
	[D_META_BYTES] = { "meta_bytes", 0444 },
	[D_POISON] = { "poison", 0444 },
	[D_RED_ZONE] = { "red_zone", 0444 },
	[D_SANITY_CHECKS] = { "sanity_checks", 0444 },
	[D_SHRINK] = { "shrink", 0200 },
	[D_VALIDATE] = { "validate", 0600 },
	[D_FAIL_SLAB_EVERY] = { "fail_slab_every", 0644 },
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
	bool debug = s->flags & SLABLAB_CACHE_F_DEBUG;
	u32 objs, pslabs, pobjs, tot_slabs = 0, tot_objs = 0;
	int cpu, nid;

	if (f->attr >= D_STAT_FIRST) {
		show_stat(m, s, f->attr - D_STAT_FIRST);
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
		seq_printf(m, "%u\n", slablab_objs_per_slab(READ_ONCE(s->order), s->stride,
							    PAGE_SIZE));
		break;
	case D_ORDER:
		seq_printf(m, "%u\n", READ_ONCE(s->order));
		break;
	case D_ORDER_DEFAULT:
		seq_printf(m, "%u\n", s->order_default);
		break;
	case D_ORDER_REASON:
		seq_printf(m, "%s min_objects=%u leftover<=1/%u\n",
			   order_reasons[s->order_choice.reason], s->order_choice.min_objects,
			   s->order_choice.fraction);
		break;
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
		for_each_node(nid)
			if (READ_ONCE(s->node[nid]->nr_partial))
				seq_printf(m, " N%d=%lu", nid, READ_ONCE(s->node[nid]->nr_partial));
		seq_putc(m, '\n');
		break;
	case D_CPU_SLABS:
		seq_printf(m, "%llu\n", g.cpu_slabs);
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
	case D_CPU_PARTIAL:
		seq_printf(m, "%u\n", READ_ONCE(s->cpu_partial));
		break;
	case D_MIN_PARTIAL:
		seq_printf(m, "%u\n", READ_ONCE(s->min_partial));
		break;
	case D_ALIGN:
		seq_printf(m, "%u\n", s->align);
		break;
	case D_FASTPATH:
		seq_printf(m, "%s\n", fastpath_names[READ_ONCE(s->fastpath)]);
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
	case D_POISON:
		seq_printf(m, "%d\n", debug && !s->ctor);
		break;
	case D_RED_ZONE:
	case D_SANITY_CHECKS:
		seq_printf(m, "%d\n", debug);
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

static int parse_name(const char __user *ubuf, size_t len, const char *const *names,
		      int n)
{
	char buf[16];
	int i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	strim(buf);
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
	struct slablab_cache *s = f->s;
	unsigned int val = 0;
	int err = 0;

	if (f->attr == D_FASTPATH) {
		err = parse_name(ubuf, len, fastpath_names, __SLABLAB_FASTPATH_MAX);
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
	switch (f->attr) {
	case D_ORDER:
		err = slablab_set_order(s, val, NULL);
		break;
	case D_CPU_PARTIAL:
		err = slablab_set_cpu_partial(s, val, NULL);
		break;
	case D_MIN_PARTIAL:
		err = slablab_set_min_partial(s, val, NULL);
		break;
	case D_FASTPATH:
		err = slablab_set_fastpath(s, val, NULL);
		break;
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
 * Test hooks (selftests=1 only): make the corruption the debug checks must catch.
 * Each runs with preemption off so the object comes back from this cpu's freelist.
 */
static ssize_t slablab_selftest_write(struct file *file, const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	static const char *const ops[] = { "double_free", "use_after_free", "overflow",
					   "hold", "release", "fastpath_race" };
	struct slablab_cache *s = file_inode(file)->i_private;
	int op = parse_name(ubuf, len, ops, ARRAY_SIZE(ops));
	u8 *obj, *again;
	int err = 0;

	if (op < 0)
		return op;
	if (op == 5) {
		/*
		 * The cmpxchg fast path loses its cpu slab to a flush mid-allocation. Not
		 * under slablab_mutex: arming the hook's static key takes cpus_read_lock.
		 */
		err = slablab_selftest_fastpath_race(s);
		return err ? err : len;
	}
	/* The others allocate: never from a cache a destroy is discarding (->dead). */
	mutex_lock(&slablab_mutex);
	if (s->dead) {
		err = -ENOENT;
		goto out;
	}
	if (op == 3) {
		/* hold one object, as another kernel user of the cache would */
		obj = slablab_cache_alloc(s, GFP_KERNEL);
		if (!obj) {
			err = -ENOMEM;
		} else if (s->selftest_obj) {
			slablab_cache_free(s, obj);
			err = -EBUSY;
		} else {
			s->selftest_obj = obj;
		}
		goto out;
	}
	if (op == 4) {
		obj = s->selftest_obj;
		s->selftest_obj = NULL;
		if (obj)
			slablab_cache_free(s, obj);
		else
			err = -ENOENT;
		goto out;
	}
	if (!(s->flags & SLABLAB_CACHE_F_DEBUG) || s->ctor) {
		err = -EINVAL;	/* without debug checks this would corrupt the cache */
		goto out;
	}
	preempt_disable();
	obj = slablab_cache_alloc(s, GFP_ATOMIC);
	if (!obj) {
		preempt_enable();
		err = -ENOMEM;
		goto out;
	}
	switch (op) {
	case 0:
		slablab_cache_free(s, obj);
		slablab_cache_free(s, obj);
		break;
	case 1:
		slablab_cache_free(s, obj);
		obj[0] = 0x42;
		again = slablab_cache_alloc(s, GFP_ATOMIC);
		slablab_cache_free(s, again);
		break;
	case 2:
		obj[s->object_size] = 0x42;
		slablab_cache_free(s, obj);
		break;
	}
	preempt_enable();
out:
	mutex_unlock(&slablab_mutex);
	return err ? err : len;
}

static const struct file_operations slablab_selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = slablab_selftest_write,
	.llseek = noop_llseek,
};

static const struct file_operations slablab_dbg_fops = {
	.owner = THIS_MODULE,
	.open = slablab_dbg_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = slablab_dbg_write,
	.release = single_release,
};

void slablab_debugfs_add_cache(struct slablab_cache *s)
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
		if (i < D_NR)
			debugfs_create_file(dbg_files[i].name, dbg_files[i].mode, dir, &files[i],
					    &slablab_dbg_fops);
		else
			debugfs_create_file(stat_names[i - D_STAT_FIRST], 0644, dir, &files[i],
					    &slablab_dbg_fops);
	}
	if (slablab_selftests)
		debugfs_create_file("selftest", 0200, dir, s, &slablab_selftest_fops);
	s->debugfs = dir;
	s->debugfs_priv = files;
}

void slablab_debugfs_remove_cache(struct slablab_cache *s)
{
	debugfs_remove_recursive(s->debugfs);
	s->debugfs = NULL;
	kfree(s->debugfs_priv);
	s->debugfs_priv = NULL;
}

/*
 * Test hook (selftests=1 only): selftest_kernel_cache makes ("create") or destroys
 * ("destroy") the cache "selftest-kernel" through slablab_cache_create() and
 * slablab_cache_destroy(), as another kernel module would: owner "kernel". Its mutex
 * is taken before slab.c's locks.
 */
static DEFINE_MUTEX(selftest_kernel_lock);
static struct slablab_cache *selftest_kernel_cache;

static ssize_t slablab_selftest_kernel_write(struct file *file, const char __user *ubuf,
					     size_t len, loff_t *ppos)
{
	static const char *const ops[] = { "create", "destroy" };
	int op = parse_name(ubuf, len, ops, ARRAY_SIZE(ops)), err = 0;

	if (op < 0)
		return op;
	mutex_lock(&selftest_kernel_lock);
	if (!op && !selftest_kernel_cache) {
		selftest_kernel_cache = slablab_cache_create("selftest-kernel", 64, 0, 0, NULL);
		err = selftest_kernel_cache ? 0 : -ENOMEM;
	} else if (op && selftest_kernel_cache) {
		err = slablab_cache_destroy(selftest_kernel_cache);
		if (!err)
			selftest_kernel_cache = NULL;
	} else {
		err = op ? -ENOENT : -EEXIST;
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
	if (slablab_selftests)
		debugfs_create_file("selftest_kernel_cache", 0200, slablab_debugfs_root, NULL,
				    &slablab_selftest_kernel_fops);
	return 0;
}

void slablab_debugfs_exit(void)
{
	debugfs_remove_recursive(slablab_debugfs_root);
}
