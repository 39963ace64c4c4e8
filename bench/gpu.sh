#!/usr/bin/env bash
# Runs every GPU test and benchmark in one call on a lent GPU machine.
#
#   bash bench/gpu.sh pack   here: build with an $ORIGIN-relative RPATH and copy the binaries and
#                            the non-system libraries they need into pack/ (git-ignored)
#   bash bench/gpu.sh run    there: run the GPU tests, AlexNet's optimisation time (cold and
#                            warm) and its live measurement table, writing results under $OUT
#                            (default: ./gpu-results) as gpu-results.tar.gz
#   bash bench/gpu.sh pytorch  there: PyTorch through the LD_PRELOAD layer (the test, and the
#                            benchmark of AlexNet's convolutions and of ResNet-50 FP16)
#   bash bench/gpu.sh overhead   there: host microseconds per convolution call, plain cuDNN
#                            against ucudnn, on a tiny convolution (FP32 NCHW and FP16 NHWC)
#   bash bench/gpu.sh sweep NETS LIMITS CONFIGS [PRECISIONS]   there: the comparison (below)
#   bash bench/gpu.sh multigpu   there (several GPUs): `ucudnn bench` for AlexNet and ResNet-50 on
#                            one GPU and on all (UCUDNN_BENCHMARK_DEVICES=all), empty databases
#                            each: benchmarking times and whether the rows' keys are identical
#   bash bench/gpu.sh baselines   there: ucudnn against its three baselines (plain legacy cuDNN,
#                            cuDNN's best single engine at the limit and unlimited) for networks x
#                            precisions x limits, with a summary table and picture (below)
#   bash bench/gpu.sh search   there: how long finding a plan takes, fast and exhaustive search,
#                            against cuDNN's Find in the same run, per network x precision x policy
#                            (env SEARCH_NETS, SEARCH_PRECISIONS, SEARCH_POLICIES, SEARCH_LIMITS,
#                            SEARCH_MODES), one JSON each, summarised by bench/summarize_search.py
#   bash bench/gpu.sh compare OLDPACK   there: this build against an older pack (same layout as
#                            pack/), alternating, on AlexNet and ResNet-50 at 64 MiB (WR) and
#                            ResNet-50 in WD, to show a change kept the speedups
#   bash bench/gpu.sh curves [pytorch:MODEL|jax:MODEL ...]   there: step time against memory
#                            budget, plain framework against `ucudnn run`, per model
#                            (bench/framework_curves.py), the models spread over the GPUs one
#                            process per GPU; CURVES_ROUNDS, CURVES_BUDGETS, CURVES_DEADLINE (s from the
#                            start: no process starts later), CURVES_GPUS ("0 1 2": those only); MODEL@none,9GiB,...: its own
#                            budgets; CURVES_RUN_ARGS: options for `ucudnn run` (e.g.
#                            --micro-batch-offers); `framework_curves.py --merge` joins one model's parts
#   bash bench/gpu.sh newshapes   there: what a new batch size costs an inference loop: the legacy
#                            API (bench/new_batch_sizes.cpp: ucudnn's planning against cuDNN's Find,
#                            NEWSHAPES_NETS="NET:TYPE:LAYOUT:BATCHES ...") and PyTorch (bench/pytorch_new_shapes.py:
#                            its benchmark mode, its heuristics and ucudnn, NEWSHAPES_TORCH_BATCHES)
#   bash bench/gpu.sh cluster   there: one multi-rank PyTorch job through `ucudnn run` and one
#                            database (bench/pytorch_job.py), 1 rank then CLUSTER_RANKS (default 2, and
#                            4 on 4 GPUs) on empty databases, then the last again on its filled one;
#                            then `ucudnn bench` of CLUSTER_LEGACY_NETS by 1 process and by one per GPU
#   bash bench/gpu.sh graphapi   there: the graph-API proofs (tests/graph_api/README.md): the
#                            TensorFlow-style loader plain and through `ucudnn run`, PyTorch's
#                            OpInfo convolutions, JAX's convolutions against an FP64 reference
#                            (tests/integration/jax_conv_accuracy.py), a CUDA-graph-captured step, the
#                            per-call host cost and the training-step benchmark (GRAPHAPI_STEPS)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

pack() {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DUCUDNN_PORTABLE_RPATH=ON >/dev/null
  # What the GPU machine runs, not the CPU suite (CI builds and runs that).
  cmake --build build-gpu -j "$(nproc)" --target ucudnn_gpu_tests ucudnn_preload_probe ucudnn_graph_probe ucudnn_cli ucudnn \
    ucudnn_preload ucudnn_bench ucudnn_conv_benchmark ucudnn_call_overhead ucudnn_legacy_plan_cache ucudnn_new_batch_sizes >/dev/null
  rm -rf pack && mkdir -p pack/bin pack/lib
  cp build-gpu/tests/ucudnn_gpu_tests build-gpu/tests/ucudnn_preload_probe build-gpu/tests/ucudnn_graph_probe build-gpu/src/ucudnn \
     build-gpu/bench/ucudnn_conv_benchmark build-gpu/bench/ucudnn_call_overhead \
     build-gpu/bench/ucudnn_legacy_plan_cache build-gpu/bench/ucudnn_new_batch_sizes pack/bin/
  cp -P build-gpu/src/libucudnn.so* build-gpu/src/libucudnn_preload.so build-gpu/src/libucudnn_bench.so pack/lib/
  # The README's quick start: a project of its own, built against the installed package.
  cmake --install build-gpu --prefix build-gpu/install >/dev/null
  cmake -S examples/consumer -B build-gpu/consumer -DCMAKE_PREFIX_PATH="$root/build-gpu/install" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-gpu/consumer >/dev/null
  cp build-gpu/consumer/consumer pack/bin/ucudnn_consumer
  # The TensorFlow-style loader (tests/graph_api/): cudnn-frontend's headers come from PyPI
  # (tests/graph_api/fetch_frontend.sh); where they cannot be fetched, the pack goes on without it.
  local loader
  if loader=$(bash tests/graph_api/build.sh build-gpu/graph-api 2> build-gpu/graph-api.log); then
    cp "$loader" pack/bin/
  else
    echo "pack: warning: tf_style_loader not built (build-gpu/graph-api.log says why); graphapi's loader step will fail" >&2
    tail -3 build-gpu/graph-api.log >&2
  fi
  # Libraries the GPU machine lacks.
  bash scripts/bundle_libraries.sh pack/lib pack/bin/* pack/lib/libucudnn_bench.so
  # The tests read recorded data from the source tree.
  echo "packed: $(ls pack/bin | tr '\n' ' ')/ $(ls pack/lib | tr '\n' ' ')"
}

run() {
  local final=${OUT:-$root/gpu-results}
  # Everything goes to one archive (the device tool returns at most 8 files); the test log also
  # stays beside it for a quick look.
  local out
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
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
  tar -czf "$final/gpu-results.tar.gz" -C "$out" .
  cp "$out/gpu-tests.log" "$final/"
  return $status
}

# The paper's comparison for several networks (bench/sweep.sh), then pictures and a table
# (bench/plot.py) per precision: bash bench/gpu.sh sweep "alexnet resnet50" "8MiB 64MiB 512MiB" \
#   "undivided powerOfTwo wd" "float:NCHW half:NHWC bfloat16:NHWC"
# SWEEP_ARGS adds benchmark options (SWEEP_ARGS="--graph-replay 0"); SWEEP_TAG names the folders.
sweep() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt"
  # PRECISIONS: data type and layout pairs, each in its own folder (float-NCHW, half-NHWC, ...).
  for precision in $4; do
    local type=${precision%%:*} layout=${precision##*:}
    local dir="$out/$type-$layout${SWEEP_TAG:+-$SWEEP_TAG}"
    mkdir -p "$dir"
    for net in $1; do
      BENCH_ARGS="--data-type $type --layout $layout ${SWEEP_ARGS:-}" UCUDNN_DATABASE="$dir/$net.db" \
        bash bench/sweep.sh pack/bin/ucudnn_conv_benchmark "$net" "$dir" "$2" "$3" | sed "s/^/$type $layout /" || status=1
      rm -f "$dir/$net.db" "$dir/$net.db-wal" "$dir/$net.db-shm"
      # Archived after every network, so that a run cut short still returns what it finished.
      tar -czf "$final/sweep-results${SWEEP_TAG:+-$SWEEP_TAG}.tar.gz" -C "$out" .
    done
    python3 bench/plot.py "$dir" > /dev/null || status=1
  done
  tar -czf "$final/sweep-results${SWEEP_TAG:+-$SWEEP_TAG}.tar.gz" -C "$out" .
  return $status
}

# PyTorch through the LD_PRELOAD layer: the comparison test, then the benchmark of each model
# (AlexNet's convolutions FP32, ResNet-50 autocast FP16 channels_last); the benchmarks' tables
# also go to pytorch-summary.txt beside the archive.
pytorch() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
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
      tar -czf "$final/pytorch-results.tar.gz" -C "$out" .  # after each run: a cut-short call keeps what it did
      cp "$out/pytorch-summary.txt" "$final/"
    done
    rm -f "$out/$model.db"*
  done
  cp "$out/pytorch-summary.txt" "$final/"
  return $status
}

# Optimisation time: each network x precision x policy x limit x search mode in a fresh process
# with no database, ucudnn's planning against cuDNN's Find (the plain legacy side) in the same run.
search() {
  local final=${OUT:-$root/gpu-results} out status=0 name
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  for net in ${SEARCH_NETS:-alexnet resnet18 resnet50 vgg16 densenet40}; do
    for precision in ${SEARCH_PRECISIONS:-float-NCHW half-NHWC bfloat16-NHWC}; do
      for policy in ${SEARCH_POLICIES:-powerOfTwo undivided}; do
        for limit in ${SEARCH_LIMITS:-64MiB}; do
          for mode in ${SEARCH_MODES:-fast}; do
            name=$net-$precision-$policy-$limit-$mode
            env -u UCUDNN_DATABASE pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "${precision%-*}" \
              --layout "${precision#*-}" --policy "$policy" --workspace-limit "$limit" --search "$mode" \
              --baselines plain --iterations 5 --json "$out/$name.json" > "$out/$name.txt" 2>&1 || status=1
            grep -E "^planning|^ucudnn's search|^sequence" "$out/$name.txt" | sed "s/^/$name: /" \
              | tee -a "$out/search-summary.txt"
            tar -czf "$final/search-results${SEARCH_TAG:+-$SEARCH_TAG}.tar.gz" -C "$out" .  # a cut-short call keeps what it did
          done
        done
      done
    done
  done
  cp "$out/search-summary.txt" "$final/search-summary${SEARCH_TAG:+-$SEARCH_TAG}.txt"
  return $status
}

# Host overhead per call (bench/call_overhead.cpp): FP32 NCHW, then FP16 NHWC; the tables also
# go to overhead-summary.txt beside the archive.
overhead() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
  for config in "float NCHW" "half NHWC"; do
    read -r dtype layout <<< "$config"
    local name="$out/overhead-$dtype-$layout"
    pack/bin/ucudnn_call_overhead --data-type "$dtype" --layout "$layout" --json "$name.json" 2>&1 \
      | tee "$name.txt" || status=1
    cat "$name.txt" >> "$out/overhead-summary.txt"
  done
  tar -czf "$final/overhead-results.tar.gz" -C "$out" .
  cp "$out/overhead-summary.txt" "$final/"
  return $status
}

# A refactoring must keep the speedups: both builds, alternating, twice, each with its own
# database (so each benchmarks cold in round 1 and plans from its database in round 2).
# Graph-API engines as candidates (issue 14): conv sequences of ResNet-50, ResNet-18 and AlexNet in
# FP16 and BF16 channels-last and FP32, at 8 and 64 MiB per kernel, ucudnn planning with legacy
# algorithms only and with engines too, each against plain legacy cuDNN in the same run. One
# database per network and precision: rows are measured once and serve both limits.
# ENGINE_NETS, ENGINE_PRECISIONS, ENGINE_LIMITS narrow it (a call has at most 10 minutes);
# ENGINE_BASELINES=all adds the best-engine baselines (default plain: `baselines` measures them).
engines() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt"
  for precision in ${ENGINE_PRECISIONS:-half:NHWC bfloat16:NHWC float:NCHW}; do
    local type=${precision%%:*} layout=${precision##*:}
    for net in ${ENGINE_NETS:-resnet50 resnet18 alexnet}; do
      for limit in ${ENGINE_LIMITS:-64MiB 8MiB}; do
        for candidates in legacy both; do
          local name="$out/$net-$type-$layout-$limit-$candidates"
          UCUDNN_DATABASE="$db_dir/$net-$type.db" pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" \
            --layout "$layout" --workspace-limit "$limit" --candidates "$candidates" --iterations 10 \
            --baselines "${ENGINE_BASELINES:-plain}" --json "$name.json" > "$name.txt" 2>&1 || status=1
          echo "$net $type $layout $limit $candidates: $(grep -E '^sequence' "$name.txt" || tail -1 "$name.txt")" \
            | tee -a "$out/engines-summary.txt"
        done
      done
      rm -f "$out/$net-$type.db"*
      tar -czf "$final/engines-results${ENGINE_TAG:+-$ENGINE_TAG}.tar.gz" -C "$out" .
    done
  done
  cp "$out/engines-summary.txt" "$final/engines-summary${ENGINE_TAG:+-$ENGINE_TAG}.txt"
  return $status
}

# ucudnn against its three baselines (bench/conv_benchmark.cpp): plain legacy cuDNN, cuDNN's best
# single engine at the per-kernel limit and unlimited, all in the same run, for every network x
# precision x limit. One database per network and precision: the second limit and the baselines
# reuse the rows the first run measured. Each run writes NET-TYPE-LAYOUT-LIMIT.txt and .json; after
# every run the archive, baselines-summary.md and baselines-ratios.svg (bench/summarize_baselines.py)
# are brought up to date in $OUT, so a call cut short keeps what it finished. BASELINE_NETS,
# BASELINE_PRECISIONS and BASELINE_LIMITS narrow it, BASELINE_ITERATIONS sets the medians (10),
# BASELINE_ARGS adds options, BASELINE_TAG names the files (to run it in parts, one tag each).
# BASELINE_DB_DIR keeps the databases in that folder (default: deleted after each network), so that
# a later call on the same warm machine (a git-ignored folder such as build-gpu/baselines-db)
# plans from them instead of measuring again; the runs then report no benchmarking time.
# Cold, every default takes about 15 minutes on an H100 (ucudnn's measuring: 1 to 2 minutes per
# network and precision), more than one call's 10: run it one precision a call, e.g.
#   BASELINE_PRECISIONS=half:NHWC BASELINE_TAG=half bash bench/gpu.sh baselines
# and summarise the parts together: python3 bench/summarize_baselines.py DIR1 DIR2 DIR3 --out DIR.
baselines() {
  local final=${OUT:-$root/gpu-results} out status=0 tag=${BASELINE_TAG:+-$BASELINE_TAG}
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt"
  local nets=${BASELINE_NETS:-alexnet resnet50 resnet18}
  local precisions=${BASELINE_PRECISIONS:-float:NCHW half:NHWC bfloat16:NHWC}
  local limits=${BASELINE_LIMITS:-8MiB 64MiB}
  local extra=() runs=0 run=0 started=$SECONDS db_dir=${BASELINE_DB_DIR:-$out}
  mkdir -p "$db_dir"
  read -r -a extra <<< "${BASELINE_ARGS:-}"
  runs=$(( $(wc -w <<< "$nets") * $(wc -w <<< "$precisions") * $(wc -w <<< "$limits") ))
  for precision in $precisions; do
    local type=${precision%%:*} layout=${precision##*:}
    for net in $nets; do
      for limit in $limits; do
        run=$((run + 1))
        local name="$out/$net-$type-$layout-$limit"
        UCUDNN_DATABASE="$db_dir/$net-$type.db" pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" \
          --layout "$layout" --workspace-limit "$limit" --iterations "${BASELINE_ITERATIONS:-10}" "${extra[@]}" \
          --json "$name.json" > "$name.txt" 2>&1 || { status=1; rm -f "$name.json"; }
        echo "[$run/$runs, $((SECONDS - started)) s] $net $type $layout $limit: $(grep -E '^sequence' "$name.txt" \
          || tail -1 "$name.txt")" | tee -a "$out/baselines-progress.txt"
        python3 bench/summarize_baselines.py "$out" > /dev/null || status=1
        cp "$out/baselines-summary.md" "$final/baselines-summary$tag.md" 2>/dev/null || true
        cp "$out/baselines-ratios.svg" "$final/baselines-ratios$tag.svg" 2>/dev/null || true
        cp "$out/baselines-progress.txt" "$final/baselines-progress$tag.txt"
        tar -czf "$final/baselines-results$tag.tar.gz" --exclude='*.db*' -C "$out" .
      done
      [ -n "${BASELINE_DB_DIR:-}" ] || rm -f "$db_dir/$net-$type.db"*
    done
  done
  cat "$out/baselines-summary.md" 2>/dev/null || true
  return $status
}

compare() {
  local old=$1 final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
  local configs=("alexnet --workspace-limit 64MiB --policy powerOfTwo"
                 "resnet50 --workspace-limit 64MiB --policy powerOfTwo"
                 "resnet50 --workspace-limit 8MiB --total-workspace 552MiB")
  for round in 1 2; do
    for build in "$old" pack; do
      local tag help same=()
      tag=$(basename "$build")
      # Builds that know them measure what older ones did: every kernel, plain legacy cuDNN only.
      help=$(LD_LIBRARY_PATH="$root/$build/lib:${LD_LIBRARY_PATH:-}" "$root/$build/bin/ucudnn_conv_benchmark" --help \
        2>/dev/null || true)
      [[ $help == *--input-gradient* ]] && same=(--input-gradient --baselines plain)
      for config in "${configs[@]}"; do
        read -r net rest <<< "$config"
        local name="$out/$tag-$net-$(echo "$rest" | tr -d ' -' )-r$round"
        UCUDNN_DATABASE="$out/$tag-$net.db" LD_LIBRARY_PATH="$root/$build/lib:${LD_LIBRARY_PATH:-}" \
          "$root/$build/bin/ucudnn_conv_benchmark" --net "$net" $rest "${same[@]}" --json "$name.json" > "$name.txt" 2>&1 \
          || status=1
        echo "round $round $tag $net $rest: $(grep -E 'whole sequence|^sequence' "$name.txt")" | tee -a "$out/compare.txt"
      done
    done
  done
  rm -f "$out"/*.db "$out"/*.db-wal "$out"/*.db-shm
  tar -czf "$final/compare-results.tar.gz" -C "$out" .
  cp "$out/compare.txt" "$final/"
  return $status
}

# The graph-API proofs (tests/graph_api/README.md), one step after another, each archived as it
# ends (graphapi-results$GRAPHAPI_TAG.tar.gz and graphapi-summary$GRAPHAPI_TAG.txt in $OUT), so a call
# cut short keeps what it finished. GRAPHAPI_STEPS picks and orders the steps (default all):
#   loader     pack/bin/tf_style_loader --self-test, then plain, then `ucudnn run --workspace-limit L`
#              for L in GRAPHAPI_LOADER_LIMITS (1MiB 64MiB), its graph workspaces checked <= L;
#              GRAPHAPI_LOADER_ARGS adds options (e.g. "--dtypes half --api graph"); about a minute
#   opinfo     tests/integration/graph_api_opinfo.py at GRAPHAPI_OPINFO_LIMITS (64KiB,1MiB);
#              GRAPHAPI_OPINFO_ARGS replaces its options "--max-samples 12 --timeout 200" (at most 12
#              samples per op and type, 200 s per child; "" runs every sample); a few minutes
#   jax        tests/integration/jax_conv_accuracy.py at GRAPHAPI_JAX_LIMITS (64KiB,1MiB): JAX's
#              convolutions plain and through ucudnn against an FP64 reference; a minute or two
#   cudagraph  tests/integration/graph_api_cuda_graph.py at GRAPHAPI_CUDAGRAPH_LIMITS (1MiB,64MiB)
#   overhead   bench/graph_call_overhead.py at GRAPHAPI_OVERHEAD_LIMIT (64MiB), ROUNDS processes a side;
#              GRAPHAPI_OVERHEAD_ARGS adds its options (e.g. "--calls 200 --repetitions 21")
#   train      bench/pytorch_preload_bench.py, modes GRAPHAPI_TRAIN_MODES (default,ucudnn-graph), for
#              GRAPHAPI_MODELS (resnet50-fp16 resnet50-bf16 resnet18-fp16 alexnet-convs) x
#              GRAPHAPI_TRAIN_LIMITS (64MiB 8MiB), ROUNDS (3) fresh processes per mode interleaved,
#              GRAPHAPI_ITERATIONS (20) timed steps; one UCUDNN_DATABASE per model (its first
#              ucudnn process benchmarks, the first-step column shows each round). Several minutes
#              per model: run one or two models a call (GRAPHAPI_STEPS=train GRAPHAPI_MODELS=...).
# A call has at most 10 minutes: e.g. GRAPHAPI_STEPS="loader opinfo jax cudagraph overhead" in one call,
# then the train step a model or two at a time, each with its own GRAPHAPI_TAG.
graphapi() {
  local final=${OUT:-$root/gpu-results} out status=0 tag=${GRAPHAPI_TAG:+-$GRAPHAPI_TAG}
  out=$(mktemp -d)
  mkdir -p "$final"
  local summary="$out/graphapi-summary.txt" ucudnn="$root/pack/bin/ucudnn" loader="$root/pack/bin/tf_style_loader"
  local rounds=${ROUNDS:-3} started=$SECONDS
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt"
  cat "$out/gpu.txt" > "$summary"
  graphapi_save() {
    tar -czf "$final/graphapi-results$tag.tar.gz" --exclude='*.db*' -C "$out" .
    cp "$summary" "$final/graphapi-summary$tag.txt"
  }
  # FILE LABEL: ucudnn's graph-API and front-end lines into the summary; fails where no plan was
  # intercepted.
  graph_plans_intercepted() {
    local line
    line=$(grep -E '^ucudnn: graph API:' "$1" | tail -1 || true)
    echo "$2: ${line:-no 'ucudnn: graph API:' line on stderr}" >> "$summary"
    { grep -E '^ucudnn: front-ends active:' "$1" || true; } | tail -1 | sed "s/^/$2: /" >> "$summary"
    [[ $line =~ graph\ API:\ ([0-9]+)\ plans ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]
  }
  for step in ${GRAPHAPI_STEPS:-loader opinfo jax cudagraph overhead train}; do
    echo "== $step ($((SECONDS - started)) s)" | tee -a "$summary"
    case $step in
      loader)
        if [ ! -x "$loader" ]; then
          echo "loader: FAIL pack/bin/tf_style_loader is missing (pack could not build it)" | tee -a "$summary"
          status=1
        else
          local args=()
          read -r -a args <<< "${GRAPHAPI_LOADER_ARGS:-}"
          "$loader" --self-test > "$out/loader-self-test.txt" 2>&1 || status=1
          echo "loader self-test: $(tail -1 "$out/loader-self-test.txt")" >> "$summary"
          env -u LD_PRELOAD "$loader" "${args[@]}" > "$out/loader-plain.txt" 2>&1 || status=1
          { grep -E '^(tf_style_loader:|dlopen|dlsym\(handle, "cudnnBackendExecute"\)|largest|unsupported|PASSED|FAILED)|FAIL$' "$out/loader-plain.txt" \
              || tail -3 "$out/loader-plain.txt"; } | sed 's/^/loader plain: /' >> "$summary"
          for limit in ${GRAPHAPI_LOADER_LIMITS:-1MiB 64MiB}; do
            local name="loader-ucudnn-$limit"
            "$ucudnn" run --workspace-limit "$limit" -- "$loader" --max-workspace "$limit" "${args[@]}" \
              > "$out/$name.txt" 2>&1 || status=1
            { grep -E '^(ucudnn run:|ucudnn: error|tf_style_loader:|dlopen|dlsym\(handle, "cudnnBackendExecute"\)|largest|unsupported|PASSED|FAILED)|FAIL$' \
                "$out/$name.txt" || tail -3 "$out/$name.txt"; } | sed "s/^/$name: /" >> "$summary"
            # Preloaded, the handle of libcudnn.so.9 is the preload library's: its interceptor answers.
            if ! grep -qE '^dlsym\(handle, "cudnnBackendExecute"\): .*libucudnn_preload' "$out/$name.txt"; then
              echo "$name: FAIL cudnnBackendExecute did not resolve to libucudnn_preload.so on the dlopen handle" >> "$summary"
              status=1
            fi
            graph_plans_intercepted "$out/$name.txt" "$name" || { echo "$name: FAIL no graph-API plan intercepted" >> "$summary"; status=1; }
            # What cuDNN cannot run plainly is not ucudnn's to run; anything more is.
            local plain_unsupported preloaded_unsupported
            plain_unsupported=$(grep -E '^unsupported cases:' "$out/loader-plain.txt" || true)
            preloaded_unsupported=$(grep -E '^unsupported cases:' "$out/$name.txt" || true)
            if [ "$plain_unsupported" != "$preloaded_unsupported" ]; then
              echo "$name: FAIL '$preloaded_unsupported' preloaded, '$plain_unsupported' plain" >> "$summary"
              status=1
            fi
            graphapi_save
          done
        fi
        ;;
      opinfo)
        local args=()
        read -r -a args <<< "${GRAPHAPI_OPINFO_ARGS---max-samples 12 --timeout 200}"
        python3 tests/integration/graph_api_opinfo.py --ucudnn "$ucudnn" --limits "${GRAPHAPI_OPINFO_LIMITS:-64KiB,1MiB}" \
          --out "$out/opinfo" "${args[@]}" > "$out/opinfo.txt" 2>&1 || status=1
        { grep -E '^(torch|samples|  nn\.|ucudnn at|\[|ok|FAIL|PASSED|FAILED|SKIPPED| +[0-9]+\.[0-9]+  )' "$out/opinfo.txt" \
            || tail -5 "$out/opinfo.txt"; } | head -80 | sed 's/^/opinfo: /' >> "$summary" || true
        ;;
      jax)
        python3 tests/integration/jax_conv_accuracy.py --ucudnn "$ucudnn" --limits "${GRAPHAPI_JAX_LIMITS:-64KiB,1MiB}" \
          --out "$out/jax" > "$out/jax.txt" 2>&1 || status=1
        { grep -E '^(jax|plain|ucudnn at|\[|FAIL|PASSED|FAILED|SKIPPED| +[0-9]+\.[0-9]+  |    ucudnn)' "$out/jax.txt" \
            || tail -5 "$out/jax.txt"; } | head -60 | sed 's/^/jax: /' >> "$summary" || true
        ;;
      cudagraph)
        local args=()
        read -r -a args <<< "${GRAPHAPI_CUDAGRAPH_ARGS:-}"
        python3 tests/integration/graph_api_cuda_graph.py --ucudnn "$ucudnn" --limits "${GRAPHAPI_CUDAGRAPH_LIMITS:-1MiB,64MiB}" \
          --out "$out/cudagraph" "${args[@]}" > "$out/cudagraph.txt" 2>&1 || status=1
        { grep -E '^(torch|\[|ok|FAIL|PASSED|FAILED|SKIPPED|     \[)' "$out/cudagraph.txt" || tail -5 "$out/cudagraph.txt"; } \
          | head -60 | sed 's/^/cudagraph: /' >> "$summary" || true
        ;;
      overhead)
        local overhead_args=()
        read -r -a overhead_args <<< "${GRAPHAPI_OVERHEAD_ARGS:-}"
        if python3 bench/graph_call_overhead.py --ucudnn "$ucudnn" --limit "${GRAPHAPI_OVERHEAD_LIMIT:-64MiB}" \
            --rounds "$rounds" --json "$out/overhead.json" "${overhead_args[@]}" > "$out/overhead.txt" 2>&1; then
          head -7 "$out/overhead.txt" | sed 's/^/overhead: /' >> "$summary"
          grep -E 'graph API:|WARNING' "$out/overhead.txt" | sed 's/^/overhead: /' >> "$summary" || true
        else
          status=1
          tail -5 "$out/overhead.txt" | sed 's/^/overhead: /' >> "$summary"
        fi
        ;;
      train)
        for model in ${GRAPHAPI_MODELS:-resnet50-fp16 resnet50-bf16 resnet18-fp16 alexnet-convs}; do
          for limit in ${GRAPHAPI_TRAIN_LIMITS:-64MiB 8MiB}; do
            local name="train-$model-$limit"
            UCUDNN_DATABASE="$out/train-$model.db" python3 bench/pytorch_preload_bench.py --ucudnn "$ucudnn" \
              --model "$model" --workspace-limit "$limit" --modes "${GRAPHAPI_TRAIN_MODES:-default,ucudnn-graph}" \
              --rounds "$rounds" --iterations "${GRAPHAPI_ITERATIONS:-20}" --json "$out/$name.json" > "$out/$name.txt" 2>&1 \
              || status=1
            { grep -vE '^ucudnn: (op|fwd|bwdd|bwdf) ' "$out/$name.txt" || true; } | sed "s/^/$name: /" >> "$summary"
            echo "$name: done at $((SECONDS - started)) s" >> "$summary"
            graphapi_save
          done
          rm -f "$out/train-$model.db"*
        done
        ;;
      *) echo "graphapi: unknown step '$step' (loader opinfo jax cudagraph overhead train)" | tee -a "$summary"; status=1 ;;
    esac
    graphapi_save
  done
  echo "== done ($((SECONDS - started)) s), status $status" | tee -a "$summary"
  graphapi_save
  return $status
}

# Parallel benchmarking: the same networks benchmarked on one GPU and on all of them, each into an
# empty database; the rows' key columns (op, layer, micro-batch, algorithm, math type) must match.
multigpu() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$out/gpu.txt"
  # The exhaustive search stores the same rows on one GPU and on all; the fast search's cut-short
  # follows timings (and on several GPUs measures sizes ahead of its ladder): timed only.
  for search in exhaustive fast; do
    for net in alexnet resnet50; do
      for devices in one all; do
        local db="$out/$net-$search-$devices.db" env=()
        [ "$devices" = all ] && env=(UCUDNN_BENCHMARK_DEVICES=all)
        env "${env[@]}" pack/bin/ucudnn bench --network "$net" --search "$search" --database "$db" 2>&1 \
          | sed "s/^/$net $search $devices: /" | tee -a "$out/multigpu.txt" || status=1
        pack/bin/ucudnn db export --database "$db" | tail -n +2 | cut -d, -f6-10 | sort > "$out/$net-$search-$devices.keys"
      done
      [ "$search" = exhaustive ] || continue
      if cmp -s "$out/$net-$search-one.keys" "$out/$net-$search-all.keys"; then
        echo "$net: $(wc -l < "$out/$net-$search-one.keys") rows, the same keys on one GPU and on all" | tee -a "$out/multigpu.txt"
      else
        echo "$net: the rows' keys differ between one GPU and all" | tee -a "$out/multigpu.txt"; status=1
      fi
    done
  done
  rm -f "$out"/*.db "$out"/*.db-wal "$out"/*.db-shm
  tar -czf "$final/multigpu-results.tar.gz" -C "$out" .
  cp "$out/multigpu.txt" "$final/"
  return $status
}

# Memory-budget curves (bench/framework_curves.py), one model at a time per GPU: the models are
# dealt round-robin to the visible GPUs, each GPU runs its share in turn into a folder of its own
# (a model may come twice, with other budgets, on two GPUs). Each GPU's folder is archived after
# every model (curves-gpuN.tar.gz), so a call cut short keeps what finished; the tables are
# gathered into curves-summary.md.
curves() {
  local final=${OUT:-$root/gpu-results} out status=0 i started=$SECONDS
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  local models=("$@")
  [ ${#models[@]} -gt 0 ] || models=(pytorch:speech-bf16 pytorch:resnet50-fp32 pytorch:deeplabv3-fp32 jax:resnet50-bf16
                                     pytorch:resnet50-bf16 jax:resnet50-fp32)
  local gpus=(${CURVES_GPUS:-$(seq 0 $(($(nvidia-smi --list-gpus | wc -l) - 1)))})
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$out/gpu.txt"
  for ((i = 0; i < ${#gpus[@]}; i++)); do
    (
      local j dir="$out/gpu${gpus[$i]}"
      mkdir -p "$dir"
      for ((j = i; j < ${#models[@]}; j += ${#gpus[@]})); do
        # FRAMEWORK:MODEL[@BUDGETS]: budgets of its own (none,9GiB,...) instead of CURVES_BUDGETS.
        local spec=${models[$j]%%@*} budgets=${CURVES_BUDGETS:-auto}
        [ "$spec" != "${models[$j]}" ] && budgets=${models[$j]#*@}
        local framework=${spec%%:*} model=${spec#*:} deadline=0
        # CURVES_DEADLINE counts from the start of this command: what is left of it for this model.
        if [ "${CURVES_DEADLINE:-0}" -gt 0 ]; then
          deadline=$((CURVES_DEADLINE - SECONDS + started))
          [ "$deadline" -gt 0 ] || { echo "$model: not started (CURVES_DEADLINE reached)" >> "$dir/failed.txt"; continue; }
        fi
        CUDA_VISIBLE_DEVICES=${gpus[$i]} python3 bench/framework_curves.py --framework "$framework" --model "$model" \
          --ucudnn "$root/pack/bin/ucudnn" --run-args="${CURVES_RUN_ARGS:-}" --rounds "${CURVES_ROUNDS:-3}" --budgets "$budgets" \
          --deadline "$deadline" --out "$dir" > "$dir/$framework-$model.log" 2>&1 || echo "$model failed" >> "$dir/failed.txt"
        tar -czf "$final/curves-gpu${gpus[$i]}.tar.gz" -C "$dir" .
      done
    ) &
  done
  wait
  cat "$out"/gpu*/*.md > "$final/curves-summary.md" 2>/dev/null || true
  cat "$out"/gpu*/failed.txt 2>/dev/null && status=1
  tail -n 3 "$out"/gpu*/*.log
  return $status
}

# New batch sizes: each network's forward convolutions over batch sizes in turn on the legacy API,
# then PyTorch ResNet-50 inference, into newshapes-results.tar.gz.
newshapes() {
  local final=${OUT:-$root/gpu-results} out status=0
  out=$(mktemp -d)
  mkdir -p "$final"
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
  for spec in ${NEWSHAPES_NETS:-alexnet:float:NCHW:1-64,96,128,192,256 resnet50:half:NHWC:1-64,96,128,192,256}; do
    IFS=: read -r net type layout batches <<< "$spec"
    env -u UCUDNN_DATABASE pack/bin/ucudnn_new_batch_sizes --net "$net" --data-type "$type" --layout "$layout" \
      --workspace-limit "${NEWSHAPES_LIMIT:-8MiB}" --batches "$batches" \
      --json "$out/legacy-$net-$type-$layout.json" > "$out/legacy-$net-$type-$layout.txt" 2>&1 || status=1
    tail -n 3 "$out/legacy-$net-$type-$layout.txt"
    tar -czf "$final/newshapes-results.tar.gz" -C "$out" .
  done
  if [ "${NEWSHAPES_TORCH:-1}" = 1 ]; then
    python3 bench/pytorch_new_shapes.py --ucudnn "$root/pack/bin/ucudnn" --workspace-limit "${NEWSHAPES_LIMIT:-8MiB}" \
      --batches "${NEWSHAPES_TORCH_BATCHES:-1-64,96,128,192,256}" --json "$out/pytorch.json" --log-dir "$out/pytorch-logs" \
      > "$out/pytorch.txt" 2>&1 || status=1
    tail -n 8 "$out/pytorch.txt"
  fi
  tar -czf "$final/newshapes-results.tar.gz" -C "$out" .
  return $status
}

# A multi-rank job (bench/pytorch_job.py): 1 rank, then each count of CLUSTER_RANKS (default: 2,
# and 4 where the machine has 4 GPUs; ranks beyond the GPUs share them) on empty databases, then the
# last count again on its filled database (it should measure nothing); each database verified.
cluster() {
  local final=${OUT:-$root/gpu-results} out status=0 gpus counts last
  out=$(mktemp -d)
  mkdir -p "$final"
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader > "$out/gpu.txt"
  gpus=$(wc -l < "$out/gpu.txt")
  counts=${CLUSTER_RANKS:-2}
  [ -z "${CLUSTER_RANKS:-}" ] && [ "$gpus" -ge 4 ] && counts="2 4"
  last=${counts##* }
  # Libraries from disk and CUDA's start, once, so that the first run's first step is not a cold machine's.
  python3 -c "import torch; torch.nn.Conv2d(3, 8, 3).cuda()(torch.randn(1, 3, 8, 8).cuda()); torch.cuda.synchronize()"
  local runs=("1 ranks-1")
  for n in $counts; do runs+=("$n ranks-$n"); done
  runs+=("$last again")
  for run in "${runs[@]}"; do
    read -r n name <<< "$run"
    local db="$out/job-$n.db"
    pack/bin/ucudnn run --workspace-limit "${CLUSTER_LIMIT:-8MiB}" --database "$db" -- \
      python3 bench/pytorch_job.py --ranks "$n" --steps "${CLUSTER_STEPS:-20}" --out "$out/$name" 2>&1 \
      | tee "$out/$name.txt" || status=1
    { pack/bin/ucudnn db verify --database "$db"; pack/bin/ucudnn db stats --database "$db"; } \
      > "$out/$name-db.txt" 2>&1 || status=1
    tar -czf "$final/cluster-results.tar.gz" -C "$out" .
  done
  # The legacy API: `ucudnn bench` of each network by 1 process, then by one process per GPU at
  # once, on empty databases: each process's time and timings, and the rows stored.
  local net n g pid
  for net in ${CLUSTER_LEGACY_NETS:-alexnet resnet50}; do
    for n in 1 "$gpus"; do
      local db="$out/legacy-$net-$n.db"
      local pids=()
      for ((g = 0; g < n; g++)); do
        CUDA_VISIBLE_DEVICES=$g pack/bin/ucudnn bench --network "$net" --database "$db" \
          > "$out/legacy-$net-$n-gpu$g.txt" 2>&1 &
        pids+=($!)
      done
      for pid in "${pids[@]}"; do wait "$pid" || status=1; done
      for ((g = 0; g < n; g++)); do sed "s/^/$net, $n processes, GPU $g: /" "$out/legacy-$net-$n-gpu$g.txt"; done \
        | tee -a "$out/legacy.txt"
      pack/bin/ucudnn db verify --database "$db" 2>&1 | sed "s/^/$net, $n processes: db verify: /" | tee -a "$out/legacy.txt"
      [ "$n" = "$gpus" ] && break
    done
  done
  tar -czf "$final/cluster-results.tar.gz" -C "$out" .
  return $status
}

case "${1:-}" in
  pack) pack ;;
  newshapes) newshapes ;;
  cluster) cluster ;;
  curves) shift; curves "$@" ;;
  run) run ;;
  pytorch) pytorch ;;
  engines) engines ;;
  baselines) baselines ;;
  search) search ;;
  overhead) overhead ;;
  graphapi) graphapi ;;
  multigpu) multigpu ;;
  compare) compare "${2:?usage: bash bench/gpu.sh compare OLDPACK}" ;;
  sweep) sweep "${2:-alexnet}" "${3:-8MiB 64MiB 512MiB}" "${4:-undivided powerOfTwo wd}" "${5:-float:NCHW}" ;;
  *) echo "usage: bash bench/gpu.sh pack|run|newshapes|cluster|pytorch|curves [FRAMEWORK:MODEL...]|overhead|graphapi|multigpu|compare OLDPACK|engines|baselines|search|sweep [NETS] [LIMITS] [CONFIGS] [PRECISIONS]" >&2; exit 2 ;;
esac
