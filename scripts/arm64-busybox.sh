#!/bin/bash
# Usage: scripts/arm64-busybox.sh OUT
# Writes Debian's arm64 busybox (busybox-static:arm64, statically linked)
# to OUT, for the arm64 guest (make arm64): the package is downloaded
# with apt-get download and unpacked with dpkg-deb, not installed (it
# would replace the host's /bin/busybox). Adds arm64 to dpkg's foreign
# architectures if it is not there, so that apt knows the package.
set -euo pipefail

out=$(realpath -m "$1")
[ -x "$out" ] && exit 0
dir=$(mktemp -d "${out%/*}/busybox.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "arm64-busybox: adding arm64 to dpkg's architectures (dpkg --add-architecture arm64)"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
fi
# Its warning that user _apt cannot write here is apt's own: as root it
# downloads anyway.
(cd "$dir" && apt-get download -q busybox-static:arm64 >apt.log 2>&1) ||
	{ cat "$dir/apt.log" >&2; echo "arm64-busybox: apt-get download busybox-static:arm64 failed" >&2; exit 1; }
dpkg-deb -x "$dir"/busybox-static_*_arm64.deb "$dir/root"
# e_machine, bytes 18-19 of the ELF header: 183 (0xb7) is EM_AARCH64.
[ "$(od -An -tx1 -j18 -N2 "$dir/root/bin/busybox" | tr -d ' ')" = b700 ] ||
	{ echo "arm64-busybox: the package's /bin/busybox is not an arm64 program" >&2; exit 1; }
mv "$dir/root/bin/busybox" "$out"
echo "arm64-busybox: $out ($(dpkg-deb -f "$dir"/busybox-static_*_arm64.deb Version))"
