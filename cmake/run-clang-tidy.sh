#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over the library's sources with a build's compile_commands.json.
# Usage: cmake/run-clang-tidy.sh BUILD_DIR [clang-tidy] [files...]   (ctest: lint-tidy)
# Default files: every lib/**/*.cpp and shim/*.cpp (the library and libcclx-mpi; their headers
# are checked through them via HeaderFilterRegex). Pass other files (tools/*.cpp, tests/**/*.cpp)
# to check them too. In a unity build (CMAKE_UNITY_BUILD, the presets' default) a source is
# checked through the unity translation unit that includes it: the sources match
# HeaderFilterRegex, so their diagnostics are reported as a header's would be, and each batch's
# headers are parsed once. bugprone-suspicious-include is off there: including sources is what a
# unity translation unit does. Runs two translation units at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
build=${1:?usage: run-clang-tidy.sh BUILD_DIR [clang-tidy] [files...]}
tidy=${2:-clang-tidy}
shift $(($# >= 2 ? 2 : 1))
db=$build/compile_commands.json
[[ -f "$db" ]] || {
  echo "no $db" >&2
  exit 1
}
if (($#)); then files=("$@"); else mapfile -t files < <(find lib shim -name '*.cpp' | sort); fi
# Each file's translation unit: itself when the build compiles it alone, else the unity file that
# includes it. Files the build does not compile (lib/cuda/ without CCLX_WITH_CUDA) are skipped.
shopt -s nullglob
unity_files=("$build"/*/CMakeFiles/*/Unity/*.cxx "$build"/CMakeFiles/*/Unity/*.cxx)
shopt -u nullglob
units=()
for f in "${files[@]}"; do
  unit=""
  if grep -q "\"file\": \".*/${f}\"" "$db"; then
    unit=$f
  elif ((${#unity_files[@]})); then
    unit=$(grep -lF "#include \"$root/$f\"" "${unity_files[@]}" | head -n 1 || true)
  fi
  if [[ -n "$unit" ]]; then
    units+=("$unit")
  else
    echo "skipped (not built): $f"
  fi
done
mapfile -t units < <(printf '%s\n' "${units[@]}" | sort -u)
echo "$("$tidy" --version | grep -i version) on ${#files[@]} files in ${#units[@]} translation units"
printf '%s\0' "${units[@]}" | xargs -0 -n 1 -P 2 bash -c '
  case "$2" in
    */Unity/*) exec "$0" -p "$1" --quiet --checks=-bugprone-suspicious-include "$2" ;;
    *) exec "$0" -p "$1" --quiet "$2" ;;
  esac' "$tidy" "$build"
