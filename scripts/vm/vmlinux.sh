#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Give scripts/vm.sh the fastest bootable form of a kernel image.
#
#   scripts/vm/vmlinux.sh VMLINUZ OUT_DIR
#
# Under TCG the bzImage's own decompressor needs 2.5-4.5 s to unpack a Debian kernel
# (xz for 6.1, zstd for 6.12 and 7.x). qemu can instead boot the uncompressed ELF vmlinux
# directly through its PVH entry point (CONFIG_PVH, set in Debian's kernels). This
# extracts that ELF once into OUT_DIR/vmlinux-NAME (cached, keyed on the image's size
# and mtime) and prints its path; it prints VMLINUZ itself when the image cannot be
# unpacked or has no PVH entry note, so the caller can always boot what it gets.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 VMLINUZ OUT_DIR" >&2; exit 2; }
VMLINUZ=$1 OUT_DIR=$2
# NAME: the release, from /boot/vmlinuz-KREL (6.x) or /usr/lib/modules/KREL/vmlinuz (7.x)
case "$VMLINUZ" in
*/vmlinuz-*) name=${VMLINUZ##*/vmlinuz-} ;;
*/vmlinuz) name=${VMLINUZ%/vmlinuz}; name=${name##*/} ;;
*) name=${VMLINUZ##*/} ;;
esac
out=$OUT_DIR/vmlinux-$name
key=$(stat -L -c '%n %s %Y' "$VMLINUZ")
if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi
fallback() { echo "vm: $*; booting the compressed image" >&2; echo "$VMLINUZ"; exit 0; }
command -v readelf >/dev/null || fallback "readelf (binutils) missing"

mkdir -p "$OUT_DIR"
tmp=$(mktemp "$OUT_DIR/.vmlinux.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# The compressed payload starts at the first magic number of a supported format; the
# decompressors stop at its end and complain about the bytes after it (ignored here,
# the result is checked instead).
extracted=0
for fmt in 'xz \xfd7zXZ\x00' 'zstd -q \x28\xb5\x2f\xfd' 'gzip \x1f\x8b\x08'; do
	magic=${fmt##* } tool=${fmt% *}
	off=$(LC_ALL=C grep -obUaP "$magic" "$VMLINUZ" | head -1 | cut -d: -f1) || true
	[ -n "$off" ] || continue
	tail -c +$((off + 1)) "$VMLINUZ" | $tool -dc >"$tmp" 2>/dev/null || true
	if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		extracted=1
		break
	fi
done
[ $extracted = 1 ] || fallback "could not unpack $VMLINUZ"
# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point qemu needs for an ELF kernel.
readelf -n "$tmp" 2>/dev/null | grep -Eq 'Xen[[:space:]].*(0x00000012|PHYS32_ENTRY)' ||
	fallback "$VMLINUZ has no PVH entry point"
chmod 644 "$tmp"
mv "$tmp" "$out"
echo "$key" >"$out.key"
echo "$out"
