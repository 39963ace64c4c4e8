#!/usr/bin/env bash
# bash bench/gpu.sh multigpu (several GPUs): `ucudnn bench` for AlexNet and ResNet-50 on
# one GPU and on all (UCUDNN_BENCHMARK_DEVICES=all), empty databases
# each: benchmarking times and whether the rows' keys are identical
#
# Parallel benchmarking: the same networks benchmarked on one GPU and on all of them, each into an
# empty database; the rows' key columns (op, layer, micro-batch, algorithm, math type) must match.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

multigpu() {
  local status=0
  start_job
  use_pack_libraries
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
  archive "multigpu-results"
  cp "$out/multigpu.txt" "$final/"
  return $status
}

multigpu
