#!/bin/bash
# Usage: scripts/docs-check.sh KERNEL_TREE FILE...
# Checks that the documents name only what exists, in the words they
# write in backquotes: each "make TARGET" a target with an entry in make
# help (scripts/make-help.sh); each "VAR=" a variable with one there, one
# the Makefile sets, a kernel option (CONFIG_*) or one of OTHER_VARS; each
# path (scripts/..., config/..., guest/..., docs/..., patches/...,
# block/..., tools/..., Documentation/..., .ci/...) a file or folder of
# the repository, or of KERNEL_TREE (the patched tree: the kernel's own
# scripts), a source of a built program (PATH.c), or, where it has a
# placeholder (NAME, BASE, <base>), a path that matches. blktests' test
# names (block/053) are not paths. Fails, naming file, line and word, on
# any other.
set -euo pipefail

repo=$(realpath "$(dirname "$0")/..")
# What the series' kselftests and blktests cases read from the
# environment, kbuild's variables the workbench refuses (naming what to
# use instead), and the environment of other programs the documents
# explain (dmsetup, quilt, the README's W).
OTHER_VARS="BLK_TEST_DEV BLK_TEST_DESTROY BLK_PROOFS TEST_DEVS O V CC ARCH W QUILT_PATCHES QUILT_SERIES DM_DISABLE_UDEV WB_ARCH"
kernel=$1; shift
entries=$("$repo/scripts/make-help.sh" "$repo/Makefile" --names)
targets=$(grep -v '=' <<<"$entries")
vars=$( { sed -n 's/=.*//p' <<<"$entries"; sed -nE 's/^([A-Z][A-Z0-9_]*) *[:?+]?=.*/\1/p' "$repo/Makefile"; } | sort -u)
bad=0
for f in "$@"; do
	while IFS=: read -r n word; do
		case $word in
		make\ *)
			t=${word#make }
			grep -qxF -- "$t" <<<"$targets" || { echo "$f:$n: make $t: no such target (make help)"; bad=1; } ;;
		*=)
			v=${word%=}
			[[ $v == CONFIG_* ]] || grep -qxF -- "$v" <<<"$vars" || grep -qw -- "$v" <<<"$OTHER_VARS" ||
				{ echo "$f:$n: $v=: no such variable (make help)"; bad=1; } ;;
		*)
			p=${word%%[:,)]*}
			p=${p%/}
			[[ $p =~ ^block/[0-9]{3}$ ]] && continue
			# Placeholders become globs.
			g=$(sed -E 's/<[^>]*>/*/g; s/(^|[/v_-])(NAME|BASE|N|PAGE)([/._-]|$)/\1*\3/g' <<<"$p")
			compgen -G "$repo/$g" >/dev/null || compgen -G "$repo/$g.c" >/dev/null ||
				compgen -G "$kernel/$g" >/dev/null ||
				{ echo "$f:$n: $p: no such file in the repository or the kernel tree"; bad=1; } ;;
		esac
	done < <(awk '
		# Each backquoted word of the text.
		{
			line = $0
			while (match(line, /`[^`]+`/)) {
				w = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
				if (match(w, /^make [a-z][a-z0-9-]*/)) print NR ":" substr(w, 1, RLENGTH)
				while (match(w, /(^|[ (])[A-Z][A-Z0-9_]+=/)) {
					v = substr(w, RSTART, RLENGTH); sub(/^[ (]/, "", v); print NR ":" v
					w = substr(w, RSTART + RLENGTH)
				}
				if (match(w, /^(scripts|config|guest|docs|patches|block|tools|Documentation|\.ci)\/[A-Za-z0-9_.*<>\/-]*/))
					print NR ":" substr(w, 1, RLENGTH)
			}
		}' "$f")
done
[ $bad = 0 ] || exit 1
echo "docs-check: $# documents name only targets, variables and files that exist"
