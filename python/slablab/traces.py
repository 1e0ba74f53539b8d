# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A trace's events as data (docs/python.md, "Traces as data").

:func:`slablab.trace_events` (the bindings) gives a numpy structured array and the
caches; :func:`trace_frame` makes a pandas DataFrame of it with the cache's name and the
operation spelt out, for groupby and plots. Any format :func:`slablab.import_trace`
reads works: slablab traces, tracefs text, perf script output, trace-cmd .dat.
"""

import os
from typing import Any, Union

from ._core import trace_events

__all__ = ["trace_frame"]


def trace_frame(path: Union[str, "os.PathLike[str]"], format: str = "auto") -> Any:
    """The events of the trace at ``path`` as a pandas DataFrame: the columns of
    :func:`slablab.trace_events` (ts_ns, object, bytes_req, bytes_alloc, gfp, cpu, cache,
    op) plus ``cache_name`` (``kmalloc`` for cache 0) and ``op_name`` (``alloc``,
    ``free``). Needs pandas (Debian: python3-pandas); ImportError without it."""
    import pandas  # optional: only this helper needs it

    events, caches = trace_events(path, format)
    frame = pandas.DataFrame(events)
    names = ["kmalloc"] + [c["name"] for c in caches]
    frame["cache_name"] = pandas.Categorical.from_codes(frame["cache"].astype("int64"),
                                                        categories=names)
    frame["op_name"] = frame["op"].map({1: "alloc", 2: "free"})
    return frame
