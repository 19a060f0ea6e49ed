#!/bin/bash
# Usage: scripts/kunit-arm64.sh TREE OUTDIR PAGE_KB...
# Runs the KUnit suites of TREE's block/.kunitconfig (the series' blk_size
# cases) on arm64 with each page size given (4, 16, 64: the kernel's
# CONFIG_ARM64_{4K,16K,64K}_PAGES), with the kernel's own kunit.py:
# cross-built with aarch64-linux-gnu-gcc (through ccache) in
# OUTDIR/PAGE_KBk, booted under qemu-system-aarch64 (-M virt, -cpu max,
# TCG). The O(1) answers of the direct I/O patches are stated in
# PAGE_SIZE and checked against blk-mq's walk over generated grids; the
# hand-worked cases skip where pages are not 4 KiB, saying so.
# Writes each run's KTAP to OUTDIR/PAGE_KBk.ktap, its log to
# OUTDIR/PAGE_KBk.log and each case's time to OUTDIR/PAGE_KBk.times; a
# progress line per page size with its time and its slowest case.
# Exits 1 if a run could not build or boot, naming it; a failed case is
# left to the TAP summary of the caller (scripts/tap-summary.sh).
set -euo pipefail

tree=$(realpath "$1") out=$(realpath -m "$2")
shift 2
mkdir -p "$out"
status=0
for kb in "$@"; do
	case $kb in
	4 | 16 | 64) ;;
	*) echo "kunit-arm64: no arm64 page size of $kb KiB (4, 16 or 64)" >&2; exit 1 ;;
	esac
	dir=$out/${kb}k start=$(date +%s)
	echo "kunit-arm64: $kb KiB pages: building and booting in $dir"
	rm -f "$out/${kb}k.ktap"
	# kunit.py exits 1 when a case fails: the KTAP says which, and the
	# summary counts it; only a run that left no KTAP is this script's.
	python3 "$tree/tools/testing/kunit/kunit.py" run --arch=arm64 \
		--cross_compile=aarch64-linux-gnu- \
		--make_options CC="ccache aarch64-linux-gnu-gcc" \
		--build_dir="$dir" --kunitconfig="$tree/block" \
		--kconfig_add "CONFIG_ARM64_${kb}K_PAGES=y" --kconfig_add CONFIG_PRINTK_TIME=y \
		--jobs="$(nproc)" --timeout=1800 --raw_output=kunit \
		>"$out/${kb}k.ktap" 2>"$out/${kb}k.log" || true
	if ! grep -q '^KTAP version\|^TAP version' "$out/${kb}k.ktap"; then
		tail -n 20 "$out/${kb}k.log" | sed 's/^/  | /' >&2
		echo "kunit-arm64: $kb KiB pages: no KTAP from kunit.py (build or boot failed, log: $out/${kb}k.log)" >&2
		status=1
		continue
	fi
	echo "kunit-arm64: $kb KiB pages: $(grep -c '^    ok \|^        ok ' "$out/${kb}k.ktap" || true) ok lines in $(( $(date +%s) - start ))s"
	# Each case's time, from the console's timestamps (one case ends
	# where the next begins): KUNIT_CASE_SLOW is for those over 1 s.
	[ ! -f "$dir/test.log" ] || awk '
		match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
			t = substr($0, 2, RLENGTH - 2) + 0; line = substr($0, RLENGTH + 2)
			if (line ~ /^ +# Subtest: blk_size/) { last = t; on = 1; next }
			if (on && line ~ /^    (not )?ok [0-9]+ /) {
				sub(/^    (not )?ok [0-9]+ /, "", line); sub(/ .*/, "", line)
				if (t - last > max) { max = t - last; slow = line }
				printf "%s %.2fs\n", line, t - last > "/dev/stderr"; last = t
			}
			if (on && line ~ /^ok /) on = 0
		}
		END { if (slow != "") printf "kunit-arm64: '"$kb"' KiB pages: slowest case %s, %.2f s%s\n", slow, max, (max > 1 ? " (over 1 s: KUNIT_CASE_SLOW)" : "") }' \
		"$dir/test.log" 2>"$out/${kb}k.times"
done
exit $status
