#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian build root for kernels whose headers bookworm cannot build modules for: 7.x's
# were made with gcc-14 or newer (bookworm's gcc-12 rejects -fmin-function-alignment), and
# their linux-kbuild (fixdep, modpost) is linked against libc 2.38 or newer.
#
#   scripts/buildroot.sh SUITE GCC            make (or reuse) it; print its directory
#   scripts/buildroot.sh run DIR [--] CMD...  run CMD in it as root, in the current
#                                             directory, with this repository, the kernel
#                                             and source caches (kernels/, src/: the trees
#                                             scripts/build-kernel.sh builds) and the
#                                             current directory bind-mounted
#                                             at the paths they have here and /proc mounted
#                                             (objtool reads it)
#
# SUITE is trixie or sid, GCC the compiler package the kernel's headers depend on
# (gcc-14: linux-headers-7.3.*'s gcc-14-for-host). The root is made once by mmdebstrap
# (--variant=apt, ~110 s and ~450 MB; scripts/deps.sh installs mmdebstrap) from the mirror
# the machine's apt uses (scripts/apt-mirror.py; SLABLAB_DEBIAN_MIRROR overrides it), into
# ${SLABLAB_CACHE:-~/.cache/slablab}/buildroot/SUITE-GCC/ (SLABLAB_APT_ALLOW_EXPIRED=1:
# accept a Release file past its Valid-Until, i.e. a stale mirror). The mounts live in a private
# mount namespace (unshare -m) and vanish with CMD. Both need root.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${SLABLAB_CACHE:-$HOME/.cache/slablab}
log() { echo "buildroot: $*" >&2; }
die() { echo "buildroot: error: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] ||
	die "a build root needs root (mmdebstrap, chroot and bind mounts): run as root, or use a kernel of bookworm's (KERNEL=6.1, 6.12)"

if [ "${1:-}" = run ]; then
	[ $# -ge 3 ] || die "usage: $0 run DIR [--] CMD..."
	root=$2
	shift 2
	[ "${1:-}" != -- ] || shift
	[ -x "$root/usr/bin/make" ] || die "$root is not a build root (scripts/buildroot.sh SUITE GCC makes one)"
	# (exported for the namespace's shell; "$@" is passed as its arguments)
	export BR_ROOT=$root BR_BINDS="$REPO $CACHE/kernels $CACHE/src $PWD" BR_CWD=$PWD
	# shellcheck disable=SC2016 # expanded by the namespace's shell
	exec unshare -m --propagation private bash -c '
		set -e
		mount -t proc proc "$BR_ROOT/proc"
		for d in $BR_BINDS; do
			[ -d "$d" ] || continue
			mountpoint -q "$BR_ROOT$d" && continue
			mkdir -p "$BR_ROOT$d"
			mount --rbind "$d" "$BR_ROOT$d"
		done
		exec chroot "$BR_ROOT" /usr/bin/env -C "$BR_CWD" PATH=/usr/bin:/usr/sbin:/bin:/sbin "$@"
	' buildroot "$@"
fi

[ $# -eq 2 ] || die "usage: $0 SUITE GCC | $0 run DIR [--] CMD..."
suite=$1 gcc=$2
case "$suite" in trixie | sid) ;; *) die "unknown suite '$suite' (trixie or sid)" ;; esac
[[ $gcc =~ ^gcc-[0-9]+$ ]] || die "'$gcc' is not a compiler package name like gcc-14"
DIR=$CACHE/buildroot/$suite-$gcc
PKGS=$gcc,make,libc6-dev,bc,bison,flex,libelf-dev,libssl-dev,kmod,python3,pahole,xz-utils
if [ -f "$DIR/.slablab-ready" ] && [ "$(cat "$DIR/.slablab-ready")" = "$PKGS" ]; then
	echo "$DIR"
	exit 0
fi
command -v mmdebstrap >/dev/null || die "mmdebstrap missing (scripts/deps.sh installs it)"
mkdir -p "$CACHE/buildroot"
exec {lockfd}>"$CACHE/buildroot/.lock"
flock "$lockfd" # one at a time; a second caller waits and then reuses it
if [ -f "$DIR/.slablab-ready" ] && [ "$(cat "$DIR/.slablab-ready")" = "$PKGS" ]; then
	echo "$DIR"
	exit 0
fi
mirror=$(/usr/bin/python3 "$REPO/scripts/apt-mirror.py") || die "no Debian mirror (the message above says why)"
log "making a $suite build root with $gcc in $DIR from $mirror (once, ~2 min)"
rm -rf "$DIR" "$DIR.tmp"
t0=$(date +%s)
# A mirror that stopped syncing serves a Release file past its Valid-Until (sid's lasts a
# week): apt refuses it, as it should, unless the user says the mirror is knowingly stale.
aptopts=()
[ "${SLABLAB_APT_ALLOW_EXPIRED:-0}" != 1 ] || aptopts=(--aptopt='Acquire::Check-Valid-Until "false"')
log_file=$(mktemp)
trap 'rm -f "$log_file"' EXIT
if ! mmdebstrap --variant=apt ${aptopts[@]+"${aptopts[@]}"} --include="$PKGS" "$suite" "$DIR.tmp" \
	"deb $mirror $suite main" 2>&1 | tee "$log_file" >&2; then
	rm -rf "$DIR.tmp"
	if grep -q 'is expired' "$log_file"; then
		die "$mirror's $suite Release file has expired (the mirror is not current): SLABLAB_APT_ALLOW_EXPIRED=1 accepts a stale mirror, SLABLAB_DEBIAN_MIRROR picks another"
	fi
	die "mmdebstrap $suite failed (is $mirror reachable?)"
fi
# The kernel's headers call the compiler as gcc-N and its kbuild plain gcc: both must exist.
[ -x "$DIR.tmp/usr/bin/$gcc" ] || die "$gcc missing from the build root"
echo "$PKGS" >"$DIR.tmp/.slablab-ready"
mv "$DIR.tmp" "$DIR"
log "build root ready after $(($(date +%s) - t0)) s"
echo "$DIR"
