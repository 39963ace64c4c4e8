#!/usr/bin/env python3
"""PyTorch's own convolution OpInfo samples on its default (graph API) path, plain and through ucudnn.

    python3 tests/integration/graph_api_opinfo.py --ucudnn pack/bin/ucudnn [--limits 64KiB,1MiB] [--out DIR]
    python3 tests/integration/graph_api_opinfo.py --preload pack/lib/libucudnn_preload.so ...

The samples: every OpInfo of torch.testing._internal.common_methods_invocations.op_db named
nn.functional.conv1d/2d/3d or nn.functional.conv_transpose1d/2d/3d (all their variants), in FP32
(TF32 off unless --tf32), FP16 and BF16 on CUDA: batched and unbatched inputs, strides, padding
(numbers, 'same', 'valid'), dilation, groups, output_padding, with and without bias. Each sample
runs forward, then backward with one fixed random gradient for the output: the gradients of every
input that requires one (input, weight, bias). PyTorch's default path: cuDNN's graph API through
its cudnn-frontend (TORCH_CUDNN_V8_API_DISABLED is removed from the children's environment),
torch.backends.cudnn.benchmark left at its default.

Runs, each a fresh child process:
  plain       makes the samples (seeded; saved, so that every run computes the very same
              tensors), runs them, and computes the FP64 reference on the CPU (the same samples
              in float64, autograd for the gradients);
  ucudnn L    for each limit L of --limits: `ucudnn run --workspace-limit L -- python3 THIS
              --worker ...` (or LD_PRELOAD and ucudnn's variables, given only --preload), on the
              saved samples. One UCUDNN_DATABASE is shared by these runs.
The check, per sample and per tensor (output and each gradient), with e(run) = max |run - FP64|:
  e(ucudnn) <= max(2 * e(plain), FLOOR[dtype] * max(1, max |FP64|))
FLOOR: float 1e-4 (another FP32 algorithm than plain's, Winograd or FFT, stays within it; a TF32
engine where TF32 is off does not: --tf32 turns TF32 on in every run and the floor to 2e-3),
half 2e-3 and bfloat16 1.6e-2 (two units in the last place of the largest value: a different
rounding of the same sum). A lost or misplaced micro-batch gives errors of the order of the values.
A sample that fails in the plain run is skipped (counted); one that fails only under ucudnn fails.
Each ucudnn run's `ucudnn: graph API:` statistics line must show at least one intercepted plan.

Samples come from OpInfo where torch.testing._internal imports (it needs numpy and expecttest; a
missing expecttest is replaced by a stub); otherwise from a built-in list of the same kinds, said
so in the output. Exit status 0 when every check passes.
"""
import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy_check import AccuracyCheck, add_accuracy_arguments  # noqa: E402
from ucudnn_launch import (add_launch_arguments, check_launch_arguments, describe_launch, front_ends,  # noqa: E402
                           graph_statistics, op_table, run_side, statistics_lines)

OPS = ("nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
       "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d")
DTYPES = ("float32", "float16", "bfloat16")
FLOOR = {"float32": 1e-4, "float16": 2e-3, "bfloat16": 1.6e-2}
FLOOR_TF32 = 2e-3


# --------------------------------------------------------------------------------------------
# The samples (made once, in the plain child).

def import_op_db():
    """op_db, or (None, why) where torch.testing._internal cannot be imported here."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        # torch.testing._internal.common_utils imports it only to subclass expecttest.TestCase.
        import unittest
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        sys.modules["expecttest"] = stub
    try:
        from torch.testing._internal.common_methods_invocations import op_db
        return op_db, None
    except Exception as error:  # numpy missing, or an internal module changed
        return None, f"{type(error).__name__}: {error}"


def builtin_samples(torch, dtype, device):
    """The same kinds of samples as OpInfo's, where OpInfo is not importable: (op, variant, list)."""
    F = torch.nn.functional
    make = lambda *shape: (torch.rand(*shape, device=device) * 2 - 1).to(dtype).requires_grad_()  # noqa: E731
    cases = {
        "nn.functional.conv1d": (F.conv1d, [((2, 4, 9), (6, 4, 3), True, {}), ((4, 10), (6, 4, 3), False, {"groups": 1}),
                                            ((2, 4, 9), (4, 2, 3), True, {"groups": 2, "padding": "same"}),
                                            ((2, 4, 12), (6, 4, 3), True, {"stride": 2, "dilation": 2})]),
        "nn.functional.conv2d": (F.conv2d, [((2, 4, 8, 8), (6, 4, 3, 3), True, {"padding": 1}),
                                            ((4, 7, 9), (6, 4, 3, 3), False, {"padding": "valid"}),
                                            ((2, 6, 9, 8), (6, 2, 3, 3), True, {"groups": 3, "stride": 2}),
                                            ((1, 4, 10, 10), (8, 4, 3, 3), True, {"dilation": 2, "padding": "same"})]),
        "nn.functional.conv3d": (F.conv3d, [((2, 3, 5, 6, 6), (4, 3, 3, 3, 3), True, {"padding": 1}),
                                            ((2, 4, 5, 5, 5), (4, 2, 2, 2, 2), False, {"groups": 2, "stride": 2})]),
        "nn.functional.conv_transpose1d": (F.conv_transpose1d, [((2, 4, 7), (4, 6, 3), True, {"stride": 2, "output_padding": 1}),
                                                                ((4, 7), (4, 3, 3), True, {"groups": 2, "padding": 1})]),
        "nn.functional.conv_transpose2d": (F.conv_transpose2d, [((2, 4, 5, 6), (4, 6, 3, 3), True, {"stride": 2, "padding": 1}),
                                                                ((2, 4, 5, 5), (4, 2, 3, 3), False, {"groups": 2, "dilation": 2})]),
        "nn.functional.conv_transpose3d": (F.conv_transpose3d, [((2, 4, 3, 4, 4), (4, 3, 3, 3, 3), True, {"stride": 2})]),
    }
    result = []
    for name, (function, specs) in cases.items():
        samples = []
        for input_shape, weight_shape, bias, kwargs in specs:
            transposed = "transpose" in name
            channels_out = weight_shape[1] * kwargs.get("groups", 1) if transposed else weight_shape[0]
            b = make(channels_out) if bias else None
            samples.append((make(*input_shape), [make(*weight_shape), b], dict(kwargs)))
        result.append((name, "", function, samples))
    return result


def make_samples(torch, args):
    """Every sample of every op and dtype, on the CPU, with its fixed output gradient."""
    op_db, why = import_op_db()
    source = "OpInfo (torch.testing._internal.common_methods_invocations.op_db)"
    if op_db is None:
        source = f"built-in samples (OpInfo not importable: {why})"
    records = []
    for dtype_name in args.dtypes.split(","):
        dtype = getattr(torch, dtype_name)
        torch.manual_seed(args.seed)
        if op_db is not None:
            groups = []
            for op in op_db:
                if op.name in OPS and (not args.ops or op.name in args.ops.split(",")):
                    if dtype not in op.supported_dtypes("cuda"):
                        continue
                    samples = [(s.input, list(s.args), dict(s.kwargs))
                               for s in op.sample_inputs(args.device, dtype, requires_grad=True)]
                    groups.append((op.name, op.variant_test_name, None, samples))
        else:
            groups = builtin_samples(torch, dtype, args.device)
            groups = [g for g in groups if not args.ops or g[0] in args.ops.split(",")]
        for name, variant, _, samples in groups:
            if args.max_samples:
                samples = samples[:args.max_samples]
            for index, (inp, sargs, skwargs) in enumerate(samples):
                records.append({"op": name, "variant": variant, "dtype": dtype_name, "index": index,
                                "input": to_cpu(torch, inp), "args": [to_cpu(torch, a) for a in sargs],
                                "kwargs": {k: to_cpu(torch, v) for k, v in skwargs.items()}})
    # The output gradients: random, seeded per sample, drawn once the output's shape is known.
    return {"source": source, "seed": args.seed, "records": records}


def to_cpu(torch, value):
    if isinstance(value, torch.Tensor):
        return {"tensor": value.detach().cpu(), "requires_grad": bool(value.requires_grad)}
    return value


def to_device(torch, value, device, dtype=None):
    """A saved argument on `device` (in `dtype` where given), requiring grad as saved."""
    if isinstance(value, dict) and "tensor" in value:
        t = value["tensor"]
        t = t.to(device=device, dtype=dtype if dtype is not None and t.is_floating_point() else t.dtype)
        return t.requires_grad_(value["requires_grad"] and t.is_floating_point())
    return value


def function_of(torch, name):
    return getattr(torch.nn.functional, name.split(".")[-1])


def run_sample(torch, record, device, dtype, seed):
    """(output, {name: gradient}) of one sample: forward, then backward with a seeded gradient."""
    inp = to_device(torch, record["input"], device, dtype)
    sargs = [to_device(torch, a, device, dtype) for a in record["args"]]
    skwargs = {k: to_device(torch, v, device, dtype) for k, v in record["kwargs"].items()}
    out = function_of(torch, record["op"])(inp, *sargs, **skwargs)
    positional = ("weight", "bias")  # F.conv*d(input, weight, bias, ...)
    named = [("input", inp)] + [(positional[i] if i < 2 else f"arg{i}", a) for i, a in enumerate(sargs)]
    named += [(k, v) for k, v in skwargs.items()]
    wanted = [(n, t) for n, t in named if isinstance(t, torch.Tensor) and t.requires_grad]
    grads = {}
    if wanted and out.requires_grad:
        gen = torch.Generator().manual_seed(seed)
        # Rounded to the sample's own type first: the FP64 reference sees the very values the GPU sees.
        sample_dtype = getattr(torch, record["dtype"])
        upstream = (torch.rand(out.shape, generator=gen, dtype=torch.float64) * 2 - 1).to(sample_dtype)
        upstream = upstream.to(device=device, dtype=out.dtype)
        values = torch.autograd.grad(out, [t for _, t in wanted], upstream, allow_unused=True)
        grads = {n: (g.detach().double().cpu() if g is not None else None) for (n, _), g in zip(wanted, values)}
    return out.detach().double().cpu(), grads


def worker(args):
    import torch
    torch.backends.cudnn.allow_tf32 = args.tf32
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    if args.make_samples:
        data = make_samples(torch, args)
        torch.save(data, args.samples)
    else:
        data = torch.load(args.samples, weights_only=False)
    results = {"source": data["source"], "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
               "samples": []}
    started = time.perf_counter()
    for number, record in enumerate(data["records"]):
        dtype = getattr(torch, record["dtype"])
        seed = data["seed"] * 1000003 + number
        entry = {"op": record["op"], "variant": record["variant"], "dtype": record["dtype"], "index": record["index"],
                 "shapes": describe(record)}
        try:
            entry["out"], entry["grads"] = run_sample(torch, record, args.device, dtype, seed)
            if args.device == "cuda":
                torch.cuda.synchronize()
        except Exception as error:
            entry["error"] = f"{type(error).__name__}: {str(error)[:300]}"
        if args.reference and "error" not in entry:
            try:
                entry["ref.out"], entry["ref.grads"] = run_sample(torch, record, "cpu", torch.float64, seed)
            except Exception as error:
                entry["ref.error"] = f"{type(error).__name__}: {str(error)[:300]}"
        results["samples"].append(entry)
    results["seconds"] = time.perf_counter() - started
    torch.save(results, args.results)
    return 0


def describe(record):
    def shape(v):
        if isinstance(v, dict) and "tensor" in v:
            return "x".join(str(s) for s in v["tensor"].shape) or "scalar"
        return repr(v)
    parts = [shape(record["input"])] + [shape(a) for a in record["args"]]
    parts += [f"{k}={shape(v)}" for k, v in record["kwargs"].items()]
    return " ".join(parts)


# --------------------------------------------------------------------------------------------
# The parent: the runs, and the comparison.

def child(args, extra, limit=None, name="plain"):
    argv = [sys.executable, os.path.abspath(__file__), "--worker"] + extra + ["--dtypes", args.dtypes,
                                                                             "--seed", str(args.seed)]
    argv += (["--tf32"] if args.tf32 else []) + (["--max-samples", str(args.max_samples)] if args.max_samples else [])
    argv += (["--ops", args.ops] if args.ops else []) + ["--device", args.device]
    env = dict(os.environ)
    env.pop("TORCH_CUDNN_V8_API_DISABLED", None)  # PyTorch's default path: the graph API
    return run_side(args, argv, limit, env, os.path.join(args.out, f"opinfo-{name}.log") if args.out else None)


def max_error(torch, value, reference):
    if value is None or reference is None:
        return 0.0 if value is None and reference is None else math.inf
    if value.shape != reference.shape:
        return math.inf
    difference = (value - reference).abs()
    if difference.numel() == 0:
        return 0.0
    if not torch.isfinite(value).all():
        return math.inf
    return difference.max().item()


def compare(torch, plain, other, floor):
    """The AccuracyCheck of one ucudnn run against the plain run."""
    accuracy = AccuracyCheck()
    for p, u in zip(plain["samples"], other["samples"]):
        label = f'{p["op"]}{"." + p["variant"] if p["variant"] else ""} {p["dtype"]} #{p["index"]} ({p["shapes"]})'
        if accuracy.failed_runs(label, p.get("error") or p.get("ref.error"), u.get("error")):
            continue
        tensors = [("output", p["out"], u["out"], p["ref.out"])]
        tensors += [(f"grad {n}", p["grads"].get(n), u["grads"].get(n), p["ref.grads"].get(n)) for n in p["ref.grads"]]
        for what, pv, uv, ref in tensors:
            scale = ref.abs().max().item() if ref is not None and ref.numel() else 0.0
            accuracy.check(f"{label} {what}", max_error(torch, uv, ref), max_error(torch, pv, ref), scale,
                           floor[p["dtype"]])
    return accuracy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_launch_arguments(parser)
    add_accuracy_arguments(parser, DTYPES, timeout=540, show=8)
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all six)")
    parser.add_argument("--max-samples", type=int, default=0, help="at most this many samples per op, variant and dtype")
    parser.add_argument("--tf32", action="store_true", help="TF32 on (PyTorch's default for cuDNN) in every run")
    parser.add_argument("--make-samples", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--samples", help=argparse.SUPPRESS)
    # --device cpu: the plumbing alone, on a machine without a GPU (nothing reaches cuDNN).
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    if args.worker:
        return worker(args)
    check_launch_arguments(args, "graph_api_opinfo.py")
    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 0
    floor = dict(FLOOR)
    if args.tf32:
        floor["float32"] = FLOOR_TF32
    limits = [limit for limit in args.limits.split(",") if limit]
    gpu = torch.cuda.get_device_name() if args.device == "cuda" else args.device
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {gpu}, "
          f"seed {args.seed}, TF32 {'on' if args.tf32 else 'off'}, ucudnn limits {', '.join(limits)}")
    failed = 0
    summary = {"seed": args.seed, "runs": {}}
    with tempfile.TemporaryDirectory() as workdir:
        samples = os.path.join(workdir, "samples.pt")
        plain_results = os.path.join(workdir, "plain.pt")
        done, seconds = child(args, ["--make-samples", "--reference", "--samples", samples, "--results", plain_results])
        if done.returncode != 0:
            print(f"FAIL plain run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
            return 1
        plain = torch.load(plain_results, weights_only=False)
        counts = {}
        for s in plain["samples"]:
            counts[f'{s["op"]} {s["dtype"]}'] = counts.get(f'{s["op"]} {s["dtype"]}', 0) + 1
        print(f"samples: {len(plain['samples'])} from {plain['source']}; plain run {seconds:.1f} s (with the FP64 reference)")
        print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
        if "ucudnn:" in done.stderr:
            print("FAIL the plain run printed ucudnn statistics (is LD_PRELOAD set around this script?)")
            failed += 1
        os.environ.setdefault("UCUDNN_DATABASE", os.path.join(workdir, "ucudnn.db"))
        for limit in limits:
            print(f"ucudnn at {limit}: {describe_launch(args, limit)}")
            results = os.path.join(workdir, f"ucudnn-{limit}.pt")
            done, seconds = child(args, ["--samples", samples, "--results", results], limit, name=f"ucudnn-{limit}")
            stats = graph_statistics(done.stderr)
            record = {"seconds": seconds, "returncode": done.returncode, "graph_api": stats,
                      "front_ends": front_ends(done.stderr), "ops": op_table(done.stderr)}
            summary["runs"][limit] = record
            if done.returncode != 0:
                print(f"FAIL [{limit}] the ucudnn run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
                failed += 1
                continue
            other = torch.load(results, weights_only=False)
            accuracy = compare(torch, plain, other, floor)
            accuracy.record_into(record, args.show)
            print(f"[{limit}] {accuracy.checked} tensors checked in {seconds:.1f} s, {len(accuracy.failures)} failed, "
                  f"{len(accuracy.skipped)} samples skipped (failed in the plain run too)")
            accuracy.print_details(limit, args.show, failures_shown=40)
            failed += len(accuracy.failures)
            for line in statistics_lines(done.stderr):
                print(f"    {line}")
            if stats is None:
                print(f"FAIL [{limit}] no `ucudnn: graph API:` statistics line on the child's stderr")
                failed += 1
            elif stats["plans_intercepted"] == 0:
                print(f"FAIL [{limit}] 0 graph-API plans intercepted ({json.dumps(stats)})")
                failed += 1
            else:
                print(f"ok   [{limit}] graph API: {stats['plans_intercepted']} plans intercepted, "
                      f"{stats['passed_through']} passed through, {stats['executions']} executions")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "opinfo-summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
    print(f"{'PASSED' if failed == 0 else 'FAILED'}: {failed} failed check(s) (seed {args.seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
