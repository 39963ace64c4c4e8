#!/usr/bin/env python3
"""One JAX ResNet-50 training process: its step time, peak memory and first step, as one JSON line.

    python3 bench/jax_resnet_bench.py [--model resnet50-bf16|resnet50-fp32] [--batch 64]
                                      [--memory-fraction F] [--warmup 3] [--iterations 15]

ResNet-50 v1.5 (torchvision's layout) written with jax.lax alone (no Flax needed), NHWC, batch
statistics in BatchNorm, cross entropy on random labels, and one SGD step: jax.grad with respect
to the parameters only, so XLA computes no gradient of the input images, as a training step does
not. resnet50-bf16 keeps FP32 parameters and computes in BF16; resnet50-fp32 computes in FP32 at
XLA's default precision (TF32 on tensor cores). --memory-fraction sets
XLA_PYTHON_CLIENT_MEM_FRACTION, the memory JAX may take (it preallocates that much); without it
JAX takes its default. bench/framework_curves.py runs it plain and through `ucudnn run`.
"""
import argparse
import json
import os
import statistics
import sys
import time

STAGES = ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2))  # width, blocks, stride


def init_params(jax, jnp, key, classes=1000):
    """He-initialised FP32 parameters: a list of (name, array), in the order the model uses them."""
    params = {}

    def conv(name, k, cin, cout):
        nonlocal key
        key, sub = jax.random.split(key)
        params[name] = jax.random.normal(sub, (k, k, cin, cout), jnp.float32) * (2.0 / (k * k * cin)) ** 0.5

    def norm(name, c):
        params[name + ".scale"] = jnp.ones((c,), jnp.float32)
        params[name + ".bias"] = jnp.zeros((c,), jnp.float32)

    conv("stem", 7, 3, 64)
    norm("stem.bn", 64)
    cin = 64
    for s, (width, blocks, _) in enumerate(STAGES):
        for b in range(blocks):
            p = f"s{s}b{b}"
            conv(p + ".c1", 1, cin, width)
            norm(p + ".n1", width)
            conv(p + ".c2", 3, width, width)
            norm(p + ".n2", width)
            conv(p + ".c3", 1, width, width * 4)
            norm(p + ".n3", width * 4)
            if b == 0:
                conv(p + ".proj", 1, cin, width * 4)
                norm(p + ".projn", width * 4)
            cin = width * 4
    key, sub = jax.random.split(key)
    params["fc.w"] = jax.random.normal(sub, (cin, classes), jnp.float32) * (1.0 / cin) ** 0.5
    params["fc.b"] = jnp.zeros((classes,), jnp.float32)
    return params


def forward(jax, jnp, params, x, dtype):
    lax = jax.lax

    def conv(name, x, stride=1):
        w = params[name].astype(dtype)
        k = w.shape[0]
        return lax.conv_general_dilated(x, w, (stride, stride), [(k // 2, k // 2)] * 2,
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def norm(name, x, relu=True):
        x32 = x.astype(jnp.float32)
        mean = x32.mean(axis=(0, 1, 2))
        var = x32.var(axis=(0, 1, 2))
        y = (x32 - mean) * jax.lax.rsqrt(var + 1e-5) * params[name + ".scale"] + params[name + ".bias"]
        return (jax.nn.relu(y) if relu else y).astype(dtype)

    x = norm("stem.bn", conv("stem", x.astype(dtype), 2))
    x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), [(0, 0), (1, 1), (1, 1), (0, 0)])
    for s, (_, blocks, stride) in enumerate(STAGES):
        for b in range(blocks):
            p = f"s{s}b{b}"
            step = stride if b == 0 else 1
            y = norm(p + ".n1", conv(p + ".c1", x))
            y = norm(p + ".n2", conv(p + ".c2", y, step))
            y = norm(p + ".n3", conv(p + ".c3", y), relu=False)
            shortcut = norm(p + ".projn", conv(p + ".proj", x, step), relu=False) if b == 0 else x
            x = jax.nn.relu(y + shortcut)
    pooled = x.astype(jnp.float32).mean(axis=(1, 2))
    return pooled @ params["fc.w"] + params["fc.b"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("resnet50-bf16", "resnet50-fp32"), default="resnet50-bf16")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--memory-fraction", type=float, help="XLA_PYTHON_CLIENT_MEM_FRACTION (default: JAX's)")
    parser.add_argument("--warmup", type=int, default=3, help="steps before the timed ones (the first compiles)")
    parser.add_argument("--iterations", type=int, default=15)
    args = parser.parse_args()
    if args.memory_fraction:
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = f"{args.memory_fraction:.4f}"
    import jax
    import jax.numpy as jnp

    dtype = jnp.bfloat16 if args.model.endswith("bf16") else jnp.float32
    key = jax.random.PRNGKey(0)
    params = init_params(jax, jnp, key)
    x = jax.random.normal(jax.random.PRNGKey(1), (args.batch, 224, 224, 3), jnp.float32)
    labels = jax.random.randint(jax.random.PRNGKey(2), (args.batch,), 0, 1000)

    def loss(params, x, labels):
        logits = forward(jax, jnp, params, x, dtype)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))

    @jax.jit
    def train_step(params, x, labels):
        grads = jax.grad(loss)(params, x, labels)  # the parameters only: no gradient of the images
        return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

    start = time.perf_counter()
    params = jax.block_until_ready(train_step(params, x, labels))
    first_step_seconds = time.perf_counter() - start
    for _ in range(max(0, args.warmup - 1)):
        params = train_step(params, x, labels)
    jax.block_until_ready(params)
    warmup_seconds = time.perf_counter() - start
    times = []
    for _ in range(args.iterations):
        begin = time.perf_counter()
        params = jax.block_until_ready(train_step(params, x, labels))
        times.append((time.perf_counter() - begin) * 1e3)
    device = jax.local_devices()[0]
    stats = device.memory_stats() or {}
    print(json.dumps({"model": args.model, "batch": args.batch, "median_ms": statistics.median(times),
                      "min_ms": min(times), "max_ms": max(times), "first_step_seconds": first_step_seconds,
                      "warmup_seconds": warmup_seconds, "peak_allocated_bytes": stats.get("peak_bytes_in_use"),
                      "peak_reserved_bytes": None,
                      "bytes_limit": stats.get("bytes_limit"), "tensor_bytes": stats.get("bytes_in_use"),
                      "total_memory_bytes": None, "memory_fraction": args.memory_fraction,
                      "iterations": args.iterations, "jax": jax.__version__, "gpu": device.device_kind}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
