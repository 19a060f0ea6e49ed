#!/bin/bash
# Usage: scripts/suite-build.sh TARBALL DIR [PATCHDIR]
# Unpacks a test suite from TARBALL (blktests or fstests, from ../shared/)
# into DIR (build/BASE/blktests or build/fstests, never committed), applies
# the patches of PATCHDIR/series in order (our blktests series,
# patches/blktests), and builds its helper programs on the host with the
# suite's own make; the guest runs them (scripts/suite-initramfs.sh).
# WB_ARCH=arm64 (make arm64) builds them with aarch64-linux-gnu-gcc and
# -g++ instead. A patch that does not apply stops the run, naming it.
# Nothing is fetched: what the suite cannot build for want of a header
# (liburing, ublk) is left out by its own Makefile, and the tests that
# need it are then not run, with the suite's reason.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tar=$1 dir=$2 patches=${3:-}
name=$(basename "$dir")
wb_kbuild_args
[ -f "$tar" ] || { echo "$name-build: $tar not found" >&2; exit 1; }
start=$(date +%s)
wb_patches=()
[ -z "$patches" ] || wb_series "$patches"
stamp=$dir/.wb-tarball
want=$( (sha1sum <"$tar"; for p in "${wb_patches[@]}"; do sha1sum <"$patches/$p"; done) | sha1sum)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "$name-build: unpacking $tar into $dir${patches:+, applying ${#wb_patches[@]} patches of $patches}"
	rm -rf "$dir" && mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xJf "$tar"
	for p in "${wb_patches[@]}"; do
		if ! out=$(patch -d "$dir" -p1 -s --no-backup-if-mismatch <"$patches/$p" 2>&1); then
			printf '  | %s\n' "${out//$'\n'/$'\n'  | }" >&2
			echo "$name-build: $patches/$p does not apply to $tar" >&2
			exit 1
		fi
	done
	echo "$want" >"$stamp"
fi
if ! make -C "$dir" -j2 ${wb_cross:+CC=${wb_cross}gcc CXX=${wb_cross}g++} >"$dir/build.log" 2>&1; then
	tail -n 20 "$dir/build.log" >&2
	echo "$name-build: make failed, full log: $dir/build.log" >&2
	exit 1
fi
skipped=$(grep '^Skip' "$dir/build.log" | tr '\n' ';' || true)
echo "$name-build: $dir built in $(( $(date +%s) - start ))s${skipped:+ (left out by its Makefile: $skipped)}"
