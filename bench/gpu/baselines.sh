#!/usr/bin/env bash
# bash bench/gpu.sh baselines: ucudnn against its three baselines (plain legacy cuDNN,
# cuDNN's best single engine at the limit and unlimited) for networks x
# precisions x limits, with a summary table and picture (below)
#
# ucudnn against its three baselines (bench/conv_benchmark.cpp): plain legacy cuDNN, cuDNN's best
# single engine at the per-kernel limit and unlimited, all in the same run, for every network x
# precision x limit. One database per network and precision: the second limit and the baselines
# reuse the rows the first run measured. Each run writes NET-TYPE-LAYOUT-LIMIT.txt and .json; after
# every run the archive, baselines-summary.md and baselines-ratios.svg (bench/summarize_baselines.py)
# are brought up to date in $OUT, so a call cut short keeps what it finished. BASELINE_NETS,
# BASELINE_PRECISIONS and BASELINE_LIMITS narrow it, BASELINE_ITERATIONS sets the medians (10),
# BASELINE_ARGS adds options, BASELINE_TAG names the files (to run it in parts, one tag each).
# BASELINE_DB_DIR keeps the databases in that folder (default: deleted after each network), so that
# a later call on the same warm machine (a git-ignored folder such as build-gpu/baselines-db)
# plans from them instead of measuring again; the runs then report no benchmarking time.
# Cold, every default takes about 15 minutes on an H100 (ucudnn's measuring: 1 to 2 minutes per
# network and precision), more than one call's 10: run it one precision a call, e.g.
#   BASELINE_PRECISIONS=half:NHWC BASELINE_TAG=half bash bench/gpu.sh baselines
# and summarise the parts together: python3 bench/summarize_baselines.py DIR1 DIR2 DIR3 --out DIR.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

baselines() {
  local status=0 tag=${BASELINE_TAG:+-$BASELINE_TAG}
  start_job
  use_pack_libraries
  local nets=${BASELINE_NETS:-alexnet resnet50 resnet18}
  local precisions=${BASELINE_PRECISIONS:-float:NCHW half:NHWC bfloat16:NHWC}
  local limits=${BASELINE_LIMITS:-8MiB 64MiB}
  local extra=() runs=0 run=0 started=$SECONDS db_dir=${BASELINE_DB_DIR:-$out}
  mkdir -p "$db_dir"
  read -r -a extra <<< "${BASELINE_ARGS:-}"
  runs=$(( $(wc -w <<< "$nets") * $(wc -w <<< "$precisions") * $(wc -w <<< "$limits") ))
  for precision in $precisions; do
    local type=${precision%%:*} layout=${precision##*:}
    for net in $nets; do
      for limit in $limits; do
        run=$((run + 1))
        local name="$out/$net-$type-$layout-$limit"
        UCUDNN_DATABASE="$db_dir/$net-$type.db" pack/bin/ucudnn_conv_benchmark --net "$net" --data-type "$type" \
          --layout "$layout" --workspace-limit "$limit" --iterations "${BASELINE_ITERATIONS:-10}" "${extra[@]}" \
          --json "$name.json" > "$name.txt" 2>&1 || { status=1; rm -f "$name.json"; }
        echo "[$run/$runs, $((SECONDS - started)) s] $net $type $layout $limit: $(grep -E '^sequence' "$name.txt" \
          || tail -1 "$name.txt")" | tee -a "$out/baselines-progress.txt"
        python3 bench/summarize_baselines.py "$out" > /dev/null || status=1
        cp "$out/baselines-summary.md" "$final/baselines-summary$tag.md" 2>/dev/null || true
        cp "$out/baselines-ratios.svg" "$final/baselines-ratios$tag.svg" 2>/dev/null || true
        cp "$out/baselines-progress.txt" "$final/baselines-progress$tag.txt"
        archive "baselines-results$tag"
      done
      [ -n "${BASELINE_DB_DIR:-}" ] || remove_database "$db_dir/$net-$type.db"
    done
  done
  cat "$out/baselines-summary.md" 2>/dev/null || true
  return $status
}

baselines
