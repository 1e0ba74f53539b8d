// SPDX-License-Identifier: GPL-2.0 OR MIT
// slabctl version, status and info: the read-only views.
#include "common.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include <unistd.h>

namespace slabctl::cli {
namespace {

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

struct InfoOptions {
	std::vector<std::string> patterns;
	bool sort_size = false, sort_activity = false, activity = false, totals = false;
	bool json = false, bytes = false, native = false, slabinfo = false;
	std::string report;
};

int run_info(const InfoOptions& o)
{
	const std::filesystem::path root = default_native_root();
	if (!o.report.empty() && o.native) {
		validate_native_name(o.report);
		NativeListing listing = list_native_caches(root);
		const NativeEntry* e = find_native(listing, o.report);
		if (!e)
			throw Error(ENOENT, root.string(), {},
				    fmt::format("no kernel cache '{}' in {}", o.report,
						root.string()));
		NativeCache c = read_native_cache(root, *e, true);
		note_unreadable({c}, root);
		const uint32_t page_size = host_page_size();
		if (o.json) {
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
	if (!o.report.empty())
		validate_cache_name(o.report);

	std::optional<Client> client;
	if (o.native) {
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
	if (o.slabinfo) {
		fmt::print("{}", render_slabinfo(select_caches(client->cache_list(false, true),
							       o.patterns)));
		return kExitOk;
	}

	if (!o.report.empty()) {
		CacheInfo c = client->cache_get(o.report, true);
		if (o.json) {
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
		caches = select_caches(client->cache_list(false, o.json), o.patterns);
	std::vector<NativeCache> natives;
	if (o.native) {
		natives = read_native_caches(root, [&](const NativeEntry& e) {
			if (o.patterns.empty())
				return true;
			for (const auto& p : o.patterns)
				if (native_matches(p, e))
					return true;
			return false;
		});
		if (!client)
			fmt::print(stderr, "slabctl: info: the slablab module is not loaded: "
					   "only the kernel's caches are shown\n");
		note_unreadable(natives, root);
	}
	if (!o.patterns.empty() && caches.empty() && natives.empty()) {
		fmt::print(stderr, "slabctl: info: no cache matches {}\n",
			   fmt::join(o.patterns, " "));
		return kExitFailed;
	}
	const SortKey key = o.sort_size ? SortKey::size
				      : (o.sort_activity ? SortKey::activity : SortKey::name);
	if (!o.native)
		sort_caches(caches, key, page_size);
	std::vector<InfoRow> rows;
	if (o.native) {
		rows.reserve(caches.size() + natives.size());
		for (const auto& c : caches)
			rows.emplace_back(c);
		for (const auto& n : natives)
			rows.emplace_back(n);
		sort_rows(rows, key, page_size);
	}
	if (o.json) {
		Json j = json_envelope("info");
		j["page_size"] = page_size;
		if (o.native) {
			j["module_loaded"] = client.has_value();
			j["native_root"] = root.string();
		}
		Json list = Json::array();
		if (o.native) {
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
		if (o.totals) {
			j["totals"] = client ? totals_json(compute_totals(caches, page_size), false)
					     : Json(nullptr);
			if (o.native)
				j["native_totals"] =
					totals_json(compute_native_totals(natives, page_size), true);
		}
		print_json(j);
	} else if (o.totals) {
		if (!o.native) {
			fmt::print("{}", render_totals(caches, page_size, o.bytes));
		} else {
			if (client)
				fmt::print("{}\n", render_totals(caches, page_size, o.bytes,
								  "Slabcache Totals: slablab"));
			fmt::print("{}", render_native_totals(
						 natives, page_size, o.bytes,
						 fmt::format("Slabcache Totals: kernel SLUB ({})",
							     root.string())));
		}
	} else {
		TableOptions table;
		table.activity = o.activity;
		table.bytes = o.bytes;
		fmt::print("{}", o.native ? render_rows(rows, page_size, table)
					  : render_table(caches, page_size, table));
	}
	return kExitOk;
}

}  // namespace

Action setup_version(CLI::App& cmd)
{
	auto json = std::make_shared<bool>(false);
	cmd.add_flag("--json", *json, "JSON output (schema slablab/1)");
	return [json] {
		if (*json) {
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
			fmt::print(stderr, "slabctl: warning: the module speaks api {}, slabctl api {}\n",
				   s.api_version, SLABLAB_GENL_VERSION);
		return kExitOk;
	};
}

Action setup_status(CLI::App& cmd)
{
	auto json = std::make_shared<bool>(false);
	cmd.add_flag("--json", *json, "JSON output (schema slablab/1)");
	return [json] {
		Client client;
		Status s = client.status();
		if (*json) {
			Json j = json_envelope("status");
			j["status"] = to_json(s);
			print_json(j);
		} else {
			fmt::print("{}", render_status(s));
		}
		return kExitOk;
	};
}

Action setup_info(CLI::App& cmd)
{
	auto o = std::make_shared<InfoOptions>();
	cmd.add_option("CACHE", o->patterns,
		       "Cache names or shell patterns (t*, kmalloc-?); default: every cache");
	auto* by_size = cmd.add_flag("-S,--Size", o->sort_size, "Sort by Space, largest first");
	auto* by_activity = cmd.add_flag("-A,--activity", o->sort_activity,
					 "Sort by activity (allocations + frees), most active first");
	by_size->excludes(by_activity);
	cmd.add_flag("-D,--display-activity", o->activity,
		     "Activity view: Alloc, Free, %Fast, Fallb, CmpX, UL columns");
	cmd.add_flag("-T,--Totals", o->totals, "Totals over the (selected) caches");
	cmd.add_option("-r,--report", o->report,
		       "Full report on one cache: every gauge and counter, per-cpu breakdown");
	cmd.add_flag("-B,--bytes", o->bytes, "Sizes in bytes instead of 4.0K-style");
	cmd.add_flag("--native", o->native,
		     "Also the kernel's own caches (SLUB, read from /sys/kernel/slab), named "
		     "slub/NAME; '-' where a file could not be read. Works without the module. "
		     "With -r: the report on a kernel cache");
	cmd.add_flag("--json", o->json, "JSON output (schema slablab/1)");
	auto* slabinfo = cmd.add_flag("--slabinfo", o->slabinfo,
				      "/proc/slabinfo version 2.1 lines (SLAB's tunables and slabdata) "
				      "for slablab caches");
	slabinfo->excludes("--json")->excludes("--native")->excludes("--report");
	return [o] { return run_info(*o); };
}

}  // namespace slabctl::cli
