#!/usr/bin/env bash
# Configures and builds ucudnn: one build folder, one set of options, for both of the README's
# commands, so that whichever runs second builds only what the first did not.
#   scripts/build.sh [TARGET...]     (default: everything)
#   UCUDNN_BUILD_DIR                 the build folder (default: build)
# Quiet: one line per stage; CMake's and the compiler's output go to BUILD/logs/configure.log and
# BUILD/logs/build.log (each the last run's). A failed stage shows its first error and the log's
# path (under CI=true, the whole log).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${UCUDNN_BUILD_DIR:-build}
targets=()
for target in "$@"; do targets+=(--target "$target"); done
mkdir -p "$build/logs"

# stage WHAT LOG COMMAND...: runs COMMAND into LOG, saying WHAT on one line and how it ended.
stage() {
  local what=$1 log=$2 started=$SECONDS
  shift 2
  printf 'build: %s ... ' "$what"
  if "$@" > "$log" 2>&1; then
    local compiled took=$((SECONDS - started))
    compiled=$(grep -cE "Building (CXX|C|CUDA) object" "$log" || true)
    [ "$took" -lt 90 ] && took="$took s" || took="$(( (took + 30) / 60 )) min"
    case "$what" in
      configuring*) echo "done in $took (log: $log)" ;;
      *) if [ "$compiled" -eq 0 ]; then
           echo "up to date, nothing compiled (log: $log)"
         else
           echo "done, $compiled source files compiled in $took (log: $log)"
         fi ;;
    esac
    return 0
  fi
  echo "FAILED"
  if [ "${CI:-}" = true ]; then
    echo "--- $log"
    cat "$log"
  else
    # Make runs jobs side by side: the first error is the one to read, from a few lines before it.
    local first
    first=$(grep -nE "error:|Error [0-9]+|CMake Error|undefined reference|fatal|\*\*\*" "$log" | head -n 1 | cut -d: -f1 || true)
    if [ -n "$first" ]; then
      sed -n "$((first > 5 ? first - 5 : 1)),$((first + 54))p" "$log"
    else
      tail -n 60 "$log"
    fi
  fi
  echo "build: $what failed; the whole log is $log (build folder: $build)" >&2
  exit 1
}

# -g1: line tables and function names (what a backtrace or a sanitizer report needs) at a fifth
# less build time than full debug information (5.4 -> 4.3 min on two cores); debug with a Debug build.
stage "configuring $build/" "$build/logs/configure.log" \
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DUCUDNN_WARNINGS_AS_ERRORS=ON
stage "compiling ${*:-everything} on $(nproc) cores" "$build/logs/build.log" \
  cmake --build "$build" -j "$(nproc)" "${targets[@]}"
