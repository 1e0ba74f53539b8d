/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slablab internals shared by the allocator (backend.c, the designs' design_*.c, kmalloc.c
 * and the cache API cache.c), the netlink family's netlink*.c, debugfs.c and selftest.c,
 * handles.c, the engines (storm.c, replay.c, target.c), tunables.c, trace.c and main.c.
 * See backend.c's top comment for slabs and the locking rules, design_slub.c's for the
 * per-cpu front end, and docs/design.md ("Designs") for the ops table's contract.
 *
 * What only a few files use has a header of its own beside this one, which includes it
 * and is included only where it is needed: storm.h and replay.h (the storm and replay
 * engines' interfaces), tunables.h (the tunable registry), target.h (what storms and
 * replays allocate from) and debugfs.h (what debugfs.c and selftest.c share).
 *
 * Locking: backend.c's top comment has the allocator's locks and their order, cache.c's
 * cpus_read_lock and slablab_mutex outermost but for the mutexes of the files above it
 * (storm.c's storm_mutex, replay.c's replay_mutex ...), taken before them; a declaration
 * here says what its caller must hold where that matters. The headers beside it say
 * theirs at their tops.
 */
#ifndef _SLABLAB_INTERNAL_H
#define _SLABLAB_INTERNAL_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/local_lock.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/netlink.h>
#include <net/netlink.h>
#include "../uapi/linux/slablab.h"
#include "../include/slablab.h"
#include "../include/slablab/protocol.h"
#include "policy.h"

#define SLABLAB_VERSION "0.1.0"

/*
 * Formatted extack messages arrived in 6.2, in a buffer of each request's extack.
 * Before that, the text lives in buffers of ours, which must outlive the handler:
 * netlink_ack() reads the message after the handler returns, while other requests run
 * handlers (the family is parallel_ops: on other cpus at the same time), and a handler
 * may sleep after formatting (a cache-new that fails tears the cache down: an
 * rcu_barrier()), as netlink_ack()'s nlmsg_new() may. So each message takes the next of
 * SLABLAB_EXTACK_BUFS buffers in turn (slablab_extack_slot()), and a buffer is written
 * again only after that many more messages and SLABLAB_EXTACK_REUSE since its last one:
 * else the message is a fixed text, which no one rewrites. A buffer rewritten between
 * the ack's sizing and its copy would trip 6.1's WARN_ON(nla_put_string()) in
 * netlink_ack(), and an unprivileged sender could put its text in root's reply. A buffer has
 * 6.2's size (80 bytes with the "slablab: " prefix and the NUL), and a truncated message
 * is logged (as cut: 6.2 logs it whole): a message too long for newer kernels is too
 * long here as well, and W=1 says so on every kernel (-Wformat-truncation, module/Kbuild).
 */
#ifndef NETLINK_MAX_FMTMSG_LEN
#define NETLINK_MAX_FMTMSG_LEN	80
#endif
#ifndef NL_SET_ERR_MSG_FMT_MOD
#define SLABLAB_EXTACK_BUFS	1024
#define SLABLAB_EXTACK_REUSE	(HZ / 4)
char *slablab_extack_slot(void);
#define NL_SET_ERR_MSG_FMT_MOD(extack, fmt, args...) do {			\
	struct netlink_ext_ack *__e = (extack);					\
	char *__b = __e ? slablab_extack_slot() : NULL;				\
	if (__b) {								\
		if (snprintf(__b, NETLINK_MAX_FMTMSG_LEN,			\
			     KBUILD_MODNAME ": " fmt, ##args) >=		\
		    NETLINK_MAX_FMTMSG_LEN)					\
			net_warn_ratelimited("truncated extack: %s\n", __b);	\
		__e->_msg = __b;						\
	} else if (__e) {							\
		__e->_msg = KBUILD_MODNAME ": too many errors at once to say this one's";\
	}									\
} while (0)
#endif

/* A double word updated with one cmpxchg: a freelist head and the word beside it. */
union slablab_pair {
	struct {
		void *freelist;
		unsigned long word;
	};
#ifdef system_has_cmpxchg128
	u128 full;
#endif
} __aligned(2 * sizeof(void *));

/* The counters word of a slab; changes only together with its freelist (one cmpxchg). */
struct slablab_counters {
	union {
		unsigned long word;
		struct {
			unsigned int inuse:16;	/* objects not on the slab's freelist */
			unsigned int objects:15;	/* object slots in this slab */
			unsigned int frozen:1;	/* owned by a cpu (active or cpu partial) */
		};
	};
};

/**
 * struct slablab_slab - metadata of one slab, found from any object through the head
 * page's ->private. It lives in the slab's leftover space after the last object when
 * that has 64 bytes (free), else in a kernel kmem_cache (counted in the cache's
 * meta_bytes) — never in front of the objects, so page-sized objects still pack 8 to
 * an order-3 slab. 64 bytes: the page, its order and node derive from @base_flags.
 * @fc: freelist + struct slablab_counters, changed together by one double-word cmpxchg
 * @node_list: link in the node partial list, under its list_lock
 * @next: link in a cpu partial list (a slab is never on both)
 * @rcu: a slab of a typesafe-by-rcu cache, off every list, waiting for a grace period
 *	before its pages go back (slablab_discard_slab())
 * @all_list: link in the cache's all_slabs, under its slabs_lock
 * @cache: the cache the slab belongs to
 * @base_flags: page_address() | SLABLAB_SLAB_* (ON_PARTIAL and DYING under list_lock)
 */
struct slablab_slab {
	union slablab_pair fc;
	union {
		struct list_head node_list;
		struct slablab_slab *next;
		struct rcu_head rcu;	/* typesafe-by-rcu: discarded, waiting for a GP */
	};
	struct list_head all_list;
	struct slablab_cache *cache;
	unsigned long base_flags;
};

#define SLABLAB_SLAB_ON_PARTIAL	1UL	/* on its node's partial list (list_lock) */
#define SLABLAB_SLAB_ON_SLAB	2UL	/* lives in the slab's own leftover space */
/*
 * Empty, unfrozen, on no list and on its way to discard_slab(): set under the node's
 * list_lock in the same critical section that decided to free it, so that validate
 * (which holds that lock) never mistakes a slab in flight for a lost one.
 */
#define SLABLAB_SLAB_DYING	4UL
#define SLABLAB_SLAB_FLAGS	(SLABLAB_SLAB_ON_PARTIAL | SLABLAB_SLAB_ON_SLAB | \
				 SLABLAB_SLAB_DYING)

/*
 * A page's ->private: 0 for a page of the page allocator (a large kmalloc), a struct
 * slablab_slab pointer (bit 0 clear: it is 16-byte aligned) for a slab, and a pointer
 * to the slob design's page metadata with this bit set for a page of the slob heap
 * (design_slob.c), whose objects belong to no one cache.
 */
#define SLABLAB_PAGE_SLOB	1UL

/* Objects the "leak" selftest hook leaks on purpose (tests/vm/test_kmemleak.py) */
#define SLABLAB_SELFTEST_LEAKS	8

/* The slab design's reaps (SLAB's REAPTIMEOUT_AC and REAPTIMEOUT_NODE): tunables' defaults */
#define SLABLAB_SLAB_REAP_CPU_MS	2000
#define SLABLAB_SLAB_REAP_NODE_MS	4000

/* The lists tunable's default: three lists (slab: full/partial/free; slob: by size). */
#define SLABLAB_DEFAULT_LISTS	3
/* kmalloc on slob: the size header in front of each block (SLOB's minalign) */
#define SLABLAB_SLOB_MINALIGN	max_t(unsigned int, ARCH_KMALLOC_MINALIGN, ARCH_SLAB_MINALIGN)
/* slob: the largest typesafe_by_rcu object (its RCU tail after it, in a heap page) */
#define SLABLAB_SLOB_RCU_MAX	(PAGE_SIZE / 2)

static inline void *slab_base(const struct slablab_slab *slab)
{
	return (void *)(slab->base_flags & PAGE_MASK);
}

static inline struct page *slab_page(const struct slablab_slab *slab)
{
	return virt_to_page(slab_base(slab));
}

static inline unsigned int slab_order(const struct slablab_slab *slab)
{
	return compound_order(slab_page(slab));
}

static inline int slab_nid(const struct slablab_slab *slab)
{
	return page_to_nid(slab_page(slab));
}

static inline bool slab_on_partial(const struct slablab_slab *slab)
{
	return slab->base_flags & SLABLAB_SLAB_ON_PARTIAL;
}

static inline bool slab_dying(const struct slablab_slab *slab)
{
	return slab->base_flags & SLABLAB_SLAB_DYING;
}

/**
 * slablab_slub_flags - the SLAB_* flags SLUB would have for slablab cache flags
 * @flags: SLABLAB_CACHE_F_*
 *
 * What debugfs's flag files show (SLUB's poison, red_zone, sanity_checks ...) and what
 * a storm's native twin is made with (storm.c), so that both say what slablab's debug
 * mode checks on every allocation and free: red zones and poison, checked
 * (SLAB_CONSISTENCY_CHECKS: without it SLUB writes the patterns but checks them only
 * on validate). slablab records no owners and traces nothing: never SLAB_STORE_USER
 * or SLAB_TRACE. docs/design.md, "Debug mode", has what still differs.
 *
 * Return: the SLAB_* flags.
 */
static inline slab_flags_t slablab_slub_flags(unsigned int flags)
{
	slab_flags_t f = 0;

	if (flags & SLABLAB_CACHE_F_HWCACHE_ALIGN)
		f |= SLAB_HWCACHE_ALIGN;
	if (flags & SLABLAB_CACHE_F_DEBUG)
		f |= SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | SLAB_POISON;
	if (flags & SLABLAB_CACHE_F_TYPESAFE_BY_RCU)
		f |= SLAB_TYPESAFE_BY_RCU;
	return f;
}

/**
 * struct slablab_sheaf - an array of free objects: a sheaves cache's per-cpu and barn
 *	sheaves, and the sheaves slablab_cache_prefill_sheaf() lends callers
 * @barn_list: link in a barn's list (under its lock)
 * @rcu: for kfree_rcu()
 * @capacity: slots in @objects (the cache's sheaf_capacity when it was made, or the
 *	size of a one-off sheaf)
 * @size: objects in it, @objects[0..@size)
 * @cache: an rcu_free sheaf handed to RCU: its cache (sheaves)
 * @cpu: and the cpu whose batch counts its objects as waiting (sheaves)
 * @oversize: a one-off sheaf (cache.c): its objects were allocated by a bulk allocation
 *	when it was filled (callers' objects, their alloc hook run), and it is kfree()d
 *	when it comes back; else its objects are free objects of the cache
 * @objects: the objects
 */
struct slablab_sheaf {
	union {
		struct list_head barn_list;
		struct rcu_head rcu;
	};
	unsigned int capacity;
	unsigned int size;
	struct slablab_cache *cache;
	int cpu;
	bool oversize;
	void *objects[];
};

/* Per-node lists. */
struct slablab_node {
	spinlock_t list_lock;		/* partial, nr_partial, on_partial flags */
	unsigned long nr_partial;
	struct list_head partial;
};

/**
 * struct slablab_rcu_batch - one cpu's RCU frees of one cache (cache.c, "RCU frees")
 * @lock: the lists and counts (raw: RCU frees come from any context, as kfree_rcu()'s)
 * @armed: a grace-period callback (@rcu) is queued for @waiting
 * @pending: objects queued while @waiting waits, linked through their rcu_head
 *	(->func holds the head's offset in its object, as 6.1's kvfree_call_rcu())
 * @waiting: the batch whose grace period @rcu waits for
 * @nr_pending: objects on @pending
 * @nr_waiting: objects on @waiting, until they are freed, and in the sheaves design's
 *	rcu_free sheaves this cpu handed to RCU
 * @rcu: the batch's callback
 * @s: the cache (NULL: slablab_kmalloc() memory of no cache, freed by slablab_kfree())
 */
struct slablab_rcu_batch {
	raw_spinlock_t lock;
	bool armed;
	struct rcu_head *pending;
	struct rcu_head *waiting;
	unsigned long nr_pending;
	unsigned long nr_waiting;
	struct rcu_head rcu;
	struct slablab_cache *s;
};

/*
 * Per-cpu state. The first four fields are the slub design's (design_slub.c): the
 * active slab and its lockless freelist, the cpu partial list. A design that needs
 * other per-cpu state adds its fields here (one per-cpu allocation, so that a fast
 * path finds them and the statistics with one this_cpu_ptr()); the lock and the
 * statistics are every design's.
 */
struct slablab_cpu {
	union slablab_pair ft;		/* freelist (void **) + tid: one cmpxchg */
	struct slablab_slab *slab;	/* active slab, frozen */
	struct slablab_slab *partial;	/* cpu partial list, frozen slabs */
	unsigned int partial_slabs;
	struct slablab_sheaf *main;	/* sheaves: never NULL while unlocked (capacity > 0) */
	struct slablab_sheaf *spare;	/* sheaves: any fill, or NULL */
	struct slablab_array *ac;	/* slab: the cpu's array cache (never NULL once set up) */
	/*
	 * Prefilled sheaves out with callers (cache.c): this cpu's share of the objects in
	 * them not yet allocated, and of the sheaves (a sheaf prefilled on one cpu may be
	 * returned on another: only the sums over the cpus mean anything)
	 */
	long prefilled_objects;
	long prefilled_sheaves;
	struct slablab_rcu_batch rcu;	/* RCU frees (cache.c): every design's */
	struct slablab_sheaf *rcu_free;	/* sheaves: the rcu_free sheaf filling, or NULL */
	local_lock_t lock;		/* slow path vs. this cpu's fast path */
#ifdef SLABLAB_HAVE_LOCAL_TRYLOCK
	local_trylock_t sheaves_lock;	/* sheaves on 7.x: main, spare (compat.h) */
#endif
	unsigned long stat[__SLABLAB_STAT_MAX];	/* monotonic event counts */
	unsigned long stat_base[__SLABLAB_STAT_MAX];	/* reset = new baseline */
};

/*
 * The designs' own per-cache state. A design's fields that are not tunables live in its
 * struct below, embedded in struct slablab_cache (@sheaves_state ...): its fast and slow
 * paths reach them at a fixed offset from the cache, as they did fields of the cache,
 * never through a pointer more. Only the design's file touches its struct: its init
 * sets it up for an empty cache, its destroy releases what init made (and unpublishes
 * what lockless readers find); everything outside the file that wants a figure of it
 * asks through the design's ops (gauges, layers, occupancy, validate). The tunables
 * stay fields of the cache, so that a design change keeps them. The structs are not a
 * union: a cache changing design may still be read by the old design's lockless
 * gauges (slab's nodes, under RCU) while the new design's init writes its own, and
 * a design that stands on another (s->under) runs both designs' state at once.
 * A field is zero from the cache's creation (kzalloc) until its design sets it.
 */

/**
 * struct slablab_sheaves_state - the sheaves design's per-cache state (design_sheaves.c)
 * @barn: per-node barns of full and empty sheaves, [nr_node_ids]; NULL while the
 *	cache has another design (made by init, freed by destroy)
 */
struct slablab_sheaves_state {
	struct slablab_barn **barn;
};

/**
 * struct slablab_slab_design_state - the slab design's per-cache state (design_slab.c)
 * @nodes: per-node slab lists, shared array and alien caches (NULL while the cache has
 *	another design; unpublished by destroy and freed after a grace period, as the
 *	gauges read them without slablab_mutex)
 * @reaper: per-cpu delayed work of the periodic reap
 * @active: objects out of the slab lists: in arrays or with callers (0 from init)
 * @maxobjs: high mark of @active (SLAB's high_mark). The high marks are kept across
 *	design changes, as the MAXOBJS and MAXFREEABLE counters whose rises they count
 * @maxfreeable: high mark of a node's free slabs seen by an array flush
 */
struct slablab_slab_design_state {
	struct slablab_slab_nodes *nodes;
	struct slablab_reaper __percpu *reaper;
	atomic_long_t active;
	atomic_long_t maxobjs;
	atomic_long_t maxfreeable;
};

/**
 * struct slablab_slob_state - the slob design's per-cache state (design_slob.c)
 * @pages: pages charged to the cache: heap pages its requests took and pages of its
 *	page-sized objects (under the heap's lock; zeroed by init and destroy)
 * @heap_pages: of those, heap pages (each with kmalloc'ed metadata)
 * @scan_max: the most heap pages one allocation looked at (zeroed by init)
 */
struct slablab_slob_state {
	unsigned long pages;
	unsigned long heap_pages;
	unsigned long scan_max;
};

/**
 * struct slablab_cache - one slablab cache
 * @cpu: per-cpu state (active slab, lockless freelist, cpu partial list, statistics)
 * @ops: the design's ops table (slablab_designs[@design])
 * @design: enum slablab_design: the per-cpu front end (changes only while empty)
 * @object_size: the size asked for
 * @stride: bytes per object slot in a slab (object, alignment, debug red zones)
 * @align: object alignment
 * @fp_offset: free pointer offset in a slot
 * @flags: SLABLAB_CACHE_F_*
 * @fastpath: enum slablab_fastpath
 * @order: order of new slabs
 * @order_default: the order the policy chose at creation (or the last layout change)
 * @order_choice: the policy's whole answer: order, objects per slab and why
 * @slot_index: bytes each object takes in a slab besides its @stride: the slab design's
 *	on-slab freelist index (SLAB's freelist_idx_t); 0 otherwise
 * @max_objs: the most objects one slab holds (the slab design: SLAB_OBJ_MAX_NUM), 0: no bound
 * @order_set: @order was set (slablab_set_order()): a relayout keeps it while it holds
 *	an object; else @order follows @order_default
 * @cpu_partial: objects a cpu partial list may hold (SLUB's cpu_partial)
 * @cpu_partial_slabs: the slab bound derived from @cpu_partial
 * @min_partial: empty slabs a node partial list keeps
 * @fail_slab_every: fault injection (debugfs caches/<name>/fail_slab_every): fail
 *	every Nth new slab (0: never)
 * @fail_slab_count: new slabs counted for @fail_slab_every
 * @remote_node_defrag_ratio: percent of node-less allocations that may take a partial
 *	slab of another node (SLUB's remote_node_defrag_ratio, in its sysfs units)
 * @sheaf_capacity: objects per sheaf (sheaves; 0: no sheaves, every object from slabs)
 * @barn_max_full: full sheaves a node's barn keeps at most (sheaves)
 * @barn_max_empty: empty sheaves a node's barn keeps at most (sheaves)
 * @lists: slab lists: 3 (full, partial, free) or 1 (2.4.9's one list) for slab; 1..3 for
 *	slob (the tunable is theirs; other designs refuse it)
 * @limit: objects a cpu's array cache holds (slab)
 * @batchcount: objects moved at once between an array cache and its node (slab)
 * @shared: the shared array of each node holds @shared x @batchcount objects (slab)
 * @reap_cpu_ms: period of the per-cpu array reap, 0: off (slab)
 * @reap_node_ms: period of the node reap (shared array, free slabs), 0: off (slab)
 * @sheaves_cpu_slabs: the sheaves_cpu_slabs tunable: sheaves stand on the slub
 *	design's per-cpu slab and cpu partial lists (6.18's double caching) instead of
 *	straight on slabs
 * @max_order: the max_order tunable: the largest order the order policy may choose
 *	(SLUB's slub_max_order, per cache; slub and sheaves)
 * @under: the design whose per-cpu layer this cache's design stands on (slub, for a
 *	sheaves cache with @sheaves_cpu_slabs), or NULL: straight on the back end's slabs. Set
 *	with the design, only while the cache is empty (cache.c). Not a design's own
 *	state but how cache.c composes two designs, as @ops is: only cache.c may name
 *	another design's ops table (a design calls the back end alone, test_layers.py)
 * @sheaves_state: the sheaves design's own state (design_sheaves.c alone)
 * @slab_design_state: the slab design's own state (design_slab.c alone)
 * @slob_state: the slob design's own state (design_slob.c alone)
 * @random: free pointer obfuscation key (SLAB_FREELIST_HARDENED's)
 * @random_seq: freelist randomization sequence, or NULL
 * @random_seq_len: entries of @random_seq
 * @ctor: constructor called on every new object slot, or NULL
 * @owner: who made the cache and may destroy it (netlink, kmalloc, another module)
 * @name: the cache's name, unique among slablab's caches
 * @node: per-node partial lists, [nr_node_ids]
 * @slabs_lock: protects @all_slabs and the gauges below it
 * @all_slabs: every slab of the cache (validate walks it)
 * @nr_slabs: slabs
 * @total_objects: object slots in all slabs
 * @nr_pages: pages in all slabs
 * @nr_meta_slabs: slabs whose metadata is off the slab (in a kernel kmem_cache)
 * @rcu_slabs: typesafe-by-rcu slabs discarded, waiting for a grace period (not in
 *	@nr_slabs; slob: blocks waiting)
 * @rcu_pages: their pages (not in @nr_pages)
 * @debug_errors: corruption reports in debug mode
 * @list: link in slablab_caches, under slablab_mutex
 * @users: storms and handles holding the cache (destroy fails with -EBUSY)
 * @debugfs: the cache's debugfs directory
 * @debugfs_priv: debugfs.c's private data of the directory
 * @dead: unlinked, waiting for slablab_cache_release()
 * @selftest_obj: an object held by the selftest hook
 * @selftest_leaked: objects the "leak" selftest hook allocated, each kept only as its
 *	address XORed with ~0UL, which kmemleak does not take for a reference
 * @selftest_race: the task that armed the fast-path race test hook, or NULL
 * @selftest_cpu_locks: acquisitions of the cpu's lock by the slab design, counted with
 *	selftests=1 only (debugfs caches/<name>/selftest_cpu_locks)
 * @selftest_new_slab_gfp: the gfp the page allocator was last asked with for a new
 *	slab of the cache, kept with selftests=1 only (caches/<name>/selftest_new_slab_gfp)
 */
struct slablab_cache {
	struct slablab_cpu __percpu *cpu;
	const struct slablab_design_ops *ops;
	unsigned int design;
	unsigned int object_size;
	unsigned int stride;
	unsigned int align;
	unsigned int fp_offset;
	unsigned int flags;
	unsigned int fastpath;
	unsigned int order;
	unsigned int order_default;
	struct slablab_order_choice order_choice;
	unsigned int slot_index;
	unsigned int max_objs;
	bool order_set;
	unsigned int cpu_partial;
	unsigned int cpu_partial_slabs;
	unsigned int min_partial;
	unsigned int fail_slab_every;
	atomic_t fail_slab_count;
	unsigned int remote_node_defrag_ratio;
	unsigned int sheaf_capacity;
	unsigned int barn_max_full;
	unsigned int barn_max_empty;
	unsigned int lists;
	unsigned int limit;
	unsigned int batchcount;
	unsigned int shared;
	unsigned int reap_cpu_ms;
	unsigned int reap_node_ms;
	unsigned int sheaves_cpu_slabs;
	unsigned int max_order;
	const struct slablab_design_ops *under;
	struct slablab_sheaves_state sheaves_state;
	struct slablab_slab_design_state slab_design_state;
	struct slablab_slob_state slob_state;
	unsigned long random;
	unsigned int *random_seq;
	unsigned int random_seq_len;
	void (*ctor)(void *obj);
	enum slablab_owner owner;
	char name[SLABLAB_NAME_MAX];

	struct slablab_node **node;

	spinlock_t slabs_lock;	/* all_slabs and the gauges below */
	struct list_head all_slabs;
	unsigned long nr_slabs;
	unsigned long total_objects;
	unsigned long nr_pages;
	unsigned long nr_meta_slabs;
	unsigned long rcu_slabs;
	unsigned long rcu_pages;

	atomic_long_t debug_errors;

	struct list_head list;
	atomic_t users;
	struct dentry *debugfs;
	void *debugfs_priv;
	bool dead;
	void *selftest_obj;
	unsigned long selftest_leaked[SLABLAB_SELFTEST_LEAKS];
	struct task_struct *selftest_race;
	atomic_t selftest_cpu_locks;
	gfp_t selftest_new_slab_gfp;
};

/*
 * Objects in one slab of 2^@order pages of @s's layout: SLAB's on-slab index takes
 * @s->slot_index bytes per object, and its index names at most @s->max_objs.
 */
static inline unsigned int slablab_cache_objs(const struct slablab_cache *s, unsigned int order)
{
	unsigned int n = slablab_objs_per_slab(order, s->stride + s->slot_index, PAGE_SIZE);

	return s->max_objs && n > s->max_objs ? s->max_objs : n;
}

/* Aggregate figures of a cache, for netlink and debugfs. */
struct slablab_gauges {
	u64 objects;		/* in use */
	u64 total_objects;
	u64 slabs;
	u64 partial_slabs;
	u64 cpu_slabs;
	u64 cpu_partial_slabs;
	/* of those, the ones of cpus that have a cpu slab (SLUB's cpu_slabs file) */
	u64 cpu_partial_slabs_of_cpu_slabs;
	u64 pages;
	u64 live_bytes;
	u64 meta_bytes;
	u64 free_slabs;
	u64 slob_scan_max;	/* slob: the most heap pages one allocation looked at */
	u64 rcu_pending;	/* RCU frees not yet handed to a grace period */
	u64 rcu_waiting;	/* RCU frees waiting for a grace period */
	u64 rcu_slabs;		/* typesafe-by-rcu slabs waiting for a grace period */
	u64 rcu_pages;		/* their pages */
};

struct slablab_validate_report {
	u64 slabs;
	u64 objects;
	u64 free_objects;
	u32 errors;
	char first_error[160];
};

/**
 * struct slablab_cache_observer - told of every cache made and released
 * @added: the cache was made and listed (slablab_mutex held)
 * @released: the cache, unlisted, is about to be freed (no cache.c lock held)
 *
 * How cache.c, the bottom layer, lets debugfs.c give each cache a directory without
 * calling upwards (docs/design.md, "Layers").
 */
struct slablab_cache_observer {
	void (*added)(struct slablab_cache *s);
	void (*released)(struct slablab_cache *s);
};

/*
 * What a flush of per-cpu state does: give everything back (FLUSH_ALL: destroy, a
 * relayout or design change, shrink, validate, cpu hotplug) or only what is over the
 * design's bounds (FLUSH_OVER_LIMIT: after a bound was lowered).
 */
enum slablab_flush_mode { SLABLAB_FLUSH_ALL, SLABLAB_FLUSH_OVER_LIMIT };

/* Run on one cpu by slablab_on_each_cpu(): returns the slabs it freed. */
typedef unsigned int (*slablab_cpu_fn)(struct slablab_cache *s, int mode, void *arg);
/* Whether @cpu has anything for @fn to do (read without its lock; a hint). */
typedef bool (*slablab_cpu_pred)(struct slablab_cache *s, int cpu, int mode);

/**
 * struct slablab_layers - where a cache's object slots are (issue 13, "Where memory is")
 * @total: object slots in all slabs (the total_objects gauge)
 * @callers: objects in use by callers (allocations - frees)
 * @cpu_slab: free objects in cpu slabs: the cpus' lockless freelists and the remote
 *	frees on those slabs (slub)
 * @cpu_partial: free objects in slabs on cpu partial lists (slub)
 * @slabs_free: free objects in slabs no cpu layer owns (node partial lists)
 * @sheaf_main: objects in the cpus' main sheaves (sheaves)
 * @sheaf_spare: objects in the cpus' spare sheaves (sheaves)
 * @barn: objects in the barns' full sheaves (sheaves)
 * @array: objects in the cpus' array caches (slab)
 * @shared: objects in the nodes' shared arrays (slab)
 * @alien: objects in the nodes' alien caches (slab)
 * @sheaf_prefilled: objects in prefilled sheaves out with callers, not yet allocated
 *	from them (slablab_cache_prefill_sheaf(); any design)
 * @frozen_free: free objects on frozen slabs (the back end's walk; not reported: the
 *	slub design's racy count splits it between @cpu_slab and @cpu_partial)
 * @present: the layers this cache has, a mask of BIT(SLABLAB_LAYERS_A_*)
 *
 * callers + the cached layers + @slabs_free = @total when the cache is quiet (no
 * allocation or free in flight). The fields are the spec's layers set, in its order
 * (SLABLAB_CACHE_LAYERS): a design with other layers adds an attribute there and a
 * field here; netlink-cache.c puts the fields @present names.
 *
 * Exact or racy (the layers op's @exact): exact counts each cpu's layers on that cpu
 * under its lock (work queued on every online cpu, waited for); racy reads them from
 * here without their locks, as SLUB's world-readable sysfs files do, and is what a
 * reader without CAP_SYS_ADMIN gets (netlink-cache.c): no IPI, no work on another cpu.
 */
struct slablab_layers {
	u64 total;
	u64 callers;
	u64 cpu_slab;
	u64 cpu_partial;
	u64 slabs_free;
	u64 sheaf_main;
	u64 sheaf_spare;
	u64 barn;
	u64 array;
	u64 shared;
	u64 alien;
	u64 sheaf_prefilled;
	u64 frozen_free;
	u32 present;
};

/* Buckets of the slab-occupancy histogram at most (uapi/slablab.yaml: occupancy). */
#define SLABLAB_OCCUPANCY_BUCKETS	32

/**
 * struct slablab_occupancy - the slab-occupancy histogram of a cache
 * @objs: objects per slab of the cache's layout (slob: how many of the cache's blocks
 *	an empty heap page takes, at least 2; 1 for objects of a page or more)
 * @nr: buckets used: one per count 0..@objs when that is at most
 *	SLABLAB_OCCUPANCY_BUCKETS, else that many (slablab_occupancy_range())
 * @slabs: slabs (slob: heap pages) per bucket, from empty (bucket 0) to full
 *	(bucket @nr - 1)
 */
struct slablab_occupancy {
	unsigned int objs;
	unsigned int nr;
	u64 slabs[SLABLAB_OCCUPANCY_BUCKETS];
};

/**
 * struct slablab_design_ops - a design: the per-cpu front end over the shared back end
 * @name: the design's name (the spec's design enum)
 * @init: set up the per-cpu state of a new cache, or of a cache switching to this
 *	design (every cpu's state was flushed, the cache is empty). May sleep.
 * @destroy: tear down what @init made, after a flush of every cpu (may be NULL)
 * @alloc: one object (for designs the fast-path switch in cache.c does not inline)
 * @free: objects head..tail, @cnt of them, all of @slab, debug checks done
 * @alloc_bulk: all or nothing, as slablab_cache_alloc_bulk()
 * @free_bulk: as slablab_cache_free_bulk(): NULL entries skipped, the array consumed
 * @flush: give per-cpu state back on every online cpu that holds some (every one with
 *	@every_cpu), and wait; returns the slabs freed
 * @flush_dead_cpu: give back the state of a cpu that went offline
 * @relayout: the order or the layout changed (recompute bounds derived from them)
 * @gauges: add the design's per-cpu gauges (cpu_slabs, cpu_partial_slabs)
 * @cpu_view: one cpu's figures for the per-cpu reply (PERCPU nest, debugfs cpus)
 * @layers: count the objects in the design's layers (see struct slablab_layers):
 *	@exact, on each cpu (slablab_on_each_cpu()), or racily from this cpu, queueing
 *	no work (what an unprivileged reader gets)
 * @occupancy: fill the occupancy histogram of a design whose memory is not the back
 *	end's slabs (may be NULL: slablab_backend_occupancy() counts the slabs);
 *	slablab_mutex and cpus_read_lock held
 * @validate: check the design's own slab bookkeeping after the back end's walk (may
 *	be NULL)
 * @cpu_online: a cpu came online (may be NULL; slablab_mutex held)
 * @cpu_offline: a cpu is going offline, called on it (may be NULL; slablab_mutex held)
 * @take: up to @nr free objects through the design's per-cpu layer, from @node unless
 *	NUMA_NO_NODE, not counted as allocations and without the alloc hook (for a design
 *	stacked on this one: s->under); returns how many; no lock of the cache held
 * @give: take back a detached list of @cnt objects of @slab that were counted as freed
 *	when a design stacked on this one got them (free_hook() ran); no lock held
 * @prefill_sheaf: a sheaf of at least @size objects, @size at most the capacity
 *	(slablab_cache_prefill_sheaf()); NULL: the design has no sheaves, every prefill
 *	is a one-off sheaf filled by @alloc_bulk
 * @refill_sheaf: fill a sheaf @prefill_sheaf made to its capacity; 0, or -ENOMEM
 *	when it holds fewer than @size objects
 * @return_sheaf: take a sheaf @prefill_sheaf made back, with what is left in it
 * @free_rcu: take @obj for a free after a grace period in the design's own batching
 *	(sheaves: the rcu_free sheaf), or return false for cache.c's per-cpu batch; any
 *	context, no lock held; may be NULL
 * @rcu_flush: hand every partly filled batch of the design's to RCU (destroy), whose
 *	objects it counts as waiting in the cpu's cache.c batch (nr_waiting) until they are
 *	freed; cpus_read_lock and slablab_mutex held; may be NULL
 *
 * docs/design.md, "Designs", says which locks are held when each is called and what a
 * design must count.
 */
struct slablab_design_ops {
	const char *name;
	int (*init)(struct slablab_cache *s);
	void (*destroy)(struct slablab_cache *s);
	void *(*alloc)(struct slablab_cache *s, gfp_t gfp, int node);
	void (*free)(struct slablab_cache *s, struct slablab_slab *slab, void *head,
		     void *tail, unsigned int cnt);
	int (*alloc_bulk)(struct slablab_cache *s, gfp_t gfp, size_t nr, void **p);
	void (*free_bulk)(struct slablab_cache *s, size_t nr, void **p);
	unsigned long (*flush)(struct slablab_cache *s, enum slablab_flush_mode mode,
			       bool every_cpu);
	void (*flush_dead_cpu)(struct slablab_cache *s, int cpu);
	void (*relayout)(struct slablab_cache *s);
	void (*gauges)(struct slablab_cache *s, struct slablab_gauges *g);
	void (*cpu_view)(struct slablab_cache *s, int cpu, u32 *slab_objects,
			 u32 *partial_slabs, u32 *partial_objects);
	void (*layers)(struct slablab_cache *s, struct slablab_layers *l, bool exact);
	void (*occupancy)(struct slablab_cache *s, struct slablab_occupancy *h);
	void (*validate)(struct slablab_cache *s, struct slablab_validate_report *r);
	void (*cpu_online)(struct slablab_cache *s, int cpu);
	void (*cpu_offline)(struct slablab_cache *s, int cpu);
	unsigned int (*take)(struct slablab_cache *s, gfp_t gfp, int node, void **p,
			     unsigned int nr);
	void (*give)(struct slablab_cache *s, struct slablab_slab *slab, void *head,
		     void *tail, unsigned int cnt);
	struct slablab_sheaf *(*prefill_sheaf)(struct slablab_cache *s, gfp_t gfp,
					       unsigned int size);
	int (*refill_sheaf)(struct slablab_cache *s, gfp_t gfp, struct slablab_sheaf *sheaf,
			    unsigned int size);
	void (*return_sheaf)(struct slablab_cache *s, gfp_t gfp, struct slablab_sheaf *sheaf);
	bool (*free_rcu)(struct slablab_cache *s, void *obj);
	void (*rcu_flush)(struct slablab_cache *s);
};

/* design_slub.c: SLUB 6.1's per-cpu slab and per-cpu partial lists */
extern const struct slablab_design_ops slablab_slub_ops;
int slablab_set_cpu_partial(struct slablab_cache *s, unsigned int objects,
			    struct netlink_ext_ack *extack);
int slablab_selftest_fastpath_race(struct slablab_cache *s);
int slablab_selftest_install_race(struct slablab_cache *s);

/* design_sheaves.c: Linux 7.3's per-cpu sheaves and per-node barns */
extern const struct slablab_design_ops slablab_sheaves_ops;
int slablab_set_sheaf_capacity(struct slablab_cache *s, unsigned int objects,
			       struct netlink_ext_ack *extack);
int slablab_set_barn_max_full(struct slablab_cache *s, unsigned int sheaves,
			      struct netlink_ext_ack *extack);
int slablab_set_barn_max_empty(struct slablab_cache *s, unsigned int sheaves,
			       struct netlink_ext_ack *extack);
int slablab_selftest_sheaf_capacity(struct slablab_cache *s);
int slablab_selftest_pcs_held(struct slablab_cache *s);

/* design_slab.c: SLAB's per-cpu array caches, shared and alien arrays, node slab lists */
extern const struct slablab_design_ops slablab_slab_design_ops;
/* on with selftests=1 (selftest.c): the design counts its cpu lock's acquisitions */
DECLARE_STATIC_KEY_FALSE(slablab_count_cpu_locks);
int slablab_slab_design_check_tunables(struct slablab_cache *s, const u32 *limit,
				       const u32 *batchcount, const u32 *shared,
				       struct netlink_ext_ack *extack);
int slablab_set_cpucache(struct slablab_cache *s, unsigned int limit, unsigned int batchcount,
			 unsigned int shared, struct netlink_ext_ack *extack);
int slablab_set_limit(struct slablab_cache *s, unsigned int objects,
		      struct netlink_ext_ack *extack);
int slablab_set_batchcount(struct slablab_cache *s, unsigned int objects,
			   struct netlink_ext_ack *extack);
int slablab_set_shared(struct slablab_cache *s, unsigned int factor,
		       struct netlink_ext_ack *extack);
int slablab_set_reap_cpu_ms(struct slablab_cache *s, unsigned int ms,
			    struct netlink_ext_ack *extack);
int slablab_set_reap_node_ms(struct slablab_cache *s, unsigned int ms,
			     struct netlink_ext_ack *extack);
int slablab_slab_design_set_lists(struct slablab_cache *s, unsigned int lists,
				  struct netlink_ext_ack *extack);
/* design_slob.c: SLOB's heap (6.1's mm/slob.c), one per lab */
extern const struct slablab_design_ops slablab_slob_ops;
void *slablab_slob_kmalloc(struct slablab_cache *s, size_t size, gfp_t gfp);
size_t slablab_slob_ksize(const void *p);
void slablab_slob_kfree(struct slablab_cache *s, const void *p);
void slablab_slob_validate(struct slablab_cache *s, struct slablab_validate_report *r);
struct seq_file;
void slablab_slob_show(struct seq_file *m);
void slablab_slob_exit(void);

/* backend.c: the shared back end, the bottom layer */
extern bool slablab_selftests;
extern atomic_t slablab_fail_random_seq;
extern atomic_t slablab_fail_random_seq_nth;
extern atomic_t slablab_fail_sheaf_alloc_nth;

/* A selftest_*_nth hook's count: 1 is the Nth, which fails and leaves 0; 0 fails none. */
static inline bool slablab_fail_nth(atomic_t *nth)
{
	return !atomic_dec_if_positive(nth);
}

extern atomic_t slablab_fail_sheaf_alloc;
extern atomic_t slablab_fail_atomic_slabs;
extern u64 slablab_walk_irqoff_max_ns;
extern u64 slablab_walk_irqoff_max_slabs;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
extern struct fault_attr slablab_fail_new_slab;
#endif
extern struct mutex slablab_mutex;
extern struct list_head slablab_caches;
extern unsigned int slablab_caches_gen;
extern unsigned int slablab_page_policy;
unsigned int slablab_nr_caches(void);
unsigned int slablab_default_flags(void);
u32 slablab_features(void);
struct slablab_cache *slablab_cache_find(const char *name);
u64 slablab_stat_cpu(struct slablab_cache *s, int cpu, int item);
u64 slablab_stat_sum(struct slablab_cache *s, int item);
u64 slablab_stat_sum_raw(struct slablab_cache *s, int item);
s64 slablab_stat_sum_raw_alloc(struct slablab_cache *s);
u64 slablab_objects_in_use(struct slablab_cache *s);
void slablab_stat_reset(struct slablab_cache *s, int item); /* item < 0: all */

/* cache.c: the cache API over the designs */
int slablab_cache_api_init(void);
void slablab_cache_api_exit(void);
struct slablab_cache *slablab_cache_create_owner(const char *name, unsigned int size,
						 const struct slablab_cache_args *args,
						 enum slablab_owner owner,
						 struct netlink_ext_ack *extack);
int slablab_cache_destroy_locked(struct slablab_cache *s, struct netlink_ext_ack *extack);
void slablab_rcu_drain(struct slablab_cache *s);
void slablab_cache_release(struct slablab_cache *s);
/*
 * One setter per tunable of SLABLAB_CACHE_TUNABLES, all alike (cache.c's table of them);
 * the registry they are named from is tunables.h's.
 */
int slablab_set_min_partial(struct slablab_cache *s, unsigned int slabs,
			    struct netlink_ext_ack *extack);
int slablab_set_order(struct slablab_cache *s, unsigned int order, struct netlink_ext_ack *extack);
int slablab_set_max_order(struct slablab_cache *s, unsigned int max_order,
			  struct netlink_ext_ack *extack);
int slablab_set_fastpath(struct slablab_cache *s, unsigned int mode,
			 struct netlink_ext_ack *extack);
int slablab_set_fail_slab_every(struct slablab_cache *s, unsigned int n,
				struct netlink_ext_ack *extack);
int slablab_set_flags(struct slablab_cache *s, unsigned int flags, struct netlink_ext_ack *extack);
int slablab_set_remote_node_defrag_ratio(struct slablab_cache *s, unsigned int percent,
					 struct netlink_ext_ack *extack);
int slablab_set_design(struct slablab_cache *s, unsigned int design,
		       struct netlink_ext_ack *extack);
int slablab_set_lists(struct slablab_cache *s, unsigned int lists,
		      struct netlink_ext_ack *extack);
int slablab_set_sheaves_cpu_slabs(struct slablab_cache *s, unsigned int on,
				  struct netlink_ext_ack *extack);
int slablab_check_sheaves_cpu_slabs(struct slablab_cache *s, unsigned int on,
				    struct netlink_ext_ack *extack);
int slablab_check_lists(unsigned int design, unsigned int lists,
			struct netlink_ext_ack *extack);
extern unsigned int slablab_kmalloc_design;
extern unsigned int slablab_kmalloc_lists;

/*
 * The kmalloc size classes (kmalloc.c): slablab_kmalloc()'s, and those the native targets
 * make of the kernel's own (slablab_native_class_create()), which are the same on
 * x86-64: the kernel's kmalloc_info[] with KMALLOC_MIN_SIZE 8, 96 and 192 included. A
 * size goes to the class of the same size on both sides of a comparison.
 */
#define SLABLAB_KMALLOC_CLASSES	13
#define SLABLAB_KMALLOC_MAX	8192	/* the largest class */
extern const unsigned int slablab_kmalloc_sizes[SLABLAB_KMALLOC_CLASSES];
extern const u8 slablab_kmalloc_size_index[24];
extern struct slablab_cache *slablab_kmalloc_caches[SLABLAB_KMALLOC_CLASSES];
extern struct llist_head slablab_kfree_deferred;

/* The index of the class that serves @size (1..SLABLAB_KMALLOC_MAX). */
static __always_inline unsigned int slablab_kmalloc_index(size_t size)
{
	if (size <= 192)
		return slablab_kmalloc_size_index[(size - 1) / 8];
	return fls(size - 1) - 1;	/* 193..256 -> 7 (256), ..., 8192 -> 12 */
}

/* The class of @size, or NULL above the largest (or for 0). */
static __always_inline struct slablab_cache *slablab_kmalloc_class(size_t size)
{
	if (unlikely(size - 1 >= SLABLAB_KMALLOC_MAX))
		return NULL;	/* above the largest class, or 0 (a bad size header) */
	return slablab_kmalloc_caches[slablab_kmalloc_index(size)];
}

/* kmalloc.c, for cache.c: the classes checked at init, frozen for a design switch */
int slablab_kmalloc_class_check(void);
int slablab_kmalloc_freeze(void);
void slablab_kmalloc_thaw(void);
void slablab_kmalloc_free_deferred(void);
unsigned long slablab_kmalloc_direct_pages(void);
struct kmem_cache *slablab_native_class_create(const char *name, unsigned int size);
u64 slablab_kernel_slab_pages(void);

/* cache.c, continued: the kmalloc classes' design, shrink, validate, the gauges ... */
int slablab_set_kmalloc(const u32 *design, const u32 *lists, struct netlink_ext_ack *extack);
void slablab_heap_show(struct seq_file *m);
int slablab_check_tunables(struct slablab_cache *s, const u32 *flags, const u32 *order,
			   const u32 *design, struct netlink_ext_ack *extack);
unsigned long slablab_shrink_locked(struct slablab_cache *s);
unsigned long slablab_cache_empty(struct slablab_cache *s);
void slablab_validate(struct slablab_cache *s, struct slablab_validate_report *r);
void slablab_gauges(struct slablab_cache *s, struct slablab_gauges *g);
void slablab_cache_api_exit_caches(void);
void slablab_cpu_view(struct slablab_cache *s, int cpu, u32 *slab_objects,
		      u32 *partial_slabs, u32 *partial_objects);
void slablab_layers(struct slablab_cache *s, struct slablab_layers *l, bool exact);
void slablab_occupancy(struct slablab_cache *s, struct slablab_occupancy *h);
void slablab_occupancy_range(const struct slablab_occupancy *h, unsigned int bucket,
			     unsigned int *lo, unsigned int *hi);
u64 slablab_backend_objects_partial(struct slablab_cache *s, u64 *nodes);
void slablab_set_cache_observer(const struct slablab_cache_observer *obs);

/* debugfs.c (which has selftest.c add the test hooks' files: debugfs.h) */
int slablab_debugfs_init(void);
void slablab_debugfs_exit(void);

/* netlink.c: the generic netlink family (netlink.h: what its files share) */
int slablab_netlink_init(void);
void slablab_netlink_exit(void);
/* netlink-cache.c: selftests only, the cache dump's per-cpu entries per message */
extern unsigned int slablab_selftest_dump_percpu_max;

/* handles.c: scripted allocations (the handles, and the runs on a chosen cpu) */
int slablab_handle_alloc(struct slablab_cache *s, u32 count, int cpu, u32 *id,
			 struct netlink_ext_ack *extack);
int slablab_handle_free(u32 id, int cpu, u32 count, u32 *left, struct netlink_ext_ack *extack);
u64 slablab_handles_objects(struct slablab_cache *s);
void slablab_handles_release_cache(struct slablab_cache *s);
void slablab_handles_release_all(void);

#endif /* _SLABLAB_INTERNAL_H */
