// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: parsing and host-side validation of what people type. Pure functions: they
// throw UsageError with a message that names the offending value and the accepted range.
#pragma once

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
/// All of them, then validate_tunables(). At least one is needed.
Tunables parse_assignments(const std::vector<std::string>& assignments);

/// "debug,random" / "none" / "0x5" → SLABLAB_CACHE_F_* bits.
uint32_t parse_cache_flags(std::string_view text);

/// Shell-style wildcard match (*, ?, [...]) used to pick caches by name.
bool name_matches(std::string_view pattern, std::string_view name);

}  // namespace slabctl
