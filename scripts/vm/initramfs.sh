#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the busybox initramfs that scripts/vm.sh boots.
#
#   scripts/vm/initramfs.sh KERNEL_DIR OUT_DIR
#
# KERNEL_DIR is a directory printed by scripts/kernel.sh (it holds `env` with KREL and
# MODDIR). The archive is an uncompressed newc cpio (the kernel unpacks it faster than a
# compressed one under TCG) holding busybox-static, scripts/vm/init as /init and, from
# MODDIR, the modules the guest needs to reach the host over virtio/9p, together with
# their dependency closure from modules.dep, decompressed, in load order
# (/lib/modules/load.order). Modules that are built into this kernel are skipped.
#
# The archive is cached in OUT_DIR as initramfs-KREL.cpio next to a .key file that
# hashes every input; it is rebuilt only when an input changes. Prints the path.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "vm: initramfs: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 KERNEL_DIR OUT_DIR"
KERNEL_DIR=$1 OUT_DIR=$2
[ -f "$KERNEL_DIR/env" ] || die "$KERNEL_DIR/env missing (run scripts/kernel.sh)"
KREL=$(sed -n 's/^KREL=//p' "$KERNEL_DIR/env")
MODDIR=$(sed -n 's/^MODDIR=//p' "$KERNEL_DIR/env")
[ -f "$MODDIR/modules.dep" ] || die "$MODDIR/modules.dep missing"

BUSYBOX=${VM_BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: install busybox-static"
# The guest has no libc before it chroots into the host: busybox must be static.
! ldd "$BUSYBOX" >/dev/null 2>&1 || die "$BUSYBOX is dynamically linked: install busybox-static"

# What the guest needs: PCI transport, the console that carries the command's stdio,
# 9p over virtio for the host root and the repository, and virtio-rng so that
# getrandom() never waits for entropy. Optional ones may be absent from a kernel.
REQUIRED=(virtio_pci virtio_console 9pnet_virtio 9p)
OPTIONAL=(virtio_rng)

norm() { local n=${1##*/}; n=${n%%.ko*}; echo "${n//-/_}"; }

# Load order: a depth-first walk of modules.dep, every dependency before the module that
# needs it; modules built into this kernel are skipped (awk: modules.dep is ~4000 lines).
builtin=$MODDIR/modules.builtin
[ -f "$builtin" ] || builtin=/dev/null
mapfile -t ORDER < <(awk -v required="${REQUIRED[*]}" -v optional="${OPTIONAL[*]}" '
	function norm(p,  n) { n = p; sub(/.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n); return n }
	function visit(m,  a, n, i) {
		if (m in seen) return
		seen[m] = 1
		n = split(deps[m], a, " ")
		for (i = 1; i <= n; i++) visit(a[i])
		print m
	}
	function want(name, req) {
		name = norm(name)
		if (name in path) visit(path[name])
		else if (!(name in builtin) && req) { print "missing " name; exit 1 }
	}
	FILENAME == ARGV[1] { builtin[norm($0)] = 1; next }
	{ m = $1; sub(/:$/, "", m); path[norm(m)] = m; $1 = ""; deps[m] = $0 }
	END {
		n = split(required, r, " "); for (i = 1; i <= n; i++) want(r[i], 1)
		n = split(optional, o, " "); for (i = 1; i <= n; i++) want(o[i], 0)
	}' "$builtin" "$MODDIR/modules.dep")
case "${ORDER[*]}" in *missing\ *)
	die "module ${ORDER[-1]#missing } is neither in $MODDIR/modules.dep nor built in" ;;
esac

# Cache key: this script, /init, busybox and every module file (path, size, mtime).
key=$( {
	cat "${BASH_SOURCE[0]}" "$HERE/init" "$BUSYBOX" | sha256sum
	echo "$KREL $MODDIR"
	for m in "${ORDER[@]}"; do stat -c '%n %s %Y' "$MODDIR/$m"; done
} | sha256sum | cut -d' ' -f1)
mkdir -p "$OUT_DIR"
out=$OUT_DIR/initramfs-$KREL.cpio
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi

echo "vm: building initramfs for $KREL (${#ORDER[@]} modules)" >&2
stage=$(mktemp -d "$OUT_DIR/.initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,run,newroot,lib/modules}
cp "$BUSYBOX" "$stage/bin/busybox"
(cd "$stage/bin" && "$BUSYBOX" --list | grep -vx busybox | xargs -I{} ln -s busybox {})
ln -s bin "$stage/sbin"
install -m 0755 "$HERE/init" "$stage/init"
# The kernel's built-in initramfs normally provides /dev/console already; this is a
# fallback for kernels without one (needs root, so failure is not fatal).
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
: >"$stage/lib/modules/load.order"
for m in "${ORDER[@]}"; do
	dst=$stage/lib/modules/$(norm "$m").ko
	case "$m" in
	*.ko) cp "$MODDIR/$m" "$dst" ;;
	*.ko.xz) xz -dc "$MODDIR/$m" >"$dst" ;;
	*.ko.zst) zstd -qdc "$MODDIR/$m" >"$dst" ;;
	*.ko.gz) gzip -dc "$MODDIR/$m" >"$dst" ;;
	*) die "unsupported module file $m" ;;
	esac
	echo "$(norm "$m").ko" >>"$stage/lib/modules/load.order"
done
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$key" >"$out.key"
echo "$out"
