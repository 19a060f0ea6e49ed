#!/bin/bash
# Usage: scripts/bench-initramfs.sh INITRAMFS SELFTEST_DIR OUT.cpio
# Writes OUT.cpio: INITRAMFS (from scripts/initramfs.sh) followed by a
# second cpio archive with what make bench adds to the guest: guest/bench/
# at /bench, with guest/bench/dio_irregular.c built against the block
# kselftest sources in SELFTEST_DIR (tools/testing/selftests/block of the
# patched tree: it includes dio_align.c), util-linux blkdiscard (for
# "blkdiscard -z", i.e. BLKZEROOUT; busybox's has no -z) and e2fsprogs
# mke2fs, with the shared libraries INITRAMFS lacks. The kernel unpacks concatenated archives in order, so
# INITRAMFS itself is left as it is.
set -euo pipefail

base=$1 ksft_src=$2 out=$3
here=$(dirname "$0")/..
echo "bench-initramfs: $base + guest/bench, blkdiscard, mke2fs -> $out"
start=$(date +%s)
mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$(dirname "$out")/bench-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bench" "$root/usr/sbin" "$root/etc"
cp -a "$here"/guest/bench/. "$root/bench/"
if ! gcc -O2 -Wall -I"$ksft_src" -o "$root/bench/dio_irregular" \
	"$here/guest/bench/dio_irregular.c" 2>"$root/gcc.log"; then
	sed 's/^/  | /' "$root/gcc.log" >&2
	echo "bench-initramfs: guest/bench/dio_irregular.c does not build against $ksft_src" >&2
	exit 1
fi
rm -f "$root/gcc.log"
have=$(cpio -it --quiet <"$base" | sed "s|^\./||")
for p in /usr/sbin/blkdiscard /usr/sbin/mke2fs; do
	[ -x "$p" ] || { echo "bench-initramfs: $p not installed (util-linux, e2fsprogs)" >&2; exit 1; }
	cp "$p" "$root/usr/sbin/"
	ldd "$p" | grep -oE '/[^ ]+' | while read -r lib; do
		grep -qxF "${lib#/}" <<<"$have" && continue
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
cp /etc/mke2fs.conf "$root/etc/"
{ cat "$base"; (cd "$root" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "bench-initramfs: $out ($(du -h "$out" | cut -f1)) in $(( $(date +%s) - start ))s"
