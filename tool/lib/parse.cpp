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
#include <string>

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

void check_max(std::string_view what, uint64_t value, uint64_t max)
{
	if (value > max)
		throw UsageError(fmt::format("{} {} is out of range (0..{})", what, value, max),
				 ERANGE);
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
	validate_cache_name(spec.name);
	if (spec.size < SLABLAB_MIN_SIZE || spec.size > SLABLAB_MAX_SIZE)
		throw UsageError(fmt::format("object size {} is out of range ({}..{})", spec.size,
					     SLABLAB_MIN_SIZE, SLABLAB_MAX_SIZE),
				 ERANGE);
	if (spec.align) {
		uint32_t a = *spec.align;
		if (a != 0 && (a & (a - 1)) != 0)
			throw UsageError(fmt::format("align {} is not a power of two", a));
		check_max("align", a, SLABLAB_MAX_ALIGN);
	}
	if (spec.flags && (*spec.flags & ~static_cast<uint32_t>(__SLABLAB_CACHE_F_ALL)))
		throw UsageError(fmt::format("flags {:#x} has unknown bits (known: {:#x})",
					     *spec.flags,
					     static_cast<uint32_t>(__SLABLAB_CACHE_F_ALL)));
	Tunables t;
	t.cpu_partial = spec.cpu_partial;
	t.min_partial = spec.min_partial;
	t.order = spec.order;
	t.fastpath = spec.fastpath;
	validate_tunables(t);
}

void validate_tunables(const Tunables& t)
{
	if (t.cpu_partial)
		check_max("cpu_partial", *t.cpu_partial, SLABLAB_MAX_CPU_PARTIAL);
	if (t.min_partial)
		check_max("min_partial", *t.min_partial, SLABLAB_MAX_MIN_PARTIAL);
	if (t.order)
		check_max("order", *t.order, SLABLAB_MAX_ORDER);
	if (t.fastpath && *t.fastpath >= __SLABLAB_FASTPATH_MAX)
		throw UsageError(fmt::format("fastpath {} is unknown (use {})", *t.fastpath,
					     joined(fastpath_names(), " or ")));
	const uint32_t all = __SLABLAB_CACHE_F_ALL;
	if (t.flags && (*t.flags & ~all))
		throw UsageError(fmt::format("flags {:#x} has unknown bits (known: {:#x})",
					     *t.flags, all));
	if ((t.flags_set | t.flags_clear) & ~all)
		throw UsageError("unknown cache flag bits");
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
	static const std::vector<std::string_view> keys = {
		"cpu_partial", "min_partial", "order",	       "fastpath",
		"debug",       "hardened",    "random",	       "hwcache_align",
		"flags",
	};
	return keys;
}

uint32_t parse_cache_flags(std::string_view text)
{
	std::string t = lower(text);
	if (t == "none" || t == "0" || t.empty())
		return 0;
	if (auto v = parse_uint(t)) {
		if (*v & ~static_cast<uint64_t>(__SLABLAB_CACHE_F_ALL))
			throw UsageError(fmt::format("flags {} has unknown bits (known: {:#x})", text,
						     static_cast<uint32_t>(__SLABLAB_CACHE_F_ALL)));
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

void apply_assignment(Tunables& t, std::string_view assignment)
{
	std::size_t eq = assignment.find('=');
	if (eq == std::string_view::npos || eq == 0)
		throw UsageError(fmt::format("'{}' is not KEY=VALUE (keys: {})", assignment,
					     joined(tunable_keys())));
	std::string key = lower(assignment.substr(0, eq));
	std::replace(key.begin(), key.end(), '-', '_');
	std::string_view value = assignment.substr(eq + 1);
	if (value.empty())
		throw UsageError(fmt::format("{}: no value given", key));

	auto once = [&](bool already) {
		if (already)
			throw UsageError(fmt::format("{} is given more than once", key));
	};

	if (key == "cpu_partial") {
		once(t.cpu_partial.has_value());
		t.cpu_partial = parse_u32(key, value);
	} else if (key == "min_partial") {
		once(t.min_partial.has_value());
		t.min_partial = parse_u32(key, value);
	} else if (key == "order") {
		once(t.order.has_value());
		t.order = parse_u32(key, value);
	} else if (key == "fastpath") {
		once(t.fastpath.has_value());
		auto fp = fastpath_from_name(lower(value));
		if (!fp)
			throw UsageError(fmt::format("fastpath: '{}' is not one of {}", value,
						     joined(fastpath_names())));
		t.fastpath = *fp;
	} else if (key == "flags") {
		once(t.flags.has_value());
		t.flags = parse_cache_flags(value);
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

bool name_matches(std::string_view pattern, std::string_view name)
{
	return fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

}  // namespace slabctl
