# The one entry point of the workbench. Each step is a script in scripts/;
# this file only composes them. See README.md and docs/workbench.md.
# make help prints the "## " entries below and above each rule: they are
# the only description of the targets and variables
# (scripts/make-help.sh; make test checks that every target and variable
# has one).
#
# A yes-or-no variable (SEND, QUICK, KEEP_IMAGES, ALLOW_CMD_FAIL,
# UNKNOWN_OK, CHECKPATCH_ONLY) is on when it is 1 and off otherwise:
# QUICK=0 and QUICK= both mean not quick (wb_bool in scripts/lib.sh).

## BASE=7.1: the series: 7.1 (Linux 7.1.5, patches/v7.1, build/7.1/) or
## 6.12 (the backport, patches/v6.12, build/6.12/)
## LINUX_TARBALL=FILE: the kernel sources, a tarball of the BASE version
## (kernel.org's linux-7.1.5.tar.xz); read once, into build/BASE/linux-src
## KERNEL_TREE=DIR: your git tree of the BASE version instead (its HEAD is
## the base); only read, through a git clone --shared in build/BASE
## LINUX_7_0_TARBALL=FILE: 7.1 without LINUX_TARBALL: linux-7.0.tar.xz
## (default ../shared/linux-7.0.tar.xz), with LINUX_7_1_PATCH
## LINUX_7_1_PATCH=FILE: patch-7.0-7.1.5.xz (default ../shared/)
## EXTRA_CONFIG=FILE: a config fragment added to every kernel
## ACCEL=auto: the guests' QEMU accelerator: KVM where a probe boot under it
## works (scripts/kvm-probe.sh; it hung guests on the machine this was
## written on), else TCG; make bench and arm64 always TCG; kvm or tcg forces one
## PROBE_SECS=20: how long the KVM probe boot may take
## TIMEOUT=SECONDS: a guest's limit (default 1800; longer for the debug,
## bystander, blktests and fstests boots)
## MEM=SIZE: a guest's memory (2G; 3G for the boots that need it)
## SMP=N: a guest's vCPUs (2; 1 for make bench and the suites' guests)
## TOPOLOGY=FILE: the guest's NVMe namespaces (config/nvme.topology)
## KEEP_IMAGES=0: 1 keeps a guest's disk images after its boot
## ALLOW_CMD_FAIL=0: 1 lets a boot's command fail without failing the boot
## UNKNOWN_OK=0: 1 lets a config option that olddefconfig drops pass
## (make check's and bench's variants)
## STRESS_SECS=30: seconds per fault and stress case in make test-debug
## QUICK=0: 1 makes make bench (and its variants) short: under 10 min
## SETTINGS=LIST: make bench's device settings LBS:LAT_US:QD:MBPS, spaces
## between (scripts/bench-run.sh has the default)
## ROUNDS=3: make bench's rounds of alternating boots (QUICK=1: 1)
## REPS=1: make bench's timed runs per case and boot (QUICK=1: 2)
## ZERO_MIB=4096: make bench's zeroout size (QUICK=1: 256)
## ICOUNT=0: make bench's guest clock, 2^ICOUNT ns a guest instruction
## (ICOUNT= empty: the host's clock)
## TRIM_SHIFT=2: make bench-trim's variant trims tails up to 1/2^TRIM_SHIFT
## UPTO=N: make bench-prefix's patched kernel: the series' first N patches
## DIO_TABLE_KB=LIST: make dio-table's max_sectors_kb values
## ARM64_PAGES=4 16 64: the page sizes (KiB) of make arm64 and kunit-arm64
## CHECK_TARGETS=LIST: make check's builds (scripts/check-series.sh has
## the list and the default, all of them)
## CHECKPATCH_ONLY=0: 1 makes make check run checkpatch and git am only
## BLKTESTS_TAR=FILE: blktests' tarball (../shared/blktests-a608cb5.tar.xz)
## BLKTESTS_GROUPS=LIST: make blktests' groups (7.1: block loop nvme scsi
## dm md zbd; 6.12: block)
## BLKTESTS_DEV=LIST: the tests or groups run on each test device
## BLKTESTS_NODEV=LIST: the tests or groups that make their own devices
## BLKTESTS_SMALL_KB=60: the small max_sectors_kb of make blktests
## BLKTESTS_TIMEOUT=30: seconds a timed blktests case's fio runs
## BLKTESTS_KILL=LIST: our blktests cases stopped by SIGTERM and SIGKILL
## part way (nothing of them may be left)
## BLKTESTS_EXCLUDE=LIST: tests make blktests leaves out (7.1: block/047,
##   a 7.1.5 race that panics either kernel: docs/suites.md)
## FSTESTS_TAR=FILE: fstests' tarball (../shared/fstests-63a2972.tar.xz)
## FSTESTS_LIST=FILE: the tests make fstests runs (config/fstests.tests)
## FSTESTS_FS=xfs ext4: the file systems of make fstests
## FSTESTS_BLOCK=default: file system block size in bytes (1024: a run of
##   its own with sub-page blocks, logs and tables named fstests-1024-*)
## FSTESTS_DEBUG=1: make fstests on both kernels built with KASAN,
##   lockdep and XFS_DEBUG too (a run of its own, named fstests-debug-*)
## FSTESTS_PART=K/N: make fstests of the K-th of N parts of FSTESTS_LIST
##   (every N-th test from the K-th; a run of its own, named *-KofN)
## FSTESTS_TIMEOUT=SECONDS: a make fstests boot's limit
## FROM=ADDRESS: make send's sender, "Name <address>" (default: git's
## user.name and user.email; never the patches' placeholder)
## SEND=0: 1 makes make send send (default: a dry run)
## SERIES=NAME: make send: one mail of the series (7.1: fixes, zeroing,
## dio), or blktests: our blktests series
## REPORT=DIR: make send: that report instead (docs/io-wq)
## VERSION=N: make send: the mails' version, [PATCH vN ...]
## TO=ADDRESSES: make send: more To: addresses, for every mail
## MAIL_CC=ADDRESSES: make send: more Cc: addresses, for every mail
## COVER=FILE: make send: another cover letter
## SMTP_SERVER=HOST: make send: the SMTP server (default: git's
## sendemail.* settings)
## SMTP_PORT=PORT: make send: its port
## GET_MAINTAINER_ARGS=OPTIONS: make send: get_maintainer.pl's options
## (default: no git history, no keywords, no Fixes: authors)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all

# BASE=7.1 (the default: the mainline series on Linux 7.1.5) or BASE=6.12
# (its LTS backport); each has its series in patches/vBASE and builds in
# build/BASE.
BASE     ?= 7.1
ifeq ($(filter 7.1 6.12,$(BASE)),)
$(error BASE=$(BASE): there are series for BASE=7.1 and BASE=6.12)
endif

# Kbuild's variables mean something else here, and a kernel developer
# types them by habit: each is refused, saying what to use, rather than
# silently ignored (O=) or taken for a mail address (CC=).
ifeq ($(origin O),command line)
$(error O=$(O): the workbench builds in build/$(BASE)/ of this clone (make clean removes it); there is no O=)
endif
ifeq ($(origin ARCH),command line)
$(error ARCH=$(ARCH): the guests are x86_64; make check builds the series for arm64, i386 and riscv64 too)
endif
ifeq ($(origin V),command line)
$(error V=$(V): not kbuild's verbosity here; the mails' version is VERSION=N (make send), build logs are in build/$(BASE)/)
endif
ifeq ($(origin CC),command line)
$(error CC=$(CC): the kernels are built with ccache gcc; more mail recipients are MAIL_CC=)
endif
# A misspelled source variable (LINUX_TARBAL=) would be ignored and the
# sources looked for where the user never said: refused, naming those
# there are.
SOURCE_VARS := LINUX_TARBALL KERNEL_TREE LINUX_7_0_TARBALL LINUX_7_1_PATCH BACKPORT_TARBALL BACKPORT_TREE
$(foreach v,$(filter LINUX_% KERNEL_% BACKPORT_%,$(.VARIABLES)),$(if $(and $(filter command line,$(origin $(v))),\
	$(filter-out $(SOURCE_VARS),$(v))),$(error $(v)=$($(v)): no such variable; the sources are given by $(SOURCE_VARS) (make help))))
B        := $(abspath build/$(BASE))
PATCHES  := patches/v$(BASE)
UNPATCHED := $(B)/linux-base
PATCHED  := $(B)/linux-patched
KERNEL_TREE ?=
EXTRA_CONFIG ?=
S        := scripts

BZ_BASE    := $(UNPATCHED)/obj/arch/x86/boot/bzImage
BZ_PATCHED := $(PATCHED)/obj/arch/x86/boot/bzImage
INITRAMFS  := $(B)/initramfs.cpio
KSFT       := $(B)/kselftest
T          := $(B)/test
BENCH      := $(B)/bench
# What a make bench run compared, for its report's plots (and make
# bench-plots'): with QUICK or SETTINGS, say so.
BENCH_LABEL = Linux $(BASE): $(PATCHES) against the unpatched kernel$(if $(RUN_TAG), (make bench$(if \
	$(filter 1,$(QUICK)), QUICK=1: one round)$(if $(SETTINGS), SETTINGS=$(SETTINGS))))
QUICK      ?=
# The workbench's guard tests first (zeroout_first_use needs a boot in
# which nothing took the huge zero folio yet), then the series' own:
# run_kselftest.sh runs collections in sorted order, so the guards'
# collection is blk_guards, before block.
# Then the series' kselftests once more on each NVMe namespace of
# config/nvme.topology, named to them in BLK_TEST_DEV (guest/init finds
# them as BLK_NOWZ_DEV and BLK_WZ_DEV and allows both in
# BLK_TEST_DESTROY), each result's description prefixed with the
# namespace: "nvme-nowz: zeroout.huge_folio".
# $(call tap_prefix,NAME): a filter that prefixes each TAP result's
# description with "NAME: ".
tap_prefix = sed -E "s/^((\# )*(not )?ok [0-9]+ )/\1$(1): /"
on_nvme    = BLK_TEST_DEV=$$BLK_$(1)_DEV ./run_kselftest.sh -c block | \
	$(call tap_prefix,nvme-$(2))
SERIES_ON_NVME := $(call on_nvme,NOWZ,nowz); $(call on_nvme,WZ,wz)
GUEST_CMD  := ./run_kselftest.sh -c blk_guards -c block; $(SERIES_ON_NVME)

# Config fragments: the workbench's and its guard tests', plus every
# kselftest config and .kunitconfig the series adds (read from the
# patched tree).
fragments = config/qemu.config guest/guards/config $(EXTRA_CONFIG) $(shell git -C $(PATCHED) diff --name-only \
	--diff-filter=A $$(cat $(B)/base-commit) HEAD -- \
	'tools/testing/selftests/*/config' '*.kunitconfig' 2>/dev/null | \
	sed 's|^|$(PATCHED)/|')

.PHONY: all help test shell series clean deps trees apply checkpatch kernels \
	kernel-patched kernel-base selftests initramfs run-patched \
	run-baseline run-bystander run-debug run-nothp run-persistent test-persistent \
	tool-checks host-checks check send bench bench-base bench-kernels bench-trim bench-prefix bench-initramfs bench-plots \
	dio-table \
	test-debug test-nothp test-all run-backport kunit-parse run-kunit-module kunit-arm64 blktests blktests-build \
	arm64 arm64-initramfs $(A64_RUNS) \
	$(addprefix kernel-suites-,patched baseline) fstests fstests-build \
	$(addprefix run-fstests-,patched baseline) \
	$(addprefix run-blktests-,patched baseline)

## help: this text, from the Makefile's "## " entries
help:
	@$(S)/make-help.sh $(firstword $(MAKEFILE_LIST))

## all: (the default) checkpatch of each patch, then build the patched
## kernel, boot it on QEMU NVMe, run the block kselftests on null_blk and
## on each namespace, KUnit at boot
all: checkpatch run-patched
	@$(S)/tap-summary.sh checkpatch=$(T)/checkpatch.tap patched=$(T)/patched.tap kunit=$(T)/patched/console.log

## checkpatch: scripts/checkpatch.pl --strict of each patch of the series,
## in the patched tree: what a maintainer's tools run first (make check
## runs it on each patch's predecessors, with the builds)
checkpatch: apply
	@$(S)/deps.sh checkpatch
	@mkdir -p $(T) && rm -f $(T)/checkpatch.tap
	@. $(S)/lib.sh && wb_series $(PATCHES) && for p in "$${wb_patches[@]}"; do \
		$(S)/tap-run.sh $(T)/checkpatch.tap "checkpatch --strict $$p" \
			$(S)/checkpatch-patch.sh $(PATCHED) $(PATCHES)/$$p; \
	done

## deps: install, with apt-get, what building and booting a kernel needs
## and is missing (each target adds what it needs: scripts/deps.sh)
## NO_DEPS=0: 1 installs nothing, naming what is missing
deps:
	@$(S)/deps.sh base $(if $(and $(filter 6.12,$(BASE)),$(if $(LINUX_TARBALL)$(KERNEL_TREE),,x)),backport)

## trees: the kernel sources (once), the unpatched and patched worktrees
trees: deps
	@$(S)/kernel-tree.sh $(B) $(BASE) $(KERNEL_TREE)

## apply: git am of the series on the blk-series branch (once)
apply: trees
	@$(S)/apply-series.sh $(PATCHED) $$(cat $(B)/base-commit) $(PATCHES)

## kernel-patched: build the patched kernel
kernel-patched: apply
	@$(S)/kconfig.sh $(PATCHED) $(PATCHED)/obj $(fragments)
	@$(S)/build-kernel.sh $(PATCHED) $(PATCHED)/obj

## kernel-base: build the unpatched kernel
# The baseline gets the same fragments; symbols only the series defines
# (its KUnit test) are left out there.
kernel-base: apply
	@UNKNOWN_OK=1 $(S)/kconfig.sh $(UNPATCHED) $(UNPATCHED)/obj $(fragments)
	@$(S)/build-kernel.sh $(UNPATCHED) $(UNPATCHED)/obj

## kernels: build both
kernels: kernel-patched kernel-base

## selftests: build the series' kselftests and the workbench's guards
selftests: apply
	@$(S)/build-selftests.sh $(PATCHED) $(PATCHED)/obj $(KSFT) block
	@$(S)/build-guards.sh $(PATCHED) $(PATCHED)/obj $(KSFT)

## initramfs: the guest's initramfs (busybox, the tests, their programs)
initramfs: selftests
	@$(S)/initramfs.sh $(KSFT) $(INITRAMFS)

# $(call guest-run,BZIMAGE,NAME[,INITRAMFS,COMMAND]): boot BZIMAGE, run
# COMMAND (default: the block kselftests, from $(INITRAMFS)); TAP in
# $(T)/NAME.tap, a failed boot counted there as a failed test.
define guest-run
	@mkdir -p $(T)
	@ALLOW_CMD_FAIL=1 $(S)/boot.sh $(1) $(or $(3),$(INITRAMFS)) $(T)/$(2) '$(or $(4),$(GUEST_CMD))' || \
		echo "not ok - boot of the $(2) kernel (see above)" >>$(T)/$(2)/output.log
	@grep -av '^WB-EXIT=' $(T)/$(2)/output.log >$(T)/$(2).tap || true
endef

# $(call variant,TREE,OBJ,FRAGMENT): the kernel of TREE ($(PATCHED) or
# $(UNPATCHED)) with FRAGMENT on top of the usual fragments, built in OBJ; on
# $(UNPATCHED), as for kernel-base, symbols only the series defines are left out.
define variant
	@$(if $(filter $(UNPATCHED),$(1)),UNKNOWN_OK=1 )$(S)/kconfig.sh $(1) $(2) $(fragments) $(3)
	@$(S)/build-kernel.sh $(1) $(2)
endef

## run-patched: one boot of the patched kernel (GUEST_CMD)
run-patched: kernel-patched initramfs
	$(call guest-run,$(BZ_PATCHED),patched)

# On the unpatched kernel the series' proofs must fail: that is the proof
# that they discriminate. Its own results are not counted, only that
# proof: each case config/baseline-must-fail names (and
# config/baseline-must-fail-$(BASE), those that fail on one base only)
# must have failed. The series' guards run too, their results not counted.
# Then the proofs once more without BLK_PROOFS=1, their results named
# "ungated: ": on a kernel before the release that has the series they
# must skip (config/baseline-must-skip).
BASELINE_CMD := ./run_kselftest.sh -c block; $(SERIES_ON_NVME)
UNGATED      := BLK_PROOFS= KSELFTEST_ZEROOUT_ARGS="-t huge_folio" \
	./run_kselftest.sh -t block:zeroout -t block:dio_split | \
	$(call tap_prefix,ungated)
MUST_FAIL    := config/baseline-must-fail $(wildcard config/baseline-must-fail-$(BASE))
## run-baseline: the unpatched kernel's boot: the baseline proof
run-baseline: kernel-base initramfs
	$(call guest-run,$(BZ_BASE),baseline,,$(BASELINE_CMD); $(UNGATED))
	@$(S)/baseline-proof.sh $(MUST_FAIL) config/baseline-must-skip $(T)/baseline.tap >$(T)/baseline-proof.tap

# The patched kernel with KASAN, UBSAN, lockdep, DEBUG_VM, KFENCE and
# friends (config/debug.config): every kselftest and KUnit case, then, in
# a boot of their own, the fault and stress cases of guest/stress. No splat.
DEBUG_BZ    := $(PATCHED)/obj-debug/arch/x86/boot/bzImage
STRESS_CPIO := $(B)/stress/initramfs.cpio
STRESS_SECS ?= 30
# The guards dio_io and dio_align are left out here: v5's 520 single-bio
# cases of dio_io took over 20 minutes under KASAN and TCG (220 now, the
# ext4 and scsi_debug fixtures beside them: still long); dio_align builds
# a 64 MiB buffer of single pages per case. dio_verify.sh's
# fio jobs of up to 64 MiB per I/O drive the trimming path on this kernel.
# Those programs get 30 minutes each (-o); the series' dio_split then
# runs all its cases within its own settings, as a debug kernel of
# KernelCI would. Their bios of single pages are split without a walk,
# which CONFIG_BLK_DEBUG_SPLIT (config/debug.config) checks against the
# walk on every split.
DEBUG_CMD := ./run_kselftest.sh -o 1800 \
	-t blk_guards:zeroout_first_use -t blk_guards:zeroout -t blk_guards:dio_verify.sh \
	-t block:zeroout; ./run_kselftest.sh -t block:dio_split
## run-debug: the debug kernel's boot (make test-debug's)
# KASAN under TCG is slow: the boots get an hour, not 30 min.
run-debug: export TIMEOUT := 3600
run-debug: apply initramfs
	$(call variant,$(PATCHED),$(PATCHED)/obj-debug,config/debug.config)
	$(call guest-run,$(DEBUG_BZ),debug,,$(DEBUG_CMD))
	@$(S)/guest-initramfs.sh $(INITRAMFS) $(PATCHED)/tools/testing/selftests guest/stress $(STRESS_CPIO)
	$(call guest-run,$(DEBUG_BZ),stress,$(STRESS_CPIO),/stress/blk_stress $(STRESS_SECS))

# $(call debug_tap,TESTDIR): the debug run's results (test-all reads 6.12's).
debug_tap = debug=$(1)/debug.tap debug-kunit=$(1)/debug/console.log stress=$(1)/stress.tap
DEBUG_TAP := $(call debug_tap,$(T))
## test-debug: the patched kernel with KASAN, UBSAN, lockdep and DEBUG_VM:
## the kselftests, KUnit, the fault and stress cases (STRESS_SECS each)
test-debug: run-debug
	@$(S)/tap-summary.sh $(DEBUG_TAP)

# Without THP there is no huge zero folio: zeroing must take ZERO_PAGE.
NOTHP_BZ  := $(PATCHED)/obj-nothp/arch/x86/boot/bzImage
NOTHP_TAP := nothp=$(T)/nothp.tap nothp-kunit=$(T)/nothp/console.log
## run-nothp: the boot of the kernel without THP
run-nothp: apply initramfs
	$(call variant,$(PATCHED),$(PATCHED)/obj-nothp,config/nothp.config)
	$(call guest-run,$(NOTHP_BZ),nothp)

## test-nothp: the patched kernel without CONFIG_TRANSPARENT_HUGEPAGE
test-nothp: run-nothp
	@$(S)/tap-summary.sh $(NOTHP_TAP)

# BASE=7.1 only: the mainline series with CONFIG_PERSISTENT_HUGE_ZERO_FOLIO=y
# (config/persistent.config), the shape tests of the baseline proof and
# KUnit: they must pass there too (the cases that need the folio to
# follow use_zero_page, or a first allocation, skip and say why).
PERSISTENT_BZ  := $(PATCHED)/obj-persistent/arch/x86/boot/bzImage
PERSISTENT_TAP := persistent=$(T)/persistent.tap persistent-kunit=$(T)/persistent/console.log
## run-persistent: the boot with CONFIG_PERSISTENT_HUGE_ZERO_FOLIO=y
run-persistent: apply initramfs
	$(if $(filter 7.1,$(BASE)),,$(error run-persistent: CONFIG_PERSISTENT_HUGE_ZERO_FOLIO does not exist in Linux 6.12: make BASE=7.1 run-persistent))
	$(call variant,$(PATCHED),$(PATCHED)/obj-persistent,config/persistent.config)
	$(call guest-run,$(PERSISTENT_BZ),persistent,,$(BASELINE_CMD))

## test-persistent: the series with CONFIG_PERSISTENT_HUGE_ZERO_FOLIO=y:
## the shape tests and KUnit
test-persistent: run-persistent
	@$(S)/tap-summary.sh $(PERSISTENT_TAP)

# The bystander boot: nothing named to the tests, one NVMe namespace of
# random data beside them (config/bystander.topology). Every kselftest
# and guard but dio_align (dio_io's 274 cases too) makes its own null_blk
# and scsi_debug devices (3 GiB guest: a memory-backed null_blk of
# 1280 MiB); they must pass,
# leave the namespace unchanged and remove what they made
# (guest/bystander/run.sh), and each skip must have a reason
# config/bystander-skips allows (scripts/skip-check.sh): none for want of
# a device, a driver or an option.
BYSTANDER_CPIO := $(B)/bystander/initramfs.cpio
# dio_align is for the NVMe namespaces (the plain boot of make test): it
# reads back writes through bios trimmed under a real driver's limits.
BYSTANDER_CMD  := /bystander/run.sh -c blk_guards -c block -S blk_guards:dio_align
## run-bystander: the tests on devices they make, beside a disk nobody
## named to them (it must read back unchanged), and the kill cases
run-bystander: export TOPOLOGY := $(abspath config/bystander.topology)
run-bystander: export MEM := 3G
# It ran past 30 min on this 2-core machine while kernels were built
# beside it. An hour.
run-bystander: export TIMEOUT := 3600
run-bystander: kernel-patched initramfs
	@$(S)/guest-initramfs.sh $(INITRAMFS) $(PATCHED)/tools/testing/selftests guest/bystander $(BYSTANDER_CPIO) \
		/usr/bin/setpriv
	$(call guest-run,$(BZ_PATCHED),bystander,$(BYSTANDER_CPIO),$(BYSTANDER_CMD))
	@$(S)/skip-check.sh config/bystander-skips $(T)/bystander.tap >$(T)/bystander-skips.tap

# THP in madvise mode (Ubuntu's default; the guests' kernels default to
# always, as Debian's): the cases that ask madvise() for huge pages
# (the fixtures of dio_io with THP buffers: dio_bios, dio_fs,
# dio_sdebug) or for single pages (dio_split) must run and pass
# there too, each skip allowed by config/thp-madvise-skips. (All of
# dio_io: minutes more. dio_align runs on the NVMe namespaces only.)
THP_MADVISE_CMD := echo "\# THP: $$(cat /sys/kernel/mm/transparent_hugepage/enabled)"; \
	export KSELFTEST_DIO_IO_ARGS="-f dio_bios -f dio_fs -f dio_sdebug"; \
	./run_kselftest.sh -t block:dio_split -t blk_guards:dio_io
## run-thp-madvise: the THP cases with THP in madvise mode
run-thp-madvise: export APPEND := transparent_hugepage=madvise
run-thp-madvise: export MEM := 3G
run-thp-madvise: kernel-patched initramfs
	$(call guest-run,$(BZ_PATCHED),thp-madvise,,$(THP_MADVISE_CMD))
	@$(S)/skip-check.sh config/thp-madvise-skips $(T)/thp-madvise.tap >$(T)/thp-madvise-skips.tap

# make blktests: blktests (../shared/blktests-a608cb5.tar.xz, unpacked,
# with our blktests series patches/blktests applied (block/053 to 056), and
# built in $(B)/blktests) in the guest, on the patched and the unpatched
# kernel of this base ($(PATCHED), $(UNPATCHED): BASE=6.12 gives them other
# trees), each built with config/suites.config (null_blk, scsi_debug,
# loop, XFS, the NVMe loop target, dm, md as modules; DEBUG_VM, and the
# series' BLK_DEBUG_SPLIT on the patched kernel) in TREE/obj-suites. The
# groups BLKTESTS_GROUPS run whole: their tests that take a test device on
# the NVMe namespaces and on a null_blk and a scsi_debug disk the guest
# makes, at each device's default max_sectors_kb and at BLKTESTS_SMALL_KB
# (the namespace without Write Zeroes at its default, the other at
# BLKTESTS_SMALL_KB); the rest make their own devices, at the drivers' defaults and, those
# that make a null_blk, at null_blk's max_sectors of BLKTESTS_SMALL_KB
# (guest/blktests/run.sh). A timed test's fio runs BLKTESTS_TIMEOUT
# seconds. The two kernels' guests run side by side, one vCPU each.
# Fails by the rule of scripts/suite-report.sh (a test that does not pass
# on the patched kernel and had another result on the baseline, a
# baseline test missing on the patched kernel, an incomplete run, a splat
# on the patched kernel's console). Not in make test (CI's time budget),
# in make test-all.
BLKTESTS_TAR    ?= $(abspath ../shared/blktests-a608cb5.tar.xz)
BLKTESTS_SMALL_KB ?= 60
# 6.12: the block group (the one the series' changes meet first), for the
# time a session has.
BLKTESTS_GROUPS ?= $(if $(filter 6.12,$(BASE)),block,block loop nvme scsi dm md zbd)
BLKTESTS_TIMEOUT ?= 30
# Tests (or groups) with a test device, run on each device kind and
# limit, then the tests that make their own devices.
BLKTESTS_DEV    ?= $(BLKTESTS_GROUPS)
BLKTESTS_NODEV  ?= $(BLKTESTS_GROUPS)
BT              := $(B)/blktests
BT_OBJ          := obj-suites
BT_KERNELS      := patched=$(PATCHED) baseline=$(UNPATCHED)
bt_tree          = $(patsubst $(1)=%,%,$(filter $(1)=%,$(BT_KERNELS)))
# Then our cases (patches/blktests), each stopped by SIGTERM and by
# SIGKILL part way (guest/blktests/kill.sh): nothing of them may be left.
BLKTESTS_KILL   ?= block/053 block/054 block/055 block/056
# Tests left out of every pass (check -x), each for a reason of the base
# that docs/suites.md shows on the unpatched kernel: block/047 is the
# regression test of 4ff58d6bc9dd ("block: serialize elevator changes for
# the same queue using a writer lock", 7.2-rc4), which 7.1.5 has not: its
# concurrent scheduler writers panic the guest, patched or not, and a
# panic ends the run.
BLKTESTS_EXCLUDE ?= $(if $(filter 6.12,$(BASE)),,block/047)
BT_CMD          := BLKTESTS_EXCLUDE='$(BLKTESTS_EXCLUDE)' TIMEOUT=$(BLKTESTS_TIMEOUT) /blktests/run.sh $(BLKTESTS_SMALL_KB) $(BLKTESTS_DEV) -- $(BLKTESTS_NODEV)$(if \
	$(strip $(BLKTESTS_KILL)),; /blktests/kill.sh $(BLKTESTS_KILL))

## blktests-build: unpack, patch (patches/blktests) and build blktests
blktests-build: deps
	@$(S)/deps.sh blktests
	@$(S)/suite-build.sh $(BLKTESTS_TAR) $(BT) patches/blktests

BT_NAMES        := patched baseline
# $(call suites-kernel,NAME,OBJ[,FRAGMENTS]): the suites kernel of NAME
# (patched or baseline), config/suites.config and FRAGMENTS, in TREE/OBJ.
suites-kernel    = $(call variant,$(call bt_tree,$(1)),$(call bt_tree,$(1))/$(2),config/suites.config $(3))
$(addprefix kernel-suites-,$(BT_NAMES)): kernel-suites-%: apply
	$(call suites-kernel,$*,$(BT_OBJ))

# One boot per kernel; its initramfs: the usual one, blktests, the Debian
# programs it runs and the kernel's modules.
BT_RUNS         := $(addprefix run-blktests-,$(BT_NAMES))
$(BT_RUNS): export MODULES_OWN_PARAMS := 1
$(BT_RUNS): export MEM := 3G
$(BT_RUNS): export SMP := 1
$(BT_RUNS): export TIMEOUT := 5400
$(BT_RUNS): run-blktests-%: kernel-suites-% blktests-build initramfs
	@$(S)/suite-initramfs.sh $(INITRAMFS) $(call bt_tree,$*)/$(BT_OBJ) $(BT) config/blktests.packages \
		guest/blktests $(B)/blktests-guest/initramfs-$*.cpio
	$(call guest-run,$(call bt_tree,$*)/$(BT_OBJ)/arch/x86/boot/bzImage,blktests-boot-$*,$(B)/blktests-guest/initramfs-$*.cpio,$(BT_CMD))

# The tables, the rule (its exit status is make blktests'), then the count
# of all three TAP files (failures on both kernels are counted there, not
# fatal: the rule is what must hold).
BLKTESTS_TAP := blktests-baseline=$(T)/blktests-baseline.tap \
	blktests-patched=$(T)/blktests-patched.tap blktests-rule=$(T)/blktests-rule.tap \
	blktests-kill=$(T)/blktests-kill.tap
## blktests: blktests' groups (BLKTESTS_GROUPS) on the patched and the
## unpatched kernel side by side; fails if a test passes only unpatched
## or the patched kernel splats (docs/suites.md)
blktests:
	@mkdir -p $(T) && rm -f $(T)/blktests-rule.tap $(T)/blktests-kill.tap
	@$(MAKE) --no-print-directory $(addprefix kernel-suites-,$(BT_NAMES)) blktests-build initramfs
	@$(MAKE) --no-print-directory -j2 $(BT_RUNS)
	@rc=0; $(S)/suite-report.sh blktests $(T) $(T)/blktests-boot-baseline/output.log \
		$(T)/blktests-boot-patched/output.log || rc=1; \
	$(S)/kill-tap.sh $(T)/blktests-boot-patched/output.log $(BLKTESTS_KILL) >$(T)/blktests-kill.tap || rc=1; \
	$(S)/tap-summary.sh $(BLKTESTS_TAP) || true; exit $$rc

# make fstests: fstests (FSTESTS_TAR, ../shared/fstests-63a2972.tar.xz,
# built on the host in $(B)/fstests) in the guest, on the patched and the
# unpatched kernel (the kernels of make blktests: config/suites.config,
# with CONFIG_DEBUG_VM on both and CONFIG_BLK_DEBUG_SPLIT on the patched
# one), on the NVMe namespaces of config/fstests.topology as TEST_DEV and
# SCRATCH_DEV, for each file system of FSTESTS_FS: the tests of
# FSTESTS_LIST (config/fstests.tests says which and why), in its order
# (guest/fstests/run.sh says how the run reaches the series' paths).
# The two guests run side by side, one vCPU each. Fails by the rule of
# scripts/suite-report.sh (a test that does not pass on the patched
# kernel and had another result on the baseline, a baseline test missing
# on the patched kernel, a listed test without a result, an incomplete
# run, a splat on the patched kernel's console). In make test-all, not
# make test.
FSTESTS_TAR     ?= $(abspath ../shared/fstests-63a2972.tar.xz)
FSTESTS_LIST    ?= config/fstests.tests
FSTESTS_FS      ?= xfs ext4
# Seconds each kernel's boot may take, both file systems: a bound for a
# hung guest, above the list's 90-minute budget (doubled for the debug
# kernels).
FSTESTS_TIMEOUT ?= $(if $(FSTESTS_DEBUG),14400,7200)
# File system block size in bytes: default (mkfs's, 4 KiB), or 1024 for
# a run of its own with sub-page blocks (its logs and tables named
# fstests-1024-*), where direct I/O of less than a page runs.
FSTESTS_BLOCK   ?= default
# FSTESTS_DEBUG=1: a run of its own on both kernels built with the kernel's
# debugging machinery too (config/debug.config: KASAN, lockdep, UBSAN,
# DEBUG_VM; config/suites-debug.config: XFS_DEBUG) in TREE/obj-suites-debug;
# its logs and tables named fstests-debug-* (fstests-1024-debug-*).
FSTESTS_DEBUG   ?=
# FSTESTS_PART=K/N: the K-th of N parts of FSTESTS_LIST
# (scripts/list-part.sh), for a list too slow for one run (the debug
# kernels under TCG): a run of its own, its logs and tables named so
# (fstests-debug-1of3-*).
FSTESTS_PART    ?=
ifneq ($(FSTESTS_PART),)
ifneq ($(shell scripts/list-part.sh /dev/null '$(FSTESTS_PART)' 2>/dev/null && echo ok),ok)
$(error FSTESTS_PART=$(FSTESTS_PART): give K/N, the K-th of N parts of FSTESTS_LIST, 1 <= K <= N)
endif
endif
FT              := $(B)/fstests
FT_DEBUG_OBJ    := $(BT_OBJ)-debug
FT_OBJ          := $(if $(FSTESTS_DEBUG),$(FT_DEBUG_OBJ),$(BT_OBJ))
FT_NAME         := fstests$(if $(filter default,$(FSTESTS_BLOCK)),,-$(FSTESTS_BLOCK))$(if $(FSTESTS_DEBUG),-debug)$(if $(FSTESTS_PART),-$(subst /,of,$(FSTESTS_PART)))
# The list a run sends, in $(FT) (the guest's /opt/fstests), named by the run.
FT_TESTS        := $(FT_NAME).tests
FT_CMD          := /fstests/run.sh /opt/fstests/$(FT_TESTS) $(FSTESTS_BLOCK) $(FSTESTS_FS)
## fstests-build: unpack and build fstests
fstests-build: deps
	@$(S)/deps.sh fstests
	@$(S)/suite-build.sh $(FSTESTS_TAR) $(FT)
	@$(S)/list-part.sh $(FSTESTS_LIST) $(or $(FSTESTS_PART),1/1) >$(FT)/$(FT_TESTS)

$(addprefix kernel-suites-debug-,$(BT_NAMES)): kernel-suites-debug-%: apply
	$(call suites-kernel,$*,$(FT_DEBUG_OBJ),config/debug.config config/suites-debug.config)

FT_KERNEL       := kernel-suites$(if $(FSTESTS_DEBUG),-debug)
FT_RUNS         := $(addprefix run-fstests-,$(BT_NAMES))
$(FT_RUNS): export MODULES_OWN_PARAMS := 1
$(FT_RUNS): export TOPOLOGY := $(abspath config/fstests.topology)
# KASAN's shadow and quarantine take an eighth and more of the debug
# kernels' memory: a gigabyte more for them.
$(FT_RUNS): export MEM := $(if $(FSTESTS_DEBUG),3G,2G)
$(FT_RUNS): export SMP := 1
$(FT_RUNS): export APPEND := transparent_hugepage=madvise
$(FT_RUNS): export TIMEOUT := $(FSTESTS_TIMEOUT)
$(FT_RUNS): run-fstests-%: $(FT_KERNEL)-% fstests-build initramfs
	@$(S)/suite-initramfs.sh $(INITRAMFS) $(call bt_tree,$*)/$(FT_OBJ) $(FT) config/fstests.packages \
		guest/fstests $(B)/fstests-guest/initramfs-$(FT_OBJ)-$*.cpio
	$(call guest-run,$(call bt_tree,$*)/$(FT_OBJ)/arch/x86/boot/bzImage,$(FT_NAME)-boot-$*,$(B)/fstests-guest/initramfs-$(FT_OBJ)-$*.cpio,$(FT_CMD))

# Kernels, fstests and the initramfs first, one after the other; then the
# two guests side by side; then the tables and the rule.
FSTESTS_TAP := $(foreach k,baseline patched rule,$(FT_NAME)-$(k)=$(T)/$(FT_NAME)-$(k).tap)
## fstests: fstests (FSTESTS_LIST) on XFS and ext4 on NVMe, on the
## patched and the unpatched 7.1.5 kernel side by side; the same rule
fstests:
	@mkdir -p $(T) && rm -f $(T)/$(FT_NAME)-rule.tap
	@$(MAKE) --no-print-directory $(addprefix $(FT_KERNEL)-,$(BT_NAMES)) fstests-build initramfs
	@$(MAKE) --no-print-directory -j2 $(FT_RUNS)
	@rc=0; $(S)/suite-report.sh $(FT_NAME) $(T) $(T)/$(FT_NAME)-boot-baseline/output.log \
		$(T)/$(FT_NAME)-boot-patched/output.log $(FT)/$(FT_TESTS) || rc=1; \
	$(S)/tap-summary.sh $(FSTESTS_TAP) || true; exit $$rc

## tool-checks: shellcheck, make help's check, the scanners on recorded logs
# The workbench's own tools, whatever the base: shellcheck, and its
# scanners and summaries on recorded logs.
tool-checks: deps
	@$(S)/deps.sh host
	@mkdir -p $(T) && rm -f $(T)/tools.tap
	@$(S)/tap-run.sh $(T)/tools.tap "shellcheck of scripts/, guest/ and .ci/run" \
		shellcheck -x $(S)/*.sh guest/init guest/*/*.sh \
		guest/blktests/bin/udevadm guest/blktests/bin/modprobe guest/blktests/bin/sudo guest/fstests/bin/dmsetup .ci/run
	@$(S)/tap-run.sh $(T)/tools.tap "console scanner and TAP summary on recorded logs" \
		$(S)/selftest-tools.sh
	@$(S)/tap-run.sh $(T)/tools.tap "make help: every target and variable has its entry" \
		$(S)/make-help.sh Makefile --check
	@$(S)/tap-run.sh $(T)/tools.tap "wrong source variables (KERNEL_TREE, LINUX_TARBALL, a misspelling) and FSTESTS_PART stop with what to give, leaving no build directory" \
		$(S)/invocation-check.sh

# The series of this base on the host: repo copies, quilt, make send.
# The README's command blocks that make test runs as they are written
# (scripts/readme-check.sh): the 7.1 series' git am and quilt lines, the
# re-authoring after git am, and KUnit under UML.
README_CHECKS := $(if $(filter 7.1,$(BASE)),git-am quilt reauthor kunit)
# The patches of our blktests series: make send's dry run must show each
# and the cover letter, each to the blktests maintainer.
BT_PATCHES := $(shell grep -c . patches/blktests/series)
## host-checks: the repository's copies of the added files, quilt against
## git am, the README's command blocks, KERNEL_TREE's, each mail through a
## local SMTP server and b4 am, each mail built alone on its base
host-checks: apply
	@$(S)/deps.sh host
	@mkdir -p $(T) && rm -f $(T)/host.tap
	@$(S)/tap-run.sh $(T)/host.tap "repo copies of added files match the series" \
		$(S)/check-series-sync.sh $(PATCHED) $$(cat $(B)/base-commit) $(abspath $(PATCHES))
	@$(S)/tap-run.sh $(T)/host.tap "quilt push -a gives the same tree as git am" \
		$(S)/quilt-check.sh $(B) $$(cat $(B)/base-commit) $(PATCHED) $(PATCHES)
	@$(S)/tap-run.sh $(T)/host.tap "KERNEL_TREE= writes nothing in the given repository (config, refs, worktrees)" \
		$(S)/kernel-tree-check.sh $(B) $(BASE)
	@$(foreach c,$(README_CHECKS),$(S)/tap-run.sh $(T)/host.tap "README: the $(c) block as written" \
		$(S)/readme-check.sh $(B) README.md $(c);)
	@$(S)/tap-run.sh $(T)/host.tap "README and docs/ name only targets, variables and files that exist" \
		$(S)/docs-check.sh $(PATCHED) README.md docs/*.md $(wildcard */README.md)
	@for d in $(MAIL_SETS); do \
		$(S)/tap-run.sh $(T)/host.tap "make send of $$d through a local SMTP server: threading, per-patch recipients, the sender's From: and sign-off, b4 am then git am of the mails gives its patches" \
			$(S)/test-send.sh $(B) $$(cat $(B)/base-commit) $$d; \
	done
	@$(if $(filter 7.1,$(BASE)),$(S)/tap-run.sh $(T)/host.tap "each mail builds alone on the base its cover letter names (W=1)" \
		$(S)/mail-build-check.sh $(B) $$(cat $(B)/base-commit) $(MAIL_SETS))
	@$(S)/tap-run.sh $(T)/host.tap "make send REPORT=docs/io-wq: a dry run of the io-wq report, to io_uring's maintainer and list" \
		bash -c 'FROM="Workbench Test <test@example.org>" $(S)/send-report.sh $(B) docs/io-wq | grep -q "Cc: io-uring@vger.kernel.org"'
	@$(foreach r,$(REPLIES),$(S)/tap-run.sh $(T)/host.tap "make send: a dry run of the reply $(r), In-Reply-To and To its thread, the Tested-by the sender's" \
		bash -c 'FROM="Workbench Test <test@example.org>" $(S)/send-report.sh $(B) $(r) | grep -c -e "In-Reply-To: <.*>" -e "To: .*@" | grep -qx 2 && \
		grep -qx "Tested-by: Workbench Test <test@example.org>" $(B)/outgoing-report/report.eml';)
	@$(S)/tap-run.sh $(T)/host.tap "make send SERIES=blktests: a dry run of the blktests series, [PATCH blktests m/n] to its maintainer and linux-block" \
		bash -c 'FROM="Workbench Test <test@example.org>" $(S)/send-series.sh $(B) - patches/blktests | \
		grep -c -e "^send-series: \[PATCH blktests [0-$(BT_PATCHES)]/$(BT_PATCHES)\]" -e "To: .*shinichiro.kawasaki@wdc.com" | \
		grep -qx $$((2 * ($(BT_PATCHES) + 1)))'
	@$(S)/tap-run.sh $(T)/host.tap "make send SERIES=blktests: the Copyright lines the patches add name the sender, not the placeholder" \
		bash -c 'c=$$(grep -h "^+.*Copyright" $(B)/outgoing/blktests/0*.patch); [ -n "$$c" ] && ! grep -v "Copyright (C) [0-9]* Workbench Test <test@example.org>$$" <<<"$$c"'

# $(call test_tap,TESTDIR): make test's results of one base.
test_tap = tools=$(1)/tools.tap checkpatch=$(1)/checkpatch.tap host=$(1)/host.tap patched=$(1)/patched.tap \
	kunit=$(1)/patched/console.log baseline=$(1)/baseline-proof.tap \
	bystander=$(1)/bystander.tap bystander-skips=$(1)/bystander-skips.tap \
	thp-madvise=$(1)/thp-madvise.tap thp-madvise-skips=$(1)/thp-madvise-skips.tap \
	kunit-module=$(1)/kunit-module.tap kunit-module-cases=$(1)/kunit-module/console.log \
	$(call debug_tap,$(1))
# KUnit on arm64 (kunit-arm64, below): one KTAP per page size.
ARM64_PAGES     ?= 4 16 64
KUNIT_ARM64_TAP := $(foreach k,$(ARM64_PAGES),kunit-arm64-$(k)k=$(B)/kunit-arm64/$(k)k.ktap)
TEST_TAP := $(call test_tap,$(T)) $(KUNIT_ARM64_TAP)

# make test covers both series: every step of this base, and of the
# backport (BASE=6.12) its host checks, its patched kernel's shape tests
# (those the baseline proof runs) and KUnit, and its baseline's proof.
# make BASE=6.12 test adds its bystander and debug boots (test-all runs
# it): CI's 90 minutes do not hold both bases whole.
## BACKPORT_TARBALL=FILE: from 7.1, the 6.12 sources of make test's and
## test-all's backport steps (default Debian's linux-source-6.12):
## LINUX_TARBALL and KERNEL_TREE name 7.1's
## BACKPORT_TREE=DIR: or a git tree at 6.12
BACKPORT   := $(MAKE) --no-print-directory BASE=6.12 LINUX_TARBALL=$(BACKPORT_TARBALL) KERNEL_TREE=$(BACKPORT_TREE)
BACKPORT_T := $(abspath build/6.12/test)
ifeq ($(BASE),7.1)
BACKPORT_TAP := backport-checkpatch=$(BACKPORT_T)/checkpatch.tap \
	backport-host=$(BACKPORT_T)/host.tap backport=$(BACKPORT_T)/patched.tap \
	backport-kunit=$(BACKPORT_T)/patched/console.log \
	backport-baseline=$(BACKPORT_T)/baseline-proof.tap \
	backport-kunit-module=$(BACKPORT_T)/kunit-module.tap \
	backport-kunit-module-cases=$(BACKPORT_T)/kunit-module/console.log
endif

## run-backport: make test's steps of the 6.12 backport (from BASE=7.1)
# The backport's part of make test, each line of it prefixed "6.12: "
# ("+": a make runs there, which make does not see through $(BACKPORT)).
# GUEST_CMD names the sub-make's own BASELINE_CMD rather than this
# make's value: that holds $$BLK_NOWZ_DEV, which the sub-make would
# expand again (as $(B)LK_NOWZ_DEV).
run-backport:
	@+$(BACKPORT) GUEST_CMD='$$(BASELINE_CMD)' checkpatch host-checks run-patched run-baseline \
		kunit-parse run-kunit-module 2>&1 | sed -u 's/^/6.12: /'

## kunit-arm64: the series' KUnit on arm64 at each page size of ARM64_PAGES
# KUnit of the series on arm64 with 4, 16 and 64 KiB pages
# (scripts/kunit-arm64.sh: the kernel's kunit.py, cross-built, under
# qemu-system-aarch64): the O(1) answers of the direct I/O patches are
# stated in PAGE_SIZE, and the grids check them against the walk there.
kunit-arm64: apply deps
	@$(S)/deps.sh arm64
	@$(S)/kunit-arm64.sh $(PATCHED) $(B)/kunit-arm64 $(ARM64_PAGES)

# make arm64: the patched and the unpatched kernel of this base for arm64
# with each page size of ARM64_PAGES (4, 16, 64 KiB), cross-built in
# TREE/obj-arm64-PAGEk (config/arm64.config on top of the usual fragments),
# each booted under qemu-system-aarch64 (virt, TCG) on the NVMe namespaces
# with an initramfs of Debian's arm64 programs (scripts/arm64-userland.sh:
# busybox, mkfs.xfs, bash and what else blktests runs, with their
# libraries) and the series' kselftests, cross-built and static ($(A64)):
# they run on null_blk and on the
# namespaces, as BASELINE_CMD; KUnit does not run at boot (kunit-arm64
# runs it at each page size). The unpatched kernels' results go through
# the baseline proof, as on x86_64: the summary counts the patched
# kernels' TAP ($(T)/arm64-patched-PAGEk.tap) and the proofs
# ($(T)/arm64-baseline-proof-PAGEk.tap).
A64        := $(B)/arm64
A64_RUNS   := $(foreach k,$(ARM64_PAGES),run-arm64-patched-$(k)k run-arm64-baseline-$(k)k)
a64_kb      = $(patsubst %k,%,$(lastword $(subst -, ,$(1))))
a64_tree    = $(if $(filter patched-%,$(1)),$(PATCHED),$(UNPATCHED))
a64_obj     = $(call a64_tree,$(1))/obj-arm64-$(call a64_kb,$(1))k
ARM64_TAP  := $(foreach k,$(ARM64_PAGES),arm64-$(k)k=$(T)/arm64-patched-$(k)k.tap \
	arm64-baseline-$(k)k=$(T)/arm64-baseline-proof-$(k)k.tap \
	arm64-blktests-$(k)k=$(T)/arm64-blktests-$(k)k/blktests-patched.tap \
	arm64-blktests-rule-$(k)k=$(T)/arm64-blktests-$(k)k/blktests-rule.tap \
	arm64-blktests-baseline-$(k)k=$(T)/arm64-blktests-$(k)k/baseline-proof.tap)
# The series' skips that name the page size: where pages are not 4 KiB a
# proof that skips with one of these on the unpatched kernel is a skip.
A64_PAGE_SKIPS := ^PMD size [0-9]+ KiB, not 2 MiB|built for 4 KiB pages
# Then a second boot of each kernel runs the series' blktests cases
# (A64_BLKTESTS; their null_blk is built in: these kernels have no
# modules) with blktests cross-built ($(A64)/blktests); the report and
# rule of make blktests per page size ($(T)/arm64-blktests-PAGEk/), and
# each case must fail on the unpatched kernel (config/blktests-must-fail)
# or skip there for the page size.
A64_BLKTESTS   := block/053 block/054 block/055 block/056
A64_BT_RUNS    := $(foreach k,$(ARM64_PAGES),run-arm64-blktests-patched-$(k)k run-arm64-blktests-baseline-$(k)k)
A64_BT_SKIPS   := $(A64_PAGE_SKIPS)|huge zero folio of [0-9]+ bytes, not 2 MiB
A64_USERLAND   := $(A64)/userland/root
$(A64_RUNS) $(A64_BT_RUNS) arm64-initramfs arm64-blktests-build: export WB_ARCH := arm64
$(A64_RUNS): export APPEND := kunit.enable=0
## arm64-initramfs: make arm64's initramfs (Debian's arm64 programs)
arm64-initramfs: apply deps
	@$(S)/deps.sh arm64 arm64-ksft
	@$(S)/build-selftests.sh $(PATCHED) $(PATCHED)/obj-arm64 $(A64)/kselftest block
	@$(S)/arm64-userland.sh $(A64)/userland busybox-static libc-bin $$(. $(S)/lib.sh && wb_list config/blktests.packages)
	@WB_USERLAND=$(A64_USERLAND) $(S)/initramfs.sh $(A64)/kselftest $(A64)/initramfs.cpio

arm64-blktests-build: deps
	@$(S)/deps.sh arm64 arm64-ksft
	@$(S)/suite-build.sh $(BLKTESTS_TAR) $(A64)/blktests patches/blktests

$(A64_BT_RUNS): run-arm64-blktests-%: run-arm64-% arm64-blktests-build
	@$(S)/suite-initramfs.sh $(A64)/initramfs.cpio $(call a64_obj,$*) $(A64)/blktests config/blktests.packages \
		guest/blktests $(A64)/blktests-initramfs-$*.cpio
	$(call guest-run,$(call a64_obj,$*)/arch/arm64/boot/Image,arm64-blktests-$*,$(A64)/blktests-initramfs-$*.cpio,/blktests/run.sh $(BLKTESTS_SMALL_KB) -- $(A64_BLKTESTS))

arm64-blktests-%k: run-arm64-blktests-baseline-%k run-arm64-blktests-patched-%k
	@$(S)/suite-report.sh blktests $(T)/$@ $(T)/arm64-blktests-baseline-$*k/output.log \
		$(T)/arm64-blktests-patched-$*k/output.log || true
	@PROOF_SKIP_OK='$(A64_BT_SKIPS)' $(S)/baseline-proof.sh config/blktests-must-fail \
		$(T)/$@/blktests-baseline.tap >$(T)/$@/baseline-proof.tap

$(A64_RUNS): run-arm64-%: arm64-initramfs
	@mkdir -p $(A64) && printf 'CONFIG_ARM64_%sK_PAGES=y\n' $(call a64_kb,$*) >$(A64)/pages-$(call a64_kb,$*)k.config
	$(call variant,$(call a64_tree,$*),$(call a64_obj,$*),config/arm64.config $(A64)/pages-$(call a64_kb,$*)k.config)
	$(call guest-run,$(call a64_obj,$*)/arch/arm64/boot/Image,arm64-$*,$(A64)/initramfs.cpio,$(BASELINE_CMD))
	@$(if $(filter baseline-%,$*),PROOF_SKIP_OK='$(A64_PAGE_SKIPS)' $(S)/baseline-proof.sh $(MUST_FAIL) $(T)/arm64-$*.tap \
		>$(T)/arm64-baseline-proof-$(call a64_kb,$*)k.tap)

## arm64: the patched and the unpatched kernel for arm64 at each page size
## of ARM64_PAGES, booted under qemu-system-aarch64: the kselftests, the
## baseline proof, our blktests cases
arm64: $(A64_RUNS) $(foreach k,$(ARM64_PAGES),arm64-blktests-$(k)k)
	@$(S)/tap-summary.sh $(ARM64_TAP)

# The series' KUnit suite as a module (config/kunit-module.config, as
# CONFIG_KUNIT_ALL_TESTS=m builds it): the patched kernel built so in
# TREE/obj-kunit-m, its modules appended to the initramfs
# (scripts/module-initramfs.sh). The guest loads blk_size_kunit.ko, whose
# cases print their KTAP on the console, and unloads it; the summary
# counts both, the load and unload ($(T)/kunit-module.tap) and the cases
# ($(T)/kunit-module/console.log).
KMOD_OBJ := $(PATCHED)/obj-kunit-m
KMOD_CMD := echo 1..2; ko=$$(find /lib/modules -name blk_size_kunit.ko); \
	if [ -n "$$ko" ] && insmod "$$ko"; then echo "ok 1 insmod blk_size_kunit.ko"; \
	else echo "not ok 1 insmod blk_size_kunit.ko"; fi; \
	if rmmod blk_size_kunit; then echo "ok 2 rmmod blk_size_kunit"; \
	else echo "not ok 2 rmmod blk_size_kunit"; fi
## run-kunit-module: the series' KUnit suite built as a module (=m), loaded
## and unloaded in a guest
run-kunit-module: apply initramfs
	$(call variant,$(PATCHED),$(KMOD_OBJ),config/kunit-module.config)
	@$(S)/module-initramfs.sh $(INITRAMFS) $(KMOD_OBJ) $(B)/initramfs-kunit-m.cpio
	$(call guest-run,$(KMOD_OBJ)/arch/x86/boot/bzImage,kunit-module,$(B)/initramfs-kunit-m.cpio,$(KMOD_CMD))

## kunit-parse: kunit.py parse of the patched boot's console
kunit-parse: run-patched
	@$(S)/tap-run.sh $(T)/host.tap "kunit.py parse of the patched console" \
		$(PATCHED)/tools/testing/kunit/kunit.py parse $(T)/patched/console.log

# In make test the plain kernel's NVMe boot runs dio_align on the named
# namespaces, and KUnit: the debug boot runs the other tests that take
# named devices there, and the bystander boot every test on the devices
# it makes. make (and test-all, through make all) runs them all on NVMe.
TEST_STEPS := tool-checks checkpatch host-checks run-patched run-baseline run-bystander run-thp-madvise \
	run-debug kunit-parse run-kunit-module kunit-arm64

# make test's plain boot: the read-back guard on the NVMe namespaces, and
# the series' kselftests on each namespace ("nvme-nowz: ...", "nvme-wz:
# ..."); the bystander boot runs them on null_blk.
TEST_GUEST_CMD := ./run_kselftest.sh -t blk_guards:dio_align; $(SERIES_ON_NVME)
## test: everything that must hold (docs/workbench.md says what, in order);
## ends with "N passed, N failed, N skipped"
# One step at a time: two guests side by side, each with two vCPUs on this
# 2-core machine, took longer than one after the other (cold run of
# c8819af). The summary counts what ran, also after a failed step.
test:
	@rc=0; $(MAKE) --no-print-directory GUEST_CMD='$$(TEST_GUEST_CMD)' \
		$(TEST_STEPS) || rc=1; \
	$(if $(BACKPORT_TAP),$(MAKE) --no-print-directory run-backport || rc=1;) \
	$(S)/tap-summary.sh $(TEST_TAP) $(BACKPORT_TAP) || rc=1; exit $$rc

# make test, then every kselftest on the plain kernel's NVMe boot (make
# all), the THP-off kernel, make blktests, make fstests (7.1), make arm64
# and, from 7.1, make BASE=6.12 test and make BASE=6.12 blktests, even
# if make test failed; one summary (of blktests, its rule: failures on
# both kernels are listed by make blktests, not counted).
ALL_TAP := all=$(T)/patched.tap all-kunit=$(T)/patched/console.log
BACKPORT_ALL_TAP := $(if $(BACKPORT_TAP),$(addprefix backport-,$(call test_tap,$(BACKPORT_T))) \
	backport-blktests=$(BACKPORT_T)/blktests-rule.tap)
## test-all: test, then all, test-nothp, blktests, fstests, arm64 and (from
## 7.1) make BASE=6.12 test and blktests, one summary
test-all:
	@rc=0; $(MAKE) --no-print-directory test || rc=1; \
	$(MAKE) --no-print-directory all || rc=1; \
	$(MAKE) --no-print-directory run-nothp || rc=1; \
	$(MAKE) --no-print-directory blktests || rc=1; \
	$(if $(filter 7.1,$(BASE)),$(MAKE) --no-print-directory fstests || rc=1;) \
	$(MAKE) --no-print-directory arm64 || rc=1; \
	$(if $(BACKPORT_TAP),$(BACKPORT) test || rc=1; $(BACKPORT) blktests || rc=1;) \
	$(S)/tap-summary.sh $(filter-out patched=% kunit=%,$(TEST_TAP)) $(ALL_TAP) $(NOTHP_TAP) \
		blktests=$(T)/blktests-rule.tap $(if $(filter 7.1,$(BASE)),fstests=$(T)/fstests-rule.tap) $(ARM64_TAP) $(BACKPORT_ALL_TAP) || rc=1; exit $$rc

## shell: the patched kernel's guest, interactive
shell: kernel-patched initramfs
	@$(S)/boot.sh $(BZ_PATCHED) $(INITRAMFS) $(B)/shell

## check: every patch on its predecessors: checkpatch --strict, git am,
## builds (W=1, sparse, clang, in the source tree, KUnit =m with modpost,
## arm64 4K/16K/64K, i386, riscv64)
check: trees
	@$(S)/deps.sh check
	@$(S)/check-series.sh $(B) $$(cat $(B)/base-commit) $(PATCHES)

# TO= and MAIL_CC= (addresses, "," between them) go to every mail.
SEND_TO = $(if $(TO),--to='$(TO)') $(if $(MAIL_CC),--cc='$(MAIL_CC)')
# REPORT=docs/io-wq sends that report instead of the series (a mail to
# the maintainers of the files it names, scripts/send-report.sh).
REPORT ?=
# Replies to others' posted patches that make send (7.1, no SERIES or
# REPORT) sends before the series: our test of Tal Zussman's fix of
# bio_iov_iter_align_down(), of which patch 1 is a stand-in, not sent.
REPLIES := $(if $(filter 7.1,$(BASE)),docs/align-down-reply)
# The mails of this base's series, in the order they apply: one per tree
# that takes its patches (patches/v7.1/mail/NAME), or the whole series
# (patches/v6.12). make send sends each; SERIES=NAME only that one.
# SERIES=blktests sends our blktests series (patches/blktests, to the
# recipients its recipients file names) instead.
MAIL_SETS := $(shell bash -c '. scripts/lib.sh && wb_mail_sets $(PATCHES)')
SERIES ?=
ifneq ($(filter-out blktests $(notdir $(MAIL_SETS)),$(SERIES)),)
$(error SERIES=$(SERIES): the series of BASE=$(BASE) are $(notdir $(MAIL_SETS)), and blktests)
endif
# The 6.12 backport adds features for the users who apply it (git am or
# quilt push); stable takes fixes only, and neither fix of the mainline
# series applies to 6.12, which has neither commit they fix (20a0e6276edb,
# ea5e101fb601). So make BASE=6.12 send mails nothing, and says so.
SEND_612_REFUSAL := send: BASE=6.12 is a backport of features for those who apply it, \
	not for a list: stable takes fixes only, and 6.12 lacks the commits the mainline \
	series' fixes fix (20a0e6276edb, ea5e101fb601). Apply patches/v6.12 with git am \
	or quilt push -a.
## send: a dry run of the mails (SEND=1 sends), from FROM, each patch to
## what get_maintainer.pl names for it; on 7.1 the reply to Tal Zussman's
## fix, then the mails fixes, zeroing and dio
send: $(if $(REPORT),trees,apply)
	@$(S)/deps.sh host
	@$(if $(and $(filter 6.12,$(BASE)),$(if $(REPORT),,$(filter-out blktests,$(or $(SERIES),all)))),\
		echo "$(SEND_612_REFUSAL)" >&2; exit 1)
	@$(if $(or $(REPORT),$(SERIES)),,for r in $(REPLIES); do $(S)/send-report.sh $(B) $$r $(SEND_TO) || exit 1; done)
	@$(if $(REPORT),$(S)/send-report.sh $(B) $(REPORT),for d in \
		$(if $(SERIES),$(filter %/$(SERIES),$(MAIL_SETS) patches/blktests),$(MAIL_SETS)); do \
		$(S)/send-series.sh $(B) $$(cat $(B)/base-commit) $$d $(SEND_TO); done)

## bench-initramfs: make bench's initramfs
bench-initramfs: initramfs
	@$(S)/deps.sh bench
	@$(S)/guest-initramfs.sh $(INITRAMFS) $(PATCHED)/tools/testing/selftests guest/bench \
		$(BENCH)/initramfs.cpio

# make bench: this base's kernels on null_blk devices of known cost and
# on the QEMU disks of config/bench.topology (scripts/bench-run.sh), then,
# from 7.1, the backport's (make BASE=6.12 bench-base); tables and plots
# in build/BASE/bench/.
# Its kernels: both trees with config/bench.config (high-resolution
# timers, for null_blk's per-command time; libata and AHCI, for the
# AHCI disk) in TREE/obj-bench.
# Its QEMU disks (config/bench.topology), as nullb_bench's settings
# disk:NAME:SEGS:MIN_KB (scripts/bench-run.sh's DISKS): the AHCI disk, 168
# segments, at least 1024 KiB a request; the NVMe namespace of MDTS 512
# KiB, 129 segments on 7.1 and 128 on 6.12 (whose nvme-pci caps every
# controller at its NVME_MAX_SEGS, 128).
BENCH_DISKS      := disk:wb-ahci168:168:1024 disk:wb-nvme512k:$(if $(filter 6.12,$(BASE)),128,129):512
# A run with QUICK=1 or other SETTINGS reports beside the default run, not
# over it: build/BASE/bench-quick/, bench-upto-7-4096-45-32-0/ ...
empty :=
space := $(empty) $(empty)
RUN_TAG := $(if $(filter 1,$(QUICK)),-quick)$(if $(strip $(SETTINGS)),-$(subst $(space),_,$(subst :,-,$(strip $(SETTINGS)))))
BENCH_BZ_BASE    := $(UNPATCHED)/obj-bench/arch/x86/boot/bzImage
BENCH_BZ_PATCHED := $(PATCHED)/obj-bench/arch/x86/boot/bzImage
## bench-kernels: make bench's two kernels (config/bench.config)
bench-kernels: apply
	$(call variant,$(UNPATCHED),$(UNPATCHED)/obj-bench,config/bench.config)
	$(call variant,$(PATCHED),$(PATCHED)/obj-bench,config/bench.config)

## bench-base: make bench of this base alone
bench-base: bench-kernels bench-initramfs
	@rc=0; QUICK=$(QUICK) DISKS="$(BENCH_DISKS)" $(S)/bench-run.sh $(BENCH_BZ_BASE) $(BENCH_BZ_PATCHED) $(BENCH)/initramfs.cpio \
		$(BENCH)$(RUN_TAG) || rc=$$?; $(S)/bench-report.sh $(BENCH)$(RUN_TAG) "$(BENCH_LABEL)"; exit $$rc

## bench: baseline against patched, alternating boots, on null_blk devices
## of a set cost per command and on QEMU's AHCI and NVMe disks, on both
## bases; tables and plots in build/BASE/bench/ (QUICK=1: under 10 min)
bench:
	@rc=0; $(MAKE) --no-print-directory bench-base || rc=1; \
	$(if $(BACKPORT_TAP),$(BACKPORT) QUICK=$(QUICK) bench-base || rc=1;) exit $$rc

# make bench-trim: the series' trim threshold (tails of at most 1/16 of a
# bio) as "baseline" against the same tree trimming tails of up to
# 1/2^TRIM_SHIFT (scripts/trim-variant.sh, build/BASE/linux-trim) as
# "patched", on the same devices and cases: tables and plots in
# build/BASE/bench-trim/.
TRIM_SHIFT ?= 2
TRIM_TREE  := $(B)/linux-trim
## bench-trim: the series' trim threshold (1/16) against trimming tails of
## up to 1/2^TRIM_SHIFT, the same bench
bench-trim: bench-kernels bench-initramfs
	@$(S)/trim-variant.sh $(PATCHED) $(TRIM_TREE) $(TRIM_SHIFT)
	$(call variant,$(TRIM_TREE),$(TRIM_TREE)/obj-bench,config/bench.config)
	@rc=0; QUICK=$(QUICK) DISKS="$(BENCH_DISKS)" $(S)/bench-run.sh $(BENCH_BZ_PATCHED) $(TRIM_TREE)/obj-bench/arch/x86/boot/bzImage \
		$(BENCH)/initramfs.cpio $(B)/bench-trim$(RUN_TAG) || rc=$$?; $(S)/bench-report.sh $(B)/bench-trim$(RUN_TAG) \
		"Linux $(BASE): the series' trim (1/16) against tails up to 1/2^$(TRIM_SHIFT)"; exit $$rc

# make bench-prefix UPTO=N: the same bench with the series' first N
# patches as "patched" (scripts/series-prefix.sh: a worktree of the
# patched tree, build/BASE/linux-upto-N): one patch's cost without those
# after it, e.g. the trim alone (UPTO=9; BASE=6.12 UPTO=3). Tables and
# plots in build/BASE/bench-upto-N/.
UPTO_TREE := $(B)/linux-upto-$(UPTO)
## bench-prefix: the series' first UPTO patches against the baseline, the
## same bench (the trim alone: UPTO=8; BASE=6.12 UPTO=3)
bench-prefix: bench-kernels bench-initramfs
	@$(if $(UPTO),,echo "bench-prefix: say which patches: UPTO=N (the series' first N)" >&2; exit 1)
	@$(S)/series-prefix.sh $(PATCHED) $$(cat $(B)/base-commit) $(UPTO) $(UPTO_TREE)
	@UNKNOWN_OK=1 $(S)/kconfig.sh $(UPTO_TREE) $(UPTO_TREE)/obj-bench $(fragments) config/bench.config
	@$(S)/build-kernel.sh $(UPTO_TREE) $(UPTO_TREE)/obj-bench
	@rc=0; QUICK=$(QUICK) DISKS="$(BENCH_DISKS)" $(S)/bench-run.sh $(BENCH_BZ_BASE) $(UPTO_TREE)/obj-bench/arch/x86/boot/bzImage \
		$(BENCH)/initramfs.cpio $(B)/bench-upto-$(UPTO)$(RUN_TAG) || rc=$$?; $(S)/bench-report.sh $(B)/bench-upto-$(UPTO)$(RUN_TAG) \
		"Linux $(BASE): the first $(UPTO) patches of $(PATCHES) against the unpatched kernel"; exit $$rc

# The split trim's counts: one boot of each kernel, dio_table's 64 MiB
# reads from four buffer layouts at each limit of DIO_TABLE_KB.
DIO_TABLE_KB ?= 60 64 96 128 384 508 1280 4096
## bench-plots: docs/bench/BASE-series-*.png anew from make bench's last
## results of this base (build/BASE/bench; QUICK=1: bench-quick, plots
## BASE-series-quick-*.png): a plot per setting and one of the zeroout,
## titled with the base, series, date and setting
bench-plots:
	@$(S)/deps.sh bench
	@$(S)/bench-report.sh $(BENCH)$(RUN_TAG) "$(BENCH_LABEL)" docs/bench $(BASE)-series$(RUN_TAG) >/dev/null

## dio-table: bios and requests of 64 MiB O_DIRECT reads per buffer layout
## and max_sectors_kb (DIO_TABLE_KB), unpatched and patched
dio-table: kernels bench-initramfs
	@$(S)/dio-table.sh $(BZ_BASE) $(BZ_PATCHED) $(BENCH)/initramfs.cpio $(BENCH)/dio-table $(DIO_TABLE_KB)

## series: regenerate patches/vBASE from build/BASE/linux-patched's
## blk-series branch (after git rebase -i there)
series: trees
	@$(S)/export-series.sh $(PATCHED) $$(cat $(B)/base-commit) $(PATCHES)

## clean: remove build/BASE/
clean:
	rm -rf $(B)
