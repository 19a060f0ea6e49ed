#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity of O_DIRECT on the block device whatever the request
# shape: fio writes with crc32c verify headers and reads everything back
# (--direct=1 --verify=crc32c --do_verify=1) on a device with 512-byte and
# one with 4096-byte logical blocks, at block sizes 64 MiB (16 MiB if
# memory is tight), 1 MiB and an odd multiple of the logical block size
# (2053 blocks), each at max_sectors_kb default, 96 (512-byte blocks) or
# 384 (4096-byte blocks), and 64, plus 1 MiB from a buffer that starts
# dma_alignment + 1 bytes into a page (fio mem_align).
#
# Risk: data written through bios that the series trims (patch 9 gives a
# bio's short tail back to the next bio by reverting the iterator) lands at
# the wrong offset or is lost, where blk-mq splits at 96 and 384 KiB and
# bios are followed by others (64 MiB and odd-sized I/Os), also from a
# buffer off its page and off the DMA alignment. The series' dio_split
# runs on null_blk devices that keep no data; blktests block/054
# reads back one 64 MiB write at 60 and 96 KiB, and block/042 odd offsets,
# but neither odd sizes nor a limit whose tail the trim keeps (and both in
# make blktests only); block/055 reads nothing back.
#
# The devices are memory-backed null_blk devices made here and removed on
# exit, unless BLK_NOWZ_DEV / BLK_WZ_DEV name devices, which are used only
# if listed in BLK_TEST_DESTROY and not partitioned, held, mounted or swap;
# their first 256 MiB are overwritten.
# Needs root and fio; skips (exit 4) without them.

DIR="$(dirname "$(readlink -f "$0")")"
# The installed kselftest tree's, not in this repository.
# shellcheck source=/dev/null
. "$DIR"/../kselftest/ktap_helpers.sh

RESTORE=""
MADE=""
CFS=/sys/kernel/config/nullb

cleanup()
{
	for r in $RESTORE; do
		echo "${r#*=}" > "/sys/block/${r%%=*}/queue/max_sectors_kb"
	done
	RESTORE=""
	for m in $MADE; do
		echo 0 > "$CFS/$m/power"
		rmdir "$CFS/$m"
	done
	MADE=""
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

# check_named NAME: fails with the reason unless NAME may be destroyed.
check_named()
{
	if [ ! -e "/sys/block/$1/dev" ]; then
		echo "$1 is not a whole disk in /sys/block"
		return 1
	fi
	for p in /sys/block/"$1"/*/partition; do
		[ -e "$p" ] && { echo "$1 has partitions"; return 1; }
	done
	h=$(ls "/sys/block/$1/holders")
	[ -z "$h" ] || { echo "$1 is held by $h"; return 1; }
	mm=$(cat "/sys/block/$1/dev")
	if awk -v mm="$mm" '$3 == mm { f = 1 } END { exit !f }' /proc/self/mountinfo ||
	   grep -q "^/dev/$1 " /proc/swaps 2>/dev/null; then
		echo "$1 is mounted or swap"
		return 1
	fi
	case " ${BLK_TEST_DESTROY:-} " in
	*" $1 "*) return 0 ;;
	esac
	echo "$1 is not listed in BLK_TEST_DESTROY: its data would be destroyed; set BLK_TEST_DESTROY=\"$1\" to allow it"
	return 1
}

# make_nullb NAME LBS: a memory-backed null_blk of 320 MiB (the caller
# adds NAME to MADE first: this runs in the caller's shell).
make_nullb()
{
	n=$1
	mkdir "$CFS/$n" || return 1
	echo "$2" > "$CFS/$n/blocksize" &&
	echo 320 > "$CFS/$n/size" &&
	echo 1 > "$CFS/$n/memory_backed" &&
	echo 8192 > "$CFS/$n/max_sectors" &&
	echo 1 > "$CFS/$n/power" || return 1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -b "/dev/$n" ] && return 0
		sleep 0.2
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
if [ -n "${BLK_NOWZ_DEV:-}${BLK_WZ_DEV:-}" ]; then
	for d in ${BLK_NOWZ_DEV:-} ${BLK_WZ_DEV:-}; do
		d=${d#/dev/}
		if ! why=$(check_named "$d"); then
			ktap_print_msg "refusing $d: $why"
			ktap_exit_fail_msg "refusing $d: $why"
		fi
		devs="$devs $d"
	done
else
	if [ ! -d "$CFS" ]; then
		mount -t configfs none /sys/kernel/config 2> /dev/null
		[ -d "$CFS" ] || modprobe -q null_blk nr_devices=0 2> /dev/null
	fi
	if [ ! -d "$CFS" ]; then
		ktap_skip_all "no null_blk configfs ($CFS: CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
		exit "$KSFT_SKIP"
	fi
	for lbs in 512 4096; do
		d=dio_verify_$$_$lbs
		MADE="$MADE $d"
		make_nullb "$d" "$lbs" ||
			ktap_exit_fail_msg "cannot make a null_blk with $lbs-byte blocks in $CFS"
		devs="$devs $d"
	done
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
			# Memory-backed null_blk before 7.0 copies a whole block
			# per step from where a bvec starts, past its page.
			case " $MADE " in
			*" $d "*) if [ "$3" != 0 ] && [ "$lbs" -gt "$3" ]; then
					ktap_test_skip "$what: a null_blk made here with $lbs-byte blocks would copy past the page (null_blk memory backing)"
					continue
				fi ;;
			esac
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

cleanup
ktap_finished
