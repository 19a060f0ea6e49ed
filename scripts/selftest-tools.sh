#!/bin/bash
# Usage: scripts/selftest-tools.sh
# Tests the workbench's own tools without a kernel, on the recorded logs in
# scripts/testdata/ (as kunit_tool_test.py does for kunit.py): the console
# scanner must pass a clean log and fail an Oops, a WARNING, a hung task and
# a cut-off log; the TAP summary must count nested kselftest and KTAP
# results; the baseline proof must accept failures and reject passes; the
# skip check must accept the no-NVMe boot's allowed skips and no other.
set -euo pipefail

here=$(dirname "$0")
data=$here/testdata
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # description, expected exit (0 or 1), command...
	local what=$1 want=$2 got=0; shift 2
	"$@" >"$tmp/out" 2>&1 || got=1
	if [ "$got" != "$want" ]; then
		echo "FAIL: $what (exit $got, want $want):"; sed 's/^/  | /' "$tmp/out"
		fail=1
	else
		echo "ok: $what"
	fi
}
expect_line() { # description, expected line, command...
	local what=$1 want=$2 out; shift 2
	out=$("$@" 2>&1 || true)
	if grep -qxF -- "$want" <<<"$out"; then
		echo "ok: $what"
	else
		echo "FAIL: $what: no line '$want' in:"; printf '  | %s\n' "${out//$'\n'/$'\n'  | }"
		fail=1
	fi
}

check "clean console passes" 0 "$here/scan-console.sh" "$data/console-clean.log"
check "Oops fails" 1 "$here/scan-console.sh" "$data/console-oops.log"
check "WARNING fails" 1 "$here/scan-console.sh" "$data/console-warning.log"
check "hung task fails" 1 "$here/scan-console.sh" "$data/console-hung.log"
check "cut-off console fails" 1 "$here/scan-console.sh" "$data/console-cutoff.log"
check "missing console fails" 1 "$here/scan-console.sh" "$data/no-such.log"
expect_line "Oops excerpt names the faulting function" \
	"  | [   12.443801] RIP: 0010:mm_get_huge_zero_folio+0x5/0x90" \
	"$here/scan-console.sh" "$data/console-oops.log"

expect_line "kselftest TAP: leaves counted, timeout counted" \
	"2 passed, 2 failed, 1 skipped" "$here/tap-summary.sh" "k=$data/kselftest.tap"
expect_line "KTAP from the console: leaves counted" \
	"1 passed, 1 failed, 0 skipped" "$here/tap-summary.sh" "u=$data/ktap-console.log"
expect_line "a run that stopped before its plan fails" \
	"FAIL  k: plan 1..3 but only 2 results: the run stopped early" \
	"$here/tap-summary.sh" "k=$data/kselftest-cut.tap"
printf 'ok - shellcheck\nnot ok - quilt\n' >"$tmp/t.tap"
expect_line "unnumbered TAP lines (scripts/tap-run.sh) are counted" \
	"1 passed, 1 failed, 0 skipped" "$here/tap-summary.sh" "h=$tmp/t.tap"
check "summary fails on failures" 1 "$here/tap-summary.sh" "k=$data/kselftest.tap"
check "summary fails on missing TAP" 1 "$here/tap-summary.sh" "k=$data/no-such.tap"
check "summary fails on a log with no result" 1 "$here/tap-summary.sh" "c=$data/console-clean.log"
# The suites' rule (scripts/suite-report.sh) on recorded logs: it must
# hold for equal runs and fail wherever it would otherwise compare less
# than it claims.
# shellcheck disable=SC2317 # called through check
rule() { # baseline log, patched log [list]
	"$here/suite-report.sh" "$1" "$tmp/suite" "$data/$2" "$data/$3" ${4:+"$data/$4"}
}
check "suite rule: equal blktests runs pass" 0 rule blktests blktests-base-conds.log blktests-base-conds.log
check "suite rule: a conditioned run's failure is not hidden by the other condition's pass" 1 \
	rule blktests blktests-base-conds.log blktests-patched-conds.log
check "suite rule: a patched failure beside a baseline not-run fails" 1 \
	rule blktests blktests-base-conds.log blktests-patched-notrun-fail.log
check "suite rule: a baseline set-up error makes the run incomplete" 1 \
	rule blktests blktests-base-setup.log blktests-base-conds.log
check "suite rule: equal fstests runs of every listed test pass" 0 \
	rule fstests fstests-full.log fstests-full.log fstests.list
check "suite rule: an aborted baseline pass leaves listed tests without a result" 1 \
	rule fstests fstests-base-aborted.log fstests-full.log fstests.list
check "suite rule: a test of the baseline missing on the patched kernel fails" 1 \
	rule fstests fstests-full.log fstests-missing.log fstests.list
check "suite rule: a test of tests/xfs is looked for in the XFS passes only" 0 \
	rule fstests fstests-two-fs.log fstests-two-fs.log fstests-two-fs.list
check "suite rule: pages left pinned after a patched pass where the baseline left none fail" 1 \
	rule fstests fstests-two-fs.log fstests-two-fs-pinned.log fstests-two-fs.list
rule fstests fstests-two-fs.log fstests-two-fs.log >/dev/null 2>&1 || true
expect_line "suite reach: a patched pass that ran none of the series' paths says so" \
	"| ext4 | patched | 0 | 0 | 0 | 1 | 0 | 800 | 0 | none of trim, nowalk, zerohuge |" \
	grep -F '| ext4 | patched' "$tmp/suite/fstests-reach.md"
echo "ok 1 x" >"$tmp/t.tap"
check "summary passes a clean run" 0 "$here/tap-summary.sh" "x=$tmp/t.tap"

expect_line "baseline proof: a failed shape test is the proof" \
	"ok 1 baseline fails as it must (1 of 1): zeroout 1GiB on nvme0n1: 1024 bios/GiB (want <= 4)" \
	"$here/baseline-proof.sh" "$data/must-fail.patterns" "$data/kselftest.tap"
expect_line "baseline proof: a shape test passing on the baseline is caught" \
	"not ok 2 baseline: /^dio 64MiB read on/ passed or skipped 1 of 1 times on the unpatched kernel: it does not discriminate" \
	"$here/baseline-proof.sh" "$data/must-fail.patterns" "$data/kselftest.tap"
expect_line "baseline proof: the patterns of a second file (one base's) are proved too" \
	"not ok 4 baseline: /^dio 64MiB read on/ passed or skipped 1 of 1 times on the unpatched kernel: it does not discriminate" \
	"$here/baseline-proof.sh" "$data/must-fail.patterns" "$data/must-fail.patterns" "$data/kselftest.tap"
expect_line "baseline proof: a failed baseline boot fails the proof" \
	"not ok 3 baseline boot of the baseline kernel (see above)" \
	"$here/baseline-proof.sh" "$data/must-fail.patterns" "$data/kselftest-bootfail.tap"

allowed=$here/../config/bystander-skips
printf '%s\r\n' "# ok 1 dio_io.nullb_4k_max6k.pread_off0 # SKIP max_sectors_kb 6 is not a multiple of the 4096-byte logical block (the kernel rounds it down)" \
	"# ok 2 dio_io.nullb_4k_max32k.pread_off0" "ok 1 selftests: block: zeroout" >"$tmp/t.tap"
expect_line "skip check: a skip with an allowed reason passes" \
	"ok 1 skips: all 1 of 3 results' skips have an allowed reason ($allowed)" \
	"$here/skip-check.sh" "$allowed" "$tmp/t.tap"
echo "# ok 3 zeroout.after_kill # SKIP no device named in BLK_NOWZ_DEV" >>"$tmp/t.tap"
expect_line "skip check: a skip for want of a device is caught" \
	"not ok 1 skips: not an allowed reason ($allowed): no device named in BLK_NOWZ_DEV" \
	"$here/skip-check.sh" "$allowed" "$tmp/t.tap"
exit $fail
