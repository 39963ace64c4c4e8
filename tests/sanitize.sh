#!/usr/bin/env bash
# The CPU suite under AddressSanitizer and UndefinedBehaviorSanitizer (g++, the full build with
# the library and the LD_PRELOAD layer), in its own build folder. Any report fails the run.
# Warnings are not errors here: GCC warns falsely under -fsanitize (the normal build enforces them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${UCUDNN_SANITIZE_BUILD_DIR:-build-sanitize}
trap 'echo "sanitizer build or tests failed (build folder: $build)" >&2' ERR
# -g1: line tables for the reports, without the full debug information that took most of the
# build's time.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
      -DUCUDNN_WARNINGS_AS_ERRORS=OFF -DUCUDNN_SANITIZE=address,undefined
cmake --build "$build" -j "$(nproc)" --target ucudnn_cpu_tests
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -R '^cpu\.'
