# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by scripts/kernel.sh and scripts/ynl.sh: apt_bpo PROG ARGS... runs apt-get or
# apt-cache against bookworm-backports with its own sources list and state under
# $APTDIR, so the machine's apt setup is never changed.

apt_bpo() {
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	local src="$APTDIR/sources.list"
	[ -f "$src" ] || echo "deb http://deb.debian.org/debian bookworm-backports main" >"$src"
	local prog=$1
	shift
	"$prog" -q -o Dir::Etc::SourceList="$src" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}
