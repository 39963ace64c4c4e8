#!/usr/bin/env bash
# Sets up, builds ucudnn and runs every test (CPU tests always; GPU tests skip where no GPU is
# visible).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
bash scripts/build.sh
ctest --test-dir "${UCUDNN_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
