// SPDX-License-Identifier: GPL-2.0 OR MIT
// Replay targets as slabctl replay --compare reads them, a replay's JSON figures, and the
// side-by-side table (docs/replay.md).
#include "slabctl/error.hpp"
#include "slabctl/replay.hpp"

#include <linux/slablab.h>

#include <gtest/gtest.h>

#include <string>

using namespace slabctl;

TEST(ReplayTargets, NamesDesignsAndDefaults)
{
	const auto v = parse_replay_targets("slablab,slablab:sheaves,slub,native,kmalloc,"
					    "native-kmalloc");
	ASSERT_EQ(v.size(), 6U);
	EXPECT_EQ(v[0].label, "slablab");
	EXPECT_FALSE(v[0].spec.design);
	EXPECT_EQ(v[1].spec.target, "slablab");
	EXPECT_EQ(v[1].spec.design, SLABLAB_DESIGN_SHEAVES);
	EXPECT_EQ(v[2].label, "slub");	// a design alone: slablab with it
	EXPECT_EQ(v[2].spec.target, "slablab");
	EXPECT_EQ(v[2].spec.design, SLABLAB_DESIGN_SLUB);
	EXPECT_EQ(v[3].spec.target, "native");
	EXPECT_FALSE(v[3].spec.design);
	EXPECT_EQ(v[5].spec.target, "native-kmalloc");
	// --design applies to a plain slablab only, and names it
	const auto d = parse_replay_targets("slablab,native", std::string("sheaves"));
	EXPECT_EQ(d[0].label, "slablab:sheaves");
	EXPECT_EQ(d[0].spec.design, SLABLAB_DESIGN_SHEAVES);
	EXPECT_FALSE(d[1].spec.design);
}

TEST(ReplayTargets, Refused)
{
	for (const char* bad : {"", ",", "slub-ish", "native:slub", "slablab:nope", "kmalloc:slub"})
		EXPECT_THROW(parse_replay_targets(bad), UsageError) << bad;
	EXPECT_THROW(parse_replay_targets("slablab", std::string("nope")), UsageError);
}

TEST(ReplayJson, FiguresAndTable)
{
	ReplayResult r;
	r.target = "slablab";
	r.label = "slub";
	r.design = "slub";
	r.page_size = 4096;
	r.allocs = 10;
	r.frees = 6;
	r.live_at_end = 4;
	r.alloc_cycles = 1000;
	r.free_cycles = 300;
	r.elapsed_ns = 1000000;
	r.peak_pages = 3;
	r.avg_pages = 2;
	r.peak_live_bytes = 8192;
	r.caches = {{"kmalloc", 4, 2, 2, 0}, {"dentry", 6, 4, 2, 1}};
	r.samples = {{0, 0}, {500, 3}};
	const Json j = to_json(r);
	EXPECT_DOUBLE_EQ(j["ops_per_sec"].get<double>(), 16e3);
	EXPECT_DOUBLE_EQ(j["cycles_per_alloc"].get<double>(), 100.0);
	EXPECT_DOUBLE_EQ(j["cycles_per_free"].get<double>(), 50.0);
	EXPECT_DOUBLE_EQ(j["overhead_pct"].get<double>(), 50.0);	// 12 KiB for 8 KiB
	EXPECT_EQ(j["samples"]["pages"], Json({0, 3}));
	ReplayResult n = r;
	n.target = n.label = "native";
	n.design.clear();
	EXPECT_TRUE(to_json(n)["design"].is_null());
	const std::string t = format_replay_table({r, n});
	EXPECT_NE(t.find("slub"), std::string::npos) << t;
	EXPECT_NE(t.find("time-weighted pages"), std::string::npos) << t;
	// a recorded cache's pages where the target has a cache of its own, "-" elsewhere
	EXPECT_NE(t.find("1/2"), std::string::npos) << t;
	EXPECT_NE(t.find("-/2"), std::string::npos) << t;
	const Json c = replay_compare_json("f.trace", {r, n});
	EXPECT_EQ(c["targets"], Json({"slub", "native"}));
}
