# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab: Python control of the slablab kernel slab allocator.

A thin layer over libslabctl (the C++ library behind ``slabctl``), bound with pybind11::

    import slablab

    client = slablab.Client()               # raises slablab.ModuleNotLoaded without the module
    print(client.version(), client.status()["nr_online_cpus"])
    with client.cache("t64", size=64) as c:  # created here, destroyed at the end
        h = c.alloc(1000, cpu=0)
        print(c.stats["alloc_fastpath"], c.gauges["slabs"])
        r = client.storm("slablab", "pair", cache="t64", ops=10000)   # blocks; Ctrl-C stops it
        print(r["figures"]["cycles_per_pair"], r["figures"]["ops_per_sec"])

Results are plain dicts with the keys of ``slabctl --json`` (schema ``slablab/1``);
see docs/python.md.
"""

from typing import Any

from . import _core
from ._core import (
    API_VERSION,
    CACHE_FLAGS,
    DESIGNS,
    FASTPATHS,
    FEATURES,
    FIGURES,
    JSON_SCHEMA,
    LIMITS,
    PAGE_POLICIES,
    REPLAY_TARGETS,
    RUN_CSV_COLUMNS,
    STAT_NAMES,
    STORM_PATTERNS,
    STORM_STATES,
    STORM_TARGETS,
    TARGETS,
    format_size,
    import_trace,
    main_figures,
    native_cache,
    native_caches,
    read_trace,
    record,
    summarize,
    trace_events,
)
from .cache import Cache
from .errors import (
    AlreadyExists,
    Busy,
    Error,
    InvalidArgument,
    ModuleNotLoaded,
    NotFound,
    OperationFailed,
    PermissionDenied,
)
from .shapes import CacheInfo, Compare, Replay, ReplayCompare, Status, Storm
from .traces import trace_frame

__version__ = _core.__version__

__all__ = [
    "__version__",
    "API_VERSION",
    "CACHE_FLAGS",
    "DESIGNS",
    "FASTPATHS",
    "FEATURES",
    "JSON_SCHEMA",
    "LIMITS",
    "PAGE_POLICIES",
    "REPLAY_TARGETS",
    "STAT_NAMES",
    "STORM_TARGETS",
    "TARGETS",
    "STORM_PATTERNS",
    "STORM_STATES",
    "FIGURES",
    "RUN_CSV_COLUMNS",
    "format_size",
    "main_figures",
    "native_caches",
    "native_cache",
    "read_trace",
    "record",
    "import_trace",
    "trace_events",
    "trace_frame",
    "summarize",
    "Client",
    "Cache",
    "Error",
    "ModuleNotLoaded",
    "PermissionDenied",
    "NotFound",
    "AlreadyExists",
    "InvalidArgument",
    "Busy",
    "OperationFailed",
    "CacheInfo",
    "Compare",
    "Replay",
    "ReplayCompare",
    "Status",
    "Storm",
]


class Client(_core.Client):
    __doc__ = _core.Client.__doc__

    def cache(self, name: str, size: int, **tunables: Any) -> Cache:
        """A :class:`Cache` context manager: ``with client.cache("t64", size=64) as c:``
        creates the cache (with the keyword tunables of :meth:`cache_create`) on entry and
        frees its objects and destroys it on exit."""
        return Cache(self, name, size, **tunables)

    def __repr__(self) -> str:
        return f"<slablab.Client family_id={self.family_id}>"
