#!/bin/bash
# Usage: scripts/kernel-tree.sh BUILD_DIR VERSION [KERNEL_TREE]
# Makes BUILD_DIR/linux-base (the unpatched base, detached) and
# BUILD_DIR/linux-patched (branch blk-series, reset to the base) as git
# worktrees of one source repository, BUILD_DIR/linux-src: with
# KERNEL_TREE (a user's own git tree of Linux VERSION, its HEAD is the
# base) a bare clone that borrows its objects and writes nothing there,
# else a bare repository, the release tarball unpacked once and committed: the
# tarball LINUX_TARBALL names (kernel.org's linux-7.1.5.tar.xz, or any
# tarball of Linux VERSION), else for VERSION 6.12 Debian's
# linux-source-6.12, for 7.1 ../shared/linux-7.0.tar.xz with
# ../shared/patch-7.0-7.1.5.xz applied where that exists (the machine the
# workbench was written on; LINUX_7_0_TARBALL and LINUX_7_1_PATCH override
# the paths). The base of both worktrees is
# that release with the series' prerequisites applied (scripts/apply-prereq.sh);
# BUILD_DIR/release-commit names the release, BUILD_DIR/base-commit the base.
# Fails early when the disk has too little room for the workbench.
# Prints the exact kernel version. Idempotent.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath -m "$1") want=$2
src=${3:-}
# What to say when there are no sources: where a developer gets them.
hint="LINUX_TARBALL=/path/to/linux-$want.y.tar.xz (https://www.kernel.org/), or KERNEL_TREE=/path/to/your/linux (a git tree at Linux $want)"
patch=
case $want in
6.12)	tarball=/usr/src/linux-source-6.12.tar.xz
	origin="Debian linux-source-6.12"
	hint="apt-get install linux-source-6.12, or $hint" ;;
7.1)	shared=$(realpath -m "$(dirname "$0")/../../shared")
	tarball=${LINUX_7_0_TARBALL:-$shared/linux-7.0.tar.xz}
	patch=${LINUX_7_1_PATCH:-$shared/patch-7.0-7.1.5.xz}
	origin="linux-7.0.tar.xz and patch-7.0-7.1.5.xz"
	hint="LINUX_TARBALL=/path/to/linux-7.1.5.tar.xz (https://cdn.kernel.org/pub/linux/kernel/v7.x/linux-7.1.5.tar.xz: the series is tested on 7.1.5), or KERNEL_TREE=/path/to/your/linux (a git tree at v7.1.5)" ;;
*)	echo "kernel-tree: no series for Linux $want (BASE=7.1 or BASE=6.12)" >&2; exit 1 ;;
esac
if [ -n "${LINUX_TARBALL:-}" ]; then
	if [ -d "$LINUX_TARBALL" ]; then
		echo "kernel-tree: LINUX_TARBALL=$LINUX_TARBALL is a directory, not a tarball; give the file, $hint" >&2
		exit 1
	elif [ ! -f "$LINUX_TARBALL" ]; then
		echo "kernel-tree: LINUX_TARBALL=$LINUX_TARBALL: no such file; give $hint" >&2
		exit 1
	fi
	tarball=$(realpath -m "$LINUX_TARBALL")
	origin=${tarball##*/}
	patch=''
fi
if [ -n "$src" ] && [ ! -d "$src" ]; then
	echo "kernel-tree: KERNEL_TREE=$src: no such directory; give $hint" >&2
	exit 1
fi
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
			[ -f "$f" ] && continue
			echo "kernel-tree: no Linux $want sources: no LINUX_TARBALL or KERNEL_TREE given, and this machine's default $f is missing; give $hint" >&2
			rmdir "$build" 2>/dev/null || true
			exit 1
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
		wb_ticking "kernel-tree: unpacking" - tar -xf "$tarball" -C "$src.tmp" --strip-components=1
		# Dated by a file of the tarball that no patch touches (its
		# mtime is the release's), so every machine, whatever the
		# mtimes of ../shared, gets the same base hash.
		stamp="@$(stat -c %Y "$src.tmp/COPYING") +0000"
		git init -q --bare -b release "$src"
		# No git gc --auto repacking 90,000 files beside the kernel
		# build that follows (git's commit would start one).
		git -C "$src" config gc.auto 0
		git -C "$src" config maintenance.auto false
		if [ -n "$patch" ]; then
			# git apply, not patch(1): mode changes, symlinks, binaries.
			echo "kernel-tree: applying $patch"
			xz -dc "$patch" | (cd "$src.tmp" && git --git-dir="$src" \
				--work-tree=. apply --whitespace=nowarn -p1) ||
				{ echo "kernel-tree: $patch does not apply to $tarball" >&2; exit 1; }
		fi
		# Debian's top-level .gitignore ignores /*, so add with -f.
		echo "kernel-tree: committing the $(find "$src.tmp" -type f | wc -l) files ($(( $(date +%s) - start ))s so far)"
		wb_ticking "kernel-tree: committing" - git --git-dir="$src" --work-tree="$src.tmp" add -f .
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
	user=$(realpath "$src")
	git -C "$user" rev-parse -q --verify HEAD >/dev/null ||
		{ echo "kernel-tree: KERNEL_TREE=$user is not a git tree with a commit" >&2; exit 1; }
	base=$(git -C "$user" rev-parse HEAD)
	# The series applies on the release: a tree that has it applied
	# already (the README's git am) is not a base.
	if git -C "$user" cat-file -e "$base:block/tests/blk_size_kunit.c" 2>/dev/null; then
		echo "kernel-tree: KERNEL_TREE=$user: its HEAD $(git -C "$user" log -1 --format='%h ("%s")') has the series applied (block/tests/blk_size_kunit.c exists); give a tree whose HEAD is Linux $want itself, unpatched, e.g. git -C $user worktree add --detach ../linux-$want-release HEAD~N (N: the patches applied) and KERNEL_TREE=that directory" >&2
		rmdir "$build" 2>/dev/null || true
		exit 1
	fi
	# The user's repository is only read: BUILD_DIR/linux-src is a bare
	# clone that borrows its objects (git clone --shared: an
	# objects/info/alternates file), and the workbench's branch, notes,
	# refs and worktrees are the clone's.
	src=$(wb_tree "$build" src)
	made=$(git -C "$src" config --get workbench.origin 2>/dev/null || true)
	if [ -d "$src" ] && [ "$made" != "$user" ]; then
		echo "kernel-tree: $build was made from ${made:-a release tarball}, not KERNEL_TREE=$user: make clean$( [ "$want" = 7.1 ] || echo " BASE=$want") first" >&2
		exit 1
	fi
	if [ ! -d "$src" ]; then
		git clone -q --bare --shared "$user" "$src"
		git -C "$src" config workbench.origin "$user"
		# (core.bare: as for the tarball's repository above.)
		git -C "$src" config core.bare false
	fi
	echo "kernel-tree: KERNEL_TREE=$user, its HEAD $(git -C "$user" log -1 --format='%h ("%s")'), read through $src (git clone --shared): nothing is written in $user; a git gc --prune there must not drop that commit while build/ uses it"
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
