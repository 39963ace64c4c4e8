#!/usr/bin/env python3
"""Holds GPU memory so that another process finds only LEAVE bytes free: a smaller GPU, as the
other process sees it through cudaMemGetInfo (Darknet picks its algorithms by free memory).

    hold_memory.py LEAVE [--device N] [--ready FILE]

LEAVE is a size (8GiB, 512MiB, 0.5GiB). Takes cudaMalloc blocks until free memory is LEAVE, writes
FILE (when given) and holds them until the process is killed. Needs only the CUDA
runtime (libcudart.so.13 or .12), through ctypes.
"""
import argparse
import ctypes
import math
import os
import re
import signal
import sys

UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


class Parser(argparse.ArgumentParser):
    """argparse with each error on one line (no usage above it): gpu.sh shows this process's log."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse_size(text):
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]iB|B)?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"'{text}' is not a size (like 8GiB or 512MiB)")
    value = float(match.group(1)) * UNITS[(match.group(2) or "").lower()]
    if not math.isfinite(value):  # hundreds of digits: float gives inf, which int() refuses
        raise ValueError(f"'{text}' is too large a size")
    return int(value)


def size_argument(text):
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def device_argument(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a CUDA device number (0 or more), not {text!r}")
    return value


def cudart():
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    sys.exit("hold_memory.py: no CUDA runtime library (libcudart.so.13 or .12) can be loaded")


def main():
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("leave", type=size_argument)
    parser.add_argument("--device", type=device_argument, default=0)
    parser.add_argument("--ready", help="file written once the memory is held")
    args = parser.parse_args()
    leave = args.leave
    # Checked before any memory is taken: the file is written only once all of it is held.
    if args.ready:
        folder = os.path.dirname(os.path.abspath(args.ready))
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                parser.error(f"argument --ready: {folder!r} is a file, not a folder")
            parser.error(f"argument --ready: the folder {folder!r} does not exist")
    rt = cudart()

    def check(code, what):
        if code != 0:
            rt.cudaGetErrorString.restype = ctypes.c_char_p
            sys.exit(f"hold_memory.py: {what} failed: {rt.cudaGetErrorString(code).decode()}")

    check(rt.cudaSetDevice(args.device), f"cudaSetDevice({args.device})")
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    blocks = []
    # Large blocks first, then smaller ones: one allocation of everything may fail on fragmentation.
    block = 1 << 34
    while block >= (1 << 20):
        check(rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)), "cudaMemGetInfo")
        if free.value <= leave:
            break
        size = min(block, free.value - leave)
        pointer = ctypes.c_void_p()
        if size >= (1 << 20) and rt.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(size)) == 0:
            blocks.append(pointer)
        else:
            rt.cudaGetLastError()
            block //= 2
    check(rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)), "cudaMemGetInfo")
    print(f"hold_memory.py: holding {sum(1 for _ in blocks)} blocks; {free.value / 2**30:.2f} GiB of "
          f"{total.value / 2**30:.2f} GiB free", flush=True)
    if args.ready:
        try:
            with open(args.ready, "w") as f:
                f.write(f"{free.value}\n")
        except OSError as e:
            sys.exit(f"hold_memory.py: --ready {args.ready}: {e}")
    signal.pause()  # until a signal ends the process


if __name__ == "__main__":
    main()
