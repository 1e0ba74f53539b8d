#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Replay a recorded trace on every design the module builds and on the kernel's SLUB,
# in turn, inside the test VM (`make replay-hackbench`, `make replay-bootlike`;
# docs/replay.md): the side-by-side table, the JSON and the pages-over-time plot.
#
#   scripts/replay-compare.sh TRACE OUT      (writes OUT.json, OUT.png, OUT.svg)
#
# REPLAY_TARGETS: the targets (default: every design of the spec's enum, then native);
# REPLAY_TIME_SCALE: 1 replays at the recorded pace (memory over time), 0 as fast as
# possible (throughput; default 1).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
S=$BUILD/tool/slabctl
PY=$BUILD/venv/bin/python
TRACE=${1:?usage: replay-compare.sh TRACE OUT}
OUT=${2:?usage: replay-compare.sh TRACE OUT}

if [ ! -f "$TRACE" ]; then
	echo "replay-compare: no trace $TRACE (make record-hackbench or make record-bootlike first)" >&2
	exit 2
fi
targets=${REPLAY_TARGETS:-$("$PY" -c '
from slablab import protocol as p
names = [n.removeprefix("SLABLAB_DESIGN_").lower() for n in p.ENUMS["slablab_design"]
         if not n.startswith("__")]
print(",".join(names + ["native"]))')}
scale=${REPLAY_TIME_SCALE:-1}
mkdir -p "$(dirname "$OUT")"
echo "replay-compare: $TRACE on $targets (time scale $scale)" >&2
# the table for people, then the same replays' JSON for the plot: one run each
"$S" replay "$TRACE" --compare "$targets" --time-scale "$scale" --json >"$OUT.json"
"$PY" - "$OUT.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["compare"]["replays"]
print(f"{'target':<18}{'ops/s':>12}{'cyc/alloc':>11}{'cyc/free':>10}{'peak pages':>12}"
      f"{'avg pages':>11}{'overhead':>10}")
for r in rows:
    print(f"{r['label']:<18}{r['ops_per_sec']:>12,.0f}{r['cycles_per_alloc']:>11,.0f}"
          f"{r['cycles_per_free']:>10,.0f}{r['peak_pages']:>12,}{r['avg_pages']:>11,}"
          f"{r['overhead_pct']:>9.1f}%")
PY
MPLCONFIGDIR=${MPLCONFIGDIR:-$BUILD/mplconfig} "$PY" -m slablab.replay_plot "$OUT.json" -o "$OUT"
echo "replay-compare: $OUT.json, $OUT.png, $OUT.svg" >&2
