#!/bin/bash
# Usage: scripts/blktests-build.sh TARBALL DIR
# Unpacks blktests from TARBALL (../shared/blktests-a608cb5.tar.xz) into
# DIR (build/blktests, never committed) and builds its helper programs
# (src/) on the host; the guest runs them (scripts/blktests-initramfs.sh).
# Nothing is fetched: what src/ cannot build for want of a header (liburing,
# ublk) is left out by blktests' own Makefile, and the tests that need it
# are then not run, with blktests' reason.
set -euo pipefail

tar=$1 dir=$2
[ -f "$tar" ] || { echo "blktests-build: $tar not found" >&2; exit 1; }
start=$(date +%s)
stamp=$dir/.wb-tarball
if [ "$(cat "$stamp" 2>/dev/null)" != "$(sha1sum <"$tar")" ]; then
	echo "blktests-build: unpacking $tar into $dir"
	rm -rf "$dir" && mkdir -p "$dir"
	tar -C "$dir" --strip-components=1 -xJf "$tar"
	sha1sum <"$tar" >"$stamp"
fi
if ! make -C "$dir" -j2 >"$dir/build.log" 2>&1; then
	tail -n 20 "$dir/build.log" >&2
	echo "blktests-build: make failed, full log: $dir/build.log" >&2
	exit 1
fi
echo "blktests-build: $dir built in $(( $(date +%s) - start ))s ($(grep -c '^Skip' "$dir/build.log" || true) parts left out by its Makefile: $(grep '^Skip' "$dir/build.log" | tr '\n' ';'))"
