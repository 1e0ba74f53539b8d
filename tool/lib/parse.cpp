// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/parse.hpp"

#include "slabctl/error.hpp"
#include "slabctl/names.hpp"

#include <fmt/format.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <set>
#include <string>
#include <utility>

namespace slabctl {
namespace {

std::string lower(std::string_view s)
{
	std::string out(s);
	std::transform(out.begin(), out.end(), out.begin(),
		       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
	return out;
}

std::string joined(const std::vector<std::string_view>& names, std::string_view sep = ", ")
{
	std::string out;
	for (std::size_t i = 0; i < names.size(); i++) {
		if (i)
			out.append(sep);
		out.append(names[i]);
	}
	return out;
}

std::vector<std::string_view> cache_flag_name_list()
{
	std::vector<std::string_view> v;
	for (const auto& f : cache_flag_table())
		v.push_back(f.name);
	return v;
}

uint32_t parse_u32(std::string_view key, std::string_view value)
{
	auto v = parse_uint(value);
	if (!v)
		throw UsageError(fmt::format("{}: '{}' is not a number", key, value));
	if (*v > UINT32_MAX)
		throw UsageError(fmt::format("{}: {} is out of range", key, value), ERANGE);
	return static_cast<uint32_t>(*v);
}

}  // namespace

std::optional<uint64_t> parse_uint(std::string_view text) noexcept
{
	int base = 10;
	if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		text.remove_prefix(2);
	}
	if (text.empty())
		return std::nullopt;
	uint64_t value = 0;
	auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
	if (ec != std::errc() || ptr != text.data() + text.size())
		return std::nullopt;
	return value;
}

uint64_t parse_size(std::string_view text, std::string_view what)
{
	std::string_view digits = text;
	uint64_t mult = 1;
	std::size_t end = digits.find_first_not_of("0123456789");
	if (end != std::string_view::npos && !(digits.size() > 2 && digits[0] == '0' &&
					       (digits[1] == 'x' || digits[1] == 'X'))) {
		std::string suffix = lower(digits.substr(end));
		digits = digits.substr(0, end);
		if (suffix == "k" || suffix == "kib")
			mult = 1ULL << 10;
		else if (suffix == "m" || suffix == "mib")
			mult = 1ULL << 20;
		else if (suffix == "g" || suffix == "gib")
			mult = 1ULL << 30;
		else
			throw UsageError(fmt::format(
				"{}: '{}' is not a size (a number, optionally with K, M or G)", what,
				text));
	}
	auto v = parse_uint(digits);
	if (!v)
		throw UsageError(fmt::format(
			"{}: '{}' is not a size (a number, optionally with K, M or G)", what, text));
	if (*v > UINT64_MAX / mult)
		throw UsageError(fmt::format("{}: '{}' is too large", what, text), ERANGE);
	return *v * mult;
}

std::optional<bool> parse_bool(std::string_view text) noexcept
{
	std::string t;
	for (char c : text)
		t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
	if (t == "1" || t == "true" || t == "yes" || t == "on")
		return true;
	if (t == "0" || t == "false" || t == "no" || t == "off")
		return false;
	return std::nullopt;
}

void validate_cache_name(std::string_view name)
{
	if (name.empty())
		throw UsageError("cache name is empty");
	if (name.size() >= SLABLAB_NAME_MAX)
		throw UsageError(fmt::format("cache name '{}' is too long ({} bytes, at most {})",
					     name, name.size(), SLABLAB_NAME_MAX - 1));
	for (char c : name) {
		unsigned char u = static_cast<unsigned char>(c);
		if (!(std::isalnum(u) || c == '_' || c == '.' || c == ':' || c == '-'))
			throw UsageError(fmt::format(
				"cache name '{}' has a character other than A-Z a-z 0-9 _ . : -",
				name));
	}
}

void validate_spec(const CacheSpec& spec)
{
	// Sizes, alignments and the tunables' ranges are the kernel's to judge: its policy
	// and handlers say what is wrong (the policy's range in the error, error.cpp).
	validate_cache_name(spec.name);
}

void validate_tunables(const Tunables& t)
{
	// The values' ranges are the kernel's to judge (its policy, from uapi/slablab.yaml);
	// only what no single attribute can say is checked here.
	if (t.flags_set & t.flags_clear)
		throw UsageError("a flag is both set and cleared");
}

void validate_count(uint32_t count)
{
	if (count < 1 || count > SLABLAB_MAX_HANDLE_OBJECTS)
		throw UsageError(fmt::format("count {} is out of range (1..{})", count,
					     SLABLAB_MAX_HANDLE_OBJECTS),
				 ERANGE);
}

void validate_page_policy(uint32_t policy)
{
	if (policy >= __SLABLAB_PAGE_POLICY_MAX)
		throw UsageError(fmt::format("page policy {} is unknown (use {})", policy,
					     joined(page_policy_names(), " or ")));
}

const std::vector<std::string_view>& tunable_keys()
{
	static const std::vector<std::string_view> keys = [] {
		std::vector<std::string_view> k;
		for (const auto& d : kTunables)
			k.push_back(d.name);
		for (const auto& b : cache_flag_table())
			k.push_back(b.name);
		return k;
	}();
	return keys;
}

uint32_t parse_cache_flags(std::string_view text)
{
	std::string t = lower(text);
	if (t == "none" || t == "0" || t.empty())
		return 0;
	if (auto v = parse_uint(t)) {
		// unknown bits are the kernel's to refuse (its policy's mask)
		if (*v > UINT32_MAX)
			throw UsageError(fmt::format("flags {} is not a 32-bit value", text), ERANGE);
		return static_cast<uint32_t>(*v);
	}
	uint32_t flags = 0;
	std::size_t pos = 0;
	while (pos <= t.size()) {
		std::size_t comma = t.find(',', pos);
		std::string_view name = std::string_view(t).substr(
			pos, comma == std::string::npos ? std::string::npos : comma - pos);
		auto bit = cache_flag_from_name(name);
		if (!bit)
			throw UsageError(fmt::format("unknown cache flag '{}' (known: {}, or none)",
						     name, joined(cache_flag_name_list())));
		flags |= *bit;
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return flags;
}

namespace {

/// KEY=VALUE: the key lower case with '-' as '_' (the same keys either way), the value
/// not empty; `keys` are what the message lists when there is no '='.
std::pair<std::string, std::string_view> split_assignment(
	std::string_view assignment, const std::vector<std::string_view>& keys)
{
	std::size_t eq = assignment.find('=');
	if (eq == std::string_view::npos || eq == 0)
		throw UsageError(fmt::format("'{}' is not KEY=VALUE (keys: {})", assignment,
					     joined(keys)));
	std::string key = lower(assignment.substr(0, eq));
	std::replace(key.begin(), key.end(), '-', '_');
	std::string_view value = assignment.substr(eq + 1);
	if (value.empty())
		throw UsageError(fmt::format("{}: no value given", key));
	return {std::move(key), value};
}

}  // namespace

void apply_assignment(Tunables& t, std::string_view assignment)
{
	const auto [key, value] = split_assignment(assignment, tunable_keys());

	auto once = [&](bool already) {
		if (already)
			throw UsageError(fmt::format("{} is given more than once", key));
	};

	if (const TunableDesc* d = find_tunable(key)) {
		auto& field = t.*(d->in_tunables);
		once(field.has_value());
		field = parse_tunable_value(*d, value);
	} else if (auto bit = cache_flag_from_name(key)) {
		once(((t.flags_set | t.flags_clear) & *bit) != 0);
		auto on = parse_bool(value);
		if (!on)
			throw UsageError(fmt::format("{}: '{}' is not 0 or 1", key, value));
		if (*on)
			t.flags_set |= *bit;
		else
			t.flags_clear |= *bit;
	} else {
		throw UsageError(fmt::format("unknown key '{}' (keys: {})", key,
					     joined(tunable_keys())));
	}
}

uint32_t parse_tunable_value(const TunableDesc& d, std::string_view value)
{
	switch (d.kind) {
	case TunableKind::FLAGS:
		return parse_cache_flags(value);
	case TunableKind::ENUM:
		if (auto v = d.from_name(lower(value)))
			return *v;
		if (auto v = parse_uint(value); v && *v <= UINT32_MAX)
			return static_cast<uint32_t>(*v);	// a raw value: the kernel judges it
		throw UsageError(fmt::format("{}: '{}' is not one of {}", d.name, value,
					     joined(d.names())));
	case TunableKind::NUM:
		break;
	}
	return parse_u32(d.name, value);
}

const TunableDesc* find_tunable(std::string_view name) noexcept
{
	std::string key(name);
	std::replace(key.begin(), key.end(), '-', '_');
	for (const auto& d : kTunables)
		if (d.name == key)
			return &d;
	return nullptr;
}

Tunables parse_assignments(const std::vector<std::string>& assignments)
{
	if (assignments.empty())
		throw UsageError(fmt::format("nothing to set: give KEY=VALUE (keys: {})",
					     joined(tunable_keys())));
	Tunables t;
	for (const auto& a : assignments)
		apply_assignment(t, a);
	validate_tunables(t);
	return t;
}

const std::vector<std::string_view>& lab_keys()
{
	static const std::vector<std::string_view> keys = {"kmalloc_design", "kmalloc_lists",
							   "kmalloc_page_policy"};
	return keys;
}

namespace {

/// One of `names` (case-insensitive), by `from_name`; the message lists them.
template <typename FromName>
uint32_t named_value(std::string_view key, std::string_view value,
		     const std::vector<std::string_view>& names, FromName from_name)
{
	if (auto v = from_name(lower(value)))
		return *v;
	throw UsageError(fmt::format("{}: '{}' is not one of {}", key, value, joined(names)));
}

void apply_lab_assignment(LabSettings& s, std::string_view assignment)
{
	const auto [key, value] = split_assignment(assignment, lab_keys());
	auto set_once = [&](std::optional<uint32_t>& field, uint32_t v) {
		if (field)
			throw UsageError(fmt::format("{} is given more than once", key));
		field = v;
	};
	if (key == "kmalloc_design")
		set_once(s.kmalloc_design, named_value(key, value, design_names(), design_from_name));
	else if (key == "kmalloc_lists")
		set_once(s.kmalloc_lists, parse_u32(key, value));
	else if (key == "kmalloc_page_policy")
		set_once(s.kmalloc_page_policy,
			 named_value(key, value, page_policy_names(), page_policy_from_name));
	else
		throw UsageError(fmt::format("unknown key '{}' (keys: {})", key, joined(lab_keys())));
}

}  // namespace

LabSettings parse_lab_assignments(const std::vector<std::string>& assignments)
{
	if (assignments.empty())
		throw UsageError(fmt::format("nothing to set: give KEY=VALUE (keys: {})",
					     joined(lab_keys())));
	LabSettings s;
	for (const auto& a : assignments)
		apply_lab_assignment(s, a);
	return s;
}

namespace {

/// The kernel's struct rcu_head (two pointers): the rcu pattern frees objects through one.
constexpr uint32_t kRcuHeadSize = 2 * sizeof(void*);

/// Split at commas (empty pieces kept).
std::vector<std::string_view> split_commas(std::string_view text)
{
	std::vector<std::string_view> out;
	std::size_t pos = 0;
	for (;;) {
		std::size_t comma = text.find(',', pos);
		out.push_back(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos
									      : comma - pos));
		if (comma == std::string_view::npos)
			break;
		pos = comma + 1;
	}
	return out;
}

/// A non-negative decimal number with an optional fraction: "1", "1.5", ".5".
std::optional<double> parse_decimal(std::string_view text) noexcept
{
	if (text.empty() || text.size() > 32)
		return std::nullopt;
	bool digits = false, dot = false;
	for (char c : text) {
		if (c == '.') {
			if (dot)
				return std::nullopt;
			dot = true;
		} else if (c >= '0' && c <= '9') {
			digits = true;
		} else {
			return std::nullopt;
		}
	}
	if (!digits)
		return std::nullopt;
	return std::stod(std::string(text));
}

}  // namespace

uint64_t parse_duration_ms(std::string_view text, std::string_view what)
{
	std::string t = lower(text);
	double mult = 1000.0;	// bare numbers are seconds
	auto strip = [&](std::string_view suffix, double m) {
		if (t.size() > suffix.size() && t.ends_with(suffix)) {
			t.resize(t.size() - suffix.size());
			mult = m;
			return true;
		}
		return false;
	};
	(void)(strip("ms", 1.0) || strip("s", 1000.0) || strip("m", 60000.0));
	auto v = parse_decimal(t);
	if (!v)
		throw UsageError(fmt::format("{}: '{}' is not a duration (e.g. 500ms, 2s, 1.5s, "
					     "1m; a bare number is seconds)",
					     what, text));
	double ms = std::round(*v * mult);
	if (ms > 1e15)
		throw UsageError(fmt::format("{}: '{}' is too long", what, text), ERANGE);
	return static_cast<uint64_t>(ms);
}

double parse_interval_s(std::string_view text, std::string_view what)
{
	uint64_t ms = parse_duration_ms(text, what);
	if (ms == 0)
		throw UsageError(fmt::format("{}: '{}' must be at least 1 ms", what, text), ERANGE);
	return static_cast<double>(ms) / 1000.0;
}

std::vector<uint32_t> parse_cpu_list(std::string_view text)
{
	auto bad = [&](std::string_view why) -> UsageError {
		return UsageError(fmt::format("cpu list '{}': {} (use e.g. 0-3,6 or 0-7:2/4)", text,
					      why));
	};
	if (text.empty())
		throw bad("empty");
	auto number = [&](std::string_view n) -> uint32_t {
		auto v = parse_uint(n);
		if (!v || n.starts_with("0x") || n.starts_with("0X"))
			throw bad(fmt::format("'{}' is not a cpu number", n));
		if (*v >= 65536)
			throw bad(fmt::format("cpu {} is too large", *v));
		return static_cast<uint32_t>(*v);
	};
	std::set<uint32_t> cpus;
	for (std::string_view piece : split_commas(text)) {
		if (piece.empty())
			throw bad("empty entry");
		std::string_view range = piece, stride;
		if (std::size_t colon = piece.find(':'); colon != std::string_view::npos) {
			range = piece.substr(0, colon);
			stride = piece.substr(colon + 1);
		}
		uint32_t first, last;
		if (std::size_t dash = range.find('-'); dash != std::string_view::npos) {
			first = number(range.substr(0, dash));
			last = number(range.substr(dash + 1));
			if (last < first)
				throw bad(fmt::format("range {} goes backwards", range));
		} else {
			if (!stride.empty())
				throw bad("a stride needs a range");
			first = last = number(range);
		}
		uint32_t used = 1, group = 1;
		if (!stride.empty()) {
			std::size_t slash = stride.find('/');
			if (slash == std::string_view::npos)
				throw bad(fmt::format("stride '{}' is not USED/GROUP", stride));
			used = number(stride.substr(0, slash));
			group = number(stride.substr(slash + 1));
			if (used == 0 || group == 0 || used > group)
				throw bad(fmt::format("stride '{}' needs 0 < USED <= GROUP", stride));
		}
		for (uint32_t c = first; c <= last; c++)
			if ((c - first) % group < used)
				cpus.insert(c);
	}
	return {cpus.begin(), cpus.end()};
}

std::vector<StormSize> parse_storm_sizes(std::string_view text)
{
	std::vector<StormSize> out;
	if (text.empty())
		throw UsageError("sizes: empty (use e.g. 64:3,192:1)");
	for (std::string_view piece : split_commas(text)) {
		if (piece.empty())
			throw UsageError(fmt::format("sizes '{}': empty entry (use e.g. 64:3,192:1)",
						     text));
		StormSize e;
		std::string_view size = piece;
		if (std::size_t colon = piece.find(':'); colon != std::string_view::npos) {
			size = piece.substr(0, colon);
			e.weight = parse_u32("sizes: weight", piece.substr(colon + 1));
			if (e.weight == 0)
				throw UsageError(fmt::format("sizes: weight of '{}' must be at least 1",
							     piece),
						 ERANGE);
		}
		uint64_t bytes = parse_size(size, "sizes");
		if (bytes == 0 || bytes > UINT32_MAX)
			throw UsageError(fmt::format("sizes: size '{}' is out of range", size), ERANGE);
		e.size = static_cast<uint32_t>(bytes);
		out.push_back(e);
	}
	if (out.size() > SLABLAB_STORM_MAX_SIZES)
		throw UsageError(fmt::format("sizes: {} entries, at most {}", out.size(),
					     SLABLAB_STORM_MAX_SIZES),
				 ERANGE);
	return out;
}

std::string format_storm_sizes(const std::vector<StormSize>& sizes)
{
	std::string out;
	for (const auto& e : sizes) {
		if (!out.empty())
			out += ',';
		out += e.weight == 1 ? fmt::format("{}", e.size)
				     : fmt::format("{}:{}", e.size, e.weight);
	}
	return out;
}

std::vector<uint32_t> parse_u32_list(std::string_view text, std::string_view what)
{
	std::vector<uint32_t> out;
	for (std::string_view piece : split_commas(text)) {
		if (piece.empty())
			throw UsageError(fmt::format("{}: '{}' has an empty entry", what, text));
		out.push_back(parse_u32(what, piece));
	}
	return out;
}

void validate_storm_spec(const StormSpec& spec)
{
	// Only how the fields go together is checked here: every value's range is the
	// kernel's to judge (its policy, from uapi/slablab.yaml; the error names the range).
	const std::string target = target_name(spec.target);
	if (!spec.cache.empty())
		validate_cache_name(spec.cache);
	const bool kmalloc = spec.target == SLABLAB_TARGET_KMALLOC ||
			     spec.target == SLABLAB_TARGET_NATIVE_KMALLOC;
	if (spec.size && !spec.sizes.empty())
		throw UsageError("give a size or a size distribution (sizes), not both");
	switch (spec.target) {
	case SLABLAB_TARGET_SLABLAB:
		if (spec.cache.empty())
			throw UsageError("target slablab needs a cache (--cache NAME)");
		if (spec.size || !spec.sizes.empty())
			throw UsageError("target slablab takes the object size from its cache: "
					 "no size or sizes");
		break;
	case SLABLAB_TARGET_NATIVE:
		if (spec.cache.empty() && !spec.size && spec.sizes.empty())
			throw UsageError("target native needs a cache to copy (--cache NAME), an "
					 "object size (--size N) or sizes (its kmalloc classes)");
		if (!spec.cache.empty() && !spec.sizes.empty())
			throw UsageError("target native takes a cache to copy or sizes (kmalloc "
					 "classes of its own), not both");
		break;
	default:
		break;
	}
	if (kmalloc) {
		if (!spec.cache.empty())
			throw UsageError(fmt::format("target {} takes --size or --sizes, not a cache",
						     target));
		if (!spec.size && spec.sizes.empty())
			throw UsageError(fmt::format("target {} needs --size N or --sizes "
						     "SIZE:WEIGHT,…",
						     target));
	}
	if (kmalloc && spec.pattern == SLABLAB_PATTERN_BULK)
		throw UsageError(fmt::format("pattern bulk needs a cache target (slablab or native), "
					     "not {}",
					     target));
	if (spec.pattern == SLABLAB_PATTERN_PREFILL && spec.target != SLABLAB_TARGET_SLABLAB)
		throw UsageError(fmt::format("pattern prefill needs the slablab target (the kernel's "
					     "SLUB has no sheaves), not {}",
					     target));
	if (spec.pattern == SLABLAB_PATTERN_RCU &&
	    (spec.target == SLABLAB_TARGET_NATIVE || spec.target == SLABLAB_TARGET_NATIVE_KMALLOC))
		throw UsageError(fmt::format("pattern rcu needs a slablab target (slablab or kmalloc), "
					     "not {}: the storm waits for its RCU frees, and the "
					     "kernel's kfree_rcu() has no barrier for that",
					     target));
	if (spec.pattern == SLABLAB_PATTERN_RCU) {
		for (const auto& e : spec.sizes)
			if (e.size < kRcuHeadSize)
				throw UsageError(fmt::format("pattern rcu needs objects of at least {} "
							     "bytes (a struct rcu_head), not {}",
							     kRcuHeadSize, e.size));
		if (spec.size && *spec.size < kRcuHeadSize)
			throw UsageError(fmt::format("pattern rcu needs objects of at least {} bytes "
						     "(a struct rcu_head), not {}",
						     kRcuHeadSize, *spec.size));
	}
	if (spec.rate && *spec.rate && spec.pattern != SLABLAB_PATTERN_RCU)
		throw UsageError("--rate applies to pattern rcu");
	if (!spec.cpus.empty())
		parse_cpu_list(spec.cpus);
	if (spec.ops && spec.duration_ms)
		throw UsageError("give ops or a duration, not both");
	if (spec.ring && (*spec.ring & (*spec.ring - 1)))
		throw UsageError(fmt::format("ring {} is not a power of two", *spec.ring));
	if (spec.producers && spec.pattern != SLABLAB_PATTERN_PRODUCER_CONSUMER)
		throw UsageError("--producers applies to pattern producer-consumer");
	if (spec.producers && *spec.producers == 0)
		throw UsageError("--producers is at least 1", ERANGE);
	if (spec.producers && spec.threads && *spec.producers >= *spec.threads)
		throw UsageError(fmt::format("--producers {} leaves no consumer of {} threads "
					     "(1..threads - 1)",
					     *spec.producers, *spec.threads),
				 ERANGE);
	if (spec.thin && spec.pattern != SLABLAB_PATTERN_CHURN)
		throw UsageError("--thin applies to pattern churn");
	if (spec.thin && *spec.thin == 0)
		throw UsageError("--thin is at least 1", ERANGE);
	if (spec.thin && *spec.thin > spec.working_set.value_or(4096))
		throw UsageError(fmt::format("--thin {} is over the working set ({})", *spec.thin,
					     spec.working_set.value_or(4096)),
				 ERANGE);
}

Tunables parse_set_variant(std::string_view text)
{
	std::vector<std::string> assignments;
	for (std::string_view piece : split_commas(text)) {
		if (piece.find('=') == std::string_view::npos && !assignments.empty()) {
			assignments.back() += ',';
			assignments.back() += piece;
		} else {
			assignments.emplace_back(piece);
		}
	}
	if (text.empty())
		assignments.clear();
	return parse_assignments(assignments);
}

bool name_matches(std::string_view pattern, std::string_view name)
{
	return fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

}  // namespace slabctl
