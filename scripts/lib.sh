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
