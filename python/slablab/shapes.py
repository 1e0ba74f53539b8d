# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The ``slablab/1`` JSON shapes as :class:`typing.TypedDict`\\ s.

Every result of :class:`slablab.Client` is a plain dict with the keys of ``slabctl
--json`` (docs/slabctl.md, "JSON output"; ``tool/lib/json.cpp`` builds both): these
classes name those keys and their types for type checkers. At run time they are
ordinary dicts. ``None`` stands for JSON ``null`` (a value the kernel did not report).
"""

from typing import Dict, List, Literal, Optional, TypedDict

__all__ = [
    "Stats", "Status", "Gauges", "PerCpu", "CacheInfo", "NativeGauges", "NativeCache",
    "ValidateReport", "StormSize", "StormSpec", "StormProgress", "StormThread",
    "StormResults", "Figures", "Storm", "Summary", "PairedRatio", "FigureSummary",
    "CompareVariant", "CompareRun", "Compare", "RecordReport", "ImportReport", "TraceCache",
    "TraceInfo", "ReplayCache", "ReplaySamples", "Replay", "ReplayCompare", "Totals",
    "NativeTotals", "SlabMeminfo", "WatchCache", "ErrorInfo", "Layers", "OccupancyBucket", "RatioInterval",
    "RunContext", "Design", "Fastpath",
    "PagePolicy", "Owner", "Target", "StormTarget", "StormPattern", "StormState", "ReplayTarget",
    "Verdict",
]

# The spec's enums as slabctl names them (uapi/slablab.yaml; tool/lib/names.cpp, the
# tuples slablab.DESIGNS, FASTPATHS, PAGE_POLICIES): tests/host/test_package.py checks
# these against them. A value the tool does not know is "unknown(N)", which no Literal
# names: a newer module than this package.
#: enum design
Design = Literal["slub", "sheaves", "slab", "slob"]
#: enum fastpath
Fastpath = Literal["cmpxchg", "irqoff"]
#: enum page-policy
PagePolicy = Literal["slab", "page_alloc"]
#: enum owner: who created a cache
Owner = Literal["netlink", "kernel", "kmalloc"]
#: enum target: what a storm or a replay allocates from
Target = Literal["slablab", "native", "kmalloc", "native-kmalloc"]
#: a storm's target (enum target)
StormTarget = Target
#: enum storm-pattern
StormPattern = Literal["pair", "batch", "remote", "churn", "bulk", "prefill", "rcu",
                       "producer-consumer"]
#: enum storm-state
StormState = Literal["none", "running", "done", "stopped"]
#: a replay's target (enum target)
ReplayTarget = Target
#: a compared figure's verdict
Verdict = Literal["none", "same", "higher", "lower", "inconclusive"]

#: Event counters keyed by :data:`slablab.STAT_NAMES`.
Stats = dict[str, int]


class Status(TypedDict):
    """:meth:`Client.status`, ``slabctl status --json``."""
    version: str
    api_version: int
    kernel_release: str
    nr_cpu_ids: int
    nr_online_cpus: int
    nr_nodes: int
    page_size: int
    nr_caches: int
    features: List[str]
    features_value: int
    kmalloc_page_policy: PagePolicy
    kmalloc_design: Design
    kmalloc_lists: int


class Gauges(TypedDict):
    """A cache's gauges: every one of the spec's (SLABLAB_CACHE_GAUGES), whatever the
    cache's design."""
    objects: int
    total_objects: int
    slabs: int
    partial_slabs: int
    cpu_slabs: int
    cpu_partial_slabs: int
    pages: int
    live_bytes: int
    meta_bytes: int
    free_slabs: int
    slob_scan_max: int
    rcu_pending: int
    rcu_waiting: int
    rcu_slabs: int
    rcu_pages: int


class PerCpu(TypedDict):
    cpu: int
    cpu_slab_objects: int
    cpu_partial_slabs: int
    cpu_partial_objects: int
    stats: Stats


class Layers(TypedDict, total=False):
    """Where a cache's object slots are (docs/design.md, "Where memory is"): the layers
    its design has, from the spec's layers set (SLABLAB_CACHE_LAYERS). callers + the
    cached layers + slabs_free = total on a quiet cache."""
    total: int
    callers: int
    cpu_slab: int
    cpu_partial: int
    slabs_free: int
    sheaf_main: int
    sheaf_spare: int
    barn: int
    array: int
    shared: int
    alien: int
    sheaf_prefilled: int


class OccupancyBucket(TypedDict):
    """One bucket of a cache's slab-occupancy histogram: ``slabs`` slabs hold ``lo`` to
    ``hi`` objects in use each (the buckets run from empty to full)."""
    lo: int
    hi: int
    slabs: int


class _CacheInfo(TypedDict):
    name: str
    allocator: Literal["slablab"]
    size: int
    align: int
    flags: List[str]
    flags_value: int
    cpu_partial: int
    min_partial: int
    order: int
    fastpath: Fastpath
    remote_node_defrag_ratio: int
    design: Design
    obj_stride: int
    objs_per_slab: int
    # the designs' own tunables: tool/lib/json.cpp writes every tunable of the spec
    # (protocol.CACHE_TUNABLES) for every cache, whatever its design
    sheaf_capacity: int
    barn_max_full: int
    barn_max_empty: int
    lists: int
    limit: int
    batchcount: int
    shared: int
    reap_cpu_ms: int
    reap_node_ms: int
    sheaves_cpu_slabs: int
    max_order: int
    order_default: int
    owner: Owner
    gauges: Gauges


class CacheInfo(_CacheInfo, total=False):
    """A slablab cache: :meth:`Client.cache_get`, ``cache_create``, ``cache_set``,
    ``cache_list``; ``stats`` and ``percpu`` when asked for, ``slabs_freed`` after a
    shrink, ``layers`` and ``occupancy`` (the slab-occupancy histogram, empty to full)
    from ``cache_get``."""
    stats: Stats
    percpu: List[PerCpu]
    slabs_freed: int
    layers: Layers
    occupancy: List[OccupancyBucket]


class NativeGauges(TypedDict):
    objects: Optional[int]
    total_objects: Optional[int]
    slabs: Optional[int]
    partial_slabs: Optional[int]
    cpu_slabs: Optional[int]
    cpu_partial_slabs: Optional[int]
    objects_partial: Optional[int]
    pages: Optional[int]
    live_bytes: Optional[int]
    meta_bytes: None


class _NativeCache(TypedDict):
    name: str
    allocator: Literal["slub"]
    sysfs_name: str
    aliases: List[str]
    size: Optional[int]
    align: Optional[int]
    flags: Optional[List[str]]
    cpu_partial: Optional[int]
    min_partial: Optional[int]
    order: Optional[int]
    obj_stride: Optional[int]
    objs_per_slab: Optional[int]
    merged: Optional[int]
    usersize: Optional[int]
    gauges: NativeGauges
    stats: Optional[dict[str, Optional[int]]]
    unreadable: dict[str, str]


class NativeCache(_NativeCache, total=False):
    """A kernel (SLUB) cache from /sys/kernel/slab: :func:`slablab.native_caches`;
    :func:`slablab.native_cache` adds the per-node, per-cpu and raw file views."""
    nodes: dict[str, dict[str, int]]
    percpu_stats: Optional[dict[str, dict[str, int]]]
    files: dict[str, Optional[str]]


class ValidateReport(TypedDict):
    """:meth:`Client.cache_validate`."""
    cache: str
    ok: bool
    slabs: int
    objects: int
    free_objects: int
    errors: int
    first_error: Optional[str]


class StormSize(TypedDict):
    size: int
    weight: int


class StormSpec(TypedDict):
    """A storm's specification as the kernel applied it (defaults filled in)."""
    target: StormTarget
    pattern: StormPattern
    cache: Optional[str]
    size: Optional[int]
    sizes: List[StormSize]
    threads: Optional[int]
    cpus: Optional[str]
    ops: Optional[int]
    duration_ms: Optional[int]
    batch: Optional[int]
    working_set: Optional[int]
    ring: Optional[int]
    seed: Optional[int]
    max_live_bytes: Optional[int]
    thin: Optional[int]
    rate: Optional[int]
    producers: Optional[int]


class StormProgress(TypedDict):
    ops_planned: int
    ops_done: int
    elapsed_ns: int


class StormThread(TypedDict):
    cpu: int
    ops: int
    cycles: int
    ns: int
    ops_per_sec: Optional[float]


class StormResults(TypedDict):
    allocs: int
    frees: int
    alloc_cycles: int
    free_cycles: int
    pair_cycles: int
    loop_cycles_x1000: int
    failures: int
    remote_frees: int
    peak_pages: int
    peak_live_bytes: int
    meta_bytes: int
    steady_pages: int
    steady_live_bytes: int
    steady_samples: int
    shrunk_pages: Optional[int]
    shrunk_live_bytes: Optional[int]
    rcu_waiting_peak: Optional[int]
    rcu_waiting_mean: Optional[int]
    rcu_waiting_end: Optional[int]
    rcu_pages_peak: Optional[int]
    rcu_samples: int
    cycles_per_sec: int
    features: Optional[List[str]]
    features_value: Optional[int]
    cache_flags: Optional[List[str]]
    cache_flags_value: Optional[int]
    native_name: Optional[str]
    threads: List[StormThread]
    stats: Optional[Stats]


class Figures(TypedDict):
    """The derived figures (:data:`slablab.FIGURES` and ``peak_bytes``); ``None`` where
    a figure does not apply to the storm."""
    cycles_per_pair: Optional[float]
    cycles_per_alloc: Optional[float]
    cycles_per_free: Optional[float]
    ns_per_op: Optional[float]
    ops_per_sec: Optional[float]
    thread_ops_per_sec_min: Optional[float]
    thread_ops_per_sec_max: Optional[float]
    alloc_fastpath_pct: Optional[float]
    free_fastpath_pct: Optional[float]
    overhead_pct: Optional[float]
    loop_cycles: Optional[float]
    fragmentation_pct: Optional[float]
    shrunk_fragmentation_pct: Optional[float]
    rcu_waiting_mean: Optional[float]
    rcu_waiting_peak: Optional[float]
    peak_bytes: Optional[int]


class Storm(TypedDict):
    """A storm: :meth:`Client.storm`, ``storm_start``, ``storm_get``, ``storm_stop``.
    ``spec`` is ``None`` when no storm has run, ``result`` until one has results."""
    id: int
    state: StormState
    interrupted: bool
    spec: Optional[StormSpec]
    progress: StormProgress
    result: Optional[StormResults]
    figures: Figures
    page_size: int


class Summary(TypedDict):
    """:func:`slablab.summarize`: ``None`` for an empty sample."""
    n: int
    min: Optional[float]
    median: Optional[float]
    mean: Optional[float]
    max: Optional[float]
    sd: Optional[float]


class PairedRatio(TypedDict):
    n: int
    median: Optional[float]
    min: Optional[float]
    max: Optional[float]


class RatioInterval(TypedDict):
    """The 95% interval (Student-t on the paired log ratios) of a paired ratio
    (docs/benchmarks.md), with the paired t test's per-pair sd of the log ratios, its
    two-sided p-value and the minimum detectable effect at 80% power (relative)."""
    n: int
    ratio: float
    lo: float
    hi: float
    sd: float
    p: float
    mde: Optional[float]


class FigureSummary(Summary):
    ratio: Optional[float]
    paired_ratio: PairedRatio
    ci: Optional[RatioInterval]
    verdict: Verdict
    outliers: List[int]     # repeats whose value is an outlier (still counted)


class CompareVariant(TypedDict):
    label: str
    target: StormTarget
    set: Optional[str]
    threads: Optional[int]
    spec: StormSpec
    summary: dict[str, FigureSummary]


class CompareRun(TypedDict):
    variant: int
    label: str
    repeat: int
    warmup: bool
    counted: bool
    tunables: str
    design: Design              # the cache's during the run; context.design for native
    storm: Storm


class RunContext(TypedDict):
    kernel_release: str
    vm_cpus: Optional[int]
    vm_memory_mb: Optional[int]
    vm_icount: Optional[str]
    design: Design
    slablab_commit: str


class Compare(TypedDict):
    """:meth:`Client.compare`, ``slabctl compare --json``."""
    pattern: StormPattern
    repeat: int
    repeats_done: int
    warmup: int
    until: Optional[float]
    until_met: bool
    max_repeats: int
    aa: bool
    noise_floor: float
    tolerance: float        # the verdicts' equivalence margin: noise_floor, else 0.05
    bootstrap_seed: int
    context: RunContext
    interrupted: bool
    restore_error: Optional[str]
    figures: List[str]
    variants: List[CompareVariant]
    runs: List[CompareRun]


class RecordReport(TypedDict):
    """:func:`slablab.record`, ``slabctl record --json``'s ``record``."""
    output: str
    exit_status: int            # the command's (128 + signal when killed)
    events: int
    objects: int
    caches: int
    cpus: int
    duration_ns: int
    lost_events: int
    unmatched_frees: int        # frees of objects allocated before the recording
    live_at_end: int
    lost_frees: int
    peak_live_bytes: int


class ImportReport(TypedDict):
    """:func:`slablab.import_trace`, ``slabctl import --json``'s ``import``."""
    input: str
    output: Optional[str]       # None: not written
    format: str                 # native, text, perf, dat (what was read)
    events: int
    objects: int
    caches: int
    cpus: int
    duration_ns: int
    lost_events: int
    unmatched_frees: int
    live_at_end: int
    lost_frees: int
    peak_live_bytes: int
    lines: int                  # text, perf: lines read
    skipped: int                # comment_lines + other_events + null_pointers
    comment_lines: int
    other_events: int
    null_pointers: int
    other_by_name: Dict[str, int]


class TraceCache(TypedDict):
    name: str
    object_size: int
    align: int


class TraceInfo(TypedDict):
    """:func:`slablab.read_trace`: a trace file's header and caches (docs/replay.md)."""
    nr_cpus: int
    nr_events: int
    nr_objects: int
    lost_events: int
    unmatched_frees: int
    live_at_end: int
    peak_live_bytes: int
    duration_ns: int
    caches: List[TraceCache]


class ReplayCache(TypedDict):
    """One recorded cache's figures in a replay (entry 0: kmalloc)."""
    name: str
    allocs: int
    frees: int
    live_at_end: int
    pages: int                  # slablab target: pages its cache held at the end


class ReplaySamples(TypedDict):
    """Pages over time: ns since the start, pages above the start's."""
    ns: List[int]
    pages: List[int]


class Replay(TypedDict):
    """:meth:`Client.replay`, ``slabctl replay --json``'s ``replay``."""
    target: ReplayTarget
    label: str                  # as asked for: "slablab:sheaves"
    design: Optional[Design]    # the slablab target's design
    state: int
    state_name: str             # done, stopped, running, loading, none
    time_scale: float           # 0: as fast as possible
    cpu_partial: Optional[int]  # the slablab target's caches' cpu_partial, as asked
    threads: int
    folded: bool
    recorded_cpus: int
    events: int
    allocs: int
    frees: int
    remote_frees: int
    failures: int
    alloc_cycles: int
    free_cycles: int
    elapsed_ns: int
    page_size: int
    peak_pages: int
    avg_pages: int              # time-weighted mean of the pages samples
    peak_live_bytes: int
    live_at_end: int
    ops_per_sec: float
    cycles_per_alloc: float
    cycles_per_free: float
    overhead_pct: float         # peak pages' bytes over the trace's peak live bytes
    caches: List[ReplayCache]
    samples: ReplaySamples


class ReplayCompare(TypedDict):
    """:meth:`Client.replay_compare`, ``slabctl replay --compare --json``'s ``compare``."""
    file: str
    targets: List[str]
    replays: List[Replay]


# ---- what only slabctl prints (tool/cli/): its -j documents' own parts ----

class Totals(TypedDict):
    """``slabctl info -T -j``'s ``totals``: the selected slablab caches (docs/slabctl.md,
    *Totals*); ``alloc``/``free`` ``None`` where no cache has counters."""
    caches: int
    active: int
    space: int
    used: int
    loss: int
    objects: int
    total_objects: int
    slabs: int
    partial_slabs: int
    cpu_slabs: int
    alloc: Optional[int]
    free: Optional[int]


class NativeTotals(Totals):
    """``slabctl info --native -T -j``'s ``native_totals``: the kernel's caches, and how
    many could not be counted (a figure unknown)."""
    incomplete: int


class SlabMeminfo(TypedDict):
    """``slabctl info --native -T -j``'s ``meminfo``: /proc/meminfo's slab lines and memory
    in use, in bytes (``None`` when /proc/meminfo could not be read). ``slab`` is the
    kernel's own count of its slab pages; slablab's pages are plain pages, in
    ``mem_total - mem_free`` and never in ``slab`` (docs/slabctl.md, *Totals*)."""
    slab: int
    sreclaimable: int
    sunreclaim: int
    mem_total: int
    mem_free: int


class WatchCache(TypedDict):
    """A cache in a ``slabctl watch -j`` sample: the ``info -D`` columns and the rates
    since the previous sample (``None`` on the first)."""
    name: str
    objects: int
    slabs: int
    pages: int
    alloc: int
    free: int
    alloc_fastpath_pct: int
    free_fastpath_pct: int
    order_fallback: int
    order: int
    cmpxchg_double_fail: int
    cmpxchg_double_cpu_fail: int
    alloc_per_sec: Optional[float]
    free_per_sec: Optional[float]


class ErrorInfo(TypedDict):
    """A failure under ``slabctl -j``: the document's ``error`` (docs/slabctl.md, "Errors
    as JSON"). ``errno`` 0 (``name`` ``None``) is a failure that is no system error."""
    errno: int
    name: Optional[str]         # "ENOENT"
    message: str                # the text slabctl prints without -j
    extack: Optional[str]       # the kernel's extended ack
    op: Optional[str]           # the netlink operation ("CACHE_NEW") or the file's path
