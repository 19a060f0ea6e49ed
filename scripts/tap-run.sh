#!/bin/bash
# Usage: scripts/tap-run.sh TAPFILE NAME COMMAND [ARG...]
# Runs a host-side check and appends its result to TAPFILE as one TAP line
# ("ok - NAME" or "not ok - NAME"); COMMAND's output goes to TAPFILE.NAME.log
# and, on failure, its last lines to stderr. Prints a timed progress line.
set -euo pipefail

tap=$1 name=$2; shift 2
log=$tap.${name//[^A-Za-z0-9_.-]/_}.log
start=$(date +%s)
if "$@" >"$log" 2>&1; then
	echo "ok - $name" >>"$tap"
	echo "check: $name: ok ($(( $(date +%s) - start ))s)"
else
	echo "not ok - $name" >>"$tap"
	echo "check: $name: FAILED ($(( $(date +%s) - start ))s), log $log:" >&2
	tail -n 15 "$log" | sed 's/^/  | /' >&2
fi
