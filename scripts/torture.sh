#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/torture.sh: the torture run (`make torture`, docs/testing.md). Boots the test VM
# and runs tests/torture/torture.py there for TORTURE_SECONDS: every storm pattern against
# every target in turn while a control thread changes tunables, shrinks, validates,
# resets statistics, allocates and frees on other cpus, takes cpus offline and online,
# stops storms, tries CACHE_DEL and rmmod (loading the module again when it unloads).
# Fails on a splat in the kernel log (scripts/vm.sh: 125), a broken storm identity, a
# validate error, an unexpected error, a call that does not return within 60 s (the
# blocked tasks are dumped into the kernel log), or a module that does not unload at the
# end.
#
# Environment:
#   TORTURE_SECONDS  how long the storms and the control thread run (default 300)
#   TORTURE_SEED     the seed of every decision (default: a random one, printed first);
#                    the same seed makes the same decisions
#   KERNEL           the test kernel (6.1, debug, ...; as for scripts/vm.sh); the module
#                    must be built for it (make torture does that)
#   VM_CPUS          vCPUs (default 4; at least 3: one goes offline, cpu 0 never does)
#   SLABLAB_MODULE   the module (default module/slablab.ko); VM_* as for vm.sh
#   SLABLAB_PYTHON   the Python with the slablab package (default build/venv/bin/python)
#   SLABLAB_TORTURE_VERBOSE=1  print every decision as it is made
#   SLABLAB_TORTURE_SKIP=kind,...  decide these actions but do not do them (e.g. cpu,cpu+stop)
#   TORTURE_PYTEST   VM test files to run under pytest in the same boot first (make test:
#                    tests/vm/test_storm_concurrency.py, which needs 3 or more cpus too),
#                    their JUnit file TORTURE_PYTEST_JUNIT; the run fails when they do
#   TORTURE_RCS      a file to write "PYTEST-STATUS TORTURE-STATUS" to from the guest
#                    (scripts/test.sh tells the two verdicts apart by it; "-" for no pytest)
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PYTHON=${SLABLAB_PYTHON:-$BUILD/venv/bin/python}
MODULE=${SLABLAB_MODULE:-$REPO/module/slablab.ko}
KERNEL=${KERNEL:-6.1}
SECS=${TORTURE_SECONDS:-300}
SEED=${TORTURE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export VM_CPUS=${VM_CPUS:-4}

case ${1:-} in
-h | --help) sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
die() { echo "torture: $*" >&2; exit 2; }
{ [[ $SECS =~ ^[0-9]+$ ]] && { [ "$SECS" -ge 1 ] || [ -n "${TORTURE_PYTEST:-}" ]; }; } ||
	die "TORTURE_SECONDS '$SECS' is not a positive whole number of seconds (0 only with TORTURE_PYTEST)"
[[ $SEED =~ ^[0-9]+$ ]] || die "TORTURE_SEED '$SEED' is not a non-negative integer"
{ [[ $VM_CPUS =~ ^[0-9]+$ ]] && [ "$VM_CPUS" -ge 3 ]; } ||
	die "VM_CPUS=$VM_CPUS: the torture run needs at least 3 vCPUs (one goes offline, cpu 0 never)"
for f in "$MODULE" "$PYTHON"; do
	[ -e "$f" ] || die "$f is missing: run 'make' (or make module KERNEL=$KERNEL) first"
done
MODULE=$(realpath "$MODULE")

kdir=${KERNEL_DIR:-$("$REPO/scripts/kernel.sh" "$KERNEL")} || die "scripts/kernel.sh $KERNEL failed"
if [ "$KERNEL" = debug ]; then
	# as in scripts/test.sh: kmemleak's own summary line is not a splat here (its
	# reports are), and KASAN/lockdep under TCG are slow
	export VM_SPLAT_IGNORE="${VM_SPLAT_IGNORE:+$VM_SPLAT_IGNORE|}kmemleak: [0-9]+ new suspected memory leaks"
fi
# boot, two Python starts, the final checks and a storm stopped at the end (and the
# pytest files, when asked: ~3 min on the debug kernel)
export VM_TIMEOUT=${VM_TIMEOUT:-$((SECS * 2 + 900 + ${TORTURE_PYTEST:+600}))}
export SLABLAB_BUILD=$BUILD

echo "torture: ${SECS}s on kernel $KERNEL with $VM_CPUS vCPUs, seed $SEED" >&2
echo "torture: rerun: make torture KERNEL=$KERNEL VM_CPUS=$VM_CPUS TORTURE_SECONDS=$SECS TORTURE_SEED=$SEED" >&2
rc=0
# One guest command: the pytest files (when asked), then the torture; both statuses go
# to TORTURE_RCS, and the command exits with the torture's status, else pytest's.
read -r -a pytest_files <<<"${TORTURE_PYTEST:-}"
rcs=${TORTURE_RCS:-$BUILD/test-results/torture.rcs}
mkdir -p "$(dirname "$rcs")"
rm -f "$rcs"
# shellcheck disable=SC2016 # expanded by the guest's bash
guest='prc=- trc=-
if [ $# -gt 0 ]; then
	"$T_PY" -m pytest -q -p no:cacheprovider ${T_JUNIT:+--junitxml="$T_JUNIT"} "$@"; prc=$?
fi
if [ "$T_SECS" != 0 ]; then
	"$T_PY" "$T_SCRIPT" --seconds "$T_SECS" --seed "$T_SEED" --module "$T_MODULE"; trc=$?
fi
echo "$prc $trc" >"$T_RCS"
[ "$trc" = - ] || [ "$trc" = 0 ] || exit "$trc"
[ "$prc" = - ] || exit "$prc"
exit 0'
T_PY=$PYTHON T_SCRIPT=$REPO/tests/torture/torture.py T_SECS=$SECS T_SEED=$SEED T_MODULE=$MODULE \
	T_JUNIT=${TORTURE_PYTEST_JUNIT:-} T_RCS=$rcs \
	VM_ENV="${VM_ENV:-} T_PY T_SCRIPT T_SECS T_SEED T_MODULE T_JUNIT T_RCS" \
	"$REPO/scripts/vm.sh" --kernel-dir "$kdir" --module "$MODULE" -- \
	bash -c "$guest" torture ${pytest_files[@]+"${pytest_files[@]}"} || rc=$?
prc=- trc=-
[ ! -f "$rcs" ] || read -r prc trc <"$rcs"
if [ ${#pytest_files[@]} -gt 0 ]; then
	echo "torture: pytest of ${pytest_files[*]##*/} in the same boot: exit $prc" >&2
fi
if [ $rc -eq 0 ]; then
	echo "torture: PASSED (seed $SEED)" >&2
elif [ "$trc" = 0 ] && [ "$rc" = "$prc" ]; then
	echo "torture: the torture PASSED (seed $SEED); the pytest files before it failed" >&2
else
	case $rc in
	125) why="kernel splat (see above; a hang shows as \"blocked for more than 20 seconds\" and torture: HANG)" ;;
	124) why="VM timeout" ;;
	122) why="the guest crashed" ;;
	3) why="hang: a call did not return (blocked tasks in the kernel log)" ;;
	*) why="exit $rc" ;;
	esac
	echo "torture: FAILED: $why; rerun: make torture KERNEL=$KERNEL VM_CPUS=$VM_CPUS TORTURE_SECONDS=$SECS TORTURE_SEED=$SEED" >&2
fi
exit $rc
