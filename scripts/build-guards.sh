#!/bin/bash
# Usage: scripts/build-guards.sh TREE OBJ KSFT
# Builds the workbench's guard tests (guest/guards: the single-bio shapes,
# read-backs through trimmed bios, the zeroing fallbacks; in no series) with
# TREE's kselftest framework (lib.mk, kselftest_harness.h) and the headers
# scripts/build-selftests.sh installed in OBJ/usr/include, and adds them to
# the kselftest install KSFT as the collection blk_guards
# (run_kselftest.sh -c blk_guards), named to sort before block: the
# runner takes collections in sorted order, and zeroout_first_use must
# run before anything takes the huge zero folio.
set -euo pipefail

tree=$(realpath "$1") obj=$(realpath -m "$2") ksft=$(realpath "$3")
src=$(realpath "$(dirname "$0")/../guest/guards")
log=$obj/guards.log
args=(-C "$src" KSFT_DIR="$tree/tools/testing/selftests" OUTPUT="$obj/guards"
      KHDR_INCLUDES="-isystem $obj/usr/include")
echo "guards: building $src against $tree"
start=$(date +%s)
[ -f "$ksft/kselftest-list.txt" ] || { echo "guards: $ksft has no kselftest-list.txt (run scripts/build-selftests.sh first)" >&2; exit 1; }
rm -rf "$obj/guards" "$ksft/blk_guards"
mkdir -p "$obj/guards"
# MAKEFLAGS emptied: a parent make -j gives a script no jobserver, and
# its makes would warn so.
if ! MAKEFLAGS='' make "${args[@]}" INSTALL_PATH="$ksft/blk_guards" install >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	echo "guards: build of $src FAILED, full log: $log" >&2
	exit 1
fi
sed -i '/^blk_guards:/d' "$ksft/kselftest-list.txt"
MAKEFLAGS='' make -s --no-print-directory "${args[@]}" COLLECTION=blk_guards emit_tests \
	>>"$ksft/kselftest-list.txt"
echo "guards: $(grep -c '^blk_guards:' "$ksft/kselftest-list.txt") tests installed in $ksft/blk_guards in $(( $(date +%s) - start ))s"
