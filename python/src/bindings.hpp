// SPDX-License-Identifier: GPL-2.0 OR MIT
//
// slablab._core by area: PYBIND11_MODULE (module.cpp) calls each of these once, in this
// order. The Client's methods are bound by area too, onto the class bind_client() made.
#pragma once

#include <pybind11/pybind11.h>

namespace slabctl {
class Client;
}

namespace slablab_core {

using ClientClass = pybind11::class_<slabctl::Client>;

/// The spec's names and limits: STAT_NAMES, TUNABLES, DESIGNS, LIMITS, ... (bind_constants.cpp)
void bind_constants(pybind11::module_& m);
/// format_size, summarize, ratio_interval, student_t_quantile, main_figures (bind_stats.cpp)
void bind_stats(pybind11::module_& m);
/// native_caches, native_cache: the kernel's own caches (bind_native.cpp)
void bind_native(pybind11::module_& m);
/// record, import_trace, trace_events, read_trace (bind_trace.cpp)
void bind_trace(pybind11::module_& m);
/// Client: status, caches, objects, the lab's kmalloc settings (bind_client.cpp)
ClientClass bind_client(pybind11::module_& m);
/// Client.storm_start, storm_get, storm_stop, storm (bind_storm.cpp)
void bind_storm(ClientClass& client);
/// Client.replay, replay_compare, replay_stop (bind_replay.cpp)
void bind_replay(ClientClass& client);
/// Client.compare (bind_compare.cpp)
void bind_compare(ClientClass& client);

}  // namespace slablab_core
