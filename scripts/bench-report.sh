#!/bin/bash
# Usage: scripts/bench-report.sh OUTDIR [LABEL [DOCDIR PREFIX]]
# Aggregates the "NB ..." lines of guest/bench/nullb_bench that
# scripts/bench-run.sh kept (OUTDIR/raw/KERNEL-rN.txt) into
# OUTDIR/results.tsv (per device setting, case and kernel: runs, median,
# min and max seconds, bios, requests, pages pinned, the model's seconds),
# OUTDIR/table.md (one table per setting) and gnuplot PNGs of time
# patched / baseline: one per setting of the cases but the zeroout
# (OUTDIR/set-LBS-LAT-QD-MBPS.png), one of the zeroout at every setting
# (OUTDIR/set-zero.png), titled with LABEL (what was compared; default
# OUTDIR's name), the run's date and the setting. With DOCDIR, the plots
# replace DOCDIR/PREFIX-*.png (make bench-plots: docs/bench/).
# Prints the table.
#
# On these devices a request costs LAT microseconds and at most QD are in
# flight; a MiB costs 1/MBPS seconds when MBPS is set (null_blk's
# mbps is MiB/s, admitted in whole requests per 20 ms tick, so large
# requests see less of it). The model:
# requests x LAT / min(QD, requests per I/O) + bytes / MBPS, the time the
# device alone needs. ratio: patched / baseline of the medians; "apart"
# when their min-max ranges do not overlap, else "overlap" (a difference
# within the noise seen). Counts must be the same in every round of a
# kernel: a case whose counts vary is flagged "varies". A disk:NAME:SEGS
# setting (a QEMU disk, not null_blk) has no set cost: no model, its
# limits from nullb_bench's "NBINFO set=..." line in its heading.
set -euo pipefail

out=$1
shopt -s nullglob
raw=("$out"/raw/*.txt)
[ ${#raw[@]} -gt 0 ] || { echo "bench-report: no results in $out/raw" >&2; exit 1; }
echo "bench-report: ${#raw[@]} boots from $out/raw"
# The run's last boot: its time is the run's.
last=$(stat -c '%Y %n' "${raw[@]}" | sort -n | tail -n 1 | cut -d' ' -f2-)
rm -f "$out"/set-*.png "$out"/set-*.dat

tsv=$out/results.tsv
awk '
function kv(line, key,   m) { return match(line, "(^| )" key "=[^ ]*") ? substr(line, RSTART + length(key) + 1 + (RSTART > 1), RLENGTH - length(key) - 1 - (RSTART > 1)) : "" }
function isort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
FNR == 1 { k = FILENAME; sub(/.*\//, "", k); sub(/-r[0-9]+\.txt$/, "", k) }
/^NB / {
	s = kv($0, "set"); c = kv($0, "case"); id = s SUBSEP c SUBSEP k
	if (!((s, c) in seen)) { seen[s, c] = 1; order[++n] = s SUBSEP c }
	cnt = kv($0, "bios") " " kv($0, "rqs") " " kv($0, "pins")
	if (id in counts && counts[id] != cnt) varies[id] = 1
	counts[id] = cnt; bytes[s, c] = kv($0, "bytes"); ios[s, c] = kv($0, "ios"); kb[s, c] = kv($0, "kb")
	m = split(kv($0, "secs"), t, ",")
	for (i = 1; i <= m; i++) secs[id, ++ns[id]] = t[i]
}
END {
	print "setting\tcase\tkb\tkernel\truns\tmedian\tmin\tmax\tbios\trqs\tpins\tmodel\tflag"
	for (o = 1; o <= n; o++) {
		split(order[o], sc, SUBSEP); s = sc[1]; c = sc[2]
		split(s, d, ":")	# lbs lat qd mbps
		for (kk = 1; kk <= 2; kk++) {
			k = kk == 1 ? "baseline" : "patched"; id = s SUBSEP c SUBSEP k
			if (!(id in counts)) continue
			delete a; for (i = 1; i <= ns[id]; i++) a[i] = secs[id, i]
			isort(a, ns[id]); r = ns[id]
			med = r % 2 ? a[(r + 1) / 2] : (a[r / 2] + a[r / 2 + 1]) / 2
			split(counts[id], x, " ")
			if (d[1] == "disk") d[2] = d[3] = d[4] = 0
			per = x[2] / (ios[s, c] > 0 ? ios[s, c] : 1); par = d[3] < per ? d[3] : per; if (par < 1) par = 1
			model = x[2] * d[2] / 1e6 / par + (d[4] > 0 ? bytes[s, c] / (d[4] * 1048576) : 0)
			printf "%s\t%s\t%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%d\t%d\t%d\t%.4f\t%s\n", s, c, kb[s, c], k, r, med, a[1], a[r], x[1], x[2], x[3], model, (id in varies) ? "varies" : "-"
		}
	}
}' "${raw[@]}" >"$tsv"

table=$out/table.md
{
	echo "make bench, $(date -u -r "$last" '+%Y-%m-%d %H:%M UTC'), QEMU TCG on $(nproc) host cores; $(grep -h '^NBINFO' "${raw[@]}" | grep -v '^NBINFO set=' | sort -u | sed 's/^NBINFO //' | paste -sd';' | sed 's/;/; /g')"
	[ ! -f "$out/kernels.txt" ] || echo "built from: $(paste -sd';' "$out/kernels.txt" | sed 's/;/; /g')"
	echo "ms: median [min-max] of every timed run of every round; model: the device's time alone"
	echo "(requests x latency / min(QD, requests per I/O) + bytes / bandwidth)."
	# The disks' limits as each kernel saw them: "max_segments=168 ...".
	{ grep -h '^NBINFO set=' "${raw[@]}" || true; } | sed 's/^NBINFO set=//; s/ dev=[^ ]*//' | sort -u |
	awk -F'\t' '
	function r(v) { return sprintf("%.2f", v * 1000) }
	FILENAME == "-" { i = index($0, " "); s = substr($0, 1, i - 1); info[s] = (s in info && info[s] != substr($0, i + 1) ? info[s] " or " : "") substr($0, i + 1); next }
	FNR > 1 && $4 == "baseline" { b[$1, $2] = $0 }
	FNR > 1 && $4 == "patched" { p[$1, $2] = $0 }
	FNR > 1 && !(($1, $2) in seen) { seen[$1, $2] = 1; if (!($1 in sset)) { sset[$1] = 1; so[++ns] = $1 } co[$1, ++nc[$1]] = $2 }
	END {
		for (i = 1; i <= ns; i++) {
			s = so[i]; split(s, d, ":")
			if (d[1] == "disk")
				printf "\n### QEMU disk %s (config/bench.topology, null-co): %s, no set cost, no model\n\n", d[2], (s in info ? info[s] : "limits not recorded")
			else
				printf "\n### %s-byte blocks, %s us per command, queue depth %s, %s\n\n", d[1], d[2], d[3], (d[4] > 0 ? d[4] " MiB/s" : "no bandwidth limit")
			print "| case | max_sectors_kb | requests b / p | bios b / p | pages pinned b / p | ms baseline | ms patched | ratio | ranges | model ms b / p |"
			print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
			for (j = 1; j <= nc[s]; j++) {
				c = co[s, j]; split(b[s, c], x, "\t"); split(p[s, c], y, "\t")
				if (b[s, c] == "" || p[s, c] == "") { printf "| %s | missing a kernel |\n", c; continue }
				ov = (x[7] <= y[8] && y[7] <= x[8]) ? "overlap" : "apart"
				if (x[13] != "-" || y[13] != "-") ov = ov ", counts vary"
				printf "| %s | %s | %d / %d | %d / %d | %d / %d | %s [%s-%s] | %s [%s-%s] | %.3f | %s | %s / %s |\n", c, x[3], x[10], y[10], x[9], y[9], x[11], y[11], r(x[6]), r(x[7]), r(x[8]), r(y[6]), r(y[7]), r(y[8]), (x[6] > 0 ? y[6] / x[6] : 0), ov, (d[1] == "disk" ? "-" : r(x[12])), (d[1] == "disk" ? "-" : r(y[12]))
			}
		}
	}' - "$tsv"
} >"$table"

# The plots: one per setting of the cases but the zeroout, and one of the
# zeroout at every setting (its ratio, 0.1-0.3, would flatten the others'
# 0.9-1.05); each point the ratio of the medians, patched / baseline, its
# bar the ratios of the ranges' ends (patched min / baseline max to
# patched max / baseline min), on an axis around them and 1. Titled with
# LABEL, the run's date (its last boot's) and the setting.
run_date=$(date -u -r "$last" +%Y-%m-%d)
ratios() { # setting, case filter (awk regex on the case), "not" to invert
	awk -F'\t' -v s="$1" -v re="$2" -v inv="${3:-}" '
		NR > 1 && (s == "" || $1 == s) && (($2 ~ re) != (inv == "not")) {
			id = (s == "" ? $1 : $2); v[id, $4] = $6 " " $7 " " $8; if (!(id in seen)) { seen[id] = 1; o[++n] = id } }
		END { for (i = 1; i <= n; i++) { split(v[o[i], "baseline"], b, " "); split(v[o[i], "patched"], p, " ")
			if (b[1] > 0 && b[2] > 0 && b[3] > 0) printf "%s %.4f %.4f %.4f\n", o[i], p[1] / b[1], p[2] / b[3], p[3] / b[2] } }' "$tsv"
}
setting_name() {
	local lbs lat qd mbps
	IFS=: read -r lbs lat qd mbps <<<"$1"
	if [ "$lbs" = disk ]; then
		echo "QEMU disk $lat (max_segments $qd)"
	else
		echo "$lbs-byte blocks, $lat us per command, queue depth $qd$( [ "$mbps" = 0 ] || echo ", $mbps MiB/s")"
	fi
}
plot() { # file, title, dat
	gnuplot <<GP
set terminal pngcairo noenhanced size 1200,520 font ",11"
set output "$1"
set title "$2"
set grid ytics
set offsets 0.5, 0.5, 0, 0
set yrange [*<0.99:1.01<*]
set ylabel "time patched / baseline (below 1: faster)"
set xtics rotate by -20
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb "#4477aa" lw 2
set key top left opaque
plot "$3" using 0:2:3:4:xtic(1) with yerrorbars title "patched / baseline of the medians; bar: of the fastest and slowest runs, the extreme ratios" lc rgb "#cc3311" pt 7 ps 1.2
GP
}
label=${2:-${out##*/}}
while read -r s; do
	f=$out/set-${s//:/-}
	ratios "$s" '^zero$' not >"$f.dat"
	[ -s "$f.dat" ] && plot "$f.png" "$label, $run_date\\n$(setting_name "$s")" "$f.dat"
done < <(awk -F'\t' 'NR > 1 && !seen[$1]++ { print $1 }' "$tsv")
# (Short names on the x axis: LBS B/LAT us/qd QD, or the disk's name.)
ratios "" '^zero$' | while read -r s r lo hi; do
	IFS=: read -r lbs lat qd mbps <<<"$s"
	if [ "$lbs" = disk ]; then n=$lat; else n="${lbs}B/${lat}us/qd$qd$( [ "$mbps" = 0 ] || echo "/${mbps}MiBps")"; fi
	echo "$n $r $lo $hi"
done >"$out/set-zero.dat"
[ -s "$out/set-zero.dat" ] && plot "$out/set-zero.png" "$label, $run_date\\nBLKZEROOUT without Write Zeroes, every setting" "$out/set-zero.dat"

if [ $# -ge 4 ]; then
	rm -f "$3/$4"-*.png
	for f in "$out"/set-*.png; do cp "$f" "$3/$4-${f##*/set-}"; done
	echo "bench-report: plots copied to $3/$4-*.png"
fi
cat "$table"
echo "bench-report: $table, $tsv, $(find "$out" -maxdepth 1 -name 'set-*.png' | wc -l) plots"
