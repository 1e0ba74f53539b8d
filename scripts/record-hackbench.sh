#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Record a short hackbench run (Debian's rt-tests, seed 002's benchmark) with slabctl
# record, inside the test VM (`make record-hackbench`; docs/replay.md). The VM runs the
# host's root file system, so the host's /usr/bin/hackbench is the guest's.
#
#   scripts/record-hackbench.sh [OUT]      (default: $SLABLAB_BUILD/hackbench.trace)
#
# HACKBENCH_ARGS: hackbench's arguments (default "-g 2 -f 5 -l 100 -s 100": 2 groups of
# 5 senders and 5 receivers, 100 messages of 100 bytes each; seconds under TCG).
# Then replay it on every target, side by side:
#   slabctl replay OUT --compare slub,sheaves,native,kmalloc,native-kmalloc
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
S=$BUILD/tool/slabctl
OUT=${1:-$BUILD/hackbench.trace}
read -r -a ARGS <<<"${HACKBENCH_ARGS:--g 2 -f 5 -l 100 -s 100}"

if ! command -v hackbench >/dev/null; then
	echo "record-hackbench: no hackbench (Debian's rt-tests: scripts/deps.sh installs it)" >&2
	exit 2
fi
"$S" record -o "$OUT" --buffer-kb 32768 -- hackbench "${ARGS[@]}"
echo "record-hackbench: the trace is $OUT"
