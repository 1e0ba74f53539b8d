#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# slablab's benchmark set (issue #4's targets), run inside the test VM by `make bench`:
# every figure is an interleaved comparison with the kernel's SLUB in the same run.
# Output: the tables on stdout, every run in build/bench/*.csv.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
S=$BUILD/tool/slabctl
OUT=$BUILD/bench
REPEAT=${BENCH_REPEAT:-7}
OPS=${BENCH_OPS:-200k}
mkdir -p "$OUT"

"$S" status
for size in 64 192; do
	"$S" create "b$size" --size "$size" >/dev/null
done

run() { # NAME ARGS...
	local name=$1
	shift
	echo
	echo "== $name: slabctl compare $*"
	"$S" compare -q --repeat "$REPEAT" --csv "$OUT/$name.csv" "$@"
}

run pair-64 pair --cache b64 --ops "$OPS"
run bulk16-64 bulk --cache b64 --batch 16 --ops "$OPS" --figure cycles_per_alloc --figure cycles_per_free
run remote-192 remote --cache b192 --ops "$OPS"
run remote-192-cpu-partial remote --cache b192 --ops "$OPS" -T slablab \
	--set cpu_partial=0 --set cpu_partial=52
run churn-64 churn --cache b64 --working-set 20000 --ops "$OPS"
run churn-192 churn --cache b192 --working-set 20000 --ops "$OPS"
echo
"$S" info -D
