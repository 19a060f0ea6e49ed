#!/bin/bash
# Usage: scripts/send-series.sh BUILD_DIR BASE PATCHDIR [GIT_SEND_EMAIL_ARG...]
# Mails the series with git send-email. Writes the outgoing mails to
# BUILD_DIR/outgoing: the cover letter (PATCHDIR/0000-cover-letter.patch,
# or the file $COVER) and the patches of PATCHDIR/series, their changelogs
# below "---" as they are, with subjects "[PATCH vN m/n]": N is $V, else
# the vN of the cover letter's subject, else 3 (this is the series' third
# posting: v1 and v2 were the earlier authors' versions). The cover letter must carry
# "base-commit: BASE"; it is added if missing.
# Every mail goes To: the maintainers and reviewers and Cc: the lists that
# scripts/get_maintainer.pl (run in BUILD_DIR/linux-patched on the
# patches, with $GET_MAINTAINER_ARGS) names for the whole series; git
# send-email adds, per mail, the people in its From: and trailers
# (Signed-off-by, Suggested-by, Cc...) but not the sender. The patches
# are threaded as replies to the cover letter.
# Default: a dry run that prints who gets what. SEND=1 sends, through
# SMTP_SERVER (and SMTP_PORT) if set, else through the sendemail.* SMTP
# settings of git config; the sender is $FROM, sendemail.from or the git
# identity. Extra arguments go to git send-email (--in-reply-to=...).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") base=$2 dir=$(realpath "$3"); shift 3
patched=$(wb_tree "$build" patched) out=$build/outgoing
cover=${COVER:-$dir/0000-cover-letter.patch}
gm_args=${GET_MAINTAINER_ARGS:---norolestats --nogit --nogit-fallback --nokeywords}
wb_series "$dir"
n=${#wb_patches[@]}

[ -f "$cover" ] || { echo "send-series: no cover letter $cover (write it, or set COVER=FILE)" >&2; exit 1; }
if grep -qF -e '*** SUBJECT HERE ***' -e '*** BLURB HERE ***' "$cover"; then
	echo "send-series: $cover still has format-patch's *** SUBJECT/BLURB HERE *** placeholders" >&2
	exit 1
fi
v=${V:-$(sed -nE '/^Subject:/{s/^Subject: *\[[^]]*\bv([0-9]+)\b[^]]*\].*/\1/p;q}' "$cover")}
v=${v:-3}
[[ $v =~ ^[0-9]+$ ]] || { echo "send-series: V=$v is not a version number" >&2; exit 1; }
cover_base=$(sed -nE 's/^base-commit: *([0-9a-f]+).*/\1/p' "$cover")
if [ -n "$cover_base" ] && [ "$(git -C "$patched" rev-parse "$cover_base^{commit}" 2>/dev/null)" != "$(git -C "$patched" rev-parse "$base")" ]; then
	echo "send-series: $cover says base-commit: $cover_base, but the series is on $base" >&2
	exit 1
fi

# One outgoing mail: the subject prefix set, message ids dropped (git
# send-email threads the mails it sends), base-commit added to the cover.
outgoing() { # source, index, destination
	awk -v prefix="[PATCH v$v $2/$n]" -v base="$([ "$2" = 0 ] && [ -z "$cover_base" ] && git -C "$patched" rev-parse "$base")" '
		!body && /^$/ { body = 1 }
		!body && /^[^ \t]/ { drop = (tolower($0) ~ /^(message-id|in-reply-to|references):/) }
		!body && drop { next }
		!body && /^Subject:/ { sub(/^Subject: *(\[[^]]*\] *)?/, "Subject: " prefix " ") }
		body && base != "" && /^-- $/ { print "base-commit: " base "\n"; base = "" }
		{ print }
		END { if (base != "") print "\nbase-commit: " base }' "$1" >"$3"
}
rm -rf "$out" && mkdir -p "$out"
outgoing "$cover" 0 "$out/0000-cover-letter.patch"
files=("$out/0000-cover-letter.patch")
m=0
for p in "${wb_patches[@]}"; do
	m=$((m + 1))
	grep -q '^---$' "$dir/$p" || { echo "send-series: $p has no '---' line" >&2; exit 1; }
	outgoing "$dir/$p" "$m" "$out/$p"
	files+=("$out/$p")
done

# Recipients, for the whole series.
# shellcheck disable=SC2086 # gm_args is a list of options
mapfile -t to < <(cd "$patched" && scripts/get_maintainer.pl $gm_args --nol "${files[@]:1}")
# shellcheck disable=SC2086
mapfile -t cc < <(cd "$patched" && scripts/get_maintainer.pl $gm_args --nom --nor "${files[@]:1}")
[ ${#to[@]} -gt 0 ] || { echo "send-series: get_maintainer.pl names no maintainer for the series" >&2; exit 1; }
from=${FROM:-$(git config sendemail.from || git var GIT_COMMITTER_IDENT | sed 's/>.*/>/')}

args=(--no-format-patch --confirm=never --thread --no-chain-reply-to
      --suppress-cc=self --8bit-encoding=UTF-8 --from="$from")
for a in "${to[@]}"; do args+=(--to="$a"); done
for a in "${cc[@]}"; do args+=(--cc="$a"); done
if [ -n "${SMTP_SERVER:-}" ]; then
	args+=(--smtp-server="$SMTP_SERVER")
	[ -z "${SMTP_PORT:-}" ] || args+=(--smtp-server-port="$SMTP_PORT")
elif wb_bool SEND && [ -z "$(git config sendemail.smtpServer || true)" ]; then
	echo "send-series: SEND=1 but no SMTP server: set SMTP_SERVER or git config sendemail.smtpServer" >&2
	exit 1
fi
wb_bool SEND || args+=(--dry-run)

echo "send-series: v$v, cover letter and $n patches from $from$(wb_bool SEND || echo ' (dry run: SEND=1 sends)')"
echo "send-series: To: $(printf '%s, ' "${to[@]}" | sed 's/, $//')"
echo "send-series: Cc: $(printf '%s, ' "${cc[@]}" | sed 's/, $//')"
start=$(date +%s)
if ! log=$(git send-email "${args[@]}" "$@" "${files[@]}" 2>&1); then
	printf '%s\n' "$log" | tail -n 20 | sed 's/^/  | /' >&2
	echo "send-series: git send-email failed" >&2
	exit 1
fi
# Who gets what: each mail's subject and envelope recipients.
printf '%s\n' "$log" | awk '
	/^RCPT TO:</ { gsub(/^RCPT TO:<|>$/, ""); rcpt = rcpt (rcpt == "" ? "" : ", ") $0 }
	/^Subject: / { subject = substr($0, 10) }
	/^Result: / { printf "send-series: %s\n    -> %s\n", subject, rcpt; subject = rcpt = "" }'
echo "send-series: $(if wb_bool SEND; then echo sent; else echo dry run of; fi) $((n + 1)) mails in $(( $(date +%s) - start ))s; they are in $out"
