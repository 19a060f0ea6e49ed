#!/bin/bash
# Usage (in the guest, make fstests): /fstests/run.sh LIST BLOCK FS...
# Runs fstests (/opt/fstests) on the NVMe namespaces of
# config/fstests.topology, once per file system FS (xfs, ext4): the tests
# of LIST (config/fstests.tests: one per line, comments after #), in
# LIST's order (check --exact-order), each FS a "./check" of its own
# with TEST_DEV and SCRATCH_DEV made for it, of file system blocks of
# BLOCK bytes ("default": mkfs's own, 4 KiB here; 1024: sub-page blocks,
# so that direct I/O of less than a page runs).
# The run reaches the series' paths:
#  - both namespaces have no Write Zeroes (PCI ID 8086:5845), so
#    fallocate's zero range, mkfs's and the file systems' zeroing take
#    __blkdev_issue_zero_pages();
#  - TEST_DEV's max_sectors_kb is 96 and SCRATCH_DEV's 60, limits at
#    which a bio of single pages is split with a short tail: the trim acts;
#  - a zeroout of 4 MiB takes the huge zero folio first, then frag
#    (guest/fstests/frag.c) fragments free memory so that the buffers of
#    the suite's programs are single pages, never adjacent in memory.
# Each pass starts with a line "WB-FSTESTS pass FS" ("pass FS 1k" with
# 1 KiB blocks, and so on) and ends with "WB-FSTESTS end FS [1k] RC
# SECONDS"; between them is check's own output, which
# scripts/suite-report.sh reads; before the end, "WB-FSTESTS reach FS
# [1k] ..." counts what of the series the pass ran (reach.sh). "WB-FSTESTS
# setup STEP" lines time the set-up's steps.
set -euo pipefail

list=$1 block=$2
shift 2
# shellcheck source=guest/reach.sh
. /fstests/reach.sh
tag=''
[ "$block" = default ] || tag=" $((block / 1024))k"
mapfile -t tests < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list")
# (check with no test would run the whole auto group.)
if [ ${#tests[@]} -eq 0 ]; then
	echo "WB-FSTESTS error no test in $list"
	exit 1
fi
# bin/dmsetup: the stand-in for dmsetup (no udev here, see there).
export PATH=/fstests/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The guest's root has no user database; fstests' tools ask for root's
# name, some tests for nobody's. No fsgqa user (su needs PAM, which the
# guest has not): the tests that need one are not run, saying so.
[ -e /etc/passwd ] || printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' \
	'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >/etc/passwd
[ -e /etc/group ] || printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >/etc/group
# No udev: dmsetup makes the /dev/mapper nodes itself (the dm-error and
# dm-flakey tests; with udev sync their mounts found no device).
export DM_DISABLE_UDEV=1

# serial NAME: the disk whose NVMe serial is wb-NAME.
serial() {
	local d s
	for d in /sys/block/nvme*; do
		read -r s <"$d/device/serial" || continue
		[ "$s" != "wb-$1" ] || { echo "${d##*/}"; return 0; }
	done
	echo "WB-FSTESTS error no namespace with serial wb-$1" >&2
	return 1
}
test_dev=$(serial test)
scratch_dev=$(serial scratch)
echo 96 >"/sys/block/$test_dev/queue/max_sectors_kb"
echo 60 >"/sys/block/$scratch_dev/queue/max_sectors_kb"
for d in "$test_dev" "$scratch_dev"; do
	q=/sys/block/$d/queue
	echo "WB-FSTESTS device $d max_sectors_kb $(cat "$q/max_sectors_kb") write_zeroes_max_bytes $(cat "$q/write_zeroes_max_bytes") logical_block_size $(cat "$q/logical_block_size")"
done

# step_done STEP T0: how long a set-up step took since T0 (date +%s),
# and the time since boot: on a debug kernel under TCG the set-up takes
# a good part of the run.
step_done() {
	echo "WB-FSTESTS setup $1 $(( $(date +%s) - $2 ))s, $(cut -d' ' -f1 /proc/uptime)s after boot"
}

# The huge zero folio before memory is fragmented (it needs an order-9
# block): a zeroout large enough to ask for it.
t0=$(date +%s)
before=$(awk '$1 == "thp_zero_page_alloc" { print $2 }' /proc/vmstat)
blkdiscard -z -l 4M "/dev/$scratch_dev"
echo "WB-FSTESTS huge zero folio: thp_zero_page_alloc $before -> $(awk '$1 == "thp_zero_page_alloc" { print $2 }' /proc/vmstat)"
step_done zeroout "$t0"

# 70 % of what is available held, every other page of it given back; no
# proactive compaction to move the held pages and close the holes.
t0=$(date +%s)
echo 0 >/proc/sys/vm/compaction_proactiveness 2>/dev/null || true
/fstests/frag "$(awk '$1 == "MemAvailable:" { print int($2 * 0.7) }' /proc/meminfo)" >/tmp/frag.out &
frag=$!
for _ in $(seq 600); do
	[ ! -s /tmp/frag.out ] || break
	kill -0 "$frag" 2>/dev/null || { echo "WB-FSTESTS error frag exited"; break; }
	sleep 0.5
done
if [ -s /tmp/frag.out ]; then
	echo "WB-FSTESTS $(cat /tmp/frag.out)"
else
	echo "WB-FSTESTS error frag did not fragment memory: the run goes on unfragmented"
fi
echo "WB-FSTESTS buddyinfo $(awk '{ $1 = $2 = $3 = ""; printf "%s;", $0 }' /proc/buddyinfo)"
step_done frag "$t0"

# split_count DEV [start]: how many bios blk-mq split on DEV (block_split
# events) since "split_count DEV start", counted by a trace instance of
# its own: its small ring keeps few events, but entries plus overruns
# count every one written.
split_count() {
	local t=/sys/kernel/tracing/instances/wb_fstests_$1 n
	if [ "${2:-}" = start ]; then
		rmdir "$t" 2>/dev/null || true
		mkdir "$t" && echo 8 >"$t/buffer_size_kb" &&
			echo "dev == $(awk -F: '{ print $1 * 1048576 + $2 }' "/sys/block/$1/dev")" \
				>"$t/events/block/block_split/filter" &&
			echo 1 >"$t/events/block/block_split/enable"
		return
	fi
	n=$(trace_written "$t")
	echo 0 >"$t/events/block/block_split/enable"
	rmdir "$t"
	echo "$n"
}

t0=$(date +%s)
reach_setup
step_done reach "$t0"
cd /opt/fstests
mkdir -p /mnt/test /mnt/scratch
for fs in "$@"; do
	modprobe "$fs" 2>/dev/null || true
	export FSTYP=$fs TEST_DEV=/dev/$test_dev TEST_DIR=/mnt/test
	export SCRATCH_DEV=/dev/$scratch_dev SCRATCH_MNT=/mnt/scratch
	MKFS_OPTIONS=
	case $block:$fs in
	default:*) ;;
	*:xfs) MKFS_OPTIONS="-b size=$block" ;;
	*:ext4) MKFS_OPTIONS="-b $block" ;;
	*) echo "WB-FSTESTS error no block size option for $fs" ;;
	esac
	export MKFS_OPTIONS
	# The generic and shared tests, and those of this file system.
	mine=()
	for t in "${tests[@]}"; do
		case ${t%%/*} in generic|shared|"$fs") mine+=("$t") ;; esac
	done
	if [ ${#mine[@]} -eq 0 ]; then
		echo "WB-FSTESTS error no test of $list for $fs"
		continue
	fi
	start=$(date +%s)
	echo "WB-FSTESTS pass $fs$tag"
	split_count "$test_dev" start
	split_count "$scratch_dev" start
	reach_start
	rc=0
	force=-f
	[ "$fs" != ext4 ] || force=-F
	t0=$(date +%s)
	# shellcheck disable=SC2086 # MKFS_OPTIONS: options, or none
	if ! "mkfs.$fs" -q "$force" $MKFS_OPTIONS "$TEST_DEV" >/tmp/mkfs.log 2>&1; then
		echo "WB-FSTESTS error mkfs.$fs of $TEST_DEV: $(tr '\n' ' ' </tmp/mkfs.log)"
		rc=1
	else
		step_done "mkfs.$fs" "$t0"
		# Through a pipe: check's output is its report, with no
		# terminal control.
		./check --exact-order "${mine[@]}" | cat || rc=$?
		# What check saved of a failed test's kernel log: its first
		# warning line.
		for f in results/*/*.dmesg; do
			[ -e "$f" ] || continue
			t=${f#results/}
			echo "WB-FSTESTS dmesg ${t%.dmesg} $(grep -m1 -E 'WARNING|BUG|Oops|INFO:|Call Trace' "$f" || head -n1 "$f")"
		done
		rm -rf results
	fi
	umount /mnt/test /mnt/scratch 2>/dev/null || true
	echo "WB-FSTESTS splits $fs$tag $test_dev $(split_count "$test_dev") $scratch_dev $(split_count "$scratch_dev")"
	reach_report "WB-FSTESTS reach $fs$tag"
	echo "WB-FSTESTS end $fs$tag $rc $(( $(date +%s) - start ))"
done
if kill -0 "$frag" 2>/dev/null; then
	echo "WB-FSTESTS frag held memory to the end"
	kill "$frag"
else
	echo "WB-FSTESTS error frag was killed during the run (memory pressure): later tests ran on less fragmented memory"
fi
echo "WB-FSTESTS buddyinfo $(awk '{ $1 = $2 = $3 = ""; printf "%s;", $0 }' /proc/buddyinfo)"
echo "WB-FSTESTS done"
