#!/usr/bin/env bash
# Sets up, builds ucudnn and runs every test (CPU tests always; GPU tests skip where no GPU is
# visible). Quiet: one line per stage, then the summary: how many passed, each failed test with
# its output, each skipped CPU test with its reason, and how many GPU tests skipped and why.
# ctest's whole output is in BUILD/logs/tests.log (under CI=true it is shown where a test fails).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh
bash scripts/build.sh
build=${UCUDNN_BUILD_DIR:-build}
log=$build/logs/tests.log
started=$SECONDS
printf 'tests: running them on %s cores ... ' "$(nproc)"
status=0
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" > "$log" 2>&1 || status=$?
echo "done in $((SECONDS - started)) s (log: $log)"

# A test's line in ctest's output: "  12/345 Test  #12: cpu.Suite.Name ........***Skipped   0.01 sec".
result_lines() { grep -E "^ *[0-9]+/[0-9]+ +Test +#[0-9]+: " "$log" | grep -F -- "$1" || true; }
name_of() { sed -E 's/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: ([^ ]+) .*/\1/'; }

if [ "$status" -ne 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "--- $log"
    cat "$log"
  else
    # Each failed test's result line and the output ctest printed under it, up to the next result.
    awk '/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: / { show = /\*\*\*(Failed|Exception|Timeout)|Not Run/ }
         /^[0-9]+% tests passed/ { show = 0 }
         show && !/^ +Start +[0-9]+: /' "$log" | head -n 400
  fi
fi
grep -E "^[0-9]+% tests passed|^Total Test time" "$log" | sed 's/^/tests: /'
failed=$(grep -A 100000 "^The following tests FAILED:" "$log" | tail -n +2 | grep -v "^Errors while running CTest" || true)
[ -z "$failed" ] || { echo "tests: failed:"; printf '%s\n' "$failed"; }

# Skipped CPU tests, each with the reason GoogleTest printed (ctest keeps every test's output in
# Testing/Temporary/LastTest.log): a skip is expected only where a test belongs to the other build
# or needs something this machine lacks, and the reason says which.
gpu_skipped=$(result_lines '***Skipped' | grep -cE 'Test +#[0-9]+: gpu\.' || true)
while read -r name; do
  [ -n "$name" ] || continue
  reason=$(awk -v name="$name" '
      $0 ~ "^[0-9]+/[0-9]+ Test: " { inside = ($3 == name) }
      inside && / Skipped$/ { getline; print; exit }' "$build/Testing/Temporary/LastTest.log")
  echo "tests: skipped $name: ${reason:-(no reason given; see $build/Testing/Temporary/LastTest.log)}"
done < <(result_lines '***Skipped' | grep -vE 'Test +#[0-9]+: gpu\.' | name_of)
if [ "$gpu_skipped" -gt 0 ]; then
  echo "tests: $gpu_skipped GPU tests skipped: no GPU is visible here (they run where one is)"
fi
[ "$status" -eq 0 ] || echo "tests: FAILED (the whole output: $log)" >&2
exit "$status"
