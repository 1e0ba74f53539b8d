#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The deterministic performance gate (make icount-gate; docs/testing.md, "The -icount
# performance gate"): one VM under VM_ICOUNT=1 (one vCPU, cycles = 2 x instructions,
# the same every boot) measures every figure of tests/perf/icount_gate.py (each design's
# pair and batch storm, slablab kmalloc's 64-byte pair), then the host holds them
# against tests/perf/icount-budget.json: a figure more than 3% over its budget, or one
# not measured, fails; one more than 3% under it is reported so the budget can be lowered.
#
#   scripts/icount-gate.sh                      measure and compare
#   scripts/icount-gate.sh --update [--reason [FIGURE=]TEXT]...
#                                               measure and rewrite the budget: lowered
#                                               figures keep their reason, a raised or new
#                                               one needs --reason
#   scripts/icount-gate.sh --measured FILE ...  compare (or --update from) a saved
#                                               measurement instead of booting
#
# The module must be built (make module; SLABLAB_MODULE: another build of it, as
# scripts/test.sh keeps one per kernel); slabctl is SLABLAB_BUILD's (default build/).
# Each measurement is kept in build/icount/measured-KERNEL.json (KERNEL: vm.sh's). Exit status: 0 pass, 1 a
# figure over its budget or missing (or --update refused), else vm.sh's.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd -P)
GATE=$REPO/tests/perf/icount_gate.py
OUTDIR=$REPO/build/icount
MODULE=${SLABLAB_MODULE:-$REPO/module/slablab.ko}
PY=${ICOUNT_GATE_PYTHON:-/usr/bin/python3}
measured=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--measured) measured=$2; shift 2 ;;
	--update) args+=(--update); shift ;;
	--reason) args+=(--reason "$2"); shift 2 ;;
	--budget) args+=(--budget "$2"); shift 2 ;;
	-h | --help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "icount-gate: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done

if [ -z "$measured" ]; then
	[ -f "$MODULE" ] || { echo "icount-gate: no $MODULE: make module" >&2; exit 2; }
	mkdir -p "$OUTDIR"
	# one file a kernel: scripts/test.sh gates two kernels at once
	measured=$OUTDIR/measured-${KERNEL:-6.1}.json
	rm -f "$measured"
	# The guest sees this repository read-write at the same path: it writes $measured.
	VM_ICOUNT=1 VM_CPUS=1 VM_TIMEOUT="${VM_TIMEOUT:-600}" \
		VM_LOG="${VM_LOG:-$REPO/build/vm/serial-icount-gate.log}" \
		"$REPO/scripts/vm.sh" --module "$MODULE" -- \
		"$PY" "$GATE" measure --out "$measured"
fi
exec "$PY" "$GATE" compare "$measured" ${args[@]+"${args[@]}"}
