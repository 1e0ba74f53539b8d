// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/names.hpp"

#include <fmt/format.h>

#include <utility>

namespace slabctl {
namespace {

struct StatEntry {
	int item;
	std::string_view name;
};

// From the spec's stat-item (SLABLAB_STAT_ITEMS, include/slablab/protocol.h, generated
// from uapi/slablab.yaml), with their enum values: the static_asserts check the order.
#define SLABCTL_STAT(item, name) {SLABLAB_##item, #name},
constexpr StatEntry kStatEntries[] = {
	SLABLAB_STAT_ITEMS(SLABCTL_STAT)
};
#undef SLABCTL_STAT

static_assert(std::size(kStatEntries) == kNrStats,
	      "names.cpp: the stat name table does not cover enum slablab_stat_item");

constexpr bool stat_entries_in_order()
{
	for (std::size_t i = 0; i < std::size(kStatEntries); i++)
		if (kStatEntries[i].item != static_cast<int>(i))
			return false;
	return true;
}
static_assert(stat_entries_in_order(), "names.cpp: stat names out of enum order");

constexpr std::array<std::string_view, kNrStats> make_stat_names()
{
	std::array<std::string_view, kNrStats> names{};
	for (std::size_t i = 0; i < kNrStats; i++)
		names[i] = kStatEntries[i].name;
	return names;
}
constexpr std::array<std::string_view, kNrStats> kStatNames = make_stat_names();

constexpr std::pair<uint32_t, std::string_view> kFastpaths[] = {
	{SLABLAB_FASTPATH_CMPXCHG, "cmpxchg"},
	{SLABLAB_FASTPATH_IRQOFF, "irqoff"},
};
static_assert(std::size(kFastpaths) == __SLABLAB_FASTPATH_MAX);

// the spec's designs (SLABLAB_DESIGNS, generated)
#define SLABCTL_DESIGN(design, name) {SLABLAB_DESIGN_##design, #name},
constexpr std::pair<uint32_t, std::string_view> kDesigns[] = {
	SLABLAB_DESIGNS(SLABCTL_DESIGN)
};
#undef SLABCTL_DESIGN
static_assert(std::size(kDesigns) == __SLABLAB_DESIGN_MAX);

constexpr std::pair<uint32_t, std::string_view> kPagePolicies[] = {
	{SLABLAB_PAGE_POLICY_SLAB, "slab"},
	{SLABLAB_PAGE_POLICY_PAGE_ALLOC, "page_alloc"},
};
static_assert(std::size(kPagePolicies) == __SLABLAB_PAGE_POLICY_MAX);

constexpr std::pair<uint32_t, std::string_view> kOwners[] = {
	{SLABLAB_OWNER_NETLINK, "netlink"},
	{SLABLAB_OWNER_KERNEL, "kernel"},
	{SLABLAB_OWNER_KMALLOC, "kmalloc"},
};

// storms' and replays' (one uapi enum, one target layer in the module: target.h)
constexpr std::pair<uint32_t, std::string_view> kTargets[] = {
	{SLABLAB_TARGET_SLABLAB, "slablab"},
	{SLABLAB_TARGET_NATIVE, "native"},
	{SLABLAB_TARGET_KMALLOC, "kmalloc"},
	{SLABLAB_TARGET_NATIVE_KMALLOC, "native-kmalloc"},
};
static_assert(std::size(kTargets) == __SLABLAB_TARGET_MAX);

constexpr std::pair<uint32_t, std::string_view> kStormPatterns[] = {
	{SLABLAB_PATTERN_PAIR, "pair"},
	{SLABLAB_PATTERN_BATCH, "batch"},
	{SLABLAB_PATTERN_REMOTE, "remote"},
	{SLABLAB_PATTERN_CHURN, "churn"},
	{SLABLAB_PATTERN_BULK, "bulk"},
	{SLABLAB_PATTERN_PREFILL, "prefill"},
	{SLABLAB_PATTERN_RCU, "rcu"},
	{SLABLAB_PATTERN_PRODUCER_CONSUMER, "producer-consumer"},
};
static_assert(std::size(kStormPatterns) == __SLABLAB_PATTERN_MAX);

constexpr std::pair<uint32_t, std::string_view> kStormStates[] = {
	{SLABLAB_STORM_NONE, "none"},
	{SLABLAB_STORM_RUNNING, "running"},
	{SLABLAB_STORM_DONE, "done"},
	{SLABLAB_STORM_STOPPED, "stopped"},
};
static_assert(std::size(kStormStates) == __SLABLAB_STORM_STATE_MAX);

constexpr BitName kCacheFlags[] = {
	{SLABLAB_CACHE_F_DEBUG, "debug", 'D'},
	{SLABLAB_CACHE_F_HARDENED, "hardened", 'H'},
	{SLABLAB_CACHE_F_RANDOM, "random", 'R'},
	{SLABLAB_CACHE_F_HWCACHE_ALIGN, "hwcache_align", 'A'},
	{SLABLAB_CACHE_F_TYPESAFE_BY_RCU, "typesafe_by_rcu", 'B'},
};

constexpr BitName kFeatures[] = {
	{SLABLAB_FEAT_INIT_ON_ALLOC, "init_on_alloc", 0},
	{SLABLAB_FEAT_INIT_ON_FREE, "init_on_free", 0},
	{SLABLAB_FEAT_FREELIST_HARDENED, "freelist_hardened", 0},
	{SLABLAB_FEAT_FREELIST_RANDOM, "freelist_random", 0},
	{SLABLAB_FEAT_CMPXCHG_DOUBLE, "cmpxchg_double", 0},
	{SLABLAB_FEAT_SELFTEST, "selftest", 0},
	{SLABLAB_FEAT_PREEMPT_RT, "preempt_rt", 0},
};

// By command number; 12 is reserved (SELFTEST_WARN left netlink for debugfs): no name.
constexpr std::string_view kCommands[] = {
	"UNSPEC",	 "GET_STATUS",	     "CACHE_NEW",	   "CACHE_DEL",
	"CACHE_GET",	 "CACHE_SET",	     "CACHE_SHRINK",	   "CACHE_VALIDATE",
	"CACHE_RESET_STATS", "OBJ_ALLOC",	     "OBJ_FREE",	   "LAB_SET",
	{},		 "STORM_START",	     "STORM_GET",	   "STORM_STOP",
	"REPLAY_NEW",	 "REPLAY_DATA",	     "REPLAY_RUN",	   "REPLAY_GET",
	"REPLAY_STOP",
};
static_assert(std::size(kCommands) == __SLABLAB_CMD_MAX);

template <std::size_t N>
std::string enum_name(const std::pair<uint32_t, std::string_view> (&table)[N], uint32_t v)
{
	for (const auto& [value, name] : table)
		if (value == v)
			return std::string(name);
	return fmt::format("unknown({})", v);
}

template <std::size_t N>
std::optional<uint32_t> enum_value(const std::pair<uint32_t, std::string_view> (&table)[N],
				   std::string_view n) noexcept
{
	for (const auto& [value, name] : table)
		if (name == n)
			return value;
	return std::nullopt;
}

template <std::size_t N>
std::vector<std::string_view> enum_names(const std::pair<uint32_t, std::string_view> (&table)[N])
{
	std::vector<std::string_view> v;
	for (const auto& entry : table)
		v.push_back(entry.second);
	return v;
}

std::vector<std::string> bit_names(std::span<const BitName> table, uint32_t bits)
{
	std::vector<std::string> out;
	uint32_t known = 0;
	for (const auto& b : table) {
		known |= b.bit;
		if (bits & b.bit)
			out.emplace_back(b.name);
	}
	if (bits & ~known)
		out.push_back(fmt::format("{:#x}", bits & ~known));
	return out;
}

}  // namespace

const std::array<std::string_view, kNrStats>& stat_names() noexcept
{
	return kStatNames;
}

std::string_view stat_name(std::size_t item) noexcept
{
	return item < kNrStats ? kStatNames[item] : std::string_view{};
}

std::optional<std::size_t> stat_from_name(std::string_view name) noexcept
{
	for (std::size_t i = 0; i < kNrStats; i++)
		if (kStatNames[i] == name)
			return i;
	return std::nullopt;
}

std::string fastpath_name(uint32_t fastpath)
{
	return enum_name(kFastpaths, fastpath);
}

std::optional<uint32_t> fastpath_from_name(std::string_view name) noexcept
{
	return enum_value(kFastpaths, name);
}

std::vector<std::string_view> fastpath_names()
{
	return enum_names(kFastpaths);
}

std::string design_name(uint32_t design)
{
	return enum_name(kDesigns, design);
}

std::optional<uint32_t> design_from_name(std::string_view name) noexcept
{
	return enum_value(kDesigns, name);
}

std::vector<std::string_view> design_names()
{
	return enum_names(kDesigns);
}

std::string page_policy_name(uint32_t policy)
{
	return enum_name(kPagePolicies, policy);
}

std::optional<uint32_t> page_policy_from_name(std::string_view name) noexcept
{
	return enum_value(kPagePolicies, name);
}

std::vector<std::string_view> page_policy_names()
{
	return enum_names(kPagePolicies);
}

std::string owner_name(uint32_t owner)
{
	return enum_name(kOwners, owner);
}

std::string target_name(uint32_t target)
{
	return enum_name(kTargets, target);
}

std::optional<uint32_t> target_from_name(std::string_view name) noexcept
{
	if (name == "cache")	// the storm's word for a slablab cache before the enum was one
		return SLABLAB_TARGET_SLABLAB;
	if (name == "native_kmalloc")
		return SLABLAB_TARGET_NATIVE_KMALLOC;
	return enum_value(kTargets, name);
}

std::vector<std::string_view> target_names()
{
	return enum_names(kTargets);
}

std::string storm_pattern_name(uint32_t pattern)
{
	return enum_name(kStormPatterns, pattern);
}

std::optional<uint32_t> storm_pattern_from_name(std::string_view name) noexcept
{
	return enum_value(kStormPatterns, name);
}

std::vector<std::string_view> storm_pattern_names()
{
	return enum_names(kStormPatterns);
}

std::string storm_state_name(uint32_t state)
{
	return enum_name(kStormStates, state);
}

std::span<const BitName> cache_flag_table() noexcept
{
	return kCacheFlags;
}

std::optional<uint32_t> cache_flag_from_name(std::string_view name) noexcept
{
	for (const auto& f : kCacheFlags)
		if (f.name == name)
			return f.bit;
	return std::nullopt;
}

std::vector<std::string> cache_flag_names(uint32_t flags)
{
	return bit_names(kCacheFlags, flags);
}

std::span<const BitName> feature_table() noexcept
{
	return kFeatures;
}

std::vector<std::string> feature_names(uint32_t features)
{
	return bit_names(kFeatures, features);
}

std::string command_name(uint32_t cmd)
{
	if (cmd < std::size(kCommands) && !kCommands[cmd].empty())
		return std::string(kCommands[cmd]);
	return fmt::format("CMD_{}", cmd);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep)
{
	std::string out;
	for (std::size_t i = 0; i < parts.size(); i++) {
		if (i)
			out.append(sep);
		out.append(parts[i]);
	}
	return out;
}

}  // namespace slabctl
