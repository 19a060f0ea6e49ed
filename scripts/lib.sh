# shellcheck shell=bash
# Usage, at the top of a script of scripts/ (as blktests' common/rc):
#	# shellcheck source=scripts/lib.sh
#	. "$(dirname "$0")/lib.sh"
# What more than one script of the workbench needs, in one place. It only
# defines functions and variables, all named wb_* or WB_*: it runs
# nothing and sets no shell option (each script has its own
# "set -euo pipefail").

# wb_series DIR: the patch files that DIR/series lists, in order, into the
# array wb_patches. The format is quilt's: one file name a line; leading
# white space, lines that start with "#" and whatever follows the name
# (quilt options such as -p1, a comment) are dropped. Fails, saying so,
# if DIR/series is missing.
wb_series() {
	if [ ! -f "$1/series" ]; then
		echo "$(basename "$0" .sh): $1/series missing" >&2
		return 1
	fi
	# shellcheck disable=SC2034 # the result, for the caller
	mapfile -t wb_patches < <(sed -e 's/^[[:space:]]*//' -e '/^#/d' \
		-e 's/[[:space:]].*//' -e '/^$/d' "$1/series")
}

# The committer (and author) the workbench names where it must name one,
# as git -c options, so that no git config is written: the base commit of
# Debian's tree (scripts/kernel-tree.sh: the same on every machine, so
# that its hash is too) and, through wb_git, a machine with none.
WB_IDENT=(-c user.name=workbench -c user.email=workbench@localhost)

# wb_git ARG...: git ARG..., with WB_IDENT where git config names no
# committer (a fresh CI machine): git am and git notes record one.
wb_git() {
	if git config user.email >/dev/null; then
		git "$@"
	else
		git "${WB_IDENT[@]}" "$@"
	fi
}
