#!/usr/bin/env python3
"""The table and the picture of examples/darknet/gpu.sh run, from its logs (no dependencies).

    summarize.py RESULTS_DIR

Reads RESULTS_DIR/train/MODEL/BUDGET-VARIANT-rN.log (+ .mem, peak MiB; VARIANT plain, ucudnn or
ucudnn-LIMIT), infer/MODEL/VARIANT-rN.log and loss/MODEL-VARIANT.log; writes darknet-summary.md, darknet-summary.json and darknet-slope.svg.
Training speed is the median of the per-iteration times Darknet prints (the GPU step, not the
loading of images, which runs beside it), iterations after the fifth; where those times are zero it
is n/a. A round's log whose name does not parse is skipped, with a note on stderr.
"""
import glob
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

ITERATION = re.compile(r"^\s*(\d+): ([-0-9.naif]+), ([-0-9.naif]+) avg loss, [0-9.e+-]+ rate, ([0-9.]+) seconds, (\d+) images")
PREDICTED = re.compile(r"Predicted in ([0-9.]+) milli-seconds")
LOG_NAME = re.compile(r"^(none|[0-9.]+[MG]iB)-(plain|ucudnn(?:-[0-9.]+[KMG]iB)?)-r(\d+)\.log$")
ROUND = re.compile(r"^(.+)-r\d+\.log$")  # a round's log, in train/ and infer/
WARM_UP = 5


def number(text):
    """TEXT as a float, or None: the patterns above match "1.2.3" and "." too."""
    try:
        return float(text)
    except ValueError:
        return None


def mib(budget):
    """Free memory a budget leaves, in MiB; None for plenty."""
    if budget == "none":
        return None
    match = re.fullmatch(r"([0-9.]+)(MiB|GiB)", budget)
    return float(match.group(1)) * (1024 if match.group(2) == "GiB" else 1)


def budget_parses(budget):
    if budget == "none":
        return True
    value = number(budget[:-3])
    return value is not None and math.isfinite(value)


def skip(path, why):
    print(f"summarize.py: skipping {path}: {why}", file=sys.stderr)


def logs(pattern):
    """The files that PATTERN names (a folder named *.log is not a log)."""
    return [path for path in glob.glob(pattern) if os.path.isfile(path)]


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def train_run(path):
    text = read(path)
    steps = [m.groups() for m in map(ITERATION.match, text.splitlines()) if m]
    run = {"slow_algo_layers": text.count("used slow CUDNN algo without Workspace")}
    try:
        run["peak_mib"] = float(read(path + ".mem").strip())
    except (OSError, ValueError):
        pass
    timed_steps = [s for s in steps if int(s[0]) > WARM_UP and number(s[3]) is not None]
    timed = [number(s[3]) for s in timed_steps]
    if timed:
        images = int(timed_steps[-1][4]) // int(timed_steps[-1][0])
        run.update(images_per_iteration=images, seconds=statistics.median(timed), iterations=len(timed))
        # Zero seconds (a clock too coarse, or a log edited by hand) give no speed: n/a, not a failure.
        if run["seconds"] > 0:
            run["images_per_second"] = images / run["seconds"]
    else:
        failure = next((line.strip() for line in text.splitlines() if re.search(r"error|out of memory", line, re.I)),
                       "no iteration finished")
        run["failed"] = failure[:160]
    workspace = re.findall(r"Allocate additional workspace_size = ([0-9.]+) MB", text)
    if workspace and number(workspace[-1]) is not None:
        run["workspace_mib"] = number(workspace[-1]) * 1e6 / 2**20
    return run


def median_of(runs, key):
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else None


def training(root):
    table = {}
    for model_dir in sorted(glob.glob(os.path.join(root, "train", "*"))):
        per = defaultdict(lambda: defaultdict(list))
        for path in logs(os.path.join(model_dir, "*.log")):
            name = os.path.basename(path)
            match = LOG_NAME.match(name)
            if match and budget_parses(match.group(1)):
                per[match.group(1)][match.group(2)].append(train_run(path))
            elif ROUND.match(name):
                # gpu.sh's other logs here (first-VARIANT.log, plenty-plain.log) are no rounds: left quietly.
                skip(path, "not BUDGET-VARIANT-rN.log (BUDGET none or like 512MiB, "
                     "VARIANT plain, ucudnn or ucudnn-LIMIT)")
        rows = []
        for budget in sorted(per, key=lambda b: -(mib(b) or float("inf"))):
            row = {"budget": budget, "budget_mib": mib(budget)}
            for variant, runs in per[budget].items():
                row[variant] = {"images_per_second": median_of(runs, "images_per_second"),
                                "peak_mib": median_of(runs, "peak_mib"),
                                "workspace_mib": median_of(runs, "workspace_mib"),
                                "slow_algo_layers": max(r["slow_algo_layers"] for r in runs),
                                "runs": len(runs), "failed": [r["failed"] for r in runs if "failed" in r]}
            rows.append(row)
        table[os.path.basename(model_dir)] = rows
    return table


def inference(root):
    out = {}
    for path in sorted(logs(os.path.join(root, "infer", "*", "*.log"))):
        model, name = path.split(os.sep)[-2:]
        match = ROUND.match(name)
        if not match:
            skip(path, "not VARIANT-rN.log")
            continue
        variant = match.group(1)
        times = [t for t in map(number, PREDICTED.findall(read(path))) if t is not None]
        times = times[10:]  # the first images warm up
        if times:
            median = statistics.median(times)
            out.setdefault(model, {}).setdefault(variant, []).append(1000 / median if median > 0 else None)
    # None where every run's times were zero: n/a in the table.
    return {m: {v: median_of_known(s) for v, s in vs.items()} for m, vs in out.items()}


def median_of_known(values):
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def losses(root):
    out = {}
    for path in sorted(logs(os.path.join(root, "loss", "*.log"))):
        steps = [m.groups() for m in map(ITERATION.match, read(path).splitlines()) if m]
        if steps:
            name = os.path.basename(path)[:-4]
            out[name] = {"iterations": int(steps[-1][0]), "avg_loss": number(steps[-1][2]),
                         "loss_at": {s[0]: number(s[2]) for s in steps if int(s[0]) % 100 == 0}}
    return out


def cell(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def speed_cell(row, variant, speed):
    """A variant's speed at a budget: failed where it did not run, n/a where its times were zero."""
    if speed:
        return cell(speed)
    return "n/a" if zero_times(row, variant) else "failed"


def zero_times(row, variant):
    """Whether VARIANT ran at this budget, none failing, and yet has no speed: its times were zero."""
    return variant in row and row[variant]["images_per_second"] is None and not row[variant]["failed"]


def variant_order(variants):
    return sorted(variants, key=lambda v: (v != "plain", v))


def markdown(train, infer, loss, gpu):
    lines = [f"GPU: {gpu}", ""]
    for model, rows in train.items():
        variants = variant_order({v for row in rows for v in row if v not in ("budget", "budget_mib")})
        others = [v for v in variants if v != "plain"]
        lines += [f"### {model}: training, images per second (median of rounds), by the memory left free", "",
                  "| free for Darknet | " + " | ".join(variants) + " | "
                  + " | ".join(f"{v} / plain" for v in others) + " | peak MiB (" + ", ".join(variants)
                  + ") | workspace MiB (" + ", ".join(variants) + ") |",
                  "|---" * (1 + len(variants) + len(others) + 2) + "|"]
        for row in rows:
            speed = {v: row.get(v, {}).get("images_per_second") for v in variants}
            ratios = [f"{speed[v] / speed['plain']:.2f}" if speed[v] and speed.get("plain")
                      else "n/a" if zero_times(row, v) or (speed[v] and zero_times(row, "plain"))
                      else ("plain failed" if speed[v] else "-") for v in others]
            budget = "plenty" if row["budget"] == "none" else row["budget"]
            peaks = ", ".join(cell(row.get(v, {}).get("peak_mib"), 0) for v in variants)
            spaces = ", ".join(cell(row.get(v, {}).get("workspace_mib")) for v in variants)
            lines.append(f"| {budget} | " + " | ".join(speed_cell(row, v, speed[v]) for v in variants)
                         + " | " + " | ".join(ratios) + f" | {peaks} | {spaces} |")
        lines.append("")
    if infer:
        variants = variant_order({v for vs in infer.values() for v in vs})
        lines += ["### Inference (`detector test`, batch 1, FP16), images per second", "",
                  "| model | " + " | ".join(variants) + " |", "|---" * (1 + len(variants)) + "|"]
        for model, v in infer.items():
            lines.append(f"| {model} | " + " | ".join(
                ("n/a" if name in v and v[name] is None else cell(v.get(name)))
                + (f" ({v[name] / v['plain']:.2f}x)" if name != "plain" and v.get(name)
                   and v.get("plain") else "") for name in variants) + " |")
        lines.append("")
    if loss:
        lines += ["### Training loss, same seed (DARKNET_SEED=1)", "",
                  "| run | iterations | avg loss at 100 | at 200 | at the end |", "|---|---|---|---|---|"]
        for name, v in loss.items():
            lines.append(f"| {name} | {v['iterations']} | {cell(v['loss_at'].get('100'), 3)} "
                         f"| {cell(v['loss_at'].get('200'), 3)} | {cell(v['avg_loss'], 3)} |")
        lines.append("")
    return "\n".join(lines)


def svg(train):
    """Images per second against the memory left free, one line per model and variant (plain solid)."""
    width, height, left, right, top, bottom = 720, 420, 70, 170, 30, 60
    variants = variant_order({v for rows in train.values() for r in rows for v in r
                              if v not in ("budget", "budget_mib")})
    points = [(r["budget_mib"], r[v]["images_per_second"]) for rows in train.values() for r in rows
              for v in variants if r.get(v, {}).get("images_per_second") and r["budget_mib"]]
    if not points:
        return None
    low, high = min(p[0] for p in points), max(p[0] for p in points)
    plenty = high + (high - low) * 0.12 + 1  # "plenty" at the right edge
    top_speed = max(p[1] for p in points)

    def x(m):
        return left + (width - left - right) * ((plenty if m is None else m) - low) / max(plenty - low, 1)

    def y(s):
        return height - bottom - (height - top - bottom) * s / (top_speed * 1.1)

    body = [f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
            f'<text x="{(width - right + left) / 2}" y="{height - 20}" text-anchor="middle">GPU memory left free '
            f'for Darknet (MiB; right: plenty)</text>',
            f'<text x="18" y="{(height) / 2}" text-anchor="middle" transform="rotate(-90 18 {height / 2})">'
            f'training images per second</text>']
    for tick in range(0, 6):
        s = top_speed * 1.1 * tick / 5
        body.append(f'<text x="{left - 6}" y="{y(s) + 4:.1f}" text-anchor="end">{s:.0f}</text>')
    for m in sorted({p[0] for p in points}):
        body.append(f'<text x="{x(m):.1f}" y="{height - bottom + 14}" text-anchor="middle" font-size="9">{m:.0f}</text>')
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for i, (model, rows) in enumerate(train.items()):
        for k, variant in enumerate(variants):
            dash = ["", ' stroke-dasharray="6,4"', ' stroke-dasharray="2,3"', ' stroke-dasharray="8,2,2,2"'][k % 4]
            line = [(x(r["budget_mib"]), y(r[variant]["images_per_second"])) for r in rows
                    if r.get(variant, {}).get("images_per_second")]
            failed = [x(r["budget_mib"]) for r in rows if variant in r and not r[variant].get("images_per_second")
                      and not zero_times(r, variant)]
            if line:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in sorted(line))
                body.append(f'<polyline points="{path}" fill="none" stroke="{colours[i % 4]}" stroke-width="2"{dash}/>')
            for fx in failed:
                body.append(f'<text x="{fx:.1f}" y="{height - bottom - 6}" text-anchor="middle" '
                            f'fill="{colours[i % 4]}">x</text>')
            label_y = top + 16 * (len(variants) * i + k)
            body.append(f'<line x1="{width - right + 10}" y1="{label_y}" x2="{width - right + 35}" y2="{label_y}" '
                        f'stroke="{colours[i % 4]}" stroke-width="2"{dash}/>')
            body.append(f'<text x="{width - right + 40}" y="{label_y + 4}">{model} {variant}</text>')
    body.append(f'<text x="{width - right + 10}" y="{top + 16 * (len(variants) * len(train) + 1)}">'
                f'x: failed to start</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
            f'font-size="11">\n<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def main():
    if len(sys.argv) != 2:
        print("usage: summarize.py RESULTS_DIR (the folder gpu.sh run wrote)", file=sys.stderr)
        sys.exit(2)
    if not os.path.isdir(sys.argv[1]):
        print(f"summarize.py: error: RESULTS_DIR {sys.argv[1]!r} is not a folder", file=sys.stderr)
        sys.exit(2)
    try:
        summarize(sys.argv[1])
    except OSError as e:  # a log it cannot read, a folder it cannot write
        sys.exit(f"summarize.py: {e}")


def summarize(root):
    try:
        gpu = read(os.path.join(root, "gpu.txt")).splitlines()[1]
    except (OSError, IndexError):
        gpu = "unknown"
    train, infer, loss = training(root), inference(root), losses(root)
    with open(os.path.join(root, "darknet-summary.md"), "w") as f:
        f.write(markdown(train, infer, loss, gpu))
    with open(os.path.join(root, "darknet-summary.json"), "w") as f:
        json.dump({"gpu": gpu, "training": train, "inference": infer, "loss": loss}, f, indent=1)
    picture = svg(train)
    if picture:
        with open(os.path.join(root, "darknet-slope.svg"), "w") as f:
            f.write(picture)
    print(markdown(train, infer, loss, gpu))


if __name__ == "__main__":
    main()
