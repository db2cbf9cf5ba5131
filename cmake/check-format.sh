#!/usr/bin/env bash
# Fails if any tracked C++ file is not clang-formatted (.clang-format; the tree is formatted with
# clang-format 14, Debian's). Usage: cmake/check-format.sh [clang-format]   (ctest: lint-format)
# Fix with: git ls-files '*.cpp' '*.hpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${1:-clang-format}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
else  # a source tarball: every C++ file outside build directories
  mapfile -t files < <(find . -path './build*' -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print)
fi
echo "clang-format --dry-run --Werror on ${#files[@]} files ($("$fmt" --version))"
"$fmt" --dry-run --Werror "${files[@]}"
