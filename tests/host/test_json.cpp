// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "sample.hpp"
#include "slabctl/format.hpp"
#include "slabctl/json.hpp"
#include "slabctl/names.hpp"

#include <gtest/gtest.h>

#include <cerrno>

using namespace slabctl;
using slabctl::test::sample_cache;

TEST(Json, Envelope)
{
	Json j = json_envelope("info");
	EXPECT_EQ(j["schema"], "slablab/1");
	EXPECT_EQ(j["command"], "info");
	EXPECT_EQ(j.dump(), R"({"schema":"slablab/1","command":"info"})");
}

TEST(Json, Cache)
{
	Json j = to_json(sample_cache());
	EXPECT_EQ(j["name"], "t64");
	EXPECT_TRUE(j["size"].is_number_unsigned());
	EXPECT_EQ(j["size"], 64);
	EXPECT_EQ(j["flags"], Json::array({"debug", "hwcache_align"}));
	EXPECT_EQ(j["flags_value"], SLABLAB_CACHE_F_DEBUG | SLABLAB_CACHE_F_HWCACHE_ALIGN);
	EXPECT_EQ(j["fastpath"], "cmpxchg");
	EXPECT_EQ(j["owner"], "netlink");
	for (auto k : {"align", "cpu_partial", "min_partial", "order", "obj_stride", "objs_per_slab",
		       "order_default"})
		EXPECT_TRUE(j[k].is_number_unsigned()) << k;
	for (auto g : {"objects", "total_objects", "slabs", "partial_slabs", "cpu_slabs",
		       "cpu_partial_slabs", "pages", "live_bytes", "meta_bytes"})
		EXPECT_TRUE(j["gauges"][g].is_number_unsigned()) << g;
	EXPECT_EQ(j["gauges"]["objects"], 100);
	ASSERT_TRUE(j["stats"].is_object());
	EXPECT_EQ(j["stats"].size(), kNrStats);
	for (auto n : stat_names())
		EXPECT_TRUE(j["stats"][std::string(n)].is_number_unsigned()) << n;
	EXPECT_EQ(j["stats"]["alloc_fastpath"], 90);
	ASSERT_EQ(j["percpu"].size(), 2u);
	EXPECT_EQ(j["percpu"][1]["cpu"], 1);
	EXPECT_EQ(j["percpu"][1]["cpu_slab_objects"], 11);
	EXPECT_EQ(j["percpu"][1]["stats"]["free_fastpath"], 15);
	EXPECT_FALSE(j.contains("slabs_freed"));
}

TEST(Json, OptionalParts)
{
	CacheInfo c = sample_cache();
	c.has_percpu = false;
	c.has_stats = false;
	c.slabs_freed = 3;
	Json j = to_json(c);
	EXPECT_FALSE(j.contains("percpu"));
	EXPECT_FALSE(j.contains("stats"));
	EXPECT_EQ(j["slabs_freed"], 3);
}

TEST(Json, LayersOnlyThoseTheDesignHas)
{
	CacheInfo c = sample_cache();
	EXPECT_FALSE(to_json(c).contains("layers"));
	EXPECT_EQ(to_json(c)["design"], "slub");
	c.has_layers = true;
	c.layers.total = 100;
	c.layers.callers = 60;
	c.layers.cpu_slab = 10;
	c.layers.slabs_free = 30;
	Json l = to_json(c)["layers"];
	EXPECT_EQ(l, Json({{"total", 100}, {"callers", 60}, {"cpu_slab", 10}, {"slabs_free", 30}}));
	std::string r = render_report(c, 4096);
	auto at = r.find("Objects per layer");
	ASSERT_NE(at, std::string::npos);
	EXPECT_NE(r.find("cpu_slab", at), std::string::npos);
	EXPECT_NE(r.find("slabs_free", at), std::string::npos);
}

TEST(Json, OccupancyHistogram)
{
	CacheInfo c = sample_cache();
	EXPECT_FALSE(to_json(c).contains("occupancy"));
	EXPECT_EQ(render_report(c, 4096).find("Slab occupancy"), std::string::npos);
	c.has_occupancy = true;
	c.occupancy = {{0, 0, 2}, {1, 2, 0}, {3, 4, 5}, {5, 63, 1}, {64, 64, 10}};
	Json h = to_json(c)["occupancy"];
	ASSERT_EQ(h.size(), 5u);
	EXPECT_EQ(h[2], Json({{"lo", 3}, {"hi", 4}, {"slabs", 5}}));
	std::string r = render_report(c, 4096);
	auto at = r.find("Slab occupancy (objects in use per slab: slabs; 18 slabs, bucketed)");
	ASSERT_NE(at, std::string::npos);
	EXPECT_NE(r.find("0 (empty)", at), std::string::npos);
	EXPECT_NE(r.find("64 (full)", at), std::string::npos);
	EXPECT_NE(r.find(std::string(40, '#'), at), std::string::npos);	// the fullest bucket
	EXPECT_EQ(r.find("1-2 ", at), std::string::npos);	// buckets without slabs: no line
}

TEST(Json, BigNumbersStayExact)
{
	CacheInfo c = sample_cache();
	c.stats[SLABLAB_ALLOC_FASTPATH] = 18446744073709551615ULL;
	EXPECT_NE(to_json(c).dump().find("18446744073709551615"), std::string::npos);
}

TEST(Json, StatusValidateHandle)
{
	Status s;
	s.version = "0.1.0";
	s.api_version = 1;
	s.features = SLABLAB_FEAT_SELFTEST;
	Json j = to_json(s);
	EXPECT_EQ(j["version"], "0.1.0");
	EXPECT_EQ(j["features"], Json::array({"selftest"}));
	EXPECT_EQ(j["features_value"], SLABLAB_FEAT_SELFTEST);
	EXPECT_EQ(j["kmalloc_page_policy"], "slab");
	for (auto k : {"api_version", "nr_cpu_ids", "nr_online_cpus", "nr_nodes", "page_size",
		       "nr_caches"})
		EXPECT_TRUE(j[k].is_number_unsigned()) << k;
	EXPECT_EQ(j["kernel_release"], "");
	// lab show -j: status's three keys of the module-wide settings
	Json lab = lab_to_json(s);
	EXPECT_EQ(lab.dump(),
		  R"({"kmalloc_page_policy":"slab","kmalloc_design":"slub","kmalloc_lists":0})");
	for (const auto& [key, value] : lab.items())
		EXPECT_EQ(j[key], value) << key;

	ValidateReport v;
	v.cache = "t64";
	Json jv = to_json(v);
	EXPECT_EQ(jv["ok"], true);
	EXPECT_TRUE(jv["first_error"].is_null());
	v.errors = 1;
	v.first_error = "bad";
	jv = to_json(v);
	EXPECT_EQ(jv["ok"], false);
	EXPECT_EQ(jv["first_error"], "bad");

	Handle h{7, 100};
	EXPECT_EQ(to_json(h).dump(), R"({"handle":7,"count":100})");
}

// The error object of slabctl -j (tool/schemas/slablab.schema.json's ErrorInfo): errno
// with its name, the sentence of the text mode, and null for what the failure lacks.
TEST(Json, Errors)
{
	Json j = to_json(Error(EEXIST, "CACHE_NEW", "slablab: cache t64 already exists"));
	EXPECT_EQ(j.dump(), R"({"errno":17,"name":"EEXIST","message":"CACHE_NEW: File exists: )"
			    R"(slablab: cache t64 already exists","extack":"slablab: cache t64 )"
			    R"(already exists","op":"CACHE_NEW"})");
	j = to_json(ModuleNotLoaded());
	EXPECT_EQ(j["errno"], ENOENT);
	EXPECT_EQ(j["name"], "ENOENT");
	EXPECT_EQ(j["op"], "GETFAMILY");
	EXPECT_TRUE(j["extack"].is_null());
	EXPECT_EQ(j["message"], ModuleNotLoaded::kMessage);
	j = to_json(UsageError("bad"));
	EXPECT_EQ(j["name"], "EINVAL");
	EXPECT_TRUE(j["op"].is_null());
	// no system error, or a number without a name
	j = error_json(0, "the command exited with status 1");
	EXPECT_EQ(j["errno"], 0);
	EXPECT_TRUE(j["name"].is_null());
	EXPECT_EQ(errno_name(EPERM), "EPERM");
	EXPECT_EQ(errno_name(100000), "");
	EXPECT_EQ(errno_name(-1), "");
}
