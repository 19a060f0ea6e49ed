#!/bin/bash
# Usage: scripts/suite-report.sh SUITE OUTDIR BASELINE_LOG PATCHED_LOG [LIST]
# Reads the output of a suite's guest script (SUITE blktests:
# guest/blktests/run.sh; fstests: guest/fstests/run.sh) in each kernel's
# boot: the suite's own lines between "WB-SUITE pass WHERE ..." and
# "WB-SUITE end WHERE ..." (WHERE: the device kind and limit, or the
# file system). Writes for each kernel K (baseline, patched):
#   OUTDIR/SUITE-K.rows   test, where, result, reason, seconds (tabs)
#   OUTDIR/SUITE-K.txt    the table: test, where, pass / fail / not run,
#                         the suite's own reason (for a not-run its skip
#                         reasons, for a failure the first line of its
#                         diff, its exit status or dmesg finding) and time
#   OUTDIR/SUITE-K.tap    the same as TAP (not run as "# SKIP reason")
#   OUTDIR/SUITE-K.reach  the reach counts of each pass (guest/reach.sh)
# then OUTDIR/SUITE.md (both kernels in one markdown table),
# OUTDIR/SUITE-reach.md (what each pass reached, both kernels), and
# OUTDIR/SUITE-rule.tap: one result. A row is keyed by test, condition
# (blktests' "(tr=loop bd=device)") and WHERE; a key seen twice in one
# kernel's run gets " #2", " #3"... The rule fails if a test fails or is
# not run on the patched kernel and has not the same result on the
# baseline (a baseline pass, not run or missing beside a patched fail),
# if a row of the baseline has none on the patched kernel, or if the run
# is incomplete: a baseline whose pass did not end, whose run did not
# finish or whose guest script reported a setup error (nothing to compare
# with), or, given LIST (a file of test names, "#" comments, as
# config/fstests.tests), a listed test with no row in a WHERE of either
# kernel (a test of tests/xfs: in the XFS passes only), or if a patched
# pass left pages pinned where the baseline's left none. A pass that did
# not end, a run that did not finish, a setup error, or a boot the
# console scanner failed (a warning, BUG or splat:
# scripts/scan-console.sh) is a failed row "(pass)", "(boot)", "(setup)"
# or "(console)" of its kernel: any of them on the patched kernel fails
# the rule. Prints both tables and the rule; exits 1 if the rule fails.
set -euo pipefail

suite=$1 out=$2 base_log=$3 patched_log=$4 list=${5:-}
# SUITE may name a run of its own (fstests-1024: make fstests
# FSTESTS_BLOCK=1024): its files are named so, its logs read as SUITE's.
kind=${suite%%-*}
mark=WB-${kind^^}
mkdir -p "$out"

# The lines common to both suites' logs: markers, an unfinished pass or
# run, the boot's own verdict (guest-run's "not ok - boot of ...").
# shellcheck disable=SC2016
common_awk='
	$1 == MARK && $2 == "pass" { flush(); kind = $3; sub(/:.*/, "", kind)
		where = kind ($4 == "" ? "" : " " $4); open[where] = 1; next }
	$1 == MARK && $2 == "end" { flush(); kind = $3; sub(/:.*/, "", kind)
		w = kind; if ($4 !~ /^-?[0-9]+$/) w = w " " $4; delete open[w]; next }
	$1 == MARK && $2 == "error" { flush(); $1 = ""; $2 = ""; sub(/^ +/, "")
		print "(setup)", "-", "fail", $0, "-"; next }
	$1 == MARK && $2 == "done" { flush(); done = 1; next }
	$1 == MARK && $2 != "dmesg" { flush(); next }
	/^not ok - boot of the / { flush(); print "(console)", "-", "fail", $0, "-"; next }
	function finish() { flush()
		for (w in open) print "(pass)", w, "fail", "the pass did not end (guest hung or died)", "-"
		if (!done) print "(boot)", "-", "fail", "the guest script did not finish (see the boot'"'"'s console.log)", "-" }'

# blktests: "block/001 (description)   [passed]", then indented lines
# (runtime, skip reasons, the diff or dmesg finding of a failure).
# shellcheck disable=SC2016
blktests_awk='
	function flush() {
		if (test != "") print test, where, status, (reason == "" ? "-" : reason), (secs == "" ? "-" : secs)
		test = ""
	}
	/\[(passed|failed|not run)\]$/ {
		flush()
		# A conditioned run (blktests set_conditions) names its
		# condition in brackets after the test: part of the key.
		test = $1; rest = $0; sub(/^[^ ]+ +/, "", rest)
		if (match(rest, /^\([^()]*=[^()]*\)/)) test = test " " substr(rest, RSTART, RLENGTH)
		status = $0; sub(/.*\[/, "", status); sub(/\]$/, "", status)
		status = (status == "passed") ? "pass" : (status == "failed") ? "fail" : "not run"
		reason = ""; failkind = ""; secs = ""
		next
	}
	/^    / && test != "" {
		line = $0; sub(/^ +/, "", line)
		if (line ~ /^runtime[ \t]/) { if ($NF ~ /^[0-9.]+s$/) { secs = $NF; sub(/s$/, "", secs) }; next }
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
	END { finish() }'

# fstests: "generic/001 [lasttime ...] 3s" (passed), "generic/002 [not
# run] reason", or a failure's messages ("- output mismatch", "[failed,
# exit status N]", "_check_dmesg: something found", a file system
# check's "inconsistent") after the name, then the diff's first lines
# indented. guest/fstests/run.sh adds "WB-FSTESTS dmesg TEST LINE": the
# first warning line of a failed test's dmesg.
# shellcheck disable=SC2016
fstests_awk='
	function judge() {
		if (test == "" || status != "") return
		if (text ~ /\[not run\]/) { status = "not run"; reason = text; sub(/.*\[not run\] */, "", reason) }
		else if (text ~ /\[expunged\]/) { status = "not run"; reason = "expunged" }
		else if (text ~ /output mismatch|\[failed|something found|inconsistent|\[dumped core\]|no qualified output|no such test|_check_/) {
			status = "fail"; reason = text; sub(/^[0-9]+s \.\.\. */, "", reason); sub(/^[- ]+/, "", reason)
			gsub(/ \(see [^)]*\)/, "", reason); sub(/ +$/, "", reason) }
		else if (first ~ / [0-9]+s$/) { status = "pass"; secs = first; sub(/.* /, "", secs); sub(/s$/, "", secs) }
		else { status = "fail"; reason = "no result: " text }
	}
	function flush() { judge(); if (test != "") { n++; key[n] = where " " test
		row[n] = test OFS where OFS status; why[n] = (reason == "" ? "-" : reason); t[n] = (secs == "" ? "-" : secs) }
		test = "" }
	$1 == MARK && $2 == "dmesg" { dm[where " " $3] = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", dm[where " " $3]); next }
	$1 ~ /^[a-z0-9]+\/[0-9]+$/ && where != "" {
		flush(); test = $1; status = ""; reason = ""; secs = ""
		first = $0; sub(/ +$/, "", first); text = first; sub(/^[^ ]+ */, "", text)
		if (first ~ / [0-9]+s$/ && text !~ /\[|mismatch|_check_|inconsistent/) judge()
		next }
	/^    / && test != "" {
		line = $0; sub(/^ +/, "", line)
		judge()
		if (status == "fail" && line ~ /^[-+][^-+]/ && reason !~ /: [-+]/) reason = reason ": " line
		next }
	/^(Ran|Not run|Failures|Passed all|SECTION|FSTYP|PLATFORM|MKFS_OPTIONS|MOUNT_OPTIONS)/ { flush(); next }
	test != "" && status == "" { l = $0; sub(/^ +/, "", l); text = text " " l; next }
	{ flush() }
	END { flush()
		for (i = 1; i <= n; i++) print row[i], (key[i] in dm ? "dmesg: " dm[key[i]] : why[i]), t[i]
		finish() }'

# results LOG: the rows of one kernel's log.
results() {
	local prog=$common_awk
	case $kind in
	blktests) prog+=$blktests_awk ;;
	fstests) prog+=$fstests_awk ;;
	*) echo "suite-report: no parser for the suite $suite" >&2; exit 1 ;;
	esac
	tr -d '\r' <"$1" | tr '\t' ' ' | awk -v OFS='\t' -v MARK="$mark" "$prog" |
		awk -F'\t' -v OFS='\t' '{ k = $1 FS $2; if (seen[k]++) $1 = $1 " #" seen[k]; print }'
}

table() {
	printf '%-12s %-26s %-8s %-6s %s\n' test where result secs "reason ($suite's)"
	awk -F'\t' '{ printf "%-12s %-26s %-8s %-6s %s\n", $1, $2, $3, $5, $4 }' "$1"
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
		echo "$suite-report: $log missing or empty: no run of the $k kernel" >&2
		: >"$out/$suite-$k.rows"
	else
		results "$log" >"$out/$suite-$k.rows"
	fi
	table "$out/$suite-$k.rows" >"$out/$suite-$k.txt"
	tap "$out/$suite-$k.rows" >"$out/$suite-$k.tap"
	echo "== $suite on the $k kernel ($log)"
	cat "$out/$suite-$k.txt"
	awk -F'\t' '{ n[$3]++ } END { printf "%d pass, %d fail, %d not run\n", n["pass"], n["fail"], n["not run"] }' \
		"$out/$suite-$k.rows"
	# What the run says of how it reached the series' paths (limits,
	# the huge zero folio, memory, splits per device and pass) and how
	# long its set-up took.
	[ ! -s "$log" ] || grep -aE '^WB-(FSTESTS|BLKTESTS) (device|huge|buddyinfo|splits|frag|fragmented|reach|setup)' "$log" | tr -d '\r' || true
	# reach: "MARK reach WHERE trim N tried N ...", WHERE as in the
	# pass lines: WHERE, then the counters as they came (tabs).
	if [ -s "$log" ]; then
		tr -d '\r' <"$log" | awk -v OFS='\t' -v MARK="$mark" '$1 == MARK && $2 == "reach" {
			w = $3; sub(/:.*/, "", w); i = 4
			if ($4 != "trim") { w = w " " $4; i = 5 }
			line = w; for (; i < NF; i += 2) line = line OFS $i OFS $(i + 1); print line }'
	fi >"$out/$suite-$k.reach"
done

# What each pass reached of the series, both kernels (guest/reach.sh
# says what each counter counts; "-": not a function of that kernel),
# as a markdown table (docs/suites.md). A patched pass that ran none of
# paths of the series says so.
awk -F'\t' '
	{ k = FILENAME ~ /-baseline\.reach$/ ? "baseline" : "patched"
	  if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 }
	  for (i = 2; i < NF; i += 2) { v[k, $1, $i] = $(i + 1); if (!($i in col)) { col[$i] = 1; cols[m++] = $i } } }
	END {
		if (!n) { print "(no reach counts in the logs)"; exit }
		h = "| where | kernel"; s = "| --- | ---"
		for (j = 0; j < m; j++) { h = h " | " cols[j]; s = s " | ---" }
		print h " | reached |"; print s " | --- |"
		for (i = 0; i < n; i++) for (kk = 1; kk <= 2; kk++) {
			k = kk == 1 ? "baseline" : "patched"; line = "| " order[i] " | " k; ran = 0; zeros = ""
			for (j = 0; j < m; j++) { x = v[k, order[i], cols[j]]; if (x == "") x = "?"
				line = line " | " x
				# Of the three paths, those this kernel has that never ran.
				if (cols[j] ~ /^(trim|nowalk|zerohuge)$/ && x != "-" && x != "?") {
					if (x + 0 > 0) ran = 1; else zeros = zeros (zeros == "" ? "" : ", ") cols[j] } }
			print line " | " (ran ? "yes" : zeros == "" ? "-" : "none of " zeros) " |"
		}
	}' "$out/$suite-baseline.reach" "$out/$suite-patched.reach" >"$out/$suite-reach.md"
echo "== what the passes reached (guest/reach.sh)"
cat "$out/$suite-reach.md"

# Both kernels side by side, as a markdown table (docs/suites.md).
awk -F'\t' -v OFS=' | ' '
	NR == FNR { key = $1 "\t" $2; if (!(key in b)) order[n++] = key; b[key] = $3; bt[key] = $5; br[key] = $4; next }
	{ key = $1 "\t" $2; if (!(key in b)) order[n++] = key; p[key] = $3; pt[key] = $5; pr[key] = $4 }
	END {
		print "| test | where | baseline | patched | seconds | reason |"
		print "| --- | --- | --- | --- | --- | --- |"
		for (i = 0; i < n; i++) {
			k = order[i]; split(k, t, "\t")
			why = (p[k] != "pass" && pr[k] != "") ? pr[k] : (b[k] != "pass" ? br[k] : "")
			if (why == "-") why = ""
			gsub(/\|/, "\\|", why)
			print "| " t[1], t[2], (k in b ? b[k] : "missing"), (k in p ? p[k] : "missing"), (bt[k] == "" ? "-" : bt[k]) " / " (pt[k] == "" ? "-" : pt[k]), why " |"
		}
	}' "$out/$suite-baseline.rows" "$out/$suite-patched.rows" >"$out/$suite.md"

# The rule: a test that does not pass on the patched kernel has the same
# result on the baseline; every row of the baseline has one on the
# patched kernel; a failed boot of the patched kernel (a splat) is not
# excused by one of the baseline.
bad=$(awk -F'\t' '
	NR == FNR { base[$1 "\t" $2] = $3; next }
	{ got[$1 "\t" $2] = 1 }
	$1 ~ /^\((console|boot|pass|setup)\)$/ { print $1 " " $2 ": on the patched kernel: " $4; next }
	$3 != "pass" && base[$1 "\t" $2] != $3 {
		print $1 " " $2 ": " $3 " on the patched kernel (" $4 "), " \
			(($1 "\t" $2) in base ? base[$1 "\t" $2] : "missing") " on the baseline" }
	END {
		for (k in base) {
			split(k, t, "\t")
			if (t[1] !~ /^\(/ && !(k in got)) print t[1] " " t[2] ": " base[k] " on the baseline, missing on the patched kernel"
		}
	}' "$out/$suite-baseline.rows" "$out/$suite-patched.rows" | sort)
both=$(awk -F'\t' 'NR == FNR { if ($3 != "pass") b[$1 "\t" $2] = $3; next }
	($1 "\t" $2) in b && $3 == b[$1 "\t" $2] && $1 !~ /^\(/ { print $1 " " $2 ": " b[$1 "\t" $2] " / " $3 ": " $4 }' \
	"$out/$suite-baseline.rows" "$out/$suite-patched.rows")
echo "== not passing on either kernel, the same way (baseline / patched: patched's reason)"
echo "${both:-none}"
rule="every test that does not pass on the patched kernel has the same result on the baseline, every test of the baseline ran on the patched kernel, both runs complete, no splat on the patched kernel, no page left pinned where the baseline left none"
# A baseline that did not run to its end, or whose set-up failed,
# compares nothing.
incomplete=$(awk -F'\t' '$1 ~ /^\((boot|pass|setup)\)$/ { print "the baseline is incomplete (" $1 " " $2 ": " $4 "): nothing compared" }' \
	"$out/$suite-baseline.rows")
# Every listed test has a row in every WHERE of both kernels.
if [ -n "$list" ]; then
	incomplete+=$'\n'$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list" |
		awk -F'\t' 'FILENAME == "-" { want[$1] = 1; next }
			$1 !~ /^\(/ { where[$2] = 1; k = FILENAME ~ /baseline/ ? "baseline" : "patched"; have[k "\t" $1 "\t" $2] = 1 }
			END { for (w in where) for (t in want) for (i = 1; i <= 2; i++) {
				# A test of tests/FS runs only in the passes of FS.
				dir = t; sub(/\/.*/, "", dir); fs = w; sub(/ .*/, "", fs)
				if (dir != "generic" && dir != "shared" && dir != fs) continue
				k = i == 1 ? "baseline" : "patched"
				if (!((k "\t" t "\t" w) in have)) print "the run is incomplete: " t " " w ": no result on the " k " kernel"
			} }' - "$out/$suite-baseline.rows" "$out/$suite-patched.rows" | sort)
fi
# Pages left pinned after a patched pass where the baseline's pass of
# the same WHERE left none.
pinned=$(awk -F'\t' '
	{ for (i = 2; i < NF; i += 2) if ($i == "pinbalance") b = $(i + 1) }
	FILENAME ~ /-baseline\.reach$/ { base[$1] = b; next }
	b != 0 && base[$1] == "0" { print "pages left pinned after the pass " $1 " on the patched kernel: " b ", on the baseline 0" }' \
	"$out/$suite-baseline.reach" "$out/$suite-patched.reach")
bad=$(printf '%s\n%s\n%s' "$incomplete" "$pinned" "$bad" | sed '/^$/d')
if [ -n "$bad" ] || [ ! -s "$out/$suite-baseline.rows" ] || [ ! -s "$out/$suite-patched.rows" ]; then
	echo "$suite-report: RULE BROKEN: $rule:" >&2
	awk '{ print "  " $0 }' <<<"${bad:-a kernel has no results}" >&2
	printf 'not ok 1 - %s: %s\n1..1\n' "$suite" "$rule" >"$out/$suite-rule.tap"
	exit 1
fi
printf 'ok 1 - %s: %s\n1..1\n' "$suite" "$rule" >"$out/$suite-rule.tap"
echo "$suite-report: ok: $rule"
