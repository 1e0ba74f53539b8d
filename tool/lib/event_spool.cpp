// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libslabctl: the recorder's spool (event_spool.hpp).
#include "event_spool.hpp"

#include "kmem_event.hpp"
#include "slabctl/error.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace slabctl {

namespace {

// A record: ts u64, ptr u64, bytes_req u32, bytes_alloc u32, gfp u32, cpu u16, flags u8,
// the cache name's length u16 (a tracepoint string's __data_loc length is 16 bits), then
// the name. The host's byte order: the file never outlives the process that wrote it.
constexpr size_t kHeader = 8 + 8 + 4 + 4 + 4 + 2 + 1 + 2;
constexpr uint8_t kFree = 1, kKmalloc = 2;

template <typename T>
void put(unsigned char*& p, T v)
{
	std::memcpy(p, &v, sizeof v);
	p += sizeof v;
}

template <typename T>
T get(const unsigned char*& p)
{
	T v;
	std::memcpy(&v, p, sizeof v);
	p += sizeof v;
	return v;
}

struct Unmap {
	size_t len;
	void operator()(void* p) const noexcept { ::munmap(p, len); }
};

Error spool_error(int err, const std::string& path, const char* doing)
{
	return Error(err, "RECORD", {},
		     fmt::format("cannot {} the spool {}: {}", doing, path, std::strerror(err)));
}

}  // namespace

EventSpool::EventSpool(const std::string& output, size_t buffer_bytes)
{
	const std::string pattern = output + ".spool.XXXXXX";
	std::string name = pattern;
	fd_ = Fd(::mkostemp(name.data(), O_CLOEXEC));
	if (!fd_)	// the pattern: mkostemp() fills it in even when it fails
		throw spool_error(errno, pattern, "create");
	path_ = name;
	// unlinked at once: the open fd keeps the data, and no way out of the recorder (an
	// exception, a signal) leaves the file behind
	if (::unlink(path_.c_str()) < 0)
		throw spool_error(errno, path_, "unlink");
	buf_.reserve(std::max<size_t>(buffer_bytes, kHeader + 0xffff));
}

bool EventSpool::flush() noexcept
{
	size_t done = 0;
	while (!error_ && done < buf_.size()) {
		const ssize_t n = ::write(fd_.get(), buf_.data() + done, buf_.size() - done);
		if (n > 0)
			done += static_cast<size_t>(n);
		else if (n == 0)
			error_ = EIO;
		else if (errno != EINTR)
			error_ = errno;
	}
	buf_.clear();
	return !error_;
}

bool EventSpool::append(const kmem_trace_event& e) noexcept
{
	if (error_)
		return false;
	const size_t name_len = std::min<size_t>(e.cache ? e.cache_len : 0, 0xffff);
	if (buf_.size() + kHeader + name_len > buf_.capacity() && !flush())
		return false;
	const size_t at = buf_.size();
	buf_.resize(at + kHeader + name_len);	// within capacity: no allocation
	unsigned char* p = buf_.data() + at;
	put<uint64_t>(p, e.ts_ns);
	put<uint64_t>(p, e.ptr);
	put<uint32_t>(p, e.bytes_req);
	put<uint32_t>(p, e.bytes_alloc);
	put<uint32_t>(p, e.gfp);
	put<uint16_t>(p, e.cpu);
	put<uint8_t>(p, static_cast<uint8_t>((e.free ? kFree : 0) | (e.kmalloc ? kKmalloc : 0)));
	put<uint16_t>(p, static_cast<uint16_t>(name_len));
	if (name_len)
		std::memcpy(p, e.cache, name_len);
	events_++;
	return true;
}

std::vector<RawEvent> EventSpool::read_all()
{
	if (!flush())
		throw spool_error(error_, path_, "write");
	const off_t size = ::lseek(fd_.get(), 0, SEEK_END);
	if (size < 0)
		throw spool_error(errno, path_, "read");
	std::vector<RawEvent> out;
	if (size == 0)
		return out;
	// mapped rather than read into a copy: the events' RawEvents are the one copy in memory
	void* map =
		::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd_.get(), 0);
	if (map == MAP_FAILED)
		throw spool_error(errno, path_, "map");
	const std::unique_ptr<void, Unmap> mapped(map, Unmap{static_cast<size_t>(size)});
	out.reserve(events_);
	const auto* p = static_cast<const unsigned char*>(map);
	const unsigned char* const end = p + size;
	while (p != end) {
		if (static_cast<size_t>(end - p) < kHeader)
			throw spool_error(EIO, path_, "read a whole record of");
		kmem_trace_event k{};
		k.ts_ns = get<uint64_t>(p);
		k.ptr = get<uint64_t>(p);
		k.bytes_req = get<uint32_t>(p);
		k.bytes_alloc = get<uint32_t>(p);
		k.gfp = get<uint32_t>(p);
		k.cpu = get<uint16_t>(p);
		const auto flags = get<uint8_t>(p);
		k.free = (flags & kFree) != 0;
		k.kmalloc = (flags & kKmalloc) != 0;
		k.cache_len = get<uint16_t>(p);
		if (static_cast<size_t>(end - p) < k.cache_len)
			throw spool_error(EIO, path_, "read a whole record of");
		k.cache = k.cache_len ? reinterpret_cast<const char*>(p) : nullptr;
		p += k.cache_len;
		out.push_back(raw_event(k));
	}
	if (out.size() != events_)
		throw spool_error(EIO, path_, "read every event back from");
	return out;
}

}  // namespace slabctl
