#!/bin/bash
# Usage: scripts/kernel-tree.sh BUILD_DIR VERSION [KERNEL_TREE]
# Makes BUILD_DIR/linux-base (the unpatched base, detached) and
# BUILD_DIR/linux-patched (branch blk-series, reset to the base) as git
# worktrees of one source repository: KERNEL_TREE if given (a user's own
# git tree of Linux VERSION, its HEAD is the base), else BUILD_DIR/linux-src,
# a bare repository, the release tarball unpacked once and committed:
# VERSION 6.12 is Debian's linux-source-6.12, 7.1 is ../shared/linux-7.0.tar.xz
# with ../shared/patch-7.0-7.1.5.xz applied (Linux 7.1.5; LINUX_7_0_TARBALL
# and LINUX_7_1_PATCH override the paths). The base of both worktrees is
# that release with the series' prerequisites applied (scripts/apply-prereq.sh);
# BUILD_DIR/release-commit names the release, BUILD_DIR/base-commit the base.
# Fails early when the disk has too little room for the workbench.
# Prints the exact kernel version. Idempotent.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath -m "$1") want=$2
src=${3:-}
case $want in
6.12)	tarball=/usr/src/linux-source-6.12.tar.xz
	origin="Debian linux-source-6.12" hint="apt-get install linux-source-6.12" ;;
7.1)	shared=$(realpath -m "$(dirname "$0")/../../shared")
	tarball=${LINUX_7_0_TARBALL:-$shared/linux-7.0.tar.xz}
	patch=${LINUX_7_1_PATCH:-$shared/patch-7.0-7.1.5.xz}
	origin="linux-7.0.tar.xz and patch-7.0-7.1.5.xz"
	hint="set LINUX_7_0_TARBALL and LINUX_7_1_PATCH to their paths" ;;
*)	echo "kernel-tree: no series for Linux $want (BASE=7.1 or BASE=6.12)" >&2; exit 1 ;;
esac
patch=${patch:-}
mkdir -p "$build"

# Linux's version from the top-level Makefile of a commit.
kernelversion() { # repository, commit
	git -C "$1" show "$2:Makefile" | awk -F' = ' '
		NR > 10 { next } $1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { printf "%s.%s%s%s\n", v, p, (s != "" ? "." s : ""), e }'
}

if [ -z "$src" ]; then
	# A bare repository: the worktrees below are the only checkouts.
	src=$(wb_tree "$build" src)
	if ! git -C "$src" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
		for f in "$tarball" $patch; do
			[ -f "$f" ] || { echo "kernel-tree: $f missing ($hint)" >&2; exit 1; }
		done
		# Two checkouts with their objects, the repository, the
		# initramfs and the guest's scratch disks: about 6 GiB.
		need=8 free=$(( $(df -Pk "$build" | awk 'NR == 2 { print $4 }') / 1048576 ))
		if [ "$free" -lt "$need" ]; then
			echo "kernel-tree: $free GiB free on the file system of $build; the workbench needs $need GiB" >&2
			exit 1
		fi
		echo "kernel-tree: unpacking $tarball into $src"
		start=$(date +%s)
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf "$tarball" -C "$src.tmp" --strip-components=1
		# Dated by a file of the tarball that no patch touches (its
		# mtime is the release's), so every machine, whatever the
		# mtimes of ../shared, gets the same base hash.
		stamp="@$(stat -c %Y "$src.tmp/COPYING") +0000"
		git init -q --bare -b release "$src"
		if [ -n "$patch" ]; then
			# git apply, not patch(1): mode changes, symlinks, binaries.
			echo "kernel-tree: applying $patch"
			xz -dc "$patch" | (cd "$src.tmp" && git --git-dir="$src" \
				--work-tree=. apply --whitespace=nowarn -p1) ||
				{ echo "kernel-tree: $patch does not apply to $tarball" >&2; exit 1; }
		fi
		# Debian's top-level .gitignore ignores /*, so add with -f.
		git --git-dir="$src" --work-tree="$src.tmp" add -f .
		GIT_AUTHOR_DATE=$stamp GIT_COMMITTER_DATE=$stamp \
		git "${WB_IDENT[@]}" --git-dir="$src" --work-tree="$src.tmp" \
			commit -q -m "Linux $(make -s -C "$src.tmp" kernelversion) from $origin"
		git -C "$src" tag base
		rm -rf "$src.tmp"
		echo "kernel-tree: committed base in $(( $(date +%s) - start ))s"
	fi
	# checkpatch's spdxcheck.py (GitPython) reads core.bare from this
	# repository's config also in its linked worktrees, takes them for
	# bare and stops with a traceback: the SPDX check would not run.
	# Nothing checks out the release branch here.
	git -C "$src" config core.bare false
	base=$(git -C "$src" rev-parse base)
else
	src=$(realpath "$src")
	git -C "$src" rev-parse -q --verify HEAD >/dev/null ||
		{ echo "kernel-tree: KERNEL_TREE=$src is not a git tree with a commit" >&2; exit 1; }
	base=$(git -C "$src" rev-parse HEAD)
	# The user's repository: say what is done in it, and never reset a
	# blk-series branch that this workbench did not make there.
	if git -C "$src" rev-parse -q --verify refs/heads/blk-series >/dev/null &&
	   [ "$(git -C "$src" config --get workbench.branch || true)" != blk-series ]; then
		echo "kernel-tree: KERNEL_TREE=$src has a branch blk-series that the workbench did not make; it would be reset: rename it, or use a clone" >&2
		exit 1
	fi
	echo "kernel-tree: in KERNEL_TREE=$src: worktrees $(wb_tree "$build" base) and $(wb_tree "$build" patched), branch blk-series (made and reset by the workbench), the patches' changelogs as git notes (refs/notes/commits, notes.rewriteRef set)"
	git -C "$src" config workbench.branch blk-series
fi

version=$(kernelversion "$src" "$base")
case $version in
"$want"|"$want".*) ;;
*) echo "kernel-tree: $src is Linux $version, BASE=$want wants $want" >&2; exit 1 ;;
esac

# The series' prerequisites (patches/vVERSION/prereq, if any: mainline's
# own fixes that the release lacks) go on top of the release: the result
# is the base of the series and of the unpatched kernel.
echo "$base" > "$build/release-commit"
prereq=$(realpath "$(dirname "$0")/../patches/v$want/prereq")
if [ -f "$prereq/series" ]; then
	base=$("$(dirname "$0")/apply-prereq.sh" "$src" "$base" "$prereq")
fi

base_tree=$(wb_tree "$build" base)
wb_worktree_add "$src" "$base_tree" "$base" --detach
wb_worktree_add "$src" "$(wb_tree "$build" patched)" "$base" -B blk-series
# Only if it moved: two make targets may run this at once.
[ "$(git -C "$base_tree" rev-parse HEAD)" = "$base" ] ||
	git -C "$base_tree" checkout -q --detach "$base"
echo "$base" > "$build/base-commit"
echo "kernel-tree: Linux $version, base $(git -C "$src" log -1 --format='%h %s' "$base")"
