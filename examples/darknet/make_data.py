#!/usr/bin/env python3
"""A synthetic detection data set for Darknet: images of coloured rectangles on noise, one colour
per class, with YOLO labels beside them, so that a detector has something to learn (its loss falls).

    make_data.py OUT_DIR [--images 256] [--size 416] [--classes 3] [--seed 1]

Writes OUT_DIR/images/NNNNN.ppm and .txt (Darknet reads the label beside the image), train.txt,
obj.names and obj.data (backup/ under OUT_DIR). Binary PPM: Darknet built without OpenCV reads it
(stb_image), and the standard library writes it.
"""
import argparse
import os
import random
import sys

COLOURS = [(220, 40, 40), (40, 200, 60), (50, 80, 230), (230, 210, 40), (200, 60, 210), (40, 210, 210)]
DARK = bytes(b >> 2 for b in range(256))  # noise of 0..63: the rectangles stand out


def image(rng, size, classes):
    pixels = bytearray(os.urandom(size * size * 3).translate(DARK))
    labels = []
    for _ in range(rng.randint(1, 4)):
        cls = rng.randrange(classes)
        w, h = rng.randint(size // 10, size // 3), rng.randint(size // 10, size // 3)
        x0, y0 = rng.randint(0, size - w), rng.randint(0, size - h)
        row = bytes(COLOURS[cls % len(COLOURS)]) * w
        for y in range(y0, y0 + h):
            start = (y * size + x0) * 3
            pixels[start:start + 3 * w] = row
        labels.append(f"{cls} {(x0 + w / 2) / size:.6f} {(y0 + h / 2) / size:.6f} {w / size:.6f} {h / size:.6f}")
    return bytes(f"P6 {size} {size} 255\n", "ascii") + bytes(pixels), labels


class Parser(argparse.ArgumentParser):
    """argparse with each error on one line (no usage above it): gpu.sh's log shows what was wrong."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def integer(low, high=None):
    """An argparse type: an integer from LOW (to HIGH, when given)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            what = f"an integer from {low} to {high}" if high is not None else f"an integer of at least {low}"
            raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
        return value

    return parse


def main():
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--images", type=integer(1), default=256)
    # Boxes are a tenth to a third of the side, so a few pixels at 32; an image is made whole in memory
    # (SIZE x SIZE x 3 bytes, 192 MiB at 8192, far above any YOLO input).
    parser.add_argument("--size", type=integer(32, 8192), default=416)
    parser.add_argument("--classes", type=integer(1, len(COLOURS)), default=3)  # a colour per class
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        parser.error(f"argument out: {out!r} is a file, not a folder")
    try:
        write(out, args)
    except OSError as e:
        sys.exit(f"make_data.py: {out}: {e}")
    print(f"make_data.py: {args.images} images of {args.size}x{args.size}, {args.classes} classes in {out}")


def write(out, args):
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    os.makedirs(os.path.join(out, "backup"), exist_ok=True)
    # The noise comes from os.urandom (fast); the boxes, which the loss depends on, from the seed.
    rng = random.Random(args.seed)
    paths = []
    for i in range(args.images):
        data, labels = image(rng, args.size, args.classes)
        path = os.path.join(out, "images", f"{i:05d}.ppm")
        with open(path, "wb") as f:
            f.write(data)
        with open(path[:-4] + ".txt", "w") as f:
            f.write("\n".join(labels) + "\n")
        paths.append(path)
    with open(os.path.join(out, "train.txt"), "w") as f:
        f.write("\n".join(paths) + "\n")
    with open(os.path.join(out, "obj.names"), "w") as f:
        f.write("\n".join(f"class{c}" for c in range(args.classes)) + "\n")
    with open(os.path.join(out, "obj.data"), "w") as f:
        f.write(f"classes={args.classes}\ntrain={out}/train.txt\nvalid={out}/train.txt\n"
                f"names={out}/obj.names\nbackup={out}/backup/\n")


if __name__ == "__main__":
    main()
