#!/usr/bin/env bash
# bash bench/gpu.sh newshapes: what a new batch size costs an inference loop: the legacy
# API (bench/new_batch_sizes.cpp: ucudnn's planning against cuDNN's Find,
# NEWSHAPES_NETS="NET:TYPE:LAYOUT:BATCHES ...") and PyTorch (bench/pytorch_new_shapes.py:
# its benchmark mode, its heuristics and ucudnn, NEWSHAPES_TORCH_BATCHES)
#
# New batch sizes: each network's forward convolutions over batch sizes in turn on the legacy API,
# then PyTorch ResNet-50 inference, into newshapes-results.tar.gz.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

newshapes() {
  local status=0
  start_job
  use_pack_libraries
  for spec in ${NEWSHAPES_NETS:-alexnet:float:NCHW:1-64,96,128,192,256 resnet50:half:NHWC:1-64,96,128,192,256}; do
    IFS=: read -r net type layout batches <<< "$spec"
    env -u UCUDNN_DATABASE pack/bin/ucudnn_new_batch_sizes --net "$net" --data-type "$type" --layout "$layout" \
      --workspace-limit "${NEWSHAPES_LIMIT:-8MiB}" --batches "$batches" \
      --json "$out/legacy-$net-$type-$layout.json" > "$out/legacy-$net-$type-$layout.txt" 2>&1 || status=1
    tail -n 3 "$out/legacy-$net-$type-$layout.txt"
    archive "newshapes-results"
  done
  if [ "${NEWSHAPES_TORCH:-1}" = 1 ]; then
    python3 bench/pytorch_new_shapes.py --ucudnn "$root/pack/bin/ucudnn" --workspace-limit "${NEWSHAPES_LIMIT:-8MiB}" \
      --batches "${NEWSHAPES_TORCH_BATCHES:-1-64,96,128,192,256}" --json "$out/pytorch.json" --log-dir "$out/pytorch-logs" \
      > "$out/pytorch.txt" 2>&1 || status=1
    tail -n 8 "$out/pytorch.txt"
  fi
  archive "newshapes-results"
  return $status
}

newshapes
