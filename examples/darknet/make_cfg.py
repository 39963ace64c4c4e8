#!/usr/bin/env python3
"""Rewrites a stock Darknet YOLO .cfg for the synthetic data set (make_data.py): its classes, the
filters of the convolution before each [yolo] layer, the batch and the training schedule.

    make_cfg.py SRC.cfg DEST.cfg --classes 3 --batch 64 --subdivisions 1 [--size 416]
                [--max-batches 200] [--burn-in 10] [--learning-rate 0.001]

Multi-scale training (random=1 on [yolo]) and mosaic/mixup/cutmix are turned off: the first resizes
the network every ten iterations (timings would mix input sizes), the others need OpenCV.
"""
import argparse
import math
import os
import re
import sys

INT_MAX = 2**31 - 1  # Darknet reads its numbers into C ints


class Parser(argparse.ArgumentParser):
    """argparse with each error on one line (no usage above it): gpu.sh's log shows what was wrong."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def integer(low, what):
    """An argparse type: an integer from LOW to INT_MAX; WHAT says what it must be."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
        if value > INT_MAX:
            raise argparse.ArgumentTypeError(f"must be at most {INT_MAX} (Darknet reads an int), not {text!r}")
        return value

    return parse


def size(text):
    value = integer(1, "a positive multiple of 32")(text)
    if value % 32:
        raise argparse.ArgumentTypeError(f"must be a positive multiple of 32, not {text!r}")
    return value


def learning_rate(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    # NaN or inf would make every weight NaN at the first update; 0 or less would not learn.
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text!r}")
    return value


def sections(lines):
    """[(name, [lines])]; lines before the first section go with name None."""
    out = [(None, [])]
    for line in lines:
        match = re.match(r"\s*\[(\w+)\]", line)
        if match:
            out.append((match.group(1), [line]))
        else:
            out[-1][1].append(line)
    return out


def set_key(body, key, value):
    """Sets key=value in a section's lines (the first active one), adding it where absent."""
    pattern = re.compile(r"\s*" + re.escape(key) + r"\s*=")
    for i, line in enumerate(body):
        if pattern.match(line):
            body[i] = f"{key}={value}\n"
            return
    body.insert(1, f"{key}={value}\n")


def key_value(body, key):
    pattern = re.compile(r"\s*" + re.escape(key) + r"\s*=\s*(.*)")
    for line in body:
        match = pattern.match(line)
        if match:
            return match.group(1).strip()
    return None


def rewrite(text, args):
    parts = sections(text.splitlines(keepends=True))
    if not any(name == "net" for name, _ in parts):
        raise ValueError("no [net] section: not a Darknet network file")
    yolo_count = 0
    for index, (name, body) in enumerate(parts):
        if name == "net":
            for key, value in (("batch", args.batch), ("subdivisions", args.subdivisions),
                               ("width", args.size), ("height", args.size),
                               ("max_batches", args.max_batches), ("burn_in", args.burn_in),
                ("learning_rate", args.learning_rate),
                               ("steps", f"{args.max_batches * 8 // 10},{args.max_batches * 9 // 10}"),
                               ("mosaic", 0), ("mixup", 0), ("cutmix", 0)):
                set_key(body, key, value)
        elif name == "yolo":
            yolo_count += 1
            masks = key_value(body, "mask")
            anchors_per_cell = len(masks.split(",")) if masks else int(key_value(body, "num") or 3)
            set_key(body, "classes", args.classes)
            set_key(body, "random", 0)
            # The convolution just before a [yolo] layer predicts (classes + 5) values per anchor.
            previous = next((parts[j] for j in range(index - 1, -1, -1) if parts[j][0] is not None), None)
            if previous is None or previous[0] != "convolutional":
                raise ValueError(f"[yolo] layer {yolo_count} does not follow a [convolutional] layer")
            set_key(previous[1], "filters", (args.classes + 5) * anchors_per_cell)
    if yolo_count == 0:
        raise ValueError("no [yolo] layer: not a YOLO detector")
    return "".join(line for _, body in parts for line in body)


def main():
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("dest")
    parser.add_argument("--classes", type=integer(1, "a positive integer"), required=True)
    parser.add_argument("--batch", type=integer(1, "a positive integer"), required=True)
    parser.add_argument("--subdivisions", type=integer(1, "a positive integer"), required=True)
    parser.add_argument("--size", type=size, default=416, help="input width and height (a multiple of 32)")
    # The steps at 80% and 90% of it must be iterations Darknet reaches: at least 1.
    parser.add_argument("--max-batches", type=integer(2, "an integer of at least 2 (its steps fall at 80% and 90%)"),
                        default=200)
    parser.add_argument("--burn-in", type=integer(0, "an integer of at least 0"), default=10)
    parser.add_argument("--learning-rate", type=learning_rate, default=0.001)
    args = parser.parse_args()
    # Darknet trains on batch / subdivisions images at a time, an integer division it does not check.
    if args.batch % args.subdivisions:
        parser.error(f"--batch {args.batch} is not a multiple of --subdivisions {args.subdivisions}")
    # Checked before anything is read, so that a wrong path costs nothing and leaves nothing behind.
    folder = os.path.dirname(os.path.abspath(args.dest))
    if not os.path.isdir(folder):
        if os.path.exists(folder):
            parser.error(f"argument dest: {folder!r} is a file, not a folder")
        parser.error(f"argument dest: the folder {folder!r} does not exist")
    if os.path.isdir(args.dest):
        parser.error(f"argument dest: {args.dest!r} is a folder, not a file name")
    try:
        with open(args.source) as f:
            text = rewrite(f.read(), args)
    except (OSError, ValueError) as e:
        sys.exit(f"make_cfg.py: {args.source}: {e}")
    try:
        with open(args.dest, "w") as f:
            f.write(text)
    except OSError as e:
        sys.exit(f"make_cfg.py: {args.dest}: {e}")


if __name__ == "__main__":
    main()
