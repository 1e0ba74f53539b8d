#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# slablab's main job, run inside the test VM by `make demo`: caches of a few sizes, the
# same allocation storms against slablab and against the kernel's own SLUB (interleaved,
# repeated, summarized like seed 000's table), and slabinfo's activity view of it all.
# Short on purpose: it finishes in well under a minute on the 2-core TCG machine.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
SLABCTL=$BUILD/tool/slabctl
[ -x "$SLABCTL" ] || SLABCTL=$BUILD/slabctl
# Plain progress lines (one per finished run) rather than a redrawn bar: the serial
# console is a terminal, but a log of it reads better without carriage returns.
plain() { "$@" | cat; }

echo "== slabctl version"
"$SLABCTL" version
echo
echo "== caches of a few sizes; some objects allocated on cpu 0 and freed on the last cpu"
last=$(( $(nproc) - 1 ))
for size in 64 192 1024 4096; do
	"$SLABCTL" create "demo-$size" --size "$size"
	h=$("$SLABCTL" alloc "demo-$size" 2000 --cpu 0)
	"$SLABCTL" free "$h" --cpu "$last" --count 1500 >/dev/null
done
echo
echo "== one storm: alloc+free pairs on demo-64, every cpu, 20000 per thread"
plain "$SLABCTL" storm start slablab pair --cache demo-64 --ops 20k
echo
echo "== slablab vs the kernel's SLUB: alloc+free pairs, 64-byte objects (3 rounds, interleaved)"
plain "$SLABCTL" compare pair --cache demo-64 --target slablab --target native \
	--ops 20k --repeat 3
echo
echo "== slablab vs SLUB: allocated on one cpu, freed on another (192-byte objects)"
plain "$SLABCTL" compare remote --cache demo-192 --target slablab --target native \
	--threads 2 --ops 5k --repeat 3
echo
echo "== slablab with and without per-cpu partial lists, same remote pattern"
plain "$SLABCTL" compare remote --cache demo-192 --set cpu_partial=0 --set cpu_partial=52 \
	--threads 2 --ops 5k --repeat 3
echo
echo "== another design on an empty cache: SLAB's array caches (max_order is SLUB's: set says it is kept, not read)"
"$SLABCTL" create demo-slab --size 128
"$SLABCTL" set demo-slab design=slab limit=60 max_order=2
echo
echo "== slabctl info -D (activity: the storms' allocations and frees, fast-path %)"
"$SLABCTL" info -D 'demo-*'
echo
echo "== slabctl info (slabinfo's table)"
"$SLABCTL" info 'demo-*'
echo
echo "== slabctl info --native (slablab's caches beside the kernel's own SLUB caches)"
"$SLABCTL" info --native 'demo-*' 'kmalloc-64' 'kmalloc-192' 'kmalloc-1k' 'kmalloc-4k'
