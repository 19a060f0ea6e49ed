#!/bin/bash
# Usage: scripts/series-prefix.sh TREE BASE_COMMIT N OUT
# The series' first N patches alone, for make bench-prefix: a worktree of
# TREE (the patched tree) at OUT, detached at the N-th commit after
# BASE_COMMIT, so that one patch's cost can be measured without the ones
# after it (the trim, 7.1 patch 7 and 6.12 patch 3, without the split of
# whole-page bios after it). Its build directory obj-bench is kept.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$(realpath "$1") base=$2 n=$3 out=$(realpath -m "$4")
mapfile -t commits < <(git -C "$tree" rev-list --reverse "$base..HEAD")
if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt ${#commits[@]} ]; then
	echo "series-prefix: UPTO=$n: the series in $tree has patches 1 to ${#commits[@]}" >&2
	exit 1
fi
want=${commits[n - 1]}
wb_worktree "$tree" "$out" "$want" /obj-bench
echo "series-prefix: $out: patches 1-$n of ${#commits[@]}, up to \"$(git -C "$out" log -1 --format=%s)\""
