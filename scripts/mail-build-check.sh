#!/bin/bash
# Usage: scripts/mail-build-check.sh BUILD_DIR BASE MAILDIR...
# Builds each mail of the series on the base its cover letter names, as a
# maintainer who applies that mail alone does: for each MAILDIR
# (patches/v7.1/mail/NAME, wb_mail_set), a worktree BUILD_DIR/linux-mailbuild
# detached at the mail's base (the commit before its first patch, or the
# last commit of the mail its "after" file names, without the mails
# between), git am of the mail's patch files, then the kernel objects of
# every .c file the mail's patches touch, and the directories they are in
# (so that a caller in another file of the directory is built too), with
# the workbench config (scripts/kconfig.sh, config/qemu.config and the
# series' fragments) and W=1.  A patch that does not apply, a build
# error, or a 64-bit division left to libgcc fails the mail.  Prints one
# TAP-like "ok"/"not ok" line per mail with its seconds; exits 1 on any
# failure. Logs in BUILD_DIR/mailbuild/; the worktree and its objects
# (BUILD_DIR/linux-mailbuild-obj) are kept for the next run.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") base=$2; shift 2
here=$(realpath "$(dirname "$0")")
patched=$(wb_tree "$build" patched) tree=$(wb_tree "$build" mailbuild)
obj=$tree-obj logs=$build/mailbuild
mkdir -p "$logs"
# The series' config fragments, from the whole series (a mail's own may
# lack a symbol a later mail adds: UNKNOWN_OK below).
frags=("$here/../config/qemu.config")
while read -r f; do
	cp "$patched/$f" "$logs/$(tr / _ <<<"$f")"
	frags+=("$logs/$(tr / _ <<<"$f")")
done < <(git -C "$patched" diff --name-only --diff-filter=A "$base" HEAD -- '*.kunitconfig' 'tools/testing/selftests/*/config')
export CCACHE_NOHASHDIR=1
wb_kbuild_args
failed=0
for mail in "$@"; do
	start=$(date +%s) name=$(basename "$mail") log=$logs/$(basename "$mail").log
	: >"$log"
	wb_mail_set "$patched" "$base" "$mail"
	wb_worktree "$patched" "$tree" "$wb_set_base"
	ok=1 why=
	for p in "${wb_patches[@]}"; do
		if ! wb_git -C "$tree" am -q --keep-cr "$(realpath "$mail/$p")" >>"$log" 2>&1; then
			ok=0 why="$(basename "$p") does not apply on $(git -C "$tree" log -1 --format='%h ("%s")' "$wb_set_base")"
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			break
		fi
	done
	objs=()
	if [ $ok = 1 ]; then
		# The .c files the mail changes, and their directories.
		while read -r f; do
			objs+=("${f%.c}.o" "$(dirname "$f")/")
		done < <(git -C "$tree" diff --name-only "$wb_set_base" HEAD -- '*.c' ':!tools/')
		mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
		if ! UNKNOWN_OK=1 nice -n 19 "$here/kconfig.sh" "$tree" "$obj" "${frags[@]}" >"$log.config" 2>&1; then
			ok=0 why="config failed, log $log.config"
		elif ! nice -n 19 make -C "$tree" O="$obj" "${wb_kbuild[@]}" CC="ccache gcc" W=1 -j"$(nproc)" "${objs[@]}" >>"$log" 2>&1; then
			ok=0 why="build failed, log $log: $(grep -m1 -E 'error' "$log" || true)"
		elif div=$(wb_libgcc_divs nm "$obj" "${objs[@]}") && [ -n "$div" ]; then
			ok=0 why="64-bit division by the libgcc helper: $div"
		fi
	fi
	secs=$(( $(date +%s) - start ))
	if [ $ok = 1 ]; then
		echo "ok - mail $name (${#wb_patches[@]} patches) builds alone on $(git -C "$patched" log -1 --format='%h ("%s")' "$wb_set_base"): ${objs[*]} (${secs}s)"
	else
		echo "not ok - mail $name: $why (${secs}s)"
		failed=1
	fi
done
exit $failed
