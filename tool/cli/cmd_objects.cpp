// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl alloc and free (objects held by the kernel under a handle) and lab show|set
// (module-wide settings); and lab page-policy and set-kmalloc, lab set's deprecated
// spellings.
#include "common.hpp"
#include "options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slabctl::cli {
namespace {

std::optional<uint32_t> if_given(const CLI::Option* opt, uint32_t value)
{
	if (opt->count() == 0)
		return std::nullopt;
	return value;
}

struct AllocOptions {
	std::string name;
	uint32_t count = 0, cpu = 0;
	const CLI::Option* cpu_opt = nullptr;
};

int run_alloc(const AllocOptions& o)
{
	validate_cache_name(o.name);
	validate_count(o.count);
	Client client;
	Handle h = client.obj_alloc(o.name, o.count, if_given(o.cpu_opt, o.cpu));
	if (json_output()) {
		Json j = json_envelope("alloc");
		j["cache"] = o.name;
		j["handle"] = h.id;
		j["count"] = h.count;
		print_json(j);
	} else {
		fmt::print("{}\n", h.id);
	}
	return kExitOk;
}

struct FreeOptions {
	uint32_t handle = 0, cpu = 0, count = 0;
	const CLI::Option *cpu_opt = nullptr, *count_opt = nullptr;
};

int run_free(const FreeOptions& o)
{
	auto count = if_given(o.count_opt, o.count);
	if (count)
		validate_count(*count);
	Client client;
	uint32_t left = client.obj_free(o.handle, if_given(o.cpu_opt, o.cpu), count);
	if (json_output()) {
		Json j = json_envelope("free");
		j["handle"] = o.handle;
		j["remaining"] = left;
		print_json(j);
	} else if (left) {
		fmt::print("handle {}: {} object{} still held\n", o.handle, left, left == 1 ? "" : "s");
	} else {
		fmt::print("handle {}: released\n", o.handle);
	}
	return kExitOk;
}

/// lab show's and lab set's output: the settings as the module reports them.
void print_lab(const std::string& command, const Status& s)
{
	if (json_output()) {
		Json j = json_envelope(command);
		j.update(lab_to_json(s));
		print_json(j);
	} else {
		fmt::print("{}", render_lab(s));
	}
}

}  // namespace

Action setup_alloc(CLI::App& cmd)
{
	auto o = std::make_shared<AllocOptions>();
	cmd.add_option("NAME", o->name, "Cache name")->required();
	cmd.add_option("COUNT", o->count,
		       fmt::format("Number of objects, 1..{} (all or nothing)",
				   SLABLAB_MAX_HANDLE_OBJECTS))
		->required();
	o->cpu_opt = cmd.add_option("--cpu", o->cpu, "Allocate on this cpu (default: any)");
	add_json_flag(cmd, "JSON output: {\"handle\": …, \"count\": …}, as slabctl -j");
	return [o] { return run_alloc(*o); };
}

Action setup_free(CLI::App& cmd)
{
	auto o = std::make_shared<FreeOptions>();
	cmd.add_option("HANDLE", o->handle, "Handle printed by 'slabctl alloc'")->required();
	o->cpu_opt = cmd.add_option("--cpu", o->cpu, "Free on this cpu (default: any)");
	o->count_opt = cmd.add_option("--count", o->count, "Free only this many objects (default: all)");
	add_json_flag(cmd, "JSON output: {\"handle\": …, \"remaining\": …}, as slabctl -j");
	return [o] { return run_free(*o); };
}

Action setup_lab(CLI::App& cmd)
{
	cmd.require_subcommand(1);
	return nullptr;	// only its subcommands run
}


Action setup_lab_show(CLI::App& cmd)
{
	add_json_flag(cmd);
	return [command = command_path(cmd)] {
		Client client;
		print_lab(command, client.status());
		return kExitOk;
	};
}

Action setup_lab_set(CLI::App& cmd)
{
	auto assignments = std::make_shared<std::vector<std::string>>();
	cmd.add_option("KEY=VALUE", *assignments,
		       fmt::format("kmalloc_design={} (only while the kmalloc classes hold no "
				   "objects), kmalloc_lists=1|2|3 (slab, slob), "
				   "kmalloc_page_policy={}",
				   fmt::join(design_names(), "|"), fmt::join(page_policy_names(), "|")))
		->required();
	add_json_flag(cmd, "Print the settings after the change as JSON, as slabctl -j");
	return [assignments, command = command_path(cmd)] {
		LabSettings settings = parse_lab_assignments(*assignments);
		Client client;
		client.lab_set(settings);
		print_lab(command, client.status());
		return kExitOk;
	};
}

Action setup_lab_page_policy(CLI::App& cmd)
{
	auto policy = std::make_shared<PagePolicy>(PagePolicy::slab);
	accept_page_policy(cmd.add_option("POLICY", *policy, "slab | page_alloc")->required());
	return [policy] {
		deprecation_notice("lab page-policy",
				   "lab set kmalloc_page_policy=" + page_policy_name(wire(*policy)));
		Client client;
		client.lab_set_page_policy(wire(*policy));
		if (json_output()) {
			Json j = json_envelope("lab page-policy");
			j["kmalloc_page_policy"] = page_policy_name(wire(*policy));
			print_json(j);
		} else {
			fmt::print("kmalloc page policy: {}\n", page_policy_name(wire(*policy)));
		}
		return kExitOk;
	};
}

Action setup_set_kmalloc(CLI::App& cmd)
{
	auto assignments = std::make_shared<std::vector<std::string>>();
	cmd.add_option("KEY=VALUE", *assignments, "design=slub|sheaves|slab|slob, lists=1|2|3")
		->required();
	return [assignments] {
		std::optional<uint32_t> design, lists;
		for (const auto& a : *assignments) {
			auto eq = a.find('=');
			if (eq == std::string::npos)
				throw UsageError(fmt::format("'{}' is not KEY=VALUE", a));
			std::string key = a.substr(0, eq), value = a.substr(eq + 1);
			if (key == "design") {
				design = design_from_name(value);
				if (!design)
					throw UsageError(fmt::format(
						"unknown design '{}' (slub, sheaves, slab, slob)", value));
			} else if (key == "lists") {
				if (value != "1" && value != "2" && value != "3")
					throw UsageError(fmt::format("lists={}: 1, 2 or 3", value));
				lists = static_cast<uint32_t>(std::stoul(value));
			} else {
				throw UsageError(fmt::format("unknown key '{}' (design, lists)", key));
			}
		}
		std::string instead = "lab set";
		for (const auto& a : *assignments)
			instead += " kmalloc_" + a;	// design=slob → kmalloc_design=slob
		deprecation_notice("set-kmalloc", instead);
		Client client;
		client.lab_set_kmalloc(design, lists);
		auto s = client.status();
		if (json_output()) {
			Json j = json_envelope("set-kmalloc");
			j["kmalloc_design"] = design_name(s.kmalloc_design);
			j["kmalloc_lists"] = s.kmalloc_lists;
			print_json(j);
		} else {
			fmt::print("kmalloc design: {} (lists {})\n", design_name(s.kmalloc_design),
				   s.kmalloc_lists);
		}
		return kExitOk;
	};
}

}  // namespace slabctl::cli
