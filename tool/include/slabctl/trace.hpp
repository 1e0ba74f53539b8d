// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: allocation traces (slabctl record / replay). The file format is in
// docs/replay.md; this is its only reader and writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace slabctl {

inline constexpr char kTraceMagic[8] = {'S', 'L', 'A', 'B', 'T', 'R', 'C', '\0'};
inline constexpr uint32_t kTraceVersion = 1;

enum class TraceOp : uint8_t { alloc = 1, free = 2 };

/// One cache of a trace (event cache i + 1; cache 0 is kmalloc).
struct TraceCache {
	std::string name;
	uint32_t object_size = 0;
	uint32_t align = 0;
};

/// One event as the file holds it (docs/replay.md, "Events").
struct TraceEvent {
	uint64_t ts_ns = 0;	///< since the first event
	uint32_t object = 0;	///< id, 1..; 0: a free of an object from before the recording
	uint32_t bytes_req = 0;
	uint32_t bytes_alloc = 0;
	uint32_t gfp = 0;
	uint16_t cpu = 0;
	uint16_t cache = 0;	///< 0: kmalloc/kfree, else 1 + index into caches
	TraceOp op = TraceOp::alloc;
};

/// A whole trace and what the recorder found.
struct Trace {
	uint32_t nr_cpus = 0;
	uint64_t nr_objects = 0;
	uint64_t lost_events = 0;
	uint64_t unmatched_frees = 0;	///< frees of objects allocated before the recording
	uint64_t live_at_end = 0;	///< objects (ids) never freed in the trace
	uint64_t lost_frees = 0;	///< addresses allocated again while live (not in the file)
	uint64_t peak_live_bytes = 0;	///< bytes_alloc of the live objects at their peak
	uint64_t duration_ns = 0;
	std::vector<TraceCache> caches;
	std::vector<TraceEvent> events;
};

/// A raw event of the recorder, pointers still addresses (never written to a file).
struct RawEvent {
	uint64_t ts_ns = 0;
	uint64_t ptr = 0;
	uint32_t bytes_req = 0;
	uint32_t bytes_alloc = 0;
	uint32_t gfp = 0;
	uint16_t cpu = 0;
	bool kmalloc = false;	///< kmalloc/kfree rather than kmem_cache_*
	TraceOp op = TraceOp::alloc;
	std::string cache;	///< the cache's name: kmem_cache_free's, 7.x kmem_cache_alloc's ("": none)
};

/**
 * Turn the recorder's events (any order) into a Trace: sorted by time, pointers mapped to
 * ids (a pointer allocated again while live: the free was lost, a new id), frees without
 * an allocation counted and kept with id 0, caches interned by name (allocations take the
 * name of their object's free; unnamed ones "size-N" by bytes_alloc).
 */
Trace build_trace(std::vector<RawEvent> raw, uint64_t lost_events);

/// Write `t` to `path` (throws Error with errno on failure).
void write_trace(const Trace& t, const std::string& path);
/// Read a trace; a bad or truncated file throws Error naming the byte offset.
Trace read_trace(const std::string& path);
/// The same from memory (`what` names it in errors).
Trace parse_trace(const std::vector<uint8_t>& data, const std::string& what);

}  // namespace slabctl
