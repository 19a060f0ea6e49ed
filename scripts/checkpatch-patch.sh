#!/bin/bash
# Usage: scripts/checkpatch-patch.sh TREE PATCH
# Runs TREE's scripts/checkpatch.pl --strict on the patch file PATCH and
# judges what it finds: it passes with no finding, or with findings that
# the patch's changelog (below "---") justifies, each by an item that
# mentions checkpatch and names the type (FILE_PATH_CHANGES) or quotes
# the message ("does MAINTAINERS need updating?"). A helper of
# checkpatch's that fails (spdxcheck.py's traceback) fails it too: the
# check would be missing. Prints the verdict on its first line, then the
# findings and their justification; exits 1 on a finding not justified.
# make checkpatch runs it on each patch in the patched tree, make check
# (scripts/check-series.sh) in the tree of the patch's predecessors.
set -euo pipefail

tree=$1 p=$(realpath "$2")
# checkpatch exits 1 on findings, which are judged below. Debian's
# python3 first: spdxcheck.py needs its python3-ply and python3-git.
out=$(cd "$tree" && { PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --show-types --no-summary --quiet "$p" 2>&1 || true; })
findings=$(grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" || true)
if grep -q '^Traceback ' <<<"$out"; then
	echo "a script checkpatch runs failed:"
	printf '%s\n' "$out"
	exit 1
fi
if [ -z "$findings" ]; then
	echo "no error, warning or check"
	exit 0
fi
# Changelog items (bullets or paragraphs below "---") that mention
# checkpatch, each joined on one line.
items=$(sed -n '/^---$/,/^diff --git /p' "$p" | awk '
	/^[[:space:]]*$/ || /^[[:space:]]*[-*] / { if (item ~ /checkpatch/) print item; item = "" }
	{ sub(/^[[:space:]]+/, ""); item = item " " $0 }
	END { if (item ~ /checkpatch/) print item }')
why=() bad=0
while IFS= read -r f; do
	type=${f#*:}
	msg=${type#*: } type=${type%%:*}
	item=$(while IFS= read -r i; do
		[[ $i == *"$type"* ]] && { echo "$i"; break; }
		while IFS= read -r q; do
			[ -n "$q" ] && [[ $msg == *"$q"* ]] && { echo "$i"; break 2; }
		done < <(grep -oE '"[^"]{8,}"' <<<"$i" | tr -d '"')
	done <<<"$items"
	# No item found ends the loop on a failed read: not an error.
	true)
	if [ -n "$item" ]; then
		why+=("$type justified:$item")
	else
		bad=1 why+=("$f (not justified in the changelog)")
	fi
done <<<"$findings"
if [ $bad -eq 0 ]; then
	echo "$(wc -l <<<"$findings") justified finding(s)"
else
	echo "findings the changelog does not justify:"
fi
# Each finding once (a type found on many lines, justified by one item),
# cut to a line; checkpatch's own words after a failure.
printf '%s\n' "${why[@]}" | awk '!seen[$0]++' | cut -c1-150
[ $bad -eq 0 ] || printf '%s\n' "$out"
exit $bad
