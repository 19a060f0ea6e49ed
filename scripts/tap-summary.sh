#!/bin/bash
# Usage: scripts/tap-summary.sh LABEL=FILE...
# Reads TAP/KTAP results (kselftest runner output, where a test's own TAP is
# nested behind "# ", or KTAP, nested by indentation), prints one row per
# result and ends with the line "N passed, N failed, N skipped".
# Counts leaf results; a parent that failed with no failing child (a crash,
# a timeout) counts as one failure. Exits 1 on any failure, or if a FILE is
# missing or holds no result at all.
set -euo pipefail

status=0
for arg in "$@"; do
	label=${arg%%=*} file=${arg#*=}
	if [ ! -s "$file" ]; then
		echo "FAIL  $label: no TAP output ($file missing or empty)"
		echo "RESULT fail"
		status=1
		continue
	fi
	awk -v label="$label" '
	function depth_of(line,   d) {
		d = 0
		while (1) {
			if (substr(line, 1, 2) == "# ") { line = substr(line, 3); d++ }
			else if (substr(line, 1, 4) == "    ") { line = substr(line, 5); d++ }
			else break
		}
		rest = line
		return d
	}
	{
		sub(/\r$/, "")
		sub(/^\[ *[0-9]+\.[0-9]+\] /, "")	# printk time of KTAP on the console
		d = depth_of($0)
		if (d == 0 && rest ~ /^1\.\.[0-9]+/) { plan = substr(rest, 4) + 0; next }
		if (rest !~ /^(not )?ok( [0-9]+)?( |$)/)	# TAP: the number is optional
			next
		if (d == 0) top++
		ok = (rest !~ /^not /)
		desc = rest
		sub(/^(not )?ok( [0-9]+)? *(- )?/, "", desc)
		skip = (desc ~ /# *[Ss][Kk][Ii][Pp]/)
		kids = child[d + 1]; kfail = childfail[d + 1]
		child[d + 1] = 0; childfail[d + 1] = 0
		child[d] = 1
		if (!ok && !skip) childfail[d] = 1
		if (kfail) childfail[d] = 1
		if (kids && (ok || kfail || skip))
			next
		if (skip) { print "SKIP  " label ": " desc; print "RESULT skip" }
		else if (ok) { print "PASS  " label ": " desc; print "RESULT pass" }
		else { print "FAIL  " label ": " desc; print "RESULT fail" }
		n++
	}
	END {
		if (!n) { print "FAIL  " label ": no test result in the TAP output"; print "RESULT fail" }
		else if (plan && top < plan) { print "FAIL  " label ": plan 1.." plan " but only " top " results: the run stopped early"; print "RESULT fail" }
	}
	' "$file"
done | {
	pass=0 fail=0 skip=0
	while IFS= read -r line; do
		case $line in
		"RESULT pass") pass=$((pass + 1)) ;;
		"RESULT fail") fail=$((fail + 1)) ;;
		"RESULT skip") skip=$((skip + 1)) ;;
		*) echo "$line" ;;
		esac
	done
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
} || status=1
exit $status
