#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Record a real boot's slab allocations (`make record-boot`; docs/replay.md, "A real
# boot"): the test VM boots with the kmem tracepoints enabled from the kernel's command
# line (trace_event=, a ring buffer of BOOT_TRACE_BUF a cpu, trace_clock=mono), and as
# its first command turns tracing off, reads /sys/kernel/tracing/trace (text, pointers
# hashed) and imports it with slabctl import. Seed 003 asks what a booted system's slab
# pages are: this is the boot itself, up to the VM's init running its command.
#
#   scripts/record-boot.sh [OUT]        (default: $SLABLAB_BUILD/boot.trace; on the host)
#   scripts/record-boot.sh --guest OUT  (in the VM: what vm.sh runs)
#
# BOOT_TRACE_BUF: the per-cpu ring buffer (default 96M); what did not fit is reported
# as lost events (the buffer overran: the earliest events were overwritten). The text
# is kept beside OUT, compressed: OUT without .trace + .txt.zst.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
SLABCTL=$BUILD/tool/slabctl

if [ "${1:-}" = "--guest" ]; then
	out=$2
	T=/sys/kernel/tracing
	echo 0 > "$T/tracing_on"
	head -n 3 "$T/trace" | tail -n 1 >&2
	# the guest's tmpfs, not the 9p build tree: hundreds of MB of text
	txt=$(mktemp /tmp/boot-XXXXXX.txt)
	cat "$T/trace" > "$txt"
	echo "record-boot: $(wc -l < "$txt") lines, $(du -m "$txt" | cut -f1) MB of text" >&2
	"$SLABCTL" import "$txt" -o "$out"
	zstd -q -f -3 "$txt" -o "${out%.trace}.txt.zst"
	chmod 644 "${out%.trace}.txt.zst"
	rm -f "$txt"
	exit 0
fi

out=${1:-$BUILD/boot.trace}
buf=${BOOT_TRACE_BUF:-96M}
export VM_APPEND="${VM_APPEND:+$VM_APPEND }trace_event=kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free trace_buf_size=$buf trace_clock=mono"
exec "$REPO/scripts/vm.sh" --module "$REPO/module/slablab.ko" -- "$0" --guest "$out"
