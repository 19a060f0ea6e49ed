#!/bin/bash
# Usage: scripts/deps.sh [check|blktests|fstests|arm64]
# Installs the Debian packages the workbench uses, if any is missing;
# with "check", also the compilers of make check; with "blktests", the
# programs make blktests copies into its guest (scripts/suite-initramfs.sh);
# with "fstests", those of make fstests and what fstests builds with;
# with "arm64", the arm64 C library the kselftests of make arm64 link
# and the C++ compiler blktests' src/ needs.
# Takes nothing, produces nothing but installed packages; apt-get only.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs=(linux-source-6.12 qemu-system-x86 qemu-utils fio busybox-static
      flex bison bc libelf-dev libssl-dev ccache quilt cpio xz-utils
      rsync python3 trace-cmd blktrace gnuplot-nox sparse git-email
      python3-aiosmtpd shellcheck e2fsprogs xfsprogs util-linux gcc make perl
      libmailtools-perl libauthen-sasl-perl libio-socket-ssl-perl
      python3-ply python3-git b4 qemu-system-arm gcc-aarch64-linux-gnu)
# make check only: cross compilers and clang (WB_LLVM: Linux 7.0 needs 15);
# not for CHECKPATCH_ONLY=1, which builds nothing.
if [ "${1:-}" = check ] && ! wb_bool CHECKPATCH_ONLY; then
	pkgs+=(gcc-i686-linux-gnu gcc-riscv64-linux-gnu
	       "clang-$WB_LLVM" "lld-$WB_LLVM" "llvm-$WB_LLVM")
fi
if [ "${1:-}" = arm64 ]; then
	pkgs+=(libc6-dev-arm64-cross g++-aarch64-linux-gnu)
fi
case ${1:-} in
blktests|fstests)
	mapfile -t -O ${#pkgs[@]} pkgs < <(wb_list "$(dirname "$0")/../config/$1.packages" | cut -d' ' -f1) ;;
esac
# fstests' configure and src/ (its README's list for Debian).
if [ "${1:-}" = fstests ]; then
	pkgs+=(autoconf automake libtool libtool-bin pkg-config uuid-dev
	       xfslibs-dev libattr1-dev libacl1-dev libaio-dev liburing-dev
	       libcap-dev libgdbm-dev libgdbm-compat-dev libssl-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done in $(( $(date +%s) - start ))s"
