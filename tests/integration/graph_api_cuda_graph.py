#!/usr/bin/env python3
"""A conv-net training step captured by PyTorch as a CUDA graph, replayed through ucudnn.

    python3 tests/integration/graph_api_cuda_graph.py --ucudnn pack/bin/ucudnn [--limits 1MiB,64MiB] [--out DIR]
    python3 tests/integration/graph_api_cuda_graph.py --preload pack/lib/libucudnn_preload.so ...

The step: a small convolutional network (six Conv2d layers with ReLU: strides, a grouped and a
dilated layer; global average pooling and a linear layer), cross entropy on random labels, and the
gradients of every parameter (torch.autograd.grad). Two variants: FP32 NCHW with TF32 off, and
autocast FP16 with model and input in channels_last. PyTorch's default path, cuDNN's graph API.

In the child, per variant: three warm-up steps on a side stream (as PyTorch's CUDA-graph recipe
does; planning happens there), then the step is captured by the caller with
torch.cuda.CUDAGraph and torch.cuda.graph(...) on static input and label tensors; then, --replays
times: a fresh random batch is copied into the static tensors, the graph replayed, and its output,
loss and gradients compared with an eager run of the same step on the same batch, in the same
process. Tolerance on max |replayed - eager| / max |eager| per tensor: 2e-3 in FP32 and 2e-2 in
FP16 (ucudnn may run another plan for captured calls than for calls issued directly: a different
summation order, through six layers and back); a replay that did not recompute, or lost a
micro-batch, differs by the order of the values.

Runs (fresh child processes): plain once (the test itself, without ucudnn; skip with --no-plain),
then through ucudnn at each limit of --limits (`ucudnn run --workspace-limit L -- python3 THIS
--worker`, or LD_PRELOAD and ucudnn's variables given only --preload). A ucudnn run fails when its
`ucudnn: graph API:` statistics line is missing or shows no intercepted plan. Exit status 0 when
every check passes.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ucudnn_launch import (add_launch_arguments, check_launch_arguments, describe_launch, front_ends,  # noqa: E402
                           graph_statistics, op_table, run_side, statistics_lines)

TOLERANCE = {"fp32": 2e-3, "fp16": 2e-2}


def build_model(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, 1, 1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
        nn.Conv2d(64, 64, 3, 1, 1, groups=4), nn.ReLU(),
        nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU(),
        nn.Conv2d(128, 128, 3, 1, 2, dilation=2), nn.ReLU(),
        nn.Conv2d(128, 256, 1, 1, 0), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10))


def run_variant(torch, args, variant):
    device = torch.device("cuda")
    fp16 = variant == "fp16"
    memory_format = torch.channels_last if fp16 else torch.contiguous_format
    torch.manual_seed(args.seed)
    model = build_model(torch).to(device).to(memory_format=memory_format).train()
    params = [p for p in model.parameters()]
    gen = torch.Generator(device="cpu").manual_seed(args.seed + 1)

    def batch():
        x = torch.randn(args.batch, 3, args.size, args.size, generator=gen).to(device)
        return x.contiguous(memory_format=memory_format), torch.randint(0, 10, (args.batch,), generator=gen).to(device)

    def step(x, y):
        with torch.autocast("cuda", dtype=torch.float16, enabled=fp16):
            out = model(x)
        loss = torch.nn.functional.cross_entropy(out.float(), y)
        grads = torch.autograd.grad(loss, params)
        return out, loss, grads

    static_x, static_y = batch()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    started = time.perf_counter()
    with torch.cuda.stream(side):
        for _ in range(3):
            step(static_x, static_y)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    warmup = time.perf_counter() - started

    graph = torch.cuda.CUDAGraph()
    started = time.perf_counter()
    with torch.cuda.graph(graph):
        static_out, static_loss, static_grads = step(static_x, static_y)
    torch.cuda.synchronize()
    capture = time.perf_counter() - started

    def relative(a, b):
        scale = b.abs().max().item() or 1.0
        difference = (a.float() - b.float()).abs()
        if not torch.isfinite(a.float()).all():
            return float("inf")
        return difference.max().item() / scale

    replays = []
    previous = None
    for _ in range(args.replays):
        x, y = batch()
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
        torch.cuda.synchronize()
        replayed = [static_out.clone(), static_loss.clone()] + [g.clone() for g in static_grads]
        eager_out, eager_loss, eager_grads = step(x, y)
        torch.cuda.synchronize()
        eager = [eager_out, eager_loss] + list(eager_grads)
        errors = [relative(r, e) for r, e in zip(replayed, eager)]
        # The replay computed something new: its output differs from the previous replay's.
        fresh = previous is None or not torch.equal(previous, replayed[0])
        previous = replayed[0]
        replays.append({"output": errors[0], "loss": errors[1], "grads": max(errors[2:]),
                        "worst_grad": int(max(range(len(errors) - 2), key=lambda i: errors[2 + i])),
                        "fresh": bool(fresh)})
    return {"variant": variant, "warmup_seconds": warmup, "capture_seconds": capture, "replays": replays,
            "tolerance": TOLERANCE[variant]}


def worker(args):
    import torch
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = args.benchmark
    results = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(),
               "variants": []}
    for variant in args.variants.split(","):
        try:
            results["variants"].append(run_variant(torch, args, variant))
        except Exception as error:
            results["variants"].append({"variant": variant, "error": f"{type(error).__name__}: {str(error)[:500]}"})
    print(json.dumps(results))
    return 0


def check(name, result, failed):
    for v in result["variants"]:
        if "error" in v:
            print(f"FAIL [{name}] {v['variant']}: {v['error']}")
            failed += 1
            continue
        tolerance = v["tolerance"]
        for i, r in enumerate(v["replays"]):
            worst = max(r["output"], r["loss"], r["grads"])
            ok = worst <= tolerance and r["fresh"]
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} [{name}] {v['variant']} replay {i + 1}: replayed vs eager, output "
                  f"{r['output']:.2e}, loss {r['loss']:.2e}, gradients {r['grads']:.2e} (worst: parameter "
                  f"{r['worst_grad']}), tolerance {tolerance:.0e}{'' if r['fresh'] else ', SAME output as the previous replay'}")
        print(f"     [{name}] {v['variant']}: warm-up {v['warmup_seconds']:.2f} s, capture {v['capture_seconds']:.2f} s")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_launch_arguments(parser)
    parser.add_argument("--limits", default="1MiB,64MiB", help="per-kernel workspace limits, one ucudnn run each")
    parser.add_argument("--variants", default="fp32,fp16", help="fp32 (NCHW, TF32 off), fp16 (autocast, channels_last)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=64, help="input height and width")
    parser.add_argument("--replays", type=int, default=5)
    parser.add_argument("--benchmark", action="store_true", help="torch.backends.cudnn.benchmark = True")
    parser.add_argument("--no-plain", action="store_true", help="skip the run without ucudnn")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="folder for the children's logs")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per child")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    check_launch_arguments(args, "graph_api_cuda_graph.py")
    import torch
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 0
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"batch {args.batch}, {args.size}x{args.size}, {args.replays} replays, variants {args.variants}")
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "--variants", args.variants, "--batch", str(args.batch),
            "--size", str(args.size), "--replays", str(args.replays), "--seed", str(args.seed)]
    argv += ["--benchmark"] if args.benchmark else []
    env = dict(os.environ)
    env.pop("TORCH_CUDNN_V8_API_DISABLED", None)  # PyTorch's default path: the graph API
    runs = ([] if args.no_plain else [("plain", None)]) + [(f"ucudnn-{l}", l) for l in args.limits.split(",") if l]
    failed = 0
    for name, limit in runs:
        if limit is not None:
            print(f"[{name}] {describe_launch(args, limit)}")
        done, seconds = run_side(args, argv, limit, env,
                                 os.path.join(args.out, f"cudagraph-{name}.log") if args.out else None)
        if done.returncode != 0 or not done.stdout.strip():
            print(f"FAIL [{name}] the run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
            failed += 1
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        failed = check(name, result, failed)
        print(f"     [{name}] {seconds:.1f} s")
        if limit is None:
            continue
        for line in statistics_lines(done.stderr):
            print(f"     {line}")
        stats = graph_statistics(done.stderr)
        if stats is None or stats["plans_intercepted"] == 0:
            print(f"FAIL [{name}] no graph-API plan intercepted ({json.dumps(stats)})")
            failed += 1
        else:
            ops = op_table(done.stderr)
            captured = sum(o["captured"] for o in ops.values())
            print(f"ok   [{name}] graph API: {stats['plans_intercepted']} plans intercepted, {stats['passed_through']} "
                  f"passed through, {stats['executions']} executions; front-ends: {front_ends(done.stderr)}; "
                  f"ucudnn's own graphs captured: {captured}")
    print(f"{'PASSED' if failed == 0 else 'FAILED'}: {failed} failed check(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
