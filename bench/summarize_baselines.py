#!/usr/bin/env python3
"""One table and one picture of ucudnn against its three baselines (no dependencies).

    python3 bench/summarize_baselines.py DIR [DIR ...] [--out OUTDIR]

Reads every JSON file of ucudnn_conv_benchmark (--json) in the DIRs (bash bench/gpu.sh baselines
writes them) and writes into OUTDIR (default: the first DIR):
  baselines-summary.md   one row per network, precision and per-kernel limit: the four whole-
                         sequence medians (plain legacy cuDNN, cuDNN's best single engine at the
                         limit, the best engine unlimited with the workspace it used in all,
                         ucudnn) and ucudnn's speedup over each (baseline time / ucudnn time);
  baselines-ratios.svg   those three speedups as grouped bars, log scale.
Runs made with --baselines plain have only the first speedup. The table is also printed.
"""
import glob
import json
import math
import os
import sys
from xml.sax.saxutils import escape

MIB = 1 << 20
NETWORK_ORDER = ["alexnet", "resnet18", "resnet50", "vgg16", "densenet40"]
PRECISION_ORDER = ["float", "half", "bfloat16"]
# (JSON prefix, column title, bar colour) of each baseline, in the benchmark's order.
BASELINES = [("cudnn", "plain legacy", "hsl(0,0%,60%)"),
             ("best_at_limit", "best engine at the limit", "hsl(30,70%,55%)"),
             ("best_unlimited", "best engine unlimited", "hsl(210,60%,50%)")]
TICKS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


def size(bytes_):
    if bytes_ >= MIB:
        return f"{bytes_ / MIB:.0f} MiB" if bytes_ % MIB == 0 or bytes_ >= 100 * MIB else f"{bytes_ / MIB:.1f} MiB"
    return f"{bytes_ / 1024:.0f} KiB" if bytes_ else "0 B"


def read_runs(directories):
    """The benchmark runs of the folders, keyed by (network, data type, layout, limit, WD total);
    a later file of the same key (folders in order, files by name) replaces an earlier one."""
    runs = {}
    for directory in directories:
        if not os.path.isdir(directory):
            sys.exit(f"summarize_baselines.py: no such folder: {directory}")
        for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
            try:
                with open(path) as f:
                    data = json.load(f)
            except (OSError, ValueError) as e:
                print(f"summarize_baselines.py: skipping {path}: {e}", file=sys.stderr)
                continue
            if not isinstance(data, dict) or "ucudnn_sequence_ms" not in data or "cudnn_sequence_ms" not in data:
                continue  # not a benchmark run (a Pareto front, say)
            key = (data.get("network", "?"), data.get("data_type", "float"), data.get("layout", "NCHW"),
                   data.get("workspace_limit_bytes", 0), data.get("total_workspace_bytes", 0),
                   data.get("policy", "?"), data.get("candidates", "both"))
            runs[key] = data
    return runs


def order(key):
    net, dtype, layout, limit, total, policy, candidates = key
    return (NETWORK_ORDER.index(net) if net in NETWORK_ORDER else len(NETWORK_ORDER), net,
            PRECISION_ORDER.index(dtype) if dtype in PRECISION_ORDER else len(PRECISION_ORDER), dtype, layout,
            limit, total, policy, candidates)


def ucudnn_configs(runs):
    return sorted({(k[5], k[6]) for k in runs})


def ratio(data, prefix):
    """ucudnn's speedup over one baseline (its sequence time / ucudnn's), or None if not measured."""
    baseline = data.get(f"{prefix}_sequence_ms")
    mine = data.get("ucudnn_sequence_ms")
    return baseline / mine if baseline and mine else None


def label(key, with_config=False):
    net, dtype, layout, limit, total, policy, candidates = key
    wd = f", WD {size(total)}" if total else ""
    config = f", {policy} {candidates}" if with_config else ""
    return f"{net} {dtype} {layout} {size(limit)}{wd}{config}"


def table(runs):
    gpus = sorted({d.get("gpu", "?") for d in runs.values()})
    versions = sorted({str(d.get("cudnn_version", "?")) for d in runs.values()})
    medians = sorted({str(d.get("iterations", "?")) for d in runs.values()})
    # Runs before --input-gradient existed kept the input layer's backward data.
    inputs = sorted({"kept" if d.get("input_gradient", True) else "left out" for d in runs.values()})
    configs = ucudnn_configs(runs)
    config_text = "; ".join(f"policy {p}, candidates {c}" for p, c in configs)
    several = len(configs) > 1
    lines = [f"Whole sequence of a training step's convolutions, median of {'/'.join(medians)} runs, on the "
             f"{', '.join(gpus)} (cuDNN {', '.join(versions)}); the input layer's backward data "
             f"{' / '.join(inputs)}; ucudnn: {config_text}. Speedup = baseline time / ucudnn time "
             f"(>1: ucudnn faster).", "",
             "| network | precision | limit per kernel | " + ("ucudnn | " if several else "") +
             "batch | kernels | plain legacy ms | best engine at the limit ms "
             "| best engine unlimited ms (workspace in all) | ucudnn ms | vs plain legacy | vs best at the limit "
             "| vs best unlimited |",
             "|---" * (12 + several) + "|"]
    for key in sorted(runs, key=order):
        d = runs[key]
        net, dtype, layout, limit, total, policy, candidates = key
        cell = lambda prefix: f"{d[prefix + '_sequence_ms']:.2f}" if f"{prefix}_sequence_ms" in d else "-"
        unlimited = cell("best_unlimited")
        if "best_unlimited_workspace_sum_bytes" in d:
            unlimited += f" ({size(d['best_unlimited_workspace_sum_bytes'])})"
        ratios = [ratio(d, prefix) for prefix, _, _ in BASELINES]
        limit_text = size(limit) + (f" (ucudnn WD: {size(total)} in all)" if total else "")
        config = f"{policy} {candidates} | " if several else ""
        lines.append(f"| {net} | {dtype} {layout} | {limit_text} | {config}{d.get('batch', '?')} | {d.get('kernel_count', '?')} "
                     f"| {cell('cudnn')} | {cell('best_at_limit')} | {unlimited} | {cell('ucudnn')} | "
                     + " | ".join(f"{r:.2f}x" if r else "-" for r in ratios) + " |")
    return "\n".join(lines) + "\n"


def svg_text(x, y, s, anchor="start", size_=11, fill="black"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size_}" '
            f'fill="{fill}">{escape(str(s))}</text>')


def ratio_chart(runs):
    keys = sorted(runs, key=order)
    values = [r for k in keys for r in (ratio(runs[k], p) for p, _, _ in BASELINES) if r]
    low, high = min(values + [1.0]), max(values + [1.0])
    lo = max(t for t in TICKS if t <= (low / 1.5 if low < 1 else 1))
    hi = next((t for t in TICKS if t >= high * 1.15), high * 1.15)
    width, left, right, top, bar_h, row, gap = 860, 230, 50, 66, 11, 13, 12
    plot_w = width - left - right
    px = lambda v: left + plot_w * math.log(v / lo) / math.log(hi / lo)
    bottom = top + len(keys) * (len(BASELINES) * row + gap)
    height = bottom + 44
    gpus = ", ".join(sorted({d.get("gpu", "?") for d in runs.values()}))
    body = [f'<rect width="100%" height="100%" fill="white"/>',
            svg_text(width / 2, 22, f"ucudnn's speedup over each baseline, whole sequence, on the {gpus}", "middle",
                     13)]
    for i, (_, title, colour) in enumerate(BASELINES):
        body += [f'<rect x="{left + 200 * i}" y="38" width="10" height="10" fill="{colour}"/>',
                 svg_text(left + 200 * i + 14, 47, f"over {title}")]
    for t in (t for t in TICKS if lo <= t <= hi):
        body.append(f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top - 6}" y2="{bottom}" stroke="#ddd"/>')
        body.append(svg_text(px(t), bottom + 14, f"{t:g}x", "middle"))
    body.append(svg_text(left + plot_w / 2, bottom + 34, "baseline time / ucudnn time (log scale; >1: ucudnn faster)",
                         "middle"))
    several = len(ucudnn_configs(runs)) > 1
    y = top
    for key in keys:
        body.append(svg_text(left - 8, y + len(BASELINES) * row / 2 + 4, label(key, several), "end"))
        for prefix, title, colour in BASELINES:
            v = ratio(runs[key], prefix)
            if v is None:
                body.append(svg_text(px(1) + 4, y + bar_h - 2, "not measured", size_=9, fill="#888"))
            else:
                x0, x1 = sorted((px(1), px(v)))
                body.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 0.5):.1f}" height="{bar_h}" '
                            f'fill="{colour}"><title>{escape(label(key))} over {title}: {v:.2f}x</title></rect>')
                body.append(svg_text(px(v) + 4, y + bar_h - 2, f"{v:.2f}x", size_=9) if v >= 1 else
                            svg_text(px(v) - 4, y + bar_h - 2, f"{v:.2f}x", "end", 9))
            y += row
        y += gap
    body.append(f'<line x1="{px(1):.1f}" x2="{px(1):.1f}" y1="{top - 6}" y2="{bottom}" stroke="#333"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
            f'font-size="11">\n' + "\n".join(body) + "\n</svg>\n")


def main(argv):
    out = None
    if "--out" in argv:
        i = argv.index("--out")
        if i + 1 >= len(argv):
            sys.exit("summarize_baselines.py: --out needs a folder")
        out = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if not argv or any(a.startswith("-") for a in argv):
        sys.exit("usage: python3 bench/summarize_baselines.py DIR [DIR ...] [--out OUTDIR]")
    runs = read_runs(argv)
    if not runs:
        sys.exit(f"summarize_baselines.py: no benchmark JSON files in {' '.join(argv)}")
    out = out or argv[0]
    os.makedirs(out, exist_ok=True)
    summary = table(runs)
    with open(os.path.join(out, "baselines-summary.md"), "w") as f:
        f.write(summary)
    with open(os.path.join(out, "baselines-ratios.svg"), "w") as f:
        f.write(ratio_chart(runs))
    print(summary, end="")


if __name__ == "__main__":
    main(sys.argv[1:])
