#!/usr/bin/env bash
# bash bench/gpu.sh run: run the GPU tests, AlexNet's optimisation time (cold and
# warm) and its live measurement table, writing results under $OUT
# (default: ./gpu-results) as gpu-results.tar.gz
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run() {
  # Everything goes to one archive (the device tool returns at most 8 files); the test log also
  # stays beside it for a quick look.
  start_job
  use_pack_libraries
  cat "$out/gpu.txt"
  local status=0 tests_status=0
  UCUDNN_CLI="$root/pack/bin/ucudnn" UCUDNN_PRELOAD_PROBE="$root/pack/bin/ucudnn_preload_probe" UCUDNN_GRAPH_PROBE="$root/pack/bin/ucudnn_graph_probe" \
    UCUDNN_PRELOAD_LIBRARY="$root/pack/lib/libucudnn_preload.so" pack/bin/ucudnn_gpu_tests --gtest_output="xml:$out/gpu-tests.xml" \
    --gtest_filter="${GPU_TEST_FILTER:-*}" ${GPU_TEST_ARGS:-} > "$out/gpu-tests.log" 2>&1 || tests_status=$?
  cat "$out/gpu-tests.log"
  # A crash leaves no gtest summary: its status says so (134 abort, 139 segmentation fault).
  echo "ucudnn_gpu_tests exited with status $tests_status" | tee -a "$out/gpu-tests.log"
  [ "$tests_status" -eq 0 ] || status=1
  pack/bin/ucudnn_consumer 2>&1 | tee "$out/consumer.txt" || status=1
  # Optimisation time of AlexNet (powerOfTwo): cold on an empty database, then warm. The
  # benchmarker's rows also become a measurement table, and conv2 forward's Pareto front (Fig. 8).
  local db
  db=$(mktemp -d)/alexnet.db
  for run in cold warm; do
    measurements=()
    [ "$run" = warm ] && measurements=(--measurements "$out/h100-alexnet-measurements.csv")
    pack/bin/ucudnn bench --network alexnet --database "$db" "${measurements[@]}" 2>/dev/null \
      | sed "s/^/$run: /" | tee -a "$out/alexnet-optimisation-time.txt" || status=1
  done
  pack/bin/ucudnn plan --measurements "$out/h100-alexnet-measurements.csv" --pareto alex_conv2:fwd --json \
    > "$out/alexnet-pareto-conv2-fwd.json" || status=1
  pack/bin/ucudnn plan --measurements tests/data/h100-alexnet-b256-fp32.csv --workspace-limit 64MiB \
    | tee "$out/plan-recorded.txt" || status=1
  archive "gpu-results"
  cp "$out/gpu-tests.log" "$final/"
  return $status
}

run
