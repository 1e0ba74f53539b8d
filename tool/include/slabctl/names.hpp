// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: names of the protocol's enum values, as people and JSON see them.
#pragma once

#include "slabctl/types.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/// Lower-case stat item names without the SLABLAB_ prefix, indexed by enum
/// slablab_stat_item: "alloc_fastpath" … "cpu_partial_drain" (as /sys/kernel/slab/*/ files).
const std::array<std::string_view, kNrStats>& stat_names() noexcept;
std::string_view stat_name(std::size_t item) noexcept; ///< "" when out of range
std::optional<std::size_t> stat_from_name(std::string_view name) noexcept;

/// "cmpxchg", "irqoff"; unknown values as "unknown(N)".
std::string fastpath_name(uint32_t fastpath);
std::optional<uint32_t> fastpath_from_name(std::string_view name) noexcept;
std::vector<std::string_view> fastpath_names();
std::string design_name(uint32_t design);
std::optional<uint32_t> design_from_name(std::string_view name) noexcept;
std::vector<std::string_view> design_names();

/// "slab", "page_alloc"; unknown values as "unknown(N)".
std::string page_policy_name(uint32_t policy);
std::optional<uint32_t> page_policy_from_name(std::string_view name) noexcept;
std::vector<std::string_view> page_policy_names();

/// "netlink", "kernel", "kmalloc"; unknown values as "unknown(N)".
std::string owner_name(uint32_t owner);

/// Storm and replay targets (enum slablab_target): "slablab" (slablab's caches),
/// "native" (the kernel's SLUB, kmem_caches made like them), "kmalloc"
/// (slablab_kmalloc), "native-kmalloc" (the kernel's kmalloc); unknown values as
/// "unknown(N)". target_from_name() also takes "cache" and "native_kmalloc".
std::string target_name(uint32_t target);
std::optional<uint32_t> target_from_name(std::string_view name) noexcept;
std::vector<std::string_view> target_names();

/// "pair", "batch", "remote", "churn", "bulk", "prefill", "rcu"; unknown values as "unknown(N)".
std::string storm_pattern_name(uint32_t pattern);
std::optional<uint32_t> storm_pattern_from_name(std::string_view name) noexcept;
std::vector<std::string_view> storm_pattern_names();

/// "none", "running", "done", "stopped"; unknown values as "unknown(N)".
std::string storm_state_name(uint32_t state);

/// A named bit of a bitmask.
struct BitName {
	uint32_t bit;
	std::string_view name;
	char letter; ///< the Flg column letter (cache flags only)
};

/// SLABLAB_CACHE_F_*: "debug", "hardened", "random", "hwcache_align".
std::span<const BitName> cache_flag_table() noexcept;
std::optional<uint32_t> cache_flag_from_name(std::string_view name) noexcept;
/// Names of the bits set; unknown bits as one "0x…" entry.
std::vector<std::string> cache_flag_names(uint32_t flags);

/// SLABLAB_FEAT_*: "init_on_alloc", "init_on_free", "freelist_hardened", "freelist_random",
/// "cmpxchg_double", "selftest", "preempt_rt".
std::span<const BitName> feature_table() noexcept;
std::vector<std::string> feature_names(uint32_t features);

/// SLABLAB_CMD_* without the prefix: "GET_STATUS", "CACHE_NEW", …; "CMD_<n>" if unknown.
std::string command_name(uint32_t cmd);

/// Join with a separator ("debug,random").
std::string join(const std::vector<std::string>& parts, std::string_view sep = ",");

}  // namespace slabctl
