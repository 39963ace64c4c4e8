#!/usr/bin/env bash
# Prints the directories (colon-separated) of the CUDA libraries that legacy programs link and the
# dynamic linker does not find by itself on the GPU machine: cuBLAS and cuRAND come there only in
# PyTorch's pip wheels (site-packages/nvidia). Used by the Caffe and Darknet GPU scripts.
set -uo pipefail
path=""
for lib in libcublas.so.13 libcublasLt.so.13 libcurand.so.10; do
  ldconfig -p | grep -q "$lib" && continue
  dir=$(find / -xdev -name "$lib" -path '*nvidia*' -printf '%h\n' 2> /dev/null | head -1)
  [ -n "$dir" ] && case ":$path:" in *":$dir:"*) ;; *) path="$path:$dir" ;; esac
done
echo "${path#:}"
