#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) one of the kernels slablab builds from Debian's source and print its
# directory, which looks like one from scripts/kernel.sh, so that KERNEL=PROFILE works
# everywhere (`scripts/kernel.sh PROFILE` runs this script).
#
#   scripts/build-kernel.sh PROFILE
#
# PROFILE      source                               fragments (kernel/)
#   debug           linux-source-6.1                base debug                 KASAN, lockdep, kmemleak, fault injection
#   6.1-slub-stats  linux-source-6.1                base release slub-stats    SLUB with CONFIG_SLUB_STATS
#   6.1-slab        linux-source-6.1                base release slab          SLAB
#   6.1-slob        linux-source-6.1                base release slob          SLOB
#   7.3-slub-stats  trixie-backports' linux-source  base release slub-stats release-7  7.3's SLUB (sheaves) with CONFIG_SLUB_STATS
#
# The source is apt-get download + dpkg -x + tar (nothing installed; 7.3's with the
# private apt state of scripts/apt-suite.sh, from the machine's own mirror), configured as
# `make tinyconfig` plus the fragments in order (a later one overrides an earlier one) plus
# CONFIG_LOCALVERSION="-slablab-PROFILE", and built with make -j(ncpus+1) in
# ${SLABLAB_CACHE:-~/.cache/slablab}/kernels/PROFILE-VERSION/ (7.x in the trixie build root
# of scripts/buildroot.sh: its compiler is gcc-14):
#
#   build/     the O= build tree: vmlinux, bzImage, and ready for `make -C build M=...`
#   root/      modules_install output (modules.builtin, modules.dep: all built in)
#   boot/      vmlinuz-KREL (the bzImage)
#   key        hash of everything the build depends on
#   build.log  the last build's output
#   build.time what the first build took ("N s on C cpus, first build DATE")
#   env        KREL VMLINUZ VMLINUX PVH KDIR MODDIR CMDLINE (BUILDROOT, MAKEARGS for 7.x), written
#              last: a directory without env is an unfinished build
#
# The key hashes the source version, the fragments, the compiler's version and this
# script's recipe. A profile is rebuilt only when its key changes, and then incrementally
# in the same build tree. A first build takes 4-15 min on 2 cores (the debug kernel's
# KASAN the most; docs/profiles.md has each one's measured cost). Progress goes to stderr,
# the directory to stdout.
#
# Environment: SLABLAB_CACHE, BUILD_KERNEL_JOBS.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
PROFILE=${1:?usage: $0 debug|6.1-slub-stats|6.1-slab|6.1-slob|7.3-slub-stats}
BASE=tinyconfig
JOBS=${BUILD_KERNEL_JOBS:-${DEBUG_KERNEL_JOBS:-$(($(nproc) + 1))}}
# Bump when the way the kernels are built changes (not the config: that is hashed).
RECIPE=1
log() { echo "build-kernel: $PROFILE: $*" >&2; }
die() { echo "build-kernel: $PROFILE: error: $*" >&2; exit 1; }

# series: the linux-source-N.M package; suite: where it comes from (empty: the machine's
# apt); buildroot: the build root whose compiler builds it (empty: this machine's gcc).
# CMDLINE: kernel arguments the runner adds (scripts/vm.sh reads it from env). PVH=0:
# scripts/vm.sh boots the bzImage rather than vmlinux through its PVH entry.
suite="" buildroot="" PVH=1 CMDLINE=""
case "$PROFILE" in
debug)
	series=6.1 fragments=(base debug)
	# acpi=noirq: the cpus still come from the ACPI tables (MADT), but PCI interrupt
	# routing does not evaluate \_SB.PCI0._PRT, a 128-iteration AML loop that the ACPI
	# interpreter, with KASAN and lockdep under TCG, cannot finish within ACPICA's 30 s
	# loop time-out (boot stalled 4 x 30 s, once per PCI device). virtio-pci uses MSI-X
	# anyway. acpi=off would bring up one cpu only (qemu's MP table lists the boot cpu
	# alone), and acpi=ht no longer exists in 6.1. docs/profiles.md has the measurements.
	#
	# slub_debug=A,slablab_slab: FAILSLAB may fail slablab's metadata cache (struct
	# slablab_slab) alone (failslab's cache-filter); 6.1's /sys/kernel/slab/*/failslab is
	# read-only, so the flag can only be set when the cache is created.
	CMDLINE="acpi=noirq slub_debug=A,slablab_slab"
	# qemu cannot boot this kernel's vmlinux through its PVH entry: the PVH entry code
	# runs KASAN-instrumented C before the KASAN shadow exists and the guest resets at
	# once.
	PVH=0 ;;
6.1-slub-stats) series=6.1 fragments=(base release slub-stats) ;;
6.1-slab) series=6.1 fragments=(base release slab) ;;
6.1-slob) series=6.1 fragments=(base release slob) ;;
7.3-slub-stats) series=7.3 suite=trixie-backports buildroot=trixie fragments=(base release slub-stats release-7) ;;
*) die "unknown profile (debug, 6.1-slub-stats, 6.1-slab, 6.1-slob or 7.3-slub-stats)" ;;
esac
PKG=linux-source-$series
frag_files=()
for f in "${fragments[@]}"; do
	frag_files+=("$REPO/kernel/$f.config")
	[ -f "$REPO/kernel/$f.config" ] || die "config fragment kernel/$f.config missing"
done

# ---------------------------------------------------------------- build tools
need=(gcc make bc flex bison libelf-dev libssl-dev xz-utils cpio kmod)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing build tools: ${missing[*]}"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		{ $SUDO apt-get update -q >&2 &&
			$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; } ||
		die "apt-get install ${missing[*]} failed"
fi

# ---------------------------------------------------------------- source
mkdir -p "$CACHE/src" "$CACHE/kernels"

aptc() { if [ -n "$suite" ]; then apt_suite "$suite" "$@"; else "$@"; fi; }
if [ -n "$suite" ]; then
	# shellcheck source=scripts/apt-suite.sh
	. "$REPO/scripts/apt-suite.sh"
	apt_suite_refresh "$suite" log || die "no $suite package lists (the message above says why)"
	# linux-source is a metapackage there: "Depends: linux-source-7.3 (= 7.3.4-1~bpo13+1)"
	dep=$(aptc apt-cache show "linux-source/$suite" 2>/dev/null |
		sed -n 's/^Depends: .*\(linux-source-[0-9][^ ,]*\) (= \([^)]*\)).*/\1 \2/p' |
		sort -V -k2 | tail -1) || true
	read -r pkg ver <<<"$dep" || true
	[ "${pkg:-}" = "$PKG" ] ||
		die "$suite's linux-source is ${pkg:-unknown}, not $PKG: which series does it ship now? (is ${APT_SUITE_MIRROR:-the mirror} reachable?)"
else
	ver=$(apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p') || true
	[ "$ver" != "(none)" ] || ver=
fi
if [ -z "${ver:-}" ]; then
	# No apt lists (or no archive): fall back to the newest source of the series unpacked.
	src=$(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name "linux-source-$series.*" \
		! -name '*.tmp' 2>/dev/null | sort -V | tail -1)
	[ -n "$src" ] || die "cannot resolve $PKG (try: apt-get update) and no source is cached"
	ver=${src##*/linux-source-}
	log "apt does not know $PKG; using the cached source $ver"
fi
SRC=$CACHE/src/linux-source-$ver

# ---------------------------------------------------------------- compiler
BR="" CCARGS=()
if [ -n "$buildroot" ]; then
	BR=$("$REPO/scripts/buildroot.sh" "$buildroot" gcc-14) ||
		die "no $buildroot build root (the message above says why)"
	CCARGS=(CC=gcc-14 HOSTCC=gcc-14)
	ccver=$("$REPO/scripts/buildroot.sh" run "$BR" -- gcc-14 --version | head -1)
else
	ccver=$(gcc --version | head -1)
fi

# ---------------------------------------------------------------- cache key
DIR=$CACHE/kernels/$PROFILE-$ver
key=$( {
	echo "profile $PROFILE source $PKG $ver base $BASE recipe $RECIPE"
	echo "$ccver"
	cat "${frag_files[@]}"
} | sha256sum | cut -c1-16)
write_env() {
	local krel
	krel=$(cat "$DIR/build/include/config/kernel.release")
	{
		echo "KREL=$krel"
		echo "VMLINUZ=$DIR/boot/vmlinuz-$krel"
		echo "VMLINUX=$DIR/build/vmlinux"
		echo "PVH=$PVH"
		echo "KDIR=$DIR/build"
		echo "MODDIR=$DIR/root/lib/modules/$krel"
		echo "CMDLINE='$CMDLINE'"
		[ -z "$BR" ] || echo "BUILDROOT=$BR"
		# an out-of-tree module is built with the kernel's compiler (Kbuild takes gcc)
		[ ${#CCARGS[@]} -eq 0 ] || echo "MAKEARGS='${CCARGS[*]}'"
	} >"$DIR/env.tmp"
	if cmp -s "$DIR/env.tmp" "$DIR/env" 2>/dev/null; then
		rm "$DIR/env.tmp"
	else
		mv "$DIR/env.tmp" "$DIR/env"
	fi
}
# A build of this key that is there is reused (its runner settings, CMDLINE and PVH,
# may have changed; the build did not).
reuse_if_ready() {
	if [ -f "$DIR/env" ] && [ "$(cat "$DIR/key" 2>/dev/null)" = "$key" ]; then
		write_env
		echo "$DIR"
		exit 0
	fi
}
reuse_if_ready
# One build at a time (two kernel builds on 2 cores only slow each other down); a
# second caller of the same profile waits and then reuses it. A ready kernel was reused
# above, without waiting for another profile's build.
exec {lockfd}>"$CACHE/kernels/.build-kernel.lock"
flock "$lockfd"
reuse_if_ready

if [ ! -f "$SRC/.slablab-unpacked" ]; then
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	deb=/var/cache/apt/archives/${PKG}_${ver//:/%3a}_all.deb
	if [ ! -f "$deb" ]; then
		log "downloading $PKG $ver (~140-170 MB)"
		if [ -n "$suite" ]; then
			(cd "$SRC.tmp" && aptc apt-get -q download "$PKG=$ver" >&2) ||
				die "apt-get download $PKG=$ver from $suite failed"
		else
			(cd "$SRC.tmp" && apt-get -q -o APT::Sandbox::User=root download "$PKG=$ver" >&2) ||
				die "apt-get download $PKG=$ver failed"
		fi
		deb=$(ls "$SRC.tmp"/*.deb)
	fi
	log "unpacking $PKG $ver into $SRC"
	dpkg -x "$deb" "$SRC.tmp/pkg"
	tar -xf "$SRC.tmp"/pkg/usr/src/linux-source-*.tar.xz -C "$SRC.tmp"
	mv "$SRC.tmp"/linux-source-*/ "$SRC"
	rm -rf "$SRC.tmp"
	touch "$SRC/.slablab-unpacked"
	# Older sources of the series are of no use any more (other series' are).
	for old in "$CACHE"/src/linux-source-"$series".*; do
		[ -e "$old" ] && [ "$old" != "$SRC" ] || continue
		rm -rf "$old"
	done
fi
for old in "$CACHE"/kernels/"$PROFILE"-*; do
	[ -e "$old" ] && [ "$old" != "$DIR" ] || continue
	{ log "removing the old build $old"; rm -rf "$old"; }
done

# ---------------------------------------------------------------- configure and build
B=$DIR/build
rm -f "$DIR/env" "$DIR/key"
mkdir -p "$B"
kind=first
if [ -f "$B/.config" ]; then
	kind=incremental
	log "rebuilding in $B (key $key; incremental)"
else
	log "building Debian $PKG $ver as $PROFILE in $B (4-15 min on 2 cores)"
fi
# The profile's name in the release: uname -r says which kernel a result came from.
printf 'CONFIG_LOCALVERSION="-slablab-%s"\n' "$PROFILE" >"$DIR/localversion.config"
frag_files+=("$DIR/localversion.config")
kmake() {
	if [ -n "$BR" ]; then
		(cd "$SRC" && "$REPO/scripts/buildroot.sh" run "$BR" -- \
			make -C "$SRC" O="$B" ARCH=x86_64 "${CCARGS[@]}" "$@")
	else
		make -C "$SRC" O="$B" ARCH=x86_64 "$@"
	fi
}
t0=$(date +%s)
{
	kmake "$BASE" &&
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" "${frag_files[@]}" &&
		kmake olddefconfig
} >"$DIR/build.log" 2>&1 || { tail -n 30 "$DIR/build.log" >&2; die "configuring failed"; }

# Every line of the fragments, the last word on each symbol, must have survived
# olddefconfig.
declare -A want=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		want[${BASH_REMATCH[1]}]=$line
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		want[${BASH_REMATCH[1]}]=$line
	fi
done < <(cat "${frag_files[@]}")
bad=()
for sym in "${!want[@]}"; do
	line=${want[$sym]}
	if [[ $line == CONFIG_* ]]; then
		grep -qxF -- "$line" "$B/.config" ||
			bad+=("$sym: want ${line#*=}, got $(grep -E "^(# )?${sym}[= ]" "$B/.config" || echo unset)")
	else
		! grep -qE "^$sym=[ym]" "$B/.config" ||
			bad+=("$sym: want unset, got $(grep -E "^$sym=" "$B/.config")")
	fi
done
if [ ${#bad[@]} -gt 0 ]; then
	printf 'build-kernel:   %s\n' "${bad[@]}" >&2
	die "kernel/{${fragments[*]}}.config ask for options Kconfig did not take (missing dependencies?)"
fi

log "compiling with make -j$JOBS (log: $DIR/build.log)"
kmake -j"$JOBS" all >>"$DIR/build.log" 2>&1 ||
	{ grep -E 'error|Error' "$DIR/build.log" | tail -n 20 >&2; tail -n 20 "$DIR/build.log" >&2
	  die "kernel build failed (log: $DIR/build.log)"; }
krel=$(cat "$B/include/config/kernel.release")
rm -rf "${DIR:?}/root" "${DIR:?}/boot"
kmake INSTALL_MOD_PATH="$DIR/root" modules_install >>"$DIR/build.log" 2>&1 ||
	die "modules_install failed (log: $DIR/build.log)"
# Kernels without loadable modules get no modules.dep from modules_install.
[ -f "$DIR/root/lib/modules/$krel/modules.dep" ] || depmod -b "$DIR/root" "$krel"
mkdir -p "$DIR/boot"
cp "$B/arch/x86/boot/bzImage" "$DIR/boot/vmlinuz-$krel"
echo "$key" >"$DIR/key"
# What the build cost (make fidelity prints it): a first build's figure is kept.
[ "$kind" = incremental ] && [ -f "$DIR/build.time" ] ||
	echo "$(($(date +%s) - t0)) s on $(nproc) cpus, $kind build $(date -u +%F)" >"$DIR/build.time"
write_env
log "kernel $krel ready after $(($(date +%s) - t0)) s"
echo "$DIR"
