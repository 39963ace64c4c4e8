#!/usr/bin/env bash
# Runs a GPU job on a lent GPU machine: `bash bench/gpu.sh pack` here (binaries and the libraries
# they need into pack/), then `bash bench/gpu.sh JOB` there, results under $OUT (default
# ./gpu-results). Each job is a script of its own in bench/gpu/, whose first lines say what it
# runs and which environment variables narrow it; bench/gpu/common.sh is their shared start.
set -euo pipefail
jobs=$(cd "$(dirname "$0")/gpu" && ls -- *.sh | grep -v '^common\.sh$' | sed 's/\.sh$//' | tr '\n' ' ')
job=${1:-}
if [ -z "$job" ] || [[ ! " $jobs " == *" $job "* ]]; then
  echo "usage: bash bench/gpu.sh JOB [ARGS...], JOB one of: ${jobs% } (bench/gpu/JOB.sh says what it does)" >&2
  exit 2
fi
shift
exec bash "$(dirname "$0")/gpu/$job.sh" "$@"
