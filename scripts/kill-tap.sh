#!/bin/bash
# Usage: scripts/kill-tap.sh OUTPUT_LOG TEST...
# TAP of guest/blktests/kill.sh's lines in a blktests boot's OUTPUT_LOG:
# "WB-KILL ok|not ok|skip TEST SIGNAL[: why]", each TEST twice (SIGTERM and
# SIGKILL). A line that is missing (the boot ended first) is a failure.
# Exits 1 if any is not ok or missing.
set -euo pipefail

log=$1
shift
n=0 bad=0
echo "TAP version 13"
for t in "$@"; do
	for sig in TERM KILL; do
		n=$((n + 1))
		line=$(tr -d '\r' <"$log" | grep -a "^WB-KILL [a-z ]*$t $sig" | tail -n 1 || true)
		case $line in
		"WB-KILL ok $t $sig") echo "ok $n $t stopped by SIG$sig: $([ $sig = TERM ] && echo 'nothing left' ||
			echo 'the next run removes what it left, passes and leaves nothing')" ;;
		"WB-KILL skip $t $sig"*) echo "ok $n $t stopped by SIG$sig # SKIP ${line#*: }" ;;
		"WB-KILL not ok $t $sig"*)
			echo "not ok $n $t stopped by SIG$sig: ${line#*: }"; bad=1 ;;
		*) echo "not ok $n $t stopped by SIG$sig: no result in $log"; bad=1 ;;
		esac
	done
done
echo "1..$n"
exit $bad
