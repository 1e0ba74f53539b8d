// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "slabctl/json.hpp"

#include "slabctl/names.hpp"

namespace slabctl {


Json json_envelope(std::string_view command)
{
	Json j = Json::object();
	j["schema"] = std::string(kJsonSchema);
	j["command"] = std::string(command);
	return j;
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
	j["kmalloc_page_policy"] = page_policy_name(s.kmalloc_page_policy);
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
	j["size"] = c.size;
	j["align"] = c.align;
	j["flags"] = cache_flag_names(c.flags);
	j["flags_value"] = c.flags;
	j["cpu_partial"] = c.cpu_partial;
	j["min_partial"] = c.min_partial;
	j["order"] = c.order;
	j["fastpath"] = fastpath_name(c.fastpath);
	j["obj_stride"] = c.obj_stride;
	j["objs_per_slab"] = c.objs_per_slab;
	j["order_default"] = c.order_default;
	j["owner"] = owner_name(c.owner);

	Json g = Json::object();
	g["objects"] = c.objects;
	g["total_objects"] = c.total_objects;
	g["slabs"] = c.slabs;
	g["partial_slabs"] = c.partial_slabs;
	g["cpu_slabs"] = c.cpu_slabs;
	g["cpu_partial_slabs"] = c.cpu_partial_slabs;
	g["pages"] = c.pages;
	g["live_bytes"] = c.live_bytes;
	g["meta_bytes"] = c.meta_bytes;
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

}  // namespace slabctl
