#!/usr/bin/env bash
# Builds ucudnn and runs every test (CPU tests always; GPU tests skip where no GPU is visible).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${UCUDNN_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUCUDNN_WARNINGS_AS_ERRORS=ON
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
