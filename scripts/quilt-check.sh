#!/bin/bash
# Usage: scripts/quilt-check.sh BUILD_DIR BASE PATCHED_TREE PATCHDIR
# Proves that "quilt push -a" of PATCHDIR/series on the BASE tree gives the
# same result as git am did in PATCHED_TREE: resets the worktree
# BUILD_DIR/linux-quilt to BASE, pushes the series with quilt, and checks
# that it changed exactly the files the series changes, each to the same
# content as in PATCHED_TREE. The worktree holds only the files the series
# changes (a sparse checkout: quilt fails on any other) and is removed on
# exit.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") base=$2 patched=$(realpath "$3") dir=$(realpath "$4")
qt=$(wb_tree "$build" quilt)
wb_series "$dir"
want=$(wb_changed_files "$patched" "$base")
wb_sparse_worktree "$patched" "$qt" "$base"
trap 'git -C "$patched" worktree remove --force "$qt"' EXIT
cd "$qt"
QUILT_PATCHES=$dir quilt push -a -q --fuzz=0 >/dev/null
rm -rf .pc

got=$( { git diff --name-only; git ls-files --others; } | sort)
if [ "$got" != "$want" ]; then
	echo "quilt-check: quilt push -a changed other files than git am:" >&2
	diff <(echo "$want") <(echo "$got") | sed 's/^/  /' >&2
	exit 1
fi
# shellcheck disable=SC2086 # want: file names, one a word
differ=$(wb_files_differ "$patched" . $want)
if [ -n "$differ" ]; then
	sed 's/^/quilt-check: /; s/$/ differs between quilt push -a and git am/' <<<"$differ" >&2
	exit 1
fi
echo "quilt-check: quilt push -a of ${#wb_patches[@]} patches changes the same $(wc -w <<<"$want") files as git am, to the same content"
