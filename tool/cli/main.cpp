// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slabctl: command-line control of the slablab kernel module. All protocol, parsing and
// formatting work is in libslabctl; this file wires CLI11 subcommands to it and maps
// failures to the documented exit statuses. storm and compare live in storm.cpp, watch in
// watch.cpp.
#include "common.hpp"
#include "slabctl/slabctl.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include <unistd.h>

namespace {

using namespace slabctl;
using namespace slabctl::cli;

std::optional<uint32_t> opt_u32(const CLI::Option* o, uint32_t v)
{
	if (o->count() == 0)
		return std::nullopt;
	return v;
}

uint32_t host_page_size()
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? static_cast<uint32_t>(p) : 4096;
}

/// A kernel cache name for -r --native: the kernel's name, an alias, the directory name
/// (":A-0000064") or slub/NAME; never a path.
void validate_native_name(std::string_view name)
{
	std::string_view bare = name;
	if (bare.starts_with(kNativePrefix))
		bare.remove_prefix(kNativePrefix.size());
	if (bare.empty() || bare == "." || bare == ".." || bare.find('/') != bare.npos ||
	    bare.find('\0') != bare.npos)
		throw UsageError(fmt::format("'{}' is not a kernel cache name", name));
}

/// One line on standard error when files could not be read (non-root: most are 0400).
void note_unreadable(const std::vector<NativeCache>& natives, const std::filesystem::path& root)
{
	std::size_t files = 0, caches = 0;
	int err = 0;
	for (const auto& c : natives) {
		auto bad = c.unreadable();
		if (bad.empty())
			continue;
		caches++;
		files += bad.size();
		if (!err)
			err = bad.front()->err;
	}
	if (!files)
		return;
	fmt::print(stderr,
		   "slabctl: info: {} file{} of {} kernel cache{} in {} could not be read ({}); "
		   "their figures show as -{}\n",
		   files, files == 1 ? "" : "s", caches, caches == 1 ? "" : "s", root.string(),
		   std::generic_category().message(err),
		   (err == EACCES || err == EPERM) && geteuid() != 0
			   ? ": most of them are readable by root only"
			   : "");
}

Json totals_json(const Totals& t, bool native)
{
	const bool stats = !native || t.without_stats < t.caches - t.incomplete;
	Json j = Json{{"caches", t.caches},
		      {"active", t.active},
		      {"space", t.space},
		      {"used", t.used},
		      {"loss", t.loss},
		      {"objects", t.objects},
		      {"total_objects", t.total_objects},
		      {"slabs", t.slabs},
		      {"partial_slabs", t.partial_slabs},
		      {"cpu_slabs", t.cpu_slabs},
		      {"alloc", stats ? Json(t.alloc) : Json(nullptr)},
		      {"free", stats ? Json(t.free) : Json(nullptr)}};
	if (native)
		j["incomplete"] = t.incomplete;
	return j;
}

}  // namespace

int main(int argc, char** argv)
{
	CLI::App app{"slabctl: control and inspect the slablab slab allocator (kernel module) over "
		     "generic netlink.\nWithout a command, shows the caches like "
		     "tools/mm/slabinfo (same as 'slabctl info').",
		     "slabctl"};
	app.footer(kFooter);
	app.set_version_flag("--version", std::string("slabctl ") + kVersion,
			     "Print slabctl's version and exit");
	app.require_subcommand(0, 1);

	std::function<int()> action;

	// ---- version ----
	bool version_json = false;
	CLI::App* version = subcommand(app, "version",
				       "Print the versions of slabctl and of the loaded slablab module");
	version->add_flag("--json", version_json, "JSON output (schema slablab/1)");
	version->callback([&] {
		action = [&] {
			if (version_json) {
				Json j = json_envelope("version");
				j["slabctl"] = kVersion;
				j["api_version"] = SLABLAB_GENL_VERSION;
				try {
					Client client;
					j["module"] = to_json(client.status());
				} catch (const ModuleNotLoaded&) {
					j["module"] = nullptr;
					print_json(j);
					throw;
				}
				print_json(j);
				return kExitOk;
			}
			fmt::print("slabctl {}\n", kVersion);
			std::fflush(stdout);
			Client client;
			Status s = client.status();
			fmt::print("{}\n", module_version_line(s));
			if (s.api_version != SLABLAB_GENL_VERSION)
				fmt::print(stderr,
					   "slabctl: warning: the module speaks api {}, slabctl api {}\n",
					   s.api_version, SLABLAB_GENL_VERSION);
			return kExitOk;
		};
	});

	// ---- status ----
	bool status_json = false;
	CLI::App* status = subcommand(app, "status",
				      "Show the module's status: versions, cpus, page size, features");
	status->add_flag("--json", status_json, "JSON output (schema slablab/1)");
	status->callback([&] {
		action = [&] {
			Client client;
			Status s = client.status();
			if (status_json) {
				Json j = json_envelope("status");
				j["status"] = to_json(s);
				print_json(j);
			} else {
				fmt::print("{}", render_status(s));
			}
			return kExitOk;
		};
	});

	// ---- info ----
	std::vector<std::string> info_patterns;
	bool info_size = false, info_activity_sort = false, info_activity = false;
	bool info_totals = false, info_json = false, info_bytes = false, info_native = false;
	std::string info_report;
	CLI::App* info = subcommand(
		app, "info",
		"Show caches like tools/mm/slabinfo: one line each (the default command)");
	info->add_option("CACHE", info_patterns,
			 "Cache names or shell patterns (t*, kmalloc-?); default: every cache");
	auto* opt_size = info->add_flag("-S,--Size", info_size, "Sort by Space, largest first");
	auto* opt_act = info->add_flag("-A,--activity", info_activity_sort,
				       "Sort by activity (allocations + frees), most active first");
	opt_size->excludes(opt_act);
	info->add_flag("-D,--display-activity", info_activity,
		       "Activity view: Alloc, Free, %Fast, Fallb, CmpX, UL columns");
	info->add_flag("-T,--Totals", info_totals, "Totals over the (selected) caches");
	info->add_option("-r,--report", info_report,
			 "Full report on one cache: every gauge and counter, per-cpu breakdown");
	info->add_flag("-B,--bytes", info_bytes, "Sizes in bytes instead of 4.0K-style");
	info->add_flag("--native", info_native,
		       "Also the kernel's own caches (SLUB, read from /sys/kernel/slab), named "
		       "slub/NAME; '-' where a file could not be read. Works without the module. "
		       "With -r: the report on a kernel cache");
	info->add_flag("--json", info_json, "JSON output (schema slablab/1)");
	auto info_action = [&] {
		const std::filesystem::path root = default_native_root();
		if (!info_report.empty() && info_native) {
			validate_native_name(info_report);
			NativeListing listing = list_native_caches(root);
			const NativeEntry* e = find_native(listing, info_report);
			if (!e)
				throw Error(ENOENT, root.string(), {},
					    fmt::format("no kernel cache '{}' in {}", info_report,
							root.string()));
			NativeCache c = read_native_cache(root, *e, true);
			note_unreadable({c}, root);
			const uint32_t page_size = host_page_size();
			if (info_json) {
				Json j = json_envelope("info");
				j["page_size"] = page_size;
				j["native_root"] = root.string();
				j["cache"] = to_json(c, true);
				print_json(j);
			} else {
				fmt::print("{}", render_native_report(c, page_size));
			}
			return kExitOk;
		}
		if (!info_report.empty())
			validate_cache_name(info_report);

		std::optional<Client> client;
		if (info_native) {
			try {
				client.emplace();
			} catch (const ModuleNotLoaded&) {
				// said below, once the kernel's caches could be read
			}
		} else {
			client.emplace();
		}
		std::optional<Status> st;
		if (client)
			st = client->status();
		const uint32_t page_size = st ? st->page_size : host_page_size();

		if (!info_report.empty()) {
			CacheInfo c = client->cache_get(info_report, true);
			if (info_json) {
				Json j = json_envelope("info");
				j["page_size"] = page_size;
				j["cache"] = to_json(c);
				print_json(j);
			} else {
				fmt::print("{}", render_report(c, page_size));
			}
			return kExitOk;
		}
		std::vector<CacheInfo> caches;
		if (client)
			caches = select_caches(client->cache_list(false), info_patterns);
		std::vector<NativeCache> natives;
		if (info_native) {
			natives = read_native_caches(root, [&](const NativeEntry& e) {
				if (info_patterns.empty())
					return true;
				for (const auto& p : info_patterns)
					if (native_matches(p, e))
						return true;
				return false;
			});
			if (!client)
				fmt::print(stderr, "slabctl: info: the slablab module is not loaded: "
						   "only the kernel's caches are shown\n");
			note_unreadable(natives, root);
		}
		if (!info_patterns.empty() && caches.empty() && natives.empty()) {
			fmt::print(stderr, "slabctl: info: no cache matches {}\n",
				   fmt::join(info_patterns, " "));
			return kExitFailed;
		}
		const SortKey key = info_size ? SortKey::size
					      : (info_activity_sort ? SortKey::activity : SortKey::name);
		if (!info_native)
			sort_caches(caches, key, page_size);
		std::vector<InfoRow> rows;
		if (info_native) {
			rows.reserve(caches.size() + natives.size());
			for (const auto& c : caches)
				rows.emplace_back(c);
			for (const auto& n : natives)
				rows.emplace_back(n);
			sort_rows(rows, key, page_size);
		}
		if (info_json) {
			Json j = json_envelope("info");
			j["page_size"] = page_size;
			if (info_native) {
				j["module_loaded"] = client.has_value();
				j["native_root"] = root.string();
			}
			Json list = Json::array();
			if (info_native) {
				for (const auto& r : rows) {
					if (const auto* c = std::get_if<CacheInfo>(&r))
						list.push_back(to_json(*c));
					else
						list.push_back(to_json(std::get<NativeCache>(r)));
				}
			} else {
				for (const auto& c : caches)
					list.push_back(to_json(c));
			}
			j["caches"] = std::move(list);
			if (info_totals) {
				j["totals"] = client ? totals_json(compute_totals(caches, page_size), false)
						     : Json(nullptr);
				if (info_native)
					j["native_totals"] =
						totals_json(compute_native_totals(natives, page_size), true);
			}
			print_json(j);
		} else if (info_totals) {
			if (!info_native) {
				fmt::print("{}", render_totals(caches, page_size, info_bytes));
			} else {
				if (client)
					fmt::print("{}\n", render_totals(caches, page_size, info_bytes,
									  "Slabcache Totals: slablab"));
				fmt::print("{}", render_native_totals(
							 natives, page_size, info_bytes,
							 fmt::format("Slabcache Totals: kernel SLUB ({})",
								     root.string())));
			}
		} else {
			TableOptions o;
			o.activity = info_activity;
			o.bytes = info_bytes;
			fmt::print("{}", info_native ? render_rows(rows, page_size, o)
						     : render_table(caches, page_size, o));
		}
		return kExitOk;
	};
	info->callback([&] { action = info_action; });

	// ---- create ----
	std::string create_name, create_size, create_align;
	std::map<std::string_view, std::string> create_tunables;	// --NAME VALUE, by tunable
	bool create_debug = false, create_hardened = false, create_random = false;
	bool create_hwcache = false, create_json = false;
	CLI::App* create = subcommand(app, "create", "Create a cache (CACHE_NEW; needs root)");
	create->add_option("NAME", create_name, "Cache name: 1-31 of A-Z a-z 0-9 _ . : -")
		->required();
	create->add_option("-s,--size", create_size,
			   fmt::format("Object size in bytes, {}..{} (K/M suffixes: 4K = 4096)",
				       SLABLAB_MIN_SIZE, SLABLAB_MAX_SIZE))
		->required();
	create->add_option("--align", create_align,
			   fmt::format("Alignment: a power of two up to {} (0 = default)",
				       SLABLAB_MAX_ALIGN));
	// one option per tunable of the spec but flags (the flag switches below)
	for (const auto& d : kTunables) {
		if (d.kind == TunableKind::FLAGS)
			continue;
		std::string opt(d.name);
		std::replace(opt.begin(), opt.end(), '_', '-');
		create->add_option("--" + opt, create_tunables[d.name],
				   d.kind == TunableKind::ENUM
					   ? fmt::format("Tunable {}: {}", d.name, fmt::join(d.names(), " | "))
					   : fmt::format("Tunable {} (the kernel accepts {}..{})", d.name,
							 d.min, d.max));
	}
	create->add_flag("--debug", create_debug, "Poisoning, red zones, free-pointer checks");
	create->add_flag("--hardened", create_hardened, "Obfuscate free pointers");
	create->add_flag("--random", create_random, "Randomize the freelists of new slabs");
	create->add_flag("--hwcache-align", create_hwcache, "Align objects to cache lines");
	create->add_flag("--json", create_json, "Print the new cache as JSON (schema slablab/1)");
	create->callback([&] {
		action = [&] {
			CacheSpec spec;
			spec.name = create_name;
			uint64_t size = parse_size(create_size, "--size");
			if (size > UINT32_MAX)
				throw UsageError(fmt::format("--size {} is out of range", create_size),
						 ERANGE);
			spec.size = static_cast<uint32_t>(size);
			if (!create_align.empty()) {
				uint64_t a = parse_size(create_align, "--align");
				if (a > UINT32_MAX)
					throw UsageError("--align is out of range", ERANGE);
				spec.align = static_cast<uint32_t>(a);
			}
			for (const auto& d : kTunables)
				if (auto it = create_tunables.find(d.name);
				    it != create_tunables.end() && !it->second.empty())
					spec.*(d.in_spec) = parse_tunable_value(d, it->second);
			uint32_t flags = 0;
			if (create_debug)
				flags |= SLABLAB_CACHE_F_DEBUG;
			if (create_hardened)
				flags |= SLABLAB_CACHE_F_HARDENED;
			if (create_random)
				flags |= SLABLAB_CACHE_F_RANDOM;
			if (create_hwcache)
				flags |= SLABLAB_CACHE_F_HWCACHE_ALIGN;
			if (flags)
				spec.flags = flags;
			validate_spec(spec);

			Client client;
			CacheInfo c = client.cache_create(spec);
			if (create_json) {
				Json j = json_envelope("create");
				j["cache"] = to_json(c);
				print_json(j);
			} else {
				fmt::print("created {}\n", render_cache_summary(c));
			}
			return kExitOk;
		};
	});

	// ---- destroy ----
	std::string destroy_name;
	CLI::App* destroy = subcommand(
		app, "destroy",
		"Destroy a cache (CACHE_DEL; needs root). Fails while objects are allocated");
	destroy->add_option("NAME", destroy_name, "Cache name")->required();
	destroy->callback([&] {
		action = [&] {
			validate_cache_name(destroy_name);
			Client client;
			client.cache_destroy(destroy_name);
			fmt::print("destroyed {}\n", destroy_name);
			return kExitOk;
		};
	});

	// ---- set ----
	std::string set_name;
	std::vector<std::string> set_assignments;
	bool set_json = false;
	CLI::App* set = subcommand(app, "set", "Change tunables of a cache (CACHE_SET; needs root)");
	set->add_option("NAME", set_name, "Cache name")->required();
	set->add_option("KEY=VALUE", set_assignments,
			fmt::format("KEY is a tunable ({}) or a cache flag switched with 0|1; "
				    "flags=debug,random|none sets all flags",
				    fmt::join(tunable_keys(), ", ")))
		->required();
	set->add_flag("--json", set_json, "Print the cache after the change as JSON");
	set->callback([&] {
		action = [&] {
			validate_cache_name(set_name);
			Tunables t = parse_assignments(set_assignments);
			Client client;
			CacheInfo c = client.cache_set(set_name, t);
			if (set_json) {
				Json j = json_envelope("set");
				j["cache"] = to_json(c);
				print_json(j);
			} else {
				fmt::print("{}\n", render_cache_summary(c));
			}
			return kExitOk;
		};
	});

	// ---- shrink ----
	std::string shrink_name;
	bool shrink_json = false;
	CLI::App* shrink = subcommand(
		app, "shrink", "Return a cache's empty slabs to the page allocator (needs root)");
	shrink->add_option("NAME", shrink_name, "Cache name")->required();
	shrink->add_flag("--json", shrink_json, "JSON output (schema slablab/1)");
	shrink->callback([&] {
		action = [&] {
			validate_cache_name(shrink_name);
			Client client;
			ShrinkResult r = client.cache_shrink(shrink_name);
			if (shrink_json) {
				Json j = json_envelope("shrink");
				j["slabs_freed"] = r.slabs_freed;
				j["cache"] = to_json(r.cache);
				print_json(j);
			} else {
				fmt::print("{}: {} slab{} freed; {} slabs, {} pages left\n",
					   r.cache.name.empty() ? shrink_name : r.cache.name,
					   r.slabs_freed, r.slabs_freed == 1 ? "" : "s", r.cache.slabs,
					   r.cache.pages);
			}
			return kExitOk;
		};
	});

	// ---- validate ----
	std::string validate_name;
	bool validate_json = false;
	CLI::App* validate = subcommand(
		app, "validate",
		"Walk every slab of a cache and check it (needs root); exit 1 if errors are found");
	validate->add_option("NAME", validate_name, "Cache name")->required();
	validate->add_flag("--json", validate_json, "JSON output (schema slablab/1)");
	validate->callback([&] {
		action = [&] {
			validate_cache_name(validate_name);
			Client client;
			ValidateReport v = client.cache_validate(validate_name);
			if (validate_json) {
				Json j = json_envelope("validate");
				j["validate"] = to_json(v);
				print_json(j);
			} else {
				fmt::print("{}\n", render_validate(v));
			}
			return v.ok() ? kExitOk : kExitFailed;
		};
	});

	// ---- reset ----
	std::string reset_name;
	CLI::App* reset = subcommand(app, "reset", "Zero a cache's event counters (needs root)");
	reset->add_option("NAME", reset_name, "Cache name")->required();
	reset->callback([&] {
		action = [&] {
			validate_cache_name(reset_name);
			Client client;
			client.cache_reset_stats(reset_name);
			fmt::print("reset the counters of {}\n", reset_name);
			return kExitOk;
		};
	});

	// ---- alloc ----
	std::string alloc_name;
	uint32_t alloc_count = 0, alloc_cpu = 0;
	bool alloc_json = false;
	CLI::App* alloc = subcommand(
		app, "alloc",
		"Allocate objects into a kernel-held handle and print the handle (needs root)");
	alloc->add_option("NAME", alloc_name, "Cache name")->required();
	alloc->add_option("COUNT", alloc_count,
			  fmt::format("Number of objects, 1..{} (all or nothing)",
				      SLABLAB_MAX_HANDLE_OBJECTS))
		->required();
	auto* o_alloc_cpu = alloc->add_option("--cpu", alloc_cpu, "Allocate on this cpu (default: any)");
	alloc->add_flag("--json", alloc_json, "JSON output: {\"handle\": …, \"count\": …}");
	alloc->callback([&] {
		action = [&] {
			validate_cache_name(alloc_name);
			validate_count(alloc_count);
			Client client;
			Handle h = client.obj_alloc(alloc_name, alloc_count, opt_u32(o_alloc_cpu, alloc_cpu));
			if (alloc_json) {
				Json j = json_envelope("alloc");
				j["cache"] = alloc_name;
				j["handle"] = h.id;
				j["count"] = h.count;
				print_json(j);
			} else {
				fmt::print("{}\n", h.id);
			}
			return kExitOk;
		};
	});

	// ---- free ----
	uint32_t free_handle = 0, free_cpu = 0, free_count = 0;
	bool free_json = false;
	CLI::App* free_cmd = subcommand(
		app, "free",
		"Free the objects of a handle (newest first; all by default, which releases it)");
	free_cmd->add_option("HANDLE", free_handle, "Handle printed by 'slabctl alloc'")->required();
	auto* o_free_cpu = free_cmd->add_option("--cpu", free_cpu, "Free on this cpu (default: any)");
	auto* o_free_count = free_cmd->add_option("--count", free_count,
						  "Free only this many objects (default: all)");
	free_cmd->add_flag("--json", free_json, "JSON output: {\"handle\": …, \"remaining\": …}");
	free_cmd->callback([&] {
		action = [&] {
			auto count = opt_u32(o_free_count, free_count);
			if (count)
				validate_count(*count);
			Client client;
			uint32_t left = client.obj_free(free_handle, opt_u32(o_free_cpu, free_cpu), count);
			if (free_json) {
				Json j = json_envelope("free");
				j["handle"] = free_handle;
				j["remaining"] = left;
				print_json(j);
			} else if (left) {
				fmt::print("handle {}: {} object{} still held\n", free_handle, left,
					   left == 1 ? "" : "s");
			} else {
				fmt::print("handle {}: released\n", free_handle);
			}
			return kExitOk;
		};
	});

	// ---- lab ----
	CLI::App* lab = subcommand(app, "lab", "Module-wide settings (needs root)");
	lab->require_subcommand(1);
	std::string policy;
	CLI::App* page_policy = subcommand(
		*lab, "page-policy",
		"How slablab_kmalloc serves PAGE_SIZE requests: 'slab' (a size class) or "
		"'page_alloc' (the page allocator)");
	page_policy->add_option("POLICY", policy, "slab | page_alloc")
		->required()
		->check(CLI::IsMember({"slab", "page_alloc"}));
	page_policy->callback([&] {
		action = [&] {
			auto p = page_policy_from_name(policy);
			if (!p)
				throw UsageError(fmt::format("unknown page policy '{}'", policy));
			Client client;
			client.lab_set_page_policy(*p);
			fmt::print("kmalloc page policy: {}\n", policy);
			return kExitOk;
		};
	});
	CLI::App* selftest = subcommand(
		*lab, "selftest-warn",
		"Trigger a WARN_ONCE in the kernel (SLABLAB_SELFTEST=1 builds only) to prove the "
		"test harness catches splats");
	selftest->callback([&] {
		action = [&] {
			Client client;
			client.selftest_warn();
			fmt::print("selftest warning triggered\n");
			return kExitOk;
		};
	});

	add_storm_commands(app, action);
	add_watch_command(app, action);

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError& e) {
		int rc = app.exit(e);	// prints help/version to stdout, errors to stderr
		return rc == 0 ? kExitOk : kExitUsage;
	}
	if (!action)
		action = info_action;	// no command: the slabinfo table

	std::string context;
	for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
		sub = sub->get_subcommands().front();
		context += sub->get_name();
		context += ": ";
	}
	try {
		return action();
	} catch (const ModuleNotLoaded& e) {
		fmt::print(stderr, "slabctl: {}\n", e.what());
		return kExitNoModule;
	} catch (const UsageError& e) {
		fmt::print(stderr, "slabctl: {}{}\nRun with --help for more information.\n", context,
			   e.what());
		return kExitUsage;
	} catch (const Error& e) {
		fmt::print(stderr, "slabctl: {}{}\n", context, e.what());
		return e.permission_denied() ? kExitPermission : kExitFailed;
	} catch (const std::exception& e) {
		fmt::print(stderr, "slabctl: {}{}\n", context, e.what());
		return kExitFailed;
	}
}
