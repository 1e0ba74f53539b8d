// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl: what the command files share — exit statuses, help footer, JSON printing, the
// interrupt flag and terminal checks.
#pragma once

#include "slabctl/slabctl.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
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

/// The command chosen on the command line; run after parsing.
using Action = std::function<int()>;

CLI::App* subcommand(CLI::App& parent, const std::string& name, const std::string& desc);
void print_json(const Json& j);

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

/// The storm and compare commands (storm.cpp), watch (watch.cpp).
void add_storm_commands(CLI::App& app, Action& action);
void add_watch_command(CLI::App& app, Action& action);

}  // namespace slabctl::cli
