// SPDX-License-Identifier: GPL-2.0 OR MIT
// Allocation traces: building one from the recorder's events, writing and reading the
// file format of docs/replay.md (little endian, a versioned header).
#include "slabctl/trace.hpp"

#include "slabctl/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <unordered_map>

namespace slabctl {

namespace {

constexpr uint32_t kHeaderSize = 80;
constexpr uint32_t kEventSize = 32;

Error trace_error(int err, const std::string& msg)
{
	return Error(err, "TRACE", {}, msg);
}

class Writer {
public:
	void u8(uint8_t v) { buf.push_back(v); }
	void u16(uint16_t v) { le(v, 2); }
	void u32(uint32_t v) { le(v, 4); }
	void u64(uint64_t v) { le(v, 8); }
	void bytes(const void* p, size_t n)
	{
		const auto* b = static_cast<const uint8_t*>(p);
		buf.insert(buf.end(), b, b + n);
	}
	std::vector<uint8_t> buf;

private:
	void le(uint64_t v, int n)
	{
		for (int i = 0; i < n; i++)
			buf.push_back(static_cast<uint8_t>(v >> (8 * i)));
	}
};

class Reader {
public:
	Reader(const std::vector<uint8_t>& d, const std::string& w) : data(d), what(w) {}
	uint64_t le(int n, const char* field)
	{
		need(static_cast<size_t>(n), field);
		uint64_t v = 0;
		for (int i = 0; i < n; i++)
			v |= static_cast<uint64_t>(data[pos + i]) << (8 * i);
		pos += n;
		return v;
	}
	std::string str(size_t n, const char* field)
	{
		need(n, field);
		std::string s(reinterpret_cast<const char*>(&data[pos]), n);
		pos += n;
		return s;
	}
	void need(size_t n, const char* field) const
	{
		if (data.size() - pos < n)
			throw trace_error(EINVAL, fmt::format("{}: truncated at offset {}: {} needs {} "
							      "bytes, {} left",
							      what, pos, field, n,
							      data.size() - pos));
	}
	[[noreturn]] void bad(size_t at, const std::string& msg) const
	{
		throw trace_error(EINVAL, fmt::format("{}: bad trace at offset {}: {}", what, at,
						      msg));
	}
	const std::vector<uint8_t>& data;
	const std::string& what;
	size_t pos = 0;
};

}  // namespace

Trace build_trace(std::vector<RawEvent> raw, uint64_t lost_events)
{
	std::stable_sort(raw.begin(), raw.end(),
			 [](const RawEvent& a, const RawEvent& b) { return a.ts_ns < b.ts_ns; });
	Trace t;
	t.lost_events = lost_events;
	// first pass: ids, and each id's cache name (from its free)
	std::unordered_map<uint64_t, uint32_t> live;	// ptr -> id
	std::vector<uint32_t> ids(raw.size(), 0);
	std::vector<std::string> name_of(1);	// by id
	std::vector<uint32_t> size_of(1);
	for (size_t i = 0; i < raw.size(); i++) {
		const RawEvent& e = raw[i];
		if (e.op == TraceOp::alloc) {
			const auto id = static_cast<uint32_t>(name_of.size());
			auto [it, fresh] = live.try_emplace(e.ptr, id);
			if (!fresh) {	// a live pointer again: its free was not traced
				t.lost_frees++;
				it->second = id;
			}
			ids[i] = id;
			// 7.x's kmem_cache_alloc names its cache; the free's name, when there is
			// one, wins below
			name_of.push_back(e.kmalloc ? std::string() : e.cache);
			size_of.push_back(e.bytes_alloc);
		} else if (auto it = live.find(e.ptr); it != live.end()) {
			ids[i] = it->second;
			if (!e.kmalloc && !e.cache.empty())
				name_of[it->second] = e.cache;
			live.erase(it);
		}
	}
	t.nr_objects = name_of.size() - 1;
	// ids never freed: the live pointers and the objects whose free was not traced
	t.live_at_end = live.size() + t.lost_frees;
	std::map<std::string, uint16_t> cache_ids;
	auto intern = [&](const std::string& name, uint32_t size) -> uint16_t {
		auto [it, fresh] = cache_ids.try_emplace(name, 0);
		if (fresh) {
			if (t.caches.size() >= 0xfffe)
				throw trace_error(E2BIG, "more than 65534 caches in a trace");
			t.caches.push_back({name, size, 0});
			it->second = static_cast<uint16_t>(t.caches.size());
		}
		return it->second;
	};
	std::vector<uint16_t> cache_of(name_of.size(), 0);
	std::vector<bool> freed(name_of.size(), false);
	uint64_t live_bytes = 0;
	const uint64_t t0 = raw.empty() ? 0 : raw.front().ts_ns;
	for (size_t i = 0; i < raw.size(); i++) {
		const RawEvent& e = raw[i];
		TraceEvent out;
		out.ts_ns = e.ts_ns - t0;
		out.object = ids[i];
		out.bytes_req = e.bytes_req;
		out.bytes_alloc = e.bytes_alloc;
		out.gfp = e.gfp;
		out.cpu = e.cpu;
		out.op = e.op;
		t.nr_cpus = std::max<uint32_t>(t.nr_cpus, e.cpu + 1U);
		if (e.op == TraceOp::alloc) {
			if (!e.kmalloc) {
				const std::string& n = name_of[out.object];
				cache_of[out.object] =
					intern(n.empty() ? fmt::format("size-{}", e.bytes_alloc) : n,
					       e.bytes_req ? e.bytes_req : e.bytes_alloc);
			}
			out.cache = cache_of[out.object];
			live_bytes += e.bytes_alloc;
			t.peak_live_bytes = std::max(t.peak_live_bytes, live_bytes);
		} else if (out.object) {
			out.cache = cache_of[out.object];
			out.bytes_req = 0;
			out.bytes_alloc = size_of[out.object];
			live_bytes -= size_of[out.object];
		} else {
			t.unmatched_frees++;
		}
		t.events.push_back(out);
	}
	if (!raw.empty())
		t.duration_ns = raw.back().ts_ns - t0;
	return t;
}

void write_trace(const Trace& t, const std::string& path)
{
	Writer w;
	w.bytes(kTraceMagic, sizeof kTraceMagic);
	w.u32(kTraceVersion);
	w.u32(kHeaderSize);
	w.u32(t.nr_cpus);
	w.u32(static_cast<uint32_t>(t.caches.size()));
	w.u64(t.events.size());
	w.u64(t.nr_objects);
	w.u64(t.lost_events);
	w.u64(t.unmatched_frees);
	w.u64(t.live_at_end);
	w.u64(t.peak_live_bytes);
	w.u64(t.duration_ns);
	for (const TraceCache& c : t.caches) {
		w.u32(c.object_size);
		w.u32(c.align);
		w.u16(static_cast<uint16_t>(c.name.size()));
		w.bytes(c.name.data(), c.name.size());
	}
	for (const TraceEvent& e : t.events) {
		w.u64(e.ts_ns);
		w.u32(e.object);
		w.u32(e.bytes_req);
		w.u32(e.bytes_alloc);
		w.u32(e.gfp);
		w.u16(e.cpu);
		w.u16(e.cache);
		w.u8(static_cast<uint8_t>(e.op));
		w.u8(0);
		w.u16(0);
	}
	std::ofstream f(path, std::ios::binary | std::ios::trunc);
	if (!f)
		throw trace_error(errno ? errno : EIO, fmt::format("cannot open {}: {}", path,
								   std::strerror(errno)));
	f.write(reinterpret_cast<const char*>(w.buf.data()),
		static_cast<std::streamsize>(w.buf.size()));
	f.close();
	if (!f)
		throw trace_error(EIO, fmt::format("cannot write {}", path));
}

Trace parse_trace(const std::vector<uint8_t>& data, const std::string& what)
{
	Reader r(data, what);
	Trace t;
	r.need(sizeof kTraceMagic, "the magic");
	if (std::memcmp(data.data(), kTraceMagic, sizeof kTraceMagic) != 0)
		r.bad(0, "not a slablab trace (magic is not \"SLABTRC\")");
	r.pos = sizeof kTraceMagic;
	const auto version = static_cast<uint32_t>(r.le(4, "the version"));
	if (version != kTraceVersion)
		r.bad(8, fmt::format("version {}, this slabctl reads version {}", version,
				     kTraceVersion));
	const auto header_size = static_cast<uint32_t>(r.le(4, "the header size"));
	if (header_size < kHeaderSize)
		r.bad(12, fmt::format("header size {} below {}", header_size, kHeaderSize));
	t.nr_cpus = static_cast<uint32_t>(r.le(4, "nr_cpus"));
	const auto nr_caches = static_cast<uint32_t>(r.le(4, "nr_caches"));
	const uint64_t nr_events = r.le(8, "nr_events");
	t.nr_objects = r.le(8, "nr_objects");
	t.lost_events = r.le(8, "lost_events");
	t.unmatched_frees = r.le(8, "unmatched_frees");
	t.live_at_end = r.le(8, "live_at_end");
	t.peak_live_bytes = r.le(8, "peak_live_bytes");
	t.duration_ns = r.le(8, "duration_ns");
	r.need(header_size - kHeaderSize, "the rest of the header");
	r.pos = header_size;
	if (nr_caches > 0xfffe)
		r.bad(20, fmt::format("{} caches, at most 65534", nr_caches));
	for (uint32_t i = 0; i < nr_caches; i++) {
		TraceCache c;
		c.object_size = static_cast<uint32_t>(r.le(4, "a cache's object size"));
		c.align = static_cast<uint32_t>(r.le(4, "a cache's alignment"));
		const auto len = static_cast<size_t>(r.le(2, "a cache's name length"));
		c.name = r.str(len, "a cache's name");
		t.caches.push_back(std::move(c));
	}
	const size_t at = r.pos;
	if (nr_events > (data.size() - at) / kEventSize)
		throw trace_error(EINVAL,
				  fmt::format("{}: truncated at offset {}: {} events need {} bytes, "
					      "{} left",
					      what, data.size() - (data.size() - at) % kEventSize,
					      nr_events, nr_events * kEventSize, data.size() - at));
	t.events.reserve(nr_events);
	for (uint64_t i = 0; i < nr_events; i++) {
		const size_t off = r.pos;
		TraceEvent e;
		e.ts_ns = r.le(8, "ts");
		e.object = static_cast<uint32_t>(r.le(4, "object"));
		e.bytes_req = static_cast<uint32_t>(r.le(4, "bytes_req"));
		e.bytes_alloc = static_cast<uint32_t>(r.le(4, "bytes_alloc"));
		e.gfp = static_cast<uint32_t>(r.le(4, "gfp"));
		e.cpu = static_cast<uint16_t>(r.le(2, "cpu"));
		e.cache = static_cast<uint16_t>(r.le(2, "cache"));
		const auto op = static_cast<uint8_t>(r.le(1, "op"));
		r.pos += 3;
		if (op != 1 && op != 2)
			r.bad(off + 28, fmt::format("event {}: op {} (1 alloc, 2 free)", i, op));
		e.op = static_cast<TraceOp>(op);
		if (e.cache > t.caches.size())
			r.bad(off + 26, fmt::format("event {}: cache {} of {}", i, e.cache,
						    t.caches.size()));
		if (e.cpu >= t.nr_cpus)
			r.bad(off + 24, fmt::format("event {}: cpu {} of {}", i, e.cpu, t.nr_cpus));
		if (e.object > t.nr_objects || (!e.object && e.op == TraceOp::alloc))
			r.bad(off + 8, fmt::format("event {}: object {} of {}", i, e.object,
						   t.nr_objects));
		t.events.push_back(e);
	}
	if (r.pos != data.size())
		r.bad(r.pos, fmt::format("{} bytes after the last event", data.size() - r.pos));
	return t;
}

Trace read_trace(const std::string& path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		throw trace_error(errno ? errno : ENOENT, fmt::format("cannot open {}: {}", path,
								      std::strerror(errno)));
	std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)),
				  std::istreambuf_iterator<char>());
	return parse_trace(data, path);
}

}  // namespace slabctl
