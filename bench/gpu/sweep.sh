#!/usr/bin/env bash
# bash bench/gpu.sh sweep NETS LIMITS CONFIGS [PRECISIONS]: the comparison (below)
#
# The paper's comparison for several networks (bench/sweep.sh), then pictures and a table
# (bench/plot.py) per precision: bash bench/gpu.sh sweep "alexnet resnet50" "8MiB 64MiB 512MiB" \
#   "undivided powerOfTwo wd" "float:NCHW half:NHWC bfloat16:NHWC"
# SWEEP_ARGS adds benchmark options (SWEEP_ARGS="--graph-replay 0"); SWEEP_TAG names the folders.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

sweep() {
  local status=0
  start_job
  use_pack_libraries
  # PRECISIONS: data type and layout pairs, each in its own folder (float-NCHW, half-NHWC, ...).
  for precision in $4; do
    local type=${precision%%:*} layout=${precision##*:}
    local dir="$out/$type-$layout${SWEEP_TAG:+-$SWEEP_TAG}"
    mkdir -p "$dir"
    for net in $1; do
      BENCH_ARGS="--data-type $type --layout $layout ${SWEEP_ARGS:-}" UCUDNN_DATABASE="$dir/$net.db" \
        bash bench/sweep.sh pack/bin/ucudnn_conv_benchmark "$net" "$dir" "$2" "$3" | sed "s/^/$type $layout /" || status=1
      remove_database "$dir/$net.db"
      # Archived after every network, so that a run cut short still returns what it finished.
      archive "sweep-results${SWEEP_TAG:+-$SWEEP_TAG}"
    done
    python3 bench/plot.py "$dir" > /dev/null || status=1
  done
  archive "sweep-results${SWEEP_TAG:+-$SWEEP_TAG}"
  return $status
}

sweep "${1:-alexnet}" "${2:-8MiB 64MiB 512MiB}" "${3:-undivided powerOfTwo wd}" "${4:-float:NCHW}"
