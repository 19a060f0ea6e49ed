#!/bin/bash
# Usage: scripts/check-series-sync.sh TREE BASE
# Fails, naming each file, if a file the series adds (in TREE, since BASE)
# differs from or is missing at its kernel path in this repository, or if
# the repository holds a file under block/, tools/ or Documentation/ that
# the series does not add. patches/ is the one source of truth; run
# "make series" after changing the branch.
set -euo pipefail

tree=$1 base=$2
repo=$(realpath "$(dirname "$0")/..")
bad=0
added=$(git -C "$tree" diff --name-only --diff-filter=A "$base" HEAD)
for f in $added; do
	if [ ! -f "$repo/$f" ]; then
		echo "check-series-sync: $f is added by the series but missing in the repo" >&2
		bad=1
	elif ! cmp -s "$tree/$f" "$repo/$f"; then
		echo "check-series-sync: $f differs between the repo and the series:" >&2
		diff -u "$tree/$f" "$repo/$f" | head -n 20 >&2 || true
		bad=1
	fi
done
while read -r f; do
	grep -qxF "$f" <<<"$added" || {
		echo "check-series-sync: $f is in the repo but no patch adds it" >&2
		bad=1
	}
done < <(cd "$repo" && git ls-files -co --exclude-standard block tools Documentation)
[ $bad -eq 0 ] && echo "check-series-sync: $(wc -w <<<"$added") added files match"
exit $bad
