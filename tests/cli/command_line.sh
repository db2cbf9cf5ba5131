#!/usr/bin/env bash
# A command line's conventions (tools/kit/cli.hpp):
#   - `PROGRAM [ARGS...] --help` exits 0 and prints plain text (printable characters and white
#     space only) that lists the help option. A control byte garbles a help text, and a NUL ends
#     it: every option after it is invisible;
#   - an unknown option is refused: a nonzero status that is not a crash (below 128) and a
#     message that starts with the program's name.
#   command_line.sh PROGRAM [ARGS...]
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" --help >"$out" 2>&1
rc=$?
if ((rc != 0)); then
  cat "$out"
  echo "command_line.sh: '$* --help' exited with $rc" >&2
  exit 1
fi
if ! grep -q -- "-h" "$out"; then
  cat "$out"
  echo "command_line.sh: '$* --help' does not list its help option (-h)" >&2
  exit 1
fi
bad=$(LC_ALL=C tr -d '[:print:][:space:]' <"$out" | wc -c)
if ((bad != 0)); then
  LC_ALL=C od -c "$out" | grep -E ' [0-7]{3}( |$)|\\[0abfv]' | head -n 5
  echo "command_line.sh: '$* --help' prints $bad control byte(s) (od -c above)" >&2
  exit 1
fi
echo "'$* --help': $(wc -l <"$out") lines of plain text"

"$@" --no-such-option >"$out" 2>&1
rc=$?
name=$(basename "$1")
if ((rc == 0 || rc >= 128)) || ! head -n 1 "$out" | grep -q "^$name"; then
  cat "$out"
  echo "command_line.sh: '$* --no-such-option' exited with $rc; want 1..127 and a message" \
    "that starts with '$name'" >&2
  exit 1
fi
echo "'$* --no-such-option': status $rc, $(head -n 1 "$out")"
