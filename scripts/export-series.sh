#!/bin/bash
# Usage: scripts/export-series.sh TREE BASE PATCHDIR
# The one way to regenerate the series: writes the commits BASE..HEAD of
# TREE into PATCHDIR with git format-patch (numbered, changelogs from git
# notes below "---"), rewrites PATCHDIR/series (and PATCHDIR/quilt.series
# where PATCHDIR/prereq has patches), and copies every file the
# series adds to its kernel path in this repository (block/, tools/,
# Documentation/). PATCHDIR/0000-cover-letter.patch and PATCHDIR/mail/
# (the mails, scripts/send-series.sh) are kept as they are.
# The backport (patches/v6.12, any PATCHDIR but the mainline series)
# shares those copies: a file it adds that the mainline series does not
# add, or adds with other content, goes to PATCHDIR/added/ at its kernel
# path instead (wb_added_copy).
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 base=$2 dir=$3
repo=$(realpath "$(dirname "$0")/..")
n=$(git -C "$tree" rev-list --count "$base..HEAD")
[ "$n" -gt 0 ] || { echo "export-series: no commits on $tree since $base" >&2; exit 1; }
find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
# The index lines' blob ids at a fixed length, 9: git's default grows
# with the repository, and the same series would differ from machine to
# machine.
git -C "$tree" -c core.abbrev=9 format-patch -q --notes --numbered --zero-commit \
	--no-signature -o "$(realpath "$dir")" "$base..HEAD"
find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' \
	-printf '%f\n' | sort >"$dir/series"
# With prerequisites, quilt's one series of both (the README's quilt
# line: QUILT_SERIES=quilt.series): quilt keeps one patches folder.
if [ -f "$dir/prereq/series" ]; then
	{
		echo "# quilt push -a with QUILT_PATCHES this folder and QUILT_SERIES=quilt.series: prereq/, then the series (make series writes this file)"
		wb_series "$dir/prereq" && printf 'prereq/%s\n' "${wb_patches[@]}"
		cat "$dir/series"
	} >"$dir/quilt.series"
fi

primary=1
wb_primary_series "$dir" || { primary=0; rm -rf "$dir/added"; }
git -C "$tree" diff --name-only --diff-filter=A "$base" HEAD | while read -r f; do
	copy=$repo/$f
	# (Not in the mainline series, or not the same there: the backport's own.)
	if [ $primary = 0 ] && ! cmp -s "$tree/$f" "$copy" 2>/dev/null; then
		copy=$dir/added/$f
	fi
	mkdir -p "$(dirname "$copy")"
	cp "$tree/$f" "$copy"
done
wb_applied_stamp "$tree" "$dir" write
# The mails (PATCHDIR/mail/NAME/series) name patches by file: a renamed
# patch must be named anew there. Their cover letters' prerequisite
# lines (the commits between the release and the mail's first patch) are
# written anew from the tree, as the patches before a mail may have changed.
release=$(cat "$(dirname "$tree")/release-commit" 2>/dev/null || true)
for m in "$dir"/mail/*/series; do
	[ -f "$m" ] || continue
	mail=$(dirname "$m")
	wb_series "$mail"
	for p in "${wb_patches[@]}"; do
		[ -f "$mail/$p" ] || { echo "export-series: $m names $p, which is gone: name the new file" >&2; exit 1; }
	done
	if [ -z "$release" ] || ! grep -qE '^prerequisite-(patch|message)-id:' "$mail/0000-cover-letter.patch"; then
		continue
	fi
	wb_mail_set "$tree" "$base" "$mail"
	ids=$(wb_prereq_lines "$tree" "$release" "$wb_set_base" "$(wb_posted "$dir")")
	awk -v ids="$ids" '/^prerequisite-(patch|message)-id:/ { if (!done) print ids; done = 1; next } { print }' \
		"$mail/0000-cover-letter.patch" >"$mail/0000-cover-letter.patch.new"
	mv "$mail/0000-cover-letter.patch.new" "$mail/0000-cover-letter.patch"
done
echo "export-series: $n patches in $dir, added files copied to $repo"
