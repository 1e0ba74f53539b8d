// SPDX-License-Identifier: GPL-2.0 OR MIT
// The /sys/kernel/slab reader (native.hpp) against fake trees in a temporary directory:
// merged caches behind symlinks, files missing (no SLUB_DEBUG / SLUB_STATS), per-node and
// per-cpu formats, a file that cannot be read; and how the table, totals, report and JSON
// show kernel caches.
#include "sample.hpp"
#include "slabctl/error.hpp"
#include "slabctl/format.hpp"
#include "slabctl/json.hpp"
#include "slabctl/names.hpp"
#include "slabctl/native.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

using namespace slabctl;
namespace fs = std::filesystem;

namespace {

/// A temporary directory, removed with everything in it.
class TempDir {
public:
	TempDir()
	{
		std::string tmpl = (fs::temp_directory_path() / "slabctl-native-XXXXXX").string();
		if (!::mkdtemp(tmpl.data()))
			throw std::runtime_error("mkdtemp failed");
		path_ = tmpl;
	}
	~TempDir()
	{
		std::error_code ec;
		// make everything removable again (a test may have chmod'ed a file to 0)
		for (auto it = fs::recursive_directory_iterator(path_, ec);
		     !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
			fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
		fs::remove_all(path_, ec);
	}
	TempDir(const TempDir&) = delete;
	TempDir& operator=(const TempDir&) = delete;
	const fs::path& path() const { return path_; }

private:
	fs::path path_;
};

void write(const fs::path& p, const std::string& text)
{
	std::ofstream f(p);
	f << text;
}

/// A cache directory as the stock Debian 6.1 kernel has it (SLUB_DEBUG, NUMA, no STATS).
void debian_cache(const fs::path& dir, unsigned size, unsigned objects, unsigned slabs)
{
	fs::create_directories(dir);
	write(dir / "object_size", std::to_string(size) + "\n");
	write(dir / "slab_size", std::to_string(size) + "\n");
	write(dir / "objs_per_slab", std::to_string(4096 / size) + "\n");
	write(dir / "order", "0\n");
	write(dir / "align", "8\n");
	write(dir / "aliases", "2\n");
	write(dir / "min_partial", "5\n");
	write(dir / "cpu_partial", "120\n");
	write(dir / "usersize", "0\n");
	write(dir / "objects", fmt::format("{} N0={}\n", objects, objects));
	write(dir / "total_objects", fmt::format("{} N0={}\n", slabs * (4096 / size), slabs * (4096 / size)));
	write(dir / "slabs", fmt::format("{} N0={}\n", slabs, slabs));
	write(dir / "partial", "3 N0=3\n");
	write(dir / "cpu_slabs", "4 N0=4\n");
	write(dir / "objects_partial", "70 N0=70\n");
	write(dir / "slabs_cpu_partial", "64(2) C0=32(1) C1=32(1)\n");
	for (auto f : {"cache_dma", "poison", "reclaim_account", "red_zone", "sanity_checks",
		       "store_user", "trace", "destroy_by_rcu", "failslab", "skip_kfence"})
		write(dir / f, "0\n");
	write(dir / "hwcache_align", "1\n");
	write(dir / "ctor", "");
	write(dir / "shrink", "");
	write(dir / "validate", "");
	write(dir / "remote_node_defrag_ratio", "100\n");
}

/// The tree:
///   :0000064/            kmalloc-64, slablab_slab, foo-bar -> it   (merged, 20 slabs)
///   :A-0000192/          dentry_x, zz -> it                         (no kmalloc alias)
///   ext4_inode_cache/    unmergeable, with SLUB_STATS files and two nodes
///   nodebug/             no SLUB_DEBUG: no slabs/total_objects, objects "0"
///   broken/              "objects" cannot be read (a directory: EISDIR, even for root)
///   gone -> :0009999     dangling alias
///   README               a stray regular file
struct FakeTree {
	TempDir tmp;
	fs::path root = tmp.path();

	FakeTree()
	{
		debian_cache(root / ":0000064", 64, 1234, 20);
		fs::create_directory_symlink(":0000064", root / "kmalloc-64");
		fs::create_directory_symlink(":0000064", root / "slablab_slab");
		fs::create_directory_symlink(root / ":0000064", root / "foo-bar");	// absolute

		debian_cache(root / ":A-0000192", 192, 10, 1);
		write(root / ":A-0000192" / "aliases", "1\n");
		write(root / ":A-0000192" / "hwcache_align", "0\n");
		write(root / ":A-0000192" / "reclaim_account", "1\n");
		fs::create_directory_symlink(":A-0000192", root / "dentry_x");
		fs::create_directory_symlink(":A-0000192", root / "zz");

		const fs::path e = root / "ext4_inode_cache";
		debian_cache(e, 1024, 300, 40);
		write(e / "order", "3\n");
		write(e / "objs_per_slab", "32\n");
		write(e / "slab_size", "1088\n");
		write(e / "aliases", "0\n");
		write(e / "objects", "300 N0=200 N1=100\n");
		write(e / "slabs", "40 N0=30 N1=10\n");
		write(e / "partial", "8 N0=5 N1=3\n");
		write(e / "cpu_slabs", "2 N0=1 N1=1\n");
		write(e / "poison", "1\n");
		write(e / "red_zone", "1\n");
		write(e / "sanity_checks", "1\n");
		write(e / "store_user", "1\n");
		const auto& names = stat_names();
		for (std::size_t i = 0; i < kNrStats; i++)
			write(e / std::string(names[i]), "0\n");
		write(e / "alloc_fastpath", "1000 C0=600 C1=400\n");
		write(e / "alloc_slowpath", "100 C0=100\n");
		write(e / "free_fastpath", "900 C1=900\n");
		write(e / "free_slowpath", "100 C0=50 C1=50\n");
		write(e / "order_fallback", "7 C0=7\n");
		write(e / "cmpxchg_double_fail", "3 C1=3\n");

		const fs::path n = root / "nodebug";
		fs::create_directories(n);
		write(n / "object_size", "32\n");
		write(n / "slab_size", "32\n");
		write(n / "objs_per_slab", "128\n");
		write(n / "order", "0\n");
		write(n / "objects", "0\n");	// SO_ALL without SLUB_DEBUG counts nothing
		write(n / "partial", "1\n");
		write(n / "cpu_slabs", "2\n");
		write(n / "aliases", "0\n");
		write(n / "hwcache_align", "0\n");

		debian_cache(root / "broken", 128, 50, 2);
		write(root / "broken" / "aliases", "0\n");
		fs::remove(root / "broken" / "objects");
		fs::create_directory(root / "broken" / "objects");

		fs::create_directory_symlink(":0009999", root / "gone");
		write(root / "README", "not a cache\n");
	}
};

const NativeCache& by_name(const std::vector<NativeCache>& v, std::string_view name)
{
	for (const auto& c : v)
		if (c.name == name)
			return c;
	throw std::runtime_error("no cache " + std::string(name));
}

}  // namespace

TEST(NativeParse, Counts)
{
	auto c = parse_native_count("1234\n");
	ASSERT_TRUE(c);
	EXPECT_EQ(c->total, 1234u);
	EXPECT_TRUE(c->parts.empty());

	c = parse_native_count("1234 N0=1000 N1=234\n");
	ASSERT_TRUE(c);
	EXPECT_EQ(c->total, 1234u);
	EXPECT_EQ(c->parts, (std::vector<NativePart>{{0, 1000}, {1, 234}}));

	c = parse_native_count("5000 C0=4000 C3=1000\n", 'C');
	ASSERT_TRUE(c);
	EXPECT_EQ(c->total, 5000u);
	EXPECT_EQ(c->parts, (std::vector<NativePart>{{0, 4000}, {3, 1000}}));
	// per-node parts asked for, per-cpu ones given: the total still counts
	c = parse_native_count("5000 C0=4000\n", 'N');
	ASSERT_TRUE(c);
	EXPECT_EQ(c->total, 5000u);
	EXPECT_TRUE(c->parts.empty());

	// odd tokens are skipped
	c = parse_native_count("7 N0=3 junk N=4 N1= N2=x N3=4\n");
	ASSERT_TRUE(c);
	EXPECT_EQ(c->parts, (std::vector<NativePart>{{0, 3}, {3, 4}}));

	EXPECT_EQ(parse_native_count("18446744073709551615")->total, 18446744073709551615ULL);
	EXPECT_FALSE(parse_native_count("18446744073709551616"));
	EXPECT_FALSE(parse_native_count(""));
	EXPECT_FALSE(parse_native_count("\n"));
	EXPECT_FALSE(parse_native_count("-1"));
	EXPECT_FALSE(parse_native_count("abc"));
	EXPECT_EQ(parse_native_count("64(2) C0=32(1)")->total, 64u);
}

TEST(NativeParse, CpuPartial)
{
	auto p = parse_native_cpu_partial("64(2) C0=32(1) C1=32(1)\n");
	ASSERT_TRUE(p);
	EXPECT_EQ(p->first, 64u);
	EXPECT_EQ(p->second, 2u);
	p = parse_native_cpu_partial("0(0)\n");
	ASSERT_TRUE(p);
	EXPECT_EQ(p->second, 0u);
	EXPECT_FALSE(parse_native_cpu_partial("64\n"));
	EXPECT_FALSE(parse_native_cpu_partial("64(2"));
	EXPECT_FALSE(parse_native_cpu_partial("(2)"));
}

TEST(NativeParse, ReadableName)
{
	EXPECT_EQ(native_readable_name("ext4_inode_cache", {}), "ext4_inode_cache");
	EXPECT_EQ(native_readable_name(":0000064", {}), ":0000064");
	// a kmalloc alias wins, as in slabinfo; then the shortest, then alphabetical
	EXPECT_EQ(native_readable_name(":0000064", {"ab", "kmalloc-64", "zz"}), "kmalloc-64");
	EXPECT_EQ(native_readable_name(":0000064", {"kmalloc-rcl-64", "kmalloc-64"}), "kmalloc-64");
	EXPECT_EQ(native_readable_name(":A-0000192", {"dentry_x", "zz", "yy"}), "yy");
	EXPECT_EQ(native_readable_name(":A-0000192", {"dentry_x"}), "dentry_x");
}

TEST(NativeRead, ListingAndAliases)
{
	FakeTree t;
	NativeListing l = list_native_caches(t.root);
	ASSERT_EQ(l.caches.size(), 5u);
	EXPECT_EQ(l.aliases, 5u);
	EXPECT_EQ(l.dangling, std::vector<std::string>{"gone"});
	const NativeEntry* e = find_native(l, "slablab_slab");
	ASSERT_NE(e, nullptr);
	EXPECT_EQ(e->dir, ":0000064");
	EXPECT_EQ(e->name, "kmalloc-64");
	EXPECT_EQ(e->aliases, (std::vector<std::string>{"foo-bar", "kmalloc-64", "slablab_slab"}));
	EXPECT_EQ(find_native(l, "slub/kmalloc-64"), e);
	EXPECT_EQ(find_native(l, ":0000064"), e);
	EXPECT_EQ(find_native(l, "slub/foo-bar"), e);
	EXPECT_EQ(find_native(l, "gone"), nullptr);
	EXPECT_EQ(find_native(l, "README"), nullptr);
	EXPECT_EQ(find_native(l, "nosuch"), nullptr);
	EXPECT_EQ(find_native(l, "zz")->name, "zz");

	EXPECT_TRUE(native_matches("kmalloc-*", *e));
	EXPECT_TRUE(native_matches("slablab_*", *e));
	EXPECT_TRUE(native_matches("slub/*", *e));
	EXPECT_TRUE(native_matches(":00000*", *e));
	EXPECT_FALSE(native_matches("ext4*", *e));
}

TEST(NativeRead, Figures)
{
	FakeTree t;
	auto caches = read_native_caches(t.root);
	ASSERT_EQ(caches.size(), 5u);

	const NativeCache& k = by_name(caches, "kmalloc-64");
	EXPECT_EQ(k.display_name(), "slub/kmalloc-64");
	EXPECT_EQ(k.object_size, 64u);
	EXPECT_EQ(k.slab_size, 64u);
	EXPECT_EQ(k.objs_per_slab, 64u);
	EXPECT_EQ(k.order, 0u);
	EXPECT_EQ(k.merged, 2u);
	EXPECT_EQ(k.objects, 1234u);
	EXPECT_EQ(k.slabs, 20u);
	EXPECT_EQ(k.total_objects, 1280u);
	EXPECT_EQ(k.partial, 3u);
	EXPECT_EQ(k.cpu_slabs, 4u);
	EXPECT_EQ(k.objects_partial, 70u);
	EXPECT_EQ(k.cpu_partial_slabs, 2u);
	EXPECT_EQ(k.cpu_partial_objects, 64u);
	EXPECT_EQ(k.objects_nodes, (std::vector<NativePart>{{0, 1234}}));
	EXPECT_EQ(k.flag("hwcache_align"), true);
	EXPECT_EQ(k.flag("poison"), false);
	EXPECT_EQ(k.flag("nonsense"), std::nullopt);
	EXPECT_FALSE(k.has_stats());
	EXPECT_EQ(k.activity(), std::nullopt);
	EXPECT_EQ(k.pages(), 20u);
	EXPECT_EQ(k.space(4096), 20u * 4096);
	EXPECT_TRUE(k.unreadable().empty());
	ASSERT_NE(k.file("alloc_fastpath"), nullptr);
	EXPECT_TRUE(k.file("alloc_fastpath")->absent());

	const NativeCache& e = by_name(caches, "ext4_inode_cache");
	EXPECT_TRUE(e.aliases.empty());
	EXPECT_EQ(e.order, 3u);
	EXPECT_EQ(e.space(4096), 40u * 4096 * 8);
	EXPECT_EQ(e.slabs_nodes, (std::vector<NativePart>{{0, 30}, {1, 10}}));
	EXPECT_TRUE(e.has_stats());
	EXPECT_EQ(e.stats[SLABLAB_ALLOC_FASTPATH], 1000u);
	EXPECT_EQ(e.stats[SLABLAB_CPU_PARTIAL_DRAIN], 0u);
	EXPECT_EQ(e.stats_cpus[SLABLAB_ALLOC_FASTPATH],
		  (std::vector<NativePart>{{0, 600}, {1, 400}}));
	EXPECT_EQ(e.activity(), 2100u);

	// without SLUB_DEBUG: objects reads 0 but means nothing; slabs etc. do not exist
	const NativeCache& n = by_name(caches, "nodebug");
	EXPECT_EQ(n.objects, std::nullopt);
	EXPECT_EQ(n.slabs, std::nullopt);
	EXPECT_EQ(n.total_objects, std::nullopt);
	EXPECT_EQ(n.partial, 1u);
	EXPECT_EQ(n.object_size, 32u);
	EXPECT_EQ(n.flag("poison"), std::nullopt);
	EXPECT_EQ(n.space(4096), std::nullopt);
	EXPECT_TRUE(n.unreadable().empty());

	// one file unreadable: that figure unknown, the others there
	const NativeCache& b = by_name(caches, "broken");
	EXPECT_EQ(b.objects, std::nullopt);
	EXPECT_EQ(b.slabs, 2u);
	ASSERT_EQ(b.unreadable().size(), 1u);
	EXPECT_EQ(b.unreadable()[0]->name, "objects");
	EXPECT_EQ(b.unreadable()[0]->err, EISDIR);
}

TEST(NativeRead, Select)
{
	FakeTree t;
	auto caches = read_native_caches(t.root, [](const NativeEntry& e) {
		return native_matches("slablab_slab", e) || native_matches("zz", e);
	});
	ASSERT_EQ(caches.size(), 2u);
	EXPECT_EQ(caches[0].name, "kmalloc-64");
	EXPECT_EQ(caches[1].name, "zz");
}

TEST(NativeRead, EveryFileForTheReport)
{
	FakeTree t;
	NativeListing l = list_native_caches(t.root);
	NativeCache c = read_native_cache(t.root, *find_native(l, "kmalloc-64"), true);
	ASSERT_NE(c.file("remote_node_defrag_ratio"), nullptr);
	EXPECT_EQ(c.file("remote_node_defrag_ratio")->text, "100");
	ASSERT_NE(c.file("ctor"), nullptr);
	EXPECT_EQ(c.file("ctor")->err, 0);
	EXPECT_EQ(c.file("ctor")->text, "");
	// the stats files this kernel lacks are recorded as absent
	EXPECT_TRUE(c.file("alloc_fastpath")->absent());
	EXPECT_EQ(c.objects, 1234u);

	NativeCache b = read_native_cache(t.root, *find_native(l, "broken"), true);
	EXPECT_TRUE(b.file("objects")->unreadable());
}

TEST(NativeRead, PermissionDeniedPerFile)
{
	if (geteuid() == 0)
		GTEST_SKIP() << "root reads 0400 files anyway (EISDIR stands in for it above)";
	FakeTree t;
	fs::permissions(t.root / ":0000064" / "slabs", fs::perms::none);
	auto caches = read_native_caches(t.root);
	const NativeCache& k = by_name(caches, "kmalloc-64");
	EXPECT_EQ(k.slabs, std::nullopt);
	EXPECT_EQ(k.objects, 1234u);	// "slabs" exists, so objects is still believed
	ASSERT_EQ(k.unreadable().size(), 1u);
	EXPECT_EQ(k.unreadable()[0]->err, EACCES);
}

TEST(NativeRead, RootErrors)
{
	TempDir tmp;
	try {
		list_native_caches(tmp.path() / "nonexistent");
		FAIL() << "no exception";
	} catch (const Error& e) {
		EXPECT_EQ(e.err, ENOENT);
		EXPECT_NE(std::string(e.what()).find("nonexistent"), std::string::npos) << e.what();
		EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
	}
	write(tmp.path() / "file", "x");
	try {
		list_native_caches(tmp.path() / "file");
		FAIL() << "no exception";
	} catch (const Error& e) {
		EXPECT_EQ(e.err, ENOTDIR);
	}
	// an empty root is no error: no caches
	EXPECT_TRUE(read_native_caches(tmp.path()).empty());
	// a cache that went away between listing and reading
	NativeEntry gone{"x", "x", {}};
	EXPECT_THROW(read_native_cache(tmp.path(), gone), Error);
}

TEST(NativeRead, DefaultRootFromTheEnvironment)
{
	::unsetenv("SLABCTL_SYSFS_SLAB");
	EXPECT_EQ(default_native_root(), fs::path("/sys/kernel/slab"));
	::setenv("SLABCTL_SYSFS_SLAB", "/tmp/fake", 1);
	EXPECT_EQ(default_native_root(), fs::path("/tmp/fake"));
	::setenv("SLABCTL_SYSFS_SLAB", "", 1);
	EXPECT_EQ(default_native_root(), fs::path("/sys/kernel/slab"));
	::unsetenv("SLABCTL_SYSFS_SLAB");
}

// ---- how kernel caches are shown ----

TEST(NativeFormat, TableLines)
{
	FakeTree t;
	auto caches = read_native_caches(t.root);
	TableOptions o;
	const std::string k = table_line(by_name(caches, "kmalloc-64"), 4096, o);
	// slabinfo's columns: Slabs/Part/Cpu = slabs - cpu / partial / cpu; %Fr, %Ef
	EXPECT_EQ(k, "slub/kmalloc-64           1234      64    81.9K         16/3/4   64 0  15  96 *A");
	const std::string n = table_line(by_name(caches, "nodebug"), 4096, o);
	EXPECT_EQ(n, "slub/nodebug                 -      32        -          -/1/2  128 0   -   - ");
	// 40 slabs of order 3: 1.3M; 300 x 1024 of it used: 23%
	EXPECT_EQ(table_line(by_name(caches, "ext4_inode_cache"), 4096, o),
		  "slub/ext4_inode_cache      300    1024     1.3M         38/8/2   32 3  20  23 APZFU");
	EXPECT_EQ(native_flag_letters(by_name(caches, "zz")), "*a");

	o.activity = true;
	EXPECT_EQ(table_line(by_name(caches, "ext4_inode_cache"), 4096, o),
		  "slub/ext4_inode_cache      300       1100       1000  90  90     7 3    3    0");
	EXPECT_EQ(table_line(by_name(caches, "kmalloc-64"), 4096, o),
		  "slub/kmalloc-64           1234          -          -   -   -     - 0    -    -");
}

TEST(NativeFormat, MixedTableSortsAndMarksRows)
{
	FakeTree t;
	auto natives = read_native_caches(t.root);
	CacheInfo mine = test::sample_cache();
	mine.name = "kmalloc-64";
	std::vector<InfoRow> rows;
	for (const auto& n : natives)
		rows.emplace_back(n);
	rows.emplace_back(mine);
	sort_rows(rows, SortKey::name, 4096);
	std::vector<std::string> names;
	for (const auto& r : rows)
		names.push_back(row_display_name(r));
	EXPECT_EQ(names, (std::vector<std::string>{"slub/broken", "slub/ext4_inode_cache",
						   "kmalloc-64", "slub/kmalloc-64", "slub/nodebug",
						   "slub/zz"}));
	// by Space: unknown (nodebug) last
	sort_rows(rows, SortKey::size, 4096);
	EXPECT_EQ(row_display_name(rows.front()), "slub/ext4_inode_cache");
	EXPECT_EQ(row_display_name(rows.back()), "slub/nodebug");
	// by activity: the caches with counters first (slablab's always have them)
	sort_rows(rows, SortKey::activity, 4096);
	EXPECT_EQ(row_display_name(rows[0]), "slub/ext4_inode_cache");
	EXPECT_EQ(row_display_name(rows[1]), "kmalloc-64");

	const std::string table = render_rows(rows, 4096, TableOptions{});
	EXPECT_NE(table.find("\nkmalloc-64 "), std::string::npos) << table;
	EXPECT_NE(table.find("\nslub/kmalloc-64 "), std::string::npos) << table;

	// a slablab-only table is what it always was
	std::vector<InfoRow> only{mine};
	std::vector<CacheInfo> plain{mine};
	EXPECT_EQ(render_rows(only, 4096, TableOptions{}), render_table(plain, 4096, TableOptions{}));
}

TEST(NativeFormat, Totals)
{
	FakeTree t;
	auto caches = read_native_caches(t.root);
	Totals tot = compute_native_totals(caches, 4096);
	EXPECT_EQ(tot.caches, 5u);
	EXPECT_EQ(tot.incomplete, 2u);	// nodebug, broken
	EXPECT_EQ(tot.active, 3u);
	EXPECT_EQ(tot.objects, 1234u + 10 + 300);
	EXPECT_EQ(tot.slabs, 20u + 1 + 40);
	EXPECT_EQ(tot.space, 4096u * (20 + 1 + 40 * 8));
	EXPECT_EQ(tot.without_stats, 2u);
	EXPECT_EQ(tot.alloc, 1100u);
	const std::string text = render_native_totals(caches, 4096, false, "Slabcache Totals: SLUB");
	EXPECT_EQ(text.rfind("Slabcache Totals: SLUB\n----------------------\n", 0), 0u) << text;
	EXPECT_NE(text.find("2 of 5 caches not counted"), std::string::npos) << text;

	// without any counters: # Alloc is unknown, not 0
	std::vector<NativeCache> no_stats{by_name(caches, "kmalloc-64")};
	EXPECT_NE(render_native_totals(no_stats, 4096).find("# Alloc    :      -"),
		  std::string::npos);
}

TEST(NativeFormat, Report)
{
	FakeTree t;
	NativeListing l = list_native_caches(t.root);
	NativeCache c = read_native_cache(t.root, *find_native(l, "ext4_inode_cache"), true);
	const std::string r = render_native_report(c, 4096);
	EXPECT_NE(r.find("Slabcache: slub/ext4_inode_cache"), std::string::npos) << r;
	EXPECT_NE(r.find("Object :    1024  Total  :      40   Sanity Checks : On "),
		  std::string::npos) << r;
	EXPECT_NE(r.find("Per node"), std::string::npos);
	EXPECT_NE(r.find("Slab Perf Counter"), std::string::npos);
	EXPECT_NE(r.find("Per-cpu counters"), std::string::npos);
	EXPECT_NE(r.find("remote_node_defrag_ratio    100"), std::string::npos) << r;

	NativeCache b = read_native_cache(t.root, *find_native(l, "broken"), true);
	const std::string rb = render_native_report(b, 4096);
	EXPECT_NE(rb.find("1 could not be read"), std::string::npos) << rb;
	EXPECT_NE(rb.find("objects                     (Is a directory)"), std::string::npos) << rb;
	EXPECT_NE(rb.find("CONFIG_SLUB_STATS"), std::string::npos) << rb;

	NativeCache n = read_native_cache(t.root, *find_native(l, "nodebug"), true);
	const std::string rn = render_native_report(n, 4096);
	EXPECT_NE(rn.find("Not on this kernel:"), std::string::npos) << rn;
	EXPECT_NE(rn.find("Redzoning     : -  "), std::string::npos) << rn;
}

TEST(NativeJson, Cache)
{
	FakeTree t;
	auto caches = read_native_caches(t.root);
	Json k = to_json(by_name(caches, "kmalloc-64"));
	EXPECT_EQ(k["name"], "kmalloc-64");
	EXPECT_EQ(k["allocator"], "slub");
	EXPECT_EQ(k["sysfs_name"], ":0000064");
	EXPECT_EQ(k["aliases"], Json::array({"foo-bar", "kmalloc-64", "slablab_slab"}));
	EXPECT_EQ(k["size"], 64);
	EXPECT_EQ(k["flags"], Json::array({"hwcache_align"}));
	EXPECT_EQ(k["merged"], 2);
	EXPECT_EQ(k["gauges"]["objects"], 1234);
	EXPECT_EQ(k["gauges"]["cpu_slabs"], 2);		// 4 minus the 2 cpu partial slabs
	EXPECT_EQ(k["gauges"]["cpu_partial_slabs"], 2);
	EXPECT_EQ(k["gauges"]["pages"], 20);
	EXPECT_TRUE(k["gauges"]["meta_bytes"].is_null());
	EXPECT_TRUE(k["stats"].is_null());
	EXPECT_TRUE(k["unreadable"].empty());
	EXPECT_FALSE(k.contains("files"));
	EXPECT_FALSE(k.contains("owner"));

	Json n = to_json(by_name(caches, "nodebug"));
	EXPECT_TRUE(n["gauges"]["objects"].is_null());
	EXPECT_TRUE(n["gauges"]["slabs"].is_null());
	EXPECT_TRUE(n["align"].is_null());
	EXPECT_EQ(n["flags"], Json::array());	// hwcache_align known, 0

	Json b = to_json(by_name(caches, "broken"));
	EXPECT_TRUE(b["gauges"]["objects"].is_null());
	EXPECT_EQ(b["unreadable"]["objects"], "Is a directory");

	Json e = to_json(by_name(caches, "ext4_inode_cache"), true);
	EXPECT_EQ(e["stats"]["alloc_fastpath"], 1000);
	EXPECT_EQ(e["stats"].size(), kNrStats);
	EXPECT_EQ(e["percpu_stats"]["alloc_fastpath"], (Json{{"0", 600}, {"1", 400}}));
	EXPECT_EQ(e["nodes"]["slabs"], (Json{{"0", 30}, {"1", 10}}));
	EXPECT_EQ(e["files"]["objects"], "300 N0=200 N1=100");
	EXPECT_FALSE(e["files"].contains("no_such_file"));

	// slablab caches say which allocator they are too
	EXPECT_EQ(to_json(test::sample_cache())["allocator"], "slablab");
}

TEST(NativeMeminfo, ParsesTheSlabLinesInBytes)
{
	const SlabMeminfo mi = parse_slab_meminfo("MemTotal:        4000000 kB\n"
						  "MemFree:         3000000 kB\n"
						  "Slab:               1600 kB\n"
						  "SReclaimable:        600 kB\n"
						  "SUnreclaim:         1000 kB\n"
						  "SwapTotal:             0 kB");
	EXPECT_EQ(mi, (SlabMeminfo{1600 * 1024, 600 * 1024, 1000 * 1024, 4000000ull * 1024,
				  3000000ull * 1024}));
}

TEST(NativeMeminfo, RefusesAMissingOrMalformedLine)
{
	try {
		parse_slab_meminfo("MemTotal: 1 kB\nMemFree: 1 kB\nSReclaimable: 1 kB\n");
		FAIL() << "no Slab: line accepted";
	} catch (const Error& e) {
		EXPECT_EQ(e.err, EINVAL);
		EXPECT_NE(std::string(e.what()).find("no 'Slab:' line"), std::string::npos);
	}
	for (const char* bad : {"Slab: 12 MB", "Slab: kB", "Slab: 99999999999999999999 kB"}) {
		try {
			parse_slab_meminfo(std::string(bad) +
					   "\nSReclaimable: 1 kB\nSUnreclaim: 1 kB\n"
					   "MemTotal: 1 kB\nMemFree: 1 kB\n");
			FAIL() << bad << " accepted";
		} catch (const Error& e) {
			EXPECT_NE(std::string(e.what()).find("cannot read '"), std::string::npos)
				<< e.what();
		}
	}
}
