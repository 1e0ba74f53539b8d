#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over the kernel code. checkpatch ships in Debian's
# linux-source-6.1 package (not in the headers): fetch it once into the cache.
#   scripts/checkpatch.sh            check module/ and uapi/ (exit 1 on findings)
#   scripts/checkpatch.sh --fetch    only make sure checkpatch is cached; print its path
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
DIR=$CACHE/checkpatch
CKP=$DIR/scripts/checkpatch.pl

if [ ! -f "$CKP" ]; then
	echo "checkpatch: fetching linux-source-6.1 for scripts/checkpatch.pl" >&2
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get -q download linux-source-6.1 >&2) ||
		{ echo "checkpatch: apt-get download linux-source-6.1 failed" >&2; exit 1; }
	dpkg -x "$tmp"/linux-source-6.1_*.deb "$tmp/x"
	tarball=$(ls "$tmp"/x/usr/src/linux-source-6.1.tar.*)
	mkdir -p "$DIR.tmp"
	tar -xaf "$tarball" -C "$DIR.tmp" --strip-components=1 --wildcards \
		'linux-source-6.1/scripts/checkpatch.pl' 'linux-source-6.1/scripts/spelling.txt' \
		'linux-source-6.1/scripts/const_structs.checkpatch'
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
# --no-tree: we are not in a kernel tree; the spelling list sits beside the script.
perl "$CKP" --no-tree --strict --show-types --terse \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	-f "${files[@]}" && echo "checkpatch: clean (${#files[@]} files)"
