#!/bin/bash
# Usage: scripts/check-series-sync.sh TREE BASE PATCHDIR
# Fails, naming each file, if a file the series of PATCHDIR adds (in TREE,
# since BASE) differs from or is missing at its copy in this repository
# (wb_added_copy: its kernel path, or PATCHDIR/added/ for a second series),
# or if the repository holds a file under block/, tools/, Documentation/
# or PATCHDIR/added/ that the series does not add (block/, tools/ and
# Documentation/ only for the repository's own patches/; their README.md,
# which says what the folder holds, aside). The patches are
# the one source of truth; run "make series" after changing the branch.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 base=$2 dir=$(realpath "$3")
repo=$(realpath "$(dirname "$0")/..")
bad=0
added=$(git -C "$tree" diff --name-only --diff-filter=A "$base" HEAD)
for f in $added; do
	copy=$(wb_added_copy "$dir" "$f")
	if [ ! -f "$copy" ]; then
		echo "check-series-sync: $f is added by the series but missing in the repo" >&2
		bad=1
	elif ! cmp -s "$tree/$f" "$copy"; then
		echo "check-series-sync: $f differs between the repo (${copy#"$repo"/}) and the series:" >&2
		diff -u "$tree/$f" "$copy" | head -n 20 >&2 || true
		bad=1
	fi
done
if wb_primary_series "$dir"; then
	mine=(block tools Documentation) strip=
else
	mine=("${dir#"$repo"/}/added") strip=${dir#"$repo"/}/added/
fi
while read -r f; do
	f=${f#"$strip"}
	# (The note at the top of each folder that says what its files are.)
	[[ $f =~ ^(block|tools|Documentation)/README\.md$ ]] && continue
	grep -qxF "$f" <<<"$added" || {
		echo "check-series-sync: $f is in the repo but no patch adds it" >&2
		bad=1
	}
done < <(cd "$repo" && git ls-files -co --exclude-standard "${mine[@]}")
[ $bad -eq 0 ] && echo "check-series-sync: $(wc -w <<<"$added") added files match"
exit $bad
