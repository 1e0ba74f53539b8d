// SPDX-License-Identifier: GPL-2.0 OR MIT
// The recorder's spool (tool/lib/event_spool.hpp, internal): what goes in comes back as
// the same RawEvents, in order, across many flushes; the file has no name while it is
// used; a directory that cannot take it and a write that fails (RLIMIT_FSIZE: EFBIG, a
// full disk without root) are errors naming the spool and the errno.
#include "event_spool.hpp"
#include "kmem_event.hpp"
#include "slabctl/error.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace slabctl;

namespace {

/// A fresh directory of the test's own, removed (with what is in it) at the end.
class TempDir {
public:
	TempDir()
	{
		std::string t = ::testing::TempDir() + "slabctl-spool-XXXXXX";
		if (!::mkdtemp(t.data()))
			throw std::runtime_error("mkdtemp");
		path_ = t;
	}
	~TempDir()
	{
		for (const auto& n : entries())
			::unlink((path_ + "/" + n).c_str());
		::rmdir(path_.c_str());
	}
	TempDir(const TempDir&) = delete;
	TempDir& operator=(const TempDir&) = delete;
	const std::string& path() const { return path_; }
	std::vector<std::string> entries() const
	{
		std::vector<std::string> out;
		if (DIR* d = ::opendir(path_.c_str())) {
			while (const dirent* e = ::readdir(d))
				if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
					out.emplace_back(e->d_name);
			::closedir(d);
		}
		return out;
	}

private:
	std::string path_;
};

bool same(const RawEvent& a, const RawEvent& b)
{
	return a.ts_ns == b.ts_ns && a.ptr == b.ptr && a.bytes_req == b.bytes_req &&
	       a.bytes_alloc == b.bytes_alloc && a.gfp == b.gfp && a.cpu == b.cpu &&
	       a.kmalloc == b.kmalloc && a.op == b.op && a.cache == b.cache;
}

}  // namespace

TEST(EventSpool, RoundTripKeepsEveryEventInOrder)
{
	TempDir dir;
	EventSpool spool(dir.path() + "/out.trace");
	// unlinked from the start: nothing in the output's directory to leave behind
	EXPECT_TRUE(dir.entries().empty());
	EXPECT_NE(spool.path().find(dir.path() + "/out.trace.spool."), std::string::npos);
	// names longer than a byte can count, not NUL-terminated (the tracepoint's field)
	const std::string names = "dentry" + std::string(300, 'x') + "kmalloc-rcl-8k";
	std::vector<RawEvent> want;
	for (uint32_t i = 0; i < 20000; i++) {	// megabytes: many flushes of the buffer
		kmem_trace_event k{};
		k.ts_ns = 1'000'000'000'000ULL + i * 7;
		k.ptr = 0xffff888000000000ULL + i * 64;
		k.bytes_req = i;
		k.bytes_alloc = i * 2;
		k.gfp = 0xcc0 + i;
		k.cpu = static_cast<uint16_t>(i % 300);
		k.free = i % 2;
		k.kmalloc = i % 3 == 0;
		if (i % 5 == 1) {
			k.cache = names.data() + (i % 7);
			k.cache_len = 6 + (i % 307);
		}
		ASSERT_TRUE(spool.append(k));
		want.push_back(raw_event(k));
	}
	EXPECT_EQ(spool.events(), want.size());
	const std::vector<RawEvent> got = spool.read_all();
	ASSERT_EQ(got.size(), want.size());
	for (size_t i = 0; i < got.size(); i++)
		ASSERT_TRUE(same(got[i], want[i])) << "event " << i;
	EXPECT_EQ(got[1].cache, names.substr(1, 7));
	EXPECT_TRUE(dir.entries().empty());
}

TEST(EventSpool, EmptyReadsBackEmpty)
{
	TempDir dir;
	EventSpool spool(dir.path() + "/out.trace");
	EXPECT_TRUE(spool.read_all().empty());
}

TEST(EventSpool, DirectoryThatCannotTakeItNamesPathAndErrno)
{
	TempDir dir;
	const std::string out = dir.path() + "/missing/out.trace";
	try {
		EventSpool spool(out);
		FAIL() << "made a spool in a missing directory";
	} catch (const Error& e) {
		EXPECT_EQ(e.err, ENOENT);
		EXPECT_EQ(e.op, "RECORD");
		const std::string what = e.what();
		EXPECT_NE(what.find("cannot create the spool " + out + ".spool.XXXXXX"),
			  std::string::npos)
			<< what;
		EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
	}
}

TEST(EventSpool, FailedWriteIsKeptAndNamed)
{
	TempDir dir;
	EventSpool spool(dir.path() + "/out.trace");
	// a file size limit stands in for a full disk: write() fails with EFBIG (SIGXFSZ
	// ignored), put back at the end whatever happens
	struct Limit {
		rlimit old{};
		void (*old_handler)(int) = SIG_DFL;
		Limit()
		{
			::getrlimit(RLIMIT_FSIZE, &old);
			old_handler = std::signal(SIGXFSZ, SIG_IGN);
			rlimit small = old;
			small.rlim_cur = 64 * 1024;
			::setrlimit(RLIMIT_FSIZE, &small);
		}
		~Limit()
		{
			::setrlimit(RLIMIT_FSIZE, &old);
			std::signal(SIGXFSZ, old_handler);
		}
	} limit;
	kmem_trace_event k{};
	k.ptr = 0x1000;
	bool failed = false;
	for (int i = 0; i < 100000 && !failed; i++)	// 3.3 MB: past the limit
		failed = !spool.append(k);
	EXPECT_TRUE(failed);
	EXPECT_EQ(spool.error(), EFBIG);
	EXPECT_FALSE(spool.append(k));	// and stays failed
	try {
		spool.read_all();
		FAIL() << "read back a spool whose write failed";
	} catch (const Error& e) {
		EXPECT_EQ(e.err, EFBIG);
		const std::string what = e.what();
		EXPECT_NE(what.find("cannot write the spool " + spool.path()), std::string::npos)
			<< what;
	}
}
