#!/usr/bin/env bash
# Builds tf_style_loader into BUILD_DIR (g++, no CMake): cudnn-frontend's headers fetched by
# fetch_frontend.sh, cuDNN's and CUDA's headers, linked against the CUDA runtime and libdl only
# (not libcudnn: every cuDNN function is dlsym'd); stripped (under 1 MB: the pack travels with a
# size limit). About a minute: the frontend's headers are heavy. Prints the binary's path.
#   bash tests/graph_api/build.sh BUILD_DIR
# CUDA_HOME (default /usr/local/cuda) and CUDNN_INCLUDE_DIR (default: where cudnn.h is found) override.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: build.sh BUILD_DIR}
mkdir -p "$build"
cuda=${CUDA_HOME:-/usr/local/cuda}
frontend=$(bash "$here/fetch_frontend.sh" "$build")
cudnn_include=${CUDNN_INCLUDE_DIR:-}
if [ -z "$cudnn_include" ]; then
  for dir in "$cuda/include" /usr/include /usr/include/x86_64-linux-gnu; do
    [ -f "$dir/cudnn.h" ] && { cudnn_include=$dir; break; }
  done
fi
[ -n "$cudnn_include" ] || { echo "build.sh: cudnn.h not found (set CUDNN_INCLUDE_DIR)" >&2; exit 1; }
# -isystem: the frontend's and cuDNN's headers are not ours to keep warning-free.
g++ -std=c++17 -O2 -Wall -Wextra -pthread -DNV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING \
  -isystem "$frontend" -isystem "$cudnn_include" -isystem "$cuda/include" \
  "$here/tf_style_loader.cpp" -o "$build/tf_style_loader" \
  -L"$cuda/lib64" -s -Wl,--disable-new-dtags -Wl,-rpath,"$cuda/lib64" -Wl,-rpath,'$ORIGIN/../lib' -lcudart -ldl
# The point of the program: no cuDNN symbol resolved by the dynamic linker.
if nm -D --undefined-only "$build/tf_style_loader" | grep -q cudnn; then
  echo "build.sh: tf_style_loader links cuDNN symbols:" >&2
  nm -D --undefined-only "$build/tf_style_loader" | grep cudnn >&2
  exit 1
fi
echo "$build/tf_style_loader"
