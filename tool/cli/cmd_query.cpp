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

/// /proc/meminfo's slab lines for info -T --native; nullopt (said on stderr) when they
/// cannot be read: the totals stand without them.
std::optional<SlabMeminfo> info_meminfo()
{
	try {
		return read_slab_meminfo();
	} catch (const Error& e) {
		fmt::print(stderr, "slabctl: info: {}: the memory accounting is left out\n",
			   e.what());
		return std::nullopt;
	}
}

Json meminfo_json(const std::optional<SlabMeminfo>& mi)
{
	if (!mi)
		return nullptr;
	return Json{{"slab", mi->slab},
		    {"sreclaimable", mi->sreclaimable},
		    {"sunreclaim", mi->sunreclaim},
		    {"mem_total", mi->mem_total},
		    {"mem_free", mi->mem_free}};
}

struct InfoOptions {
	std::vector<std::string> patterns;
	bool sort_size = false, sort_activity = false, activity = false, totals = false;
	bool bytes = false, native = false, slabinfo = false, exact = false;
	std::string report;
};

/// info -r NAME --native: the report on one kernel cache (no module needed).
int run_native_report(const InfoOptions& o, const std::filesystem::path& root)
{
	validate_native_name(o.report);
	NativeListing listing = list_native_caches(root);
	const NativeEntry* e = find_native(listing, o.report);
	if (!e)
		throw Error(ENOENT, root.string(), {},
			    fmt::format("no kernel cache '{}' in {}", o.report, root.string()));
	NativeCache c = read_native_cache(root, *e, true);
	note_unreadable({c}, root);
	const uint32_t page_size = host_page_size();
	if (json_output()) {
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

/// info -r NAME: the report on one slablab cache; --exact: its layers counted on every cpu.
int run_report(Client& client, const std::string& name, uint32_t page_size, bool exact)
{
	CacheInfo c = client.cache_get(name, true, exact);
	if (json_output()) {
		Json j = json_envelope("info");
		j["page_size"] = page_size;
		j["cache"] = to_json(c);
		print_json(j);
	} else {
		fmt::print("{}", render_report(c, page_size));
	}
	return kExitOk;
}

/// The module's client; with --native none when the module is not loaded (said later,
/// once the kernel's caches could be read).
std::optional<Client> info_client(bool native)
{
	std::optional<Client> client;
	if (!native) {
		client.emplace();
		return client;
	}
	try {
		client.emplace();
	} catch (const ModuleNotLoaded&) {
	}
	return client;
}

/// What the table, the totals and the JSON of info show.
struct InfoView {
	std::filesystem::path root;
	uint32_t page_size = 0;
	bool module_loaded = false;
	std::vector<CacheInfo> caches;		///< slablab's, sorted unless native
	std::vector<NativeCache> natives;	///< --native: the kernel's
	std::vector<InfoRow> rows;		///< --native: both, sorted together
};

/// --native: the kernel's caches the patterns select.
std::vector<NativeCache> read_selected_natives(const InfoOptions& o,
					       const std::filesystem::path& root)
{
	return read_native_caches(root, [&](const NativeEntry& e) {
		if (o.patterns.empty())
			return true;
		for (const auto& p : o.patterns)
			if (native_matches(p, e))
				return true;
		return false;
	});
}

/// Sort what the view shows: slablab's caches alone, or with --native every row.
void sort_info_view(const InfoOptions& o, InfoView& v)
{
	const SortKey key = o.sort_size ? SortKey::size
				      : (o.sort_activity ? SortKey::activity : SortKey::name);
	if (!o.native) {
		sort_caches(v.caches, key, v.page_size);
		return;
	}
	v.rows.reserve(v.caches.size() + v.natives.size());
	for (const auto& c : v.caches)
		v.rows.emplace_back(c);
	for (const auto& n : v.natives)
		v.rows.emplace_back(n);
	sort_rows(v.rows, key, v.page_size);
}

Json info_caches_json(const InfoOptions& o, const InfoView& v)
{
	Json list = Json::array();
	if (!o.native) {
		for (const auto& c : v.caches)
			list.push_back(to_json(c));
		return list;
	}
	for (const auto& r : v.rows) {
		if (const auto* c = std::get_if<CacheInfo>(&r))
			list.push_back(to_json(*c));
		else
			list.push_back(to_json(std::get<NativeCache>(r)));
	}
	return list;
}

void print_info_json(const InfoOptions& o, const InfoView& v)
{
	Json j = json_envelope("info");
	j["page_size"] = v.page_size;
	if (o.native) {
		j["module_loaded"] = v.module_loaded;
		j["native_root"] = v.root.string();
	}
	j["caches"] = info_caches_json(o, v);
	if (o.totals) {
		j["totals"] = v.module_loaded
				      ? totals_json(compute_totals(v.caches, v.page_size), false)
				      : Json(nullptr);
		if (o.native) {
			j["native_totals"] =
				totals_json(compute_native_totals(v.natives, v.page_size), true);
			j["meminfo"] = meminfo_json(info_meminfo());
		}
	}
	print_json(j);
}

/// -T: slablab's totals, and with --native the kernel's beside them.
void print_info_totals(const InfoOptions& o, const InfoView& v)
{
	if (!o.native) {
		fmt::print("{}", render_totals(v.caches, v.page_size, o.bytes));
		return;
	}
	if (v.module_loaded)
		fmt::print("{}\n", render_totals(v.caches, v.page_size, o.bytes,
						 "Slabcache Totals: slablab"));
	fmt::print("{}", render_native_totals(v.natives, v.page_size, o.bytes,
					      fmt::format("Slabcache Totals: kernel SLUB ({})",
							  v.root.string())));
	if (const auto mi = info_meminfo()) {
		const Totals mine = compute_totals(v.caches, v.page_size);
		fmt::print("\n{}", render_memory_accounting(v.module_loaded ? &mine : nullptr,
							    compute_native_totals(v.natives,
										  v.page_size),
							    *mi, o.bytes));
	}
}

void print_info_table(const InfoOptions& o, const InfoView& v)
{
	TableOptions table;
	table.activity = o.activity;
	table.bytes = o.bytes;
	fmt::print("{}", o.native ? render_rows(v.rows, v.page_size, table)
				  : render_table(v.caches, v.page_size, table));
}

int run_info(const InfoOptions& o)
{
	const bool json = json_output();
	if (o.slabinfo && json)	// info's own --json is refused by CLI11 already
		throw UsageError("--slabinfo prints /proc/slabinfo lines, not JSON: not with -j");
	InfoView v;
	v.root = default_native_root();
	if (o.exact && o.report.empty() && !o.slabinfo && !json)
		throw UsageError("--exact counts the objects per layer: with -r, -j or --slabinfo, "
				 "which show them");
	if (o.exact && o.native && !o.report.empty())
		throw UsageError("--exact is for slablab caches: not with -r NAME --native");
	if (!o.report.empty() && o.native)
		return run_native_report(o, v.root);
	if (!o.report.empty())
		validate_cache_name(o.report);

	std::optional<Client> client = info_client(o.native);
	v.module_loaded = client.has_value();
	v.page_size = client ? client->status().page_size : host_page_size();
	if (o.slabinfo) {
		fmt::print("{}", render_slabinfo(select_caches(
					 client->cache_list(false, true, o.exact), o.patterns)));
		return kExitOk;
	}
	if (!o.report.empty())
		return run_report(*client, o.report, v.page_size, o.exact);

	if (client)
		v.caches = select_caches(client->cache_list(false, json, o.exact), o.patterns);
	if (o.native) {
		v.natives = read_selected_natives(o, v.root);
		if (!client)
			fmt::print(stderr, "slabctl: info: the slablab module is not loaded: "
					   "only the kernel's caches are shown\n");
		note_unreadable(v.natives, v.root);
	}
	if (!o.patterns.empty() && v.caches.empty() && v.natives.empty())
		throw Error(ENOENT, "", "",
			    fmt::format("no cache matches {}", fmt::join(o.patterns, " ")));
	sort_info_view(o, v);
	if (json)
		print_info_json(o, v);
	else if (o.totals)
		print_info_totals(o, v);
	else
		print_info_table(o, v);
	return kExitOk;
}

}  // namespace

Action setup_version(CLI::App& cmd)
{
	add_json_flag(cmd);
	return [] {
		if (json_output()) {
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
	add_json_flag(cmd);
	return [] {
		Client client;
		Status s = client.status();
		if (json_output()) {
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
	cmd.add_flag("--exact", o->exact,
		     "Count the objects per layer exactly, on every cpu under its lock (needs "
		     "CAP_SYS_ADMIN; queues work on each cpu and waits). Default: read racily "
		     "from one cpu, the same figures on a quiet cache");
	add_json_flag(cmd);
	auto* slabinfo = cmd.add_flag("--slabinfo", o->slabinfo,
				      "/proc/slabinfo version 2.1 lines (SLAB's tunables and slabdata) "
				      "for slablab caches");
	slabinfo->excludes("--json")->excludes("--native")->excludes("--report");
	return [o] { return run_info(*o); };
}

}  // namespace slabctl::cli
