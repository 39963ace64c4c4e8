#!/usr/bin/env bash
# bash bench/gpu.sh search: how long finding a plan takes, fast and exhaustive search,
# against cuDNN's Find in the same run, per network x precision x policy
# (env SEARCH_NETS, SEARCH_PRECISIONS, SEARCH_POLICIES, SEARCH_LIMITS,
# SEARCH_MODES), one JSON each, summarised by bench/summarize_search.py
#
# Optimisation time: each network x precision x policy x limit x search mode in a fresh process
# with no database, ucudnn's planning against cuDNN's Find (the plain legacy side) in the same run.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

search() {
  local status=0 name
  start_job
  use_pack_libraries
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
            archive "search-results${SEARCH_TAG:+-$SEARCH_TAG}"  # a cut-short call keeps what it did
          done
        done
      done
    done
  done
  cp "$out/search-summary.txt" "$final/search-summary${SEARCH_TAG:+-$SEARCH_TAG}.txt"
  return $status
}

search
