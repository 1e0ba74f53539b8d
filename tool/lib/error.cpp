// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/error.hpp"

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace slabctl {

std::string Error::describe(int err, std::string_view op, std::string_view extack)
{
	std::string msg;
	if (!op.empty()) {
		msg.append(op);
		msg.append(": ");
	}
	msg.append(err > 0 ? std::generic_category().message(err) : std::string("failed"));
	if (!extack.empty()) {
		msg.append(": ");
		msg.append(extack);
	}
	// A bare EPERM/EACCES is genetlink's GENL_ADMIN_PERM refusing a caller without
	// CAP_NET_ADMIN; with an extack the module said why itself (no CAP_SYS_ADMIN, a cache
	// owned by someone else).
	if ((err == EPERM || err == EACCES) && extack.empty())
		msg.append(": this command needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)");
	return msg;
}

Error::Error(int err_, std::string op_, std::string extack_)
	: std::runtime_error(describe(err_, op_, extack_)), err(err_), op(std::move(op_)),
	  extack(std::move(extack_))
{
}

Error::Error(int err_, std::string op_, std::string extack_, const std::string& message)
	: std::runtime_error(message), err(err_), op(std::move(op_)), extack(std::move(extack_))
{
}

bool Error::permission_denied() const noexcept
{
	return err == EPERM || err == EACCES;
}

const char* const ModuleNotLoaded::kMessage =
	"generic netlink family \"slablab\" not found: the slablab kernel module is not "
	"loaded; load it with 'insmod module/slablab.ko' (or 'modprobe slablab')";

ModuleNotLoaded::ModuleNotLoaded() : Error(ENOENT, "GETFAMILY", {}, kMessage) {}

UsageError::UsageError(const std::string& message, int err_, std::string op_)
	: Error(err_, std::move(op_), {}, message)
{
}

}  // namespace slabctl
