// SPDX-License-Identifier: GPL-2.0 OR MIT
// libslabctl: JSON forms of the typed structs. The same objects are slabctl's --json output
// and the dicts the Python package returns; docs/slabctl.md documents the schema.
#pragma once

#include "slabctl/compare.hpp"
#include "slabctl/error.hpp"
#include "slabctl/native.hpp"
#include "slabctl/storm.hpp"
#include "slabctl/types.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace slabctl {

/// Every top-level JSON document slabctl prints has "schema": kJsonSchema. The number goes
/// up when a key changes meaning or disappears; new keys may appear at any time.
inline constexpr std::string_view kJsonSchema = "slablab/1";

/// Objects keep their keys in the documented order.
using Json = nlohmann::ordered_json;

/// {"schema": "slablab/1", "command": command}
Json json_envelope(std::string_view command);

/// The symbolic name of an errno ("ENOENT"), empty when the C library has none for it.
std::string errno_name(int err);
/**
 * A failure as slabctl -j prints it (docs/slabctl.md, "Errors as JSON"): {"errno": N,
 * "name": "ENOENT" or null, "message": the sentence the text mode prints, "extack": the
 * kernel's extended ack or null, "op": the netlink operation ("CACHE_NEW") or null}.
 */
Json error_json(int err, std::string_view message, std::string_view op = {},
		std::string_view extack = {});
Json to_json(const Error& e);

Json to_json(const Status& s);
/// The module-wide settings of a status (`slabctl lab show -j`, `lab set -j`):
/// {"kmalloc_page_policy", "kmalloc_design", "kmalloc_lists"}, as to_json(Status) has them.
Json lab_to_json(const Status& s);
/// {"alloc_fastpath": n, …} with every stat item.
Json stats_to_json(const StatArray& stats);
Json to_json(const PerCpuInfo& p);
/// The cache; "stats" only if the kernel sent them, "percpu" only if it sent the breakdown,
/// "slabs_freed" only in shrink replies.
Json to_json(const CacheInfo& c);
/**
 * A kernel (SLUB) cache: "allocator": "slub", the keys a slablab cache has where SLUB has
 * the same figure (null when unknown), sysfs_name, aliases, merged, usersize,
 * gauges.objects_partial, "unreadable" (file: error). With full (info -r --native) also
 * "nodes" (per-node parts), "percpu_stats" and "files" (every file read: its text, null
 * when it could not be read). docs/slabctl.md has the schema.
 */
Json to_json(const NativeCache& c, bool full = false);
Json to_json(const ValidateReport& v);
Json to_json(const Handle& h);

/// The storm spec: every key present, null where unset (the kernel's default).
Json to_json(const StormSpec& s);
/// Derived figures: every key present, null where undefined.
Json to_json(const StormFigures& f);
/// A storm: id, state, interrupted, spec, progress, result (null until finished),
/// figures, page_size. docs/slabctl.md has the schema.
Json to_json(const StormResult& r);
/// Summary statistics: n, min, median, mean, max, sd (null values when n is 0).
Json to_json(const Summary& s);
/// A compare: pattern, repeat, interrupted, figures, variants (label, set, spec, summary
/// per figure) and runs (variant, repeat, storm). docs/slabctl.md has the schema.
Json to_json(const CompareResult& c);

}  // namespace slabctl
