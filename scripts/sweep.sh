#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/sweep.sh [--grid small|full] [--out DIR] [--only EXP,...] [--repeat N]
#
# Runs slablab's parameter sweep (python3 -m slablab.sweep, docs/sweeps.md) in the test
# VM — storms must run in the guest kernel — then draws the plots on the host from the
# CSV. Output in DIR (default build/sweep/<UTC date-time>, which must lie inside the
# repository: the guest writes there through the repository's 9p mount):
#   sweep.csv   one row per storm (the runs CSV of slabctl compare --csv + the sweep's
#               columns): spec, results, figures, stat deltas, kernel, cpus, date
#   sweep.json  the grid, its run time, storms run
#   *.png       remote_throughput, batch_cycles, churn_fragmentation, fastpath_cpu_partial
#   summary.txt the medians behind the plots
#
# Environment: SLABLAB_MODULE (default module/slablab.ko, built by `make`), SLABLAB_PYTHON
# (the Python with the slablab package, default build/venv/bin/python: make installs it),
# KERNEL/KERNEL_DIR and VM_* as for scripts/vm.sh;
# VM_TIMEOUT defaults to 1800 s for the small grid and 7200 s for the full one.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PYTHON=${SLABLAB_PYTHON:-$BUILD/venv/bin/python}
MODULE=${SLABLAB_MODULE:-$REPO/module/slablab.ko}
STAGE=$REPO/scripts/stage.sh

usage() {
	sed -n '4,5p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

grid=small out='' args=()
while [ $# -gt 0 ]; do
	case $1 in
	--grid) [ $# -ge 2 ] || usage; grid=$2; shift 2 ;;
	--grid=*) grid=${1#*=}; shift ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--only|--repeat) [ $# -ge 2 ] || usage; args+=("$1" "$2"); shift 2 ;;
	--only=*|--repeat=*) args+=("$1"); shift ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "sweep.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
case $grid in
small|full) ;;
*) echo "sweep.sh: --grid is small or full, not '$grid'" >&2; exit 2 ;;
esac

[ -n "$out" ] || out=$BUILD/sweep/$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $out/ in
"$REPO"/*) ;;
*) echo "sweep.sh: --out $out is outside the repository ($REPO): the guest cannot" \
	"write there" >&2; exit 2 ;;
esac
for f in "$MODULE" "$PYTHON"; do
	if [ ! -e "$f" ]; then
		echo "sweep.sh: $f is missing: run 'make' first" >&2
		exit 2
	fi
done
if ! "$PYTHON" -c 'import slablab.plots, pandas, matplotlib' 2>/dev/null; then
	echo "sweep.sh: $PYTHON cannot import slablab.plots, pandas and matplotlib (make;" \
		"scripts/deps.sh installs python3-pandas and python3-matplotlib)" >&2
	exit 2
fi

if [ -z "${VM_TIMEOUT:-}" ]; then
	if [ "$grid" = full ]; then VM_TIMEOUT=7200; else VM_TIMEOUT=1800; fi
fi
export VM_TIMEOUT SLABLAB_BUILD=$BUILD

echo "sweep: grid $grid -> $out" >&2
$STAGE "sweep ($grid, VM)" "$REPO/scripts/vm.sh" --module "$MODULE" -- \
	"$PYTHON" -m slablab.sweep run --no-plot --grid "$grid" --out "$out" ${args[@]+"${args[@]}"}
$STAGE "sweep plots" "$PYTHON" -m slablab.sweep plot --out "$out" "$out/sweep.csv"
pngs=("$out"/*.png)
echo "sweep: ${#pngs[@]} plots and $(($(wc -l <"$out/sweep.csv") - 1)) rows in $out" >&2
