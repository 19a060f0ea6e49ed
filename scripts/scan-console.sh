#!/bin/bash
# Usage: scripts/scan-console.sh CONSOLE_LOG
# Fails, printing each excerpt, if the kernel console log shows a splat:
# BUG, Oops, WARNING, KASAN, UBSAN, lockdep, hung task, a call trace or a
# panic. A log that does not reach the end of boot (no "Run /init") fails
# too: a cut-off log proves nothing.
set -euo pipefail

log=$1
pattern='BUG:|Oops|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|hung_task|blocked for more than|Call Trace:|Kernel panic|kernel BUG'
[ -f "$log" ] || { echo "scan-console: $log: no such file" >&2; exit 1; }
if grep -a -n -E "$pattern" "$log" >/dev/null; then
	echo "scan-console: kernel splat in $log:" >&2
	first=$(grep -a -n -E "$pattern" "$log" | head -n 1 | cut -d: -f1)
	sed -n "$((first > 3 ? first - 3 : 1)),$((first + 25))p" "$log" | sed 's/^/  | /' >&2
	echo "scan-console: $(grep -a -c -E "$pattern" "$log") matching line(s): $(grep -a -o -E "$pattern" "$log" | sort | uniq -c | tr -s ' ' | tr '\n' ',')" >&2
	exit 1
fi
if ! grep -a -q 'Run /init' "$log"; then
	echo "scan-console: $log is cut off before userspace started (no 'Run /init'):" >&2
	tail -n 10 "$log" | sed 's/^/  | /' >&2
	exit 1
fi
