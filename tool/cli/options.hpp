// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl: typed option values and the CLI11 validators that read them. Names come from
// libslabctl's names table (names.hpp), so the CLI accepts exactly what it prints.
#pragma once

#include "slabctl/slabctl.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace slabctl::cli {

enum class Fastpath : uint32_t {
	cmpxchg = SLABLAB_FASTPATH_CMPXCHG,
	irqoff = SLABLAB_FASTPATH_IRQOFF,
};

enum class PagePolicy : uint32_t {
	slab = SLABLAB_PAGE_POLICY_SLAB,
	page_alloc = SLABLAB_PAGE_POLICY_PAGE_ALLOC,
};

enum class StormTarget : uint32_t {
	slablab = SLABLAB_TARGET_SLABLAB,
	native = SLABLAB_TARGET_NATIVE,
	kmalloc = SLABLAB_TARGET_KMALLOC,
	native_kmalloc = SLABLAB_TARGET_NATIVE_KMALLOC,
};

enum class StormPattern : uint32_t {
	pair = SLABLAB_PATTERN_PAIR,
	batch = SLABLAB_PATTERN_BATCH,
	remote = SLABLAB_PATTERN_REMOTE,
	churn = SLABLAB_PATTERN_CHURN,
	bulk = SLABLAB_PATTERN_BULK,
	prefill = SLABLAB_PATTERN_PREFILL,
	rcu = SLABLAB_PATTERN_RCU,
};

/// The protocol's u32 for a typed value.
template <typename E>
constexpr uint32_t wire(E e) noexcept
{
	return static_cast<uint32_t>(e);
}

/**
 * Make `opt` accept the names of an enum (as names.hpp spells them) and store the value:
 * CLI::IsMember rejects anything else ("turbo not in {cmpxchg,irqoff}"), then
 * CLI::Transformer turns the name into the number the enum option is read from.
 */
CLI::Option* accept_fastpath(CLI::Option* opt);
CLI::Option* accept_page_policy(CLI::Option* opt);
CLI::Option* accept_storm_target(CLI::Option* opt);
CLI::Option* accept_storm_pattern(CLI::Option* opt);

/**
 * Numbers on slabctl's command line are decimal, or hex with 0x, as libslabctl's
 * parse_uint() reads KEY=VALUE settings: CLI11 reads integers with strtoull(…, 0), which
 * takes "010" as octal 8 (and refuses "08"). This transform drops the leading zeros of a
 * decimal number first ("010" → "10", "007K" → "7K"); "0x10" stays hex. It adds nothing
 * to --help.
 */
CLI::Validator decimal();
/// Give every integer option of `cmd` decimal(), except those that size_value() or
/// count_value() reads (they drop leading zeros themselves, and quote what was typed).
void decimal_integers(CLI::App& cmd);

/// A byte count with binary suffixes (CLI::AsSizeValue: 4K = 4KiB = 4096, 1M, 2G; 0x
/// hex; decimal otherwise: 010 = 10); a bad value says "'12q' is not a size (a number,
/// optionally with K, M or G)".
CLI::Validator size_value();
/// A count with decimal suffixes (CLI::AsNumberWithUnit: 100k, 2M, 1G; 010 = 10); a bad value says
/// "'lots' is not a count (a number, optionally with k, M or G)".
CLI::Validator count_value();

}  // namespace slabctl::cli
