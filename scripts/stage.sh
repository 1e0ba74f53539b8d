#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run one build/test stage and print how long it took: scripts/stage.sh NAME CMD...
name=$1
shift
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
printf 'stage: %-20s %6.1fs%s\n' "$name" "$(echo "$end - $start" | bc)" \
	"$([ $rc -ne 0 ] && echo "  FAILED (exit $rc)")" >&2
exit $rc
