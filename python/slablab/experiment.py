# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Deprecated: the seed experiments are the package :mod:`slablab.experiments` now.

This module stays for one release as a facade: it re-exports every name it had (the
same objects; ``__all__`` unchanged), so ``from slablab.experiment import X`` and
``python3 -m slablab.experiment`` keep working. New code imports from where things moved:

- :mod:`slablab.experiments.core`: runs.csv's columns, availability and columns, sizes
  and titles (SCALES, TITLES), statistics, the verdict rule, PRIMARY and the Holm
  ranking, the A/A twin, the table helpers, read_experiment/read_missing
- :mod:`slablab.experiments.guest`: what runs in the VM for every seed (Lab, the kmalloc
  design switch, /sys/kernel/slab, live.csv)
- :mod:`slablab.experiments.seed_000` … ``seed_004``: each seed's storms, table,
  verdicts and live row (seed-004's tbench boots included)
- :mod:`slablab.experiments.replays`: the replay rows (seed-002, seed-003)
- :mod:`slablab.experiments.report`: tables(), report(), plot()
- :mod:`slablab.experiments.host`: run_tbench_boots (boots the VM, on the host)
- :mod:`slablab.experiments.cli`: run_experiment(), the publication, main()
  (``python3 -m slablab experiment``)

Rebinding a name here (``monkeypatch.setattr(slablab.experiment, ...)``) no longer
changes what the code calls: patch it in the module that defines it.
"""

import sys

from .experiments.core import (  # noqa: F401
    Log as Log, EXP_COLUMNS as EXP_COLUMNS, MISSING_DESIGN as MISSING_DESIGN,
    MISSING_KMALLOC as MISSING_KMALLOC, ARRAYS_2_4_UP as ARRAYS_2_4_UP, KERNEL as KERNEL,
    Avail as Avail, availability as availability, Column as Column, column as column,
    columns_for as columns_for, Described as Described, describe as describe, pct as pct,
    NO_CHANGE as NO_CHANGE, TOLERANCE as TOLERANCE, AA as AA, AA_FIGURE as AA_FIGURE,
    base_of as base_of, without_twins as without_twins, aa_floor as aa_floor,
    aa_line as aa_line, _pp as _pp, _edge_margin as _edge_margin,
    shape_verdict as shape_verdict, direction_verdict as direction_verdict, _p as _p,
    verdict_line as verdict_line, PRIMARY as PRIMARY, _VERDICT as _VERDICT, _P as _P,
    _CLAIMS as _CLAIMS, rank_verdicts as rank_verdicts, ln_subject as ln_subject,
    paired_ci as paired_ci, ratio_ci as ratio_ci, _fmt as _fmt, table as table, _med as _med,
    _per_repeat_s as _per_repeat_s, _faithful as _faithful, _variant as _variant,
    mechanism_line as mechanism_line, SCALES as SCALES, EXPERIMENTS as EXPERIMENTS,
    TITLES as TITLES, _now as _now, with_twin as with_twin, _repeat as _repeat,
    _twin_pair as _twin_pair, _twin_column as _twin_column, ALPHA as ALPHA,
    two_sided as two_sided, test_verdict as test_verdict, _script as _script,
    read_missing as read_missing, EXP_TEXT as EXP_TEXT, read_experiment as read_experiment)
from .experiments.guest import (  # noqa: F401
    _meminfo as _meminfo, _cpu_model as _cpu_model, set_kmalloc_design as set_kmalloc_design,
    Lab as Lab, _kmalloc_as as _kmalloc_as, _kmalloc_arrays_back as _kmalloc_arrays_back,
    _kmalloc_classes as _kmalloc_classes, LIVE_COLUMNS as LIVE_COLUMNS, SYS_SLAB as SYS_SLAB,
    cpu_partial_files as cpu_partial_files, slab_files as slab_files,
    write_cpu_partial as write_cpu_partial, write_slab_files as write_slab_files,
    write_live_csv as write_live_csv, loopback_up as loopback_up)
from .experiments.seed_000 import (  # noqa: F401
    table_000 as table_000, _ilog2 as _ilog2, tail_lines as tail_lines, run_000 as run_000,
    LIVE_FIO as LIVE_FIO, LIVE_FIXED as LIVE_FIXED, LIVE_DYNAMIC as LIVE_DYNAMIC,
    netio_job as netio_job, patch_min_partial as patch_min_partial, _free_port as _free_port,
    FIO_RETRIES as FIO_RETRIES, FIO_RESET_ERRNOS as FIO_RESET_ERRNOS,
    fio_job_errors as fio_job_errors, _fio_died as _fio_died, _fio_failure as _fio_failure,
    run_live_fio as run_live_fio, table_live_fio as table_live_fio)
from .experiments.seed_001 import (  # noqa: F401
    SEED_001_FIGURE as SEED_001_FIGURE, _row_001 as _row_001, table_001 as table_001,
    run_001 as run_001)
from .experiments.seed_002 import (  # noqa: F401
    table_002 as table_002, list_ops_per_1000 as list_ops_per_1000,
    SEED_002_MAX_POINTS as SEED_002_MAX_POINTS, seed_002_threads as seed_002_threads,
    run_002 as run_002, LIVE_HACKBENCH as LIVE_HACKBENCH, LIVE_BEFORE as LIVE_BEFORE,
    LIVE_AFTER as LIVE_AFTER, hackbench_seconds as hackbench_seconds,
    run_live_hackbench as run_live_hackbench, table_live as table_live)
from .experiments.seed_003 import (  # noqa: F401
    table_003 as table_003, MIXED_SIZES as MIXED_SIZES, run_003 as run_003)
from .experiments.seed_004 import (  # noqa: F401
    table_004 as table_004, _kmalloc_class as _kmalloc_class, run_004 as run_004,
    LIVE_TBENCH as LIVE_TBENCH, TBENCH_COLUMNS as TBENCH_COLUMNS,
    TBENCH_BOOTS_ENV as TBENCH_BOOTS_ENV, KMALLOC_4K as KMALLOC_4K,
    SEED_004_CACHES as SEED_004_CACHES, BootKind as BootKind, TBENCH_DEFAULT as TBENCH_DEFAULT,
    TBENCH_ORDER0 as TBENCH_ORDER0, TBENCH_TWIN as TBENCH_TWIN, BOOT_KINDS as BOOT_KINDS,
    Boot as Boot, boot_plan as boot_plan, Tbench as Tbench, tbench_result as tbench_result,
    _read_first as _read_first, TBENCH_PORT as TBENCH_PORT, _tbench_file as _tbench_file,
    _tbench_server as _tbench_server, _slabinfo_binary as _slabinfo_binary,
    run_tbench_boot as run_tbench_boot, import_tbench_boots as import_tbench_boots,
    slabinfo_lines as slabinfo_lines, table_live_tbench as table_live_tbench)
from .experiments.replays import (  # noqa: F401
    REPLAY_WORKLOADS as REPLAY_WORKLOADS, REPLAY_COLUMNS as REPLAY_COLUMNS,
    recording_missing as recording_missing, BOOT_TRACE_ENV as BOOT_TRACE_ENV,
    boot_account as boot_account, record_workload as record_workload,
    trace_live_bytes as trace_live_bytes, ReplayVariant as ReplayVariant,
    replay_variants as replay_variants, run_replays as run_replays, _replay_one as _replay_one,
    table_replays as table_replays, report_replays as report_replays)
from .experiments.report import (  # noqa: F401
    tables as tables, _boot_files as _boot_files, report_live as report_live, _bars as _bars,
    _stat as _stat, plot as plot, report as report)
from .experiments.host import (  # noqa: F401
    _slabinfo_series as _slabinfo_series, run_tbench_boots as run_tbench_boots)
from .experiments.cli import (  # noqa: F401
    run_experiment as run_experiment, publication_dir as publication_dir,
    _first_row as _first_row, write_publication as write_publication, main as main)

__all__ = ["EXPERIMENTS", "EXP_COLUMNS", "Column", "availability", "columns_for",
           "describe", "pct", "NO_CHANGE", "TOLERANCE", "AA", "aa_floor", "aa_line", "base_of",
           "without_twins", "shape_verdict", "direction_verdict", "verdict_line",
           "PRIMARY", "rank_verdicts",
           "list_ops_per_1000", "mechanism_line", "run_live_hackbench", "table_live",
           "run_live_fio", "table_live_fio", "boot_plan", "tbench_result",
           "run_tbench_boot", "run_tbench_boots", "import_tbench_boots", "table_live_tbench",
           "cpu_partial_files", "hackbench_seconds",
           "paired_ci", "tables", "run_experiment", "publication_dir", "write_publication",
           "main"]


if __name__ == "__main__":
    sys.exit(main())
