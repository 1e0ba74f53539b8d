// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl (internal): the recorder's events on disk as they are read (record_trace()
// streams the ring buffers into it while the command runs), read back once to build the
// trace. Compact records in a file of its own beside the output, unlinked as soon as it
// is made: nothing is left behind, however the recording ends.
#pragma once

#include "kmem_trace.h"
#include "slabctl/trace.hpp"
#include "unique_fd.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace slabctl {

class EventSpool {
public:
	/// An unlinked file in `output`'s directory (OUTPUT.spool.XXXXXX while it had a name);
	/// throws Error (errno) naming it when it cannot be made.
	explicit EventSpool(const std::string& output, size_t buffer_bytes = 1 << 20);
	EventSpool(const EventSpool&) = delete;
	EventSpool& operator=(const EventSpool&) = delete;

	/// One event, buffered; false once a write failed (error() says why, and every later
	/// append fails too). noexcept: called from the C reader's callback.
	bool append(const kmem_trace_event& e) noexcept;
	/// The errno of the first failed write, 0 if none.
	int error() const noexcept { return error_; }
	/// What the spool's errors name: its path when it was made.
	const std::string& path() const noexcept { return path_; }
	uint64_t events() const noexcept { return events_; }
	/// Every event appended, in order. Throws Error (errno, the path) when a write failed
	/// or the file does not read back whole.
	std::vector<RawEvent> read_all();

private:
	bool flush() noexcept;

	std::string path_;
	Fd fd_;
	int error_ = 0;
	uint64_t events_ = 0;
	std::vector<unsigned char> buf_;
};

}  // namespace slabctl
