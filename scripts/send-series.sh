#!/bin/bash
# Usage: [FROM="Name <address>"] scripts/send-series.sh BUILD_DIR BASE PATCHDIR [GIT_SEND_EMAIL_ARG...]
# Mails one series with git send-email, as the person who runs it: the
# sender is $FROM, else git's user.name and user.email. Without one, or
# as the project's placeholder (WB_PLACEHOLDER, scripts/lib.sh), it
# stops, naming FROM=, before anything else.
# PATCHDIR is a series of BASE (patches/v6.12) or one mail of it
# (patches/v7.1/mail/NAME: the patches of the series that one tree takes,
# wb_mail_set in scripts/lib.sh), or a series for another project
# (patches/blktests).
# Writes the outgoing mails to BUILD_DIR/outgoing/NAME (NAME: PATCHDIR's
# own): the cover letter (PATCHDIR/0000-cover-letter.patch, or the file
# $COVER) and the patches of PATCHDIR/series, with subjects "[TAG m/n]",
# TAG the cover letter's ("PATCH", "RFC PATCH", "PATCH blktests"), its
# version, if any, replaced by $VERSION (a first posting has none). The cover
# letter must carry "base-commit: B", B the commit the first patch
# applies on (BASE, or for a later mail of a series, the commit of the
# patch before it); it is added if missing. When B has commits on top of
# a release (the series' prerequisites, BUILD_DIR/release-commit and
# scripts/apply-prereq.sh, and the earlier mails), B exists in no public
# tree: the cover letter must then name the release's public id as its
# base-commit and carry one "prerequisite-patch-id:" line per commit
# between, as git format-patch --base writes them, or for a stand-in for
# someone else's posted patch its "prerequisite-message-id:" (PATCHDIR's
# series' file posted, wb_prereq_lines); those are checked against the
# commits. Every mail is
# From: the sender (so git am makes the sender the author); in the
# patches the placeholder's Signed-off-by becomes the sender's, added if
# there was none, and so does the placeholder on an added line of the diff
# that says "Copyright" (a blktests test's "# Copyright (C) 2026 NAME":
# blktests wants a person there); the other trailers and the changelogs
# below "---" are kept as they are.
# Recipients: each patch To: the maintainers and reviewers and Cc: the
# lists that scripts/get_maintainer.pl (run in BUILD_DIR/linux-patched,
# with $GET_MAINTAINER_ARGS) names for that patch alone; the cover letter
# To: and Cc: all of them and the people the patches' trailers name. A
# series for another project names its recipients in PATCHDIR/recipients
# instead ("To: ..." and "Cc: ..." lines, from the project's
# CONTRIBUTING), the same for every mail; its cover letter carries its
# own base-commit and BASE is not read. They
# are To:/Cc: headers of the outgoing files; git send-email adds, per
# mail, the people in its trailers (Suggested-by, Cc...) but not the
# sender, and the --to=/--cc= of the extra arguments to every mail (make
# send TO=... MAIL_CC=...). The patches are threaded as replies to the cover
# letter.
# Default: a dry run that prints who gets what. SEND=1 sends, through
# SMTP_SERVER (and SMTP_PORT) if set, else through the sendemail.* SMTP
# settings of git config. Extra arguments go to git send-email
# (--to=, --cc=, --in-reply-to=...).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

build=$(realpath "$1") base=$2 dir=$(realpath "$3"); shift 3
patched=$(wb_tree "$build" patched) out=$build/outgoing/${dir##*/}
cover=${COVER:-$dir/0000-cover-letter.patch}
# --nofixes: the authors of the commits a patch's Fixes: names are Cc:
# trailers of the patch itself; get_maintainer.pl would look them up in
# git history, which a tree made from a release tarball does not have.
gm_args=${GET_MAINTAINER_ARGS:---norolestats --nogit --nogit-fallback --nokeywords --nofixes}

# The sender, first: nothing goes out without a person's sign-off.
wb_sender "the series" "the mails carry the sender's From: and Signed-off-by"

fixed=$dir/recipients
if [ -f "$fixed" ]; then
	wb_series "$dir"
else
	wb_mail_set "$patched" "$base" "$dir"
	base=$wb_set_base
fi
n=${#wb_patches[@]}
[ -f "$cover" ] || { echo "send-series: no cover letter $cover (write it, or set COVER=FILE)" >&2; exit 1; }
if grep -qF -e '*** SUBJECT HERE ***' -e '*** BLURB HERE ***' "$cover"; then
	echo "send-series: $cover still has format-patch's *** SUBJECT/BLURB HERE *** placeholders" >&2
	exit 1
fi
tag=$(sed -nE '/^Subject:/{s/^Subject: *\[([^]]*) 0\/[0-9]+\].*/\1/p;q}' "$cover")
[ -n "$tag" ] || { echo "send-series: $cover has no \"[TAG 0/N]\" subject" >&2; exit 1; }
[[ -z ${VERSION:-} || $VERSION =~ ^[0-9]+$ ]] || { echo "send-series: VERSION=$VERSION is not a version number" >&2; exit 1; }
[ -z "${VERSION:-}" ] || tag="$(sed -E 's/ v[0-9]+$//' <<<"$tag") v$VERSION"
cover_base=$(wb_cover_base "$cover")
if [ -f "$fixed" ]; then
	[ -n "$cover_base" ] || { echo "send-series: $cover has no base-commit: line (the series is not for the kernel tree)" >&2; exit 1; }
	grep -qE '^To: .*@' "$fixed" || { echo "send-series: $fixed names no To: address" >&2; exit 1; }
elif release=$(wb_prereq_release "$build" "$patched" "$base") && [ -n "$release" ]; then
	want=$(wb_prereq_lines "$patched" "$release" "$base" "$(wb_posted "$dir")")
	have=$(grep -E '^prerequisite-(patch|message)-id:' "$cover" || true)
	if [ -z "$cover_base" ] || [ "$want" != "$have" ]; then
		echo "send-series: $dir is on $(git -C "$patched" rev-list --count "$release..$base") commits after the release; $cover must say base-commit: (the release's public id) and these lines:" >&2
		printf '%s\n' "$want" | sed 's/^/  /' >&2
		exit 1
	fi
elif [ -n "$cover_base" ] && [ "$(git -C "$patched" rev-parse "$cover_base^{commit}" 2>/dev/null)" != "$(git -C "$patched" rev-parse "$base")" ]; then
	echo "send-series: $cover says base-commit: $cover_base, but the series is on $base" >&2
	exit 1
fi

# One outgoing mail (WB_TO and WB_CC: its recipients, ", " between
# them): the subject prefix set, From: the sender, To: and Cc: set,
# message ids dropped (git send-email threads the mails it sends),
# base-commit added to the cover; in a patch, the placeholder's
# Signed-off-by, and the placeholder in an added Copyright line, replaced
# by the sender's.
outgoing() { # source, index, destination
	WB_FROM=$from awk -v prefix="[$tag $2/$n]" -v patch="$([ "$2" = 0 ] || echo 1)" \
		-v placeholder="$WB_PLACEHOLDER" -v base="$([ "$2" = 0 ] && [ -z "$cover_base" ] && git -C "$patched" rev-parse "$base")" '
		BEGIN { from = ENVIRON["WB_FROM"] }
		!body && /^$/ {
			body = 1; print "From: " from
			if (ENVIRON["WB_TO"] != "") print "To: " ENVIRON["WB_TO"]
			if (ENVIRON["WB_CC"] != "") print "Cc: " ENVIRON["WB_CC"]
		}
		!body && /^[^ \t]/ { drop = (tolower($0) ~ /^(message-id|in-reply-to|references|from|to|cc):/) }
		!body && drop { next }
		!body && /^Subject:/ { sub(/^Subject: *(\[[^]]*\] *)?/, "Subject: " prefix " ") }
		patch && body && !notes && $0 == "Signed-off-by: " placeholder { next }
		patch && body && !notes && $0 == "Signed-off-by: " from { signed = 1 }
		patch && body && !notes && /^---$/ {
			notes = 1
			if (!signed) { if (last !~ /^[A-Za-z-]+: /) print ""; print "Signed-off-by: " from }
		}
		body && !notes { last = $0 }
		patch && notes && /^\+.*Copyright/ && (i = index($0, placeholder)) {
			$0 = substr($0, 1, i - 1) from substr($0, i + length(placeholder))
		}
		body && base != "" && /^-- $/ { print "base-commit: " base "\n"; base = "" }
		{ print }
		END { if (base != "") print "\nbase-commit: " base }' "$1" >"$3"
	! grep -qiF "${WB_PLACEHOLDER##* }" "$3" ||
		{ echo "send-series: $3 still names the placeholder $WB_PLACEHOLDER" >&2; exit 1; }
}
# maintainers OPTION... PATCH: the addresses get_maintainer.pl names
# (--nol: the people, --nom --nor: the lists), or PATCHDIR/recipients'
# To: and Cc: lines.
maintainers() {
	if [ -f "$fixed" ]; then
		case $1 in --nol) sed -n 's/^To: *//p' "$fixed" ;; *) sed -n 's/^Cc: *//p' "$fixed" ;; esac
		return
	fi
	# A lookup that fails is an error, not a shorter list.
	local err
	err=$(mktemp)
	# shellcheck disable=SC2086 # gm_args is a list of options
	if ! (cd "$patched" && scripts/get_maintainer.pl $gm_args "$@" 2>"$err") || [ -s "$err" ]; then
		echo "send-series: get_maintainer.pl $* failed:" >&2
		sed 's/^/  | /' "$err" >&2
		rm -f "$err"
		exit 1
	fi
	rm -f "$err"
}

rm -rf "$out" && mkdir -p "$out"
files=("$out/0000-cover-letter.patch")
all_to=() all_cc=() m=0
for p in "${wb_patches[@]}"; do
	m=$((m + 1))
	grep -q '^---$' "$dir/$p" || { echo "send-series: ${p##*/} has no '---' line" >&2; exit 1; }
	# Not in <(...): a failed lookup must stop the script.
	to=() cc=()
	got=$(maintainers --nol "$dir/$p")
	if [ -n "$got" ]; then mapfile -t to <<<"$got"; fi
	got=$(maintainers --nom --nor "$dir/$p")
	if [ -n "$got" ]; then mapfile -t cc <<<"$got"; fi
	[ ${#to[@]} -gt 0 ] || { echo "send-series: get_maintainer.pl names no maintainer for ${p##*/}" >&2; exit 1; }
	WB_TO=$(printf '%s\n' "${to[@]}" | wb_addresses) WB_CC=$(printf '%s\n' "${cc[@]}" | wb_addresses) \
		outgoing "$dir/$p" "$m" "$out/${p##*/}"
	files+=("$out/${p##*/}")
	# The cover letter's: these, and the people of the patch's trailers.
	all_to+=("${to[@]}")
	mapfile -t -O ${#all_cc[@]} all_cc < <(printf '%s\n' "${cc[@]}"; awk '/^$/ { body = 1 }
		body && /^---$/ { exit } body && sub(/^([A-Za-z-]+-by|Cc): /, "") && /@/' "$out/${p##*/}" | grep -viF "<$addr>")
done
WB_TO=$(printf '%s\n' "${all_to[@]}" | wb_addresses) WB_CC=$(printf '%s\n' "${all_cc[@]}" | wb_addresses) \
	outgoing "$cover" 0 "${files[0]}"

args=(--no-format-patch --confirm=never --thread --no-chain-reply-to --no-to-cover --no-cc-cover
      --suppress-cc=self --8bit-encoding=UTF-8 --from="$from")
wb_smtp_args

echo "send-series: $tag, cover letter and $n patches from $from ($origin)$(wb_bool SEND || echo ' (dry run: SEND=1 sends)')"
[ $# -eq 0 ] || echo "send-series: to every mail: $*"
start=$(date +%s)
# No standard input: git send-email would ask for a To: for all mails.
if ! log=$(git send-email "${args[@]}" "$@" "${files[@]}" </dev/null 2>&1); then
	printf '%s\n' "$log" | tail -n 20 | sed 's/^/  | /' >&2
	echo "send-series: git send-email failed" >&2
	exit 1
fi
# Who gets what: each mail's subject, From:, To: and Cc: as git
# send-email made them (unfolded), and the sign-offs of its file.
m=0
while IFS= read -r -d '' mail; do
	printf "%s" "$mail"
	grep -E '^Signed-off-by: ' "${files[m]}" | sed 's/^/    /' || true
	m=$((m + 1))
done < <(printf '%s\n' "$log" | awk '
	/^(Subject|From|To|Cc): / { key = $1; h[key] = $0; next }
	key != "" && /^[ \t]/ { sub(/^[ \t]+/, " "); h[key] = h[key] $0; next }
	{ key = "" }
	/^Result: / {
		printf "send-series: %s\n", substr(h["Subject:"], 10)
		split("From: To: Cc:", keys, " ")
		for (k = 1; k <= 3; k++) if (keys[k] in h) print "    " h[keys[k]]
		printf "%c", 0
		delete h
	}')
echo "send-series: $(if wb_bool SEND; then echo sent; else echo dry run of; fi) $((n + 1)) mails in $(( $(date +%s) - start ))s; they are in $out"
