#!/usr/bin/env bash
# Times Caffe 1.0 with and without ucudnn, and compares their training losses. `gpu.sh --help` says
# what it does and needs (help() below); the results on the H100 are in results/h100/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

help() {
  cat << 'EOF'
usage: bash examples/caffe_patch/gpu.sh pack CAFFE_DIR
       bash examples/caffe_patch/gpu.sh run

Times Caffe 1.0 plain against Caffe with ucudnn (ucudnn.patch) on one NVIDIA GPU, and checks that
both train alike. The networks are models/alexnet.prototxt (batch 256) and models/resnet50.prototxt
(batch 64), on random data: no dataset is needed.

  pack CAFFE_DIR  builds plain Caffe and Caffe with ucudnn in CAFFE_DIR (build.sh: needs the CUDA
                  toolkit and cuDNN, not a GPU) and packs both, with the libraries they need, into
                  caffe-pack/ in this repository, to be copied to the GPU machine with the
                  repository
  run             on a machine with an NVIDIA GPU (nvidia-smi must list it): `caffe time` (20
                  iterations) of each network plain, through ucudnn at 8 MiB per kernel (Caffe's
                  limit) and at 64 MiB, and with one workspace for all kernels (WD) as large as the
                  sum of plain Caffe's limits; ROUNDS rounds, the four alternating. Then 10 SGD
                  iterations of each network from the same seed, plain twice and through ucudnn
                  (64 MiB and WD), to compare the losses. Needs caffe-pack/ (pack above).
  -h, --help      this text

Environment (run; defaults in brackets):
  ROUNDS  rounds of the timing runs [3]
  OUT     where the results go [caffe-results/ in this repository]: caffe-summary.md and
          caffe-summary.json (summarize.py), and caffe-results.tar.gz with every log
EOF
}

# Returns where nvidia-smi lists a GPU; else says so in one line and exits 1.
need_gpu() {
  command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 && return 0
  echo "gpu.sh: no GPU found (nvidia-smi lists none): 'run' times Caffe on an NVIDIA GPU" >&2
  exit 1
}

pack() {
  local caffe=${1:?usage: gpu.sh pack CAFFE_DIR}
  local stage
  stage=$(mktemp -d)
  for variant in plain ucudnn; do
    local flag=()
    [ $variant = ucudnn ] && flag=(--with-ucudnn)
    bash "$here/build.sh" "$caffe" "${flag[@]}"
    mkdir -p "$stage/$variant/bin" "$stage/$variant/lib"
    cp "$caffe/build/tools/caffe" "$stage/$variant/bin/"
    cp -P "$caffe"/build/lib/libcaffe.so* "$stage/$variant/lib/"
    [ $variant = ucudnn ] && cp -P "$repo"/build/install/lib/libucudnn.so* "$stage/$variant/lib/"
  done
  # Libraries the GPU machine lacks (each variant's own libcaffe and libucudnn stay beside it).
  for variant in plain ucudnn; do
    LD_LIBRARY_PATH="$stage/$variant/lib" bash "$repo/scripts/bundle_libraries.sh" "$stage/lib" \
      "$stage/$variant/bin/caffe" "$stage/$variant"/lib/lib*.so.*
  done
  strip --strip-unneeded "$stage"/*/bin/caffe "$stage"/lib/*.so* "$stage"/*/lib/*.so* 2> /dev/null || true
  rm -rf "$repo/caffe-pack" && mkdir -p "$repo/caffe-pack"
  tar -cJf "$repo/caffe-pack/caffe.tar.xz" -C "$stage" .
  rm -rf "$stage"
  echo "packed: caffe-pack/caffe.tar.xz ($(du -h "$repo/caffe-pack/caffe.tar.xz" | cut -f1))"
}

run() {
  local final=${OUT:-$repo/caffe-results} rounds=${ROUNDS:-3} status=0
  local out pack models="$here/models"
  out=$(mktemp -d)
  pack=$(mktemp -d)
  mkdir -p "$final"
  tar -xJf "$repo/caffe-pack/caffe.tar.xz" -C "$pack"
  local extra
  extra=$(bash "$repo/scripts/cuda_library_path.sh")
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
  # launch VARIANT [VAR=VALUE...] -- CAFFE_ARGS...: one variant's binary with its libraries
  launch() {
    local variant=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env LD_LIBRARY_PATH="$pack/$variant/lib:$pack/lib${extra:+:$extra}:${LD_LIBRARY_PATH:-}" "${envs[@]}" \
      timeout 600 "$pack/$variant/bin/caffe" "$@"
  }
  # config_env CONFIG NET_DB WD_TOTAL: the ucudnn settings of a configuration
  config_env() {
    case $1 in
      ucudnn-8MiB) echo "UCUDNN_DATABASE=$2" ;;  # Caffe's own 8 MiB (the patch's default)
      ucudnn-64MiB) echo "UCUDNN_DATABASE=$2 UCUDNN_DEFAULT_WORKSPACE_LIMIT=64MiB" ;;
      ucudnn-wd) echo "UCUDNN_DATABASE=$2 UCUDNN_TOTAL_WORKSPACE_SIZE=$3" ;;
      *) echo "UCUDNN_DATABASE=$2" ;;
    esac
  }
  for net in alexnet resnet50; do
    local model="$models/$net.prototxt" layers
    layers=$(grep -c 'type: "Convolution"' "$model")
    local wd_total=$((layers * 3 * 8))MiB
    mkdir -p "$out/$net"
    echo "$net: $layers convolution layers; WD total $wd_total" | tee "$out/$net/wd-total.txt"
    for round in $(seq 1 "$rounds"); do
      for config in plain ucudnn-8MiB ucudnn-64MiB ucudnn-wd; do
        local variant=ucudnn env
        [ $config = plain ] && variant=plain
        read -r -a env <<< "$(config_env $config "$out/$net.db" "$wd_total") UCUDNN_STATS=1 UCUDNN_LOG_LEVEL=info"
        echo "== $net $config round $round"
        launch $variant "${env[@]}" -- time -model "$model" -iterations 20 -gpu 0 \
          > "$out/$net/$config-r$round.log" 2>&1 || { echo "   failed (see $net/$config-r$round.log)"; status=1; }
        grep -E "Average Forward-Backward" "$out/$net/$config-r$round.log" | sed 's/.*\] /   /' || true
      done
      tar -czf "$final/caffe-results.tar.gz" -C "$out" .  # a run cut short keeps what it did
    done
    # The same SGD steps on the same seeded data: plain twice (its own run-to-run spread), then
    # through ucudnn; strict FP32 (no TF32) so that the comparison is of FP32 arithmetic.
    local solver="$out/$net/solver.prototxt"
    printf 'net: "%s"\nbase_lr: 0.01\nmomentum: 0.9\nweight_decay: 0.0005\nlr_policy: "fixed"\nmax_iter: 10\ndisplay: 1\nrandom_seed: 1\nsolver_mode: GPU\nsnapshot_after_train: false\n' \
      "$model" > "$solver"
    for config in plain plain-again ucudnn-64MiB ucudnn-wd; do
      local variant=ucudnn env
      [[ $config = plain* ]] && variant=plain
      # Its own database: rows measured with TF32 allowed must not serve a TF32-less process.
      read -r -a env <<< "$(config_env $config "$out/$net-strict-fp32.db" "$wd_total") NVIDIA_TF32_OVERRIDE=0 UCUDNN_STATS=1"
      launch $variant "${env[@]}" -- train -solver "$solver" -gpu 0 \
        > "$out/$net/train-$config.log" 2>&1 || { echo "   training $net $config failed"; status=1; }
    done
    rm -rf -- "$out/$net"*.db "$out/$net"*.db-journal "$out/$net"*.db-wal "$out/$net"*.db-shm "$out/$net"*.db.claims
  done
  python3 "$here/summarize.py" "$out" --markdown "$out/caffe-summary.md" --json "$out/caffe-summary.json" || status=1
  cp "$out/caffe-summary.md" "$out/caffe-summary.json" "$final/" 2> /dev/null || true
  tar -czf "$final/caffe-results.tar.gz" -C "$out" .
  return $status
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) need_gpu; run ;;
  -h | --help) help ;;
  "") echo "gpu.sh: give pack CAFFE_DIR or run (gpu.sh --help says what each does and needs)" >&2; exit 2 ;;
  *) echo "gpu.sh: '$1' is not pack or run (gpu.sh --help says what each does and needs)" >&2; exit 2 ;;
esac
