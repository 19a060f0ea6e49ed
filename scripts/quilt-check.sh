#!/bin/bash
# Usage: scripts/quilt-check.sh BUILD_DIR BASE PATCHED_TREE PATCHDIR
# Proves that "quilt push -a" of PATCHDIR/series on the BASE tree gives the
# same tree as git am did in PATCHED_TREE: checks out BASE into
# BUILD_DIR/linux-quilt, pushes the series with quilt, and compares tree
# hashes.
set -euo pipefail

build=$(realpath "$1") base=$2 patched=$3 dir=$(realpath "$4")
qt=$build/linux-quilt
git -C "$patched" worktree prune
if [ ! -e "$qt/.git" ]; then
	git -C "$patched" worktree add -q --detach "$qt" "$base"
fi
cd "$qt"
rm -rf .pc patches
git checkout -q --detach -f "$base"
git clean -q -fdx -e obj
QUILT_PATCHES=$dir quilt push -a -q --fuzz=0
rm -rf .pc
git add -A -f .
want=$(git -C "$patched" rev-parse 'HEAD^{tree}')
got=$(git write-tree)
git reset -q
if [ "$got" != "$want" ]; then
	echo "quilt-check: quilt push -a gives tree $got, git am gives $want:" >&2
	git diff --stat "$want" "$got" >&2
	exit 1
fi
echo "quilt-check: quilt push -a of $(grep -c . "$dir/series") patches gives tree $got, as git am"
