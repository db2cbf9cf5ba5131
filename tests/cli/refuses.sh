#!/usr/bin/env bash
# A command line that must be refused: PROGRAM exits with a status from 1 to 127 (not 0, not a
# crash) and its output matches REGEX (grep -E).
#   refuses.sh REGEX PROGRAM [ARGS...]
set -uo pipefail
want=$1
shift
out=$("$@" 2>&1)
rc=$?
echo "$out"
if ((rc == 0 || rc >= 128)); then
  echo "refuses.sh: '$*' exited with $rc; want 1..127" >&2
  exit 1
fi
if ! grep -qE -- "$want" <<<"$out"; then
  echo "refuses.sh: the output of '$*' does not match '$want'" >&2
  exit 1
fi
