#!/bin/bash
# Usage: scripts/build-kernel.sh TREE OBJ
# Builds OBJ/arch/x86/boot/bzImage (WB_ARCH=arm64: OBJ/arch/arm64/boot/Image,
# cross-built) from TREE (configured by scripts/kconfig.sh)
# with ccache, and the modules where OBJ/.config has CONFIG_MODULES=y
# (make blktests: scripts/suite-initramfs.sh installs them). OBJ should
# be a direct subdirectory of TREE: kbuild then uses
# relative source paths, and ccache hits across the base and patched trees
# and across clones. The cache is ccache's own (CCACHE_DIR if set, else
# ~/.cache/ccache), so that every clone and CI run on a machine shares it.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$(realpath "$1") obj=$(realpath -m "$2")
export CCACHE_NOHASHDIR=1
log=$obj/build.log
wb_kbuild_args
image=$(wb_kimage)
targets=("${image##*/}")
grep -qx 'CONFIG_MODULES=y' "$obj/.config" && targets+=(modules)
echo "build: $tree -> $obj/$image, log $log"
start=$(date +%s)
# This build's own cache hits, not the cache's totals since its creation.
export CCACHE_STATSLOG=$obj/ccache-stats.log
rm -f "$CCACHE_STATSLOG"
# A line every 30 s with the files compiled so far (a cold build: about
# 3000 for the guests' kernels).
if ! wb_tick_match='^  CC ' wb_tick_what='files compiled' \
	wb_ticking "build: ${obj#"$tree"/}" "$log" make -C "$tree" O="$obj" "${wb_kbuild[@]}" \
	CC="ccache ${wb_cross}gcc" -j"$(( $(nproc) + 1 ))" "${targets[@]}"; then
	grep -E 'error|Error' "$log" | head -20 >&2
	echo "build: FAILED for $tree, full log: $log" >&2
	exit 1
fi
hits=$(ccache --show-log-stats 2>/dev/null | sed -nE 's/^ *Hits: *([0-9]+ *\/ *[0-9]+).*/\1/p' | tr -s ' ')
echo "build: $(cat "$obj/include/config/kernel.release") done in $(( $(date +%s) - start ))s (ccache hits ${hits:-none recorded})"
