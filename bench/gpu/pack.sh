#!/usr/bin/env bash
# bash bench/gpu.sh pack, here (not on the GPU machine): build with an $ORIGIN-relative RPATH
# and copy the binaries and the non-system libraries they need into pack/ (git-ignored)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pack() {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DUCUDNN_PORTABLE_RPATH=ON >/dev/null
  # What the GPU machine runs, not the CPU suite (CI builds and runs that).
  cmake --build build-gpu -j "$(nproc)" --target ucudnn_gpu_tests ucudnn_preload_probe ucudnn_graph_probe ucudnn_cli ucudnn \
    ucudnn_preload ucudnn_bench ucudnn_conv_benchmark ucudnn_call_overhead ucudnn_legacy_plan_cache ucudnn_new_batch_sizes ucudnn_mixed_filter_probe >/dev/null
  rm -rf pack && mkdir -p pack/bin pack/lib
  cp build-gpu/tests/ucudnn_gpu_tests build-gpu/tests/ucudnn_preload_probe build-gpu/tests/ucudnn_graph_probe build-gpu/src/ucudnn \
     build-gpu/bench/ucudnn_conv_benchmark build-gpu/bench/ucudnn_call_overhead \
     build-gpu/bench/ucudnn_legacy_plan_cache build-gpu/bench/ucudnn_new_batch_sizes \
     build-gpu/bench/ucudnn_mixed_filter_probe pack/bin/
  cp -P build-gpu/src/libucudnn.so* build-gpu/src/libucudnn_preload.so build-gpu/src/libucudnn_bench.so pack/lib/
  # The README's quick start: a project of its own, built against the installed package.
  cmake --install build-gpu --prefix build-gpu/install >/dev/null
  cmake -S examples/consumer -B build-gpu/consumer -DCMAKE_PREFIX_PATH="$root/build-gpu/install" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-gpu/consumer >/dev/null
  cp build-gpu/consumer/consumer pack/bin/ucudnn_consumer
  # The TensorFlow-style loader (tests/graph_api/): cudnn-frontend's headers come from PyPI
  # (tests/graph_api/fetch_frontend.sh); where they cannot be fetched, the pack goes on without it.
  local loader
  if loader=$(bash tests/graph_api/build.sh build-gpu/graph-api 2> build-gpu/graph-api.log); then
    cp "$loader" pack/bin/
  else
    echo "pack: warning: tf_style_loader not built (build-gpu/graph-api.log says why); graphapi's loader step will fail" >&2
    tail -3 build-gpu/graph-api.log >&2
  fi
  # Libraries the GPU machine lacks.
  bash scripts/bundle_libraries.sh pack/lib pack/bin/* pack/lib/libucudnn_bench.so
  # The tests read recorded data from the source tree.
  echo "packed: $(ls pack/bin | tr '\n' ' ')/ $(ls pack/lib | tr '\n' ' ')"
}

pack
