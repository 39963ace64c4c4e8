#!/usr/bin/env python3
"""A PyTorch model, plain against libucudnn_preload.so (needs a GPU and torch).

    python3 bench/pytorch_preload_bench.py --preload PATH/libucudnn_preload.so [--model M] [--json FILE]
    python3 bench/pytorch_preload_bench.py --ucudnn pack/bin/ucudnn --modes default,ucudnn-graph --rounds 3 ...

--model alexnet-convs (the default): the five AlexNet convolutions at batch 256 (FP32, TF32 off),
forward and backward (input and weight gradients, the first layer's input excepted).

--model resnet50-fp16 / resnet50-bf16 / resnet18-fp16: ResNet-50 at batch 64 or ResNet-18 at
batch 128 (defined here with torch.nn only, torchvision's layout, so that torchvision is not
needed), model and input in channels_last, forward under torch.autocast("cuda", dtype=float16 or
bfloat16), cross entropy on random labels (computed in FP32), backward. No optimizer step: the
gradients accumulate in .grad, allocated in the warm-up and so counted among the tensors, as the
AlexNet convolutions' are. BatchNorm is in training mode.

Modes (--modes, each in a fresh process, torch.backends.cudnn.benchmark=True):
  default          PyTorch's default path, cuDNN's graph API, all the workspace it wants
  default-capped   the same under PyTorch's own cap, CUDNN_CONV_WSCAP_DBG (MiB)
  legacy           PyTorch's legacy cuDNN path (TORCH_CUDNN_V8_API_DISABLED=1), the path ucudnn
                   intercepts; all the workspace it wants
  legacy-capped    the same under CUDNN_CONV_WSCAP_DBG
  ucudnn-legacy    the legacy path through libucudnn_preload.so, UCUDNN_FORCE_WORKSPACE_LIMIT per kernel,
                   planning with cuDNN's legacy algorithms only (UCUDNN_CANDIDATES=legacy)
  ucudnn-engines   the same planning with the graph API's engines too (UCUDNN_CANDIDATES=both)
  ucudnn-graph     PyTorch's default path (the graph API) through ucudnn: `ucudnn run --workspace-limit L
                   -- python3 ...` with --ucudnn (it sets LD_PRELOAD, LD_LIBRARY_PATH, UCUDNN_STATS and
                   UCUDNN_FORCE_WORKSPACE_LIMIT), or those variables set here with only --preload; not
                   among the default modes (name it in --modes)
  default-same-memory  PyTorch's default path given the memory ucudnn-graph used in the same round:
                   torch.cuda.set_per_process_memory_fraction(ucudnn's peak reserved / the GPU's
                   memory); listed after ucudnn-graph (it runs after it); a run out of memory is
                   reported as such
The caps and ucudnn's limit are the same --workspace-limit per kernel. Each runs in a fresh process: warm-up iterations (benchmarking happens there), then CUDA
events around each of --iterations iterations; the median is reported, with the median time the
host took to issue a step (close to the step's time: the host sets the pace), the peak memory
PyTorch allocated during the timed iterations (torch.cuda.max_memory_allocated, workspace
included) and the memory the tensors alone hold, and the first step's wall time (synchronized; it
includes PyTorch's and ucudnn's planning, and ucudnn's benchmarking where its database lacks the
kernels). With --rounds R, R fresh processes per mode, the modes interleaved (round 1: every
mode, round 2: every mode, ...); each figure reported is the median over the rounds, and the first
step's time of every round is listed (the first round's is the cold one where UCUDNN_DATABASE
starts empty).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from torch_cudnn import bundled_cudnn_path  # noqa: E402
from ucudnn_launch import graph_statistics, through_ucudnn  # noqa: E402

MODELS = ("alexnet-convs", "resnet50-fp16", "resnet50-bf16", "resnet50-fp32", "resnet18-fp16", "speech-bf16",
          "speech-bf16-inference", "deeplabv3-fp32")
DEFAULT_BATCH = {"alexnet-convs": 256, "resnet50-fp16": 64, "resnet50-bf16": 64, "resnet50-fp32": 64,
                 "resnet18-fp16": 128, "speech-bf16": 32, "speech-bf16-inference": 32, "deeplabv3-fp32": 8}
TITLE = {"alexnet-convs": "AlexNet convolutions (FP32)",
         "resnet50-fp16": "ResNet-50 (autocast FP16, channels_last)",
         "resnet50-bf16": "ResNet-50 (autocast BF16, channels_last)",
         "resnet50-fp32": "ResNet-50 (FP32, PyTorch's default TF32, channels_last)",
         "resnet18-fp16": "ResNet-18 (autocast FP16, channels_last)",
         "speech-bf16": "Conv1d speech stack (autocast BF16, 7 layers, kernels 11-29, 80-1024 channels, 1600 steps)",
         "speech-bf16-inference": "the same Conv1d speech stack, inference (forward only, torch.inference_mode)",
         "deeplabv3-fp32": "DeepLabV3-ResNet50 (torchvision, FP32 with PyTorch's default TF32, 512x512)"}
DEFAULT_MODES = ("default", "default-capped", "legacy", "legacy-capped", "ucudnn-legacy", "ucudnn-engines")
MODES = DEFAULT_MODES + ("ucudnn-graph", "default-same-memory")

LAYERS = [(3, 96, 11, 4, 2, 224), (96, 256, 5, 1, 2, 27), (256, 384, 3, 1, 1, 13), (384, 384, 3, 1, 1, 13),
          (384, 256, 3, 1, 1, 13)]  # in, out, kernel, stride, pad, input size


def resnet(torch, depth):
    """ResNet-18 (basic blocks) or ResNet-50 (bottlenecks, v1.5: the stride on the 3x3 convolution),
    torchvision's layout, torch.nn only."""
    nn = torch.nn

    def conv_bn(cin, cout, kernel, stride=1, relu=True):
        layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout)]
        return layers + [nn.ReLU(inplace=True)] if relu else layers

    class Block(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            if depth == 18:
                self.cout = width
                body = conv_bn(cin, width, 3, stride) + conv_bn(width, width, 3, relu=False)
            else:
                self.cout = width * 4
                body = (conv_bn(cin, width, 1) + conv_bn(width, width, 3, stride) +
                        conv_bn(width, self.cout, 1, relu=False))
            self.body = nn.Sequential(*body)
            self.shortcut = None
            if stride != 1 or cin != self.cout:
                self.shortcut = nn.Sequential(*conv_bn(cin, self.cout, 1, stride, relu=False))
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            identity = x if self.shortcut is None else self.shortcut(x)
            return self.relu(self.body(x) + identity)

    blocks_per_stage = {18: (2, 2, 2, 2), 50: (3, 4, 6, 3)}[depth]
    layers = conv_bn(3, 64, 7, 2) + [nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in zip((64, 128, 256, 512), blocks_per_stage, (1, 2, 2, 2)):
        for i in range(blocks):
            layers.append(Block(cin, width, stride if i == 0 else 1))
            cin = layers[-1].cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    return nn.Sequential(*layers)


def alexnet_step(torch, args, device):
    """The AlexNet convolutions: (step, modules whose gradients to keep)."""
    gen = torch.Generator(device="cpu").manual_seed(1)
    convs, inputs, upstreams = [], [], []
    for i, (cin, cout, k, s, p, size) in enumerate(LAYERS):
        conv = torch.nn.Conv2d(cin, cout, k, s, p).to(device)
        x = torch.randn(args.batch, cin, size, size, generator=gen).to(device).requires_grad_(i > 0)
        with torch.no_grad():
            y = conv(x)
        convs.append(conv)
        inputs.append(x)
        upstreams.append(torch.randn(y.shape, generator=gen).to(device))

    def step():
        for conv, x, dy in zip(convs, inputs, upstreams):
            y = conv(x)
            y.backward(dy)

    return step, convs


def resnet_step(torch, args, device):
    """ResNet under autocast, channels_last: (step, modules whose gradients to keep)."""
    gen = torch.Generator(device="cpu").manual_seed(1)
    depth = 18 if args.model.startswith("resnet18") else 50
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": None}[args.model[-4:]]
    model = resnet(torch, depth).to(device).to(memory_format=torch.channels_last).train()
    x = torch.randn(args.batch, 3, 224, 224, generator=gen).to(device).contiguous(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (args.batch,), generator=gen).to(device)

    def step():
        with torch.autocast("cuda", dtype=dtype or torch.float16, enabled=dtype is not None):
            out = model(x)
        loss = torch.nn.functional.cross_entropy(out.float(), labels)
        loss.backward()

    return step, [model]


# The speech stack: (in channels, out channels, kernel) of its seven Conv1d layers, as acoustic
# models of the Jasper/QuartzNet kind stack them (80 mel features in, 1600 frames).
SPEECH_LAYERS = [(80, 256, 11), (256, 256, 13), (256, 384, 17), (384, 512, 21), (512, 640, 25), (640, 768, 29),
                 (768, 1024, 29)]
SPEECH_FRAMES = 1600


def speech_model(torch, device):
    """The seven Conv1d layers with BatchNorm and ReLU, then a per-frame classifier."""
    nn = torch.nn
    torch.manual_seed(1)
    layers = []
    for cin, cout, k in SPEECH_LAYERS:
        layers += [nn.Conv1d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm1d(cout), nn.ReLU(inplace=True)]
    layers.append(nn.Conv1d(SPEECH_LAYERS[-1][1], 29, 1))  # 29 characters per frame
    return nn.Sequential(*layers).to(device)


def speech_step(torch, args, device):
    """The Conv1d stack under BF16 autocast, a per-frame classifier, cross entropy: (step, modules)."""
    gen = torch.Generator(device="cpu").manual_seed(1)
    model = speech_model(torch, device).train()
    x = torch.randn(args.batch, SPEECH_LAYERS[0][0], SPEECH_FRAMES, generator=gen).to(device)
    labels = torch.randint(0, 29, (args.batch, SPEECH_FRAMES), generator=gen).to(device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
        torch.nn.functional.cross_entropy(out.float(), labels).backward()

    return step, [model]


def speech_inference_step(torch, args, device):
    """The speech stack's forward alone, as a server runs it: eval mode, inference mode, BF16
    autocast. Only two activations live at a time, so the workspace is most of what it needs."""
    gen = torch.Generator(device="cpu").manual_seed(1)
    model = speech_model(torch, device).eval()
    x = torch.randn(args.batch, SPEECH_LAYERS[0][0], SPEECH_FRAMES, generator=gen).to(device)

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            model(x)

    return step, [model]


def deeplab_step(torch, args, device):
    """torchvision's DeepLabV3-ResNet50 (21 classes, no pretrained weights), FP32: (step, modules)."""
    from torchvision.models.segmentation import deeplabv3_resnet50
    gen = torch.Generator(device="cpu").manual_seed(1)
    model = deeplabv3_resnet50(weights=None, weights_backbone=None, num_classes=21).to(device).train()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(args.batch, 3, 512, 512, generator=gen).to(device).contiguous(memory_format=torch.channels_last)
    labels = torch.randint(0, 21, (args.batch, 512, 512), generator=gen).to(device)

    def step():
        torch.nn.functional.cross_entropy(model(x)["out"], labels).backward()

    return step, [model]


STEPS = {"alexnet-convs": alexnet_step, "speech-bf16": speech_step, "speech-bf16-inference": speech_inference_step,
         "deeplabv3-fp32": deeplab_step}


def set_budget_from_fraction(torch, fraction):
    """ucudnn's budget for this process: what PyTorch may hold plus what the device held before
    PyTorch allocated anything (the CUDA context, other processes), read before the first
    convolution creates ucudnn's handle, which reads UCUDNN_MEMORY_BUDGET."""
    free, total = torch.cuda.mem_get_info()
    os.environ["UCUDNN_MEMORY_BUDGET"] = str(int(fraction * total) + (total - free))


def worker(args):
    import torch
    torch.backends.cudnn.benchmark = True
    # TF32 off for the exact AlexNet comparison; ResNet-50 FP32 keeps PyTorch's default (on).
    torch.backends.cudnn.allow_tf32 = args.model in ("resnet50-fp32", "deeplabv3-fp32")
    if args.memory_fraction:
        torch.cuda.set_per_process_memory_fraction(args.memory_fraction)
        if args.budget_from_fraction:
            set_budget_from_fraction(torch, args.memory_fraction)
    device = torch.device("cuda")
    make = STEPS.get(args.model, resnet_step)
    step, modules = make(torch, args, device)
    # The first steps: where PyTorch's default path and ucudnn benchmark (an empty database).
    torch.cuda.synchronize()
    warming = time.perf_counter()
    step()
    torch.cuda.synchronize()
    first_step_seconds = time.perf_counter() - warming
    for _ in range(args.warmup - 1):
        step()
    torch.cuda.synchronize()
    warmup_seconds = time.perf_counter() - warming
    for module in modules:
        module.zero_grad(set_to_none=False)
    tensors = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    counters = ("num_alloc_retries", "num_device_alloc", "num_device_free")
    before = {key: torch.cuda.memory_stats().get(key, 0) for key in counters}
    times, host_times = [], []
    for _ in range(args.iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        issuing = time.perf_counter()
        step()
        # How long the host took to issue the step: near the step's time, the host sets the pace.
        host_times.append((time.perf_counter() - issuing) * 1e3)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    stats = torch.cuda.memory_stats()
    # The allocator's retries (freeing its cache to satisfy a request) and device mallocs/frees
    # over the timed steps: where they grow per step, memory pressure, not the kernels, sets the pace.
    allocator = {key: stats.get(key, 0) - before[key] for key in counters}
    profile = profile_steps(torch, step, 5) if args.profile else None
    print(json.dumps({"profile": profile, "model": args.model, "batch": args.batch, "median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times),
                      "host_median_ms": statistics.median(host_times), "warmup_seconds": warmup_seconds,
                      "first_step_seconds": first_step_seconds,
                      "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                      "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
                      "total_memory_bytes": torch.cuda.get_device_properties(0).total_memory,
                      "memory_fraction": args.memory_fraction,
                      "memory_budget": os.environ.get("UCUDNN_MEMORY_BUDGET"), "allocator": allocator,
                      "tensor_bytes": tensors, "iterations": args.iterations,
                      "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                      "gpu": torch.cuda.get_device_name()}))


def profile_steps(torch, step, steps):
    """What the GPU did per step, from torch.profiler: busy time, kernels, the longest kernels."""
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
        rows, conv_cpu = [], []
        for evt in prof.key_averages():
            us = getattr(evt, "self_device_time_total", None)
            if us is None:
                us = getattr(evt, "self_cuda_time_total", 0)
            if us > 0 and evt.cpu_time_total == 0:  # a kernel: device time only
                rows.append((us / steps / 1e3, evt.count / steps, evt.key))
            elif "conv" in evt.key and evt.key.startswith("aten::"):
                # Host time in PyTorch's convolution operators, cuDNN and ucudnn inside them.
                conv_cpu.append((evt.cpu_time_total / steps / 1e3, evt.count / steps, evt.key))
        rows.sort(reverse=True)
        conv_cpu.sort(reverse=True)
        return {"gpu_busy_ms": sum(r[0] for r in rows), "kernels": sum(r[1] for r in rows),
                "top": [{"ms": round(ms, 4), "calls": calls, "name": name[:120]} for ms, calls, name in rows[:15]],
                "conv_cpu": [{"ms": round(ms, 4), "calls": calls, "name": name} for ms, calls, name in conv_cpu[:8]]}
    except Exception as error:  # a diagnostic only: the timing stands without it
        return {"error": repr(error)[:300]}


def parse_mib(text):
    """'64MiB' -> 64 (the unit PyTorch's cap takes)."""
    if not text.endswith("MiB"):
        sys.exit(f"pytorch_preload_bench.py: error: --workspace-limit must be in MiB (got {text!r})")
    return int(text[:-3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preload", help="path of libucudnn_preload.so")
    parser.add_argument("--ucudnn", help="the ucudnn command (pack/bin/ucudnn): ucudnn-graph runs as `ucudnn run ...`")
    parser.add_argument("--run-args", default="", help="more options for `ucudnn run`, before `--`")
    parser.add_argument("--workspace-limit", default="64MiB", help="per kernel, in MiB (e.g. 64MiB)")
    parser.add_argument("--model", choices=MODELS, default="alexnet-convs")
    parser.add_argument("--batch", type=int, help="default: 256 (alexnet-convs), 64 (resnet50-fp16)")
    parser.add_argument("--warmup", type=int, default=3, help="steps before the timed ones (at least 1: the first step)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--rounds", type=int, default=1,
                        help="fresh processes per mode, the modes interleaved; the median process is reported")
    parser.add_argument("--profile", action="store_true",
                        help="after the timing, profile 5 steps: GPU busy time per step and the longest kernels")
    parser.add_argument("--log-dir", help="ucudnn modes log their plans (UCUDNN_LOG_LEVEL=info) to DIR/MODE.log")
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES), help="comma-separated, of: " + ", ".join(MODES))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-fraction", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--budget-from-fraction", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.batch is None:
        args.batch = DEFAULT_BATCH[args.model]
    args.warmup = max(1, args.warmup)
    if args.worker:
        return worker(args)
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        sys.exit(f"pytorch_preload_bench.py: error: unknown mode {unknown[0]!r} (expected some of {', '.join(MODES)})")
    if args.preload and not os.path.isfile(args.preload):
        sys.exit(f"pytorch_preload_bench.py: error: --preload must name libucudnn_preload.so (got {args.preload!r})")
    if args.ucudnn and not os.path.isfile(args.ucudnn):
        sys.exit(f"pytorch_preload_bench.py: error: --ucudnn must name the ucudnn command (got {args.ucudnn!r})")
    if not args.preload and any(m in ("ucudnn-legacy", "ucudnn-engines") for m in modes):
        sys.exit("pytorch_preload_bench.py: error: the ucudnn-legacy and ucudnn-engines modes need --preload")
    if not args.preload and not args.ucudnn and "ucudnn-graph" in modes:
        sys.exit("pytorch_preload_bench.py: error: the ucudnn-graph mode needs --ucudnn (or --preload)")
    if "default-same-memory" in modes and ("ucudnn-graph" not in modes or
                                            modes.index("ucudnn-graph") > modes.index("default-same-memory")):
        sys.exit("pytorch_preload_bench.py: error: default-same-memory needs ucudnn-graph listed before it")
    runs = {mode: [] for mode in modes}
    out_of_memory = {mode: 0 for mode in modes}
    for _ in range(args.rounds):
        for mode in modes:  # interleaved: a slow spell of the machine touches every mode alike
            if mode == "default-same-memory":
                ucudnn = runs["ucudnn-graph"][-1]
                args.memory_fraction = ucudnn["peak_reserved_bytes"] / ucudnn["total_memory_bytes"]
            result = run_mode(args, mode)
            args.memory_fraction = None
            if result is None:
                out_of_memory[mode] += 1
            else:
                runs[mode].append(result)
    for mode in modes:
        if out_of_memory[mode]:
            print(f"{mode}: {out_of_memory[mode]} of {args.rounds} processes ran out of memory")
    modes = [mode for mode in modes if runs[mode]]
    results = {}
    for mode in modes:
        # The process whose median is the median of all processes' medians keeps its profile and
        # statistics; every figure below is the median over the processes.
        ordered = sorted(runs[mode], key=lambda r: r["median_ms"])
        results[mode] = dict(ordered[(len(ordered) - 1) // 2])
        for key in ("median_ms", "host_median_ms", "warmup_seconds", "first_step_seconds", "peak_allocated_bytes",
                    "tensor_bytes"):
            values = [r[key] for r in runs[mode] if key in r]
            if values:
                results[mode][key] = statistics.median(values)
        results[mode]["above_tensors_bytes"] = statistics.median(
            [r["peak_allocated_bytes"] - r["tensor_bytes"] for r in runs[mode]])
        results[mode]["process_medians_ms"] = [r["median_ms"] for r in runs[mode]]
        results[mode]["first_step_seconds_by_round"] = [r.get("first_step_seconds") for r in runs[mode]]
    mib = 1 << 20
    first = results[modes[0]]
    rounds = f", {args.rounds} processes per mode interleaved (medians over them; range)" if args.rounds > 1 else ""
    print(f'{first["gpu"]}, torch {first["torch"]}, cuDNN {first["cudnn"]}, {TITLE[args.model]}, batch {args.batch}, '
          f'forward + backward, median of {args.iterations}{rounds}, limit {args.workspace_limit} per kernel where capped')
    for mode, r in results.items():
        ratios = "  ".join(f'{results[other]["median_ms"] / r["median_ms"]:.2f}x vs {other}'
                           for other in ("default", "default-same-memory", "default-capped", "legacy-capped")
                           if other in results and other != mode)
        host = f'host {r["host_median_ms"]:6.2f} ms' if "host_median_ms" in r else ""
        spread = r["process_medians_ms"]
        span = f"({min(spread):.2f}-{max(spread):.2f})" if len(spread) > 1 else ""
        first_steps = f'first {args.warmup} steps {r["warmup_seconds"]:6.1f} s' if "warmup_seconds" in r else ""
        by_round = [f"{v:.2f}" for v in r["first_step_seconds_by_round"] if v is not None]
        first_step = f'first step {r["first_step_seconds"]:6.2f} s' if "first_step_seconds" in r else ""
        if len(by_round) > 1:
            first_step += f' ({"/".join(by_round)})'
        print(f'{mode:15s} {r["median_ms"]:8.2f} ms {span:15s} {host}   {first_steps}   {first_step}   '
              f'peak {r["peak_allocated_bytes"] / mib:8.1f} MiB   '
              f'above the tensors {r["above_tensors_bytes"] / mib:8.1f} MiB   {ratios}')
    report_profiles_and_statistics(results, modes)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({mode: dict(results[mode], runs=runs[mode]) for mode in modes}, f, indent=2)
    return 0


def run_mode(args, mode):
    """One fresh worker process in `mode`: its JSON result, with ucudnn's statistics lines."""
    env = dict(os.environ)
    for variable in ("LD_PRELOAD", "UCUDNN_STATS", "UCUDNN_FORCE_WORKSPACE_LIMIT", "TORCH_CUDNN_V8_API_DISABLED"):
        env.pop(variable, None)
    if not mode.startswith("default") and mode != "ucudnn-graph":
        env.update(TORCH_CUDNN_V8_API_DISABLED="1")
    if mode.endswith("-capped"):
        env.update(CUDNN_CONV_WSCAP_DBG=str(parse_mib(args.workspace_limit)))
    command = [sys.executable, __file__, "--worker", "--model", args.model, "--batch", str(args.batch), "--warmup", str(args.warmup),
               "--iterations", str(args.iterations)] + (["--profile"] if args.profile else []) + \
              (["--memory-fraction", repr(args.memory_fraction)] if args.memory_fraction else [])
    if mode == "ucudnn-graph":
        # PyTorch's default path, through ucudnn as a user would run it: `ucudnn run`.
        if args.log_dir:
            os.makedirs(args.log_dir, exist_ok=True)
            env.update(UCUDNN_LOG_LEVEL="info", UCUDNN_LOG_FILE=os.path.join(args.log_dir, mode + ".log"))
        command, env = through_ucudnn(args, command, args.workspace_limit, env)
    elif mode.startswith("ucudnn"):
        env.update(LD_PRELOAD=args.preload, UCUDNN_FORCE_WORKSPACE_LIMIT=args.workspace_limit, UCUDNN_STATS="1",
                   UCUDNN_CANDIDATES="legacy" if mode == "ucudnn-legacy" else "both",
                   LD_LIBRARY_PATH=bundled_cudnn_path(env.get("LD_LIBRARY_PATH")))
        if args.log_dir:
            os.makedirs(args.log_dir, exist_ok=True)
            env.update(UCUDNN_LOG_LEVEL="info", UCUDNN_LOG_FILE=os.path.join(args.log_dir, mode + ".log"))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0 and args.memory_fraction and "out of memory" in done.stderr:
        return None  # the framework does not fit the memory it was given
    if done.returncode != 0:
        sys.exit(f"pytorch_preload_bench.py: error: the {mode} run failed: {done.stderr.strip()[-1500:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["statistics"] = [line for line in done.stderr.splitlines() if line.startswith("ucudnn:")]
    if mode == "ucudnn-graph":
        result["graph_api"] = graph_statistics(done.stderr)
    return result


def report_profiles_and_statistics(results, modes):
    for mode, r in results.items():
        if r.get("profile"):
            p = r["profile"]
            if "error" in p:
                print(f"{mode}: profile failed: {p['error']}")
                continue
            print(f'{mode}: GPU busy {p["gpu_busy_ms"]:.2f} ms per step, {p["kernels"]:.0f} kernels; longest:')
            for k in p["top"][:5]:
                print(f'    {k["ms"]:8.3f} ms  {k["calls"]:5.0f} x  {k["name"]}')
            print(f"{mode}: host time in PyTorch's convolution operators per step (profiled):")
            for k in p.get("conv_cpu", []):
                print(f'    {k["ms"]:8.3f} ms  {k["calls"]:5.0f} x  {k["name"]}')
    for mode in modes:
        if mode.startswith("ucudnn"):
            print(f"{mode}:\n" + "\n".join(results[mode]["statistics"]))
        if mode == "ucudnn-graph" and not (results[mode].get("graph_api") or {}).get("plans_intercepted"):
            print(f"{mode}: WARNING: no graph-API plan intercepted ({results[mode].get('graph_api')})")


if __name__ == "__main__":
    sys.exit(main())
