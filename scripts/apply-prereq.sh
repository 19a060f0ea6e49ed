#!/bin/bash
# Usage: scripts/apply-prereq.sh REPO RELEASE PREREQDIR
# Applies the prerequisites of a series (PREREQDIR/series: backports of
# mainline commits that the RELEASE commit of REPO lacks, each headed
# "commit <sha> upstream.") with git am, on top of RELEASE, in a sparse
# worktree of the files they change, and prints the resulting commit: the
# base that the series and the unpatched kernel build on. The result is
# kept as refs/wb/prereq-STAMP (STAMP: a hash of RELEASE and the patches),
# so a second run prints the same commit. A prerequisite the release has
# already (a later stable release: its diff reverts cleanly) is skipped,
# saying so; a patch that does not apply stops the run, naming it and
# quoting git am.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

repo=$1 release=$2 dir=$3
wb_series "$dir"
stamp=$( { git -C "$repo" rev-parse "$release"; cd "$dir" && cat series "${wb_patches[@]}"; } |
	sha1sum | cut -c1-12)
ref=refs/wb/prereq-$stamp
if git -C "$repo" rev-parse -q --verify "$ref^{commit}"; then
	exit 0
fi

start=$(date +%s)
tree=$(mktemp -d "${TMPDIR:-/tmp}/wb-prereq.XXXXXX")
trap 'git -C "$repo" worktree remove --force "$tree" 2>/dev/null; rm -rf "$tree"' EXIT
git -C "$repo" worktree add -q --detach --no-checkout "$tree" "$release"
for p in "${wb_patches[@]}"; do
	git -C "$repo" apply --numstat "$dir/$p" | cut -f3
done | sort -u | git -C "$tree" sparse-checkout set --no-cone --stdin
git -C "$tree" checkout -q --detach "$release"
skipped=0
for p in "${wb_patches[@]}"; do
	if git -C "$tree" apply --reverse --check "$(realpath "$dir/$p")" 2>/dev/null; then
		echo "apply-prereq: $p is in $(git -C "$repo" log -1 --format=%h "$release") already: skipped" >&2
		skipped=$((skipped + 1))
		continue
	fi
	if ! out=$(wb_git -C "$tree" am -q --keep-cr "$(realpath "$dir/$p")" 2>&1); then
		echo "apply-prereq: prerequisite $p does not apply to $(git -C "$repo" log -1 --format='%h %s' "$release"):" >&2
		printf '  | %s\n' "${out//$'\n'/$'\n'  | }" >&2
		exit 1
	fi
done
git -C "$repo" update-ref "$ref" "$(git -C "$tree" rev-parse HEAD)"
echo "apply-prereq: $(( ${#wb_patches[@]} - skipped )) prerequisites of $dir on $(git -C "$repo" log -1 --format=%h "$release") in $(( $(date +%s) - start ))s, kept as $ref" >&2
git -C "$repo" rev-parse "$ref"
