/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/* generated from uapi/slablab.yaml by scripts/gen-protocol.py — do not edit */
/*
 * slablab: a laboratory for Linux slab allocators — generic netlink protocol.
 *
 * Every message carries attributes from the slablab set at the top level. Cache
 * descriptions are nested under cache (the cache set); their statistics are nested once
 * more under cache.stats (one u64 per stat-item, attribute type = item + 1) and, per
 * cpu, under cache.percpu as a list of percpu.entry nests.
 *
 * [ADMIN] commands (flags: admin-perm) change state and need CAP_SYS_ADMIN (the module
 * checks it: EPERM with an extack message) and, like every admin generic netlink
 * command, CAP_NET_ADMIN (GENL_ADMIN_PERM: EPERM before the request is parsed); a
 * handler allocates its reply before changing anything, so a request that fails changes
 * nothing. Every request is validated strictly: unknown attributes are rejected with
 * -EINVAL and an extack message naming the attribute.
 *
 * Enums end in __SLABLAB_*_MAX; new values only ever go at the end.
 *
 * Family name: "slablab" (SLABLAB_GENL_NAME), version 1 (SLABLAB_GENL_VERSION). Spec
 * names (cache-get, cache.min-partial) are those of uapi/slablab.yaml: the C names are
 * SLABLAB_CMD_CACHE_GET, SLABLAB_CACHE_A_MIN_PARTIAL.
 *
 * Commands (→ request, ← reply):
 *
 * SLABLAB_CMD_GET_STATUS
 *   do: → (nothing); ← version, api-version, kernel-release, nr-cpu-ids,
 *   nr-online-cpus, nr-nodes, page-size, nr-caches, features, kmalloc-page-policy,
 *   kmalloc-design, kmalloc-lists
 *   The module, the kernel and the lab at a glance.
 *
 * SLABLAB_CMD_CACHE_NEW [ADMIN]
 *   do: → cache; ← cache
 *   [ADMIN] Create a cache: cache { name (required), size (required), align, and any
 *   of the cache-tunables: flags, order, cpu-partial, min-partial, fastpath,
 *   remote-node-defrag-ratio, design, sheaf-capacity, barn-max-full, barn-max-empty,
 *   lists, limit, batchcount, shared, reap-cpu-ms, reap-node-ms, sheaves-cpu-slabs,
 *   max-order } (cache-request: the policy rejects the other attributes of cache as
 *   unknown). A tunable left out gets its default (uapi/tunables.yaml). The reply is
 *   the new cache as for cache-get.
 *
 * SLABLAB_CMD_CACHE_DEL [ADMIN]
 *   do: → cache
 *   [ADMIN] Destroy the cache named by cache.name. First releases the cache's
 *   scripted-allocation handles (obj-alloc), freeing their objects; then fails with
 *   -EBUSY (extack names the live object count) while objects are still allocated by
 *   anyone else (a storm, a kernel user), with -EPERM for caches owned by slablab's
 *   kmalloc or by another module.
 *
 * SLABLAB_CMD_CACHE_GET
 *   do: → cache, flags; ← cache; dump: → flags; ← cache
 *   One cache (do: cache { name }) or every cache (dump). The reply is cache { name,
 *   size, align, flags, cpu-partial, min-partial, order, fastpath, obj-stride,
 *   objs-per-slab, order-default, owner, gauges (objects … live-bytes, meta-bytes),
 *   stats { … }, percpu { entry { cpu, cpu-slab-objects, cpu-partial-slabs,
 *   cpu-partial-objects, stats { … } } … } }. A single-cache reply (do) always
 *   carries percpu; dumps leave it out unless flags has percpu. In a dump, a cache
 *   whose per-cpu entries do not fit one message (~350 bytes a cpu) spans several
 *   consecutive messages: the first carries the whole cache and the entries that fit,
 *   each following one only cache { name, percpu { entry … } } with further entries
 *   (no size: that tells a continuation from a cache). A reader appends those entries
 *   to the cache before. Entries come in cpu order. A dump during which a cache was
 *   created or destroyed has NLM_F_DUMP_INTR on some message from the change on
 *   (possibly only on NLMSG_DONE): check every message. Such a dump may have skipped
 *   or repeated a cache, and is to be dumped again. The layers (always in do, in
 *   dumps with flags layers) are read racily unless flags has exact (CAP_SYS_ADMIN);
 *   do reads only flags' exact bit.
 *
 * SLABLAB_CMD_CACHE_SET [ADMIN]
 *   do: → cache; ← cache
 *   [ADMIN] Change tunables: cache { name, any of the cache-tunables }. All values
 *   are checked before any is applied: a bad request changes nothing. order is
 *   checked against the layout flags give (with flags=debug the slot grows by a red
 *   zone and a free pointer, so a 4096-byte cache needs order 1): -ERANGE for an
 *   order too small for it, -EBUSY for flags of a cache holding objects. The reply is
 *   the cache as for cache-get. A reply that cannot be delivered (-EAGAIN: the
 *   caller's receive queue is full) does not undo the change: read the cache back
 *   with cache-get.
 *
 * SLABLAB_CMD_CACHE_SHRINK [ADMIN]
 *   do: → cache; ← cache
 *   [ADMIN] Flush every cpu's slab and partial list, then free empty node-list slabs
 *   beyond min-partial. The reply is the cache with slabs-freed, which counts every
 *   slab the shrink gave back, those the flush freed included: on a quiet cache it is
 *   slabs before minus slabs after.
 *
 * SLABLAB_CMD_CACHE_VALIDATE [ADMIN]
 *   do: → cache; ← cache, validate
 *   [ADMIN] Walk every slab of the cache and check it. The reply is the cache and
 *   validate { slabs, objects, free-objects, errors, first-error }.
 *
 * SLABLAB_CMD_CACHE_RESET_STATS [ADMIN]
 *   do: → cache
 *   [ADMIN] Zero the statistics of the cache named by cache.name.
 *
 * SLABLAB_CMD_OBJ_ALLOC [ADMIN]
 *   do: → cache, count, cpu; ← handle, count
 *   [ADMIN] Scripted allocation into a kernel-held handle: cache { name }, count
 *   (1..max-handle-objects), cpu (optional, an online cpu; default: any). The reply
 *   is handle and count (objects held). Run by the storm engine: a one-thread storm
 *   on the cache, in a worker kthread bound to cpu (without cpu: in the caller's
 *   context). All or nothing: -ENOMEM (extack "allocation of N objects from CACHE
 *   failed") when any allocation fails, and then nothing is held. At most max-handles
 *   of them (-ENOSPC) holding at most max-handle-bytes of objects (count x object
 *   size; -E2BIG). A cpu that is not online: -EINVAL "cpu N is not online". A cache
 *   of another kernel module (owner kernel; it may be destroyed any time): -EPERM.
 *   Storms refuse such a cache as their target the same way. When the reply cannot be
 *   delivered (-EAGAIN: the caller's receive queue is full) the objects are freed
 *   again and no handle remains: a caller that sees no reply owns nothing.
 *
 * SLABLAB_CMD_OBJ_FREE [ADMIN]
 *   do: → handle, cpu, count; ← handle, count
 *   [ADMIN] Free a handle's objects: handle, cpu (optional), count (optional: free
 *   only that many, newest first; default all, which releases the handle). The reply
 *   is handle and count (objects still held). Run like obj-alloc. -ENOENT for an
 *   unknown handle, -ERANGE for a count over what it holds, -ENOMEM when no worker
 *   could be started on cpu; nothing is freed then.
 *
 * SLABLAB_CMD_LAB_SET [ADMIN]
 *   do: → kmalloc-page-policy, kmalloc-design, kmalloc-lists
 *   [ADMIN] Set lab-wide settings: kmalloc-page-policy, kmalloc-design, kmalloc-lists
 *   (any of them, at least one). kmalloc-design changes the design of every kmalloc
 *   size class: -EBUSY while they hold objects or a storm or a replay uses them;
 *   kmalloc-lists is checked against that design.
 *
 * SLABLAB_CMD_STORM_START [ADMIN]
 *   do: → storm; ← storm
 *   [ADMIN] Run an allocation storm (asynchronous): storm { target (required),
 *   pattern (required), cache, size, sizes, threads, cpus, ops, duration-ms, batch,
 *   working-set, ring, seed, max-live-bytes }. The reply is storm { id, state, spec
 *   as applied (defaults filled in) }. One storm runs at a time in the whole lab: a
 *   second start is refused with -EBUSY (measurements of two storms at once would
 *   disturb each other). The result of the last storm stays readable until the next
 *   start replaces it. A storm with ops runs exactly that many per thread (a final
 *   partial batch if need be): ops-done = ops-planned when it is done. A cpu of cpus
 *   that goes offline while the storm is set up: -EINVAL "cpu N went offline during
 *   set-up". A storm whose reply cannot be delivered is stopped again (stopped).
 *   max-live-bytes is checked against what the storm may hold at the cache's tunables
 *   in force at start (live objects in real slot sizes, cpu and node partial slabs,
 *   the storm's own bookkeeping); raising them during the storm is not re-checked.
 *
 * SLABLAB_CMD_STORM_GET
 *   do: → storm; ← storm
 *   The last storm (storm { id } optional): storm { id, state, spec, progress
 *   (ops-planned, ops-done, elapsed-ns), and once finished the results (allocs …
 *   stats, thread-list) }. Before the first storm: storm { id = 0, state = none } and
 *   nothing else; with an id, -ENOENT. An id other than the last storm's: -ENOENT.
 *
 * SLABLAB_CMD_STORM_STOP [ADMIN]
 *   do: → storm; ← storm
 *   [ADMIN] A running storm (storm { id } optional) is asked to stop (threads finish
 *   their current chunk) and waited for; the reply is as for storm-get, state =
 *   stopped, with what was done so far. A storm that had already finished is left
 *   alone: the reply is its final result with its real state (done, or stopped).
 *   Before the first storm the reply is as for storm-get (state = none).
 *
 * SLABLAB_CMD_REPLAY_NEW [ADMIN]
 *   do: → replay
 *   [ADMIN] Set up a replay: replay { target (required), nr-events (required),
 *   nr-objects (required), nr-cpus (required), caches, max-live-bytes, design,
 *   time-scale, sample-ns, cpu-partial }. Replaces a finished or loading replay (one
 *   whose kthreads are done is finished first); -EBUSY while one runs; -E2BIG when
 *   its arrays would exceed RAM / 8. No reply.
 *
 * SLABLAB_CMD_REPLAY_DATA [ADMIN]
 *   do: → replay
 *   [ADMIN] Events of the loading replay: replay { offset, events }. Each event is
 *   checked (op, cpu, cache, object); -EINVAL with the event's index otherwise.
 *
 * SLABLAB_CMD_REPLAY_RUN [ADMIN]
 *   do: → (nothing); ← replay
 *   [ADMIN] Start the loaded replay (asynchronous): every event must have been given,
 *   each object allocated once before it is freed at most once, to the cache it came
 *   from (-EINVAL), the trace's peak live bytes under max-live-bytes (-E2BIG). The
 *   reply is replay { state, threads, folded, peak-live-bytes }.
 *
 * SLABLAB_CMD_REPLAY_GET
 *   do: → (nothing); ← replay
 *   The replay: replay { state, target, threads, folded } and, once done, its results
 *   (allocs … cache-results). Changes nothing: a replay whose threads are done is
 *   finished (what is still live freed, its caches destroyed) by a work item its last
 *   thread queues; it is running until then.
 *
 * SLABLAB_CMD_REPLAY_STOP [ADMIN]
 *   do: → (nothing); ← replay
 *   [ADMIN] Stop a running replay: its threads leave their events, what is still live
 *   is freed, its caches destroyed; the reply is as for replay-get, state = stopped,
 *   with what was done so far. A finished replay is left alone (its real state); with
 *   none loaded the reply is state = none.
 */
#ifndef _UAPI_LINUX_SLABLAB_H
#define _UAPI_LINUX_SLABLAB_H

#include <linux/types.h>

#define SLABLAB_GENL_NAME	"slablab"
#define SLABLAB_GENL_VERSION	1

/* Longest cache name, including the terminating NUL. Names match [A-Za-z0-9_.:-]+. */
#define SLABLAB_NAME_MAX	32
#define SLABLAB_MIN_SIZE	8
#define SLABLAB_MAX_SIZE	32768
#define SLABLAB_MAX_ALIGN	4096
/* Largest slab order a cache may use (PAGE_ALLOC_COSTLY_ORDER + 1). */
#define SLABLAB_MAX_ORDER	4
#define SLABLAB_MAX_CPU_PARTIAL	65536
#define SLABLAB_MAX_MIN_PARTIAL	1024
#define SLABLAB_MAX_HANDLE_OBJECTS	1048576
/* 256 MiB of objects held by all handles (COUNT x object size). */
#define SLABLAB_MAX_HANDLE_BYTES	268435456
#define SLABLAB_MAX_HANDLES	1024
#define SLABLAB_STORM_MAX_THREADS	256
/* Every storm ends within 10 minutes. */
#define SLABLAB_STORM_MAX_DURATION_MS	600000
/* OPS per thread (2^40); more could never finish within storm-max-duration-ms. */
#define SLABLAB_STORM_MAX_OPS	1099511627776ULL
#define SLABLAB_STORM_MAX_BATCH	65536
#define SLABLAB_STORM_MAX_WORKING_SET	4194304
#define SLABLAB_STORM_MIN_RING	2
#define SLABLAB_STORM_MAX_RING	65536
/* Entries of storm.sizes. */
#define SLABLAB_STORM_MAX_SIZES	16
/* Weight of one storm.sizes entry. */
#define SLABLAB_STORM_MAX_WEIGHT	1000000
/* Length of the storm.cpus list string, including the NUL. */
#define SLABLAB_STORM_CPUS_MAX	256
/* most events one replay may hold (16 bytes each in the kernel) */
#define SLABLAB_REPLAY_MAX_EVENTS	16777216
/* most recorded caches one replay may name */
#define SLABLAB_REPLAY_MAX_CACHES	1024
/* most pages-over-time samples one replay keeps (replay.samples) */
#define SLABLAB_REPLAY_MAX_SAMPLES	2048

/**
 * enum slablab_feature - status.features bits, what this kernel and build do
 * @SLABLAB_FEAT_INIT_ON_ALLOC: want_init_on_alloc(GFP_KERNEL)
 * @SLABLAB_FEAT_INIT_ON_FREE: want_init_on_free()
 * @SLABLAB_FEAT_FREELIST_HARDENED: CONFIG_SLAB_FREELIST_HARDENED
 * @SLABLAB_FEAT_FREELIST_RANDOM: CONFIG_SLAB_FREELIST_RANDOM
 * @SLABLAB_FEAT_CMPXCHG_DOUBLE: double-word cmpxchg available
 * @SLABLAB_FEAT_SELFTEST: module loaded with selftests=1
 * @SLABLAB_FEAT_PREEMPT_RT: CONFIG_PREEMPT_RT
 * @__SLABLAB_FEAT_ALL: every bit
 */
enum slablab_feature {
	SLABLAB_FEAT_INIT_ON_ALLOC = 1U << 0,
	SLABLAB_FEAT_INIT_ON_FREE = 1U << 1,
	SLABLAB_FEAT_FREELIST_HARDENED = 1U << 2,
	SLABLAB_FEAT_FREELIST_RANDOM = 1U << 3,
	SLABLAB_FEAT_CMPXCHG_DOUBLE = 1U << 4,
	SLABLAB_FEAT_SELFTEST = 1U << 5,
	SLABLAB_FEAT_PREEMPT_RT = 1U << 6,
	__SLABLAB_FEAT_ALL = (1U << 7) - 1
};

/**
 * enum slablab_get_flags - flags bits for cache-get (request modifiers)
 * @SLABLAB_GET_F_PERCPU: include the per-cpu breakdown in dumps
 * @SLABLAB_GET_F_LAYERS: include each cache's objects per layer in dumps (cache-get
 *	always has them)
 * @SLABLAB_GET_F_EXACT: count the per-cpu layers exactly, on every online cpu under its
 *	lock: a work item queued on each cpu and waited for. Needs CAP_SYS_ADMIN (-EPERM
 *	without). Without it the layers are read racily from the handler's cpu, for everyone.
 * @__SLABLAB_GET_F_ALL: every bit
 */
enum slablab_get_flags {
	SLABLAB_GET_F_PERCPU = 1U << 0,
	SLABLAB_GET_F_LAYERS = 1U << 1,
	SLABLAB_GET_F_EXACT = 1U << 2,
	__SLABLAB_GET_F_ALL = (1U << 3) - 1
};

/**
 * enum slablab_page_policy - how slablab_kmalloc serves requests of PAGE_SIZE
 * @SLABLAB_PAGE_POLICY_SLAB: a PAGE_SIZE size class whose slabs use
 *	PAGE_ALLOC_COSTLY_ORDER (8 objects per 32 KiB slab, seed 004's fix)
 * @SLABLAB_PAGE_POLICY_PAGE_ALLOC: handed to the page allocator, as SLUB did in 2008
 * @__SLABLAB_PAGE_POLICY_MAX: the number of values
 */
enum slablab_page_policy {
	SLABLAB_PAGE_POLICY_SLAB,
	SLABLAB_PAGE_POLICY_PAGE_ALLOC,
	__SLABLAB_PAGE_POLICY_MAX
};

/**
 * enum slablab_cache_flags - cache.flags bits
 * @SLABLAB_CACHE_F_DEBUG: poison, red zones, free-pointer checks
 * @SLABLAB_CACHE_F_HARDENED: obfuscate free pointers
 * @SLABLAB_CACHE_F_RANDOM: randomize fresh slabs' freelists
 * @SLABLAB_CACHE_F_HWCACHE_ALIGN: align objects to cache lines
 * @SLABLAB_CACHE_F_TYPESAFE_BY_RCU: SLAB_TYPESAFE_BY_RCU: the cache's slabs go back to
 *	the page allocator only after an RCU grace period, so memory an RCU reader holds
 *	stays of the type (its objects may be reused at once); the free pointer lives outside
 *	the object. Not with debug (its poison would overwrite what readers read, as SLUB
 *	turns poisoning off for such caches)
 * @__SLABLAB_CACHE_F_ALL: every bit
 */
enum slablab_cache_flags {
	SLABLAB_CACHE_F_DEBUG = 1U << 0,
	SLABLAB_CACHE_F_HARDENED = 1U << 1,
	SLABLAB_CACHE_F_RANDOM = 1U << 2,
	SLABLAB_CACHE_F_HWCACHE_ALIGN = 1U << 3,
	SLABLAB_CACHE_F_TYPESAFE_BY_RCU = 1U << 4,
	__SLABLAB_CACHE_F_ALL = (1U << 5) - 1
};

/**
 * enum slablab_fastpath - cache.fastpath values
 * @SLABLAB_FASTPATH_CMPXCHG: lockless: freelist + tid, double-word cmpxchg
 * @SLABLAB_FASTPATH_IRQOFF: local_irq_save() around the per-cpu freelist
 * @__SLABLAB_FASTPATH_MAX: the number of values
 */
enum slablab_fastpath {
	SLABLAB_FASTPATH_CMPXCHG,
	SLABLAB_FASTPATH_IRQOFF,
	__SLABLAB_FASTPATH_MAX
};

/**
 * enum slablab_owner - who created a cache (cache.owner)
 * @SLABLAB_OWNER_NETLINK: created through cache-new; destroyed on unload
 * @SLABLAB_OWNER_KERNEL: created by a module through the exported API
 * @SLABLAB_OWNER_KMALLOC: one of slablab's kmalloc size classes
 * @__SLABLAB_OWNER_MAX: the number of values
 */
enum slablab_owner {
	SLABLAB_OWNER_NETLINK,
	SLABLAB_OWNER_KERNEL,
	SLABLAB_OWNER_KMALLOC,
	__SLABLAB_OWNER_MAX
};

/**
 * enum slablab_stat_item - per-cpu event counters, SLUB_STATS' set and meaning
 * @SLABLAB_ALLOC_FASTPATH: allocation from the cpu slab's freelist
 * @SLABLAB_ALLOC_SLOWPATH: allocation that took the slow path
 * @SLABLAB_FREE_FASTPATH: free to the cpu slab's freelist
 * @SLABLAB_FREE_SLOWPATH: free to a slab that is not the cpu slab
 * @SLABLAB_FREE_FROZEN: slow-path free to a frozen (cpu-owned) slab
 * @SLABLAB_FREE_ADD_PARTIAL: free made a full slab partial: onto a list
 * @SLABLAB_FREE_REMOVE_PARTIAL: free emptied a slab: off the node list
 * @SLABLAB_ALLOC_FROM_PARTIAL: cpu slab taken from the node partial list
 * @SLABLAB_ALLOC_SLAB: new slab from the page allocator
 * @SLABLAB_ALLOC_REFILL: cpu freelist refilled from the slab's freelist
 * @SLABLAB_ALLOC_NODE_MISMATCH: cpu slab switched: node did not match
 * @SLABLAB_FREE_SLAB: slab returned to the page allocator
 * @SLABLAB_CPUSLAB_FLUSH: cpu slab flushed (shrink, tunable change, hotplug)
 * @SLABLAB_DEACTIVATE_FULL: cpu slab deactivated full
 * @SLABLAB_DEACTIVATE_EMPTY: cpu slab deactivated empty
 * @SLABLAB_DEACTIVATE_TO_HEAD: cpu slab deactivated to the partial list head
 * @SLABLAB_DEACTIVATE_TO_TAIL: cpu slab deactivated to the partial list tail
 * @SLABLAB_DEACTIVATE_REMOTE_FREES: deactivated slab had remote frees
 * @SLABLAB_DEACTIVATE_BYPASS: cpu freelist empty: slab released without deactivation
 * @SLABLAB_ORDER_FALLBACK: high-order page allocation failed: lower order used
 * @SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL: per-cpu cmpxchg lost a race (retried)
 * @SLABLAB_CMPXCHG_DOUBLE_FAIL: slab freelist cmpxchg lost a race (retried)
 * @SLABLAB_CPU_PARTIAL_ALLOC: cpu slab taken from the cpu partial list
 * @SLABLAB_CPU_PARTIAL_FREE: slab put on a cpu partial list by a free
 * @SLABLAB_CPU_PARTIAL_NODE: slab moved from node list to cpu partial list
 * @SLABLAB_CPU_PARTIAL_DRAIN: cpu partial list drained to the node list
 * @SLABLAB_SHEAF_FLUSH: objects flushed from sheaves to their slabs (sheaves)
 * @SLABLAB_SHEAF_REFILL: objects put into sheaves by a refill from slabs (sheaves)
 * @SLABLAB_SHEAF_ALLOC: sheaves allocated (sheaves)
 * @SLABLAB_SHEAF_FREE: sheaves freed (sheaves)
 * @SLABLAB_BARN_GET: full sheaf taken from the barn for an empty main (sheaves)
 * @SLABLAB_BARN_GET_FAIL: no full sheaf in the barn for an empty main (sheaves)
 * @SLABLAB_BARN_PUT: full sheaf put into the barn for an empty one (sheaves)
 * @SLABLAB_BARN_PUT_FAIL: no room or no empty sheaf in the barn for a full main
 *	(sheaves)
 * @SLABLAB_ALLOCHIT: allocation served by the cpu's array cache (slab)
 * @SLABLAB_ALLOCMISS: allocation that found the cpu's array cache empty (slab)
 * @SLABLAB_FREEHIT: free into the cpu's array cache with room (slab)
 * @SLABLAB_FREEMISS: free that found the cpu's array cache full and flushed a batch
 *	(slab)
 * @SLABLAB_NODEALLOCS: node-specific allocation served from that node's slab lists
 *	(slab)
 * @SLABLAB_REMOTEFREES: free of an object of another node (alien cache or its node's
 *	lists) (slab)
 * @SLABLAB_ALIENOVERFLOW: alien cache full: drained to the owning node (slab)
 * @SLABLAB_GROWN: new slab added to a node's lists (slab)
 * @SLABLAB_REAPED: free slabs given back by the periodic node reap (slab)
 * @SLABLAB_LISTALLOCS: objects taken off the slab lists into array caches or for node
 *	requests (slab)
 * @SLABLAB_MAXOBJS: rise of the high mark of objects out of the slabs (slab; the sum is
 *	the mark)
 * @SLABLAB_MAXFREEABLE: rise of the high mark of free slabs seen by an array flush
 *	(slab; the sum is the mark)
 * @SLABLAB_SHEAF_PREFILL_FAST: a prefill took the cpu spare sheaf (sheaves)
 * @SLABLAB_SHEAF_PREFILL_SLOW: a prefill took a barn sheaf or a new one (sheaves)
 * @SLABLAB_SHEAF_PREFILL_OVERSIZE: a prefill beyond sheaf_capacity made a one-off sheaf
 *	(any design)
 * @SLABLAB_SHEAF_RETURN_FAST: a returned sheaf became the cpu spare (sheaves)
 * @SLABLAB_SHEAF_RETURN_SLOW: a returned sheaf was refilled into the barn, or flushed
 *	and freed
 * @SLABLAB_SLOB_SCAN: heap pages an allocation looked at, summed (slob; mean: slob-scan
 *	/ alloc-slowpath)
 * @SLABLAB_SLOB_NEW_PAGE: allocations no listed page could satisfy: a new page for the
 *	heap (slob)
 * @SLABLAB_SLOB_COALESCE: frees that merged the block with a free neighbour (slob)
 * @SLABLAB_SLOB_HEADER_BYTES: bytes of kmalloc size headers (and their alignment)
 *	allocated (slob)
 * @SLABLAB_FREE_RCU: objects given to an RCU free (slablab_cache_free_rcu(),
 *	slablab_kfree_rcu()): freed after a grace period, counted as frees only then
 * @SLABLAB_FREE_RCU_BATCH: grace-period callbacks queued for RCU frees: the per-cpu
 *	batches (slub, slab, slob) or the rcu_free sheaves (sheaves) handed to call_rcu()
 * @SLABLAB_FREE_RCU_SHEAF: an RCU free went into the cpu rcu_free sheaf (sheaves; 7.x
 *	FREE_RCU_SHEAF)
 * @SLABLAB_FREE_RCU_SHEAF_FAIL: an RCU free found no rcu_free sheaf to use and took the
 *	per-cpu batch instead (sheaves; 7.x FREE_RCU_SHEAF_FAIL)
 * @SLABLAB_RCU_SLAB_DEFERRED: slabs of a typesafe-by-rcu cache freed by the cache whose
 *	pages waited for a grace period before going back to the page allocator (slob:
 *	objects whose heap block waited)
 * @__SLABLAB_STAT_MAX: the number of values
 *
 * Their debugfs file names are the names with - for _. The stats attribute set carries
 * one u64 per item, with attribute type = item + 1. The header's count is
 * __SLABLAB_STAT_MAX (the 6.12 generator cannot name it: see docs/netlink.md).
 */
enum slablab_stat_item {
	SLABLAB_ALLOC_FASTPATH,
	SLABLAB_ALLOC_SLOWPATH,
	SLABLAB_FREE_FASTPATH,
	SLABLAB_FREE_SLOWPATH,
	SLABLAB_FREE_FROZEN,
	SLABLAB_FREE_ADD_PARTIAL,
	SLABLAB_FREE_REMOVE_PARTIAL,
	SLABLAB_ALLOC_FROM_PARTIAL,
	SLABLAB_ALLOC_SLAB,
	SLABLAB_ALLOC_REFILL,
	SLABLAB_ALLOC_NODE_MISMATCH,
	SLABLAB_FREE_SLAB,
	SLABLAB_CPUSLAB_FLUSH,
	SLABLAB_DEACTIVATE_FULL,
	SLABLAB_DEACTIVATE_EMPTY,
	SLABLAB_DEACTIVATE_TO_HEAD,
	SLABLAB_DEACTIVATE_TO_TAIL,
	SLABLAB_DEACTIVATE_REMOTE_FREES,
	SLABLAB_DEACTIVATE_BYPASS,
	SLABLAB_ORDER_FALLBACK,
	SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL,
	SLABLAB_CMPXCHG_DOUBLE_FAIL,
	SLABLAB_CPU_PARTIAL_ALLOC,
	SLABLAB_CPU_PARTIAL_FREE,
	SLABLAB_CPU_PARTIAL_NODE,
	SLABLAB_CPU_PARTIAL_DRAIN,
	SLABLAB_SHEAF_FLUSH,
	SLABLAB_SHEAF_REFILL,
	SLABLAB_SHEAF_ALLOC,
	SLABLAB_SHEAF_FREE,
	SLABLAB_BARN_GET,
	SLABLAB_BARN_GET_FAIL,
	SLABLAB_BARN_PUT,
	SLABLAB_BARN_PUT_FAIL,
	SLABLAB_ALLOCHIT,
	SLABLAB_ALLOCMISS,
	SLABLAB_FREEHIT,
	SLABLAB_FREEMISS,
	SLABLAB_NODEALLOCS,
	SLABLAB_REMOTEFREES,
	SLABLAB_ALIENOVERFLOW,
	SLABLAB_GROWN,
	SLABLAB_REAPED,
	SLABLAB_LISTALLOCS,
	SLABLAB_MAXOBJS,
	SLABLAB_MAXFREEABLE,
	SLABLAB_SHEAF_PREFILL_FAST,
	SLABLAB_SHEAF_PREFILL_SLOW,
	SLABLAB_SHEAF_PREFILL_OVERSIZE,
	SLABLAB_SHEAF_RETURN_FAST,
	SLABLAB_SHEAF_RETURN_SLOW,
	SLABLAB_SLOB_SCAN,
	SLABLAB_SLOB_NEW_PAGE,
	SLABLAB_SLOB_COALESCE,
	SLABLAB_SLOB_HEADER_BYTES,
	SLABLAB_FREE_RCU,
	SLABLAB_FREE_RCU_BATCH,
	SLABLAB_FREE_RCU_SHEAF,
	SLABLAB_FREE_RCU_SHEAF_FAIL,
	SLABLAB_RCU_SLAB_DEFERRED,
	__SLABLAB_STAT_MAX
};

#define SLABLAB_STAT_MAX (__SLABLAB_STAT_MAX - 1)

/**
 * enum slablab_target - what a storm or a replay allocates from
 * @SLABLAB_TARGET_SLABLAB: slablab's caches. A storm: the cache named by storm.cache. A
 *	replay: one slablab cache per recorded cache (same object size and alignment), its
 *	kmalloc events on slablab_kmalloc()'s size classes
 * @SLABLAB_TARGET_NATIVE: the kernel's own allocator on kmem_caches the module creates.
 *	A storm: one with the size, alignment and flags of the slablab cache named by
 *	storm.cache (or storm.size alone), never merged under slab_nomerge; with storm.sizes,
 *	one made as the kernel makes its kmalloc class for each class the sizes fall in
 *	(native-name-kmalloc-SIZE). A replay: one kmem_cache per recorded cache, its kmalloc
 *	events on classes of its own made the same way (above the largest, the kernel's
 *	kmalloc()). Their pages are all the storm's or the replay's
 * @SLABLAB_TARGET_KMALLOC: slablab_kmalloc()/slablab_kfree(): a storm with storm.size or
 *	the storm.sizes distribution; a replay's every event (a cache event by its size)
 * @SLABLAB_TARGET_NATIVE_KMALLOC: the kernel's kmalloc()/kfree(), the same sizes as
 *	kmalloc
 * @__SLABLAB_TARGET_MAX: the number of values
 */
enum slablab_target {
	SLABLAB_TARGET_SLABLAB,
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
 * @SLABLAB_PATTERN_PREFILL: prefill a sheaf of BATCH objects, allocate them from it,
 *	free them, return the sheaf (slablab_cache_prefill_sheaf(); the maple tree's
 *	preallocation)
 * @SLABLAB_PATTERN_RCU: allocate and free each object by RCU (slablab_cache_free_rcu(),
 *	slablab_kfree_rcu()), at RATE objects a second per thread or as fast as possible; the
 *	storm waits for the grace periods before it is done (slablab and kmalloc targets;
 *	objects of at least sizeof(struct rcu_head))
 * @SLABLAB_PATTERN_PRODUCER_CONSUMER: PRODUCERS threads allocate and push into one ring
 *	of RING slots, the other threads pop and free: objects allocated on one set of cpus
 *	and freed on another (ublk's completions, mimalloc-bench's xmalloc-test)
 * @__SLABLAB_PATTERN_MAX: the number of values
 */
enum slablab_storm_pattern {
	SLABLAB_PATTERN_PAIR,
	SLABLAB_PATTERN_BATCH,
	SLABLAB_PATTERN_REMOTE,
	SLABLAB_PATTERN_CHURN,
	SLABLAB_PATTERN_BULK,
	SLABLAB_PATTERN_PREFILL,
	SLABLAB_PATTERN_RCU,
	SLABLAB_PATTERN_PRODUCER_CONSUMER,
	__SLABLAB_PATTERN_MAX
};

/**
 * enum slablab_storm_state - storm.state
 * @SLABLAB_STORM_NONE: no storm has run
 * @SLABLAB_STORM_RUNNING: running
 * @SLABLAB_STORM_DONE: ran to its OPS or DURATION_MS
 * @SLABLAB_STORM_STOPPED: stopped early (storm-stop, unload, time cap)
 * @__SLABLAB_STORM_STATE_MAX: the number of values
 *
 * The header's count is __SLABLAB_STORM_STATE_MAX (the 6.12 generator cannot name it:
 * see docs/netlink.md).
 */
enum slablab_storm_state {
	SLABLAB_STORM_NONE,
	SLABLAB_STORM_RUNNING,
	SLABLAB_STORM_DONE,
	SLABLAB_STORM_STOPPED,
	__SLABLAB_STORM_STATE_MAX
};

/**
 * enum slablab_design - the values
 * @SLABLAB_DESIGN_SLUB: SLUB 6.1's per-cpu slab and per-cpu partial lists (the default)
 * @SLABLAB_DESIGN_SHEAVES: Linux 7.3's per-cpu sheaves (arrays of object pointers, a
 *	main and a spare per cpu) and per-node barns of full and empty sheaves, over slabs
 * @SLABLAB_DESIGN_SLAB: SLAB's per-cpu array caches, per-node shared arrays and alien
 *	caches, and its node slab lists (three, or one as in 2.4.9), after mm/slab.c of 6.1
 * @SLABLAB_DESIGN_SLOB: SLOB's heap (6.3 and earlier's mm/slob.c): pages carved into
 *	units, first fit within a page, next fit across pages, one lock for the lab; no
 *	per-cpu layer
 * @__SLABLAB_DESIGN_MAX: the number of values
 *
 * cache.design values: a cache's per-cpu front end over the shared back end
 * (docs/design.md, "Designs"). The next values are reserved, in this order, for the
 * designs that come next: sheaves (Linux 7.3's per-cpu sheaves and barn), slab (SLAB's
 * per-cpu arrays and lists), slob (SLOB's free lists). A design the module does not have
 * yet (slab, until it lands) is refused with -EOPNOTSUPP.
 */
enum slablab_design {
	SLABLAB_DESIGN_SLUB,
	SLABLAB_DESIGN_SHEAVES,
	SLABLAB_DESIGN_SLAB,
	SLABLAB_DESIGN_SLOB,
	__SLABLAB_DESIGN_MAX
};

/**
 * enum slablab_replay_state - replay.state
 * @SLABLAB_REPLAY_NONE: no replay loaded
 * @SLABLAB_REPLAY_LOADING: replay-new made it; replay-data fills it
 * @SLABLAB_REPLAY_RUNNING: running
 * @SLABLAB_REPLAY_DONE: every event replayed, the objects still live freed
 * @SLABLAB_REPLAY_STOPPED: stopped early (replay-stop, unload)
 * @__SLABLAB_REPLAY_MAX: the number of values
 */
enum slablab_replay_state {
	SLABLAB_REPLAY_NONE,
	SLABLAB_REPLAY_LOADING,
	SLABLAB_REPLAY_RUNNING,
	SLABLAB_REPLAY_DONE,
	SLABLAB_REPLAY_STOPPED,
	__SLABLAB_REPLAY_MAX
};

/**
 * enum slablab_attr - The top level of every message
 * @SLABLAB_A_UNSPEC: not used
 * @SLABLAB_A_VERSION: (string) module version, e.g. "0.1.0"
 * @SLABLAB_A_API_VERSION: (u32) slablab-genl-version the module speaks
 * @SLABLAB_A_KERNEL_RELEASE: (string) utsname()->release
 * @SLABLAB_A_NR_CPU_IDS: (u32)
 * @SLABLAB_A_NR_ONLINE_CPUS: (u32)
 * @SLABLAB_A_NR_NODES: (u32) online NUMA nodes
 * @SLABLAB_A_PAGE_SIZE: (u32)
 * @SLABLAB_A_NR_CACHES: (u32)
 * @SLABLAB_A_FEATURES: (u32, flags slablab_feature) feature bits of this kernel and
 *	build
 * @SLABLAB_A_KMALLOC_PAGE_POLICY: (u32, enum slablab_page_policy) page-policy in force
 *	(get-status), or to set (lab-set)
 * @SLABLAB_A_CACHE: (nest of cache)
 * @SLABLAB_A_FLAGS: (u32, flags slablab_get_flags) get-flags bits (request modifiers)
 * @SLABLAB_A_HANDLE: (u32, 1..4294967295)
 * @SLABLAB_A_COUNT: (u32, 1..1048576) objects (obj-alloc 1..max-handle-objects; obj-free
 *	how many to free)
 * @SLABLAB_A_CPU: (u32) an online cpu (-EINVAL "cpu N is not online" otherwise)
 * @SLABLAB_A_VALIDATE: (nest of validate)
 * @SLABLAB_A_PAD: (pad) alignment padding of u64 attributes
 * @SLABLAB_A_STORM: (nest of storm)
 * @SLABLAB_A_REPLAY: (nest of replay)
 * @SLABLAB_A_KMALLOC_DESIGN: (u32, enum slablab_design) the design the kmalloc size
 *	classes run on (get-status), or to set (lab-set; -EBUSY while they hold objects or a
 *	storm or replay uses them)
 * @SLABLAB_A_KMALLOC_LISTS: (u32, 1..3) the lists tunable of every kmalloc size class
 *	(get-status), or to set (lab-set)
 * @__SLABLAB_A_MAX: the number of attribute types
 */
enum slablab_attr {
	SLABLAB_A_UNSPEC,
	SLABLAB_A_VERSION,
	SLABLAB_A_API_VERSION,
	SLABLAB_A_KERNEL_RELEASE,
	SLABLAB_A_NR_CPU_IDS,
	SLABLAB_A_NR_ONLINE_CPUS,
	SLABLAB_A_NR_NODES,
	SLABLAB_A_PAGE_SIZE,
	SLABLAB_A_NR_CACHES,
	SLABLAB_A_FEATURES,
	SLABLAB_A_KMALLOC_PAGE_POLICY,
	SLABLAB_A_CACHE,
	SLABLAB_A_FLAGS,
	SLABLAB_A_HANDLE,
	SLABLAB_A_COUNT,
	SLABLAB_A_CPU,
	SLABLAB_A_VALIDATE,
	SLABLAB_A_PAD,
	SLABLAB_A_STORM,
	SLABLAB_A_REPLAY,
	SLABLAB_A_KMALLOC_DESIGN,
	SLABLAB_A_KMALLOC_LISTS,
	__SLABLAB_A_MAX
};

#define SLABLAB_A_MAX (__SLABLAB_A_MAX - 1)

/**
 * enum slablab_cache_attr - A cache: its name, tunables
 * @SLABLAB_CACHE_A_UNSPEC: not used
 * @SLABLAB_CACHE_A_NAME: (string, at most 31 characters) 1..31 characters of
 *	[A-Za-z0-9_.:-]
 * @SLABLAB_CACHE_A_SIZE: (u32) object size asked for, min-size..max-size (the handler
 *	checks)
 * @SLABLAB_CACHE_A_ALIGN: (u32) power of two up to max-align, 0 = default (the handler
 *	checks)
 * @SLABLAB_CACHE_A_FLAGS: (u32, flags slablab_cache_flags)
 * @SLABLAB_CACHE_A_CPU_PARTIAL: (u32, 0..65536) objects, 0..max-cpu-partial; 0 disables
 *	per-cpu partial lists
 * @SLABLAB_CACHE_A_MIN_PARTIAL: (u32, 0..1024) slabs kept on each node list,
 *	0..max-min-partial
 * @SLABLAB_CACHE_A_ORDER: (u32, 0..4) order of new slabs, 0..max-order (the handler also
 *	checks the size fits)
 * @SLABLAB_CACHE_A_FASTPATH: (u32, enum slablab_fastpath)
 * @SLABLAB_CACHE_A_OBJ_STRIDE: (u32) bytes per object in a slab (slab_size)
 * @SLABLAB_CACHE_A_OBJS_PER_SLAB: (u32) at the current order
 * @SLABLAB_CACHE_A_ORDER_DEFAULT: (u32) what the order policy chose
 * @SLABLAB_CACHE_A_OWNER: (u32, enum slablab_owner)
 * @SLABLAB_CACHE_A_OBJECTS: (u64) objects in use
 * @SLABLAB_CACHE_A_TOTAL_OBJECTS: (u64) object capacity of all slabs
 * @SLABLAB_CACHE_A_SLABS: (u64)
 * @SLABLAB_CACHE_A_PARTIAL_SLABS: (u64) on node partial lists
 * @SLABLAB_CACHE_A_CPU_SLABS: (u64) active per-cpu slabs
 * @SLABLAB_CACHE_A_CPU_PARTIAL_SLABS: (u64) on per-cpu partial lists
 * @SLABLAB_CACHE_A_PAGES: (u64)
 * @SLABLAB_CACHE_A_LIVE_BYTES: (u64) objects in use × object size
 * @SLABLAB_CACHE_A_STATS: (nest of stats) one u64 per stat-item
 * @SLABLAB_CACHE_A_PERCPU: (nest of percpu) a list of percpu.entry
 * @SLABLAB_CACHE_A_SLABS_FREED: (u64) reply to cache-shrink
 * @SLABLAB_CACHE_A_META_BYTES: (u64) off-slab metadata bytes
 * @SLABLAB_CACHE_A_PAD: (pad) alignment padding of u64 attributes
 * @SLABLAB_CACHE_A_FAIL_SLAB_EVERY: not used
 * @SLABLAB_CACHE_A_REMOTE_NODE_DEFRAG_RATIO: (u32, 0..100) how often (percent, SLUB's
 *	sysfs file of that name) an allocation without a node that finds no partial slab on
 *	its own node takes one from another node holding more than min-partial, instead of a
 *	new slab; 0: never, default 100
 * @SLABLAB_CACHE_A_DESIGN: (u32, enum slablab_design) the per-cpu front end
 *	(docs/design.md, "Designs"), default slub; changes only while the cache holds no
 *	objects (-EBUSY otherwise), as a flags change
 * @SLABLAB_CACHE_A_LAYERS: (nest of layers) where the object slots are: cache-get
 *	replies, and dumps with the layers flag
 * @SLABLAB_CACHE_A_SHEAF_CAPACITY: (u32, 0..1024) objects per sheaf (sheaves; Linux
 *	7.3's sheaf_capacity): by default 4, 12, 28 or 60 for object slots of a page and up,
 *	1 KiB and up, 256 bytes and up, smaller (7.3's, a sheaf filling its kmalloc bucket);
 *	0: no sheaves (every object from the slabs). Changeable while the cache is in use,
 *	which upstream is not: a change gives every sheaf back
 * @SLABLAB_CACHE_A_BARN_MAX_FULL: (u32, 0..1024) full sheaves each node's barn takes
 *	(sheaves; 7.3's MAX_FULL_SHEAVES, default 10): a trade or a returned sheaf goes in
 *	only below it; a sheaf put back after a lost race may exceed it. Lowering it flushes
 *	the surplus
 * @SLABLAB_CACHE_A_BARN_MAX_EMPTY: (u32, 0..1024) empty sheaves each node's barn keeps
 *	(sheaves; 7.3's MAX_EMPTY_SHEAVES, default 10): bounds them when lowered, which frees
 *	the surplus, and where an emptied rcu_free sheaf comes back after its grace period
 *	(freed at the bound); otherwise every empty sheaf goes into the barn, as in 7.3
 *	(which checks it only for a kfree_rcu sheaf)
 * @SLABLAB_CACHE_A_LISTS: (u32, 1..3) slab lists: slab 1 or 3, slob 1, 2 or 3; other
 *	designs reject it
 * @SLABLAB_CACHE_A_LIMIT: (u32, 0..4096) objects a cpu's array cache holds (slab; SLAB's
 *	limit): by default 120, 54, 24, 8 or 1 for objects up to 256 B, 1 KiB, a page, 128
 *	KiB, larger. 0 is refused, as is a limit below batchcount (the extack says why)
 * @SLABLAB_CACHE_A_BATCHCOUNT: (u32, 0..4096) objects moved at once between an array
 *	cache and the node (slab; SLAB's batchcount, default (limit + 1) / 2); 1..limit
 * @SLABLAB_CACHE_A_SHARED: (u32, 0..64) the node's shared array holds shared ×
 *	batchcount objects (slab; SLAB's shared factor: 8 for objects up to a page with more
 *	than one cpu, else 0)
 * @SLABLAB_CACHE_A_REAP_CPU_MS: (u32, 0..3600000) how often each cpu reaps its untouched
 *	array cache, (limit + 4) / 5 objects a time (slab; SLAB's REAPTIMEOUT_AC, default
 *	2000 ms); 0: never
 * @SLABLAB_CACHE_A_REAP_NODE_MS: (u32, 0..3600000) how often the node's shared array and
 *	free slabs are reaped (slab; SLAB's REAPTIMEOUT_NODE, default 4000 ms); 0: never
 * @SLABLAB_CACHE_A_FREE_SLABS: (u64) slabs with no object in use (slab's free lists; 0
 *	for other designs)
 * @SLABLAB_CACHE_A_OCCUPANCY: (nest of occupancy) the slab-occupancy histogram: how many
 *	slabs hold how many objects in use, a list of occupancy.bucket nests from empty to
 *	full; with layers (cache-get replies, and dumps with the layers flag)
 * @SLABLAB_CACHE_A_SHEAVES_CPU_SLABS: (u32, 0..1) sheaves: 1 puts the sheaves in front
 *	of the slub design's per-cpu slab and cpu partial lists (6.18/6.19's double caching:
 *	refills take objects through them, flushes free through them); 0 (the default) is
 *	7.3's sheaves straight over slabs. Changes only while the cache holds no objects
 *	(-EBUSY otherwise); other designs keep the value for a later change to sheaves
 * @SLABLAB_CACHE_A_SLOB_SCAN_MAX: (u64) the most heap pages one allocation of this cache
 *	looked at since its design became slob (slob; 0 for other designs)
 * @SLABLAB_CACHE_A_RCU_PENDING: (u64) objects given to an RCU free not yet handed to a
 *	grace period: in a cpu's batch behind the one waiting (slub, slab, slob), or in a
 *	cpu's rcu_free sheaf not yet full (sheaves)
 * @SLABLAB_CACHE_A_RCU_WAITING: (u64) objects given to an RCU free whose batch or sheaf
 *	waits for a grace period
 * @SLABLAB_CACHE_A_RCU_SLABS: (u64) slabs of a typesafe-by-rcu cache the cache gave up
 *	that wait for a grace period before their pages go back (slob: blocks); not in slabs
 * @SLABLAB_CACHE_A_RCU_PAGES: (u64) pages of those slabs, not in pages (slob: 0, its
 *	heap pages stay in pages)
 * @SLABLAB_CACHE_A_MAX_ORDER: (u32, 0..4) the largest order the order policy may choose
 *	for this cache (slub, sheaves): SLUB's slub_max_order boot parameter, per cache (3 by
 *	default, PAGE_ALLOC_COSTLY_ORDER). A change recomputes order-default and, unless
 *	order was set, the order of new slabs; an object too big for a slab of max-order gets
 *	the smallest order that holds it, as calculate_order() falls back
 * @__SLABLAB_CACHE_A_MAX: the number of attribute types
 */
enum slablab_cache_attr {
	SLABLAB_CACHE_A_UNSPEC,
	SLABLAB_CACHE_A_NAME,
	SLABLAB_CACHE_A_SIZE,
	SLABLAB_CACHE_A_ALIGN,
	SLABLAB_CACHE_A_FLAGS,
	SLABLAB_CACHE_A_CPU_PARTIAL,
	SLABLAB_CACHE_A_MIN_PARTIAL,
	SLABLAB_CACHE_A_ORDER,
	SLABLAB_CACHE_A_FASTPATH,
	SLABLAB_CACHE_A_OBJ_STRIDE,
	SLABLAB_CACHE_A_OBJS_PER_SLAB,
	SLABLAB_CACHE_A_ORDER_DEFAULT,
	SLABLAB_CACHE_A_OWNER,
	SLABLAB_CACHE_A_OBJECTS,
	SLABLAB_CACHE_A_TOTAL_OBJECTS,
	SLABLAB_CACHE_A_SLABS,
	SLABLAB_CACHE_A_PARTIAL_SLABS,
	SLABLAB_CACHE_A_CPU_SLABS,
	SLABLAB_CACHE_A_CPU_PARTIAL_SLABS,
	SLABLAB_CACHE_A_PAGES,
	SLABLAB_CACHE_A_LIVE_BYTES,
	SLABLAB_CACHE_A_STATS,
	SLABLAB_CACHE_A_PERCPU,
	SLABLAB_CACHE_A_SLABS_FREED,
	SLABLAB_CACHE_A_META_BYTES,
	SLABLAB_CACHE_A_PAD,
	SLABLAB_CACHE_A_FAIL_SLAB_EVERY,
	SLABLAB_CACHE_A_REMOTE_NODE_DEFRAG_RATIO,
	SLABLAB_CACHE_A_DESIGN,
	SLABLAB_CACHE_A_LAYERS,
	SLABLAB_CACHE_A_SHEAF_CAPACITY,
	SLABLAB_CACHE_A_BARN_MAX_FULL,
	SLABLAB_CACHE_A_BARN_MAX_EMPTY,
	SLABLAB_CACHE_A_LISTS,
	SLABLAB_CACHE_A_LIMIT,
	SLABLAB_CACHE_A_BATCHCOUNT,
	SLABLAB_CACHE_A_SHARED,
	SLABLAB_CACHE_A_REAP_CPU_MS,
	SLABLAB_CACHE_A_REAP_NODE_MS,
	SLABLAB_CACHE_A_FREE_SLABS,
	SLABLAB_CACHE_A_OCCUPANCY,
	SLABLAB_CACHE_A_SHEAVES_CPU_SLABS,
	SLABLAB_CACHE_A_SLOB_SCAN_MAX,
	SLABLAB_CACHE_A_RCU_PENDING,
	SLABLAB_CACHE_A_RCU_WAITING,
	SLABLAB_CACHE_A_RCU_SLABS,
	SLABLAB_CACHE_A_RCU_PAGES,
	SLABLAB_CACHE_A_MAX_ORDER,
	__SLABLAB_CACHE_A_MAX
};

#define SLABLAB_CACHE_A_MAX (__SLABLAB_CACHE_A_MAX - 1)

/**
 * enum slablab_percpu_attr - the attributes of the percpu set
 * @SLABLAB_PERCPU_A_UNSPEC: not used
 * @SLABLAB_PERCPU_A_ENTRY: (nest (repeated) of percpu)
 * @SLABLAB_PERCPU_A_CPU: (u32)
 * @SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS: (u32) objects of the active slab
 * @SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS: (u32)
 * @SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS: (u32) free objects on the partial list
 * @SLABLAB_PERCPU_A_STATS: (nest of stats) as cache.stats
 * @SLABLAB_PERCPU_A_PAD: (pad) alignment padding of u64 attributes
 * @__SLABLAB_PERCPU_A_MAX: the number of attribute types
 *
 * cache.percpu holds one entry nest per possible cpu with any activity; an entry holds
 * the other attributes of this set.
 */
enum slablab_percpu_attr {
	SLABLAB_PERCPU_A_UNSPEC,
	SLABLAB_PERCPU_A_ENTRY,
	SLABLAB_PERCPU_A_CPU,
	SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS,
	SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS,
	SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS,
	SLABLAB_PERCPU_A_STATS,
	SLABLAB_PERCPU_A_PAD,
	__SLABLAB_PERCPU_A_MAX
};

#define SLABLAB_PERCPU_A_MAX (__SLABLAB_PERCPU_A_MAX - 1)

/**
 * enum slablab_validate_attr - The report of cache-validate
 * @SLABLAB_VALIDATE_A_UNSPEC: not used
 * @SLABLAB_VALIDATE_A_SLABS: (u64) slabs walked
 * @SLABLAB_VALIDATE_A_OBJECTS: (u64) object slots walked
 * @SLABLAB_VALIDATE_A_FREE_OBJECTS: (u64) objects found on freelists
 * @SLABLAB_VALIDATE_A_ERRORS: (u32)
 * @SLABLAB_VALIDATE_A_FIRST_ERROR: (string)
 * @SLABLAB_VALIDATE_A_PAD: (pad) alignment padding of u64 attributes
 * @__SLABLAB_VALIDATE_A_MAX: the number of attribute types
 */
enum slablab_validate_attr {
	SLABLAB_VALIDATE_A_UNSPEC,
	SLABLAB_VALIDATE_A_SLABS,
	SLABLAB_VALIDATE_A_OBJECTS,
	SLABLAB_VALIDATE_A_FREE_OBJECTS,
	SLABLAB_VALIDATE_A_ERRORS,
	SLABLAB_VALIDATE_A_FIRST_ERROR,
	SLABLAB_VALIDATE_A_PAD,
	__SLABLAB_VALIDATE_A_MAX
};

#define SLABLAB_VALIDATE_A_MAX (__SLABLAB_VALIDATE_A_MAX - 1)

/**
 * enum slablab_stats_attr - Statistics nests
 * @SLABLAB_STATS_A_PAD: (pad) alignment padding of u64 attributes
 * @SLABLAB_STATS_A_ALLOC_FASTPATH: (u64)
 * @SLABLAB_STATS_A_ALLOC_SLOWPATH: (u64)
 * @SLABLAB_STATS_A_FREE_FASTPATH: (u64)
 * @SLABLAB_STATS_A_FREE_SLOWPATH: (u64)
 * @SLABLAB_STATS_A_FREE_FROZEN: (u64)
 * @SLABLAB_STATS_A_FREE_ADD_PARTIAL: (u64)
 * @SLABLAB_STATS_A_FREE_REMOVE_PARTIAL: (u64)
 * @SLABLAB_STATS_A_ALLOC_FROM_PARTIAL: (u64)
 * @SLABLAB_STATS_A_ALLOC_SLAB: (u64)
 * @SLABLAB_STATS_A_ALLOC_REFILL: (u64)
 * @SLABLAB_STATS_A_ALLOC_NODE_MISMATCH: (u64)
 * @SLABLAB_STATS_A_FREE_SLAB: (u64)
 * @SLABLAB_STATS_A_CPUSLAB_FLUSH: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_FULL: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_EMPTY: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_TO_HEAD: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_TO_TAIL: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_REMOTE_FREES: (u64)
 * @SLABLAB_STATS_A_DEACTIVATE_BYPASS: (u64)
 * @SLABLAB_STATS_A_ORDER_FALLBACK: (u64)
 * @SLABLAB_STATS_A_CMPXCHG_DOUBLE_CPU_FAIL: (u64)
 * @SLABLAB_STATS_A_CMPXCHG_DOUBLE_FAIL: (u64)
 * @SLABLAB_STATS_A_CPU_PARTIAL_ALLOC: (u64)
 * @SLABLAB_STATS_A_CPU_PARTIAL_FREE: (u64)
 * @SLABLAB_STATS_A_CPU_PARTIAL_NODE: (u64)
 * @SLABLAB_STATS_A_CPU_PARTIAL_DRAIN: (u64)
 * @SLABLAB_STATS_A_SHEAF_FLUSH: (u64)
 * @SLABLAB_STATS_A_SHEAF_REFILL: (u64)
 * @SLABLAB_STATS_A_SHEAF_ALLOC: (u64)
 * @SLABLAB_STATS_A_SHEAF_FREE: (u64)
 * @SLABLAB_STATS_A_BARN_GET: (u64)
 * @SLABLAB_STATS_A_BARN_GET_FAIL: (u64)
 * @SLABLAB_STATS_A_BARN_PUT: (u64)
 * @SLABLAB_STATS_A_BARN_PUT_FAIL: (u64)
 * @SLABLAB_STATS_A_ALLOCHIT: (u64)
 * @SLABLAB_STATS_A_ALLOCMISS: (u64)
 * @SLABLAB_STATS_A_FREEHIT: (u64)
 * @SLABLAB_STATS_A_FREEMISS: (u64)
 * @SLABLAB_STATS_A_NODEALLOCS: (u64)
 * @SLABLAB_STATS_A_REMOTEFREES: (u64)
 * @SLABLAB_STATS_A_ALIENOVERFLOW: (u64)
 * @SLABLAB_STATS_A_GROWN: (u64)
 * @SLABLAB_STATS_A_REAPED: (u64)
 * @SLABLAB_STATS_A_LISTALLOCS: (u64)
 * @SLABLAB_STATS_A_MAXOBJS: (u64)
 * @SLABLAB_STATS_A_MAXFREEABLE: (u64)
 * @SLABLAB_STATS_A_SHEAF_PREFILL_FAST: (u64)
 * @SLABLAB_STATS_A_SHEAF_PREFILL_SLOW: (u64)
 * @SLABLAB_STATS_A_SHEAF_PREFILL_OVERSIZE: (u64)
 * @SLABLAB_STATS_A_SHEAF_RETURN_FAST: (u64)
 * @SLABLAB_STATS_A_SHEAF_RETURN_SLOW: (u64)
 * @SLABLAB_STATS_A_SLOB_SCAN: (u64)
 * @SLABLAB_STATS_A_SLOB_NEW_PAGE: (u64)
 * @SLABLAB_STATS_A_SLOB_COALESCE: (u64)
 * @SLABLAB_STATS_A_SLOB_HEADER_BYTES: (u64)
 * @SLABLAB_STATS_A_FREE_RCU: (u64)
 * @SLABLAB_STATS_A_FREE_RCU_BATCH: (u64)
 * @SLABLAB_STATS_A_FREE_RCU_SHEAF: (u64)
 * @SLABLAB_STATS_A_FREE_RCU_SHEAF_FAIL: (u64)
 * @SLABLAB_STATS_A_RCU_SLAB_DEFERRED: (u64)
 * @__SLABLAB_STATS_A_MAX: the number of attribute types
 *
 * Type 0 is alignment padding and is to be ignored. The attribute values are the
 * stat-item values + 1; tests/host/test_spec.py checks the two agree.
 */
enum slablab_stats_attr {
	SLABLAB_STATS_A_PAD,
	SLABLAB_STATS_A_ALLOC_FASTPATH,
	SLABLAB_STATS_A_ALLOC_SLOWPATH,
	SLABLAB_STATS_A_FREE_FASTPATH,
	SLABLAB_STATS_A_FREE_SLOWPATH,
	SLABLAB_STATS_A_FREE_FROZEN,
	SLABLAB_STATS_A_FREE_ADD_PARTIAL,
	SLABLAB_STATS_A_FREE_REMOVE_PARTIAL,
	SLABLAB_STATS_A_ALLOC_FROM_PARTIAL,
	SLABLAB_STATS_A_ALLOC_SLAB,
	SLABLAB_STATS_A_ALLOC_REFILL,
	SLABLAB_STATS_A_ALLOC_NODE_MISMATCH,
	SLABLAB_STATS_A_FREE_SLAB,
	SLABLAB_STATS_A_CPUSLAB_FLUSH,
	SLABLAB_STATS_A_DEACTIVATE_FULL,
	SLABLAB_STATS_A_DEACTIVATE_EMPTY,
	SLABLAB_STATS_A_DEACTIVATE_TO_HEAD,
	SLABLAB_STATS_A_DEACTIVATE_TO_TAIL,
	SLABLAB_STATS_A_DEACTIVATE_REMOTE_FREES,
	SLABLAB_STATS_A_DEACTIVATE_BYPASS,
	SLABLAB_STATS_A_ORDER_FALLBACK,
	SLABLAB_STATS_A_CMPXCHG_DOUBLE_CPU_FAIL,
	SLABLAB_STATS_A_CMPXCHG_DOUBLE_FAIL,
	SLABLAB_STATS_A_CPU_PARTIAL_ALLOC,
	SLABLAB_STATS_A_CPU_PARTIAL_FREE,
	SLABLAB_STATS_A_CPU_PARTIAL_NODE,
	SLABLAB_STATS_A_CPU_PARTIAL_DRAIN,
	SLABLAB_STATS_A_SHEAF_FLUSH,
	SLABLAB_STATS_A_SHEAF_REFILL,
	SLABLAB_STATS_A_SHEAF_ALLOC,
	SLABLAB_STATS_A_SHEAF_FREE,
	SLABLAB_STATS_A_BARN_GET,
	SLABLAB_STATS_A_BARN_GET_FAIL,
	SLABLAB_STATS_A_BARN_PUT,
	SLABLAB_STATS_A_BARN_PUT_FAIL,
	SLABLAB_STATS_A_ALLOCHIT,
	SLABLAB_STATS_A_ALLOCMISS,
	SLABLAB_STATS_A_FREEHIT,
	SLABLAB_STATS_A_FREEMISS,
	SLABLAB_STATS_A_NODEALLOCS,
	SLABLAB_STATS_A_REMOTEFREES,
	SLABLAB_STATS_A_ALIENOVERFLOW,
	SLABLAB_STATS_A_GROWN,
	SLABLAB_STATS_A_REAPED,
	SLABLAB_STATS_A_LISTALLOCS,
	SLABLAB_STATS_A_MAXOBJS,
	SLABLAB_STATS_A_MAXFREEABLE,
	SLABLAB_STATS_A_SHEAF_PREFILL_FAST,
	SLABLAB_STATS_A_SHEAF_PREFILL_SLOW,
	SLABLAB_STATS_A_SHEAF_PREFILL_OVERSIZE,
	SLABLAB_STATS_A_SHEAF_RETURN_FAST,
	SLABLAB_STATS_A_SHEAF_RETURN_SLOW,
	SLABLAB_STATS_A_SLOB_SCAN,
	SLABLAB_STATS_A_SLOB_NEW_PAGE,
	SLABLAB_STATS_A_SLOB_COALESCE,
	SLABLAB_STATS_A_SLOB_HEADER_BYTES,
	SLABLAB_STATS_A_FREE_RCU,
	SLABLAB_STATS_A_FREE_RCU_BATCH,
	SLABLAB_STATS_A_FREE_RCU_SHEAF,
	SLABLAB_STATS_A_FREE_RCU_SHEAF_FAIL,
	SLABLAB_STATS_A_RCU_SLAB_DEFERRED,
	__SLABLAB_STATS_A_MAX
};

#define SLABLAB_STATS_A_MAX (__SLABLAB_STATS_A_MAX - 1)

/**
 * enum slablab_storm_attr - A storm: its specification
 * @SLABLAB_STORM_A_UNSPEC: not used
 * @SLABLAB_STORM_A_TARGET: (u32, enum slablab_target)
 * @SLABLAB_STORM_A_PATTERN: (u32, enum slablab_storm_pattern)
 * @SLABLAB_STORM_A_CACHE: (string, at most 31 characters) slablab cache (target cache;
 *	native's model); -ENOENT if none
 * @SLABLAB_STORM_A_SIZE: (u32, 1..32768) object size, 1..max-size (native without cache,
 *	kmalloc)
 * @SLABLAB_STORM_A_SIZES: (nest of storm-size) up to storm-max-sizes storm-size.entry
 *	nests (kmalloc and native targets); the kernel checks each entry with the storm-size
 *	policy whatever its type (NLA_POLICY_NESTED_ARRAY)
 * @SLABLAB_STORM_A_THREADS: (u32, 1..256) 1..storm-max-threads, default: one per cpu of
 *	cpus (at most storm-max-threads); remote: even; producer-consumer: at least 2
 * @SLABLAB_STORM_A_CPUS: (string, at most 255 characters) cpu list ("0-3,6") of online
 *	cpus, default: the online cpus
 * @SLABLAB_STORM_A_OPS: (u64, 1..1099511627776) 1..storm-max-ops per thread (remote,
 *	producer-consumer - per producer), default 100000
 * @SLABLAB_STORM_A_DURATION_MS: (u32, 1..600000) 1..storm-max-duration-ms, instead of
 *	ops
 * @SLABLAB_STORM_A_BATCH: (u32, 1..65536) batch/bulk size, 1..storm-max-batch, default
 *	16
 * @SLABLAB_STORM_A_WORKING_SET: (u32, 1..4194304) churn objects per thread,
 *	1..storm-max-working-set, default 4096
 * @SLABLAB_STORM_A_RING: (u32, 2..65536) remote (each pair's) and producer-consumer (the
 *	one shared) ring slots, a power of two storm-min-ring..storm-max-ring, default 256
 * @SLABLAB_STORM_A_SEED: (u64) RNG seed (churn, sizes), default 1
 * @SLABLAB_STORM_A_MAX_LIVE_BYTES: (u64, 1..18446744073709551615) 1..RAM / 2 (-ERANGE):
 *	cap on the memory the spec may hold at once, the objects each pattern keeps as the
 *	target really allocates them plus the storm's own bookkeeping (-E2BIG if over;
 *	docs/storms.md); default RAM / 4
 * @SLABLAB_STORM_A_ID: (u32, 1..4294967295) from 1; 0 only in the state none reply
 * @SLABLAB_STORM_A_STATE: (u32, enum slablab_storm_state)
 * @SLABLAB_STORM_A_OPS_PLANNED: (u64) all threads; 0 for duration storms
 * @SLABLAB_STORM_A_OPS_DONE: (u64) all threads
 * @SLABLAB_STORM_A_ELAPSED_NS: (u64) start barrier to last thread done
 * @SLABLAB_STORM_A_ALLOCS: (u64) objects allocated in timed loops
 * @SLABLAB_STORM_A_FREES: (u64) frees in timed loops of objects allocated in them (not
 *	churn's fill's)
 * @SLABLAB_STORM_A_ALLOC_CYCLES: (u64) cycles in timed alloc loops (batch, bulk, remote
 *	producers, churn)
 * @SLABLAB_STORM_A_FREE_CYCLES: (u64) cycles in timed free loops
 * @SLABLAB_STORM_A_PAIR_CYCLES: (u64) cycles in pair loops (alloc + free)
 * @SLABLAB_STORM_A_LOOP_CYCLES: (u64) cycles of 1000 iterations of an empty timed loop
 *	(not subtracted)
 * @SLABLAB_STORM_A_FAILURES: (u64) allocations that returned NULL
 * @SLABLAB_STORM_A_PEAK_PAGES: (u64) pages held by the target at the peak
 * @SLABLAB_STORM_A_PEAK_LIVE_BYTES: (u64) bytes of live objects at that moment
 * @SLABLAB_STORM_A_META_BYTES: (u64) slablab off-slab metadata at the peak
 * @SLABLAB_STORM_A_CYCLES_PER_SEC: (u64) get_cycles() rate (tsc_khz x 1000)
 * @SLABLAB_STORM_A_FEATURES: (u32, flags slablab_feature) the feature bits the kernel
 *	ran with
 * @SLABLAB_STORM_A_CACHE_FLAGS: (u32, flags slablab_cache_flags) cache-flags of the
 *	target cache
 * @SLABLAB_STORM_A_THREAD_LIST: (nest of storm-thread) storm-thread.entry nests
 * @SLABLAB_STORM_A_STATS: (nest of stats) stat deltas over the storm (slablab targets),
 *	as cache.stats
 * @SLABLAB_STORM_A_NATIVE_NAME: (string) the kernel cache's name (native; with sizes,
 *	its classes' NAME-SIZE)
 * @SLABLAB_STORM_A_PAD: (pad) alignment padding of u64 attributes
 * @SLABLAB_STORM_A_THIN: (u32, 1..4294967295) churn: after the fill, keep every thin-th
 *	object of the working set and free the rest, then replace among the kept ones: holes
 *	in every slab, the known fragmentation of 1 - 1/thin (docs/storms.md);
 *	1..working-set, default 1
 * @SLABLAB_STORM_A_STEADY_PAGES: (u64) churn: mean pages held over the samples taken
 *	while every thread held its full working set (steady state); fragmentation = 1 -
 *	steady-live-bytes / (pages x page size)
 * @SLABLAB_STORM_A_STEADY_LIVE_BYTES: (u64) churn: mean bytes of live objects over those
 *	samples
 * @SLABLAB_STORM_A_STEADY_SAMPLES: (u32) churn: how many steady-state samples (0 for
 *	other patterns)
 * @SLABLAB_STORM_A_SHRUNK_PAGES: (u64) churn: pages held after the loops and a shrink of
 *	the target, the working sets still live (absent for native-kmalloc, whose caches are
 *	the kernel's)
 * @SLABLAB_STORM_A_SHRUNK_LIVE_BYTES: (u64) churn: bytes of live objects then
 * @SLABLAB_STORM_A_RATE: (u32) rcu: objects a second each thread allocates and frees by
 *	RCU at most (0, the default: as fast as it can); the i-th op of a thread starts no
 *	earlier than i / rate seconds after the start
 * @SLABLAB_STORM_A_RCU_WAITING_PEAK: (u64) rcu: the most objects freed by RCU and not
 *	yet freed (the target's rcu-pending plus rcu-waiting) at a sample
 * @SLABLAB_STORM_A_RCU_WAITING_MEAN: (u64) rcu: their mean over the samples
 * @SLABLAB_STORM_A_RCU_WAITING_END: (u64) rcu: objects still waiting when the last
 *	thread ended its loop, before the storm waited for their grace periods
 *	(rcu_barrier())
 * @SLABLAB_STORM_A_RCU_PAGES_PEAK: (u64) rcu: the most pages of typesafe-by-rcu slabs
 *	waiting for a grace period at a sample (the target's rcu-pages; not in peak-pages)
 * @SLABLAB_STORM_A_RCU_SAMPLES: (u32) rcu: how many samples (0 for other patterns)
 * @SLABLAB_STORM_A_PRODUCERS: (u32, 1..255) producer-consumer: how many of THREADS
 *	allocate (the rest free), 1..threads - 1 (so at most storm-max-threads - 1), default
 *	threads / 2; refused for other patterns
 * @SLABLAB_STORM_A_REMOTE_FREES: (u64) frees on another cpu than the one the object was
 *	allocated on (remote and producer-consumer consumers; 0 for the other patterns, and
 *	for workers that share their producer's cpu)
 * @__SLABLAB_STORM_A_MAX: the number of attribute types
 *
 * Values outside an attribute's checks fail with -ERANGE (the kernel's policy, which
 * reports the range), the others with the errno and an extack message naming the limit.
 * Memory at the peak (peak-pages, peak-live-bytes, meta-bytes) is sampled every 50 ms
 * and by the storm threads themselves once their working set is full (churn: also just
 * before they free it), so a storm of any length reports its steady state.
 */
enum slablab_storm_attr {
	SLABLAB_STORM_A_UNSPEC,
	SLABLAB_STORM_A_TARGET,
	SLABLAB_STORM_A_PATTERN,
	SLABLAB_STORM_A_CACHE,
	SLABLAB_STORM_A_SIZE,
	SLABLAB_STORM_A_SIZES,
	SLABLAB_STORM_A_THREADS,
	SLABLAB_STORM_A_CPUS,
	SLABLAB_STORM_A_OPS,
	SLABLAB_STORM_A_DURATION_MS,
	SLABLAB_STORM_A_BATCH,
	SLABLAB_STORM_A_WORKING_SET,
	SLABLAB_STORM_A_RING,
	SLABLAB_STORM_A_SEED,
	SLABLAB_STORM_A_MAX_LIVE_BYTES,
	SLABLAB_STORM_A_ID,
	SLABLAB_STORM_A_STATE,
	SLABLAB_STORM_A_OPS_PLANNED,
	SLABLAB_STORM_A_OPS_DONE,
	SLABLAB_STORM_A_ELAPSED_NS,
	SLABLAB_STORM_A_ALLOCS,
	SLABLAB_STORM_A_FREES,
	SLABLAB_STORM_A_ALLOC_CYCLES,
	SLABLAB_STORM_A_FREE_CYCLES,
	SLABLAB_STORM_A_PAIR_CYCLES,
	SLABLAB_STORM_A_LOOP_CYCLES,
	SLABLAB_STORM_A_FAILURES,
	SLABLAB_STORM_A_PEAK_PAGES,
	SLABLAB_STORM_A_PEAK_LIVE_BYTES,
	SLABLAB_STORM_A_META_BYTES,
	SLABLAB_STORM_A_CYCLES_PER_SEC,
	SLABLAB_STORM_A_FEATURES,
	SLABLAB_STORM_A_CACHE_FLAGS,
	SLABLAB_STORM_A_THREAD_LIST,
	SLABLAB_STORM_A_STATS,
	SLABLAB_STORM_A_NATIVE_NAME,
	SLABLAB_STORM_A_PAD,
	SLABLAB_STORM_A_THIN,
	SLABLAB_STORM_A_STEADY_PAGES,
	SLABLAB_STORM_A_STEADY_LIVE_BYTES,
	SLABLAB_STORM_A_STEADY_SAMPLES,
	SLABLAB_STORM_A_SHRUNK_PAGES,
	SLABLAB_STORM_A_SHRUNK_LIVE_BYTES,
	SLABLAB_STORM_A_RATE,
	SLABLAB_STORM_A_RCU_WAITING_PEAK,
	SLABLAB_STORM_A_RCU_WAITING_MEAN,
	SLABLAB_STORM_A_RCU_WAITING_END,
	SLABLAB_STORM_A_RCU_PAGES_PEAK,
	SLABLAB_STORM_A_RCU_SAMPLES,
	SLABLAB_STORM_A_PRODUCERS,
	SLABLAB_STORM_A_REMOTE_FREES,
	__SLABLAB_STORM_A_MAX
};

#define SLABLAB_STORM_A_MAX (__SLABLAB_STORM_A_MAX - 1)

/**
 * enum slablab_storm_size_attr - the attributes of the storm-size set
 * @SLABLAB_STORM_SIZE_A_UNSPEC: not used
 * @SLABLAB_STORM_SIZE_A_ENTRY: (nest (repeated) of storm-size)
 * @SLABLAB_STORM_SIZE_A_SIZE: (u32, 1..32768) bytes, 1..max-size (required)
 * @SLABLAB_STORM_SIZE_A_WEIGHT: (u32, 1..4294967295) relative weight,
 *	1..storm-max-weight (the handler checks the maximum)
 * @__SLABLAB_STORM_SIZE_A_MAX: the number of attribute types
 *
 * storm.sizes holds entry nests; an entry holds size and weight.
 */
enum slablab_storm_size_attr {
	SLABLAB_STORM_SIZE_A_UNSPEC,
	SLABLAB_STORM_SIZE_A_ENTRY,
	SLABLAB_STORM_SIZE_A_SIZE,
	SLABLAB_STORM_SIZE_A_WEIGHT,
	__SLABLAB_STORM_SIZE_A_MAX
};

#define SLABLAB_STORM_SIZE_A_MAX (__SLABLAB_STORM_SIZE_A_MAX - 1)

/**
 * enum slablab_storm_thread_attr - the attributes of the storm-thread set
 * @SLABLAB_STORM_THREAD_A_UNSPEC: not used
 * @SLABLAB_STORM_THREAD_A_ENTRY: (nest (repeated) of storm-thread)
 * @SLABLAB_STORM_THREAD_A_CPU: (u32)
 * @SLABLAB_STORM_THREAD_A_OPS: (u64)
 * @SLABLAB_STORM_THREAD_A_CYCLES: (u64) cycles in its timed loops
 * @SLABLAB_STORM_THREAD_A_NS: (u64) from the start barrier to its end
 * @SLABLAB_STORM_THREAD_A_PAD: (pad) alignment padding of u64 attributes
 * @__SLABLAB_STORM_THREAD_A_MAX: the number of attribute types
 *
 * storm.thread-list holds entry nests, one per thread; an entry holds the rest.
 */
enum slablab_storm_thread_attr {
	SLABLAB_STORM_THREAD_A_UNSPEC,
	SLABLAB_STORM_THREAD_A_ENTRY,
	SLABLAB_STORM_THREAD_A_CPU,
	SLABLAB_STORM_THREAD_A_OPS,
	SLABLAB_STORM_THREAD_A_CYCLES,
	SLABLAB_STORM_THREAD_A_NS,
	SLABLAB_STORM_THREAD_A_PAD,
	__SLABLAB_STORM_THREAD_A_MAX
};

#define SLABLAB_STORM_THREAD_A_MAX (__SLABLAB_STORM_THREAD_A_MAX - 1)

/**
 * enum slablab_layers_attr - A cache's object slots by where they are
 * @SLABLAB_LAYERS_A_UNSPEC: not used
 * @SLABLAB_LAYERS_A_TOTAL: (u64) object slots in all slabs (total-objects)
 * @SLABLAB_LAYERS_A_CALLERS: (u64) in use by callers (allocations - frees)
 * @SLABLAB_LAYERS_A_CPU_SLAB: (u64) free in cpu slabs (slub) — the cpu freelists and
 *	remote frees onto them
 * @SLABLAB_LAYERS_A_CPU_PARTIAL: (u64) free in slabs on cpu partial lists (slub)
 * @SLABLAB_LAYERS_A_SLABS_FREE: (u64) free in slabs no per-cpu layer holds (node partial
 *	lists)
 * @SLABLAB_LAYERS_A_SHEAF_MAIN: (u64) objects in the cpus' main sheaves (sheaves)
 * @SLABLAB_LAYERS_A_SHEAF_SPARE: (u64) objects in the cpus' spare sheaves (sheaves)
 * @SLABLAB_LAYERS_A_BARN: (u64) objects in the full sheaves of the nodes' barns
 *	(sheaves)
 * @SLABLAB_LAYERS_A_ARRAY: (u64) objects in the cpus' array caches (slab)
 * @SLABLAB_LAYERS_A_SHARED: (u64) objects in the nodes' shared arrays (slab)
 * @SLABLAB_LAYERS_A_ALIEN: (u64) objects in the nodes' alien caches (slab)
 * @SLABLAB_LAYERS_A_SHEAF_PREFILLED: (u64) objects in prefilled sheaves callers hold
 *	(slablab_cache_prefill_sheaf(); not yet allocated from them)
 * @SLABLAB_LAYERS_A_PAD: (pad) alignment padding of u64 attributes
 * @__SLABLAB_LAYERS_A_MAX: the number of attribute types
 *
 * A design reports the layers it has; the others are absent. For a sender with
 * CAP_SYS_ADMIN the per-cpu layers are counted on every cpu under its lock (work queued
 * on each online cpu), so a busy cache's figures are each exact at its moment, not one
 * snapshot; for anyone else they are read racily from the handler's cpu (no IPI, no work
 * on another cpu), as SLUB's world-readable sysfs files are: the same on a quiet cache,
 * possibly off by what moved while read on a busy one (slub's cpu-slab is then what the
 * slots leave: total - callers - the other layers).
 */
enum slablab_layers_attr {
	SLABLAB_LAYERS_A_UNSPEC,
	SLABLAB_LAYERS_A_TOTAL,
	SLABLAB_LAYERS_A_CALLERS,
	SLABLAB_LAYERS_A_CPU_SLAB,
	SLABLAB_LAYERS_A_CPU_PARTIAL,
	SLABLAB_LAYERS_A_SLABS_FREE,
	SLABLAB_LAYERS_A_SHEAF_MAIN,
	SLABLAB_LAYERS_A_SHEAF_SPARE,
	SLABLAB_LAYERS_A_BARN,
	SLABLAB_LAYERS_A_ARRAY,
	SLABLAB_LAYERS_A_SHARED,
	SLABLAB_LAYERS_A_ALIEN,
	SLABLAB_LAYERS_A_SHEAF_PREFILLED,
	SLABLAB_LAYERS_A_PAD,
	__SLABLAB_LAYERS_A_MAX
};

#define SLABLAB_LAYERS_A_MAX (__SLABLAB_LAYERS_A_MAX - 1)

/**
 * enum slablab_replay_attr - A replay of a recorded allocation trace
 * @SLABLAB_REPLAY_A_UNSPEC: not used
 * @SLABLAB_REPLAY_A_PAD: (pad) alignment padding of u64 attributes
 * @SLABLAB_REPLAY_A_TARGET: (u32, enum slablab_target)
 * @SLABLAB_REPLAY_A_NR_EVENTS: (u64, 1..18446744073709551615) events the replay will
 *	hold, 1..replay-max-events
 * @SLABLAB_REPLAY_A_NR_OBJECTS: (u32, 1..4294967295) object ids 1..nr-objects the events
 *	use
 * @SLABLAB_REPLAY_A_NR_CPUS: (u32, 1..4096) recorded cpus; the events' cpus are below it
 * @SLABLAB_REPLAY_A_CACHES: (binary) the recorded caches, an array of struct
 *	slablab_replay_cache (include/slablab/replay.h); event cache i + 1 is entry i, cache
 *	0 is kmalloc
 * @SLABLAB_REPLAY_A_MAX_LIVE_BYTES: (u64, 1..18446744073709551615) cap on the live bytes
 *	the trace reaches at its peak (-E2BIG over it, checked by replay-run); default RAM /
 *	4, at most RAM / 2 (-ERANGE)
 * @SLABLAB_REPLAY_A_OFFSET: (u64) index of the first event of replay-data's events
 * @SLABLAB_REPLAY_A_EVENTS: (binary) events in trace order, an array of struct
 *	slablab_replay_event (include/slablab/replay.h)
 * @SLABLAB_REPLAY_A_STATE: (u32, enum slablab_replay_state)
 * @SLABLAB_REPLAY_A_THREADS: (u32) replay kthreads, one per recorded cpu unless folded
 * @SLABLAB_REPLAY_A_FOLDED: (u32) 1 when fewer cpus are online than were recorded
 *	(streams share kthreads)
 * @SLABLAB_REPLAY_A_ALLOCS: (u64)
 * @SLABLAB_REPLAY_A_FREES: (u64)
 * @SLABLAB_REPLAY_A_REMOTE_FREES: (u64) frees on another kthread than their allocation's
 * @SLABLAB_REPLAY_A_FAILURES: (u64) allocations that failed (their frees are skipped)
 * @SLABLAB_REPLAY_A_ALLOC_CYCLES: (u64)
 * @SLABLAB_REPLAY_A_FREE_CYCLES: (u64)
 * @SLABLAB_REPLAY_A_ELAPSED_NS: (u64)
 * @SLABLAB_REPLAY_A_PEAK_PAGES: (u64) pages the target's caches held at the highest
 *	sample (slablab target)
 * @SLABLAB_REPLAY_A_PEAK_LIVE_BYTES: (u64) live bytes at the trace's peak (sizes as
 *	replayed)
 * @SLABLAB_REPLAY_A_LIVE_AT_END: (u64) objects live when the last event was replayed
 *	(then freed)
 * @SLABLAB_REPLAY_A_CACHE_RESULTS: (binary) per recorded cache (entry 0: kmalloc), an
 *	array of struct slablab_replay_cache_result (include/slablab/replay.h)
 * @SLABLAB_REPLAY_A_DESIGN: (u32, enum slablab_design) the design of the slablab
 *	target's caches (replay-new; default slub); the reply names it
 * @SLABLAB_REPLAY_A_TIME_SCALE: (u32, 0..1000000) replay-new: time-scaled mode, each
 *	event at its recorded time times time-scale / 1000 after the start (1000: as
 *	recorded, 100: ten times faster); 0 or absent: as fast as possible. replay-data then
 *	carries times.
 * @SLABLAB_REPLAY_A_TIMES: (binary) replay-data in time-scaled mode: each event's
 *	recorded time in ns since the first event, an array of __u64, one per event of events
 * @SLABLAB_REPLAY_A_SAMPLE_NS: (u64) replay-new: sample the pages the target holds every
 *	sample-ns ns into samples (at most replay-max-samples); 0 or absent: no samples
 * @SLABLAB_REPLAY_A_SAMPLES: (binary) pages over time, an array of struct
 *	slablab_replay_sample (include/slablab/replay.h), in time order
 * @SLABLAB_REPLAY_A_AVG_PAGES: (u64) time-weighted mean of the pages the target held
 *	over the replay (the samples, the kthreads' own every 4096 events)
 * @SLABLAB_REPLAY_A_CPU_PARTIAL: (u32, 0..65536) replay-new: cpu_partial of every cache
 *	the slablab target makes for the recorded caches (0..max-cpu-partial; absent: each
 *	cache's default; the kmalloc classes keep theirs); the reply names it when it was
 *	given
 * @__SLABLAB_REPLAY_A_MAX: the number of attribute types
 */
enum slablab_replay_attr {
	SLABLAB_REPLAY_A_UNSPEC,
	SLABLAB_REPLAY_A_PAD,
	SLABLAB_REPLAY_A_TARGET,
	SLABLAB_REPLAY_A_NR_EVENTS,
	SLABLAB_REPLAY_A_NR_OBJECTS,
	SLABLAB_REPLAY_A_NR_CPUS,
	SLABLAB_REPLAY_A_CACHES,
	SLABLAB_REPLAY_A_MAX_LIVE_BYTES,
	SLABLAB_REPLAY_A_OFFSET,
	SLABLAB_REPLAY_A_EVENTS,
	SLABLAB_REPLAY_A_STATE,
	SLABLAB_REPLAY_A_THREADS,
	SLABLAB_REPLAY_A_FOLDED,
	SLABLAB_REPLAY_A_ALLOCS,
	SLABLAB_REPLAY_A_FREES,
	SLABLAB_REPLAY_A_REMOTE_FREES,
	SLABLAB_REPLAY_A_FAILURES,
	SLABLAB_REPLAY_A_ALLOC_CYCLES,
	SLABLAB_REPLAY_A_FREE_CYCLES,
	SLABLAB_REPLAY_A_ELAPSED_NS,
	SLABLAB_REPLAY_A_PEAK_PAGES,
	SLABLAB_REPLAY_A_PEAK_LIVE_BYTES,
	SLABLAB_REPLAY_A_LIVE_AT_END,
	SLABLAB_REPLAY_A_CACHE_RESULTS,
	SLABLAB_REPLAY_A_DESIGN,
	SLABLAB_REPLAY_A_TIME_SCALE,
	SLABLAB_REPLAY_A_TIMES,
	SLABLAB_REPLAY_A_SAMPLE_NS,
	SLABLAB_REPLAY_A_SAMPLES,
	SLABLAB_REPLAY_A_AVG_PAGES,
	SLABLAB_REPLAY_A_CPU_PARTIAL,
	__SLABLAB_REPLAY_A_MAX
};

#define SLABLAB_REPLAY_A_MAX (__SLABLAB_REPLAY_A_MAX - 1)

/**
 * enum slablab_occupancy_attr - the attributes of the occupancy set
 * @SLABLAB_OCCUPANCY_A_UNSPEC: not used
 * @SLABLAB_OCCUPANCY_A_BUCKET: (nest (repeated) of occupancy)
 * @SLABLAB_OCCUPANCY_A_LO: (u32) fewest objects in use of a slab in this bucket
 * @SLABLAB_OCCUPANCY_A_HI: (u32) most objects in use of a slab in this bucket
 * @SLABLAB_OCCUPANCY_A_SLABS: (u64) slabs holding lo..hi objects in use
 * @SLABLAB_OCCUPANCY_A_PAD: (pad) alignment padding of u64 attributes
 * @__SLABLAB_OCCUPANCY_A_MAX: the number of attribute types
 *
 * cache.occupancy: one bucket nest per range of objects in use per slab, in order from
 * empty (lo = hi = 0) to full (lo = hi = objects per slab): a bucket per count while a
 * slab holds fewer than 32 objects, else 32 buckets (empty, full and 30 of about equal
 * width between). In use is the slab's view: objects not on its freelist, so objects a
 * design's per-cpu layer holds (a cpu slab's freelist, sheaves) count; shrink first for
 * the callers' alone. A slab of another size (an order fallback) falls in the bucket of
 * its fraction. Counted by walking the cache's slabs under slabs_lock a batch at a time:
 * exact on a quiet cache. On slob the buckets count the heap pages charged to the cache
 * (the pages gauge) by blocks in use on them, of any cache: full (lo = hi = how many of
 * the cache's own blocks, aligned, an empty page takes, at least 2) is a page whose free
 * blocks cannot take another of them; objects of a page or more are each a full page (1
 * a page).
 */
enum slablab_occupancy_attr {
	SLABLAB_OCCUPANCY_A_UNSPEC,
	SLABLAB_OCCUPANCY_A_BUCKET,
	SLABLAB_OCCUPANCY_A_LO,
	SLABLAB_OCCUPANCY_A_HI,
	SLABLAB_OCCUPANCY_A_SLABS,
	SLABLAB_OCCUPANCY_A_PAD,
	__SLABLAB_OCCUPANCY_A_MAX
};

#define SLABLAB_OCCUPANCY_A_MAX (__SLABLAB_OCCUPANCY_A_MAX - 1)

/* enum slablab_cmd: the commands, described at the top */
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
	SLABLAB_CMD_STORM_START = 13,
	SLABLAB_CMD_STORM_GET,
	SLABLAB_CMD_STORM_STOP,
	SLABLAB_CMD_REPLAY_NEW,
	SLABLAB_CMD_REPLAY_DATA,
	SLABLAB_CMD_REPLAY_RUN,
	SLABLAB_CMD_REPLAY_GET,
	SLABLAB_CMD_REPLAY_STOP,
	__SLABLAB_CMD_MAX
};

#define SLABLAB_CMD_MAX (__SLABLAB_CMD_MAX - 1)

#endif /* _UAPI_LINUX_SLABLAB_H */
