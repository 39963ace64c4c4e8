#!/usr/bin/env bash
# bash bench/gpu.sh engines: graph-API engines as candidates against legacy algorithms alone
#
# Graph-API engines as candidates (issue 14): conv sequences of ResNet-50, ResNet-18 and AlexNet in
# FP16 and BF16 channels-last and FP32, at 8 and 64 MiB per kernel, ucudnn planning with legacy
# algorithms only and with engines too, each against plain legacy cuDNN in the same run. One
# database per network and precision: rows are measured once and serve both limits.
# ENGINE_NETS, ENGINE_PRECISIONS, ENGINE_LIMITS narrow it (a call has at most 10 minutes);
# ENGINE_BASELINES=all adds the best-engine baselines (default plain: `baselines` measures them).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

engines() {
  local status=0
  start_job
  use_pack_libraries
  for precision in ${ENGINE_PRECISIONS:-half:NHWC bfloat16:NHWC float:NCHW}; do
    local type=${precision%%:*} layout=${precision##*:}
    for net in ${ENGINE_NETS:-resnet50 resnet18 alexnet}; do
      for limit in ${ENGINE_LIMITS:-64MiB 8MiB}; do
        for candidates in legacy both; do
          local name="$out/$net-$type-$layout-$limit-$candidates"
          UCUDNN_DATABASE="$out/$net-$type.db" pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" \
            --layout "$layout" --workspace-limit "$limit" --candidates "$candidates" --iterations 10 \
            --baselines "${ENGINE_BASELINES:-plain}" --json "$name.json" > "$name.txt" 2>&1 || status=1
          echo "$net $type $layout $limit $candidates: $(grep -E '^sequence' "$name.txt" || tail -1 "$name.txt")" \
            | tee -a "$out/engines-summary.txt"
        done
      done
      remove_database "$out/$net-$type.db"
      archive "engines-results${ENGINE_TAG:+-$ENGINE_TAG}"
    done
  done
  cp "$out/engines-summary.txt" "$final/engines-summary${ENGINE_TAG:+-$ENGINE_TAG}.txt"
  return $status
}

engines
