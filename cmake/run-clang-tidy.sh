#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over the library's sources with a build's compile_commands.json.
# Usage: cmake/run-clang-tidy.sh BUILD_DIR [clang-tidy] [files...]   (ctest: lint-tidy)
# Default files: every lib/**/*.cpp and shim/*.cpp (the library and libcclx-mpi; their headers
# are checked through them via HeaderFilterRegex). Pass other files (tools/*.cpp, tests/**/*.cpp) to check them too.
# Runs two files at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-clang-tidy.sh BUILD_DIR [clang-tidy] [files...]}
tidy=${2:-clang-tidy}
shift $(( $# >= 2 ? 2 : 1 ))
[[ -f "$build/compile_commands.json" ]] || { echo "no $build/compile_commands.json" >&2; exit 1; }
if (($#)); then files=("$@"); else mapfile -t files < <(find lib shim -name '*.cpp' | sort); fi
# Files the build does not compile (lib/cuda/ without CCLX_WITH_CUDA) have no flags to check with.
kept=()
for f in "${files[@]}"; do
  if grep -q "\"file\": \".*/${f}\"" "$build/compile_commands.json"; then kept+=("$f"); else echo "skipped (not built): $f"; fi
done
files=("${kept[@]}")
echo "$("$tidy" --version | grep -i version) on ${#files[@]} files"
printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P 2 "$tidy" -p "$build" --quiet
