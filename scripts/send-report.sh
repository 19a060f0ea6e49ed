#!/bin/bash
# Usage: [FROM="Name <address>"] scripts/send-report.sh BUILD_DIR REPORTDIR [GIT_SEND_EMAIL_ARG...]
# Mails a report that is not a patch (docs/io-wq: a bug seen while
# testing the series) with git send-email, as the person who runs it
# (wb_sender: $FROM, else git's user.name and user.email). REPORTDIR holds
# report.txt, the mail (a Subject: line, a blank line, the body), the
# programs (*.c) that go after its text, and files, the kernel paths
# the report is about: the mail goes To: their
# maintainers and reviewers and Cc: their lists, as get_maintainer.pl -f
# names them in BUILD_DIR's unpatched tree, with the tree's version
# and commit added at the end of the body. Writes the outgoing mail to
# BUILD_DIR/outgoing-report. Default: a dry run that prints who gets it;
# SEND=1 sends, through SMTP_SERVER (and SMTP_PORT) if set, else the
# sendemail.* SMTP settings of git config.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") dir=$(realpath "$2"); shift 2
tree=$(wb_tree "$build" base) out=$build/outgoing-report
for f in report.txt files; do
	[ -f "$dir/$f" ] || { echo "send-report: $dir/$f missing" >&2; exit 1; }
done
grep -q '^Subject: ' "$dir/report.txt" || { echo "send-report: $dir/report.txt has no Subject: line" >&2; exit 1; }
wb_sender "the report" "the mail carries the sender's From:"

mapfile -t paths < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/files")
[ ${#paths[@]} -gt 0 ] || { echo "send-report: $dir/files names no kernel path" >&2; exit 1; }
files=()
for p in "${paths[@]}"; do
	[ -e "$tree/$p" ] || { echo "send-report: $p (from $dir/files) is not in $tree" >&2; exit 1; }
	files+=(-f "$p")
done
gm() { (cd "$tree" && scripts/get_maintainer.pl --norolestats --nogit --nogit-fallback "$@" "${files[@]}"); }
to=$(gm --nol | paste -sd, - | sed 's/,/, /g')
cc=$(gm --nom --nor | paste -sd, - | sed 's/,/, /g')
[ -n "$to" ] || { echo "send-report: get_maintainer.pl names no maintainer for ${paths[*]}" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
mail=$out/report.eml
{
	echo "From: $from"
	echo "To: $to"
	[ -z "$cc" ] || echo "Cc: $cc"
	cat "$dir/report.txt"
	echo
	echo "Source tree: Linux $(make -s -C "$tree" kernelversion), $(git -C "$tree" log -1 --format='%h ("%s")')"
	for c in "$dir"/*.c; do
		[ -f "$c" ] || continue
		printf '\n--- %s ---\n' "$(basename "$c")"
		cat "$c"
	done
} >"$mail"

args=(--no-format-patch --confirm=never --suppress-cc=self --8bit-encoding=UTF-8 --from="$from")
wb_smtp_args
if ! log=$(git send-email "${args[@]}" "$@" "$mail" </dev/null 2>&1); then
	printf '%s\n' "$log" | tail -n 20 | sed 's/^/  | /' >&2
	echo "send-report: git send-email failed" >&2
	exit 1
fi
printf '%s\n' "$log" | awk '/^(Subject|From|To|Cc): / { if (h != "") print h; h = "    " $0; next }
	h != "" && /^[ \t]/ { sub(/^[ \t]+/, " "); h = h $0; next }
	{ if (h != "") print h; h = "" } END { if (h != "") print h }'
echo "send-report: $(if wb_bool SEND; then echo sent; else echo dry run of; fi) $mail"
