#!/usr/bin/env bash
# The main job: set up, build, then show what micro-batching does for AlexNet's convolution
# kernels (batch 256, 64 MiB workspace limit per kernel).
#   - with a GPU: benchmarks live the 14 kernels of a training step (the input layer's backward
#     data left out), ucudnn against plain legacy cuDNN, cuDNN's best single engine at 64 MiB and
#     unlimited, in one run (bench/conv_benchmark.cpp);
#   - without one: plans all 15 kernels from the recorded H100 measurements shipped in tests/data/.
# Arguments are passed to the benchmark (GPU) or to `ucudnn plan` (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
build=${UCUDNN_BUILD_DIR:-build}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  bash scripts/build.sh ucudnn_conv_benchmark
  "$build/bench/ucudnn_conv_benchmark" --workspace-limit 64MiB "$@"
else
  bash scripts/build.sh ucudnn_cli
  echo "no GPU found: planning from the recorded H100 measurements (tests/data/h100-alexnet-b256-fp32.csv)"
  "$build/src/ucudnn" plan --measurements tests/data/h100-alexnet-b256-fp32.csv --workspace-limit 64MiB "$@"
fi
