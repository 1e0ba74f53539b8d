// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/error.hpp"
#include "slabctl/parse.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

using namespace slabctl;

TEST(Parse, Uint)
{
	EXPECT_EQ(parse_uint("0"), 0u);
	EXPECT_EQ(parse_uint("4096"), 4096u);
	EXPECT_EQ(parse_uint("0x10"), 16u);
	EXPECT_EQ(parse_uint("18446744073709551615"), UINT64_MAX);
	EXPECT_FALSE(parse_uint(""));
	EXPECT_FALSE(parse_uint("0x"));
	EXPECT_FALSE(parse_uint("-1"));
	EXPECT_FALSE(parse_uint("12a"));
	EXPECT_FALSE(parse_uint(" 1"));
	EXPECT_FALSE(parse_uint("18446744073709551616"));
}

TEST(Parse, Size)
{
	EXPECT_EQ(parse_size("64"), 64u);
	EXPECT_EQ(parse_size("4K"), 4096u);
	EXPECT_EQ(parse_size("4k"), 4096u);
	EXPECT_EQ(parse_size("4KiB"), 4096u);
	EXPECT_EQ(parse_size("1M"), 1048576u);
	EXPECT_EQ(parse_size("2G"), 2ull << 30);
	EXPECT_EQ(parse_size("0x40"), 64u);
	EXPECT_THROW(parse_size("4X"), UsageError);
	EXPECT_THROW(parse_size("K"), UsageError);
	EXPECT_THROW(parse_size(""), UsageError);
	EXPECT_THROW(parse_size("-4"), UsageError);
	EXPECT_THROW(parse_size("99999999999999999999G"), UsageError);
	try {
		parse_size("12q", "--size");
		FAIL();
	} catch (const UsageError& e) {
		EXPECT_NE(std::string(e.what()).find("--size"), std::string::npos);
		EXPECT_NE(std::string(e.what()).find("12q"), std::string::npos);
	}
}

TEST(Parse, Bool)
{
	for (auto t : {"1", "true", "TRUE", "yes", "on"})
		EXPECT_EQ(parse_bool(t), true) << t;
	for (auto f : {"0", "false", "no", "Off"})
		EXPECT_EQ(parse_bool(f), false) << f;
	EXPECT_FALSE(parse_bool("2"));
	EXPECT_FALSE(parse_bool(""));
}

TEST(Parse, CacheName)
{
	EXPECT_NO_THROW(validate_cache_name("t64"));
	EXPECT_NO_THROW(validate_cache_name("kmalloc-4k"));
	EXPECT_NO_THROW(validate_cache_name("a.b:c_d-e"));
	EXPECT_NO_THROW(validate_cache_name(std::string(SLABLAB_NAME_MAX - 1, 'x')));
	EXPECT_THROW(validate_cache_name(""), UsageError);
	EXPECT_THROW(validate_cache_name(std::string(SLABLAB_NAME_MAX, 'x')), UsageError);
	EXPECT_THROW(validate_cache_name("has space"), UsageError);
	EXPECT_THROW(validate_cache_name("slash/"), UsageError);
	EXPECT_THROW(validate_cache_name("ümlaut"), UsageError);
}

TEST(Parse, Spec)
{
	CacheSpec s;
	s.name = "t64";
	s.size = 64;
	EXPECT_NO_THROW(validate_spec(s));
	s.name = "bad name";
	EXPECT_THROW(validate_spec(s), UsageError);
	// Sizes, alignments and tunables out of the kernel's ranges pass: the kernel's
	// policy and handlers judge them (the error carries the policy, error.cpp).
	s.name = "t64";
	s.size = SLABLAB_MAX_SIZE + 1;
	s.align = 24;
	s.order = SLABLAB_MAX_ORDER + 1;
	s.flags = 0x100;
	EXPECT_NO_THROW(validate_spec(s));
}

TEST(Parse, Count)
{
	EXPECT_THROW(validate_count(0), UsageError);
	EXPECT_NO_THROW(validate_count(1));
	EXPECT_NO_THROW(validate_count(SLABLAB_MAX_HANDLE_OBJECTS));
	EXPECT_THROW(validate_count(SLABLAB_MAX_HANDLE_OBJECTS + 1), UsageError);
	EXPECT_NO_THROW(validate_page_policy(SLABLAB_PAGE_POLICY_PAGE_ALLOC));
	EXPECT_THROW(validate_page_policy(__SLABLAB_PAGE_POLICY_MAX), UsageError);
}

TEST(Parse, Assignments)
{
	Tunables t = parse_assignments({"cpu_partial=30", "min_partial=5", "order=1",
					"fastpath=irqoff", "debug=1", "random=0"});
	EXPECT_EQ(t.cpu_partial, 30u);
	EXPECT_EQ(t.min_partial, 5u);
	EXPECT_EQ(t.order, 1u);
	EXPECT_EQ(t.fastpath, SLABLAB_FASTPATH_IRQOFF);
	EXPECT_FALSE(t.flags);
	EXPECT_EQ(t.flags_set, SLABLAB_CACHE_F_DEBUG);
	EXPECT_EQ(t.flags_clear, SLABLAB_CACHE_F_RANDOM);
	EXPECT_TRUE(t.relative_flags());
	EXPECT_FALSE(t.empty());

	Tunables f = parse_assignments({"flags=debug,hardened"});
	EXPECT_EQ(f.flags, SLABLAB_CACHE_F_DEBUG | SLABLAB_CACHE_F_HARDENED);
	EXPECT_EQ(parse_assignments({"flags=none"}).flags, 0u);
	EXPECT_EQ(parse_assignments({"flags=0x8"}).flags, SLABLAB_CACHE_F_HWCACHE_ALIGN);
	// dashes are accepted for underscores, keys are case-insensitive
	EXPECT_EQ(parse_assignments({"CPU-PARTIAL=0"}).cpu_partial, 0u);
	EXPECT_EQ(parse_assignments({"hwcache-align=yes"}).flags_set, SLABLAB_CACHE_F_HWCACHE_ALIGN);
}

TEST(Parse, AssignmentErrors)
{
	auto fails = [](std::vector<std::string> a, const char* needle) {
		try {
			parse_assignments(a);
			ADD_FAILURE() << "no error; expected one with: " << needle;
		} catch (const UsageError& e) {
			EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
				<< e.what() << " lacks " << needle;
		}
	};
	fails({}, "nothing to set");
	fails({"order"}, "KEY=VALUE");
	fails({"=3"}, "KEY=VALUE");
	fails({"order="}, "no value");
	fails({"colour=blue"}, "unknown key 'colour'");
	fails({"colour=blue"}, "cpu_partial");	// lists the keys
	fails({"order=x"}, "not a number");
	fails({"order=1", "order=2"}, "more than once");
	fails({"debug=1", "debug=0"}, "more than once");
	fails({"fastpath=turbo"}, "cmpxchg");
	fails({"debug=maybe"}, "not 0 or 1");
	fails({"flags=poison"}, "unknown cache flag 'poison'");
	fails({"cpu_partial=99999999999"}, "out of range");	// not a u32 at all
	// within a u32 the kernel's policy judges: no host-side copy of its ranges
	EXPECT_EQ(parse_assignments({"min_partial=5000"}).min_partial, 5000u);
	EXPECT_EQ(parse_assignments({"order=9"}).order, 9u);
	EXPECT_EQ(parse_assignments({"fastpath=7"}).fastpath, 7u);
}

TEST(Parse, LabAssignments)
{
	LabSettings s = parse_lab_assignments(
		{"kmalloc_design=sheaves", "kmalloc-lists=2", "KMALLOC_PAGE_POLICY=page_alloc"});
	EXPECT_EQ(s.kmalloc_design, SLABLAB_DESIGN_SHEAVES);
	EXPECT_EQ(s.kmalloc_lists, 2u);
	EXPECT_EQ(s.kmalloc_page_policy, SLABLAB_PAGE_POLICY_PAGE_ALLOC);
	LabSettings one = parse_lab_assignments({"kmalloc_design=SLOB"});
	EXPECT_EQ(one.kmalloc_design, SLABLAB_DESIGN_SLOB);
	EXPECT_FALSE(one.kmalloc_lists || one.kmalloc_page_policy);	// not sent
	// the range of lists is the client's check (and the kernel's), not the parser's
	EXPECT_EQ(parse_lab_assignments({"kmalloc_lists=9"}).kmalloc_lists, 9u);
}

TEST(Parse, LabAssignmentErrors)
{
	auto fails = [](std::vector<std::string> a, const char* needle) {
		try {
			parse_lab_assignments(a);
			ADD_FAILURE() << "no error; expected one with: " << needle;
		} catch (const UsageError& e) {
			EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
				<< e.what() << " lacks " << needle;
		}
	};
	fails({}, "nothing to set");
	fails({"kmalloc_design"}, "KEY=VALUE");
	fails({"=slob"}, "KEY=VALUE");
	fails({"kmalloc_design="}, "no value");
	fails({"design=slob"}, "unknown key 'design' (keys: kmalloc_design, kmalloc_lists, "
			       "kmalloc_page_policy)");
	fails({"kmalloc_design=zigzag"}, "'zigzag' is not one of slub, sheaves, slab, slob");
	fails({"kmalloc_page_policy=turbo"}, "'turbo' is not one of slab, page_alloc");
	fails({"kmalloc_lists=two"}, "'two' is not a number");
	fails({"kmalloc_lists=1", "kmalloc-lists=2"}, "kmalloc_lists is given more than once");
	EXPECT_EQ(lab_keys().size(), 3u);
}

TEST(Parse, NameMatches)
{
	EXPECT_TRUE(name_matches("t64", "t64"));
	EXPECT_FALSE(name_matches("t64", "t640"));
	EXPECT_TRUE(name_matches("t*", "t640"));
	EXPECT_TRUE(name_matches("kmalloc-?k", "kmalloc-4k"));
	EXPECT_FALSE(name_matches("kmalloc-?k", "kmalloc-16k"));
	EXPECT_TRUE(name_matches("*", "anything"));
}
