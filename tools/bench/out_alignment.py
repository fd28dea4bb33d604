#!/usr/bin/env python3
"""Times operators through the Python package into `out=` arrays that start on a cache line
and into ones that start `--offset` bytes into one, as NumPy's large arrays do (16 bytes).
Prints, per case, the range of per-run medians for each and their ratio (off / aligned).

  MSHADOW_OPS_LIBRARY=bazel-bin/ops/libmshadow_ops.so PYTHONPATH=python OMP_NUM_THREADS=1 \
      ~/.cache/mshadow_ops/mxnet-1.9.1/bin/python tools/bench/out_alignment.py [case ...]
"""
import argparse
import time

import numpy as np

import mshadow_ops as mo

LINE = 64


def array_at(shape, offset_bytes):
    """A float32 array of `shape` that starts offset_bytes past a cache line."""
    n = int(np.prod(shape))
    buffer = np.empty(n + LINE, np.float32)
    skip = ((LINE - buffer.ctypes.data % LINE) % LINE + offset_bytes) // 4
    return buffer[skip:skip + n].reshape(shape)


def median_ms(call, calls):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)[calls // 2] * 1e3


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 64, 56, 56), dtype=np.float32)
    w = rng.standard_normal((256, 64, 1, 1), dtype=np.float32)
    square = rng.standard_normal((2048, 2048), dtype=np.float32)
    cube = rng.standard_normal((64, 256, 256), dtype=np.float32)
    image = rng.standard_normal((32, 64, 112, 112), dtype=np.float32)
    return {
        "conv1x1": ((32, 256, 56, 56), lambda o: mo.Convolution(
            x, w, kernel=(1, 1), num_filter=256, no_bias=True, out=o)),
        "transpose": ((2048, 2048), lambda o: mo.transpose(square, out=o)),
        "transpose021": ((64, 256, 256), lambda o: mo.transpose(cube, axes=(0, 2, 1), out=o)),
        "relu": (image.shape, lambda o: mo.Activation(image, act_type="relu", out=o)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--offset", type=int, default=16, help="bytes off a line")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs of each")
    parser.add_argument("--calls", type=int, default=7, help="calls per run (median)")
    args = parser.parse_args()
    for name, (shape, run) in cases().items():
        if args.names and name not in args.names:
            continue
        outs = {0: array_at(shape, 0), args.offset: array_at(shape, args.offset)}
        for out in outs.values():
            run(out)  # first touch of the output's pages
        times = {offset: [] for offset in outs}
        for _ in range(args.runs):
            for offset, out in outs.items():
                times[offset].append(median_ms(lambda: run(out), args.calls))
        aligned, off = times[0], times[args.offset]
        print(f"{name:13s} aligned {min(aligned):7.2f}-{max(aligned):7.2f} ms  "
              f"off {args.offset} B {min(off):7.2f}-{max(off):7.2f} ms  "
              f"ratio {min(off) / min(aligned):.2f}")


if __name__ == "__main__":
    main()
