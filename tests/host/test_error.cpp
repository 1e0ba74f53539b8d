// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/error.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

using namespace slabctl;

TEST(Error, CarriesErrnoOpAndExtack)
{
	Error e(EEXIST, "CACHE_NEW", "slablab: a cache named t64 exists");
	EXPECT_EQ(e.err, EEXIST);
	EXPECT_EQ(e.op, "CACHE_NEW");
	EXPECT_EQ(e.extack, "slablab: a cache named t64 exists");
	EXPECT_STREQ(e.what(), "CACHE_NEW: File exists: slablab: a cache named t64 exists");
	EXPECT_FALSE(e.permission_denied());
}

TEST(Error, WithoutExtack)
{
	Error e(EBUSY, "CACHE_DEL");
	EXPECT_STREQ(e.what(), "CACHE_DEL: Device or resource busy");
}

TEST(Error, PermissionMessagesSayRootIsNeeded)
{
	for (int err : {EPERM, EACCES}) {
		Error e(err, "CACHE_NEW");
		std::string msg = e.what();
		EXPECT_TRUE(e.permission_denied());
		EXPECT_NE(msg.find("root"), std::string::npos) << msg;
		EXPECT_NE(msg.find("CAP_SYS_ADMIN"), std::string::npos) << msg;
		EXPECT_EQ(msg.rfind("CACHE_NEW: ", 0), 0u) << msg;
	}
	// with the module's own reason, that reason is the message
	Error owned(EPERM, "CACHE_DEL", "slablab: cache kmalloc-64 is owned by kmalloc");
	EXPECT_TRUE(owned.permission_denied());
	EXPECT_STREQ(owned.what(),
		     "CACHE_DEL: Operation not permitted: slablab: cache kmalloc-64 is owned by kmalloc");
}

TEST(Error, ModuleNotLoaded)
{
	ModuleNotLoaded e;
	const Error& base = e;
	EXPECT_EQ(base.err, ENOENT);
	EXPECT_EQ(base.op, "GETFAMILY");
	std::string msg = e.what();
	EXPECT_NE(msg.find("generic netlink family \"slablab\" not found"), std::string::npos);
	EXPECT_NE(msg.find("not loaded"), std::string::npos);
	EXPECT_NE(msg.find("insmod module/slablab.ko"), std::string::npos);
	EXPECT_NE(msg.find("modprobe slablab"), std::string::npos);
}

TEST(Error, UsageError)
{
	UsageError e("order 9 is out of range (0..4)", ERANGE);
	EXPECT_EQ(e.err, ERANGE);
	EXPECT_STREQ(e.what(), "order 9 is out of range (0..4)");
	UsageError d("bad");
	EXPECT_EQ(d.err, EINVAL);
}
