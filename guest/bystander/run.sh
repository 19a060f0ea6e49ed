#!/bin/sh
# The bystander boot (make test's run-bystander): the block kselftests run
# as root beside an NVMe namespace nobody named to them (serial wb-keep,
# config/bystander.topology, filled with random data first), with no
# BLK_*_DEV set, so they make their own null_blk and scsi_debug devices.
# Prints the skip rules' TAP (skip-rules.sh: first, before anything takes
# the huge zero folio; its last case takes it), the guards' refusals of planted files (attack.sh),
# the kselftests', the kill test's (kill.sh), then two results
# of its own: the namespace reads back byte for byte as before, and no
# device, trace instance or saved setting is left behind.
# Usage: run.sh KSELFTEST_ARGS...
set -u

keep=
for d in /sys/block/nvme*; do
	[ -r "$d/device/serial" ] || continue
	read -r serial <"$d/device/serial"
	[ "$serial" = wb-keep ] && keep=${d##*/}
done
if [ -z "$keep" ]; then
	echo "not ok - bystander: no namespace with serial wb-keep"
	exit 1
fi
if [ -n "${BLK_NOWZ_DEV:-}${BLK_WZ_DEV:-}${BLK_TEST_DESTROY:-}" ]; then
	echo "not ok - bystander: devices are named to the tests: ${BLK_TEST_DESTROY:-}"
	exit 1
fi

dd if=/dev/urandom of="/dev/$keep" bs=1M 2>/dev/null
sync
before=$(md5sum <"/dev/$keep")

"$(dirname "$0")/skip-rules.sh"
"$(dirname "$0")/attack.sh"
(cd /kselftest && ./run_kselftest.sh "$@")
"$(dirname "$0")/kill.sh"

echo 3 >/proc/sys/vm/drop_caches
after=$(md5sum <"/dev/$keep")
size=$(($(cat "/sys/block/$keep/size") / 2048))
if [ "$before" = "$after" ]; then
	echo "ok - bystander $keep ($size MiB of random data, not named to the tests) reads back unchanged: md5 ${after%% *}"
else
	echo "not ok - bystander $keep was written by the tests: md5 ${before%% *} before, ${after%% *} after"
fi
left=
for d in /sys/kernel/config/nullb/* /sys/kernel/tracing/instances/* /tmp/ksft_blk_*; do
	[ -d "$d" ] && left="$left ${d##*/}"
done
for f in /run/blk_guards_saved/* /run/ksft_blk_*; do
	[ -f "$f" ] && left="$left saved:${f##*/}"
done
for d in /sys/block/sd*; do
	[ -r "$d/device/model" ] && grep -q scsi_debug "$d/device/model" &&
		left="$left ${d##*/}"
done
if [ -z "$left" ]; then
	echo "ok - no null_blk or scsi_debug device, trace instance or saved setting left behind by the tests"
else
	echo "not ok - devices, trace instances or saved settings left behind by the tests:$left"
fi
