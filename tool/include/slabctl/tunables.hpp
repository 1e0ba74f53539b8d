// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: the cache tunables as data, from SLABLAB_CACHE_TUNABLES (generated from
// uapi/slablab.yaml's cache-tunables). The request encoders, the reply decoder, the JSON
// writer, slabctl's KEY=VALUE parser and options and the Python binding loop over
// kTunables, so a new tunable needs no code here (docs/design.md, "How to add a tunable").
#pragma once

#include "slabctl/names.hpp"
#include "slabctl/types.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/// How a tunable's value is spelled: a number, an enum value's name, or flag names.
enum class TunableKind { NUM, ENUM, FLAGS };

/// One cache tunable.
struct TunableDesc {
	int attr;		///< SLABLAB_CACHE_A_*
	std::string_view name;	///< spec name with _ for -: KEY, JSON key, Python keyword
	TunableKind kind;
	uint64_t min, max;	///< what the kernel's policy accepts (FLAGS: max is the mask)
	std::optional<uint32_t> Tunables::*in_tunables;
	std::optional<uint32_t> CacheSpec::*in_spec;
	uint32_t CacheInfo::*in_info;
	/// SLABLAB_TUNABLE_D_* of the designs whose code reads it (uapi/tunables.yaml)
	uint32_t designs;
	/// ENUM: the names of the values (nullptr for NUM and FLAGS)
	std::string (*value_name)(uint32_t);
	std::optional<uint32_t> (*from_name)(std::string_view);
	std::vector<std::string_view> (*names)();
};

// How each enum of the spec that a tunable uses is named (names.hpp): one line per enum,
// not per tunable. A tunable of a new enum needs its line here.
#define SLABCTL_ENUM_NAMES_none nullptr, nullptr, nullptr
#define SLABCTL_ENUM_NAMES_cache_flags nullptr, nullptr, nullptr
#define SLABCTL_ENUM_NAMES_fastpath &fastpath_name, &fastpath_from_name, &fastpath_names
#define SLABCTL_ENUM_NAMES_design &design_name, &design_from_name, &design_names

// Every tunable is a u32 (the member pointers above): a u64 one fails to build here.
#define SLABCTL_IS_u32 true
#define SLABCTL_TUNABLE_DESC(attr, name, type, kind, enum, min, max)                        \
	TunableDesc{SLABLAB_CACHE_A_##attr, #name, TunableKind::kind, min, max,             \
		    &Tunables::name, &CacheSpec::name, &CacheInfo::name,                     \
		    SLABLAB_TUNABLE_DESIGNS_##attr, SLABCTL_ENUM_NAMES_##enum},
#define SLABCTL_TUNABLE_U32(attr, name, type, ...) \
	static_assert(SLABCTL_IS_##type, "tunable " #name " is not a u32");
SLABLAB_CACHE_TUNABLES(SLABCTL_TUNABLE_U32)

/// The tunables in the order the module applies them.
inline const std::array kTunables = {SLABLAB_CACHE_TUNABLES(SLABCTL_TUNABLE_DESC)};

#undef SLABCTL_TUNABLE_DESC
#undef SLABCTL_TUNABLE_U32

/// The tunable named `name` ("cpu_partial"; - and _ alike), or nullptr.
const TunableDesc* find_tunable(std::string_view name) noexcept;

}  // namespace slabctl
