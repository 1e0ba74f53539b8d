// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/names.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

using namespace slabctl;

TEST(Names, StatTableCoversTheEnum)
{
	const auto& names = stat_names();
	ASSERT_EQ(names.size(), static_cast<std::size_t>(__SLABLAB_STAT_MAX));
	EXPECT_EQ(names[SLABLAB_ALLOC_FASTPATH], "alloc_fastpath");
	EXPECT_EQ(names[SLABLAB_FREE_FROZEN], "free_frozen");
	EXPECT_EQ(names[SLABLAB_CPUSLAB_FLUSH], "cpuslab_flush");
	EXPECT_EQ(names[SLABLAB_DEACTIVATE_REMOTE_FREES], "deactivate_remote_frees");
	EXPECT_EQ(names[SLABLAB_CMPXCHG_DOUBLE_CPU_FAIL], "cmpxchg_double_cpu_fail");
	EXPECT_EQ(names[SLABLAB_CMPXCHG_DOUBLE_FAIL], "cmpxchg_double_fail");
	EXPECT_EQ(names[SLABLAB_CPU_PARTIAL_DRAIN], "cpu_partial_drain");
	std::set<std::string> seen;
	for (auto n : names) {
		ASSERT_FALSE(n.empty());
		for (char c : n)
			EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '_') << n;
		EXPECT_TRUE(seen.insert(std::string(n)).second) << "duplicate " << n;
	}
}

TEST(Names, StatRoundTrip)
{
	for (std::size_t i = 0; i < kNrStats; i++)
		EXPECT_EQ(stat_from_name(stat_name(i)), i);
	EXPECT_FALSE(stat_from_name("no_such_stat"));
	EXPECT_EQ(stat_name(kNrStats), "");
}

TEST(Names, Enums)
{
	EXPECT_EQ(fastpath_name(SLABLAB_FASTPATH_CMPXCHG), "cmpxchg");
	EXPECT_EQ(fastpath_name(SLABLAB_FASTPATH_IRQOFF), "irqoff");
	EXPECT_EQ(fastpath_name(7), "unknown(7)");
	EXPECT_EQ(fastpath_from_name("irqoff"), SLABLAB_FASTPATH_IRQOFF);
	EXPECT_FALSE(fastpath_from_name("IRQOFF"));
	EXPECT_EQ(page_policy_name(SLABLAB_PAGE_POLICY_SLAB), "slab");
	EXPECT_EQ(page_policy_name(SLABLAB_PAGE_POLICY_PAGE_ALLOC), "page_alloc");
	EXPECT_EQ(page_policy_from_name("page_alloc"), SLABLAB_PAGE_POLICY_PAGE_ALLOC);
	EXPECT_EQ(owner_name(SLABLAB_OWNER_NETLINK), "netlink");
	EXPECT_EQ(owner_name(SLABLAB_OWNER_KERNEL), "kernel");
	EXPECT_EQ(owner_name(SLABLAB_OWNER_KMALLOC), "kmalloc");
	EXPECT_EQ(owner_name(9), "unknown(9)");
	EXPECT_EQ(command_name(SLABLAB_CMD_CACHE_NEW), "CACHE_NEW");
	EXPECT_EQ(command_name(12), "CMD_12");	// reserved: SELFTEST_WARN left netlink
	EXPECT_EQ(command_name(200), "CMD_200");
}

TEST(Names, Flags)
{
	EXPECT_TRUE(cache_flag_names(0).empty());
	EXPECT_EQ(join(cache_flag_names(SLABLAB_CACHE_F_DEBUG | SLABLAB_CACHE_F_RANDOM)),
		  "debug,random");
	EXPECT_EQ(join(cache_flag_names(__SLABLAB_CACHE_F_ALL)),
		  "debug,hardened,random,hwcache_align,typesafe_by_rcu");
	EXPECT_EQ(join(cache_flag_names(SLABLAB_CACHE_F_HARDENED | 0x100)), "hardened,0x100");
	EXPECT_EQ(cache_flag_from_name("hwcache_align"), SLABLAB_CACHE_F_HWCACHE_ALIGN);
	EXPECT_FALSE(cache_flag_from_name("poison"));
}

TEST(Names, Features)
{
	EXPECT_EQ(join(feature_names(SLABLAB_FEAT_INIT_ON_ALLOC | SLABLAB_FEAT_CMPXCHG_DOUBLE)),
		  "init_on_alloc,cmpxchg_double");
	EXPECT_EQ(feature_names(__SLABLAB_FEAT_ALL).size(), feature_table().size());
	EXPECT_EQ(join(feature_names(1u << 20)), "0x100000");
}
