# SPDX-License-Identifier: GPL-2.0 OR MIT
# Type stub of slablab._core (pybind11 bindings of libslabctl). Keep in step with
# python/src/bind_*.cpp.
import os
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import numpy
import numpy.typing

from .shapes import (CacheInfo, Compare, ImportReport, NativeCache, RecordReport, Replay,
                     ReplayCompare, Status, Storm, Summary, TraceCache, TraceInfo,
                     ValidateReport)

__version__: str
API_VERSION: int
JSON_SCHEMA: str
STAT_NAMES: tuple[str, ...]
TUNABLES: tuple[str, ...]
CACHE_FLAGS: tuple[str, ...]
FEATURES: tuple[str, ...]
DESIGNS: tuple[str, ...]
FASTPATHS: tuple[str, ...]
PAGE_POLICIES: tuple[str, ...]
TARGETS: tuple[str, ...]
REPLAY_TARGETS: tuple[str, ...]
LIMITS: dict[str, int]
STORM_TARGETS: tuple[str, ...]
STORM_PATTERNS: tuple[str, ...]
STORM_STATES: tuple[str, ...]
FIGURES: tuple[str, ...]
RUN_CSV_COLUMNS: tuple[str, ...]
BUILD_COMMIT: str

Flags = Union[None, int, str, Iterable[str]]
CacheDict = CacheInfo
StormDict = Storm
CompareDict = Compare
Sizes = Union[None, str, Mapping[int, int], Iterable[Union[int, tuple[int, int]]]]
Cpus = Union[None, str, Iterable[int]]
SetVariant = Union[str, Mapping[str, Any]]
PathArg = Union[str, "os.PathLike[str]"]

def format_size(value: int) -> str: ...
def summarize(values: Sequence[float]) -> Summary: ...
def ratio_interval(
    a: Sequence[float], b: Sequence[float], level: float = 0.95, min_pairs: int = 3
) -> Optional[tuple[int, float, float, float]]: ...
def ratio_test(
    a: Sequence[float], b: Sequence[float], level: float = 0.95, min_pairs: int = 3
) -> Optional[tuple[int, float, float, float, float, float]]: ...
def student_t_cdf(t: float, df: float) -> float: ...
def min_detectable_log_effect(sd: float, n: int, alpha: float = 0.05,
                              power: float = 0.8) -> float: ...
def repeats_to_detect(sd: float, log_effect: float, alpha: float = 0.05,
                      power: float = 0.8) -> Optional[int]: ...
def student_t_quantile(p: float, df: float) -> float: ...
def main_figures(pattern: Union[str, int]) -> list[str]: ...
def native_caches(root: Optional[str] = None, patterns: Sequence[str] = ()) -> list[NativeCache]: ...
def native_cache(name: str, root: Optional[str] = None) -> NativeCache: ...
def record(
    output: PathArg,
    command: Sequence[str],
    *,
    events: Sequence[str] = ...,
    buffer_kb: int = 16384,
) -> RecordReport: ...
def read_trace(path: PathArg) -> TraceInfo: ...
def import_trace(
    path: PathArg, format: str = "auto", output: Optional[PathArg] = None
) -> ImportReport: ...
def trace_events(
    path: PathArg, format: str = "auto"
) -> tuple[numpy.typing.NDArray[numpy.void], list[TraceCache]]: ...

class Client:
    def __init__(self, host_checks: bool = True) -> None: ...
    @property
    def family_id(self) -> int: ...
    @property
    def host_checks(self) -> bool: ...
    @property
    def dump_retries(self) -> int: ...
    def version(self) -> str: ...
    def status(self) -> Status: ...
    def cache_create(
        self,
        name: str,
        size: int,
        *,
        align: Optional[int] = None,
        # --- generated from uapi/slablab.yaml by scripts/gen-protocol.py: cache tunables ---
        flags: Flags = None,
        order: Optional[int] = None,
        cpu_partial: Optional[int] = None,
        min_partial: Optional[int] = None,
        fastpath: Union[None, str, int] = None,
        remote_node_defrag_ratio: Optional[int] = None,
        design: Union[None, str, int] = None,
        sheaf_capacity: Optional[int] = None,
        barn_max_full: Optional[int] = None,
        barn_max_empty: Optional[int] = None,
        lists: Optional[int] = None,
        limit: Optional[int] = None,
        batchcount: Optional[int] = None,
        shared: Optional[int] = None,
        reap_cpu_ms: Optional[int] = None,
        reap_node_ms: Optional[int] = None,
        sheaves_cpu_slabs: Optional[int] = None,
        max_order: Optional[int] = None,
        # --- end of generated ---
        debug: Optional[bool] = None,
        hardened: Optional[bool] = None,
        random: Optional[bool] = None,
        hwcache_align: Optional[bool] = None,
        typesafe_by_rcu: Optional[bool] = None,
    ) -> CacheDict: ...
    def cache_destroy(self, name: str) -> None: ...
    def cache_get(self, name: str, percpu: bool = True, exact: bool = False) -> CacheDict: ...
    def cache_list(self, percpu: bool = False) -> list[CacheDict]: ...
    def cache_set(
        self,
        name: str,
        *,
        # --- generated from uapi/slablab.yaml by scripts/gen-protocol.py: cache tunables ---
        flags: Flags = None,
        order: Optional[int] = None,
        cpu_partial: Optional[int] = None,
        min_partial: Optional[int] = None,
        fastpath: Union[None, str, int] = None,
        remote_node_defrag_ratio: Optional[int] = None,
        design: Union[None, str, int] = None,
        sheaf_capacity: Optional[int] = None,
        barn_max_full: Optional[int] = None,
        barn_max_empty: Optional[int] = None,
        lists: Optional[int] = None,
        limit: Optional[int] = None,
        batchcount: Optional[int] = None,
        shared: Optional[int] = None,
        reap_cpu_ms: Optional[int] = None,
        reap_node_ms: Optional[int] = None,
        sheaves_cpu_slabs: Optional[int] = None,
        max_order: Optional[int] = None,
        # --- end of generated ---
        debug: Optional[bool] = None,
        hardened: Optional[bool] = None,
        random: Optional[bool] = None,
        hwcache_align: Optional[bool] = None,
        typesafe_by_rcu: Optional[bool] = None,
    ) -> CacheDict: ...
    def cache_shrink(self, name: str) -> int: ...
    def cache_validate(self, name: str) -> ValidateReport: ...
    def cache_reset_stats(self, name: str) -> None: ...
    def obj_alloc(self, name: str, count: int, cpu: Optional[int] = None) -> int: ...
    def obj_free(self, handle: int, cpu: Optional[int] = None, count: Optional[int] = None) -> int: ...
    def set_page_policy(self, policy: Union[str, int]) -> None: ...
    def set_kmalloc(
        self, design: Union[str, int, None] = None, lists: Optional[int] = None
    ) -> None: ...
    def storm_start(
        self,
        target: Union[str, int],
        pattern: Union[str, int],
        *,
        cache: Optional[str] = None,
        size: Optional[int] = None,
        sizes: Sizes = None,
        threads: Optional[int] = None,
        cpus: Cpus = None,
        ops: Optional[int] = None,
        duration_ms: Optional[int] = None,
        batch: Optional[int] = None,
        working_set: Optional[int] = None,
        ring: Optional[int] = None,
        seed: Optional[int] = None,
        max_live_bytes: Optional[int] = None,
        thin: Optional[int] = None,
        rate: Optional[int] = None,
        producers: Optional[int] = None,
    ) -> StormDict: ...
    def storm_get(self, id: Optional[int] = None) -> StormDict: ...
    def storm_stop(self, id: Optional[int] = None) -> StormDict: ...
    def storm(
        self,
        target: Union[str, int],
        pattern: Union[str, int],
        *,
        cache: Optional[str] = None,
        size: Optional[int] = None,
        sizes: Sizes = None,
        threads: Optional[int] = None,
        cpus: Cpus = None,
        ops: Optional[int] = None,
        duration_ms: Optional[int] = None,
        batch: Optional[int] = None,
        working_set: Optional[int] = None,
        ring: Optional[int] = None,
        seed: Optional[int] = None,
        max_live_bytes: Optional[int] = None,
        thin: Optional[int] = None,
        rate: Optional[int] = None,
        producers: Optional[int] = None,
        progress: Optional[Callable[[StormDict], Any]] = None,
        poll_interval: float = 0.15,
    ) -> StormDict: ...
    def replay(
        self,
        trace: PathArg,
        target: str = "slablab",
        *,
        design: Optional[str] = None,
        max_live_bytes: Optional[int] = None,
        time_scale: float = 0.0,
        sample_ms: Optional[float] = None,
        cpu_partial: Optional[int] = None,
    ) -> Replay: ...
    def replay_compare(
        self,
        trace: PathArg,
        targets: Union[str, Iterable[str]],
        *,
        design: Optional[str] = None,
        max_live_bytes: Optional[int] = None,
        time_scale: float = 0.0,
        sample_ms: Optional[float] = None,
        progress: Optional[Callable[[int, int, Replay], Any]] = None,
        cpu_partial: Optional[int] = None,
    ) -> ReplayCompare: ...
    def replay_stop(self) -> Replay: ...
    def compare(
        self,
        pattern: Union[str, int],
        *,
        targets: Optional[Iterable[Union[str, int]]] = None,
        sets: Optional[Iterable[SetVariant]] = None,
        threads: Union[None, int, Iterable[int]] = None,
        repeat: int = 7,
        figures: Optional[Iterable[str]] = None,
        cache: Optional[str] = None,
        size: Optional[int] = None,
        sizes: Sizes = None,
        cpus: Cpus = None,
        ops: Optional[int] = None,
        duration_ms: Optional[int] = None,
        batch: Optional[int] = None,
        working_set: Optional[int] = None,
        ring: Optional[int] = None,
        seed: Optional[int] = None,
        max_live_bytes: Optional[int] = None,
        thin: Optional[int] = None,
        rate: Optional[int] = None,
        producers: Optional[int] = None,
        progress: Optional[Callable[[dict[str, Any]], Any]] = None,
        poll_interval: float = 0.15,
        warmup: int = 1,
        until: Optional[float] = None,
        max_repeats: int = 50,
        aa: bool = False,
        noise_floor: float = 0.0,
    ) -> CompareDict: ...
