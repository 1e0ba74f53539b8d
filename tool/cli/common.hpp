// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl: what the command files share — the command table, exit statuses, help footer,
// JSON printing, the interrupt flag and terminal checks.
#pragma once

#include "slabctl/slabctl.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slabctl::cli {

enum ExitStatus : int {
	kExitOk = 0,
	kExitFailed = 1,
	kExitUsage = 2,
	kExitNoModule = 3,
	kExitPermission = 4,
	kExitInterrupted = 130,	///< 128 + SIGINT: Ctrl-C stopped a storm or compare
};

extern const char* const kFooter;

/// The command chosen on the command line; run after parsing, returns the exit status.
using Action = std::function<int()>;

/**
 * One slabctl command (as iproute2's cmds[] or batctl's COMMAND_NAMED): where it sits in
 * the command tree, its one-line help, and the function that declares its options into an
 * options struct of its own and returns the Action that runs it with them.
 *
 * Commands are object then verb (`storm start`, `lab set`). The flat spellings they
 * replaced stay for one release as deprecated aliases (docs/slabctl.md, "Deprecated
 * spellings"): `instead` names the new one, and a group with a `bare_verb` runs that verb
 * when none is given (`storm TARGET PATTERN`).
 */
struct Command {
	std::string_view parent;	///< "" for a top-level command, else its parent ("lab")
	std::string_view name;
	std::string_view description;
	Action (*setup)(CLI::App& cmd);
	/// a deprecated alias: what to type instead ("storm show"); it goes in 1.0
	std::string_view instead = {};
	/// a group that, without a verb, is the deprecated spelling of this verb of its own
	std::string_view bare_verb = {};
};

// The commands' setup functions: cmd_query.cpp (read-only views), cmd_cache.cpp (cache
// lifecycle and tunables), cmd_objects.cpp (objects and module settings), cmd_storm.cpp,
// cmd_watch.cpp.
Action setup_version(CLI::App& cmd);
Action setup_status(CLI::App& cmd);
Action setup_info(CLI::App& cmd);
Action setup_create(CLI::App& cmd);
Action setup_destroy(CLI::App& cmd);
Action setup_set(CLI::App& cmd);
Action setup_shrink(CLI::App& cmd);
Action setup_validate(CLI::App& cmd);
Action setup_reset(CLI::App& cmd);
Action setup_alloc(CLI::App& cmd);
Action setup_free(CLI::App& cmd);
Action setup_lab(CLI::App& cmd);
Action setup_lab_show(CLI::App& cmd);
Action setup_lab_set(CLI::App& cmd);
Action setup_lab_page_policy(CLI::App& cmd);
Action setup_set_kmalloc(CLI::App& cmd);
Action setup_storm(CLI::App& cmd);
Action setup_storm_start(CLI::App& cmd);
Action setup_storm_show(CLI::App& cmd);
Action setup_storm_stop(CLI::App& cmd);
Action setup_storm_status(CLI::App& cmd);
Action setup_compare(CLI::App& cmd);
Action setup_watch(CLI::App& cmd);
Action setup_record(CLI::App& cmd);
Action setup_replay(CLI::App& cmd);
Action setup_import(CLI::App& cmd);

CLI::App* subcommand(CLI::App& parent, const std::string& name, const std::string& desc);
/// "storm start": the names of `cmd` and the commands above it (not slabctl itself), as
/// the JSON documents' "command" says which command printed them.
std::string command_path(const CLI::App& cmd);

/**
 * How output is printed, for every command: the global -j/--json and -p/--pretty (as
 * iproute2's `ip -j -p`, bpftool's `-j -p`), and each command's own --json. Set while
 * the command line is parsed, read when the command runs.
 */
struct OutputOptions {
	bool json = false;	///< -j: JSON documents, failures as error documents
	bool pretty = false;	///< -p: indented JSON (implies -j)
	/// a command's own --json: JSON documents as with -j, but failures stay the text
	/// lines they were before -j existed (scripts read them)
	bool command_json = false;
};
OutputOptions& output() noexcept;
/// Whether the command prints its documents as JSON (-j, -p or its --json).
inline bool json_output() noexcept
{
	return output().json || output().pretty || output().command_json;
}
/// Whether failures are error documents (-j or -p).
inline bool json_errors() noexcept
{
	return output().json || output().pretty;
}
/// The command's own --json: JSON output as slabctl -j, kept for the scripts that use it.
CLI::Option* add_json_flag(CLI::App& cmd, const std::string& help = "JSON output (schema "
								      "slablab/1), as slabctl -j");
/// One JSON document on `f`: compact on one line, or indented with -p.
void print_json(const Json& j, std::FILE* f = stdout);
/**
 * The error document of -j on standard error: {"schema", "command" (null: none could be
 * parsed), "error": error_json()}. main() prints it for every exception; a command prints
 * it itself for a failure it reports in its document and its exit status, not by
 * throwing (validate finding errors), so that every exit status from 1 to 4 under -j ends
 * with one on standard error.
 */
void print_error_json(const std::optional<std::string>& command, const Json& error);
/// The failure a command reports without throwing: the text line "slabctl: COMMAND:
/// MESSAGE" on standard error, or under -j the error document (errno 0: no system error);
/// nothing where the text mode printed nothing either (`text` false: validate).
void report_failure(std::string_view command, const std::string& message, bool text = true);

/**
 * The one line a deprecated spelling prints on standard error before it runs: "slabctl:
 * 'storm-status' is deprecated, use 'storm show'; the old spelling goes in 1.0". Text
 * output only: under -j, -p or a command's --json, standard error is for error documents
 * and scripts, and the alias's output is the same as it always was.
 */
void deprecation_notice(std::string_view old_spelling, std::string_view instead);

/// Caches whose names match any of the shell patterns (all without patterns).
std::vector<CacheInfo> select_caches(std::vector<CacheInfo> all,
				     const std::vector<std::string>& patterns);

/// SIGINT/SIGTERM set a flag instead of killing slabctl (a second one kills it).
void catch_interrupts();
bool interrupted() noexcept;
/// Sleep up to `seconds`, waking early when interrupted; false if interrupted.
bool sleep_unless_interrupted(double seconds);

bool stdout_is_tty() noexcept;
bool stderr_is_tty() noexcept;

}  // namespace slabctl::cli
