#!/usr/bin/env bash
# Builds the CPU parts with clang, ASan, UBSan and libFuzzer, as a build without CUDA (what
# planning from recorded tables needs anywhere), runs that build's CPU tests, then each fuzz
# target over its seed corpus (fuzz/corpus/<target>/) for a bounded number of inputs. New inputs
# go to a scratch folder; the checked-in corpus is never written. A crash, a sanitizer report, a
# broken property or an input slower than the time limit fails the run and keeps the input.
#   UCUDNN_FUZZ_SCALE  percent of each target's default number of inputs (default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${UCUDNN_FUZZ_BUILD_DIR:-build-fuzz}
scale=${UCUDNN_FUZZ_SCALE:-100}
[[ "$scale" =~ ^[0-9]+$ ]] || { echo "fuzz: UCUDNN_FUZZ_SCALE must be a whole number (percent), not '$scale'" >&2; exit 2; }
trap 'echo "fuzz build, tests or targets failed (build folder: $build)" >&2' ERR
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
  -DUCUDNN_SANITIZE=address,undefined -DUCUDNN_BUILD_FUZZERS=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDNN=ON
cmake --build "$build" -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

found="$root/$build/fuzz-found"
mkdir -p "$found"
# Inputs per target: the command line runs whole subcommands (files, a database), so fewer. Each
# target is one process: they run side by side, as many at a time as there are cores, the longest
# first.
cores=$(nproc)
run_target() {  # TARGET RUNS; the target's status
  local target=$1 runs=$2 scratch status=0
  scratch=$(mktemp -d)
  (cd "$found" && "$root/$build/fuzz/ucudnn_fuzz_$target" -runs="$runs" -max_len=4096 -len_control=0 \
     -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 "$scratch" "$root/fuzz/corpus/$target" \
     >"$found/$target.log" 2>&1) || status=$?
  rm -rf "$scratch"
  return $status
}
targets=() pids=()
for entry in measurement_csv:200000 cli:20000 network_json:200000 sizes_and_env:200000; do
  target=${entry%%:*}
  runs=$(( ${entry##*:} * scale / 100 ))
  while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do sleep 1; done
  echo "fuzz: $target, $runs inputs"
  run_target "$target" "$runs" &
  targets+=("$target") pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  target=${targets[$i]} log="$found/${targets[$i]}.log"
  if ! wait "${pids[$i]}"; then
    tail -n 60 "$log" >&2
    echo "fuzz: $target failed; the input that broke it is in $found (log: $log)" >&2
    failed=1
    continue
  fi
  echo "fuzz: $target passed"
  grep -E "^(Done|stat::(new_units_added|slowest_unit_time_sec|peak_rss_mb))" "$log" | sed 's/^/  /'
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: every target passed"
