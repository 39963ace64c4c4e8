#!/usr/bin/env python3
"""Pictures of the engines runs on the H100 (no dependencies).

    python3 bench/plot_engines.py [DIR]        (DIR defaults to bench/results/h100/engines)

Reads DIR/engines-summary*.txt (one `NET TYPE LAYOUT LIMIT CANDIDATES: sequence (median of N): plain
legacy ...` line per run, or the `whole sequence live ...` line of older benchmarks) and DIR/pytorch/pt-*.json (median step time per mode), and writes into DIR:
engines-speedup.svg (ucudnn's speedup over plain legacy cuDNN per network, precision, limit and
candidate set, log scale) and pytorch-step.svg (one panel of median step times per model and limit).
"""
import glob
import json
import math
import os
import re
import sys
from xml.sax.saxutils import escape

PRECISION = {"half": "FP16", "bfloat16": "BF16", "float": "FP32"}
CANDIDATES = ["legacy", "both"]
MODES = ["default", "default-capped", "legacy", "legacy-capped", "ucudnn-legacy", "ucudnn-engines"]
TICKS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
KEY = r"^(\S+) (\S+) (\S+) (\S+) (\S+): "
# The benchmark's sequence line: ucudnn's speedup over plain legacy cuDNN is its first ratio.
VALID = re.compile(KEY + r"sequence \(median of \d+\): plain legacy ([\d.]+) ms .*\| ucudnn ([\d.]+) ms: ([\d.]+)x")
OLD_VALID = re.compile(KEY + r"whole sequence live \(median\): cuDNN ([\d.]+) ms, ucudnn ([\d.]+) ms, speedup ([\d.]+)x")


def svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def text(x, y, s, anchor="start", size=11, fill="black"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
            f'fill="{fill}">{escape(str(s))}</text>')


def rect(x, y, w, h, fill, tip=""):
    tip = f"<title>{escape(tip)}</title>" if tip else ""
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}">{tip}</rect>'


def limit_bytes(limit):
    m = re.match(r"(\d+)([KMG])iB$", limit)
    return int(m.group(1)) << {"K": 10, "M": 20, "G": 30}[m.group(2)] if m else 0


def read_summaries(paths):
    """(net, type, layout, limit, candidates) -> speedup, or None where only errors were seen.
    Files in name order; a valid line replaces anything earlier, an error line only another error."""
    runs = {}
    for path in sorted(paths):
        with open(path) as f:
            for line in f:
                valid, key = VALID.match(line) or OLD_VALID.match(line), re.match(KEY, line)
                if valid:
                    runs[valid.groups()[:5]] = float(valid.group(8))
                elif key and key.groups() not in runs:
                    runs[key.groups()] = None
    return runs


def speedup_chart(runs):
    kinds = sorted({k[3:] for k in runs}, key=lambda k: (-limit_bytes(k[0]), CANDIDATES.index(k[1])
                                                          if k[1] in CANDIDATES else 9, k[1]))
    order = lambda g: (g[0], list(PRECISION).index(g[1]) if g[1] in PRECISION else 9, g[1], g[2])
    groups = sorted({k[:3] for k in runs}, key=order)
    values = [v for v in runs.values() if v]
    low, high = min(values + [1.0]), max(values + [1.0])
    # Room left of the 1x line only when something is slower than plain cuDNN.
    lo = max(t for t in TICKS if t <= (low / 1.5 if low < 1 else 1))
    hi = next((t for t in TICKS if t >= high), high)
    width, left, right, top, bar_h, row, gap = 820, 150, 60, 64, 12, 14, 14
    plot_w = width - left - right
    px = lambda v: left + plot_w * math.log(v / lo) / math.log(hi / lo)
    bottom = top + len(groups) * (len(kinds) * row + gap)
    height = bottom + 44
    body = [text(width / 2, 22, "Conv sequences on the H100: ucudnn over plain legacy cuDNN at the same "
                 "per-kernel limit", "middle", 13)]
    # Hue per limit, darker for the larger candidate set, so the two sets of one limit pair up.
    limits = sorted({k[0] for k in kinds}, key=lambda l: -limit_bytes(l))
    fill = {k: f"hsl({[210, 30, 130, 280][limits.index(k[0]) % 4]},55%,{68 if k[1] == 'legacy' else 45}%)"
            for k in kinds}
    for i, k in enumerate(kinds):
        body += [rect(left + 150 * i, 38, 10, 10, fill[k]), text(left + 150 * i + 14, 47, f"{k[0]} {k[1]}")]
    for t in (t for t in TICKS if lo <= t <= hi):
        body.append(f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top - 6}" y2="{bottom}" stroke="#ddd"/>')
        body.append(text(px(t), bottom + 14, f"{t:g}x", "middle"))
    body.append(text(left + plot_w / 2, bottom + 34, "speedup over plain legacy cuDNN (log scale)", "middle"))
    y = top
    for net, dtype, layout in groups:
        body.append(text(left - 8, y + len(kinds) * row / 2 + 4, f"{net} {PRECISION.get(dtype, dtype)} {layout}", "end"))
        for k in kinds:
            v = runs.get((net, dtype, layout) + k, "absent")
            if v is None or v == "absent":
                body.append(text(px(1) + 4, y + bar_h - 2, "failed" if v is None else "no run", size=9, fill="#888"))
            else:
                x0, x1 = sorted((px(1), px(v)))
                body.append(rect(x0, y, x1 - x0, bar_h, fill[k], f"{net} {dtype} {layout} {k[0]} {k[1]}: {v:.2f}x"))
                body.append(text(px(v) + 4, y + bar_h - 2, f"{v:.2f}x", size=9) if v >= 1 else
                            text(px(v) - 4, y + bar_h - 2, f"{v:.2f}x", "end", 9))
            y += row
        y += gap
    body.append(f'<line x1="{px(1):.1f}" x2="{px(1):.1f}" y1="{top - 6}" y2="{bottom}" stroke="#333"/>')
    return svg(width, height, body)


def nice_step(peak):
    base = 10 ** math.floor(math.log10(peak / 5))
    return next(base * m for m in (1, 2, 5, 10) if peak / (base * m) <= 6)


def pytorch_chart(files):
    """files: [(limit, {mode: result})]; one panel each, one shared linear scale to compare panels."""
    width, left, right, top, row, bar_h = 760, 120, 80, 40, 18, 13
    plot_w = width - left - right
    peak = max(r["median_ms"] for _, modes in files for r in modes.values())
    step = nice_step(peak)
    end = step * math.ceil(peak / step)
    px = lambda ms: left + plot_w * ms / end
    gpus = sorted({r.get("gpu", "?") for _, modes in files for r in modes.values()})
    body = [text(width / 2, 22, f"PyTorch training step (forward + backward), median per mode, on the {', '.join(gpus)}",
                 "middle", 13)]
    y = top
    for limit, modes in files:
        names = [m for m in MODES if m in modes] + sorted(m for m in modes if m not in MODES)
        first = modes[names[0]]
        body.append(text(left, y + 14, f'{first.get("model", "?")}, batch {first.get("batch", "?")}, '
                         f'limit {limit} per kernel where capped', size=12))
        y += 24
        for t in range(int(round(end / step)) + 1):
            x = px(t * step)
            body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y - 3}" y2="{y + len(names) * row}" stroke="#ddd"/>')
            body.append(text(x, y + len(names) * row + 12, f"{t * step:g}", "middle", 9))
        for name in names:
            ms = modes[name]["median_ms"]
            # Grey for stock PyTorch, blue for the ucudnn runs.
            colour = "hsl(210,55%,50%)" if name.startswith("ucudnn") else "hsl(0,0%,65%)"
            body += [text(left - 8, y + bar_h - 2, name, "end"), rect(left, y, px(ms) - left, bar_h, colour, f"{name}: {ms:.3f} ms"),
                     text(px(ms) + 4, y + bar_h - 2, f"{ms:.1f} ms", size=10)]
            y += row
        y += 26
    body.append(text(left + plot_w / 2, y, "ms per step", "middle"))
    return svg(width, y + 12, body)


def main(directory):
    if not os.path.isdir(directory):
        sys.exit(f"plot_engines.py: no such folder: {directory}")
    summaries = glob.glob(os.path.join(directory, "engines-summary*.txt"))
    if not summaries:
        sys.exit(f"plot_engines.py: no engines-summary*.txt files in {directory}")
    runs = read_summaries(summaries)
    if not any(runs.values()):
        sys.exit(f"plot_engines.py: no valid result lines in the engines-summary*.txt files of {directory}")
    written = [os.path.join(directory, "engines-speedup.svg")]
    with open(written[0], "w") as f:
        f.write(speedup_chart(runs))
    files = []
    for path in glob.glob(os.path.join(directory, "pytorch", "pt-*.json")):
        with open(path) as f:
            modes = json.load(f)
        limit = re.search(r"-(\d+[KMG]iB)\.json$", path)
        if modes:
            files.append((limit.group(1) if limit else "?", modes))
    if files:
        files.sort(key=lambda f: (next(iter(f[1].values())).get("model", ""), -limit_bytes(f[0])))
        written.append(os.path.join(directory, "pytorch-step.svg"))
        with open(written[1], "w") as f:
            f.write(pytorch_chart(files))
    print("\n".join(written))


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: python3 bench/plot_engines.py [DIR]")
    main(sys.argv[1] if len(sys.argv) == 2 else "bench/results/h100/engines")
