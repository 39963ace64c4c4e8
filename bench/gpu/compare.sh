#!/usr/bin/env bash
# bash bench/gpu.sh compare OLDPACK: this build against an older pack (same layout as
# pack/), alternating, on AlexNet and ResNet-50 at 64 MiB (WR) and
# ResNet-50 in WD, to show a change kept the speedups
#
# A refactoring must keep the speedups: both builds, alternating, twice, each with its own
# database (so each benchmarks cold in round 1 and plans from its database in round 2).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

compare() {
  local old=$1 status=0
  start_job
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
  archive "compare-results"
  cp "$out/compare.txt" "$final/"
  return $status
}

compare "${1:?usage: bash bench/gpu.sh compare OLDPACK}"
