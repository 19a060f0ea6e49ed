#!/bin/bash
# Usage: scripts/initramfs.sh KSELFTEST_DIR OUT.cpio
# Packs the guest userland into an uncompressed initramfs: busybox-static,
# guest/init, fio, mke2fs, mkfs.xfs and the host programs the tests use
# with their shared libraries (as ldd lists them), and the installed
# kselftests (KSELFTEST_DIR, from scripts/build-selftests.sh) at /kselftest.
# WB_ARCH=arm64: the host's programs do not run there; instead the arm64
# root WB_USERLAND (scripts/arm64-userland.sh: Debian's arm64 busybox,
# mke2fs, mkfs.xfs, bash, blktests' programs and their libraries) with
# guest/init and the kselftests (static).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

ksft=$1 out=$2
here=$(dirname "$0")/..
root=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root}
busybox=/bin/busybox
[ -z "${WB_USERLAND:-}" ] || busybox=$WB_USERLAND/bin/busybox
cp "$busybox" "$root/bin/busybox"
# The host's busybox lists the applets: the arm64 one does not run here
# (Debian builds both with the same configuration).
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
install -m 755 "$here/guest/init" "$root/init"

# mke2fs (and its configuration): dio_io's ext4 cases and make bench;
# mkfs.xfs: the zeroing selftest's XFS case (zeroout.iomap_zero).
progs=(fio mke2fs mkfs.xfs)
[ "${WB_ARCH:-x86_64}" = x86_64 ] || progs=()
for p in "${progs[@]}"; do
	path=$(PATH=$PATH:/usr/sbin:/sbin command -v "$p") ||
		{ echo "initramfs: $p not installed" >&2; exit 1; }
	rm -f "$root/bin/$p"
	wb_install "$root" "$path"
done
[ ${#progs[@]} -eq 0 ] || wb_install "$root" /etc/mke2fs.conf
# Over busybox's applets, whose links it replaces.
[ -z "${WB_USERLAND:-}" ] || cp -a --remove-destination "$WB_USERLAND"/. "$root/"
# Libraries the kselftests link against, so they need no static libc.
while read -r elf; do
	wb_install_libs "$root" "$elf"
done < <(find "$ksft" -type f -perm -u+x -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
cp -a "$ksft" "$root/kselftest"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs: $out ($(du -h "$out" | cut -f1))"
