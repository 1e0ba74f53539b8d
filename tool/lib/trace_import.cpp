// SPDX-License-Identifier: GPL-2.0 OR MIT
// Importing other tools' traces of the kmem tracepoints (trace_import.hpp): tracefs text,
// perf script output, trace-cmd .dat (through dat_trace.c: libtracecmd's header is C
// only). Each gives RawEvents to build_trace(), the recorder's own path to a Trace.
#include "slabctl/trace_import.hpp"

#include "dat_trace.h"
#include "kmem_event.hpp"
#include "slabctl/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <unistd.h>

namespace slabctl {

namespace {

// the kernel's ZERO_OR_NULL_PTR() bound, as the recorder (kmem_trace.c)
constexpr uint64_t kZeroSizePtr = 16;
constexpr char kDatMagic[] = "\x17\x08\x44tracing";
constexpr size_t kDatMagicLen = sizeof kDatMagic - 1;

Error import_error(const std::string& msg, int err = EINVAL)
{
	return Error(err, "IMPORT", {}, msg);
}

std::vector<uint8_t> read_file(const std::string& path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f) {
		const int err = errno ? errno : ENOENT;
		throw import_error(fmt::format("cannot open {}: {}", path, std::strerror(err)), err);
	}
	std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)),
				  std::istreambuf_iterator<char>());
	if (f.bad())
		throw import_error(fmt::format("cannot read {}", path), EIO);
	return data;
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

bool all_digits(std::string_view s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <typename T>
bool parse_uint(std::string_view s, T& out, int base = 10)
{
	if (s.empty())
		return false;
	const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
	return ec == std::errc() && p == s.data() + s.size();
}

/// "123.456789" (tracefs, perf: µs; perf --ns and trace-cmd: ns) or "123456" (the counter
/// and x86-tsc clocks: taken as ns) into ns.
bool parse_ts(std::string_view s, uint64_t& ns)
{
	const size_t dot = s.find('.');
	uint64_t sec = 0, frac = 0;
	if (dot == std::string_view::npos)
		return parse_uint(s, ns);
	std::string_view f = s.substr(dot + 1);
	if (!parse_uint(s.substr(0, dot), sec) || f.empty() || f.size() > 9 || !parse_uint(f, frac))
		return false;
	for (size_t i = f.size(); i < 9; i++)
		frac *= 10;
	ns = sec * 1000000000ULL + frac;
	return true;
}

/// One event line: TASK-PID [CPU] [FLAGS] TIMESTAMP: [PERIOD] EVENT: FIELDS
struct EventLine {
	uint16_t cpu = 0;
	uint64_t ts_ns = 0;
	std::string_view system;	///< perf: "kmem"; tracefs text: empty
	std::string_view event;
	std::string_view fields;
};

/// Parses the shape of an event line; on failure `why` says what was expected.
bool parse_event_line(std::string_view line, EventLine& out, std::string& why)
{
	// the cpu: the first " [digits] " (a task's name may hold spaces and dashes)
	size_t pos = 0, close = 0;
	for (;;) {
		pos = line.find('[', pos);
		if (pos == std::string_view::npos) {
			why = "expected an event line: TASK-PID [CPU] TIMESTAMP: EVENT: FIELDS";
			return false;
		}
		close = line.find(']', pos);
		if (pos > 0 && line[pos - 1] == ' ' && close != std::string_view::npos &&
		    all_digits(line.substr(pos + 1, close - pos - 1)) &&
		    (close + 1 == line.size() || line[close + 1] == ' '))
			break;
		pos++;
	}
	unsigned cpu = 0;
	if (!parse_uint(line.substr(pos + 1, close - pos - 1), cpu) || cpu > 0xfffe) {
		why = "a cpu number below 65535 in [CPU]";
		return false;
	}
	out.cpu = static_cast<uint16_t>(cpu);
	std::string_view rest = line.substr(close + 1);
	auto next_token = [&rest]() {
		rest = trim(rest);
		const size_t end = std::min(rest.find(' '), rest.size());
		std::string_view tok = rest.substr(0, end);
		rest.remove_prefix(end);
		return tok;
	};
	std::string_view tok = next_token();
	if (!tok.empty() && tok.back() != ':')	// tracefs' irq-info flags (d..1.)
		tok = next_token();
	if (tok.size() < 2 || tok.back() != ':' || !parse_ts(tok.substr(0, tok.size() - 1), out.ts_ns)) {
		why = fmt::format("a timestamp (SECONDS.FRACTION:) after [{}], got '{}'", cpu, tok);
		return false;
	}
	tok = next_token();
	if (all_digits(tok))	// perf script's period, when its fields include it
		tok = next_token();
	if (tok.size() < 2 || tok.back() != ':') {
		why = fmt::format("an event name (EVENT: or SYSTEM:EVENT:) after the timestamp, "
				  "got '{}'",
				  tok);
		return false;
	}
	tok.remove_suffix(1);
	if (const size_t colon = tok.find(':'); colon != std::string_view::npos) {
		out.system = tok.substr(0, colon);
		out.event = tok.substr(colon + 1);
	} else {
		out.system = {};
		out.event = tok;
	}
	out.fields = trim(rest);
	return true;
}

/// The value of `key` in "k1=v1 k2=v2 ..." (a value runs to the next " word="; a cache's
/// name may hold spaces).
std::optional<std::string_view> field(std::string_view fields, std::string_view key)
{
	size_t pos = 0;
	while (pos < fields.size()) {
		const size_t at = fields.find(key, pos);
		if (at == std::string_view::npos)
			return std::nullopt;
		pos = at + 1;
		if ((at > 0 && fields[at - 1] != ' ') || at + key.size() >= fields.size() ||
		    fields[at + key.size()] != '=')
			continue;
		const size_t start = at + key.size() + 1;
		size_t end = start;
		for (;;) {
			end = fields.find(' ', end);
			if (end == std::string_view::npos) {
				end = fields.size();
				break;
			}
			// a following "word=" starts the next field
			size_t w = end + 1;
			while (w < fields.size() && (std::isalnum(static_cast<unsigned char>(fields[w])) ||
						     fields[w] == '_'))
				w++;
			if (w > end + 1 && w < fields.size() && fields[w] == '=')
				break;
			end++;
		}
		return fields.substr(start, end - start);
	}
	return std::nullopt;
}

/// %p as tracefs prints it (hashed: 000000001a2b3c4d; no_hash_pointers: ffff888...), as
/// libtraceevent prints it for perf and trace-cmd report (0xffff888...), or "(null)",
/// "(nil)".
bool parse_ptr(std::string_view s, uint64_t& ptr)
{
	if (s == "(null)" || s == "(nil)") {
		ptr = 0;
		return true;
	}
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s.remove_prefix(2);
	return parse_uint(s, ptr, 16);
}

enum class Kind { none, alloc, free };

/// The kmem events that are allocations and frees (the _node ones: kernels before 6.1)
Kind kmem_kind(std::string_view event, bool& kmalloc)
{
	kmalloc = event == "kmalloc" || event == "kmalloc_node" || event == "kfree";
	if (event == "kmalloc" || event == "kmalloc_node" || event == "kmem_cache_alloc" ||
	    event == "kmem_cache_alloc_node")
		return Kind::alloc;
	if (event == "kfree" || event == "kmem_cache_free")
		return Kind::free;
	return Kind::none;
}

/**
 * tracefs hashes %p, ZERO_SIZE_PTR (16) too: kfree(ZERO_SIZE_PTR), which 6.1 traces and
 * the recorder leaves out, is then a kfree of an address never allocated. Its hash is
 * the one kfree'd most often while not live, at least twice (a real object from before
 * the recording is freed once before its address is allocated again): those frees are
 * dropped and counted as null pointers. Only when every pointer is a 32-bit hash.
 */
void drop_hashed_zero_size_frees(std::vector<RawEvent>& raw, ImportReport& r)
{
	if (std::any_of(raw.begin(), raw.end(),
			[](const RawEvent& e) { return e.ptr > 0xffffffffULL; }))
		return;
	std::unordered_set<uint64_t> live;
	std::unordered_map<uint64_t, uint64_t> dead_kfrees;
	for (const RawEvent& e : raw) {
		if (e.op == TraceOp::alloc)
			live.insert(e.ptr);
		else if (!live.erase(e.ptr) && e.kmalloc)
			dead_kfrees[e.ptr]++;
	}
	uint64_t zp = 0, most = 1;
	for (const auto& [ptr, n] : dead_kfrees)
		if (n > most || (n == most && most > 1 && ptr < zp))
			zp = ptr, most = n;
	if (most < 2)
		return;
	live.clear();
	std::vector<RawEvent> kept;
	kept.reserve(raw.size());
	for (RawEvent& e : raw) {
		if (e.op == TraceOp::alloc)
			live.insert(e.ptr);
		else if (!live.erase(e.ptr) && e.kmalloc && e.ptr == zp) {
			r.null_pointers++;
			continue;
		}
		kept.push_back(std::move(e));
	}
	raw = std::move(kept);
}

[[noreturn]] void bad_line(const std::string& what, uint64_t line, const std::string& msg)
{
	throw import_error(fmt::format("{}:{}: {}", what, line, msg));
}

void need_events(const std::vector<RawEvent>& raw, const ImportReport& r)
{
	if (raw.empty())
		throw import_error(fmt::format(
			"{}: no kmem events (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free) in "
			"{} as {} ({} lines, {} records of other events)",
			r.input, r.input, trace_format_name(r.format), r.lines, r.other_events));
}

void check_text(const std::vector<uint8_t>& head, const std::string& path)
{
	if (std::find(head.begin(), head.end(), '\0') != head.end())
		throw import_error(fmt::format(
			"{}: unknown format at offset 0: expected a slablab trace (SLABTRC), a "
			"trace-cmd .dat (\\x17\\x08\\x44tracing), tracefs trace text or perf script "
			"output; this is binary",
			path));
}

ImportResult import_dat(const std::string& path)
{
	ImportResult res;
	res.report.input = path;
	res.report.format = TraceFormat::dat;
	std::vector<RawEvent> raw;
	struct Ctx {
		std::vector<RawEvent>* raw;
		ImportReport* report;
	} ctx{&raw, &res.report};
	dat_trace_counts counts{};
	const char* what = "";
	errno = 0;
	const int rc = dat_trace_read(
		path.c_str(),
		[](const kmem_trace_event* e, void* arg) {
			static_cast<Ctx*>(arg)->raw->push_back(raw_event(*e));
		},
		&ctx, &counts, &what);
	if (rc < 0) {
		const int err = errno ? errno : EINVAL;
		throw import_error(fmt::format("{}: {}", path, what), err);
	}
	res.report.other_events = counts.other_events;
	res.report.null_pointers = counts.null_pointers;
	need_events(raw, res.report);
	res.trace = build_trace(std::move(raw), counts.missed_events);
	return res;
}

}  // namespace

std::string_view trace_format_name(TraceFormat f)
{
	switch (f) {
	case TraceFormat::automatic:
		return "auto";
	case TraceFormat::native:
		return "native";
	case TraceFormat::text:
		return "text";
	case TraceFormat::perf:
		return "perf";
	case TraceFormat::dat:
		return "dat";
	}
	return "?";
}

std::optional<TraceFormat> trace_format_from_name(std::string_view name)
{
	for (TraceFormat f : {TraceFormat::automatic, TraceFormat::native, TraceFormat::text,
			      TraceFormat::perf, TraceFormat::dat})
		if (trace_format_name(f) == name)
			return f;
	return std::nullopt;
}

TraceFormat detect_trace_format(const std::string& path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f) {
		const int err = errno ? errno : ENOENT;
		throw import_error(fmt::format("cannot open {}: {}", path, std::strerror(err)), err);
	}
	std::vector<uint8_t> head(65536);
	f.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
	head.resize(static_cast<size_t>(f.gcount()));
	if (head.empty())
		throw import_error(fmt::format(
			"{}: empty: expected a slablab trace, a trace-cmd .dat, tracefs trace text or "
			"perf script output",
			path));
	if (head.size() >= sizeof kTraceMagic &&
	    std::memcmp(head.data(), kTraceMagic, sizeof kTraceMagic) == 0)
		return TraceFormat::native;
	if (head.size() >= kDatMagicLen && std::memcmp(head.data(), kDatMagic, kDatMagicLen) == 0)
		return TraceFormat::dat;
	check_text(head, path);
	// the first line that is neither a comment nor blank decides
	std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
	uint64_t lineno = 0;
	while (!text.empty()) {
		const size_t nl = text.find('\n');
		if (nl == std::string_view::npos && head.size() == 65536)
			break;	// a line longer than what was read: let the importer say
		std::string_view line = text.substr(0, nl);
		text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
		lineno++;
		const std::string_view t = trim(line);
		if (t.empty() || t.front() == '#' || t.starts_with("CPU:") ||
		    (lineno == 1 && t.starts_with("cpus=")))
			continue;
		EventLine ev;
		std::string why;
		if (!parse_event_line(line, ev, why))
			throw import_error(fmt::format(
				"{}:{}: unknown format: not a tracefs trace or perf script event line "
				"({})",
				path, lineno, why));
		return ev.system.empty() ? TraceFormat::text : TraceFormat::perf;
	}
	return TraceFormat::text;
}

ImportResult parse_trace_text(std::string_view text, const std::string& what, TraceFormat f)
{
	if (f != TraceFormat::text && f != TraceFormat::perf)
		throw UsageError("parse_trace_text: the format must be text or perf");
	ImportResult res;
	ImportReport& r = res.report;
	r.input = what;
	r.format = f;
	if (text.empty())
		throw import_error(fmt::format("{}: empty: expected {}", what,
					       f == TraceFormat::text ? "tracefs trace text"
								      : "perf script output"));
	if (text.back() != '\n')
		throw import_error(fmt::format("{}:{}: truncated: the last line has no newline",
					       what, std::count(text.begin(), text.end(), '\n') + 1));
	std::vector<RawEvent> raw;
	uint64_t lost_lines = 0;
	std::optional<uint64_t> header_lost;
	while (!text.empty()) {
		const size_t nl = text.find('\n');
		const std::string_view line = text.substr(0, nl);
		text.remove_prefix(nl + 1);
		r.lines++;
		const std::string_view t = trim(line);
		// trace-cmd report's first line ("cpus=2") is a header too
		if (t.empty() || t.front() == '#' || (r.lines == 1 && t.starts_with("cpus="))) {
			r.comment_lines++;
			// tracefs: "# entries-in-buffer/entries-written: 95/103   #P:2"
			unsigned long long in = 0, written = 0;
			if (t.starts_with("# entries-in-buffer/entries-written:") &&
			    std::sscanf(std::string(t).c_str(),
					"# entries-in-buffer/entries-written: %llu/%llu", &in,
					&written) == 2)
				header_lost = header_lost.value_or(0) + (written > in ? written - in : 0);
			continue;
		}
		// trace_pipe (and trace, per cpu): "CPU:1 [LOST 345 EVENTS]"
		if (t.starts_with("CPU:")) {
			unsigned cpu = 0;
			unsigned long long n = 0;
			if (std::sscanf(std::string(t).c_str(), "CPU:%u [LOST %llu EVENTS]", &cpu, &n) ==
			    2)
				lost_lines += n;
			else if (t.find("[LOST EVENTS]") != std::string_view::npos)
				lost_lines += 1;	// a count the kernel did not know: at least one
			else
				bad_line(what, r.lines,
					 fmt::format("expected CPU:N [LOST M EVENTS], got '{}'", t));
			r.comment_lines++;
			continue;
		}
		EventLine ev;
		std::string why;
		if (!parse_event_line(line, ev, why))
			bad_line(what, r.lines, why);
		if (f == TraceFormat::perf && ev.system.empty())
			bad_line(what, r.lines,
				 fmt::format("expected a perf script event (SYSTEM:EVENT:), got '{}:' "
					     "(tracefs text? --format text)",
					     ev.event));
		bool kmalloc = false;
		const Kind kind = (f == TraceFormat::text || ev.system == "kmem")
					  ? kmem_kind(ev.event, kmalloc)
					  : Kind::none;
		if (kind == Kind::none) {
			r.other_events++;
			r.other_by_name[std::string(ev.system.empty() ? "" : ev.system) +
					(ev.system.empty() ? "" : ":") + std::string(ev.event)]++;
			continue;
		}
		auto get = [&](std::string_view key) {
			const auto v = field(ev.fields, key);
			if (!v)
				bad_line(what, r.lines,
					 fmt::format("{} has no {}= field", ev.event, key));
			return *v;
		};
		auto number = [&](std::string_view key) {
			const std::string_view v = get(key);
			uint32_t n = 0;
			if (!parse_uint(v, n))
				bad_line(what, r.lines,
					 fmt::format("{}={}: expected a decimal number below 2^32",
						     key, v));
			return n;
		};
		RawEvent e;
		e.ts_ns = ev.ts_ns;
		e.cpu = ev.cpu;
		e.kmalloc = kmalloc;
		e.op = kind == Kind::alloc ? TraceOp::alloc : TraceOp::free;
		const std::string_view p = get("ptr");
		if (!parse_ptr(p, e.ptr))
			bad_line(what, r.lines,
				 fmt::format("ptr={}: expected a pointer in hex or (null)", p));
		if (e.ptr <= kZeroSizePtr) {
			r.null_pointers++;
			continue;
		}
		if (kind == Kind::alloc) {
			e.bytes_req = number("bytes_req");
			e.bytes_alloc = number("bytes_alloc");
		}
		// kmem_cache_free's name=, and 7.x's kmem_cache_alloc's
		if (!kmalloc)
			if (const auto name = field(ev.fields, "name"))
				e.cache = std::string(*name);
		raw.push_back(std::move(e));
	}
	drop_hashed_zero_size_frees(raw, r);
	need_events(raw, r);
	res.trace = build_trace(std::move(raw), header_lost.value_or(lost_lines));
	return res;
}

ImportResult import_trace(const std::string& path, TraceFormat f)
{
	if (f == TraceFormat::automatic)
		f = detect_trace_format(path);
	if (f == TraceFormat::dat)
		return import_dat(path);
	ImportResult res;
	res.report.input = path;
	res.report.format = f;
	const std::vector<uint8_t> data = read_file(path);
	if (f == TraceFormat::native) {
		res.trace = parse_trace(data, path);
		return res;
	}
	if (data.empty())
		throw import_error(fmt::format("{}: empty: expected {}", path,
					       f == TraceFormat::text ? "tracefs trace text"
								      : "perf script output"));
	check_text(std::vector<uint8_t>(data.begin(),
					data.begin() + static_cast<std::ptrdiff_t>(
							       std::min<size_t>(data.size(), 65536))),
		   path);
	return parse_trace_text(
		std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), path, f);
}

void write_trace_atomic(const Trace& t, const std::string& path)
{
	const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
	try {
		write_trace(t, tmp);
	} catch (...) {
		std::remove(tmp.c_str());
		throw;
	}
	if (std::rename(tmp.c_str(), path.c_str()) != 0) {
		const int err = errno;
		std::remove(tmp.c_str());
		throw import_error(fmt::format("cannot rename {} to {}: {}", tmp, path,
					       std::strerror(err)),
				   err);
	}
}

ImportResult import_trace_to(const std::string& path, const std::string& output, TraceFormat f)
{
	ImportResult res = import_trace(path, f);
	write_trace_atomic(res.trace, output);
	return res;
}

}  // namespace slabctl
