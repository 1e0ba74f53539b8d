#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel's own slabinfo tool into the build tree and print the binary's path.
# It is the oracle of tests/vm/test_slabinfo_oracle.py: `slabctl info` must print what it
# prints. Two series, as the test picks by the running kernel's major:
#
#   scripts/slabinfo.sh [6]          6.1's tools/vm/slabinfo.c (linux-source-6.1), into
#                                    ${SLABLAB_BUILD:-build}/slabinfo/slabinfo
#   scripts/slabinfo.sh 7            7.x's tools/mm/slabinfo.c (the linux-source-7.N that
#                                    trixie-backports' linux-source depends on: 7.3), into
#                                    ${SLABLAB_BUILD:-build}/slabinfo-7/slabinfo
#   SLABINFO_SRC=PATH scripts/slabinfo.sh [6|7]   take slabinfo.c from PATH: the file
#                                    itself, a kernel tree or a linux-source-*.tar.* tarball
#   SLABINFO_FETCH=0 scripts/slabinfo.sh [6|7]    never fetch: fail if no source is at hand
#   SLABINFO_REFRESH=1 scripts/slabinfo.sh 7      fetch trixie-backports' current version
#                                    if the cached copy is of another
#
# Where series 6's source comes from, the first that has it:
#   1. $SLABINFO_SRC;
#   2. the 6.x kernel tree scripts/build-kernel.sh unpacked ($SLABLAB_CACHE/src/linux-source-6.*);
#   3. scripts/checkpatch.sh's copy ($SLABLAB_CACHE/checkpatch/tools/{vm,mm}/slabinfo.c),
#      which `scripts/checkpatch.sh --fetch` makes: from /usr/src/linux-source-6.1.tar.*
#      (apt-get install linux-source-6.1) if it is there, else from one apt-get download
#      of linux-source-6.1 that also gives checkpatch.pl (nothing is downloaded twice).
# Series 7's:
#   1. $SLABINFO_SRC;
#   2. the copy of an earlier fetch, $SLABLAB_CACHE/src/slabinfo-VERSION/slabinfo.c (that
#      one file is kept, not the tarball);
#   3. a fetch (once, ~170 MB, under a lock): the version trixie-backports' `linux-source`
#      metapackage depends on, by apt-get download with the private apt state of
#      scripts/apt-suite.sh (the machine's mirror; its apt setup is never changed), and
#      tools/mm/slabinfo.c taken out of its tarball.
# The binary is built with the kernel's tools/{vm,mm}/Makefile flags (-Wall -Wextra) plus
# -O2; it is rebuilt only when the source, the compiler or this recipe changes (key file
# beside it). Progress goes to stderr.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
SERIES=${1:-6}
CC=${CC:-gcc}
CFLAGS="-Wall -Wextra -O2"
RECIPE=1
log() { echo "slabinfo: $*" >&2; }
die() { echo "slabinfo: error: $*" >&2; exit 1; }
case "$SERIES" in
6) OUT=${SLABLAB_BUILD:-$REPO/build}/slabinfo ;;
7) OUT=${SLABLAB_BUILD:-$REPO/build}/slabinfo-7 ;;
*) die "unknown series '$SERIES' (6: 6.1's tools/vm/slabinfo.c, 7: 7.x's tools/mm/slabinfo.c)" ;;
esac
# Series 7's source: trixie-backports' linux-source (a metapackage: linux-source-7.N).
SUITE7=trixie-backports

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
	if [ "$SERIES" = 7 ]; then
		cached7 && return 0
		return 1
	fi
	# build-kernel.sh's 6.x tree (marked whole once unpacked), the newest first (not 7.x's:
	# its tools/mm/slabinfo.c is series 7's)
	for d in $(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-6.*' \
		! -name '*.tmp' 2>/dev/null | sort -rV); do
		[ -f "$d/.slablab-unpacked" ] && in_tree "$d" && return 0
	done
	in_tree "$CACHE/checkpatch" && return 0
	return 1
}

# Series 7: the slabinfo.c of the newest earlier fetch, if any.
cached7() {
	local f
	f=$(find "$CACHE/src" -mindepth 2 -maxdepth 2 -path "$CACHE/src/slabinfo-*/slabinfo.c" \
		! -path '*.tmp/*' 2>/dev/null | sort -V | tail -1)
	[ -n "$f" ] && echo "$f"
}

# Series 7: fetch trixie-backports' linux-source-7.N and keep its tools/mm/slabinfo.c in
# $CACHE/src/slabinfo-VERSION/; sets src. Not in a command substitution (apt_suite_refresh).
fetch7() {
	local lockfd dep pkg ver new tmp deb tarball t0 mb f
	# shellcheck source=scripts/apt-suite.sh
	. "$REPO/scripts/apt-suite.sh"
	mkdir -p "$CACHE/src"
	exec {lockfd}>"$CACHE/src/.slabinfo-7.lock"
	flock "$lockfd"
	# another run may have fetched it while this one waited
	if [ "${SLABINFO_REFRESH:-0}" != 1 ] && src=$(cached7); then
		return 0
	fi
	apt_suite_refresh "$SUITE7" log || die "no $SUITE7 package lists (the message above says why)"
	# "Depends: linux-source-7.3 (= 7.3.4-1~bpo13+1)" -> "linux-source-7.3 7.3.4-1~bpo13+1"
	# (|| true: apt-cache's failure must reach the message below, not set -e)
	dep=$(apt_suite "$SUITE7" apt-cache show "linux-source/$SUITE7" 2>/dev/null |
		sed -n 's/^Depends: .*\(linux-source-[0-9][^ ,]*\) (= \([^)]*\)).*/\1 \2/p' |
		sort -V -k2 | tail -1) || true
	read -r pkg ver <<<"$dep" || true
	[ -n "${pkg:-}" ] && [ -n "${ver:-}" ] ||
		die "cannot resolve linux-source in $SUITE7 (is $APT_SUITE_MIRROR reachable? try SLABINFO_SRC=...)"
	new=$CACHE/src/slabinfo-$ver
	if [ -f "$new/slabinfo.c" ]; then
		src=$new/slabinfo.c
		return 0
	fi
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # $tmp is expanded now, on purpose
	trap "rm -rf '$tmp'" EXIT
	t0=$(date +%s)
	log "downloading $pkg $ver from $SUITE7 (~170 MB, once) for tools/mm/slabinfo.c"
	(cd "$tmp" && apt_suite "$SUITE7" apt-get download "$pkg=$ver" >&2) ||
		die "apt-get download $pkg=$ver failed"
	deb=
	for f in "$tmp"/*.deb; do [ -f "$f" ] && deb=$f; done
	[ -n "$deb" ] || die "apt-get download $pkg=$ver left no .deb"
	mb=$(( $(stat -c %s "$deb") / 1000000 ))
	dpkg -x "$deb" "$tmp/x" || die "dpkg -x $deb failed"
	rm -f "$deb"
	tarball=
	for f in "$tmp"/x/usr/src/"$pkg".tar.*; do [ -f "$f" ] && tarball=$f; done
	[ -n "$tarball" ] || die "$pkg $ver has no /usr/src/$pkg.tar.*"
	log "extracting tools/mm/slabinfo.c into $new"
	rm -rf "$new.tmp"
	mkdir -p "$new.tmp"
	tar -xaf "$tarball" -C "$new.tmp" --strip-components=3 "$pkg/tools/mm/slabinfo.c" ||
		die "no tools/mm/slabinfo.c in $tarball"
	[ -s "$new.tmp/slabinfo.c" ] || die "no tools/mm/slabinfo.c in $tarball"
	mv "$new.tmp" "$new"
	rm -rf "$tmp"
	# Older copies are of no use any more.
	find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'slabinfo-*' ! -path "$new" \
		-exec rm -rf {} +
	log "fetched $pkg $ver: ${mb} MB in $(( $(date +%s) - t0 )) s"
	src=$new/slabinfo.c
}

rc=0
src=$(find_source) || rc=$?
[ $rc = 0 ] || [ -z "${SLABINFO_SRC:-}" ] || exit $rc	# its error said why: no fetch
if [ "$SERIES" = 7 ] && [ -z "${SLABINFO_SRC:-}" ] &&
	{ [ $rc != 0 ] || { [ "${SLABINFO_REFRESH:-0}" = 1 ] && [ "${SLABINFO_FETCH:-1}" != 0 ]; }; }; then
	[ "${SLABINFO_FETCH:-1}" != 0 ] ||
		die "no 7.x slabinfo.c: not in \$SLABINFO_SRC or $CACHE/src/slabinfo-*/ (run scripts/slabinfo.sh 7 with fetching allowed, or SLABINFO_SRC=.../tools/mm/slabinfo.c)"
	fetch7
elif [ $rc != 0 ]; then
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
