#!/bin/bash
# Usage: scripts/invocation-check.sh
# The wrong ways to name the kernel sources, each of which must stop
# with a message that says what was given and what to give, and leave
# no build directory behind: KERNEL_TREE= a path that does not exist, or
# a tree that has the series applied already (its HEAD is no base);
# LINUX_TARBALL= a directory, or a file that does not exist (also after
# a first build, when the sources are unpacked already); a misspelled
# LINUX_TARBAL= on make's command line; and make fstests' FSTESTS_PART=
# a part that is none. Runs scripts/kernel-tree.sh on
# a scratch build directory and make -n; needs no kernel. Prints one
# "ok"/"FAIL" line per case; exits 1 on any failure.
set -euo pipefail

here=$(realpath "$(dirname "$0")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # description, message pattern (grep -E), command...
	local what=$1 want=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		echo "FAIL: $what: exit 0"; fail=1
	elif ! grep -qE -- "$want" <<<"$out"; then
		echo "FAIL: $what: no message matching '$want' in:"; printf '%s\n' "$out" | sed 's/^/  | /'; fail=1
	elif [ -e "$tmp/build" ]; then
		echo "FAIL: $what: left $tmp/build behind"; fail=1
	else
		echo "ok: $what: $(head -n 1 <<<"$out" | cut -c1-110)"
	fi
	rm -rf "$tmp/build"
}
# shellcheck disable=SC2317 # called through expect
tree() { "$here/kernel-tree.sh" "$tmp/build" 7.1 "$@"; }

expect "KERNEL_TREE= a path that does not exist" 'KERNEL_TREE=/nonexistent: no such directory; give LINUX_TARBALL=' \
	tree /nonexistent
expect "LINUX_TARBALL= a directory" 'LINUX_TARBALL=/ is a directory, not a tarball' \
	env LINUX_TARBALL=/ "$here/kernel-tree.sh" "$tmp/build" 7.1
expect "LINUX_TARBALL= a file that does not exist" "LINUX_TARBALL=$tmp/linux-7.1.5.tar.xz: no such file; give" \
	env LINUX_TARBALL="$tmp/linux-7.1.5.tar.xz" "$here/kernel-tree.sh" "$tmp/build" 7.1
# A tree with the series applied (the file the series adds exists).
git init -q "$tmp/applied"
printf 'VERSION = 7\nPATCHLEVEL = 1\nSUBLEVEL = 5\nEXTRAVERSION =\n' >"$tmp/applied/Makefile"
mkdir -p "$tmp/applied/block/tests" && : >"$tmp/applied/block/tests/blk_size_kunit.c"
git -C "$tmp/applied" add -A
git -C "$tmp/applied" -c user.name=t -c user.email=t@example.org commit -q -m "the series"
# A first build unpacked the sources already (a source repository with
# its tag base): a wrong LINUX_TARBALL= is still refused, not silently
# ignored.
git clone -q --bare "$tmp/applied" "$tmp/made/linux-src"
git -C "$tmp/made/linux-src" tag base
expect "LINUX_TARBALL= missing after a first build" "LINUX_TARBALL=$tmp/gone.tar.xz: no such file" \
	env LINUX_TARBALL="$tmp/gone.tar.xz" "$here/kernel-tree.sh" "$tmp/made" 7.1
expect "KERNEL_TREE= a tree with the series applied" 'has the series applied .*give a tree whose HEAD is Linux 7.1' \
	tree "$tmp/applied"
expect "make LINUX_TARBAL= (misspelled)" 'LINUX_TARBAL=x: no such variable; the sources are given by LINUX_TARBALL' \
	make -n -C "$here/.." help LINUX_TARBAL=x
# A part of the fstests list that is not one.
expect "make fstests FSTESTS_PART=4/3" 'FSTESTS_PART=4/3: give K/N, the K-th of N parts' \
	make -n -C "$here/.." fstests FSTESTS_PART=4/3
exit $fail
