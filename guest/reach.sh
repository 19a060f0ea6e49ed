# shellcheck shell=bash
# Sourced by guest/fstests/run.sh and guest/blktests/run.sh (copied into
# each as reach.sh): how often each path the series changes ran in a
# pass, counted with what the kernel has (kprobe events, /proc/vmstat):
#   trim     bios that bio_iov_iter_get_pages_split() ended on a split
#            point (its calls of bio_iov_iter_trim());
#   tried    bios it weighed for that (its calls of bio_split_rw_last());
#   nowalk   bios that blk-mq split without walking them
#            (bio_split_pages_known() returning true);
#   zerobio  zeroing bios of __blkdev_issue_zero_pages()
#            (its calls of bio_chain_and_submit());
#   zerohuge bvecs of the huge zero folio in them (its bio_add_folio()
#            calls of more than a page);
#   pinned   pages pinned (nr_foll_pin_acquired) during the pass;
#   pinbalance  nr_foll_pin_acquired - nr_foll_pin_released after the
#            pass: 0 when every page pinned since boot was unpinned.
# A kernel without the function (the unpatched one, a kernel without
# kprobes) has "-" for that counter, never a 0 it did not count.
# Each counter is a trace instance of its own with one event enabled for
# the whole boot, filtered on the caller where it needs one; its small
# ring keeps few events, but entries plus overruns count every one
# written.

reach_tr=/sys/kernel/tracing
reach_names=(trim tried nowalk zerobio zerohuge)

# reach_range FUNC: "START END", FUNC's addresses, to the next higher
# symbol's, from /proc/kallsyms read by awk as it is. Not sort(1):
# coreutils' sort of it took 172 s in a KASAN guest under TCG (busybox's
# 1 s, a read 0 s), and a sort per caller held the debug guests' set-up
# for over 10 minutes. Addresses are 16 hex digits: they compare as
# strings.
reach_range() {
	awk -v f="$1" '{ a[NR] = $1 } $3 == f && s == "" { s = $1 }
		END { if (s == "") exit
			for (i = 1; i <= NR; i++) if (a[i] > s && (e == "" || a[i] < e)) e = a[i]
			if (e != "") print "0x" s, "0x" e }' /proc/kallsyms
}

# reach_define NAME p|r 'FUNC ARGS' [CALLER [MORE_FILTER]]: the kprobe
# (p) or kretprobe (r) event wb/NAME on FUNC, fetching ARGS, and the
# filter of its counter: called from CALLER, and MORE_FILTER. Nothing
# where FUNC or CALLER is not a function of this kernel.
declare -A reach_filter reach_kept
reach_define() {
	local name=$1 caller=${4:-} more=${5:-} range filter=
	if [ "$(cat "$reach_tr/instances/wb_reach_$name/events/wb/$name/enable" 2>/dev/null)" = 1 ]; then
		reach_kept[$name]=1 # set up by an earlier run in this boot
		reach_filter[$name]=
		return 0
	fi
	echo "$2:wb/$name $3" >>"$reach_tr/kprobe_events" 2>/dev/null || return 0
	if [ -n "$caller" ]; then
		range=$(reach_range "$caller")
		if [ -z "$range" ]; then
			echo "-:wb/$name" >>"$reach_tr/kprobe_events"
			return 0
		fi
		filter="caller >= ${range% *} && caller < ${range#* }"
	fi
	[ -z "$more" ] || filter="${filter:+$filter && }$more"
	reach_filter[$name]=$filter
}

# reach_setup: the events and their counters, once per boot, enabled
# until it ends: each enable of a kprobe patches the kernel's text, and a
# 7.1.5 guest under TCG oopsed once in a probed function (an instruction
# fetch from a data page) after its probe had been disabled and enabled
# again between two passes. A later run in the same boot (a loop of
# runs) counts with the counters the first one enabled.
reach_setup() {
	local name t
	[ -d "$reach_tr/instances" ] || mount -t tracefs nodev "$reach_tr" 2>/dev/null || true
	[ -w "$reach_tr/kprobe_events" ] || return 0
	# shellcheck disable=SC2016 # the kernel's fetch arguments
	{
		reach_define trim p 'bio_iov_iter_trim caller=$stack0:x64' bio_iov_iter_get_pages_split
		reach_define tried p 'bio_split_rw_last caller=$stack0:x64' bio_iov_iter_get_pages_split
		reach_define nowalk r 'bio_split_pages_known ret=$retval:u8' '' 'ret != 0'
		reach_define zerobio p 'bio_chain_and_submit caller=$stack0:x64' __blkdev_issue_zero_pages
		reach_define zerohuge p 'bio_add_folio caller=$stack0:x64 len=$arg3:u64' \
			__blkdev_issue_zero_pages "len > $(getconf PAGESIZE)"
	}
	for name in "${!reach_filter[@]}"; do
		[ -z "${reach_kept[$name]:-}" ] || continue
		t=$reach_tr/instances/wb_reach_$name
		rmdir "$t" 2>/dev/null || true
		if ! mkdir "$t" || ! echo 8 >"$t/buffer_size_kb" ||
			{ [ -n "${reach_filter[$name]}" ] &&
				! echo "${reach_filter[$name]}" >"$t/events/wb/$name/filter"; } ||
			! echo 1 >"$t/events/wb/$name/enable"; then
			echo "WB-REACH error the counter $name cannot be set up: not counted"
			unset "reach_filter[$name]"
		fi
	done
}

reach_vmstat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# trace_written DIR: events written to the trace instance DIR since its
# events were enabled: entries + overruns of its ring, which nothing
# reads (also guest/fstests/run.sh's split counts).
trace_written() {
	awk '$1 == "entries:" || $1 == "overrun:" { n += $2 } END { print n + 0 }' \
		"$1"/per_cpu/cpu*/stats
}

# reach_count NAME: events NAME's counter has counted since the boot.
reach_count() {
	trace_written "$reach_tr/instances/wb_reach_$1"
}

# reach_start: the counts from now on (reach_report gives the change).
declare -A reach_at
reach_start() {
	local name
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null || true
	reach_pins=$(reach_vmstat nr_foll_pin_acquired)
	for name in "${!reach_filter[@]}"; do
		reach_at[$name]=$(reach_count "$name")
	done
}

# reach_report LINE: LINE (the caller's marker and WHERE) followed by
# "name N" for each counter since reach_start.
reach_report() {
	local line="$1" name acquired
	for name in "${reach_names[@]}"; do
		if [ -n "${reach_at[$name]:-}" ]; then
			line+=" $name $(( $(reach_count "$name") - reach_at[$name] ))"
		else
			line+=" $name -"
		fi
	done
	# vmstat's counters lag by what each CPU has not folded in yet.
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null || true
	acquired=$(reach_vmstat nr_foll_pin_acquired)
	line+=" pinned $(( acquired - reach_pins ))"
	line+=" pinbalance $(( acquired - $(reach_vmstat nr_foll_pin_released) ))"
	echo "$line"
}
