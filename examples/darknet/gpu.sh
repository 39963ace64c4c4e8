#!/usr/bin/env bash
# Darknet (YOLO) plain against Darknet through `ucudnn run`, unmodified: training at shrinking
# memory budgets, inference and a loss check. `gpu.sh --help` says what it does and needs (help()
# below); the results on the H200 are in bench/results/h200/darknet/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

help() {
  cat << 'EOF'
usage: bash examples/darknet/gpu.sh pack DARKNET_DIR
       bash examples/darknet/gpu.sh run

Times Darknet (YOLO) plain against the same Darknet binary through `ucudnn run`, on one NVIDIA
GPU, on synthetic data (make_data.py): nothing in Darknet is changed.

  pack DARKNET_DIR  builds Darknet in DARKNET_DIR (build.sh: needs the CUDA toolkit and cuDNN, not
                    a GPU) and packs it with its stock YOLO .cfg files into darknet-pack/ in this
                    repository, to be copied to the GPU machine with the repository
  run               on a machine with an NVIDIA GPU (nvidia-smi must list it): for each model,
                    - train: training steps at memory budgets from plenty down to below what plain
                      Darknet needs (hold_memory.py takes the rest of the GPU's memory), each
                      variant in turn, ROUNDS rounds; images per second and peak memory;
                    - infer: `darknet detector test` over the images (batch 1, half precision);
                    - loss: training from the same seed, plain twice and through ucudnn once.
                    Needs darknet-pack/ (pack above) and pack/bin/ucudnn (bash bench/gpu.sh pack).
  -h, --help        this text

Environment (run; defaults in brackets):
  MODELS           "NAME:BATCH:SUBDIVISIONS ...", each a stock cfg/NAME.cfg
                   ["yolov4-tiny:64:1 yolov4:64:8"]
  VARIANTS         "plain ucudnn-64MiB ucudnn-8MiB": ucudnn-SIZE is `ucudnn run --workspace-limit
                   SIZE`, ucudnn alone is `ucudnn run` with its defaults [all three]
  PHASES           any of "train infer loss" [all three]
  BUDGETS          GPU memory left free per training run: "auto" (from plain Darknet's peak and
                   workspace) or a list such as "none 6GiB 4GiB" [auto]
  SIZE             network input size [416]
  ITERATIONS       timed iterations per training run, after 5 [20]
  ROUNDS           rounds of every run [2]
  IMAGES           synthetic images [256]; INFER_IMAGES of them for inference [200]
  LOSS_ITERATIONS  iterations of the loss check [300]
  RUN_TIMEOUT      seconds per Darknet run [300]
  GPU_INDEX        the GPU whose memory nvidia-smi reads [0]
  OUT              where the results go [darknet-results/ in this repository]: darknet-summary.md
                   and .json (summarize.py), darknet-slope.svg, and darknet-results.tar.gz with
                   every log
EOF
}

# Returns where nvidia-smi lists a GPU; else says so in one line and exits 1.
need_gpu() {
  command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && return 0
  echo "gpu.sh: no GPU found (nvidia-smi lists none): 'run' times Darknet on an NVIDIA GPU" >&2
  exit 1
}

pack() {
  local darknet=${1:?usage: gpu.sh pack DARKNET_DIR}
  bash "$here/build.sh" "$darknet"
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/cfg"
  cp "$darknet/darknet" "$stage/bin/"
  cp "$darknet"/cfg/yolov4-tiny.cfg "$darknet"/cfg/yolov4.cfg "$darknet"/cfg/yolov3.cfg "$stage/cfg/"
  git -C "$darknet" rev-parse HEAD > "$stage/commit" 2> /dev/null || echo unknown > "$stage/commit"
  strip --strip-unneeded "$stage/bin/darknet"
  rm -rf "$repo/darknet-pack" && mkdir -p "$repo/darknet-pack"
  tar -cJf "$repo/darknet-pack/darknet.tar.xz" -C "$stage" .
  rm -rf "$stage"
  [ -x "$repo/pack/bin/ucudnn" ] || echo "gpu.sh: note: no pack/bin/ucudnn yet; run bash bench/gpu.sh pack too" >&2
  echo "packed: darknet-pack/darknet.tar.xz ($(du -h "$repo/darknet-pack/darknet.tar.xz" | cut -f1))"
}

# --- there ------------------------------------------------------------------------------------------

used_mib() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i "${GPU_INDEX:-0}"; }

# hold BUDGET: leave BUDGET free on the GPU (none: hold nothing); sets holder to the helper's PID.
holder=""
hold() {
  holder=""
  [ "$1" = none ] && return 0
  local ready
  ready=$(mktemp -u)
  python3 "$here/hold_memory.py" "$1" --ready "$ready" > "$work/holder.log" 2>&1 &
  holder=$!
  while [ ! -f "$ready" ]; do
    kill -0 "$holder" 2> /dev/null || { cat "$work/holder.log" >&2; return 1; }
    sleep 0.2
  done
  rm -f "$ready"
}
release() { [ -z "$holder" ] || { kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null || true; holder=""; }; }

# measure LOG VARIANT ARGS...: runs Darknet plain or through ucudnn, its log to LOG and its peak GPU
# memory (MiB above what was in use before it started) to LOG's .mem; returns Darknet's status.
measure() {
  local log=$1 variant=$2
  shift 2
  local before poll status=0
  before=$(used_mib)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i "${GPU_INDEX:-0}" -lms 100 > "$log.poll" &
  poll=$!
  local run=("$darknet")
  case "$variant" in
    ucudnn) run=("$repo/pack/bin/ucudnn" run --database "$database" -- "$darknet") ;;
    ucudnn-*) run=("$repo/pack/bin/ucudnn" run --workspace-limit "${variant#ucudnn-}" --database "$database" -- "$darknet") ;;
  esac
  (cd "$work" && env LD_LIBRARY_PATH="$libraries" UCUDNN_STATS=1 timeout "${RUN_TIMEOUT:-300}" "${run[@]}" "$@") > "$log" 2>&1 || status=$?
  kill "$poll" 2> /dev/null; wait "$poll" 2> /dev/null || true
  awk -v before="$before" 'BEGIN {m = before} $1 + 0 > m {m = $1 + 0} END {print m - before}' "$log.poll" > "$log.mem"
  rm -f "$log.poll"
  return $status
}

# peak_and_workspace LOG: "PEAK_MIB WORKSPACE_MIB" of a finished run
peak_and_workspace() {
  local workspace
  workspace=$(grep -o 'Allocate additional workspace_size = [0-9.]*' "$1" | tail -1 | awk '{print int($NF * 1e6 / 1048576)}')
  echo "$(cat "$1.mem") ${workspace:-0}"
}

run() {
  local final=${OUT:-$repo/darknet-results} status=0
  local models=${MODELS:-"yolov4-tiny:64:1 yolov4:64:8"} size=${SIZE:-416} rounds=${ROUNDS:-2}
  local iterations=${ITERATIONS:-20} phases=${PHASES:-"train infer loss"}
  local variants=${VARIANTS:-"plain ucudnn-64MiB ucudnn-8MiB"}
  local out pack
  out=$(mktemp -d)
  pack=$(mktemp -d)
  work=$out/work
  mkdir -p "$final" "$work"
  [ -f "$repo/darknet-pack/darknet.tar.xz" ] || { echo "gpu.sh: no darknet-pack (gpu.sh pack DARKNET_DIR here)" >&2; return 2; }
  [ -x "$repo/pack/bin/ucudnn" ] || { echo "gpu.sh: no pack/bin/ucudnn (bash bench/gpu.sh pack here)" >&2; return 2; }
  tar -xJf "$repo/darknet-pack/darknet.tar.xz" -C "$pack"
  darknet=$pack/bin/darknet
  local extra
  extra=$(bash "$repo/scripts/cuda_library_path.sh")
  libraries="$repo/pack/lib${extra:+:$extra}:${LD_LIBRARY_PATH:-}"
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
    echo "darknet commit: $(cat "$pack/commit")"; } | tee "$out/gpu.txt"
  python3 "$here/make_data.py" "$work/data" --images "${IMAGES:-256}" --size "$size" --classes 3 --seed 1
  trap 'release' EXIT

  # cfg NAME BATCH SUBDIVISIONS MAX_BATCHES DEST [MAKE_CFG_OPTIONS...]
  cfg() { python3 "$here/make_cfg.py" "$pack/cfg/$1.cfg" "$5" --classes 3 --batch "$2" --subdivisions "$3" \
            --size "$size" --max-batches "$4" "${@:6}"; }

  local spec name batch subdivisions
  for spec in $models; do
    IFS=: read -r name batch subdivisions <<< "$spec"
    database=$out/$name.db
    local dir=$out/train/$name
    mkdir -p "$dir"
    cfg "$name" "$batch" "$subdivisions" $((iterations + 5)) "$work/$name.cfg"
    if [[ " $phases " == *" train "* ]]; then
      # ucudnn's first runs benchmark every kernel into the database (UCUDNN_STATS in their logs).
      local variant
      for variant in $variants; do
        [ "$variant" = plain ] && continue
        echo "== $name: $variant's first run (benchmarks into $database)"
        measure "$dir/first-$variant.log" "$variant" detector train "$work/data/obj.data" "$work/$name.cfg" -dont_show || status=1
      done
      echo "== $name: plain, plenty of memory"
      measure "$dir/plenty-plain.log" plain detector train "$work/data/obj.data" "$work/$name.cfg" -dont_show || status=1
      local budgets=${BUDGETS:-auto}
      if [ "$budgets" = auto ]; then
        # From what plain Darknet took with plenty (peak P, workspace W): P + 256 MiB, then P less
        # a quarter, half and three quarters of W, P - W + 32 MiB, and 256 MiB below P - W.
        local peak workspace
        read -r peak workspace <<< "$(peak_and_workspace "$dir/plenty-plain.log")"
        budgets="none"
        local leave
        for leave in $((peak + 256)) $((peak - workspace / 4)) $((peak - workspace / 2)) \
                     $((peak - workspace * 3 / 4)) $((peak - workspace + 32)) $((peak - workspace - 256)); do
          [ "$leave" -gt 0 ] && budgets="$budgets ${leave}MiB"
        done
        echo "$name: plain's peak ${peak} MiB, its workspace ${workspace} MiB; budgets: $budgets" | tee "$dir/budgets.txt"
      fi
      local round budget order
      for round in $(seq 1 "$rounds"); do
        # The variants' order rotates each round, so that none is always first after the holder.
        read -r -a order <<< "$variants"
        order=("${order[@]:$(( (round - 1) % ${#order[@]} ))}" "${order[@]:0:$(( (round - 1) % ${#order[@]} ))}")
        for budget in $budgets; do
          for variant in "${order[@]}"; do
            local log="$dir/$budget-$variant-r$round.log"
            hold "$budget" || { echo "   could not leave $budget free"; status=1; continue; }
            measure "$log" "$variant" detector train "$work/data/obj.data" "$work/$name.cfg" -dont_show \
              || echo "   $name $budget $variant round $round: Darknet failed (exit $?; $(grep -m1 -i 'error' "$log" | cut -c1-120))"
            release
            grep -E '^ *[0-9]+: [0-9.]+, ' "$log" | tail -1 | sed "s/^/   $budget $variant r$round:/" || true
          done
        done
        tar -czf "$final/darknet-results.tar.gz" -C "$out" --exclude=work .
      done
    fi
    if [[ " $phases " == *" infer "* ]]; then
      # Weights from the first training run (Darknet saves *_final.weights at max_batches).
      local weights
      weights=$(ls "$work/data/backup/${name}_final.weights" 2> /dev/null || true)
      mkdir -p "$out/infer/$name"
      head -n "${INFER_IMAGES:-200}" "$work/data/train.txt" > "$work/infer.txt"
      for round in $(seq 1 "$rounds"); do
        for variant in $variants; do
          measure "$out/infer/$name/$variant-r$round.log" "$variant" detector test "$work/data/obj.data" \
            "$work/$name.cfg" ${weights:+"$weights"} -dont_show -ext_output < "$work/infer.txt" || status=1
        done
      done
    fi
  done
  if [[ " $phases " == *" loss "* ]]; then
    IFS=: read -r name batch subdivisions <<< "${models%% *}"
    local loss_iterations=${LOSS_ITERATIONS:-300}
    # From scratch, the stock learning rates diverge on this data (NaN within 200 iterations, plain
    # Darknet too): a lower rate and a longer burn-in.
    cfg "$name" "$batch" "$subdivisions" "$loss_iterations" "$work/$name-loss.cfg" --learning-rate 0.0005 --burn-in 100
    mkdir -p "$out/loss"
    database=$out/$name.db
    for variant in plain plain-again "${variants##* }"; do
      DARKNET_SEED=1 measure "$out/loss/$name-$variant.log" "${variant%-again}" detector train \
        "$work/data/obj.data" "$work/$name-loss.cfg" -dont_show || status=1
    done
  fi
  for db in "$out"/*.db; do
    [ -f "$db" ] && "$repo/pack/bin/ucudnn" db verify --database "$db" > "$db.verify.txt" 2>&1
  done
  python3 "$here/summarize.py" "$out" || status=1
  cp "$out"/darknet-summary.* "$out"/darknet-slope.svg "$final/" 2> /dev/null || true
  tar -czf "$final/darknet-results.tar.gz" -C "$out" --exclude=work .
  return $status
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) need_gpu; run ;;
  -h | --help) help ;;
  "") echo "gpu.sh: give pack DARKNET_DIR or run (gpu.sh --help says what each does and needs)" >&2; exit 2 ;;
  *) echo "gpu.sh: '$1' is not pack or run (gpu.sh --help says what each does and needs)" >&2; exit 2 ;;
esac
