#!/bin/bash
# Usage: scripts/blktests-report.sh OUTDIR BASELINE_LOG PATCHED_LOG
# Reads the output of guest/blktests/run.sh in each kernel's boot (check's
# own lines, between "WB-BLKTESTS pass DEVICE LIMIT" and "WB-BLKTESTS end
# ..."), and writes for each kernel K (baseline, patched):
#   OUTDIR/blktests-K.txt  the table: test, device and limit, pass / fail /
#                          not run, and blktests' own reason (for a not-run
#                          its skip reasons, for a failure the first line of
#                          its diff, its exit status or dmesg finding)
#   OUTDIR/blktests-K.tap  the same as TAP (not run as "# SKIP reason")
# then OUTDIR/blktests-rule.tap: one result, not ok if a test passed on the
# baseline and failed, was not run or is missing on the patched kernel for
# the same device kind and limit. A pass of guest/blktests/run.sh that did
# not end, or a run that did not finish, is a failed row "(pass)" or
# "(boot)" of its kernel. Prints both tables and the rule; exits 1 if the rule fails.
set -euo pipefail

out=$1 base_log=$2 patched_log=$3
mkdir -p "$out"

# results LOG: "test<TAB>where<TAB>status<TAB>reason" per result; where is
# "KIND LIMIT" (the device's kind, not its name: nvme0n1 and nvme1n1 may
# swap between boots); an unfinished pass is a row "(pass)" that failed.
results() {
	tr -d '\r' <"$1" | awk -v OFS='\t' '
	function flush() {
		if (test != "") print test, where, status, (reason == "" ? "-" : reason)
		test = ""
	}
	/^WB-BLKTESTS pass / { flush(); kind = $3; sub(/:.*/, "", kind)
		where = kind " " $4; open[where] = 1; next }
	/^WB-BLKTESTS end / { flush(); kind = $3; sub(/:.*/, "", kind)
		delete open[kind " " $4]; next }
	/^WB-BLKTESTS error / { flush(); $1 = ""; $2 = ""; sub(/^ +/, "")
		print "(setup)", "-", "fail", $0; next }
	/^WB-BLKTESTS done/ { flush(); done = 1; next }
	/^WB-BLKTESTS / { flush(); next }
	/\[(passed|failed|not run)\]$/ {
		flush()
		test = $1
		status = $0; sub(/.*\[/, "", status); sub(/\]$/, "", status)
		status = (status == "passed") ? "pass" : (status == "failed") ? "fail" : "not run"
		reason = ""; failkind = ""
		next
	}
	/^    / && test != "" {
		line = $0; sub(/^ +/, "", line)
		if (line ~ /^runtime[ \t]/) next
		if (status == "not run") { if (index("; " reason "; ", "; " line "; ") == 0) reason = (reason == "" ? line : reason "; " line); next }
		if (status != "fail") next
		if (line ~ /^(---|\+\+\+|@@)/) { failkind = "output"; next }
		if (line ~ /^something found in dmesg/) { failkind = "dmesg"; next }
		if (reason != "") next
		if (failkind == "output" && line ~ /^[-+]/) reason = "output differs: " line
		else if (failkind == "dmesg") reason = "dmesg: " line
		else if (failkind == "") reason = line
		next
	}
	{ flush() }
	END { flush()
		for (w in open) print "(pass)", w, "fail", "the pass did not end (guest hung or died)"
		if (!done) print "(boot)", "-", "fail", "guest/blktests/run.sh did not finish (see the boot'"'"'s console.log)" }'
}

table() {
	printf '%-12s %-26s %-8s %s\n' test "device limit" result "reason (blktests')"
	awk -F'\t' '{ printf "%-12s %-26s %-8s %s\n", $1, $2, $3, $4 }' "$1"
}

tap() {
	awk -F'\t' '{
		n++
		name = $1 " " $2
		if ($3 == "pass") print "ok " n " - " name
		else if ($3 == "not run") print "ok " n " - " name " # SKIP " $4
		else print "not ok " n " - " name " # " $4
	} END { print "1.." n }' "$1"
}

for k in baseline patched; do
	log=$base_log
	[ $k = patched ] && log=$patched_log
	if [ ! -s "$log" ]; then
		echo "blktests-report: $log missing or empty: no run of the $k kernel" >&2
		: >"$out/blktests-$k.rows"
	else
		results "$log" >"$out/blktests-$k.rows"
	fi
	table "$out/blktests-$k.rows" >"$out/blktests-$k.txt"
	tap "$out/blktests-$k.rows" >"$out/blktests-$k.tap"
	echo "== blktests on the $k kernel ($log)"
	cat "$out/blktests-$k.txt"
	awk -F'\t' '{ n[$3]++ } END { printf "%d pass, %d fail, %d not run\n", n["pass"], n["fail"], n["not run"] }' \
		"$out/blktests-$k.rows"
done

# The rule: what passes on the baseline passes on the patched kernel.
bad=$(awk -F'\t' '
	NR == FNR { if ($3 == "pass") base[$1 "\t" $2] = 1; next }
	{ got[$1 "\t" $2] = $3 "\t" $4 }
	END {
		for (k in base) {
			split(k, t, "\t")
			if (!(k in got)) print t[1] " " t[2] ": passes on the baseline, missing on the patched kernel"
			else if (got[k] !~ /^pass\t/) { split(got[k], g, "\t")
				print t[1] " " t[2] ": passes on the baseline, " g[1] " on the patched kernel: " g[2] }
		}
	}' "$out/blktests-baseline.rows" "$out/blktests-patched.rows" | sort)
both=$(awk -F'\t' 'NR == FNR { if ($3 != "pass") b[$1 "\t" $2] = $3; next }
	($1 "\t" $2) in b && $3 != "pass" { print $1 " " $2 ": " b[$1 "\t" $2] " / " $3 ": " $4 }' \
	"$out/blktests-baseline.rows" "$out/blktests-patched.rows")
echo "== not passing on either kernel (baseline / patched: patched's reason)"
echo "${both:-none}"
rule="no test passes on the baseline and fails (or is not run) on the patched kernel"
if [ -n "$bad" ] || [ ! -s "$out/blktests-baseline.rows" ] || [ ! -s "$out/blktests-patched.rows" ]; then
	echo "blktests-report: RULE BROKEN: $rule:" >&2
	awk '{ print "  " $0 }' <<<"${bad:-a kernel has no results}" >&2
	printf 'not ok 1 - blktests: %s\n1..1\n' "$rule" >"$out/blktests-rule.tap"
	exit 1
fi
printf 'ok 1 - blktests: %s\n1..1\n' "$rule" >"$out/blktests-rule.tap"
echo "blktests-report: ok: $rule"
