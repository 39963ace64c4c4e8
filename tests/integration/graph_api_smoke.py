#!/usr/bin/env python3
"""PyTorch's default (graph API) convolution path, plain against ucudnn's preload layer: a few
training steps of small convolution stacks, compared output by output.

    python3 tests/integration/graph_api_smoke.py --preload PATH/libucudnn_preload.so [--limit 1MiB]

The parent draws a fresh seed and runs two children with it, plain and preloaded (PyTorch's own
cuDNN first on LD_LIBRARY_PATH, UCUDNN_FORCE_WORKSPACE_LIMIT, UCUDNN_STATS=1); each saves the
outputs and gradients. Passes when every tensor of the preloaded run is within tolerance of the
plain run's (relative to the tensor's largest magnitude: FP32 with TF32 off 1e-4, FP16/BF16 2e-2)
and the statistics say graph-API plans were intercepted and executed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_cudnn import bundled_cudnn_path  # noqa: E402

CASES = [  # name, dtype, channels_last, batch
    ("fp32-nchw", "float32", False, 32),
    ("fp16-nhwc", "float16", True, 64),
    ("bf16-nhwc", "bfloat16", True, 64),
]


def child(seed, out):
    import torch
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(seed)
    results = {}
    for name, dtype_name, channels_last, batch in CASES:
        dtype = getattr(torch, dtype_name)
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 64, 7, 2, 3, bias=False), torch.nn.ReLU(),
            torch.nn.Conv2d(64, 128, 3, 1, 1, bias=False), torch.nn.ReLU(),
            torch.nn.Conv2d(128, 128, 3, 2, 1, groups=4, bias=False), torch.nn.ReLU(),
            torch.nn.Conv2d(128, 64, 1, 1, 0, bias=False)).cuda().to(dtype)
        x = torch.randn(batch, 3, 64, 64, device="cuda", dtype=dtype)
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        for step in range(3):
            model.zero_grad(set_to_none=True)
            y = model(x)
            (y.float().square().mean()).backward()
        torch.cuda.synchronize()
        results[name + ":out"] = y.float().cpu()
        for i, p in enumerate(model.parameters()):
            results[f"{name}:grad{i}"] = p.grad.float().cpu()
    torch.save(results, out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--preload", required=True)
    parser.add_argument("--limit", default="1MiB")
    parser.add_argument("--child", nargs=2, metavar=("SEED", "OUT"))
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1])
        return 0
    import torch
    seed = int.from_bytes(os.urandom(4), "little")
    work = tempfile.mkdtemp()
    library_path = bundled_cudnn_path(os.environ.get("LD_LIBRARY_PATH", ""))
    runs = {}
    for side in ("plain", "ucudnn"):
        env = dict(os.environ, LD_LIBRARY_PATH=library_path)
        if side == "ucudnn":
            env.update(LD_PRELOAD=args.preload, UCUDNN_FORCE_WORKSPACE_LIMIT=args.limit, UCUDNN_STATS="1")
        out = os.path.join(work, side + ".pt")
        proc = subprocess.run([sys.executable, __file__, "--preload", args.preload, "--child", str(seed), out],
                              env=env, capture_output=True, text=True)
        print(f"--- {side} (exit {proc.returncode})\n{proc.stderr[-4000:]}")
        if proc.returncode != 0:
            return 1
        runs[side] = (torch.load(out), proc.stderr)
    failures = 0
    for key, plain in runs["plain"][0].items():
        got = runs["ucudnn"][0][key]
        scale = plain.abs().max().item() or 1.0
        error = (got - plain).abs().max().item()
        tolerance = (1e-4 if key.startswith("fp32") else 2e-2) * scale
        ok = error <= tolerance
        failures += not ok
        print(f"{key}: max error {error:.3g} (tolerance {tolerance:.3g}) {'ok' if ok else 'FAIL'}")
    stats = runs["ucudnn"][1]
    match = re.search(r"graph API: (\d+) plans intercepted, (\d+) passed through, (\d+) executions", stats)
    if not match or int(match.group(1)) == 0 or int(match.group(3)) == 0:
        print("FAIL: no graph-API plan was intercepted and executed")
        failures += 1
    print(f"seed {seed}: {'PASS' if failures == 0 else f'{failures} FAILED'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
