// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/json.hpp"

#include "slabctl/names.hpp"
#include "slabctl/tunables.hpp"

#include <cmath>
#include <cstring>
#include <system_error>

namespace slabctl {

Json json_envelope(std::string_view command)
{
	Json j = Json::object();
	j["schema"] = std::string(kJsonSchema);
	j["command"] = std::string(command);
	return j;
}

std::string errno_name(int err)
{
	// glibc's (2.32+); nullptr for a number it has no name for
	const char* name = err > 0 ? strerrorname_np(err) : nullptr;
	return name ? std::string(name) : std::string();
}

Json error_json(int err, std::string_view message, std::string_view op, std::string_view extack)
{
	auto str_or_null = [](std::string_view s) { return s.empty() ? Json(nullptr) : Json(s); };
	Json j = Json::object();
	j["errno"] = err > 0 ? err : 0;
	j["name"] = str_or_null(errno_name(err));
	j["message"] = std::string(message);
	j["extack"] = str_or_null(extack);
	j["op"] = str_or_null(op);
	return j;
}

Json to_json(const Error& e)
{
	return error_json(e.err, e.what(), e.op, e.extack);
}

Json to_json(const Status& s)
{
	Json j = Json::object();
	j["version"] = s.version;
	j["api_version"] = s.api_version;
	j["kernel_release"] = s.kernel_release;
	j["nr_cpu_ids"] = s.nr_cpu_ids;
	j["nr_online_cpus"] = s.nr_online_cpus;
	j["nr_nodes"] = s.nr_nodes;
	j["page_size"] = s.page_size;
	j["nr_caches"] = s.nr_caches;
	j["features"] = feature_names(s.features);
	j["features_value"] = s.features;
	j.update(lab_to_json(s));
	return j;
}

Json lab_to_json(const Status& s)
{
	Json j = Json::object();
	j["kmalloc_page_policy"] = page_policy_name(s.kmalloc_page_policy);
	j["kmalloc_design"] = design_name(s.kmalloc_design);
	j["kmalloc_lists"] = s.kmalloc_lists;
	return j;
}

Json stats_to_json(const StatArray& stats)
{
	Json j = Json::object();
	const auto& names = stat_names();
	for (std::size_t i = 0; i < kNrStats; i++)
		j[std::string(names[i])] = stats[i];
	return j;
}

Json to_json(const PerCpuInfo& p)
{
	Json j = Json::object();
	j["cpu"] = p.cpu;
	j["cpu_slab_objects"] = p.cpu_slab_objects;
	j["cpu_partial_slabs"] = p.cpu_partial_slabs;
	j["cpu_partial_objects"] = p.cpu_partial_objects;
	j["stats"] = stats_to_json(p.stats);
	return j;
}

Json to_json(const CacheInfo& c)
{
	Json j = Json::object();
	j["name"] = c.name;
	j["allocator"] = "slablab";
	j["size"] = c.size;
	j["align"] = c.align;
	// the tunables: numbers, an enum value's name, or flag names plus NAME_value
	for (const auto& d : kTunables) {
		const uint32_t v = c.*(d.in_info);
		const std::string key(d.name);
		switch (d.kind) {
		case TunableKind::NUM:
			j[key] = v;
			break;
		case TunableKind::ENUM:
			j[key] = d.value_name(v);
			break;
		case TunableKind::FLAGS:
			j[key] = cache_flag_names(v);
			j[key + "_value"] = v;
			break;
		}
	}
	j["obj_stride"] = c.obj_stride;
	j["objs_per_slab"] = c.objs_per_slab;
	j["order_default"] = c.order_default;
	j["owner"] = owner_name(c.owner);

	Json g = Json::object();
#define SLABCTL_GAUGE(attr, name, type) g[#name] = c.name;
	SLABLAB_CACHE_GAUGES(SLABCTL_GAUGE)
#undef SLABCTL_GAUGE
	j["gauges"] = std::move(g);

	if (c.slabs_freed)
		j["slabs_freed"] = *c.slabs_freed;
	if (c.has_stats)
		j["stats"] = stats_to_json(c.stats);
	if (c.has_percpu) {
		Json list = Json::array();
		for (const auto& p : c.percpu)
			list.push_back(to_json(p));
		j["percpu"] = std::move(list);
	}
	if (c.has_layers) {
		Json l = Json::object();
#define SLABCTL_LAYER(attr, name)                                                         \
	if (c.layers.name)                                                                   \
		l[#name] = *c.layers.name;
		SLABLAB_CACHE_LAYERS(SLABCTL_LAYER)
#undef SLABCTL_LAYER
		j["layers"] = std::move(l);
	}
	if (c.has_occupancy) {
		Json h = Json::array();
		for (const auto& b : c.occupancy)
			h.push_back({{"lo", b.lo}, {"hi", b.hi}, {"slabs", b.slabs}});
		j["occupancy"] = std::move(h);
	}
	return j;
}

namespace {

Json opt_num(const std::optional<uint64_t>& v)
{
	return v ? Json(*v) : Json(nullptr);
}

Json parts_json(const std::vector<NativePart>& parts)
{
	Json j = Json::object();
	for (const auto& p : parts)
		j[std::to_string(p.id)] = p.value;
	return j;
}

}  // namespace

Json to_json(const NativeCache& c, bool full)
{
	Json j = Json::object();
	j["name"] = c.name;
	j["allocator"] = "slub";
	j["sysfs_name"] = c.dir;
	j["aliases"] = c.aliases;
	j["size"] = opt_num(c.object_size);
	j["align"] = opt_num(c.align);
	const auto table = native_flag_table();
	bool any_flag = false;
	Json flags = Json::array();
	for (std::size_t i = 0; i < table.size() && i < c.flags.size(); i++) {
		if (!c.flags[i])
			continue;
		any_flag = true;
		if (*c.flags[i])
			flags.push_back(std::string(table[i].file));
	}
	j["flags"] = any_flag ? std::move(flags) : Json(nullptr);
	j["cpu_partial"] = opt_num(c.cpu_partial);
	j["min_partial"] = opt_num(c.min_partial);
	j["order"] = opt_num(c.order);
	j["obj_stride"] = opt_num(c.slab_size);
	j["objs_per_slab"] = opt_num(c.objs_per_slab);
	j["merged"] = opt_num(c.merged);
	j["usersize"] = opt_num(c.usersize);

	Json g = Json::object();
	g["objects"] = opt_num(c.objects);
	g["total_objects"] = opt_num(c.total_objects);
	g["slabs"] = opt_num(c.slabs);
	g["partial_slabs"] = opt_num(c.partial);
	// SLUB's cpu_slabs file counts active and cpu partial slabs together; split them as
	// slablab's gauges are (cpu_slabs + cpu_partial_slabs is the file's number)
	std::optional<uint64_t> active;
	if (c.cpu_slabs && c.cpu_partial_slabs)
		active = *c.cpu_slabs > *c.cpu_partial_slabs ? *c.cpu_slabs - *c.cpu_partial_slabs
							     : 0;
	g["cpu_slabs"] = opt_num(active);
	g["cpu_partial_slabs"] = opt_num(c.cpu_partial_slabs);
	g["objects_partial"] = opt_num(c.objects_partial);
	g["pages"] = opt_num(c.pages());
	std::optional<uint64_t> live;
	if (c.objects && c.object_size)
		live = *c.objects * *c.object_size;
	g["live_bytes"] = opt_num(live);
	g["meta_bytes"] = nullptr;
	j["gauges"] = std::move(g);

	if (c.has_stats()) {
		Json st = Json::object();
		const auto& names = stat_names();
		for (std::size_t i = 0; i < kNrStats; i++)
			st[std::string(names[i])] = opt_num(c.stats[i]);
		j["stats"] = std::move(st);
	} else {
		j["stats"] = nullptr;
	}
	Json bad = Json::object();
	for (const NativeFile* f : c.unreadable())
		bad[f->name] = std::generic_category().message(f->err);
	j["unreadable"] = std::move(bad);

	if (full) {
		Json nodes = Json::object();
		auto node = [&](std::string_view file, const std::vector<NativePart>& parts) {
			if (!parts.empty())
				nodes[std::string(file)] = parts_json(parts);
		};
		node("objects", c.objects_nodes);
		node("total_objects", c.total_objects_nodes);
		node("slabs", c.slabs_nodes);
		node("partial", c.partial_nodes);
		node("cpu_slabs", c.cpu_slabs_nodes);
		node("objects_partial", c.objects_partial_nodes);
		j["nodes"] = std::move(nodes);
		if (c.has_stats()) {
			Json pc = Json::object();
			const auto& names = stat_names();
			for (std::size_t i = 0; i < kNrStats; i++)
				if (c.stats[i])
					pc[std::string(names[i])] = parts_json(c.stats_cpus[i]);
			j["percpu_stats"] = std::move(pc);
		} else {
			j["percpu_stats"] = nullptr;
		}
		Json files = Json::object();
		for (const auto& f : c.files)
			if (!f.absent())
				files[f.name] = f.err ? Json(nullptr) : Json(f.text);
		j["files"] = std::move(files);
	}
	return j;
}

Json to_json(const ValidateReport& v)
{
	Json j = Json::object();
	j["cache"] = v.cache;
	j["ok"] = v.ok();
	j["slabs"] = v.slabs;
	j["objects"] = v.objects;
	j["free_objects"] = v.free_objects;
	j["errors"] = v.errors;
	if (v.first_error.empty())
		j["first_error"] = nullptr;
	else
		j["first_error"] = v.first_error;
	return j;
}

Json to_json(const Handle& h)
{
	Json j = Json::object();
	j["handle"] = h.id;
	j["count"] = h.count;
	return j;
}

namespace {

template <typename T>
Json opt(const std::optional<T>& v)
{
	return v ? Json(*v) : Json(nullptr);
}

Json opt_str(const std::string& v)
{
	return v.empty() ? Json(nullptr) : Json(v);
}

}  // namespace

Json to_json(const StormSpec& s)
{
	Json j = Json::object();
	j["target"] = target_name(s.target);
	j["pattern"] = storm_pattern_name(s.pattern);
	j["cache"] = opt_str(s.cache);
	j["size"] = opt(s.size);
	Json sizes = Json::array();
	for (const auto& e : s.sizes)
		sizes.push_back(Json{{"size", e.size}, {"weight", e.weight}});
	j["sizes"] = std::move(sizes);
	j["threads"] = opt(s.threads);
	j["cpus"] = opt_str(s.cpus);
	j["ops"] = opt(s.ops);
	j["duration_ms"] = opt(s.duration_ms);
	j["batch"] = opt(s.batch);
	j["working_set"] = opt(s.working_set);
	j["ring"] = opt(s.ring);
	j["seed"] = opt(s.seed);
	j["max_live_bytes"] = opt(s.max_live_bytes);
	j["thin"] = opt(s.thin);
	j["rate"] = opt(s.rate);
	j["producers"] = opt(s.producers);
	return j;
}

Json to_json(const StormFigures& f)
{
	Json j = Json::object();
	for (const auto& fi : figure_table())
		j[std::string(fi.key)] = opt(figure_value(f, fi.key));
	j["peak_bytes"] = opt(f.peak_bytes);
	return j;
}

Json to_json(const StormResult& r)
{
	Json j = Json::object();
	j["id"] = r.id;
	j["state"] = storm_state_name(r.state);
	j["interrupted"] = r.interrupted;
	j["spec"] = r.has_spec ? to_json(r.spec) : Json(nullptr);	// null: no storm has run
	j["progress"] = Json{{"ops_planned", r.ops_planned},
			     {"ops_done", r.ops_done},
			     {"elapsed_ns", r.elapsed_ns}};
	if (r.has_results) {
		Json res = Json::object();
		res["allocs"] = r.allocs;
		res["frees"] = r.frees;
		res["alloc_cycles"] = r.alloc_cycles;
		res["free_cycles"] = r.free_cycles;
		res["pair_cycles"] = r.pair_cycles;
		res["loop_cycles_x1000"] = r.loop_cycles_x1000;
		res["failures"] = r.failures;
		res["remote_frees"] = r.remote_frees;
		res["peak_pages"] = r.peak_pages;
		res["peak_live_bytes"] = r.peak_live_bytes;
		res["meta_bytes"] = r.meta_bytes;
		res["steady_pages"] = r.steady_pages;
		res["steady_live_bytes"] = r.steady_live_bytes;
		res["steady_samples"] = r.steady_samples;
		res["shrunk_pages"] = opt(r.shrunk_pages);
		res["shrunk_live_bytes"] = opt(r.shrunk_live_bytes);
		res["rcu_waiting_peak"] = opt(r.rcu_waiting_peak);
		res["rcu_waiting_mean"] = opt(r.rcu_waiting_mean);
		res["rcu_waiting_end"] = opt(r.rcu_waiting_end);
		res["rcu_pages_peak"] = opt(r.rcu_pages_peak);
		res["rcu_samples"] = r.rcu_samples;
		res["cycles_per_sec"] = r.cycles_per_sec;
		res["features"] = r.features ? Json(feature_names(*r.features)) : Json(nullptr);
		res["features_value"] = opt(r.features);
		res["cache_flags"] =
			r.cache_flags ? Json(cache_flag_names(*r.cache_flags)) : Json(nullptr);
		res["cache_flags_value"] = opt(r.cache_flags);
		res["native_name"] = opt_str(r.native_name);
		Json threads = Json::array();
		for (const auto& t : r.threads) {
			Json tj = Json::object();
			tj["cpu"] = t.cpu;
			tj["ops"] = t.ops;
			tj["cycles"] = t.cycles;
			tj["ns"] = t.ns;
			tj["ops_per_sec"] = t.ns ? Json(static_cast<double>(t.ops) * 1e9 /
							static_cast<double>(t.ns))
						 : Json(nullptr);
			threads.push_back(std::move(tj));
		}
		res["threads"] = std::move(threads);
		res["stats"] = r.has_stats ? stats_to_json(r.stats) : Json(nullptr);
		j["result"] = std::move(res);
	} else {
		j["result"] = nullptr;
	}
	j["figures"] = to_json(storm_figures(r));
	j["page_size"] = r.page_size;
	return j;
}

Json to_json(const Summary& s)
{
	Json j = Json::object();
	j["n"] = s.n;
	auto v = [&](double x) { return s.n ? Json(x) : Json(nullptr); };
	j["min"] = v(s.min);
	j["median"] = v(s.median);
	j["mean"] = v(s.mean);
	j["max"] = v(s.max);
	j["sd"] = v(s.sd);
	return j;
}

namespace {

const char* verdict_name(Verdict v)
{
	switch (v) {
	case Verdict::same:
		return "same";
	case Verdict::higher:
		return "higher";
	case Verdict::lower:
		return "lower";
	case Verdict::inconclusive:
		return "inconclusive";
	default:
		return "none";
	}
}

}  // namespace

Json to_json(const CompareResult& c)
{
	Json j = Json::object();
	j["pattern"] = storm_pattern_name(c.spec.base.pattern);
	j["repeat"] = c.spec.repeat;
	j["repeats_done"] = c.repeats_done;
	j["warmup"] = c.spec.warmup;
	j["until"] = c.spec.until ? Json(*c.spec.until) : Json(nullptr);
	j["until_met"] = c.until_met;
	j["max_repeats"] = c.spec.max_repeats;
	j["aa"] = c.spec.aa;
	j["noise_floor"] = c.spec.noise_floor;
	j["tolerance"] = compare_tolerance(c.spec);
	j["bootstrap_seed"] = c.spec.bootstrap_seed;
	Json ctx = Json::object();
	ctx["kernel_release"] = c.context.kernel_release;
	ctx["vm_cpus"] = c.context.cpus ? Json(*c.context.cpus) : Json(nullptr);
	ctx["vm_memory_mb"] = c.context.memory_mb ? Json(*c.context.memory_mb) : Json(nullptr);
	ctx["vm_icount"] = c.context.icount.empty() ? Json(nullptr) : Json(c.context.icount);
	ctx["design"] = c.context.design;
	ctx["slablab_commit"] = c.context.commit;
	j["context"] = std::move(ctx);
	j["interrupted"] = c.interrupted;
	j["restore_error"] = c.restore_error.empty() ? Json(nullptr) : Json(c.restore_error);
	j["figures"] = c.figures;
	Json variants = Json::array();
	for (std::size_t vi = 0; vi < c.variants.size(); vi++) {
		const CompareVariant& v = c.variants[vi];
		Json vj = Json::object();
		vj["label"] = v.label;
		vj["target"] = target_name(v.spec.target);
		vj["set"] = v.set_text.empty() ? Json(nullptr) : Json(v.set_text);
		vj["threads"] = v.spec.threads ? Json(*v.spec.threads) : Json(nullptr);
		vj["spec"] = to_json(v.spec);
		Json summary = Json::object();
		for (std::size_t fi = 0; fi < c.figures.size() && fi < c.summaries.size(); fi++) {
			const FigureSummary& fs = c.summaries[fi].at(vi);
			Json sj = to_json(fs.values);
			sj["ratio"] = fs.ratio ? Json(*fs.ratio) : Json(nullptr);
			Json paired = Json::object();
			paired["n"] = fs.paired.n;
			auto pv = [&](double x) { return fs.paired.n ? Json(x) : Json(nullptr); };
			paired["median"] = pv(fs.paired.median);
			paired["min"] = pv(fs.paired.min);
			paired["max"] = pv(fs.paired.max);
			sj["paired_ratio"] = std::move(paired);
			Json ci = nullptr;
			if (fs.ci) {
				ci = Json::object();
				ci["n"] = fs.ci->n;
				ci["ratio"] = fs.ci->ratio;
				ci["lo"] = fs.ci->lo;
				ci["hi"] = fs.ci->hi;
				ci["sd"] = fs.ci->sd;
				ci["p"] = fs.ci->p;
				const double mde = min_detectable_log_effect(fs.ci->sd, fs.ci->n);
				ci["mde"] = std::isfinite(mde) ? Json(std::expm1(mde)) : Json(nullptr);
			}
			sj["ci"] = std::move(ci);
			sj["verdict"] = verdict_name(fs.verdict);
			sj["outliers"] = fs.outliers;
			summary[c.figures[fi]] = std::move(sj);
		}
		vj["summary"] = std::move(summary);
		variants.push_back(std::move(vj));
	}
	j["variants"] = std::move(variants);
	Json runs = Json::array();
	for (const auto& run : c.runs) {
		Json rj = Json::object();
		rj["variant"] = run.variant;
		rj["label"] = c.variants.at(run.variant).label;
		rj["repeat"] = run.repeat;
		rj["warmup"] = run.warmup;
		rj["counted"] = run.counted();
		rj["tunables"] = run.tunables;
		rj["design"] = run.design.empty() ? c.context.design : run.design;
		rj["storm"] = to_json(run.result);
		runs.push_back(std::move(rj));
	}
	j["runs"] = std::move(runs);
	return j;
}

}  // namespace slabctl
