#!/bin/bash
# Usage: scripts/bench-report.sh OUTDIR
# Aggregates the result lines of scripts/bench-run.sh (OUTDIR/raw/KERNEL-rN.txt)
# into OUTDIR/results.json (every run, and per case and kernel the median,
# min and max), OUTDIR/table.md and gnuplot PNGs: OUTDIR/throughput.png
# (median MiB/s per case, min-max bars) and OUTDIR/hist-CASE.png (requests
# per GiB by request size, baseline against patched). Prints the table.
# Throughput is bytes / secs of the untraced run; bios, requests and the
# histogram come from the traced run of the same case in the same boot,
# per GiB. "overlap" flags a case whose baseline and patched min-max
# ranges overlap: the difference is within the noise seen.
set -euo pipefail

out=$1
shopt -s nullglob
raw=("$out"/raw/*.txt)
[ ${#raw[@]} -gt 0 ] || { echo "bench-report: no results in $out/raw" >&2; exit 1; }
echo "bench-report: ${#raw[@]} boots from $out/raw"
start=$(date +%s)
rm -f "$out"/hist-*.png "$out"/hist-*.dat

# One line per case and kernel, tab-separated, for the table and the plots:
# case kernel n med min max cpu_med bios_min bios_max rqs_min rqs_max ideal hist
# pins_min pins_max (hist: SIZE_SECTORS:REQUESTS_PER_GIB,...; pins: pages
# pinned per GiB). results.json alongside.
summary=$out/summary.tsv
awk -v json="$out/results.json" '
function isort(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
function median(a, n) { isort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function kv(line, key,   m) { return match(line, "(^| )" key "=[^ ]*") ? substr(line, RSTART + length(key) + 1 + (RSTART > 1), RLENGTH - length(key) - 1 - (RSTART > 1)) : "" }
FNR == 1 {
	f = FILENAME; sub(/.*\//, "", f); sub(/\.txt$/, "", f)
	kernel = f; sub(/-r[0-9]+$/, "", kernel); round = f; sub(/.*-r/, "", round)
}
/^BENCHINFO / { info[kernel] = kv($0, "kernel"); zmib = kv($0, "zero_mib"); fmib = kv($0, "fio_mib") }
/^BENCH / {
	c = kv($0, "case"); id = kernel SUBSEP c
	if (!(c in seen)) { seen[c] = 1; order[++ncases] = c }
	n = ++cnt[id]
	bytes = kv($0, "bytes"); secs = kv($0, "secs")
	mibs[id, n] = secs > 0 ? bytes / 1048576 / secs : 0
	cpug[id, n] = bytes > 0 ? kv($0, "cpu") / (bytes / 1073741824) : 0
	runs[++nruns] = sprintf("{\"kernel\": \"%s\", \"round\": %d, \"case\": \"%s\", \"kind\": \"%s\", \"dev\": \"%s\", \"max_sectors_kb\": \"%s\", \"bytes\": %s, \"secs\": %s, \"wall\": %s, \"cpu\": %s, \"mib_s\": %.1f, \"ideal_requests_per_gib\": \"%s\"", kernel, round, c, kv($0, "kind"), kv($0, "dev"), kv($0, "msk"), bytes, secs, kv($0, "wall"), kv($0, "cpu"), mibs[id, n], kv($0, "ideal_rq_gib"))
	if (kv($0, "ideal_rq_gib") != "na") ideal[c] = kv($0, "ideal_rq_gib")
	runkey[kernel, round, c] = nruns; runbytes[kernel, round, c] = bytes
}
/^TRACE / {
	c = kv($0, "case"); id = kernel SUBSEP c; r = runkey[kernel, round, c]
	if (!r) next
	per = 1073741824 / runbytes[kernel, round, c]
	t = ++tcnt[id]
	bios[id, t] = kv($0, "bios") * per; rqs[id, t] = kv($0, "rqs") * per
	pins[id, t] = kv($0, "pins") * per
	h = kv($0, "hist"); nh = split(h, hp, ","); hj = ""
	for (i = 1; i <= nh; i++) {
		split(hp[i], x, ":")
		hist[id, x[1]] += x[2] * per; sizes[c, x[1]] = 1
		hj = hj (i > 1 ? ", " : "") "\"" x[1] "\": " x[2]
	}
	runs[r] = runs[r] sprintf(", \"bios\": %s, \"requests\": %s, \"lost_events\": %s, \"pages_pinned\": %s, \"request_sectors\": {%s}", kv($0, "bios"), kv($0, "rqs"), kv($0, "lost"), kv($0, "pins") + 0, hj)
}
END {
	printf "{\n  \"zero_mib\": %s, \"fio_mib\": %s,\n  \"kernels\": {\"baseline\": \"%s\", \"patched\": \"%s\"},\n  \"runs\": [\n", zmib + 0, fmib + 0, info["baseline"], info["patched"] >json
	for (i = 1; i <= nruns; i++) printf "    %s}%s\n", runs[i], i < nruns ? "," : "" >json
	printf "  ],\n  \"summary\": [\n" >json
	first = 1
	for (ci = 1; ci <= ncases; ci++) for (k = 0; k < 2; k++) {
		c = order[ci]; kernel = k ? "patched" : "baseline"; id = kernel SUBSEP c
		n = cnt[id]; if (!n) continue
		delete a; for (i = 1; i <= n; i++) a[i] = mibs[id, i]
		med = median(a, n); mn = a[1]; mx = a[n]
		delete a; for (i = 1; i <= n; i++) a[i] = cpug[id, i]
		cmed = median(a, n)
		t = tcnt[id]; delete a; for (i = 1; i <= t; i++) a[i] = bios[id, i]; isort(a, t); bmn = a[1]; bmx = a[t]
		delete a; for (i = 1; i <= t; i++) a[i] = rqs[id, i]; isort(a, t); rmn = a[1]; rmx = a[t]
		delete a; for (i = 1; i <= t; i++) a[i] = pins[id, i]; isort(a, t); pmn = a[1]; pmx = a[t]
		hs = ""
		for (key in sizes) { split(key, kk, SUBSEP); if (kk[1] != c) continue
			hs = hs (hs == "" ? "" : ",") kk[2] ":" (t ? hist[id, kk[2]] / t : 0) }
		printf "%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\t%.1f\t%.1f\n", c, kernel, n, med, mn, mx, cmed, bmn, bmx, rmn, rmx, (c in ideal ? ideal[c] : "-"), hs, pmn, pmx
		printf "%s    {\"case\": \"%s\", \"kernel\": \"%s\", \"runs\": %d, \"mib_s_median\": %.1f, \"mib_s_min\": %.1f, \"mib_s_max\": %.1f, \"cpu_s_per_gib_median\": %.3f, \"bios_per_gib\": [%.1f, %.1f], \"requests_per_gib\": [%.1f, %.1f], \"pages_pinned_per_gib\": [%.1f, %.1f]}", first ? "" : ",\n", c, kernel, n, med, mn, mx, cmed, bmn, bmx, rmn, rmx, pmn, pmx >json
		first = 0
	}
	printf "\n  ]\n}\n" >json
}' "${raw[@]}" >"$summary"

# The Markdown table.
table=$out/table.md
{
	kb=$(grep -ho 'kernel=[^ ]*' "$out"/raw/baseline-*.txt 2>/dev/null | head -n 1 | cut -d= -f2 || true)
	kp=$(grep -ho 'kernel=[^ ]*' "$out"/raw/patched-*.txt 2>/dev/null | head -n 1 | cut -d= -f2 || true)
	echo "make bench, $(date -u '+%Y-%m-%d %H:%M UTC'), baseline ${kb:-?}, patched ${kp:-?}, QEMU TCG, $(nproc) host cores;"
	if [ -f "$out/kernels.txt" ]; then
		echo "built from: $(sed 's/^\([a-z]*\) \([0-9a-f]*\) \(.*\)/\1 \2 (\3)/' "$out/kernels.txt" | paste -sd';' | sed 's/;/; /g');"
		echo "builds: $(grep -ho 'build=[^ ]*' "$out"/raw/baseline-*.txt 2>/dev/null | head -n 1 | cut -d= -f2 | tr _ ' ') (baseline), $(grep -ho 'build=[^ ]*' "$out"/raw/patched-*.txt 2>/dev/null | head -n 1 | cut -d= -f2 | tr _ ' ') (patched);"
	fi
	echo "sizes: $(grep -ho 'zero_mib=[0-9]* fio_mib=[0-9]*' "${raw[@]}" | head -n 1). MiB/s: median [min-max] over the rounds; ratio: patched/baseline of the medians."
	echo
	echo "| case | baseline MiB/s | patched MiB/s | ratio | ranges | CPU s/GiB b / p | bios/GiB b / p | requests/GiB b / p (ideal) | pages pinned/GiB b / p |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	awk -F'\t' '
	function span(lo, hi) { return lo == hi ? sprintf("%.0f", lo) : sprintf("%.0f-%.0f", lo, hi) }
	$2 == "baseline" { b[$1] = $0; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	$2 == "patched" { p[$1] = $0; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	END {
		for (i = 1; i <= n; i++) {
			c = order[i]
			split(b[c], x, "\t"); split(p[c], y, "\t")
			bs = b[c] == "" ? "-" : sprintf("%.0f [%.0f-%.0f] (n=%d)", x[4], x[5], x[6], x[3])
			ps = p[c] == "" ? "-" : sprintf("%.0f [%.0f-%.0f] (n=%d)", y[4], y[5], y[6], y[3])
			ratio = (b[c] != "" && p[c] != "" && x[4] > 0) ? sprintf("%.2f", y[4] / x[4]) : "-"
			ov = (b[c] != "" && p[c] != "") ? ((x[5] <= y[6] && y[5] <= x[6]) ? "overlap" : "apart") : "-"
			printf "| %s | %s | %s | %s | %s | %.2f / %.2f | %s / %s | %s / %s (%s) | %s / %s |\n", c, bs, ps, ratio, ov, x[7], y[7], span(x[8], x[9]), span(y[8], y[9]), span(x[10], x[11]), span(y[10], y[11]), x[12] != "" ? x[12] : y[12], span(x[14], x[15]), span(y[14], y[15])
		}
	}' "$summary"
} >"$table"

# Throughput: two panels (zeroing, direct I/O), median with min-max bars.
plot=$out/throughput.dat
awk -F'\t' '
	$2 == "baseline" { b[$1] = $4 " " $5 " " $6; if (!($1 in s)) { s[$1] = 1; o[++n] = $1 } }
	$2 == "patched" { p[$1] = $4 " " $5 " " $6; if (!($1 in s)) { s[$1] = 1; o[++n] = $1 } }
	END { for (i = 1; i <= n; i++) if (o[i] ~ /^(zero|mkfs)-/) print o[i], (o[i] in b ? b[o[i]] : "0 0 0"), (o[i] in p ? p[o[i]] : "0 0 0")
	      print ""; print ""
	      for (i = 1; i <= n; i++) if (o[i] !~ /^(zero|mkfs)-/) print o[i], (o[i] in b ? b[o[i]] : "0 0 0"), (o[i] in p ? p[o[i]] : "0 0 0") }' "$summary" >"$plot"
# A panel only for a kind of case that ran (CASES= may leave one empty).
nzero=$(awk -F'\t' '$1 ~ /^(zero|mkfs)-/' "$summary" | wc -l)
ndio=$(awk -F'\t' '$1 !~ /^(zero|mkfs)-/' "$summary" | wc -l)
panels=$(( (nzero > 0) + (ndio > 0) ))
zero_plot='plot "'$plot'" index 0 using 2:3:4:xtic(1) title "baseline" lc rgb "#4477aa", "" index 0 using 5:6:7 title "patched" lc rgb "#ee6677"'
# gnuplot does not count an empty leading block as an index.
di=$(( nzero > 0 ? 1 : 0 ))
dio_plot='plot "'$plot'" index '$di' using 2:3:4:xtic(1) title "baseline" lc rgb "#4477aa", "" index '$di' using 5:6:7 title "patched" lc rgb "#ee6677"'
[ "$nzero" -gt 0 ] || zero_plot=''
[ "$ndio" -gt 0 ] || dio_plot=''
gnuplot <<GP
set terminal pngcairo noenhanced size 1400,$((500 * panels)) font ",11"
set output "$out/throughput.png"
set multiplot layout $panels,1 title "make bench: median throughput in the guest, bars min-max (baseline ${kb:-?} vs patched ${kp:-?})"
set style data histogram
set style histogram errorbars gap 2 lw 1.5
set style fill solid 0.6 border -1
set boxwidth 0.9
set grid ytics
set key top left
set yrange [0:*]
set ylabel "MiB/s"
set title "Zeroing: BLKZEROOUT without Write Zeroes at MDTS 5, 7, 9, with Write Zeroes (reference); mkfs.ext4 of 16 GiB (device MiB per s)"
$zero_plot
set title "Direct I/O: fio reads and writes (ordinary buffers), irr*: 64 MiB I/Os from the kselftest's irregular buffer; suffix: max_sectors_kb (def 512)"
set xtics rotate by -20
$dio_plot
unset multiplot
GP

# Request-size histograms, one PNG per case.
while IFS=$'\t' read -r c k _ _ _ _ _ _ _ _ _ _ hist _; do
	tr ',' '\n' <<<"$hist" | awk -F: -v k="$k" 'NF == 2 { print $1, k, $2 }' >>"$out/hist-$c.dat"
done <"$summary"
for dat in "$out"/hist-*.dat; do
	c=$(basename "$dat" .dat); c=${c#hist-}
	awk '{ v[$1, $2] = $3; s[$1] = 1 } END { for (x in s) print x, x / 2, v[x, "baseline"] + 0, v[x, "patched"] + 0 }' "$dat" |
		sort -n >"$dat.tmp" && mv "$dat.tmp" "$dat"
	gnuplot <<GP
set terminal pngcairo noenhanced size 1000,600 font ",11"
set output "$out/hist-$c.png"
set title "$c: requests per GiB by request size (block_rq_issue), mean over the rounds"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.6 border -1
set boxwidth 0.9
set grid ytics
set logscale y
set yrange [0.5:*]
set xlabel "request size (KiB)"
set ylabel "requests per GiB (log)"
set xtics rotate by -45
set key top left
plot "$dat" using (\$3 > 0 ? \$3 : 1/0):xtic(sprintf("%g", \$2)) title "baseline" lc rgb "#4477aa", "" using (\$4 > 0 ? \$4 : 1/0) title "patched" lc rgb "#ee6677"
GP
done

cat "$table"
echo "bench-report: $table, $out/results.json, $out/throughput.png, $(find "$out" -maxdepth 1 -name "hist-*.png" | wc -l) histograms in $(( $(date +%s) - start ))s"
