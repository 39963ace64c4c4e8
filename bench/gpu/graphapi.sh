#!/usr/bin/env bash
# bash bench/gpu.sh graphapi: the graph-API proofs (tests/graph_api/README.md): the
# TensorFlow-style loader plain and through `ucudnn run`, PyTorch's
# OpInfo convolutions, JAX's convolutions against an FP64 reference
# (tests/integration/jax_conv_accuracy.py), a CUDA-graph-captured step, the
# per-call host cost and the training-step benchmark (GRAPHAPI_STEPS)
#
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
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

graphapi() {
  local status=0 tag=${GRAPHAPI_TAG:+-$GRAPHAPI_TAG}
  start_job
  local summary="$out/graphapi-summary.txt" ucudnn="$root/pack/bin/ucudnn" loader="$root/pack/bin/tf_style_loader"
  local rounds=${ROUNDS:-3} started=$SECONDS
  cat "$out/gpu.txt" > "$summary"
  graphapi_save() {
    archive "graphapi-results$tag"
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
          remove_database "$out/train-$model.db"
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

graphapi
