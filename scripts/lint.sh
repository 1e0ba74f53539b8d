#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The linters `make lint` (and so `make test`, .ci/run) runs, each from a Debian package
# that scripts/deps.sh installs. Every one runs, each as a timed stage, and the script
# fails if any of them found something:
#   - checkpatch --strict on module/, uapi/, include/ (scripts/checkpatch.sh, make check)
#   - kernel-doc -none on the same files (scripts/checkpatch.sh --kernel-doc)
#   - ShellCheck on scripts/ and .ci/run
#   - flake8 on python/, tests/ and the Python scripts (configuration: setup.cfg)
#   - mypy on the slablab package (configuration: python/pyproject.toml), and on tests/:
#     tests/host, then the VM suite, the torture driver, the icount gate and the skip
#     policy (two runs: tests/host and tests/vm each have a conftest module), their
#     bodies checked (--check-untyped-defs) against the package's types (the fakes'
#     dicts are its TypedDicts), without every test needing annotations; MYPYPATH lets
#     `import conftest` and `import skip_policy` resolve
# scripts/lint.sh [checkpatch|kernel-doc|shellcheck|flake8|mypy]...   runs only those.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO" || exit 2

lint_one() {
	case $1 in
	checkpatch) "$REPO/scripts/checkpatch.sh" ;;
	kernel-doc) "$REPO/scripts/checkpatch.sh" --kernel-doc ;;
	shellcheck)
		local files
		mapfile -t files < <(git ls-files 'scripts/*.sh' 'scripts/vm/*' .ci/run)
		# -x: follow the files they source (scripts/apt-suite.sh)
		shellcheck -x "${files[@]}" && echo "shellcheck: clean (${#files[@]} files)" ;;
	flake8) /usr/bin/python3 -m flake8 python tests scripts/vm-pin.py scripts/apt-mirror.py \
		scripts/gen-schemas.py scripts/rejudge-results.py && echo "flake8: clean" ;;
	# the source tree's package: mypy reads _core.pyi for the extension
	mypy) cd python && /usr/bin/python3 -m mypy --config-file pyproject.toml -p slablab &&
		MYPYPATH=../tests /usr/bin/python3 -m mypy --config-file pyproject.toml --check-untyped-defs \
			--allow-untyped-defs --allow-incomplete-defs --allow-untyped-calls ../tests/host &&
		MYPYPATH=../tests/vm:../tests /usr/bin/python3 -m mypy --config-file pyproject.toml \
			--check-untyped-defs --allow-untyped-defs --allow-incomplete-defs \
			--allow-untyped-calls ../tests/vm ../tests/torture ../tests/perf \
			../tests/skip_policy.py ;;
	*) echo "lint: no linter '$1' (checkpatch, kernel-doc, shellcheck, flake8, mypy)" >&2; return 2 ;;
	esac
}

if [ "${1:-}" = --one ]; then
	lint_one "$2"
	exit
fi
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(checkpatch kernel-doc shellcheck flake8 mypy)
rc=0
for w in "${what[@]}"; do
	"$REPO/scripts/stage.sh" "lint: $w" "$0" --one "$w" || rc=1
done
exit $rc
