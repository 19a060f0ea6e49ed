#!/bin/bash
# Usage: scripts/blktests-initramfs.sh INITRAMFS OBJ BLKTESTS_DIR GUEST_DIR OUT.cpio
# The guest of make blktests: scripts/guest-initramfs.sh writes INITRAMFS
# + GUEST_DIR (guest/blktests, at /blktests) + the programs of the Debian
# packages blktests runs (bash, coreutils, gawk, kmod, util-linux, mount,
# e2fsprogs, xfsprogs, nvme-cli, ...: every program they install, with
# its libraries; getconf of libc-bin; udevadm is guest/blktests/bin's
# stand-in); then one more archive is appended: the
# modules of the kernel built in OBJ (modules_install, stripped, depmod)
# at /lib/modules, blktests as built in BLKTESTS_DIR at /opt/blktests,
# and awk as gawk (busybox's awk is the only other one).
# WB_ARCH=arm64 (make arm64): INITRAMFS has those programs already, as
# arm64 ones (scripts/initramfs.sh's WB_USERLAND), and a kernel built
# without modules has none to install.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=$1 obj=$(realpath "$2") bt=$3 guest=$4 out=$5
here=$(dirname "$0")
start=$(date +%s)
case $(realpath -m "$out")/ in
"$(realpath "$bt")"/*) echo "blktests-initramfs: $out is inside $bt, which is copied whole" >&2; exit 1 ;;
esac
pkgs=() progs=()
if [ "${WB_ARCH:-x86_64}" = x86_64 ]; then
	mapfile -t pkgs < <(wb_list "$here/../config/blktests.packages")
	progs=(/usr/bin/getconf)
fi
for p in "${pkgs[@]}"; do
	files=$(dpkg -L "$p") || { echo "blktests-initramfs: package $p is not installed (scripts/deps.sh blktests)" >&2; exit 1; }
	while read -r f; do
		[ -f "$f" ] && [ -x "$f" ] && progs+=("$f")
	done < <(grep -E '^/(usr/)?s?bin/[^/]+$' <<<"$files")
done
[ ${#progs[@]} -eq 0 ] || echo "blktests-initramfs: ${#progs[@]} programs of ${pkgs[*]} and getconf"
# GUEST_DIR has no C program, so no selftest sources to build against.
"$here/guest-initramfs.sh" "$base" "$guest" "$guest" "$out.guest" "${progs[@]}"

stage=$(realpath "$(mktemp -d "$(dirname "$out")/blktests-stage.XXXXXX")")
trap 'rm -rf "$stage" "$out.guest"' EXIT
modules=no
if grep -qx CONFIG_MODULES=y "$obj/.config"; then
	make -s -C "$obj" INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	modules=yes
fi
mkdir -p "$stage/opt" "$stage/usr/bin"
cp -a "$bt" "$stage/opt/blktests"
rm -rf "$stage/opt/blktests/results" "$stage/opt/blktests/build.log"
ln -s gawk "$stage/usr/bin/awk"
[ $modules = no ] || [ -n "$(find "$stage/lib/modules" -name '*.ko' -print -quit)" ] ||
	{ echo "blktests-initramfs: modules_install of $obj installed no module" >&2; exit 1; }
{ cat "$out.guest"; (cd "$stage" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "blktests-initramfs: $out ($(du -h "$out" | cut -f1), modules: $modules, kernel $(cat "$obj/include/config/kernel.release")) in $(( $(date +%s) - start ))s"
