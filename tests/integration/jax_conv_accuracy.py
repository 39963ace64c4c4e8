#!/usr/bin/env python3
"""JAX's convolutions plain and through ucudnn, each against an FP64 reference on the CPU.

    python3 tests/integration/jax_conv_accuracy.py --ucudnn pack/bin/ucudnn [--limits 64KiB,1MiB] [--out DIR]

The cases: 1-, 2- and 3-D convolutions as JAX programs write them (jax.lax.conv_general_dilated,
channels last, one NCHW case): a ResNet-style 3x3 and 1x1, a strided 7x7 stem, a strided 3x3,
grouped, depthwise, dilated, a 3-D 3x3x3 and a speech-style 1-D kernel of 11, in float32 (JAX's
default precision, which lets XLA use TF32), bfloat16 and float16. For each: the output, and the
gradients of the input and of the filter for one random output gradient (jax.vjp, jit-compiled),
computed by XLA on the GPU, so through cuDNN's graph API.

Runs, each a fresh child process on the same inputs (drawn from --seed, random unless given):
  plain       the GPU results, and the FP64 reference: the same inputs (as rounded to the dtype)
              in float64 on JAX's CPU backend;
  ucudnn L    for each limit L: `ucudnn run --workspace-limit L -- python3 THIS --worker ...`,
              so every plan whose workspace exceeds L is ucudnn's, most of them micro-batched.
The check, per case, dtype and tensor, with e(run) = max |run - FP64|:
  e(ucudnn) <= max(2 * e(plain), FLOOR[dtype] * max(1, max |FP64|))
FLOOR: float32 2e-3 (TF32's rounding), float16 2e-3, bfloat16 1.6e-2 (two units in the last place
of the largest value). A lost or misplaced micro-batch gives errors of the order of the values.
Each ucudnn run must intercept plans and replace at least one (its `ucudnn: graph API:` line);
the split convolutions are reported. Exit status 0 when every check passes.
"""
import argparse
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy_check import AccuracyCheck, add_accuracy_arguments  # noqa: E402
from ucudnn_launch import (add_launch_arguments, check_launch_arguments, describe_launch, graph_statistics,  # noqa: E402
                           op_table, run_side, statistics_lines)

DTYPES = ("float32", "bfloat16", "float16")
FLOOR = {"float32": 2e-3, "float16": 2e-3, "bfloat16": 1.6e-2}
QUANTITIES = ("output", "grad input", "grad filter")

# name: input shape (in the layout's order), filter spatial size, output channels, strides, padding,
# filter dilation, groups, (input, filter, output) layouts.
CASES = {
    "3x3": ((16, 28, 28, 64), (3, 3), 64, (1, 1), "SAME", (1, 1), 1, ("NHWC", "HWIO", "NHWC")),
    "1x1 256->64": ((16, 14, 14, 256), (1, 1), 64, (1, 1), "VALID", (1, 1), 1, ("NHWC", "HWIO", "NHWC")),
    "7x7 stem /2": ((8, 64, 64, 3), (7, 7), 64, (2, 2), ((3, 3), (3, 3)), (1, 1), 1, ("NHWC", "HWIO", "NHWC")),
    "3x3 /2": ((16, 28, 28, 64), (3, 3), 128, (2, 2), ((1, 1), (1, 1)), (1, 1), 1, ("NHWC", "HWIO", "NHWC")),
    "3x3 NCHW": ((16, 64, 20, 20), (3, 3), 64, (1, 1), "SAME", (1, 1), 1, ("NCHW", "OIHW", "NCHW")),
    "grouped 3x3 g4": ((16, 20, 20, 64), (3, 3), 64, (1, 1), "SAME", (1, 1), 4, ("NHWC", "HWIO", "NHWC")),
    "depthwise 3x3": ((16, 20, 20, 64), (3, 3), 64, (1, 1), "SAME", (1, 1), 64, ("NHWC", "HWIO", "NHWC")),
    "dilated 3x3 d2": ((16, 24, 24, 64), (3, 3), 64, (1, 1), "SAME", (2, 2), 1, ("NHWC", "HWIO", "NHWC")),
    "3-D 3x3x3": ((4, 8, 16, 16, 16), (3, 3, 3), 32, (1, 1, 1), "SAME", (1, 1, 1), 1,
                  ("NDHWC", "DHWIO", "NDHWC")),
    "1-D k11": ((16, 400, 80), (11,), 256, (1,), "SAME", (1,), 1, ("NWC", "WIO", "NWC")),
}


def filter_shape(case):
    """The filter's shape in its layout's order."""
    x_shape, window, cout, _, _, _, groups, (x_layout, w_layout, _) = case
    cin = x_shape[x_layout.index("C")]
    sizes = {"I": cin // groups, "O": cout}
    spatial = iter(window)
    return tuple(sizes[d] if d in sizes else next(spatial) for d in w_layout)


def inputs(np, seed, index, case):
    """(x, w, g) in float64, uniform in [-1, 1): the same in every child."""
    import jax
    rng = np.random.default_rng([seed, index])
    x = rng.uniform(-1, 1, case[0])
    w = rng.uniform(-1, 1, filter_shape(case))
    # The output's shape, from jax.eval_shape: nothing computed.
    shape = jax.eval_shape(lambda a, b: convolve(jax, a, b, case), jax.ShapeDtypeStruct(x.shape, np.float32),
                           jax.ShapeDtypeStruct(w.shape, np.float32)).shape
    g = rng.uniform(-1, 1, shape)
    return x, w, g


def convolve(jax, x, w, case):
    _, _, _, strides, padding, dilation, groups, layouts = case
    return jax.lax.conv_general_dilated(x, w, window_strides=strides, padding=padding, rhs_dilation=dilation,
                                        dimension_numbers=layouts, feature_group_count=groups)


def results_of(jax, case, x, w, g):
    """(output, input gradient, filter gradient) as float64 numpy arrays."""
    import numpy as np

    def step(x, w, g):
        y, pull = jax.vjp(lambda a, b: convolve(jax, a, b, case), x, w)
        dx, dw = pull(g)
        return y, dx, dw

    return [np.asarray(t, dtype=np.float64) for t in jax.jit(step)(x, w, g)]


def worker(args):
    """One child: every case and dtype on the GPU (and, with --reference, in FP64 on the CPU)."""
    import numpy as np
    import jax
    jax.config.update("jax_enable_x64", True)  # for the reference only; the GPU runs the dtype asked
    import jax.numpy as jnp
    gpu = jax.devices(args.device)[0]
    cpu = jax.devices("cpu")[0]
    out = {"device": gpu.device_kind, "jax": jax.__version__, "cases": {}}
    for index, (name, case) in enumerate(CASES.items()):
        x, w, g = inputs(np, args.seed, index, case)
        for dtype in args.dtypes.split(","):
            key = f"{name} {dtype}"
            try:
                on_gpu = [jax.device_put(jnp.asarray(a, dtype=dtype), gpu) for a in (x, w, g)]
                record = {"gpu": results_of(jax, case, *on_gpu)}
                if args.reference:
                    # The inputs as the GPU saw them (rounded to the dtype), in float64 on the CPU.
                    exact = [jax.device_put(np.asarray(a, dtype=np.float64), cpu) for a in on_gpu]
                    record["reference"] = results_of(jax, case, *exact)
            except Exception as error:  # a case XLA cannot run is reported, not fatal
                record = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
            out["cases"][key] = record
    np.save(args.results, out, allow_pickle=True)
    return 0


def child(args, extra, limit=None, name="plain"):
    argv = [sys.executable, os.path.abspath(__file__), "--worker", "--seed", str(args.seed), "--dtypes", args.dtypes]
    argv += extra
    log = os.path.join(args.out, f"jax-accuracy-{name}.log") if args.out else None
    return run_side(args, argv, limit, dict(os.environ), log)


def compare(np, plain, other):
    """The AccuracyCheck of one ucudnn run against the plain run."""
    accuracy = AccuracyCheck()
    for key, p in plain["cases"].items():
        u = other["cases"].get(key, {"error": "missing"})
        if accuracy.failed_runs(key, p.get("error"), u.get("error")):
            continue
        dtype = key.rsplit(" ", 1)[1]
        for what, pv, uv, ref in zip(QUANTITIES, p["gpu"], u["gpu"], p["reference"]):
            accuracy.check(f"{key} {what}", float(np.abs(uv - ref).max()), float(np.abs(pv - ref).max()),
                           float(np.abs(ref).max()), FLOOR[dtype])
    return accuracy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_launch_arguments(parser)
    add_accuracy_arguments(parser, DTYPES, timeout=400, show=6)
    # --device cpu: the worker's plumbing alone, on a machine without a GPU.
    parser.add_argument("--device", default="gpu", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    unknown = set(args.dtypes.split(",")) - set(DTYPES)
    if unknown:
        raise SystemExit(f"jax_conv_accuracy.py: error: unknown dtype {sorted(unknown)[0]!r} (of {', '.join(DTYPES)})")
    if args.worker:
        return worker(args)
    check_launch_arguments(args, "jax_conv_accuracy.py")
    import numpy as np
    try:
        import jax
        jax.devices("gpu")
    except Exception as error:
        print(f"SKIPPED: no JAX GPU backend here ({type(error).__name__})")
        return 0
    limits = [limit for limit in args.limits.split(",") if limit]
    print(f"jax {jax.__version__}, {jax.devices('gpu')[0].device_kind}, seed {args.seed}, "
          f"{len(CASES)} cases x {args.dtypes}, ucudnn limits {', '.join(limits)}")
    failed = 0
    summary = {"seed": args.seed, "runs": {}}
    with tempfile.TemporaryDirectory() as workdir:
        plain_file = os.path.join(workdir, "plain.npy")
        done, seconds = child(args, ["--reference", "--results", plain_file])
        if done.returncode != 0:
            print(f"FAIL plain run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
            return 1
        plain = np.load(plain_file, allow_pickle=True).item()
        print(f"plain run: {seconds:.1f} s (with the FP64 reference)")
        os.environ.setdefault("UCUDNN_DATABASE", os.path.join(workdir, "ucudnn.db"))
        for limit in limits:
            print(f"ucudnn at {limit}: {describe_launch(args, limit)}")
            results = os.path.join(workdir, f"ucudnn-{limit}.npy")
            done, seconds = child(args, ["--results", results], limit, name=f"ucudnn-{limit}")
            stats = graph_statistics(done.stderr)
            ops = op_table(done.stderr)
            record = {"seconds": seconds, "returncode": done.returncode, "graph_api": stats, "ops": ops}
            summary["runs"][limit] = record
            if done.returncode != 0:
                print(f"FAIL [{limit}] the ucudnn run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
                failed += 1
                continue
            accuracy = compare(np, plain, np.load(results, allow_pickle=True).item())
            accuracy.record_into(record, args.show)
            split = sum(row["split"] for row in ops.values())
            print(f"[{limit}] {accuracy.checked} tensors checked in {seconds:.1f} s, {len(accuracy.failures)} failed, "
                  f"{len(accuracy.skipped)} cases skipped (failed plain too); {split} convolutions split into "
                  "micro-batches")
            accuracy.print_details(limit, args.show)
            failed += len(accuracy.failures)
            if not stats or stats["plans_intercepted"] == 0:
                print(f"FAIL [{limit}] no graph-API plan intercepted: ucudnn did not reach XLA's convolutions")
                failed += 1
            elif stats.get("kept") is not None and stats["kept"] >= stats["plans_intercepted"]:
                print(f"FAIL [{limit}] every plan kept as XLA built it: nothing here ran through ucudnn's plans")
                failed += 1
            for line in statistics_lines(done.stderr):
                if line.startswith(("ucudnn: graph API", "ucudnn: front-ends", "ucudnn run")):
                    print(f"    {line}")
    if args.out:
        with open(os.path.join(args.out, "jax-accuracy.json"), "w") as f:
            json.dump(summary, f, indent=1)
    print("PASSED" if failed == 0 else f"FAILED: {failed} checks")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
