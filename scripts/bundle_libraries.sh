#!/usr/bin/env bash
# Copies into DEST the shared libraries that FILES need and the GPU machine lacks: everything ldd
# resolves outside glibc, the C++ runtime, CUDA's libraries and cuDNN (the GPU machine has its own)
# and ucudnn's or Caffe's own libraries (packed beside their binaries). Used by the GPU packs.
#   scripts/bundle_libraries.sh DEST FILE...     (LD_LIBRARY_PATH reaches the FILES' own libraries)
set -euo pipefail
dest=${1:?usage: bundle_libraries.sh DEST FILE...}
shift
mkdir -p "$dest"
for f in "$@"; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u \
  | { grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libpthread|libdl|librt|libresolv|libutil|libnsl|libcudnn[^/]*|libcudart|libcuda|libcublas[^/]*|libcurand|libcaffe|libucudnn)[.-]' || true; } \
  | while read -r lib; do cp -L "$lib" "$dest/"; done
