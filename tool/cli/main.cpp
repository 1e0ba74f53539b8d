// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slabctl: command-line control of the slablab kernel module. All protocol, parsing and
// formatting work is in libslabctl. This file holds the command table and the dispatch:
// each command's setup function (declared in common.hpp) adds its options to its CLI11
// subcommand and returns the Action that runs it; failures map to the documented exit
// statuses here, once.
#include "common.hpp"
#include "options.hpp"
#include "slabctl/slabctl.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl::cli {

namespace {

/// Every command, parents before their verbs, in the order --help lists them.
constexpr Command kCommands[] = {
	{"", "version", "Print the versions of slabctl and of the loaded slablab module",
	 setup_version},
	{"", "status", "Show the module's status: versions, cpus, page size, features",
	 setup_status},
	{"", "info", "Show caches like tools/mm/slabinfo: one line each (the default command)",
	 setup_info},
	{"", "create", "Create a cache (CACHE_NEW; needs root)", setup_create},
	{"", "destroy",
	 "Destroy a cache (CACHE_DEL; needs root). Fails while objects are allocated",
	 setup_destroy},
	{"", "set", "Change tunables of a cache (CACHE_SET; needs root)", setup_set},
	{"", "shrink", "Return a cache's empty slabs to the page allocator (needs root)",
	 setup_shrink},
	{"", "validate",
	 "Walk every slab of a cache and check it (needs root); exit 1 if errors are found",
	 setup_validate},
	{"", "reset", "Zero a cache's event counters (needs root)", setup_reset},
	{"", "alloc",
	 "Allocate objects into a kernel-held handle and print the handle (needs root)",
	 setup_alloc},
	{"", "free",
	 "Free the objects of a handle (newest first; all by default, which releases it)",
	 setup_free},
	{"", "lab", "Module-wide settings: show, set", setup_lab},
	{"lab", "show",
	 "Show the module-wide settings: the kmalloc classes' design and lists, and how "
	 "slablab_kmalloc serves PAGE_SIZE requests",
	 setup_lab_show},
	{"lab", "set",
	 "Change module-wide settings (LAB_SET; needs root): kmalloc_design=slub|sheaves|slab|"
	 "slob and kmalloc_lists=N (only while the kmalloc classes hold no objects), "
	 "kmalloc_page_policy=slab|page_alloc",
	 setup_lab_set},
	{"lab", "page-policy",
	 "How slablab_kmalloc serves PAGE_SIZE requests: 'slab' (a size class) or "
	 "'page_alloc' (the page allocator)",
	 setup_lab_page_policy, "lab set kmalloc_page_policy=POLICY"},
	{"", "set-kmalloc",
	 "Run the kmalloc size classes on a design: design=slub|sheaves|slab|slob, lists=N "
	 "(only while they hold no objects; needs root)",
	 setup_set_kmalloc, "lab set kmalloc_design=… kmalloc_lists=…"},
	{"", "storm",
	 "Allocation storms in the kernel: start, show, stop (needs root). Without a verb, "
	 "'storm TARGET PATTERN' is 'storm start' (deprecated, goes in 1.0)",
	 setup_storm, {}, "start"},
	{"storm", "start",
	 "Run an allocation storm in the kernel (needs root) and show its results: ops/s, "
	 "cycles per alloc/free/pair, fast-path %, memory overhead. Ctrl-C stops it",
	 setup_storm_start},
	{"storm", "show", "Show the running or last storm (STORM_GET)", setup_storm_show},
	{"storm", "stop", "Stop the running storm (STORM_STOP) and show what it did (needs root)",
	 setup_storm_stop},
	{"", "storm-status",
	 "Show the running or last storm (STORM_GET); --stop stops it (needs root; now "
	 "'storm stop')",
	 setup_storm_status, "storm show"},
	{"", "compare",
	 "Run the same storm against several targets or settings, interleaved (A B A B …), "
	 "and summarize each: min/median/avg/max/sd and ratios (needs root)",
	 setup_compare},
	{"", "watch",
	 "Live view of the caches (like top): the info -D columns, allocations and frees "
	 "per second, and the running storm's progress. Ctrl-C quits",
	 setup_watch},
	{"", "record",
	 "Record the kernel's slab allocations while a command runs (kmem tracepoints) into a "
	 "trace file: slabctl record -o FILE -- CMD [ARGS] (needs root)",
	 setup_record},
	{"", "replay",
	 "Replay a recorded trace in the kernel on slablab's caches or the kernel's SLUB and "
	 "show ops/s, cycles per alloc/free, peak pages, per cache (needs root)",
	 setup_replay},
	{"", "import",
	 "Make a slablab trace of another tool's trace of the kmem tracepoints (tracefs "
	 "trace text, perf script output, trace-cmd .dat): slabctl import IN -o OUT.trace",
	 setup_import},
};

/// A failure: the text line on standard error ("slabctl: create: CACHE_NEW: …"), or under
/// -j the error document there (docs/slabctl.md, "Errors as JSON"); `command` is null in
/// it when the command line named none that could be parsed.
void report(const std::optional<std::string>& command, const std::string& context,
	    const Json& error, const std::string& text)
{
	if (json_errors()) {
		print_error_json(command, error);
		return;
	}
	fmt::print(stderr, "slabctl: {}{}\n", context, text);
}

/// Runs `action`, mapping libslabctl's exceptions to exit statuses; `context` ("create: ")
/// prefixes the text messages, `command` ("create", "lab page-policy") names the command
/// in JSON ones.
int run(const Action& action, const std::string& command, const std::string& context)
{
	try {
		return action();
	} catch (const ModuleNotLoaded& e) {
		report(command, "", to_json(e), e.what());
		return kExitNoModule;
	} catch (const UsageError& e) {
		report(command, context, to_json(e),
		       std::string(e.what()) + "\nRun with --help for more information.");
		return kExitUsage;
	} catch (const Error& e) {
		report(command, context, to_json(e), e.what());
		return e.permission_denied() ? kExitPermission : kExitFailed;
	} catch (const std::exception& e) {
		report(command, context, error_json(0, e.what()), e.what());
		return kExitFailed;
	}
}

/// --help's line of `c`: a deprecated alias's says so first, and what to use instead.
std::string help_text(const Command& c)
{
	if (c.instead.empty())
		return std::string(c.description);
	return fmt::format("Deprecated, use '{}' (goes in 1.0). {}", c.instead, c.description);
}

const Command& find_command(std::string_view parent, std::string_view name)
{
	auto it = std::find_if(kCommands, std::end(kCommands), [&](const Command& c) {
		return c.parent == parent && c.name == name;
	});
	if (it == std::end(kCommands))
		throw std::logic_error(fmt::format("no command '{} {}'", parent, name));
	return *it;
}

/**
 * The command tree: every command, for --help, and the options and Action of those the
 * command line names (info when it names none). Building CLI11's option tree of every
 * command was half of slabctl's start-up (docs/slabctl.md, "Start-up"), so the others
 * declare none.
 */
class CommandTree {
public:
	CommandTree(CLI::App& app, std::vector<std::string_view> args) : args_(std::move(args))
	{
		any_named_ = std::any_of(std::begin(kCommands), std::end(kCommands),
					 [&](const Command& c) { return c.parent.empty() && named(c.name); });
		for (const Command& c : kCommands)
			add(app, c);
	}

	CLI::App* top(std::string_view name) const { return by_name_.at(name); }
	const Action& action(const CLI::App* cmd) const { return actions_.at(cmd); }

private:
	std::vector<std::string_view> args_;
	bool any_named_ = false;
	std::map<std::string_view, CLI::App*> by_name_;	// top-level ones, for their verbs
	std::map<const CLI::App*, Action> actions_;

	bool named(std::string_view name) const
	{
		return std::find(args_.begin(), args_.end(), name) != args_.end();
	}

	bool wanted(const Command& c) const
	{
		if (!any_named_)
			return c.parent.empty() && c.name == "info";
		return named(c.name) && (c.parent.empty() || named(c.parent));
	}

	/// Whether group `c` is used without a verb: the first word after its name that is no
	/// option is none of its verbs ("storm slablab pair"; "storm --help" has a verb to
	/// come, and so has plain "storm", which then asks for one).
	bool bare(const Command& c) const
	{
		if (c.bare_verb.empty())
			return false;
		auto it = std::find(args_.begin(), args_.end(), c.name);
		if (it == args_.end())
			return false;
		it = std::find_if(it + 1, args_.end(),
				  [](std::string_view a) { return !a.starts_with('-'); });
		return it != args_.end() &&
		       std::none_of(std::begin(kCommands), std::end(kCommands), [&](const Command& v) {
			       return v.parent == c.name && v.name == *it;
		       });
	}

	/// Group `c` without a verb: its bare verb's options on the group itself, so that the
	/// document's "command" and the messages' prefix stay the group's ("storm").
	Action bare_alias(const Command& c, CLI::App& cmd) const
	{
		Action verb = find_command(c.name, c.bare_verb).setup(cmd);
		return [verb, old_spelling = fmt::format("{} …", c.name),
			instead = fmt::format("{} {} …", c.name, c.bare_verb)] {
			deprecation_notice(old_spelling, instead);
			return verb();
		};
	}

	void add(CLI::App& app, const Command& c)
	{
		CLI::App& parent = c.parent.empty() ? app : *by_name_.at(c.parent);
		CLI::App* cmd = subcommand(parent, std::string(c.name), help_text(c));
		if (c.parent.empty())
			by_name_.emplace(c.name, cmd);
		if (!wanted(c))
			return;
		actions_.emplace(cmd, bare(c) ? bare_alias(c, *cmd) : c.setup(*cmd));
		decimal_integers(*cmd);	// "010" is ten, not CLI11's octal 8
	}
};

/// "lab page-policy": the subcommands CLI11 parsed, outermost first; none when the
/// command line named no command (or parsing stopped before one).
std::optional<std::string> parsed_command(const CLI::App& app)
{
	std::string name;
	for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
		sub = sub->get_subcommands().front();
		if (!name.empty())
			name += ' ';
		name += sub->get_name();
	}
	if (name.empty())
		return std::nullopt;
	return name;
}

/// Whether -j or -p was on the command line (a command's own --json keeps text errors).
/// Asked after a parse error, when CLI11 may have stopped before it set the flags.
bool json_asked(const CLI::App& app)
{
	for (const CLI::Option* opt : app.get_options())
		if (opt->count() && (opt->check_lname("json") || opt->check_lname("pretty")))
			return true;
	return false;
}

}  // namespace

}  // namespace slabctl::cli

int main(int argc, char** argv)
{
	using namespace slabctl;
	using namespace slabctl::cli;

	CLI::App app{"slabctl: control and inspect the slablab slab allocator (kernel module) over "
		     "generic netlink.\nWithout a command, shows the caches like "
		     "tools/mm/slabinfo (same as 'slabctl info').",
		     "slabctl"};
	app.footer(kFooter);
	app.set_version_flag("--version", std::string("slabctl ") + kVersion,
			     "Print slabctl's version and exit");
	app.require_subcommand(0, 1);
	// Global output options, read before the command name (`slabctl -jp info`), as
	// iproute2's and bpftool's; a command's own --json prints the same documents (its
	// failures stay text: docs/slabctl.md, "Global options").
	app.add_flag("-j,--json", output().json,
		     "JSON output for every command (schema slablab/1: docs/slabctl.md, "
		     "tool/schemas/): one compact document per line; errors too, on standard "
		     "error");
	app.add_flag("-p,--pretty", output().pretty, "Indented JSON (implies -j)");

	// Only the commands named on the command line declare their options (start-up time).
	const CommandTree tree(app, std::vector<std::string_view>(argv + 1, argv + argc));

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError& e) {
		// --help and --version (status 0) print text, whatever -j says
		if (e.get_exit_code() != 0 && json_asked(app)) {
			output().json = true;
			report(parsed_command(app), "", error_json(EINVAL, e.what()), e.what());
			return kExitUsage;
		}
		int rc = app.exit(e);	// prints help/version to stdout, errors to stderr
		return rc == 0 ? kExitOk : kExitUsage;
	}

	// The innermost command given; none: the slabinfo table.
	const CLI::App* chosen = tree.top("info");
	std::string context;
	for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
		sub = sub->get_subcommands().front();
		chosen = sub;
		context += sub->get_name();
		context += ": ";
	}
	return run(tree.action(chosen), parsed_command(app).value_or("info"), context);
}
