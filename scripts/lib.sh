# shellcheck shell=bash
# Usage, at the top of a script of scripts/ (as blktests' common/rc):
#	# shellcheck source=scripts/lib.sh
#	. "$(dirname "$0")/lib.sh"
# What more than one script of the workbench needs, in one place. It only
# defines functions and variables, all named wb_* or WB_*: it runs
# nothing and sets no shell option (each script has its own
# "set -euo pipefail").

# wb_bool NAME: whether the boolean variable NAME (SEND, QUICK,
# KEEP_IMAGES...) is on. The workbench's one convention: NAME=1 is on,
# anything else (unset, empty, 0, yes) is off.
wb_bool() {
	[ "${!1:-}" = 1 ]
}

# wb_list FILE: the names of a list of config/ (one per line, as
# config/blktests.packages), without its comments and blank lines.
wb_list() {
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' \
		-e '/^$/d' "$1"
}

# wb_addresses: lines of addresses on standard input as one header value,
# "a, b", each once (compared without case).
wb_addresses() { awk '!seen[tolower($0)]++' | paste -sd, - | sed 's/,/, /g'; }

# The guest's architecture, WB_ARCH: x86_64 (the default) or arm64 (the
# arm64 boots of make arm64, cross-built with aarch64-linux-gnu-gcc).
# wb_kbuild_args: kbuild's ARCH= (and CROSS_COMPILE=) for it into the
# array wb_kbuild, the compilers' prefix into wb_cross; wb_kimage: its
# kernel image's path under an object directory.
wb_kbuild_args() {
	# shellcheck disable=SC2034 # the results, for the caller
	case ${WB_ARCH:-x86_64} in
	x86_64) wb_cross='' wb_kbuild=(ARCH=x86_64) ;;
	arm64) wb_cross=aarch64-linux-gnu- wb_kbuild=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) ;;
	*) echo "WB_ARCH=$WB_ARCH: the workbench boots x86_64 or arm64" >&2; return 1 ;;
	esac
}
wb_kimage() {
	case ${WB_ARCH:-x86_64} in
	arm64) echo arch/arm64/boot/Image ;;
	*) echo arch/x86/boot/bzImage ;;
	esac
}

# wb_tree BUILD_DIR NAME: a kernel tree in the build directory (the
# Makefile's B): src (the bare repository of Debian's tree), base (the
# unpatched base) and patched (branch blk-series), made by
# scripts/kernel-tree.sh, or a script's own worktree: check, quilt,
# sendtest.
wb_tree() {
	printf '%s/linux-%s\n' "$1" "$2"
}

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

# wb_mail_set REPO BASE PATCHDIR: what PATCHDIR mails, as commits of REPO
# (its HEAD the series applied on BASE). PATCHDIR is a series (its own
# patches, as patches/v6.12) or one mail of a series (patches/v7.1/mail/NAME:
# a cover letter and a series file naming consecutive patches of the
# series, as ../../NNNN-name.patch). Sets wb_patches (the names in
# PATCHDIR/series), wb_set_from (the commit of the patch before the first
# of them, or BASE), wb_set_base (the commit the mail applies on: the same,
# or, when PATCHDIR/after names another mail of the series, that mail's
# last commit: the mail applies on it without the mails between) and
# wb_set_head (the commit of the last). Fails, saying why, if REPO's
# history does not match, or the mail named in PATCHDIR/after does not
# come before PATCHDIR's.
wb_mail_set() {
	local stack names i off=-1 commits after=
	if [ -f "$3/after" ]; then
		after=$(sed -n '/^[^#]/{p;q}' "$3/after")
		wb_mail_set "$1" "$2" "$3/../$after" || return 1
		after=$wb_set_head
	fi
	wb_series "$3" || return 1
	stack=$(dirname "$(realpath "$3/${wb_patches[0]}")")
	names=("${wb_patches[@]}")
	wb_series "$stack" || return 1
	for i in "${!wb_patches[@]}"; do
		[ "${wb_patches[i]}" = "$(basename "${names[0]}")" ] && off=$i && break
	done
	for i in "${!names[@]}"; do
		if ((off < 0)) || [ "${wb_patches[off + i]:-}" != "$(basename "${names[i]}")" ]; then
			echo "$(basename "$0" .sh): $3/series: ${names[i]} is not patch $((off + i + 1)) of $stack/series" >&2
			return 1
		fi
	done
	mapfile -t commits < <(git -C "$1" rev-list --reverse "$2..HEAD")
	if [ ${#commits[@]} -ne ${#wb_patches[@]} ]; then
		echo "$(basename "$0" .sh): $1 has ${#commits[@]} commits on $2, $stack/series ${#wb_patches[@]} patches" >&2
		return 1
	fi
	# shellcheck disable=SC2034 # the results, for the caller
	{
		wb_patches=("${names[@]}")
		wb_set_from=$2
		((off == 0)) || wb_set_from=${commits[off - 1]}
		wb_set_base=${after:-$wb_set_from}
		wb_set_head=${commits[off + ${#names[@]} - 1]}
	}
	if [ -n "$after" ] && ! git -C "$1" merge-base --is-ancestor "$after" "$wb_set_from"; then
		echo "$(basename "$0" .sh): $3/after names a mail that does not come before it" >&2
		return 1
	fi
}

# wb_mail_sets PATCHDIR: the mails of a series, in the order they apply:
# PATCHDIR/mail/NAME, by the first patch each names; PATCHDIR itself when
# it has no mail/ (the series is one mail).
wb_mail_sets() {
	local d
	if [ ! -d "$1/mail" ]; then echo "$1"; return; fi
	for d in "$1"/mail/*/; do
		printf '%s %s\n' "$(sed -n '/^[^#]/{s/[[:space:]].*//;s,.*/,,;p;q}' "$d/series")" "${d%/}"
	done | sort | cut -d' ' -f2
}

# wb_applied_stamp TREE PATCHDIR write|check: writes or checks the record
# that TREE's HEAD is the series of PATCHDIR applied: the hash of
# PATCHDIR/series and its patches, and HEAD, in TREE's git directory.
# scripts/apply-series.sh skips a series that is applied already;
# scripts/export-series.sh, which writes the patches from TREE, records
# that they are.
wb_applied_stamp() {
	local stamp file
	wb_series "$2" || return 1
	stamp=$(cd "$2" && cat series "${wb_patches[@]}" | sha1sum | cut -d' ' -f1)
	stamp="$stamp $(git -C "$1" rev-parse HEAD)"
	file=$(git -C "$1" rev-parse --absolute-git-dir)/wb-series-applied
	if [ "$3" = write ]; then
		echo "$stamp" >"$file"
	else
		[ "$(cat "$file" 2>/dev/null)" = "$stamp" ]
	fi
}

# The mainline base (Linux 7.1.5), whose series is the one the workbench
# exists to send; 6.12 (patches/v6.12) is its backport.
# shellcheck disable=SC2034 # for the scripts that source this file
WB_MAINLINE=7.1

# wb_primary_series PATCHDIR: true if PATCHDIR is the mainline series
# (patches/v$WB_MAINLINE), whose added files are the copies at their kernel
# paths in this repository; false for the backport (patches/v6.12).
wb_primary_series() {
	local repo
	repo=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")
	[ "$(realpath "$1")" = "$repo/patches/v$WB_MAINLINE" ]
}

# wb_added_copy PATCHDIR FILE: the repository's copy of FILE (a kernel
# path) that the series in PATCHDIR adds: PATCHDIR/added/FILE where the
# backport (patches/v6.12) adds it with content of its own, else
# FILE at its kernel path in the repository, shared by the series.
wb_added_copy() {
	local repo
	repo=$(realpath "$(dirname "${BASH_SOURCE[0]}")/..")
	if [ -f "$1/added/$2" ]; then
		printf '%s\n' "$(realpath "$1/added/$2")"
	else
		printf '%s\n' "$repo/$2"
	fi
}

# The LLVM of make check's clang builds: Debian 12's default clang is 14,
# Linux 7.0 needs 15 or later; Debian 12 has 16, which serves both bases
# (scripts/deps.sh check installs it, scripts/check-series.sh uses it).
# shellcheck disable=SC2034 # for the scripts that source this file
WB_LLVM=16

# The committer (and author) the workbench names where it must name one,
# as git -c options, so that no git config is written: the base commit of
# Debian's tree (scripts/kernel-tree.sh: the same on every machine, so
# that its hash is too) and, through wb_git, a machine with none.
WB_IDENT=(-c user.name=workbench -c user.email=workbench@localhost)

# The author and sign-off that the patches in patches/ carry: the
# project's, not a person's. scripts/send-series.sh mails them as the
# sender instead and refuses this one as a sender.
# shellcheck disable=SC2034 # for the scripts that source this file
WB_PLACEHOLDER='Seed 7d7613dd maintainers <maintainers@users.noreply.a-seed-7d7613dd.example>'

# wb_git ARG...: git ARG..., with WB_IDENT where git config names no
# committer (a fresh CI machine): git am and git notes record one.
wb_git() {
	if git config user.email >/dev/null; then
		git "$@"
	else
		git "${WB_IDENT[@]}" "$@"
	fi
}

# wb_worktree_add REPO DIR COMMIT [OPTION...]: unless DIR is a worktree
# already, makes it one of REPO (a repository, or any worktree of it) at
# COMMIT: "git worktree add OPTION... DIR COMMIT" (--detach, -B BRANCH),
# after removing whatever is in DIR and forgetting worktrees that are gone.
wb_worktree_add() {
	local repo=$1 dir=$2 commit=$3
	shift 3
	[ ! -e "$dir/.git" ] || return 0
	echo "$(basename "$0" .sh): checking out $dir"
	rm -rf "$dir"
	git -C "$repo" worktree prune
	wb_ticking "$(basename "$0" .sh): checking out" - \
		git -C "$repo" worktree add -q "$@" "$dir" "$commit"
}

# wb_worktree REPO DIR COMMIT [KEEP...]: DIR as a worktree of REPO,
# detached at COMMIT and clean (made by wb_worktree_add if need be): a
# git am in progress aborted, changes undone, every untracked or ignored
# file removed but the paths that match a KEEP pattern (git clean -e).
wb_worktree() {
	local repo=$1 dir=$2 commit=$3 keep=() p
	shift 3
	for p; do keep+=(-e "$p"); done
	wb_worktree_add "$repo" "$dir" "$commit" --detach
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	git -C "$dir" checkout -q --detach -f "$commit"
	git -C "$dir" clean -q -fdx "${keep[@]}"
}

# wb_changed_files REPO BASE: the paths REPO's HEAD changes since BASE,
# one per line, sorted (added, modified and deleted alike).
wb_changed_files() {
	git -C "$1" diff --name-only "$2" HEAD | sort
}

# wb_files_differ REPO DIR FILE...: those FILEs (paths in REPO) whose
# content in the checkout DIR is not REPO's HEAD's (a file missing on one
# side differs), one a line.
wb_files_differ() {
	local repo=$1 dir=$2 f a b
	shift 2
	for f in "$@"; do
		a=$(git -C "$repo" rev-parse -q --verify "HEAD:$f" || echo deleted)
		b=$( [ -e "$dir/$f" ] && git hash-object "$dir/$f" || echo deleted)
		[ "$a" = "$b" ] || echo "$f"
	done
}

# wb_sparse_worktree REPO DIR BASE: DIR made again as a worktree of REPO,
# detached at BASE, with only the files REPO's HEAD changes since BASE on
# disk (a sparse checkout; the index holds the whole tree): enough to
# apply the series that leads from BASE to HEAD without writing out a
# kernel tree. A patch or quilt push touching any other path fails for
# want of the file.
wb_sparse_worktree() {
	local repo=$1 dir=$2 base=$3
	rm -rf "$dir"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach --no-checkout "$dir" "$base"
	wb_changed_files "$repo" "$base" | git -C "$dir" sparse-checkout set --no-cone --stdin
	git -C "$dir" checkout -q --detach "$base"
}

# wb_cover_version COVER: the N of a "[PATCH vN ...]" subject, or nothing.
wb_cover_version() {
	sed -nE '/^Subject:/{s/^Subject: *\[[^]]*\bv([0-9]+)\b[^]]*\].*/\1/p;q}' "$1"
}

# wb_cover_base COVER: the commit its "base-commit:" line names, or nothing.
wb_cover_base() {
	sed -nE 's/^base-commit: *([0-9a-f]+).*/\1/p' "$1"
}

# wb_prereq_release BUILD_DIR REPO BASE: the release under BASE when the
# series' prerequisites lie between (BUILD_DIR/release-commit, written by
# scripts/kernel-tree.sh), else nothing: BASE is then the release itself.
wb_prereq_release() {
	local release
	release=$(cat "$1/release-commit" 2>/dev/null) || return 0
	[ "$(git -C "$2" rev-parse "$release")" = "$(git -C "$2" rev-parse "$3")" ] ||
		echo "$release"
}

# wb_prereq_lines REPO FROM TO [POSTED]: a cover letter's prerequisite
# lines for the commits FROM..TO of REPO, oldest first, one a line: as
# git format-patch --base writes them, "prerequisite-patch-id: ID" (the
# stable patch id), but "prerequisite-message-id: <ID>" for a commit that
# stands in for someone else's posted patch: one whose subject a line
# "<message-id> subject" of the file POSTED names (the posting is the
# prerequisite, not our port of it, which no public tree has).
wb_prereq_lines() {
	local c subj id
	git -C "$1" rev-list --reverse "$2..$3" | while read -r c; do
		subj=$(git -C "$1" log -1 --format=%s "$c")
		id=$(awk -v s="$subj" 'substr($0, index($0, " ") + 1) == s { print $1; exit }' "${4:-/dev/null}" 2>/dev/null)
		if [ -n "$id" ]; then
			echo "prerequisite-message-id: $id"
		else
			echo "prerequisite-patch-id: $(git -C "$1" show "$c" | git patch-id --stable | sed 's/ .*//')"
		fi
	done
}

# wb_libgcc_divs NM DIR OBJECT...: the calls of each OBJECT (a path in
# DIR; directories and missing files are passed over) to libgcc's 64-bit
# division helpers, which the kernel does not link, as "OBJECT: nm line".
wb_libgcc_divs() {
	local nm=$1 dir=$2 o
	shift 2
	for o; do
		[[ $o == */ ]] || [ ! -f "$dir/$o" ] || "$nm" -u "$dir/$o" | grep -wE '__(u?div|u?mod)di3' | sed "s|^|$o: |"
	done || true
}

# wb_posted DIR: the POSTED file of wb_prereq_lines for DIR, a series
# (patches/v7.1) or one mail of it (patches/v7.1/mail/NAME).
wb_posted() {
	if [ -d "$1/mail" ] || [ ! -d "$1/../../mail" ]; then echo "$1/posted"; else echo "$1/../../posted"; fi
}

# wb_sender WHAT WHY: sets from ("Name <address>"), addr and origin to
# who sends WHAT: $FROM, else git's user.name and user.email; stops,
# saying WHY a person is needed, if there is none, if it is not
# "Name <address>" or if it is the project's placeholder.
wb_sender() {
	local me ask name email
	me=$(basename "$0" .sh)
	from=${FROM:-} origin=FROM=
	if [ -z "$from" ] && name=$(git config user.name) && email=$(git config user.email); then
		from="$name <$email>" origin="git config user.name/user.email"
	fi
	ask='set FROM="Your Name <you@example.org>" (make send FROM=...), or git config user.name and user.email'
	[ -n "$from" ] || { echo "$me: who sends $1? $ask; $2" >&2; exit 1; }
	addr=$(sed -nE 's/^[^<>@]*[^<>@ ] <([^<>@ ]+@[^<>@ ]+)>$/\1/p' <<<"$from")
	[ -n "$addr" ] || { echo "$me: sender '$from' ($origin) is not \"Name <address>\": $ask" >&2; exit 1; }
	if [[ ${WB_PLACEHOLDER,,} == *"<${addr,,}>" ]]; then
		echo "$me: sender '$from' ($origin) is the project's placeholder, not a person: $ask" >&2
		exit 1
	fi
}

# wb_smtp_args: appends to the caller's array args the git send-email
# options of the SMTP server (SMTP_SERVER and SMTP_PORT if set, else git
# config's sendemail.*) and, unless SEND=1, --dry-run; stops if SEND=1
# and there is no server.
wb_smtp_args() {
	if [ -n "${SMTP_SERVER:-}" ]; then
		args+=(--smtp-server="$SMTP_SERVER")
		[ -z "${SMTP_PORT:-}" ] || args+=(--smtp-server-port="$SMTP_PORT")
	elif wb_bool SEND && [ -z "$(git config sendemail.smtpServer || true)" ]; then
		echo "$(basename "$0" .sh): SEND=1 but no SMTP server: set SMTP_SERVER or git config sendemail.smtpServer" >&2
		exit 1
	fi
	wb_bool SEND || args+=(--dry-run)
}

# wb_install ROOT FILE [HAVE]: FILE into ROOT (the directory tree of an
# initramfs) at its own path and, if it is executable, the shared
# libraries it needs (wb_install_libs).
wb_install() {
	mkdir -p "$1$(dirname "$2")"
	cp "$2" "$1$2"
	if [ -x "$2" ]; then
		wb_install_libs "$@"
	fi
}

# wb_install_libs ROOT ELF [HAVE]: the shared libraries ELF needs, as ldd
# lists them, into ROOT at their own paths, but those ROOT holds already
# and those HAVE names (an archive's listing, as cpio -t prints it:
# paths without the leading "/"). Nothing for a static program or a
# script.
wb_install_libs() {
	local root=$1 have=${3:-} lib
	while read -r lib; do
		[ ! -e "$root$lib" ] || continue
		! grep -qxF "${lib#/}" <<<"$have" || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done < <(ldd "$2" 2>/dev/null | grep -oE '/[^ ]+')
}

# wb_modules_install OBJ STAGE: the modules of the kernel built in OBJ
# (modules_install, stripped, depmod) under STAGE/lib/modules; fails if it
# installs no module.
wb_modules_install() {
	# MAKEFLAGS emptied as in build-guards.sh (no jobserver for a script)
	MAKEFLAGS='' make -s -C "$1" INSTALL_MOD_PATH="$2" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	[ -n "$(find "$2/lib/modules" -name '*.ko' -print -quit)" ] ||
		{ echo "modules_install of $1 installed no module" >&2; return 1; }
}

# wb_ticking LABEL LOG COMMAND [ARG...]: runs COMMAND, its output to the
# file LOG (- : where the caller's goes) and, while it runs, prints
# "LABEL: Ns" every 30 seconds, with the number of lines of LOG that
# match wb_tick_match (an extended regular expression) if that is set,
# named wb_tick_what: no long step is silent for a minute. Returns
# COMMAND's status.
wb_ticking() {
	local label=$1 log=$2 start ticker rc=0
	shift 2
	start=$(date +%s)
	(
		while sleep 30 >/dev/null 2>&1; do
			n=
			[ "$log" = - ] || [ -z "${wb_tick_match:-}" ] ||
				n=", $(grep -cE "$wb_tick_match" "$log" 2>/dev/null || true) ${wb_tick_what:-lines}"
			echo "$label: $(( $(date +%s) - start ))s$n"
		done
	) &
	ticker=$!
	if [ "$log" = - ]; then
		"$@" || rc=$?
	else
		"$@" >"$log" 2>&1 || rc=$?
	fi
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	return "$rc"
}
