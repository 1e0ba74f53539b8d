// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: the exceptions every operation may throw.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace slabctl {

/**
 * An operation failed.
 *
 * `err` is a positive errno (from the kernel's netlink error, or chosen by libslabctl for
 * failures on the host side), `op` names what failed ("CACHE_NEW", "GETFAMILY", …) and
 * `extack` is the kernel's extended-ack message, empty when the kernel sent none.
 * what() is a complete sentence for people: "CACHE_NEW: File exists: cache t64 exists".
 */
class Error : public std::runtime_error {
public:
	Error(int err, std::string op, std::string extack = {});
	/// With a message of its own instead of the one built from err/op/extack.
	Error(int err, std::string op, std::string extack, const std::string& message);

	/// The default message: "<op>: <strerror(err)>[: <extack>]"; for EPERM/EACCES without an
	/// extack (GENL_ADMIN_PERM's refusal) ": this command needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)".
	static std::string describe(int err, std::string_view op, std::string_view extack);

	bool permission_denied() const noexcept;

	int err;		///< positive errno
	std::string op;		///< the operation, e.g. "CACHE_NEW"
	std::string extack;	///< the kernel's extended-ack message, if any
};

/**
 * The generic netlink family "slablab" does not exist: the kernel module is not loaded.
 * err is ENOENT and op is "GETFAMILY".
 */
class ModuleNotLoaded : public Error {
public:
	ModuleNotLoaded();
	static const char* const kMessage;
};

/**
 * A request was refused on the host side before anything was sent to the kernel: a bad
 * cache name, an out-of-range tunable, an unknown KEY in KEY=VALUE… err is EINVAL (ERANGE
 * for numbers out of range). The CLI turns it into exit status 2 (bad usage).
 */
class UsageError : public Error {
public:
	explicit UsageError(const std::string& message, int err = 22 /* EINVAL */,
			    std::string op = {});
};

}  // namespace slabctl
