#!/usr/bin/env python3
"""Times the project's operators against MXNet 1.9.1 (CPU, oneDNN) on the same cases.

    python3 tools/bench/mxnet_compare.py                 # 1 and 2 threads, 3 paired rounds
    python3 tools/bench/mxnet_compare.py --rounds 5 --threads 1

The cases are ops/bench/mxnet_cases.txt. Each round runs, for each thread count, the project's
//ops/bench:op_cases_bench and an MXNet worker (this script, in a virtualenv with
mxnet==1.9.1, made on first use under ~/.cache/mshadow_ops) one after the other, in
alternating order; both get OMP_NUM_THREADS and OPENBLAS_NUM_THREADS. MXNet runs with its
NaiveEngine (synchronous), so a call's time is its Python overhead plus the operator;
the overhead, measured on a one-element call, is reported and subtracted. Each side's
time is the median of repetitions; the ratio MXNet time / project time (above 1: the
project is faster) is computed per round, and its median and range over rounds printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CASES = os.path.join(ROOT, "ops", "bench", "mxnet_cases.txt")
DEFAULT_VENV = os.path.join(os.path.expanduser("~"), ".cache", "mshadow_ops", "mxnet-1.9.1")
BENCH = os.path.join(ROOT, "bazel-bin", "ops", "bench", "op_cases_bench")


def read_cases(path):
    cases = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            params = {}
            if len(fields) > 4:
                for kv in fields[4].split():
                    key, _, value = kv.partition("=")
                    params[key] = value
            shapes = [tuple(int(d) for d in s.strip("()").split(",") if d)
                      for s in fields[3].split()]
            cases.append({"name": fields[0], "op": fields[1], "direction": fields[2],
                          "shapes": shapes, "params": params,
                          "key": fields[0] + "/" + fields[2]})
    return cases


# ---- The MXNet worker (runs inside the virtualenv).

def time_calls(call, waitall, min_time, repetitions):
    """Median seconds per call over `repetitions` batches of about min_time each."""
    call()
    waitall()
    n, elapsed = 1, 0.0
    while True:  # calibrate the batch size
        start = time.perf_counter()
        for _ in range(n):
            call()
        waitall()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / 4 or n >= 1 << 20:
            break
        n *= 2
    n = max(1, int(n * min_time / max(elapsed, 1e-9)))
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        for _ in range(n):
            call()
        waitall()
        samples.append((time.perf_counter() - start) / n)
    return statistics.median(samples)


def mxnet_worker(args):
    import mxnet as mx
    mx.random.seed(1234)
    cases = read_cases(args.cases)
    waitall = mx.nd.waitall
    results = {"mxnet": mx.__version__,
               "onednn": bool(mx.runtime.Features().is_enabled("MKLDNN")), "cases": {}}

    # Per-call overhead: a one-element call of each kind.
    a, b, c = mx.nd.ones((1,)), mx.nd.ones((1,)), mx.nd.zeros((1,))
    forward_overhead = time_calls(lambda: mx.nd.elemwise_add(a, b, out=c), waitall,
                                  args.min_time, args.repetitions)
    a.attach_grad()
    with mx.autograd.record():
        y1 = a * 2
    og1 = mx.nd.ones((1,))
    backward_overhead = time_calls(lambda: y1.backward(og1, retain_graph=True), waitall,
                                   args.min_time, args.repetitions)
    results["overhead_us"] = {"forward": forward_overhead * 1e6,
                              "backward": backward_overhead * 1e6}

    for case in cases:
        fn = getattr(mx.nd, case["op"])
        params = dict(case["params"])
        if case["op"] == "Concat":
            params.pop("num_args", None)  # MXNet counts the inputs itself
        inputs = [mx.nd.random.uniform(-1, 1, shape=s) for s in case["shapes"]]
        if case["direction"] == "forward":
            if case["op"] == "sgd_mom_update":
                out = inputs[0]
            else:
                out = fn(*inputs, **params)
            call = lambda: fn(*inputs, out=out, **params)  # noqa: E731
            overhead = forward_overhead
        else:
            for x in inputs:
                x.attach_grad()
            with mx.autograd.record():
                y = fn(*inputs, **params)
            og = mx.nd.random.uniform(-1, 1, shape=y.shape)
            call = lambda: y.backward(og, retain_graph=True)  # noqa: E731
            overhead = backward_overhead
        seconds = time_calls(call, waitall, args.min_time, args.repetitions)
        results["cases"][case["key"]] = {"raw_us": seconds * 1e6,
                                         "us": max(seconds - overhead, 1e-9) * 1e6}
    json.dump(results, sys.stdout)


# ---- The driver.

def ensure_venv(venv):
    python = os.path.join(venv, "bin", "python")
    probe = [python, "-c", "import mxnet; assert mxnet.__version__ == '1.9.1'"]
    if os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"mxnet_compare: installing mxnet==1.9.1 into {venv}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "mxnet==1.9.1", "numpy<1.24"],
                   check=True)
    subprocess.run(probe, check=True)
    return python


def thread_env(threads):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
                "MKL_NUM_THREADS": str(threads), "MXNET_ENGINE_TYPE": "NaiveEngine"})
    return env


def run_project(args, threads):
    out = subprocess.run(
        [args.bench, f"--cases={args.cases}", "--benchmark_format=json",
         f"--benchmark_min_time={args.min_time}",
         f"--benchmark_repetitions={args.repetitions}",
         "--benchmark_report_aggregates_only=true"],
        env=thread_env(threads), capture_output=True, text=True, check=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            key = b["run_name"].rsplit("/real_time", 1)[0]
            times[key] = b["real_time"]  # microseconds (the benchmark's unit)
    return times


def run_mxnet(args, python, threads):
    out = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", f"--cases={args.cases}",
         f"--min-time={args.min_time}", f"--repetitions={args.repetitions}"],
        env=thread_env(threads), capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=DEFAULT_CASES)
    parser.add_argument("--bench", default=BENCH, help="the op_cases_bench binary")
    parser.add_argument("--venv", default=DEFAULT_VENV)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.1)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--json", help="write every measurement here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        mxnet_worker(args)
        return 0

    if not os.access(args.bench, os.X_OK):
        sys.exit(f"mxnet_compare: {args.bench} is missing; build it first: "
                 "./tools/bazel build //ops/bench:op_cases_bench")
    python = ensure_venv(args.venv)
    cases = read_cases(args.cases)
    thread_counts = [int(t) for t in args.threads.split(",")]
    record = {"rounds": []}
    for r in range(args.rounds):
        for threads in thread_counts:
            if r % 2 == 0:
                project = run_project(args, threads)
                mxnet = run_mxnet(args, python, threads)
            else:
                mxnet = run_mxnet(args, python, threads)
                project = run_project(args, threads)
            record["rounds"].append({"round": r, "threads": threads, "project_us": project,
                                     "mxnet": mxnet})
            print(f"round {r + 1}/{args.rounds}, {threads} thread(s): done", file=sys.stderr)

    mx_info = record["rounds"][0]["mxnet"]
    print(f"MXNet {mx_info['mxnet']} (oneDNN {'on' if mx_info['onednn'] else 'off'}), "
          f"NaiveEngine; {args.rounds} paired rounds, medians of {args.repetitions} "
          "repetitions each. ratio = MXNet time / project time (above 1: project faster).")
    worst = None
    for threads in thread_counts:
        rounds = [x for x in record["rounds"] if x["threads"] == threads]
        fwd = statistics.median(x["mxnet"]["overhead_us"]["forward"] for x in rounds)
        bwd = statistics.median(x["mxnet"]["overhead_us"]["backward"] for x in rounds)
        print(f"\n{threads} thread(s); MXNet per-call overhead subtracted: forward "
              f"{fwd:.1f} us, backward {bwd:.1f} us")
        print(f"{'case':45} {'project us':>11} {'MXNet us':>10} {'ratio':>7}  range")
        for case in cases:
            key = case["key"]
            ratios = [x["mxnet"]["cases"][key]["us"] / x["project_us"][key] for x in rounds]
            project = statistics.median(x["project_us"][key] for x in rounds)
            mxnet = statistics.median(x["mxnet"]["cases"][key]["us"] for x in rounds)
            ratio = statistics.median(ratios)
            worst = ratio if worst is None else min(worst, ratio)
            print(f"ratio {key:39} {project:11.1f} {mxnet:10.1f} {ratio:7.2f}  "
                  f"{min(ratios):.2f}-{max(ratios):.2f}")
    print(f"\nlowest median ratio: {worst:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
