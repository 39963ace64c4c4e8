#!/usr/bin/env bash
# bash bench/gpu.sh overhead: host microseconds per convolution call, plain cuDNN
# against ucudnn, on a tiny convolution (FP32 NCHW and FP16 NHWC)
#
# Host overhead per call (bench/call_overhead.cpp): FP32 NCHW, then FP16 NHWC; the tables also
# go to overhead-summary.txt beside the archive.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

overhead() {
  local status=0
  start_job
  use_pack_libraries
  for config in "float NCHW" "half NHWC"; do
    read -r dtype layout <<< "$config"
    local name="$out/overhead-$dtype-$layout"
    pack/bin/ucudnn_call_overhead --data-type "$dtype" --layout "$layout" --json "$name.json" 2>&1 \
      | tee "$name.txt" || status=1
    cat "$name.txt" >> "$out/overhead-summary.txt"
  done
  archive "overhead-results"
  cp "$out/overhead-summary.txt" "$final/"
  return $status
}

overhead
