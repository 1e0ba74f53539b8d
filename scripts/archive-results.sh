#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Keep a published experiments run (make experiments EXPERIMENTS_PUBLISH=1: a folder
# <UTC time>-<commit>/ under build/experiments/) in the tree, under docs/results/, where
# docs/experiments.md's tables point: RESULTS.md, every table, live row, plot (PNG) and
# JSON as written, the CSVs and the recorded traces (seed-002's hackbench.trace, 11 MB
# raw, ~1 MB as xz) compressed with xz and RESULTS.md's links to them renamed: a full
# run's runs.csv is megabytes; pandas.read_csv reads runs.csv.xz as it is, and
# `xz -dk hackbench.trace.xz` gives back the trace that slabctl replay reads.
# The SVG plots are left out (the PNGs show the same).
#   scripts/archive-results.sh build/experiments/2026-12-07T015005Z-143da6f [DEST]
# DEST defaults to docs/results/; an existing folder of the same name is not overwritten.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -lt 1 || $# -gt 2 ]]; then
	echo "usage: $0 PUBLISHED_RUN_DIR [DEST]" >&2
	exit 2
fi
src=${1%/}
dest_root=${2:-$REPO/docs/results}
if [[ ! -f $src/RESULTS.md ]]; then
	echo "$0: $src has no RESULTS.md: not a published run (make experiments EXPERIMENTS_PUBLISH=1 writes one)" >&2
	exit 1
fi
command -v xz >/dev/null || { echo "$0: no xz (Debian's xz-utils)" >&2; exit 1; }
dest=$dest_root/$(basename "$src")
if [[ -e $dest ]]; then
	echo "$0: $dest exists; remove it first to archive the run again" >&2
	exit 1
fi
mkdir -p "$dest_root"
tmp=$(mktemp -d "$dest_root/.archive.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/." "$tmp/"
find "$tmp" -name '*.svg' -delete
find "$tmp" \( -name '*.csv' -o -name '*.trace' \) -exec xz -9 {} +
# links: (seed-000/runs.csv) -> (seed-000/runs.csv.xz), the same for .trace; the SVGs'
# links go with them
sed -i -E -e 's/\(([^()]*)\.(csv|trace)\)/(\1.\2.xz)/g' \
	-e 's/\[[^]]*\.svg\]\([^)]*\.svg\)(, )?//g' \
	-e 's/\[([^]]*)\.(csv|trace)\]/[\1.\2.xz]/g' -e 's/, \|/ |/g' "$tmp/RESULTS.md"
mv "$tmp" "$dest"
trap - EXIT
echo "archived $src -> $dest ($(du -sh "$dest" | cut -f1))"
