#!/bin/bash
# Usage: scripts/boot.sh BZIMAGE INITRAMFS RUNDIR [COMMAND]
# Boots BZIMAGE under QEMU (KVM where it works, else TCG with one host
# thread for both vCPUs: see below; ACCEL= names one) with SMP (default 2) vCPUs, MEM
# (default 2G) of memory and the NVMe namespaces of config/nvme.topology
# (TOPOLOGY= another file; a line whose options are "ahci" is a SATA disk
# on an AHCI controller of its own instead, serial and model wb-NAME),
# backed by fresh sparse files in RUNDIR, or by QEMU's null-co driver (no
# host I/O; reads return zeroes) where the size is written null-co:SIZE.
# The files stay sparse (QEMU turns zeroed blocks into holes:
# detect-zeroes=unmap) and are deleted after the run (KEEP_IMAGES=1 keeps
# them), so a whole-device zeroout does not cost gigabytes of host disk.
# COMMAND runs in the guest (see guest/init); its output
# is written to RUNDIR/output.log, the serial console to RUNDIR/console.log.
# Without COMMAND the console is interactive (make shell).
# ICOUNT=SHIFT runs the guest on instruction-counted time (QEMU's
# -icount shift=SHIFT,sleep=off): a guest instruction takes 2^SHIFT ns of
# guest time and an idle guest skips to its next timer, so the guest's
# clock does not depend on the host's speed or load (make bench).
# Fails if the guest panics, hangs past TIMEOUT seconds (default 1800), or
# COMMAND fails (unless ALLOW_CMD_FAIL=1); the console log is scanned by
# scripts/scan-console.sh.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kernel=$1 initrd=$2 rundir=$3 cmd=${4:-}
here=$(dirname "$0")
timeout=${TIMEOUT:-1800}
# thread=single: with one host thread per vCPU (QEMU 7.2's default), a
# vCPU was seen to execute the int3 that text_poke_bp() puts in kernel
# text after the patch was complete, and the guest died of "Oops: int3"
# in __schedule, at the sched_switch tracepoint, which the kernel patches
# each time a trace event is enabled or disabled (the comm cache's
# probes): 2 of 4 make test runs, in the guards' dio_io. One thread runs
# the vCPUs in turn, and a patch is seen whole; the guests were no slower
# on this 2-core machine (dio_align 84 and 94 s against 104 and 112 s).
# Without ACCEL: KVM where it works on this host (scripts/kvm-probe.sh),
# else TCG; TCG always with ICOUNT, which KVM cannot count, and for arm64.
if [ -n "${ACCEL:-}" ]; then
	accel=$ACCEL
elif [ -n "${ICOUNT:-}" ] || [ "${WB_ARCH:-x86_64}" != x86_64 ]; then
	accel=tcg,thread=single
else
	accel=$("$here/kvm-probe.sh" "$kernel")
fi
mkdir -p "$rundir"
rm -f "$rundir"/*.img "$rundir/console.log" "$rundir/output.log"

drives=()
ahci_append=
i=0
while read -r name size lbs opts; do
	case $name in ''|'#'*) continue ;; esac
	case $size in
	null-co:*) # no host I/O: writes are dropped, reads return zeroes
		drives+=(-drive "driver=null-co,read-zeroes=on,size=${size#null-co:},if=none,id=d$i") ;;
	*)
		truncate -s "$size" "$rundir/$name.img"
		drives+=(-drive "file=$rundir/$name.img,format=raw,if=none,id=d$i,cache=unsafe,discard=unmap,detect-zeroes=unmap") ;;
	esac
	case $opts in
	ahci) # an AHCI controller of its own, the disk on its first port
		drives+=(-device "ahci,id=ahci$i" -device "ide-hd,drive=d$i,bus=ahci$i.0,serial=wb-$name,model=wb-$name,logical_block_size=$lbs,physical_block_size=$lbs")
		# QEMU's IDENTIFY sets word 93, so libata takes the disk for
		# a PATA disk behind a SATA bridge ("applying bridge limits")
		# and caps it at 128 KiB; a SATA disk gets LBA48's 65535
		# sectors (max_sectors_kb 1280 or 4096 by default, by
		# kernel): so does this one.
		ahci_append=" libata.force=max_sec_lba48" ;;
	*)
		drives+=(-device "nvme,drive=d$i,serial=wb-$name,logical_block_size=$lbs,physical_block_size=$lbs,$opts") ;;
	esac
	i=$((i + 1))
done < "${TOPOLOGY:-$here/../config/nvme.topology}"

# No null_blk or scsi_debug device at boot: the selftests make their own.
# scsi_debug's disk shape is fixed at load: 512e, atomic writes, 192 MiB.
# MODULES_OWN_PARAMS=1 (make blktests, whose kernel has both as modules)
# leaves these out: modprobe would add them to every load of the module,
# and blktests loads them with its own parameters.
modparams="null_blk.nr_devices=0 scsi_debug.add_host=0 scsi_debug.physblk_exp=3 scsi_debug.atomic_wr=1 scsi_debug.dev_size_mb=192"
wb_bool MODULES_OWN_PARAMS && modparams=
# WB_ARCH=arm64 (make arm64): QEMU's virt machine, whose one serial port
# is the console; the command's output goes to a virtio console there.
case ${WB_ARCH:-x86_64} in
arm64)
	qemu=(qemu-system-aarch64 -M virt -cpu max) console=ttyAMA0
	# shellcheck disable=SC2054 # QEMU's options, commas and all
	out=(-chardev "file,id=wbout,path=$rundir/output.log"
	     -device virtio-serial-pci -device virtconsole,chardev=wbout) ;;
*)
	qemu=(qemu-system-x86_64 -bios /usr/share/qemu/qboot.rom) console=ttyS0
	out=(-serial "file:$rundir/output.log") ;;
esac
append="console=$console panic=-1 oops=panic loglevel=7 $modparams$ahci_append ${APPEND:-}"
qemu+=(-accel "$accel" -smp "${SMP:-2}" -m "${MEM:-2G}" -no-reboot
       -display none -kernel "$kernel" -initrd "$initrd" "${drives[@]}")
[ -z "${ICOUNT:-}" ] || qemu+=(-icount "shift=$ICOUNT,sleep=off")

if [ -z "$cmd" ]; then
	exec "${qemu[@]}" -serial mon:stdio "${out[@]}" -append "$append"
fi

append="$append wb.cmd=$(printf '%s' "$cmd" | base64 -w0)"
echo "boot: $kernel in $rundir: $cmd"
echo "boot: the guest's output in $rundir/output.log, its console in $rundir/console.log; results below as they come"
start=$(date +%s)
# While the guest runs: each top-level TAP result of its output as it
# comes, and a line at least every 30 seconds.
progress() {
	local n=0 have last=$start now
	while sleep 10; do
		now=$(date +%s)
		have=$(grep -caE '^(not )?ok [0-9]+ ' "$rundir/output.log" 2>/dev/null || true)
		if [ "${have:-0}" -gt "$n" ]; then
			grep -aE '^(not )?ok [0-9]+ ' "$rundir/output.log" | sed -n "$((n + 1)),${have}p" |
				sed "s/^/boot: [$((now - start))s] /"
			n=$have last=$now
		elif [ $((now - last)) -ge 30 ]; then
			echo "boot: [$((now - start))s] running, $n results so far"
			last=$now
		fi
	done
}
progress &
follower=$!
rc=0
timeout "$timeout" "${qemu[@]}" -serial "file:$rundir/console.log" \
	"${out[@]}" -monitor none -append "$append" \
	>"$rundir/qemu.log" 2>&1 || rc=$?
kill "$follower" 2>/dev/null || true
wait "$follower" 2>/dev/null || true
took=$(( $(date +%s) - start ))
wb_bool KEEP_IMAGES || rm -f "$rundir"/*.img

fail=0
if [ $rc -eq 124 ]; then
	echo "boot: guest hung: no power-off within ${timeout}s (TIMEOUT=); last console lines:" >&2
	tail -n 15 "$rundir/console.log" | sed 's/^/  | /' >&2
	fail=1
elif [ $rc -ne 0 ]; then
	echo "boot: qemu exited with $rc: $(tail -n 3 "$rundir/qemu.log")" >&2
	fail=1
fi
"$here/scan-console.sh" "$rundir/console.log" || fail=1
status=$(grep -a -o 'WB-EXIT=[0-9]*' "$rundir/output.log" | tail -n 1 | cut -d= -f2 || true)
if [ -z "$status" ]; then
	[ $fail -eq 1 ] || echo "boot: the guest command did not finish (no WB-EXIT in output.log)" >&2
	fail=1
elif [ "$status" -ne 0 ] && ! wb_bool ALLOW_CMD_FAIL; then
	echo "boot: guest command exited with $status" >&2
	fail=1
fi
# guest/init logs the start of each kselftest program and the end of the
# command in the kernel log: the time each took, from the console's stamps.
times=$(awk -F'[][]' '/\] wb: (selftests: |WB-EXIT=)/ {
		sub(/^ *wb: (selftests: [^:]*: )?/, "", $3)
		if (name != "") { printf "%s%s %ds", sep, name, $2 - start; sep = ", " }
		name = $3; start = $2 }' "$rundir/console.log")
[ -z "$times" ] || echo "boot: kselftest programs: $times"
echo "boot: done in ${took}s (guest exit ${status:-none})"
exit $fail
