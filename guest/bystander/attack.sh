#!/bin/sh
# What a local user could plant for the guard programs, which run as root
# and put back, before each program, the settings a killed run saved in
# /run/blk_guards_saved (guest/guards/blk_lib.c: blk_sweep()). Each guard
# program must refuse all of it and change nothing:
#   - an unprivileged user (uid 65534) cannot make that directory, so
#     what follows is what such a user could plant only if /run let them;
#   - a directory of that name that is not root's own 0700 one (as one
#     made by a user would be), holding a file that names a setting a
#     guard saves, and one that names a root-only file: neither is read;
#   - in root's own directory: a symlink in place of a saved file, a file
#     of another user's, a file naming a path no guard saves, a value
#     not of a setting's form: each refused, the target unchanged;
#   - and, so that the refusals mean something, a file of root's naming
#     use_zero_page with its present value is restored.
# A saved file is named PID_N; PID 4194304 (PID_MAX_LIMIT) can never run.
# One TAP line each.
# Usage: attack.sh (guard programs in /kselftest/blk_guards)
set -u
saved=/run/blk_guards_saved
zp=/sys/kernel/mm/transparent_hugepage/use_zero_page
gone=4194304
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$saved"' EXIT

if [ -e "$saved" ]; then
	echo "not ok - guards attack: $saved exists before the test"
	exit 0
fi
if ! [ -w "$zp" ]; then
	echo "not ok - guards attack: no $zp"
	exit 0
fi
printf 'ROOT-ONLY\n' >"$tmp/target"
chmod 600 "$tmp/target"
zp_was=$(cat "$zp")

# sweep: runs a guard program (its constructor sweeps), output in $out.
sweep() {
	out=$(cd /kselftest/blk_guards && ./zeroout -l 2>&1 >/dev/null)
}

# unchanged WHAT WANT: one TAP line, "ok - WHAT" if $out holds WANT and
# the target and use_zero_page are as they were.
unchanged() {
	now=$(cat "$tmp/target")
	zp_now=$(cat "$zp")
	case $out in
	*"$2"*) said=1 ;;
	*) said= ;;
	esac
	if [ -n "$said" ] && [ "$now" = ROOT-ONLY ] && [ "$zp_now" = "$zp_was" ]; then
		echo "ok - $1: \"$2\", nothing changed"
	else
		echo "not ok - $1: no \"$2\" or a change (target: $now, use_zero_page $zp_was -> $zp_now):"
		printf '%s\n' "$out" | sed 's/^/# | /'
		printf '%s\n' "$zp_was" >"$zp"
		printf 'ROOT-ONLY\n' >"$tmp/target"
	fi
}

# as_user COMMAND: COMMAND run by sh as uid and gid 65534, no groups
# (util-linux's setpriv: busybox's cannot change uids).
as_user() {
	/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "$1"
}

uid=$(as_user 'id -u' 2>&1)
if [ "$uid" != 65534 ]; then
	echo "not ok - guards attack: cannot run as uid 65534: $uid"
	exit 0
fi
why=$(as_user "mkdir $saved" 2>&1)
if [ -e "$saved" ]; then
	echo "not ok - uid 65534 made $saved"
	rm -rf "$saved"
else
	echo "ok - uid 65534 cannot make $saved: $why"
fi

# The directory as a user would have made it where they could: theirs,
# mode 0777, with their files (made here, then given to them).
mkdir -m 0777 "$saved"
printf '%s\n0\n' "$zp" >"$saved/${gone}_0"
printf '%s\nWRITTEN-BY-65534\n' "$tmp/target" >"$saved/${gone}_1"
chown -R 65534:65534 "$saved"
sweep
unchanged "guards refuse a directory of uid 65534's" "is not root's own directory"
if [ "$(stat -c %u "$saved/${gone}_0" "$saved/${gone}_1" 2>&1)" = "65534
65534" ]; then
	echo "ok - guards leave the files of uid 65534's directory unread and in place"
else
	echo "not ok - guards removed files of a directory that is not theirs"
fi
rm -rf "$saved"

# Root's own directory, each planted file on its own.
mkdir -m 0700 "$saved"
printf '%s\n0\n' "$zp" >"$tmp/fake"
ln -s "$tmp/fake" "$saved/${gone}_0"
sweep
unchanged "guards refuse a symlink in place of a saved file" "cannot read $saved/${gone}_0"

printf '%s\n0\n' "$zp" >"$saved/${gone}_0"
chown 65534:65534 "$saved/${gone}_0"
sweep
unchanged "guards refuse a saved file of uid 65534's" "cannot read $saved/${gone}_0"

printf '%s\n12\n' "$tmp/target" >"$saved/${gone}_0"
sweep
unchanged "guards refuse a path no guard saves" "is no setting a guard saves"

printf '%s\n0;x\n' "$zp" >"$saved/${gone}_0"
sweep
unchanged "guards refuse a value not of the setting's form" "is no setting a guard saves"

printf '%s\n%s\n' "$zp" "$zp_was" >"$saved/${gone}_0"
sweep
unchanged "guards restore a file of root's own naming use_zero_page at its value" "restored $zp to $zp_was"
