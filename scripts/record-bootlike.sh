#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Record a boot-like mix of kernel allocations with slabctl record, inside the test VM
# (`make record-bootlike`; docs/replay.md): seed 003's memory question asks what a
# booted system's slab pages are, and a boot is many small things — modules loaded
# (and their caches, sysfs and devices made), network devices set up, a file tree
# populated and archived, processes started and stopped. This does a little of each,
# a few seconds under TCG, and writes the trace.
#
#   scripts/record-bootlike.sh [OUT]        (default: $SLABLAB_BUILD/bootlike.trace)
#   scripts/record-bootlike.sh --workload   (the workload alone, unrecorded; as root)
#
# BOOTLIKE_ROUNDS: how many times the workload repeats its steps (default 1);
# BOOTLIKE_TREE, BOOTLIKE_FILES: the tree whose first files (default /etc, 60 files) are
# copied to a tmpfs and archived;
# BOOTLIKE_PROCESSES: rounds of short-lived processes (default 8: 24 of them, and 4
# background ones killed);
# BOOTLIKE_MODULES: the modules loaded and unloaded (default: dummy veth bridge brd,
# with their dependencies; those already loaded or built in are left alone).
# Modules come from /lib/modules/$(uname -r), else from the unpacked test kernel under
# $SLABLAB_CACHE (scripts/kernel.sh), which the VM sees through the host's root.
# Then replay it on every target, side by side:
#   slabctl replay OUT --compare slub,sheaves,slab,slob,native
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
ROUNDS=${BOOTLIKE_ROUNDS:-1}
TREE=${BOOTLIKE_TREE:-/etc}
FILES=${BOOTLIKE_FILES:-60}
PROCESSES=${BOOTLIKE_PROCESSES:-8}
read -r -a MODULES <<<"${BOOTLIKE_MODULES:-dummy veth bridge brd}"

# modprobe's root: "" (the system's) or the unpacked test kernel's
module_root() {
	local krel cache
	krel=$(uname -r)
	if [ -f "/lib/modules/$krel/modules.dep" ]; then
		echo ""
		return
	fi
	cache=${SLABLAB_CACHE:-$HOME/.cache/slablab}
	if [ -f "$cache/kernels/$krel/root/lib/modules/$krel/modules.dep" ]; then
		echo "$cache/kernels/$krel/root"
		return
	fi
	return 1
}

# the step "modules": load the modules not yet loaded, use them a little (devices made,
# configured, brought up, as a boot does), remove them and what they pulled in
modules_step() {
	local root m before new
	if ! root=$(module_root); then
		echo "bootlike: no modules for $(uname -r): the module step is left out" >&2
		return 0
	fi
	before=$(cut -d' ' -f1 /proc/modules)
	for m in "${MODULES[@]}"; do
		modprobe ${root:+-d "$root"} "$m" 2>/dev/null || true
	done
	if [ -d /sys/module/dummy ]; then
		ip link add bl-dummy0 type dummy && ip link set bl-dummy0 up &&
			ip addr add 10.251.0.1/24 dev bl-dummy0 || true
	fi
	if [ -d /sys/module/veth ]; then
		ip link add bl-veth0 type veth peer name bl-veth1 && ip link set bl-veth0 up || true
	fi
	if [ -d /sys/module/bridge ]; then
		ip link add bl-br0 type bridge && ip link set bl-br0 up &&
			ip link set bl-veth1 master bl-br0 2>/dev/null || true
	fi
	ip -s link show >/dev/null
	if [ -e /sys/block/ram0 ]; then
		cat /sys/block/ram*/size >/dev/null
	fi
	for m in bl-br0 bl-veth0 bl-dummy0; do
		ip link del "$m" 2>/dev/null || true
	done
	# the modules loaded here, newest first (/proc/modules lists them so)
	new=$(cut -d' ' -f1 /proc/modules | grep -vxF "$before" || true)
	for m in $new; do
		rmmod "$m" 2>/dev/null || true
	done
}

# the step "files": FILES files of a tree copied to a tmpfs, walked, archived, removed
files_step() {
	local dir
	dir=$(mktemp -d /tmp/bootlike.XXXXXX)
	mount -t tmpfs -o size=64m bootlike "$dir" 2>/dev/null || true
	mkdir "$dir/tree"
	find "$TREE" -maxdepth 3 -type f -readable 2>/dev/null | head -n "$FILES" |
		xargs -r cp --parents -t "$dir/tree" 2>/dev/null || true
	find "$dir/tree" -type f | wc -l >/dev/null
	tar cf "$dir/tree.tar" -C "$dir" tree 2>/dev/null || true
	tar tf "$dir/tree.tar" >/dev/null 2>&1 || true
	rm -rf "$dir/tree" "$dir/tree.tar"
	umount "$dir" 2>/dev/null || true
	rmdir "$dir"
}

# the step "processes": short-lived processes, pipelines, background jobs stopped
processes_step() {
	local i pids=()
	for i in $(seq 1 "$PROCESSES"); do
		/bin/true
		sh -c 'echo "$$" >/dev/null'
		ls /proc >/dev/null
	done
	ps -e -o pid,comm >/dev/null
	cat /proc/self/status /proc/meminfo /proc/slabinfo >/dev/null 2>&1 || true
	for ((i = 0; i < PROCESSES / 2; i++)); do
		sleep 30 &
		pids+=($!)
	done
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
}

workload() {
	local r t
	for ((r = 0; r < ROUNDS; r++)); do
		for step in modules_step files_step processes_step; do
			t=$(date +%s%N)
			$step
			[ -z "${BOOTLIKE_VERBOSE:-}" ] ||
				echo "bootlike: $step $((($(date +%s%N) - t) / 1000000)) ms" >&2
		done
	done
}

if [ "${1:-}" = "--workload" ]; then
	workload
	exit 0
fi
S=$BUILD/tool/slabctl
OUT=${1:-$BUILD/bootlike.trace}
"$S" record -o "$OUT" --buffer-kb 32768 -- "$0" --workload
echo "record-bootlike: the trace is $OUT"
