// SPDX-License-Identifier: GPL-2.0
/*
 * The target layer's out-of-line half (target.h has the inline dispatch): a target's
 * caches and their tear-down, the pages it holds (one measurement for storms and
 * replays, slablab's gauges or the kernel's own figures), and the engines' per-cpu
 * kthreads. It calls only the allocator (cache.c, kmalloc.c).
 *
 * The native figures are read from files: a native cache's pages are the kernel's own
 * SLUB figures in /sys/kernel/slab/<cache>/ (or its SLAB /proc/slabinfo row), so a
 * storm's or a replay's pages are its caches' alone, never the rest of the system's.
 * So the caches are made unmergeable (slablab_target_native_create()), and a target
 * whose cache's sysfs entry is a link all the same (a merged cache's alias) is refused.
 * The directories are looked up by the engine's starting caller
 * (slablab_target_figures_check()) and the files opened relative to them: the engines'
 * kthreads read them too, and on 7.3 a kthread's own lookup of /sys/kernel/slab/...
 * finds nothing (-ENOENT; its root is not the caller's). A reading costs two files per
 * cache of a file opened once (SYSFS) or one read of /proc/slabinfo (SLABINFO).
 *
 * Locking (outermost first):
 *   the engine's       storm_mutex, replay_mutex: a target's set-up and tear-down
 *   cpu_hotplug_lock,  slablab_mutex: slablab_target_add_lab() and
 *                      slablab_target_collect_kmalloc() run under them (cache.c's list
 *                      and ->users: a destroy checks ->users under slablab_mutex);
 *                      slablab_target_release() takes them itself for owned caches and
 *                      kmem_cache_destroy() takes cpus_read_lock: call it holding neither.
 *                      Unpinning otherwise is atomic decrements, no lock.
 *   the engine's sample lock (storm's sample_lock), then
 *   nf.lock            SLABINFO's readings (a replay's kthreads sample at once, and the
 *                      buffer is one). SYSFS readings need none: each read of an open
 *                      kernfs file runs under its seq_file's lock, from position 0.
 *   target_root_lock   slablab_target_sysfs_root (a selftest hook changes it); a target
 *                      copies it at start. Takes nothing.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kthread.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/uio.h>
#include <linux/seq_file.h>
#include <linux/ctype.h>
#include "target.h"
#include "compat.h"

/* target_root_lock: slablab_target_sysfs_root (see above) */
static DEFINE_MUTEX(target_root_lock);
static char slablab_target_sysfs_root[64] = "/sys/kernel/slab";

/* The kernel's kmalloc classes that kmalloc(GFP_KERNEL) uses (native-kmalloc). */
static const char *const native_kmalloc_names[] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96", "kmalloc-128",
	"kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1k", "kmalloc-2k", "kmalloc-4k",
	"kmalloc-8k",
};

/**
 * slablab_target_init - an empty target of @kind
 * @tg: zeroed by the caller (it is part of a kzalloc()ed storm or replay)
 * @kind: enum slablab_target
 * @name: its native caches' name (see struct slablab_alloc_target): "slablab-native-ID"
 */
void slablab_target_init(struct slablab_alloc_target *tg, u32 kind, const char *name)
{
	tg->kind = kind;
	mutex_init(&tg->nf.lock);
	tg->lab = &tg->one_lab;
	tg->native = &tg->one_native;
	strscpy(tg->name, name, sizeof(tg->name));
}

/**
 * slablab_target_alloc_caches - room for @nr caches (1..@nr)
 * @tg: the target
 * @nr: how many; one needs no allocation
 *
 * Return: 0 or -ENOMEM.
 */
int slablab_target_alloc_caches(struct slablab_alloc_target *tg, u32 nr)
{
	tg->nr_caches = nr;
	if (nr <= 1)
		return 0;
	tg->lab = kcalloc(nr, sizeof(*tg->lab), GFP_KERNEL);
	tg->native = kcalloc(nr, sizeof(*tg->native), GFP_KERNEL);
	if (tg->lab && tg->native)
		return 0;
	kfree(tg->lab);
	kfree(tg->native);
	tg->lab = &tg->one_lab;
	tg->native = &tg->one_native;
	tg->nr_caches = 0;
	return -ENOMEM;
}

/**
 * slablab_target_add_lab - slablab cache @i of the target, pinned
 * @tg: the target
 * @i: from 0 (cache @i + 1 of the dispatch)
 * @s: the cache
 *
 * Every slablab cache a target holds has ->users raised from the moment it is added
 * until slablab_target_release(): it cannot be destroyed (-EBUSY) under the target.
 *
 * Context: slablab_mutex held (a destroy checks ->users under it).
 */
void slablab_target_add_lab(struct slablab_alloc_target *tg, u32 i, struct slablab_cache *s)
{
	lockdep_assert_held(&slablab_mutex);
	atomic_inc(&s->users);
	tg->lab[i] = s;
}

/**
 * slablab_target_collect_kmalloc - count slablab's kmalloc classes as the target's
 * @tg: a target whose allocations by size go to slablab_kmalloc()
 *
 * Pinned as slablab_target_add_lab() pins: their design cannot change
 * (slablab_set_kmalloc()) under the target.
 *
 * Context: slablab_mutex held.
 */
void slablab_target_collect_kmalloc(struct slablab_alloc_target *tg)
{
	struct slablab_cache *s;

	lockdep_assert_held(&slablab_mutex);
	list_for_each_entry(s, &slablab_caches, list) {
		if (s->owner != SLABLAB_OWNER_KMALLOC)
			continue;
		if (WARN_ON_ONCE(tg->nr_kmalloc_caches == SLABLAB_TARGET_MAX_KMALLOC))
			break;
		atomic_inc(&s->users);
		tg->kmalloc_caches[tg->nr_kmalloc_caches++] = s;
	}
}

/**
 * slablab_target_cache_name - the kernel name of native cache @i (from 0)
 * @tg: the target
 * @i: the cache, from 0 (cache @i + 1 of the dispatch)
 * @buf: filled in
 * @len: its size
 */
void slablab_target_cache_name(const struct slablab_alloc_target *tg, u32 i, char *buf,
			       size_t len)
{
	if (tg->nr_caches == 1)
		snprintf(buf, len, "%s", tg->name);
	else
		snprintf(buf, len, "%s-%u", tg->name, i);
}

static void target_class_name(const struct slablab_alloc_target *tg, unsigned int c, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%s-kmalloc-%u", tg->name, slablab_kmalloc_sizes[c]);
}

/**
 * slablab_target_native_create - a native target's kmem_cache, never merged
 * @name: its name (slablab_target_cache_name())
 * @size: the object size
 * @align: the alignment asked for (0: the minimum)
 * @flags: SLAB_* flags
 *
 * A cache SLUB merged with others (kmem_cache_create() without slab_nomerge, Debian's
 * default) would be an alias of a shared one: its sysfs entry a link to a directory
 * whose figures and counters are everyone's. SLABLAB_NO_MERGE keeps it apart where the
 * kernel has the flag, a usercopy window over the whole object (as the kmalloc-class
 * copies have) before; the layout is the same either way. Takes cpus_read_lock
 * (kmem_cache_create()): call it holding neither that nor slablab_mutex.
 *
 * Return: the cache, or NULL.
 */
struct kmem_cache *slablab_target_native_create(const char *name, unsigned int size,
						unsigned int align, slab_flags_t flags)
{
	return kmem_cache_create_usercopy(name, size, align, flags | SLABLAB_NO_MERGE, 0, size,
					  NULL);
}

/**
 * slablab_target_create_class - the native target's class for @size, made once
 * @tg: a native target
 * @size: 1..SLABLAB_KMALLOC_MAX
 *
 * Made as the kernel makes its kmalloc class (slablab_native_class_create()), named
 * NAME-kmalloc-SIZE. Takes cpus_read_lock (kmem_cache_create()): call it holding
 * neither that nor slablab_mutex.
 *
 * Return: the class, or NULL (no memory).
 */
struct kmem_cache *slablab_target_create_class(struct slablab_alloc_target *tg, u32 size)
{
	unsigned int c = slablab_kmalloc_index(size);
	char name[sizeof(tg->name) + 16];

	if (!tg->classes[c]) {
		target_class_name(tg, c, name, sizeof(name));
		tg->classes[c] = slablab_native_class_create(name, slablab_kmalloc_sizes[c]);
	}
	return tg->classes[c];
}

/* SYSFS: the files sysfs_figures_open() opened. */
static void sysfs_figures_close(struct slablab_native_figures *nf)
{
	u32 i;

	for (i = 0; nf->figs && i < nf->nr_figs; i++)
		if (nf->figs[i].slabs)
			fput(nf->figs[i].slabs);	/* never in an fd table */
	kfree(nf->figs);
	nf->figs = NULL;
	nf->nr_figs = 0;
}

/*
 * The target's own slablab caches (a replay's), unpinned and destroyed in one section of
 * slablab_mutex, so that nobody destroys one in between (cache-del of replayN.M); one
 * that still holds objects is kept, and said. Released (freed) after the locks.
 */
static void target_destroy_owned(struct slablab_alloc_target *tg)
{
	unsigned int i;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	for (i = 0; i < tg->nr_caches; i++) {
		struct slablab_cache *s = tg->lab[i];

		if (!s)
			continue;
		atomic_dec(&s->users);
		if (slablab_cache_destroy_locked(s, NULL)) {
			pr_warn("cache %s still holds objects, kept\n", s->name);
			tg->lab[i] = NULL;
		}
	}
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
	for (i = 0; i < tg->nr_caches; i++) {
		if (tg->lab[i])
			slablab_cache_release(tg->lab[i]);
		tg->lab[i] = NULL;
	}
}

/**
 * slablab_target_release - give the target's caches back
 * @tg: the target; empty after, reusable by nothing
 * @owned: the slablab caches are the target's own (a replay's): destroyed
 *
 * Unpins the slablab caches and kmalloc classes (destroys owned caches), destroys the
 * native caches and classes and lets go of the figures' files and paths. Unpinning is
 * atomic decrements; only owned caches take the locks. Context: neither cpus_read_lock
 * nor slablab_mutex held.
 */
void slablab_target_release(struct slablab_alloc_target *tg, bool owned)
{
	unsigned int i;

	lockdep_assert_not_held(&slablab_mutex);
	if (owned)
		target_destroy_owned(tg);
	for (i = 0; i < tg->nr_kmalloc_caches; i++)
		atomic_dec(&tg->kmalloc_caches[i]->users);
	tg->nr_kmalloc_caches = 0;
	sysfs_figures_close(&tg->nf);
	for (i = 0; i < tg->nr_caches; i++) {
		if (tg->lab[i])
			atomic_dec(&tg->lab[i]->users);
		tg->lab[i] = NULL;
		kmem_cache_destroy(tg->native[i]);
		tg->native[i] = NULL;
	}
	for (i = 0; i < SLABLAB_KMALLOC_CLASSES; i++) {
		kmem_cache_destroy(tg->classes[i]);
		tg->classes[i] = NULL;
	}
	if (tg->lab != &tg->one_lab) {
		kfree(tg->lab);
		kfree(tg->native);
		tg->lab = &tg->one_lab;
		tg->native = &tg->one_native;
	}
	tg->nr_caches = 0;
	/* no sample reads the files any more: let the caller's mounts go with the target */
	path_put(&tg->nf.sysfs_dir);
	tg->nf.sysfs_dir = (struct path){};
	path_put(&tg->nf.proc_dir);
	tg->nf.proc_dir = (struct path){};
	kfree(tg->nf.buf);
	tg->nf.buf = NULL;
}

/**
 * slablab_target_empty - start the shared classes empty
 * @tg: the target
 *
 * So that runs are independent and pages are not undercounted by empty slabs an
 * earlier run left (they fill without taking a page): slablab's kmalloc classes are
 * emptied outright (every empty slab freed, min_partial not kept), the kernel's are
 * shrunk (native-kmalloc; their partial slabs hold the system's objects). Takes
 * cpus_read_lock and slablab_mutex: call it holding neither.
 */
void slablab_target_empty(struct slablab_alloc_target *tg)
{
	unsigned int i;

	for (i = 0; i < tg->nr_kmalloc_caches; i++)
		slablab_cache_empty(tg->kmalloc_caches[i]);
	if (tg->kind != SLABLAB_TARGET_NATIVE_KMALLOC)
		return;
	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		if (slablab_native_kmalloc_cache(i))
			kmem_cache_shrink(slablab_native_kmalloc_cache(i));
}

/**
 * slablab_target_shrink - give the empty slabs of the target's caches back
 * @tg: the target; the kernel's kmalloc classes (native-kmalloc) are not its to shrink
 *
 * Takes cpus_read_lock and slablab_mutex (slablab_cache_shrink(), kmem_cache_shrink()):
 * call it holding neither.
 */
void slablab_target_shrink(struct slablab_alloc_target *tg)
{
	unsigned int i;

	for (i = 0; i < tg->nr_caches; i++) {
		if (tg->lab[i])
			slablab_cache_shrink(tg->lab[i]);
		if (tg->native[i])
			kmem_cache_shrink(tg->native[i]);
	}
	for (i = 0; i < SLABLAB_KMALLOC_CLASSES; i++)
		if (tg->classes[i])
			kmem_cache_shrink(tg->classes[i]);
	for (i = 0; i < tg->nr_kmalloc_caches; i++)
		slablab_cache_shrink(tg->kmalloc_caches[i]);
}

/**
 * slablab_target_rcu_drain - wait until every object the target freed by RCU is freed
 * @tg: a slablab target
 *
 * Its caches' rcu_free sheaves handed on, rcu_barrier() until no batch or deferred slab
 * is left (slablab_rcu_drain()); with kmalloc classes also memory of no class. Takes
 * cpus_read_lock and slablab_mutex: call it holding neither.
 */
void slablab_target_rcu_drain(struct slablab_alloc_target *tg)
{
	unsigned int i;

	cpus_read_lock();
	mutex_lock(&slablab_mutex);
	for (i = 0; i < tg->nr_caches; i++)
		if (tg->lab[i])
			slablab_rcu_drain(tg->lab[i]);
	for (i = 0; i < tg->nr_kmalloc_caches; i++)
		slablab_rcu_drain(tg->kmalloc_caches[i]);
	if (tg->nr_kmalloc_caches)
		slablab_rcu_drain(NULL);	/* memory of no class */
	mutex_unlock(&slablab_mutex);
	cpus_read_unlock();
}

/* ---- the native figures ---- */

/*
 * The kernel's allocator, from its config (CONFIG_SLOB is gone in 6.4, CONFIG_SLAB in
 * 6.8: later kernels have SLUB alone). Not a probe of /sys or /proc: a SLUB kernel whose
 * sysfs cannot be read refuses the run (the selftest hook shows it).
 */
static u32 slablab_native_source(void)
{
	if (IS_ENABLED(CONFIG_SLAB))
		return SLABLAB_NATIVE_SLABINFO;
	if (IS_ENABLED(CONFIG_SLOB))
		return SLABLAB_NATIVE_SYSTEM;
	return SLABLAB_NATIVE_SYSFS;
}

/*
 * The kernel name of SYSFS figure @i of @tg into @buf: native-kmalloc's are the kernel's
 * kmalloc classes; a native target's its caches (0..nr_caches - 1), then its classes by
 * slablab_kmalloc_index(). False: no such cache (a class the target does not have).
 */
static bool target_fig_name(const struct slablab_alloc_target *tg, u32 i, char *buf,
			    size_t len)
{
	if (tg->kind == SLABLAB_TARGET_NATIVE_KMALLOC) {
		snprintf(buf, len, "%s", native_kmalloc_names[i]);
		return true;
	}
	if (i < tg->nr_caches) {
		slablab_target_cache_name(tg, i, buf, len);
		return tg->native[i];
	}
	i -= tg->nr_caches;
	target_class_name(tg, i, buf, len);
	return tg->classes[i];
}

/* The first number in @f, read from its start: a sysfs attribute is made on each read. */
static int read_file_u64(struct file *f, u64 *v)
{
	char buf[32] = "";
	loff_t pos = 0;
	ssize_t len;
	char *sp;

	len = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	if (len < 0)
		return len;
	sp = strchr(buf, ' ');
	if (sp)
		*sp = 0;
	return kstrtou64(strim(buf), 10, v) ? -EIO : 0;
}

/**
 * slablab_target_read_u64 - the first number in a file of the kernel's SLUB sysfs
 * @tg: a native target, its figures started
 * @name: the file, relative to /sys/kernel/slab ("CACHE/slabs")
 * @v: the number
 *
 * Return: 0, or the error of the open, the read or the parse (-EIO).
 */
int slablab_target_read_u64(struct slablab_alloc_target *tg, const char *name, u64 *v)
{
	struct file *f;
	int err;

	if (!tg->nf.sysfs_dir.dentry)
		return tg->nf.sysfs_dir_err ?: -ENOENT;
	f = file_open_root(&tg->nf.sysfs_dir, name, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = read_file_u64(f, v);
	filp_close(f, NULL);
	return err;
}

/*
 * SYSFS: is cache @name's entry a directory of its own (0)? A merged cache's is a link
 * to the directory of the cache it was merged into (SLUB's sysfs_slab_alias(); a
 * mergeable cache's first name is one too), whose figures count every cache merged
 * there: -ELOOP, as an open with O_NOFOLLOW says of a link.
 */
static int sysfs_entry_own(struct slablab_native_figures *nf, const char *name)
{
	struct file *f;
	bool link;

	f = file_open_root(&nf->sysfs_dir, name, O_PATH | O_NOFOLLOW, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	link = d_is_symlink(f->f_path.dentry);
	fput(f);
	return link ? -ELOOP : 0;
}

/*
 * SYSFS: open each cache's slabs file and read its order, once. A reading is then one
 * read per cache, no path walk: what a replay of ~70 caches can afford every few
 * thousand events (two opens a cache cost ~40 ms a sample under TCG). The order is
 * SLUB's at the start: a root who writes a native cache's order during the run makes
 * its new slabs count at the old one. On an error @path names the file.
 */
static int sysfs_figures_open(struct slablab_alloc_target *tg, char *path, size_t path_len)
{
	struct slablab_native_figures *nf = &tg->nf;
	char name[sizeof(tg->name) + 16];
	struct file *f;
	const char *file;
	u64 order;
	int err;
	u32 i;

	nf->nr_figs = tg->kind == SLABLAB_TARGET_NATIVE_KMALLOC ?
		      ARRAY_SIZE(native_kmalloc_names) : tg->nr_caches + SLABLAB_KMALLOC_CLASSES;
	nf->figs = kcalloc(nf->nr_figs, sizeof(*nf->figs), GFP_KERNEL);
	if (!nf->figs)
		return -ENOMEM;
	for (i = 0; i < nf->nr_figs; i++) {
		if (!target_fig_name(tg, i, name, sizeof(name)))
			continue;
		file = "slabs";
		snprintf(path, path_len, "%s/slabs", name);
		f = nf->sysfs_dir.dentry ? file_open_root(&nf->sysfs_dir, path, O_RDONLY, 0) :
					   ERR_PTR(nf->sysfs_dir_err ?: -ENOENT);
		err = PTR_ERR_OR_ZERO(f);
		if (!err) {
			file = "order";
			snprintf(path, path_len, "%s/order", name);
			err = slablab_target_read_u64(tg, path, &order);
			if (!err) {
				file = "";	/* its entry: a link is refused */
				err = sysfs_entry_own(nf, name);
			}
			if (err)
				fput(f);
		}
		if (err) {
			/* messages name the file whole (scnprintf(): the root is a test's) */
			scnprintf(path, path_len, "%s/%s%s%s", nf->sysfs_root, name,
				  *file ? "/" : "", file);
			return err;
		}
		nf->figs[i].slabs = f;
		nf->figs[i].order = order;
	}
	return 0;
}

/* SYSFS: the sum of slabs << order over the files opened at the start. */
static int sysfs_target_pages(struct slablab_alloc_target *tg, u64 *pages, char *path,
			      size_t path_len)
{
	struct slablab_native_figures *nf = &tg->nf;
	char name[sizeof(tg->name) + 16];
	u64 slabs;
	int err;
	u32 i;

	*pages = 0;
	for (i = 0; i < nf->nr_figs; i++) {
		if (!nf->figs[i].slabs)
			continue;
		err = read_file_u64(nf->figs[i].slabs, &slabs);
		if (err) {
			*pages = 0;
			target_fig_name(tg, i, name, sizeof(name));
			scnprintf(path, path_len, "%s/%s/slabs", nf->sysfs_root, name);
			return err;
		}
		*pages += slabs << nf->figs[i].order;
	}
	return 0;
}

/*
 * Look up what reading the native figures needs, in the engine's starting caller (see
 * the top): the sysfs directory and the SYSFS files, or /proc and SLABINFO's buffer.
 */
static int target_figures_start(struct slablab_alloc_target *tg, char *path, size_t path_len)
{
	struct slablab_native_figures *nf = &tg->nf;

	mutex_lock(&target_root_lock);
	strscpy(nf->sysfs_root, slablab_target_sysfs_root, sizeof(nf->sysfs_root));
	mutex_unlock(&target_root_lock);
	nf->src = slablab_native_source();
	snprintf(path, path_len, "memory");
	switch (nf->src) {
	case SLABLAB_NATIVE_SLABINFO:
		nf->buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!nf->buf)
			return -ENOMEM;
		nf->proc_dir_err = kern_path("/proc", LOOKUP_FOLLOW | LOOKUP_DIRECTORY,
					     &nf->proc_dir);
		return 0;
	case SLABLAB_NATIVE_SYSTEM:
		pr_info_once("native targets on SLOB: pages are the kernel's slab pages, whole-system, since the start (no cache has figures of its own)\n");
		return 0;
	default:
		/* a failed lookup leaves sysfs_dir empty: the first file names the error */
		nf->sysfs_dir_err = kern_path(nf->sysfs_root, LOOKUP_FOLLOW | LOOKUP_DIRECTORY,
					      &nf->sysfs_dir);
		return sysfs_figures_open(tg, path, path_len);
	}
}

/**
 * slablab_target_figures_check - start a native target's figures and read them once
 * @tg: the target (slablab ones: nothing to do), its caches made
 * @extack: names the file that cannot be read
 *
 * The figures are the kernel's own: a run whose files cannot be read (no SLUB sysfs, a
 * class this kernel lacks, no slabinfo row) is refused rather than report 0 pages.
 *
 * Return: 0, or the error of the lookup or of the first unreadable file.
 */
int slablab_target_figures_check(struct slablab_alloc_target *tg, struct netlink_ext_ack *extack)
{
	char path[128];
	u64 pages;
	int err;

	if (!slablab_target_is_native(tg->kind))
		return 0;
	err = target_figures_start(tg, path, sizeof(path));
	if (!err)
		err = slablab_target_native_pages(tg, &pages, path, sizeof(path));
	if (err == -ELOOP) {	/* a merged or mergeable cache's link (sysfs_entry_own()) */
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s: a merged cache's link (boot slab_nomerge)",
				       path);
		/* -ELOOP would read as "too many levels of symbolic links" */
		err = -EOPNOTSUPP;
	} else if (err)	/* the error is the reply's: the path alone fits 80 bytes */
		NL_SET_ERR_MSG_FMT_MOD(extack, "cannot read %s", path);
	return err;
}

/*
 * One /proc/slabinfo row: "name active_objs num_objs objsize objperslab pagesperslab
 * : tunables limit batchcount sharedfactor : slabdata active_slabs num_slabs
 * sharedavail" (slab_common.c's cache_show()). Is it a cache the target counts (NAME or
 * NAME-..., every one it made; the kernel's kmalloc-N for native-kmalloc)? Then *@pages
 * is its num_slabs * pagesperslab. The header lines match no cache.
 */
static bool slabinfo_row_pages(struct slablab_alloc_target *tg, const char *line, u64 *pages)
{
	char name[SLABLAB_NAME_MAX + 32];
	unsigned long long slabs;
	unsigned int per_slab;
	size_t n = strlen(tg->name);

	if (sscanf(line, "%55s %*u %*u %*u %*u %u : tunables %*u %*u %*u : slabdata %*u %llu",
		   name, &per_slab, &slabs) != 3)
		return false;
	if (tg->kind == SLABLAB_TARGET_NATIVE_KMALLOC) {
		/* kmalloc-cg-N, kmalloc-rcl-N, dma-kmalloc-N: not what kmalloc(GFP_KERNEL) uses */
		if (!str_has_prefix(name, "kmalloc-") || !isdigit(name[strlen("kmalloc-")]))
			return false;
	} else if (strncmp(name, tg->name, n) || (name[n] && name[n] != '-')) {
		return false;
	}
	*pages = slabs * per_slab;
	return true;
}

/*
 * Read /proc/slabinfo at *@pos into @buf. Not kernel_read(): __kernel_read() wants a
 * read_iter, and 6.1's slabinfo has a .proc_read (seq_read()) but no .proc_read_iter.
 * It is a seq_file (slabinfo_open() is seq_open(); PROC_ENTRY_PERMANENT, so proc's read
 * wrapper adds nothing), and what seq_read() does for a user buffer seq_read_iter()
 * does for a kernel one through a kvec.
 */
static ssize_t slabinfo_read(struct file *f, char *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t n;

	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	n = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	return n;
}

/*
 * SLABINFO: the rows of the target's caches, summed. Lines may come split across reads.
 * -ENOENT, @path naming the file, when a native target's caches have no row.
 */
static int slabinfo_target_pages(struct slablab_alloc_target *tg, u64 *pages, char *path,
				 size_t path_len)
{
	char *buf = tg->nf.buf, *line, *nl;
	bool found = false;
	size_t len = 0;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int err = 0;
	u64 p;

	*pages = 0;
	snprintf(path, path_len, "/proc/slabinfo");
	if (!tg->nf.proc_dir.dentry)
		return tg->nf.proc_dir_err ?: -ENOENT;
	f = file_open_root(&tg->nf.proc_dir, "slabinfo", O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	do {
		n = slabinfo_read(f, buf + len, PAGE_SIZE - 1 - len, &pos);
		if (n < 0) {
			err = n;
			break;
		}
		len += n;
		buf[len] = 0;
		for (line = buf; (nl = strchr(line, '\n')) || (!n && *line); line = nl + 1) {
			if (nl)
				*nl = 0;
			if (slabinfo_row_pages(tg, line, &p)) {
				*pages += p;
				found = true;
			}
			if (!nl)
				break;
		}
		/* what is left is the start of a line the next read completes */
		len = strlen(line);
		memmove(buf, line, len);
		if (n && len == PAGE_SIZE - 1) {
			err = -EIO;		/* no row is that long */
			break;
		}
	} while (n);
	filp_close(f, NULL);
	if (!err && !found && tg->kind == SLABLAB_TARGET_NATIVE)
		err = -ENOENT;		/* its caches, or its classes */
	if (err) {
		*pages = 0;
		if (err == -ENOENT)
			snprintf(path, path_len, "/proc/slabinfo (no row %s)", tg->name);
	}
	return err;
}

/**
 * slablab_target_native_pages - pages a native target holds now, the kernel's figures
 * @tg: a native target, its figures started
 * @pages: its caches' and classes' (native-kmalloc: the kernel's kmalloc classes');
 *	SLOB: the kernel's slab pages, whole-system
 * @path: on an error, the file that could not be read
 * @path_len: its size
 *
 * Sleeps (file reads). Return: 0, or the first unreadable file's error.
 */
int slablab_target_native_pages(struct slablab_alloc_target *tg, u64 *pages, char *path,
				size_t path_len)
{
	int err;

	switch (tg->nf.src) {
	case SLABLAB_NATIVE_SLABINFO:
		/* a replay's kthreads sample at once: the buffer is one */
		mutex_lock(&tg->nf.lock);
		err = slabinfo_target_pages(tg, pages, path, path_len);
		mutex_unlock(&tg->nf.lock);
		return err;
	case SLABLAB_NATIVE_SYSTEM:
		*pages = slablab_kernel_slab_pages();
		return 0;
	default:
		return sysfs_target_pages(tg, pages, path, path_len);
	}
}

/**
 * slablab_target_pages - pages the target holds now: the one measurement of both engines
 * @tg: the target
 * @meta: slablab targets: their caches' metadata bytes; 0 for native ones
 * @who: "storm" or "replay": for the one warning of a native figure that could not be
 *	read any more (it was readable at start)
 * @id: the storm's or replay's id, for the same
 *
 * slablab targets: their caches' gauges, plus, where the target counts slablab's
 * kmalloc classes, theirs and slablab_kmalloc()'s direct pages. native targets:
 * slablab_target_native_pages(). Sleeps (native: file reads).
 */
u64 slablab_target_pages(struct slablab_alloc_target *tg, u64 *meta, const char *who, u32 id)
{
	struct slablab_gauges g;
	char path[128];
	u64 pages = 0;
	unsigned int i;
	int err;

	*meta = 0;
	if (slablab_target_is_native(tg->kind)) {
		err = slablab_target_native_pages(tg, &pages, path, sizeof(path));
		if (err && !test_and_set_bit(0, &tg->nf.warned))
			pr_warn("%s %u: cannot read %s (%pe): its figures count 0 pages\n",
				who, id, path, ERR_PTR(err));
		/* and the kernel's kmalloc() past its classes (target_kmalloc()) */
		return pages + atomic_long_read(&tg->large_pages);
	}
	for (i = 0; i < tg->nr_caches; i++) {
		if (!tg->lab[i])
			continue;
		slablab_gauges(tg->lab[i], &g);
		pages += g.pages;
		*meta += g.meta_bytes;
	}
	for (i = 0; i < tg->nr_kmalloc_caches; i++) {
		slablab_gauges(tg->kmalloc_caches[i], &g);
		pages += g.pages;
		*meta += g.meta_bytes;
	}
	if (tg->nr_kmalloc_caches)
		pages += slablab_kmalloc_direct_pages();
	return pages;
}

/**
 * slablab_target_rcu_waiting - objects freed by RCU and not yet freed
 * @tg: a slablab target (native ones: 0)
 * @rcu_pages: the pages of its typesafe-by-rcu slabs waiting for a grace period
 *
 * rcu-pending + rcu-waiting of its caches and counted kmalloc classes (memory of no
 * class waits uncounted, on batches of no cache).
 */
u64 slablab_target_rcu_waiting(struct slablab_alloc_target *tg, u64 *rcu_pages)
{
	struct slablab_gauges g;
	unsigned int i;
	u64 n = 0;

	*rcu_pages = 0;
	if (slablab_target_is_native(tg->kind))
		return 0;
	for (i = 0; i < tg->nr_caches + tg->nr_kmalloc_caches; i++) {
		struct slablab_cache *s = i < tg->nr_caches ? tg->lab[i] :
				tg->kmalloc_caches[i - tg->nr_caches];

		if (!s)
			continue;
		slablab_gauges(s, &g);
		n += g.rcu_pending + g.rcu_waiting;
		*rcu_pages += g.rcu_pages;
	}
	return n;
}

/**
 * slablab_target_kthread - an engine's kthread bound to @cpu, not yet woken
 * @fn: its function
 * @data: its argument
 * @cpu: the cpu, online (the caller keeps it so: cpus_read_lock, or a check after)
 * @name: the engine ("storm", "replay"): the kthread is "slablab-storm/ID:IDX" in ps
 * @id: the storm's or replay's id
 * @idx: the kthread's index
 *
 * Its memory on @cpu's node, as a per-cpu worker's should be.
 *
 * Return: the task, or an ERR_PTR().
 */
struct task_struct *slablab_target_kthread(int (*fn)(void *data), void *data, int cpu,
					   const char *name, u32 id, u32 idx)
{
	struct task_struct *task;

	task = kthread_create_on_node(fn, data, cpu_to_node(cpu), "slablab-%s/%u:%u",
				      name, id, idx);
	if (!IS_ERR(task))
		kthread_bind(task, cpu);
	return task;
}

/**
 * slablab_target_set_sysfs_root - read native targets' figures from elsewhere (selftests)
 * @root: the directory that stands for /sys/kernel/slab
 *
 * A test hook (debugfs, selftests=1): a root without the files shows how a run whose
 * figures cannot be read is refused. Runs going on keep the root they had.
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int slablab_target_set_sysfs_root(const char *root)
{
	int err = 0;

	mutex_lock(&target_root_lock);
	if (strscpy(slablab_target_sysfs_root, root, sizeof(slablab_target_sysfs_root)) < 0) {
		strscpy(slablab_target_sysfs_root, "/sys/kernel/slab",
			sizeof(slablab_target_sysfs_root));
		err = -ENAMETOOLONG;
	}
	mutex_unlock(&target_root_lock);
	return err;
}
