#!/usr/bin/env bash
# bash bench/gpu.sh claims: a job's claims on one GPU (docs/database.md, A job of many processes).
# CLAIMS_NET (default resnet50) benchmarked by one process alone, then by CLAIMS_MEMBERS (default 3)
# processes at once sharing one database: each piece of work timed once (their new timings add up
# to the rows stored), no claims folder left. Then a member killed (SIGKILL) while it
# benchmarks, and the next one taking its claims over at once: UCUDNN_JOB_WAIT=600 would show any
# wait for the dead one. Results: $OUT/claims-results.tar.gz and claims-summary.txt.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# "benchmarked ... with N new timings; ... holds R rows": N of a bench's output.
timings_of() { sed -n 's/.* with \([0-9]*\) new timings.*/\1/p' "$1"; }
rows_of() { pack/bin/ucudnn db stats --database "$1" | sed -n 's/^rows: //p'; }

claims() {
  start_job
  use_pack_libraries
  local net=${CLAIMS_NET:-resnet50} members=${CLAIMS_MEMBERS:-3} status=0 summary="$out/claims-summary.txt"
  pack/bin/ucudnn bench --network "$net" --database "$out/alone.db" > "$out/alone.txt" 2>&1 || status=1
  echo "$net alone: $(timings_of "$out/alone.txt") timings, $(rows_of "$out/alone.db") rows" | tee "$summary"

  local pids=() i total=0
  for ((i = 1; i <= members; i++)); do
    pack/bin/ucudnn bench --network "$net" --database "$out/job.db" > "$out/member-$i.txt" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || { echo "member $((i + 1)) failed" | tee -a "$summary"; status=1; }; done
  for ((i = 1; i <= members; i++)); do total=$((total + $(timings_of "$out/member-$i.txt"))); done
  echo "$net, $members members at once: $total timings in all, $(rows_of "$out/job.db") rows" | tee -a "$summary"
  pack/bin/ucudnn db verify --database "$out/job.db" | sed 's/^/job db verify: /' | tee -a "$summary" || status=1
  # Each piece once: every timing a member ran is a row of its own. (The rows of a GPU's fast search
  # vary from run to run, as its timings decide what it cuts short: alone's count is for comparison.)
  [ "$(rows_of "$out/job.db")" = "$total" ] || { echo "a timing was run twice (rows != timings)" | tee -a "$summary"; status=1; }
  [ ! -e "$out/job.db.claims" ] || { echo "claims folder left: $(ls "$out/job.db.claims")" | tee -a "$summary"; status=1; }

  # A member killed while it benchmarks: its claims are free at once.
  pack/bin/ucudnn bench --network "$net" --database "$out/killed.db" > "$out/killed-first.txt" 2>&1 &
  local first=$! waited=0
  until [ -n "$(ls -A "$out/killed.db.claims" 2>/dev/null)" ] || ((waited >= 600)); do sleep 0.1; waited=$((waited + 1)); done
  sleep 1
  kill -9 "$first"
  wait "$first" 2>/dev/null || true
  echo "killed the first member with $(ls "$out/killed.db.claims" 2>/dev/null | wc -l) claim files left" | tee -a "$summary"
  local started=$SECONDS
  UCUDNN_JOB_WAIT=600 pack/bin/ucudnn bench --network "$net" --database "$out/killed.db" > "$out/killed-next.txt" 2>&1 ||
    status=1
  echo "the next member finished in $((SECONDS - started)) s (it would wait up to 600 s for a live holder):" \
    "$(timings_of "$out/killed-next.txt") timings, $(rows_of "$out/killed.db") rows" | tee -a "$summary"
  pack/bin/ucudnn db verify --database "$out/killed.db" | sed 's/^/killed db verify: /' | tee -a "$summary" || status=1
  [ ! -e "$out/killed.db.claims" ] || echo "claims folder left: $(ls "$out/killed.db.claims")" | tee -a "$summary"
  ((SECONDS - started < 300)) || status=1
  archive "claims-results"
  cp "$summary" "$final/"
  return $status
}

claims
