#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# slablab's test suite: scripts/test.sh [all|host|vm|smoke]
#   host: policy unit tests (C), libslabctl unit tests (GoogleTest), CLI/Python without
#         the module, and the harness self-checks (a failing VM test and a kernel WARN
#         must each fail a VM run)
#   vm:   the VM suite (pytest inside the test kernel, module loaded), once per kernel of
#         TEST_KERNELS (default: KERNEL, 6.1); `make test` sets "6.1 debug". The module
#         in module/ must be built for the first one; for the others this script builds
#         the kernel (scripts/kernel.sh) and the module (make module KERNEL=...) first.
#         docs/profiles.md describes the kernels. On the first kernel, a second short
#         VM boot with 64 vCPUs runs only the cache dump tests (a cache's per-cpu
#         entries then span several netlink messages); its stage prints its time.
#         After the debug kernel's suite, a short torture run on it (scripts/torture.sh,
#         its own VM with 4 vCPUs, TEST_TORTURE_SECONDS, default 90; 0 skips it).
#         After the first kernel, a smoke stage on each kernel of TEST_SMOKE_KERNELS
#         (`make test`: 6.12, bookworm-backports' kernel): the module built for it with
#         W=1 (any warning fails), then the tests that meet what differs between kernels
#         (SMOKE_TESTS) in one short VM boot (~4 min).
#   smoke: only the smoke stages of TEST_SMOKE_KERNELS (default here: 6.12); the module
#         in module/ is then built for the last of them.
# Each stage prints its wall time; the last line sums every pytest/ctest result.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
# the Python with the slablab package installed (make: pip install ./python into build/venv)
PYTHON=${SLABLAB_PYTHON:-$BUILD/venv/bin/python}
WHAT=${1:-all}
RESULTS=$BUILD/test-results
STAGE=$REPO/scripts/stage.sh
if ! "$PYTHON" -c 'import slablab' 2>/dev/null; then
	echo "test: $PYTHON cannot import slablab: run make first (it installs the package)" >&2
	exit 2
fi
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
export SLABLAB_BUILD=$BUILD SLABLAB_PYTHON=$PYTHON PYTHONDONTWRITEBYTECODE=1
rc=0

run_host() {
	$STAGE "policy unit tests" bash -c "gcc -O2 -Wall -Wextra -Werror -o '$BUILD/test_policy' \
		'$REPO/tests/policy/test_policy.c' && '$BUILD/test_policy'" || rc=1
	if [ -f "$BUILD/CTestTestfile.cmake" ]; then
		$STAGE "ctest (gtest)" ctest --test-dir "$BUILD" --output-on-failure \
			--output-junit "$RESULTS/ctest.xml" || rc=1
	fi
	$STAGE "host pytest" "$PYTHON" -m pytest -q -p no:cacheprovider \
		--junitxml="$RESULTS/host.xml" "$REPO/tests/host" || rc=1
}

read -r -a KERNELS <<<"${TEST_KERNELS:-${KERNEL:-6.1}}"
read -r -a SMOKE_KERNELS <<<"${TEST_SMOKE_KERNELS:-}"

# Tests that take cpus offline while storms run: they need 3 or more cpus, so they run
# in a VM of their own with 4 (the main suite's 2 keep its timings and figures).
HOTPLUG_TESTS=test_storm_concurrency.py

# The smoke selection: what depends on the kernel's version rather than on slablab's
# own code — netlink (split genetlink ops and dumps, formatted extack messages, policy
# reports: test_hostile), the native side (SLUB's sysfs files and kmalloc classes:
# native storms, slabctl info --native, SLUB's orders), the kmem tracepoints the replay
# recorder reads, module unload and reload — and the cache and allocation basics on
# every design. Left out, as they run the same code on every kernel: the concurrency
# and stress files, ynl, the experiments and the slowest storm and replay cases.
SMOKE_TESTS=(test_basics.py test_caches.py test_alloc.py test_hostile.py test_storms.py
	test_replay.py test_slabctl.py::test_info_native_lists_both_allocators
	test_slabctl.py::test_info_native_figures_match_sysfs
	test_slabctl.py::test_storm_native_and_kmalloc test_slabctl.py::test_compare_kmalloc_targets
	test_zz_reload.py)
SMOKE_DESELECT="not (test_ops_are_exact_with_a_final_partial_batch or test_churn_barrier_wait"
SMOKE_DESELECT+=" or test_fault_injection_counts_failures or test_hackbench_record_and_replay"
SMOKE_DESELECT+=" or test_bootlike_record_and_replay or test_time_scaled_pages_over_time)"

# The smoke stage on kernel $1 (TEST_SMOKE_KERNELS): fetch it, build the module for it,
# run SMOKE_TESTS. A kernel that also runs the whole suite (TEST_KERNELS) is not smoked.
run_vm_smoke() {
	local k=$1 dir t tests=()
	echo "test: kernel $k (smoke)" >&2
	$STAGE "kernel $k" "$REPO/scripts/kernel.sh" "$k" >/dev/null || { rc=1; return; }
	make -s --no-print-directory -C "$REPO" module KERNEL="$k" || { rc=1; return; }
	dir=$("$REPO/scripts/kernel.sh" "$k") || { rc=1; return; }
	for t in "${SMOKE_TESTS[@]}"; do tests+=("$REPO/tests/vm/$t"); done
	$STAGE "vm smoke $k" env VM_TIMEOUT="${VM_SMOKE_TIMEOUT:-1200}" \
		VM_LOG="$BUILD/vm/serial-$k-smoke.log" "$REPO/scripts/vm.sh" \
		--kernel-dir "$dir" --module "$REPO/module/slablab.ko" -- \
		"$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/vm-$k-smoke.xml" \
		-k "$SMOKE_DESELECT" "${tests[@]}" || rc=1
}

# The VM suite on kernel $1. test_kmemleak.py goes last: its scans cover the whole
# session (pytest runs files in the order given).
run_vm_on() {
	local k=$1 dir extra=()
	local tests=()
	for f in "$REPO"/tests/vm/test_*.py; do
		case "${f##*/}" in
		test_kmemleak.py | "$HOTPLUG_TESTS") ;;
		*) tests+=("$f") ;;
		esac
	done
	[ ! -f "$REPO/tests/vm/test_kmemleak.py" ] || tests+=("$REPO/tests/vm/test_kmemleak.py")
	if [ "$k" != "${KERNELS[0]}" ]; then
		echo "test: kernel $k" >&2
		$STAGE "kernel $k" "$REPO/scripts/kernel.sh" "$k" >/dev/null || { rc=1; return; }
		make -s --no-print-directory -C "$REPO" module KERNEL="$k" || { rc=1; return; }
	fi
	dir=$("$REPO/scripts/kernel.sh" "$k") || { rc=1; return; }
	# The cache suite runs once per design variant (five now): more than vm.sh's
	# default 900 s on a loaded TCG host.
	extra=(env VM_TIMEOUT="${VM_TIMEOUT:-2400}")
	if [ "$k" = debug ]; then
		# kmemleak's own "N new suspected memory leaks" line is judged by
		# test_kmemleak.py (slablab's leaks fail, others are shown); KASAN, lockdep
		# and a slow TCG boot need more time (the whole suite per design: ~30 min here).
		extra=(env VM_SPLAT_IGNORE="${VM_SPLAT_IGNORE:+$VM_SPLAT_IGNORE|}kmemleak: [0-9]+ new suspected memory leaks"
			VM_TIMEOUT="${VM_TIMEOUT:-3600}")
	fi
	$STAGE "vm pytest $k" ${extra[@]+"${extra[@]}"} "$REPO/scripts/vm.sh" \
		--kernel-dir "$dir" --module "$REPO/module/slablab.ko" -- \
		"$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/vm-$k.xml" \
		"${tests[@]}" || rc=1
	$STAGE "vm pytest $k 4 cpus" ${extra[@]+"${extra[@]}"} env VM_CPUS=4 \
		VM_LOG="$BUILD/vm/serial-4cpus.log" "$REPO/scripts/vm.sh" \
		--kernel-dir "$dir" --module "$REPO/module/slablab.ko" -- \
		"$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/vm-$k-4cpus.xml" \
		"$REPO/tests/vm/$HOTPLUG_TESTS" || rc=1
	[ "$k" != debug ] || run_torture_on "$k" "$dir"
}

# A short torture run (docs/testing.md) in its own VM; its verdict joins the result files
# as one test case, so the closing line counts it.
run_torture_on() {
	local k=$1 dir=$2 secs=${TEST_TORTURE_SECONDS:-90} seed trc=0 t0 t1
	[ "$secs" != 0 ] || return 0
	seed=${TORTURE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	t0=$(date +%s.%N)
	KERNEL=$k KERNEL_DIR=$dir VM_CPUS=4 TORTURE_SECONDS=$secs TORTURE_SEED=$seed \
		VM_LOG="$BUILD/vm/torture-$k.log" \
		$STAGE "torture $k (${secs}s)" "$REPO/scripts/torture.sh" || trc=$?
	t1=$(date +%s.%N)
	[ $trc -eq 0 ] || rc=1
	"$PYTHON" - "$RESULTS/torture-$k.xml" "$k" "$seed" "$trc" "$(echo "$t1 - $t0" | bc)" <<'PY'
import sys
from xml.sax.saxutils import quoteattr
path, k, seed, rc, t = sys.argv[1:]
name = quoteattr(f"torture[{k}, seed {seed}]")
fail = "" if rc == "0" else (f'<failure message={quoteattr(f"scripts/torture.sh exit {rc}")}/>')
with open(path, "w") as f:
    f.write(f'<testsuite name="torture" tests="1" failures="{int(rc != "0")}" errors="0" '
            f'skipped="0"><testcase classname="torture" name={name} time="{t}">{fail}'
            f'</testcase></testsuite>\n')
PY
}

# The cache dump tests in a 64-vCPU VM on kernel $1 (whose module/slablab.ko is
# built): TCG boots it in ~2-3 min on 2 cores; the tests take seconds.
run_vm_wide() {
	local k=$1 dir
	dir=$("$REPO/scripts/kernel.sh" "$k") || { rc=1; return; }
	$STAGE "vm pytest $k 64 cpus" env VM_CPUS=64 VM_TIMEOUT="${VM_WIDE_TIMEOUT:-1200}" \
		VM_LOG="$BUILD/vm/serial-64cpus.log" "$REPO/scripts/vm.sh" \
		--kernel-dir "$dir" --module "$REPO/module/slablab.ko" -- \
		"$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/vm-$k-64cpus.xml" \
		"$REPO/tests/vm/test_caches.py" -k "percpu_dump or dump_interrupted or dump_retries" || rc=1
}

run_vm() {
	# tests/vm/test_ynl.py drives the module with the kernel's ynl cli (fetched once)
	"$REPO/scripts/ynl.sh" >/dev/null ||
		echo "test: scripts/ynl.sh failed: tests/vm/test_ynl.py will skip" >&2
	# tests/vm/test_slabinfo_oracle.py runs the kernel's slabinfo (built once, cached)
	"$REPO/scripts/slabinfo.sh" >/dev/null ||
		echo "test: scripts/slabinfo.sh failed: tests/vm/test_slabinfo_oracle.py will fail" >&2
	local k s
	for k in "${KERNELS[@]}"; do
		run_vm_on "$k"
		# before another kernel's module build replaces module/slablab.ko
		[ "$k" != "${KERNELS[0]}" ] || run_vm_wide "$k"
		[ "$k" = "${KERNELS[0]}" ] || continue
		for s in "${SMOKE_KERNELS[@]}"; do
			[[ " ${KERNELS[*]} " == *" $s "* ]] || run_vm_smoke "$s"
		done
	done
}

case "$WHAT" in
host) run_host ;;
vm) run_vm ;;
smoke)
	[ ${#SMOKE_KERNELS[@]} -gt 0 ] || SMOKE_KERNELS=(6.12)
	for k in "${SMOKE_KERNELS[@]}"; do run_vm_smoke "$k"; done ;;
all) run_host; run_vm ;;
*) echo "usage: $0 [all|host|vm|smoke]" >&2; exit 2 ;;
esac

# One closing line over every result file.
"$PYTHON" - "$RESULTS" <<'PY'
import sys, glob, xml.etree.ElementTree as ET
p = f = s = 0
for path in glob.glob(sys.argv[1] + "/*.xml"):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        f += 1
        continue
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    for ts in suites:
        t = int(ts.get("tests", 0)); e = int(ts.get("errors", 0))
        fl = int(ts.get("failures", 0)); sk = int(ts.get("skipped", ts.get("disabled", 0)) or 0)
        p += t - e - fl - sk; f += e + fl; s += sk
print(f"slablab: {p} passed, {f} failed, {s} skipped")
PY
if [ $rc -ne 0 ]; then
	echo "make test: FAILED (see the stage lines above; VM serial log: build/vm/serial.log," \
		"the torture run's: build/vm/torture-debug.log)" >&2
fi
exit $rc
