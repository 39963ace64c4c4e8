#!/usr/bin/env bash
# bash bench/gpu.sh pytorch: PyTorch through the LD_PRELOAD layer (the test, and the
# benchmark of AlexNet's convolutions and of ResNet-50 FP16)
#
# PyTorch through the LD_PRELOAD layer: the comparison test, then the benchmark of each model
# (AlexNet's convolutions FP32, ResNet-50 autocast FP16 channels_last); the benchmarks' tables
# also go to pytorch-summary.txt beside the archive.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pytorch() {
  local status=0
  start_job
  if [ "${PYTORCH_TEST:-1}" = 1 ]; then
    python3 tests/integration/pytorch_preload.py --preload "$root/pack/lib/libucudnn_preload.so" --out "$out/logs" \
      2>&1 | tee "$out/pytorch-test.txt" || status=1
  fi
  for model in ${PYTORCH_MODELS:-resnet50-fp16 resnet18-fp16 resnet50-bf16 alexnet-convs}; do
    for limit in ${PYTORCH_LIMITS:-64MiB 8MiB}; do
      # One database per model: the ucudnn runs measure once and plan every limit from its rows
      # (benchmarking happens in the warm-up, outside the timed iterations, either way).
      UCUDNN_DATABASE="$out/$model.db" python3 bench/pytorch_preload_bench.py --preload "$root/pack/lib/libucudnn_preload.so" --model "$model" \
        --workspace-limit "$limit" --json "$out/pytorch-bench-$model-$limit.json" --log-dir "$out/plans-$model-$limit" \
        ${PYTORCH_MODES:+--modes "$PYTORCH_MODES"} --rounds "${PYTORCH_ROUNDS:-1}" 2>&1 \
        | tee "$out/pytorch-bench-$model-$limit.txt" || status=1
      cat "$out/pytorch-bench-$model-$limit.txt" >> "$out/pytorch-summary.txt"
      archive "pytorch-results"  # after each run: a cut-short call keeps what it did
      cp "$out/pytorch-summary.txt" "$final/"
    done
    remove_database "$out/$model.db"
  done
  cp "$out/pytorch-summary.txt" "$final/"
  return $status
}

pytorch
