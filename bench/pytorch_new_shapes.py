#!/usr/bin/env python3
"""What a new batch size costs PyTorch inference (needs a GPU and torch).

    python3 bench/pytorch_new_shapes.py --ucudnn pack/bin/ucudnn [--workspace-limit 8MiB] \
        [--batches 1-64,96,128,192,256] [--json FILE]

ResNet-50 in eval mode under torch.inference_mode, autocast FP16, channels_last (torch.nn only,
bench/pytorch_preload_bench.py's definition), one forward pass per batch size in the order given,
each mode in a fresh process:
  benchmark        plain PyTorch, torch.backends.cudnn.benchmark=True: PyTorch's autotuner times
                   every new shape's engines (what a framework's search costs per new shape)
  heuristics       plain PyTorch, benchmark=False: cuDNN's heuristics, no search
  ucudnn           benchmark=False through `ucudnn run --workspace-limit L`: plans that need more
                   than L are ucudnn's (a new batch size planned over the powers of two it measured)
Per batch size: the first pass's wall time (synchronized: planning and search included) and the
median of --reps passes (CUDA events); the ucudnn mode also reports the plans it made per batch
size (its info log) and its statistics at exit.
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from ucudnn_launch import add_launch_arguments, check_launch_arguments, run_side, statistics_lines  # noqa: E402

MODES = ("benchmark", "heuristics", "ucudnn")
PLANNED = re.compile(r"planned fwd dev\d+ x:t\d+:(\d+)x")


def parse_batches(text):
    batches = []
    for item in text.split(","):
        first, _, last = item.partition("-")
        batches += list(range(int(first), int(last or first) + 1))
    if not batches or min(batches) < 1:
        raise SystemExit(f"pytorch_new_shapes.py: error: --batches {text!r} names no batch size of 1 or more")
    return batches


def worker(args):
    import torch
    from pytorch_preload_bench import resnet
    torch.backends.cudnn.benchmark = args.worker == "benchmark"
    model = resnet(torch, 50).cuda().to(memory_format=torch.channels_last).eval()
    gen = torch.Generator(device="cpu").manual_seed(1)
    rows = []
    with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16):
        for batch in parse_batches(args.batches):
            x = torch.randn(batch, 3, 224, 224, generator=gen).cuda().contiguous(memory_format=torch.channels_last)
            torch.cuda.synchronize()
            started = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            first = time.perf_counter() - started
            times = []
            for _ in range(args.reps):
                begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                begin.record()
                model(x)
                end.record()
                end.synchronize()
                times.append(begin.elapsed_time(end))
            rows.append({"batch": batch, "first_s": first, "median_ms": statistics.median(times)})
    print(json.dumps({"mode": args.worker, "rows": rows, "torch": torch.__version__,
                      "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name()}))


def run_mode(args, mode, log_dir):
    argv = [sys.executable, os.path.abspath(__file__), "--worker", mode, "--batches", args.batches,
            "--reps", str(args.reps)]
    env = dict(os.environ)
    if mode == "ucudnn":
        env.update(UCUDNN_LOG_LEVEL="info", UCUDNN_LOG_FILE=os.path.join(log_dir, "ucudnn.log"))
    done, _ = run_side(args, argv, args.workspace_limit if mode == "ucudnn" else None, env,
                       os.path.join(log_dir, mode + ".txt"))
    if done.returncode != 0:
        raise SystemExit(f"pytorch_new_shapes.py: error: mode {mode} exited {done.returncode}: "
                         f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if mode == "ucudnn":
        plans = {}
        with open(os.path.join(log_dir, "ucudnn.log")) as log:
            for batch in PLANNED.findall(log.read()):
                plans[int(batch)] = plans.get(int(batch), 0) + 1
        for row in result["rows"]:
            row["plans_made"] = plans.get(row["batch"], 0)
        result["statistics"] = statistics_lines(done.stderr)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_launch_arguments(parser)
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--batches", default="1-64,96,128,192,256")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--workspace-limit", default="8MiB")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--json")
    parser.add_argument("--log-dir", help="keep each mode's output and ucudnn's plan log here")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    check_launch_arguments(args, "pytorch_new_shapes.py")
    parse_batches(args.batches)
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        log_dir = args.log_dir or scratch
        os.makedirs(log_dir, exist_ok=True)
        for mode in args.modes.split(","):
            results[mode] = run_mode(args, mode, log_dir)
            print(f"{mode}: done", flush=True)
    modes = list(results)
    print("batch " + " ".join(f"{m + ' first s':>18} {m + ' ms':>15}" for m in modes) + "  ucudnn plans")
    for i, row in enumerate(results[modes[0]]["rows"]):
        cells = " ".join(f"{results[m]['rows'][i]['first_s']:18.3f} {results[m]['rows'][i]['median_ms']:15.3f}"
                         for m in modes)
        plans = results["ucudnn"]["rows"][i].get("plans_made", "") if "ucudnn" in results else ""
        print(f"{row['batch']:5d} {cells}  {plans}")
    for m in modes:
        firsts = [r["first_s"] for r in results[m]["rows"]]
        print(f"{m}: first passes {sum(firsts):.2f} s in all, median {statistics.median(firsts):.3f} s")
    if "ucudnn" in results:
        print("\n".join(results["ucudnn"]["statistics"]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"workspace_limit": args.workspace_limit, "batches": args.batches, "modes": results}, out,
                      indent=1)


if __name__ == "__main__":
    main()
