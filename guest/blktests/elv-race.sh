#!/bin/bash
# Usage (in the guest of make blktests, as BT_CMD): /blktests/elv-race.sh
#   [SECONDS] [WRITERS] [SCHEDULER...]
# What block/047 does with two writers, with more: WRITERS (4) tasks each
# write a scheduler chosen at random among SCHEDULER... (every scheduler
# the kernel offers) to one null_blk queue's queue/scheduler for SECONDS
# (300). On 7.1.5 this panics the guest, patched or not
# (docs/suites.md, block/047); a kernel that serialises the writers
# ends with "WB-ELV done", each writer's count of writes (and of those
# refused, as EBUSY) before it.
set -euo pipefail

secs=${1:-300} writers=${2:-4}
shift $(($# < 2 ? $# : 2))
modprobe null_blk nr_devices=1
trap 'rmmod null_blk 2>/dev/null || true' EXIT
q=/sys/block/nullb0/queue
if [ $# -eq 0 ]; then
	read -ra scheds < <(tr -d '[]' <"$q/scheduler")
else
	scheds=("$@")
fi
echo "WB-ELV $writers writers, ${secs} s, schedulers: ${scheds[*]}"

writer() {
	local end=$((SECONDS + secs)) n=0 refused=0
	while [ "$SECONDS" -lt "$end" ]; do
		echo "${scheds[RANDOM % ${#scheds[@]}]}" >"$q/scheduler" 2>/dev/null ||
			refused=$((refused + 1))
		n=$((n + 1))
	done
	echo "WB-ELV writer $1: $n writes, $refused refused"
}

for i in $(seq "$writers"); do
	writer "$i" &
done
wait
echo "WB-ELV done"
