#!/bin/bash
# Usage: scripts/kernel-tree.sh BUILD_DIR [KERNEL_TREE]
# Makes BUILD_DIR/linux-base (the unpatched 6.12 base, detached) and
# BUILD_DIR/linux-patched (branch blk-series, reset to the base) as git
# worktrees of one source repository: KERNEL_TREE if given (a user's own
# 6.12 git tree, its HEAD is the base), else BUILD_DIR/linux-src, unpacked
# once from Debian's linux-source-6.12 and committed.
# Prints the exact kernel version. Idempotent.
set -euo pipefail

build=$(realpath -m "$1")
src=${2:-}
tarball=/usr/src/linux-source-6.12.tar.xz
mkdir -p "$build"

if [ -z "$src" ]; then
	src=$build/linux-src
	if ! git -C "$src" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
		[ -f "$tarball" ] || { echo "kernel-tree: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
		echo "kernel-tree: unpacking $tarball into $src"
		start=$(date +%s)
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src"
		# Debian's top-level .gitignore ignores /*, so add with -f.
		git -C "$src" init -q -b debian
		git -C "$src" add -f .
		# Dated by the tarball, so every machine gets the same base hash.
		stamp="@$(stat -c %Y "$tarball") +0000"
		GIT_AUTHOR_DATE=$stamp GIT_COMMITTER_DATE=$stamp \
		git -C "$src" -c user.name=workbench -c user.email=workbench@localhost \
			commit -q -m "Linux $(make -s -C "$src" kernelversion) from Debian linux-source-6.12"
		git -C "$src" tag base
		echo "kernel-tree: committed base in $(( $(date +%s) - start ))s"
	fi
	base=$(git -C "$src" rev-parse base)
else
	src=$(realpath "$src")
	git -C "$src" rev-parse -q --verify HEAD >/dev/null ||
		{ echo "kernel-tree: KERNEL_TREE=$src is not a git tree with a commit" >&2; exit 1; }
	base=$(git -C "$src" rev-parse HEAD)
fi

version=$(make -s -C "$src" kernelversion)
case $version in
6.12|6.12.*) ;;
*) echo "kernel-tree: $src is Linux $version, the series targets 6.12" >&2; exit 1 ;;
esac

add_worktree() { # dir, git worktree add options...
	local dir=$1; shift
	if [ -e "$dir/.git" ]; then
		return 0
	fi
	echo "kernel-tree: checking out $dir"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q "$@"
}
add_worktree "$build/linux-base" --detach "$build/linux-base" "$base"
add_worktree "$build/linux-patched" -B blk-series "$build/linux-patched" "$base"
git -C "$build/linux-base" checkout -q --detach "$base"
echo "$base" > "$build/base-commit"
echo "kernel-tree: Linux $version, base $(git -C "$src" log -1 --format='%h %s' "$base")"
