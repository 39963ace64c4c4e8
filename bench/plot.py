#!/usr/bin/env python3
"""Pictures and a summary table from the JSON files of bench/sweep.sh (no dependencies).

    python3 bench/plot.py RESULTS_DIR

Writes, per network: NET-LIMIT-time.svg (stacked time per kernel for each configuration, as the
paper's Fig. 10/13), NET-wd-division.svg (how WD divides the workspace, Fig. 14), NET-memory.svg
(per-kernel workspace: plain cuDNN at the largest limit against ucudnn powerOfTwo at 64 MiB,
Fig. 12), NET-pareto-KERNEL.svg for every `ucudnn plan --pareto --json` output named
NET-pareto-KERNEL.json (one kernel's desirable configurations, Fig. 8), and summary.md (one row
per network, limit and configuration).
"""
import glob
import math
import json
import os
import sys
from collections import defaultdict

CONFIGS = ["undivided", "powerOfTwo", "all", "wd"]
MIB = 1 << 20


def colour(i, n):
    hue = int(360 * i / max(n, 1))
    return f"hsl({hue},55%,60%)"


def svg(width, height, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(body) + "\n</svg>\n")


def text(x, y, s, anchor="start", size=11, rotate=None):
    transform = f' transform="rotate({rotate} {x} {y})"' if rotate is not None else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}"{transform}>{s}</text>'


def stacked_bars(title, bars, kernels, unit):
    """bars: [(label, [value per kernel])]; one colour per kernel."""
    width, height, left, top, bottom = 120 + 110 * len(bars) + 170, 420, 60, 40, 60
    plot_h = height - top - bottom
    peak = max(sum(v) for _, v in bars) or 1
    body = [text(width / 2, 20, title, "middle", 13)]
    for t in range(5):
        value = peak * t / 4
        y = top + plot_h - plot_h * t / 4
        body.append(f'<line x1="{left}" x2="{left + 110 * len(bars)}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        body.append(text(left - 5, y + 4, f"{value:.0f}", "end"))
    body.append(text(15, top + plot_h / 2, unit, "middle", 11, -90))
    for b, (label, values) in enumerate(bars):
        x, y = left + 20 + 110 * b, top + plot_h
        for k, v in enumerate(values):
            h = plot_h * v / peak
            y -= h
            body.append(f'<rect x="{x}" y="{y:.1f}" width="70" height="{h:.1f}" fill="{colour(k, len(kernels))}" '
                        f'stroke="white" stroke-width="0.5"><title>{kernels[k]}: {v:.3f}</title></rect>')
        body.append(text(x + 35, y - 4, f"{sum(values):.1f}", "middle"))
        body.append(text(x + 35, top + plot_h + 15, label, "middle"))
    lx = left + 110 * len(bars) + 20
    step = min(14, (height - top - 10) / max(len(kernels), 1))
    for k, name in enumerate(kernels):
        if len(kernels) > 30 and k % 3:
            continue  # long networks: every third label
        y = top + step * k
        body.append(f'<rect x="{lx}" y="{y:.1f}" width="10" height="{max(step - 2, 2):.1f}" '
                    f'fill="{colour(k, len(kernels))}"/>')
        body.append(text(lx + 14, y + step - 3, name, size=9))
    return svg(width, height, body)


def pareto_plot(data):
    """One kernel's front (time against workspace) with its micro-batch divisions labelled, and
    every single algorithm on the whole batch as grey dots."""
    width, height, left, top, bottom, right = 760, 460, 70, 40, 50, 20
    front, singles = data["front"], data["undivided"]
    points = [(p["workspace_bytes"] / MIB, p["time_ms"]) for p in front]
    points += [(u["workspace_bytes"] / MIB, u["time_ms"]) for u in singles]
    # Workspace on a log scale (log2(1 + MiB)): the front spans bytes to gigabytes.
    scale = lambda mib: math.log2(1 + mib)
    max_x = scale(max(x for x, _ in points)) * 1.05 or 1
    max_y = max(y for _, y in points) * 1.1 or 1
    px = lambda mib: left + (width - left - right) * scale(mib) / max_x
    py = lambda y: top + (height - top - bottom) * (1 - y / max_y)
    body = [text(width / 2, 20, f'{data["layer"]} {data["op"]}, batch {data["batch"]}: desirable configurations '
                 f'({data["policy"]})', "middle", 13)]
    for t in range(5):
        y = max_y * t / 4
        body.append(f'<line x1="{left}" x2="{width - right}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#ddd"/>')
        body.append(text(left - 5, py(y) + 4, f"{y:.1f}", "end"))
    for mib in (0, 1, 4, 16, 64, 256, 1024, 4096):
        if scale(mib) <= max_x:
            body.append(text(px(mib), height - bottom + 15, f"{mib}", "middle"))
    body.append(text(width / 2, height - 12, "workspace (MiB)", "middle"))
    body.append(text(18, top + (height - top - bottom) / 2, "time (ms)", "middle", 11, -90))
    for u in singles:
        body.append(f'<circle cx="{px(u["workspace_bytes"] / MIB):.1f}" cy="{py(u["time_ms"]):.1f}" r="3" fill="#bbb">'
                    f'<title>{u["algo_name"]} on the whole batch: {u["time_ms"]:.3f} ms</title></circle>')
    path = ""
    for i, p in enumerate(front):  # a step line: each configuration holds until the next is affordable
        x, y = px(p["workspace_bytes"] / MIB), py(p["time_ms"])
        path += f"M{x:.1f},{y:.1f}" if i == 0 else f" H{x:.1f} V{y:.1f}"
    path += f" H{width - right:.1f}"
    body.append(f'<path d="{path}" fill="none" stroke="hsl(210,60%,45%)" stroke-width="1.5"/>')
    for i, p in enumerate(front):
        x, y = px(p["workspace_bytes"] / MIB), py(p["time_ms"])
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="hsl(210,60%,45%)"/>')
        body.append(text(x + 6, y - 6 - 11 * (i % 3), p["description"], size=9))
    body.append(text(width - right, top + 12, "blue: the front (ucudnn's choices); grey: one algorithm, whole batch",
                     "end", 10))
    return svg(width, height, body)


def main(directory):
    runs = defaultdict(dict)  # (net, limit) -> config -> json
    fronts = 0
    for path in glob.glob(os.path.join(directory, "*.json")):
        with open(path) as f:
            data = json.load(f)
        if data.get("mode") == "pareto":
            with open(path[:-len(".json")] + ".svg", "w") as f:
                f.write(pareto_plot(data))
            fronts += 1
            continue
        net = data.get("network", "?")
        limit = data["workspace_limit_bytes"] // MIB
        config = "wd" if data.get("total_workspace_bytes") else data["policy"]
        runs[(net, limit)][config] = data
    if not runs:
        if fronts:
            return
        sys.exit(f"plot.py: no benchmark JSON files in {directory}")

    rows = ["| network | precision | limit per kernel | configuration | cuDNN ms | ucudnn ms | speedup | predicted ms | "
            "prediction error | benchmarking s | solving s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (net, limit), configs in sorted(runs.items()):
        any_run = next(iter(configs.values()))
        kernels = [f'{k["layer"]} {k["op"]}' for k in any_run["kernels"]]
        bars = [("cuDNN", [k["cudnn_time_ms"] for k in any_run["kernels"]])]
        for config in CONFIGS:
            if config in configs:
                data = configs[config]
                bars.append((config, [k["ucudnn_time_ms"] for k in data["kernels"]]))
                error = (data["ucudnn_predicted_ms"] - data["ucudnn_sequence_ms"]) / data["ucudnn_sequence_ms"]
                precision = f'{data.get("data_type", "float")} {data.get("layout", "NCHW")}'
                rows.append(f'| {net} | {precision} | {limit} MiB | {config} | {data["cudnn_sequence_ms"]:.2f} | '
                            f'{data["ucudnn_sequence_ms"]:.2f} | '
                            f'{data["cudnn_sequence_ms"] / data["ucudnn_sequence_ms"]:.2f}x | '
                            f'{data["ucudnn_predicted_ms"]:.2f} | {100 * error:+.1f}% | '
                            f'{data.get("ucudnn_benchmark_seconds", data["ucudnn_planning_seconds"]):.2f} | '
                            f'{data.get("ucudnn_solve_seconds", 0):.3f} |')
        title = f"{net}: time per kernel, {limit} MiB per kernel (WD: the same total), {any_run['gpu']}"
        with open(os.path.join(directory, f"{net}-{limit}MiB-time.svg"), "w") as f:
            f.write(stacked_bars(title, bars, kernels, "ms (sum of kernel medians)"))

    for net in sorted({n for n, _ in runs}):
        wd = [(limit, c["wd"]) for (n, limit), c in sorted(runs.items()) if n == net and "wd" in c]
        if wd:
            kernels = [f'{k["layer"]} {k["op"]}' for k in wd[0][1]["kernels"]]
            bars = [(f'{d["total_workspace_bytes"] // MIB} MiB', [k["ucudnn_workspace_bytes"] / MIB for k in d["kernels"]])
                    for _, d in wd]
            with open(os.path.join(directory, f"{net}-wd-division.svg"), "w") as f:
                f.write(stacked_bars(f"{net}: workspace division among kernels (WD)", bars, kernels, "MiB"))
        limits = sorted(limit for n, limit in runs if n == net)
        big = runs[(net, limits[-1])].get("undivided")
        small = runs.get((net, 64), {}).get("powerOfTwo")
        if big and small:
            kernels = [f'{k["layer"]} {k["op"]}' for k in big["kernels"]]
            bars = [(f"cuDNN {limits[-1]} MiB", [k["cudnn_workspace_bytes"] / MIB for k in big["kernels"]]),
                    ("ucudnn 64 MiB", [k["ucudnn_workspace_bytes"] / MIB for k in small["kernels"]])]
            with open(os.path.join(directory, f"{net}-memory.svg"), "w") as f:
                f.write(stacked_bars(f"{net}: workspace per kernel", bars, kernels, "MiB"))
    with open(os.path.join(directory, "summary.md"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 bench/plot.py RESULTS_DIR")
    main(sys.argv[1])
