#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own YNL cli driving slablab with nothing but uapi/slablab.yaml, run inside
# the test VM by `make ynl-demo` (docs/netlink.md). Every command is printed before it
# runs; copy them to a shell on a machine with slablab loaded.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$REPO/scripts/ynl.sh")"
SPEC=$REPO/uapi/slablab.yaml
schema=(--schema "$YNL_SCHEMA")
ynl() {
	# the command as one would type it: JSON in single quotes
	# shellcheck disable=SC2016 # $YNL_CLI is printed as such
	printf '$ python3 $YNL_CLI --spec uapi/slablab.yaml %s' "${schema[*]/#$YNL_SCHEMA/\$YNL_SCHEMA}"
	for a in "$@"; do
		case $a in
		*\ * | *\{* | *\"*) printf " '%s'" "$a" ;;
		*) printf ' %s' "$a" ;;
		esac
	done
	echo
	/usr/bin/python3 "$YNL_CLI" --spec "$SPEC" "${schema[@]}" "$@"
	echo
	schema=(--no-schema) # validated once; each validation costs seconds under TCG
}

ynl --do get-status
ynl --do cache-new --json '{"cache": {"name": "ynl-demo", "size": 256, "cpu-partial": 30}}' \
	--output-json
ynl --do obj-alloc --json '{"cache": {"name": "ynl-demo"}, "count": 1000}'
ynl --do cache-set --json '{"cache": {"name": "ynl-demo", "min-partial": 2, "fastpath": "irqoff"}}' \
	--output-json
ynl --dump cache-get --output-json
ynl --do storm-start --json \
	'{"storm": {"target": "slablab", "pattern": "churn", "cache": "ynl-demo", "ops": 20000}}'
while ! /usr/bin/python3 "$YNL_CLI" --spec "$SPEC" --no-schema --do storm-get --output-json |
	grep -qv '"state": "running"'; do
	sleep 1
done
ynl --do storm-get
ynl --do cache-shrink --json '{"cache": {"name": "ynl-demo"}}' --output-json
ynl --do cache-validate --json '{"cache": {"name": "ynl-demo"}}' --output-json
ynl --do cache-del --json '{"cache": {"name": "ynl-demo"}}'
