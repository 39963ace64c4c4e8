# What every GPU job (bench/gpu/*.sh, run as `bash bench/gpu.sh JOB`) starts with: strict mode,
# the repository root as the working folder, and the helpers below.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)

# Sets `final` (where the job's archives go: $OUT, or ./gpu-results) and `out` (a scratch folder
# the job fills and archives into $final as it goes, so that a call cut short keeps what finished),
# and records the machine's GPUs, driver, memory and clocks in $out/gpu.txt.
start_job() {
  final=${OUT:-$root/gpu-results}
  out=$(mktemp -d)
  mkdir -p "$final"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
}

# The pack's libraries (GLPK, SQLite, ucudnn) before the system's: for jobs that run the pack's
# programs directly. Jobs that start frameworks leave the path alone (ucudnn run sets what it needs).
use_pack_libraries() {
  export LD_LIBRARY_PATH="$root/pack/lib:${LD_LIBRARY_PATH:-}"
}

# Removes benchmark databases with every file kept beside them: SQLite's -journal, -wal and -shm,
# and the claims folder a killed job member leaves (`rm -f DB*` meets that folder and stops a
# `set -e` job).
remove_database() {
  local db
  for db in "$@"; do rm -rf -- "$db" "$db-journal" "$db-wal" "$db-shm" "$db.claims"; done
}

# Archives $out into $final/NAME.tar.gz, databases and claims left out (they are the run's scratch).
archive() {
  tar -czf "$final/$1.tar.gz" --exclude='*.db' --exclude='*.db-*' --exclude='*.claims' -C "$out" .
}
