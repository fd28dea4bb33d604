#!/usr/bin/env python3
"""Times calls on tiny arrays through the Python package, where a call's time is its Python
and C ABI work, beside MXNet 1.9.1's NDArray calls (NaiveEngine: synchronous) on the same
inputs. Prints, per case, the range of per-run medians (us a call) and the ratio of the
fastest runs (MXNet / package; above 1: the package's call is cheaper).

  MSHADOW_OPS_LIBRARY=bazel-bin/ops/libmshadow_ops.so PYTHONPATH=python \\
      ~/.cache/mshadow_ops/mxnet-1.9.1/bin/python tools/bench/python_overhead.py
"""
import argparse
import os
import time

os.environ.setdefault("MXNET_ENGINE_TYPE", "NaiveEngine")  # before mxnet is imported

import numpy as np  # noqa: E402

import mshadow_ops as mo  # noqa: E402


def median_us(call, calls):
    """The median of `calls` batches of 100 calls, per call."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        for _ in range(100):
            call()
        times.append((time.perf_counter() - start) / 100)
    return sorted(times)[calls // 2] * 1e6


def cases(mx):
    """name -> (the package's call, MXNet's call) on the same tiny inputs."""
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    y = np.empty_like(x)
    row, w, b = x.reshape(1, 16), np.ones((4, 16), np.float32), np.ones(4, np.float32)
    image, kernel = np.ones((1, 1, 4, 4), np.float32), np.ones((2, 1, 3, 3), np.float32)
    xm, ym, rowm, wm, bm = (mx.nd.array(a) for a in (x, y, row, w, b))
    imagem, kernelm = mx.nd.array(image), mx.nd.array(kernel)
    return {
        "relu": (lambda: mo.relu(x), lambda: mx.nd.relu(xm)),
        "relu out=": (lambda: mo.relu(x, out=y), lambda: mx.nd.relu(xm, out=ym)),
        "elemwise_add out=": (lambda: mo.elemwise_add(x, x, out=y),
                              lambda: mx.nd.elemwise_add(xm, xm, out=ym)),
        "FullyConnected": (lambda: mo.FullyConnected(row, w, b, num_hidden=4),
                           lambda: mx.nd.FullyConnected(rowm, wm, bm, num_hidden=4)),
        "Convolution 3x3": (
            lambda: mo.Convolution(image, kernel, kernel=(3, 3), num_filter=2, no_bias=True),
            lambda: mx.nd.Convolution(imagem, kernelm, kernel=(3, 3), num_filter=2,
                                      no_bias=True)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="alternating runs of each side")
    parser.add_argument("--calls", type=int, default=21, help="batches per run (median)")
    args = parser.parse_args()
    import mxnet as mx
    for name, (ours, theirs) in cases(mx).items():
        for call in (ours, theirs):
            call()  # first calls: parsing, allocation, MXNet's operator caches
        times = {"ours": [], "mxnet": []}
        for _ in range(args.runs):
            times["ours"].append(median_us(ours, args.calls))
            times["mxnet"].append(median_us(theirs, args.calls))
            mx.nd.waitall()
        print(f"{name:18s} package {min(times['ours']):6.2f}-{max(times['ours']):6.2f} us  "
              f"MXNet {min(times['mxnet']):6.2f}-{max(times['mxnet']):6.2f} us  "
              f"ratio {min(times['mxnet']) / min(times['ours']):.2f}")


if __name__ == "__main__":
    main()
