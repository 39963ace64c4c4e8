#!/usr/bin/env python3
"""Host microseconds per convolution call on PyTorch's default path (the graph API), plain vs ucudnn.

    python3 bench/graph_call_overhead.py --ucudnn pack/bin/ucudnn [--limit 64MiB] [--rounds 3] [--json FILE]
    python3 bench/graph_call_overhead.py --preload pack/lib/libucudnn_preload.so ...

One tiny convolution (batch 1, 8 -> 8 channels, 3x3, padding 1, 8x8; FP16 channels_last by
default), whose GPU time is below the host's cost of issuing it: forward (F.conv2d), backward data
and backward filter (aten.convolution_backward with one output each), and, for scale, an
elementwise add (no cuDNN). Each child process warms up (planning, and ucudnn's benchmarking),
then times --repetitions loops of --calls calls with time.perf_counter around the loop and no
synchronisation inside it; the median loop gives microseconds per call. CUDA events around the
same loop give the GPU's time per call (where it comes close to the host's, the GPU set the pace
and the host figure overstates the host's cost: make the convolution smaller).
Plain and ucudnn children alternate, --rounds fresh processes each; the report gives each op's
median over the rounds, and ucudnn's extra microseconds per call.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from ucudnn_launch import (add_launch_arguments, check_launch_arguments, describe_launch,  # noqa: E402
                           graph_statistics, statistics_lines, through_ucudnn)

OPS = ("fwd", "dgrad", "wgrad", "add")


def worker(args):
    import torch
    torch.backends.cudnn.benchmark = args.benchmark
    dtype = getattr(torch, args.dtype)
    memory_format = torch.channels_last if args.layout == "NHWC" else torch.contiguous_format
    device = torch.device("cuda")
    n, c, k, size = args.batch, args.channels, args.channels, args.size
    x = torch.randn(n, c, size, size, device=device, dtype=dtype).contiguous(memory_format=memory_format)
    w = torch.randn(k, c, 3, 3, device=device, dtype=dtype).contiguous(memory_format=memory_format)
    dy = torch.randn(n, k, size, size, device=device, dtype=dtype).contiguous(memory_format=memory_format)
    conv_backward = torch.ops.aten.convolution_backward
    calls = {
        "fwd": lambda: torch.nn.functional.conv2d(x, w, None, 1, 1),
        "dgrad": lambda: conv_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, False, False]),
        "wgrad": lambda: conv_backward(dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]),
        "add": lambda: torch.add(x, 1),
    }
    result = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(),
              "ops": {}}
    for op in args.ops.split(","):
        call = calls[op]
        for _ in range(args.warmup):
            call()
        torch.cuda.synchronize()
        host, gpu = [], []
        for _ in range(args.repetitions):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            began = time.perf_counter()
            for _ in range(args.calls):
                call()
            host.append((time.perf_counter() - began) * 1e6 / args.calls)
            stop.record()
            stop.synchronize()
            gpu.append(start.elapsed_time(stop) * 1e3 / args.calls)
        result["ops"][op] = {"host_us": statistics.median(host), "host_us_all": host, "gpu_us": statistics.median(gpu)}
    print(json.dumps(result))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_launch_arguments(parser)
    parser.add_argument("--limit", default="64MiB", help="ucudnn's per-kernel workspace limit")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per side, alternating")
    parser.add_argument("--calls", type=int, default=2000, help="calls per timed loop")
    parser.add_argument("--repetitions", type=int, default=7, help="timed loops per op (the median is taken)")
    parser.add_argument("--warmup", type=int, default=50, help="calls before the timed loops")
    parser.add_argument("--ops", default=",".join(OPS), help="comma-separated, of: " + ", ".join(OPS))
    parser.add_argument("--dtype", default="float16", choices=("float16", "bfloat16", "float32"))
    parser.add_argument("--layout", default="NHWC", choices=("NHWC", "NCHW"))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--channels", type=int, default=8)
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--benchmark", action="store_true", help="torch.backends.cudnn.benchmark = True")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if any(op not in OPS for op in args.ops.split(",")):
        parser.error(f"--ops: expected some of {', '.join(OPS)}")
    if args.worker:
        return worker(args)
    check_launch_arguments(args, "graph_call_overhead.py")
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "--calls", str(args.calls), "--repetitions",
            str(args.repetitions), "--warmup", str(args.warmup), "--ops", args.ops, "--dtype", args.dtype, "--layout",
            args.layout, "--batch", str(args.batch), "--channels", str(args.channels), "--size", str(args.size)]
    argv += ["--benchmark"] if args.benchmark else []
    env = dict(os.environ)
    for variable in ("TORCH_CUDNN_V8_API_DISABLED", "LD_PRELOAD", "UCUDNN_STATS", "UCUDNN_FORCE_WORKSPACE_LIMIT"):
        env.pop(variable, None)
    runs = {"plain": [], "ucudnn": []}
    stats = None
    for _ in range(args.rounds):
        for side in runs:  # interleaved: a slow spell of the machine touches both sides alike
            command, child_env = (argv, env) if side == "plain" else through_ucudnn(args, argv, args.limit, env)
            done = subprocess.run(command, env=child_env, capture_output=True, text=True)
            if done.returncode != 0 or not done.stdout.strip():
                sys.exit(f"graph_call_overhead.py: error: the {side} run failed ({done.returncode}): "
                         f"{done.stderr.strip()[-1500:]}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            if side == "ucudnn":
                result["statistics"] = statistics_lines(done.stderr)
                result["graph_api"] = stats = graph_statistics(done.stderr)
            runs[side].append(result)
    first = runs["plain"][0]
    print(f'{first["gpu"]}, torch {first["torch"]}, cuDNN {first["cudnn"]}, PyTorch\'s default path (graph API); '
          f'batch {args.batch}, {args.channels} -> {args.channels} channels, 3x3, {args.size}x{args.size}, {args.dtype} '
          f'{args.layout}; {args.calls} calls per loop, median of {args.repetitions} loops, {args.rounds} processes per '
          f'side alternating (median); ucudnn: {describe_launch(args, args.limit)}')
    print(f'{"op":6s} {"plain us/call":>14s} {"ucudnn us/call":>15s} {"difference":>11s}   {"GPU us/call plain":>18s} '
          f'{"ucudnn":>7s}   per round (plain / ucudnn)')
    summary = {}
    for op in args.ops.split(","):
        plain = [r["ops"][op]["host_us"] for r in runs["plain"]]
        ucudnn = [r["ops"][op]["host_us"] for r in runs["ucudnn"]]
        gpu_plain = statistics.median(r["ops"][op]["gpu_us"] for r in runs["plain"])
        gpu_ucudnn = statistics.median(r["ops"][op]["gpu_us"] for r in runs["ucudnn"])
        p, u = statistics.median(plain), statistics.median(ucudnn)
        summary[op] = {"plain_us": p, "ucudnn_us": u, "difference_us": u - p, "gpu_plain_us": gpu_plain,
                       "gpu_ucudnn_us": gpu_ucudnn, "plain_rounds": plain, "ucudnn_rounds": ucudnn}
        rounds = " ".join(f"{a:.1f}/{b:.1f}" for a, b in zip(plain, ucudnn))
        print(f"{op:6s} {p:14.2f} {u:15.2f} {u - p:+11.2f}   {gpu_plain:18.2f} {gpu_ucudnn:7.2f}   {rounds}")
    print("ucudnn (last process):")
    for line in runs["ucudnn"][-1]["statistics"]:
        print(f"    {line}")
    if not stats or not stats["plans_intercepted"]:
        print(f"WARNING: no graph-API plan intercepted in the ucudnn runs ({stats}): the difference is not ucudnn's graph path")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "runs": runs, "args": vars(args)}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
