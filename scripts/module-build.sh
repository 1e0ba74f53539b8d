#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build module/slablab.ko against the kernel tree KDIR with W=1 and fail on any warning:
#   scripts/module-build.sh KDIR [extra make arguments]
# Kbuild's own W=e makes only the compiler's warnings errors; this also fails on
# kernel-doc's (6.12's W=1 runs it on every file), modpost's and make's, so that the
# module stays W=1-clean on every kernel it is built for (make module, scripts/test.sh).
# A kernel fetched by scripts/kernel.sh whose env names a BUILDROOT (7.x: gcc-14, libc
# 2.38) is built in that build root (scripts/buildroot.sh run), with the make arguments
# its env names (MAKEARGS: the compiler of a kernel built here); BUILDROOT in the
# environment overrides it (empty: build here).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:?usage: $0 KDIR [make arguments]}
shift
kdir=$(cd "$kdir" && pwd -P) || exit 2
# The kernel's cache directory is KDIR's ancestor whose env says KDIR=it: its BUILDROOT
# and MAKEARGS (a kernel built here in a build root names its compiler: CC=gcc-14).
envdir="" d=$kdir
while [ "$d" != / ] && [ "$d" != . ]; do
	d=$(dirname "$d")
	if [ -f "$d/env" ] && grep -qxF "KDIR=$kdir" "$d/env"; then
		envdir=$d
		break
	fi
done
if [ -z "${BUILDROOT+set}" ]; then
	BUILDROOT=""
	[ -z "$envdir" ] || BUILDROOT=$(sed -n 's/^BUILDROOT=//p' "$envdir/env")
fi
makeargs=()
if [ -n "$BUILDROOT" ] && [ -n "$envdir" ]; then
	read -r -a makeargs <<<"$(sed -n "s/^MAKEARGS=//p" "$envdir/env" | tr -d "'")"
fi
set -- "${makeargs[@]}" "$@"
kmake() {
	if [ -n "$BUILDROOT" ]; then
		"$REPO/scripts/buildroot.sh" run "$BUILDROOT" -- make "$@"
	else
		"${MAKE:-make}" "$@"
	fi
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
kmake -C "$kdir" M="$REPO/module" W=1 "$@" modules 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
if grep -qi 'warning' "$log"; then
	echo "module build: W=1 warnings (the module must build without any):" >&2
	grep -i 'warning' "$log" >&2
	# objects that warned would not be rebuilt (nor warn) next time: start afresh
	kmake -s -C "$kdir" M="$REPO/module" clean >/dev/null 2>&1
	exit 1
fi
