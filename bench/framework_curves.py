#!/usr/bin/env python3
"""Step time against memory budget: a framework plain and through `ucudnn run`, side by side.

    python3 bench/framework_curves.py --framework pytorch|jax --model M --ucudnn pack/bin/ucudnn \\
        [--budgets auto|none,6GiB,...] [--rounds 3] [--deadline S] --out DIR

Each budget is the memory the framework may take, given alike to both sides: PyTorch through
torch.cuda.set_per_process_memory_fraction(budget / the GPU's memory), JAX through
XLA_PYTHON_CLIENT_MEM_FRACTION; "none" is the framework unconstrained. Through ucudnn, PyTorch's
process also gets UCUDNN_MEMORY_BUDGET = that budget plus what the device held before PyTorch
allocated anything (its CUDA context), as a user states the same budget to ucudnn; JAX's gets
ucudnn's default (the device's free memory), since JAX takes its whole budget up front and a
budget ucudnn compared with the memory in use would leave nothing.

--budgets auto: first the unconstrained plain process (it also serves as round 1's plain point),
then from its peak P (the most allocated in its timed steps) down: 1.5 P, then 15% less a step,
plain alone, until plain runs out of memory (that budget included) or six budgets. For every budget
and round, plain and ucudnn each run in a fresh process, interleaved (round 1 of every budget and
side, then round 2, ...), so that a slow spell touches both; a budget where both sides ran out of
memory in round 1 is not run again. Through ucudnn the processes share one benchmark database, empty
before round 1: round 1's first step is the cold one, later rounds find their measurements.

Writes DIR/MODEL.json (every process) and DIR/MODEL.md (a table: per budget and side, the median
step over the processes with their range, peak memory, first step; ucudnn's ratio over plain), and
DIR/MODEL.svg (the curves), after every process: a run cut short at --deadline keeps what finished.
--merge A.json B.json ... joins parts of one model's curves run apart (other budgets on another GPU).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
from torch_cudnn import bundled_cudnn_path  # noqa: E402

GiB = 1 << 30
SCRIPTS = {"pytorch": os.path.join(HERE, "pytorch_preload_bench.py"), "jax": os.path.join(HERE, "jax_resnet_bench.py")}
SIDES = ("plain", "ucudnn")


def parse_size(text):
    units = {"GiB": GiB, "MiB": 1 << 20}
    for unit, scale in units.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * scale)
    raise SystemExit(f"framework_curves.py: error: a budget is none or a size in GiB or MiB (got {text!r})")


def total_memory():
    """The GPU's memory in bytes, as PyTorch reads it (the fraction's denominator)."""
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.get_device_properties(0).total_memory)"],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def one_process(args, side, budget, total, database):
    """One fresh process: its JSON result, or {"out_of_memory": True}, or {"failed": why}."""
    command = [sys.executable, SCRIPTS[args.framework], "--model", args.model, "--warmup", str(args.warmup),
               "--iterations", str(args.iterations)]
    if args.framework == "pytorch":
        command[2:2] = ["--worker"]
    env = dict(os.environ)
    for variable in ("LD_PRELOAD", "UCUDNN_FORCE_WORKSPACE_LIMIT", "UCUDNN_MEMORY_BUDGET", "UCUDNN_DATABASE"):
        env.pop(variable, None)
    if budget is not None:
        command += ["--memory-fraction", f"{budget / total:.6f}"]
        if side == "ucudnn" and args.framework == "pytorch":
            command.append("--budget-from-fraction")
    if side == "ucudnn":
        env["LD_LIBRARY_PATH"] = bundled_cudnn_path(env.get("LD_LIBRARY_PATH"))
        command = [args.ucudnn, "run", "--database", database] + args.run_args.split() + ["--"] + command
    began = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        text = done.stderr + done.stdout
        if "out of memory" in text.lower() or "RESOURCE_EXHAUSTED" in text:
            return {"out_of_memory": True, "wall_seconds": wall, "error_tail": text.strip()[-400:]}
        return {"failed": text.strip()[-800:], "wall_seconds": wall}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_seconds"] = wall
    result["statistics"] = [line for line in done.stderr.splitlines() if line.startswith("ucudnn:")]
    return result


def label(budget):
    return "none" if budget is None else f"{budget / GiB:.2f} GiB"


def summarise(runs, budgets):
    """Per budget and side: median step over processes, range, peak, first steps, failures."""
    rows = []
    for budget in budgets:
        row = {"budget": budget}
        for side in SIDES:
            done = [r for r in runs if r["budget"] == budget and r["side"] == side]
            ok = [r["result"] for r in done if "median_ms" in r["result"]]
            entry = {"processes": len(done), "out_of_memory": sum(1 for r in done if r["result"].get("out_of_memory")),
                     "failed": sum(1 for r in done if "failed" in r["result"])}
            if ok:
                medians = [r["median_ms"] for r in ok]
                peaks = [r.get("peak_allocated_bytes") or 0 for r in ok]
                entry.update(median_ms=statistics.median(medians), low_ms=min(medians), high_ms=max(medians),
                             peak_bytes=statistics.median(peaks),
                             first_step_seconds=[r.get("first_step_seconds") for r in ok])
            row[side] = entry
        if "median_ms" in row["plain"] and "median_ms" in row["ucudnn"]:
            row["ratio"] = row["plain"]["median_ms"] / row["ucudnn"]["median_ms"]
        rows.append(row)
    return rows


def markdown(args, rows, gpu):
    lines = [f"# {args.framework} {args.model}: step time against memory budget", "",
             f"{gpu}; medians of {args.iterations} steps per process, then the median over up to {args.rounds} "
             "fresh processes per point, plain and ucudnn interleaved (range in brackets). Peak: the most the "
             "framework held in its tensors and workspaces during the timed steps (PyTorch's max_memory_allocated, "
             "JAX's peak_bytes_in_use). First step: round 1 (cold: ucudnn's "
             "database empty) / later rounds. Ratio: plain's step over ucudnn's (above 1: ucudnn faster).", "",
             "| budget | plain ms | ucudnn ms | ratio | plain peak GiB | ucudnn peak GiB | plain first step s | "
             "ucudnn first step s |", "|---|---|---|---|---|---|---|---|"]

    def cell(entry, key):
        if "median_ms" not in entry:
            if entry["out_of_memory"]:
                return "out of memory" if key == "ms" else ""
            return "failed" if entry["failed"] and key == "ms" else ""
        if key == "ms":
            return f'{entry["median_ms"]:.2f} ({entry["low_ms"]:.2f}-{entry["high_ms"]:.2f})'
        if key == "peak":
            return f'{entry["peak_bytes"] / GiB:.2f}'
        return " / ".join(f"{v:.1f}" for v in entry["first_step_seconds"] if v is not None)

    for row in rows:
        ratio = f'{row["ratio"]:.3f}x' if "ratio" in row else ""
        lines.append(f'| {label(row["budget"])} | {cell(row["plain"], "ms")} | {cell(row["ucudnn"], "ms")} | {ratio} | '
                     f'{cell(row["plain"], "peak")} | {cell(row["ucudnn"], "peak")} | {cell(row["plain"], "first")} | '
                     f'{cell(row["ucudnn"], "first")} |')
    return "\n".join(lines) + "\n"


def svg(args, rows):
    """Step time (y) against budget (x, GiB); unconstrained drawn at the right edge; x marks: out of memory."""
    width, height, left, bottom, top, right = 640, 380, 70, 50, 40, 30
    sized = [r["budget"] for r in rows if r["budget"] is not None]
    if not sized:
        return ""
    xmax = max(sized) * 1.15 / GiB
    times = [r[s]["median_ms"] for r in rows for s in SIDES if "median_ms" in r[s]]
    ymax = max(times) * 1.1 if times else 1.0

    def x(budget):
        value = xmax if budget is None else budget / GiB
        return left + (width - left - right) * value / xmax

    def y(ms):
        return height - bottom - (height - bottom - top) * ms / ymax

    colours = {"plain": "#555", "ucudnn": "#c33"}
    body = [f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{args.framework} {args.model}: '
            'step time against memory budget</text>',
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
            f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle" font-size="12">budget (GiB; '
            'rightmost: unconstrained)</text>',
            f'<text x="15" y="{height / 2}" transform="rotate(-90 15 {height / 2})" text-anchor="middle" '
            'font-size="12">step (ms)</text>']
    for i in range(5):
        ms = ymax * i / 4
        body.append(f'<text x="{left - 5}" y="{y(ms) + 4:.1f}" text-anchor="end" font-size="10">{ms:.0f}</text>')
    for r in rows:
        tick = "none" if r["budget"] is None else f'{r["budget"] / GiB:.1f}'
        body.append(f'<text x="{x(r["budget"]):.1f}" y="{height - bottom + 14}" text-anchor="middle" '
                    f'font-size="10">{tick}</text>')
    for n, side in enumerate(SIDES):
        points = sorted((x(r["budget"]), y(r[side]["median_ms"])) for r in rows if "median_ms" in r[side])
        if points:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            body.append(f'<polyline points="{path}" fill="none" stroke="{colours[side]}" stroke-width="2"/>')
            body += [f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colours[side]}"/>' for px, py in points]
        for r in rows:
            if "median_ms" not in r[side] and r[side]["out_of_memory"]:
                body.append(f'<text x="{x(r["budget"]):.1f}" y="{height - bottom - 8 - 12 * n}" text-anchor="middle" '
                            f'fill="{colours[side]}" font-size="12">x</text>')
        body.append(f'<text x="{width - right - 120}" y="{top + 16 * n}" fill="{colours[side]}" font-size="12">'
                    f'{side}{" (x: out of memory)" if n == 1 else ""}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">'
            + "".join(body) + "</svg>\n")


def write(args, runs, budgets, gpu):
    rows = summarise(runs, budgets)
    base = os.path.join(args.out, f"{args.framework}-{args.model}")
    with open(base + ".json", "w") as f:
        json.dump({"framework": args.framework, "model": args.model, "gpu": gpu, "rows": rows, "runs": runs}, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write(markdown(args, rows, gpu))
    with open(base + ".svg", "w") as f:
        f.write(svg(args, rows))


def merge(args):
    """One model's parts, each measured within one GPU, as one table (budgets from none down)."""
    parts = []
    for path in args.merge:
        try:
            with open(path) as f:
                parts.append(json.load(f))
        except (OSError, ValueError) as error:
            raise SystemExit(f"framework_curves.py: error: --merge {path}: {error}")
    names = {(p["framework"], p["model"]) for p in parts}
    if len(names) != 1:
        raise SystemExit(f"framework_curves.py: error: --merge joins one model's parts, got {sorted(names)}")
    args.framework, args.model = names.pop()
    runs = [run for part in parts for run in part["runs"]]
    budgets = sorted({run["budget"] for run in runs}, key=lambda b: (0, 0) if b is None else (1, -b))
    # Parts may repeat a point (more rounds of it elsewhere): the table's "up to N processes".
    per_point = {}
    for run in runs:
        per_point[(run["budget"], run["side"])] = per_point.get((run["budget"], run["side"]), 0) + 1
    args.rounds = max(per_point.values())
    os.makedirs(args.out, exist_ok=True)
    write(args, runs, budgets, " + ".join(sorted({p["gpu"] for p in parts if p["gpu"]})) + f" ({len(parts)} parts)")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", choices=("pytorch", "jax"))
    parser.add_argument("--model", help="a model of the framework's bench script")
    parser.add_argument("--ucudnn", help="the ucudnn command (pack/bin/ucudnn)")
    parser.add_argument("--run-args", default="", help="more options for `ucudnn run`, before `--`")
    parser.add_argument("--budgets", default="auto", help="auto, or none and sizes: none,6GiB,3GiB,...")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=15)
    parser.add_argument("--deadline", type=float, default=0, help="start no process after this many seconds (0: none)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds one process may take")
    parser.add_argument("--out", required=True)
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="join parts of one model's curves (their MODEL.json, e.g. budgets run on two GPUs) "
                             "into one table and picture in --out; nothing is run")
    args = parser.parse_args()
    if args.merge:
        return merge(args)
    for name in ("framework", "model", "ucudnn"):
        if getattr(args, name) is None:
            raise SystemExit(f"framework_curves.py: error: --{name} is required (or --merge)")
    if not os.path.isfile(args.ucudnn):
        raise SystemExit(f"framework_curves.py: error: --ucudnn {args.ucudnn!r} is not a file")
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    total = total_memory()
    database = os.path.join(tempfile.mkdtemp(), "curves.db")
    runs, gpu = [], ""

    def run(side, budget, round_number):
        nonlocal gpu
        result = one_process(args, side, budget, total, database)
        gpu = gpu or result.get("gpu", "")
        runs.append({"side": side, "budget": budget, "round": round_number, "result": result})
        print(f"{args.model} round {round_number} {label(budget)} {side}: "
              + (f'{result["median_ms"]:.2f} ms' if "median_ms" in result else
                 "out of memory" if result.get("out_of_memory") else "failed: " + result.get("failed", "")[-300:]),
              flush=True)

    if args.budgets == "auto":
        run("plain", None, 1)
        first = runs[0]["result"]
        if "median_ms" not in first:
            raise SystemExit(f"framework_curves.py: error: plain unconstrained failed: {first}")
        peak = first["peak_allocated_bytes"]  # in the timed steps: what the step needs, not what was cached
        # Down from 1.5 P by 15% a step, plain alone, until plain runs out of memory (that budget
        # kept: whether ucudnn runs there is the point) or six budgets; these are round 1's plain.
        budgets = [None]
        for step in range(6):
            budget = int(peak * 1.5 * 0.85 ** step)
            budgets.append(budget)
            run("plain", budget, 1)
            if "median_ms" not in runs[-1]["result"]:
                break
    else:
        budgets = [None if b == "none" else parse_size(b) for b in args.budgets.split(",")]
    for round_number in range(1, args.rounds + 1):
        for budget in budgets:
            # Where every process of both sides ran out of memory, another round tells nothing new
            # (and out-of-memory processes are the slowest: the framework retries before it fails).
            earlier = [r for r in runs if r["budget"] == budget and r["round"] < round_number]
            if earlier and {r["side"] for r in earlier} == set(SIDES) and all(
                    r["result"].get("out_of_memory") for r in earlier):
                continue
            for side in SIDES:
                if any(r["side"] == side and r["budget"] == budget and r["round"] == round_number for r in runs):
                    continue
                if args.deadline and time.perf_counter() - started > args.deadline:
                    print(f"{args.model}: deadline reached; stopping", flush=True)
                    write(args, runs, budgets, gpu)
                    return 0
                run(side, budget, round_number)
                write(args, runs, budgets, gpu)
    write(args, runs, budgets, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
