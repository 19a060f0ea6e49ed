#!/bin/sh
# The kill test of the bystander boot: every case of the series' test
# programs (/kselftest/block; of dio_split, one variant's), and the guard
# programs that make null_blk devices (/kselftest/blk_guards: zeroout,
# dio_io), killed in the middle of a case, then run again. Killed twice: SIGTERM to the harness's
# parent process alone (as when run_kselftest.sh is interrupted: the
# child finishes its case), and SIGKILL to every process of it (as the
# harness's timeout does). "In the middle" is once the case has made its
# device or trace instance. The second run (of the same case; a guard
# program's first case) must pass, and once no process of either run is
# left no null_blk, trace instance or saved setting of theirs may be (the
# second run removes or restores what the killed one left). One TAP line
# per case or program and signal.
# Usage: kill.sh
set -u
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# What the tests make and name after their process (the series'
# blk_util.c; the guards' blk_lib.c), and the settings both saved.
made() {
	for d in /sys/kernel/config/nullb/* /sys/kernel/tracing/instances/* /tmp/ksft_blk_*; do
		[ -d "$d" ] && printf ' %s' "${d##*/}"
	done
	for f in /run/blk_guards_saved/* /run/ksft_blk_*; do
		[ -f "$f" ] && printf ' saved:%s' "${f##*/}"
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

# Waits up to 10 minutes for every process named $1 to end.
gone() {
	i=0
	while [ -n "$(pids "$1")" ] && [ $i -lt 600 ]; do
		sleep 1
		i=$((i + 1))
	done
}

# The FIXTURE.VARIANT.TEST names of a harness program, from its -l list:
# every variant of a fixture with each of its tests.
cases() {
	"./$1" -l 2>&1 | awk '
	function flush(   i, j) {
		for (i = 1; i <= nv || i == 1; i++)
			for (j = 1; j <= nt; j++)
				print f "." (nv ? v[i] "." : "") t[j]
		nv = nt = 0
	}
	/^# FIXTURE/ { next }
	/^-----/ { flush(); next }
	{
		if (substr($0, 1, 20) !~ /^ *$/) f = $1
		vv = substr($0, 22, 25); gsub(/ /, "", vv); if (vv != "") v[++nv] = vv
		tt = substr($0, 48); gsub(/ /, "", tt); if (tt != "") t[++nt] = tt
	}
	END { flush() }'
}

# kill_one DIR PROG SIG FIRST_ARGS AGAIN_ARGS: one TAP line.
kill_one() {
	dir=$1 prog=$2 sig=$3 first=$4 again=$5
	cd "$dir" || { echo "not ok - kill test: no $dir"; return; }
	# shellcheck disable=SC2086
	./$prog $first >"$logs/first" 2>&1 &
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
	# The next run comes once the killed one is gone (SIGKILL waits for
	# an I/O in flight): what a process still going made is not swept.
	gone "$prog"
	# shellcheck disable=SC2086
	./$prog $again >"$logs/again" 2>&1
	rc=$?
	gone "$prog"
	swept=$(grep -c -E '(removed|restored) .* left by a killed run' "$logs/again")
	left=$(made)
	what="kill -$sig of $prog ${first:-(all cases)} while it had${seen:- nothing made yet}, then ${again:-a second run}"
	if [ -z "$seen" ]; then
		echo "not ok - $what: it made nothing before it ended"
	elif [ $rc -ne 0 ]; then
		echo "not ok - $what: the second run exited $rc"
		sed 's/^/# /' "$logs/again" | tail -20
	elif [ -n "$left" ]; then
		echo "not ok - $what: left behind:$left"
	else
		echo "ok - $what: passed, $swept leftovers removed, nothing left"
	fi
}

# dio_split: the cases of one variant (the others differ in numbers only).
for prog in zeroout dio_split; do
	for c in $(cd /kselftest/block && cases $prog |
		   awk -F. '$1 != "dio_split" || $2 == "512_60k"'); do
		for sig in TERM KILL; do
			kill_one /kselftest/block "$prog" "$sig" "-r $c" "-r $c"
		done
	done
done
for prog in zeroout dio_io; do
	c=$(cd /kselftest/blk_guards && cases $prog | head -n 1)
	for sig in TERM KILL; do
		kill_one /kselftest/blk_guards "$prog" "$sig" "" "-r $c"
	done
done
