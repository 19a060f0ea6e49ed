#!/bin/bash
# Usage: scripts/bench-initramfs.sh INITRAMFS OUT.cpio
# Writes OUT.cpio: INITRAMFS (from scripts/initramfs.sh) followed by a
# second cpio archive with what make bench adds to the guest: guest/bench/
# at /bench and util-linux blkdiscard (for "blkdiscard -z", i.e.
# BLKZEROOUT; busybox's has no -z) with the shared libraries INITRAMFS
# lacks. The kernel unpacks concatenated archives in order, so
# INITRAMFS itself is left as it is.
set -euo pipefail

base=$1 out=$2
here=$(dirname "$0")/..
echo "bench-initramfs: $base + guest/bench and blkdiscard -> $out"
start=$(date +%s)
mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$(dirname "$out")/bench-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bench" "$root/usr/sbin"
cp -a "$here"/guest/bench/. "$root/bench/"
path=$(command -v blkdiscard 2>/dev/null || echo /usr/sbin/blkdiscard)
[ -x "$path" ] || { echo "bench-initramfs: util-linux blkdiscard not installed" >&2; exit 1; }
cp "$path" "$root/usr/sbin/blkdiscard"
have=$(cpio -it --quiet <"$base" | sed "s|^\./||")
ldd "$path" | grep -oE '/[^ ]+' | while read -r lib; do
	grep -qxF "${lib#/}" <<<"$have" && continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
{ cat "$base"; (cd "$root" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "bench-initramfs: $out ($(du -h "$out" | cut -f1)) in $(( $(date +%s) - start ))s"
