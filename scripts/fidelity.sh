#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make fidelity: every design against the kernel allocator it models, on the same work
# (docs/fidelity.md). For each kernel of FIDELITY_KERNELS it fetches or builds the kernel
# (scripts/kernel.sh: the fidelity kernels are built once from Debian's source and cached;
# their one-time build cost is printed), builds the module for it, boots the VM and runs
# `python3 -m slablab fidelity` there: the geometry table, the behaviour table (storms and
# replays of two traces recorded once on the stock kernel) and, in a second boot under
# VM_ICOUNT=1, the cost table. Tables go to build/fidelity/KERNEL.txt (and .json) and are
# printed at the end. The module is left built for the stock kernel.
#
#   scripts/fidelity.sh                     every pair
#   FIDELITY_KERNELS="6.1-slab" scripts/fidelity.sh
#
# FIDELITY_KERNELS  default "6.1 6.1-slub-stats 7.3 7.3-slub-stats 6.1-slab 6.1-slob"
# FIDELITY_REPEAT   paired repeats per behaviour point (default 5, after one warm-up pair)
# FIDELITY_COST=0   no VM_ICOUNT boots (the cost table)
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PY=$BUILD/venv/bin/python
OUT=$BUILD/fidelity
KERNELS=${FIDELITY_KERNELS:-6.1 6.1-slub-stats 7.3 7.3-slub-stats 6.1-slab 6.1-slob}
REPEAT=${FIDELITY_REPEAT:-5}
COST=${FIDELITY_COST:-1}
log() { echo "fidelity: $*" >&2; }
die() { echo "fidelity: error: $*" >&2; exit 1; }
[ -x "$PY" ] || die "no $PY: run make first"
mkdir -p "$OUT"
t_all=$(date +%s)

build_module() { # KERNEL
	local dir
	dir=$("$REPO/scripts/kernel.sh" "$1") || die "no kernel $1 (the message above says why)"
	# (make module, not module-build.sh: it cleans the objects of another kernel's build,
	# which Kbuild would otherwise link against this one)
	make -C "$REPO" module KERNEL="$1" >"$OUT/module-$1.log" 2>&1 ||
		{ tail -n 20 "$OUT/module-$1.log" >&2; die "the module does not build for $1 (log: $OUT/module-$1.log)"; }
	echo "$dir"
}

# ---- the traces, recorded once on the stock kernel (the same trace for every pair)
traces=("$BUILD/hackbench.trace" "$BUILD/bootlike.trace")
if [ ! -s "${traces[0]}" ] || [ ! -s "${traces[1]}" ]; then
	log "recording the traces on the stock kernel (hackbench, boot-like)"
	build_module 6.1 >/dev/null
	KERNEL=6.1 "$REPO/scripts/vm.sh" --module "$REPO/module/slablab.ko" -- bash -c "
		set -e
		[ -s '${traces[0]}' ] || '$REPO/scripts/record-hackbench.sh' '${traces[0]}'
		[ -s '${traces[1]}' ] || '$REPO/scripts/record-bootlike.sh' '${traces[1]}'" >&2 ||
		die "recording the traces failed"
fi
trace_args=()
for t in "${traces[@]}"; do trace_args+=(--trace "$t"); done

# ---- each kernel
summary=()
for k in $KERNELS; do
	t0=$(date +%s)
	log "== $k"
	dir=$(build_module "$k")
	built=""
	[ ! -f "$dir/build.time" ] || built=" (built once here: $(cat "$dir/build.time"))"
	krel=$(sed -n 's/^KREL=//p' "$dir/env")
	KERNEL=$k VM_LOG="$BUILD/vm/serial-fidelity-$k.log" "$REPO/scripts/vm.sh" \
		--module "$REPO/module/slablab.ko" -- "$PY" -m slablab fidelity \
		--repeat "$REPEAT" "${trace_args[@]}" --json "$OUT/$k.json" >"$OUT/$k.txt" ||
		die "the fidelity run on $k failed (serial log: $BUILD/vm/serial-fidelity-$k.log)"
	if [ "$COST" = 1 ]; then
		KERNEL=$k VM_ICOUNT=1 VM_CPUS=1 VM_ENV="SLABLAB_ICOUNT" SLABLAB_ICOUNT=1 \
			VM_LOG="$BUILD/vm/serial-fidelity-$k-icount.log" "$REPO/scripts/vm.sh" \
			--module "$REPO/module/slablab.ko" -- "$PY" -m slablab fidelity --part cost \
			--json "$OUT/$k-cost.json" >>"$OUT/$k.txt" ||
			die "the cost run on $k failed (serial log: $BUILD/vm/serial-fidelity-$k-icount.log)"
	fi
	summary+=("$k ($krel): $(grep '^fidelity summary: ' "$OUT/$k.txt" | head -1 | cut -d' ' -f3-)$built, $(($(date +%s) - t0)) s")
done

for k in $KERNELS; do
	echo
	echo "#### $k"
	grep -v '^fidelity summary: ' "$OUT/$k.txt"
done
echo
for s in "${summary[@]}"; do echo "fidelity: $s"; done
echo "fidelity: tables in $OUT/; $(($(date +%s) - t_all)) s in all"
build_module 6.1 >/dev/null
