#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build module/slablab.ko against the kernel tree KDIR with W=1 and fail on any warning:
#   scripts/module-build.sh KDIR [extra make arguments]
# Kbuild's own W=e makes only the compiler's warnings errors; this also fails on
# kernel-doc's (6.12's W=1 runs it on every file), modpost's and make's, so that the
# module stays W=1-clean on every kernel it is built for (make module, scripts/test.sh).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: $0 KDIR [make arguments]}
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"${MAKE:-make}" -C "$kdir" M="$REPO/module" W=1 "$@" modules 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
if grep -qi 'warning' "$log"; then
	echo "module build: W=1 warnings (the module must build without any):" >&2
	grep -i 'warning' "$log" >&2
	# objects that warned would not be rebuilt (nor warn) next time: start afresh
	"${MAKE:-make}" -s -C "$kdir" M="$REPO/module" clean >/dev/null 2>&1
	exit 1
fi
