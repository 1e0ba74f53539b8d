#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/soak.sh [SECONDS]
#
# The soak test: the stress grid of tests/vm/test_stress.py (pattern x object size x
# threads x cpu_partial x fast path), over and over in random order with heavier
# variants (bigger storms, fault injection, debug caches, objects held through a storm,
# tunables changed while it runs), in the test VM for SECONDS (default 600), checking
# every invariant after every storm. The kernel log must stay clean (scripts/vm.sh fails
# the run on any splat). At the end it prints what it did: storms run, ops, allocation
# failures (injected ones), rounds of the grid, and the seed that replays the order.
#
# Environment: SLABLAB_SOAK_SEED (default: the time), SLABLAB_MODULE (default
# module/slablab.ko), SLABLAB_PYTHON (the Python with the slablab package, default
# build/venv/bin/python: make installs it), KERNEL/KERNEL_DIR and VM_* as for scripts/vm.sh.
# The report (JSON) is kept in build/soak/report-<UTC date-time>.json; it is rewritten
# every 20 storms, so a guest that crashed still leaves what it had done.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PYTHON=${SLABLAB_PYTHON:-$BUILD/venv/bin/python}
MODULE=${SLABLAB_MODULE:-$REPO/module/slablab.ko}

case ${1:-} in
-h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
SECONDS_WANTED=${1:-600}
if ! [[ $SECONDS_WANTED =~ ^[0-9]+$ ]] || [ "$SECONDS_WANTED" -lt 1 ]; then
	echo "usage: scripts/soak.sh [SECONDS]   (a whole number of seconds, default 600)" >&2
	exit 2
fi
for f in "$MODULE" "$PYTHON"; do
	if [ ! -e "$f" ]; then
		echo "soak.sh: $f is missing: run 'make' first" >&2
		exit 2
	fi
done

mkdir -p "$BUILD/soak"
REPORT=$BUILD/soak/report-$(date -u +%Y%m%d-%H%M%S).json
export SLABLAB_SOAK=1 SLABLAB_SOAK_SECONDS=$SECONDS_WANTED SLABLAB_SOAK_REPORT=$REPORT
export SLABLAB_BUILD=$BUILD
# the last storm may start just before the time is up; boot and pytest take ~15 s
export VM_TIMEOUT=${VM_TIMEOUT:-$((SECONDS_WANTED + 600))}

echo "soak: ${SECONDS_WANTED}s of storms in the VM; report: $REPORT" >&2
rc=0
"$REPO/scripts/stage.sh" "soak (${SECONDS_WANTED}s)" "$REPO/scripts/vm.sh" --module "$MODULE" -- \
	"$PYTHON" -m pytest -q -x -p no:cacheprovider -s \
	-o "markers=soak: the long stress grid (scripts/soak.sh)" -m soak \
	"$REPO/tests/vm/test_stress.py::test_soak" || rc=$?

if [ -f "$REPORT" ]; then
	"$PYTHON" - "$REPORT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"soak: {r['status']}: {r['storms']} storms, {r['ops']:,} ops "
      f"({r['allocs']:,} timed allocations), {r['alloc_failures']:,} allocation failures "
      f"(injected), {r['rounds']} full rounds of the grid in {r['seconds']} s "
      f"on {r['kernel']}, {r['cpus']} cpus; seed {r['seed']}")
print("soak: storms per pattern: " +
      ", ".join(f"{k} {v}" for k, v in sorted(r["by_pattern"].items())))
print("soak: variants: " + (", ".join(f"{k} {v}" for k, v in sorted(r["variants"].items()))
                           or "none"))
if r["status"] != "ok":
    print(f"soak: last point: {r['last_point']}")
PY
else
	echo "soak: no report was written (the guest did not get far enough)" >&2
fi
if [ $rc -eq 0 ]; then
	echo "soak: PASSED" >&2
else
	echo "soak: FAILED (exit $rc; the kernel log is the one vm.sh named above)" >&2
fi
exit $rc
