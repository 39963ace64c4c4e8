#!/usr/bin/env python3
"""Summarises `bash bench/gpu.sh search` runs: how long ucudnn's search took (fast, exhaustive)
against cuDNN's Find in the same process, per network x precision x policy x limit.

  python3 bench/summarize_search.py DIR [--markdown FILE] [--svg FILE]

Reads DIR/<net>-<type>-<layout>-<policy>-<limit>-<mode>.json (the conv benchmark's --json). Writes
a markdown table (planning time, ratio to Find, where the search's time went, the plan's speed
against plain cuDNN) and an SVG of the ratios to Find, one bar per run, log scale.
"""
import argparse
import glob
import json
import math
import os

PHASES = ("setup", "heuristics", "find", "plan_build", "timing", "database")


def read_runs(directory):
    runs = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        name = os.path.basename(path)[:-5]
        parts = name.split("-")
        if len(parts) != 6 or parts[5] not in ("fast", "exhaustive"):
            continue  # not a search run
        with open(path) as f:
            data = json.load(f)
        search = data.get("ucudnn_search")
        if not search:
            continue
        runs.append({"net": parts[0], "precision": f"{parts[1]} {parts[2]}", "policy": parts[3], "limit": parts[4],
                     "mode": parts[5], "find_s": data["cudnn_find_seconds"], "search": search,
                     "speedup": next(iter(data["sequence_ratios"].values()))})
    return runs


def table(runs):
    lines = ["| network | precision | policy | limit | search | cuDNN Find | ucudnn | ratio | setup | heuristics "
             "| Find (legacy) | plan builds | timing | timed / cut short / not timed | sizes measured / skipped "
             "| vs plain legacy |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        s = r["search"]
        ratio = s["planning_seconds"] / r["find_s"]
        mark = "" if ratio <= 2 else " (miss)"
        lines.append(
            f'| {r["net"]} | {r["precision"]} | {r["policy"]} | {r["limit"]} | {r["mode"]} | {r["find_s"]:.2f} s '
            f'| {s["planning_seconds"]:.2f} s | {ratio:.1f}x{mark} | '
            + " | ".join(f'{s[p + "_seconds"]:.2f}' for p in PHASES[:5])
            + f' | {s["timed_in_full"]} / {s["cut_short"]} / {s["not_timed"]} | {s["sizes_measured"]} / '
              f'{s["sizes_skipped"]} | {r["speedup"]:.2f}x |')
    return "\n".join(lines) + "\n"


def svg(runs):
    row, left, width = 18, 300, 760
    plot_w = width - left - 40
    height = 70 + row * len(runs) + 40
    lo, hi = 0.5, 64.0

    def px(v):
        return left + plot_w * (math.log(max(v, lo)) - math.log(lo)) / (math.log(hi) - math.log(lo))

    def text(x, y, s, anchor="start", size=11, fill="black"):
        return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" fill="{fill}">{s}</text>'

    body = [text(width / 2, 22, "Time to find a plan, as a multiple of cuDNN's Find in the same run (H100)", "middle", 13),
            text(width / 2, 40, "log scale; the dashed line is the target (2x)", "middle", 10, "#555")]
    top = 55
    for t in (0.5, 1, 2, 4, 8, 16, 32, 64):
        x = px(t)
        dash = ' stroke-dasharray="4 3"' if t == 2 else ""
        colour = "#c00" if t == 2 else "#ddd"
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + row * len(runs)}" stroke="{colour}"{dash}/>')
        body.append(text(x, top + row * len(runs) + 14, f"{t:g}x", "middle", 10))
    for i, r in enumerate(runs):
        y = top + i * row
        ratio = r["search"]["planning_seconds"] / r["find_s"]
        colour = "#2a7" if r["mode"] == "fast" else "#888"
        label = f'{r["net"]} {r["precision"]} {r["policy"]} {r["limit"]} {r["mode"]}'
        body.append(text(left - 6, y + 12, label, "end", 10))
        body.append(f'<rect x="{px(lo):.1f}" y="{y + 3}" width="{px(ratio) - px(lo):.1f}" height="{row - 6}" '
                    f'fill="{colour}"/>')
        body.append(text(px(ratio) + 4, y + 12, f"{ratio:.1f}x", size=9))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">\n'
            + "\n".join(body) + "\n</svg>\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--markdown")
    parser.add_argument("--svg")
    args = parser.parse_args()
    runs = read_runs(args.directory)
    if not runs:
        raise SystemExit(f"summarize_search.py: no search runs (NET-TYPE-LAYOUT-POLICY-LIMIT-MODE.json) in {args.directory}")
    order = {"fast": 0, "exhaustive": 1}
    runs.sort(key=lambda r: (r["net"], r["precision"], r["policy"], r["limit"], order[r["mode"]]))
    text = table(runs)
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(svg(runs))


if __name__ == "__main__":
    main()
