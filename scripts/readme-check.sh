#!/bin/bash
# Usage: scripts/readme-check.sh BUILD_DIR README NAME
# Runs the README's command block NAME as it is written (the ```sh block
# after the line "<!-- readme-check: NAME -->"), in a clean environment
# (no variable of the workbench's set), and checks what it did:
#   git-am, quilt  from this repository's directory, as the README says,
#                  beside a worktree ../linux-7.1.5 of the release
#                  (BUILD_DIR/release-commit; symbolic links in
#                  BUILD_DIR/readme-paste) that holds the files the
#                  series and its prerequisites change: the result must
#                  be BUILD_DIR/linux-patched's tree (git am: the
#                  commit's tree; quilt: each file); the worktree is
#                  removed afterwards
#   reauthor       the git-am block, then this one: the series' commits
#                  (as many as linux-patched has on its base) must be
#                  authored and signed off by the paster, the tree the same
#   kunit          in BUILD_DIR/linux-patched: it must exit 0 (kunit.py
#                  fails on a failed test); its log in BUILD_DIR/test
# A README without the block, or with an empty one, fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") readme=$(realpath "$2") name=$3
repo=$(realpath "$(dirname "$0")/..")
patched=$(wb_tree "$build" patched) release=$(cat "$build/release-commit")
block_of() { # name: the README's block of that name
	local b
	b=$(awk -v m="<!-- readme-check: $1 -->" '
		$0 == m { found = 1; next }
		found == 1 && /^```/ { found = 2; next }
		found == 2 && /^```/ { exit }
		found == 2 { print }' "$readme")
	[ -n "$b" ] || { echo "readme-check: $readme has no command block after <!-- readme-check: $1 -->" >&2; return 1; }
	echo "readme-check: $1: $b" >&2
	printf '%s\n' "$b"
}
block=$(block_of "$name")
# The paster's own git identity, as in their ~/.gitconfig (this machine's
# global one may name someone else).
gitconfig=$build/readme-gitconfig
printf '[user]\n\tname = README Check\n\temail = readme@example.org\n' >"$gitconfig"
run() { # dir [block]: the block, as a user pastes it there
	(cd "$1" && env -u W -u K GIT_CONFIG_GLOBAL="$gitconfig" GIT_COMMITTER_NAME="README Check" \
		GIT_COMMITTER_EMAIL=readme@example.org bash -euo pipefail -c "${2:-$block}")
}

case $name in
git-am|quilt|reauthor)
	tree=$(wb_tree "$build" readme)
	wb_sparse_worktree "$patched" "$tree" "$release"
	trap 'git -C "$patched" worktree remove --force "$tree"' EXIT
	# This repository with the kernel tree beside it, as the README has
	# them (bash's cd keeps the logical path: ../ is the links' folder).
	paste=$build/readme-paste
	rm -rf "$paste" && mkdir -p "$paste"
	ln -s "$repo" "$paste/wb"
	ln -s "$tree" "$paste/linux-7.1.5"
	# reauthor: after the git-am block, as the README has them.
	if [ "$name" = reauthor ]; then
		run "$paste/wb" "$(block_of git-am)" >"$build/readme-$name.log" 2>&1 ||
			{ tail -n 20 "$build/readme-$name.log" >&2; echo "readme-check: the git-am block before $name failed" >&2; exit 1; }
	fi
	run "$paste/wb" >>"$build/readme-$name.log" 2>&1 ||
		{ tail -n 20 "$build/readme-$name.log" >&2; echo "readme-check: the $name block failed" >&2; exit 1; }
	if [ "$name" = reauthor ]; then
		n=$(git -C "$patched" rev-list --count "$(cat "$build/base-commit")..HEAD")
		[ "$(git -C "$tree" rev-parse 'HEAD^{tree}')" = "$(git -C "$patched" rev-parse 'HEAD^{tree}')" ] ||
			{ echo "readme-check: reauthor changed the tree" >&2; exit 1; }
		[ "$(git -C "$tree" log -"$n" --format='%an <%ae>' | sort -u)" = "README Check <readme@example.org>" ] ||
			{ echo "readme-check: reauthor left another author on the last $n commits" >&2; exit 1; }
		# (grep -q on git's pipe: an early exit, SIGPIPE, a failure under pipefail)
		msgs=$(git -C "$tree" log -"$n" --format=%B)
		grep -qx 'Signed-off-by: README Check <readme@example.org>' <<<"$msgs" ||
			{ echo "readme-check: reauthor added no sign-off" >&2; exit 1; }
		[ "$(git -C "$tree" log -1 --format='%an' HEAD~"$n")" != "README Check" ] ||
			{ echo "readme-check: reauthor went past the series" >&2; exit 1; }
	elif [ "$name" = git-am ]; then
		[ "$(git -C "$tree" rev-parse 'HEAD^{tree}')" = "$(git -C "$patched" rev-parse 'HEAD^{tree}')" ] ||
			{ echo "readme-check: git am gave another tree than linux-patched's" >&2; exit 1; }
	else
		# shellcheck disable=SC2046 # file names, one a word
		differ=$(wb_files_differ "$patched" "$tree" $(wb_changed_files "$patched" "$release"))
		if [ -n "$differ" ]; then
			sed 's/^/readme-check: quilt: /; s/$/ differs from linux-patched'"'"'s/' <<<"$differ" >&2
			exit 1
		fi
	fi
	echo "readme-check: $name gives linux-patched's tree"
	;;
kunit)
	mkdir -p "$build/test"
	log=$build/test/readme-kunit.log
	if ! run "$patched" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "readme-check: the kunit block failed, log $log" >&2
		exit 1
	fi
	grep -E '^\[[0-9:]+\] Testing complete' "$log" || tail -n 3 "$log"
	;;
*)	echo "readme-check: no check for a block named $name" >&2; exit 1 ;;
esac
