#!/usr/bin/env bash
# Builds Caffe 1.0 for CUDA 13 and cuDNN 9, plain or with ucudnn.
#
#   examples/caffe_patch/build.sh CAFFE_DIR [--with-ucudnn] [--arch 90] [--jobs N]
#
# CAFFE_DIR is a checkout of BVLC/caffe at tag 1.0. The script applies cuda13.patch, and with
# --with-ucudnn also ucudnn.patch (without it, takes ucudnn.patch back out if it was applied), so
# one checkout switches between the two builds. It installs Caffe's Debian dependencies that are
# missing (with sudo when not root), builds ucudnn from this repository and
# installs it under build/install here, and builds Caffe with CMake in CAFFE_DIR/build for
# the GPU architecture given (sm_90, the H100, by default). OpenCV and Python are off. ccache
# keeps switching cheap: only what the patch changes is compiled again.
#
# Result: CAFFE_DIR/build/tools/caffe, and CAFFE_DIR/build/variant ("plain" or "ucudnn").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}

fail() { echo "build.sh: $*" >&2; exit 1; }
usage() { fail "usage: build.sh CAFFE_DIR [--with-ucudnn] [--arch SM (default 90)] [--jobs N]"; }

caffe=""
with_ucudnn=0
arch=90
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --with-ucudnn) with_ucudnn=1 ;;
    --arch) [ $# -ge 2 ] || usage; arch=$2; shift ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) fail "unknown option '$1'" ;;
    *) [ -z "$caffe" ] || usage; caffe=$1 ;;
  esac
  shift
done
[ -n "$caffe" ] || usage
[[ "$arch" =~ ^[0-9]+$ ]] || fail "--arch takes a compute capability without the dot (90 for the H100), not '$arch'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || fail "--jobs takes a positive number, not '$jobs'"
[ -d "$caffe" ] || fail "'$caffe' is not a directory"
caffe=$(cd "$caffe" && pwd)

# --- Caffe 1.0? ---------------------------------------------------------------------------------
grep -q 'set(CAFFE_TARGET_VERSION "1.0.0"' "$caffe/CMakeLists.txt" 2>/dev/null \
  || fail "'$caffe' is not a Caffe 1.0 checkout (no CAFFE_TARGET_VERSION 1.0.0 in CMakeLists.txt); get it with: git clone -b 1.0 https://github.com/BVLC/caffe"
if [ -d "$caffe/.git" ] && command -v git > /dev/null; then
  tag=$(git -C "$caffe" rev-parse -q --verify 'HEAD^{commit}' || true)
  [ "$tag" = eeebdab16155d34ff8f5f42137da7df4d1c7eab0 ] \
    || fail "'$caffe' is at commit ${tag:-unknown}, not Caffe 1.0 (eeebdab1): git -C '$caffe' checkout 1.0"
fi

# --- Debian packages ----------------------------------------------------------------------------
packages=(cmake g++ make patch ccache protobuf-compiler libprotobuf-dev libgoogle-glog-dev libgflags-dev
          libboost-system-dev libboost-thread-dev libboost-filesystem-dev libhdf5-dev liblmdb-dev
          libleveldb-dev libsnappy-dev libopenblas-dev)
# tests/setup.sh installs what is missing (with sudo when not root; it waits for a held apt lock),
# together with ucudnn's own build dependencies.
UCUDNN_SETUP_EXTRA="${packages[*]}" bash "$repo/tests/setup.sh" \
  || fail "could not install Caffe's dependencies with apt-get (see above): ${packages[*]}"
[ -x "$cuda/bin/nvcc" ] || fail "no nvcc at $cuda/bin/nvcc (set CUDA_HOME to the CUDA 13 toolkit)"
"$cuda/bin/nvcc" --version | grep -q 'release 13\.' \
  || fail "$cuda is not CUDA 13: $("$cuda/bin/nvcc" --version | tail -1)"
cudnn_h=$(ls "$cuda/include/cudnn_version.h" /usr/include/*-linux-gnu/cudnn_version.h /usr/include/cudnn_version.h 2>/dev/null | head -1 || true)
[ -n "$cudnn_h" ] || fail "no cuDNN found (cudnn_version.h under $cuda/include or /usr/include)"
grep -qE '#define CUDNN_MAJOR +9$' "$cudnn_h" || fail "$cudnn_h is not cuDNN 9"

# --- the patches --------------------------------------------------------------------------------
applied() { patch -d "$caffe" -p1 -R --dry-run -s -f < "$1" > /dev/null 2>&1; }
apply() {
  applied "$1" && return 0
  patch -d "$caffe" -p1 --dry-run -s -f < "$1" > /dev/null 2>&1 \
    || fail "$(basename "$1") does not apply to '$caffe': is it an unmodified Caffe 1.0 checkout?"
  patch -d "$caffe" -p1 -s -f < "$1" && echo "build.sh: applied $(basename "$1")"
}
apply "$here/cuda13.patch"
if [ $with_ucudnn = 1 ]; then
  apply "$here/ucudnn.patch"
elif applied "$here/ucudnn.patch"; then
  patch -d "$caffe" -p1 -R -s -f < "$here/ucudnn.patch" && echo "build.sh: took ucudnn.patch back out"
fi

# --- ucudnn -------------------------------------------------------------------------------------
build="$caffe/build"
mkdir -p "$build"
prefix_args=()
if [ $with_ucudnn = 1 ]; then
  bash "$repo/scripts/build.sh" > "$build/ucudnn-build.log" 2>&1 \
    || fail "building ucudnn failed; see $build/ucudnn-build.log"
  # Installed outside Caffe's trees: CMake refuses include paths of a target inside them.
  ucudnn_prefix="$repo/build/install"
  cmake --install "$repo/build" --prefix "$ucudnn_prefix" > /dev/null
  prefix_args=(-Ducudnn_DIR="$ucudnn_prefix/lib/cmake/ucudnn")
fi

# --- Caffe --------------------------------------------------------------------------------------
# nvcc through ccache: FindCUDA takes one executable, so a two-line wrapper.
printf '#!/bin/sh\nexec ccache %s "$@"\n' "$cuda/bin/nvcc" > "$build/nvcc-ccache"
chmod +x "$build/nvcc-ccache"
export PATH="$cuda/bin:$PATH"
cmake -S "$caffe" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCUDA_TOOLKIT_ROOT_DIR="$cuda" -DCUDA_NVCC_EXECUTABLE="$build/nvcc-ccache" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCUDA_ARCH_NAME=Manual -DCUDA_ARCH_BIN="$arch" -DCUDA_ARCH_PTX= -DBLAS=Open \
  -DUSE_OPENCV=OFF -DBUILD_python=OFF -DBUILD_python_layer=OFF -DBUILD_docs=OFF "${prefix_args[@]}" \
  > "$build/configure.log" 2>&1 || fail "configuring Caffe failed; see $build/configure.log"
rm -f "$build/variant"
make -C "$build" -j "$jobs" caffe.bin > "$build/make.log" 2>&1 \
  || fail "building Caffe failed; see $build/make.log ($(grep -m1 -E 'error' "$build/make.log" || true))"
if [ $with_ucudnn = 1 ]; then echo ucudnn > "$build/variant"; else echo plain > "$build/variant"; fi
echo "build.sh: built $(cat "$build/variant") Caffe for sm_$arch: $build/tools/caffe"
