# SPDX-License-Identifier: GPL-2.0 OR MIT
# Type stub of slablab._core (pybind11 bindings of libslabctl). Keep in step with
# python/src/module.cpp.
from typing import Any, Iterable, Optional, Union

__version__: str
API_VERSION: int
JSON_SCHEMA: str
STAT_NAMES: tuple[str, ...]
CACHE_FLAGS: tuple[str, ...]
FEATURES: tuple[str, ...]
FASTPATHS: tuple[str, ...]
PAGE_POLICIES: tuple[str, ...]
LIMITS: dict[str, int]

Flags = Union[None, int, str, Iterable[str]]
CacheDict = dict[str, Any]

def format_size(value: int) -> str: ...

class Client:
    def __init__(self, host_checks: bool = True) -> None: ...
    @property
    def family_id(self) -> int: ...
    @property
    def host_checks(self) -> bool: ...
    def version(self) -> str: ...
    def status(self) -> dict[str, Any]: ...
    def cache_create(
        self,
        name: str,
        size: int,
        *,
        align: Optional[int] = None,
        flags: Flags = None,
        cpu_partial: Optional[int] = None,
        min_partial: Optional[int] = None,
        order: Optional[int] = None,
        fastpath: Union[None, str, int] = None,
        debug: Optional[bool] = None,
        hardened: Optional[bool] = None,
        random: Optional[bool] = None,
        hwcache_align: Optional[bool] = None,
    ) -> CacheDict: ...
    def cache_destroy(self, name: str) -> None: ...
    def cache_get(self, name: str, percpu: bool = True) -> CacheDict: ...
    def cache_list(self, percpu: bool = False) -> list[CacheDict]: ...
    def cache_set(
        self,
        name: str,
        *,
        cpu_partial: Optional[int] = None,
        min_partial: Optional[int] = None,
        order: Optional[int] = None,
        fastpath: Union[None, str, int] = None,
        flags: Flags = None,
        debug: Optional[bool] = None,
        hardened: Optional[bool] = None,
        random: Optional[bool] = None,
        hwcache_align: Optional[bool] = None,
    ) -> CacheDict: ...
    def cache_shrink(self, name: str) -> int: ...
    def cache_validate(self, name: str) -> dict[str, Any]: ...
    def cache_reset_stats(self, name: str) -> None: ...
    def obj_alloc(self, name: str, count: int, cpu: Optional[int] = None) -> int: ...
    def obj_free(self, handle: int, cpu: Optional[int] = None, count: Optional[int] = None) -> int: ...
    def set_page_policy(self, policy: Union[str, int]) -> None: ...
    def selftest_warn(self) -> None: ...
