#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over the kernel code. checkpatch ships in Debian's
# linux-source-6.1 package (not in the headers): fetch it once into the cache, from
# /usr/src/linux-source-6.1.tar.* when the package is installed, else by apt-get
# download. The same fetch keeps tools/vm/slabinfo.c (scripts/slabinfo.sh builds it).
#   scripts/checkpatch.sh            check module/, uapi/ and include/ (exit 1 on findings)
#   scripts/checkpatch.sh --fetch    only make sure checkpatch is cached; print its path
#   scripts/checkpatch.sh --kernel-doc   scripts/kernel-doc -none on the same files: every
#                                    kernel-doc comment well-formed (exit 1 on a warning)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
DIR=$CACHE/checkpatch
CKP=$DIR/scripts/checkpatch.pl
KDOC=$DIR/scripts/kernel-doc

SLABINFO=$DIR/tools/vm/slabinfo.c
if [ ! -f "$CKP" ] || [ ! -f "$KDOC" ] || [ ! -f "$SLABINFO" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tarball=
	for t in /usr/src/linux-source-6.1.tar.*; do
		[ -f "$t" ] && tarball=$t
	done
	if [ -n "$tarball" ]; then
		echo "checkpatch: unpacking scripts/checkpatch.pl from $tarball" >&2
	else
		echo "checkpatch: fetching linux-source-6.1 for scripts/checkpatch.pl" >&2
		(cd "$tmp" && apt-get -q download linux-source-6.1 >&2) ||
			{ echo "checkpatch: apt-get download linux-source-6.1 failed" >&2; exit 1; }
		dpkg -x "$tmp"/linux-source-6.1_*.deb "$tmp/x"
		tarball=$(ls "$tmp"/x/usr/src/linux-source-6.1.tar.*)
	fi
	rm -rf "$DIR.tmp"
	mkdir -p "$DIR.tmp"
	tar -xaf "$tarball" -C "$DIR.tmp" --strip-components=1 --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' 'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch' 'linux-source-6.1/scripts/kernel-doc' \
		'linux-source-6.1/tools/vm/slabinfo.c'
	rm -rf "$DIR"
	mv "$DIR.tmp" "$DIR"
fi
if [ "${1:-}" = "--fetch" ]; then
	echo "$CKP"
	exit 0
fi
cd "$REPO"
files=()
for f in module/*.c module/*.h uapi/linux/*.h include/*.h; do
	[[ $f == *.mod.c ]] || files+=("$f")
done
# The X-macro tables scripts/gen-protocol.py generates (include/slablab/protocol.h) are
# lists of X(...) calls: checkpatch calls each a complex macro reusing X. Everything else
# in that directory is checked like the rest.
tables=(include/slablab/*.h)
if [ "${1:-}" = "--kernel-doc" ]; then
	out=$(perl "$KDOC" -none "${files[@]}" "${tables[@]}" 2>&1)
	[ -z "$out" ] || { echo "$out"; exit 1; }
	echo "kernel-doc: clean ($((${#files[@]} + ${#tables[@]})) files)"
	exit 0
fi
# --no-tree: we are not in a kernel tree; the spelling list sits beside the script.
rc=0
perl "$CKP" --no-tree --strict --show-types --terse \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "${files[@]}" || rc=1
perl "$CKP" --no-tree --strict --show-types --terse \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,COMPLEX_MACRO,MACRO_ARG_REUSE \
	-f "${tables[@]}" || rc=1
[ $rc = 0 ] && echo "checkpatch: clean ($((${#files[@]} + ${#tables[@]})) files)"
exit $rc
