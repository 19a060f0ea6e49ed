#!/bin/sh
# The kill test of the bystander boot: each test program of the series
# (/kselftest/block), killed in the middle of a case, then run again.
# Killed twice: SIGTERM to the harness's parent process alone (as when
# run_kselftest.sh is interrupted: the child finishes its case), and
# SIGKILL to every process of it (as the harness's timeout does). The
# second run must pass, and once no process of either run is left no
# null_blk or trace instance of theirs may be (the second run removes
# what the killed one left). One TAP line per program and signal.
# Usage: kill.sh
set -u
cd /kselftest/block || { echo "not ok - kill test: no /kselftest/block"; exit 1; }

# What the tests make and name after their process (blk_util.h).
made() {
	for d in /sys/kernel/config/nullb/ksft_blk_* \
		 /sys/kernel/tracing/instances/ksft_blk_*; do
		[ -d "$d" ] && printf ' %s' "${d##*/}"
	done
}

# PIDs of the live processes named $1 (not zombies: an orphan's parent
# here may never reap it).
pids() {
	for p in /proc/[0-9]*; do
		read -r _ c st _ 2>/dev/null <"$p/stat" || continue
		[ "$c" = "($1)" ] && [ "$st" != Z ] && printf ' %s' "${p#/proc/}"
	done
}

for prog in zeroout dio_split dio_pins; do
	# One variant of dio_split: two cases, not fourteen.
	args=
	[ "$prog" = dio_split ] && args="-v 512_60k"
	for sig in TERM KILL; do
		# shellcheck disable=SC2086
		./$prog $args >/tmp/kill-first.log 2>&1 &
		pid=$!
		seen='' i=0
		while [ -z "$seen" ] && [ $i -lt 20000 ] && kill -0 $pid 2>/dev/null; do
			seen=$(made)
			i=$((i + 1))
		done
		if [ "$sig" = TERM ]; then
			kill -TERM $pid
		else
			# shellcheck disable=SC2046
			kill -KILL $(pids "$prog") 2>/dev/null
		fi
		wait $pid 2>/dev/null
		# shellcheck disable=SC2086
		./$prog $args >/tmp/kill-again.log 2>&1
		rc=$?
		i=0
		while [ -n "$(pids "$prog")" ] && [ $i -lt 600 ]; do
			sleep 1
			i=$((i + 1))
		done
		swept=$(grep -c 'left by a killed run' /tmp/kill-again.log)
		left=$(made)
		what="kill -$sig of $prog while it had${seen:- nothing made yet}, then a second run"
		if [ -z "$seen" ]; then
			echo "not ok - $what: it never made a device before the kill"
		elif [ $rc -ne 0 ]; then
			echo "not ok - $what: the second run exited $rc"
			sed 's/^/# /' /tmp/kill-again.log | tail -20
		elif [ -n "$left" ]; then
			echo "not ok - $what: left behind:$left"
		else
			echo "ok - $what: passed, $swept leftovers removed, nothing left"
		fi
	done
done
