#!/usr/bin/env bash
# The main job: set up, build, then show what micro-batching does for AlexNet's convolution
# kernels (batch 256, 64 MiB workspace limit per kernel).
#   - with a GPU: benchmarks live the 14 kernels of a training step (the input layer's backward
#     data left out), ucudnn against plain legacy cuDNN, cuDNN's best single engine at 64 MiB and
#     unlimited, in one run (bench/conv_benchmark.cpp);
#   - without one: plans all 15 kernels from the recorded H100 measurements shipped in tests/data/.
# Arguments are passed to the benchmark (GPU) or to `ucudnn plan` (no GPU). The set-up and the build
# say one line per stage (their whole output: build/logs/); the job ends by saying where the
# `ucudnn` command is and how to put it on PATH, for the README's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
build=${UCUDNN_BUILD_DIR:-build}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  bash scripts/build.sh ucudnn_conv_benchmark ucudnn_cli  # the command too: the job ends naming it
  "$build/bench/ucudnn_conv_benchmark" --workspace-limit 64MiB "$@"
else
  bash scripts/build.sh ucudnn_cli
  table=tests/data/h100-alexnet-b256-fp32.csv
  cat <<TEXT
No GPU found: planning from recorded measurements instead of benchmarking live.
  data      $table: AlexNet's 5 convolutions, batch 256, FP32, measured on an
            NVIDIA H100 with cuDNN 9.14; cuDNN's legacy algorithms only (no graph-API engines)
  columns   undivided ms: the fastest algorithm that runs the whole batch within the limit, which
            is what plain cuDNN runs under it; planned ms: ucudnn's plan under the same limit, each
            kernel (one operation of one layer) split into micro-batches where that is faster
TEXT
  plan_log=$(mktemp)
  "$build/src/ucudnn" plan --measurements "$table" --workspace-limit 64MiB "$@" | tee "$plan_log"
  # The README's Results time a training step: the input layer's backward data is not part of it.
  awk '$1 == "alex_conv1" && $2 == "bwdd" { u -= $4; p -= $5 } $1 == "total" { u += $2; p += $3 }
       END { if (p > 0) printf "without alex_conv1 bwdd (a training step computes no gradient of the images): %.3f ms undivided, %.3f ms planned, %.2fx\n", u, p, u / p }' "$plan_log"
  rm -f "$plan_log"
  cat <<TEXT
This plan is from measurements of legacy algorithms. Live on a GPU (this command there, or the
README's Results), ucudnn also plans with cuDNN's graph-API engines and is compared with plain
legacy cuDNN, cuDNN's best single engine at the limit and the best engines unlimited, on the
14 kernels of a training step.
TEXT
fi
# The README's commands call it `ucudnn`: where it is, and how to make that name work.
bin=$(cd "$build/src" && pwd)
echo "The ucudnn command is $bin/ucudnn; for the README's commands, put it on PATH:"
echo "  export PATH=\"$bin:\$PATH\""
