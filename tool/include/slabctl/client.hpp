// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: the generic netlink client of the slablab kernel module.
#pragma once

#include "slabctl/error.hpp"
#include "slabctl/trace.hpp"
#include "slabctl/types.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace slabctl {

/// Per recorded cache figures of a replay (entry 0: kmalloc).
struct ReplayCacheResult {
	std::string name;
	uint64_t allocs = 0;
	uint64_t frees = 0;
	uint64_t live_at_end = 0;
	uint64_t pages = 0;	///< slablab target: pages its cache held at the end
};

/// One pages-over-time sample of a replay.
struct ReplaySample {
	uint64_t ns = 0;	///< since the replay's start
	uint64_t pages = 0;	///< above what the target held at the start
};

/// How to replay a trace (docs/replay.md).
struct ReplaySpec {
	/// "slablab", "native", "kmalloc" or "native-kmalloc" (target_from_name)
	std::string target = "slablab";
	/// enum slablab_design of the slablab target's caches (default: the module's, slub)
	std::optional<uint32_t> design;
	uint64_t max_live_bytes = 0;	///< 0: the module's cap (RAM / 4)
	/// 0: as fast as possible; else each event at its recorded time * time_scale
	/// (1.0: as recorded, 0.1: ten times faster)
	double time_scale = 0;
	/// pages sampled every sample_ns into ReplayResult::samples; 0: none, except in
	/// time-scaled mode, where it defaults to the scaled duration / 500
	uint64_t sample_ns = 0;
	/// cpu_partial of the caches the slablab target makes for the recorded caches
	/// (unset: each cache's default; the kmalloc classes keep theirs)
	std::optional<uint32_t> cpu_partial;
};

/// A replay's results (REPLAY_GET once done).
struct ReplayResult {
	std::string target;	///< "slablab", "native", "kmalloc" or "native-kmalloc"
	std::string label;	///< the target as asked for ("slablab:sheaves")
	std::string design;	///< the slablab target's design; "" for the others
	double time_scale = 0;	///< 0: as fast as possible
	std::optional<uint32_t> cpu_partial;	///< as set up (ReplaySpec::cpu_partial)
	uint32_t page_size = 0;
	uint32_t state = 0;	///< enum slablab_replay_state
	uint32_t threads = 0;
	bool folded = false;	///< fewer cpus online than recorded
	uint32_t recorded_cpus = 0;
	uint64_t events = 0;	///< events sent (frees of objects from before are left out)
	uint64_t allocs = 0, frees = 0, remote_frees = 0, failures = 0;
	uint64_t alloc_cycles = 0, free_cycles = 0;
	uint64_t elapsed_ns = 0;
	uint64_t peak_pages = 0;
	uint64_t avg_pages = 0;	///< time-weighted mean of the pages samples
	uint64_t peak_live_bytes = 0;
	uint64_t live_at_end = 0;
	std::vector<ReplayCacheResult> caches;
	std::vector<ReplaySample> samples;
};

/**
 * A connection to the slablab generic netlink family.
 *
 * The constructor opens a NETLINK_GENERIC socket (extended acks enabled) and resolves the
 * family "slablab"; it throws ModuleNotLoaded when the family does not exist and Error for
 * anything else. Every method sends one request and waits for its answer; failures throw
 * Error with the kernel's errno and extended-ack message (UsageError for requests that the
 * host-side checks refuse before sending).
 *
 * One Client may be shared between threads: requests are serialized by an internal mutex.
 * Moving a Client leaves the source unusable.
 */
class Client {
public:
	struct Options {
		/// Check names and ranges on the host before sending (UsageError on failure).
		/// Turn off to let the kernel see (and reject) bad requests, e.g. in kernel tests.
		bool host_checks = true;
	};

	Client();
	explicit Client(Options options);
	~Client();
	Client(Client&&) noexcept;
	Client& operator=(Client&&) noexcept;
	Client(const Client&) = delete;
	Client& operator=(const Client&) = delete;

	int family_id() const noexcept;
	bool host_checks() const noexcept;

	/// GET_STATUS.
	Status status();
	/// CACHE_NEW; returns the new cache as CACHE_GET describes it.
	CacheInfo cache_create(const CacheSpec& spec);
	/// CACHE_DEL. EBUSY while objects are allocated, EPERM for caches of other owners.
	void cache_destroy(std::string_view name);
	/// CACHE_GET (doit). The kernel always sends the per-cpu breakdown for a single
	/// cache; with percpu=false it is dropped here. Its layers are read racily from
	/// one cpu; `exact` counts them on every cpu under its lock (CAP_SYS_ADMIN, else
	/// EPERM; work queued on each online cpu and waited for: docs/netlink.md).
	CacheInfo cache_get(std::string_view name, bool percpu = true, bool exact = false);
	/// CACHE_GET with NLM_F_DUMP: every cache, per-cpu entries only if percpu. A cache
	/// whose per-cpu entries the module split over several messages is put back
	/// together. A dump the module flags NLM_F_DUMP_INTR (the cache list changed while
	/// it ran) is repeated, three tries in all, then EAGAIN.
	/// With `layers`, each cache's objects per layer too, racy or, with `exact`,
	/// counted on every cpu (as cache_get()).
	std::vector<CacheInfo> cache_list(bool percpu = false, bool layers = false,
					  bool exact = false);
	/// How many times this Client repeated an interrupted cache_list() dump.
	uint64_t dump_retries() const;
	/// CACHE_SET with only the fields set in t; returns the cache after the change.
	CacheInfo cache_set(std::string_view name, const Tunables& t);
	/// CACHE_SHRINK.
	ShrinkResult cache_shrink(std::string_view name);
	/// CACHE_VALIDATE.
	ValidateReport cache_validate(std::string_view name);
	/// CACHE_RESET_STATS.
	void cache_reset_stats(std::string_view name);
	/// OBJ_ALLOC: count objects (1..SLABLAB_MAX_HANDLE_OBJECTS) into a new kernel-held
	/// handle, on the given cpu (default: any). All or nothing.
	Handle obj_alloc(std::string_view cache, uint32_t count,
			 std::optional<uint32_t> cpu = std::nullopt);
	/// OBJ_FREE: free count objects of the handle, newest first (default all, which
	/// releases the handle). Returns the objects still held.
	uint32_t obj_free(uint32_t handle, std::optional<uint32_t> cpu = std::nullopt,
			  std::optional<uint32_t> count = std::nullopt);
	/// LAB_SET: the settings given, in one request (the kernel applies the design and
	/// lists first, and the page policy only if they were taken). -EBUSY while the
	/// kmalloc classes hold objects and the design or lists change.
	void lab_set(const LabSettings& settings);
	/// LAB_SET: the kmalloc page policy (enum slablab_page_policy).
	void lab_set_page_policy(uint32_t policy);
	/// LAB_SET: the design (enum slablab_design) and the lists tunable of the kmalloc
	/// size classes; either may be left out. -EBUSY while the classes hold objects.
	void lab_set_kmalloc(std::optional<uint32_t> design, std::optional<uint32_t> lists);

	/// STORM_START: start an allocation storm (asynchronous; one at a time in the whole
	/// lab, EBUSY otherwise). Returns its id, state and the spec as the kernel applied it.
	StormResult storm_start(const StormSpec& spec);
	/// STORM_GET: state, progress and (once finished) the results of storm `id`, or of
	/// the last storm. ENOENT when no storm has run, or `id` is not the last storm.
	StormResult storm_get(std::optional<uint32_t> id = std::nullopt);
	/// STORM_STOP: stop storm `id` (or the running one) and wait for it; returns what was
	/// done (state SLABLAB_STORM_STOPPED).
	StormResult storm_stop(std::optional<uint32_t> id = std::nullopt);

	using StormProgress = std::function<void(const StormResult&)>;
	using ShouldStop = std::function<bool()>;
	/**
	 * Run a storm to its end: STORM_START, then STORM_GET every `poll` (sooner at
	 * first: 20 ms, doubling up to `poll`, so that short storms return quickly), calling
	 * `progress` with each answer, the last one included, until it is done. Whenever
	 * `should_stop` says so (it is asked every 20 ms) the storm is stopped in the kernel
	 * (STORM_STOP) and what was done is returned with `interrupted` set. If `progress`
	 * or `should_stop` throws, the storm is stopped too before the exception goes on.
	 */
	StormResult run_storm(const StormSpec& spec, const StormProgress& progress = {},
			      const ShouldStop& should_stop = {},
			      std::chrono::milliseconds poll = std::chrono::milliseconds(150));

	/// The page size of the machine (GET_STATUS, asked once per Client).
	uint32_t page_size();

	/**
	 * Replay `trace` in the kernel as `spec` says: REPLAY_NEW, the events in chunks
	 * (REPLAY_DATA), REPLAY_RUN, then REPLAY_GET every `poll` until it is done. When
	 * `should_stop` returns true (or throws) the replay is stopped (REPLAY_STOP) and
	 * what it did so far is returned (state stopped), or the exception goes on.
	 */
	ReplayResult replay(const Trace& trace, const ReplaySpec& spec,
			    const ShouldStop& should_stop = {},
			    std::chrono::milliseconds poll = std::chrono::milliseconds(20));
	/// REPLAY_STOP: stop a running replay; its state and what it did.
	ReplayResult replay_stop();

private:
	struct Impl;
	Impl& impl() const;
	std::unique_ptr<Impl> impl_;
};

}  // namespace slabctl
