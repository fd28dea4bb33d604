#!/usr/bin/env python3
"""Times the project's operators against MXNet 1.9.1 (CPU, oneDNN) on the same cases.

    python3 tools/bench/mxnet_compare.py                 # 1 and 2 threads, 3 paired rounds
    python3 tools/bench/mxnet_compare.py --rounds 5 --threads 1

The cases are those of ops/bench/op_bench.txt tagged `mxnet`. Each round runs, for each thread
count, the project's //ops/bench:op_bench (--suite=mxnet) and an MXNet worker (this script, in a virtualenv with
mxnet==1.9.1, made on first use under ~/.cache/mshadow_ops and shared with
tools/python/run_tests.sh) one after the other, in
alternating order; both get OMP_NUM_THREADS and OPENBLAS_NUM_THREADS. MXNet runs with its
NaiveEngine (synchronous), so a call's time is its Python overhead plus the operator;
the overhead, measured on a one-element call, is reported and subtracted. Each side's
time is the median of repetitions; the ratio MXNet time / project time (above 1: the
project is faster) is computed per round, and its median and range over rounds printed,
with the ratio of the two sides' fastest rounds beside them (case_summary).

tools/bench/bench.py imports this module to add MXNet's times to a results file
(mxnet_entries), as benchmarks named "mxnet:<case>/<direction>/float32".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CASES = os.path.join(ROOT, "ops", "bench", "op_bench.txt")
# The project's own cached virtualenv, which ensure_venv may remake; MSHADOW_OPS_VENV names
# another, which it only adds packages to.
CACHED_VENV = os.path.join(os.path.expanduser("~"), ".cache", "mshadow_ops", "mxnet-1.9.1")
DEFAULT_VENV = os.environ.get("MSHADOW_OPS_VENV") or CACHED_VENV
BENCH = os.path.join(ROOT, "bazel-bin", "ops", "bench", "op_bench")


def parse_input(text):
    """"(4,5)", "(4,5)[0.5,2]" or "(4){0,5}" -> (shape, lo, hi, integer, shift, dtype); a
    trailing "~" (a state input) changes nothing here; a last "+kI" adds k to the diagonal of
    every matrix of the last two axes (shift k, else 0); ":int32" after the range gives the
    input that type (dtype, else float32)."""
    text = text.rstrip("~")
    text, _, dtype = text.partition(":")
    shift = 0.0
    if text.endswith("I") and "+" in text:
        text, _, k = text[:-1].rpartition("+")
        shift = float(k)
    shape_text, _, rest = text.partition(")")
    shape = tuple(int(d) for d in shape_text.strip("(").split(",") if d)
    lo, hi, integer = -1.0, 1.0, False
    if rest:
        integer = rest[0] == "{"
        lo, hi = (float(x) for x in rest[1:-1].split(","))
    return shape, lo, hi, integer, shift, dtype or "float32"


def read_cases(path, suite="mxnet"):
    """The cases of op_bench.txt tagged mxnet (and `suite`, unless it is full or mxnet)."""
    cases = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            options = fields[4].split() if len(fields) > 4 else []
            if "mxnet" not in options or (suite not in ("full", "mxnet") and suite not in options):
                continue
            directions = [d for d in ("forward", "backward") if d in options]
            inference = "inference" in options
            if not directions:
                sys.exit(f"{path}:{number}: an mxnet case names its directions")
            params = dict(kv.partition("=")[::2] for kv in fields[3].split())
            inputs = [parse_input(x) for x in fields[2].split()]
            for direction in directions:
                cases.append({"name": fields[0], "op": fields[1], "direction": direction,
                              "inputs": inputs, "params": params, "inference": inference,
                              "key": fields[0] + "/" + direction})
    return cases


# ---- The MXNet worker (runs inside the virtualenv).

# The batched optimizer updates, which MXNet 1.9.1 runs only into given outputs (without out=
# its shape inference fails), one per weight.
# The batched optimizer updates (names ending in _update; multi_sum_sq and friends are not).
BATCHED_UPDATE_PREFIXES = ("multi_", "preloaded_multi_", "_multi_")


def batched_update_outputs(op, inputs, params):
    """Arrays like each weight, the first of its group of inputs: the groups come before the
    inputs every weight shares (AdamW's rescale_grad; the preloaded forms' lrs and wds)."""
    shared = 2 if op.startswith("preloaded_") else 1 if op.endswith("adamw_update") else 0
    weights = int(params.get("num_weights", params.get("num_tensors", 1)))
    per_weight = (len(inputs) - shared) // weights
    return [inputs[i * per_weight].zeros_like() for i in range(weights)]


def time_calls(call, waitall, min_time, repetitions):
    """Seconds per call in each of `repetitions` batches of about min_time each."""
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
    return samples


def default_layout_surcharge(mx, call, out, waitall, args):
    """Microseconds MXNet adds to a call to hand its outputs over in the default (row-major)
    layout: oneDNN's operators leave them in a layout of their own (a convolution's in NHWC,
    `acdb`), converted when something outside oneDNN reads them. The call followed by a copy
    of each output into a default-layout array, less the call alone and less the same copy
    from default-layout arrays (a plain copy); at least 0."""
    outs = out if isinstance(out, (list, tuple)) else [out]
    targets = [mx.nd.zeros(o.shape, dtype=o.dtype) for o in outs]
    plain = [mx.nd.zeros(o.shape, dtype=o.dtype) for o in outs]

    def call_and_copy():
        call()
        for o, t in zip(outs, targets):
            o.copyto(t)

    def copy_only():
        for p, t in zip(plain, targets):
            p.copyto(t)
    median = lambda f: statistics.median(  # noqa: E731
        time_calls(f, waitall, args.min_time, args.repetitions))
    surcharge = median(call_and_copy) - median(call) - median(copy_only)
    return max(surcharge, 0.0) * 1e6


def mxnet_worker(args):
    import mxnet as mx
    mx.random.seed(1234)
    cases = read_cases(args.cases, args.suite)
    waitall = mx.nd.waitall
    results = {"mxnet": mx.__version__,
               "onednn": bool(mx.runtime.Features().is_enabled("MKLDNN")), "cases": {}}

    # Per-call overhead: a one-element call of each kind.
    a, b, c = mx.nd.ones((1,)), mx.nd.ones((1,)), mx.nd.zeros((1,))
    forward_overhead = statistics.median(time_calls(
        lambda: mx.nd.elemwise_add(a, b, out=c), waitall, args.min_time, args.repetitions))
    a.attach_grad()
    with mx.autograd.record():
        y1 = a * 2
    og1 = mx.nd.ones((1,))
    backward_overhead = statistics.median(time_calls(
        lambda: y1.backward(og1, retain_graph=True), waitall, args.min_time, args.repetitions))
    results["overhead_us"] = {"forward": forward_overhead * 1e6,
                              "backward": backward_overhead * 1e6}

    for case in cases:
        print(f"case {case['key']}", file=sys.stderr, flush=True)
        # Operators whose names start with an underscore (_plus_scalar, _maximum, ...) live
        # in mx.nd._internal, those of _contrib_ in mx.nd.contrib and some of linalg_ in
        # mx.nd.linalg, without the prefix.
        op = case["op"]
        fn = (getattr(mx.nd, op, None) or getattr(mx.nd._internal, op, None)
              or (op.startswith("linalg_") and getattr(mx.nd.linalg, op[len("linalg_"):], None))
              or getattr(mx.nd.contrib, op[len("_contrib_"):]))
        params = dict(case["params"])
        if case["op"] == "Concat":
            params.pop("num_args", None)  # MXNet counts the inputs itself
        inputs = [(mx.nd.random.randint(int(lo), int(hi), shape=shape) if integer
                   else mx.nd.random.uniform(lo, hi, shape=shape)).astype(dtype)
                  for shape, lo, hi, integer, _, dtype in case["inputs"]]
        inputs = [mx.nd.broadcast_add(x, shift * mx.nd.eye(x.shape[-1])) if shift else x
                  for x, (*_, shift, _) in zip(inputs, case["inputs"])]
        conversion = None  # --default-layout: MXNet's conversion of a forward's outputs
        if case["direction"] == "forward":
            # The project's harness runs forward calls in training mode unless the case says
            # `inference`; MXNet gets the same mode.
            mode = mx.autograd.predict_mode if case["inference"] else mx.autograd.train_mode
            with mode():
                if case["op"] == "sgd_mom_update":
                    out = inputs[0]
                elif op.startswith(BATCHED_UPDATE_PREFIXES) and op.endswith("_update"):
                    out = batched_update_outputs(op, inputs, params)
                else:
                    out = fn(*inputs, **params)

            def call(fn=fn, inputs=inputs, out=out, params=params, mode=mode):
                with mode():
                    fn(*inputs, out=out, **params)
            overhead = forward_overhead
            if args.default_layout:
                conversion = default_layout_surcharge(mx, call, out, waitall, args)
        else:
            for x, (_, _, _, integer, _, _) in zip(inputs, case["inputs"]):
                if not integer:  # indices and labels take no gradient (MXNet's Embedding
                    x.attach_grad()  # refuses to compute one)
            with mx.autograd.record():
                y = fn(*inputs, **params)
            ys = y if isinstance(y, list) else [y]  # SliceChannel has several outputs
            # In each output's type: a float32 gradient of Cast's float64 output had MXNet's
            # backward convert float32 to float32, against our float64 to float32.
            ogs = [mx.nd.random.uniform(-1, 1, shape=x.shape).astype(x.dtype) for x in ys]
            call = lambda: mx.autograd.backward(ys, ogs, retain_graph=True)  # noqa: E731
            overhead = backward_overhead
        samples = time_calls(call, waitall, args.min_time, args.repetitions)
        samples_us = [max(x - overhead, 1e-9) * 1e6 for x in samples]
        results["cases"][case["key"]] = {"raw_us": statistics.median(samples) * 1e6,
                                         "samples_us": samples_us,
                                         "us": statistics.median(samples_us)}
        if conversion is not None:
            results["cases"][case["key"]]["conversion_us"] = conversion
    json.dump(results, sys.stdout)


# ---- The driver.

def ensure_venv(venv):
    """The interpreter of the MXNet virtualenv that this script and tools/python/run_tests.sh
    share, with what both need installed. A venv whose Python does not run is made anew where
    it is the project's cache, and refused otherwise: one of them had made the cache with
    fewer packages, the other had run `venv` over it with another Python, and the result
    could not import the standard library."""
    python = os.path.join(venv, "bin", "python")

    def imports(modules):
        return (os.path.exists(python) and
                subprocess.run([python, "-c", modules], capture_output=True).returncode == 0)

    probe = "import mxnet, numpy, pytest; assert mxnet.__version__ == '1.9.1'"
    if imports(probe):
        return python
    if not imports("import struct, ensurepip"):
        if os.path.exists(venv) and os.path.realpath(venv) != os.path.realpath(CACHED_VENV):
            sys.exit(f"mxnet_compare: {venv} is not a working virtualenv; remove it or set "
                     "MSHADOW_OPS_VENV to another")
        subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
    print(f"mxnet_compare: installing mxnet==1.9.1, numpy<1.24 and pytest into {venv}",
          file=sys.stderr)
    subprocess.run([python, "-m", "pip", "install", "-q", "mxnet==1.9.1", "numpy<1.24", "pytest"],
                   check=True, stdout=sys.stderr)
    subprocess.run([python, "-c", probe], check=True)
    return python


def thread_env(threads):
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
                "MKL_NUM_THREADS": str(threads), "MXNET_ENGINE_TYPE": "NaiveEngine"})
    return env


def run_project(args, threads):
    out = subprocess.run(
        [args.bench, "--suite=mxnet", f"--cases={args.cases}", "--benchmark_format=json",
         f"--benchmark_min_time={args.min_time}",
         f"--benchmark_repetitions={args.repetitions}",
         "--benchmark_report_aggregates_only=true"],
        env=thread_env(threads), capture_output=True, text=True, check=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            key = b["run_name"].rsplit("/float32/real_time", 1)[0]
            times[key] = b["real_time"]  # microseconds (the benchmark's unit)
    return times


def run_mxnet(args, python, threads):
    out = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", f"--cases={args.cases}",
         f"--suite={args.suite}", f"--min-time={args.min_time}",
         f"--repetitions={args.repetitions}"]
        + (["--default-layout"] if args.default_layout else []),
        env=thread_env(threads), capture_output=True, text=True)
    if out.returncode != 0:
        # The worker names each case on stderr before it runs it: the last one failed.
        sys.exit(f"mxnet_compare: the MXNet worker failed ({threads} thread(s)):\n"
                 + "\n".join(out.stderr.splitlines()[-15:]))
    return json.loads(out.stdout)


def mxnet_entries(suite, repetitions, min_time, python, cases=DEFAULT_CASES):
    """MXNet's times of the suite's mxnet cases, as a results file's context and entries
    (one "iteration" entry per repetition, named like op_bench's with binary "mxnet"), on
    the threads of the caller's environment. `python`: ensure_venv's interpreter."""
    args = argparse.Namespace(cases=cases, suite=suite, min_time=min_time,
                              repetitions=repetitions, default_layout=False)
    env_threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    worker = run_mxnet(args, python, env_threads)
    entries = []
    for key, case in worker["cases"].items():
        for index, sample in enumerate(case["samples_us"]):
            entries.append({"name": f"mxnet:{key}/float32", "run_name": f"mxnet:{key}/float32",
                            "run_type": "iteration", "repetitions": repetitions,
                            "repetition_index": index, "iterations": 1, "real_time": sample,
                            "cpu_time": sample, "time_unit": "us"})
    context = {"mxnet": worker["mxnet"], "onednn": worker["onednn"],
               "engine": "NaiveEngine", "threads": env_threads,
               "overhead_us_subtracted": worker["overhead_us"]}
    return context, entries


def case_summary(rounds, key):
    """One case over `rounds` (a thread count's entries of the JSON record): each side's median
    time, the per-round ratios' median and range (low, high), and `fastest`, MXNet's fastest
    round over ours. On a shared machine a round's time moves with the neighbours' load, on
    either side; the fastest rounds compare the two at their least disturbed."""
    project = [x["project_us"][key] for x in rounds]
    mxnet = [x["mxnet"]["cases"][key]["us"] for x in rounds]
    ratios = [m / p for m, p in zip(mxnet, project)]
    summary = {"project_us": statistics.median(project), "mxnet_us": statistics.median(mxnet),
               "ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
               "fastest": min(mxnet) / min(project)}
    conversions = [x["mxnet"]["cases"][key].get("conversion_us") for x in rounds]
    if None not in conversions:  # --default-layout: MXNet's time with its outputs converted
        summary["conversion_us"] = statistics.median(conversions)
        summary["converted_ratio"] = statistics.median(
            (m + v) / p for m, v, p in zip(mxnet, conversions, project))
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default=DEFAULT_CASES)
    parser.add_argument("--suite", default="mxnet", help=argparse.SUPPRESS)
    parser.add_argument("--bench", default=BENCH, help="the op_bench binary")
    parser.add_argument("--venv", default=DEFAULT_VENV)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.1)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--json", help="write every measurement here")
    parser.add_argument("--default-layout", action="store_true",
                        help="also time MXNet's forward calls with their outputs converted to "
                        "the default layout, which oneDNN's operators leave in their own")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        mxnet_worker(args)
        return 0

    if not os.access(args.bench, os.X_OK):
        sys.exit(f"mxnet_compare: {args.bench} is missing; build it first: "
                 "./tools/bazel build //ops/bench:op_bench")
    import openblas_core  # the harness's side only; the worker inherits its environment
    openblas_core.use_cpu_kernels()
    python = ensure_venv(args.venv)
    cases = read_cases(args.cases, args.suite)
    if not cases:
        sys.exit(f"mxnet_compare: {args.cases} has no case tagged mxnet"
                 + (f" and {args.suite}" if args.suite not in ("full", "mxnet") else ""))
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
        print(f"{'case':45} {'project us':>11} {'MXNet us':>10} {'ratio':>7}  {'range':9}  "
              "fastest" + ("  conversion us  ratio with it" if args.default_layout else ""))
        for case in cases:
            c = case_summary(rounds, case["key"])
            worst = c["ratio"] if worst is None else min(worst, c["ratio"])
            line = (f"ratio {case['key']:39} {c['project_us']:11.1f} {c['mxnet_us']:10.1f} "
                    f"{c['ratio']:7.2f}  {c['low']:.2f}-{c['high']:.2f}  {c['fastest']:7.2f}")
            if "conversion_us" in c:
                line += f"  {c['conversion_us']:13.1f}  {c['converted_ratio']:13.2f}"
            print(line)
    print(f"\nlowest median ratio: {worst:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
