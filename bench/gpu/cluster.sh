#!/usr/bin/env bash
# bash bench/gpu.sh cluster: one multi-rank PyTorch job through `ucudnn run` and one
# database (bench/pytorch_job.py), 1 rank then CLUSTER_RANKS (default 2, and
# 4 on 4 GPUs) on empty databases, then the last again on its filled one;
# then `ucudnn bench` of CLUSTER_LEGACY_NETS by 1 process and by one per GPU
#
# A multi-rank job (bench/pytorch_job.py): 1 rank, then each count of CLUSTER_RANKS (default: 2,
# and 4 where the machine has 4 GPUs; ranks beyond the GPUs share them) on empty databases, then the
# last count again on its filled database (it should measure nothing); each database verified.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cluster() {
  local status=0 gpus counts last
  start_job
  gpus=$(nvidia-smi --list-gpus | wc -l)
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
    archive "cluster-results"
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
      pack/bin/ucudnn db verify --database "$db" 2>&1 | sed "s/^/$net, $n processes: db verify: /" \
        | tee -a "$out/legacy.txt"
      [ "$n" = "$gpus" ] && break
    done
  done
  archive "cluster-results"
  return $status
}

cluster
