// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// The kernel's caches from /sys/kernel/slab. The layout (mm/slub.c, sysfs_slab_add()):
// a cache that may be merged with others lives in a directory named after its merge class,
// ":[flags-]<size>" (":A-0000064"), and every cache merged into it, the first one
// included, is a symlink to that directory; an unmergeable cache has a directory of its
// own name. Each directory holds one file per attribute, most of them 0400 (root only):
// numbers ("64\n"), counters with per-node parts ("1234 N0=1000 N1=234\n"), per-cpu
// counters of CONFIG_SLUB_STATS ("5000 C0=4000 C1=1000\n") and 0/1 flags.
#include "slabctl/native.hpp"

#include "slabctl/error.hpp"
#include "slabctl/names.hpp"
#include "slabctl/parse.hpp"
#include "unique_fd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace slabctl {
namespace {

struct DirCloser {
	void operator()(DIR* d) const noexcept { ::closedir(d); }
};
using DirPtr = std::unique_ptr<DIR, DirCloser>;

std::string errno_text(int err)
{
	return std::generic_category().message(err);
}

Error read_error(int err, const std::string& path, std::string_view hint = {})
{
	return Error(err, path, {},
		     fmt::format("cannot read {}: {}{}", path, errno_text(err), hint));
}

/// Open a directory relative to `at` (AT_FDCWD for a path) for listing.
DirPtr open_dir(int at, const char* path, int& err)
{
	Fd fd(::openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!fd) {
		err = errno;
		return nullptr;
	}
	DIR* d = ::fdopendir(fd.get());
	if (!d) {
		err = errno;
		return nullptr;
	}
	fd.release();	// the DIR owns it now
	return DirPtr(d);
}

enum class Kind { dir, link, file, other };

Kind entry_kind(DIR* d, const struct dirent* de)
{
	switch (de->d_type) {
	case DT_DIR:
		return Kind::dir;
	case DT_LNK:
		return Kind::link;
	case DT_REG:
		return Kind::file;
	case DT_UNKNOWN:
		break;
	default:
		return Kind::other;
	}
	struct stat st {};
	if (::fstatat(::dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return Kind::other;
	if (S_ISDIR(st.st_mode))
		return Kind::dir;
	if (S_ISLNK(st.st_mode))
		return Kind::link;
	if (S_ISREG(st.st_mode))
		return Kind::file;
	return Kind::other;
}

/// Read a whole (small) file; sysfs gives a page at most.
NativeFile read_file(int dirfd, const std::string& name)
{
	NativeFile f;
	f.name = name;
	Fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
	if (!fd) {
		f.err = errno;
		return f;
	}
	constexpr std::size_t kMax = 1 << 20;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(fd.get(), buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			f.err = errno;
			f.text.clear();
			return f;
		}
		if (n == 0)
			break;
		f.text.append(buf, static_cast<std::size_t>(n));
		if (f.text.size() >= kMax)
			break;
	}
	while (!f.text.empty() && (f.text.back() == '\n' || f.text.back() == '\0'))
		f.text.pop_back();
	return f;
}

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/// Digits at the start of s (at least one); advances s past them.
std::optional<uint64_t> take_number(std::string_view& s)
{
	std::size_t i = 0;
	uint64_t v = 0;
	while (i < s.size() && is_digit(s[i])) {
		const uint64_t d = static_cast<uint64_t>(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return std::nullopt;
		v = v * 10 + d;
		i++;
	}
	if (i == 0)
		return std::nullopt;
	s.remove_prefix(i);
	return v;
}

void skip_spaces(std::string_view& s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n'))
		s.remove_prefix(1);
}

// The files the table and the report use, in the order they are read.
struct NumberField {
	std::string_view file;
	std::optional<uint64_t> NativeCache::*value;
};
constexpr NumberField kNumbers[] = {
	{"object_size", &NativeCache::object_size},
	{"slab_size", &NativeCache::slab_size},
	{"objs_per_slab", &NativeCache::objs_per_slab},
	{"order", &NativeCache::order},
	{"align", &NativeCache::align},
	{"aliases", &NativeCache::merged},
	{"min_partial", &NativeCache::min_partial},
	{"cpu_partial", &NativeCache::cpu_partial},
	{"usersize", &NativeCache::usersize},
};

struct CountField {
	std::string_view file;
	std::optional<uint64_t> NativeCache::*total;
	std::vector<NativePart> NativeCache::*nodes;
};
constexpr CountField kCounts[] = {
	{"objects", &NativeCache::objects, &NativeCache::objects_nodes},
	{"total_objects", &NativeCache::total_objects, &NativeCache::total_objects_nodes},
	{"slabs", &NativeCache::slabs, &NativeCache::slabs_nodes},
	{"partial", &NativeCache::partial, &NativeCache::partial_nodes},
	{"cpu_slabs", &NativeCache::cpu_slabs, &NativeCache::cpu_slabs_nodes},
	{"objects_partial", &NativeCache::objects_partial, &NativeCache::objects_partial_nodes},
};

constexpr std::string_view kCpuPartialFile = "slabs_cpu_partial";

constexpr NativeFlag kFlags[] = {
	{"cache_dma", 'd', "Memory is allocated in a special DMA zone"},
	{"hwcache_align", 'A', "Hardware cacheline aligned"},
	{"poison", 'P', "Poisoning"},
	{"reclaim_account", 'a', "Reclaim accounting active"},
	{"red_zone", 'Z', "Red zones"},
	{"sanity_checks", 'F', "Sanity checks"},
	{"store_user", 'U', "Alloc/free tracking (store_user)"},
	{"trace", 'T', "Tracing"},
	{"destroy_by_rcu", 0, "Slabs are destroyed via RCU"},
	{"failslab", 0, "Fault injection (failslab)"},
	{"skip_kfence", 0, "Skipped by KFENCE"},
};

/// Every file name the reader knows, in reading order.
std::vector<std::string> known_files()
{
	std::vector<std::string> v;
	for (const auto& f : kNumbers)
		v.emplace_back(f.file);
	for (const auto& f : kCounts)
		v.emplace_back(f.file);
	v.emplace_back(kCpuPartialFile);
	for (const auto& f : kFlags)
		v.emplace_back(f.file);
	for (auto n : stat_names())
		v.emplace_back(n);
	return v;
}

bool shorter_then_alphabetical(const std::string& a, const std::string& b)
{
	return a.size() != b.size() ? a.size() < b.size() : a < b;
}

void parse_into(NativeCache& c)
{
	std::map<std::string_view, const NativeFile*> by_name;
	for (const auto& f : c.files)
		by_name.emplace(f.name, &f);
	auto text = [&](std::string_view name) -> std::optional<std::string_view> {
		auto it = by_name.find(name);
		if (it == by_name.end() || it->second->err != 0)
			return std::nullopt;
		return std::string_view(it->second->text);
	};

	for (const auto& f : kNumbers) {
		if (auto t = text(f.file))
			if (auto n = parse_native_count(*t))
				c.*f.value = n->total;
	}
	for (const auto& f : kCounts) {
		if (auto t = text(f.file)) {
			if (auto n = parse_native_count(*t, 'N')) {
				c.*f.total = n->total;
				c.*f.nodes = std::move(n->parts);
			}
		}
	}
	// Without CONFIG_SLUB_DEBUG there is no "slabs" file and "objects" counts nothing
	// (show_slab_objects() only sums per-node counters that SLUB_DEBUG keeps): always 0.
	if (auto it = by_name.find("slabs"); it != by_name.end() && it->second->absent()) {
		c.objects.reset();
		c.objects_nodes.clear();
	}
	if (auto t = text(kCpuPartialFile)) {
		if (auto p = parse_native_cpu_partial(*t)) {
			c.cpu_partial_objects = p->first;
			c.cpu_partial_slabs = p->second;
		}
	}
	c.flags.assign(std::size(kFlags), std::nullopt);
	for (std::size_t i = 0; i < std::size(kFlags); i++) {
		if (auto t = text(kFlags[i].file))
			if (auto n = parse_native_count(*t))
				c.flags[i] = n->total != 0;
	}
	const auto& names = stat_names();
	for (std::size_t i = 0; i < kNrStats; i++) {
		if (auto t = text(names[i])) {
			if (auto n = parse_native_count(*t, 'C')) {
				c.stats[i] = n->total;
				c.stats_cpus[i] = std::move(n->parts);
			}
		}
	}
}

/// $var when set and not empty (the tests' fake trees and files), else `fallback`.
std::string path_from_env(std::string_view var, std::string_view fallback)
{
	const char* env = std::getenv(std::string(var).c_str());
	return env && *env ? std::string(env) : std::string(fallback);
}

}  // namespace

std::filesystem::path default_native_root()
{
	return path_from_env(kSysfsSlabEnv, kSysfsSlabRoot);
}

SlabMeminfo parse_slab_meminfo(std::string_view text)
{
	struct Want {
		std::string_view key;
		uint64_t SlabMeminfo::*field;
		bool seen = false;
	};
	std::array<Want, 5> want{{{"Slab:", &SlabMeminfo::slab},
				  {"SReclaimable:", &SlabMeminfo::sreclaimable},
				  {"SUnreclaim:", &SlabMeminfo::sunreclaim},
				  {"MemTotal:", &SlabMeminfo::mem_total},
				  {"MemFree:", &SlabMeminfo::mem_free}}};
	SlabMeminfo mi;
	while (!text.empty()) {
		const std::size_t nl = text.find('\n');
		std::string_view line = text.substr(0, nl);
		text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
		for (auto& w : want) {
			if (!line.starts_with(w.key))
				continue;
			std::string_view rest = line.substr(w.key.size());
			skip_spaces(rest);
			const auto kb = take_number(rest);
			skip_spaces(rest);
			if (!kb || rest != "kB" || *kb > UINT64_MAX / 1024)
				throw Error(EINVAL, std::string(kMeminfoPath), {},
					    fmt::format("meminfo: cannot read '{}' (want '{} <n> kB')",
							line, w.key));
			mi.*w.field = *kb * 1024;
			w.seen = true;
		}
	}
	for (const auto& w : want)
		if (!w.seen)
			throw Error(EINVAL, std::string(kMeminfoPath), {},
				    fmt::format("meminfo: no '{}' line", w.key));
	return mi;
}

SlabMeminfo read_slab_meminfo()
{
	const std::string path = path_from_env(kMeminfoEnv, kMeminfoPath);
	NativeFile f = read_file(AT_FDCWD, path);
	if (f.err)
		throw read_error(f.err, path);
	return parse_slab_meminfo(f.text);
}

std::optional<NativeCount> parse_native_count(std::string_view text, char part_letter)
{
	std::string_view s = text;
	skip_spaces(s);
	auto total = take_number(s);
	if (!total)
		return std::nullopt;
	NativeCount c;
	c.total = *total;
	while (!s.empty()) {
		std::size_t end = s.find_first_of(" \t\n");
		std::string_view tok = s.substr(0, end);
		s.remove_prefix(end == std::string_view::npos ? s.size() : end);
		skip_spaces(s);
		if (tok.size() < 3 || tok.front() != part_letter)
			continue;
		tok.remove_prefix(1);
		auto id = take_number(tok);
		if (!id || tok.empty() || tok.front() != '=' || *id > UINT32_MAX)
			continue;
		tok.remove_prefix(1);
		auto v = take_number(tok);
		if (!v)
			continue;
		c.parts.push_back({static_cast<uint32_t>(*id), *v});
	}
	return c;
}

std::optional<std::pair<uint64_t, uint64_t>> parse_native_cpu_partial(std::string_view text)
{
	std::string_view s = text;
	skip_spaces(s);
	auto objects = take_number(s);
	if (!objects || s.empty() || s.front() != '(')
		return std::nullopt;
	s.remove_prefix(1);
	auto slabs = take_number(s);
	if (!slabs || s.empty() || s.front() != ')')
		return std::nullopt;
	return std::pair{*objects, *slabs};
}

bool NativeFile::absent() const noexcept
{
	return err == ENOENT;
}

bool NativeFile::unreadable() const noexcept
{
	return err != 0 && err != ENOENT;
}

std::span<const NativeFlag> native_flag_table() noexcept
{
	return kFlags;
}

std::string NativeCache::display_name() const
{
	return std::string(kNativePrefix) + name;
}

bool NativeCache::has_stats() const noexcept
{
	return std::any_of(stats.begin(), stats.end(), [](const auto& v) { return v.has_value(); });
}

std::optional<uint64_t> NativeCache::activity() const noexcept
{
	const auto& af = stats[SLABLAB_ALLOC_FASTPATH];
	const auto& as = stats[SLABLAB_ALLOC_SLOWPATH];
	const auto& ff = stats[SLABLAB_FREE_FASTPATH];
	const auto& fs = stats[SLABLAB_FREE_SLOWPATH];
	if (!af || !as || !ff || !fs)
		return std::nullopt;
	return *af + *as + *ff + *fs;
}

std::optional<bool> NativeCache::flag(std::string_view file) const noexcept
{
	for (std::size_t i = 0; i < std::size(kFlags) && i < flags.size(); i++)
		if (kFlags[i].file == file)
			return flags[i];
	return std::nullopt;
}

std::optional<uint64_t> NativeCache::pages() const noexcept
{
	if (!slabs || !order || *order > 20)
		return std::nullopt;
	return *slabs << *order;
}

std::optional<uint64_t> NativeCache::space(uint32_t page_size) const noexcept
{
	auto p = pages();
	if (!p)
		return std::nullopt;
	return *p * page_size;
}

std::vector<const NativeFile*> NativeCache::unreadable() const
{
	std::vector<const NativeFile*> v;
	for (const auto& f : files)
		if (f.unreadable())
			v.push_back(&f);
	return v;
}

const NativeFile* NativeCache::file(std::string_view file_name) const noexcept
{
	for (const auto& f : files)
		if (f.name == file_name)
			return &f;
	return nullptr;
}

std::string native_readable_name(std::string_view dir, const std::vector<std::string>& aliases)
{
	if (dir.empty() || dir.front() != ':' || aliases.empty())
		return std::string(dir);
	const std::string* best = nullptr;
	for (const auto& a : aliases) {
		if (a.rfind("kmalloc", 0) != 0)
			continue;
		if (!best || shorter_then_alphabetical(a, *best))
			best = &a;
	}
	if (best)
		return *best;
	return *std::min_element(aliases.begin(), aliases.end(), shorter_then_alphabetical);
}

NativeListing list_native_caches(const std::filesystem::path& root)
{
	NativeListing l;
	l.root = root;
	int err = 0;
	DirPtr d = open_dir(AT_FDCWD, root.c_str(), err);
	if (!d)
		throw read_error(err, root.string(),
				 err == ENOENT ? " (no SLUB sysfs: the kernel needs CONFIG_SLUB and "
						 "CONFIG_SYSFS, and sysfs mounted on /sys)"
					       : "");

	std::set<std::string> dirs;
	std::vector<std::pair<std::string, std::string>> links;	// alias, target directory
	for (;;) {
		errno = 0;
		const struct dirent* de = ::readdir(d.get());
		if (!de) {
			if (errno != 0)
				throw read_error(errno, root.string());
			break;
		}
		std::string name = de->d_name;
		if (name.empty() || name.front() == '.')
			continue;
		switch (entry_kind(d.get(), de)) {
		case Kind::dir:
			dirs.insert(std::move(name));
			break;
		case Kind::link: {
			char buf[4096];
			ssize_t n = ::readlinkat(::dirfd(d.get()), de->d_name, buf, sizeof(buf) - 1);
			if (n < 0) {
				l.dangling.push_back(std::move(name));
				break;
			}
			std::string target(buf, static_cast<std::size_t>(n));
			while (target.size() > 1 && target.back() == '/')
				target.pop_back();
			if (auto slash = target.rfind('/'); slash != std::string::npos)
				target.erase(0, slash + 1);
			links.emplace_back(std::move(name), std::move(target));
			break;
		}
		case Kind::file:
		case Kind::other:
			break;
		}
	}

	std::map<std::string, std::vector<std::string>> aliases;
	for (auto& [alias, target] : links) {
		if (dirs.count(target)) {
			aliases[target].push_back(std::move(alias));
			l.aliases++;
		} else {
			l.dangling.push_back(std::move(alias));
		}
	}
	std::sort(l.dangling.begin(), l.dangling.end());
	for (const auto& dir : dirs) {
		NativeEntry e;
		e.dir = dir;
		if (auto it = aliases.find(dir); it != aliases.end()) {
			e.aliases = std::move(it->second);
			std::sort(e.aliases.begin(), e.aliases.end());
		}
		e.name = native_readable_name(e.dir, e.aliases);
		l.caches.push_back(std::move(e));
	}
	return l;
}

NativeCache read_native_cache(const std::filesystem::path& root, const NativeEntry& entry,
			      bool read_all)
{
	const std::filesystem::path path = root / entry.dir;
	Fd dir(::openat(AT_FDCWD, path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!dir)
		throw read_error(errno, path.string());

	NativeCache c;
	c.name = entry.name;
	c.dir = entry.dir;
	c.aliases = entry.aliases;

	std::vector<std::string> names = known_files();
	if (read_all) {
		// the known files, then every other regular file of the directory, by name
		int err = 0;
		DirPtr d = open_dir(dir.get(), ".", err);
		if (!d)
			throw read_error(err, path.string());
		std::set<std::string> others;
		for (;;) {
			const struct dirent* de = ::readdir(d.get());
			if (!de)
				break;
			if (de->d_name[0] != '.' && entry_kind(d.get(), de) == Kind::file)
				others.insert(de->d_name);
		}
		for (const auto& n : names)
			others.erase(n);
		names.insert(names.end(), others.begin(), others.end());
	}
	for (const auto& n : names)
		c.files.push_back(read_file(dir.get(), n));
	parse_into(c);
	return c;
}

std::vector<NativeCache> read_native_caches(const std::filesystem::path& root,
					    const std::function<bool(const NativeEntry&)>& select)
{
	NativeListing l = list_native_caches(root);
	std::vector<NativeCache> out;
	out.reserve(l.caches.size());
	for (const auto& e : l.caches) {
		if (select && !select(e))
			continue;
		try {
			out.push_back(read_native_cache(root, e));
		} catch (const Error& err) {
			if (err.err != ENOENT)	// a cache destroyed meanwhile is left out
				throw;
		}
	}
	return out;
}

bool native_matches(std::string_view pattern, const NativeEntry& e)
{
	const std::string prefix(kNativePrefix);
	if (name_matches(pattern, e.name) || name_matches(pattern, prefix + e.name) ||
	    name_matches(pattern, e.dir))
		return true;
	for (const auto& a : e.aliases)
		if (name_matches(pattern, a) || name_matches(pattern, prefix + a))
			return true;
	return false;
}

const NativeEntry* find_native(const NativeListing& l, std::string_view name)
{
	if (name.starts_with(kNativePrefix))
		name.remove_prefix(kNativePrefix.size());
	// the readable name first (an alias of one cache may not be the name of another, but
	// be exact about the order anyway), then directories, then aliases
	for (const auto& e : l.caches)
		if (e.name == name)
			return &e;
	for (const auto& e : l.caches)
		if (e.dir == name)
			return &e;
	for (const auto& e : l.caches)
		if (std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end())
			return &e;
	return nullptr;
}

}  // namespace slabctl
