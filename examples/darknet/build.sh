#!/usr/bin/env bash
# Builds Darknet (AlexeyAB/darknet) for CUDA 12 or 13 and cuDNN 8 or 9: GPU, cuDNN and half
# precision on, OpenCV off. `build.sh --help` lists the options. Darknet itself needs no change for
# today's toolkit; seed.patch only lets a training's seed be set (DARKNET_SEED), so that plain and
# ucudnn runs start alike. ucudnn reaches Darknet unmodified, through `ucudnn run` (LD_PRELOAD).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tested_commit=59596d7880f6504768df41d6daa586f5cb2b932f  # AlexeyAB/darknet master, 2025-12-15

help() {
  cat << 'EOF'
usage: build.sh DARKNET_DIR [--arch SM] [--jobs N] [--check]

Builds DARKNET_DIR/darknet with its Makefile: GPU=1 CUDNN=1 CUDNN_HALF=1 OPENCV=0, for one GPU
architecture. DARKNET_DIR is AlexeyAB's Darknet (git clone https://github.com/AlexeyAB/darknet);
seed.patch is applied first (once; a checkout that has it is left as it is).

  --arch SM    the GPU architecture, compute capability without the dot (default 90, the H100)
  --jobs N     parallel compile jobs (default: the number of cores)
  --check      check the checkout, the toolkit and that the patch applies; change nothing
  -h, --help   this text

Environment: CUDA_HOME, the CUDA toolkit (default /usr/local/cuda, else the nvcc on PATH).
EOF
}

fail() { echo "build.sh: $*" >&2; exit 1; }
usage_error() { echo "build.sh: $* (see build.sh --help)" >&2; exit 2; }

darknet=""
arch=90
jobs=$(nproc)
check=0
while [ $# -gt 0 ]; do
  option=$1
  case "$option" in  # --arch=90 is --arch 90
    --arch=* | --jobs=*) set -- "${option%%=*}" "${option#*=}" "${@:2}"; option=$1 ;;
  esac
  case "$option" in
    --arch | --jobs) [ $# -ge 2 ] || usage_error "$option needs a value" ;;
  esac
  case "$option" in
    --arch) arch=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --check) check=1 ;;
    -h | --help) help; exit 0 ;;
    -*) usage_error "unknown option '$option'" ;;
    *) [ -z "$darknet" ] || usage_error "one DARKNET_DIR only, not '$darknet' and '$option'"; darknet=$option ;;
  esac
  shift
done
[ -n "$darknet" ] || usage_error "DARKNET_DIR is missing"
[[ "$arch" =~ ^[0-9]+$ ]] || usage_error "--arch takes a compute capability without the dot (90 for the H100), not '$arch'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs takes a positive number, not '$jobs'"
[ -d "$darknet" ] || fail "'$darknet' is not a directory"
darknet=$(cd "$darknet" && pwd -P)

# --- AlexeyAB's Darknet? --------------------------------------------------------------------------
grep -q '^CUDNN_HALF=' "$darknet/Makefile" 2> /dev/null && [ -f "$darknet/src/convolutional_layer.c" ] \
  || fail "'$darknet' is not AlexeyAB's Darknet (no CUDNN_HALF in its Makefile); get it with: git clone https://github.com/AlexeyAB/darknet"
if [ "$(git -C "$darknet" rev-parse --show-toplevel 2> /dev/null)" = "$darknet" ]; then
  commit=$(git -C "$darknet" rev-parse -q --verify 'HEAD^{commit}' || true)
  [ "$commit" = "$tested_commit" ] \
    || echo "build.sh: note: tested at ${tested_commit:0:12}, this checkout is at ${commit:0:12}" >&2
fi

# --- the toolkit ----------------------------------------------------------------------------------
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ]; then
  command -v nvcc > /dev/null || fail "no CUDA toolkit: neither $cuda/bin/nvcc nor an nvcc on PATH (set CUDA_HOME)"
  cuda=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
fi
cudnn_header=$(ls "$cuda"/include/cudnn_version.h /usr/include/cudnn_version.h \
  /usr/include/x86_64-linux-gnu/cudnn_version.h 2> /dev/null | head -1 || true)
[ -n "$cudnn_header" ] || fail "no cuDNN headers (cudnn_version.h) under $cuda/include or /usr/include"

# --- the patch ------------------------------------------------------------------------------------
patch_state() {  # applied, applies, or conflicts
  if patch -d "$darknet" -p1 -R --dry-run -s -f < "$here/seed.patch" > /dev/null 2>&1; then echo applied
  elif patch -d "$darknet" -p1 --dry-run -s -f < "$here/seed.patch" > /dev/null 2>&1; then echo applies
  else echo conflicts; fi
}
state=$(patch_state)
[ "$state" != conflicts ] || fail "seed.patch does not apply to $darknet/src/detector.c (tested at ${tested_commit:0:12})"
if [ $check = 1 ]; then
  echo "build.sh: ok: Darknet in $darknet, CUDA in $cuda, $cudnn_header, seed.patch $state"
  exit 0
fi
[ "$state" = applied ] || patch -d "$darknet" -p1 -s < "$here/seed.patch"

# --- the build ------------------------------------------------------------------------------------
# Darknet's Makefile names sm_50..61 by default, which CUDA 13 no longer compiles; one ARCH instead.
PATH="$cuda/bin:$PATH" make -C "$darknet" -j "$jobs" GPU=1 CUDNN=1 CUDNN_HALF=1 OPENCV=0 AVX=0 OPENMP=0 LIBSO=0 \
  NVCC="$cuda/bin/nvcc" ARCH="-gencode arch=compute_$arch,code=[sm_$arch,compute_$arch]" > "$darknet/build.log" 2>&1 \
  || { tail -20 "$darknet/build.log" >&2; fail "make failed (the whole log: $darknet/build.log)"; }
[ -x "$darknet/darknet" ] || fail "make finished but $darknet/darknet is missing (see $darknet/build.log)"
echo "build.sh: built $darknet/darknet (sm_$arch)"
