#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel's own slabinfo tool (tools/vm/slabinfo.c in 6.1, tools/mm/slabinfo.c
# from 6.3 on) into the build tree and print the binary's path. It is the oracle of
# tests/vm/test_slabinfo_oracle.py: `slabctl info` must print what it prints.
#
#   scripts/slabinfo.sh              build (or reuse) and print the path
#   SLABINFO_SRC=PATH scripts/slabinfo.sh   take slabinfo.c from PATH: the file itself,
#                                    a kernel tree or a linux-source-*.tar.* tarball
#   SLABINFO_FETCH=0 scripts/slabinfo.sh    never fetch: fail if no source is at hand
#
# Where the source comes from, the first that has it:
#   1. $SLABINFO_SRC;
#   2. the kernel tree scripts/debug-kernel.sh unpacked ($SLABLAB_CACHE/src/linux-source-*);
#   3. scripts/checkpatch.sh's copy ($SLABLAB_CACHE/checkpatch/tools/{vm,mm}/slabinfo.c),
#      which `scripts/checkpatch.sh --fetch` makes: from /usr/src/linux-source-6.1.tar.*
#      (apt-get install linux-source-6.1) if it is there, else from one apt-get download
#      of linux-source-6.1 that also gives checkpatch.pl (nothing is downloaded twice).
# The binary goes to ${SLABLAB_BUILD:-build}/slabinfo/slabinfo, built with the kernel's
# tools/vm/Makefile flags (-Wall -Wextra) plus -O2; it is rebuilt only when the source,
# the compiler or this recipe changes (key file beside it). Progress goes to stderr.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
OUT=${SLABLAB_BUILD:-$REPO/build}/slabinfo
CC=${CC:-gcc}
CFLAGS="-Wall -Wextra -O2"
RECIPE=1
log() { echo "slabinfo: $*" >&2; }
die() { echo "slabinfo: error: $*" >&2; exit 1; }

# slabinfo.c in a kernel tree: 6.1 has it in tools/vm, 6.3 and later in tools/mm.
in_tree() {
	local d
	for d in tools/vm tools/mm; do
		if [ -f "$1/$d/slabinfo.c" ]; then
			echo "$1/$d/slabinfo.c"
			return 0
		fi
	done
	return 1
}

# slabinfo.c out of a linux-source tarball, into $OUT/src (either path).
from_tarball() {
	local top
	top=$(tar -taf "$1" | head -1 | cut -d/ -f1)
	rm -rf "$OUT/src"
	mkdir -p "$OUT/src"
	tar -xaf "$1" -C "$OUT/src" --strip-components=1 --wildcards --no-anchored \
		"$top/tools/vm/slabinfo.c" "$top/tools/mm/slabinfo.c" 2>/dev/null || true
	in_tree "$OUT/src"
}

find_source() {
	local d
	if [ -n "${SLABINFO_SRC:-}" ]; then
		if [ -f "$SLABINFO_SRC" ] && [[ $SLABINFO_SRC == *.c ]]; then
			echo "$SLABINFO_SRC"
		elif [ -d "$SLABINFO_SRC" ]; then
			in_tree "$SLABINFO_SRC" ||
				die "SLABINFO_SRC=$SLABINFO_SRC has neither tools/vm/slabinfo.c nor tools/mm/slabinfo.c"
		elif [ -f "$SLABINFO_SRC" ]; then
			from_tarball "$SLABINFO_SRC" ||
				die "SLABINFO_SRC=$SLABINFO_SRC: no tools/{vm,mm}/slabinfo.c in the tarball"
		else
			die "SLABINFO_SRC=$SLABINFO_SRC does not exist"
		fi
		return 0
	fi
	# debug-kernel.sh's tree (marked whole once unpacked), the newest first
	for d in $(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' \
		! -name '*.tmp' 2>/dev/null | sort -rV); do
		[ -f "$d/.slablab-unpacked" ] && in_tree "$d" && return 0
	done
	in_tree "$CACHE/checkpatch" && return 0
	return 1
}

rc=0
src=$(find_source) || rc=$?
[ $rc = 0 ] || [ -z "${SLABINFO_SRC:-}" ] || exit $rc	# its error said why: no fetch
if [ $rc != 0 ]; then
	[ "${SLABINFO_FETCH:-1}" != 0 ] ||
		die "no slabinfo.c: not in \$SLABINFO_SRC, $CACHE/src/linux-source-*/ or $CACHE/checkpatch/ (run scripts/checkpatch.sh --fetch, or apt-get install linux-source-6.1)"
	log "no cached slabinfo.c: fetching linux-source-6.1 through scripts/checkpatch.sh --fetch"
	"$REPO/scripts/checkpatch.sh" --fetch >/dev/null ||
		die "scripts/checkpatch.sh --fetch failed: no linux-source-6.1 (apt-get install linux-source-6.1, or SLABINFO_SRC=...)"
	src=$(in_tree "$CACHE/checkpatch") ||
		die "$CACHE/checkpatch has no tools/vm/slabinfo.c or tools/mm/slabinfo.c after the fetch"
fi

key=$( {
	echo "recipe $RECIPE cflags $CFLAGS"
	"$CC" --version | head -1
	sha256sum <"$src"
} | sha256sum | cut -c1-16)
BIN=$OUT/slabinfo
if [ -x "$BIN" ] && [ "$(cat "$OUT/key" 2>/dev/null)" = "$key" ]; then
	echo "$BIN"
	exit 0
fi
mkdir -p "$OUT"
log "building $src"
# shellcheck disable=SC2086 # CFLAGS is a list of flags
"$CC" $CFLAGS -o "$BIN.tmp" "$src" >&2 || die "$CC failed on $src"
mv "$BIN.tmp" "$BIN"
cp "$src" "$OUT/slabinfo.c"	# what was built, beside it
echo "$key" >"$OUT/key"
echo "$BIN"
