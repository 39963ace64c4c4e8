#!/usr/bin/env bash
# Sets up, builds ucudnn and runs every test (CPU tests always; GPU tests skip where no GPU is
# visible, and the last line says how many skipped and why).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
bash scripts/build.sh
log=$(mktemp)
status=0
ctest --test-dir "${UCUDNN_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" 2>&1 | tee "$log" || status=$?
gpu_skipped=$(grep -E 'Test +#[0-9]+: gpu\.' "$log" | grep -c '[*][*][*]Skipped' || true)
other_skipped=$(grep -E 'Test +#[0-9]+: ' "$log" | grep -Ev 'Test +#[0-9]+: gpu\.' | grep -c '[*][*][*]Skipped' || true)
rm -f "$log"
if [ "$gpu_skipped" -gt 0 ]; then
  echo "tests: $gpu_skipped GPU tests skipped: no GPU is visible here (they run where one is)"
fi
if [ "$other_skipped" -gt 0 ]; then
  echo "tests: $other_skipped CPU tests skipped: each says why above (e.g. one that belongs to the other build)"
fi
exit "$status"
