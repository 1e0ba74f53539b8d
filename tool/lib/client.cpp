// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// libslabctl's netlink code: the only file that talks to libnl. Every libnl object is owned
// by a std::unique_ptr with the matching free function. libnl 3.7 knows nothing about
// extended acks, so the error and NLMSG_DONE callbacks parse NLMSGERR_ATTR_MSG themselves,
// and keep the kernel's raw errno (libnl would squash it into an NLE_* code).
#include "slabctl/client.hpp"

#include "slabctl/names.hpp"
#include "slabctl/parse.hpp"
#include "slabctl/protocol.hpp"
#include "slabctl/tunables.hpp"

#include <slablab/replay.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace slabctl {
namespace {

/// How long to wait for the kernel's answer to one request.
constexpr int kReplyTimeoutSec = 120;
/// How often a dump interrupted by a concurrent change (NLM_F_DUMP_INTR) is retried.
constexpr int kDumpRetries = 3;

struct SockDeleter {
	void operator()(nl_sock* s) const noexcept { nl_socket_free(s); }
};
struct MsgDeleter {
	void operator()(nl_msg* m) const noexcept { nlmsg_free(m); }
};
struct CbDeleter {
	void operator()(nl_cb* c) const noexcept { nl_cb_put(c); }
};
using SockPtr = std::unique_ptr<nl_sock, SockDeleter>;
using MsgPtr = std::unique_ptr<nl_msg, MsgDeleter>;
using CbPtr = std::unique_ptr<nl_cb, CbDeleter>;

/// libnl's NLE_* codes (positive) to the nearest errno.
int nle_to_errno(int nle)
{
	switch (nle) {
	case NLE_INTR: return EINTR;
	case NLE_BAD_SOCK: return EBADF;
	case NLE_AGAIN: return EAGAIN;
	case NLE_NOMEM: return ENOMEM;
	case NLE_EXIST: return EEXIST;
	case NLE_INVAL: return EINVAL;
	case NLE_RANGE: return ERANGE;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_NOATTR: return EINVAL;
	case NLE_MISSING_ATTR: return EINVAL;
	case NLE_AF_MISMATCH: return EINVAL;
	case NLE_SEQ_MISMATCH: return EPROTO;
	case NLE_MSG_OVERFLOW: return ENOBUFS;
	case NLE_MSG_TRUNC: return EMSGSIZE;
	case NLE_NOADDR: return EADDRNOTAVAIL;
	case NLE_SRCRT_NOSUPPORT: return EOPNOTSUPP;
	case NLE_MSG_TOOSHORT: return EPROTO;
	case NLE_MSGTYPE_NOSUPPORT: return EOPNOTSUPP;
	case NLE_OBJ_MISMATCH: return EINVAL;
	case NLE_NOCACHE: return ENOENT;
	case NLE_BUSY: return EBUSY;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_NOACCESS: return EACCES;
	case NLE_PERM: return EPERM;
	case NLE_PKTLOC_FILE: return ENOENT;
	case NLE_PARSE_ERR: return EINVAL;
	case NLE_NODEV: return ENODEV;
	case NLE_IMMUTABLE: return EPERM;
	case NLE_DUMP_INTR: return EINTR;
	case NLE_ATTRSIZE: return ERANGE;
	default: return EIO;
	}
}

[[noreturn]] void protocol_error(const std::string& op, const std::string& what)
{
	throw Error(EPROTO, op, {},
		    fmt::format("{}: malformed reply from the slablab module: {}", op, what));
}

std::string attr_string(const nlattr* a)
{
	const char* data = static_cast<const char*>(nla_data(a));
	int len = nla_len(a);
	if (len <= 0)
		return {};
	return std::string(data, strnlen(data, static_cast<std::size_t>(len)));
}

/// An unsigned attribute of any width: the kernel may send u32 where u64 is documented.
uint64_t attr_uint(const nlattr* a, const std::string& op, std::string_view what)
{
	const int len = nla_len(a);
	const void* d = nla_data(a);
	if (len >= 8) {
		uint64_t v;
		std::memcpy(&v, d, sizeof v);
		return v;
	}
	if (len >= 4) {
		uint32_t v;
		std::memcpy(&v, d, sizeof v);
		return v;
	}
	if (len >= 2) {
		uint16_t v;
		std::memcpy(&v, d, sizeof v);
		return v;
	}
	if (len >= 1)
		return *static_cast<const uint8_t*>(d);
	protocol_error(op, fmt::format("attribute {} is empty", what));
}

uint32_t attr_u32(const nlattr* a, const std::string& op, std::string_view what)
{
	uint64_t v = attr_uint(a, op, what);
	if (v > UINT32_MAX)
		protocol_error(op, fmt::format("attribute {} does not fit 32 bits", what));
	return static_cast<uint32_t>(v);
}

/// Iterate over the attributes nested in `nest`.
template <typename F>
void for_each_nested(nlattr* nest, F&& f)
{
	int rem = nla_len(nest);
	for (nlattr* pos = static_cast<nlattr*>(nla_data(nest)); nla_ok(pos, rem);
	     pos = nla_next(pos, &rem))
		f(pos);
}

/// The name of the attribute at byte `offset` of the request `sent` (a slablab request:
/// nlmsghdr, genlmsghdr, attributes), from the spec's attribute sets; "" if none starts
/// there.
std::string attr_at(const nlmsghdr* sent, uint32_t offset)
{
	if (!sent)
		return {};
	const std::size_t start = NLMSG_HDRLEN + GENL_HDRLEN;
	if (offset < start || offset >= sent->nlmsg_len)
		return {};
	auto* base = reinterpret_cast<const char*>(sent);
	auto* pos = reinterpret_cast<const nlattr*>(base + start);
	int rem = static_cast<int>(sent->nlmsg_len - start);
	int set = protocol::kTopSet;
	bool entries = false;	// inside a nest of repeated entry nests (storm.sizes)
	while (nla_ok(pos, rem)) {
		const auto at = static_cast<uint32_t>(reinterpret_cast<const char*>(pos) - base);
		if (offset < at || offset >= at + NLA_ALIGN(pos->nla_len)) {
			pos = nla_next(pos, &rem);
			continue;
		}
		if (entries) {		// an entry: the attributes of `set` follow
			entries = false;
		} else {
			const protocol::AttrDesc* d = nullptr;
			for (const auto& a : protocol::kAttrSets[set].attrs)
				if (a.type == nla_type(pos))
					d = &a;
			if (!d)
				return {};
			if (offset == at || d->nested < 0)
				return std::string(d->name);
			set = d->nested;
			entries = d->array;
		}
		rem = nla_len(pos);
		pos = static_cast<const nlattr*>(nla_data(pos));
	}
	return {};
}

/// NLMSGERR_ATTR_POLICY (the kernel's policy of the attribute it refused) in words: "must
/// be in [0, 1024]"; "" when there is nothing to say.
std::string policy_words(nlattr* nest)
{
	nlattr* tb[NL_POLICY_TYPE_ATTR_MAX + 1] = {};
	if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX, nest, nullptr) < 0)
		return {};
	auto u64 = [&](int type) -> std::optional<uint64_t> {
		if (!tb[type] || nla_len(tb[type]) < 8)
			return std::nullopt;
		uint64_t v;
		std::memcpy(&v, nla_data(tb[type]), sizeof v);
		return v;
	};
	auto s64 = [&](int type) -> std::optional<int64_t> {
		auto v = u64(type);
		return v ? std::optional<int64_t>(static_cast<int64_t>(*v)) : std::nullopt;
	};
	auto u32 = [&](int type) -> std::optional<uint32_t> {
		if (!tb[type] || nla_len(tb[type]) < 4)
			return std::nullopt;
		uint32_t v;
		std::memcpy(&v, nla_data(tb[type]), sizeof v);
		return v;
	};
	if (auto lo = u64(NL_POLICY_TYPE_ATTR_MIN_VALUE_U), hi = u64(NL_POLICY_TYPE_ATTR_MAX_VALUE_U);
	    lo && hi)
		return fmt::format("must be in [{}, {}]", *lo, *hi);
	if (auto lo = s64(NL_POLICY_TYPE_ATTR_MIN_VALUE_S), hi = s64(NL_POLICY_TYPE_ATTR_MAX_VALUE_S);
	    lo && hi)
		return fmt::format("must be in [{}, {}]", *lo, *hi);
	if (auto mask = u64(NL_POLICY_TYPE_ATTR_MASK))
		return fmt::format("must have no bits outside {:#x}", *mask);
	auto lo = u32(NL_POLICY_TYPE_ATTR_MIN_LENGTH), hi = u32(NL_POLICY_TYPE_ATTR_MAX_LENGTH);
	if (lo && hi)
		return fmt::format("must be {} to {} bytes long", *lo, *hi);
	if (hi)
		return fmt::format("must be at most {} bytes long", *hi);
	return {};
}

/// NLMSGERR_ATTR_MSG (and friends) of an error/done message whose payload before the TLVs
/// is `payload_len` bytes. With NLMSGERR_ATTR_POLICY (the kernel's policy refused an
/// attribute) the message names the attribute of `sent`, the request, at
/// NLMSGERR_ATTR_OFFS and gives the range the kernel returned:
/// "min_partial: must be in [0, 1024] (kernel policy: integer out of range)".
std::string extack_of(const nlmsghdr* hdr, std::size_t payload_len, const nlmsghdr* sent)
{
	if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS))
		return {};
	const std::size_t total = hdr->nlmsg_len;
	const std::size_t start = NLMSG_HDRLEN + NLMSG_ALIGN(payload_len);
	if (start >= total)
		return {};
	auto* base = reinterpret_cast<char*>(const_cast<nlmsghdr*>(hdr));
	nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, reinterpret_cast<nlattr*>(base + start),
		      static_cast<int>(total - start), nullptr) < 0)
		return {};
	std::string msg;
	if (tb[NLMSGERR_ATTR_MSG])
		msg = attr_string(tb[NLMSGERR_ATTR_MSG]);
	if (tb[NLMSGERR_ATTR_MISS_TYPE] && nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4) {
		uint32_t type;
		std::memcpy(&type, nla_data(tb[NLMSGERR_ATTR_MISS_TYPE]), sizeof type);
		std::string miss = fmt::format("missing attribute type {}", type);
		msg = msg.empty() ? miss : fmt::format("{} ({})", msg, miss);
	}
	uint32_t offs = 0;
	const bool has_offs = tb[NLMSGERR_ATTR_OFFS] && nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4;
	if (has_offs)
		std::memcpy(&offs, nla_data(tb[NLMSGERR_ATTR_OFFS]), sizeof offs);
	if (tb[NLMSGERR_ATTR_POLICY]) {
		std::string words = policy_words(tb[NLMSGERR_ATTR_POLICY]);
		std::string name = has_offs ? attr_at(sent, offs) : std::string();
		if (!words.empty())
			return fmt::format("{}{} (kernel policy{}{})", name.empty() ? "" : name + ": ",
					   words, msg.empty() ? "" : ": ", msg);
	}
	if (msg.empty() && has_offs)
		msg = fmt::format("invalid attribute at offset {} of the request", offs);
	// without a policy (6.1's mask check sends none) still say which attribute
	else if (std::string name = has_offs ? attr_at(sent, offs) : std::string(); !name.empty())
		msg = fmt::format("{}: {}", name, msg);
	return msg;
}

/// The state of one request while its answer is read.
struct Request {
	std::string op;
	int family = 0;
	uint32_t seq = 0;
	bool done = false;
	bool interrupted = false;	///< NLM_F_DUMP_INTR seen
	int err = 0;			///< positive errno from NLMSG_ERROR / NLMSG_DONE
	std::string extack;
	const nlmsghdr* sent = nullptr;	///< the request (extack offsets point into it)
	unsigned replies = 0;
	std::function<void(nlattr**)> on_reply;
	std::exception_ptr failure;	///< thrown by on_reply; rethrown after the ack
};

int cb_seq_check(nl_msg* msg, void* arg)
{
	auto* r = static_cast<Request*>(arg);
	// Answers to earlier, abandoned requests (timeouts) are skipped.
	return nlmsg_hdr(msg)->nlmsg_seq == r->seq ? NL_OK : NL_SKIP;
}

int cb_valid(nl_msg* msg, void* arg)
{
	auto* r = static_cast<Request*>(arg);
	nlmsghdr* hdr = nlmsg_hdr(msg);
	if (hdr->nlmsg_type != r->family)
		return NL_SKIP;
	if (hdr->nlmsg_flags & NLM_F_DUMP_INTR)
		r->interrupted = true;
	r->replies++;
	if (r->failure || !r->on_reply)
		return NL_OK;
	try {
		nlattr* tb[SLABLAB_A_MAX + 1] = {};
		int rc = genlmsg_parse(hdr, 0, tb, SLABLAB_A_MAX, nullptr);
		if (rc < 0)
			protocol_error(r->op, nl_geterror(rc));
		r->on_reply(tb);
	} catch (...) {
		r->failure = std::current_exception();
	}
	return NL_OK;
}

int cb_finish(nl_msg* msg, void* arg)
{
	auto* r = static_cast<Request*>(arg);
	nlmsghdr* hdr = nlmsg_hdr(msg);
	if (nlmsg_datalen(hdr) >= static_cast<int>(sizeof(int))) {
		int e;
		std::memcpy(&e, nlmsg_data(hdr), sizeof e);
		if (e < 0) {
			r->err = -e;
			r->extack = extack_of(hdr, sizeof(int), r->sent);
		}
	}
	r->done = true;
	return NL_STOP;
}

int cb_ack(nl_msg*, void* arg)
{
	static_cast<Request*>(arg)->done = true;
	return NL_STOP;
}

int cb_error(sockaddr_nl*, nlmsgerr* e, void* arg)
{
	auto* r = static_cast<Request*>(arg);
	auto* hdr = reinterpret_cast<nlmsghdr*>(reinterpret_cast<char*>(e) - NLMSG_HDRLEN);
	std::size_t payload = sizeof(nlmsgerr);
	if (!(hdr->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		payload += e->msg.nlmsg_len - NLMSG_HDRLEN;
	r->err = e->error < 0 ? -e->error : EPROTO;
	r->extack = extack_of(hdr, payload, r->sent);
	r->done = true;
	return NL_STOP;
}

// ---- building requests ----

void put_u32(nl_msg* m, int type, uint32_t v, const std::string& op)
{
	if (nla_put_u32(m, type, v) < 0)
		throw Error(EMSGSIZE, op, {}, op + ": request does not fit a netlink message");
}

void put_u64(nl_msg* m, int type, uint64_t v, const std::string& op)
{
	if (nla_put_u64(m, type, v) < 0)
		throw Error(EMSGSIZE, op, {}, op + ": request does not fit a netlink message");
}

void put_string(nl_msg* m, int type, std::string_view v, const std::string& op)
{
	if (nla_put_string(m, type, std::string(v).c_str()) < 0)
		throw Error(EMSGSIZE, op, {}, op + ": request does not fit a netlink message");
}

/// A nest that is closed when the builder returns.
template <typename F>
void put_nest(nl_msg* m, int type, const std::string& op, F&& fill)
{
	nlattr* nest = nla_nest_start(m, type);
	if (!nest)
		throw Error(EMSGSIZE, op, {}, op + ": request does not fit a netlink message");
	fill();
	nla_nest_end(m, nest);
}

void put_cache_name(nl_msg* m, std::string_view name, const std::string& op)
{
	put_nest(m, SLABLAB_A_CACHE, op, [&] { put_string(m, SLABLAB_CACHE_A_NAME, name, op); });
}

// ---- parsing replies ----

void parse_stats(nlattr* nest, StatArray& out, const std::string& op)
{
	for_each_nested(nest, [&](nlattr* a) {
		int type = nla_type(a);
		// type = item + 1; types past the items we know (newer module, padding) are ignored
		if (type >= 1 && static_cast<std::size_t>(type) <= kNrStats)
			out[static_cast<std::size_t>(type - 1)] = attr_uint(a, op, "STATS item");
	});
}

void parse_percpu(nlattr* nest, std::vector<PerCpuInfo>& out, const std::string& op)
{
	for_each_nested(nest, [&](nlattr* entry) {
		if (nla_type(entry) != SLABLAB_PERCPU_A_ENTRY)
			return;
		nlattr* tb[SLABLAB_PERCPU_A_MAX + 1] = {};
		if (nla_parse_nested(tb, SLABLAB_PERCPU_A_MAX, entry, nullptr) < 0)
			protocol_error(op, "bad PERCPU_A_ENTRY nest");
		PerCpuInfo p;
		if (tb[SLABLAB_PERCPU_A_CPU])
			p.cpu = attr_u32(tb[SLABLAB_PERCPU_A_CPU], op, "PERCPU_A_CPU");
		if (tb[SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS])
			p.cpu_slab_objects = attr_u32(tb[SLABLAB_PERCPU_A_CPU_SLAB_OBJECTS], op,
						      "PERCPU_A_CPU_SLAB_OBJECTS");
		if (tb[SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS])
			p.cpu_partial_slabs = attr_u32(tb[SLABLAB_PERCPU_A_CPU_PARTIAL_SLABS], op,
						       "PERCPU_A_CPU_PARTIAL_SLABS");
		if (tb[SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS])
			p.cpu_partial_objects = attr_u32(tb[SLABLAB_PERCPU_A_CPU_PARTIAL_OBJECTS], op,
							 "PERCPU_A_CPU_PARTIAL_OBJECTS");
		if (tb[SLABLAB_PERCPU_A_STATS])
			parse_stats(tb[SLABLAB_PERCPU_A_STATS], p.stats, op);
		out.push_back(p);
	});
}

CacheInfo parse_cache(nlattr* nest, const std::string& op)
{
	nlattr* tb[SLABLAB_CACHE_A_MAX + 1] = {};
	if (nla_parse_nested(tb, SLABLAB_CACHE_A_MAX, nest, nullptr) < 0)
		protocol_error(op, "bad SLABLAB_A_CACHE nest");
	CacheInfo c;
	if (!tb[SLABLAB_CACHE_A_NAME])
		protocol_error(op, "cache without SLABLAB_CACHE_A_NAME");
	c.name = attr_string(tb[SLABLAB_CACHE_A_NAME]);

	auto u32 = [&](int type, uint32_t& field, std::string_view what) {
		if (tb[type])
			field = attr_u32(tb[type], op, what);
	};
	auto u64 = [&](int type, uint64_t& field, std::string_view what) {
		if (tb[type])
			field = attr_uint(tb[type], op, what);
	};
	u32(SLABLAB_CACHE_A_SIZE, c.size, "CACHE_A_SIZE");
	u32(SLABLAB_CACHE_A_ALIGN, c.align, "CACHE_A_ALIGN");
	u32(SLABLAB_CACHE_A_OBJ_STRIDE, c.obj_stride, "CACHE_A_OBJ_STRIDE");
	u32(SLABLAB_CACHE_A_OBJS_PER_SLAB, c.objs_per_slab, "CACHE_A_OBJS_PER_SLAB");
	u32(SLABLAB_CACHE_A_ORDER_DEFAULT, c.order_default, "CACHE_A_ORDER_DEFAULT");
	u32(SLABLAB_CACHE_A_OWNER, c.owner, "CACHE_A_OWNER");
	for (const auto& d : kTunables)
		u32(d.attr, c.*(d.in_info), d.name);
#define SLABCTL_GAUGE(attr, name, type) u64(SLABLAB_CACHE_A_##attr, c.name, "CACHE_A_" #attr);
	SLABLAB_CACHE_GAUGES(SLABCTL_GAUGE)
#undef SLABCTL_GAUGE
	if (tb[SLABLAB_CACHE_A_SLABS_FREED])
		c.slabs_freed = attr_uint(tb[SLABLAB_CACHE_A_SLABS_FREED], op, "CACHE_A_SLABS_FREED");
	if (tb[SLABLAB_CACHE_A_STATS]) {
		c.has_stats = true;
		parse_stats(tb[SLABLAB_CACHE_A_STATS], c.stats, op);
	}
	if (tb[SLABLAB_CACHE_A_PERCPU]) {
		c.has_percpu = true;
		parse_percpu(tb[SLABLAB_CACHE_A_PERCPU], c.percpu, op);
	}
	if (tb[SLABLAB_CACHE_A_LAYERS]) {
		nlattr* lt[SLABLAB_LAYERS_A_MAX + 1] = {};
		if (nla_parse_nested(lt, SLABLAB_LAYERS_A_MAX, tb[SLABLAB_CACHE_A_LAYERS],
				     nullptr) < 0)
			protocol_error(op, "bad CACHE_A_LAYERS nest");
		c.has_layers = true;
#define SLABCTL_LAYER(attr, name)                                                         \
	if (lt[SLABLAB_LAYERS_A_##attr])                                                     \
		c.layers.name = attr_uint(lt[SLABLAB_LAYERS_A_##attr], op, "LAYERS_A_" #attr);
		SLABLAB_CACHE_LAYERS(SLABCTL_LAYER)
#undef SLABCTL_LAYER
	}
	if (tb[SLABLAB_CACHE_A_OCCUPANCY]) {
		c.has_occupancy = true;
		nlattr* b;
		int rem;
		nla_for_each_nested(b, tb[SLABLAB_CACHE_A_OCCUPANCY], rem) {
			if (nla_type(b) != SLABLAB_OCCUPANCY_A_BUCKET)
				continue;
			nlattr* bt[SLABLAB_OCCUPANCY_A_MAX + 1] = {};
			if (nla_parse_nested(bt, SLABLAB_OCCUPANCY_A_MAX, b, nullptr) < 0 ||
			    !bt[SLABLAB_OCCUPANCY_A_LO] || !bt[SLABLAB_OCCUPANCY_A_HI] ||
			    !bt[SLABLAB_OCCUPANCY_A_SLABS])
				protocol_error(op, "bad OCCUPANCY_A_BUCKET nest");
			CacheInfo::OccupancyBucket o;
			o.lo = static_cast<uint32_t>(
				attr_uint(bt[SLABLAB_OCCUPANCY_A_LO], op, "OCCUPANCY_A_LO"));
			o.hi = static_cast<uint32_t>(
				attr_uint(bt[SLABLAB_OCCUPANCY_A_HI], op, "OCCUPANCY_A_HI"));
			o.slabs = attr_uint(bt[SLABLAB_OCCUPANCY_A_SLABS], op, "OCCUPANCY_A_SLABS");
			c.occupancy.push_back(o);
		}
	}
	return c;
}

/**
 * Whether a CACHE_GET dump message only continues the per-cpu entries of the cache the
 * message before it began: its cache nest has NAME and PERCPU but no SIZE (the module
 * splits a cache whose per-cpu entries do not fit one message; uapi header).
 */
bool is_percpu_continuation(nlattr* nest)
{
	nlattr* tb[SLABLAB_CACHE_A_MAX + 1] = {};
	if (nla_parse_nested(tb, SLABLAB_CACHE_A_MAX, nest, nullptr) < 0)
		return false;
	return tb[SLABLAB_CACHE_A_PERCPU] && !tb[SLABLAB_CACHE_A_SIZE];
}

void put_storm_spec(nl_msg* m, const StormSpec& spec, const std::string& op)
{
	put_u32(m, SLABLAB_STORM_A_TARGET, spec.target, op);
	put_u32(m, SLABLAB_STORM_A_PATTERN, spec.pattern, op);
	if (!spec.cache.empty())
		put_string(m, SLABLAB_STORM_A_CACHE, spec.cache, op);
	if (spec.size)
		put_u32(m, SLABLAB_STORM_A_SIZE, *spec.size, op);
	if (!spec.sizes.empty()) {
		put_nest(m, SLABLAB_STORM_A_SIZES, op, [&] {
			for (const auto& e : spec.sizes)
				put_nest(m, SLABLAB_STORM_SIZE_A_ENTRY, op, [&] {
					put_u32(m, SLABLAB_STORM_SIZE_A_SIZE, e.size, op);
					put_u32(m, SLABLAB_STORM_SIZE_A_WEIGHT, e.weight, op);
				});
		});
	}
	if (spec.threads)
		put_u32(m, SLABLAB_STORM_A_THREADS, *spec.threads, op);
	if (!spec.cpus.empty())
		put_string(m, SLABLAB_STORM_A_CPUS, spec.cpus, op);
	if (spec.ops)
		put_u64(m, SLABLAB_STORM_A_OPS, *spec.ops, op);
	if (spec.duration_ms)
		put_u32(m, SLABLAB_STORM_A_DURATION_MS, *spec.duration_ms, op);
	if (spec.batch)
		put_u32(m, SLABLAB_STORM_A_BATCH, *spec.batch, op);
	if (spec.working_set)
		put_u32(m, SLABLAB_STORM_A_WORKING_SET, *spec.working_set, op);
	if (spec.ring)
		put_u32(m, SLABLAB_STORM_A_RING, *spec.ring, op);
	if (spec.seed)
		put_u64(m, SLABLAB_STORM_A_SEED, *spec.seed, op);
	if (spec.max_live_bytes)
		put_u64(m, SLABLAB_STORM_A_MAX_LIVE_BYTES, *spec.max_live_bytes, op);
	if (spec.thin)
		put_u32(m, SLABLAB_STORM_A_THIN, *spec.thin, op);
	if (spec.rate)
		put_u32(m, SLABLAB_STORM_A_RATE, *spec.rate, op);
	if (spec.producers)
		put_u32(m, SLABLAB_STORM_A_PRODUCERS, *spec.producers, op);
}

/// The attributes of one parsed nest, read into fields when present.
struct AttrReader {
	nlattr** tb;
	const std::string& op;

	bool has(int type) const { return tb[type] != nullptr; }
	void u32(int type, uint32_t& field, std::string_view what) const
	{
		if (tb[type])
			field = attr_u32(tb[type], op, what);
	}
	void u64(int type, uint64_t& field, std::string_view what) const
	{
		if (tb[type])
			field = attr_uint(tb[type], op, what);
	}
	void o32(int type, std::optional<uint32_t>& field, std::string_view what) const
	{
		if (tb[type])
			field = attr_u32(tb[type], op, what);
	}
	void o64(int type, std::optional<uint64_t>& field, std::string_view what) const
	{
		if (tb[type])
			field = attr_uint(tb[type], op, what);
	}
	/// A u32 the kernel may send wider: its low 32 bits.
	void low32(int type, uint32_t& field, std::string_view what) const
	{
		if (tb[type])
			field = static_cast<uint32_t>(attr_uint(tb[type], op, what));
	}
	void string(int type, std::string& field) const
	{
		if (tb[type])
			field = attr_string(tb[type]);
	}
};

/// STORM_A_SIZES: the size distribution's entries.
void parse_storm_sizes(nlattr* nest, std::vector<StormSize>& out, const std::string& op)
{
	for_each_nested(nest, [&](nlattr* entry) {
		if (nla_type(entry) != SLABLAB_STORM_SIZE_A_ENTRY)
			return;
		nlattr* st[SLABLAB_STORM_SIZE_A_MAX + 1] = {};
		if (nla_parse_nested(st, SLABLAB_STORM_SIZE_A_MAX, entry, nullptr) < 0)
			protocol_error(op, "bad STORM_SIZE_A_ENTRY nest");
		const AttrReader a{st, op};
		StormSize e;
		a.u32(SLABLAB_STORM_SIZE_A_SIZE, e.size, "STORM_SIZE_A_SIZE");
		a.u32(SLABLAB_STORM_SIZE_A_WEIGHT, e.weight, "STORM_SIZE_A_WEIGHT");
		out.push_back(e);
	});
}

/// STORM_A_THREAD_LIST: what each storm thread did.
void parse_storm_threads(nlattr* nest, std::vector<StormThread>& out, const std::string& op)
{
	for_each_nested(nest, [&](nlattr* entry) {
		if (nla_type(entry) != SLABLAB_STORM_THREAD_A_ENTRY)
			return;
		nlattr* tt[SLABLAB_STORM_THREAD_A_MAX + 1] = {};
		if (nla_parse_nested(tt, SLABLAB_STORM_THREAD_A_MAX, entry, nullptr) < 0)
			protocol_error(op, "bad STORM_THREAD_A_ENTRY nest");
		const AttrReader a{tt, op};
		StormThread t;
		a.u32(SLABLAB_STORM_THREAD_A_CPU, t.cpu, "STORM_THREAD_A_CPU");
		a.u64(SLABLAB_STORM_THREAD_A_OPS, t.ops, "STORM_THREAD_A_OPS");
		a.u64(SLABLAB_STORM_THREAD_A_CYCLES, t.cycles, "STORM_THREAD_A_CYCLES");
		a.u64(SLABLAB_STORM_THREAD_A_NS, t.ns, "STORM_THREAD_A_NS");
		out.push_back(t);
	});
}

/// The storm's spec as the module echoes it (every field, zeros included).
void parse_storm_spec(const AttrReader& a, StormSpec& s)
{
	a.u32(SLABLAB_STORM_A_TARGET, s.target, "STORM_A_TARGET");
	a.u32(SLABLAB_STORM_A_PATTERN, s.pattern, "STORM_A_PATTERN");
	a.string(SLABLAB_STORM_A_CACHE, s.cache);
	a.o32(SLABLAB_STORM_A_SIZE, s.size, "STORM_A_SIZE");
	if (a.has(SLABLAB_STORM_A_SIZES))
		parse_storm_sizes(a.tb[SLABLAB_STORM_A_SIZES], s.sizes, a.op);
	a.o32(SLABLAB_STORM_A_THREADS, s.threads, "STORM_A_THREADS");
	a.string(SLABLAB_STORM_A_CPUS, s.cpus);
	a.o64(SLABLAB_STORM_A_OPS, s.ops, "STORM_A_OPS");
	a.o32(SLABLAB_STORM_A_DURATION_MS, s.duration_ms, "STORM_A_DURATION_MS");
	a.o32(SLABLAB_STORM_A_BATCH, s.batch, "STORM_A_BATCH");
	a.o32(SLABLAB_STORM_A_WORKING_SET, s.working_set, "STORM_A_WORKING_SET");
	a.o32(SLABLAB_STORM_A_RING, s.ring, "STORM_A_RING");
	a.o64(SLABLAB_STORM_A_SEED, s.seed, "STORM_A_SEED");
	a.o64(SLABLAB_STORM_A_MAX_LIVE_BYTES, s.max_live_bytes, "STORM_A_MAX_LIVE_BYTES");
	a.o32(SLABLAB_STORM_A_THIN, s.thin, "STORM_A_THIN");
	a.o32(SLABLAB_STORM_A_RATE, s.rate, "STORM_A_RATE");
	a.o32(SLABLAB_STORM_A_PRODUCERS, s.producers, "STORM_A_PRODUCERS");
}

/// Keep the echoed spec to what applies.
void trim_storm_spec(StormSpec& s)
{
	if (s.duration_ms && *s.duration_ms == 0)
		s.duration_ms.reset();
	if (s.duration_ms)
		s.ops.reset();		// a duration storm has no op count
	if (s.size && *s.size == 0)
		s.size.reset();		// kmalloc with SIZES only
	if (s.sizes.size() == 1 && s.size && s.sizes[0].size == *s.size && s.sizes[0].weight == 1)
		s.sizes.clear();	// SIZE alone, echoed as a one-entry distribution
}

/// The results of a storm that ran: counts, cycles, pages; each one present sets
/// has_results (as the thread list does).
void parse_storm_results(const AttrReader& a, StormResult& r)
{
	auto result = [&](int type, uint64_t& field, std::string_view what) {
		if (a.has(type))
			r.has_results = true;
		a.u64(type, field, what);
	};
	result(SLABLAB_STORM_A_ALLOCS, r.allocs, "STORM_A_ALLOCS");
	result(SLABLAB_STORM_A_FREES, r.frees, "STORM_A_FREES");
	result(SLABLAB_STORM_A_ALLOC_CYCLES, r.alloc_cycles, "STORM_A_ALLOC_CYCLES");
	result(SLABLAB_STORM_A_FREE_CYCLES, r.free_cycles, "STORM_A_FREE_CYCLES");
	result(SLABLAB_STORM_A_PAIR_CYCLES, r.pair_cycles, "STORM_A_PAIR_CYCLES");
	result(SLABLAB_STORM_A_LOOP_CYCLES, r.loop_cycles_x1000, "STORM_A_LOOP_CYCLES");
	result(SLABLAB_STORM_A_FAILURES, r.failures, "STORM_A_FAILURES");
	result(SLABLAB_STORM_A_REMOTE_FREES, r.remote_frees, "STORM_A_REMOTE_FREES");
	result(SLABLAB_STORM_A_PEAK_PAGES, r.peak_pages, "STORM_A_PEAK_PAGES");
	result(SLABLAB_STORM_A_PEAK_LIVE_BYTES, r.peak_live_bytes, "STORM_A_PEAK_LIVE_BYTES");
	result(SLABLAB_STORM_A_META_BYTES, r.meta_bytes, "STORM_A_META_BYTES");
	result(SLABLAB_STORM_A_STEADY_PAGES, r.steady_pages, "STORM_A_STEADY_PAGES");
	result(SLABLAB_STORM_A_STEADY_LIVE_BYTES, r.steady_live_bytes,
	       "STORM_A_STEADY_LIVE_BYTES");
	a.low32(SLABLAB_STORM_A_STEADY_SAMPLES, r.steady_samples, "STORM_A_STEADY_SAMPLES");
}

/// The rcu pattern's figures: objects waiting for a grace period and their pages.
void parse_storm_rcu(const AttrReader& a, StormResult& r)
{
	a.o64(SLABLAB_STORM_A_RCU_WAITING_PEAK, r.rcu_waiting_peak, "STORM_A_RCU_WAITING_PEAK");
	a.o64(SLABLAB_STORM_A_RCU_WAITING_MEAN, r.rcu_waiting_mean, "STORM_A_RCU_WAITING_MEAN");
	a.o64(SLABLAB_STORM_A_RCU_WAITING_END, r.rcu_waiting_end, "STORM_A_RCU_WAITING_END");
	a.o64(SLABLAB_STORM_A_RCU_PAGES_PEAK, r.rcu_pages_peak, "STORM_A_RCU_PAGES_PEAK");
	a.low32(SLABLAB_STORM_A_RCU_SAMPLES, r.rcu_samples, "STORM_A_RCU_SAMPLES");
}

/// A SLABLAB_A_STORM nest: the storm's id and state, its spec, progress and results.
StormResult parse_storm(nlattr* nest, const std::string& op)
{
	nlattr* tb[SLABLAB_STORM_A_MAX + 1] = {};
	if (nla_parse_nested(tb, SLABLAB_STORM_A_MAX, nest, nullptr) < 0)
		protocol_error(op, "bad SLABLAB_A_STORM nest");
	const AttrReader a{tb, op};
	StormResult r;
	a.u32(SLABLAB_STORM_A_ID, r.id, "STORM_A_ID");
	a.u32(SLABLAB_STORM_A_STATE, r.state, "STORM_A_STATE");
	r.has_spec = a.has(SLABLAB_STORM_A_TARGET);	// not before the first storm
	parse_storm_spec(a, r.spec);
	a.u64(SLABLAB_STORM_A_OPS_PLANNED, r.ops_planned, "STORM_A_OPS_PLANNED");
	a.u64(SLABLAB_STORM_A_OPS_DONE, r.ops_done, "STORM_A_OPS_DONE");
	a.u64(SLABLAB_STORM_A_ELAPSED_NS, r.elapsed_ns, "STORM_A_ELAPSED_NS");
	parse_storm_results(a, r);
	a.o64(SLABLAB_STORM_A_SHRUNK_PAGES, r.shrunk_pages, "STORM_A_SHRUNK_PAGES");
	a.o64(SLABLAB_STORM_A_SHRUNK_LIVE_BYTES, r.shrunk_live_bytes, "STORM_A_SHRUNK_LIVE_BYTES");
	parse_storm_rcu(a, r);
	// sent with every reply, running storms' too: not a result
	a.u64(SLABLAB_STORM_A_CYCLES_PER_SEC, r.cycles_per_sec, "STORM_A_CYCLES_PER_SEC");
	a.o32(SLABLAB_STORM_A_FEATURES, r.features, "STORM_A_FEATURES");
	a.o32(SLABLAB_STORM_A_CACHE_FLAGS, r.cache_flags, "STORM_A_CACHE_FLAGS");
	if (a.has(SLABLAB_STORM_A_THREAD_LIST)) {
		r.has_results = true;
		parse_storm_threads(tb[SLABLAB_STORM_A_THREAD_LIST], r.threads, op);
	}
	if (a.has(SLABLAB_STORM_A_STATS)) {
		r.has_stats = true;
		parse_stats(tb[SLABLAB_STORM_A_STATS], r.stats, op);
	}
	a.string(SLABLAB_STORM_A_NATIVE_NAME, r.native_name);
	trim_storm_spec(r.spec);
	return r;
}

nlattr* require(nlattr** tb, int type, const std::string& op, std::string_view what)
{
	if (!tb[type])
		protocol_error(op, fmt::format("reply lacks {}", what));
	return tb[type];
}

struct ReplayLoad;	// a trace made ready to send (Client::replay)

}  // namespace

struct Client::Impl {
	SockPtr sock;
	int family = 0;
	Options options;
	std::mutex mutex;
	uint32_t page_size = 0;	///< cached GET_STATUS page size (0: not asked yet)
	std::atomic<uint64_t> dump_retries{0};	///< dumps repeated after NLM_F_DUMP_INTR

	explicit Impl(Options o) : options(o)
	{
		sock.reset(nl_socket_alloc());
		if (!sock)
			throw Error(ENOMEM, "SOCKET", {}, "cannot allocate a netlink socket");
		int rc = genl_connect(sock.get());
		if (rc < 0)
			throw Error(nle_to_errno(-rc), "SOCKET", {},
				    fmt::format("cannot open a generic netlink socket: {}",
						nl_geterror(rc)));
		const int fd = nl_socket_get_fd(sock.get());
		const int one = 1;
		// Best effort: kernels before 4.12 have no extended acks, before 4.2 no CAP_ACK.
		(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
		(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof one);
		// Strict header and attribute checks of dump requests too (4.20+); with
		// EXT_ACK, a refused attribute comes back with its offset and the kernel's policy
		// (NLMSGERR_ATTR_POLICY, 5.10+), which extack_of() turns into words.
		(void)setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one);
		timeval tv{};
		tv.tv_sec = kReplyTimeoutSec;
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		nl_socket_enable_msg_peek(sock.get()); // replies of any size
		// A cache reply carries one entry of every counter per possible cpu (64 cpus:
		// ~64 KiB in one skb); the default receive buffer may not take it while the
		// ack is queued. Best effort: FORCE needs CAP_NET_ADMIN, else rmem_max caps it.
		const int rcvbuf = 4 << 20;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);

		rc = genl_ctrl_resolve(sock.get(), SLABLAB_GENL_NAME);
		if (rc == -NLE_OBJ_NOTFOUND)
			throw ModuleNotLoaded();
		if (rc < 0)
			throw Error(nle_to_errno(-rc), "GETFAMILY", {},
				    fmt::format("cannot resolve generic netlink family \"{}\": {}",
						SLABLAB_GENL_NAME, nl_geterror(rc)));
		family = rc;
		// Acks are asked for explicitly; sequence numbers are checked by cb_seq_check.
		nl_socket_disable_auto_ack(sock.get());
	}

	/**
	 * Send one request and read its answer. `build` adds the attributes, `on_reply` sees
	 * every reply message's top-level attributes. Returns whether a dump was interrupted.
	 */
	bool transact(uint32_t cmd, bool dump, const std::function<void(nl_msg*)>& build,
		      std::function<void(nlattr**)> on_reply, bool need_reply)
	{
		const std::string op = command_name(cmd);
		std::lock_guard lock(mutex);
		if (!sock)
			throw Error(EBADF, op, {}, op + ": the client was moved from");

		MsgPtr msg(nlmsg_alloc());
		if (!msg)
			throw Error(ENOMEM, op);
		const int flags = dump ? NLM_F_DUMP : NLM_F_ACK;
		if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags,
				 static_cast<uint8_t>(cmd), SLABLAB_GENL_VERSION))
			throw Error(ENOMEM, op);
		if (build)
			build(msg.get());

		CbPtr cb(nl_cb_alloc(NL_CB_CUSTOM));
		if (!cb)
			throw Error(ENOMEM, op);
		Request r;
		r.op = op;
		r.family = family;
		r.on_reply = std::move(on_reply);
		nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, cb_seq_check, &r);
		nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, cb_valid, &r);
		nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, &r);
		nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, cb_ack, &r);
		nl_cb_err(cb.get(), NL_CB_CUSTOM, cb_error, &r);

		int rc = nl_send_auto(sock.get(), msg.get());
		if (rc < 0)
			throw Error(nle_to_errno(-rc), op, {},
				    fmt::format("{}: sending the request failed: {}", op,
						nl_geterror(rc)));
		r.seq = nlmsg_hdr(msg.get())->nlmsg_seq;
		r.sent = nlmsg_hdr(msg.get());

		while (!r.done) {
			rc = nl_recvmsgs(sock.get(), cb.get());
			if (r.done)
				break;
			if (rc == -NLE_DUMP_INTR) {
				r.interrupted = true;
				continue;
			}
			if (rc == -NLE_AGAIN)
				throw Error(ETIMEDOUT, op, {},
					    fmt::format("{}: no answer from the slablab module within {} s",
							op, kReplyTimeoutSec));
			if (rc < 0)
				throw Error(nle_to_errno(-rc), op, {},
					    fmt::format("{}: receiving the answer failed: {}", op,
							nl_geterror(rc)));
		}
		if (r.err)
			throw Error(r.err, op, r.extack);
		if (r.failure)
			std::rethrow_exception(r.failure);
		if (need_reply && r.replies == 0)
			protocol_error(op, "the module acknowledged without a reply message");
		return r.interrupted;
	}

	/// STORM_START / GET / STOP: one request, one SLABLAB_A_STORM nest in the reply.
	StormResult storm_request(uint32_t cmd,
				  const std::function<void(nl_msg*, const std::string&)>& build)
	{
		const std::string op = command_name(cmd);
		StormResult r;
		transact(
			cmd, false, [&](nl_msg* m) { build(m, op); },
			[&](nlattr** tb) {
				r = parse_storm(require(tb, SLABLAB_A_STORM, op, "SLABLAB_A_STORM"), op);
			},
			true);
		return r;
	}

	/// REPLAY_NEW, then the events in REPLAY_DATA chunks.
	void replay_send(const ReplayLoad& load);
	/// REPLAY_RUN, then REPLAY_GET until the replay is done or stopped (REPLAY_STOP).
	void replay_wait(const Trace& trace, ReplayResult& res, const ShouldStop& should_stop,
			 std::chrono::milliseconds poll);

	/// Host-side checks (if enabled); their UsageError names the command.
	void check(uint32_t cmd, const std::function<void()>& f) const
	{
		if (!options.host_checks)
			return;
		try {
			f();
		} catch (const UsageError& e) {
			throw UsageError(e.what(), e.err, command_name(cmd));
		}
	}
};

Client::Client() : Client(Options{}) {}

Client::Client(Options options) : impl_(std::make_unique<Impl>(options)) {}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

int Client::family_id() const noexcept
{
	return impl_ ? impl_->family : 0;
}

bool Client::host_checks() const noexcept
{
	return impl_ && impl_->options.host_checks;
}

Client::Impl& Client::impl() const
{
	if (!impl_)
		throw Error(EBADF, {}, {}, "slabctl::Client used after it was moved from");
	return *impl_;
}

Status Client::status()
{
	auto& d = impl();
	Status s;
	const std::string op = command_name(SLABLAB_CMD_GET_STATUS);
	d.transact(
		SLABLAB_CMD_GET_STATUS, false, nullptr,
		[&](nlattr** tb) {
			s.version = attr_string(require(tb, SLABLAB_A_VERSION, op, "SLABLAB_A_VERSION"));
			auto u32 = [&](int type, uint32_t& field, std::string_view what) {
				if (tb[type])
					field = attr_u32(tb[type], op, what);
			};
			u32(SLABLAB_A_API_VERSION, s.api_version, "A_API_VERSION");
			if (tb[SLABLAB_A_KERNEL_RELEASE])
				s.kernel_release = attr_string(tb[SLABLAB_A_KERNEL_RELEASE]);
			u32(SLABLAB_A_NR_CPU_IDS, s.nr_cpu_ids, "A_NR_CPU_IDS");
			u32(SLABLAB_A_NR_ONLINE_CPUS, s.nr_online_cpus, "A_NR_ONLINE_CPUS");
			u32(SLABLAB_A_NR_NODES, s.nr_nodes, "A_NR_NODES");
			u32(SLABLAB_A_PAGE_SIZE, s.page_size, "A_PAGE_SIZE");
			u32(SLABLAB_A_NR_CACHES, s.nr_caches, "A_NR_CACHES");
			u32(SLABLAB_A_FEATURES, s.features, "A_FEATURES");
			u32(SLABLAB_A_KMALLOC_PAGE_POLICY, s.kmalloc_page_policy,
			    "A_KMALLOC_PAGE_POLICY");
			u32(SLABLAB_A_KMALLOC_DESIGN, s.kmalloc_design, "A_KMALLOC_DESIGN");
			u32(SLABLAB_A_KMALLOC_LISTS, s.kmalloc_lists, "A_KMALLOC_LISTS");
		},
		true);
	return s;
}

CacheInfo Client::cache_create(const CacheSpec& spec)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_NEW, [&] { validate_spec(spec); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_NEW);
	CacheInfo c;
	d.transact(
		SLABLAB_CMD_CACHE_NEW, false,
		[&](nl_msg* m) {
			put_nest(m, SLABLAB_A_CACHE, op, [&] {
				put_string(m, SLABLAB_CACHE_A_NAME, spec.name, op);
				put_u32(m, SLABLAB_CACHE_A_SIZE, spec.size, op);
				if (spec.align)
					put_u32(m, SLABLAB_CACHE_A_ALIGN, *spec.align, op);
				for (const auto& desc : kTunables)
					if (const auto& v = spec.*(desc.in_spec))
						put_u32(m, desc.attr, *v, op);
			});
		},
		[&](nlattr** tb) {
			c = parse_cache(require(tb, SLABLAB_A_CACHE, op, "SLABLAB_A_CACHE"), op);
		},
		true);
	return c;
}

void Client::cache_destroy(std::string_view name)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_DEL, [&] { validate_cache_name(name); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_DEL);
	d.transact(
		SLABLAB_CMD_CACHE_DEL, false, [&](nl_msg* m) { put_cache_name(m, name, op); },
		nullptr, false);
}

CacheInfo Client::cache_get(std::string_view name, bool percpu, bool exact)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_GET, [&] { validate_cache_name(name); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_GET);
	CacheInfo c;
	d.transact(
		SLABLAB_CMD_CACHE_GET, false,
		[&](nl_msg* m) {
			put_cache_name(m, name, op);
			if (exact)
				put_u32(m, SLABLAB_A_FLAGS, SLABLAB_GET_F_EXACT, op);
		},
		[&](nlattr** tb) {
			c = parse_cache(require(tb, SLABLAB_A_CACHE, op, "SLABLAB_A_CACHE"), op);
		},
		true);
	if (!percpu) {
		c.percpu.clear();
		c.has_percpu = false;
	}
	return c;
}

std::vector<CacheInfo> Client::cache_list(bool percpu, bool layers, bool exact)
{
	auto& d = impl();
	const std::string op = command_name(SLABLAB_CMD_CACHE_GET);
	std::vector<CacheInfo> caches;
	for (int attempt = 0;; attempt++) {
		caches.clear();
		std::string orphan;	// a continuation not of the cache before it
		bool interrupted = d.transact(
			SLABLAB_CMD_CACHE_GET, true,
			[&](nl_msg* m) {
				uint32_t flags = (percpu ? SLABLAB_GET_F_PERCPU : 0) |
						 (layers ? SLABLAB_GET_F_LAYERS : 0) |
						 (layers && exact ? SLABLAB_GET_F_EXACT : 0);
				if (flags)
					put_u32(m, SLABLAB_A_FLAGS, flags, op);
			},
			[&](nlattr** tb) {
				if (!tb[SLABLAB_A_CACHE])
					return;
				CacheInfo c = parse_cache(tb[SLABLAB_A_CACHE], op);
				if (!is_percpu_continuation(tb[SLABLAB_A_CACHE])) {
					caches.push_back(std::move(c));
					return;
				}
				// More per-cpu entries of the cache the previous message began.
				// After a change of the cache list (the dump is then flagged
				// interrupted and repeated) they may belong to another cache.
				if (caches.empty() || caches.back().name != c.name ||
				    !caches.back().has_percpu) {
					orphan = c.name;
					return;
				}
				auto& into = caches.back().percpu;
				into.insert(into.end(), c.percpu.begin(), c.percpu.end());
			},
			false);
		if (!interrupted && !orphan.empty())
			protocol_error(op, fmt::format("per-cpu entries of cache {} without the "
						       "cache",
						       orphan));
		if (!interrupted)
			break;
		d.dump_retries++;
		if (attempt + 1 >= kDumpRetries)
			throw Error(EAGAIN, op, {},
				    fmt::format("{}: the cache list kept changing during the dump "
						"({} tries); try again",
						op, kDumpRetries));
	}
	return caches;
}

uint64_t Client::dump_retries() const
{
	return impl().dump_retries.load();
}

CacheInfo Client::cache_set(std::string_view name, const Tunables& t)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_SET, [&] {
		validate_cache_name(name);
		if (t.empty())
			throw UsageError("nothing to set");
		validate_tunables(t);
	});
	Tunables sent = t;
	if (t.relative_flags()) {
		uint32_t base = t.flags ? *t.flags : cache_get(name, false).flags;
		sent.flags = (base | t.flags_set) & ~t.flags_clear;
	}
	const std::string op = command_name(SLABLAB_CMD_CACHE_SET);
	CacheInfo c;
	d.transact(
		SLABLAB_CMD_CACHE_SET, false,
		[&](nl_msg* m) {
			put_nest(m, SLABLAB_A_CACHE, op, [&] {
				put_string(m, SLABLAB_CACHE_A_NAME, name, op);
				for (const auto& desc : kTunables)
					if (const auto& v = sent.*(desc.in_tunables))
						put_u32(m, desc.attr, *v, op);
			});
		},
		[&](nlattr** tb) {
			c = parse_cache(require(tb, SLABLAB_A_CACHE, op, "SLABLAB_A_CACHE"), op);
		},
		true);
	return c;
}

ShrinkResult Client::cache_shrink(std::string_view name)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_SHRINK, [&] { validate_cache_name(name); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_SHRINK);
	ShrinkResult res;
	d.transact(
		SLABLAB_CMD_CACHE_SHRINK, false, [&](nl_msg* m) { put_cache_name(m, name, op); },
		[&](nlattr** tb) {
			res.cache = parse_cache(require(tb, SLABLAB_A_CACHE, op, "SLABLAB_A_CACHE"),
						op);
			res.slabs_freed = res.cache.slabs_freed.value_or(0);
		},
		true);
	return res;
}

ValidateReport Client::cache_validate(std::string_view name)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_VALIDATE, [&] { validate_cache_name(name); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_VALIDATE);
	ValidateReport v;
	v.cache = std::string(name);
	d.transact(
		SLABLAB_CMD_CACHE_VALIDATE, false, [&](nl_msg* m) { put_cache_name(m, name, op); },
		[&](nlattr** tb) {
			nlattr* nest = require(tb, SLABLAB_A_VALIDATE, op, "SLABLAB_A_VALIDATE");
			nlattr* vt[SLABLAB_VALIDATE_A_MAX + 1] = {};
			if (nla_parse_nested(vt, SLABLAB_VALIDATE_A_MAX, nest, nullptr) < 0)
				protocol_error(op, "bad SLABLAB_A_VALIDATE nest");
			if (vt[SLABLAB_VALIDATE_A_SLABS])
				v.slabs = attr_uint(vt[SLABLAB_VALIDATE_A_SLABS], op, "VALIDATE_A_SLABS");
			if (vt[SLABLAB_VALIDATE_A_OBJECTS])
				v.objects = attr_uint(vt[SLABLAB_VALIDATE_A_OBJECTS], op,
						      "VALIDATE_A_OBJECTS");
			if (vt[SLABLAB_VALIDATE_A_FREE_OBJECTS])
				v.free_objects = attr_uint(vt[SLABLAB_VALIDATE_A_FREE_OBJECTS], op,
							   "VALIDATE_A_FREE_OBJECTS");
			if (vt[SLABLAB_VALIDATE_A_ERRORS])
				v.errors = attr_u32(vt[SLABLAB_VALIDATE_A_ERRORS], op,
						    "VALIDATE_A_ERRORS");
			if (vt[SLABLAB_VALIDATE_A_FIRST_ERROR])
				v.first_error = attr_string(vt[SLABLAB_VALIDATE_A_FIRST_ERROR]);
			if (tb[SLABLAB_A_CACHE]) {
				nlattr* ct[SLABLAB_CACHE_A_MAX + 1] = {};
				if (nla_parse_nested(ct, SLABLAB_CACHE_A_MAX, tb[SLABLAB_A_CACHE],
						     nullptr) == 0 &&
				    ct[SLABLAB_CACHE_A_NAME])
					v.cache = attr_string(ct[SLABLAB_CACHE_A_NAME]);
			}
		},
		true);
	return v;
}

void Client::cache_reset_stats(std::string_view name)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_CACHE_RESET_STATS, [&] { validate_cache_name(name); });
	const std::string op = command_name(SLABLAB_CMD_CACHE_RESET_STATS);
	d.transact(
		SLABLAB_CMD_CACHE_RESET_STATS, false,
		[&](nl_msg* m) { put_cache_name(m, name, op); }, nullptr, false);
}

Handle Client::obj_alloc(std::string_view cache, uint32_t count, std::optional<uint32_t> cpu)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_OBJ_ALLOC, [&] {
		validate_cache_name(cache);
		validate_count(count);
	});
	const std::string op = command_name(SLABLAB_CMD_OBJ_ALLOC);
	Handle h;
	d.transact(
		SLABLAB_CMD_OBJ_ALLOC, false,
		[&](nl_msg* m) {
			put_cache_name(m, cache, op);
			put_u32(m, SLABLAB_A_COUNT, count, op);
			if (cpu)
				put_u32(m, SLABLAB_A_CPU, *cpu, op);
		},
		[&](nlattr** tb) {
			h.id = attr_u32(require(tb, SLABLAB_A_HANDLE, op, "SLABLAB_A_HANDLE"), op,
					"A_HANDLE");
			h.count = tb[SLABLAB_A_COUNT] ? attr_u32(tb[SLABLAB_A_COUNT], op, "A_COUNT")
						      : count;
		},
		true);
	return h;
}

uint32_t Client::obj_free(uint32_t handle, std::optional<uint32_t> cpu,
			  std::optional<uint32_t> count)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_OBJ_FREE, [&] {
		if (count)
			validate_count(*count);
	});
	const std::string op = command_name(SLABLAB_CMD_OBJ_FREE);
	uint32_t remaining = 0;
	d.transact(
		SLABLAB_CMD_OBJ_FREE, false,
		[&](nl_msg* m) {
			put_u32(m, SLABLAB_A_HANDLE, handle, op);
			if (cpu)
				put_u32(m, SLABLAB_A_CPU, *cpu, op);
			if (count)
				put_u32(m, SLABLAB_A_COUNT, *count, op);
		},
		[&](nlattr** tb) {
			if (tb[SLABLAB_A_COUNT])
				remaining = attr_u32(tb[SLABLAB_A_COUNT], op, "A_COUNT");
		},
		false);
	return remaining;
}

void Client::lab_set(const LabSettings& s)
{
	auto& d = impl();
	const std::string op = command_name(SLABLAB_CMD_LAB_SET);
	d.check(SLABLAB_CMD_LAB_SET, [&] {
		if (!s.kmalloc_design && !s.kmalloc_lists && !s.kmalloc_page_policy)
			throw UsageError(fmt::format("lab set needs one of {}",
						     fmt::join(lab_keys(), ", ")));
		if (s.kmalloc_design && !design_from_name(design_name(*s.kmalloc_design)))
			throw UsageError(fmt::format("unknown design {}", *s.kmalloc_design));
		if (s.kmalloc_lists && (*s.kmalloc_lists < 1 || *s.kmalloc_lists > 3))
			throw UsageError(fmt::format("lists {} out of range 1..3", *s.kmalloc_lists),
					 ERANGE);
		if (s.kmalloc_page_policy)
			validate_page_policy(*s.kmalloc_page_policy);
	});
	auto put = [&](nl_msg* m, int attr, const std::optional<uint32_t>& v) {
		if (v)
			put_u32(m, attr, *v, op);
	};
	d.transact(
		SLABLAB_CMD_LAB_SET, false,
		[&](nl_msg* m) {
			put(m, SLABLAB_A_KMALLOC_DESIGN, s.kmalloc_design);
			put(m, SLABLAB_A_KMALLOC_LISTS, s.kmalloc_lists);
			put(m, SLABLAB_A_KMALLOC_PAGE_POLICY, s.kmalloc_page_policy);
		},
		nullptr, false);
}

void Client::lab_set_kmalloc(std::optional<uint32_t> design, std::optional<uint32_t> lists)
{
	impl().check(SLABLAB_CMD_LAB_SET, [&] {
		if (!design && !lists)
			throw UsageError("set-kmalloc needs design or lists");
	});
	lab_set({.kmalloc_design = design, .kmalloc_lists = lists, .kmalloc_page_policy = {}});
}

void Client::lab_set_page_policy(uint32_t policy)
{
	lab_set({.kmalloc_design = {}, .kmalloc_lists = {}, .kmalloc_page_policy = policy});
}

uint32_t Client::page_size()
{
	auto& d = impl();
	if (!d.page_size)
		d.page_size = status().page_size;
	return d.page_size;
}

namespace {

void put_storm_id(nl_msg* m, std::optional<uint32_t> id, const std::string& op)
{
	if (id)
		put_nest(m, SLABLAB_A_STORM, op, [&] { put_u32(m, SLABLAB_STORM_A_ID, *id, op); });
}

}  // namespace

StormResult Client::storm_start(const StormSpec& spec)
{
	auto& d = impl();
	d.check(SLABLAB_CMD_STORM_START, [&] { validate_storm_spec(spec); });
	page_size();	// before the storm, not while it runs
	StormResult r = d.storm_request(SLABLAB_CMD_STORM_START,
					[&](nl_msg* m, const std::string& op) {
						put_nest(m, SLABLAB_A_STORM, op,
							 [&] { put_storm_spec(m, spec, op); });
					});
	r.page_size = page_size();
	return r;
}

StormResult Client::storm_get(std::optional<uint32_t> id)
{
	auto& d = impl();
	StormResult r = d.storm_request(SLABLAB_CMD_STORM_GET, [&](nl_msg* m, const std::string& op) {
		put_storm_id(m, id, op);
	});
	r.page_size = page_size();
	return r;
}

StormResult Client::storm_stop(std::optional<uint32_t> id)
{
	auto& d = impl();
	StormResult r = d.storm_request(SLABLAB_CMD_STORM_STOP, [&](nl_msg* m, const std::string& op) {
		put_storm_id(m, id, op);
	});
	r.page_size = page_size();
	return r;
}

StormResult Client::run_storm(const StormSpec& spec, const StormProgress& progress,
			      const ShouldStop& should_stop, std::chrono::milliseconds poll)
{
	constexpr auto kTick = std::chrono::milliseconds(20);
	if (poll < kTick)
		poll = kTick;
	if (should_stop && should_stop()) {
		StormResult none;
		none.spec = spec;
		none.interrupted = true;
		return none;
	}
	StormResult r = storm_start(spec);
	const uint32_t id = r.id;
	// Short storms end in a few ms: ask soon, then back off to `poll`.
	auto wait = std::min<std::chrono::milliseconds>(kTick, poll);
	try {
		if (progress)
			progress(r);
		while (!r.finished()) {
			bool stop = false;
			auto next = std::chrono::steady_clock::now() + wait;
			wait = std::min<std::chrono::milliseconds>(wait * 2, poll);
			while (std::chrono::steady_clock::now() < next) {
				if (should_stop && should_stop()) {
					stop = true;
					break;
				}
				std::this_thread::sleep_for(
					std::min<std::chrono::nanoseconds>(
						kTick, next - std::chrono::steady_clock::now()));
			}
			if (stop) {
				try {
					r = storm_stop(id);
				} catch (const Error&) {
					// it ended by itself in the meantime; what it did is still there
					r = storm_get(id);
				}
				if (!r.has_results && r.finished())
					r = storm_get(id);
				r.interrupted = true;
				if (progress)
					progress(r);
				return r;
			}
			r = storm_get(id);
			if (progress)
				progress(r);
		}
		return r;
	} catch (...) {
		// A failing callback (e.g. Python's KeyboardInterrupt) must not leave the storm
		// running; errors of the stop itself are secondary to the one on its way.
		try {
			storm_stop(id);
		} catch (...) {
		}
		throw;
	}
}

namespace {

// The REPLAY_RUN / REPLAY_GET / REPLAY_STOP reply into `res` (the trace names the caches).
void parse_replay(nlattr** tb, const Trace* trace, ReplayResult& res)
{
	nlattr* nest = require(tb, SLABLAB_A_REPLAY, "REPLAY", "SLABLAB_A_REPLAY");
	nlattr* rt[SLABLAB_REPLAY_A_MAX + 1] = {};
	nla_parse_nested(rt, SLABLAB_REPLAY_A_MAX, nest, nullptr);
	auto u32 = [&](int a) { return rt[a] ? nla_get_u32(rt[a]) : 0U; };
	auto u64 = [&](int a) { return rt[a] ? nla_get_u64(rt[a]) : uint64_t{0}; };
	res.state = u32(SLABLAB_REPLAY_A_STATE);
	res.threads = u32(SLABLAB_REPLAY_A_THREADS);
	res.folded = u32(SLABLAB_REPLAY_A_FOLDED) != 0;
	res.peak_live_bytes = u64(SLABLAB_REPLAY_A_PEAK_LIVE_BYTES);
	res.allocs = u64(SLABLAB_REPLAY_A_ALLOCS);
	res.frees = u64(SLABLAB_REPLAY_A_FREES);
	res.remote_frees = u64(SLABLAB_REPLAY_A_REMOTE_FREES);
	res.failures = u64(SLABLAB_REPLAY_A_FAILURES);
	res.alloc_cycles = u64(SLABLAB_REPLAY_A_ALLOC_CYCLES);
	res.free_cycles = u64(SLABLAB_REPLAY_A_FREE_CYCLES);
	res.elapsed_ns = u64(SLABLAB_REPLAY_A_ELAPSED_NS);
	res.peak_pages = u64(SLABLAB_REPLAY_A_PEAK_PAGES);
	res.avg_pages = u64(SLABLAB_REPLAY_A_AVG_PAGES);
	res.live_at_end = u64(SLABLAB_REPLAY_A_LIVE_AT_END);
	const uint32_t target = u32(SLABLAB_REPLAY_A_TARGET);
	if (res.target.empty())
		res.target = target_name(target);
	if (target == SLABLAB_TARGET_SLABLAB && rt[SLABLAB_REPLAY_A_DESIGN])
		res.design = design_name(u32(SLABLAB_REPLAY_A_DESIGN));
	res.time_scale = u32(SLABLAB_REPLAY_A_TIME_SCALE) / 1000.0;
	if (rt[SLABLAB_REPLAY_A_CPU_PARTIAL])
		res.cpu_partial = u32(SLABLAB_REPLAY_A_CPU_PARTIAL);
	res.caches.clear();
	if (nlattr* a = rt[SLABLAB_REPLAY_A_CACHE_RESULTS]) {
		const size_t n = nla_len(a) / sizeof(slablab_replay_cache_result);
		std::vector<slablab_replay_cache_result> cr(n);
		std::memcpy(cr.data(), nla_data(a), n * sizeof cr[0]);
		for (size_t i = 0; i < n; i++) {
			ReplayCacheResult c;
			c.name = i == 0 ? "kmalloc" :
				 trace && i - 1 < trace->caches.size() ?
						trace->caches[i - 1].name :
						fmt::format("cache{}", i);
			c.allocs = cr[i].allocs;
			c.frees = cr[i].frees;
			c.live_at_end = cr[i].live_at_end;
			c.pages = cr[i].pages;
			res.caches.push_back(std::move(c));
		}
	}
	res.samples.clear();
	if (nlattr* a = rt[SLABLAB_REPLAY_A_SAMPLES]) {
		const size_t n = nla_len(a) / sizeof(slablab_replay_sample);
		std::vector<slablab_replay_sample> sm(n);
		std::memcpy(sm.data(), nla_data(a), n * sizeof sm[0]);
		for (const auto& x : sm)
			res.samples.push_back({x.ns, x.pages});
	}
}

/// A trace made ready for REPLAY_NEW and REPLAY_DATA, the spec checked.
struct ReplayLoad {
	uint32_t target = 0;		///< SLABLAB_TARGET_*
	uint32_t time_scale = 0;	///< x1000; 0: as fast as possible
	uint64_t sample_ns = 0;		///< 0: no samples
	uint64_t nr_objects = 0;
	uint32_t nr_cpus = 0;
	uint64_t max_live_bytes = 0;	///< 0: the module's default
	std::optional<uint32_t> design, cpu_partial;
	std::vector<slablab_replay_event> events;
	std::vector<uint64_t> times;	///< the events' times, when time-scaled
	std::vector<slablab_replay_cache> caches;
};

/// The spec's target, checked against its design.
uint32_t replay_target(const ReplaySpec& spec)
{
	const auto tg = target_from_name(spec.target);
	if (!tg)
		throw UsageError(fmt::format("unknown replay target '{}' ({})", spec.target,
					     fmt::join(target_names(), ", ")));
	if (spec.design && *tg != SLABLAB_TARGET_SLABLAB)
		throw UsageError(fmt::format("a design is for the slablab target, not {}",
					     spec.target));
	return *tg;
}

/// The spec's time scale as the module takes it (x1000), checked.
uint32_t replay_time_scale(const ReplaySpec& spec)
{
	if (spec.time_scale < 0 || spec.time_scale > 1000)
		throw UsageError("time_scale must be in [0, 1000] (0: as fast as possible)",
				 ERANGE);
	const auto scale = static_cast<uint32_t>(std::llround(spec.time_scale * 1000));
	if (spec.time_scale > 0 && !scale)
		throw UsageError("time_scale under 0.001 (use 0 for as fast as possible)", ERANGE);
	return scale;
}

/// The trace's events as the module takes them, and their times when `timed`. Frees of
/// objects from before the recording are not replayed.
void replay_events(const Trace& trace, bool timed, ReplayLoad& load)
{
	load.events.reserve(trace.events.size());
	for (const TraceEvent& e : trace.events) {
		if (!e.object)
			continue;
		slablab_replay_event r{};
		r.object = e.object;
		r.size = e.bytes_req ? e.bytes_req : e.bytes_alloc;
		r.cpu = e.cpu;
		r.cache = e.cache;
		r.op = e.op == TraceOp::alloc ? SLABLAB_REPLAY_OP_ALLOC : SLABLAB_REPLAY_OP_FREE;
		load.events.push_back(r);
		if (timed)
			load.times.push_back(e.ts_ns);
	}
	if (load.events.empty())
		throw UsageError("the trace has no events to replay");
}

/// The trace's caches as the module makes them for the slablab target.
std::vector<slablab_replay_cache> replay_caches(const Trace& trace)
{
	std::vector<slablab_replay_cache> caches(trace.caches.size());
	for (size_t i = 0; i < caches.size(); i++) {
		const TraceCache& c = trace.caches[i];
		std::memset(&caches[i], 0, sizeof caches[i]);
		std::strncpy(caches[i].name, c.name.c_str(), sizeof caches[i].name - 1);
		caches[i].size = std::max<uint32_t>(c.object_size, 1);
		caches[i].align = c.align;
	}
	return caches;
}

ReplayLoad replay_load(const Trace& trace, const ReplaySpec& spec)
{
	ReplayLoad load;
	load.target = replay_target(spec);
	load.time_scale = replay_time_scale(spec);
	replay_events(trace, load.time_scale != 0, load);
	load.sample_ns = spec.sample_ns;
	if (!load.sample_ns && load.time_scale)	// about 500 samples over the scaled duration
		load.sample_ns = std::max<uint64_t>(
			1000000, static_cast<uint64_t>(static_cast<double>(trace.duration_ns) *
						       spec.time_scale / 500));
	load.nr_objects = std::max<uint64_t>(trace.nr_objects, 1);
	load.nr_cpus = std::max(trace.nr_cpus, 1U);
	load.max_live_bytes = spec.max_live_bytes;
	load.design = spec.design;
	load.cpu_partial = spec.cpu_partial;
	load.caches = replay_caches(trace);
	return load;
}

/// REPLAY_NEW's nest: the replay's parameters and its caches.
void put_replay_new(nl_msg* m, const ReplayLoad& load, const std::string& op)
{
	put_u32(m, SLABLAB_REPLAY_A_TARGET, load.target, op);
	put_u64(m, SLABLAB_REPLAY_A_NR_EVENTS, load.events.size(), op);
	put_u32(m, SLABLAB_REPLAY_A_NR_OBJECTS, static_cast<uint32_t>(load.nr_objects), op);
	put_u32(m, SLABLAB_REPLAY_A_NR_CPUS, load.nr_cpus, op);
	if (load.max_live_bytes)
		put_u64(m, SLABLAB_REPLAY_A_MAX_LIVE_BYTES, load.max_live_bytes, op);
	if (load.design)
		put_u32(m, SLABLAB_REPLAY_A_DESIGN, *load.design, op);
	if (load.time_scale)
		put_u32(m, SLABLAB_REPLAY_A_TIME_SCALE, load.time_scale, op);
	if (load.sample_ns)
		put_u64(m, SLABLAB_REPLAY_A_SAMPLE_NS, load.sample_ns, op);
	if (load.cpu_partial)
		put_u32(m, SLABLAB_REPLAY_A_CPU_PARTIAL, *load.cpu_partial, op);
	const auto& caches = load.caches;
	if (!caches.empty() &&
	    nla_put(m, SLABLAB_REPLAY_A_CACHES, static_cast<int>(caches.size() * sizeof caches[0]),
		    caches.data()) < 0)
		throw Error(EMSGSIZE, op, {}, "too many caches for one message");
}

/// REPLAY_DATA's nest: `n` events from `off` (and their times).
void put_replay_data(nl_msg* m, const ReplayLoad& load, size_t off, size_t n,
		     const std::string& op)
{
	put_u64(m, SLABLAB_REPLAY_A_OFFSET, off, op);
	if (nla_put(m, SLABLAB_REPLAY_A_EVENTS, static_cast<int>(n * sizeof load.events[0]),
		    &load.events[off]) < 0)
		throw Error(EMSGSIZE, op, {}, "events chunk too big");
	if (load.time_scale &&
	    nla_put(m, SLABLAB_REPLAY_A_TIMES, static_cast<int>(n * sizeof load.times[0]),
		    &load.times[off]) < 0)
		throw Error(EMSGSIZE, op, {}, "times chunk too big");
}

}  // namespace

void Client::Impl::replay_send(const ReplayLoad& load)
{
	auto none = [](nlattr**) {};	// the replies are checked, not read
	const std::string op_new = command_name(SLABLAB_CMD_REPLAY_NEW);
	transact(
		SLABLAB_CMD_REPLAY_NEW, false,
		[&](nl_msg* m) {
			put_nest(m, SLABLAB_A_REPLAY, op_new,
				 [&] { put_replay_new(m, load, op_new); });
		},
		none, false);
	// 3.5 KiB of events (and their times): within nlmsg_alloc()'s page
	const size_t chunk = load.time_scale ? 144 : 224;
	const std::string op_data = command_name(SLABLAB_CMD_REPLAY_DATA);
	for (size_t off = 0; off < load.events.size(); off += chunk) {
		const size_t n = std::min(chunk, load.events.size() - off);
		transact(
			SLABLAB_CMD_REPLAY_DATA, false,
			[&](nl_msg* m) {
				put_nest(m, SLABLAB_A_REPLAY, op_data,
					 [&] { put_replay_data(m, load, off, n, op_data); });
			},
			none, false);
	}
}

void Client::Impl::replay_wait(const Trace& trace, ReplayResult& res,
			       const ShouldStop& should_stop, std::chrono::milliseconds poll)
{
	auto none = [](nlattr**) {};
	auto parse = [&](nlattr** tb) { parse_replay(tb, &trace, res); };
	transact(SLABLAB_CMD_REPLAY_RUN, false, nullptr, parse, true);
	try {
		auto wait = std::chrono::milliseconds(1);
		while (res.state == SLABLAB_REPLAY_RUNNING) {
			if (should_stop && should_stop()) {
				transact(SLABLAB_CMD_REPLAY_STOP, false, nullptr, parse, true);
				break;
			}
			std::this_thread::sleep_for(wait);
			wait = std::min(wait * 2, poll);
			transact(SLABLAB_CMD_REPLAY_GET, false, nullptr, parse, true);
		}
	} catch (...) {
		// a failing callback (Python's KeyboardInterrupt) must not leave it running
		try {
			transact(SLABLAB_CMD_REPLAY_STOP, false, nullptr, none, true);
		} catch (...) {
		}
		throw;
	}
}

ReplayResult Client::replay(const Trace& trace, const ReplaySpec& spec,
			    const ShouldStop& should_stop, std::chrono::milliseconds poll)
{
	auto& d = impl();
	const ReplayLoad load = replay_load(trace, spec);
	ReplayResult res;
	res.target = spec.target;
	res.label = spec.target;
	res.page_size = page_size();
	res.recorded_cpus = trace.nr_cpus;
	res.events = load.events.size();
	d.replay_send(load);
	d.replay_wait(trace, res, should_stop, poll);
	return res;
}

ReplayResult Client::replay_stop()
{
	ReplayResult res;
	impl().transact(
		SLABLAB_CMD_REPLAY_STOP, false, [](nl_msg*) {},
		[&](nlattr** tb) { parse_replay(tb, nullptr, res); }, true);
	res.label = res.target;
	return res;
}

}  // namespace slabctl
