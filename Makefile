# SPDX-License-Identifier: GPL-2.0
#
# slablab — one-command build and test.
#
#   make            build the module (against the test kernel), slabctl, and install the
#                   Python package into build/venv (pip install ./python, offline)
#   make test       the linters (make lint), host tests + the VM suite on the stock kernel,
#                   smoke stages on 6.12 (bookworm-backports) and 7.3 (trixie-backports,
#                   built in a trixie build root), then the suite on the debug
#                   kernel (KASAN, lockdep, kmemleak; built from Debian's source on first
#                   use; base designs only) and its 4-vCPU boot (hot-plug tests, torture) —
#                   what CI runs, within a budget of 35 min with caches, 60 without
#                   (docs/testing.md); with KERNEL=... the VM suite on that kernel only
#   make test-quick host tests + the VM suite on the stock kernel only (~10 min)
#   make test-full  make test plus what it leaves out to fit its budget: every design
#                   variant on the debug kernel, the hot-plug file in 4-vCPU boots of its
#                   own on each kernel, the cache dump tests with 64 vCPUs (~60 min)
#   make torture    the torture run in the VM: storms while a control thread changes
#                   everything else at random (TORTURE_SECONDS=300, TORTURE_SEED=...,
#                   VM_CPUS=4; docs/testing.md)
#   make experiments  the seed experiments in the VM: each seed's table with its published
#                   figures beside ours and a verdict (~15 min under TCG; EXPERIMENTS="seed-002",
#                   EXPERIMENTS_FULL=1 for the seeds' sizes; docs/experiments.md). Not in make test.
#   make fidelity   each design against the kernel allocator it models, on the same work:
#                   slub on 6.1 (and 6.1 with SLUB_STATS), sheaves on 7.3 (and with
#                   SLUB_STATS), slab on a CONFIG_SLAB 6.1, slob on a CONFIG_SLOB 6.1 (built
#                   once from Debian's source); geometry, behaviour and cost tables with
#                   verdicts (FIDELITY_KERNELS, FIDELITY_REPEAT; docs/fidelity.md). Not in
#                   make test.
#   make icount-gate  the deterministic performance gate: one VM_ICOUNT=1 VM (~30 s) measures
#                   each design's pair and batch and kmalloc's 64-byte pair, and fails when one
#                   grew more than 3% over tests/perf/icount-budget.json (scripts/icount-gate.sh;
#                   --update there; docs/testing.md). Not in make test yet.
#   make icount-aa  the A/A of the deterministic mode on several vCPUs: ICOUNT_AA_BOOTS (5)
#                   boots under VM_ICOUNT=1 with ICOUNT_AA_CPUS (2) vCPUs, each the guest's
#                   cpu check (tests/vm/test_icount.py) and the same remote storm 3 times; the
#                   spread of cycles/alloc, cycles/free and the list_lock counts over the
#                   boots (~5 min; scripts/icount-aa.sh; docs/experiments.md). Not in make test.
#   make demo       boot the VM and show slablab at work
#   make ynl-demo   the kernel's ynl cli driving slablab with uapi/slablab.yaml in the VM
#   make vm         an interactive shell in the test VM
#   make check      checkpatch --strict on module/ and uapi/
#   make lint       make check, kernel-doc, shellcheck on scripts/, flake8 on python/ and tests/, mypy
#                   on the Python package (scripts/lint.sh)
#   make generate   regenerate what restates uapi/slablab.yaml (scripts/gen-protocol.py;
#                   module and tool do it first when the spec or the generator changed)
#
# KERNEL=6.1 (default) | 6.12 | 6.12-rt | 7.3 | 7.3-rt | 7.2 | debug | 6.1-slub-stats | 6.1-slab
#        | 6.1-slob | 7.3-slub-stats | <Debian ABI>   picks the test kernel
# KDIR=/lib/modules/$(uname -r)/build                     builds against any kernel tree
# BUILD_TYPE=Release (default) | RelWithDebInfo | Debug    slabctl's CMake build type;
#   DEBUG=1 is short for BUILD_TYPE=RelWithDebInfo (debug info for gdb/perf)
# PYTHON=/usr/bin/python3     the Python the extension is built for and build/venv is made
#                             from; the tests run build/venv/bin/python (SLABLAB_PYTHON)

REPO    := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON  ?= /usr/bin/python3
# `make test` runs the stock kernel, then the debug kernel, unless KERNEL is given.
# It also runs smoke stages on 6.12 and 7.3 (scripts/test.sh: the module W=1 and the
# tests that meet what differs between kernels), unless KERNEL is given.
ifeq ($(origin KERNEL), undefined)
DEFAULT_TEST_KERNELS := 6.1 debug
DEFAULT_SMOKE_KERNELS := 6.12 7.3
else
DEFAULT_TEST_KERNELS := $(KERNEL)
DEFAULT_SMOKE_KERNELS :=
endif
KERNEL  ?= 6.1
# When this make began, for scripts/test.sh's one deadline and its budget line (a sub-make
# inherits it), and whether the kernel cache was there then (a warm run).
ifeq ($(origin SLABLAB_TEST_T0),undefined)
SLABLAB_TEST_T0 := $(shell date +%s)
SLABLAB_TEST_WARM := $(shell [ -d '$(or $(SLABLAB_CACHE),$(HOME)/.cache/slablab)/kernels' ] && echo 1 || echo 0)
endif
export SLABLAB_TEST_T0 SLABLAB_TEST_WARM
TEST_KERNELS ?= $(DEFAULT_TEST_KERNELS)
TEST_SMOKE_KERNELS ?= $(DEFAULT_SMOKE_KERNELS)
BUILD   := $(REPO)/build
VENV    := $(BUILD)/venv
SLABLAB_PYTHON := $(VENV)/bin/python
ifeq ($(DEBUG),1)
BUILD_TYPE ?= RelWithDebInfo
endif
BUILD_TYPE ?= Release
JOBS    ?= $(shell nproc)
SLABLAB_CACHE ?= $(HOME)/.cache/slablab
export SLABLAB_CACHE PYTHON SLABLAB_PYTHON KERNEL TEST_KERNELS TEST_SMOKE_KERNELS

# The kernel cache dir (fetched on first use) unless KDIR is given. Recursively expanded
# (=): only the targets that use it (module) run deps.sh and kernel.sh.
ifeq ($(origin KDIR), undefined)
KERNEL_DIR = $(shell $(REPO)/scripts/stage.sh deps $(REPO)/scripts/deps.sh >&2 && \
	$(REPO)/scripts/stage.sh "kernel $(KERNEL)" $(REPO)/scripts/kernel.sh $(KERNEL))
KDIR_EFF   = $(shell . $(KERNEL_DIR)/env && echo $$KDIR)
else
KDIR_EFF   = $(KDIR)
endif

.PHONY: all deps generate kernel module tool tool-tests python lint test test-quick test-full test-host test-vm demo vm check clean sheaves-compare \
	distclean bench sweep soak torture ynl-demo experiments fidelity record-hackbench \
	replay-hackbench replay-bootlike record-bootlike record-boot replay-boot icount-gate \
	icount-aa findings

GRID ?= small
SOAK_SECONDS ?= 600
TORTURE_SECONDS ?= 300

all: module python

# The files scripts/gen-protocol.py writes from the spec (checked in; the generator only
# rewrites those whose text changes). tests/host/test_generated.py fails when they are stale.
GENERATED := uapi/linux/slablab.h module/netlink-gen.h module/netlink-gen.c \
	include/slablab/protocol.h tool/include/slabctl/protocol.hpp \
	python/slablab/protocol.py python/slablab/_core.pyi
PROTOCOL_STAMP := $(BUILD)/protocol.stamp

$(PROTOCOL_STAMP): $(REPO)/uapi/slablab.yaml $(REPO)/scripts/gen-protocol.py \
		$(addprefix $(REPO)/,$(GENERATED))
	@mkdir -p '$(BUILD)'
	@$(PYTHON) $(REPO)/scripts/gen-protocol.py
	@touch '$@'

generate: $(PROTOCOL_STAMP)

deps:
	@$(REPO)/scripts/deps.sh

kernel: deps
	@$(REPO)/scripts/kernel.sh $(KERNEL) >/dev/null

# Kbuild does not notice a change of kernel tree (the compiler command lines are the
# same), so objects built for another KDIR are cleaned first.
module: deps generate
	@kdir='$(KDIR_EFF)'; stamp='$(BUILD)/module.kdir'; mkdir -p '$(BUILD)'; \
	if [ "$$(cat "$$stamp" 2>/dev/null)" != "$$kdir" ]; then \
		$(MAKE) -s -C "$$kdir" M='$(REPO)/module' clean >/dev/null 2>&1; \
		echo "$$kdir" >"$$stamp"; \
	fi; \
	MAKE='$(MAKE)' $(REPO)/scripts/stage.sh "module build" $(REPO)/scripts/module-build.sh "$$kdir"

# ccache (scripts/deps.sh installs it) keeps the tool's objects in SLABLAB_CACHE/ccache, so
# a clean clone on a machine that built slablab before compiles in seconds (CI).
CCACHE_DIR ?= $(SLABLAB_CACHE)/ccache
export CCACHE_DIR
tool: deps generate
	@$(REPO)/scripts/stage.sh "cmake configure" \
		cmake -S $(REPO) -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
		$$(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) \
		-DPYTHON_EXECUTABLE=$(PYTHON) -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	@$(REPO)/scripts/stage.sh "tool build" cmake --build $(BUILD) -j$(JOBS) --target slabctl _core

# The GoogleTest binary: only the test targets build it (make demo, vm, bench never run it).
tool-tests: tool
	@$(REPO)/scripts/stage.sh "unit tests build" cmake --build $(BUILD) -j$(JOBS) --target slabctl_unit_tests

# The slablab package in a venv that sees Debian's packages (pandas, matplotlib, pytest):
# pip builds nothing itself here, it takes _core from the build tree (python/setup.py).
python: tool
	@[ -x '$(SLABLAB_PYTHON)' ] || $(PYTHON) -m venv --system-site-packages '$(VENV)'
	@SLABLAB_CMAKE_BUILD='$(BUILD)' $(REPO)/scripts/stage.sh "python package" \
		'$(SLABLAB_PYTHON)' -m pip install -q --no-index --no-build-isolation \
		--disable-pip-version-check --force-reinstall --no-deps '$(REPO)/python'

lint: deps
	@$(REPO)/scripts/stage.sh "lint" $(REPO)/scripts/lint.sh

# The linters run inside scripts/test.sh (TEST_LINT=1), beside the first VM stage.
test: all tool-tests
	@TEST_LINT=1 $(REPO)/scripts/test.sh

test-quick: all tool-tests
	@TEST_KERNELS='$(KERNEL)' TEST_SMOKE_KERNELS= $(REPO)/scripts/test.sh

test-full: all tool-tests
	@TEST_LINT=1 TEST_KERNELS='6.1 debug' TEST_SMOKE_KERNELS='6.12 7.3' TEST_DEADLINE=$${TEST_DEADLINE:-10800} \
		$(REPO)/scripts/test.sh full

# The module's objects first: tests/host/test_layers.py reads them (nm).
test-host: module python tool-tests
	@$(REPO)/scripts/test.sh host

test-vm: all tool-tests
	@$(REPO)/scripts/test.sh vm

# The measuring targets (bench, experiments, replay-*, sweep) pin qemu's vCPU threads to
# host cpus when there is one for each (VM_PIN=auto; VM_PIN=0: let them float) and pass
# VM_ICOUNT (a shift: deterministic TCG, cycles count instructions; one vCPU unless
# VM_CPUS says otherwise: then the guest boots one and brings the others online;
# docs/experiments.md "Deterministic mode").
MEASURE_VM = VM_PIN='$(or $(VM_PIN),auto)' \
	$(if $(VM_ICOUNT),VM_ICOUNT='$(VM_ICOUNT)' VM_CPUS='$(or $(VM_CPUS),1)')

# Benchmarks against the kernel's SLUB (docs/benchmarks.md): every design beside it, ~30
# minutes under TCG (BENCH_TIMEOUT); scripts/bench.sh's BENCH_* settings reach the VM.
BENCH_TIMEOUT ?= 3600
BENCH_VARS := BENCH_REPEAT BENCH_OPS BENCH_UNTIL BENCH_MAX BENCH_WARMUP BENCH_BULK \
	BENCH_ONLY BENCH_SIZES BENCH_SIZE_OPS
bench: all
	@$(MEASURE_VM) VM_TIMEOUT='$(BENCH_TIMEOUT)' VM_ENV="$${VM_ENV:-} $(BENCH_VARS)" \
		$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/bench.sh

# slablab's sheaves design beside the kernel's own sheaves (7.x SLUB) and its slub design,
# in the VM on a kernel with sheaves (KERNEL=7.3 unless given): storms and a replay, each
# figure with its interval (docs/benchmarks.md). SHEAVES_REPEAT, SHEAVES_OPS, SHEAVES_TRACE.
sheaves-compare: export KERNEL := $(if $(filter command line environment,$(origin KERNEL)),$(KERNEL),7.3)
sheaves-compare: all
	@$(MEASURE_VM) VM_TIMEOUT='$(BENCH_TIMEOUT)' VM_ENV="$${VM_ENV:-} SHEAVES_REPEAT SHEAVES_OPS SHEAVES_TRACE" \
		$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/sheaves-compare.sh

# The seed experiments in the VM (docs/experiments.md): tables, CSVs and plots in
# build/experiments/. EXPERIMENTS (default all), EXPERIMENTS_FULL=1, EXPERIMENTS_REPEAT,
# EXPERIMENTS_WARMUP (default 1), EXPERIMENTS_ORDER_SEED, EXPERIMENTS_PUBLISH=1 (a dated
# folder with RESULTS.md).
EXPERIMENTS_TIMEOUT ?= $(if $(filter 1,$(EXPERIMENTS_FULL)),14400,2400)
# seed-003's replay row replays a real boot (build/boot.trace, recorded first when missing:
# make record-boot, about a minute).
EXPERIMENTS_BOOT = $(if $(or $(if $(EXPERIMENTS),,all),$(filter all seed-003,$(EXPERIMENTS))),1)
# seed-004's live row (tbench, kmalloc-4k at the kernel's order vs slub_max_order=0) spans
# boots: the host boots the VM once per sample, in a random order, into
# build/tbench-boots/, which seed-004's run in the VM then takes in (SLABLAB_TBENCH_BOOTS).
EXPERIMENTS_TBENCH = $(if $(or $(if $(EXPERIMENTS),,all),$(filter all seed-004,$(EXPERIMENTS))),1)
experiments: all
	@if [ -n '$(EXPERIMENTS_BOOT)' ] && [ ! -s '$(BUILD)/boot.trace' ]; then \
		$(MAKE) --no-print-directory record-boot; fi
	@if [ -n '$(EXPERIMENTS_TBENCH)' ]; then $(MEASURE_VM) SLABLAB_REPO='$(REPO)' \
		'$(SLABLAB_PYTHON)' -m slablab experiment seed-004 --boots --out '$(BUILD)/tbench-boots' \
		$(if $(filter 1,$(EXPERIMENTS_FULL)),--full) \
		$(if $(EXPERIMENTS_ORDER_SEED),--order-seed '$(EXPERIMENTS_ORDER_SEED)'); fi
	@$(MEASURE_VM) VM_TIMEOUT='$(EXPERIMENTS_TIMEOUT)' $(if $(EXPERIMENTS),EXPERIMENTS='$(EXPERIMENTS)') \
		$(if $(EXPERIMENTS_BOOT),SLABLAB_BOOT_TRACE='$(BUILD)/boot.trace') \
		$(if $(EXPERIMENTS_TBENCH),SLABLAB_TBENCH_BOOTS='$(BUILD)/tbench-boots') \
		$(if $(EXPERIMENTS_FULL),EXPERIMENTS_FULL='$(EXPERIMENTS_FULL)') \
		$(if $(EXPERIMENTS_REPEAT),EXPERIMENTS_REPEAT='$(EXPERIMENTS_REPEAT)') \
		$(if $(EXPERIMENTS_WARMUP),EXPERIMENTS_WARMUP='$(EXPERIMENTS_WARMUP)') \
		$(if $(EXPERIMENTS_ORDER_SEED),EXPERIMENTS_ORDER_SEED='$(EXPERIMENTS_ORDER_SEED)') \
		$(if $(EXPERIMENTS_PUBLISH),EXPERIMENTS_PUBLISH='$(EXPERIMENTS_PUBLISH)') \
		VM_ENV='EXPERIMENTS EXPERIMENTS_FULL EXPERIMENTS_REPEAT EXPERIMENTS_WARMUP EXPERIMENTS_ORDER_SEED EXPERIMENTS_PUBLISH SLABLAB_BOOT_TRACE' \
		$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/experiments.sh
# docs/findings.md's questions (issue 42), deterministic by default: -icount shift 1 on
# 2 vCPUs (a producer and a consumer cpu); FINDINGS=q4 for some. Not in make test.
FINDINGS_TIMEOUT ?= 3600
findings: all
	@VM_PIN='$(or $(VM_PIN),auto)' VM_ICOUNT='$(or $(VM_ICOUNT),1)' VM_CPUS='$(or $(VM_CPUS),2)' \
		VM_TIMEOUT='$(FINDINGS_TIMEOUT)' \
		$(if $(FINDINGS),FINDINGS='$(FINDINGS)') \
		$(if $(FINDINGS_REPEAT),FINDINGS_REPEAT='$(FINDINGS_REPEAT)') \
		$(if $(FINDINGS_OPS),FINDINGS_OPS='$(FINDINGS_OPS)') \
		VM_ENV='FINDINGS FINDINGS_REPEAT FINDINGS_OPS' \
		$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/findings.sh
# Every design against the kernel allocator it models (docs/fidelity.md): boots each
# kernel of FIDELITY_KERNELS (the SLUB_STATS, SLAB and SLOB ones built once from Debian's
# source) and prints the geometry, behaviour and cost tables. Not in make test.
fidelity: all
	@$(REPO)/scripts/stage.sh fidelity $(REPO)/scripts/fidelity.sh

# A short hackbench run recorded in the VM into build/hackbench.trace (docs/replay.md);
# HACKBENCH_ARGS sizes it.
record-hackbench: all
	@VM_ENV="$${VM_ENV:-} HACKBENCH_ARGS" $(REPO)/scripts/vm.sh \
		--module $(REPO)/module/slablab.ko -- \
		$(REPO)/scripts/record-hackbench.sh $(BUILD)/hackbench.trace
	@echo "hackbench trace: $(BUILD)/hackbench.trace"
	@echo "replay it on every design and the kernel's SLUB: make replay-hackbench"

# A boot-like mix (modules loaded and removed, a tree copied to a tmpfs and archived,
# processes started and stopped) recorded in the VM into build/bootlike.trace
# (docs/replay.md); BOOTLIKE_ROUNDS, BOOTLIKE_FILES, BOOTLIKE_PROCESSES size it.
record-bootlike: all
	@VM_ENV="$${VM_ENV:-} BOOTLIKE_ROUNDS BOOTLIKE_FILES BOOTLIKE_PROCESSES BOOTLIKE_TREE BOOTLIKE_MODULES" \
		$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- \
		$(REPO)/scripts/record-bootlike.sh $(BUILD)/bootlike.trace
	@echo "boot-like trace: $(BUILD)/bootlike.trace"
	@echo "replay it on every design and the kernel's SLUB: make replay-bootlike"

# A real boot's allocations (docs/replay.md, "A real boot"): the VM booted with the kmem
# tracepoints on from its command line, the tracefs text imported into build/boot.trace
# (lost events: what overran BOOT_TRACE_BUF, the per-cpu buffer).
record-boot: all
	@VM_ENV="$${VM_ENV:-} BOOT_TRACE_BUF" $(REPO)/scripts/record-boot.sh $(BUILD)/boot.trace
	@echo "boot trace: $(BUILD)/boot.trace"
	@echo "replay it on every design and the kernel's SLUB: make replay-boot"

# A recorded trace replayed in the VM on every design and the kernel's SLUB: the table,
# build/<name>-replay.json and the pages-over-time plot (.png, .svg); docs/replay.md.
# REPLAY_TARGETS, REPLAY_TIME_SCALE (1: at the recorded pace; 0: as fast as possible).
replay-hackbench replay-bootlike replay-boot: replay-%: all
	@$(MEASURE_VM) VM_ENV="$${VM_ENV:-} REPLAY_TARGETS REPLAY_TIME_SCALE" $(REPO)/scripts/vm.sh \
		--module $(REPO)/module/slablab.ko -- \
		$(REPO)/scripts/replay-compare.sh $(BUILD)/$*.trace $(BUILD)/$*-replay

# Parameter sweep in the VM, CSV + PNG plots (docs/sweeps.md).
sweep: all
	@$(MEASURE_VM) $(REPO)/scripts/sweep.sh --grid $(GRID)

# The long stress grid, repeated for SOAK_SECONDS (docs/sweeps.md).
soak: all
	@$(REPO)/scripts/soak.sh $(SOAK_SECONDS)

# The deterministic performance gate (docs/testing.md, "The -icount performance gate"):
# slabctl and the module from this tree, one 1-vCPU VM under -icount, the figures held
# against tests/perf/icount-budget.json. Raising a budget: scripts/icount-gate.sh --update.
icount-gate: module tool
	@SLABLAB_BUILD='$(BUILD)' $(REPO)/scripts/stage.sh "icount gate" $(REPO)/scripts/icount-gate.sh

# The A/A of -icount on several vCPUs (docs/experiments.md, "Deterministic mode"): the
# boots, vCPUs and storm size from ICOUNT_AA_BOOTS, ICOUNT_AA_CPUS, ICOUNT_AA_OPS.
icount-aa: all
	@$(REPO)/scripts/icount-aa.sh

# The torture run (docs/testing.md): TORTURE_SECONDS, TORTURE_SEED (printed by every run;
# the same seed makes the same decisions), KERNEL, VM_CPUS (default 4, at least 3).
torture: all
	@TORTURE_SECONDS='$(TORTURE_SECONDS)' $(if $(TORTURE_SEED),TORTURE_SEED='$(TORTURE_SEED)') \
		$(REPO)/scripts/stage.sh "torture ($(TORTURE_SECONDS)s)" $(REPO)/scripts/torture.sh

demo: all
	@$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/demo.sh

# The kernel's ynl cli driving the module with uapi/slablab.yaml (docs/netlink.md).
ynl-demo: module
	@$(REPO)/scripts/ynl.sh >/dev/null
	@$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/ynl-demo.sh

vm: all
	@$(REPO)/scripts/vm.sh --interactive --module $(REPO)/module/slablab.ko

check:
	@$(REPO)/scripts/checkpatch.sh

# The module is cleaned with the kernel tree it was built against (recorded by `make
# module`), or KDIR when given: clean never installs packages or fetches a kernel.
clean:
	-@kdir='$(if $(filter command line environment,$(origin KDIR)),$(KDIR))'; \
	[ -n "$$kdir" ] || kdir=$$(cat '$(BUILD)/module.kdir' 2>/dev/null); \
	if [ -n "$$kdir" ] && [ -d "$$kdir" ]; then \
		$(MAKE) -s -C "$$kdir" M='$(REPO)/module' clean >/dev/null; \
	else \
		rm -f '$(REPO)'/module/*.o '$(REPO)'/module/.*.cmd '$(REPO)'/module/*.ko \
			'$(REPO)'/module/*.mod '$(REPO)'/module/*.mod.c '$(REPO)'/module/modules.order \
			'$(REPO)'/module/Module.symvers; \
	fi
	rm -rf $(BUILD) $(REPO)/python/build $(REPO)/python/slablab.egg-info

distclean: clean
	rm -rf $(SLABLAB_CACHE)
