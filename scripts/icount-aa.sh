#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The A/A of the deterministic mode on several vCPUs (make icount-aa; docs/experiments.md,
# "Deterministic mode"): ICOUNT_AA_BOOTS (5) separate boots under VM_ICOUNT=1 with
# ICOUNT_AA_CPUS (2) vCPUs, each running the same remote storm ICOUNT_AA_STORMS (3)
# times (tests/perf/icount_aa.py guest) after tests/vm/test_icount.py (its cpus online),
# then the spread of its figures over the boots (cycles/alloc, cycles/free, the list_lock
# operation counts), storm by storm and of each boot's median, with its 95% interval.
#
#   scripts/icount-aa.sh                 boot, measure and summarize
#   scripts/icount-aa.sh --summary       summarize the boots kept in build/icount-aa/
#
# ICOUNT_AA_OPS (500000 objects a producer), ICOUNT_AA_SIZE (64), KERNEL (6.1), the
# module: SLABLAB_MODULE (default module/slablab.ko). Each boot's storms are kept in
# ICOUNT_AA_OUT (build/icount-aa)/boot-N.json, its serial log beside it. Exit status: 0, 2 usage, else
# the failing boot's (vm.sh's).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
AA=$REPO/tests/perf/icount_aa.py
OUT=${ICOUNT_AA_OUT:-$REPO/build/icount-aa}
MODULE=${SLABLAB_MODULE:-$REPO/module/slablab.ko}
PY=$REPO/build/venv/bin/python
boots=${ICOUNT_AA_BOOTS:-5}
cpus=${ICOUNT_AA_CPUS:-2}
case ${1:-} in
--summary) exec /usr/bin/python3 "$AA" summary "$OUT"/boot-*.json ;;
-h | --help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "icount-aa: unknown option $1 (--help)" >&2; exit 2 ;;
esac
[[ $boots =~ ^[0-9]+$ ]] && [ "$boots" -ge 2 ] ||
	{ echo "icount-aa: ICOUNT_AA_BOOTS '$boots': at least 2 boots" >&2; exit 2; }
[ -f "$MODULE" ] || { echo "icount-aa: no $MODULE: make module" >&2; exit 2; }
[ -x "$PY" ] || { echo "icount-aa: no $PY: make python" >&2; exit 2; }
mkdir -p "$OUT"
rm -f "$OUT"/boot-*.json
for i in $(seq 1 "$boots"); do
	echo "icount-aa: boot $i of $boots" >&2
	# The guest sees this repository read-write at the same path: it writes boot-$i.json.
	# First the guest's cpu check (every vCPU online and running), then the storms.
	VM_ICOUNT=1 VM_CPUS=$cpus VM_PIN=${VM_PIN:-auto} VM_TIMEOUT=${VM_TIMEOUT:-600} \
		VM_LOG="$OUT/serial-$i.log" "$REPO/scripts/vm.sh" --module "$MODULE" -- \
		"$(printf '%q ' "$PY" -m pytest -q -p no:cacheprovider "$REPO/tests/vm/test_icount.py") &&
		$(printf '%q ' "$PY" "$AA" guest --out "$OUT/boot-$i.json" \
			--storms "${ICOUNT_AA_STORMS:-3}" --ops "${ICOUNT_AA_OPS:-500000}" \
			--size "${ICOUNT_AA_SIZE:-64}")"
done
files=()
for i in $(seq 1 "$boots"); do files+=("$OUT/boot-$i.json"); done
exec /usr/bin/python3 "$AA" summary "${files[@]}"
