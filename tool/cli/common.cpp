// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "common.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace slabctl::cli {

const char* const kFooter = R"(Exit status:
  0  success
  1  the operation failed (the kernel refused it; validate found errors)
  2  bad usage: unknown option, missing or malformed argument, value out of range
  3  the slablab kernel module is not loaded
  4  permission denied: the command needs root (CAP_SYS_ADMIN)
  130  interrupted (Ctrl-C): a storm was stopped in the kernel; what was done is printed
Documentation: docs/slabctl.md (columns, JSON schema "slablab/1": tool/schemas/).)";

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int sig)
{
	if (g_interrupted) {
		// the second Ctrl-C: do what it would have done
		std::signal(sig, SIG_DFL);
		std::raise(sig);
		return;
	}
	g_interrupted = 1;
}

}  // namespace

CLI::App* subcommand(CLI::App& parent, const std::string& name, const std::string& desc)
{
	CLI::App* sub = parent.add_subcommand(name, desc);
	sub->footer(kFooter);
	return sub;
}

std::string command_path(const CLI::App& cmd)
{
	std::string path = cmd.get_name();
	for (const CLI::App* up = cmd.get_parent(); up && up->get_parent(); up = up->get_parent())
		path = up->get_name() + ' ' + path;
	return path;
}

void deprecation_notice(std::string_view old_spelling, std::string_view instead)
{
	if (json_output())
		return;
	fmt::print(stderr, "slabctl: '{}' is deprecated, use '{}'; the old spelling goes in 1.0\n",
		   old_spelling, instead);
}

OutputOptions& output() noexcept
{
	static OutputOptions options;
	return options;
}

CLI::Option* add_json_flag(CLI::App& cmd, const std::string& help)
{
	return cmd.add_flag("--json", output().command_json, help);
}

void print_json(const Json& j, std::FILE* f)
{
	fmt::print(f, "{}\n", j.dump(output().pretty ? 2 : -1));
}

void print_error_json(const std::optional<std::string>& command, const Json& error)
{
	Json j = json_envelope(command.value_or(""));
	if (!command)
		j["command"] = nullptr;
	j["error"] = error;
	std::fflush(stdout);	// after whatever the command printed there
	print_json(j, stderr);
}

void report_failure(std::string_view command, const std::string& message, bool text)
{
	if (json_errors())
		print_error_json(std::string(command), error_json(0, message));
	else if (text)
		fmt::print(stderr, "slabctl: {}: {}\n", command, message);
}

std::vector<CacheInfo> select_caches(std::vector<CacheInfo> all,
				     const std::vector<std::string>& patterns)
{
	if (patterns.empty())
		return all;
	std::vector<CacheInfo> out;
	for (auto& c : all) {
		for (const auto& p : patterns) {
			if (name_matches(p, c.name)) {
				out.push_back(std::move(c));
				break;
			}
		}
	}
	return out;
}

void catch_interrupts()
{
	struct sigaction sa = {};
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	// no SA_RESTART: sleeps end early
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() noexcept
{
	return g_interrupted != 0;
}

bool sleep_unless_interrupted(double seconds)
{
	using namespace std::chrono;
	const auto end = steady_clock::now() + duration_cast<steady_clock::duration>(
							 duration<double>(seconds));
	while (!interrupted()) {
		auto now = steady_clock::now();
		if (now >= end)
			return true;
		std::this_thread::sleep_for(std::min<steady_clock::duration>(milliseconds(20), end - now));
	}
	return false;
}

bool stdout_is_tty() noexcept
{
	return isatty(STDOUT_FILENO) == 1;
}

bool stderr_is_tty() noexcept
{
	return isatty(STDERR_FILENO) == 1;
}

}  // namespace slabctl::cli
