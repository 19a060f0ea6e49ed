#!/bin/bash
# Usage: scripts/check-series.sh BUILD_DIR BASE PATCHDIR
# Checks each patch of PATCHDIR/series on top of its predecessors, in the
# worktree BUILD_DIR/linux-check (detached at BASE, then git am one patch
# at a time), so that the series bisects:
#  - checkpatch: scripts/checkpatch.pl --strict reports nothing, or only
#    what the patch's changelog (below "---") justifies: an item of it that
#    mentions checkpatch and names the type (FILE_PATH_CHANGES) or quotes
#    the message ("does MAINTAINERS need updating?");
#  - every build target of TARGETS below compiles the objects of the .c
#    files the series touches (those that exist at this patch and that the
#    target's config builds) with no error, no new warning against the
#    predecessor, and no 64-bit division helper (__udivdi3...) left to
#    link; x86_64 builds with W=1 and runs sparse (C=2) as its own check.
# The x86_64 targets use the workbench config (scripts/kconfig.sh with
# config/qemu.config and the series' fragments), the cross targets
# allnoconfig plus the lines below and the series' .kunitconfig files.
# Two targets build as the build robots do where the others cannot:
# intree in the source tree itself (no O=, so no -I of the source
# directory either: a header found only through it fails there), in a
# worktree of its own that follows the patches (linux-check-intree), and
# kunit-m with CONFIG_KUNIT_ALL_TESTS=m (allmodconfig's choice, not the
# .kunitconfig files' =y), which links vmlinux and the modules, so that
# modpost fails a test module that uses a symbol nothing exports.
# Prints one line per patch and check with its result and seconds, then
# a verdict; exits 1 on any failure. Objects in linux-check/obj-TARGET,
# logs in linux-check/logs. CHECK_TARGETS="x86_64 i386-thp" limits the
# build targets; CHECKPATCH_ONLY=1 skips all builds.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

# name           ARCH    compiler             config lines (cross targets)
TARGETS=(
	"x86_64          x86_64  gcc                  workbench"
	"intree          x86_64  gcc-intree           CONFIG_64BIT=y"
	"kunit-m         x86_64  gcc                  CONFIG_64BIT=y CONFIG_MODULES=y CONFIG_KUNIT_ALL_TESTS=m"
	"clang           x86_64  llvm                 workbench"
	"arm64-4k-thp    arm64   aarch64-linux-gnu-   CONFIG_ARM64_4K_PAGES=y CONFIG_TRANSPARENT_HUGEPAGE=y"
	"arm64-4k-nothp  arm64   aarch64-linux-gnu-   CONFIG_ARM64_4K_PAGES=y CONFIG_TRANSPARENT_HUGEPAGE=n"
	"arm64-16k-thp   arm64   aarch64-linux-gnu-   CONFIG_ARM64_16K_PAGES=y CONFIG_TRANSPARENT_HUGEPAGE=y"
	"arm64-64k-thp   arm64   aarch64-linux-gnu-   CONFIG_ARM64_64K_PAGES=y CONFIG_TRANSPARENT_HUGEPAGE=y"
	"arm64-64k-nothp arm64   aarch64-linux-gnu-   CONFIG_ARM64_64K_PAGES=y CONFIG_TRANSPARENT_HUGEPAGE=n"
	"i386-thp        i386    i686-linux-gnu-      CONFIG_TRANSPARENT_HUGEPAGE=y"
	"i386-nothp      i386    i686-linux-gnu-      CONFIG_TRANSPARENT_HUGEPAGE=n"
	"riscv64-thp     riscv   riscv64-linux-gnu-   CONFIG_MMU=y CONFIG_TRANSPARENT_HUGEPAGE=y"
	"riscv64-nothp   riscv   riscv64-linux-gnu-   CONFIG_MMU=y CONFIG_TRANSPARENT_HUGEPAGE=n"
)
CROSS_COMMON="CONFIG_BLOCK=y CONFIG_KUNIT=y"
LLVM_SUFFIX=-$WB_LLVM

build=$(realpath "$1") base=$2 dir=$(realpath "$3")
here=$(realpath "$(dirname "$0")")
tree=$(wb_tree "$build" check) logs=$tree/logs intree=$(wb_tree "$build" check-intree)
# One check per build directory: a second one would reset the worktree
# under the first one's builds.
exec 9>"$build/check.lock"
flock -n 9 || { echo "check-series: another make check runs in $build (its worktree $tree); wait for it to end" >&2; exit 1; }
export CCACHE_NOHASHDIR=1
jobs=$(( $(nproc) ))
wb_series "$dir"
n=${#wb_patches[@]}
declare -A arch_of cc_of conf_of broken
names=()
for t in "${TARGETS[@]}"; do
	read -r name arch cc conf <<<"$t"
	[[ " ${CHECK_TARGETS:-$name} " == *" $name "* ]] || continue
	! wb_bool CHECKPATCH_ONLY || continue
	names+=("$name") arch_of[$name]=$arch cc_of[$name]=$cc conf_of[$name]=$conf
done

start_all=$(date +%s) failed=0 checks=0
result() { # label, ok|FAIL, start time, detail
	checks=$((checks + 1))
	[ "$2" = ok ] || failed=$((failed + 1))
	printf 'check: %-28s %-4s %4ss  %s\n' "$1" "$2" "$(( $(date +%s) - $3 ))" "$4"
}
# The first 20 lines of standard input or, given files, of those that
# exist (prepare's log does not when config failed); sed reads to the
# end: no SIGPIPE under pipefail.
indent() {
	local f
	if [ $# -eq 0 ]; then
		cat
	else
		for f in "$@"; do [ ! -f "$f" ] || cat -- "$f"; done
	fi | sed -n '1,20s/^/  | /p'
}

# Where target T's objects and .config are: its O= directory, or for
# the in-tree target the source tree.
objdir() { # target
	if [ "${cc_of[$1]}" = gcc-intree ]; then echo "$intree"; else echo "$tree/obj-$1"; fi
}

# The kernel's make for a target, niced: the lead builds on the same cores.
kmake() { # target, make arguments...
	local t=$1; shift
	local -a cc
	case ${cc_of[$t]} in
	gcc-intree)
		nice -n 19 make -C "$intree" ARCH="${arch_of[$t]}" CC="ccache gcc" "$@"
		return ;;
	gcc) cc=(CC="ccache gcc") ;;
	llvm) cc=(LLVM="$LLVM_SUFFIX" CC="ccache clang$LLVM_SUFFIX") ;;
	*) cc=(CROSS_COMPILE="${cc_of[$t]}" CC="ccache ${cc_of[$t]}gcc") ;;
	esac
	nice -n 19 make -C "$tree" O="$tree/obj-$t" ARCH="${arch_of[$t]}" "${cc[@]}" "$@"
}

# Config fragments the series adds that exist at this patch.
series_fragments() { # pattern...
	git -C "$tree" diff --name-only --diff-filter=A "$base" HEAD -- "$@" | sed "s|^|$tree/|"
}

configure() { # target
	local t=$1 obj log=$logs/config-$1.log src=$tree
	obj=$(objdir "$1")
	[ "${cc_of[$t]}" != gcc-intree ] || src=$intree
	mkdir -p "$obj"
	if [ "${conf_of[$t]}" = workbench ]; then
		mapfile -t frags < <(series_fragments '*.kunitconfig' 'tools/testing/selftests/*/config')
		local -a env=(UNKNOWN_OK=1)
		[ "${cc_of[$t]}" = llvm ] && env+=(LLVM="$LLVM_SUFFIX")
		env "${env[@]}" nice -n 19 "$here/kconfig.sh" "$tree" "$obj" \
			"$here/../config/qemu.config" "${frags[@]}" >"$log" 2>&1
		return
	fi
	# A cross target: allnoconfig with our lines; merge_config.sh names
	# every line that did not make it into .config.
	local line
	for line in $CROSS_COMMON ${conf_of[$t]}; do
		case $line in
		*=n) echo "# ${line%=n} is not set" ;;
		*) echo "$line" ;;
		esac
	done >"$logs/check-$t.config"
	# kunit-m takes its tests' =m from KUNIT_ALL_TESTS, not the =y of
	# the .kunitconfig files.
	frags=()
	[[ " ${conf_of[$t]} " == *" CONFIG_KUNIT_ALL_TESTS=m "* ]] ||
		mapfile -t frags < <(series_fragments '*.kunitconfig')
	local -a cross=()
	[[ ${cc_of[$t]} != *- ]] || cross=(CROSS_COMPILE="${cc_of[$t]}")
	(cd "$src" && env ARCH="${arch_of[$t]}" "${cross[@]}" nice -n 19 \
		scripts/kconfig/merge_config.sh -n -O "$obj" "$logs/check-$t.config" "${frags[@]}") >"$log" 2>&1 || return 1
	! grep -A2 'Value requested for' "$log" >&2
}

# Whether a target's config builds OBJ (dir/file.o): the obj-y or
# obj-$(CONFIG_X) line of its directory's Makefile that lists it. An
# object no such line lists is built (kbuild then says what is wrong).
in_config() { # target, object
	local mk sym
	mk=$tree/$(dirname "$2")/Makefile
	sym=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$mk" 2>/dev/null |
		grep -E "^obj-(y|\\\$\\(CONFIG_[A-Z0-9_]+\\))[[:space:]]*[:+]?=.*[[:space:]]$(basename "$2")([[:space:]]|$)" |
		head -n 1 | sed -nE 's/^obj-\$\((CONFIG_[A-Z0-9_]+)\).*/\1/p' || true)
	[ -z "$sym" ] || grep -qE "^$sym=[ym]" "$(objdir "$1")/.config"
}

warnings() { # log: warnings and errors, without line numbers
	grep -E '^[^ ]+:[0-9]+:([0-9]+:)? (warning|error):' "$1" |
		sed -E 's/:[0-9]+:([0-9]+:)? /: /' | sort || true
}

# Builds the series' objects for target T at STATE (0 = BASE, k = patch
# k), compares warnings with STATE-1, prints one result line.
build_check() { # target, state, label
	local t=$1 s=$2 label=$3 start objs=() skipped=() f o rc=0 log new div
	start=$(date +%s)
	for f in "${series_c[@]}"; do
		[ -f "$tree/$f" ] || continue
		o=${f%.c}.o
		if in_config "$t" "$o"; then objs+=("$o"); rm -f "$(objdir "$t")/$o"; else skipped+=("$o"); fi
	done
	log=$logs/$s-$t.log
	local -a extra=()
	[ "$t" = x86_64 ] && extra=(W=1)
	if [ ${#objs[@]} -gt 0 ]; then
		kmake "$t" -k -j"$jobs" "${extra[@]}" "${objs[@]}" >"$log" 2>&1 || rc=$?
	else
		: >"$log"
	fi
	warnings "$log" >"$logs/$s-$t.warnings"
	echo "${objs[*]}" >"$logs/$s-$t.objects"
	local what="${#objs[@]} objects${skipped:+, not in config: ${skipped[*]}}"
	# The modules' link: modpost names a symbol a module uses and
	# nothing exports.
	if [ $rc -eq 0 ] && [[ " ${conf_of[$t]} " == *" CONFIG_MODULES=y "* ]]; then
		kmake "$t" -j"$jobs" all >>"$log" 2>&1 || rc=$?
		what+=", vmlinux and modules linked"
	fi
	if [ $rc -ne 0 ]; then
		result "$label $t" FAIL "$start" "build failed ($what), log $log:"
		grep -E 'error|Error|ERROR' "$log" | indent
		return
	fi
	div=$(wb_libgcc_divs "$(nm_of "$t")" "$(objdir "$t")" "${objs[@]}")
	if [ -n "$div" ]; then
		result "$label $t" FAIL "$start" "64-bit division by the libgcc helper, which the kernel does not link:"
		indent <<<"$div"
		return
	fi
	if new=$(new_warnings "$t" "$s") && [ -n "$new" ]; then
		result "$label $t" FAIL "$start" "new warnings${extra:+ (${extra[*]})} vs the predecessor, log $log:"
		indent <<<"$new"
		return
	fi
	result "$label $t" ok "$start" "$what, $(wc -l <"$logs/$s-$t.warnings") warnings${extra:+ (${extra[*]})}"
}

# Warnings of KIND (a target, or sparse) at STATE that STATE-1 did not have.
new_warnings() { # kind, state
	[ "$2" -gt 0 ] || return 0
	comm -13 <(cat "$logs/$(($2 - 1))-$1.warnings" 2>/dev/null) "$logs/$2-$1.warnings"
}

# sparse: C=2 checks the x86_64 objects, which the W=1 build left up to
# date, without rebuilding them.
sparse_check() { # state, label
	local s=$1 label=$2 start rc=0 new objs=()
	start=$(date +%s)
	read -ra objs < "$logs/$s-x86_64.objects"
	if [ ${#objs[@]} -gt 0 ]; then
		kmake x86_64 -k -j"$jobs" W=1 C=2 "${objs[@]}" >"$logs/$s-sparse.log" 2>&1 || rc=$?
	else
		: >"$logs/$s-sparse.log"
	fi
	warnings "$logs/$s-sparse.log" >"$logs/$s-sparse.warnings"
	if [ $rc -ne 0 ]; then
		result "$label sparse" FAIL "$start" "make C=2 failed, log $logs/$s-sparse.log"
	elif new=$(new_warnings sparse "$s") && [ -n "$new" ]; then
		result "$label sparse" FAIL "$start" "new sparse warnings vs the predecessor, log $logs/$s-sparse.log:"
		indent <<<"$new"
	else
		result "$label sparse" ok "$start" "$(wc -l <"$logs/$s-sparse.warnings") warnings, none new"
	fi
}

nm_of() { # target
	case ${cc_of[$1]} in gcc|gcc-intree|llvm) echo nm ;; *) echo "${cc_of[$1]}nm" ;; esac
}

# checkpatch on the patch file, in the tree of its predecessors
# (scripts/checkpatch-patch.sh judges its findings).
checkpatch() { # patch file, label
	local start out
	start=$(date +%s)
	if out=$("$here/checkpatch-patch.sh" "$tree" "$1" 2>&1); then
		result "$2 checkpatch" ok "$start" "$(head -n 1 <<<"$out")"
		tail -n +2 <<<"$out" | indent
	else
		result "$2 checkpatch" FAIL "$start" "$(basename "$1"):"
		indent <<<"$out"
	fi
}

# The worktree, reset to BASE with the objects and logs of earlier runs;
# its logs directory after it (git worktree add refuses a directory that
# exists).
wb_worktree "$(wb_tree "$build" base)" "$tree" "$base" '/obj-*' /logs
mkdir -p "$logs"
# The in-tree target's worktree keeps its objects and .config across runs
# (git clean -e): they are rebuilt as the sources change.
[[ " ${names[*]} " != *" intree "* ]] ||
	wb_worktree "$(wb_tree "$build" base)" "$intree" "$base" '*.o' '*.cmd' .config '/include/config' \
		'/include/generated' '/arch/x86/include/generated' '/scripts' '/tools/objtool'


# The kernel .c files the series touches: each target builds those at
# every step. Kselftests are built by their own Makefile, below.
mapfile -t series_c < <(cd "$dir" && cat "${wb_patches[@]}" |
	sed -nE 's|^\+\+\+ b/(.*\.c)$|\1|p' | grep -v '^tools/' | sort -u)
echo "check: $n patches of $dir/series on $(git -C "$tree" log -1 --format='%h %s' "$base")"
echo "check: build targets: ${names[*]:-none}; objects: ${series_c[*]}"

for t in "${names[@]}"; do
	start=$(date +%s)
	if configure "$t" && kmake "$t" -s -j"$jobs" prepare >"$logs/prepare-$t.log" 2>&1; then
		result "base $t" ok "$start" "configured and prepared"
		build_check "$t" 0 base
		[ "$t" != x86_64 ] || sparse_check 0 base
	else
		result "base $t" FAIL "$start" "config or prepare failed, logs $logs/config-$t.log $logs/prepare-$t.log:"
		indent "$logs/config-$t.log" "$logs/prepare-$t.log"
		broken[$t]=1
	fi
done

k=0
for p in "${wb_patches[@]}"; do
	k=$((k + 1)) label="$k/$n"
	checkpatch "$dir/$p" "$label"
	start=$(date +%s)
	if ! out=$(wb_git -C "$tree" am -q --keep-cr "$dir/$p" 2>&1); then
		result "$label git am" FAIL "$start" "$p does not apply on its predecessors:"
		indent <<<"$out"
		break
	fi
	result "$label git am" ok "$start" "$p"
	[[ " ${names[*]} " != *" intree "* ]] || git -C "$intree" checkout -q --detach -f "$(git -C "$tree" rev-parse HEAD)"
	reconf=0
	git -C "$tree" diff --name-only HEAD~1 HEAD |
		grep -qE '(^|/)Kconfig|\.kunitconfig$|^tools/testing/selftests/.*/config$' && reconf=1
	for t in "${names[@]}"; do
		[ -z "${broken[$t]:-}" ] || continue
		if [ $reconf = 1 ] && ! configure "$t"; then
			result "$label $t" FAIL "$(date +%s)" "config failed, log $logs/config-$t.log:"
			indent "$logs/config-$t.log"
			continue
		fi
		build_check "$t" "$k" "$label"
		[ "$t" != x86_64 ] || sparse_check "$k" "$label"
	done
	# The kselftest targets the patch touches, with scripts/build-selftests.sh.
	! wb_bool CHECKPATCH_ONLY || continue
	# Directories only: tools/testing/selftests/Makefile is no target.
	for ksft in $(git -C "$tree" diff --name-only HEAD~1 HEAD -- tools/testing/selftests/ |
		      awk -F/ 'NF > 4 { print $4 }' | sort -u); do
		start=$(date +%s)
		if nice -n 19 "$here/build-selftests.sh" "$tree" "$tree/obj-kselftest" "$tree/kselftest" "$ksft" \
			>"$logs/$k-kselftest-$ksft.log" 2>&1; then
			result "$label kselftest $ksft" ok "$start" "built and installed"
		else
			result "$label kselftest $ksft" FAIL "$start" "build failed, log $logs/$k-kselftest-$ksft.log:"
			indent "$logs/$k-kselftest-$ksft.log"
		fi
	done
done

verdict=PASS
[ $failed -eq 0 ] || verdict=FAIL
echo "check: $((checks - failed)) passed, $failed failed of $checks checks in $(( $(date +%s) - start_all ))s: $verdict"
[ $failed -eq 0 ]
