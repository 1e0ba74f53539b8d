#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in a throwaway qemu VM booted on an unpacked Debian kernel, with the
# host's root filesystem (read-only) and this repository (read-write, same path) shared
# over 9p, and fail when the kernel log shows a splat. docs/vm.md has the details.
#
#   scripts/vm.sh [--kernel-dir DIR] [--module PATH.ko]... [--interactive]
#                 [--timeout SECONDS] [--log FILE] [--] COMMAND [ARGS...]
#
# Exit status: COMMAND's own, or
#   2    usage or host-side error (nothing booted)
#   121  guest setup failed (a --module did not insmod, a 9p mount failed, ...)
#   122  the guest never reported an exit status (crash, panic, qemu error)
#   124  timeout (VM_TIMEOUT / --timeout)
#   125  the kernel log holds a splat (Oops, BUG, WARNING, lockdep, ...), whatever
#        COMMAND returned (but the one splat of qemu's TCG text-patching race, which
#        runs the command once more: docs/vm.md)
#   129, 130, 143  vm.sh got SIGHUP, SIGINT (^C), SIGTERM and killed the guest
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
# The guest sees the host's root read-only: tests find the cache (scripts/ynl.sh's tools) here.
export SLABLAB_CACHE=$CACHE
QEMU=${VM_QEMU:-qemu-system-x86_64}
# Prefix of the command's output lines in the serial log; splat detection skips them.
OUT_PREFIX='[cmd] '

usage() {
	cat <<EOF
usage: scripts/vm.sh [options] [--] COMMAND [ARGS...]
       scripts/vm.sh --interactive [options] [COMMAND [ARGS...]]

Boot the Debian kernel unpacked by scripts/kernel.sh in qemu, with the host root (read
only) and $REPO (read-write, same path) shared over 9p, and run COMMAND there
(one argument: run through sh -c; several: executed as is), from the current directory
when it is inside the repository, else from the repository root.

options:
  --kernel-dir DIR    kernel directory from scripts/kernel.sh (default: KERNEL_DIR, or
                      \`scripts/kernel.sh \${KERNEL:-6.1}\`)
  --module PATH.ko    insmod this module before COMMAND (repeatable)
  --interactive, -i   give COMMAND (default: bash) the terminal; no timeout by default
  --timeout SECONDS   kill the VM after SECONDS (default VM_TIMEOUT or 900; 0 = never)
  --log FILE          serial log (default VM_LOG or build/vm/serial.log)

environment: KERNEL KERNEL_DIR VM_CPUS (2) VM_MEM (2G) VM_TIMEOUT (900) VM_LOG
  VM_ACCEL (auto|kvm|tcg) VM_APPEND (extra kernel args) VM_ENV (names of variables to
  pass into the guest, besides SLABLAB_*, PYTEST_ADDOPTS, PYTHONDONTWRITEBYTECODE)
  VM_SPLAT_IGNORE (ERE: kernel lines not to count as splats)
  VM_SLAB_NOMERGE (1): 0 boots without slab_nomerge, as Debian boots (SLUB merges caches)
  VM_DEADLINE (epoch seconds): the rerun after TCG's int3 race ends by then, or is not made
  VM_WATCHDOG_LEAD (30): seconds before the timeout at which the guest dumps its blocked
  tasks (sysrq w) and the test named in the file SLABLAB_CURRENT_TEST into the serial log
  VM_PIN (0|auto|1; default 0): pin each vCPU thread to its own host cpu, from those
  vm.sh may run on (its affinity mask); auto: when there are enough, 1: or fail
  VM_ICOUNT (a shift, 1 to 7): deterministic TCG, the guest's clocks advance 2^shift ns
  per instruction, so its cycle counts count instructions; with VM_CPUS over 1 the kernel
  boots with maxcpus=1 and the guest's init brings the other cpus online before anything
  VM_KERNEL_CMDLINE (replaces the kernel's own CMDLINE from its env file, e.g. the
  debug kernel's acpi=ht)
  VM_CACHE_ROOT (loose) VM_CACHE_REPO (mmap): 9p cache modes; VM_PVH=0: boot the
  bzImage instead of the extracted vmlinux; VM_QEMU: the qemu binary

exit status: COMMAND's; 2 usage/host error, 121 guest setup failed (e.g. insmod),
  122 no exit status from the guest (crash), 124 timeout, 125 kernel splat in the log
EOF
}
die() { echo "vm: error: $*" >&2; exit 2; }
qesc() { printf '%s' "${1//,/,,}"; } # commas are doubled in qemu option values
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# ---------------------------------------------------------------- options
orig_args=("$@") # for the one boot retry (the verdict below)
kernel_dir=${KERNEL_DIR:-}
modules=()
interactive=0
timeout=${VM_TIMEOUT:-}
log=${VM_LOG:-$REPO/build/vm/serial.log}
cpus=${VM_CPUS:-2}
mem=${VM_MEM:-2G}
accel=${VM_ACCEL:-auto}
icount=${VM_ICOUNT:-}
pin=${VM_PIN:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel-dir | --module | --timeout | --log)
		[ $# -ge 2 ] || die "$1 needs an argument"
		case $1 in
		--kernel-dir) kernel_dir=$2 ;;
		--module) modules+=("$2") ;;
		--timeout) timeout=$2 ;;
		--log) log=$2 ;;
		esac
		shift 2 ;;
	--kernel-dir=*) kernel_dir=${1#*=}; shift ;;
	--module=*) modules+=("${1#*=}"); shift ;;
	--timeout=*) timeout=${1#*=}; shift ;;
	--log=*) log=${1#*=}; shift ;;
	-i | --interactive) interactive=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || [ $interactive = 1 ] || { usage >&2; exit 2; }
# Interactive sessions are for humans: no timeout unless one is asked for.
[ -n "$timeout" ] || { [ $interactive = 1 ] && timeout=0 || timeout=900; }
is_uint "$timeout" || die "timeout '$timeout' is not a number of seconds"
if [ -n "${VM_DEADLINE:-}" ]; then
	is_uint "$VM_DEADLINE" || die "VM_DEADLINE '$VM_DEADLINE' is not a time in seconds since the epoch"
	# the run ends by the deadline (make test's, for a run made again: the verdict below)
	left=$((VM_DEADLINE - $(date +%s)))
	[ "$left" -gt 0 ] || die "VM_DEADLINE is past"
	{ [ "$timeout" != 0 ] && [ "$timeout" -le "$left" ]; } || timeout=$left
fi
{ is_uint "$cpus" && [ "$cpus" -ge 1 ]; } || die "VM_CPUS '$cpus' is not a positive number"
[[ $mem =~ ^[0-9]+[MGmg]?$ ]] || die "VM_MEM '$mem' is not a size like 2G or 512M"
case $accel in auto | kvm | tcg) ;; *) die "VM_ACCEL '$accel' is not auto, kvm or tcg" ;; esac
if [ -n "$icount" ]; then
	# Measured with the 6.1 guest (docs/experiments.md, "Deterministic mode"): shift 0
	# hangs the boot; from 8 on, the guest's clock runs so fast against its work that its
	# soft-lockup watchdog fires during boot. shift=auto is not deterministic.
	{ is_uint "$icount" && [ "$icount" -ge 1 ] && [ "$icount" -le 7 ]; } ||
		die "VM_ICOUNT '$icount' is not a shift from 1 to 7"
	# With 2 vCPUs booted as usual, fixed shifts 1, 3, 4 and 6 hung at "Booting SMP
	# configuration" for 90-300 s (single-threaded TCG runs the vCPUs round-robin). Booted
	# with maxcpus=1 and the others brought online by scripts/vm/init (sysfs cpu hotplug),
	# 2 and 4 vCPUs come up in seconds (the append line below).
	[ "$accel" != kvm ] || die "VM_ICOUNT needs TCG (VM_ACCEL=kvm was asked for)"
	accel=tcg
fi
case $pin in 0 | auto | 1) ;; *) die "VM_PIN '$pin' is not 0, auto or 1" ;; esac
nomerge=${VM_SLAB_NOMERGE:-1}
case $nomerge in 0 | 1) ;; *) die "VM_SLAB_NOMERGE '$nomerge' is not 0 or 1" ;; esac
cache_root=${VM_CACHE_ROOT:-loose}
cache_repo=${VM_CACHE_REPO:-mmap}
# scripts/vm-pin.py decides (its plan() is the policy) and, once qemu runs, pins through
# qemu's QMP socket. Refused here, before booting, when VM_PIN=1 cannot be honoured.
# Single-threaded TCG (-icount) has one thread for all vCPUs.
pin_threads=$cpus
[ -z "$icount" ] || pin_threads=1
if [ "$pin" != 0 ]; then
	/usr/bin/python3 "$REPO/scripts/vm-pin.py" plan --policy "$pin" --vcpus "$pin_threads" ||
		exit 2
fi
command -v "$QEMU" >/dev/null || die "$QEMU not found (apt-get install qemu-system-x86)"

if [ -z "$kernel_dir" ]; then
	kernel_dir=$("$REPO/scripts/kernel.sh" "${KERNEL:-6.1}") || die "scripts/kernel.sh failed"
fi
[ -f "$kernel_dir/env" ] || die "$kernel_dir/env missing: not a scripts/kernel.sh directory"
KREL=$(sed -n 's/^KREL=//p' "$kernel_dir/env")
VMLINUZ=$(sed -n 's/^VMLINUZ=//p' "$kernel_dir/env")
[ -f "$VMLINUZ" ] || die "kernel image '$VMLINUZ' missing"
# Optional, from kernels built here (scripts/build-kernel.sh): the uncompressed ELF
# image, and kernel arguments this kernel needs under the runner.
VMLINUX=$(sed -n 's/^VMLINUX=//p' "$kernel_dir/env")
KERNEL_PVH=$(sed -n 's/^PVH=//p' "$kernel_dir/env") # 0: this kernel cannot boot by PVH
KERNEL_CMDLINE=$(sed -n "s/^CMDLINE=//p" "$kernel_dir/env" | tr -d "'\"")
KERNEL_CMDLINE=${VM_KERNEL_CMDLINE-$KERNEL_CMDLINE} # set (even empty): replaces it

mod_paths=()
for m in ${modules[@]+"${modules[@]}"}; do
	[ -f "$m" ] || die "module '$m' not found"
	p=$(realpath -e "$m")
	[[ $p != *$'\n'* ]] || die "module path with a newline: '$m'"
	mod_paths+=("$p")
done

# The guest starts in the caller's directory when it lies in the repository (the only
# writable share), else in the repository root.
cwd=$(pwd -P)
case "$cwd/" in "$REPO"/*) ;; *) cwd=$REPO ;; esac

case $log in /*) ;; *) log=$(pwd -P)/$log ;; esac
mkdir -p "$(dirname "$log")"
# Concurrent runs must not share a log: the splat scan would blame one run for the
# other's kernel. The lock lives as long as this script and its children.
exec {logfd}>>"$log"
if ! flock -n "$logfd"; then
	exec {logfd}>&-
	echo "vm: $log is in use by another run; this one logs to ${log%.log}.$$.log" >&2
	log=${log%.log}.$$.log
	exec {logfd}>>"$log"
	flock -n "$logfd" || die "cannot lock $log"
fi

initramfs=$("$REPO/scripts/vm/initramfs.sh" "$kernel_dir" "$REPO/build/vm") ||
	die "building the initramfs failed"
# The uncompressed vmlinux, booted through PVH, saves the 2.5-4.5 s that the bzImage
# decompressor takes under TCG (VM_PVH=0: boot the bzImage as it is).
boot_image=$VMLINUZ
if [ "${VM_PVH:-${KERNEL_PVH:-1}}" != 0 ]; then
	if [ -n "$VMLINUX" ] && [ -f "$VMLINUX" ]; then
		boot_image=$VMLINUX
	else
		boot_image=$("$REPO/scripts/vm/vmlinux.sh" "$VMLINUZ" "$REPO/build/vm") ||
			boot_image=$VMLINUZ
	fi
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/slablab-vm.XXXXXX")
readers=()
qpid=
pinner=
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$pinner" ] || kill "$pinner" 2>/dev/null || true
	for p in ${readers[@]+"${readers[@]}"}; do kill "$p" 2>/dev/null || true; done
	rm -rf "$run"
}
trap cleanup EXIT

# ---------------------------------------------------------------- accelerator
# KVM only when a tiny boot under KVM actually reaches the kernel (nested setups can
# have a /dev/kvm on which qemu hangs). The verdict is cached per qemu/host/guest kernel.
kvm_works() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local key f verdict
	key="$("$QEMU" --version | head -1) | host $(uname -r) | guest $KREL"
	f=$CACHE/kvm-probe
	verdict=$(awk -F'\t' -v k="$key" '$1 == k { v = $2 } END { print v }' "$f" 2>/dev/null || true)
	if [ -z "$verdict" ]; then
		echo "vm: probing KVM (result cached in $f)" >&2
		verdict=no
		# No initrd and a missing root device: a working KVM panics within ~2 s.
		if timeout -k 2 10 "$QEMU" -accel kvm -cpu host -nodefaults -no-user-config \
			-display none -no-reboot -m 256 -kernel "$VMLINUZ" \
			-append "console=ttyS0 panic=-1 root=/dev/vm-kvm-probe" \
			-serial "file:$(qesc "$run/kvm-probe.log")" </dev/null >/dev/null 2>&1 &&
			grep -q 'Kernel panic' "$run/kvm-probe.log"; then
			verdict=yes
		fi
		mkdir -p "$CACHE"
		printf '%s\t%s\n' "$key" "$verdict" >>"$f"
	fi
	[ "$verdict" = yes ]
}
case $accel in
auto) if kvm_works; then accel=kvm; else accel=tcg; fi ;;
kvm) kvm_works || die "VM_ACCEL=kvm but KVM does not work here" ;;
esac
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	# shellcheck disable=SC2054 # commas belong to the qemu option
	accel_args=(-accel tcg,thread=multi -cpu max)
	if [ -n "$icount" ]; then
		# -icount: the guest's clocks (TSC, HPET, PIT) advance by 2^shift ns per executed
		# instruction, so get_cycles() counts instructions. It needs single-threaded TCG:
		# one host thread runs every vCPU in turn. sleep=off: an idle guest's clock jumps
		# to its next timer instead of waiting for host time; align=off: no throttling
		# of the guest to the host's clock.
		# shellcheck disable=SC2054 # commas belong to the qemu options
		accel_args=(-accel tcg,thread=single -cpu max -icount "shift=$icount,sleep=off,align=off")
	fi
fi

# ---------------------------------------------------------------- per-run config
# Appended to the cached initramfs as a second cpio archive (the kernel unpacks both):
# /vm/conf is sourced by /init, /vm/cmd is the bash script run in the host root,
# /vm/modules lists the --module paths.
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; } # quote for busybox ash
mkdir -p "$run/cfg/vm"
# The guest's watchdog (scripts/vm/init): VM_WATCHDOG_LEAD (30) s before this run's
# timeout (when the timeout is over twice that), by the host's
# clock (the guest's comes from the RTC, i.e. the host's), it dumps the blocked tasks
# (sysrq w) and names the test in SLABLAB_CURRENT_TEST, so that a hang leaves in the
# serial log what hung, not only the time-out.
watchdog_at=
lead=${VM_WATCHDOG_LEAD:-30}
is_uint "$lead" || die "VM_WATCHDOG_LEAD '$lead' is not a number of seconds"
if [ $interactive = 0 ] && [ "$timeout" -gt $((2 * lead)) ]; then
	watchdog_at=$(($(date +%s) + timeout - lead))
fi
# Under -icount with more than one vCPU the kernel boots one cpu (maxcpus=1, below) and
# /init brings the rest online through sysfs before it runs anything (0: nothing to do).
online_cpus=0
[ -z "$icount" ] || [ "$cpus" = 1 ] || online_cpus=$cpus
rows=24 cols=80
if [ $interactive = 1 ] && [ -t 0 ]; then
	read -r rows cols < <(stty size 2>/dev/null || echo 24 80)
	[ "${rows:-0}" -gt 0 ] && [ "${cols:-0}" -gt 0 ] || rows=24 cols=80
fi
cat >"$run/cfg/vm/conf" <<EOF
VM_REPO=$(sq "$REPO")
VM_INTERACTIVE=$interactive
VM_ROWS=$rows
VM_COLS=$cols
VM_MSIZE=512000
VM_CACHE_ROOT=$(sq "$cache_root")
VM_CACHE_REPO=$(sq "$cache_repo")
VM_WATCHDOG_AT=$watchdog_at
VM_CURRENT_TEST=$(sq "${SLABLAB_CURRENT_TEST:-}")
VM_ONLINE_CPUS=$online_cpus
EOF
printf '%s\n' ${mod_paths[@]+"${mod_paths[@]}"} >"$run/cfg/vm/modules"

if [ $interactive = 1 ]; then term=${TERM:-linux}
elif [ -t 1 ]; then term=${TERM:-dumb}
else term=dumb
fi
{
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/tmp/home USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8"
	echo "export TERM=$(printf %q "$term")"
	# Variables passed through: VM_ENV names, a few for python/pytest, and SLABLAB_*.
	for v in ${VM_ENV:-} PYTEST_ADDOPTS PYTHONDONTWRITEBYTECODE $(compgen -v SLABLAB_ || true); do
		[[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "VM_ENV: '$v' is not a variable name"
		[ -z "${!v+set}" ] || echo "export $v=$(printf %q "${!v}")"
	done
	# The clock mode, for the rows that measurements write (SLABLAB_* of the host's
	# environment pass through above; this one always says what this VM does).
	if [ -n "$icount" ]; then echo "export SLABLAB_VM_ICOUNT=$icount"
	else echo "unset SLABLAB_VM_ICOUNT"
	fi
	echo "export SLABLAB_VM_CPUS=$cpus"
	# shellcheck disable=SC2016 # expanded in the guest
	echo 'mkdir -p "$HOME"'
	echo "cd -- $(printf %q "$cwd") || exit 126"
	if [ $# -eq 0 ]; then
		echo "export PS1='(vm) \\w\\\$ '"
		echo "exec /bin/bash --norc -i"
	elif [ $# -eq 1 ]; then
		echo "exec /bin/sh -c $(printf %q "$1")"
	else
		printf 'exec --'
		printf ' %q' "$@"
		echo
	fi
} >"$run/cfg/vm/cmd"
(cd "$run/cfg" && find vm | cpio --quiet -o -H newc -R 0:0) >"$run/cfg.cpio"
cat "$initramfs" "$run/cfg.cpio" >"$run/initrd"

# ---------------------------------------------------------------- qemu
# slab_nomerge: every cache keeps its own slabs, so bugs are not masked by merging
#   (VM_SLAB_NOMERGE=0: without it, as Debian boots; make test runs a stage so).
# ignore_loglevel: the serial log gets every printk, KERN_DEBUG included.
# oops=panic panic=-1: an Oops resets the VM at once (qemu -no-reboot then exits)
#   instead of leaving a wedged guest to run into the timeout. No panic_on_warn: a
#   WARN lets the run finish and is then reported from the log.
# No acpi=off: without ACPI tables the kernel brings up only one cpu (measured: nproc
#   says 1 under -smp 2), and slablab's per-cpu behaviour is the point of the tests.
#   -no-reboot turns a guest reset (panic) into qemu's exit.
append="console=ttyS0 loglevel=8 ignore_loglevel printk.time=1 printk.devkmsg=on"
[ "$nomerge" = 0 ] || append+=" slab_nomerge"
append+=" oops=panic panic=-1 ${KERNEL_CMDLINE:+$KERNEL_CMDLINE }${VM_APPEND:-}"
if [ "$online_cpus" != 0 ]; then
	# A cpu limit of the caller's would fight the one cpu booted here.
	case " ${KERNEL_CMDLINE:-} ${VM_APPEND:-} " in *" maxcpus="* | *" nr_cpus="* | *" nosmp "*)
		die "VM_ICOUNT with VM_CPUS=$cpus boots with maxcpus=1 and onlines the rest: leave maxcpus=, nr_cpus= and nosmp out of the kernel arguments" ;;
	esac
	append+=" maxcpus=1"
fi

mkfifo "$run/ttyS0.in" "$run/ttyS0.out" "$run/ttyS1.in" "$run/ttyS1.out" "$run/out"
out_chardev="stdio,id=out,signal=off"
if [ $interactive = 1 ]; then
	out_chardev+=",mux=on" # mux: Ctrl-a x quits qemu from the terminal
else
	out_chardev+=",logfile=$(qesc "$run/out"),logappend=on"
fi
# shellcheck disable=SC2054 # commas belong to the qemu options
qargs=(
	-nodefaults -no-user-config -display none -no-reboot
	-machine pc "${accel_args[@]}" -smp "$cpus" -m "$mem"
	-kernel "$boot_image" -initrd "$run/initrd" -append "$append"
	# ttyS0: kernel console. ttyS1: status lines. Both through fifos read below.
	-chardev "pipe,id=con,path=$(qesc "$run/ttyS0")" -serial chardev:con
	-chardev "pipe,id=status,path=$(qesc "$run/ttyS1")" -serial chardev:status
	# hvc0: the command's stdio, straight to our stdout.
	-device virtio-serial-pci -chardev "$out_chardev" -device virtconsole,chardev=out
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$(qesc "$REPO"),mount_tag=repo,security_model=none,multidevs=remap"
	-device virtio-rng-pci
	# thread names ("CPU 1/TCG", "CPU 1/KVM") in ps, top and /proc/PID/task/TID/comm
	-name "slablab-vm,debug-threads=on"
)
# QMP, for scripts/vm-pin.py's query-cpus-fast (the vCPUs' thread ids)
[ "$pin" = 0 ] || qargs+=(-qmp "unix:$(qesc "$run/qmp.sock"),server=on,wait=off")

# Readers: whole lines only, each appended with one write(), so that kernel lines and
# the command's (prefixed) lines interleave in the log without tearing each other.
# mawk needs -W interactive to pass lines on as they come.
awk_live=()
awk -W version 2>&1 | grep -q mawk && awk_live=(-W interactive)
: >"$log" # truncate (the lock stays on the open file)
awk "${awk_live[@]}" '{ sub(/\r$/, ""); printf "%s", $0 "\n"; fflush() }' \
	<"$run/ttyS0.out" >>"$log" &
readers+=($!)
if [ $interactive = 0 ]; then
	OUT_PREFIX=$OUT_PREFIX awk "${awk_live[@]}" \
		'{ sub(/\r$/, ""); printf "%s", ENVIRON["OUT_PREFIX"] $0 "\n"; fflush() }' \
		<"$run/out" >>"$log" &
	readers+=($!)
fi
# Status lines, stamped with the host time they arrived at (for the boot time).
while IFS= read -r line; do
	printf '%s %s\n' "$EPOCHREALTIME" "${line%$'\r'}"
done <"$run/ttyS1.out" >"$run/status" &
readers+=($!)

mode=$accel
[ -z "$icount" ] || mode+=" icount shift=$icount"
[ "$nomerge" = 1 ] || mode+=" slab merging"
echo "vm: booting $KREL ($mode, $cpus cpus, $mem) for: ${*:-an interactive shell}" >&2
echo "vm: kernel log: $log" >&2
# Pins the vCPU threads once qemu's QMP socket is up (the guest is booting by then) and
# says what it did on stderr, failures included; with VM_PIN=1 (batch) a failure kills
# the guest. Its exit status: 0 pinned, 3 not pinned on purpose, else failed.
start_pinner() { # PID: qemu (or the timeout running it): stop waiting when it is gone
	[ "$pin" != 0 ] || return 0
	local kill=()
	[ "$pin" != 1 ] || [ $interactive = 1 ] || kill=(--kill-on-failure "$1")
	/usr/bin/python3 "$REPO/scripts/vm-pin.py" apply --policy "$pin" \
		--qmp "$run/qmp.sock" --pid "$1" "${kill[@]}" &
	pinner=$!
}
t0=$EPOCHREALTIME
qrc=0 interrupted=
if [ $interactive = 1 ]; then
	start_pinner $$
	if [ "$timeout" -gt 0 ]; then
		timeout --foreground -k 10 "$timeout" "$QEMU" "${qargs[@]}" || qrc=$?
	else
		"$QEMU" "${qargs[@]}" || qrc=$?
	fi
else
	# --foreground keeps qemu in our process group: ^C reaches it. Background + wait so
	# that our INT/TERM trap runs at once rather than after qemu exits.
	timeout --foreground -k 10 "$timeout" "$QEMU" "${qargs[@]}" </dev/null &
	qpid=$!
	start_pinner "$qpid"
	for sig in HUP:129 INT:130 TERM:143; do
		# shellcheck disable=SC2064 # the exit status is fixed now, per signal
		trap "interrupted=${sig#*:}; kill -TERM \$qpid 2>/dev/null || true" "${sig%:*}"
	done
	wait "$qpid" || qrc=$?
	while kill -0 "$qpid" 2>/dev/null; do qrc=0; wait "$qpid" || qrc=$?; done
	qpid=
	trap - HUP INT TERM
fi
t_end=$EPOCHREALTIME
pin_rc=-
if [ -n "$pinner" ]; then
	# Batch: qemu is gone, so the pinner is done or about to be. Interactive: it may still
	# wait for a socket that never opened.
	[ $interactive = 0 ] || kill "$pinner" 2>/dev/null || true
	pin_rc=0
	wait "$pinner" || pin_rc=$?
	pinner=
fi

# qemu is gone; its fifo ends are closed, so readers see EOF once drained. A reader that
# never got past open() (qemu failed early) is released by a brief open of the fifo.
for _ in $(seq 50); do
	alive=0
	for p in "${readers[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
	[ $alive = 1 ] || break
	for f in ttyS0.out ttyS1.out out; do exec {fd}<>"$run/$f"; exec {fd}>&-; done
	sleep 0.1
done
for p in "${readers[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
readers=()
if [ -n "$interrupted" ]; then
	echo "vm: interrupted, guest killed (kernel log: $log)" >&2
	exit "$interrupted"
fi
if [ "$pin" = 1 ] && [ $interactive = 0 ] && [ "$pin_rc" != 0 ]; then
	echo "vm: VM_PIN=1 and the vCPU threads could not be pinned: guest killed" >&2
	exit 2
fi

# ---------------------------------------------------------------- verdict
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(awk '$2 == "vm-start" { print $1; exit }' "$run/status")
exit_line=$(awk '$2 == "vm-exit" { print $3; exit }' "$run/status")
setup_err=$(awk '$2 == "vm-setup-failed" { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$run/status")
t_exit=$(awk '$2 == "vm-exit" { print $1; exit }' "$run/status")

tail_log() {
	echo "vm: last 40 lines of $log:" >&2
	tail -n 40 "$log" | sed 's/^/  | /' >&2
}

# Splats: matched only on lines that carry a printk timestamp, i.e. lines of the kernel
# console; the command's own output is prefixed in the log and never matches.
SPLAT_RE='(^|[^A-Za-z])Oops([^A-Za-z]|$)|BUG:|kernel BUG at|BUG [^ ]+ \(.*\): '
SPLAT_RE+='|^\[ *[0-9]+\.[0-9]+\]( \[ *[CT][0-9]+\])? WARNING: |KASAN:|UBSAN:'
SPLAT_RE+='|possible circular locking|inconsistent lock state|possible recursive locking'
SPLAT_RE+='|suspicious RCU usage|bad unlock balance|kmemleak: .*suspected memory leak'
SPLAT_RE+='|unreferenced object 0x|general protection fault|Kernel panic'
# kmemleak's complaints about its callers (mm/kmemleak.c kmemleak_warn()/_stop()): an
# object registered twice, a lookup inside one, an unknown one made black or grey, or
# metadata it could not get (which stops it for the whole run)
SPLAT_RE+='|kmemleak: (Cannot insert|Found object by alias|.*unknown object|Cannot allocate a kmemleak_object|Kernel memory leak detector disabled)'
SPLAT_RE+='|self-detected stall|detected stalls? on CPU|soft lockup|hard LOCKUP'
SPLAT_RE+='|blocked for more than [0-9]+ seconds|hung_task'
# Every x86 die() header ("divide error: 0000 [#1] PREEMPT SMP", "invalid opcode: ...").
# No {4}: Debian 12's mawk (1.3.4 20200120) reads an interval as the characters.
SPLAT_RE+='|: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]+\]'
splats() {
	SPLAT_RE=$SPLAT_RE IGNORE=${VM_SPLAT_IGNORE:-} awk '
	/^\[ *[0-9]+\.[0-9]+\]/ {
		k[++n] = $0
		if ($0 ~ ENVIRON["SPLAT_RE"] && (ENVIRON["IGNORE"] == "" || $0 !~ ENVIRON["IGNORE"])) {
			hits++
			for (i = n - 3; i <= n + 30; i++) show[i] = 1
		}
	}
	END {
		if (!hits) exit 1
		printf "vm: %d kernel splat line(s) in the log; with context:\n", hits
		last = 0; printed = 0
		for (i = 1; i <= n && printed < 400; i++) {
			if (!show[i]) continue
			if (last && i != last + 1) print "  | ..."
			print "  | " k[i]; last = i; printed++
		}
	}' "$log"
}

# qemu's TCG and the kernel's text patching (docs/vm.md): a vCPU running a jump-label
# site while another vCPU patches it can trap on the int3 that text_poke_bp() put there
# after the patching is over, and the kernel dies of an "Oops: int3". Measured at boot
# (retried above, before init) and after init while tracepoints were switched on
# (issue 40: a 7.3 smoke stage, a torture run). int3_race prints what it found and
# succeeds when the log holds exactly that: one oops, an int3 (die() header "int3:",
# "Oops: int3:" from 6.9) whose RIP is in core text (no [module]) and whose Code: line
# shows a jump-label instruction at the trap (the byte before <..>: a jmp e9 or eb, the
# 5-byte NOP 0f 1f 44 00 00, the 2-byte NOP 66 90, or the int3 cc itself), and no
# other splat line but the panic it makes (oops=panic). Anything else fails the run.
int3_race() {
	SPLAT_RE=$SPLAT_RE IGNORE=${VM_SPLAT_IGNORE:-} awk '
	function no(why) { print why; bad = 1; exit 1 }
	/^\[ *[0-9]+\.[0-9]+\]/ {
		if ($0 ~ ENVIRON["SPLAT_RE"] && (ENVIRON["IGNORE"] == "" || $0 !~ ENVIRON["IGNORE"])) {
			if (!hdr && $0 ~ /\] (Oops: )?int3: [0-9a-f]+ \[#1\]/) { hdr = 1; next }
			if (hdr && $0 ~ /Kernel panic - not syncing: Fatal exception/) next
			no("another splat: " $0)
		}
		if (!hdr) next
		if (rip == "" && match($0, /RIP: [0-9a-f]+:[^ ]+/)) {
			rip = substr($0, RSTART + 5, RLENGTH - 5)
			sub(/^[0-9a-f]+:/, "", rip)
			if ($0 ~ /RIP: [0-9a-f]+:[^ ]+ +\[/) no("int3 in a module: " $0)
		}
		if (code == "" && match($0, /Code: .*/)) {
			code = substr($0, RSTART + 6)
			n = split(code, b, " ")
			for (i = 2; i <= n && substr(b[i], 1, 1) != "<"; i++)
				;
			if (i > n) no("no trapping byte in: " $0)
			at = b[i - 1]; cur = b[i]; gsub(/[<>]/, "", cur)
			if (at == "cc" || at == "e9" || at == "eb")
				site = at
			else if (at == "0f" && cur == "1f" && b[i + 1] == "44" && b[i + 2] == "00" && b[i + 3] == "00")
				site = "0f 1f 44 00 00"
			else if (at == "66" && cur == "90")
				site = "66 90"
			else
				no("not a jump-label instruction at the trap (" at " <" cur ">): " $0)
		}
	}
	END {
		if (bad) exit 1
		if (!hdr) { print "no int3 oops"; exit 1 }
		if (rip == "") { print "no RIP line after the int3 oops"; exit 1 }
		if (site == "") { print "no Code: line after the int3 oops"; exit 1 }
		printf "int3 at %s, %s there\n", rip, site
	}' "$1"
}

splat_report=$(splats || true)
rc=
if [ $qrc = 124 ] || { [ $qrc = 137 ] && [ "$timeout" -gt 0 ] &&
	awk -v a="$t0" -v b="$t_end" -v t="$timeout" 'BEGIN { exit !(b - a >= t) }'; }; then
	echo "vm: guest timed out after $timeout s" >&2
	tail_log
	rc=124
elif [ -n "$setup_err" ]; then
	echo "vm: guest setup failed: $setup_err" >&2
	echo "vm: last kernel messages:" >&2
	awk -v p="$OUT_PREFIX" 'index($0, p) != 1' "$log" | tail -n 15 | sed 's/^/  | /' >&2
	rc=121
elif ! is_uint "${exit_line:-x}" && [ $interactive = 0 ] && [ -z "${VM_BOOT_RETRIED:-}" ] &&
	! grep -q ' vm-init$' "$run/status"; then
	# The kernel died before its init ran: before any module was loaded, so nothing of
	# ours ran. Measured once in ~7 boots of Debian's 6.12 under TCG (an Oops: int3 in
	# sched_clock_idle_wakeup_event at 1.7 s: text patching racing a vCPU in qemu's
	# cross-modifying-code handling). One more boot; a second crash is reported.
	echo "vm: the kernel crashed while booting, before its init ran (nothing of slablab" \
		"was loaded; qemu exit status $qrc): booting once more; the crashed boot's log:" \
		"$log.boot-crash" >&2
	cp "$log" "$log.boot-crash"
	cleanup
	trap - EXIT
	exec {logfd}>&- # the log's lock: the next boot takes it again
	VM_BOOT_RETRIED=1 exec "$REPO/scripts/vm.sh" "${orig_args[@]}"
elif ! is_uint "${exit_line:-x}"; then
	echo "vm: the guest never reported an exit status (qemu exit status $qrc): crashed?" >&2
	[ -n "$splat_report" ] || tail_log # a splat report below shows the crash itself
	exit_line=
	rc=122
else
	rc=$exit_line
fi
cmd_rc=${exit_line:--}
if [ -n "$splat_report" ] && [ "$rc" != 124 ] && [ $interactive = 0 ] &&
	race=$(int3_race "$log"); then
	left=
	[ -z "${VM_DEADLINE:-}" ] || left=$((VM_DEADLINE - $(date +%s)))
	if [ -n "${VM_INT3_RETRIED:-}" ]; then
		echo "vm: TCG's int3 race again ($race), in the run made again for it: failing" >&2
	elif [ -n "$left" ] && [ "$left" -lt 120 ]; then
		echo "vm: TCG's int3 race ($race), but $left s are left before VM_DEADLINE: failing" >&2
	else
		printf '%s\n' "$splat_report" >&2
		{
			echo "vm: ======================================================================"
			echo "vm: RUNNING THE COMMAND AGAIN: the kernel died of qemu's TCG text-patching"
			echo "vm: race ($race; docs/vm.md), the only splat in the log;"
			echo "vm: this run's log is kept as $log.int3-race. A second one fails the run."
			echo "vm: ======================================================================"
		} >&2
		cp "$log" "$log.int3-race"
		cleanup
		trap - EXIT
		exec {logfd}>&- # the log's lock: the next run takes it again
		VM_INT3_RETRIED=1 exec "$REPO/scripts/vm.sh" "${orig_args[@]}"
	fi
fi
if [ -n "$splat_report" ]; then
	printf '%s\n' "$splat_report" >&2
	if [ "$rc" != 124 ]; then
		echo "vm: failing the run: kernel splat (full log: $log)" >&2
		rc=125
	fi
fi

boot=- cmd=-
[ -z "$t_start" ] || boot=$(elapsed "$t0" "$t_start")s
[ -z "$t_start" ] || [ -z "$t_exit" ] || cmd=$(elapsed "$t_start" "$t_exit")s
verdict="exit $cmd_rc"
[ "$rc" = "$cmd_rc" ] || verdict+=" (vm.sh exits $rc)"
pinned=
[ "$pin_rc" != 0 ] || pinned=", pinned"
echo "vm: $KREL $mode $cpus cpus$pinned: boot $boot, command $cmd, total $(elapsed "$t0" "$t_end")s, $verdict" >&2
exit "$rc"
