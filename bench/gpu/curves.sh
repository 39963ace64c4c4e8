#!/usr/bin/env bash
# bash bench/gpu.sh curves [pytorch:MODEL|jax:MODEL ...]: step time against memory
# budget, plain framework against `ucudnn run`, per model
# (bench/framework_curves.py), the models spread over the GPUs one
# process per GPU; CURVES_ROUNDS, CURVES_BUDGETS, CURVES_DEADLINE (s from the
# start: no process starts later), CURVES_GPUS ("0 1 2": those only); MODEL@none,9GiB,...: its own
# budgets; CURVES_RUN_ARGS: options for `ucudnn run` (e.g.
# --micro-batch-offers); `framework_curves.py --merge` joins one model's parts
#
# Memory-budget curves (bench/framework_curves.py), one model at a time per GPU: the models are
# dealt round-robin to the visible GPUs, each GPU runs its share in turn into a folder of its own
# (a model may come twice, with other budgets, on two GPUs). Each GPU's folder is archived after
# every model (curves-gpuN.tar.gz), so a call cut short keeps what finished; the tables are
# gathered into curves-summary.md.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

curves() {
  local status=0 i started=$SECONDS
  start_job
  use_pack_libraries
  local models=("$@")
  [ ${#models[@]} -gt 0 ] || models=(pytorch:speech-bf16 pytorch:resnet50-fp32 pytorch:deeplabv3-fp32 jax:resnet50-bf16
                                     pytorch:resnet50-bf16 jax:resnet50-fp32)
  local gpus=(${CURVES_GPUS:-$(seq 0 $(($(nvidia-smi --list-gpus | wc -l) - 1)))})
  for ((i = 0; i < ${#gpus[@]}; i++)); do
    (
      local j dir="$out/gpu${gpus[$i]}"
      mkdir -p "$dir"
      for ((j = i; j < ${#models[@]}; j += ${#gpus[@]})); do
        # FRAMEWORK:MODEL[@BUDGETS]: budgets of its own (none,9GiB,...) instead of CURVES_BUDGETS.
        local spec=${models[$j]%%@*} budgets=${CURVES_BUDGETS:-auto}
        [ "$spec" != "${models[$j]}" ] && budgets=${models[$j]#*@}
        local framework=${spec%%:*} model=${spec#*:} deadline=0
        # CURVES_DEADLINE counts from the start of this command: what is left of it for this model.
        if [ "${CURVES_DEADLINE:-0}" -gt 0 ]; then
          deadline=$((CURVES_DEADLINE - SECONDS + started))
          [ "$deadline" -gt 0 ] || { echo "$model: not started (CURVES_DEADLINE reached)" >> "$dir/failed.txt"; continue; }
        fi
        CUDA_VISIBLE_DEVICES=${gpus[$i]} python3 bench/framework_curves.py --framework "$framework" --model "$model" \
          --ucudnn "$root/pack/bin/ucudnn" --run-args="${CURVES_RUN_ARGS:-}" --rounds "${CURVES_ROUNDS:-3}" --budgets "$budgets" \
          --deadline "$deadline" --out "$dir" > "$dir/$framework-$model.log" 2>&1 || echo "$model failed" >> "$dir/failed.txt"
        tar -czf "$final/curves-gpu${gpus[$i]}.tar.gz" -C "$dir" .
      done
    ) &
  done
  wait
  cat "$out"/gpu*/*.md > "$final/curves-summary.md" 2>/dev/null || true
  cat "$out"/gpu*/failed.txt 2>/dev/null && status=1
  tail -n 3 "$out"/gpu*/*.log
  return $status
}

curves "$@"
