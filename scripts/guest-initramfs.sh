#!/bin/bash
# Usage: scripts/guest-initramfs.sh INITRAMFS KSFT_DIR GUEST_DIR OUT.cpio [FILE...]
# Writes OUT.cpio: INITRAMFS (from scripts/initramfs.sh) followed by a
# second cpio archive with what a make target adds to the guest: GUEST_DIR
# (guest/bench, guest/stress) at /NAME, each of its .c files built into a
# program there with the guard tests' helpers (guest/guards: blk_lib.c
# and its headers) and the kselftest headers of KSFT_DIR
# (tools/testing/selftests of the patched tree), and
# each host FILE at its own path: programs with the shared libraries
# INITRAMFS lacks, other files as they are. The kernel unpacks
# concatenated archives in order, so INITRAMFS itself is left as it is.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=$1 ksft=$2 dir=$3 out=$4
guards=$(dirname "$0")/../guest/guards
shift 4
name=$(basename "$dir")
# Name a few host files; make blktests passes hundreds.
files=
[ $# -eq 0 ] || files=", $(if [ $# -le 4 ]; then echo "$*"; else echo "$1 $2 and $(( $# - 2 )) more host files"; fi)"
echo "guest-initramfs: $base + $dir$files -> $out"
start=$(date +%s)
mkdir -p "$(dirname "$out")"
root=$(mktemp -d "$(dirname "$out")/$name-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/$name"
# -L: a link to a file of another guest folder (guest/blktests/bin/dmsetup)
# becomes the file.
cp -aL "$dir"/. "$root/$name/"
for c in "$dir"/*.c; do
	[ -e "$c" ] || continue
	prog=$root/$name/$(basename "$c" .c)
	if ! gcc -O2 -Wall -I"$guards" -I"$ksft" -o "$prog" "$c" "$guards/blk_lib.c" \
		2>"$root/gcc.log"; then
		sed 's/^/  | /' "$root/gcc.log" >&2
		echo "guest-initramfs: $c does not build against $guards and $ksft" >&2
		exit 1
	fi
done
rm -f "$root/gcc.log"
have=$(cpio -it --quiet <"$base" | sed "s|^\./||")
for p in "$@"; do
	[ -e "$p" ] || { echo "guest-initramfs: $p is not installed" >&2; exit 1; }
	wb_install "$root" "$p" "$have"
done
{ cat "$base"; (cd "$root" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "guest-initramfs: $out ($(du -h "$out" | cut -f1)) in $(( $(date +%s) - start ))s"
