// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "sample.hpp"
#include "slabctl/format.hpp"
#include "slabctl/names.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace slabctl;
using slabctl::test::kPage;
using slabctl::test::kmalloc_cache;
using slabctl::test::sample_cache;

TEST(Format, SizeLikeSlabinfo)
{
	EXPECT_EQ(format_size(0), "0");
	EXPECT_EQ(format_size(999), "999");
	EXPECT_EQ(format_size(1000), "1000");
	EXPECT_EQ(format_size(1001), "1.0K");
	EXPECT_EQ(format_size(4096), "4.0K");
	EXPECT_EQ(format_size(8192), "8.1K");
	EXPECT_EQ(format_size(65536), "65.5K");
	EXPECT_EQ(format_size(1000000), "1000.0K");
	EXPECT_EQ(format_size(1228800), "1.2M");
	EXPECT_EQ(format_size(268435456), "268.4M");
	EXPECT_EQ(format_size(5000000001ULL), "5.0G");
	EXPECT_EQ(format_size(4096, true), "4096");
}

TEST(Format, Percent)
{
	EXPECT_EQ(percent(1, 2), 50u);
	EXPECT_EQ(percent(2, 3), 66u);
	EXPECT_EQ(percent(5, 0), 0u);
	EXPECT_EQ(percent(5, 0, 100), 100u);
}

TEST(Format, Derived)
{
	CacheInfo c = sample_cache();
	EXPECT_EQ(cache_space(c, kPage), 8192u);
	EXPECT_EQ(cache_loss(c, kPage), 8192u - 6400u);
	EXPECT_EQ(cache_cpu_slabs(c), 1u);
	EXPECT_EQ(cache_activity(c), 140u);
	EXPECT_EQ(flag_letters(c), "AD");
	c.pages = 0;  // falls back to slabs << order
	c.order = 1;
	EXPECT_EQ(cache_space(c, kPage), 2u * 8192u);
	c.flags = __SLABLAB_CACHE_F_ALL;
	c.owner = SLABLAB_OWNER_KMALLOC;
	EXPECT_EQ(flag_letters(c), "ADHRBk");
	c.owner = SLABLAB_OWNER_KERNEL;
	c.flags = 0;
	EXPECT_EQ(flag_letters(c), "m");
}

TEST(Format, HeadersAreSlabinfos)
{
	EXPECT_EQ(table_header(false),
		  "Name                   Objects Objsize    Space Slabs/Part/Cpu  O/S O %Fr %Ef Flg");
	EXPECT_EQ(table_header(true),
		  "Name                   Objects      Alloc       Free   %Fast Fallb O CmpX   UL");
}

TEST(Format, Line)
{
	CacheInfo c = sample_cache();
	TableOptions o;
	// Name Objects Objsize Space Slabs/Part/Cpu O/S O %Fr %Ef Flg
	EXPECT_EQ(table_line(c, kPage, o),
		  "t64                        100      64     8.1K          1/1/1   64 0  50  78 AD");
	o.activity = true;
	// Name Objects Alloc Free %Fast(alloc free) Fallb O CmpX UL
	EXPECT_EQ(table_line(c, kPage, o),
		  "t64                        100        100         40  90  75     2 0    3    4");
}

// Every field of a line ends where its header title ends.
TEST(Format, ColumnsLineUp)
{
	for (bool activity : {false, true}) {
		TableOptions o;
		o.activity = activity;
		std::string table = render_table({sample_cache()}, kPage, o);
		std::string header = table.substr(0, table.find('\n'));
		std::string line = table.substr(header.size() + 1);
		line.pop_back();
		// right edges of the header's titles (the last, Flg, is left-aligned)
		// ("Name", the first title, is left-aligned: skipped)
		std::vector<std::size_t> edges;
		bool first = true;
		for (std::size_t i = 1; i < header.size(); i++) {
			if (header[i] == ' ' && header[i - 1] != ' ') {
				if (!first)
					edges.push_back(i);
				first = false;
			}
		}
		for (std::size_t e : edges) {
			if (!activity && header.compare(e - 5, 5, "%Fast") == 0)
				continue;
			ASSERT_LT(e, line.size());
			EXPECT_NE(line[e - 1], ' ') << "column ending at " << e << " in\n"
						     << header << "\n" << line;
			EXPECT_EQ(line[e], ' ') << "column ending at " << e << " in\n"
						<< header << "\n" << line;
		}
	}
}

TEST(Format, LongNamesWidenTheNameColumn)
{
	CacheInfo c = sample_cache();
	c.name = std::string(31, 'n');
	std::string table = render_table({c}, kPage, {});
	std::string header = table.substr(0, table.find('\n'));
	std::string line = table.substr(header.size() + 1);
	EXPECT_EQ(header.find("Objects") + 7, line.find(" 100") + 4);
}

TEST(Format, Sort)
{
	std::vector<CacheInfo> v = {kmalloc_cache("b", 64, 10, 1), kmalloc_cache("A", 64, 500, 9),
				    kmalloc_cache("c", 64, 100, 3)};
	sort_caches(v, SortKey::name, kPage);
	EXPECT_EQ(v[0].name, "A");
	EXPECT_EQ(v[1].name, "b");
	EXPECT_EQ(v[2].name, "c");
	sort_caches(v, SortKey::size, kPage);
	EXPECT_EQ(v[0].name, "A");
	EXPECT_EQ(v[1].name, "c");
	EXPECT_EQ(v[2].name, "b");
	v[2].stats[SLABLAB_FREE_SLOWPATH] = 100000;
	sort_caches(v, SortKey::activity, kPage);
	EXPECT_EQ(v[0].name, "b");
}

TEST(Format, RenderTable)
{
	std::string t = render_table({sample_cache(), kmalloc_cache("kmalloc-64", 64, 0, 0)}, kPage, {});
	EXPECT_EQ(t.rfind("Name ", 0), 0u);
	EXPECT_NE(t.find("\nt64 "), std::string::npos);
	EXPECT_NE(t.find("\nkmalloc-64 "), std::string::npos);
	// empty cache: %Fr and %Ef are 100 (slabinfo's convention), Flg k
	EXPECT_NE(t.find("0/0/0   64 0 100 100 k\n"), std::string::npos) << t;
	TableOptions bytes;
	bytes.bytes = true;
	EXPECT_NE(render_table({sample_cache()}, kPage, bytes).find(" 8192 "), std::string::npos);
}

TEST(Format, Totals)
{
	std::vector<CacheInfo> v = {sample_cache(), kmalloc_cache("kmalloc-64", 64, 60, 1),
				    kmalloc_cache("empty", 128, 0, 0)};
	Totals t = compute_totals(v, kPage);
	EXPECT_EQ(t.caches, 3u);
	EXPECT_EQ(t.active, 2u);
	EXPECT_EQ(t.space, 3u * kPage);
	EXPECT_EQ(t.used, 160u * 64u);
	EXPECT_EQ(t.loss, 3u * kPage - 160u * 64u);
	EXPECT_EQ(t.objects, 160u);
	std::string r = render_totals(v, kPage);
	EXPECT_NE(r.find("Slabcache Totals"), std::string::npos);
	EXPECT_NE(r.find("Slabcaches :      3   Active   :      2"), std::string::npos) << r;
	EXPECT_NE(r.find("Per Cache"), std::string::npos);
	EXPECT_NE(r.find("Per Object"), std::string::npos);
	EXPECT_NE(render_totals({kmalloc_cache("empty", 128, 0, 0)}, kPage).find("No objects"),
		  std::string::npos);
}

namespace {

/// A kernel cache with sample_cache()'s figures, as /sys/kernel/slab would give them.
NativeCache native_like_sample()
{
	const CacheInfo c = sample_cache();
	NativeCache n;
	n.name = c.name;
	n.dir = c.name;
	n.object_size = c.size;
	n.slab_size = c.obj_stride;
	n.objs_per_slab = c.objs_per_slab;
	n.order = c.order;
	n.objects = c.objects;
	n.total_objects = c.total_objects;
	n.slabs = c.slabs;
	n.partial = c.partial_slabs;
	n.cpu_slabs = c.cpu_slabs + c.cpu_partial_slabs;
	for (std::size_t i = 0; i < kNrStats; i++)
		n.stats[i] = c.stats[i];
	return n;
}

/// A table line without its name column and (default view) its Flg column.
std::string figures(const std::string& line, bool activity)
{
	std::string f = line.substr(21);
	return activity ? f : f.substr(0, f.rfind(' '));
}

}  // namespace

// One row model: a slablab cache and a kernel cache with the same figures give the same
// cells, the same totals and sort alike; a kernel cache's unknown figures are "-".
TEST(Format, OneRowModelForBothKinds)
{
	const CacheInfo c = sample_cache();
	NativeCache n = native_like_sample();
	const CacheRow rc = cache_row(c, kPage), rn = cache_row(n, kPage);
	EXPECT_EQ(rc.display_name(), "t64");
	EXPECT_EQ(rn.display_name(), "slub/t64");
	EXPECT_EQ(rc.space, rn.space);
	EXPECT_EQ(rc.stride, rn.stride);
	EXPECT_EQ(rc.cpu_slabs, rn.cpu_slabs);
	EXPECT_EQ(rc.activity(), rn.activity());
	for (bool activity : {false, true}) {
		TableOptions o;
		o.activity = activity;
		EXPECT_EQ(figures(table_line(c, kPage, o), activity),
			  figures(table_line(n, kPage, o), activity));
		EXPECT_EQ(table_line(rn, o), table_line(n, kPage, o));
	}
	const Totals tc = compute_totals({c}, kPage), tn = compute_native_totals({n}, kPage);
	EXPECT_EQ(tc.space, tn.space);
	EXPECT_EQ(tc.used, tn.used);
	EXPECT_EQ(tc.alloc, tn.alloc);
	EXPECT_EQ(tc.free, tn.free);
	EXPECT_EQ(tn.incomplete, 0u);
	const std::vector<CacheRow> rows{rc, rn};
	EXPECT_EQ(compute_row_totals(rows).objects, 2 * c.objects);

	// unknown figures: "-" in their cells, not counted by -T, sorted last
	n.cpu_slabs.reset();
	n.stats[SLABLAB_FREE_SLOWPATH].reset();
	TableOptions o;
	EXPECT_NE(table_line(n, kPage, o).find(" -/1/- "), std::string::npos) << table_line(n, kPage, o);
	o.activity = true;
	EXPECT_EQ(table_line(n, kPage, o).substr(21),
		  "      100        100          -  90   -     2 0    3    4");
	EXPECT_FALSE(cache_row(n, kPage).countable());
	EXPECT_EQ(compute_native_totals({n}, kPage).incomplete, 1u);
	std::vector<InfoRow> mixed{n, c};
	sort_rows(mixed, SortKey::activity, kPage);
	EXPECT_EQ(row_display_name(mixed.front()), "t64");
}

// watch's header is the -D header and its two rate columns.
TEST(Format, WatchHeaderIsTheActivityHeader)
{
	EXPECT_EQ(watch_header(30), table_header(true, 30) + "   Alloc/s    Free/s");
	EXPECT_EQ(watch_header().rfind(table_header(true), 0), 0u);
}

TEST(Format, ReportHasEveryCounterAndGauge)
{
	CacheInfo c = sample_cache();
	std::string r = render_report(c, kPage);
	EXPECT_EQ(r.rfind("Slabcache: t64", 0), 0u);
	for (auto name : stat_names())
		EXPECT_NE(r.find(std::string(name)), std::string::npos) << name;
	for (auto g : {"objects", "total_objects", "slabs", "partial_slabs", "cpu_slabs",
		       "cpu_partial_slabs", "pages", "live_bytes", "meta_bytes", "obj_stride",
		       "objs_per_slab", "order_default", "cpu_partial", "min_partial", "fastpath",
		       "design  "})
		EXPECT_NE(r.find(g), std::string::npos) << g;
	EXPECT_NE(r.find("Slab Perf Counter"), std::string::npos);
	EXPECT_NE(r.find("Per cpu (2 cpus reported)"), std::string::npos);
	EXPECT_NE(r.find("cpu1"), std::string::npos);
	EXPECT_NE(r.find("** Hardware cacheline aligned"), std::string::npos);
	c.has_percpu = false;
	c.percpu.clear();
	EXPECT_NE(render_report(c, kPage).find("Per cpu: not reported"), std::string::npos);
}

TEST(Format, StatusAndVersion)
{
	Status s;
	s.version = "0.1.0";
	s.api_version = 1;
	s.kernel_release = "6.1.0-57-amd64";
	s.nr_cpu_ids = 2;
	s.nr_online_cpus = 2;
	s.nr_nodes = 1;
	s.page_size = 4096;
	s.nr_caches = 7;
	s.features = SLABLAB_FEAT_CMPXCHG_DOUBLE | SLABLAB_FEAT_INIT_ON_ALLOC;
	s.kmalloc_page_policy = SLABLAB_PAGE_POLICY_PAGE_ALLOC;
	EXPECT_EQ(module_version_line(s), "slablab module 0.1.0 (api 1) on 6.1.0-57-amd64, 2 cpus");
	s.nr_online_cpus = 1;
	EXPECT_EQ(module_version_line(s), "slablab module 0.1.0 (api 1) on 6.1.0-57-amd64, 1 cpu");
	std::string st = render_status(s);
	EXPECT_NE(st.find("page_alloc"), std::string::npos);
	EXPECT_NE(st.find("init_on_alloc, cmpxchg_double (0x11)"), std::string::npos) << st;
	EXPECT_NE(st.find("6.1.0-57-amd64"), std::string::npos);
	// lab show: the settings as status shows them
	s.kmalloc_design = SLABLAB_DESIGN_SLOB;
	s.kmalloc_lists = 2;
	EXPECT_EQ(render_lab(s), "kmalloc page policy page_alloc\n"
				 "kmalloc design      slob (lists 2)\n");
	EXPECT_NE(render_status(s).find(render_lab(s)), std::string::npos);
}

TEST(Format, CacheSummaryAndValidate)
{
	EXPECT_EQ(render_cache_summary(sample_cache()),
		  "t64: size 64, align 8, stride 64, 64 objects/slab, order 0 (default 0), "
		  "cpu_partial 30, min_partial 5, fastpath cmpxchg, flags debug,hwcache_align");
	ValidateReport v;
	v.cache = "t64";
	v.slabs = 3;
	v.objects = 192;
	v.free_objects = 150;
	EXPECT_EQ(render_validate(v), "t64: OK (3 slabs, 192 object slots, 150 free)");
	v.errors = 2;
	v.first_error = "slab 0x1000: freelist pointer out of range";
	EXPECT_EQ(render_validate(v), "t64: 2 errors (3 slabs, 192 object slots, 150 free); first: "
				      "slab 0x1000: freelist pointer out of range");
}

TEST(Format, SetNotesSayWhatTookNoEffect)
{
	CacheInfo c = sample_cache();	// slub, order 0 = order_default
	c.max_order = 1;
	Tunables t;
	t.max_order = 1;
	t.cpu_partial = 30;
	EXPECT_TRUE(set_notes(t, c).empty());	// slub reads both; the order is the default's

	c.design = SLABLAB_DESIGN_SLAB;		// SLAB's geometry: slab_max_order, not max_order
	c.cpu_partial = 30;
	EXPECT_EQ(set_notes(t, c),
		  (std::vector<std::string>{
			  "the slab design does not read cpu_partial: it is kept for a design "
			  "change (read by slub, sheaves with sheaves_cpu_slabs=1)",
			  "the slab design does not read max_order: it is kept for a design "
			  "change (read by slub, sheaves)"}));

	c.design = SLABLAB_DESIGN_SHEAVES;	// on slub's cpu slabs it reads cpu_partial
	c.sheaves_cpu_slabs = 1;
	EXPECT_TRUE(set_notes(t, c).empty());

	c.design = SLABLAB_DESIGN_SLUB;		// an order set before: max_order moves the default
	c.order = 2;
	c.order_default = 1;
	t.cpu_partial.reset();
	EXPECT_EQ(set_notes(t, c),
		  (std::vector<std::string>{
			  "order 2 was set and stays: under max_order 1 the order policy chose 1 "
			  "(order_default), which new slabs take after `slabctl set t64 order=1`"}));
	t.order = 2;				// set in the same command: what was asked
	EXPECT_TRUE(set_notes(t, c).empty());
}
