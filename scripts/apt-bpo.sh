# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by scripts/kernel.sh and scripts/ynl.sh: apt_bpo PROG ARGS... runs apt-get or
# apt-cache against bookworm-backports with its own sources list and state under
# $APTDIR, so the machine's apt setup is never changed.
#
# The mirror is the one the machine's apt already uses for Debian's archive
# (scripts/apt-mirror.py reads /etc/apt/sources.list and sources.list.d/; the
# SLABLAB_DEBIAN_MIRROR environment variable overrides it). apt_bpo_refresh writes
# $APTDIR/sources.list anew when the mirror changed (dropping the lists of the old one)
# and updates the lists when they are older than a day; call it, outside a command
# substitution (it fails with the parser's message), before the first apt_bpo.
# APT_BPO_MIRROR is the mirror in use, once apt_bpo_refresh has run.

# Write $APTDIR/sources.list for the machine's Debian mirror, if it says something else.
apt_bpo_sources() {
	local src="$APTDIR/sources.list" line
	APT_BPO_MIRROR=$(/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/apt-mirror.py") || return 1
	line="deb $APT_BPO_MIRROR bookworm-backports main"
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	[ "$(cat "$src" 2>/dev/null)" != "$line" ] || return 0
	# The old mirror's lists would count as fresh: apt_bpo_refresh must update.
	find "$APTDIR/lists" -maxdepth 1 -type f -delete
	echo "$line" >"$src.tmp" && mv "$src.tmp" "$src"
}

# apt_bpo_refresh LOG: the sources list current, the lists no older than a day (LOG, a
# function, says that they are being updated).
apt_bpo_refresh() {
	apt_bpo_sources || return 1
	[ -z "$(find "$APTDIR/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ] || return 0
	"$1" "updating bookworm-backports package lists from $APT_BPO_MIRROR"
	apt_bpo apt-get update >&2
}

apt_bpo() {
	local src="$APTDIR/sources.list"
	[ -f "$src" ] || apt_bpo_sources || return 1
	local prog=$1
	shift
	"$prog" -q -o Dir::Etc::SourceList="$src" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}
