#!/bin/bash
# Usage: scripts/kernel-tree-check.sh BUILD_DIR VERSION
# Checks that KERNEL_TREE= writes nothing in the user's repository: makes
# a stand-in for one (a git clone --shared --no-checkout of
# BUILD_DIR/linux-src, its HEAD the release), records its config, refs,
# worktrees and the files of its git directory, runs
# scripts/kernel-tree.sh on it into a scratch build directory, and
# compares. Both are removed afterwards, also when killed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") want=$2
src=$(wb_tree "$build" src)
scratch=$(mktemp -d "$build/kernel-tree-check.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
user=$scratch/user
git clone -q --shared --no-checkout "$src" "$user"
git -C "$user" update-ref --no-deref HEAD "$(cat "$build/release-commit")"

# What the user's repository is: its config, refs, worktrees, and every
# file of its git directory with its content's hash.
state() {
	git -C "$user" config --list --local
	git -C "$user" for-each-ref --format='%(refname) %(objectname)'
	git -C "$user" worktree list --porcelain
	(cd "$user/.git" && find . -type f ! -name index -print0 | sort -z | xargs -0 sha1sum)
}
before=$(state)
if ! out=$("$(dirname "$0")/kernel-tree.sh" "$scratch/build" "$want" "$user" 2>&1); then
	printf '%s\n' "$out"
	echo "kernel-tree-check: kernel-tree.sh KERNEL_TREE=$user failed" >&2
	exit 1
fi
after=$(state)
if [ "$before" != "$after" ]; then
	echo "kernel-tree-check: KERNEL_TREE=$user changed:" >&2
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed 's/^/  | /' >&2
	exit 1
fi
worktrees=$(( $(git -C "$scratch/build/linux-src" worktree list | wc -l) - 1 ))
echo "kernel-tree-check: $user unchanged (config, refs, worktrees, git files); the workbench's $worktrees worktrees are its clone's"
