#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed experiments (docs/experiments.md), run inside the test VM by `make experiments`:
# each prints its seed's table with the seed's published figures beside ours and a verdict
# on the shape, and writes build/experiments/<NAME>/{runs.csv,table.txt,NAME.png,NAME.svg}.
#   EXPERIMENTS       which (default: all; e.g. "seed-002 seed-004")
#   EXPERIMENTS_FULL  1: the seeds' sizes (e.g. 50 runs; hours under TCG)
#   EXPERIMENTS_REPEAT runs of every point (default: each experiment's own)
#   EXPERIMENTS_WARMUP repeats run first and left out of the tables (default 1)
#   EXPERIMENTS_ORDER_SEED the seed of the variants' random order (default: a random one,
#                     printed at the start of each experiment)
#   EXPERIMENTS_OUT   output directory (default build/experiments)
#   EXPERIMENTS_PUBLISH 1: write the run to a folder of its own under the output directory,
#                     <UTC time>-<commit>/, with RESULTS.md (command, commit, kernel, VM
#                     shape, every table); e.g. with EXPERIMENTS_FULL=1 for a full run
#   SLABLAB_TBENCH_BOOTS the folder of seed-004's live tbench boots, which `make experiments`
#                     runs first from the host (one boot per sample: python -m slablab
#                     experiment seed-004 --boots); seed-004 takes them into its folder
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SLABLAB_BUILD:-$REPO/build}
PY=$BUILD/venv/bin/python
# seed-003's replay row records scripts/record-bootlike.sh from here
export SLABLAB_REPO=$REPO
# matplotlib's font cache survives the VM (building it costs a minute under TCG)
export MPLCONFIGDIR=${MPLCONFIGDIR:-$BUILD/mplconfig}
read -r -a names <<<"${EXPERIMENTS:-all}"
args=(--out "${EXPERIMENTS_OUT:-$REPO/build/experiments}")
if [[ ${EXPERIMENTS_FULL:-0} == 1 ]]; then
	args+=(--full)
fi
if [[ ${EXPERIMENTS_PUBLISH:-0} == 1 ]]; then
	args+=(--publish)
fi
if [[ -n ${EXPERIMENTS_REPEAT:-} ]]; then
	args+=(--repeat "$EXPERIMENTS_REPEAT")
fi
if [[ -n ${EXPERIMENTS_WARMUP:-} ]]; then
	args+=(--warmup "$EXPERIMENTS_WARMUP")
fi
if [[ -n ${EXPERIMENTS_ORDER_SEED:-} ]]; then
	args+=(--order-seed "$EXPERIMENTS_ORDER_SEED")
fi
exec "$PY" -m slablab experiment "${names[@]}" "${args[@]}"
