#!/usr/bin/env python3
"""PyTorch through libucudnn_preload.so, compared with plain PyTorch (needs a GPU and torch).

    python3 tests/integration/pytorch_preload.py --preload PATH/libucudnn_preload.so [--out DIR]

Each variant (FP32 with TF32 off, and FP16 autocast; torch.backends.cudnn.benchmark False and
True) runs twice in fresh processes on the same fresh random data: once plain, once with
LD_PRELOAD and a 8 MiB per-kernel workspace limit (UCUDNN_FORCE_WORKSPACE_LIMIT), both on PyTorch's
legacy cuDNN path (TORCH_CUDNN_V8_API_DISABLED=1). The workload: a ResNet-18 training step (loss,
logits, every parameter's gradient), Conv2d and ConvTranspose2d with gradients for input and
weight. The plain run also computes everything in FP64 (no autocast) as the reference. Each
output and gradient of the preloaded run must be within twice plain cuDNN's own error against it
plus a floor, or within ALGORITHM_ERROR: ucudnn may run an algorithm that plain cuDNN did not
choose (Winograd, FFT), whose rounding is cuDNN's own (the GPU suite checks that the split itself
is exact against plain cuDNN running the same algorithm). The preloaded run's UCUDNN_STATS table
must show convolutions of every op intercepted, and in FP16 some split. In FP32 (TF32 off) a split
is reported but not demanded: with graph-API engines as candidates, an undivided engine within
8 MiB is as fast as any split for this ResNet-18 at batch 32 (H100, 2026-11-25: 0 splits, where
legacy algorithms alone split 1 to 5 kernels), as the conv-sequence baselines show for FP32 too.
Exit status 0 when every check passes; one line per check on stdout.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from torch_cudnn import bundled_cudnn_path

# Errors are max |result - FP64 reference| / max |reference| per tensor. ucudnn's error may be up
# to twice plain cuDNN's plus this floor.
FLOOR = {"fp32": 1e-4, "fp16": 5e-3}
# The largest error of cuDNN's own FP32 algorithms seen on these tensors (Winograd and FFT, about
# 1e-2 of the largest value; batch normalisation amplifies it in ResNet's weight gradients), and
# the same for FP16. Plain cuDNN's own deterministic choice gave 5.31e-2 on layers.7.c2's weight
# gradient in FP32 (H100, seed 1845169168), hence 1e-1 there too. A wrong micro-batch offset, a
# lost micro-batch or a wrong beta gives errors of order 1.
ALGORITHM_ERROR = {"fp32": {"single": 1e-2, "resnet": 1e-1}, "fp16": {"single": 2e-2, "resnet": 1e-1}}


def worker(args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.backends.cudnn.benchmark = args.benchmark
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.deterministic = args.deterministic
    device = torch.device("cuda")
    autocast = args.precision == "fp16"

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.b1(self.c1(x)))
            out = self.b2(self.c2(out))
            return F.relu(out + (self.down(x) if self.down else x))

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(512, 1000)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    gen = torch.Generator(device="cpu").manual_seed(args.seed)
    rand = lambda *shape: torch.randn(*shape, generator=gen).to(device)
    results = {"cudnn_version": torch.backends.cudnn.version(), "torch": str(torch.__version__)}

    # Every run is computed as asked, and in the plain process also in FP64 (the reference).
    passes = [("", autocast, torch.float32)] + ([("ref.", False, torch.float64)] if args.reference else [])

    torch.manual_seed(args.seed)
    model = ResNet18().to(device)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    images, labels = rand(32, 3, 224, 224), torch.randint(0, 1000, (32,), generator=gen).to(device)
    for prefix, use_autocast, dtype in passes:
        net = ResNet18().to(device=device, dtype=dtype)
        net.load_state_dict(initial)
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_autocast):
            logits = net(images.to(dtype))
            loss = F.cross_entropy(logits, labels)
        loss.backward()
        results[f"{prefix}resnet.loss"] = loss.detach().double().reshape(1).cpu()
        results[f"{prefix}resnet.logits"] = logits.detach().double().cpu()
        for name, p in net.named_parameters():
            if p.dim() == 4:  # convolution weights: their gradients come from backward filter
                results[f"{prefix}resnet.grad.{name}"] = p.grad.double().cpu()

    for kind, module, shape in [("conv2d", nn.Conv2d(64, 192, 5, 1, 2), (64, 64, 27, 27)),
                                ("convtranspose2d", nn.ConvTranspose2d(192, 64, 4, 2, 1), (64, 192, 13, 13))]:
        module = module.to(device)
        with torch.no_grad():
            module.weight.copy_(rand(*module.weight.shape) * 0.05)
        x0 = rand(*shape)
        upstream = None
        for prefix, use_autocast, dtype in passes:
            m = module.to(dtype)
            m.zero_grad(set_to_none=True)
            x = x0.detach().to(dtype).clone().requires_grad_()
            with torch.autocast("cuda", dtype=torch.float16, enabled=use_autocast):
                y = m(x)
            if upstream is None:
                upstream = rand(*y.shape)
            y.backward(upstream.to(y.dtype))
            results[f"{prefix}{kind}.output"] = y.detach().double().cpu()
            results[f"{prefix}{kind}.grad_input"] = x.grad.double().cpu()
            results[f"{prefix}{kind}.grad_weight"] = m.weight.grad.double().cpu()
    torch.cuda.synchronize()
    torch.save(results, args.save)


def run_variant(args, precision, benchmark, deterministic, seed, workdir):
    import torch
    outputs = {}
    logs = {}
    for mode in ("plain", "preloaded"):
        env = dict(os.environ, TORCH_CUDNN_V8_API_DISABLED="1")
        if mode == "preloaded":
            env.update(LD_PRELOAD=args.preload, UCUDNN_FORCE_WORKSPACE_LIMIT=args.workspace_limit, UCUDNN_STATS="1",
                       UCUDNN_LOG_LEVEL="info",
                       UCUDNN_DATABASE=os.path.join(workdir, "ucudnn.db"),
                       LD_LIBRARY_PATH=bundled_cudnn_path(env.get("LD_LIBRARY_PATH")))
        save = os.path.join(workdir, f"{precision}-{benchmark}-{mode}.pt")
        command = [sys.executable, __file__, "--worker", "--save", save, "--precision", precision,
                   "--seed", str(seed)] + (["--benchmark"] if benchmark else []) + \
                  (["--deterministic"] if deterministic else []) + (["--reference"] if mode == "plain" else [])
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        logs[mode] = done.stdout + done.stderr
        if done.returncode != 0:
            return [(False, f"{mode} run failed ({done.returncode}): {logs[mode].strip()[-2000:]}")], logs
        outputs[mode] = torch.load(save, weights_only=True)

    checks = []
    plain, pre = outputs["plain"], outputs["preloaded"]
    for key in sorted(k for k in plain if "." in k and not k.startswith("ref.")):
        reference = plain["ref." + key]
        scale = reference.abs().max().item() or 1.0
        plain_error = (plain[key] - reference).abs().max().item() / scale
        error = (pre[key] - reference).abs().max().item() / scale
        group = "resnet" if key.startswith("resnet") else "single"
        bound = max(2 * plain_error + FLOOR[precision], ALGORITHM_ERROR[precision][group])
        checks.append((error <= bound, f"{key}: error {error:.2e} against FP64, plain cuDNN's {plain_error:.2e} "
                                       f"(bound {bound:.2e})"))

    # The statistics print several tables, each under its own header ("ucudnn: op convolutions
    # split ..." first, then the search's): read the rows of the one whose header names the calls.
    stats = {}
    columns = None
    for line in logs["preloaded"].splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "ucudnn:" and words[1] == "op":
            names = []  # "capture s" names one column: a unit joins the word before it
            for word in words:
                if word == "s" and names:
                    names[-1] += " s"
                else:
                    names.append(word)
            columns = {name: i for i, name in enumerate(names)} if words[2] == "convolutions" else None
        elif columns and len(words) >= len(columns) and words[0] == "ucudnn:" and words[1] in ("fwd", "bwdd", "bwdf"):
            stats[words[1]] = {name: int(words[columns[column]])
                               for name, column in (("calls", "convolutions"), ("split", "split"), ("plain", "plain"))}
    for op in ("fwd", "bwdd", "bwdf"):
        calls = stats.get(op, {}).get("calls", 0)
        checks.append((calls > 0, f"UCUDNN_STATS: {calls} {op} convolutions intercepted"))
    split = sum(s["split"] for s in stats.values())
    split_demanded = precision == "fp16"
    checks.append((split > 0 or not split_demanded,
                   f"UCUDNN_STATS: {split} convolutions ran split ({json.dumps(stats)})"
                   + ("" if split_demanded else "; not demanded in FP32")))
    checks.append(("ucudnn:" not in logs["plain"], "the plain run printed no ucudnn statistics"))
    return checks, logs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preload", help="path of libucudnn_preload.so")
    parser.add_argument("--workspace-limit", default="8MiB")
    parser.add_argument("--out", help="directory for the logs of every run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    parser.add_argument("--precision", default="fp32", help=argparse.SUPPRESS)
    parser.add_argument("--benchmark", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deterministic", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=None,
                        help="repeat a run: the seed it printed (default: a fresh one)")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if not args.preload or not os.path.isfile(args.preload):
        sys.exit(f"pytorch_preload.py: error: --preload must name libucudnn_preload.so (got {args.preload!r})")
    import torch
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 0
    # Fresh data every run; the seed is printed so that --seed repeats it.
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, "
          f"seed {seed}, preloaded runs with UCUDNN_FORCE_WORKSPACE_LIMIT={args.workspace_limit}")
    failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        # The first variant keeps to deterministic algorithms, as far as PyTorch allows.
        for precision, benchmark, deterministic in [("fp32", False, True), ("fp32", True, False),
                                                    ("fp16", False, False), ("fp16", True, False)]:
            name = f"{precision}, cudnn.benchmark={benchmark}, deterministic={deterministic}"
            checks, logs = run_variant(args, precision, benchmark, deterministic, seed, workdir)
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                for mode, text in logs.items():
                    with open(os.path.join(args.out, f"{precision}-benchmark{int(benchmark)}-{mode}.log"), "w") as f:
                        f.write(text)
            for ok, message in checks:
                failed += not ok
                print(f"{'ok  ' if ok else 'FAIL'} [{name}] {message}")
    print(f"{'PASSED' if failed == 0 else 'FAILED'}: {failed} failed check(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
