#!/bin/bash
# Usage: scripts/kconfig.sh TREE OBJ FRAGMENT...
# Writes OBJ/.config for TREE: tinyconfig, merged with each FRAGMENT by the
# tree's own scripts/kconfig/merge_config.sh, then olddefconfig. Fails
# naming every requested option that olddefconfig dropped or changed (the
# model is kunit.py's validate_config). With UNKNOWN_OK=1, options whose
# symbol this TREE does not define (the series adds them) are only listed.
# As in merge_config.sh, a later FRAGMENT overrides an earlier one: the
# last value given for a symbol is the one checked.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tree=$(realpath "$1") obj=$(realpath -m "$2"); shift 2
mkdir -p "$obj"
wb_kbuild_args
kmake() { make -s -C "$tree" O="$obj" "${wb_kbuild[@]}" "$@"; }

# Nothing to do if the same fragments already made this .config: rewriting
# it would make kbuild re-run syncconfig and relink for nothing.
unknown_ok=0
wb_bool UNKNOWN_OK && unknown_ok=1
stamp=$( { git -C "$tree" rev-parse HEAD; cat "$@"; echo "$unknown_ok ${wb_kbuild[*]}"; } | sha1sum | cut -d' ' -f1)
if [ -f "$obj/.config" ] && [ "$(cat "$obj/.config.wb-stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "kconfig: $obj/.config is up to date"
	exit 0
fi
rm -f "$obj/.config.wb-stamp"

kmake tinyconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/.config" "$@" >"$obj/merge_config.log"
kmake olddefconfig >/dev/null

# "SYMBOL VALUE" for each option of the fragments, its last value.
requested() {
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)$/\1 \2/p' \
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 n/p' "$@" |
	awk '!($1 in val) { order[n++] = $1 } { val[$1] = substr($0, length($1) + 2) }
	     END { for (i = 0; i < n; i++) print order[i], val[order[i]] }'
}

bad=0
while read -r sym want; do
	got=$(grep -E "^$sym=" "$obj/.config" | cut -d= -f2- || true)
	[ -n "$got" ] || got=n
	[ "$got" = "$want" ] && continue
	name=${sym#CONFIG_}
	if ! grep -rqE --include='Kconfig*' "^(menu)?config $name\$" "$tree"; then
		if [ "$unknown_ok" = 1 ]; then
			echo "kconfig: $sym: not defined in $tree (added by the series), left out"
			continue
		fi
		echo "kconfig: $sym=$want: no such symbol in $tree" >&2
	else
		echo "kconfig: $sym=$want was dropped by olddefconfig (now: $got); check its dependencies" >&2
	fi
	bad=1
done < <(requested "$@")
[ $bad -eq 0 ] || { echo "kconfig: $obj/.config lacks requested options (see above)" >&2; exit 1; }
echo "$stamp" >"$obj/.config.wb-stamp"
echo "kconfig: $obj/.config has every option of: $*"
