#!/bin/bash
# Usage: scripts/bench-run.sh BZ_BASE BZ_PATCHED INITRAMFS OUTDIR
# Runs the make bench cases (guest/bench/bench.sh) on the baseline and the
# patched kernel, same guest, same topology (config/bench.topology, or
# TOPOLOGY=), booting them alternately for ROUNDS rounds: baseline then
# patched in odd rounds, patched then baseline in even ones, so that a
# drift of the host hits both alike. INITRAMFS must hold guest/bench
# (scripts/guest-initramfs.sh). Each boot's result lines go to
# OUTDIR/raw/KERNEL-rN.txt (KERNEL is baseline or patched), its logs to
# OUTDIR/runs/KERNEL-rN/. QUICK=1: 2 rounds, 1 GiB zeroouts, 512 MiB
# reads; else 5 rounds, 4 GiB zeroouts, 2 GiB reads. ROUNDS, ZERO_MIB,
# FIO_MIB and CASES (names as in guest/bench/bench.sh) override. QEMU runs
# under nice. A failed boot is reported and the rounds go on; the exit
# status is 1 if any failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bz_base=$1 bz_patched=$2 initrd=$3 out=$4
here=$(realpath "$(dirname "$0")")
if wb_bool QUICK; then
	rounds=${ROUNDS:-2} zero_mib=${ZERO_MIB:-1024} fio_mib=${FIO_MIB:-512}
else
	rounds=${ROUNDS:-5} zero_mib=${ZERO_MIB:-4096} fio_mib=${FIO_MIB:-2048}
fi
export TOPOLOGY=${TOPOLOGY:-$here/../config/bench.topology}
for f in "$bz_base" "$bz_patched" "$initrd" "$TOPOLOGY"; do
	[ -f "$f" ] || { echo "bench-run: $f missing" >&2; exit 1; }
done
mkdir -p "$out/raw" "$out/runs"
rm -f "$out"/raw/*.txt
# Which source each kernel was built from, for the report's header: the
# commit of the tree that holds its object directory.
for k in baseline patched; do
	bz=$bz_base
	[ "$k" = patched ] && bz=$bz_patched
	echo "$k $(git -C "$(dirname "$bz")" log -1 --format='%h %s')"
done >"$out/kernels.txt"

cmd="sh /bench/bench.sh $zero_mib $fio_mib ${CASES:-}"
echo "bench-run: $rounds rounds of baseline and patched, zeroout ${zero_mib} MiB, reads ${fio_mib} MiB, topology $TOPOLOGY"
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
			grep -a '^BENCHFAIL' "$run/output.log" 2>/dev/null | sed 's/^/  | /' >&2 || true
		fi
		grep -a -E '^(BENCH|TRACE)' "$run/output.log" 2>/dev/null | tr -d '\r' >"$out/raw/$k-r$r.txt" || true
		echo "bench-run: round $r $k: $(grep -c '^BENCH ' "$out/raw/$k-r$r.txt" || true) results in $(( $(date +%s) - t0 ))s"
	done
done
echo "bench-run: done in $(( $(date +%s) - start ))s${failed[*]:+, failed: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
