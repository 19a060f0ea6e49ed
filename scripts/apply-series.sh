#!/bin/bash
# Usage: scripts/apply-series.sh TREE BASE PATCHDIR
# Resets TREE (the blk-series worktree) to the BASE commit and applies the
# patches listed in PATCHDIR/series with git am, in order. Does nothing if
# the same patches are applied already. A patch that does not apply stops
# the run, naming the patch and quoting git am. Each patch's changelog
# (between "---" and the diffstat) is kept as a git note on its commit.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 base=$2 dir=$3
wb_series "$dir"
for p in "${wb_patches[@]}"; do
	[ -f "$dir/$p" ] || { echo "apply-series: $dir/series lists $p, which is not in $dir" >&2; exit 1; }
done
if wb_applied_stamp "$tree" "$dir" check; then
	echo "apply-series: ${#wb_patches[@]} patches already applied on $tree"
	exit 0
fi

git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" checkout -q -B blk-series "$base"
# A rebase of the series (git rebase -i to edit a patch) carries the notes
# along: git copies notes on rewrite only for the refs named here. An
# "edit" stop amended with commit --amend gets its note copied twice (by
# the amend, then by the rebase): keep the first copy, which may have been
# edited since, instead of concatenating the two. So a squash or fixup
# keeps only the note of the commit it folds into: write the folded one's
# changelog into it by hand.
git -C "$tree" config notes.rewriteRef refs/notes/commits
git -C "$tree" config notes.rewriteMode ignore
for p in "${wb_patches[@]}"; do
	if ! out=$(wb_git -C "$tree" am -q --keep-cr "$(realpath "$dir/$p")" 2>&1); then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		echo "apply-series: patch $p does not apply to $(git -C "$tree" log -1 --format='%h %s' "$base"):" >&2
		printf '  | %s\n' "${out//$'\n'/$'\n'  | }" >&2
		exit 1
	fi
	# git am drops the changelog below "---": keep it as a git note so
	# that scripts/export-series.sh writes it back (format-patch --notes).
	changelog=$(awk '/^---$/ { inlog = 1; next }
		inlog && (/^ .*\| +[0-9]+ [-+]*$/ || /^ [0-9]+ files? changed/ || /^diff --git/) { exit }
		inlog && /^Notes:$/ { next }
		inlog { sub(/^    /, ""); print }' "$dir/$p")
	if [ -n "$(tr -d '[:space:]' <<<"$changelog")" ]; then
		wb_git -C "$tree" notes add -f -m "$changelog" HEAD
	fi
done
wb_applied_stamp "$tree" "$dir" write
echo "apply-series: applied ${#wb_patches[@]} patches: $(git -C "$tree" log -1 --format='%h %s')"
