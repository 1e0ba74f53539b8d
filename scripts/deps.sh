#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages slablab needs, only those missing. Idempotent and quiet
# when everything is present, so every make target can call it.
set -euo pipefail

PKGS=(
	build-essential gcc make bc kmod pkg-config cmake dwarves ccache
	qemu-system-x86 busybox-static cpio xz-utils zstd
	libnl-3-dev libnl-genl-3-dev libtracefs-dev libtraceevent-dev libtracecmd-dev
	libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev
	pybind11-dev python3-dev python3-pytest
	python3-matplotlib python3-yaml python3-jsonschema
	python3-pip python3-venv python3-setuptools python3-wheel python3-pandas python3-numpy python3-scipy
	python3-mypy flake8 shellcheck
	rt-tests mmdebstrap fio dbench
	linux-perf trace-cmd bpftrace python3-drgn
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing missing Debian packages: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/update-success-stamp
lists_age=$(( $(date +%s) - $(stat -c %Y /var/lib/apt/lists 2>/dev/null || echo 0) ))
if [ ! -e "$stamp" ] || [ "$lists_age" -gt 86400 ] || \
   ! apt-cache show "${missing[0]}" >/dev/null 2>&1; then
	$SUDO apt-get update -q || { echo "deps: apt-get update failed; check the Debian mirror is reachable" >&2; exit 1; }
fi
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
	echo "deps: apt-get install failed for: ${missing[*]}" >&2
	exit 1
fi
