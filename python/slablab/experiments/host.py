# SPDX-License-Identifier: GPL-2.0 OR MIT
"""What the seed experiments run on the host: the VM booted once per sample.

seed-004's live row spans boots (slub_max_order= is a boot parameter):
:func:`run_tbench_boots` boots the VM (scripts/vm.sh) for each boot of the plan, in a
random order, and each boot runs
:func:`slablab.experiments.seed_004.run_tbench_boot` (``make experiments`` does).
"""

import json
import os
import random
import sys
import time
from typing import Any, Callable, Dict, Optional

from .core import Log, _script
from .seed_004 import BOOT_KINDS, LIVE_TBENCH, _tbench_file, boot_plan


def _slabinfo_series() -> str:
    """scripts/slabinfo.sh's series for the kernel `make experiments` boots (KERNEL)."""
    major = os.environ.get("KERNEL", "6.1").split(".")[0]
    return "7" if major.isdigit() and int(major) >= 7 else "6"


def run_tbench_boots(out_dir: str, scale: str, order_seed: Optional[int] = None,
                     log: Log = print, run: Optional[Callable[..., Any]] = None,
                     which: Optional[Callable[[str], Optional[str]]] = None) -> Dict[str, Any]:
    """seed-004 live, the host side: boots the VM (scripts/vm.sh) once per
    :func:`boot_plan` entry, with slub_max_order=0 added to VM_APPEND for the order-0
    kind, each boot running :func:`run_tbench_boot` into ``out_dir`` (emptied first);
    builds the kernel's slabinfo first (scripts/slabinfo.sh). Writes and returns
    OUT_DIR/boots.json: the plan, the order seed, seconds, and ``missing`` (why the
    series could not run or stopped)."""
    import shutil
    import subprocess
    run = run or subprocess.run
    which = which or shutil.which
    p = LIVE_TBENCH[scale]
    seed = order_seed if order_seed is not None else random.SystemRandom().randrange(1 << 32)
    plan = boot_plan(p["rounds"], seed)
    os.makedirs(out_dir, exist_ok=True)
    for fn in os.listdir(out_dir):
        if _tbench_file(fn):
            os.remove(os.path.join(out_dir, fn))
    info: Dict[str, Any] = dict(scale=scale, order_seed=seed, rounds=p["rounds"],
                                runs_per_boot=p["runs"], tbench_seconds=p["seconds"],
                                missing=None,
                                plan=[dict(boot=b.number, round=b.round, kind=b.kind.key)
                                      for b in plan])
    t0 = time.monotonic()
    log(f"seed-004 live: tbench, {len(plan)} boots ({p['rounds']} rounds of "
        f"{', '.join(k.key for k in BOOT_KINDS.values())}) in a random order, "
        f"--order-seed {seed}: {' '.join(b.kind.key for b in plan)} -> {out_dir}")
    vm = _script("vm.sh")
    if not (which("tbench") and which("tbench_srv")):
        info["missing"] = "skipped: no tbench (Debian's dbench: scripts/deps.sh)"
    elif not vm:
        info["missing"] = "skipped: no scripts/vm.sh (run from the repository)"
    env = dict(os.environ)
    slabinfo = _script("slabinfo.sh")
    if not info["missing"] and slabinfo:
        r = run([slabinfo, _slabinfo_series()], capture_output=True, text=True, check=False)
        if r.returncode == 0 and r.stdout.strip():
            env["SLABLAB_SLABINFO"] = r.stdout.strip().splitlines()[-1]
        else:
            log(f"seed-004 live: scripts/slabinfo.sh failed, no slabinfo -AD: "
                f"{r.stderr.strip()[-200:]}")
    for b in plan if not info["missing"] else []:
        benv = dict(env, VM_APPEND=" ".join(a for a in (env.get("VM_APPEND", ""),
                                                        b.kind.append) if a))
        cmd = [str(vm), "--timeout", str(300 + 3 * p["runs"] * p["seconds"]), "--",
               sys.executable, "-m", "slablab", "experiment", "seed-004",
               "--in-boot", b.kind.key, "--boot", str(b.number), "--round", str(b.round),
               "--out", out_dir] + (["--full"] if scale == "full" else [])
        t1 = time.monotonic()
        r = run(cmd, env=benv, capture_output=True, text=True, check=False)
        for line in (r.stdout or "").splitlines():
            log(line)
        if r.returncode != 0:
            tail = (r.stdout or "").strip().splitlines()[-1:] + \
                (r.stderr or "").strip().splitlines()[-3:]
            info["missing"] = (f"missing: boot {b.number} ({b.kind.key}) ended with vm.sh "
                               f"exit status {r.returncode}: {' / '.join(tail)}")
            if r.returncode == 3 and tail and tail[0].startswith("skipped:"):
                info["missing"] = tail[0]       # the guest said why (no tbench, no lo)
            log(f"seed-004 live: {info['missing']}")
            break
        log(f"seed-004 live: boot {b.number} ({b.kind.key}"
            f"{', ' + b.kind.append if b.kind.append else ''}) "
            f"done in {time.monotonic() - t1:.0f} s")
    info["seconds"] = round(time.monotonic() - t0, 1)
    with open(os.path.join(out_dir, "boots.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info
