#!/bin/bash
# Usage: scripts/module-initramfs.sh INITRAMFS OBJ OUT.cpio
# OUT.cpio: INITRAMFS (scripts/initramfs.sh) with one more archive
# appended, the modules of the kernel built in OBJ at /lib/modules
# (modules_install, stripped, depmod): the guest of make test's KUnit
# module boot (run-kunit-module), which loads the series' KUnit suite.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

base=$1 obj=$(realpath "$2") out=$3
stage=$(mktemp -d "$(dirname "$out")/modules-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
wb_modules_install "$obj" "$stage"
{ cat "$base"; (cd "$stage" && find . -mindepth 1 | cpio -o -H newc --quiet); } >"$out.tmp"
mv "$out.tmp" "$out"
echo "module-initramfs: $out ($(find "$stage/lib/modules" -name '*.ko' | wc -l) modules of $(cat "$obj/include/config/kernel.release"))"
