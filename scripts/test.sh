#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# slablab's test suite: scripts/test.sh [all|host|vm]
#   host: policy unit tests (C), libslabctl unit tests (GoogleTest), CLI/Python without
#         the module, and the harness self-checks (a failing VM test and a kernel WARN
#         must each fail a VM run)
#   vm:   the VM suite (pytest inside the test kernel, module loaded)
# Each stage prints its wall time; the last line sums every pytest/ctest result.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
BUILD=$REPO/build
WHAT=${1:-all}
RESULTS=$BUILD/test-results
STAGE=$REPO/scripts/stage.sh
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
export SLABLAB_BUILD=$BUILD PYTHONDONTWRITEBYTECODE=1
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

run_vm() {
	$STAGE "vm pytest" "$REPO/scripts/vm.sh" --module "$REPO/module/slablab.ko" -- \
		"$PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/vm.xml" \
		"$REPO/tests/vm" || rc=1
}

case "$WHAT" in
host) run_host ;;
vm) run_vm ;;
all) run_host; run_vm ;;
*) echo "usage: $0 [all|host|vm]" >&2; exit 2 ;;
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
	echo "make test: FAILED (see the stage lines above; VM serial log: build/vm/serial.log)" >&2
fi
exit $rc
