// SPDX-License-Identifier: GPL-2.0 OR MIT
// The one Client test that runs on a build host: without the module, constructing a Client
// throws ModuleNotLoaded with the documented message. (With the module loaded, it checks
// GET_STATUS instead; the full protocol is tested in the VM.)
#include "slabctl/client.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace slabctl;

TEST(Client, ModuleNotLoadedOrStatus)
{
	try {
		Client client;
		Status s = client.status();
		EXPECT_FALSE(s.version.empty());
		EXPECT_EQ(s.api_version, static_cast<uint32_t>(SLABLAB_GENL_VERSION));
		EXPECT_GT(s.page_size, 0u);
	} catch (const ModuleNotLoaded& e) {
		std::string msg = e.what();
		EXPECT_NE(msg.find("generic netlink family \"slablab\" not found"), std::string::npos);
		EXPECT_NE(msg.find("insmod module/slablab.ko"), std::string::npos);
		EXPECT_EQ(e.err, ENOENT);
	} catch (const Error& e) {
		GTEST_SKIP() << "no generic netlink on this host: " << e.what();
	}
}
