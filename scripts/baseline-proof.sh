#!/bin/bash
# Usage: scripts/baseline-proof.sh PATTERNS... BASELINE_TAP
# Each line of the PATTERNS files (an extended regex; # comments) names a shape test
# by its TAP description. On the unpatched kernel each must have run and
# failed: that proves the test sees the behaviour the series adds. Prints
# TAP: "ok" for each such test that failed on the baseline, "not ok" for
# one that passed there (it does not discriminate) or never ran, and
# "not ok" if the baseline boot failed.
# A line "skip REGEX" names instead tests that must have skipped there,
# each result a SKIP (the proofs run without BLK_PROOFS=1).
# PROOF_SKIP_OK (an extended regex, make arm64: reasons that name the page
# size): a proof whose every result is a skip with a reason it matches
# proves nothing there and fails nothing: "ok ... # SKIP" with the reason.
set -euo pipefail

tap=${!#} patterns=("${@:1:$#-1}")
[ ${#patterns[@]} -gt 0 ] || { echo "usage: $0 PATTERNS... BASELINE_TAP" >&2; exit 2; }
# The guest's serial port ends lines with CR LF: drop the CR, so that a
# pattern can anchor the end of a test name.
mapfile -t res < <(grep -aE '^(# )*(not )?ok [0-9]+' "$tap" | sed -E 's/^(# )*//; s/\r$//' || true)
n=0
echo "TAP version 13"
while IFS= read -r pat; do
	case $pat in ''|'#'*) continue ;; esac
	n=$((n + 1))
	hits=0 passed=0 skipped=0 skips=0 cases='' names='' reason='' must=fail
	[[ $pat != 'skip '* ]] || must=skip pat=${pat#skip }
	for r in "${res[@]}"; do
		desc=$(sed -E 's/^(not )?ok [0-9]+ (- )?//' <<<"$r")
		grep -qE -- "$pat" <<<"$desc" || continue
		hits=$((hits + 1)); cases+="${cases:+, }$desc"
		[[ $desc != *"# SKIP"* ]] || skips=$((skips + 1))
		names+="${names:+, }${desc%% # SKIP*}"
		if [ -n "${PROOF_SKIP_OK:-}" ] && [[ $desc == *"# SKIP "* ]] &&
		   grep -qE -- "$PROOF_SKIP_OK" <<<"${desc#*# SKIP }"; then
			skipped=$((skipped + 1)) reason=${desc#*# SKIP }
		fi
		# A skip proves nothing either: only a real failure counts.
		[[ $r == "not ok"* && $desc != *"# SKIP"* ]] || passed=$((passed + 1))
	done
	if [ $must = skip ]; then
		if [ $hits -gt 0 ] && [ $skips -eq $hits ]; then
			echo "ok $n baseline skips as it must ($hits of $hits): $names"
		else
			echo "not ok $n baseline: /$pat/ must skip: $skips skips of $hits results${names:+: $names}"
		fi
	elif [ $hits -gt 0 ] && [ $skipped -eq $hits ]; then
		echo "ok $n baseline: /$pat/ # SKIP $reason"
	elif [ $hits -eq 0 ]; then
		echo "not ok $n baseline: no result matches /$pat/: the shape test did not run"
	elif [ $passed -gt 0 ]; then
		echo "not ok $n baseline: /$pat/ passed or skipped $passed of $hits times on the unpatched kernel: it does not discriminate"
	else
		echo "ok $n baseline fails as it must ($hits of $hits): $cases"
	fi
done < <(cat "${patterns[@]}")
# The baseline boot itself must be clean: a splat, panic or hang there
# fails make test too (the Makefile records it as "not ok - boot of ...").
while IFS= read -r line; do
	n=$((n + 1))
	echo "not ok $n baseline ${line#not ok - }"
done < <(grep -a '^not ok - boot of' "$tap" || true)
echo "1..$n"
