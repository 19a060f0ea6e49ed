#!/bin/bash
# Usage: scripts/deps.sh [GROUP...]
# Installs the Debian packages of the GROUPs that are missing (apt-get;
# root), each make target asking for what it needs:
#   base      (the default; every target) building and booting a kernel
#   host      make test's tool and host checks, make send: shellcheck,
#             quilt, git send-email, b4, the local SMTP server
#   backport  Debian's linux-source-6.12 (BASE=6.12, and make test from
#             7.1, without LINUX_TARBALL or KERNEL_TREE)
#   arm64     the arm64 QEMU and compiler (KUnit on arm64)
#   arm64-ksft  the arm64 C library and C++ compiler (make arm64, with
#             arm64)
#   bench     gnuplot (make bench's plots)
#   check     make check's compilers (cross gcc, clang WB_LLVM) and the
#             checkpatch SPDX check's Python modules; not for
#             CHECKPATCH_ONLY=1, which builds nothing
#   blktests, fstests  the programs make blktests or make fstests copies
#             into its guest (config/NAME.packages), and what fstests
#             builds with
# NO_DEPS=1 installs nothing: it names what is missing and goes on. On a
# system without dpkg it names every package (Debian's names;
# docs/workbench.md has Fedora's and Arch's) and stops, unless NO_DEPS=1.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs=()
for group in "${@:-base}"; do
	case $group in
	base)	pkgs+=(qemu-system-x86 qemu-utils fio busybox-static flex bison bc libelf-dev
		       libssl-dev ccache cpio xz-utils rsync python3 e2fsprogs xfsprogs
		       util-linux gcc make perl git) ;;
	host)	pkgs+=(shellcheck quilt git-email libmailtools-perl libauthen-sasl-perl
		       libio-socket-ssl-perl b4 python3-aiosmtpd) ;;
	backport) pkgs+=(linux-source-6.12) ;;
	arm64)	pkgs+=(qemu-system-arm gcc-aarch64-linux-gnu) ;;
	arm64-ksft) pkgs+=(libc6-dev-arm64-cross g++-aarch64-linux-gnu) ;;
	bench)	pkgs+=(gnuplot-nox) ;;
	checkpatch) pkgs+=(python3-ply python3-git) ;;
	check)	pkgs+=(sparse python3-ply python3-git)
		wb_bool CHECKPATCH_ONLY || pkgs+=(gcc-i686-linux-gnu gcc-riscv64-linux-gnu
		       "clang-$WB_LLVM" "lld-$WB_LLVM" "llvm-$WB_LLVM") ;;
	blktests|fstests)
		mapfile -t -O ${#pkgs[@]} pkgs < <(wb_list "$(dirname "$0")/../config/$group.packages" | cut -d' ' -f1)
		# fstests' configure and src/ (its README's list for Debian).
		[ "$group" = blktests ] || pkgs+=(autoconf automake libtool libtool-bin pkg-config
		       uuid-dev xfslibs-dev libattr1-dev libacl1-dev libaio-dev liburing-dev
		       libcap-dev libgdbm-dev libgdbm-compat-dev libssl-dev) ;;
	*)	echo "deps: no group $group (base host backport arm64 arm64-ksft bench checkpatch check blktests fstests)" >&2
		exit 1 ;;
	esac
done

if ! command -v dpkg-query >/dev/null; then
	echo "deps: not a Debian system: the workbench needs (Debian's names; docs/workbench.md has Fedora's and Arch's): ${pkgs[*]}" >&2
	wb_bool NO_DEPS || { echo "deps: install them, then run with NO_DEPS=1" >&2; exit 1; }
	exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if wb_bool NO_DEPS; then
	echo "deps: NO_DEPS=1: not installing ${missing[*]}" >&2
	exit 0
fi

echo "deps: installing ${missing[*]}"
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install: ${missing[*]} (or NO_DEPS=1 once you have them)" >&2
	exit 1
fi
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done in $(( $(date +%s) - start ))s"
