#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the kernel's YNL tools (tools/net/ynl: cli.py, lib/ynl.py, ynl-gen-c.py) and the
# netlink spec schemas (Documentation/netlink/*.yaml) from Debian's linux-source-6.12
# (bookworm-backports; private apt state as scripts/kernel.sh uses, the machine's apt
# setup is never changed), once, and print where they are as shell assignments:
#
#   scripts/ynl.sh            print YNL_VERSION, YNL_DIR, YNL_CLI, YNL_GEN and YNL_SCHEMA
#                             (the schema of uapi/slablab.yaml's protocol)
#   eval "$(scripts/ynl.sh)"  ... and use them: $YNL_CLI --spec uapi/slablab.yaml --do ...
#   scripts/ynl.sh --dir      print only YNL_DIR (tools/net/ynl)
#   YNL_REFRESH=1 scripts/ynl.sh   fetch bookworm-backports' current version
#
# Only those two directories are taken from the source tarball (a few hundred KB), into
# ${SLABLAB_CACHE:-~/.cache/slablab}/src/ynl-VERSION/ (not linux-source-*: that name is
# scripts/build-kernel.sh's, which removes other versions). The cli needs python3-yaml,
# validation python3-jsonschema (scripts/deps.sh installs both). Progress goes to stderr.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
PKG=linux-source-6.12
log() { echo "ynl: $*" >&2; }
die() { echo "ynl: error: $*" >&2; exit 1; }

# shellcheck source=scripts/apt-suite.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-suite.sh"

# The newest copy already unpacked, if any.
cached() {
	[ -d "$CACHE/src" ] || return 0
	find "$CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'ynl-*' ! -name '*.tmp' |
		sort -V | tail -1
}

DIR=$(cached)
if [ -z "$DIR" ] || [ "${YNL_REFRESH:-0}" = 1 ]; then
	# Only a fetch takes the lock (the VM sees the cache read-only and never fetches).
	mkdir -p "$CACHE/src"
	exec {lockfd}>"$CACHE/src/.ynl.lock"
	flock "$lockfd"
	[ "${YNL_REFRESH:-0}" = 1 ] || DIR=$(cached)
fi
if [ -z "$DIR" ] || [ "${YNL_REFRESH:-0}" = 1 ]; then
	apt_suite_refresh bookworm-backports log || die "no bookworm-backports package lists (the message above says why)"
	ver=$(apt_suite bookworm-backports apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	{ [ -n "$ver" ] && [ "$ver" != "(none)" ]; } ||
		die "cannot resolve $PKG in bookworm-backports (is $APT_SUITE_MIRROR reachable?)"
	NEW=$CACHE/src/ynl-$ver
	if [ "$NEW" != "$DIR" ]; then
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		log "downloading $PKG $ver (~150 MB, once) for tools/net/ynl"
		(cd "$tmp" && apt_suite bookworm-backports apt-get download "$PKG=$ver" >&2) ||
			die "apt-get download $PKG=$ver failed"
		dpkg -x "$tmp"/"$PKG"_*.deb "$tmp/x"
		tarball=$(ls "$tmp"/x/usr/src/"$PKG".tar.*)
		rm -rf "$NEW.tmp"
		mkdir -p "$NEW.tmp"
		log "unpacking tools/net/ynl and Documentation/netlink into $NEW"
		tar -xaf "$tarball" -C "$NEW.tmp" --strip-components=1 --wildcards \
			"$PKG/tools/net/ynl/*" "$PKG/Documentation/netlink/*"
		# Older copies are of no use any more.
		[ -z "$DIR" ] || rm -rf "$DIR"
		mv "$NEW.tmp" "$NEW"
		DIR=$NEW
	fi
fi

YNL_DIR=$DIR/tools/net/ynl
# 6.12 keeps cli.py at the top of tools/net/ynl; 6.14 moved it to pyynl/.
for d in "$YNL_DIR" "$YNL_DIR/pyynl"; do
	[ -f "$d/cli.py" ] && YNL_CLI=$d/cli.py && break
done
[ -n "${YNL_CLI:-}" ] || die "no cli.py under $YNL_DIR"
YNL_GEN=$(find "$YNL_DIR" -maxdepth 2 -name 'ynl-gen-c.py' -o -maxdepth 2 -name 'ynl_gen_c.py' |
	head -1)
# The schema of uapi/slablab.yaml's protocol (genetlink-legacy: docs/netlink.md says why).
proto=$(sed -n 's/^protocol: *//p' "$REPO/uapi/slablab.yaml" 2>/dev/null)
YNL_SCHEMA=$DIR/Documentation/netlink/${proto:-genetlink}.yaml
[ -f "$YNL_SCHEMA" ] || die "no $YNL_SCHEMA"

if [ "${1:-}" = "--dir" ]; then
	echo "$YNL_DIR"
	exit 0
fi
cat <<EOT
YNL_VERSION=${DIR##*/ynl-}
YNL_DIR=$YNL_DIR
YNL_CLI=$YNL_CLI
YNL_GEN=$YNL_GEN
YNL_SCHEMA=$YNL_SCHEMA
EOT
