#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# slablab's benchmark set (issue #4's targets), run inside the test VM by `make bench`:
# every figure is an interleaved comparison with the kernel's SLUB in the same run, with
# a 95% bootstrap confidence interval of each ratio (docs/benchmarks.md).
# First an A/A run (slablab against itself) measures this machine's noise floor; every
# later comparison reports a ratio whose interval lies inside that floor as "no
# difference". Output: the tables on stdout, every run in build/bench/*.csv.
#   BENCH_REPEAT   repeats of each variant (default 7; with BENCH_UNTIL: at least)
#   BENCH_UNTIL    go on until every CI is at most this wide, e.g. ±2% (default: off)
#   BENCH_MAX      the most repeats with BENCH_UNTIL (default 30)
#   BENCH_WARMUP   warm-up rounds discarded before each comparison (default 1)
#   BENCH_BULK     the bulk sizes (default "1 8 16 32 64 128")
#   BENCH_ONLY     run only the comparisons whose name matches this regex (default: all;
#                  the A/A floor always runs)
#   BENCH_SIZES    the object sizes of the cycles-by-size stage (default "8 16 32 64 128
#                  256 512 1024 2048 4096"; its comparisons are named cycles-SIZE)
#   BENCH_SIZE_OPS allocations per run of that stage (default 5000: 50 batches of 100)
# The designs compared are those of the spec's design enum (python/slablab/protocol.py)
# that this module builds, each in one run beside the kernel's SLUB (the first variant:
# every ratio is to native SLUB); when the spec has a sheaves_cpu_slabs tunable, sheaves with it
# on too (sheaves over slub's per-cpu slabs).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
S=$BUILD/tool/slabctl
PY=$BUILD/venv/bin/python
OUT=$BUILD/bench
REPEAT=${BENCH_REPEAT:-7}
OPS=${BENCH_OPS:-200k}
UNTIL=${BENCH_UNTIL:-}
MAX=${BENCH_MAX:-30}
WARMUP=${BENCH_WARMUP:-1}
BULK=${BENCH_BULK:-1 8 16 32 64 128}
SIZES=${BENCH_SIZES:-8 16 32 64 128 256 512 1024 2048 4096}
SIZE_OPS=${BENCH_SIZE_OPS:-5000}
ONLY=${BENCH_ONLY:-}
mkdir -p "$OUT"

"$S" status
for size in 64 192; do
	"$S" create "b$size" --size "$size" >/dev/null
done

common=(-q --repeat "$REPEAT" --warmup "$WARMUP")
if [[ -n $UNTIL ]]; then
	common+=(--until "$UNTIL" --max-repeats "$MAX")
fi

# The noise floor: pair storms of one cache against themselves. Its interval's half
# width is the smallest difference this machine can tell apart from noise.
echo
echo "== A/A noise floor: slabctl compare --aa pair --cache b64 ${common[*]}"
"$S" compare "${common[@]}" --aa --csv "$OUT/aa.csv" --json pair --cache b64 --ops "$OPS" \
	>"$OUT/aa.json"
FLOOR=$("$PY" - "$OUT/aa.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["variants"][1]["summary"]["cycles_per_pair"]
ci = s["ci"]
if ci is None:
    print("0")
    sys.exit()
floor = max(ci["hi"] - 1, 1 - ci["lo"])
print(f"A/A ratio {ci['ratio']:.3f} [{ci['lo']:.3f}, {ci['hi']:.3f}] over {ci['n']} "
      f"pairs: noise floor ±{floor * 100:.1f}%", file=sys.stderr)
# compare takes a floor under 100%: one wider (an A/A interval past 2x on a loaded
# host) says that nothing of this run can be told apart; 99% says the same to compare
if floor >= 0.99:
    print("noise floor capped at ±99%: this run cannot tell anything apart",
          file=sys.stderr)
    floor = 0.99
print(f"{floor:.4f}")
PYEOF
)
echo "noise floor: ±$("$PY" -c "print(f'{float($FLOOR) * 100:.1f}')")% (a ratio whose CI lies inside it: no difference)"

# The design variants, from the generated protocol tables: every design of the enum
# the policy accepts (a design not built is refused by `set` and left out, said so).
mapfile -t SETS < <("$PY" - <<'PYEOF'
from slablab import protocol as p
tunables = {t[0]: t for t in p.CACHE_TUNABLES}
top = tunables["design"][5]
for name in p.ENUMS["slablab_design"]:
    if name.startswith("__") or p.VALUES[name] > top:
        continue
    design = name.removeprefix("SLABLAB_DESIGN_").lower()
    if design == "sheaves" and "sheaves_cpu_slabs" in tunables:
        # both ways said: the value stays with the cache across designs
        print("design=sheaves,sheaves_cpu_slabs=0")
        print("design=sheaves,sheaves_cpu_slabs=1")
    elif design == "slab" and "lists" in tunables:
        # seed 001's question: one slab list (2.4.9) or three
        print("design=slab,lists=3")
        print("design=slab,lists=1")
    else:
        print(f"design={design}")
PYEOF
)
"$S" create bprobe --size 64 >/dev/null
designs=()
for set in "${SETS[@]}"; do
	# shellcheck disable=SC2086 # a set is KEY=VALUE[,KEY=VALUE]: one word per key
	if "$S" set bprobe ${set//,/ } >/dev/null 2>&1; then
		designs+=(--set "$set")
	else
		echo "design variant $set: not built into this module, left out"
	fi
	"$S" set bprobe design=slub >/dev/null
done
"$S" destroy bprobe >/dev/null
echo "design variants: ${designs[*]}"

run() { # NAME ARGS...
	local name=$1
	shift
	if [[ -n $ONLY && ! $name =~ $ONLY ]]; then
		return
	fi
	echo
	echo "== $name: slabctl compare $*"
	"$S" compare "${common[@]}" --noise-floor "$FLOOR" --csv "$OUT/$name.csv" "$@"
}
# Native SLUB first, then slablab as each design: ratios to the kernel's SLUB.
vs=(-T native -T slablab "${designs[@]}")

run pair-64 pair --cache b64 --ops "$OPS" "${vs[@]}"
for n in $BULK; do
	run "bulk$n-64" bulk --cache b64 --batch "$n" --ops "$OPS" "${vs[@]}" \
		--figure cycles_per_alloc --figure cycles_per_free
done
run remote-192 remote --cache b192 --ops "$OPS" "${vs[@]}"
run remote-192-cpu-partial remote --cache b192 --ops "$OPS" -T slablab \
	--set cpu_partial=0 --set cpu_partial=52
run churn-64 churn --cache b64 --working-set 20000 --ops "$OPS" "${vs[@]}"
run churn-192 churn --cache b192 --working-set 20000 --ops "$OPS" "${vs[@]}"

# Seed 001's fast path by object size (issue 14): km/kf split into cycles per allocation
# and per free, from batch storms of 100 (one thread on cpu 0, as the seed's tight loop),
# the timed loop's own cost as its own figure; every design beside the kernel's SLUB.
sized=()
for size in $SIZES; do
	if [[ -n $ONLY && ! cycles-$size =~ $ONLY ]]; then
		continue
	fi
	"$S" create "bk$size" --size "$size" >/dev/null
	run "cycles-$size" batch --cache "bk$size" --batch 100 --threads 1 --cpus 0 \
		--ops "$SIZE_OPS" "${vs[@]}" --figure cycles_per_alloc --figure cycles_per_free \
		--figure loop_cycles
	"$S" destroy "bk$size" >/dev/null
	sized+=("$OUT/cycles-$size.csv")
done
if ((${#sized[@]})); then
	echo
	echo "== cycles by size (${#sized[@]} sizes): python3 -m slablab.bench cycles-by-size"
	"$PY" -m slablab.bench cycles-by-size "${sized[@]}"
fi
echo
"$S" info -D
