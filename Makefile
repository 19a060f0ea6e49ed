# The one entry point of the workbench. Each step is a script in scripts/;
# this file only composes them. See README.md.
#
#   make            build the patched 6.12 kernel, boot it on QEMU NVMe,
#                   run the block kselftests (and KUnit at boot)
#   make test       everything that must hold (host checks, patched run,
#                   baseline run that must fail the shape tests)
#   make shell      the same guest, interactive
#   make test-debug the patched kernel with KASAN, UBSAN, lockdep, DEBUG_VM
#   make check      every patch on its predecessors: checkpatch, builds,
#                   W=1, sparse, clang, arm64 4K/64K, i386, riscv64
#   make send       dry run of the mails (SEND=1 sends; V=N version)
#   make bench      baseline against patched, alternating boots: tables and
#                   plots in build/bench/ (QUICK=1: 2 rounds, smaller sizes)
#   make series     regenerate patches/ from the build/linux-patched branch
#   make clean      remove build/
#
# KERNEL_TREE=/path/to/linux uses your own 6.12 git tree (its HEAD is the
# base) instead of Debian's linux-source-6.12. ACCEL=kvm opts in to KVM.
# EXTRA_CONFIG=file.config adds a config fragment to both kernels.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all

B        := $(abspath build)
BASE     := $(B)/linux-base
PATCHED  := $(B)/linux-patched
KERNEL_TREE ?=
EXTRA_CONFIG ?=
S        := scripts

export CCACHE_DIR ?= $(B)/ccache

BZ_BASE    := $(BASE)/obj/arch/x86/boot/bzImage
BZ_PATCHED := $(PATCHED)/obj/arch/x86/boot/bzImage
INITRAMFS  := $(B)/initramfs.cpio
KSFT       := $(B)/kselftest
T          := $(B)/test
BENCH      := $(B)/bench
QUICK      ?=
GUEST_CMD  := ./run_kselftest.sh -c block

# Config fragments: the workbench's, plus every kselftest config and
# .kunitconfig the series adds (read from the patched tree).
fragments = config/qemu.config $(EXTRA_CONFIG) $(shell git -C $(PATCHED) diff --name-only \
	--diff-filter=A $$(cat $(B)/base-commit) HEAD -- \
	'tools/testing/selftests/*/config' '*.kunitconfig' 2>/dev/null | \
	sed 's|^|$(PATCHED)/|')

.PHONY: all test shell series clean deps trees apply kernels \
	kernel-patched kernel-base selftests initramfs run-patched \
	run-baseline host-checks check send bench test-debug

all: run-patched
	@$(S)/tap-summary.sh patched=$(T)/patched.tap kunit=$(T)/patched/console.log

deps:
	@$(S)/deps.sh

trees: deps
	@$(S)/kernel-tree.sh $(B) $(KERNEL_TREE)

apply: trees
	@$(S)/apply-series.sh $(PATCHED) $$(cat $(B)/base-commit) patches

kernel-patched: apply
	@$(S)/kconfig.sh $(PATCHED) $(PATCHED)/obj $(fragments)
	@$(S)/build-kernel.sh $(PATCHED) $(PATCHED)/obj

# The baseline gets the same fragments; symbols only the series defines
# (its KUnit test) are left out there.
kernel-base: apply
	@UNKNOWN_OK=1 $(S)/kconfig.sh $(BASE) $(BASE)/obj $(fragments)
	@$(S)/build-kernel.sh $(BASE) $(BASE)/obj

kernels: kernel-patched kernel-base

selftests: apply
	@$(S)/build-selftests.sh $(PATCHED) $(PATCHED)/obj $(KSFT) block

initramfs: selftests
	@$(S)/initramfs.sh $(KSFT) $(INITRAMFS)

# $(call guest-run,BZIMAGE,NAME): boot BZIMAGE, run the block kselftests;
# TAP in $(T)/NAME.tap, a failed boot counted there as a failed test.
define guest-run
	@mkdir -p $(T)
	@ALLOW_CMD_FAIL=1 $(S)/boot.sh $(1) $(INITRAMFS) $(T)/$(2) '$(GUEST_CMD)' || \
		echo "not ok - boot of the $(2) kernel (see above)" >>$(T)/$(2)/output.log
	@grep -av '^WB-EXIT=' $(T)/$(2)/output.log >$(T)/$(2).tap || true
endef

run-patched: kernel-patched initramfs
	$(call guest-run,$(BZ_PATCHED),patched)

# On the unpatched kernel the shape tests must fail: that is the proof that
# they discriminate. Its own results are not counted, only that proof.
run-baseline: kernel-base initramfs
	$(call guest-run,$(BZ_BASE),baseline)
	@$(S)/baseline-proof.sh config/baseline-must-fail $(T)/baseline.tap >$(T)/baseline-proof.tap

# The patched kernel with KASAN, UBSAN, lockdep, DEBUG_VM, KFENCE and
# friends (config/debug.config): every kselftest and KUnit case, no splat.
DEBUG_OBJ := $(PATCHED)/obj-debug
test-debug: apply initramfs
	@$(S)/kconfig.sh $(PATCHED) $(DEBUG_OBJ) $(fragments) config/debug.config
	@$(S)/build-kernel.sh $(PATCHED) $(DEBUG_OBJ)
	$(call guest-run,$(DEBUG_OBJ)/arch/x86/boot/bzImage,debug)
	@$(S)/tap-summary.sh debug=$(T)/debug.tap kunit=$(T)/debug/console.log

host-checks: apply
	@mkdir -p $(T) && rm -f $(T)/host.tap
	@$(S)/tap-run.sh $(T)/host.tap "shellcheck of scripts/ and guest/init" \
		shellcheck $(S)/*.sh guest/init guest/bench/bench.sh .ci/run
	@$(S)/tap-run.sh $(T)/host.tap "console scanner and TAP summary on recorded logs" \
		$(S)/selftest-tools.sh
	@$(S)/tap-run.sh $(T)/host.tap "repo copies of added files match the series" \
		$(S)/check-series-sync.sh $(PATCHED) $$(cat $(B)/base-commit)
	@$(S)/tap-run.sh $(T)/host.tap "quilt push -a gives the same tree as git am" \
		$(S)/quilt-check.sh $(B) $$(cat $(B)/base-commit) $(PATCHED) patches
	@$(S)/tap-run.sh $(T)/host.tap "make send through a local SMTP server: threading, recipients, git am of the mails gives the series" \
		$(S)/test-send.sh $(B) $$(cat $(B)/base-commit) patches

test: host-checks run-patched run-baseline
	@$(S)/tap-run.sh $(T)/host.tap "kunit.py parse of the patched console" \
		$(PATCHED)/tools/testing/kunit/kunit.py parse $(T)/patched/console.log
	@$(S)/tap-summary.sh host=$(T)/host.tap patched=$(T)/patched.tap \
		kunit=$(T)/patched/console.log baseline=$(T)/baseline-proof.tap

shell: kernel-patched initramfs
	@$(S)/boot.sh $(BZ_PATCHED) $(INITRAMFS) $(B)/shell

check: trees
	@$(S)/deps.sh check
	@$(S)/check-series.sh $(B) $$(cat $(B)/base-commit) patches

send: apply
	@$(S)/send-series.sh $(B) $$(cat $(B)/base-commit) patches

bench: kernels initramfs
	@$(S)/bench-initramfs.sh $(INITRAMFS) $(PATCHED)/tools/testing/selftests/block $(BENCH)/initramfs.cpio
	@rc=0; QUICK=$(QUICK) $(S)/bench-run.sh $(BZ_BASE) $(BZ_PATCHED) $(BENCH)/initramfs.cpio $(BENCH) || rc=$$?; \
		$(S)/bench-report.sh $(BENCH); exit $$rc

series: trees
	@$(S)/export-series.sh $(PATCHED) $$(cat $(B)/base-commit) patches

clean:
	rm -rf $(B)
