#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# slablab's main job, run inside the test VM by `make demo`: show what slablab sees.
# (Later: a storm compared side by side with the kernel's SLUB.)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
SLABCTL=$BUILD/tool/slabctl
[ -x "$SLABCTL" ] || SLABCTL=$BUILD/slabctl

echo "== slabctl version"
"$SLABCTL" version
echo
echo "== a few caches, some objects allocated on cpu 0 and freed on the last cpu"
last=$(( $(nproc) - 1 ))
for size in 64 192 1024 4096; do
	"$SLABCTL" create "demo-$size" --size "$size" >/dev/null
	h=$("$SLABCTL" alloc "demo-$size" 2000 --cpu 0 | awk '{print $NF}' | tr -dc 0-9)
	"$SLABCTL" free "$h" --cpu "$last" --count 1500 >/dev/null
done
echo
echo "== slabctl info (slabinfo's table)"
"$SLABCTL" info
echo
echo "== slabctl info -D (activity)"
"$SLABCTL" info -D
echo
echo "== slabctl info -r demo-4096"
"$SLABCTL" info -r demo-4096
