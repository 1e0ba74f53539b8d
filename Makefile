# SPDX-License-Identifier: GPL-2.0
#
# slablab — one-command build and test.
#
#   make            build the module (against the test kernel), slabctl, the Python package
#   make test       host tests + VM tests (boots the test kernel in qemu)
#   make demo       boot the VM and show slablab at work
#   make vm         an interactive shell in the test VM
#   make check      checkpatch --strict on module/ and uapi/
#
# KERNEL=6.1 (default) | 6.12 | 6.12-rt | <Debian ABI>   picks the Debian test kernel
# KDIR=/lib/modules/$(uname -r)/build                     builds against any kernel tree
# PYTHON=/usr/bin/python3                                 the Python the tests use

REPO    := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON  ?= /usr/bin/python3
KERNEL  ?= 6.1
BUILD   := $(REPO)/build
JOBS    ?= $(shell nproc)
SLABLAB_CACHE ?= $(HOME)/.cache/slablab
export SLABLAB_CACHE PYTHON KERNEL

# The kernel cache dir (fetched on first use) unless KDIR is given.
ifeq ($(origin KDIR), undefined)
KERNEL_DIR = $(shell $(REPO)/scripts/deps.sh >&2 && $(REPO)/scripts/kernel.sh $(KERNEL))
KDIR_EFF   = $(shell . $(KERNEL_DIR)/env && echo $$KDIR)
else
KDIR_EFF   = $(KDIR)
endif

.PHONY: all deps kernel module tool test test-host test-vm demo vm check clean distclean

all: module tool

deps:
	@$(REPO)/scripts/deps.sh

kernel: deps
	@$(REPO)/scripts/kernel.sh $(KERNEL) >/dev/null

module: deps
	@$(REPO)/scripts/stage.sh "module build" \
		$(MAKE) -C $(KDIR_EFF) M=$(REPO)/module W=1 modules

tool: deps
	@$(REPO)/scripts/stage.sh "cmake configure" \
		cmake -S $(REPO) -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DPYTHON_EXECUTABLE=$(PYTHON) -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	@$(REPO)/scripts/stage.sh "tool build" cmake --build $(BUILD) -j$(JOBS)

test: all
	@$(REPO)/scripts/test.sh

test-host: tool
	@$(REPO)/scripts/test.sh host

test-vm: all
	@$(REPO)/scripts/test.sh vm

demo: all
	@$(REPO)/scripts/vm.sh --module $(REPO)/module/slablab.ko -- $(REPO)/scripts/demo.sh

vm: all
	@$(REPO)/scripts/vm.sh --interactive --module $(REPO)/module/slablab.ko

check:
	@$(REPO)/scripts/checkpatch.sh

clean:
	-@[ -d "$(KDIR_EFF)" ] && $(MAKE) -C $(KDIR_EFF) M=$(REPO)/module clean >/dev/null
	rm -rf $(BUILD)

distclean: clean
	rm -rf $(SLABLAB_CACHE)
