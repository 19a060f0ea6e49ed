#!/bin/bash
# Usage: scripts/arm64-userland.sh OUT PACKAGE...
# The arm64 guest's programs (make arm64): Debian's arm64 builds of each
# PACKAGE and of the library packages they depend on (those named *lib*,
# followed to the end), taken from apt's cache or downloaded with
# apt-get download into OUT/debs, and unpacked with dpkg-deb into
# OUT/root. Nothing is installed, so nothing of the host changes but
# dpkg's list of architectures (arm64 is added if it is not there, so
# that apt knows the packages). Then every ELF file of OUT/root must be
# an arm64 one whose libraries (DT_NEEDED) are in OUT/root: what is
# missing is named. Does nothing if OUT/root was made for the same
# PACKAGEs.
set -euo pipefail

out=$(realpath -m "$1")
shift
want=$(echo "$*" | sha1sum)
[ "$(cat "$out/.wb-packages" 2>/dev/null)" != "$want" ] || exit 0
start=$(date +%s)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "arm64-userland: adding arm64 to dpkg's architectures (dpkg --add-architecture arm64)"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
fi

# The closure: PACKAGEs, then the library packages (named *lib*: libc6,
# zlib1g...) any of them depends on (Depends and PreDepends; the others,
# like python3 of xfsprogs or debconf, hold no library the programs
# load: the check at the end names any that does).
# apt-cache takes seconds a call here: one call per level of the graph.
declare -A seen=()
todo=()
for p in "$@"; do
	todo+=("$p:arm64")
done
while [ ${#todo[@]} -gt 0 ]; do
	for p in "${todo[@]}"; do
		seen[$p]=1
	done
	deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "${todo[@]}") ||
		{ echo "arm64-userland: apt-cache does not know all of ${todo[*]}" >&2; exit 1; }
	todo=()
	while read -r d; do
		[ -n "${seen[$d]:-}" ] || todo+=("$d")
	done < <(sed -nE 's/^  (Pre)?Depends: ([^ <>]*lib[^ <>]*:arm64)$/\2/p' <<<"$deps" | sort -u)
done

rm -rf "$out" && mkdir -p "$out/debs" "$out/root"
# Each .deb comes from apt's own cache of downloaded packages if it is
# there (named as apt names it, the epoch's colon as %3a), and goes there
# once downloaded: a fresh clone downloads nothing again (the archive
# took 10 minutes for these here).
cache=/var/cache/apt/archives
get=()
declare -A file=()
while read -r p deb; do
	file[$p:arm64]=$deb
done < <(apt-cache show --no-all-versions "${!seen[@]}" |
	awk '/^Package: / { p = $2 } /^Version: / { v = $2; sub(/:/, "%3a", v)
		print p, p "_" v "_arm64.deb" }')
for p in "${!seen[@]}"; do
	deb=${file[$p]:-}
	if [ -n "$deb" ] && [ -f "$cache/$deb" ]; then
		cp "$cache/$deb" "$out/debs/"
	else
		get+=("$p")
	fi
done
echo "arm64-userland: ${#seen[@]} packages, $(( ${#seen[@]} - ${#get[@]} )) of them in $cache"
# apt's warning that user _apt cannot write here is its own: as root it
# downloads anyway.
if [ ${#get[@]} -gt 0 ]; then
	(cd "$out/debs" && apt-get download -q "${get[@]}" >apt.log 2>&1) ||
		{ tail -n 20 "$out/debs/apt.log" >&2; echo "arm64-userland: apt-get download failed (above)" >&2; exit 1; }
	cp -n "$out"/debs/*.deb "$cache/" 2>/dev/null || true
fi
for deb in "$out"/debs/*.deb; do
	dpkg-deb -x "$deb" "$out/root"
done
rm -rf "$out"/root/usr/share/{doc,man,info,locale,lintian}

# Every program and library: arm64, and its DT_NEEDED libraries present
# by name (the loader searches /lib and /usr/lib and their
# aarch64-linux-gnu directories). readelf names each file it is given
# ("File: ", when it is given more than one: hence /dev/null), then, for
# an ELF file, its machine and libraries.
have=$(find "$out/root" \( -type f -o -type l \) -name '*.so*' -printf '%f\n' | sort -u)
bad=()
while IFS=$'\t' read -r elf what; do
	case $what in
	'Machine: AArch64') ;;
	Machine:*) bad+=("${elf#"$out"/root}: not an arm64 program (${what#Machine: })") ;;
	*) grep -qxF "$what" <<<"$have" || bad+=("${elf#"$out"/root} needs $what") ;;
	esac
done < <(find "$out/root" -type f -exec aarch64-linux-gnu-readelf -h -d /dev/null {} + 2>/dev/null |
	awk -v OFS='\t' '/^File: / { f = substr($0, 7) }
		$1 == "Machine:" { sub(/^ *Machine: */, ""); print f, "Machine: " $0 }
		/\(NEEDED\)/ { s = $0; sub(/.*\[/, "", s); sub(/\]$/, "", s); print f, s }')
if [ ${#bad[@]} -gt 0 ]; then
	printf 'arm64-userland: %s\n' "${bad[@]}" >&2
	echo "arm64-userland: ${#bad[@]} problems in $out/root (above)" >&2
	exit 1
fi
echo "$want" >"$out/.wb-packages"
echo "arm64-userland: $out/root: ${#seen[@]} packages (${*}, and their libraries), $(du -sh "$out/root" | cut -f1), in $(( $(date +%s) - start ))s"
