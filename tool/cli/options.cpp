// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace slabctl::cli {
namespace {

/// names → wire numbers (as text: what CLI::Transformer hands on to the enum option).
template <typename FromName>
CLI::Option* names_option(CLI::Option* opt, const std::vector<std::string_view>& names,
			  FromName from_name)
{
	std::vector<std::string> members;
	std::map<std::string, std::string> numbers;
	for (std::string_view n : names) {
		members.emplace_back(n);
		numbers.emplace(n, std::to_string(*from_name(n)));
	}
	// One validator, so that the name is checked before it is turned into a number
	// (transform() runs before check()): IsMember's message, Transformer's result.
	return opt->transform(CLI::IsMember(members) & CLI::Transformer(numbers).description(""));
}

constexpr const char* kNumberValidator = "slabctl-number";

/// `text` with the leading zeros of its decimal number dropped: "010" → "10", "007K" →
/// "7K", "00" → "0"; "0x10", "0", "0K" and text without leading zeros as they are.
std::string without_leading_zeros(std::string text)
{
	const std::size_t zeros = text.find_first_not_of('0');
	if (zeros == 0)
		return text;
	if (zeros == std::string::npos)
		return "0";
	const char next = text[zeros];
	if (std::isdigit(static_cast<unsigned char>(next)))
		return text.substr(zeros);
	if (next == 'x' || next == 'X')	// hex: "0x…" as it is ("00x…" stays an error)
		return text;
	return text.substr(zeros - 1);	// "00K" → "0K"
}

/// A CLI11 unit validator whose error names the value and says what was expected; the
/// number is decimal (see decimal()).
CLI::Validator with_message(CLI::Validator inner, std::string_view what, std::string_view units)
{
	std::string desc = inner.get_description();
	CLI::Validator v(
		[inner, what = std::string(what), units = std::string(units)](std::string& input) {
			const std::string text = input;
			input = without_leading_zeros(input);
			// AsNumberWithUnit takes a bare unit as 1 of it ("K" = 1024): not a number
			std::string err;
			if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
				err = "no digits";
			else
				try {
					err = inner(input);
				} catch (const CLI::ValidationError& e) {
					err = e.what();
				}
			if (err.empty())
				return err;
			input = text;
			return fmt::format("'{}' is not a {} (a number, optionally with {})", text,
					   what, units);
		},
		desc, kNumberValidator);
	return v;
}

}  // namespace

CLI::Option* accept_fastpath(CLI::Option* opt)
{
	return names_option(opt, fastpath_names(), fastpath_from_name);
}

CLI::Option* accept_page_policy(CLI::Option* opt)
{
	return names_option(opt, page_policy_names(), page_policy_from_name);
}

CLI::Option* accept_storm_target(CLI::Option* opt)
{
	return names_option(opt, target_names(), target_from_name);
}

CLI::Option* accept_storm_pattern(CLI::Option* opt)
{
	return names_option(opt, storm_pattern_names(), storm_pattern_from_name);
}

CLI::Validator decimal()
{
	static const CLI::Validator v(
		[](std::string& input) {
			input = without_leading_zeros(input);
			return std::string();
		},
		"", kNumberValidator);
	return v;
}

void decimal_integers(CLI::App& cmd)
{
	for (CLI::Option* opt : cmd.get_options()) {
		const std::string type = opt->get_type_name();
		if (type.rfind("UINT", 0) != 0 && type.rfind("INT", 0) != 0)
			continue;
		try {
			opt->get_validator(kNumberValidator);
			continue;	// size_value() or count_value() reads it
		} catch (const CLI::OptionNotFound&) {
		}
		opt->transform(decimal());
	}
}

// Built once: AsNumberWithUnit lower-cases and checks its table (with std::locale) each
// time it is made, and slabctl declares every command's options on every start.
CLI::Validator size_value()
{
	static const CLI::Validator v = with_message(CLI::AsSizeValue(false), "size", "K, M or G");
	return v;
}

CLI::Validator count_value()
{
	static const std::map<std::string, uint64_t> decimal = {
		{"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}};
	static const CLI::Validator v = with_message(
		CLI::AsNumberWithUnit(decimal, CLI::AsNumberWithUnit::CASE_INSENSITIVE, "k|M|G"),
		"count", "k, M or G");
	return v;
}

}  // namespace slabctl::cli
