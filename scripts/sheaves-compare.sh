#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# slablab's sheaves design beside the kernel's own sheaves (7.x's SLUB: the native
# target) and beside slablab's slub design (6.1's per-cpu slabs), on the same work in
# the same VM: `make sheaves-compare` (KERNEL=7.3 unless given; docs/benchmarks.md).
# Runs inside the test VM. For each storm pattern one `slabctl compare` with three
# variants interleaved (native, slablab as sheaves, slablab as slub), so every ratio is
# to the kernel's sheaves, with its 95% confidence interval; then a recorded trace
# replayed on the three, REPEAT times each, interleaved, peak pages and run time with a
# Student-t interval. Output: the table on stdout, the runs in build/sheaves-compare/.
#   SHEAVES_REPEAT  repeats of each variant (default 7)
#   SHEAVES_OPS     allocations per thread and run (default 200k)
#   SHEAVES_TRACE   the trace to replay (default build/hackbench.trace; recorded first,
#                   scripts/record-hackbench.sh, when missing)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
S=$BUILD/tool/slabctl
PY=$BUILD/venv/bin/python
OUT=$BUILD/sheaves-compare
REPEAT=${SHEAVES_REPEAT:-7}
OPS=${SHEAVES_OPS:-200k}
TRACE=${SHEAVES_TRACE:-$BUILD/hackbench.trace}
mkdir -p "$OUT"

if ! grep -qs . /sys/kernel/slab/kmalloc-64/sheaf_capacity; then
	echo "sheaves-compare: this kernel's SLUB has no sheaves (no /sys/kernel/slab/*/sheaf_capacity): use KERNEL=7.3" >&2
	exit 2
fi
uname -r
"$S" status
for size in 64 192; do
	"$S" create "sv$size" --size "$size" --design sheaves >/dev/null
done
vs=(-T native -T slablab --set design=sheaves --set design=slub)
common=(-q --repeat "$REPEAT" --warmup 1 --json)
run() { # NAME ARGS...
	local name=$1
	shift
	echo "== $name: slabctl compare ${common[*]} $* ${vs[*]}" >&2
	"$S" compare "${common[@]}" --csv "$OUT/$name.csv" "$@" "${vs[@]}" >"$OUT/$name.json"
}
run pair-64 pair --cache sv64 --ops "$OPS"
run batch1000-64 batch --cache sv64 --batch 1000 --ops "$OPS" \
	--figure cycles_per_alloc --figure cycles_per_free
run remote-192 remote --cache sv192 --ops "$OPS"
run churn-64 churn --cache sv64 --working-set 20000 --ops "$OPS" \
	--figure ns_per_op --figure overhead_pct
"$S" destroy sv64 >/dev/null
"$S" destroy sv192 >/dev/null

if [ ! -f "$TRACE" ]; then
	echo "== recording $TRACE (scripts/record-hackbench.sh)" >&2
	"$REPO/scripts/record-hackbench.sh" "$TRACE" >&2
fi

"$PY" - "$OUT" "$TRACE" "$REPEAT" <<'PYEOF'
import json, sys
import slablab
from scipy import stats

out, trace, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
labels = {"native": "kernel sheaves", "design=sheaves": "slablab sheaves",
          "design=slub": "slablab slub"}


def label(v):
    return labels.get(v["set"] or v["target"], v["label"])


print("\n## Storms (median of each figure; ratio to the kernel's sheaves [95% bootstrap CI])\n")
print("| storm | figure | kernel sheaves | slablab sheaves | slablab slub |")
print("| --- | --- | ---: | ---: | ---: |")
for name in ("pair-64", "batch1000-64", "remote-192", "churn-64"):
    d = json.load(open(f"{out}/{name}.json"))
    for fig in d["figures"]:
        cells = []
        for v in d["variants"]:
            s = v["summary"][fig]
            if s["median"] is None:
                cells.append("n/a")
                continue
            cell = f"{s['median']:.1f}"
            ci = s["ci"]
            # a ratio of percentages of overhead says nothing: medians only there
            if v["target"] != "native" and ci and fig != "overhead_pct":
                cell += f" ({ci['ratio']:.3f} [{ci['lo']:.3f}, {ci['hi']:.3f}])"
            cells.append(cell)
        print(f"| {name} | {fig} | " + " | ".join(cells) + " |")

# The replay: REPEAT rounds, the three targets interleaved in each.
targets = ["native", "slablab:sheaves", "slablab:slub"]
c = slablab.Client()
runs = {t: [] for t in targets}
for i in range(repeat + 1):
    res = c.replay_compare(trace, targets, time_scale=0)
    if i == 0:
        continue  # warm-up round, discarded
    for x in res["replays"]:
        runs[x["label"]].append(x)
json.dump(runs, open(f"{out}/replay.json", "w"), indent=1)


def interval(xs):
    """The mean and the half width of its 95% Student-t interval (scipy's)."""
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    lo, _ = stats.t.interval(0.95, len(xs) - 1, loc=m, scale=stats.sem(xs))
    return m, m - lo


print(f"\n## Replay of {trace} ({repeat} rounds; mean ± 95% Student-t half-width)\n")
print("| figure | kernel sheaves | slablab sheaves | slablab slub |")
print("| --- | ---: | ---: | ---: |")
for fig in ("peak_pages", "elapsed_ns"):
    cells = []
    for t in targets:
        xs = [float(x[fig]) for x in runs[t] if x.get(fig) is not None]
        if not xs:
            cells.append("n/a")
            continue
        m, h = interval(xs)
        scale = 1e6 if fig == "elapsed_ns" else 1
        cells.append(f"{m / scale:.1f} ± {h / scale:.1f}")
    name = "elapsed (ms)" if fig == "elapsed_ns" else fig
    print(f"| {name} | " + " | ".join(cells) + " |")
PYEOF
