#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel (image, modules, headers, kbuild) into a cache without installing
# anything, and print the directory that describes it.
#
#   scripts/kernel.sh [KERNEL]
#
# KERNEL:
#   6.1 (default)   bookworm's current 6.1 kernel (linux-image-amd64)
#   6.12            bookworm-backports' current kernel (private apt state, machine untouched)
#   6.12-rt         the same, PREEMPT_RT flavour
#   6.1.0-57-amd64  an exact Debian ABI name from bookworm (suffix -bpo for backports)
#   debug           slablab's KASAN/lockdep/kmemleak kernel, built from Debian's
#                   linux-source-6.1 by scripts/debug-kernel.sh (docs/profiles.md)
#
# Output: the cache directory on stdout; it holds
#   root/      every package unpacked with dpkg -x
#   env        shell assignments KREL, VMLINUZ, KDIR (headers ready for Kbuild), MODDIR
# Progress goes to stderr. The cache lives in ${SLABLAB_CACHE:-~/.cache/slablab}/kernels/.
set -euo pipefail

KERNEL=${1:-${KERNEL:-6.1}}
# The debug kernel is built here from Debian's source, not downloaded.
[ "$KERNEL" != debug ] || exec "$(dirname "${BASH_SOURCE[0]}")/debug-kernel.sh"
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
APTDIR=$CACHE/apt-backports
log() { echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }

# shellcheck source=scripts/apt-bpo.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-bpo.sh"

bpo=0
case "$KERNEL" in
6.1) meta=linux-image-amd64 ;;
6.12) bpo=1; meta=linux-image-amd64 ;;
6.12-rt) bpo=1; meta=linux-image-rt-amd64 ;;
*-amd64) meta= ; abi=$KERNEL; [[ $KERNEL == *bpo* ]] && bpo=1 ;;
*) die "unknown KERNEL '$KERNEL' (use 6.1, 6.12, 6.12-rt, debug or an ABI name like 6.1.0-57-amd64)" ;;
esac

if [ $bpo = 1 ]; then
	# The private sources list for the machine's mirror, its lists refreshed at most daily.
	apt_bpo_refresh log || die "no bookworm-backports package lists (the message above says why)"
fi

if [ -n "${meta:-}" ]; then
	if [ $bpo = 1 ]; then
		# (|| true: apt-cache's failure must reach the message below, not set -e)
		img=$(apt_bpo apt-cache show "$meta/bookworm-backports" 2>/dev/null | sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | sort -V | tail -1) || true
		[ -n "$img" ] || die "cannot resolve $meta in bookworm-backports (is $APT_BPO_MIRROR reachable? SLABLAB_DEBIAN_MIRROR overrides it)"
	else
		img=$(apt-cache show "$meta" 2>/dev/null | sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | sort -V | tail -1) || true
	fi
	[ -n "$img" ] || die "cannot resolve $meta (is the Debian archive reachable? try: apt-get update)"
	abi=${img#linux-image-}
fi
abi=${abi%-unsigned}
DIR=$CACHE/kernels/$abi
if [ -f "$DIR/env" ]; then
	echo "$DIR"
	exit 0
fi

log "fetching Debian kernel $abi into $DIR"
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp/debs"
cd "$DIR.tmp/debs"
showcmd() { if [ $bpo = 1 ]; then apt_bpo apt-cache show "$1"; else apt-cache show "$1"; fi; }
common=$(showcmd "linux-headers-$abi" 2>/dev/null | sed -n 's/^Depends: .*\(linux-headers-[^ ,]*-common[^ ,]*\).*/\1/p' | head -1)
kbuild=$(showcmd "linux-headers-$abi" 2>/dev/null | sed -n 's/^Depends: .*\(linux-kbuild-[0-9.]*\).*/\1/p' | head -1)
[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve headers for $abi"
pkgs=("linux-image-$abi" "linux-headers-$abi" "$common" "$kbuild")
# linux-image-*-amd64 is the signed package; prefer -unsigned where it exists (same binary).
if showcmd "linux-image-$abi-unsigned" >/dev/null 2>&1; then pkgs[0]="linux-image-$abi-unsigned"; fi
if [ $bpo = 1 ]; then
	for p in "${pkgs[@]}"; do apt_bpo apt-get download "$p/bookworm-backports" >&2 || apt_bpo apt-get download "$p" >&2 || die "download of $p failed"; done
else
	apt-get -q download "${pkgs[@]}" >&2 || die "apt-get download ${pkgs[*]} failed"
fi
for d in *.deb; do log "unpacking $d"; dpkg -x "$d" "$DIR.tmp/root"; done
rm -rf "$DIR.tmp/debs"

R=$DIR/root
KDIR_TMP=$DIR.tmp/root/usr/src/linux-headers-$abi
# The -amd64 headers include the -common tree by absolute /usr/src path: point it into the cache.
sed -i "s#/usr/src/#$R/usr/src/#g" "$KDIR_TMP/Makefile"
vmlinuz=$(find "$DIR.tmp/root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | head -1)
krel=${vmlinuz##*/vmlinuz-}
# Debian generates modules.dep at install time; the VM's initramfs needs it to order insmods.
depmod -b "$DIR.tmp/root" "$krel" || die "depmod failed for $krel"
cat >"$DIR.tmp/env" <<EOT
KREL=$krel
VMLINUZ=$R/boot/vmlinuz-$krel
KDIR=$R/usr/src/linux-headers-$abi
MODDIR=$R/lib/modules/$krel
EOT
mv "$DIR.tmp" "$DIR"
log "kernel $krel ready"
echo "$DIR"
