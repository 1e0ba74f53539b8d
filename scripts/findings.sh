#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# docs/findings.md's questions (issue 42), run inside the test VM by `make findings`:
# each prints its table and its primary verdict (named before the run) with the
# secondary ones, and writes build/findings/<Q>.{json,md}.
#   FINDINGS          which (default: all; e.g. "q4")
#   FINDINGS_REPEAT   counted repeats of every variant (default 5; under -icount the
#                     figures repeat exactly, so few are enough)
#   FINDINGS_OPS      objects per storm (default 20000)
#   FINDINGS_OUT      output directory (default build/findings)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PY=$BUILD/venv/bin/python
export SLABCTL=${SLABCTL:-$BUILD/tool/slabctl}
which=${FINDINGS:-all}
exec "$PY" -m slablab findings "${which// /,}" --out "${FINDINGS_OUT:-$BUILD/findings}" \
	--repeat "${FINDINGS_REPEAT:-5}" --ops "${FINDINGS_OPS:-20000}"
