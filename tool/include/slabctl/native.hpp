// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: the kernel's own slab caches (SLUB), read from /sys/kernel/slab the way
// tools/mm/slabinfo.c reads them. No netlink, no module: only files, so the host tests run
// the reader against a fake tree in a temporary directory.
#pragma once

#include "slabctl/types.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/// Where SLUB publishes its caches.
inline constexpr std::string_view kSysfsSlabRoot = "/sys/kernel/slab";
/// The environment variable that points the reader somewhere else (for tests).
inline constexpr std::string_view kSysfsSlabEnv = "SLABCTL_SYSFS_SLAB";
/// How `slabctl info --native` marks kernel caches in the Name column: "slub/kmalloc-64".
/// '/' can be neither in a slablab cache name nor in a kernel one (sysfs would refuse it).
inline constexpr std::string_view kNativePrefix = "slub/";

/// $SLABCTL_SYSFS_SLAB when set and not empty, else /sys/kernel/slab.
std::filesystem::path default_native_root();

/// One " N<node>=<value>" (per node) or " C<cpu>=<value>" (per cpu) part of a sysfs line.
struct NativePart {
	uint32_t id = 0;	///< node or cpu number
	uint64_t value = 0;
	bool operator==(const NativePart&) const = default;
};

/// A counter file: "<total>[ N0=<n>…]" or "<total>[ C0=<n>…]".
struct NativeCount {
	uint64_t total = 0;
	std::vector<NativePart> parts;	///< in the order of the file
	bool operator==(const NativeCount&) const = default;
};

/**
 * Parse a counter file: the leading decimal number, then space-separated "N<id>=<n>" /
 * "C<id>=<n>" parts (`part_letter` picks which; other tokens are skipped, so a format with
 * more in it still gives its total). nullopt when there is no leading number.
 * "objects(slabs)" values (slabs_cpu_partial) give their first number.
 */
std::optional<NativeCount> parse_native_count(std::string_view text, char part_letter = 'N');

/// slabs_cpu_partial: "<objects>(<slabs>)[ C0=<o>(<s>)…]" → {objects, slabs}.
std::optional<std::pair<uint64_t, uint64_t>> parse_native_cpu_partial(std::string_view text);

/// What reading one file of a cache's directory gave.
struct NativeFile {
	std::string name;	///< the file's name, e.g. "objects"
	int err = 0;		///< 0: read; else errno of open()/read() (ENOENT: no such file)
	std::string text;	///< the content without its trailing newline (when err == 0)
	bool absent() const noexcept;	///< ENOENT: this kernel does not have the file
	bool unreadable() const noexcept; ///< it exists but could not be read (EACCES, EIO, …)
};

/// A flag file of a cache directory, its slabinfo Flg letter and its JSON name.
struct NativeFlag {
	std::string_view file;	///< "hwcache_align", …; also the JSON name
	char letter;		///< slabinfo's Flg letter; 0 for none
	std::string_view report; ///< the report's "** …" line
};
/// In slabinfo's Flg order: cache_dma d, hwcache_align A, poison P, reclaim_account a,
/// red_zone Z, sanity_checks F, store_user U, trace T; then destroy_by_rcu, failslab,
/// skip_kfence (no letter).
std::span<const NativeFlag> native_flag_table() noexcept;

/**
 * One kernel cache: a directory under /sys/kernel/slab and the aliases (symlinks) that lead
 * to it. Every figure is optional: nullopt when its file is missing (kernel without
 * CONFIG_SLUB_DEBUG / CONFIG_SLUB_STATS) or could not be read (EACCES for non-root: most
 * files are 0400), or did not parse.
 */
struct NativeCache {
	/// The readable name: the directory's name, or for a merged cache (":A-0000064"-style
	/// directory) one of its aliases: a kmalloc-* one if there is one (as slabinfo does),
	/// else the shortest (then alphabetically first); the directory name if none.
	std::string name;
	std::string dir;			///< the directory under the root
	std::vector<std::string> aliases;	///< every symlink that leads to dir, sorted

	// geometry and tunables
	std::optional<uint64_t> object_size;	///< object_size: what the creator asked for
	std::optional<uint64_t> slab_size;	///< slab_size: bytes per object in a slab
	std::optional<uint64_t> objs_per_slab;
	std::optional<uint64_t> order;
	std::optional<uint64_t> align;
	std::optional<uint64_t> merged;		///< the "aliases" file: caches merged into it
	std::optional<uint64_t> min_partial;
	std::optional<uint64_t> cpu_partial;
	std::optional<uint64_t> usersize;

	// gauges (totals; per-node parts below)
	std::optional<uint64_t> objects;	///< objects (in use; needs CONFIG_SLUB_DEBUG)
	std::optional<uint64_t> total_objects;	///< total_objects (CONFIG_SLUB_DEBUG)
	std::optional<uint64_t> slabs;		///< slabs (CONFIG_SLUB_DEBUG)
	std::optional<uint64_t> partial;	///< partial: slabs on node partial lists
	std::optional<uint64_t> cpu_slabs;	///< cpu_slabs: active + cpu partial slabs
	std::optional<uint64_t> objects_partial; ///< objects in use in node partial slabs
	std::optional<uint64_t> cpu_partial_slabs;   ///< slabs_cpu_partial's "(slabs)"
	std::optional<uint64_t> cpu_partial_objects; ///< its objects: an estimate (half full)
	std::vector<NativePart> objects_nodes, total_objects_nodes, slabs_nodes, partial_nodes,
		cpu_slabs_nodes, objects_partial_nodes;

	/// The flag files, indexed like native_flag_table().
	std::vector<std::optional<bool>> flags;

	/// CONFIG_SLUB_STATS counters (same names and order as slablab's stat items) and their
	/// per-cpu parts.
	std::array<std::optional<uint64_t>, kNrStats> stats{};
	std::array<std::vector<NativePart>, kNrStats> stats_cpus{};

	/// Every file tried, in the order read (with read_all: every file of the directory).
	std::vector<NativeFile> files;

	/// "slub/<name>", as the table shows it.
	std::string display_name() const;
	/// Any stat counter known (CONFIG_SLUB_STATS and readable).
	bool has_stats() const noexcept;
	/// alloc_fastpath+alloc_slowpath+free_fastpath+free_slowpath, if all four are known.
	std::optional<uint64_t> activity() const noexcept;
	/// The flag named `file` (nullopt: unknown).
	std::optional<bool> flag(std::string_view file) const noexcept;
	/// Pages of slab memory as slabinfo counts them: slabs << order.
	std::optional<uint64_t> pages() const noexcept;
	/// Bytes: slabs × (page_size << order).
	std::optional<uint64_t> space(uint32_t page_size) const noexcept;
	/// Files that exist but could not be read.
	std::vector<const NativeFile*> unreadable() const;
	/// The file record, or nullptr if it was not tried.
	const NativeFile* file(std::string_view file_name) const noexcept;
};

/// A cache directory as listed (before its files are read).
struct NativeEntry {
	std::string name;			///< readable name (see NativeCache::name)
	std::string dir;
	std::vector<std::string> aliases;	///< sorted
};

/// The root directory: caches and their aliases.
struct NativeListing {
	std::filesystem::path root;
	std::vector<NativeEntry> caches;	///< sorted by directory name
	std::size_t aliases = 0;		///< symlinks that resolved to a cache
	std::vector<std::string> dangling;	///< symlinks whose target is not a cache here
};

/// The readable name of a directory and its aliases (NativeCache::name's rule).
std::string native_readable_name(std::string_view dir, const std::vector<std::string>& aliases);

/**
 * List the root: every directory is a cache, every symlink an alias of the directory its
 * target names (the last path component, as slabinfo reads it). Throws Error (errno, op =
 * the root's path) when the root cannot be opened or listed.
 */
NativeListing list_native_caches(const std::filesystem::path& root = kSysfsSlabRoot);

/**
 * Read one cache's files. With read_all, every file of the directory (in the known files'
 * order, then the rest by name) is read and kept in `files`; otherwise only the files the
 * table needs. Never throws for a file; throws Error when the directory itself cannot be
 * opened (ENOENT: the cache went away).
 */
NativeCache read_native_cache(const std::filesystem::path& root, const NativeEntry& entry,
			      bool read_all = false);

/// List and read every cache that `select` accepts (all without one); caches that go away
/// meanwhile are left out.
std::vector<NativeCache> read_native_caches(
	const std::filesystem::path& root = kSysfsSlabRoot,
	const std::function<bool(const NativeEntry&)>& select = {});

/// Where the kernel counts its memory, and the variable that points the reader elsewhere
/// (for tests).
inline constexpr std::string_view kMeminfoPath = "/proc/meminfo";
inline constexpr std::string_view kMeminfoEnv = "SLABCTL_MEMINFO";

/// /proc/meminfo's slab lines in bytes: the kernel's own count of the pages its slab
/// allocator holds (NR_SLAB_RECLAIMABLE_B + NR_SLAB_UNRECLAIMABLE_B), and the memory in
/// use, which slablab's pages are in (they are plain alloc_pages() pages, not slab pages).
struct SlabMeminfo {
	uint64_t slab = 0;		///< Slab:
	uint64_t sreclaimable = 0;	///< SReclaimable:
	uint64_t sunreclaim = 0;	///< SUnreclaim:
	uint64_t mem_total = 0;		///< MemTotal:
	uint64_t mem_free = 0;		///< MemFree:
	bool operator==(const SlabMeminfo&) const = default;
};

/**
 * Parse meminfo text ("Slab:  123 kB" lines). Throws Error(EINVAL) naming the line when
 * Slab:, SReclaimable:, SUnreclaim:, MemTotal: or MemFree: is missing or not "<n> kB".
 */
SlabMeminfo parse_slab_meminfo(std::string_view text);
/// Read and parse $SLABCTL_MEMINFO (when set and not empty) or /proc/meminfo; throws
/// Error (errno and the path) when it cannot be read.
SlabMeminfo read_slab_meminfo();

/// Whether the shell pattern matches the cache's name, an alias, its directory name or
/// "slub/<name>".
bool native_matches(std::string_view pattern, const NativeEntry& e);
/// The cache whose name, alias, directory or "slub/<name>" is exactly `name`.
const NativeEntry* find_native(const NativeListing& l, std::string_view name);

}  // namespace slabctl
