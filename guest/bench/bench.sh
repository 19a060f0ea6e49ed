#!/bin/sh
# Usage (in the guest): sh /bench/bench.sh ZERO_MIB FIO_MIB [CASE...]
# The guest side of scripts/bench-run.sh (busybox sh). Finds the NVMe
# namespaces of config/bench.topology by controller serial (wb-NAME),
# runs each CASE (default: all) twice, first timed without tracing, then
# with the block_bio_queue and block_rq_issue tracepoints on for that
# device only, and prints one line per run:
#   BENCH case=C kind=zero|mkfs|fio|dio dev=D bytes=N secs=S wall=W cpu=C
#   TRACE case=C bios=N rqs=N hist=SECTORS:COUNT,... lost=N pins=N
# pins: pages pinned (FOLL_PIN, nr_foll_pin_acquired of /proc/vmstat)
# during the traced run: a page given back by a trimmed bio is pinned
# again for the next bio, so patched minus baseline counts those pages.
# dio: 64 MiB O_DIRECT I/Os from the kselftest's irregular buffer
# (/bench/dio_irregular). secs: the I/O itself: fio's or dio_irregular's
# runtime, or the time between trace markers around blkdiscard -z or
# mke2fs (-t ext4, inode tables and journal zeroed, no discard; its bytes
# are the whole device's). wall: the whole command (fio starts in about
# 1 s under TCG). cpu: for fio and dio, the user + system CPU seconds of
# the job (fio's report, rusage); else busy vCPU seconds of the guest
# (/proc/stat, both vCPUs) over the run. Data on the devices is destroyed.
# Exits non-zero if a case failed (the others still run).
set -u
zero_mib=$1 fio_mib=$2
shift 2
T=/sys/kernel/tracing
all="zero-mdts5 zero-mdts7 zero-mdts9 zero-wz-ref mkfs-ext4-mdts5 read64m-def read64m-384 read64m-128 read1m-def read1m-384 read1m-128 write64m-def write64m-384 write64m-128 write1m-384 irr64m-def irr64m-384 irr64m-128 irrwrite64m-384 read64m-1280 read64m-4096 irr64m-1280 irr64m-4096 randread64k-msk32 read64k-msk32"
cases=${*:-$all}
status=0

# The block device of the controller whose serial is wb-$1.
dev_of() {
	for d in /sys/block/nvme*n*; do
		s=$(tr -d ' ' <"$d/device/serial" 2>/dev/null)
		[ "$s" = "wb-$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

uptime_cs() { awk '{ split($1, a, "."); print a[1] * 100 + a[2] }' /proc/uptime; }
# Busy jiffies (USER_HZ) of all CPUs: user nice system irq softirq steal.
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

trace_on() { # dev
	t=$(cat "/sys/block/$1/dev")
	devt=$(( (${t%:*} << 20) | ${t#*:} ))
	echo 0 >$T/tracing_on
	echo 32768 >$T/buffer_size_kb
	: >$T/trace
	for e in block_bio_queue block_rq_issue; do
		echo "dev == $devt" >$T/events/block/$e/filter
		echo 1 >$T/events/block/$e/enable
	done
	echo 1 >$T/tracing_on
}

# stat_refresh first: /proc/vmstat alone lags by the per-CPU deltas.
pins() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk '$1 == "nr_foll_pin_acquired" { print $2 }' /proc/vmstat
}

trace_off() { # case pins
	echo 0 >$T/tracing_on
	for e in block_bio_queue block_rq_issue; do
		echo 0 >$T/events/block/$e/enable
		echo 0 >$T/events/block/$e/filter
	done
	lost=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	# "... block_rq_issue: 259,0 R 131072 () 0 + 256 ..." and
	# "... block_bio_queue: 259,0 R 0 + 256 [comm]": the field after "+".
	awk -v c="$1" -v lost="$lost" -v pins="$2" '
	/block_bio_queue:|block_rq_issue:/ {
		for (i = 1; i < NF; i++) if ($i == "+") break
		n = $(i + 1) + 0
		if (n == 0) next
		if (/block_bio_queue:/) bios++
		else { rqs++; h[n]++ }
	}
	END {
		s = ""
		for (k in h) s = s (s == "" ? "" : ",") k ":" h[k]
		printf "TRACE case=%s bios=%d rqs=%d hist=%s lost=%d pins=%d\n", c, bios, rqs, s, lost, pins
	}' $T/trace
	: >$T/trace
}

# run_case CASE TRACED: sets dev, kind, bytes and runs the I/O.
run_case() {
	cpu=0
	c=$1 traced=$2 msk='' bs='' rw=read iodepth=1 engine=psync name=rd
	case $c in
	zero-mdts5) name=z5 ;; zero-mdts7) name=z7 ;; zero-mdts9) name=z9 ;;
	zero-wz-ref) name=wz ;; mkfs-*) name=z5 ;;
	*-1280|*-4096) name=big ;;
	esac
	dev=$(dev_of $name) || { echo "bench: $c: no namespace with serial wb-$name" >&2; return 1; }
	case $c in
	irr*) kind=dio bytes=$((fio_mib * 1048576)) ;;
	zero-*) kind=zero bytes=$((zero_mib * 1048576)) ;;
	mkfs-*) kind=mkfs bytes=$(( $(cat "/sys/block/$dev/size") * 512 )) ;;
	*) kind=fio bytes=$((fio_mib * 1048576)) ;;
	esac
	case $c in
	*-def) msk=$(cat "/tmp/bench-default-kb-$dev") ;;
	*-384) msk=384 ;; *-128) msk=128 ;; *-msk32) msk=32 ;;
	*-1280) msk=1280 ;; *-4096) msk=4096 ;;
	esac
	case $c in
	read64m-*) bs=64m ;; read1m-*) bs=1m ;;
	write64m-*) bs=64m rw=write ;; write1m-*) bs=1m rw=write ;;
	randread64k-*) bs=64k rw=randread iodepth=32 engine=libaio ;;
	read64k-*) bs=64k iodepth=32 engine=libaio ;;
	esac
	if [ -n "$msk" ]; then
		echo "$msk" >"/sys/block/$dev/queue/max_sectors_kb" || return 1
		msk=$(cat "/sys/block/$dev/queue/max_sectors_kb")
	fi
	# Ideal requests per GiB: ceil(I/O size / max_sectors) per I/O. Not
	# for Write Zeroes (its own limit) nor mkfs (many I/O sizes).
	io=$bs
	case $c in zero-wz-ref|mkfs-*) io='' ;; zero-*) io=$bytes ;; irr*) io=64m ;; esac
	ideal=na
	if [ -n "$io" ]; then
		ideal=$(awk -v io="$io" -v kb="$(cat "/sys/block/$dev/queue/max_sectors_kb")" 'BEGIN {
			n = io + 0; u = substr(io, length(io)); if (u == "m") n *= 1048576; if (u == "k") n *= 1024
			per = int((n + kb * 1024 - 1) / (kb * 1024)); printf "%d", per * 1073741824 / n }')
	fi
	if [ "$traced" = 1 ]; then
		p0=$(pins)
		trace_on "$dev"
	else
		# Markers only, for timestamps in microseconds (busybox date
		# has no %N, /proc/uptime counts in 10 ms).
		echo 0 >$T/tracing_on
		: >$T/trace
		echo 1 >$T/tracing_on
	fi
	w0=$(uptime_cs) c0=$(busy_jiffies)
	if [ $kind = dio ]; then
		op='read'
		case $c in irrwrite*) op='write' ;; esac
		out=$(/bench/dio_irregular "/dev/$dev" "$fio_mib" $op) || return 1
		w1=$(uptime_cs)
		secs=$(echo "$out" | sed -n 's/^DIO secs=\([^ ]*\) .*/\1/p')
		cpu=$(echo "$out" | sed -n 's/^DIO .* cpu=\([^ ]*\) .*/\1/p')
		[ "$traced" = 1 ] || echo "BENCHLAYOUT case=$c $(echo "$out" | sed -n 's/^DIO .*\(layout=.*\)/\1/p')"
	elif [ $kind != fio ]; then
		echo bench-start >$T/trace_marker
		if [ $kind = zero ]; then
			/usr/sbin/blkdiscard -f -z -l "$bytes" "/dev/$dev" || return 1
		else
			/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "/dev/$dev" || return 1
		fi
		echo bench-end >$T/trace_marker
		w1=$(uptime_cs)
		secs=$(awk '/tracing_mark_write: bench-start/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "tracing_mark_write:") { sub(/:$/, "", $i); a = $i } }
			/tracing_mark_write: bench-end/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "tracing_mark_write:") { sub(/:$/, "", $i); b = $i } }
			END { printf "%.4f", b - a }' $T/trace)
	else
		out=$(fio --name="$c" --filename="/dev/$dev" --rw=$rw --bs=$bs \
			--size="$bytes" --direct=1 --ioengine=$engine \
			--iodepth=$iodepth --randrepeat=1 --norandommap \
			--output-format=terse --terse-version=3) || return 1
		w1=$(uptime_cs)
		# terse v3: fields 6 and 9 read KiB and runtime in ms, 47 and
		# 50 the same for writes, 88 and 89 user and system CPU in % of
		# the job's runtime.
		o=0
		case $rw in *write) o=41 ;; esac
		secs=$(echo "$out" | awk -F';' -v o=$o '{ printf "%.3f", $(9 + o) / 1000 }')
		bytes=$(echo "$out" | awk -F';' -v o=$o '{ printf "%.0f", $(6 + o) * 1024 }')
		cpu=$(echo "$out" | awk -F';' -v o=$o '{ printf "%.3f", ($88 + $89) / 100 * $(9 + o) / 1000 }')
	fi
	c1=$(busy_jiffies)
	[ $kind = zero ] || [ $kind = mkfs ] && cpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", (b - a) / 100 }')
	if [ "$traced" = 1 ]; then
		trace_off "$c" $(($(pins) - p0))
		return 0
	fi
	echo 0 >$T/tracing_on
	: >$T/trace
	echo "BENCH case=$c kind=$kind dev=$dev msk=${msk:-na} bytes=$bytes ideal_rq_gib=$ideal secs=$secs wall=$(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.2f", (b - a) / 100 }') cpu=$cpu"
}

# Marker timestamps from one clock for all CPUs: the default "local"
# clock is per CPU, and the shell may move between the two markers.
echo mono >$T/trace_clock
echo "BENCHINFO kernel=$(uname -r) build=$(uname -v | tr ' ' '_') zero_mib=$zero_mib fio_mib=$fio_mib thp=$(tr ' ' '_' </sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
for d in /sys/block/nvme*n*; do
	cat "$d/queue/max_sectors_kb" >"/tmp/bench-default-kb-$(basename "$d")"
	echo "BENCHDEV $(basename "$d") serial=$(tr -d ' ' <"$d/device/serial") lbs=$(cat "$d/queue/logical_block_size") max_hw_kb=$(cat "$d/queue/max_hw_sectors_kb") max_kb=$(cat "$d/queue/max_sectors_kb") max_segs=$(cat "$d/queue/max_segments") wz=$(cat "$d/queue/write_zeroes_max_bytes")"
done
for c in $cases; do
	t0=$(uptime_cs)
	if run_case "$c" 0 && run_case "$c" 1; then
		echo "bench: $c done in $(( ($(uptime_cs) - t0) / 100 ))s" >&2
	else
		echo "BENCHFAIL case=$c"
		status=1
	fi
done
exit $status
