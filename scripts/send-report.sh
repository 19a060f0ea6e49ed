#!/bin/bash
# Usage: [FROM="Name <address>"] scripts/send-report.sh BUILD_DIR REPORTDIR [GIT_SEND_EMAIL_ARG...]
# Mails a report or a reply that is not a patch (docs/io-wq: a bug seen
# while testing the series; docs/align-down-reply: a reply to a posted
# patch) with git send-email, as the person who runs it (wb_sender: $FROM,
# else git's user.name and user.email). REPORTDIR holds report.txt, the
# mail (a Subject: line, In-Reply-To: and References: for a reply, a
# blank line, the body; the project's placeholder in it, as in a
# Tested-by:, becomes the sender), the programs (*.c) that go after its
# text, files, the kernel paths the mail is about, and optionally
# recipients ("To: ..." and "Cc: ..." lines: a thread's people). The mail
# goes To: the paths' maintainers and reviewers and Cc: their lists, as
# get_maintainer.pl -f names them in BUILD_DIR's unpatched tree, and to
# the recipients file's; a report (not a reply) gets the tree's version
# and commit at the end of the body. Writes the outgoing mail to
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
extra() { [ ! -f "$dir/recipients" ] || sed -n "s/^$1: *//p" "$dir/recipients"; }
to=$( (extra To; gm --nol) | wb_addresses)
cc=$( (extra Cc; gm --nom --nor) | wb_addresses)
[ -n "$to" ] || { echo "send-report: get_maintainer.pl names no maintainer for ${paths[*]}" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
mail=$out/report.eml
{
	echo "From: $from"
	echo "To: $to"
	[ -z "$cc" ] || echo "Cc: $cc"
	WB_FROM=$from awk -v placeholder="$WB_PLACEHOLDER" '{
		while ((i = index($0, placeholder)))
			$0 = substr($0, 1, i - 1) ENVIRON["WB_FROM"] substr($0, i + length(placeholder))
		print }' "$dir/report.txt"
	if ! grep -qi '^In-Reply-To: ' "$dir/report.txt"; then
		echo
		echo "Source tree: Linux $(make -s -C "$tree" kernelversion), $(git -C "$tree" log -1 --format='%h ("%s")')"
	fi
	for c in "$dir"/*.c; do
		[ -f "$c" ] || continue
		printf '\n--- %s ---\n' "$(basename "$c")"
		cat "$c"
	done
} >"$mail"

! grep -qiF "${WB_PLACEHOLDER##* }" "$mail" ||
	{ echo "send-report: $mail still names the placeholder $WB_PLACEHOLDER" >&2; exit 1; }

args=(--no-format-patch --confirm=never --suppress-cc=self --8bit-encoding=UTF-8 --from="$from")
wb_smtp_args
if ! log=$(git send-email "${args[@]}" "$@" "$mail" </dev/null 2>&1); then
	printf '%s\n' "$log" | tail -n 20 | sed 's/^/  | /' >&2
	echo "send-report: git send-email failed" >&2
	exit 1
fi
printf '%s\n' "$log" | awk '/^(Subject|From|To|Cc|In-Reply-To): / { if (h != "") print h; h = "    " $0; next }
	h != "" && /^[ \t]/ { sub(/^[ \t]+/, " "); h = h $0; next }
	{ if (h != "") print h; h = "" } END { if (h != "") print h }'
echo "send-report: $(if wb_bool SEND; then echo sent; else echo dry run of; fi) $mail"
