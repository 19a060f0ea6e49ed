#!/bin/sh
# The skip rules of the series' zeroout.huge_folio, shown on a kernel
# where the case otherwise runs: where the kernel rightly zeroes with
# ZERO_PAGE the case must skip, saying why, and never fail.
#   - a PMD size other than 2 MiB (16 KiB pages: 32 MiB): a 32 MiB
#     hpage_pmd_size bind-mounted over the real one, in a mount namespace
#     of the case's own;
#   - use_zero_page at 0: the same with "0";
#   - no free 2 MiB to allocate the huge zero folio from, as on
#     fragmented memory: fail_page_alloc fails every allocation of order
#     9 or more of the case's process (task-filter, make-it-fail). The
#     kernel keeps the folio once taken, so this runs first in its boot;
#   - and right after that failure, the case without fail_page_alloc must
#     pass: the failure holds off its first try (a second), and it tries
#     again after that.
# One TAP line each ("ok - ..."); the case's own output as comments.
# Usage: skip-rules.sh (from /kselftest/block's parent)
set -u
thp=/sys/kernel/mm/transparent_hugepage
fail=/sys/kernel/debug/fail_page_alloc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_skip WHAT REASON COMMAND...: the case must skip with REASON.
expect_skip() {
	what=$1 want=$2
	shift 2
	out=$(cd /kselftest/block && "$@" 2>&1)
	printf '%s\n' "$out" | sed 's/^/# | /'
	case $out in
	*"ok 1 zeroout.huge_folio # SKIP $want"*)
		echo "ok - zeroout.huge_folio skips $what: $want" ;;
	*)
		echo "not ok - zeroout.huge_folio does not skip $what with: $want" ;;
	esac
}

# with_file VALUE SYSFS COMMAND...: COMMAND sees VALUE in SYSFS.
with_file() {
	printf '%s\n' "$1" >"$tmp/value"
	file=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --bind "$0" "$1" && shift && exec "$@"' \
		"$tmp/value" "$file" "$@"
}

case=./zeroout
[ -x "/kselftest/block/$case" ] || { echo "not ok - skip rules: no /kselftest/block/zeroout"; exit 0; }
if [ "$(sed -n 's/^thp_zero_page_alloc //p' /proc/vmstat)" != 0 ]; then
	echo "not ok - skip rules: the huge zero folio was taken before they ran"
	exit 0
fi

expect_skip "with a 32 MiB PMD" "PMD size 32768 KiB, not 2 MiB: zeroing uses ZERO_PAGE" \
	with_file 33554432 "$thp/hpage_pmd_size" "$case" -r zeroout.huge_folio
expect_skip "with use_zero_page at 0" "no huge zero folio: no THP, or use_zero_page is 0" \
	with_file 0 "$thp/use_zero_page" "$case" -r zeroout.huge_folio

# fail_page_alloc's knobs, saved and put back.
knobs="probability min-order times ignore-gfp-wait ignore-gfp-highmem task-filter verbose interval space"
for k in $knobs; do
	cat "$fail/$k" >"$tmp/saved-$k" || { echo "not ok - skip rules: no $fail (CONFIG_FAIL_PAGE_ALLOC)"; exit 0; }
done
echo 0 >"$fail/probability"
echo 9 >"$fail/min-order"
echo -1 >"$fail/times"
echo N >"$fail/ignore-gfp-wait"
echo N >"$fail/ignore-gfp-highmem"
echo Y >"$fail/task-filter"
echo 0 >"$fail/verbose"
echo 1 >"$fail/interval"
echo 0 >"$fail/space"
echo 100 >"$fail/probability"
# shellcheck disable=SC2016 # expanded by the inner shell
expect_skip "when the huge zero folio cannot be allocated" "no free 2 MiB (thp_zero_page_alloc_failed grew)" \
	sh -c 'echo 1 >/proc/self/make-it-fail && exec "$0" -r zeroout.huge_folio' "$case"
echo 0 >"$fail/probability"
for k in $knobs; do
	[ "$k" = probability ] || cat "$tmp/saved-$k" >"$fail/$k"
done
cat "$tmp/saved-probability" >"$fail/probability"
# The rate limit's race: the make-it-fail run just above failed to
# allocate the folio less than a second ago, so this run's first zeroout
# may be held off without thp_zero_page_alloc_failed moving. The case
# must pass, not fail: it tries again after the delay and says so.
out=$(cd /kselftest/block && "$case" -r zeroout.huge_folio 2>&1)
printf '%s\n' "$out" | sed 's/^/# | /'
case $out in
*"not ok 1 zeroout.huge_folio"*|*"ok 1 zeroout.huge_folio # SKIP"*)
	echo "not ok - zeroout.huge_folio right after another task's failed allocation: not a pass" ;;
*"again after the delay"*"ok 1 zeroout.huge_folio"*)
	echo "ok - zeroout.huge_folio passes right after another task's failed allocation (held off once, then tried again)" ;;
*"ok 1 zeroout.huge_folio"*)
	echo "ok - zeroout.huge_folio passes right after another task's failed allocation (not held off: more than a second had passed)" ;;
*)
	echo "not ok - zeroout.huge_folio right after another task's failed allocation: no result" ;;
esac
