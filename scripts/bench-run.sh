#!/bin/bash
# Usage: scripts/bench-run.sh BZ_BASE BZ_PATCHED INITRAMFS OUTDIR
# Runs the make bench cases (guest/bench/nullb_bench: null_blk devices of
# a known cost per command and per byte, which it makes in the guest) on
# the baseline and the patched kernel, booting them alternately for ROUNDS
# rounds: baseline then patched in odd rounds, patched then baseline in
# even ones, so that a drift of the host hits both alike. INITRAMFS must
# hold guest/bench (scripts/guest-initramfs.sh). Each boot's result lines
# go to OUTDIR/raw/KERNEL-rN.txt (KERNEL is baseline or patched), its logs
# to OUTDIR/runs/KERNEL-rN/. Device settings LBS:LAT_US:QD:MBPS: 10, 50
# and 200 us per command at queue depth 1 (a bracket from fast NVMe to
# eMMC-like devices, not a model of one), 50 us at queue depth 32, 50 us
# on 512-byte blocks; 3 rounds, 1 timed run per case and boot, zeroouts
# of 4 GiB. QUICK=1: two settings, 1 round of 2 timed runs, 256 MiB
# zeroouts. SETTINGS, ROUNDS, REPS and ZERO_MIB override. No default
# setting limits bandwidth (MBPS): null_blk refills its byte budget 50
# times a second, so such a case's time moves in 20 ms steps with where
# the refill falls (at 500 MiB/s, 117 or 134 ms for one kernel's boots of
# the same 64 MiB read), whatever the CPU does.
# Then, in QUICK runs too, the settings DISKS (the Makefile's BENCH_DISKS,
# e.g. "disk:wb-ahci168:168:1024 disk:wb-nvme512k:129:512"; none if
# unset): the QEMU disks of config/bench.topology (TOPOLOGY= another), an AHCI disk
# and an NVMe namespace that read zeroes (null-co), found by serial or
# model and refused unless their max_segments is the one named and their
# default max_sectors_kb at least the KiB named (the AHCI disk's 1 MiB
# bios split by its 168 segments alone: 1280 KiB on 6.12, 4096 on 7.1),
# on which the direct I/O series must change nothing: the reads at the
# default limit (single-def, bio1m), read-only.
# The guests run on instruction-counted time (scripts/boot.sh ICOUNT,
# default 0: 1 ns of guest time per guest instruction; an idle guest
# skips to its next timer): a command costs exactly the latency set, the
# CPU's work its instructions, and neither depends on the host's load, so
# timed runs repeat to the microsecond where wall-clock time under TCG
# varied 3-fold between boots; hence one timed run per boot, and the
# rounds show what varies between boots. One vCPU (SMP=1; boot.sh's
# default is 2): QEMU runs the vCPUs of an instruction-counted guest in
# turn on one host thread anyway, and with two the order of their turns
# moved a case's time at queue depth 32 by up to 30 % between boots of
# one kernel (single-508); with one, by at most 1.2 % (thp-60), 3.4 % for
# fio's 64 MiB runs, whose counts vary. QEMU runs under nice. A failed
# boot is reported and the rounds go on;
# the exit status is 1 if any failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bz_base=$1 bz_patched=$2 initrd=$3 out=$4
here=$(realpath "$(dirname "$0")")
if wb_bool QUICK; then
	rounds=${ROUNDS:-1} reps=${REPS:-2} zero_mib=${ZERO_MIB:-256}
	settings=${SETTINGS:-4096:50:1:0 4096:50:32:0}
else
	rounds=${ROUNDS:-3} reps=${REPS:-1} zero_mib=${ZERO_MIB:-4096}
	settings=${SETTINGS:-4096:10:1:0 4096:50:1:0 4096:200:1:0 4096:50:32:0 512:50:1:0}
fi
settings="$settings ${DISKS:-}"
export TOPOLOGY=${TOPOLOGY:-$here/../config/bench.topology}
# A 4 GiB null_blk that keeps nothing: the guest needs no more memory.
for f in "$bz_base" "$bz_patched" "$initrd"; do
	[ -f "$f" ] || { echo "bench-run: $f missing" >&2; exit 1; }
done
export ICOUNT=${ICOUNT-0} SMP=${SMP:-1}
clock="host time (QEMU's own)"
[ -z "$ICOUNT" ] || clock="icount shift $ICOUNT: 2^$ICOUNT ns of guest time per guest instruction"
mkdir -p "$out/raw" "$out/runs"
rm -f "$out"/raw/*.txt
# Which source each kernel was built from, for the report's header: the
# commit of the tree that holds its object directory.
for k in baseline patched; do
	bz=$bz_base
	[ "$k" = patched ] && bz=$bz_patched
	echo "$k $(git -C "$(dirname "$bz")" log -1 --format='%h %s')"
done >"$out/kernels.txt"
echo "clock $clock" >>"$out/kernels.txt"

cmd="/bench/nullb_bench $reps $zero_mib $settings"
echo "bench-run: $rounds rounds of baseline and patched, $reps timed runs per case, zeroout ${zero_mib} MiB, settings $settings, $clock"
start=$(date +%s)
failed=()
for r in $(seq 1 "$rounds"); do
	order="baseline patched"
	[ $((r % 2)) -eq 0 ] && order="patched baseline"
	for k in $order; do
		bz=$bz_base
		[ "$k" = patched ] && bz=$bz_patched
		run=$out/runs/$k-r$r t0=$(date +%s)
		echo "bench-run: round $r/$rounds, $k ..."
		if ! nice "$here/boot.sh" "$bz" "$initrd" "$run" "$cmd" >"$run.boot.log" 2>&1; then
			failed+=("$k-r$r")
			echo "bench-run: round $r $k FAILED ($run.boot.log, $run/output.log):" >&2
			tail -n 5 "$run.boot.log" | sed 's/^/  | /' >&2
			grep -a '^NBFAIL' "$run/output.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
		fi
		grep -a -E '^NB(INFO)? ' "$run/output.log" 2>/dev/null | tr -d '\r' >"$out/raw/$k-r$r.txt" || true
		echo "bench-run: round $r $k: $(grep -c '^NB ' "$out/raw/$k-r$r.txt" || true) results in $(( $(date +%s) - t0 ))s"
	done
done
echo "bench-run: done in $(( $(date +%s) - start ))s${failed[*]:+, failed: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
