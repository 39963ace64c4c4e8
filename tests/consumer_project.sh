#!/usr/bin/env bash
# The README's quick start as a test: install this build into a fresh prefix, then configure,
# build and run examples/consumer against it with find_package(ucudnn), as a user's project does.
#   tests/consumer_project.sh BUILD_DIR SOURCE_DIR
# Without a GPU the test is the install, find_package, the compile and the link; with one, the
# consumer's own check of ucudnn against plain cuDNN runs too.
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log
trap 'cat "$log" >&2' ERR
cmake --install "$build" --prefix "$work/prefix" >"$log" 2>&1
# The recorded table comes with the command, and the README's plan line runs on it there.
table="$work/prefix/share/ucudnn/data/h100-alexnet-b256-fp32.csv"
[ -f "$table" ] || { echo "consumer_project: the install has no $table" >&2; exit 1; }
"$work/prefix/bin/ucudnn" plan --measurements "$table" --workspace-limit 64MiB >"$log" 2>&1
cmake -S "$source/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$log" 2>&1
cmake --build "$work/consumer" >"$log" 2>&1
# Only the installed library may be used: the loader is pointed at the prefix, as a user's is.
status=0
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer" || status=$?
if [ "$status" -eq 77 ]; then
  echo "consumer_project: installed, found, compiled and linked; no GPU to run it on"
  exit 0
fi
exit "$status"
