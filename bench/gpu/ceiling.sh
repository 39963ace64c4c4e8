#!/usr/bin/env bash
# bash bench/gpu.sh ceiling: ucudnn's plans with cuDNN's engine configurations as its heuristics
# choose them, against plans searched exhaustively over every configuration one knob away
# (UCUDNN_ENGINE_KNOBS=sweep, heuristic mode B included): how far the default search is from what
# more of cuDNN reaches within the same limit (issue 62's first step towards the ceiling)
#
# For each network x precision x limit, bench/conv_benchmark.cpp twice, each with a database of its
# own (a database's rows do not say which knob search measured them): NET-TYPE-LAYOUT-LIMIT-
# {heuristics,sweep}.txt/.json in the archive ceiling-results.tar.gz, one line each in
# ceiling-summary.txt. CEILING_NETS (alexnet), CEILING_PRECISIONS (float:NCHW half:NHWC) and
# CEILING_LIMITS (8MiB) narrow it; CEILING_ITERATIONS sets the medians (10). The sweep measures
# every configuration at every size: minutes per network.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ceiling() {
  local status=0
  start_job
  use_pack_libraries
  local summary="$out/ceiling-summary.txt"
  cat "$out/gpu.txt" > "$summary"
  for precision in ${CEILING_PRECISIONS:-float:NCHW half:NHWC}; do
    local type=${precision%%:*} layout=${precision##*:}
    for net in ${CEILING_NETS:-alexnet}; do
      for limit in ${CEILING_LIMITS:-8MiB}; do
        for knobs in heuristics sweep; do
          local name="$out/$net-$type-$layout-$limit-$knobs" search=fast
          [ "$knobs" = sweep ] && search=exhaustive
          UCUDNN_DATABASE="$out/$net-$type-$knobs.db" UCUDNN_SEARCH=$search UCUDNN_ENGINE_KNOBS=$knobs \
            pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" --layout "$layout" \
            --workspace-limit "$limit" --iterations "${CEILING_ITERATIONS:-10}" --json "$name.json" > "$name.txt" 2>&1 ||
            { status=1; rm -f "$name.json"; }
          echo "$net $type $layout $limit $knobs: $(grep -E '^sequence' "$name.txt" || tail -1 "$name.txt")" |
            tee -a "$summary"
          archive "ceiling-results"
          cp "$summary" "$final/"
        done
      done
      remove_database "$out/$net-$type-heuristics.db"
      remove_database "$out/$net-$type-sweep.db"
    done
  done
  return $status
}

ceiling
