#!/usr/bin/env python3
"""PyTorch on the shapes of the GPU benchmarks (ops/bench/gpu_ops_bench.cc, mshadow's
tensor_gpu_bench.cc), timed the same way: CUDA events around each call, median of many
after a warm-up, random float32 data, TF32 off. Run on the GPU machine beside the bundle:

  python3 tools/cuda/torch_baseline.py [OUT.json]

Prints one line per case (median microseconds, GB/s counting the bytes the operation must
read and write at least) and writes them as JSON for docs/benchmarks.md.
"""
import json
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def pipelined_us(fn, calls=20, rounds=5):
    """Per call, the median over rounds of `calls` calls issued back to back between two
    events: how opctl bench times the project's layers (the GPU's time, not the host's)."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / calls)
    times.sort()
    return times[len(times) // 2]


def median_us(fn, repeats=50):
    """The median of `repeats` calls, each alone between two events (as the C++ benchmarks)."""
    return pipelined_us(fn, calls=1, rounds=repeats)


def rand(*shape):
    return torch.rand(*shape, device="cuda", dtype=torch.float32)


def main():
    results = []

    def case(name, fn, bytes_moved=0, flops=0, timer=median_us):
        us = timer(fn)
        row = {"name": name, "us": us}
        line = f"{name:36s} {us:10.1f} us"
        if bytes_moved:
            row["GB/s"] = bytes_moved / us / 1e3
            line += f" {row['GB/s']:8.0f} GB/s"
        if flops:
            row["TFLOP/s"] = flops / us / 1e6
            line += f" {row['TFLOP/s']:7.2f} TFLOP/s"
        results.append(row)
        print(line, flush=True)

    f4 = 4
    # ops/bench/gpu_ops_bench.cc shapes.
    rows, cols = 4096, 4096
    a, b = rand(rows, cols), rand(rows, cols)
    out = torch.empty_like(a)
    case("copy 4096x4096", lambda: out.copy_(a), 2 * rows * cols * f4)
    case("relu 4096x4096", lambda: torch.clamp_min(a, 0, out=out),
         2 * rows * cols * f4)
    case("add 4096x4096", lambda: torch.add(a, b, out=out), 3 * rows * cols * f4)
    row = rand(1, cols)
    case("broadcast_add row 4096x4096", lambda: torch.add(a, row, out=out), 2 * rows * cols * f4)
    case("sum axis=1 4096x4096", lambda: a.sum(1), rows * cols * f4)
    case("sum axis=0 4096x4096", lambda: a.sum(0), rows * cols * f4)
    s = rand(16384, 1000)
    case("softmax 16384x1000", lambda: torch.softmax(s, -1), 2 * s.numel() * f4)
    case("transpose 4096x4096", lambda: out.copy_(a.t()), 2 * rows * cols * f4)
    x, w = rand(4096, 4096), rand(4096, 4096)
    case("linear 4096x4096x4096 no bias", lambda: torch.nn.functional.linear(x, w),
         flops=2 * 4096 ** 3)
    # Issue #16's goal shapes.
    n = 256 * 1024 * 1024
    big_b, big_c = rand(n), rand(n)
    big_a = torch.empty_like(big_b)
    case("copy 256Mi", lambda: big_a.copy_(big_b), 2 * n * f4)
    case("A = B*2 + C 256Mi", lambda: torch.add(big_c, big_b, alpha=2, out=big_a), 3 * n * f4)
    case("exp 256Mi", lambda: torch.exp(big_b, out=big_a), 2 * n * f4)
    case("tanh 256Mi", lambda: torch.tanh(big_b, out=big_a), 2 * n * f4)
    case("sigmoid 256Mi", lambda: torch.sigmoid(big_b, out=big_a), 2 * n * f4)
    del big_a, big_b, big_c
    gib = rand(16384, 16384)  # 1 GiB
    case("sum rows (axis 0) 1GiB", lambda: gib.sum(0), gib.numel() * f4)
    case("sum each row (axis 1) 1GiB", lambda: gib.sum(1), gib.numel() * f4)
    del gib
    sm = rand(8192, 8192)
    case("softmax 8192x8192", lambda: torch.softmax(sm, -1), 2 * sm.numel() * f4)
    for size in (1024, 4096, 8192):
        p, q = rand(size, size), rand(size, size)
        case(f"mm {size}", lambda: p @ q, flops=2 * size ** 3)
    bp, bq = rand(64, 512, 512), rand(64, 512, 512)
    case("bmm 64x512x512", lambda: torch.bmm(bp, bq), flops=2 * 64 * 512 ** 3)
    fx, fw, fb = rand(256, 1024), rand(1024, 1024), rand(1024)
    case("linear 256x1024->1024 bias", lambda: torch.nn.functional.linear(fx, fw, fb),
         flops=2 * 256 * 1024 * 1024)

    # The layers of issue #17, on the shapes tools/cuda/gpu_bundle.sh's run_layers.sh gives
    # opctl, timed as opctl bench times them (pipelined calls): forward, then backward (every
    # input's gradient from the saved graph).
    F = torch.nn.functional

    def layer(name, forward, *inputs):
        for t in inputs:
            t.requires_grad_(True)
        case(f"{name} forward", lambda: forward(*inputs), timer=pipelined_us)
        y = forward(*inputs)
        g = torch.ones_like(y)
        case(f"{name} backward",
             lambda: torch.autograd.grad(y, inputs, g, retain_graph=True), timer=pipelined_us)

    layer("Convolution 3x3 (32,64,56,56)->64",
          lambda x, w, b: F.conv2d(x, w, b, padding=1),
          rand(32, 64, 56, 56), rand(64, 64, 3, 3), rand(64))
    layer("Convolution 3x3 (8,32,28,28)->32",
          lambda x, w, b: F.conv2d(x, w, b, padding=1),
          rand(8, 32, 28, 28), rand(32, 32, 3, 3), rand(32))
    layer("Deconvolution 4x4 s2 (32,64,28,28)->64",
          lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1),
          rand(32, 64, 28, 28), rand(64, 64, 4, 4))
    layer("Pooling max 3x3 s2 (32,64,112,112)",
          lambda x: F.max_pool2d(x, 3, stride=2, padding=1), rand(32, 64, 112, 112))
    running_mean, running_var = torch.zeros(64, device="cuda"), torch.ones(64, device="cuda")
    layer("BatchNorm training (32,64,56,56)",
          lambda x, w, b: F.batch_norm(x, running_mean, running_var, w, b, training=True),
          rand(32, 64, 56, 56), rand(64), rand(64))
    layer("LayerNorm (4096,1024)",
          lambda x, w, b: F.layer_norm(x, (1024,), w, b), rand(4096, 1024), rand(1024),
          rand(1024))
    layer("Dropout p=0.5 (32,64,56,56)", lambda x: F.dropout(x, 0.5, training=True),
          rand(32, 64, 56, 56))

    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "cases": results}, f, indent=1)


if __name__ == "__main__":
    main()
