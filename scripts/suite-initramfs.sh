#!/bin/bash
# Usage: scripts/suite-initramfs.sh INITRAMFS OBJ SUITE_DIR PACKAGES GUEST_DIR OUT.cpio
# The guest of make blktests and make fstests: scripts/guest-initramfs.sh
# writes INITRAMFS + GUEST_DIR (guest/blktests or guest/fstests, at
# /NAME; its .c files built there) + the programs of the Debian packages
# the list PACKAGES names (config/blktests.packages or
# config/fstests.packages: every program they install, with its
# libraries, and every file of one marked "all"; getconf of libc-bin; udevadm is guest/blktests/bin's
# stand-in); then one more archive is appended: the modules of the kernel
# built in OBJ (modules_install, stripped, depmod) at /lib/modules, the
# suite as built in SUITE_DIR at /opt/NAME (NAME its directory's name)
# with the shared libraries its programs need,
# and awk as gawk (busybox's awk is the only other one).
# WB_ARCH=arm64 (make arm64): INITRAMFS has those programs already, as
# arm64 ones (scripts/initramfs.sh's WB_USERLAND), and a kernel built
# without modules has none to install.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=$1 obj=$(realpath "$2") suite=$3 list=$4 guest=$5 out=$6
here=$(dirname "$0")
name=$(basename "$suite")
start=$(date +%s)
case $(realpath -m "$out")/ in
"$(realpath "$suite")"/*) echo "$name-initramfs: $out is inside $suite, which is copied whole" >&2; exit 1 ;;
esac
pkgs=() progs=()
if [ "${WB_ARCH:-x86_64}" = x86_64 ]; then
	mapfile -t pkgs < <(wb_list "$list")
	progs=(/usr/bin/getconf)
fi
for line in "${pkgs[@]}"; do
	read -r p what <<<"$line"
	files=$(dpkg -L "$p") || { echo "$name-initramfs: package $p of $list is not installed (scripts/deps.sh $name)" >&2; exit 1; }
	while read -r f; do
		[ -f "$f" ] && [ -x "$f" ] && progs+=("$f")
	done < <(grep -E '^/(usr/)?s?bin/[^/]+$' <<<"$files")
	# "PACKAGE all": its other files too (perl-base's modules).
	[ "${what:-}" != all ] || while read -r f; do
		[ -f "$f" ] && progs+=("$f")
	done < <(grep -E '^/usr/(lib|share/perl)' <<<"$files")
done
[ ${#progs[@]} -eq 0 ] || echo "$name-initramfs: ${#progs[@]} files of ${#pkgs[@]} packages of $list and getconf"
"$here/guest-initramfs.sh" "$base" "$guest" "$guest" "$out.guest" "${progs[@]}"

stage=$(realpath "$(mktemp -d "$(dirname "$out")/$name-stage.XXXXXX")")
trap 'rm -rf "$stage" "$out.guest"' EXIT
modules=no
if grep -qx CONFIG_MODULES=y "$obj/.config"; then
	wb_modules_install "$obj" "$stage"
	modules=yes
fi
mkdir -p "$stage/opt" "$stage/usr/bin"
cp -a "$suite" "$stage/opt/$name"
rm -rf "$stage/opt/$name/results" "$stage/opt/$name/build.log"
ln -s gawk "$stage/usr/bin/awk"
# The suite's own programs (fstests links libaio, liburing, libuuid...):
# the libraries the first archive lacks.
if [ "${WB_ARCH:-x86_64}" = x86_64 ]; then
	have=$(cpio -it --quiet <"$out.guest" | sed "s|^\./||")
	while read -r f; do
		wb_install_libs "$stage" "$f" "$have"
	done < <(find "$stage/opt/$name" -type f -perm -u+x -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
fi
{ cat "$out.guest"; (cd "$stage" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "$name-initramfs: $out ($(du -h "$out" | cut -f1), modules: $modules, kernel $(cat "$obj/include/config/kernel.release")) in $(( $(date +%s) - start ))s"
