#!/bin/bash
# Usage: scripts/kvm-probe.sh BZIMAGE
# Prints the QEMU accelerator the guests use when ACCEL is not given:
# "kvm" where KVM works on this host, else "tcg,thread=single". KVM works
# if a boot of BZIMAGE under it, without an initramfs, reaches the
# kernel's panic at the root mount within PROBE_SECS (20) seconds; on the
# machine this was written on a guest hangs under KVM without a line of
# output. The verdict is kept for the host's boot (its boot_id) in
# ~/.cache/blk-workbench/, so the probe runs once per host boot.
set -euo pipefail

bz=$1
secs=${PROBE_SECS:-20}
tcg=tcg,thread=single
if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	echo "$tcg"
	exit 0
fi
cache=${HOME:-/root}/.cache/blk-workbench
verdict=$cache/kvm-$(cat /proc/sys/kernel/random/boot_id)
if [ ! -f "$verdict" ]; then
	mkdir -p "$cache"
	log=$(mktemp)
	trap 'rm -f "$log"' EXIT
	timeout -k 5 "$secs" qemu-system-x86_64 -accel kvm -m 256 -display none -monitor none \
		-no-reboot -kernel "$bz" -append "console=ttyS0 panic=-1" -serial "file:$log" \
		>/dev/null 2>&1 || true
	if grep -q 'Kernel panic' "$log"; then
		echo kvm >"$verdict"
	else
		echo "$tcg" >"$verdict"
		echo "kvm-probe: /dev/kvm is here, but a guest under KVM did not reach its first panic in $secs s: TCG (ACCEL=kvm forces KVM)" >&2
	fi
fi
cat "$verdict"
