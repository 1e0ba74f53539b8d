// SPDX-License-Identifier: GPL-2.0 OR MIT
// slablab._core's view of the kernel's own (SLUB) caches, read from /sys/kernel/slab:
// slabctl info --native.
#include "bindings.hpp"
#include "common.hpp"

#include <pybind11/stl.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace slablab_core {
namespace {

/// root=: the sysfs directory to read, default /sys/kernel/slab ($SLABCTL_SYSFS_SLAB).
std::filesystem::path native_root(const std::optional<std::string>& root)
{
	return root ? std::filesystem::path(*root) : slabctl::default_native_root();
}

}  // namespace

void bind_native(py::module_& m)
{
	m.def(
		"native_caches",
		[](const std::optional<std::string>& root, const std::vector<std::string>& patterns) {
			const std::filesystem::path r = native_root(root);
			std::vector<slabctl::NativeCache> caches;
			{
				py::gil_scoped_release nogil;
				caches = slabctl::read_native_caches(
					r, [&](const slabctl::NativeEntry& e) {
						if (patterns.empty())
							return true;
						for (const auto& p : patterns)
							if (slabctl::native_matches(p, e))
								return true;
						return false;
					});
			}
			py::list out;
			for (const auto& c : caches)
				out.append(to_py(slabctl::to_json(c)));
			return out;
		},
		py::arg("root") = py::none(), py::arg("patterns") = std::vector<std::string>{},
		"The kernel's own (SLUB) caches, read from /sys/kernel/slab (root=, or "
		"$SLABCTL_SYSFS_SLAB) as `slabctl info --native --json` shows them: one dict per "
		"cache ('allocator': 'slub'), merged caches once under a readable name with their "
		"'aliases'; figures that could not be read are None. patterns: shell patterns "
		"matched against name, aliases, sysfs_name and 'slub/<name>'. Needs no module; "
		"most files are readable by root only. Raises an Error (FileNotFoundError, "
		"PermissionError) when the directory itself cannot be read.");
	m.def(
		"native_cache",
		[](const std::string& name, const std::optional<std::string>& root) {
			const std::filesystem::path r = native_root(root);
			slabctl::NativeCache c;
			{
				py::gil_scoped_release nogil;
				slabctl::NativeListing l = slabctl::list_native_caches(r);
				const slabctl::NativeEntry* e = slabctl::find_native(l, name);
				if (!e)
					throw slabctl::Error(ENOENT, r.string(), {},
							     "no kernel cache '" + name + "' in " +
								     r.string());
				c = slabctl::read_native_cache(r, *e, true);
			}
			return to_py(slabctl::to_json(c, true));
		},
		py::arg("name"), py::arg("root") = py::none(),
		"One kernel cache by name, alias, sysfs directory name or 'slub/<name>', with "
		"everything `slabctl info -r NAME --native --json` has: the dict of "
		"native_caches() plus 'nodes', 'percpu_stats' and 'files' (every file read). "
		"Raises NotFound when there is no such cache.");}

}  // namespace slablab_core
