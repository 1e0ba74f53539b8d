#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) slablab's debug kernel and print its directory, which looks like
# one from scripts/kernel.sh, so that KERNEL=debug works everywhere
# (`scripts/kernel.sh debug` runs this script).
#
#   scripts/debug-kernel.sh
#
# The kernel is Debian's linux-source-6.1 (apt-get download + dpkg -x + tar, nothing
# installed), configured as `make tinyconfig` plus kernel/debug.config (KASAN, lockdep,
# kmemleak, fault injection, ... and what the VM runner and the host's python need), and
# built with make -j(ncpus+1) in ${SLABLAB_CACHE:-~/.cache/slablab}/kernels/debug-VERSION/:
#
#   build/     the O= build tree: vmlinux, bzImage, and ready for `make -C build M=...`
#   root/      modules_install output (modules.builtin, modules.dep: all built in)
#   boot/      vmlinuz-KREL (the bzImage)
#   key        hash of everything the build depends on
#   build.log  the last build's output
#   env        KREL VMLINUZ VMLINUX PVH KDIR MODDIR CMDLINE, written last: a directory
#              without env is an unfinished build
#
# The key hashes the source version, kernel/debug.config, the base config, the
# compiler's version and this script's build recipe. It is rebuilt only when the key
# changes, and then incrementally in the same build tree. A first build takes about
# 27 CPU-minutes (15 min on 2 idle cores, 32 min measured on a busy machine). Progress
# goes to stderr, the directory to stdout.
#
# Environment: SLABLAB_CACHE, DEBUG_KERNEL_CONFIG (another fragment), DEBUG_KERNEL_JOBS.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
FRAGMENT=${DEBUG_KERNEL_CONFIG:-$REPO/kernel/debug.config}
PKG=linux-source-6.1
BASE=tinyconfig
JOBS=${DEBUG_KERNEL_JOBS:-$(($(nproc) + 1))}
# Kernel arguments the runner adds for this kernel (scripts/vm.sh reads CMDLINE from
# env). acpi=noirq: the cpus still come from the ACPI tables (MADT), but PCI interrupt
# routing does not evaluate \_SB.PCI0._PRT, a 128-iteration AML loop that the ACPI
# interpreter, with KASAN and lockdep under TCG, cannot finish within ACPICA's 30 s loop
# time-out (boot stalled 4 x 30 s, once per PCI device). virtio-pci uses MSI-X anyway.
# acpi=off would bring up one cpu only (qemu's MP table lists the boot cpu alone), and
# acpi=ht no longer exists in 6.1. docs/profiles.md has the measurements.
#
# slub_debug=A,slablab_slab: FAILSLAB may fail slablab's metadata cache (struct
# slablab_slab) alone (failslab's cache-filter); 6.1's /sys/kernel/slab/*/failslab is
# read-only, so the flag can only be set when the cache is created.
CMDLINE="acpi=noirq slub_debug=A,slablab_slab"
# qemu cannot boot this kernel's vmlinux through its PVH entry: the PVH entry code
# runs KASAN-instrumented C before the KASAN shadow exists and the guest resets at
# once. scripts/vm.sh boots the (gzip) bzImage instead.
PVH=0
# Bump when the way the kernel is built changes (not the config: that is hashed).
RECIPE=1
log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

[ -f "$FRAGMENT" ] || die "config fragment $FRAGMENT missing"

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
exec {lockfd}>"$CACHE/kernels/.debug-kernel.lock"
flock "$lockfd" # one build at a time; a second caller waits and then reuses it

ver=$(apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
[ "$ver" != "(none)" ] || ver=
if [ -z "$ver" ]; then
	# No apt lists (or no archive): fall back to the newest source already unpacked.
	src=$(find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' \
		! -name '*.tmp' 2>/dev/null | sort -V | tail -1)
	[ -n "$src" ] || die "cannot resolve $PKG (try: apt-get update) and no source is cached"
	ver=${src##*/linux-source-}
	log "apt does not know $PKG; using the cached source $ver"
fi
SRC=$CACHE/src/linux-source-$ver
if [ ! -f "$SRC/.slablab-unpacked" ]; then
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	deb=/var/cache/apt/archives/${PKG}_${ver//:/%3a}_all.deb
	if [ ! -f "$deb" ]; then
		log "downloading $PKG $ver (~140 MB)"
		(cd "$SRC.tmp" && apt-get -q -o APT::Sandbox::User=root download "$PKG=$ver" >&2) ||
			die "apt-get download $PKG=$ver failed"
		deb=$(ls "$SRC.tmp"/*.deb)
	fi
	log "unpacking $PKG $ver into $SRC"
	dpkg -x "$deb" "$SRC.tmp/pkg"
	tar -xf "$SRC.tmp"/pkg/usr/src/linux-source-*.tar.xz -C "$SRC.tmp"
	mv "$SRC.tmp"/linux-source-*/ "$SRC"
	rm -rf "$SRC.tmp"
	touch "$SRC/.slablab-unpacked"
	# Older sources are of no use any more.
	for old in "$CACHE"/src/linux-source-*; do
		[ -e "$old" ] && [ "$old" != "$SRC" ] || continue
		rm -rf "$old"
	done
fi

# ---------------------------------------------------------------- cache key
DIR=$CACHE/kernels/debug-$ver
key=$( {
	echo "source $PKG $ver base $BASE recipe $RECIPE"
	gcc --version | head -1
	cat "$FRAGMENT"
} | sha256sum | cut -c1-16)
write_env() {
	local krel
	krel=$(cat "$DIR/build/include/config/kernel.release")
	cat >"$DIR/env.tmp" <<EOT
KREL=$krel
VMLINUZ=$DIR/boot/vmlinuz-$krel
VMLINUX=$DIR/build/vmlinux
PVH=$PVH
KDIR=$DIR/build
MODDIR=$DIR/root/lib/modules/$krel
CMDLINE='$CMDLINE'
EOT
	if cmp -s "$DIR/env.tmp" "$DIR/env" 2>/dev/null; then
		rm "$DIR/env.tmp"
	else
		mv "$DIR/env.tmp" "$DIR/env"
	fi
}
if [ -f "$DIR/env" ] && [ "$(cat "$DIR/key" 2>/dev/null)" = "$key" ]; then
	write_env # the runner settings (CMDLINE, PVH) may have changed, the build did not
	echo "$DIR"
	exit 0
fi
for old in "$CACHE"/kernels/debug-*; do
	[ -e "$old" ] && [ "$old" != "$DIR" ] || continue
	{ log "removing the old debug kernel $old"; rm -rf "$old"; }
done

# ---------------------------------------------------------------- configure and build
B=$DIR/build
rm -f "$DIR/env" "$DIR/key"
mkdir -p "$B"
if [ -f "$B/.config" ]; then
	log "rebuilding in $B (key $key; incremental)"
else
	log "building Debian $ver as KASAN/lockdep/kmemleak kernel in $B (15-30 min on 2 cores)"
fi
kmake() { make -C "$SRC" O="$B" ARCH=x86_64 "$@"; }
t0=$(date +%s)
{
	kmake "$BASE" &&
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$B" "$B/.config" "$FRAGMENT" &&
		kmake olddefconfig
} >"$DIR/build.log" 2>&1 || { tail -n 30 "$DIR/build.log" >&2; die "configuring failed"; }

# Every line of the fragment must have survived olddefconfig.
bad=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
		grep -qxF -- "$line" "$B/.config" ||
			bad+=("${BASH_REMATCH[1]}: want ${BASH_REMATCH[2]}, got $(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$B/.config" || echo unset)")
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		! grep -qE "^${BASH_REMATCH[1]}=[ym]" "$B/.config" ||
			bad+=("${BASH_REMATCH[1]}: want unset, got $(grep -E "^${BASH_REMATCH[1]}=" "$B/.config")")
	fi
done <"$FRAGMENT"
if [ ${#bad[@]} -gt 0 ]; then
	printf 'debug-kernel:   %s\n' "${bad[@]}" >&2
	die "$FRAGMENT asks for options Kconfig did not take (missing dependencies?)"
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
write_env
log "kernel $krel ready after $(($(date +%s) - t0)) s"
echo "$DIR"
