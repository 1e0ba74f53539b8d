// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl create, destroy, set, shrink, validate and reset: a cache's life and tunables.
#include "common.hpp"
#include "options.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/tunables.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slabctl::cli {
namespace {

// ---- the tunables, as options of `create`: one per tunable of the spec (kTunables) ----

struct TunableOptions {
	// --NAME VALUE for every tunable of the spec but flags (the switches below), by name;
	// an empty value was not given (the kernel's default)
	std::map<std::string_view, std::string> values;
	bool debug = false, hardened = false, random = false, hwcache_align = false;
	bool typesafe_by_rcu = false;
};

void add_tunable_options(CLI::App& cmd, TunableOptions& t)
{
	for (const auto& d : kTunables) {
		if (d.kind == TunableKind::FLAGS)
			continue;
		std::string opt(d.name);
		std::replace(opt.begin(), opt.end(), '_', '-');
		cmd.add_option("--" + opt, t.values[d.name],
			       d.kind == TunableKind::ENUM
				       ? fmt::format("Tunable {}: {}", d.name, fmt::join(d.names(), " | "))
				       : fmt::format("Tunable {} (the kernel accepts {}..{})", d.name,
						     d.min, d.max));
	}
	cmd.add_flag("--debug", t.debug, "Poisoning, red zones, free-pointer checks");
	cmd.add_flag("--hardened", t.hardened, "Obfuscate free pointers");
	cmd.add_flag("--random", t.random, "Randomize the freelists of new slabs");
	cmd.add_flag("--hwcache-align", t.hwcache_align, "Align objects to cache lines");
	cmd.add_flag("--typesafe-by-rcu", t.typesafe_by_rcu,
		     "SLAB_TYPESAFE_BY_RCU: slabs go back only after an RCU grace period");
}

void apply_tunables(const TunableOptions& t, CacheSpec& spec)
{
	for (const auto& d : kTunables)
		if (auto it = t.values.find(d.name); it != t.values.end() && !it->second.empty())
			spec.*(d.in_spec) = parse_tunable_value(d, it->second);
	uint32_t flags = 0;
	if (t.debug)
		flags |= SLABLAB_CACHE_F_DEBUG;
	if (t.hardened)
		flags |= SLABLAB_CACHE_F_HARDENED;
	if (t.random)
		flags |= SLABLAB_CACHE_F_RANDOM;
	if (t.hwcache_align)
		flags |= SLABLAB_CACHE_F_HWCACHE_ALIGN;
	if (t.typesafe_by_rcu)
		flags |= SLABLAB_CACHE_F_TYPESAFE_BY_RCU;
	if (flags)
		spec.flags = flags;
}

// ---- create ----

struct CreateOptions {
	std::string name;
	uint64_t size = 0, align = 0;
	const CLI::Option* align_opt = nullptr;
	TunableOptions tunables;
};

uint32_t to_u32(uint64_t v, std::string_view what)
{
	if (v > UINT32_MAX)
		throw UsageError(fmt::format("{} {} is out of range", what, v), ERANGE);
	return static_cast<uint32_t>(v);
}

int run_create(const CreateOptions& o)
{
	CacheSpec spec;
	spec.name = o.name;
	spec.size = to_u32(o.size, "--size");
	if (o.align_opt->count())
		spec.align = to_u32(o.align, "--align");
	apply_tunables(o.tunables, spec);
	validate_spec(spec);

	Client client;
	CacheInfo c = client.cache_create(spec);
	if (json_output()) {
		Json j = json_envelope("create");
		j["cache"] = to_json(c);
		print_json(j);
	} else {
		fmt::print("created {}\n", render_cache_summary(c));
	}
	return kExitOk;
}

// ---- set ----

struct SetOptions {
	std::string name;
	std::vector<std::string> assignments;
};

int run_set(const SetOptions& o)
{
	validate_cache_name(o.name);
	Tunables t = parse_assignments(o.assignments);
	Client client;
	CacheInfo c = client.cache_set(o.name, t);
	for (const auto& note : set_notes(t, c))
		fmt::print(stderr, "slabctl: set {}: note: {}\n", o.name, note);
	if (json_output()) {
		Json j = json_envelope("set");
		j["cache"] = to_json(c);
		print_json(j);
	} else {
		fmt::print("{}\n", render_cache_summary(c));
	}
	return kExitOk;
}

/// The options of the commands that take a cache name (and --json, an alias of -j).
struct NameOptions {
	std::string name;
};

std::shared_ptr<NameOptions> add_name_options(CLI::App& cmd, bool json)
{
	auto o = std::make_shared<NameOptions>();
	cmd.add_option("NAME", o->name, "Cache name")->required();
	if (json)
		add_json_flag(cmd);
	return o;
}

/// destroy's and reset's document under -j: the cache the command acted on.
void print_done(std::string_view command, const std::string& name, const std::string& text)
{
	if (json_output()) {
		Json j = json_envelope(command);
		j["cache"] = name;
		print_json(j);
	} else {
		fmt::print("{}\n", text);
	}
}

}  // namespace

Action setup_create(CLI::App& cmd)
{
	auto o = std::make_shared<CreateOptions>();
	cmd.add_option("NAME", o->name, "Cache name: 1-31 of A-Z a-z 0-9 _ . : -")->required();
	cmd.add_option("-s,--size", o->size,
		       fmt::format("Object size in bytes, {}..{} (K/M suffixes: 4K = 4096)",
				   SLABLAB_MIN_SIZE, SLABLAB_MAX_SIZE))
		->required()
		->transform(size_value());
	o->align_opt = cmd.add_option("--align", o->align,
				      fmt::format("Alignment: a power of two up to {} (0 = default)",
						  SLABLAB_MAX_ALIGN))
			       ->transform(size_value());
	add_tunable_options(cmd, o->tunables);
	add_json_flag(cmd, "Print the new cache as JSON (schema slablab/1), as slabctl -j");
	return [o] { return run_create(*o); };
}

Action setup_destroy(CLI::App& cmd)
{
	auto o = add_name_options(cmd, false);
	return [o] {
		validate_cache_name(o->name);
		Client client;
		client.cache_destroy(o->name);
		print_done("destroy", o->name, "destroyed " + o->name);
		return kExitOk;
	};
}

Action setup_set(CLI::App& cmd)
{
	auto o = std::make_shared<SetOptions>();
	cmd.add_option("NAME", o->name, "Cache name")->required();
	cmd.add_option("KEY=VALUE", o->assignments,
		       fmt::format("KEY is a tunable ({}) or a cache flag switched with 0|1; "
				   "flags=debug,random|none sets all flags",
				   fmt::join(tunable_keys(), ", ")))
		->required();
	add_json_flag(cmd, "Print the cache after the change as JSON, as slabctl -j");
	return [o] { return run_set(*o); };
}

Action setup_shrink(CLI::App& cmd)
{
	auto o = add_name_options(cmd, true);
	return [o] {
		validate_cache_name(o->name);
		Client client;
		ShrinkResult r = client.cache_shrink(o->name);
		if (json_output()) {
			Json j = json_envelope("shrink");
			j["slabs_freed"] = r.slabs_freed;
			j["cache"] = to_json(r.cache);
			print_json(j);
		} else {
			fmt::print("{}: {} slab{} freed; {} slabs, {} pages left\n",
				   r.cache.name.empty() ? o->name : r.cache.name, r.slabs_freed,
				   r.slabs_freed == 1 ? "" : "s", r.cache.slabs, r.cache.pages);
		}
		return kExitOk;
	};
}

Action setup_validate(CLI::App& cmd)
{
	auto o = add_name_options(cmd, true);
	return [o] {
		validate_cache_name(o->name);
		Client client;
		ValidateReport v = client.cache_validate(o->name);
		if (json_output()) {
			Json j = json_envelope("validate");
			j["validate"] = to_json(v);
			print_json(j);
			if (!v.ok())	// text mode: the line on stdout says it
				report_failure("validate", render_validate(v), false);
		} else {
			fmt::print("{}\n", render_validate(v));
		}
		return v.ok() ? kExitOk : kExitFailed;
	};
}

Action setup_reset(CLI::App& cmd)
{
	auto o = add_name_options(cmd, false);
	return [o] {
		validate_cache_name(o->name);
		Client client;
		client.cache_reset_stats(o->name);
		print_done("reset", o->name, "reset the counters of " + o->name);
		return kExitOk;
	};
}

}  // namespace slabctl::cli
