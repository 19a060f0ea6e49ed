#!/bin/bash
# Usage: scripts/skip-check.sh ALLOWED TAP
# Every skipped test in TAP (kselftest runner output) must give a reason
# that matches a line of ALLOWED (an extended regex; # comments). Prints
# TAP: "ok" with the number of skips and the reasons that allowed them,
# or "not ok" for each skip whose reason matches none, and "not ok" if
# TAP holds no result at all.
set -euo pipefail

allowed=$1 tap=$2
mapfile -t pats < <(grep -vE '^(#|$)' "$allowed")
# A skip: "ok N name # SKIP reason" (harness), "ok N reason # SKIP" (ktap
# helpers of shell tests); the guest's serial port adds CR.
mapfile -t skips < <(grep -aE '^(# )*ok [0-9]+ .*# *SKIP' "$tap" | sed -E 's/^(# )*//; s/\r$//' || true)
results=$(grep -acE '^(# )*(not )?ok [0-9]+' "$tap" || true)
echo "TAP version 13"
n=0 bad=0
if [ "$results" -eq 0 ]; then
	n=1 bad=1
	echo "not ok 1 skips: no test result in $tap"
fi
for s in "${skips[@]}"; do
	# The reason follows "# SKIP" (harness), or precedes it (ktap).
	reason=$(sed -E 's/^.*# *SKIP *//' <<<"$s")
	[ -n "$reason" ] || reason=$(sed -E 's/^ok [0-9]+ (- )?//; s/ *# *SKIP *$//' <<<"$s")
	for p in "${pats[@]}"; do
		grep -qE -- "$p" <<<"$reason" && continue 2
	done
	n=$((n + 1)) bad=$((bad + 1))
	echo "not ok $n skips: not an allowed reason ($allowed): $reason"
done
if [ "$bad" -eq 0 ]; then
	n=$((n + 1))
	echo "ok $n skips: all ${#skips[@]} of $results results' skips have an allowed reason ($allowed)"
fi
echo "1..$n"
