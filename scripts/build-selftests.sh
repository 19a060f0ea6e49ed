#!/bin/bash
# Usage: scripts/build-selftests.sh TREE OBJ OUT [TARGET...]
# Builds and installs the kselftest TARGETs (default: block) of TREE with
# kselftest's own "make -C tools/testing/selftests install", objects in
# OBJ/kselftest, installed tree (run_kselftest.sh and the tests) in OUT.
# WB_ARCH=arm64 cross-builds them, linked statically: the arm64 guest has
# busybox and no C library.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$(realpath "$1") obj=$(realpath -m "$2") out=$(realpath -m "$3"); shift 3
targets=${*:-block}
log=$obj/selftests.log
mkdir -p "$obj"
echo "selftests: building ${targets} from $tree"
start=$(date +%s)
rm -rf "$out"
wb_kbuild_args
cross=()
[ -z "$wb_cross" ] || cross=("${wb_kbuild[@]}" CC="${wb_cross}gcc -static")
if ! { make -s -C "$tree" O="$obj" "${wb_kbuild[@]}" headers &&
       make -C "$tree/tools/testing/selftests" O="$obj" "${cross[@]}" TARGETS="$targets" \
		KSFT_INSTALL_PATH="$out" install; } >"$log" 2>&1; then
	grep -E 'error|Error' "$log" | head -20 >&2
	echo "selftests: build of TARGETS=$targets FAILED, full log: $log" >&2
	exit 1
fi
for t in $targets; do
	[ -d "$out/$t" ] || { echo "selftests: $t not installed in $out (is it in TARGETS of tools/testing/selftests/Makefile?)" >&2; exit 1; }
done
echo "selftests: installed in $out in $(( $(date +%s) - start ))s"
