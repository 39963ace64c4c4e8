#!/usr/bin/env bash
# bash bench/gpu.sh ceiling: the fastest way cuDNN runs each listed kernel within the limit, against
# ucudnn's plan and the best engines given unlimited workspace (issue 62)
#
# Each line of CEILING_LIST (default bench/ceiling-kernels.txt: NETWORK TYPE:LAYOUT LIMIT KERNELS,
# KERNELS a comma-separated LAYER:OP list or `all`) runs bench/conv_benchmark.cpp twice on those
# kernels, each with a database of its own (a database's rows do not say which search measured them):
#   heuristics  ucudnn as it ships: the fast search, each engine at cuDNN's heuristic configuration;
#   sweep       the ceiling: the exhaustive search (every candidate timed in full at every size of
#               the policy, every output-channel piece count) over every engine configuration one
#               knob away from cuDNN's choices (UCUDNN_ENGINE_KNOBS=sweep, heuristic mode B too).
# Both runs time the baselines (plain legacy cuDNN, the best single engine at the limit and
# unlimited). NET-TYPE-LAYOUT-LIMIT-{heuristics,sweep}.txt/.json go into ceiling-results.tar.gz and
# bench/summarize_ceiling.py makes ceiling-table.md from them, after every run (with each run's
# database rows so far as NET-TYPE-LAYOUT-LIMIT-KNOBS-rows.csv, `ucudnn db export`), so a call cut short
# keeps what it finished. Before the list, bench/mixed_filter_probe.cpp (FP16 and BF16) asks
# whether cuDNN has an engine for a half-precision backward filter writing an FP32 gradient
# (mixed-filter-probe-TYPE.txt). CEILING_MATCH (an extended regular expression) keeps the list's
# lines it matches, to run the list in parts, and skips the probe; CEILING_ITERATIONS sets the medians (10);
# CEILING_KNOBS="heuristics refine sweep" adds a run of the fast search with UCUDNN_ENGINE_KNOBS=refine. The sweep measures
# every configuration at every size: a minute or more per line.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ceiling() {
  local status=0 list=${CEILING_LIST:-bench/ceiling-kernels.txt}
  start_job
  use_pack_libraries
  [ -f "$list" ] || { echo "ceiling: no kernel list $list" >&2; return 2; }
  # First, whether an engine writes a half-precision filter gradient in FP32 (one call a micro-batch).
  if [ -z "${CEILING_MATCH:-}" ]; then
    for type in half bfloat16; do
      timeout 120 pack/bin/ucudnn_mixed_filter_probe --data-type $type > "$out/mixed-filter-probe-$type.txt" 2>&1 ||
        echo "ceiling: the mixed filter probe ($type) failed: $(tail -1 "$out/mixed-filter-probe-$type.txt")"
      archive "ceiling-results"
    done
  fi
  local net precision limit kernels
  while read -r net precision limit kernels; do
    local type=${precision%%:*} layout=${precision##*:} name
    name=$(basename "$net" .json)
    local selection=()
    [ "$kernels" = all ] || selection=(--kernels "$kernels")
    for knobs in ${CEILING_KNOBS:-heuristics sweep}; do
      local file="$out/$name-$type-$layout-$limit-$knobs" search=fast
      [ "$knobs" = sweep ] && search=exhaustive
      UCUDNN_DATABASE="$out/$name-$type-$knobs.db" UCUDNN_SEARCH=$search UCUDNN_ENGINE_KNOBS=$knobs \
        pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" --layout "$layout" "${selection[@]}" \
        --workspace-limit "$limit" --iterations "${CEILING_ITERATIONS:-10}" --json "$file.json" > "$file.txt" 2>&1 ||
        { status=1; rm -f "$file.json"; echo "ceiling: $name $type $layout $limit $knobs failed: $(tail -1 "$file.txt")"; }
      # The run's database rows as a table (pieces' and padded kernels' rows under their signatures).
      pack/bin/ucudnn db export --database "$out/$name-$type-$knobs.db" --output "$file-rows.csv" 2> /dev/null ||
        echo "ceiling: no rows exported from $name-$type-$knobs.db"
      [ "$knobs" = sweep ] && { python3 bench/summarize_ceiling.py "$out" > /dev/null || status=1; }
      archive "ceiling-results"
      [ -f "$out/ceiling-table.md" ] && cp "$out/ceiling-table.md" "$final/"
    done
  done < <(grep -v '^#' "$list" | grep -E "${CEILING_MATCH:-.}")
  cat "$out/ceiling-table.md" 2>/dev/null || true
  return $status
}

ceiling
