#!/usr/bin/env python3
"""Summarises examples/caffe_patch/gpu.sh's logs: `caffe time` per configuration and the losses.

    python3 summarize.py RESULTS_DIR [--markdown FILE] [--json FILE]

RESULTS_DIR holds NET/CONFIG-rROUND.log (`caffe time`) and NET/train-CONFIG.log (`caffe train`)
for NET in alexnet, resnet50. Per configuration it reports the median over rounds of the
iteration (Caffe's "Average Forward-Backward" less the DummyData layer's forward: filling the
input with fresh Gaussian numbers on the CPU takes 250 ms per AlexNet iteration, a stand-in for
a data reader that Caffe would prefetch) and of the convolution layers' forward plus backward
times (summed from Caffe's per-layer averages), each with its ratio to plain Caffe measured in
the same run; then the loss of every SGD iteration and the largest relative difference from
plain Caffe, against plain Caffe's own difference from a second plain run (cuDNN's atomic
backward-filter algorithms make plain Caffe differ from itself).
Exit status 1 if a log is missing or unreadable, or a target is missed.
"""
import argparse
import json
import pathlib
import re
import statistics
import sys

CONFIGS = ["plain", "ucudnn-8MiB", "ucudnn-64MiB", "ucudnn-wd"]
TRAIN_CONFIGS = ["plain", "plain-again", "ucudnn-64MiB", "ucudnn-wd"]
MODELS = pathlib.Path(__file__).resolve().parent / "models"
# ucudnn's losses may differ from plain Caffe's by 3x plain Caffe's own run-to-run difference, and
# at least by this (relative, per iteration): FP32 algorithms differ in summation order.
LOSS_FLOOR = 1e-4
CONV_TARGET = 1.5      # AlexNet convolutions, ucudnn WD against plain Caffe at 8 MiB

AVERAGE = re.compile(r"Average Forward-Backward: ([0-9.e+-]+) ms")
LAYER = re.compile(r"\]\s+(\S+)\s+(forward|backward): ([0-9.e+-]+) ms")
LOSS = re.compile(r"Iteration (\d+)(?: \([^)]*\))?, loss = ([0-9.e+-]+|nan|inf)")


def convolution_layers(net):
    text = (MODELS / f"{net}.prototxt").read_text()
    return re.findall(r'name: "([^"]+)"\n  type: "Convolution"', text)


def read_time_log(path, convs):
    text = path.read_text(errors="replace")
    average = AVERAGE.search(text)
    if not average:
        raise ValueError(f"{path}: no 'Average Forward-Backward' line (did caffe time finish?)")
    layers = {}
    for name, direction, ms in LAYER.findall(text):
        layers[(name, direction)] = float(ms)
    if ("data", "forward") not in layers:
        raise ValueError(f"{path}: no per-layer time for the data layer")
    missing = [c for c in convs if (c, "forward") not in layers]
    if missing:
        raise ValueError(f"{path}: no per-layer time for {missing[0]}")
    per_layer = {c: layers[(c, "forward")] + layers.get((c, "backward"), 0.0) for c in convs}
    return {"iteration_ms": float(average.group(1)) - layers[("data", "forward")],
            "with_data_ms": float(average.group(1)), "conv_ms": sum(per_layer.values()), "layers": per_layer}


def read_losses(path):
    losses = {}
    for iteration, value in LOSS.findall(path.read_text(errors="replace")):
        losses[int(iteration)] = float(value)
    if not losses:
        raise ValueError(f"{path}: no 'Iteration N, loss = X' line (did caffe train run?)")
    return losses


def summarise_net(root, net):
    convs = convolution_layers(net)
    runs = {}
    for config in CONFIGS:
        logs = sorted((root / net).glob(f"{config}-r*.log"))
        if not logs:
            raise ValueError(f"{root / net}: no {config}-r*.log")
        runs[config] = [read_time_log(p, convs) for p in logs]
    result = {"convolution_layers": len(convs), "configs": {}}
    plain_iter = statistics.median(r["iteration_ms"] for r in runs["plain"])
    plain_conv = statistics.median(r["conv_ms"] for r in runs["plain"])
    for config, rs in runs.items():
        iteration = statistics.median(r["iteration_ms"] for r in rs)
        conv = statistics.median(r["conv_ms"] for r in rs)
        result["configs"][config] = {
            "rounds": len(rs),
            "iteration_ms": iteration,
            "with_data_ms": statistics.median(r["with_data_ms"] for r in rs),
            "iteration_ms_range": [min(r["iteration_ms"] for r in rs), max(r["iteration_ms"] for r in rs)],
            "conv_ms": conv,
            "iteration_speedup": plain_iter / iteration,
            "conv_speedup": plain_conv / conv,
            "layers_ms": {c: statistics.median(r["layers"][c] for r in rs) for c in convs},
        }
    losses = {}
    for config in TRAIN_CONFIGS:
        path = root / net / f"train-{config}.log"
        if not path.exists():
            raise ValueError(f"{path}: missing")
        losses[config] = read_losses(path)
    iterations = sorted(losses["plain"])

    def largest_difference(config):
        diffs = [abs(losses[config][i] - losses["plain"][i]) / max(abs(losses["plain"][i]), 1e-12)
                 for i in iterations if i in losses[config]]
        if len(diffs) != len(iterations):
            return float("inf")
        return max(diffs)

    result["losses"] = {c: [losses[c].get(i) for i in iterations] for c in TRAIN_CONFIGS}
    result["loss_iterations"] = iterations
    result["largest_relative_loss_difference"] = {c: largest_difference(c) for c in TRAIN_CONFIGS[1:]}
    return result


def markdown(summary):
    lines = []
    for net, r in summary["nets"].items():
        lines.append(f"### {net} ({r['convolution_layers']} convolution layers)\n")
        lines.append("| configuration | iteration without data layer (ms) | range over rounds | vs plain "
                     "| convolutions fwd+bwd (ms) | vs plain | with data layer (ms) |")
        lines.append("|---|---|---|---|---|---|---|")
        for config, c in r["configs"].items():
            lo, hi = c["iteration_ms_range"]
            lines.append(f"| {config} | {c['iteration_ms']:.2f} | {lo:.2f}-{hi:.2f} | {c['iteration_speedup']:.2f}x "
                         f"| {c['conv_ms']:.2f} | {c['conv_speedup']:.2f}x | {c['with_data_ms']:.1f} |")
        lines.append("")
        convs = list(next(iter(r["configs"].values()))["layers_ms"])
        if len(convs) <= 8:
            lines.append("| layer (fwd+bwd ms) | " + " | ".join(r["configs"]) + " |")
            lines.append("|---|" + "---|" * len(r["configs"]))
            for layer in convs:
                lines.append(f"| {layer} | " + " | ".join(f"{c['layers_ms'][layer]:.2f}" for c in r["configs"].values()) + " |")
            lines.append("")
        lines.append("| SGD iteration | " + " | ".join(r["losses"]) + " |")
        lines.append("|---|" + "---|" * len(r["losses"]))
        for k, i in enumerate(r["loss_iterations"]):
            lines.append(f"| {i} | " + " | ".join("-" if v[k] is None else f"{v[k]:.6f}" for v in r["losses"].values()) + " |")
        diffs = ", ".join(f"{c} {d:.2e}" for c, d in r["largest_relative_loss_difference"].items())
        lines.append(f"\nLargest relative loss difference from plain: {diffs}.\n")
    lines.append("### Targets\n")
    for line in summary["targets"]:
        lines.append(f"- {line}")
    return "\n".join(lines) + "\n"


def targets(nets):
    lines, met = [], True
    if "alexnet" in nets:
        speedup = nets["alexnet"]["configs"]["ucudnn-wd"]["conv_speedup"]
        ok = speedup >= CONV_TARGET
        met &= ok
        lines.append(f"{'met' if ok else 'MISSED'}: AlexNet convolutions with ucudnn WD {speedup:.2f}x plain "
                     f"(target {CONV_TARGET}x)")
    for net, r in nets.items():
        for config, c in r["configs"].items():
            if config == "plain":
                continue
            ok = c["iteration_speedup"] >= 1.0
            met &= ok
            lines.append(f"{'met' if ok else 'MISSED'}: {net} {config} iteration {c['iteration_speedup']:.3f}x plain "
                         f"(target: never slower)")
        itself = r["largest_relative_loss_difference"]["plain-again"]
        tolerance = max(3 * itself, LOSS_FLOOR)
        for config, d in r["largest_relative_loss_difference"].items():
            if config == "plain-again":
                continue
            ok = d <= tolerance
            met &= ok
            lines.append(f"{'met' if ok else 'MISSED'}: {net} {config} losses within {tolerance:.1e} of plain "
                         f"(largest {d:.2e}; plain against itself {itself:.2e})")
    return lines, met


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--markdown", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    nets, status = {}, 0
    for net in ("alexnet", "resnet50"):
        if not (args.results / net).is_dir():
            print(f"summarize.py: {args.results / net}: no results for {net}", file=sys.stderr)
            status = 1
            continue
        try:
            nets[net] = summarise_net(args.results, net)
        except (OSError, ValueError) as e:
            print(f"summarize.py: {e}", file=sys.stderr)
            status = 1
    summary = {"nets": nets}
    summary["targets"], met = targets(nets)
    text = markdown(summary)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return status if met else 1


if __name__ == "__main__":
    sys.exit(main())
