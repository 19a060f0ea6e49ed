#!/bin/bash
# Usage (in the guest, make blktests): /blktests/run.sh SMALL_KB DEVTEST... -- TEST...
# Runs blktests (/opt/blktests) in passes, each one "./check" of its own:
#  - the DEVTESTs (tests with a test device) with TEST_DEVS set to one
#    device at a time: the NVMe namespaces guest/init names (BLK_NOWZ_DEV,
#    BLK_WZ_DEV), a memory-backed null_blk (configfs) and a scsi_debug disk
#    (512e) made here for each pass and removed after it, each at its
#    default max_sectors_kb and at SMALL_KB (written to sysfs before the
#    pass and the saved value written back after it), but for the two
#    namespaces: the one without Write Zeroes at its default, the other
#    at SMALL_KB;
#  - the TESTs, which make their own devices, at the drivers' defaults and
#    (where null_blk is a module) those of them that make a null_blk with
#    its max_sectors option at SMALL_KB (/etc/modprobe.d: blktests
#    modprobes null_blk itself; scsi_debug and loop have no such option).
# A DEVTEST or TEST may be a group (block, nvme...): check -d runs its
# tests that take a test device, a plain check all of them (those that
# take one are not run without TEST_DEVS). blktests' TIMEOUT (seconds of
# each fio run of a timed test) and QUICK_RUN come from the environment,
# and BLKTESTS_EXCLUDE: tests every pass leaves out (check -x).
# Each pass starts with a line "WB-BLKTESTS pass DEVICE LIMIT" and ends
# with "WB-BLKTESTS end DEVICE LIMIT RC SECONDS"; between them is check's
# own output, which scripts/suite-report.sh reads, and "WB-BLKTESTS reach
# DEVICE LIMIT ...": what of the series the pass ran (reach.sh).
set -euo pipefail

small=$1
shift
devtests=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	devtests+=("$1")
	shift
done
[ $# -eq 0 ] || shift
tests=("$@")
exclude=()
for t in ${BLKTESTS_EXCLUDE:-}; do
	exclude+=(-x "$t")
	echo "WB-BLKTESTS note: $t left out (BLKTESTS_EXCLUDE)"
done

# shellcheck source=guest/reach.sh
. /blktests/reach.sh
reach_setup
cd /opt/blktests
# bin/udevadm: the stand-in for udevadm (no udev here, see there).
export PATH=/blktests/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export NVMET_TRTYPES=loop
# No udev: dmsetup makes the /dev/mapper nodes itself, and bin/dmsetup
# links them to /dev/dm-N as udev would. With udev sync dmsetup made no
# node, and dm/002's dd wrote a regular file /dev/mapper/dust1 instead of
# the device (its bad blocks stayed, on both kernels).
export DM_DISABLE_UDEV=1
# blktests finds configfs (null_blk, nvmet) at /sys/kernel/config only.
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

# pass DEVICE LIMIT CHECK_ARG...: one ./check, framed by the markers.
pass() {
	local dev=$1 limit=$2 start rc
	shift 2
	echo "WB-BLKTESTS pass $dev $limit"
	start=$(date +%s)
	# Through a pipe: on the serial port check sees a terminal and
	# moves the cursor with tput.
	# (pipefail: rc is check's).
	rc=0
	reach_start
	./check "${exclude[@]}" "$@" | cat || rc=$?
	reach_report "WB-BLKTESTS reach $dev $limit"
	echo "WB-BLKTESTS end $dev $limit $rc $(( $(date +%s) - start ))"
}

# on_device KIND DEV LIMIT: the DEVTESTs on /dev/DEV at its default
# max_sectors_kb (LIMIT "default") or at SMALL_KB ("small"); the limit is
# written back even when check fails, unless a test removed the device (a
# null_blk test unloads null_blk).
on_device() {
	local kind=$1 dev=$2 q=/sys/block/$2/queue saved
	saved=$(cat "$q/max_sectors_kb")
	export TEST_DEVS=/dev/$dev
	if [ "$3" = default ]; then
		pass "$kind:$dev" "default=${saved}k" -d -o "results/$kind-default" \
			"${devtests[@]}"
	elif echo "$small" >"$q/max_sectors_kb"; then
		pass "$kind:$dev" "${small}k" -d -o "results/$kind-small" \
			"${devtests[@]}"
	else
		echo "WB-BLKTESTS error $kind:$dev cannot set max_sectors_kb to $small"
	fi
	[ ! -e "$q" ] || echo "$saved" >"$q/max_sectors_kb"
	unset TEST_DEVS
}

# Wait up to 10 s for a disk under sysfs PATTERN (a glob), print its name.
wait_disk() {
	local d
	for _ in $(seq 50); do
		for d in $1; do
			[ -e "$d" ] && { basename "$d"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

# make_nullb: a memory-backed null_blk (data written is read back), 1
# GiB, 512-byte blocks, as blktests' own helpers make one through
# configfs; prints its name. A test of an earlier pass may have left the
# module loaded with blktests' parameters: modprobe would then keep them.
nb=/sys/kernel/config/nullb/nullb0
make_nullb() {
	modprobe -r null_blk 2>/dev/null || true
	modprobe null_blk nr_devices=0 && mkdir "$nb" &&
		echo 1024 >"$nb/size" && echo 1 >"$nb/memory_backed" &&
		echo 512 >"$nb/blocksize" && echo 1 >"$nb/power" &&
		wait_disk /sys/block/nullb0
}

drop_nullb() {
	[ ! -d "$nb" ] || { echo 0 >"$nb/power"; rmdir "$nb"; } || true
	rmmod null_blk || true
}

# make_sdebug: a scsi_debug disk of 512-byte logical and 4 KiB physical
# blocks, 256 MiB, no delay; prints its name.
make_sdebug() {
	modprobe -r scsi_debug 2>/dev/null || true
	modprobe scsi_debug dev_size_mb=256 physblk_exp=3 delay=0 &&
		wait_disk "/sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*"
}

if [ ${#devtests[@]} -gt 0 ]; then
	# The two namespaces differ only in Write Zeroes: one pass each, the
	# one without it at its default limit, the other at SMALL_KB (a pass
	# of the nvme group's device tests takes 4 to 7 minutes here).
	for kind in nowz:default wz:small; do
		var=BLK_${kind%%:*}_DEV
		var=${var^^}
		if [ -n "${!var:-}" ]; then
			on_device "nvme-${kind%%:*}" "${!var}" "${kind#*:}"
		else
			echo "WB-BLKTESTS error nvme-${kind%%:*}: no namespace with serial wb-${kind%%:*}"
		fi
	done

	# Each limit on a device made anew: a test of the default pass may
	# remove it (a null_blk test unloads null_blk, a scsi test reloads
	# scsi_debug).
	for limits in default small; do
		if dev=$(make_nullb); then
			on_device null_blk "$dev" "$limits"
		else
			echo "WB-BLKTESTS error null_blk: cannot make the device"
		fi
		drop_nullb
		if dev=$(make_sdebug); then
			on_device scsi_debug "$dev" "$limits"
		else
			echo "WB-BLKTESTS error scsi_debug: cannot make the device"
		fi
		rmmod scsi_debug || true
	done
fi

if [ ${#tests[@]} -gt 0 ]; then
	pass own default -o results/own-default "${tests[@]}"
	# A kernel without modules (make arm64's) has null_blk built in, and
	# its max_sectors option cannot be given again: one pass only.
	if [ ! -e /proc/modules ]; then
		echo "WB-BLKTESTS note: no modules, so no pass with null_blk's max_sectors at ${small}k"
	else
		# Only the tests that make a null_blk: the option changes
		# nothing for the others.
		nullb=()
		for i in "${tests[@]}"; do
			case $i in
			*/*) f=tests/$i ;;
			*) f="tests/$i/[0-9][0-9][0-9]" ;;
			esac
			for t in $f; do
				[ -f "$t" ] && grep -q null_blk "$t" && nullb+=("${t#tests/}")
			done
		done
		# (check with no test would run every group.)
		if [ ${#nullb[@]} -eq 0 ]; then
			echo "WB-BLKTESTS note: no test of ${tests[*]} makes a null_blk: no pass at ${small}k"
		else
			mkdir -p /etc/modprobe.d
			echo "options null_blk max_sectors=$(( small * 2 ))" >/etc/modprobe.d/wb-blktests.conf
			pass own "null_blk=${small}k" -o results/own-small "${nullb[@]}"
			rm -f /etc/modprobe.d/wb-blktests.conf
		fi
	fi
fi
echo "WB-BLKTESTS done"
