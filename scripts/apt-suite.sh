# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by scripts/kernel.sh, scripts/ynl.sh and scripts/buildroot.sh: apt_suite SUITE
# PROG ARGS... runs apt-get or apt-cache against another Debian suite than the machine's
# (bookworm-backports, trixie-backports, sid) with its own sources list and state under
# $CACHE/apt/SUITE/, so the machine's apt setup is never changed.
#
# The mirror is the one the machine's apt already uses for Debian's archive
# (scripts/apt-mirror.py reads /etc/apt/sources.list and sources.list.d/; the
# SLABLAB_DEBIAN_MIRROR environment variable overrides it). apt_suite_refresh writes the
# suite's sources.list anew when the mirror changed (dropping the lists of the old one)
# and updates the lists when they are older than a day; call it, outside a command
# substitution (it fails with the parser's message), before the first apt_suite.
# APT_SUITE_MIRROR is the mirror in use, once apt_suite_refresh has run.
#
# SLABLAB_APT_ALLOW_EXPIRED=1 accepts Release files past their Valid-Until (a stale mirror).
# A backports suite is listed with its base suite (trixie-backports with trixie), so that
# apt resolves the packages backports depends on.

apt_suite_dir() { echo "${CACHE:?}/apt/$1"; }

# The sources lines for SUITE on MIRROR.
apt_suite_lines() {
	echo "deb $2 $1 main"
	case "$1" in *-backports) echo "deb $2 ${1%-backports} main" ;; esac
}

# Write SUITE's sources.list for the machine's Debian mirror, if it says something else.
apt_suite_sources() {
	local dir src lines
	dir=$(apt_suite_dir "$1")
	src=$dir/sources.list
	APT_SUITE_MIRROR=$(/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/apt-mirror.py") || return 1
	lines=$(apt_suite_lines "$1" "$APT_SUITE_MIRROR")
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	[ "$(cat "$src" 2>/dev/null)" != "$lines" ] || return 0
	# The old mirror's lists would count as fresh: apt_suite_refresh must update.
	find "$dir/lists" -maxdepth 1 -type f -delete
	echo "$lines" >"$src.tmp" && mv "$src.tmp" "$src"
}

# apt_suite_refresh SUITE LOG: the sources list current, the lists no older than a day
# (LOG, a function, says that they are being updated).
apt_suite_refresh() {
	local dir
	dir=$(apt_suite_dir "$1")
	apt_suite_sources "$1" || return 1
	[ -z "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ] || return 0
	"$2" "updating $1 package lists from $APT_SUITE_MIRROR"
	apt_suite "$1" apt-get update >&2
}

apt_suite() {
	local suite=$1 dir
	dir=$(apt_suite_dir "$suite")
	[ -f "$dir/sources.list" ] || apt_suite_sources "$suite" || return 1
	local prog=$2
	shift 2
	local expired=()
	[ "${SLABLAB_APT_ALLOW_EXPIRED:-0}" != 1 ] || expired=(-o Acquire::Check-Valid-Until=false)
	"$prog" -q ${expired[@]+"${expired[@]}"} -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}
