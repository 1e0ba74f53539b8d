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
#   7.3             trixie-backports' current kernel (7.3.x), SLUB with sheaves
#   7.2             sid's current kernel (7.2.x)
#   6.1.0-57-amd64  an exact Debian ABI name: from bookworm, bookworm-backports (a name with
#                   -bpo or +deb12), trixie-backports (+deb13) or sid (any other 7.x)
#   debug           slablab's KASAN/lockdep/kmemleak kernel, built from Debian's
#                   linux-source-6.1 by scripts/build-kernel.sh (docs/profiles.md)
#   6.1-slub-stats, 6.1-slab, 6.1-slob, 7.3-slub-stats
#                   the fidelity kernels: Debian's source with SLUB_STATS, SLAB or SLOB,
#                   built by scripts/build-kernel.sh (docs/fidelity.md)
#
#   scripts/kernel.sh --debuginfo [KERNEL]
#                   also fetch the kernel's vmlinux with debug information (Debian's
#                   linux-image-ABI-dbg, only the vmlinux member: ~15 s for 6.1's 859 MB
#                   package) into DIR/debuginfo/vmlinux and print that path instead: what
#                   drgn needs (python/slablab/drgn_helpers.py, docs/debugging.md)
#
# Output: the cache directory on stdout; it holds
#   root/      every package unpacked with dpkg -x
#   env        shell assignments KREL, VMLINUZ, KDIR (headers ready for Kbuild), MODDIR,
#              and for a kernel that bookworm's compiler cannot build modules for,
#              BUILDROOT: the build root of the suite it comes from (scripts/buildroot.sh;
#              scripts/module-build.sh builds in it)
# Progress goes to stderr. The cache lives in ${SLABLAB_CACHE:-~/.cache/slablab}/kernels/;
# other suites' apt state in .../apt/SUITE/ (scripts/apt-suite.sh).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
DEBUGINFO=0
args=()
for a in "$@"; do
	if [ "$a" = --debuginfo ]; then DEBUGINFO=1; else args+=("$a"); fi
done
[ "${#args[@]}" -le 1 ] || { echo "kernel: error: one KERNEL at most (got: ${args[*]})" >&2; exit 2; }
KERNEL=${args[0]:-${KERNEL:-6.1}}
# The debug and fidelity kernels are built here from Debian's source, not downloaded.
case "$KERNEL" in
debug | 6.1-slub-stats | 6.1-slab | 6.1-slob | 7.3-slub-stats)
	[ "$DEBUGINFO" = 0 ] || { echo "kernel: error: $KERNEL is built here without debug information (CONFIG_DEBUG_INFO is off: it would double the build); --debuginfo takes a Debian kernel" >&2; exit 2; }
	exec "$HERE/build-kernel.sh" "$KERNEL" ;;
esac
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
log() { echo "kernel: $*" >&2; }
die() { echo "kernel: error: $*" >&2; exit 1; }

# shellcheck source=scripts/apt-suite.sh
. "$HERE/apt-suite.sh"

# suite: where the kernel comes from (empty: the machine's own apt); buildroot: the suite
# whose compiler and libc its headers need (empty: this machine's).
suite="" buildroot="" meta=linux-image-amd64 abi=""
case "$KERNEL" in
6.1) ;;
6.12) suite=bookworm-backports ;;
6.12-rt) suite=bookworm-backports; meta=linux-image-rt-amd64 ;;
7.3) suite=trixie-backports ;;
7.3-rt) suite=trixie-backports; meta=linux-image-rt-amd64 ;;
7.2) suite=sid ;;
*-amd64)
	meta="" abi=$KERNEL
	case "$KERNEL" in
	*bpo* | *+deb12*) suite=bookworm-backports ;;
	*+deb13*) suite=trixie-backports ;;
	[7-9].* | [1-9][0-9].*) suite=sid ;;
	esac ;;
*) die "unknown KERNEL '$KERNEL' (use 6.1, 6.12, 6.12-rt, 7.3, 7.3-rt, 7.2, debug, 6.1-slub-stats, 6.1-slab, 6.1-slob, 7.3-slub-stats or an ABI name like 6.1.0-57-amd64)" ;;
esac
case "$suite" in
trixie-backports) buildroot=trixie ;;
sid) buildroot=sid ;;
esac

# aptc PROG ARGS: apt for the kernel's suite.
aptc() { if [ -n "$suite" ]; then apt_suite "$suite" "$@"; else "$@"; fi; }
if [ -n "$suite" ]; then
	# The private sources list for the machine's mirror, its lists refreshed at most daily.
	apt_suite_refresh "$suite" log || die "no $suite package lists (the message above says why)"
fi

if [ -n "$meta" ]; then
	at=$meta
	[ -z "$suite" ] || at=$meta/$suite
	# (|| true: apt-cache's failure must reach the message below, not set -e)
	img=$(aptc apt-cache show "$at" 2>/dev/null | sed -n 's/^Depends: .*\(linux-image-[0-9][^ ,]*\).*/\1/p' | sort -V | tail -1) || true
	[ -n "$img" ] || die "cannot resolve $at (is ${APT_SUITE_MIRROR:-the Debian archive} reachable? try apt-get update; SLABLAB_DEBIAN_MIRROR overrides the mirror)"
	abi=${img#linux-image-}
fi
abi=${abi%-unsigned}
DIR=$CACHE/kernels/$abi

# debuginfo: DIR/debuginfo/vmlinux from linux-image-ABI-dbg, printed instead of DIR. The
# package's version is the image's as apt knows it now; a re-upload under the same ABI
# would give DWARF of another build, which slablab.drgn_helpers refuses by build ID.
debuginfo() {
	local out=$DIR/debuginfo/vmlinux tmp pkg=linux-image-$abi-dbg found rc
	if [ -f "$out" ]; then echo "$out"; return 0; fi
	tmp=$DIR/debuginfo.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# ~1 GB of package: never left behind by a failure
	trap 'rm -rf "$tmp"' EXIT
	log "fetching $pkg${suite:+ from $suite} (vmlinux with debug information)"
	if [ -n "$suite" ]; then
		(cd "$tmp" && { aptc apt-get -q download "$pkg/$suite" >&2 || aptc apt-get -q download "$pkg" >&2; }) ||
			die "download of $pkg failed (is it on ${APT_SUITE_MIRROR:-the mirror}? apt-cache policy $pkg)"
	else
		(cd "$tmp" && aptc apt-get -q download "$pkg" >&2) ||
			die "apt-get download $pkg failed (is it on the mirror? apt-cache policy $pkg)"
	fi
	log "extracting vmlinux from $pkg"
	# Only the vmlinux member (6.x: usr/lib/debug/boot/vmlinux-KREL): the package's other
	# 5 GB are the modules' DWARF, and tar stops once it has it. Without pipefail the
	# status is tar's: dpkg-deb's broken pipe after it says nothing.
	rc=0
	(cd "$tmp" && set +o pipefail && dpkg-deb --fsys-tarfile ./*.deb 2>/dev/null |
		tar -x --wildcards --occurrence=1 '*/vmlinux*') || rc=$?
	[ "$rc" = 0 ] || die "extracting vmlinux from $pkg failed (tar exit $rc: disk full, or a damaged download?)"
	found=$(find "$tmp" -type f -name 'vmlinux*' ! -name '*.deb' | head -1)
	[ -n "$found" ] || die "no vmlinux in $pkg"
	# a whole ELF file with DWARF: its section headers are at the end
	readelf -S "$found" 2>/dev/null | grep -q '\.debug_info' ||
		die "the vmlinux of $pkg has no .debug_info, or is cut short"
	mkdir -p "$DIR/debuginfo"
	mv "$found" "$out.tmp" && mv "$out.tmp" "$out"
	rm -rf "$tmp"
	trap - EXIT
	log "debug vmlinux ready: $out"
	echo "$out"
}

if [ -f "$DIR/env" ]; then
	if [ "$DEBUGINFO" = 1 ]; then debuginfo; else echo "$DIR"; fi
	exit 0
fi

log "fetching Debian kernel $abi${suite:+ from $suite} into $DIR"
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp/debs"
cd "$DIR.tmp/debs"
depends() { aptc apt-cache show "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -1; }
hdeps=$(depends "linux-headers-$abi")
common=$(sed -n 's/.*\(linux-headers-[^ ,]*-common[^ ,]*\).*/\1/p' <<<"$hdeps")
kbuild=$(sed -n 's/.*\(linux-kbuild-[0-9][^ ,]*\).*/\1/p' <<<"$hdeps")
[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve headers for $abi"
# The build root first: it is what can fail for reasons of this machine (no mmdebstrap).
BR=
if [ -n "$buildroot" ]; then
	# The headers name the compiler they were made with (gcc-14-for-host: gcc-14).
	gcc=$(grep -o 'gcc-[0-9]*-for-host' <<<"$hdeps" | head -1) || true
	gcc=${gcc%-for-host}
	[ -n "$gcc" ] || die "linux-headers-$abi names no gcc-N-for-host: which compiler built it?"
	BR=$("$HERE/buildroot.sh" "$buildroot" "$gcc") ||
		die "no $buildroot build root for $abi (the message above says why)"
fi
if aptc apt-cache show "linux-binary-$abi" >/dev/null 2>&1; then
	# 7.x splits the image package: linux-binary-* has the kernel, linux-modules-* the
	# modules, linux-base-* System.map, config and modules.builtin (the initramfs reads it).
	pkgs=("linux-binary-$abi" "linux-modules-$abi" "linux-base-$abi")
elif aptc apt-cache show "linux-image-$abi-unsigned" >/dev/null 2>&1; then
	# linux-image-*-amd64 is the signed package; -unsigned is the same binary.
	pkgs=("linux-image-$abi-unsigned")
else
	pkgs=("linux-image-$abi")
fi
pkgs+=("linux-headers-$abi" "$common" "$kbuild")
for p in "${pkgs[@]}"; do
	if [ -n "$suite" ]; then
		aptc apt-get download "$p/$suite" >&2 || aptc apt-get download "$p" >&2 || die "download of $p failed"
	else
		aptc apt-get -q download "$p" >&2 || die "apt-get download $p failed"
	fi
done
for d in *.deb; do log "unpacking $d"; dpkg -x "$d" "$DIR.tmp/root"; done
rm -rf "$DIR.tmp/debs"

R=$DIR/root
T=$DIR.tmp/root
KDIR_TMP=$T/usr/src/linux-headers-$abi
# The -amd64 headers include the -common tree by absolute /usr/src path: point it into the cache.
sed -i "s#/usr/src/#$R/usr/src/#g" "$KDIR_TMP/Makefile"
# 7.x packages the kernel and modules under /usr/lib/modules/KREL/ (usrmerge), 6.x under
# /boot and /lib/modules. depmod -b looks in ROOT/lib/modules.
if [ ! -e "$T/lib" ] && [ -d "$T/usr/lib/modules" ]; then ln -s usr/lib "$T/lib"; fi
vmlinuz=
[ ! -d "$T/boot" ] || vmlinuz=$(find "$T/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | head -1)
if [ -n "$vmlinuz" ]; then
	krel=${vmlinuz##*/vmlinuz-}
	vmlinuz=$R/boot/vmlinuz-$krel
else
	vmlinuz=$(find "$T/usr/lib/modules" -mindepth 2 -maxdepth 2 -name vmlinuz 2>/dev/null | head -1)
	[ -n "$vmlinuz" ] || die "no vmlinuz in ${pkgs[0]}"
	krel=${vmlinuz%/vmlinuz}
	krel=${krel##*/}
	vmlinuz=$R/usr/lib/modules/$krel/vmlinuz
fi
# Debian generates modules.dep at install time; the VM's initramfs needs it to order insmods.
depmod -b "$T" "$krel" || die "depmod failed for $krel"
cat >"$DIR.tmp/env" <<EOT
KREL=$krel
VMLINUZ=$vmlinuz
KDIR=$R/usr/src/linux-headers-$abi
MODDIR=$R/lib/modules/$krel
EOT
[ -z "$BR" ] || echo "BUILDROOT=$BR" >>"$DIR.tmp/env"
mv "$DIR.tmp" "$DIR"
log "kernel $krel ready"
if [ "$DEBUGINFO" = 1 ]; then debuginfo; else echo "$DIR"; fi
