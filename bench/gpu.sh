#!/usr/bin/env bash
# Runs every GPU test and benchmark in one call on a lent GPU machine.
#
#   bash bench/gpu.sh pack   here: build with an $ORIGIN-relative RPATH and copy the binaries and
#                            the non-system libraries they need into pack/ (git-ignored)
#   bash bench/gpu.sh run    there: run the GPU tests and benchmarks from pack/, writing
#                            results under $OUT (default: ./gpu-results)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

pack() {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DUCUDNN_PORTABLE_RPATH=ON >/dev/null
  cmake --build build-gpu -j "$(nproc)" >/dev/null
  rm -rf pack && mkdir -p pack/bin pack/lib
  cp build-gpu/tests/ucudnn_gpu_tests build-gpu/src/ucudnn \
     build-gpu/bench/ucudnn_conv_benchmark pack/bin/
  cp -P build-gpu/src/libucudnn.so* pack/lib/
  # Libraries the GPU machine lacks: everything ldd resolves outside the system's C/C++ runtime,
  # CUDA and cuDNN (the GPU machine has its own of those).
  for bin in pack/bin/*; do
    ldd "$bin" | awk '/=> \// {print $3}'
  done | sort -u | { grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl|librt|libcudnn[^/]*|libcudart|libcuda|libucudnn)[.-]' || true; } \
    | while read -r lib; do cp -L "$lib" pack/lib/; done || true
  # The tests read recorded data from the source tree.
  echo "packed: $(ls pack/bin | tr '\n' ' ')/ $(ls pack/lib | tr '\n' ' ')"
}

run() {
  local out=${OUT:-$root/gpu-results}
  mkdir -p "$out"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
  local status=0
  UCUDNN_CLI="$root/pack/bin/ucudnn" pack/bin/ucudnn_gpu_tests --gtest_output="xml:$out/gpu-tests.xml" 2>&1 \
    | tee "$out/gpu-tests.log" || status=1
  for policy in powerOfTwo undivided; do
    pack/bin/ucudnn_conv_benchmark --workspace-limit 64MiB --policy "$policy" \
      --json "$out/alexnet-b256-64MiB-$policy.json" 2>&1 | tee "$out/alexnet-b256-64MiB-$policy.txt" || status=1
  done
  pack/bin/ucudnn plan --measurements tests/data/h100-alexnet-b256-fp32.csv --workspace-limit 64MiB \
    | tee "$out/plan-recorded.txt" || status=1
  return $status
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: bash bench/gpu.sh pack|run" >&2; exit 2 ;;
esac
