#!/usr/bin/env python3
"""The ceiling table: per kernel, ucudnn's plan against the fastest cuDNN reaches within the limit.

    python3 bench/summarize_ceiling.py DIR [--out FILE]

Reads the pairs of ucudnn_conv_benchmark JSON files that bash bench/gpu.sh ceiling writes into DIR,
NAME-heuristics.json (ucudnn as it ships: fast search, cuDNN's engine configurations) and
NAME-sweep.json (the exhaustive search over every configuration one knob away: the ceiling), and
writes FILE (default DIR/ceiling-table.md), also printed: one row per kernel with
  ucudnn      the shipped plan's median time and plan;
  ceiling     the sweep's plan within the limit: median time, plan, workspace;
  at limit    cuDNN's best single engine configuration within the limit, undivided (sweep run);
  unlimited   the best single engine configuration given any workspace (sweep run);
  ucudnn / ceiling    the target is at most 1.05 (marked "miss" above it);
  ceiling vs unlimited    unlimited time / ceiling time: what the limit itself leaves;
and, where DIR also holds NAME-refine.json (the fast search with UCUDNN_ENGINE_KNOBS=refine), its
plan and its ratio to the ceiling, and below the table each kind of run's planning time summed.
Times are each run's own medians; the two runs are separate processes on the same GPU, so the
ratio of ucudnn to the ceiling compares medians of separate runs (noise of a few percent).
"""
import argparse
import glob
import json
import os
import sys

MIB = 1 << 20
TARGET = 1.05


def size(bytes_):
    if bytes_ >= MIB:
        return f"{bytes_ / MIB:.1f} MiB"
    return f"{bytes_ / 1024:.0f} KiB" if bytes_ >= 1024 else f"{bytes_} B"


def read(path):
    with open(path) as f:
        run = json.load(f)
    return run, {(k["layer"], k["op"]): k for k in run.get("kernels", [])}


def rows(directory):
    """(run, kernel name, shipped kernel, sweep kernel, refine kernel or None) for every kernel both
    runs of a pair timed, and the planning seconds of each kind of run, summed."""
    found = []
    seconds = {}
    for sweep_path in sorted(glob.glob(os.path.join(directory, "*-sweep.json"))):
        stem = sweep_path[: -len("-sweep.json")]
        if not os.path.exists(stem + "-heuristics.json"):
            continue
        sweep_run, sweep = read(sweep_path)
        shipped_run, shipped = read(stem + "-heuristics.json")
        refine_run, refine = read(stem + "-refine.json") if os.path.exists(stem + "-refine.json") else (None, {})
        for kind, run in (("heuristics", shipped_run), ("refine", refine_run), ("sweep", sweep_run)):
            if run is not None:
                seconds[kind] = seconds.get(kind, 0.0) + run.get("ucudnn_planning_seconds", 0.0)
        for key, kernel in sweep.items():
            if key in shipped:
                found.append((sweep_run, f"{key[0]}:{key[1]}", shipped[key], kernel, refine.get(key)))
    return found, seconds


def table(found, seconds):
    refined = any(refine is not None for *_, refine in found)
    extra = " refine ms (plan) | refine / ceiling |" if refined else ""
    lines = ["| network | precision | limit | kernel | ucudnn ms (plan) | ceiling ms (plan, workspace) | "
             "at limit ms | unlimited ms | ucudnn / ceiling | ceiling vs unlimited |" + extra,
             "|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if refined else "")]
    within = refine_within = 0
    for run, name, shipped, sweep, refine in found:
        ratio = shipped["ucudnn_time_ms"] / sweep["ucudnn_time_ms"]
        within += ratio <= TARGET
        unlimited = sweep.get("best_unlimited_time_ms")
        at_limit = sweep.get("best_at_limit_time_ms")
        left = "-" if unlimited is None else f"{unlimited / sweep['ucudnn_time_ms']:.2f}x"
        lines.append(
            f"| {run['network']} | {run['data_type']} {run['layout']} | {run['workspace_limit_bytes'] // MIB} MiB "
            f"| {name} | {shipped['ucudnn_time_ms']:.3f} ({shipped['ucudnn_plan']}) "
            f"| {sweep['ucudnn_time_ms']:.3f} ({sweep['ucudnn_plan']}, {size(sweep['ucudnn_workspace_bytes'])}) "
            f"| {'-' if at_limit is None else f'{at_limit:.3f}'} | {'-' if unlimited is None else f'{unlimited:.3f}'} "
            f"| {ratio:.2f}{' miss' if ratio > TARGET else ''} "
            f"| {left} |")
        if refined:
            if refine is None:
                lines[-1] += " - | - |"
            else:
                refine_ratio = refine["ucudnn_time_ms"] / sweep["ucudnn_time_ms"]
                refine_within += refine_ratio <= TARGET
                lines[-1] += (f" {refine['ucudnn_time_ms']:.3f} ({refine['ucudnn_plan']}) "
                              f"| {refine_ratio:.2f}{' miss' if refine_ratio > TARGET else ''} |")
    lines.append("")
    lines.append(f"{within} of {len(found)} kernels within {TARGET:.2f}x of the ceiling.")
    if refined:
        lines.append(f"With UCUDNN_ENGINE_KNOBS=refine: {refine_within} of "
                     f"{sum(refine is not None for *_, refine in found)} kernels within {TARGET:.2f}x.")
    if seconds:
        lines.append("Planning time, summed over the runs: " +
                     ", ".join(f"{kind} {value:.1f} s" for kind, value in seconds.items()) + ".")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description="ucudnn's plans against the ceiling within the limit")
    parser.add_argument("directory", help="the folder bash bench/gpu.sh ceiling filled")
    parser.add_argument("--out", help="the table's file (default DIR/ceiling-table.md)")
    args = parser.parse_args()
    found, seconds = rows(args.directory)
    if not found:
        sys.exit(f"summarize_ceiling.py: no pair of NAME-heuristics.json and NAME-sweep.json in {args.directory}")
    text = table(found, seconds)
    with open(args.out or os.path.join(args.directory, "ceiling-table.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
