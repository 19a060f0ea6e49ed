#!/bin/bash
# Usage: scripts/make-help.sh MAKEFILE [--check|--names]
# make help: prints the targets and the variables from the Makefile's
# "## " comments, the only place they are described. An entry is a run of
# "## " lines; its first line is "## NAME: text" for a target (NAME, a
# rule of MAKEFILE) or "## VAR=VALUE: text" for a variable (VALUE its
# default or the kind of value it takes), and starts a new entry; the
# lines after continue the text.
# --names: each entry's NAME or VAR=VALUE, one a line (scripts/docs-check.sh).
# --check (in make test's tool checks): fails, naming each, if an entry
# names a target MAKEFILE has no rule for, a target of .PHONY has no
# entry, or a variable the workbench reads has none: a "?=" variable of
# MAKEFILE, a ${VAR:-...} or ${VAR-...} of scripts/*.sh, a wb_bool VAR;
# but for those the Makefile itself sets for its scripts (INTERNAL below).
set -euo pipefail

mk=$1 mode=${2:-}
scripts=$(dirname "$0")
# Set by the Makefile for its scripts, never by a user.
INTERNAL="APPEND DISKS HOME MODULES_OWN_PARAMS NAME PROOF_SKIP_OK TMPDIR WB_ARCH WB_USERLAND"

# entries: "kind<TAB>name<TAB>text" per entry, text joined by spaces.
entries() {
	awk '
		function flush() { if (name != "") print kind "\t" name "\t" text; name = "" }
		/^## / {
			line = substr($0, 4)
			if (match(line, /^([a-z][a-z0-9-]*|[A-Z][A-Z0-9_]*=[^:]*): /)) {
				flush()
				head = substr(line, 1, RLENGTH - 2); text = substr(line, RLENGTH + 1)
				kind = (index(head, "=") ? "var" : "target"); name = head
			} else if (name != "") {
				text = text " " line
			}
			next
		}
		{ flush() }
		END { flush() }' "$1"
}

if [ "$mode" = --names ]; then
	entries "$mk" | cut -f2
	exit 0
fi
if [ "$mode" != --check ]; then
	cols=${COLUMNS:-80}
	for kind in target var; do
		[ $kind = target ] && echo "Targets (make TARGET [VAR=value...]):" || echo "Variables:"
		entries "$mk" | awk -F'\t' -v k=$kind -v w="$cols" '
			$1 == k {
				n = split($3, word, " "); line = sprintf("  %-18s", $2)
				if (length($2) > 18) { print "  " $2; line = sprintf("  %-18s", "") }
				for (i = 1; i <= n; i++) {
					if (length(line) + length(word[i]) + 1 > w && line !~ /^ *$/) {
						print line; line = sprintf("  %-18s", "")
					}
					line = line " " word[i]
				}
				print line
			}'
		echo
	done
	exit 0
fi

bad=0
# The scripts that read the variables (not this one, whose text names some).
own=()
for f in "$scripts"/*.sh; do [ "$f" -ef "$0" ] || own+=("$f"); done
documented=$(entries "$mk" | cut -f2 | sed 's/=.*//')
# Targets: every entry's a rule; every .PHONY name an entry.
rules=$(sed -nE 's/^([a-z][a-z0-9%-]*( [a-z0-9%-]+)*):([^=]|$).*/\1/p' "$mk" | tr ' ' '\n' | sort -u)
for t in $(entries "$mk" | awk -F'\t' '$1 == "target" { print $2 }'); do
	grep -qxF -- "$t" <<<"$rules" || { echo "make-help: the entry \"## $t:\" names no rule of $mk" >&2; bad=1; }
done
phony=$(sed -n '/^\.PHONY:/,/[^\\]$/p' "$mk" | sed 's/^\.PHONY://; s/\\$//' | tr -s '[:blank:]' '\n' |
	grep -E '^[a-z][a-z0-9-]*$' || true)
for t in $phony; do
	grep -qxF -- "$t" <<<"$documented" || { echo "make-help: target $t has no \"## $t: ...\" entry in $mk" >&2; bad=1; }
done
# Variables.
vars=$( { sed -nE 's/^([A-Z][A-Z0-9_]*) *\?=.*/\1/p' "$mk"
	  grep -ohE '\$\{[A-Z][A-Z0-9_]*:?-' "${own[@]}" | sed -E 's/^\$\{//; s/:?-$//'
	  grep -ohE 'wb_bool [A-Z][A-Z0-9_]*' "${own[@]}" | cut -d' ' -f2
	  # Given on the command line only: read, never set, in MAKEFILE
	  # (kbuild's O, V, CC and ARCH are refused there, naming what to use).
	  # shellcheck disable=SC2016 # the $(...) of make, not of the shell
	  comm -23 <(grep -oE '\$\([A-Z][A-Z0-9_]*\)' "$mk" | tr -d '$()' | sort -u) \
		<(sed -nE 's/^([A-Z][A-Z0-9_]*) *[:?+]?=.*/\1/p; s/^[^#]*export ([A-Z][A-Z0-9_]*) *:?=.*/\1/p' "$mk" | sort -u) |
		grep -vxE 'MAKE|MAKEFILE_LIST|CURDIR|O|V|CC|ARCH'; } | sort -u)
for v in $vars; do
	grep -qw -- "$v" <<<"$INTERNAL" && continue
	grep -qxF -- "$v" <<<"$documented" || { echo "make-help: variable $v has no \"## $v=...: ...\" entry in $mk" >&2; bad=1; }
done
[ $bad = 0 ] || exit 1
echo "make-help: $(wc -l <<<"$documented") entries; every .PHONY target and every variable read has one"
