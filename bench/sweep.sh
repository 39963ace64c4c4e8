#!/usr/bin/env bash
# Runs bench/conv_benchmark.cpp for every (workspace limit, configuration) of one network, all
# sharing one benchmark database so that each kernel is measured once:
#   bash bench/sweep.sh BINARY NET OUTDIR "8MiB 64MiB 512MiB" "undivided powerOfTwo all wd"
# Each configuration writes OUTDIR/NET-LIMIT-CONFIG.json (and .txt); `wd` uses a total of
# LIMIT x (number of kernels a training step runs, --list-kernels) with the baselines at LIMIT per
# kernel. BENCH_ARGS adds options to every run (e.g. "--data-type half --layout NHWC", or
# "--baselines plain" for plain legacy cuDNN only).
set -euo pipefail
binary=$1 net=$2 out=$3 limits=$4 configs=$5
read -r -a extra <<< "${BENCH_ARGS:-}"
mkdir -p "$out"
export UCUDNN_DATABASE=${UCUDNN_DATABASE:-$out/$net.db}
kernels=$("$binary" --net "$net" --list-kernels "${extra[@]}")
status=0
for limit in $limits; do
  for config in $configs; do
    name="$out/$net-$limit-$config"
    if [ "$config" = wd ]; then
      bytes=$(( ${limit%MiB} * kernels ))
      args=(--total-workspace "${bytes}MiB")
    else
      args=(--policy "$config")
    fi
    "$binary" --net "$net" --workspace-limit "$limit" "${args[@]}" "${extra[@]}" --json "$name.json" >"$name.txt" 2>&1 || {
      echo "failed: $name (see $name.txt)"; status=1; }
    grep -E "^sequence|WD mode" "$name.txt" | sed "s|^|$net $limit $config: |" || true
  done
done
exit $status
