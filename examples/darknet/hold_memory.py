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
import re
import signal
import sys

UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def parse_size(text):
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]iB|B)?\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"'{text}' is not a size (like 8GiB or 512MiB)")
    return int(float(match.group(1)) * UNITS[(match.group(2) or "").lower()])


def cudart():
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    sys.exit("hold_memory.py: no CUDA runtime library (libcudart.so.13 or .12) can be loaded")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("leave")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--ready", help="file written once the memory is held")
    args = parser.parse_args()
    try:
        leave = parse_size(args.leave)
    except ValueError as e:
        parser.error(str(e))
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
        with open(args.ready, "w") as f:
            f.write(f"{free.value}\n")
    signal.pause()  # until a signal ends the process


if __name__ == "__main__":
    main()
