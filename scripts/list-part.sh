#!/bin/bash
# Usage: scripts/list-part.sh LIST K/N
# The tests of LIST (config/fstests.tests: a test a line, "#" comments)
# in the K-th of N parts: every N-th test from the K-th on, in LIST's
# order, so that each part takes tests from the whole list (its slow
# and its quick ones); 1/1 is the whole list. One test a line, no
# comments (the list the guest runs and the report checks).
set -euo pipefail

list=$1 part=$2
k=${part%/*} n=${part#*/}
if ! [[ $part =~ ^[1-9][0-9]*/[1-9][0-9]*$ ]] || [ "$k" -gt "$n" ]; then
	echo "list-part: $part: give K/N, the K-th of N parts, 1 <= K <= N" >&2
	exit 1
fi
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list" |
	awk -v k="$k" -v n="$n" '(NR - 1) % n == k - 1'
