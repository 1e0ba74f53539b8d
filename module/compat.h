/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels slablab builds for (Debian's 6.1, 6.12 and 7.x, and
 * 6.1 built with SLAB or SLOB), in one place, so that the code elsewhere reads as it
 * would upstream on the newest. Kbuild probes the kernel's headers for each interface
 * (SLABLAB_HAVE_*): a version number would be wrong on a kernel that backported it. The
 * allocator a 6.1 kernel was configured with is its config (CONFIG_SLAB, CONFIG_SLOB).
 */
#ifndef _SLABLAB_COMPAT_H
#define _SLABLAB_COMPAT_H

#include <linux/workqueue.h>
#include <linux/local_lock.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/bitops.h>

/*
 * 6.17 made a workqueue say whether it is per-cpu or unbound (a missing flag warns: it
 * will become unbound by default); before, per-cpu was the default and there was no flag.
 */
#ifdef SLABLAB_HAVE_WQ_PERCPU
#define SLABLAB_WQ_PERCPU WQ_PERCPU
#else
#define SLABLAB_WQ_PERCPU 0
#endif

/*
 * The same change named the system workqueues after it: system_percpu_wq and
 * system_dfl_wq (unbound); 7.3 says "enqueued on deprecated workqueue" in the kernel
 * log for work queued on system_wq or system_unbound_wq, the names before.
 */
#ifdef SLABLAB_HAVE_SYSTEM_DFL_WQ
#define slablab_percpu_wq system_percpu_wq
#define slablab_unbound_wq system_dfl_wq
#else
#define slablab_percpu_wq system_wq
#define slablab_unbound_wq system_unbound_wq
#endif

/*
 * 6.16 has local_trylock_t: a local lock that can be tried, so that an interrupt finding
 * its cpu's lock held backs off (local_trylock() fails) instead of every holder keeping
 * interrupts off. 7.x's sheaves take one (cpu_sheaves->lock); so do slablab's where
 * SLABLAB_HAVE_LOCAL_TRYLOCK says the kernel has it: struct slablab_cpu's sheaves_lock
 * and design_sheaves.h's pcs_trylock(), pcs_lock() and pcs_unlock(). Before, the
 * sheaves take the cpu's local_lock_t with interrupts off.
 */
#ifdef SLABLAB_HAVE_LOCAL_TRYLOCK
#define slablab_sheaves_lock_init(lock)	local_trylock_init(lock)
#else
#define slablab_sheaves_lock_init(lock)	do { } while (0)
#endif

/*
 * 6.5 has DEFINE_WAIT_OVERRIDE_MAP() and lock_map_acquire_try() (6.1.y backports them):
 * a lockdep map whose holder may take locks of a wider wait type than its context
 * allows, as 7.3's kfree_rcu_sheaf_map lets a kfree_rcu() under a raw spinlock take a
 * spinlock_t (design_sheaves.c's sheaves_free_rcu()). Without, no override: lockdep's
 * raw lock nesting check (PROVE_RAW_LOCK_NESTING) may report that nesting.
 */
/*
 * The rules of the running kernel's calculate_order() (policy.h): 6.8's from the
 * release that renamed MAX_ORDER to MAX_PAGE_ORDER, 6.1's before.
 */
#ifdef SLABLAB_HAVE_MAX_PAGE_ORDER
#define SLABLAB_KERNEL_ORDER_RULES	SLABLAB_ORDER_RULES_6_8
#else
#define SLABLAB_KERNEL_ORDER_RULES	SLABLAB_ORDER_RULES_6_1
#endif

#ifndef SLABLAB_HAVE_WAIT_OVERRIDE_MAP
#define DEFINE_WAIT_OVERRIDE_MAP(_name, _wait_type) \
	struct lockdep_map __maybe_unused _name = {}
#define lock_map_acquire_try(l)		do { } while (0)
#endif

/*
 * 6.5 has SLAB_NO_MERGE: a cache never merged with another, nor another into it, whatever
 * slab_nomerge says (a flag of slab.h, so the name is its own probe). Before it, what
 * keeps a cache apart is a usercopy window (kmem_cache_create_usercopy() aliases only
 * caches without one), which a kernel without HARDENED_USERCOPY drops: there a native
 * target's cache may still be merged, and target.c refuses it.
 */
#ifdef SLAB_NO_MERGE
#define SLABLAB_NO_MERGE	SLAB_NO_MERGE
#else
#define SLABLAB_NO_MERGE	0
#endif

/*
 * The kernel's kmalloc cache of index @i (kmalloc_index()), for GFP_KERNEL. SLOB (a
 * choice of 6.1's config, gone in 6.4) has none: its kmalloc() takes blocks of the one
 * heap its caches share, or pages, and its slab.h has no kmalloc_caches[] nor enum
 * kmalloc_cache_type (a config choice, not a name a header probe would find missing).
 */
#ifdef CONFIG_SLOB
#define slablab_native_kmalloc_cache(i)	((struct kmem_cache *)NULL)
#else
#define slablab_native_kmalloc_cache(i)	(kmalloc_caches[KMALLOC_NORMAL][i])
#endif

/*
 * 6.12 aligns every kmalloc class to the largest power of two that divides its size
 * (create_boot_cache(); include/linux/slab.h says so of kmalloc()): kmalloc-192 to 64.
 * 6.1 aligns a power of two to its size and the others (96, 192) to
 * ARCH_KMALLOC_MINALIGN. The alignment a copy of the kernel's class asks for
 * (slablab_native_class_create()); 0 is the minimum.
 */
static inline unsigned int slablab_kmalloc_class_align(unsigned int size)
{
#ifdef SLABLAB_HAVE_KMALLOC_DIVISOR_ALIGN
	return 1U << __ffs(size);
#else
	return is_power_of_2(size) ? size : 0;
#endif
}

#endif /* _SLABLAB_COMPAT_H */
