/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * slablab: a laboratory for Linux slab allocators — generic netlink protocol.
 *
 * Family name: "slablab" (SLABLAB_GENL_NAME), version 1 (SLABLAB_GENL_VERSION).
 *
 * Every message carries attributes from enum slablab_attr at the top level. Cache
 * descriptions are nested under SLABLAB_A_CACHE using enum slablab_cache_attr; their
 * statistics are nested once more under SLABLAB_CACHE_A_STATS (one u64 per enum
 * slablab_stat_item, attribute type = item + 1) and, per cpu, under
 * SLABLAB_CACHE_A_PERCPU as a list of SLABLAB_PERCPU_A_ENTRY nests.
 *
 * Commands (→ request, ← reply). [ADMIN] commands change state and need CAP_SYS_ADMIN
 * (the module checks it: EPERM with an extack message) and, like every admin generic
 * netlink command, CAP_NET_ADMIN (GENL_ADMIN_PERM: EPERM before the request is parsed);
 * a handler allocates its reply before changing anything, so a request that fails
 * changes nothing. Every request is validated strictly: unknown attributes are rejected
 * with -EINVAL and an extack message naming the attribute.
 *
 * SLABLAB_CMD_GET_STATUS
 *   → (nothing)
 *   ← SLABLAB_A_VERSION           string  module version, e.g. "0.1.0"
 *     SLABLAB_A_API_VERSION       u32     SLABLAB_GENL_VERSION the module speaks
 *     SLABLAB_A_KERNEL_RELEASE    string  utsname()->release
 *     SLABLAB_A_NR_CPU_IDS        u32
 *     SLABLAB_A_NR_ONLINE_CPUS    u32
 *     SLABLAB_A_NR_NODES          u32     online NUMA nodes
 *     SLABLAB_A_PAGE_SIZE         u32
 *     SLABLAB_A_NR_CACHES         u32
 *     SLABLAB_A_FEATURES          u32     SLABLAB_FEAT_* bits of this kernel and build
 *     SLABLAB_A_KMALLOC_PAGE_POLICY u32   enum slablab_page_policy in force
 *
 * SLABLAB_CMD_CACHE_NEW [ADMIN]
 *   → SLABLAB_A_CACHE { NAME (required), SIZE (required), ALIGN, FLAGS, CPU_PARTIAL,
 *                       MIN_PARTIAL, ORDER, FASTPATH }
 *   ← the new cache as for CACHE_GET
 *
 * SLABLAB_CMD_CACHE_DEL [ADMIN]
 *   → SLABLAB_A_CACHE { NAME }
 *   First releases the cache's scripted-allocation handles (OBJ_ALLOC), freeing their
 *   objects; then fails with -EBUSY (extack names the live object count) while objects
 *   are still allocated by anyone else (a storm, a kernel user), with -EPERM for caches
 *   owned by slablab's kmalloc or by another module.
 *
 * SLABLAB_CMD_CACHE_GET
 *   → SLABLAB_A_CACHE { NAME }   (doit)   or nothing with NLM_F_DUMP (every cache)
 *   ← SLABLAB_A_CACHE { NAME, SIZE, ALIGN, FLAGS, CPU_PARTIAL, MIN_PARTIAL, ORDER,
 *                       FASTPATH, OBJ_STRIDE, OBJS_PER_SLAB, ORDER_DEFAULT, OWNER,
 *                       gauges (OBJECTS … LIVE_BYTES, META_BYTES), STATS { … },
 *                       PERCPU { ENTRY { CPU, CPU_SLAB_OBJECTS, CPU_PARTIAL_SLABS,
 *                                        CPU_PARTIAL_OBJECTS, STATS { … } } … } }
 *   A single-cache reply (doit) always carries PERCPU; dumps leave it out unless
 *   SLABLAB_A_FLAGS has SLABLAB_GET_F_PERCPU. Stats nests hold u64 attributes only;
 *   attribute type 0 inside them is alignment padding and is to be ignored.
 *   In a dump, a cache whose per-cpu entries do not fit one message (~350 bytes a cpu)
 *   spans several consecutive messages: the first carries the whole cache and the
 *   entries that fit, each following one only SLABLAB_A_CACHE { NAME, PERCPU { ENTRY
 *   … } } with further entries (no SIZE: that tells a continuation from a cache). A
 *   reader appends those entries to the cache before. Entries come in cpu order.
 *   A dump during which a cache was created or destroyed has NLM_F_DUMP_INTR on some
 *   message from the change on (possibly only on NLMSG_DONE): check every message. Such
 *   a dump may have skipped or repeated a cache, and is to be dumped again.
 *
 * SLABLAB_CMD_CACHE_SET [ADMIN]
 *   → SLABLAB_A_CACHE { NAME, any of CPU_PARTIAL, MIN_PARTIAL, ORDER, FASTPATH, FLAGS }
 *   All values are checked before any is applied: a bad request changes nothing.
 *   ORDER is checked against the layout FLAGS give (with FLAGS=DEBUG the slot grows by
 *   a red zone and a free pointer, so a 4096-byte cache needs order 1): -ERANGE for an
 *   order too small for it, -EBUSY for FLAGS of a cache holding objects.
 *   ← the cache as for CACHE_GET
 *   A reply that cannot be delivered (-EAGAIN: the caller's receive queue is full)
 *   does not undo the change: read the cache back with CACHE_GET.
 *
 * SLABLAB_CMD_CACHE_SHRINK [ADMIN]
 *   → SLABLAB_A_CACHE { NAME }
 *   ← SLABLAB_A_CACHE { NAME, SLABS_FREED, gauges }
 *   Flushes every cpu's slab and partial list, then frees empty node-list slabs beyond
 *   MIN_PARTIAL. SLABS_FREED counts every slab the shrink gave back, those the flush
 *   freed included: on a quiet cache it is SLABS before minus SLABS after.
 *
 * SLABLAB_CMD_CACHE_VALIDATE [ADMIN]
 *   → SLABLAB_A_CACHE { NAME }
 *   ← SLABLAB_A_CACHE { NAME }, SLABLAB_A_VALIDATE { SLABS, OBJECTS, FREE_OBJECTS,
 *                                                    ERRORS, FIRST_ERROR }
 *
 * SLABLAB_CMD_CACHE_RESET_STATS [ADMIN]
 *   → SLABLAB_A_CACHE { NAME }
 *
 * SLABLAB_CMD_OBJ_ALLOC [ADMIN]   scripted allocation into a kernel-held handle
 *   → SLABLAB_A_CACHE { NAME }, SLABLAB_A_COUNT u32 (1..SLABLAB_MAX_HANDLE_OBJECTS),
 *     SLABLAB_A_CPU u32 (optional, an online cpu; default: any)
 *   ← SLABLAB_A_HANDLE u32, SLABLAB_A_COUNT u32 (objects held)
 *   Run by the storm engine: a one-thread storm on the cache, in a worker kthread bound
 *   to CPU (without CPU: in the caller's context). All or nothing: -ENOMEM (extack
 *   "allocation of N objects from CACHE failed") when any allocation fails, and then
 *   nothing is held. At most SLABLAB_MAX_HANDLES handles (-ENOSPC) holding at most
 *   SLABLAB_MAX_HANDLE_BYTES of objects (COUNT x object size; -E2BIG). A cpu that is
 *   not online: -EINVAL "cpu N is not online". A cache of another kernel module (owner
 *   SLABLAB_OWNER_KERNEL; it may be destroyed any time): -EPERM. Storms refuse such a
 *   cache as their target the same way. When the reply cannot be delivered (-EAGAIN:
 *   the caller's receive queue is full) the objects are freed again and no handle
 *   remains: a caller that sees no reply owns nothing.
 *
 * SLABLAB_CMD_OBJ_FREE [ADMIN]
 *   → SLABLAB_A_HANDLE u32, SLABLAB_A_CPU u32 (optional), SLABLAB_A_COUNT u32 (optional:
 *     free only that many, newest first; default all, which releases the handle)
 *   ← SLABLAB_A_HANDLE, SLABLAB_A_COUNT (objects still held)
 *   Run like OBJ_ALLOC. -ENOENT for an unknown handle, -ERANGE for a COUNT over what it
 *   holds, -ENOMEM when no worker could be started on CPU; nothing is freed then.
 *
 * SLABLAB_CMD_LAB_SET [ADMIN]
 *   → SLABLAB_A_KMALLOC_PAGE_POLICY u32
 *
 * Reserved values (test hooks that left the netlink ABI for debugfs; their numbers are
 * never reused):
 *   command 12, formerly SLABLAB_CMD_SELFTEST_WARN: now debugfs slablab/selftest_warn
 *     (selftests=1). The module answers it, like any unknown command, -EOPNOTSUPP.
 *   SLABLAB_CACHE_A_FAIL_SLAB_EVERY: now debugfs slablab/caches/<name>/fail_slab_every
 *     (and, where the kernel has CONFIG_FAULT_INJECTION_DEBUG_FS, slablab/fail_new_slab/).
 *     Requests carrying it are rejected (-EINVAL, unsupported attribute); replies never
 *     carry it.
 *
 * SLABLAB_CMD_STORM_START [ADMIN]   run an allocation storm (asynchronous)
 *   → SLABLAB_A_STORM { TARGET (required), PATTERN (required), CACHE, SIZE, SIZES,
 *                       THREADS, CPUS, OPS, DURATION_MS, BATCH, WORKING_SET, RING,
 *                       SEED, MAX_LIVE_BYTES }
 *   ← SLABLAB_A_STORM { ID, STATE, spec as applied (defaults filled in) }
 *   One storm runs at a time in the whole lab: a second START is refused with -EBUSY
 *   (measurements of two storms at once would disturb each other). The result of the
 *   last storm stays readable until the next START replaces it. Every limit is given
 *   next to its attribute below; values outside the attribute's range fail with
 *   -ERANGE (the kernel's policy check, which reports the range), the others with the
 *   errno and an extack message naming the limit. An OPS storm runs exactly OPS ops per
 *   thread (a final partial batch if need be): OPS_DONE = OPS_PLANNED when it is DONE.
 *   A cpu of CPUS that goes offline while the storm is set up: -EINVAL "cpu N went
 *   offline during set-up". A storm whose reply cannot be delivered is stopped again (STOPPED).
 *   MAX_LIVE_BYTES is checked against what the storm may hold at the cache's tunables
 *   in force at START (live objects in real slot sizes, cpu and node partial slabs,
 *   the storm's own bookkeeping); raising them during the storm is not re-checked.
 *
 * SLABLAB_CMD_STORM_GET
 *   → SLABLAB_A_STORM { ID } (optional: the last storm)
 *   ← SLABLAB_A_STORM { ID, STATE, spec, progress (OPS_PLANNED, OPS_DONE, ELAPSED_NS),
 *                       and once finished the results (ALLOCS … STATS, THREAD list) }
 *   Before the first storm: SLABLAB_A_STORM { ID = 0, STATE = SLABLAB_STORM_NONE } and
 *   nothing else; with an ID, -ENOENT. An ID other than the last storm's: -ENOENT.
 *
 * SLABLAB_CMD_STORM_STOP [ADMIN]
 *   → SLABLAB_A_STORM { ID } (optional)
 *   A running storm is asked to stop (threads finish their current chunk) and waited
 *   for; the reply is as for STORM_GET, STATE = SLABLAB_STORM_STOPPED, with what was
 *   done so far. A storm that had already finished is left alone: the reply is its
 *   final result with its real state (DONE, or STOPPED). Before the first storm the
 *   reply is as for STORM_GET (STATE = SLABLAB_STORM_NONE).
 *
 * Storm targets (SLABLAB_STORM_A_TARGET, enum slablab_storm_target):
 *   CACHE     the slablab cache named by CACHE;
 *   NATIVE    a kernel kmem_cache the module creates for the storm with the size,
 *             alignment and flags of the slablab cache named by CACHE (or SIZE alone):
 *             the kernel's own SLUB, never merged under slab_nomerge;
 *   KMALLOC   slablab_kmalloc()/slablab_kfree() with SIZE or the SIZES distribution;
 *   NATIVE_KMALLOC  the kernel's kmalloc()/kfree(), same sizes.
 * Patterns (enum slablab_storm_pattern): see docs/storms.md for what each models.
 * Memory at the peak (PEAK_PAGES, PEAK_LIVE_BYTES, META_BYTES) is sampled every 50 ms
 * and by the storm threads themselves once their working set is full (churn: also just
 * before they free it), so a storm of any length reports its steady state.
 *
 * Enums end in __SLABLAB_*_MAX; new values only ever go at the end.
 */
#ifndef _UAPI_LINUX_SLABLAB_H
#define _UAPI_LINUX_SLABLAB_H

#include <linux/types.h>

#define SLABLAB_GENL_NAME	"slablab"
#define SLABLAB_GENL_VERSION	1

/** Longest cache name, including the terminating NUL. Names match [A-Za-z0-9_.:-]+. */
#define SLABLAB_NAME_MAX	32
#define SLABLAB_MIN_SIZE	8
#define SLABLAB_MAX_SIZE	32768
#define SLABLAB_MAX_ALIGN	4096
/** Largest slab order a cache may use (PAGE_ALLOC_COSTLY_ORDER + 1). */
#define SLABLAB_MAX_ORDER	4
#define SLABLAB_MAX_CPU_PARTIAL	65536
#define SLABLAB_MAX_MIN_PARTIAL	1024
#define SLABLAB_MAX_HANDLE_OBJECTS	1048576
#define SLABLAB_MAX_HANDLE_BYTES	(256ULL << 20)
#define SLABLAB_MAX_HANDLES	1024

enum slablab_cmd {
	SLABLAB_CMD_UNSPEC,
	SLABLAB_CMD_GET_STATUS,
	SLABLAB_CMD_CACHE_NEW,
	SLABLAB_CMD_CACHE_DEL,
	SLABLAB_CMD_CACHE_GET,
	SLABLAB_CMD_CACHE_SET,
	SLABLAB_CMD_CACHE_SHRINK,
	SLABLAB_CMD_CACHE_VALIDATE,
	SLABLAB_CMD_CACHE_RESET_STATS,
	SLABLAB_CMD_OBJ_ALLOC,
	SLABLAB_CMD_OBJ_FREE,
	SLABLAB_CMD_LAB_SET,
	/* 12: reserved (was SELFTEST_WARN, now debugfs slablab/selftest_warn) */
	SLABLAB_CMD_STORM_START = 13,
	SLABLAB_CMD_STORM_GET,
	SLABLAB_CMD_STORM_STOP,
	__SLABLAB_CMD_MAX
};

#define SLABLAB_CMD_MAX (__SLABLAB_CMD_MAX - 1)

enum slablab_attr {
	SLABLAB_A_UNSPEC,
	SLABLAB_A_VERSION,		/* string */
	SLABLAB_A_API_VERSION,		/* u32 */
	SLABLAB_A_KERNEL_RELEASE,	/* string */
	SLABLAB_A_NR_CPU_IDS,		/* u32 */
	SLABLAB_A_NR_ONLINE_CPUS,	/* u32 */
	SLABLAB_A_NR_NODES,		/* u32 */
	SLABLAB_A_PAGE_SIZE,		/* u32 */
	SLABLAB_A_NR_CACHES,		/* u32 */
	SLABLAB_A_FEATURES,		/* u32, SLABLAB_FEAT_* */
	SLABLAB_A_KMALLOC_PAGE_POLICY,	/* u32, enum slablab_page_policy */
	SLABLAB_A_CACHE,		/* nest, enum slablab_cache_attr */
	SLABLAB_A_FLAGS,		/* u32, SLABLAB_GET_F_* (request modifiers) */
	SLABLAB_A_HANDLE,		/* u32 */
	SLABLAB_A_COUNT,		/* u32 */
	SLABLAB_A_CPU,			/* u32 */
	SLABLAB_A_VALIDATE,		/* nest, enum slablab_validate_attr */
	SLABLAB_A_PAD,
	SLABLAB_A_STORM,		/* nest, enum slablab_storm_attr */
	__SLABLAB_A_MAX
};

#define SLABLAB_A_MAX (__SLABLAB_A_MAX - 1)

/** enum slablab_feature - SLABLAB_A_FEATURES bits: what this kernel/build does */
enum slablab_feature {
	SLABLAB_FEAT_INIT_ON_ALLOC	= 1U << 0,	/* want_init_on_alloc(GFP_KERNEL) */
	SLABLAB_FEAT_INIT_ON_FREE	= 1U << 1,	/* want_init_on_free() */
	SLABLAB_FEAT_FREELIST_HARDENED	= 1U << 2,	/* CONFIG_SLAB_FREELIST_HARDENED */
	SLABLAB_FEAT_FREELIST_RANDOM	= 1U << 3,	/* CONFIG_SLAB_FREELIST_RANDOM */
	SLABLAB_FEAT_CMPXCHG_DOUBLE	= 1U << 4,	/* double-word cmpxchg available */
	SLABLAB_FEAT_SELFTEST		= 1U << 5,	/* module loaded with selftests=1 */
	SLABLAB_FEAT_PREEMPT_RT		= 1U << 6,	/* CONFIG_PREEMPT_RT */
	__SLABLAB_FEAT_ALL		= (1U << 7) - 1
};

/** enum slablab_get_flags - SLABLAB_A_FLAGS bits for SLABLAB_CMD_CACHE_GET */
enum slablab_get_flags {
	SLABLAB_GET_F_PERCPU	= 1U << 0,	/* include per-cpu breakdown in dumps */
	__SLABLAB_GET_F_ALL	= (1U << 1) - 1
};

/**
 * enum slablab_page_policy - how slablab_kmalloc serves requests of PAGE_SIZE
 * @SLABLAB_PAGE_POLICY_SLAB: a PAGE_SIZE size class whose slabs use
 *	PAGE_ALLOC_COSTLY_ORDER (8 objects per 32 KiB slab, seed 004's fix)
 * @SLABLAB_PAGE_POLICY_PAGE_ALLOC: handed to the page allocator, as SLUB did in 2008
 */
enum slablab_page_policy {
	SLABLAB_PAGE_POLICY_SLAB,
	SLABLAB_PAGE_POLICY_PAGE_ALLOC,
	__SLABLAB_PAGE_POLICY_MAX
};

/** enum slablab_cache_flags - SLABLAB_CACHE_A_FLAGS bits */
enum slablab_cache_flags {
	SLABLAB_CACHE_F_DEBUG		= 1U << 0,	/* poison, red zones, free-pointer checks */
	SLABLAB_CACHE_F_HARDENED	= 1U << 1,	/* obfuscate free pointers */
	SLABLAB_CACHE_F_RANDOM		= 1U << 2,	/* randomize fresh slabs' freelists */
	SLABLAB_CACHE_F_HWCACHE_ALIGN	= 1U << 3,	/* align objects to cache lines */
	__SLABLAB_CACHE_F_ALL		= (1U << 4) - 1
};

/** enum slablab_fastpath - SLABLAB_CACHE_A_FASTPATH values */
enum slablab_fastpath {
	SLABLAB_FASTPATH_CMPXCHG,	/* lockless: freelist + tid, double-word cmpxchg */
	SLABLAB_FASTPATH_IRQOFF,	/* local_irq_save() around the per-cpu freelist */
	__SLABLAB_FASTPATH_MAX
};

/** enum slablab_owner - who created a cache (SLABLAB_CACHE_A_OWNER) */
enum slablab_owner {
	SLABLAB_OWNER_NETLINK,		/* created through CACHE_NEW; destroyed on unload */
	SLABLAB_OWNER_KERNEL,		/* created by a module through the exported API */
	SLABLAB_OWNER_KMALLOC,		/* one of slablab's kmalloc size classes */
	__SLABLAB_OWNER_MAX
};

enum slablab_cache_attr {
	SLABLAB_CACHE_A_UNSPEC,
	SLABLAB_CACHE_A_NAME,		/* string, < SLABLAB_NAME_MAX */
	SLABLAB_CACHE_A_SIZE,		/* u32, object size asked for */
	SLABLAB_CACHE_A_ALIGN,		/* u32, power of two, 0 = default */
	SLABLAB_CACHE_A_FLAGS,		/* u32, SLABLAB_CACHE_F_* */
	SLABLAB_CACHE_A_CPU_PARTIAL,	/* u32, objects; 0 disables per-cpu partial lists */
	SLABLAB_CACHE_A_MIN_PARTIAL,	/* u32, slabs kept on each node list */
	SLABLAB_CACHE_A_ORDER,		/* u32, order of new slabs */
	SLABLAB_CACHE_A_FASTPATH,	/* u32, enum slablab_fastpath */
	SLABLAB_CACHE_A_OBJ_STRIDE,	/* u32, bytes per object in a slab (slab_size) */
	SLABLAB_CACHE_A_OBJS_PER_SLAB,	/* u32, at the current order */
	SLABLAB_CACHE_A_ORDER_DEFAULT,	/* u32, what the order policy chose */
	SLABLAB_CACHE_A_OWNER,		/* u32, enum slablab_owner */
	SLABLAB_CACHE_A_OBJECTS,	/* u64, objects in use */
	SLABLAB_CACHE_A_TOTAL_OBJECTS,	/* u64, object capacity of all slabs */
	SLABLAB_CACHE_A_SLABS,		/* u64 */
	SLABLAB_CACHE_A_PARTIAL_SLABS,	/* u64, on node partial lists */
	SLABLAB_CACHE_A_CPU_SLABS,	/* u64, active per-cpu slabs */
	SLABLAB_CACHE_A_CPU_PARTIAL_SLABS, /* u64, on per-cpu partial lists */
	SLABLAB_CACHE_A_PAGES,		/* u64 */
	SLABLAB_CACHE_A_LIVE_BYTES,	/* u64, objects in use × object size */
	SLABLAB_CACHE_A_STATS,		/* nest: u64 per enum slablab_stat_item (type = item + 1) */
	SLABLAB_CACHE_A_PERCPU,		/* nest of SLABLAB_PERCPU_A_ENTRY */
	SLABLAB_CACHE_A_SLABS_FREED,	/* u64, reply to SHRINK */
	SLABLAB_CACHE_A_META_BYTES,	/* u64, off-slab metadata bytes */
	SLABLAB_CACHE_A_PAD,
	SLABLAB_CACHE_A_FAIL_SLAB_EVERY, /* no longer used: reserved (see the top comment) */
	__SLABLAB_CACHE_A_MAX
};

#define SLABLAB_CACHE_A_MAX (__SLABLAB_CACHE_A_MAX - 1)

enum slablab_percpu_attr {
	SLABLAB_PERCPU_A_UNSPEC,
	SLABLAB_PERCPU_A_ENTRY,		/* nest, one per possible cpu with any activity */
	SLABLAB_PERCPU_A_CPU,		/* u32 */
	SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS, /* u32, objects of the active slab */
	SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS, /* u32 */
	SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS, /* u32, free objects on the partial list */
	SLABLAB_PERCPU_A_STATS,		/* nest: as SLABLAB_CACHE_A_STATS */
	SLABLAB_PERCPU_A_PAD,
	__SLABLAB_PERCPU_A_MAX
};

#define SLABLAB_PERCPU_A_MAX (__SLABLAB_PERCPU_A_MAX - 1)

enum slablab_validate_attr {
	SLABLAB_VALIDATE_A_UNSPEC,
	SLABLAB_VALIDATE_A_SLABS,	/* u64, slabs walked */
	SLABLAB_VALIDATE_A_OBJECTS,	/* u64, object slots walked */
	SLABLAB_VALIDATE_A_FREE_OBJECTS, /* u64, objects found on freelists */
	SLABLAB_VALIDATE_A_ERRORS,	/* u32 */
	SLABLAB_VALIDATE_A_FIRST_ERROR,	/* string */
	SLABLAB_VALIDATE_A_PAD,
	__SLABLAB_VALIDATE_A_MAX
};

#define SLABLAB_VALIDATE_A_MAX (__SLABLAB_VALIDATE_A_MAX - 1)

/*
 * enum slablab_stat_item - per-cpu event counters, SLUB_STATS' set and meaning.
 * Their debugfs file names are the lower-case names without the prefix.
 */
enum slablab_stat_item {
	SLABLAB_ALLOC_FASTPATH,		/* allocation from the cpu slab's freelist */
	SLABLAB_ALLOC_SLOWPATH,		/* allocation that took the slow path */
	SLABLAB_FREE_FASTPATH,		/* free to the cpu slab's freelist */
	SLABLAB_FREE_SLOWPATH,		/* free to a slab that is not the cpu slab */
	SLABLAB_FREE_FROZEN,		/* slow-path free to a frozen (cpu-owned) slab */
	SLABLAB_FREE_ADD_PARTIAL,	/* free made a full slab partial: onto a list */
	SLABLAB_FREE_REMOVE_PARTIAL,	/* free emptied a slab: off the node list */
	SLABLAB_ALLOC_FROM_PARTIAL,	/* cpu slab taken from the node partial list */
	SLABLAB_ALLOC_SLAB,		/* new slab from the page allocator */
	SLABLAB_ALLOC_REFILL,		/* cpu freelist refilled from the slab's freelist */
	SLABLAB_ALLOC_NODE_MISMATCH,	/* cpu slab switched: node did not match */
	SLABLAB_FREE_SLAB,		/* slab returned to the page allocator */
	SLABLAB_CPUSLAB_FLUSH,		/* cpu slab flushed (shrink, tunable change, hotplug) */
	SLABLAB_DEACTIVATE_FULL,	/* cpu slab deactivated full */
	SLABLAB_DEACTIVATE_EMPTY,	/* cpu slab deactivated empty */
	SLABLAB_DEACTIVATE_TO_HEAD,	/* cpu slab deactivated to the partial list head */
	SLABLAB_DEACTIVATE_TO_TAIL,	/* cpu slab deactivated to the partial list tail */
	SLABLAB_DEACTIVATE_REMOTE_FREES, /* deactivated slab had remote frees */
	SLABLAB_DEACTIVATE_BYPASS,	/* cpu freelist empty: slab released without deactivation */
	SLABLAB_ORDER_FALLBACK,		/* high-order page allocation failed: lower order used */
	SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL, /* per-cpu cmpxchg lost a race (retried) */
	SLABLAB_CMPXCHG_DOUBLE_FAIL,	/* slab freelist cmpxchg lost a race (retried) */
	SLABLAB_CPU_PARTIAL_ALLOC,	/* cpu slab taken from the cpu partial list */
	SLABLAB_CPU_PARTIAL_FREE,	/* slab put on a cpu partial list by a free */
	SLABLAB_CPU_PARTIAL_NODE,	/* slab moved from node list to cpu partial list */
	SLABLAB_CPU_PARTIAL_DRAIN,	/* cpu partial list drained to the node list */
	__SLABLAB_STAT_MAX
};

#define SLABLAB_STAT_MAX (__SLABLAB_STAT_MAX - 1)

/* Storm limits (the ranges are also given next to each attribute) */
#define SLABLAB_STORM_MAX_THREADS	256
#define SLABLAB_STORM_MAX_DURATION_MS	600000	/* every storm ends within 10 minutes */
/* OPS per thread: more could never finish within SLABLAB_STORM_MAX_DURATION_MS */
#define SLABLAB_STORM_MAX_OPS		1099511627776ULL	/* 2^40 */
#define SLABLAB_STORM_MAX_BATCH		65536
#define SLABLAB_STORM_MAX_WORKING_SET	4194304
#define SLABLAB_STORM_MIN_RING		2
#define SLABLAB_STORM_MAX_RING		65536
#define SLABLAB_STORM_MAX_SIZES		16	/* SIZES entries */
#define SLABLAB_STORM_MAX_WEIGHT	1000000	/* of one SIZES entry */
#define SLABLAB_STORM_CPUS_MAX		256	/* length of the CPUS list string */

/**
 * enum slablab_storm_target - what a storm allocates from
 * @SLABLAB_TARGET_CACHE: a slablab cache (CACHE)
 * @SLABLAB_TARGET_NATIVE: a kernel kmem_cache made like the slablab cache (CACHE) or
 *	of SIZE bytes
 * @SLABLAB_TARGET_KMALLOC: slablab_kmalloc with SIZE or SIZES
 * @SLABLAB_TARGET_NATIVE_KMALLOC: the kernel's kmalloc with SIZE or SIZES
 */
enum slablab_storm_target {
	SLABLAB_TARGET_CACHE,
	SLABLAB_TARGET_NATIVE,
	SLABLAB_TARGET_KMALLOC,
	SLABLAB_TARGET_NATIVE_KMALLOC,
	__SLABLAB_TARGET_MAX
};

/**
 * enum slablab_storm_pattern - the workload each storm thread runs
 * @SLABLAB_PATTERN_PAIR: alloc + free in a tight loop (the fast path; slab_test)
 * @SLABLAB_PATTERN_BATCH: BATCH allocs then BATCH frees, each phase timed
 * @SLABLAB_PATTERN_REMOTE: even threads allocate, odd threads free what their partner
 *	allocated, through a RING-slot ring (networking's skb pattern)
 * @SLABLAB_PATTERN_CHURN: WORKING_SET live objects per thread, a random one replaced
 *	each op (fragmentation and memory overhead)
 * @SLABLAB_PATTERN_BULK: alloc_bulk / free_bulk of BATCH objects
 */
enum slablab_storm_pattern {
	SLABLAB_PATTERN_PAIR,
	SLABLAB_PATTERN_BATCH,
	SLABLAB_PATTERN_REMOTE,
	SLABLAB_PATTERN_CHURN,
	SLABLAB_PATTERN_BULK,
	__SLABLAB_PATTERN_MAX
};

/** enum slablab_storm_state - SLABLAB_STORM_A_STATE */
enum slablab_storm_state {
	SLABLAB_STORM_NONE,		/* no storm has run */
	SLABLAB_STORM_RUNNING,
	SLABLAB_STORM_DONE,		/* ran to its OPS or DURATION_MS */
	SLABLAB_STORM_STOPPED,		/* stopped early (STORM_STOP, unload, time cap) */
	__SLABLAB_STORM_STATE_MAX
};

enum slablab_storm_attr {
	SLABLAB_STORM_A_UNSPEC,
	/* the specification */
	SLABLAB_STORM_A_TARGET,		/* u32, enum slablab_storm_target */
	SLABLAB_STORM_A_PATTERN,	/* u32, enum slablab_storm_pattern */
	/* string < SLABLAB_NAME_MAX: slablab cache (CACHE; NATIVE's model); -ENOENT if none */
	SLABLAB_STORM_A_CACHE,
	/* u32 1..SLABLAB_MAX_SIZE: object size (NATIVE without CACHE, kmalloc) */
	SLABLAB_STORM_A_SIZE,
	/* nest of up to SLABLAB_STORM_MAX_SIZES SLABLAB_STORM_SIZE_A_ENTRY (kmalloc) */
	SLABLAB_STORM_A_SIZES,
	/* u32 1..SLABLAB_STORM_MAX_THREADS, default: one per cpu of CPUS; remote: even */
	SLABLAB_STORM_A_THREADS,
	/* string < SLABLAB_STORM_CPUS_MAX: cpu list ("0-3,6") of online cpus, default online */
	SLABLAB_STORM_A_CPUS,
	/* u64 1..SLABLAB_STORM_MAX_OPS per thread (remote: per producer), default 100000 */
	SLABLAB_STORM_A_OPS,
	/* u32 1..SLABLAB_STORM_MAX_DURATION_MS, instead of OPS */
	SLABLAB_STORM_A_DURATION_MS,
	/* u32 1..SLABLAB_STORM_MAX_BATCH: batch/bulk size, default 16 */
	SLABLAB_STORM_A_BATCH,
	/* u32 1..SLABLAB_STORM_MAX_WORKING_SET: churn objects per thread, default 4096 */
	SLABLAB_STORM_A_WORKING_SET,
	/* u32: remote ring slots, a power of two SLABLAB_STORM_MIN_RING..MAX_RING, default 256 */
	SLABLAB_STORM_A_RING,
	SLABLAB_STORM_A_SEED,		/* u64: RNG seed (churn, sizes), default 1 */
	/*
	 * u64 1..RAM / 2 (-ERANGE): cap on the memory the spec may hold at once, the objects
	 * each pattern keeps as the target really allocates them plus the storm's own
	 * bookkeeping (-E2BIG if over; docs/storms.md); default RAM / 4
	 */
	SLABLAB_STORM_A_MAX_LIVE_BYTES,
	/* state and progress */
	SLABLAB_STORM_A_ID,		/* u32, from 1; 0 only in the STATE NONE reply */
	SLABLAB_STORM_A_STATE,		/* u32, enum slablab_storm_state */
	SLABLAB_STORM_A_OPS_PLANNED,	/* u64, all threads; 0 for duration storms */
	SLABLAB_STORM_A_OPS_DONE,	/* u64, all threads */
	SLABLAB_STORM_A_ELAPSED_NS,	/* u64, start barrier to last thread done */
	/* results */
	SLABLAB_STORM_A_ALLOCS,		/* u64 objects allocated in timed loops */
	SLABLAB_STORM_A_FREES,		/* u64 objects freed in timed loops */
	/* u64 cycles in timed alloc loops (batch, bulk, remote producers, churn) */
	SLABLAB_STORM_A_ALLOC_CYCLES,
	SLABLAB_STORM_A_FREE_CYCLES,	/* u64 cycles in timed free loops */
	SLABLAB_STORM_A_PAIR_CYCLES,	/* u64 cycles in pair loops (alloc + free) */
	/* u64 cycles of 1000 iterations of an empty timed loop (not subtracted) */
	SLABLAB_STORM_A_LOOP_CYCLES,
	SLABLAB_STORM_A_FAILURES,	/* u64 allocations that returned NULL */
	SLABLAB_STORM_A_PEAK_PAGES,	/* u64 pages held by the target at the peak */
	SLABLAB_STORM_A_PEAK_LIVE_BYTES, /* u64 bytes of live objects at that moment */
	SLABLAB_STORM_A_META_BYTES,	/* u64 slablab off-slab metadata at the peak */
	SLABLAB_STORM_A_CYCLES_PER_SEC,	/* u64 get_cycles() rate (tsc_khz x 1000) */
	SLABLAB_STORM_A_FEATURES,	/* u32 SLABLAB_FEAT_* the kernel ran with */
	SLABLAB_STORM_A_CACHE_FLAGS,	/* u32 SLABLAB_CACHE_F_* of the target cache */
	SLABLAB_STORM_A_THREAD_LIST,	/* nest of SLABLAB_STORM_THREAD_A_ENTRY */
	/* nest: stat deltas over the storm (slablab targets), as SLABLAB_CACHE_A_STATS */
	SLABLAB_STORM_A_STATS,
	SLABLAB_STORM_A_NATIVE_NAME,	/* string: the kernel cache's name (NATIVE) */
	SLABLAB_STORM_A_PAD,
	__SLABLAB_STORM_A_MAX
};

#define SLABLAB_STORM_A_MAX (__SLABLAB_STORM_A_MAX - 1)

enum slablab_storm_size_attr {
	SLABLAB_STORM_SIZE_A_UNSPEC,
	SLABLAB_STORM_SIZE_A_ENTRY,	/* nest */
	SLABLAB_STORM_SIZE_A_SIZE,	/* u32 bytes, 1..SLABLAB_MAX_SIZE (required) */
	SLABLAB_STORM_SIZE_A_WEIGHT,	/* u32 relative weight, 1..SLABLAB_STORM_MAX_WEIGHT */
	__SLABLAB_STORM_SIZE_A_MAX
};

#define SLABLAB_STORM_SIZE_A_MAX (__SLABLAB_STORM_SIZE_A_MAX - 1)

enum slablab_storm_thread_attr {
	SLABLAB_STORM_THREAD_A_UNSPEC,
	SLABLAB_STORM_THREAD_A_ENTRY,	/* nest */
	SLABLAB_STORM_THREAD_A_CPU,	/* u32 */
	SLABLAB_STORM_THREAD_A_OPS,	/* u64 */
	SLABLAB_STORM_THREAD_A_CYCLES,	/* u64 cycles in its timed loops */
	SLABLAB_STORM_THREAD_A_NS,	/* u64 from the start barrier to its end */
	SLABLAB_STORM_THREAD_A_PAD,
	__SLABLAB_STORM_THREAD_A_MAX
};

#define SLABLAB_STORM_THREAD_A_MAX (__SLABLAB_STORM_THREAD_A_MAX - 1)

#endif /* _UAPI_LINUX_SLABLAB_H */
