#!/bin/bash
# Usage: scripts/trim-variant.sh TREE OUT SHIFT
# The split trim with another threshold, for make bench-trim: a worktree
# of TREE's HEAD (the patched tree) at OUT with one more commit that sets
# BIO_SPLIT_TRIM_SHIFT (block/bio.c: a bio is trimmed when its tail is at
# most 1/2^SHIFT of it; the series has 4) to SHIFT. Kept while TREE's HEAD
# and SHIFT stay the same; never part of a series.
set -euo pipefail

tree=$(realpath "$1") out=$(realpath -m "$2") shift=$3
[[ $shift =~ ^[0-9]+$ ]] || { echo "trim-variant: SHIFT=$shift is not a number" >&2; exit 1; }
head=$(git -C "$tree" rev-parse HEAD)
want="block: trim direct I/O bio tails of up to 1/2^$shift (bench variant of $head)"
if [ "$(git -C "$out" log -1 --format=%s 2>/dev/null)" = "$want" ]; then
	echo "trim-variant: $out is up to date ($want)"
	exit 0
fi
git -C "$tree" worktree remove --force "$out" 2>/dev/null || rm -rf "$out"
git -C "$tree" worktree prune
git -C "$tree" worktree add -q --detach "$out" "$head"
grep -q '^#define BIO_SPLIT_TRIM_SHIFT' "$out/block/bio.c" ||
	{ echo "trim-variant: no BIO_SPLIT_TRIM_SHIFT in $out/block/bio.c (is $tree the patched tree?)" >&2; exit 1; }
sed -i "s/^#define BIO_SPLIT_TRIM_SHIFT.*/#define BIO_SPLIT_TRIM_SHIFT\t$shift/" "$out/block/bio.c"
git -C "$out" -c user.name=workbench -c user.email=workbench@localhost commit -q -a -m "$want"
echo "trim-variant: $out: $want"
