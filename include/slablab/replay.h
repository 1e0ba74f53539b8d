/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * The binary payloads of the replay ops (uapi/slablab.yaml, attribute set replay):
 * replay.caches, replay.events, replay.cache-results and replay.samples are arrays of
 * these structs,
 * native endian, no padding. Shared by the module (replay.c) and slabctl. The trace
 * file slabctl record writes is a different, versioned format (docs/replay.md).
 */
#ifndef _SLABLAB_REPLAY_H
#define _SLABLAB_REPLAY_H

#include <linux/types.h>

#define SLABLAB_REPLAY_OP_ALLOC	1
#define SLABLAB_REPLAY_OP_FREE	2

/**
 * struct slablab_replay_cache - one recorded cache (replay.caches entry)
 * @name: its name in the trace, NUL-terminated (informational: the replay names its
 *	own caches)
 * @size: object size
 * @align: alignment (0: the allocator's default)
 */
struct slablab_replay_cache {
	char name[32];
	__u32 size;
	__u32 align;
};

/**
 * struct slablab_replay_event - one event of replay.events, in trace order
 * @object: object id, 1..nr-objects (each id allocated once, freed at most once after)
 * @size: bytes requested, at most 4 MiB; a kmalloc allocation's 1 or more (cache events
 *	use the cache's size)
 * @cpu: the recorded cpu, below nr-cpus
 * @cache: 0: kmalloc/kfree, else 1 + index into replay.caches
 * @op: SLABLAB_REPLAY_OP_*
 * @reserved: zero
 */
struct slablab_replay_event {
	__u32 object;
	__u32 size;
	__u16 cpu;
	__u16 cache;
	__u8 op;
	__u8 reserved[3];
};

/**
 * struct slablab_replay_cache_result - one cache's figures (replay.cache-results)
 * @allocs: allocations that succeeded
 * @frees: frees
 * @live_at_end: objects live when the last event was replayed
 * @pages: pages its replay cache held at the end (slablab target), before the
 *	live objects were freed
 */
struct slablab_replay_cache_result {
	__u64 allocs;
	__u64 frees;
	__u64 live_at_end;
	__u64 pages;
};

/**
 * struct slablab_replay_sample - pages over time (replay.samples)
 * @ns: since the replay's start
 * @pages: pages the target held then, above what it held at the start
 */
struct slablab_replay_sample {
	__u64 ns;
	__u64 pages;
};

#endif /* _SLABLAB_REPLAY_H */
