// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: parsing and host-side validation of what people type. Pure functions: they
// throw UsageError with a message that names the offending value and the accepted range.
#pragma once

#include "slabctl/tunables.hpp"
#include "slabctl/types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/// Decimal or 0x-prefixed hexadecimal, no sign, no spaces; nullopt if malformed or > 2^64-1.
std::optional<uint64_t> parse_uint(std::string_view text) noexcept;

/// A byte count: a number with an optional binary suffix K, M or G (KiB, MiB, GiB; also
/// KiB/MiB/GiB, case-insensitive): "64", "4K", "1M". Throws UsageError naming `what`.
uint64_t parse_size(std::string_view text, std::string_view what = "size");

/// 1/0, true/false, yes/no, on/off (case-insensitive).
std::optional<bool> parse_bool(std::string_view text) noexcept;

/// [A-Za-z0-9_.:-], 1..SLABLAB_NAME_MAX-1 bytes.
void validate_cache_name(std::string_view name);
/// The ranges in uapi/linux/slablab.h.
void validate_spec(const CacheSpec& spec);
void validate_tunables(const Tunables& t);
void validate_count(uint32_t count);
void validate_page_policy(uint32_t policy);

/// Keys accepted by apply_assignment(), in the order `slabctl set --help` lists them.
const std::vector<std::string_view>& tunable_keys();

/**
 * Apply one KEY=VALUE to t. Keys: cpu_partial, min_partial, order (numbers), fastpath
 * (cmpxchg|irqoff), debug, hardened, random, hwcache_align (0/1), flags (comma list of flag
 * names, "none", or a number). A key given twice, an unknown key or a bad value throws.
 */
void apply_assignment(Tunables& t, std::string_view assignment);

/// A tunable's VALUE: a number, an enum value's name (or number), or flag names.
uint32_t parse_tunable_value(const TunableDesc& d, std::string_view value);
/// All of them, then validate_tunables(). At least one is needed.
Tunables parse_assignments(const std::vector<std::string>& assignments);

/// The keys of `slabctl lab set`, as `slabctl lab show -j` names them.
const std::vector<std::string_view>& lab_keys();
/**
 * `slabctl lab set`'s KEY=VALUE…: kmalloc_design=slub|sheaves|slab|slob, kmalloc_lists=1..3,
 * kmalloc_page_policy=slab|page_alloc ('-' for '_' in a key, as in `slabctl set`). At least
 * one; a key given twice, an unknown key or a bad value throws UsageError.
 */
LabSettings parse_lab_assignments(const std::vector<std::string>& assignments);

/// "debug,random" / "none" / "0x5" → SLABLAB_CACHE_F_* bits.
uint32_t parse_cache_flags(std::string_view text);

/**
 * A duration in milliseconds: a number (decimals allowed) with the unit ms, s or m; a
 * bare number is seconds: "500ms", "2s", "1.5s", "1m", "3" (= 3000). Rounded to whole
 * milliseconds. Throws UsageError naming `what`.
 */
uint64_t parse_duration_ms(std::string_view text, std::string_view what = "duration");

/// An interval in seconds with decimals ("1", "0.5", "250ms" also works), > 0.
double parse_interval_s(std::string_view text, std::string_view what = "interval");

/**
 * A cpu list as the kernel's bitmap_parselist() reads it: comma-separated cpus and ranges,
 * a range optionally strided: "0-3,6", "1", "0-7:2/4". Returns the cpus in ascending order
 * without duplicates. Throws UsageError.
 */
std::vector<uint32_t> parse_cpu_list(std::string_view text);

/// "64:3,192:1": sizes (K/M suffixes allowed) with relative weights; ":W" may be left out
/// (weight 1). At most SLABLAB_STORM_MAX_SIZES entries. Throws UsageError.
std::vector<StormSize> parse_storm_sizes(std::string_view text);
/// The inverse: "64:3,192:1" (":1" is left out).
std::string format_storm_sizes(const std::vector<StormSize>& sizes);

/// "1,2,4" (each a u32): a list of numbers. Throws UsageError naming `what`.
std::vector<uint32_t> parse_u32_list(std::string_view text, std::string_view what);

/**
 * Host-side checks of a storm request: known target and pattern, the attributes the target
 * needs (slablab: CACHE; native: CACHE or SIZE; kmalloc targets: SIZE or SIZES, no CACHE),
 * OPS and DURATION_MS not both, and the SLABLAB_STORM_MAX_* limits of the uapi header.
 */
void validate_storm_spec(const StormSpec& spec);

/**
 * One `--set` variant of slabctl compare: "KEY=VALUE[,KEY=VALUE…]" with the keys of
 * apply_assignment(). A piece without '=' continues the previous value, so
 * "flags=debug,random,cpu_partial=0" is flags=debug,random and cpu_partial=0.
 */
Tunables parse_set_variant(std::string_view text);

/// Shell-style wildcard match (*, ?, [...]) used to pick caches by name.
bool name_matches(std::string_view pattern, std::string_view name);

}  // namespace slabctl
