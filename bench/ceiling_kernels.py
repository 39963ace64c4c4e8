#!/usr/bin/env python3
"""The kernels the ceiling job measures: where ucudnn loses most against the best engines unlimited.

    python3 bench/ceiling_kernels.py DIR [--per-row N] > bench/ceiling-kernels.txt

Reads the JSON files of ucudnn_conv_benchmark (bash bench/gpu.sh baselines writes them) in DIR and
prints, for each run (network, precision, layout, limit), the N kernels (default 2) whose ucudnn
time exceeds the best engine's unlimited time by the most milliseconds: what the row's ratio loses
there. One line a run, as bench/gpu/ceiling.sh reads it:

    NETWORK TYPE:LAYOUT LIMIT LAYER:OP,LAYER:OP

Lines starting with '#' are comments; the first says where the list came from.
"""
import argparse
import glob
import json
import os
import sys

MIB = 1 << 20


def limit_text(bytes_):
    return f"{bytes_ // MIB}MiB" if bytes_ % MIB == 0 else str(bytes_)


def main():
    parser = argparse.ArgumentParser(description="the kernels where ucudnn loses most against the best unlimited")
    parser.add_argument("directory", help="a folder of ucudnn_conv_benchmark JSON files")
    parser.add_argument("--per-row", type=int, default=2, help="kernels per run (default 2)")
    args = parser.parse_args()
    files = sorted(glob.glob(os.path.join(args.directory, "*.json")))
    if not files:
        sys.exit(f"ceiling_kernels.py: no JSON file in {args.directory}")
    print(f"# from {args.directory}: per run, the {args.per_row} kernels losing most against the best unlimited")
    for path in files:
        with open(path) as f:
            run = json.load(f)
        lost = []
        for kernel in run.get("kernels", []):
            unlimited = kernel.get("best_unlimited_time_ms")
            if unlimited is None:
                continue
            lost.append((kernel["ucudnn_time_ms"] - unlimited, f"{kernel['layer']}:{kernel['op']}"))
        if not lost:
            print(f"ceiling_kernels.py: {path} has no best-unlimited times (run with --baselines all)", file=sys.stderr)
            continue
        worst = [name for _, name in sorted(lost, reverse=True)[:args.per_row]]
        print(f"{run['network']} {run['data_type']}:{run['layout']} {limit_text(run['workspace_limit_bytes'])} "
              f"{','.join(worst)}")


if __name__ == "__main__":
    main()
