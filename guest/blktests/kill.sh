#!/bin/bash
# Usage (in the guest, make blktests): /blktests/kill.sh TEST...
# Our blktests cases (patches/blktests) stopped part way through, each
# once with SIGTERM and once with SIGKILL sent to its check's session:
#  - after SIGTERM blktests' cleanup runs: nothing of the case is left;
#  - after SIGKILL nothing runs: the next run of the case must remove what
#    the killed one left, pass, and leave nothing.
# "Nothing": no null_blk device in configfs, no blktests trace instance,
# no file system mounted from a null_blk. One line per case and signal,
# "WB-KILL ok TEST SIGNAL", "WB-KILL not ok TEST SIGNAL: why", or
# "WB-KILL skip TEST SIGNAL: why" if the case ended before the signal
# (then nothing was stopped), which the Makefile turns into TAP.
set -euo pipefail

cd /opt/blktests
export PATH=/blktests/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config

left() { # what a case left, a line each
	local d
	for d in /sys/kernel/config/nullb/*/ /sys/kernel/debug/tracing/instances/blktests_*; do
		[ ! -e "$d" ] || echo "$d"
	done
	awk '$1 ~ "^/dev/nullb" { print $1 " on " $2 }' /proc/mounts
}

# in_session SID: whether a process of session SID is left.
in_session() {
	local f
	for f in /proc/[0-9]*/stat; do
		# "PID (COMM) STATE PPID PGRP SESSION ...": COMM may hold spaces.
		[ "$(sed 's/.*) //' "$f" 2>/dev/null | cut -d' ' -f4)" != "$1" ] || return 0
	done
	return 1
}

# stop TEST SIGNAL: runs TEST until it has made its null_blk device and
# started its I/O, then sends SIGNAL to its session and waits for it to
# end. 0, or 1 if the case made no device within 60 s, 2 if it ended
# before the signal, 3 if it had not ended 60 s after it.
stop() {
	local pid ret=1
	setsid ./check "$1" >/tmp/wb-kill.log 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		[ ! -d /sys/kernel/config/nullb/nullb1 ] || { ret=0; break; }
		sleep 0.1
	done
	sleep 0.5
	kill -"$2" -- -"$pid" 2>/dev/null || ret=2
	wait "$pid" 2>/dev/null || true
	# check may end before the test's shell, whose cleanup then runs.
	for _ in $(seq 600); do
		in_session "$pid" || return $ret
		sleep 0.1
	done
	return 3
}

for t in "$@"; do
	for sig in TERM KILL; do
		why='' rc=0
		stop "$t" "$sig" || rc=$?
		if [ $rc = 2 ]; then
			echo "WB-KILL skip $t $sig: the case ended before the signal"
		else
			if [ $rc = 1 ]; then
				why="the case made no null_blk device within 60 s"
			elif [ $rc = 3 ]; then
				why="the case had not ended 60 s after the signal"
			elif [ $sig = KILL ] && { ! ./check "$t" >/tmp/wb-kill.log 2>&1 ||
				! grep -q '\[passed\]' /tmp/wb-kill.log; }; then
				why="the run after the kill did not pass: $(grep -v '^ *$' /tmp/wb-kill.log | tail -n 3 | tr '\n' ' ')"
			elif [ -n "$(left)" ]; then
				why="left $(left | tr '\n' ' ')"
			fi
			echo "WB-KILL ${why:+not }ok $t $sig${why:+: $why}"
		fi
		# The next case starts clean whatever this one left.
		awk '$1 ~ "^/dev/nullb" { print $2 }' /proc/mounts | while read -r m; do umount "$m"; done
		find /sys/kernel/config/nullb -mindepth 1 -maxdepth 1 -type d -delete 2>/dev/null || true
		rmdir /sys/kernel/debug/tracing/instances/blktests_* 2>/dev/null || true
	done
done
