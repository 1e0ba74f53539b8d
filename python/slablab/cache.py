# SPDX-License-Identifier: GPL-2.0 OR MIT
"""slablab.Cache: a cache that lives for the length of a ``with`` block."""

from types import TracebackType
from typing import TYPE_CHECKING, Any, List, Optional, Type

from .errors import Error, NotFound
from .shapes import CacheInfo, Gauges, Stats, ValidateReport

if TYPE_CHECKING:
    from . import Client

__all__ = ["Cache"]


class Cache:
    """A cache created on ``__enter__`` and destroyed on ``__exit__``.

    Made by :meth:`slablab.Client.cache`::

        with client.cache("t64", size=64, cpu_partial=0) as c:
            h = c.alloc(100)
            print(c.stats["alloc_fastpath"])
        # objects allocated through c.alloc() are freed, then the cache is destroyed

    :ivar client: the :class:`slablab.Client`
    :ivar name: the cache name
    :ivar info: the dict :meth:`Client.cache_create` returned
    """

    def __init__(self, client: "Client", name: str, size: int, **tunables: Any) -> None:
        self.client = client
        self.name = name
        self.size = size
        self.tunables = dict(tunables)
        self.info: Optional[CacheInfo] = None
        self._handles: List[int] = []

    def __repr__(self) -> str:
        return f"<slablab.Cache {self.name!r} size={self.size}>"

    def __enter__(self) -> "Cache":
        self.info = self.client.cache_create(self.name, self.size, **self.tunables)
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        try:
            self.close()
        except Error as cleanup:
            if exc is None:
                raise
            # Keep the exception of the with-block; say what the cleanup hit.
            if hasattr(exc, "add_note"):
                exc.add_note(f"slablab: destroying cache {self.name!r} failed too: {cleanup}")
        # returns None: the with-block's exception, if any, goes on

    def close(self) -> None:
        """Free the objects this Cache allocated, then destroy the cache."""
        while self._handles:
            handle = self._handles.pop()
            try:
                self.client.obj_free(handle)
            except NotFound:
                pass
        self.client.cache_destroy(self.name)

    def get(self, percpu: bool = True) -> CacheInfo:
        """The cache as :meth:`Client.cache_get` returns it."""
        return self.client.cache_get(self.name, percpu)

    @property
    def stats(self) -> Stats:
        """The event counters: a dict keyed by :data:`slablab.STAT_NAMES`."""
        return self.client.cache_get(self.name, False)["stats"]

    @property
    def gauges(self) -> Gauges:
        """objects, total_objects, slabs, partial_slabs, cpu_slabs, cpu_partial_slabs,
        pages, live_bytes, meta_bytes."""
        return self.client.cache_get(self.name, False)["gauges"]

    def alloc(self, count: int, cpu: Optional[int] = None) -> int:
        """Allocate ``count`` objects into a new handle (freed on exit); returns it."""
        handle = self.client.obj_alloc(self.name, count, cpu)
        self._handles.append(handle)
        return handle

    def free(self, handle: int, cpu: Optional[int] = None,
             count: Optional[int] = None) -> int:
        """Free objects of a handle; returns the objects it still holds."""
        left = self.client.obj_free(handle, cpu, count)
        if left == 0 and handle in self._handles:
            self._handles.remove(handle)
        return left

    def set(self, **tunables: Any) -> CacheInfo:
        """:meth:`Client.cache_set` on this cache."""
        return self.client.cache_set(self.name, **tunables)

    def shrink(self) -> int:
        """:meth:`Client.cache_shrink`: returns the number of slabs freed."""
        return self.client.cache_shrink(self.name)

    def validate(self) -> ValidateReport:
        """:meth:`Client.cache_validate`."""
        return self.client.cache_validate(self.name)

    def reset_stats(self) -> None:
        """:meth:`Client.cache_reset_stats`."""
        self.client.cache_reset_stats(self.name)
