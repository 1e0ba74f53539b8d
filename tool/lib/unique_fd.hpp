// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl (internal): a file descriptor that closes itself.
#pragma once

#include <unistd.h>

#include <utility>

namespace slabctl {

/// A file descriptor, closed when it goes out of scope.
class Fd {
public:
	explicit Fd(int fd = -1) noexcept : fd_(fd) {}
	~Fd() { reset(); }
	Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
	Fd& operator=(Fd&& o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = std::exchange(o.fd_, -1);
		}
		return *this;
	}
	Fd(const Fd&) = delete;
	Fd& operator=(const Fd&) = delete;

	int get() const noexcept { return fd_; }
	explicit operator bool() const noexcept { return fd_ >= 0; }
	int release() noexcept { return std::exchange(fd_, -1); }
	void reset() noexcept
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = -1;
	}

private:
	int fd_;
};

}  // namespace slabctl
