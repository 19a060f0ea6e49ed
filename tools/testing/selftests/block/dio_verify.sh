#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity of O_DIRECT on the block device whatever the request
# shape: fio writes with crc32c verify headers and reads everything back
# (--direct=1 --verify=crc32c --do_verify=1) on each NVMe namespace, at
# block sizes 64 MiB (16 MiB if memory is tight), 1 MiB and an odd
# multiple of the logical block size (2053 blocks), each at max_sectors_kb
# default, 96 (512-byte blocks) or 384 (4096-byte blocks), and 64, plus
# 1 MiB from a buffer that starts dma_alignment + 1 bytes into a page
# (fio mem_align).
#
# Namespaces are found by property (write_zeroes_max_bytes);
# BLK_NOWZ_DEV / BLK_WZ_DEV override. Their first 256 MiB are overwritten.
# Needs root and fio; skips (exit 4) without them.

DIR="$(dirname "$(readlink -f "$0")")"
# shellcheck source=../kselftest/ktap_helpers.sh
. "$DIR"/../kselftest/ktap_helpers.sh

RESTORE=""

restore()
{
	for r in $RESTORE; do
		echo "${r#*=}" > "/sys/block/${r%%=*}/queue/max_sectors_kb"
	done
	RESTORE=""
}
trap restore EXIT
trap 'restore; exit 1' INT TERM

# find_dev WANT_WZ: prints the first NVMe namespace with (1) or without
# (0) Write Zeroes.
find_dev()
{
	for q in /sys/block/nvme*/queue; do
		[ -r "$q/write_zeroes_max_bytes" ] || continue
		wz=$(cat "$q/write_zeroes_max_bytes")
		if { [ "$1" = 1 ] && [ "$wz" != 0 ]; } ||
		   { [ "$1" = 0 ] && [ "$wz" = 0 ]; }; then
			d=${q%/queue}
			echo "${d##*/}"
			return 0
		fi
	done
	return 1
}

ktap_print_header

if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
	exit "$KSFT_SKIP"
fi
if ! command -v fio > /dev/null 2>&1; then
	ktap_skip_all "fio is not installed"
	exit "$KSFT_SKIP"
fi

devs=""
nowz=${BLK_NOWZ_DEV:-$(find_dev 0)}
wz=${BLK_WZ_DEV:-$(find_dev 1)}
for d in $nowz $wz; do
	d=${d#/dev/}
	[ -b "/dev/$d" ] && devs="$devs $d"
done
if [ -z "$devs" ]; then
	ktap_skip_all "no NVMe namespace found (set BLK_NOWZ_DEV / BLK_WZ_DEV)"
	exit "$KSFT_SKIP"
fi

# 64 MiB blocks need bs x (1 + verify) of buffer in fio; be modest when
# the guest is small.
big=64m
avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ -n "$avail" ] && [ "$avail" -lt 786432 ]; then
	big=16m
fi

ndev=$(echo "$devs" | wc -w)
ktap_set_plan $((ndev * 3 * 4))

# run_fio DEV BS SIZE MEM_ALIGN: returns fio's status, log in $log
run_fio()
{
	log=$(fio --name=dio_verify --filename="/dev/$1" --direct=1 \
		--ioengine=psync --rw=write --bs="$2" --size="$3" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--mem_align="$4" --randrepeat=1 --norandommap \
		--output-format=normal 2>&1)
}

for d in $devs; do
	q=/sys/block/$d/queue
	lbs=$(cat "$q/logical_block_size")
	def=$(cat "$q/max_sectors_kb")
	hw=$(cat "$q/max_hw_sectors_kb")
	dma=$(cat "$q/dma_alignment" 2>/dev/null || echo 511)
	if [ "$lbs" = 512 ]; then odd_kb=96; else odd_kb=384; fi
	# An odd I/O size, larger than max_sectors: 2053 logical blocks.
	odd=$((2053 * lbs))
	misalign=$((dma + 1))
	RESTORE="$RESTORE $d=$def"
	ktap_print_msg "$d: $lbs-byte blocks, max_sectors_kb $def (hw $hw), dma_alignment $dma, bs $big"

	for kb in "$def" "$odd_kb" 64; do
		if [ "$kb" -gt "$hw" ] ||
		   ! echo "$kb" > "$q/max_sectors_kb" 2> /dev/null; then
			for _ in 1 2 3 4; do
				ktap_test_skip "fio verify on $d at max_sectors_kb $kb: cannot set it (hw $hw)"
			done
			continue
		fi
		for c in "$big 128m 0" "1m 32m 0" "$odd $((odd * 8)) 0" \
			 "1m 32m $misalign"; do
			# shellcheck disable=SC2086 # split "bs size align"
			set -- $c
			what="fio verify on $d, max_sectors_kb $kb: bs $1, size $2"
			[ "$3" != 0 ] && what="$what, buffer $3 bytes into a page"
			if run_fio "$d" "$1" "$2" "$3"; then
				ktap_test_pass "$what: written and read back intact"
			else
				echo "$log" | tail -n 15 | sed 's/^/# /'
				ktap_test_fail "$what: fio failed"
			fi
		done
	done
	echo "$def" > "$q/max_sectors_kb"
done

restore
ktap_finished
