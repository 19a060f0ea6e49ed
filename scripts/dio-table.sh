#!/bin/bash
# Usage: scripts/dio-table.sh BZ_BASELINE BZ_PATCHED INITRAMFS OUTDIR KB...
# The split trim's deterministic figures: boots the unpatched and the
# patched kernel once each with INITRAMFS (make bench's, which holds
# /bench/dio_table) and runs dio_table at each max_sectors_kb KB: one
# 64 MiB O_DIRECT read per buffer layout (THP, runs of 1-40 and 1-3
# pages, single pages) from a null_blk it makes, bios and requests from
# the block tracepoints. Writes OUTDIR/dio-table.md, a table of both
# kernels' counts side by side with the ideal request count
# (ceil(64 MiB / limit)), and prints it. Fails, naming the kernel, if a
# boot fails or a layout or limit has no result.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bz_base=$1 bz_patched=$2 initrd=$3 out=$4
shift 4
here=$(dirname "$0")
[ $# -gt 0 ] || { echo "dio-table: no max_sectors_kb given" >&2; exit 1; }
mkdir -p "$out"
for k in baseline patched; do
	bz=$bz_base
	[ $k = patched ] && bz=$bz_patched
	t0=$(date +%s)
	echo "dio-table: $k kernel, max_sectors_kb $* ..."
	if ! "$here/boot.sh" "$bz" "$initrd" "$out/$k" "/bench/dio_table $*" >"$out/$k.boot.log" 2>&1; then
		tail -n 5 "$out/$k.boot.log" | sed 's/^/  | /' >&2
		echo "dio-table: the $k boot failed ($out/$k.boot.log, $out/$k/output.log)" >&2
		exit 1
	fi
	grep -a '^TABLE ' "$out/$k/output.log" | tr -d '\r' >"$out/$k.txt" || true
	echo "dio-table: $k: $(wc -l <"$out/$k.txt") results in $(( $(date +%s) - t0 ))s"
done

awk -v limits="$*" '
function kv(line, key) { return match(line, "(^| )" key "=[^ ]*") ? substr(line, RSTART + length(key) + 1 + (RSTART > 1), RLENGTH - length(key) - 1 - (RSTART > 1)) : "" }
FNR == 1 { k = FILENAME; sub(/.*\//, "", k); sub(/\.txt$/, "", k) }
{
	l = kv($0, "layout"); kb = kv($0, "limit")
	if (!(l in seen)) { seen[l] = 1; order[++n] = l }
	bios[k, l, kb] = kv($0, "bios"); rqs[k, l, kb] = kv($0, "rqs")
}
function pair(a, b) { return a == b ? a : a " -> " b }
END {
	nl = split(limits, lim, " ")
	print "| buffer | max_sectors_kb | ideal requests | requests | bios |"
	print "| --- | --- | --- | --- | --- |"
	for (i = 1; i <= n; i++)
		for (j = 1; j <= nl; j++) {
			l = order[i]; kb = lim[j]
			if (!(("baseline", l, kb) in rqs) || !(("patched", l, kb) in rqs)) {
				printf "dio-table: no result for %s at %s KiB\n", l, kb > "/dev/stderr"
				bad = 1; continue
			}
			printf "| %s | %s | %d | %s | %s |\n", l, kb, int((65536 + kb - 1) / kb),
				pair(rqs["baseline", l, kb], rqs["patched", l, kb]),
				pair(bios["baseline", l, kb], bios["patched", l, kb])
		}
	exit bad
}' "$out/baseline.txt" "$out/patched.txt" >"$out/dio-table.md"
cat "$out/dio-table.md"
echo "dio-table: $out/dio-table.md (baseline -> patched where they differ)"
